// SPDX-License-Identifier: GPL-2.0
/* policy/parse.c and the section files: one document to structs; every key, every error path. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "policy/policy.h"

#define S "{\"schema\":\"warden.policy/1\""

static int parse(const char *json, struct wd_policy *p, struct wd_policy_error *e)
{
	return wd_policy_parse(json, strlen(json), p, e);
}

/* @json must parse; the caller frees *@p. */
static void ok(const char *json, struct wd_policy *p)
{
	struct wd_policy_error e;

	if (parse(json, p, &e))
		fail_msg("%s\nrefused: %s: %s", json, e.pointer, e.msg);
}

/* The policy must be refused with exactly this pointer, and a message containing @words. */
static void refused(const char *json, const char *pointer, const char *words)
{
	struct wd_policy p;
	struct wd_policy_error e;
	int r = parse(json, &p, &e);

	if (r == 0) {
		wd_policy_free(&p);
		fail_msg("%s\nwas accepted; want %s: %s", json, pointer, words);
	}
	assert_int_equal(r, -EINVAL);
	if (strcmp(e.pointer, pointer))
		fail_msg("%s\npointer %s (%s), want %s", json, e.pointer, e.msg, pointer);
	if (!strstr(e.msg, words))
		fail_msg("%s\nmessage \"%s\" lacks \"%s\"", json, e.msg, words);
}

/* caps: names from the short list kept, once each; everything else refused by its pointer. */
static void test_caps(void **state)
{
	struct wd_policy p;
	size_t n, allowed = 0;
	const struct wd_cap_info *t = wd_cap_table(&n);

	(void)state;
	ok(S "}", &p);
	assert_int_equal(p.caps.n, 0);
	assert_int_equal(wd_policy_caps_mask(&p), 0);
	wd_policy_free(&p);
	ok(S ",\"caps\":[\"CAP_NET_BIND_SERVICE\",\"CAP_CHOWN\",\"CAP_CHOWN\"]}", &p);
	assert_int_equal(p.caps.n, 2);
	assert_string_equal(p.caps.paths[0], "CAP_NET_BIND_SERVICE");
	assert_true(wd_policy_caps_mask(&p) == ((1ULL << 10) | (1ULL << 0)));
	wd_policy_free(&p);
	ok(S ",\"caps\":[]}", &p);
	assert_int_equal(p.caps.n, 0);
	wd_policy_free(&p);

	refused(S ",\"caps\":\"CAP_CHOWN\"}", "/caps", "expected an array");
	refused(S ",\"caps\":[1]}", "/caps/0", "got a number");
	refused(S ",\"caps\":[\"CAP_CHOWN\",\"CAP_SYS_ADMIN\"]}", "/caps/1",
		"CAP_SYS_ADMIN is refused: a process holding it mounts");
	refused(S ",\"caps\":[\"cap_chown\"]}", "/caps/0", "upper case");
	refused(S ",\"caps\":[\"CAP_NOSUCH\"]}", "/caps/0", "a policy may keep: CAP_CHOWN");
	/* the ones the brief names as the way out, each refused with a reason */
	{
		static const char *const no[] = {
			"CAP_SYS_ADMIN", "CAP_SYS_PTRACE", "CAP_SYS_MODULE", "CAP_BPF",
			"CAP_PERFMON", "CAP_NET_ADMIN", "CAP_SYS_RAWIO", "CAP_MAC_ADMIN",
			"CAP_SYS_TIME", "CAP_SYSLOG", "CAP_SYS_BOOT", "CAP_DAC_READ_SEARCH",
			"CAP_MKNOD", "CAP_NET_RAW", "CAP_SETPCAP", "CAP_SETFCAP",
			"CAP_SYS_NICE", "CAP_SYS_CHROOT", "CAP_SYS_RESOURCE",
		};
		char json[256];

		for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
			snprintf(json, sizeof(json), S ",\"caps\":[\"%s\"]}", no[i]);
			refused(json, "/caps/0", "is refused: a process holding it");
		}
	}
	/* the table names every capability of this kernel's headers, in number order */
	assert_int_equal(n, 41);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(t[i].nr, (int)i);
		assert_non_null(t[i].risk);
		allowed += t[i].allowed;
	}
	assert_int_equal(allowed, 8);
}

static void test_minimal(void **state)
{
	struct wd_policy p;

	(void)state;
	ok(S "}", &p);
	assert_int_equal(p.mode, WD_MODE_ENFORCE);
	assert_false(p.mode_set.set);
	assert_int_equal(p.fs_read.n, 0);
	assert_int_equal(wd_policy_features(&p), 0);
	assert_int_equal(p.n_origins, 1);
	wd_policy_free(&p);
}

static void test_full_fs(void **state)
{
	struct wd_policy p;

	(void)state;
	ok(S ",\"mode\":\"audit\",\"fs\":{\"read\":[\"/usr\",\"//etc//ssl/\"],"
	     "\"write\":[\"/tmp/\"],"
	     "\"exec\":[\"/\"],\"deny\":[\"/usr/secret\"]}}\n\n",
	   &p);
	assert_int_equal(p.mode, WD_MODE_AUDIT);
	assert_true(p.mode_set.set);
	assert_int_equal(p.fs_read.n, 2);
	assert_string_equal(p.fs_read.paths[0], "/usr");
	assert_string_equal(p.fs_read.paths[1], "/etc/ssl");
	assert_int_equal(p.fs_write.n, 1);
	assert_string_equal(p.fs_write.paths[0], "/tmp");
	assert_int_equal(p.fs_exec.n, 1);
	assert_string_equal(p.fs_exec.paths[0], "/");
	assert_int_equal(p.fs_deny.n, 1);
	assert_string_equal(p.fs_deny.paths[0], "/usr/secret");
	assert_int_equal(wd_policy_features(&p), WD_FEAT_FS | WD_FEAT_MODE | WD_FEAT_FS_DENY);
	wd_policy_free(&p);
}

static void test_variables(void **state)
{
	struct wd_policy p;

	(void)state;
	ok(S ",\"fs\":{\"write\":[\"$WORKDIR\",\"$HOME/.cache/\",\"$TMPDIR//x/y\",\"$WORKDIR/\"]}}",
	   &p);
	assert_string_equal(p.fs_write.paths[0], "$WORKDIR");
	assert_string_equal(p.fs_write.paths[1], "$HOME/.cache");
	assert_string_equal(p.fs_write.paths[2], "$TMPDIR/x/y");
	assert_string_equal(p.fs_write.paths[3], "$WORKDIR");
	wd_policy_free(&p);
}

static void test_protect(void **state)
{
	struct wd_policy p;

	(void)state;
	ok(S ",\"fs\":{\"protect\":[\"/data\",{\"path\":\"$WORKDIR/.git\",\"ops\":[\"delete\","
	     "\"truncate\"],\"action\":\"hold\"},{\"path\":\"/x\",\"action\":\"deny\"}]}}",
	   &p);
	assert_int_equal(p.n_fs_protect, 3);
	assert_string_equal(p.fs_protect[0].path, "/data");
	assert_int_equal(p.fs_protect[0].ops, WD_PROTECT_ALL);
	assert_int_equal(p.fs_protect[0].action, WD_ACTION_DENY);
	assert_string_equal(p.fs_protect[1].path, "$WORKDIR/.git");
	assert_int_equal(p.fs_protect[1].ops, WD_PROTECT_DELETE | WD_PROTECT_TRUNCATE);
	assert_int_equal(p.fs_protect[1].action, WD_ACTION_HOLD);
	assert_int_equal(p.fs_protect[2].ops, WD_PROTECT_ALL);
	assert_int_equal(wd_policy_features(&p), WD_FEAT_FS_PROTECT);
	wd_policy_free(&p);
}

static void test_exec(void **state)
{
	struct wd_policy p;
	char *args1[] = { "push", "origin", "main" };
	char *args2[] = { "status" };
	char *args3[] = { "push" };

	(void)state;
	ok(S ",\"exec\":{\"allow\":[\"/usr/bin\"],\"deny\":[{\"path\":\"/usr/bin/git\",\"argv\":"
	     "[\"push\",\"**\"]}],\"hold\":[{\"path\":\"/usr/bin/rm\",\"argv\":[\"-[rR]*\",\"*\"]},"
	     "{\"path\":\"/bin/true\",\"argv\":[]}]}}",
	   &p);
	assert_int_equal(p.exec_allow.n, 1);
	assert_false(p.exec_allow.v[0].has_argv);
	assert_int_equal(p.exec_deny.n, 1);
	assert_string_equal(p.exec_deny.v[0].path, "/usr/bin/git");
	assert_int_equal(p.exec_deny.v[0].argc, 2);
	assert_true(wd_exec_rule_matches(&p.exec_deny.v[0], args1, 3));
	assert_true(wd_exec_rule_matches(&p.exec_deny.v[0], args3, 1));
	assert_false(wd_exec_rule_matches(&p.exec_deny.v[0], args2, 1));
	assert_false(wd_exec_rule_matches(&p.exec_deny.v[0], args1, 0));
	assert_true(wd_exec_rule_matches(&p.exec_allow.v[0], args1, 3));
	assert_int_equal(p.exec_hold.n, 2);
	{
		char *rm1[] = { "-rf", "/" }, *rm2[] = { "-f", "/" }, *rm3[] = { "-r", "a", "b" };

		assert_true(wd_exec_rule_matches(&p.exec_hold.v[0], rm1, 2));
		assert_false(wd_exec_rule_matches(&p.exec_hold.v[0], rm2, 2));
		assert_false(wd_exec_rule_matches(&p.exec_hold.v[0], rm3, 3));
	}
	assert_true(p.exec_hold.v[1].has_argv);
	assert_true(wd_exec_rule_matches(&p.exec_hold.v[1], args1, 0));
	assert_false(wd_exec_rule_matches(&p.exec_hold.v[1], args2, 1));
	/* three parts: exec.deny (kernel and waiting room), exec.hold (waiting room), and
	 * exec.allow (not enforced yet) */
	assert_int_equal(wd_policy_features(&p),
			 WD_FEAT_EXEC | WD_FEAT_EXEC_ALLOW | WD_FEAT_EXEC_HOLD);
	wd_policy_free(&p);
}

static void test_net(void **state)
{
	struct wd_policy p;

	(void)state;
	ok(S ",\"net\":{\"default\":\"allow\",\"allow\":[\"tcp:api.example.com:443\","
	     "\"10.0.0.0/8:80-90\",\"[2001:db8::/32]:*\",\"udp:*.Example.COM.:53\"],"
	     "\"deny\":[\"*:25\",\"[::ffff:192.168.1.1]:22\"],\"egress_rate\":\"1MiB/s\"}}",
	   &p);
	assert_int_equal(p.net_default, WD_ACTION_ALLOW);
	assert_true(p.net_default_set.set);
	assert_int_equal(p.net_allow.n, 4);
	assert_int_equal(p.net_allow.v[0].proto, WD_NET_PROTO_TCP);
	assert_int_equal(p.net_allow.v[0].kind, WD_NET_HOST_NAME);
	assert_string_equal(p.net_allow.v[0].name, "api.example.com");
	assert_int_equal(p.net_allow.v[1].kind, WD_NET_HOST_ADDR);
	assert_int_equal(p.net_allow.v[1].family, AF_INET);
	assert_int_equal(p.net_allow.v[1].prefix, 8);
	assert_int_equal(p.net_allow.v[1].port_lo, 80);
	assert_int_equal(p.net_allow.v[1].port_hi, 90);
	assert_int_equal(p.net_allow.v[2].family, AF_INET6);
	assert_int_equal(p.net_allow.v[2].port_lo, 0);
	assert_int_equal(p.net_allow.v[2].port_hi, 65535);
	assert_string_equal(p.net_allow.v[3].name, "*.example.com");
	assert_int_equal(p.net_deny.v[0].kind, WD_NET_HOST_ANY);
	/* IPv4-mapped IPv6 is folded to IPv4 */
	assert_int_equal(p.net_deny.v[1].family, AF_INET);
	assert_int_equal(p.net_deny.v[1].prefix, 32);
	assert_int_equal(p.egress_bytes, 1 << 20);
	assert_int_equal(p.egress_per_ms, 1000);
	assert_int_equal(wd_policy_features(&p), WD_FEAT_NET | WD_FEAT_NET_NAMES | WD_FEAT_NET_RATE);
	wd_policy_free(&p);
}

static void test_limits(void **state)
{
	struct wd_policy p;

	(void)state;
	ok(S ",\"limits\":{\"wall_time\":\"1h30m\",\"cpu_time\":\"500ms\",\"memory\":\"256MiB\","
	     "\"pids\":64,\"fork_rate\":\"50/s\",\"output\":\"0B\",\"cpu\":0.25,"
	     "\"kill_grace\":\"2s\",\"disk\":\"64MiB\"}}",
	   &p);
	assert_int_equal(p.limits[WD_LIMIT_WALL_TIME].value, 5400000);
	assert_int_equal(p.limits[WD_LIMIT_CPU_TIME].value, 500);
	assert_int_equal(p.limits[WD_LIMIT_MEMORY].value, 256 << 20);
	assert_int_equal(p.limits[WD_LIMIT_PIDS].value, 64);
	assert_int_equal(p.limits[WD_LIMIT_FORK_RATE].value, 50);
	assert_int_equal(p.limits[WD_LIMIT_FORK_RATE].per_ms, 1000);
	assert_true(p.limits[WD_LIMIT_OUTPUT].s.set);
	assert_int_equal(p.limits[WD_LIMIT_OUTPUT].value, 0);
	assert_int_equal(p.limits[WD_LIMIT_CPU].value, 250);
	assert_int_equal(p.limits[WD_LIMIT_KILL_GRACE].value, 2000);
	assert_int_equal(p.limits[WD_LIMIT_DISK].value, 64 << 20);
	for (int i = 0; i < WD_LIMIT_NR; i++)
		assert_true(p.limits[i].s.set);
	/* every limit is enforced somewhere: WD_FEAT_LIMITS would name one that is not */
	assert_int_equal(wd_policy_features(&p), WD_FEAT_FORK_RATE);
	wd_policy_free(&p);
}

static void test_env_user_ns_hold(void **state)
{
	struct wd_policy p;

	(void)state;
	ok(S ",\"env\":{\"pass\":[\"PATH\",\"LC_*\",\"PATH\"],\"set\":{\"LANG\":\"C.UTF-8\","
	     "\"EMPTY\":\"\"}},\"user\":\"www-data:www-data\",\"namespaces\":{\"mount\":"
	     "\"private\","
	     "\"pid\":\"private\",\"ipc\":\"host\",\"uts\":\"private\",\"net\":\"veth\"},"
	     "\"hold\":{\"timeout\":\"2m\",\"on_timeout\":\"allow\",\"approvers\":[\"user:alice\","
	     "\"group:wardens\",\"user:1000\"]}}",
	   &p);
	assert_int_equal(p.env_pass.n, 2); /* the repeat is dropped */
	assert_string_equal(p.env_pass.paths[1], "LC_*");
	assert_int_equal(p.n_env_set, 2);
	assert_string_equal(p.env_set[0].name, "LANG");
	assert_string_equal(p.env_set[0].value, "C.UTF-8");
	assert_string_equal(p.env_set[1].value, "");
	assert_string_equal(p.user, "www-data");
	assert_string_equal(p.group, "www-data");
	assert_int_equal(p.ns[WD_NS_MOUNT], WD_NS_PRIVATE);
	assert_int_equal(p.ns[WD_NS_IPC], WD_NS_HOST);
	assert_true(p.ns_set[WD_NS_IPC].set);
	assert_int_equal(p.ns[WD_NS_NET], WD_NS_VETH);
	assert_int_equal(p.hold_timeout_ms, 120000);
	assert_int_equal(p.hold_on_timeout, WD_ACTION_ALLOW);
	assert_int_equal(p.hold_approvers.n, 3);
	assert_int_equal(wd_policy_features(&p), WD_FEAT_ENV | WD_FEAT_USER | WD_FEAT_NAMESPACES |
							 WD_FEAT_HOLD | WD_FEAT_HOLD_APPROVERS |
							 WD_FEAT_NET_VETH);
	wd_policy_free(&p);

	ok(S ",\"user\":65534,\"namespaces\":{\"net\":\"none\"}}", &p);
	assert_string_equal(p.user, "65534");
	assert_null(p.group);
	assert_int_equal(p.ns[WD_NS_NET], WD_NS_NONE);
	wd_policy_free(&p);

	ok(S ",\"namespaces\":{\"tmp\":\"private\",\"bind_ro\":[\"/srv//data/\",\"$HOME/cfg\"]}}",
	   &p);
	assert_int_equal(p.ns[WD_NS_TMP], WD_NS_PRIVATE);
	assert_int_equal(p.ns_bind_ro.n, 2);
	assert_string_equal(p.ns_bind_ro.paths[0], "/srv/data");
	assert_string_equal(p.ns_bind_ro.paths[1], "$HOME/cfg");
	assert_int_equal(wd_policy_features(&p), WD_FEAT_NAMESPACES);
	wd_policy_free(&p);

	/* a delete burst is a hold setting: both parts, and where it says it */
	ok(S ",\"hold\":{\"delete_burst\":{\"count\":100,\"window\":\"1m30s\"}}}", &p);
	assert_true(p.hold_burst_set.set);
	assert_int_equal(p.hold_burst_count, 100);
	assert_int_equal(p.hold_burst_window_ms, 90000);
	assert_int_equal(wd_policy_features(&p), WD_FEAT_HOLD);
	wd_policy_free(&p);

	/* Namespaces that stay the host's ask for nothing */
	ok(S ",\"namespaces\":{\"pid\":\"host\",\"net\":\"host\",\"tmp\":\"host\"}}", &p);
	assert_int_equal(wd_policy_features(&p), 0);
	wd_policy_free(&p);
}

static void test_extends(void **state)
{
	struct wd_policy p;

	(void)state;
	ok(S ",\"extends\":\"cli\"}", &p);
	assert_int_equal(p.extends.n, 1);
	assert_string_equal(p.extends.paths[0], "cli");
	wd_policy_free(&p);
	ok(S ",\"extends\":[\"worker\",\"./base.json\",\"/etc/warden/x.json\"]}", &p);
	assert_int_equal(p.extends.n, 3);
	assert_string_equal(p.extends.paths[1], "./base.json");
	wd_policy_free(&p);
}

static void test_normalise(void **state)
{
	char out[64];
	const char *why = NULL;

	(void)state;
	assert_int_equal(wd_path_normalise("/a//b///c/", out, sizeof(out), &why), 0);
	assert_string_equal(out, "/a/b/c");
	assert_int_equal(wd_path_normalise("////", out, sizeof(out), &why), 0);
	assert_string_equal(out, "/");
	assert_int_equal(wd_path_normalise("/a/../b", out, sizeof(out), &why), -EINVAL);
	assert_non_null(strstr(why, ".."));
	assert_int_equal(wd_path_normalise("/a/./b", out, sizeof(out), &why), -EINVAL);
	assert_int_equal(wd_path_normalise("a/b", out, sizeof(out), &why), -EINVAL);
	assert_non_null(strstr(why, "absolute"));
	/* "..." is a name, not a component to refuse */
	assert_int_equal(wd_path_normalise("/a/.../b..", out, sizeof(out), &why), 0);
	assert_string_equal(out, "/a/.../b..");
	assert_int_equal(wd_path_normalise("/abcdefgh", out, 8, &why), -EINVAL);
	assert_int_equal(wd_path_normalise("/", out, 1, &why), -EINVAL);
}

static void test_errors_document(void **state)
{
	(void)state;
	refused("{\"fs\":{}}", "/schema", "missing");
	refused("{\"schema\":\"warden.policy/2\"}", "/schema", "warden.policy/1");
	refused("{\"schema\":1}", "/schema", "got a number");
	refused("[]", "", "expected a JSON object");
	refused("\"x\"", "", "expected a JSON object, got a string");
	refused(S ",\"schema\":\"warden.policy/1\"}", "/schema", "duplicate key");
	refused(S ",\"nope\":1}", "/nope", "unknown key");
	refused(S ",\"nope\":1}", "/nope", "expected \"schema\", \"extends\"");
	refused(S ",\"a/b~c\":1}", "/a~1b~0c", "unknown key");
	refused(S ",\"Mode\":\"audit\"}", "/Mode", "did you mean \"mode\"?");
	refused(S ",\"namespace\":{}}", "/namespace", "did you mean \"namespaces\"?");
	refused(S ",\"mode\":\"lax\"}", "/mode", "\"enforce\" or");
	refused(S ",\"mode\":\"enfroce\"}", "/mode", "did you mean \"enforce\"?");
	refused(S ",\"mode\":true}", "/mode", "got a boolean");
	refused(S ",\"mode\":null}", "/mode", "got null");
	refused(S ",\"extends\":3}", "/extends", "a template name, a policy file, or an array");
	refused(S ",\"extends\":\"\"}", "/extends", "empty string");
	refused(S ",\"extends\":\"clii\"}", "/extends", "did you mean \"cli\"?");
	refused(S ",\"extends\":\"nosuchthing\"}", "/extends", "unknown template");
	refused(S ",\"extends\":[\"cli\",\"cli\"]}", "/extends/1", "extended twice");
	refused(S ",\"extends\":[\"cli\",1]}", "/extends/1", "got a number");
	refused(S ",\"extends\":\"a\\u0001.json\"}", "/extends", "control characters");
	refused(S ",\"extends\":[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\"]}",
		"/extends", "at most 8");
}

static void test_errors_fs(void **state)
{
	(void)state;
	refused(S ",\"fs\":[]}", "/fs", "expected an object");
	refused(S ",\"fs\":{\"raed\":[]}}", "/fs/raed", "did you mean \"read\"?");
	refused(S ",\"fs\":{\"xyzzy\":[]}}", "/fs/xyzzy", "expected \"read\", \"write\"");
	refused(S ",\"fs\":{\"read\":\"/usr\"}}", "/fs/read", "expected an array");
	refused(S ",\"fs\":{\"read\":[\"/usr\",3]}}", "/fs/read/1", "got a number");
	refused(S ",\"fs\":{\"write\":[\"tmp\"]}}", "/fs/write/0", "absolute");
	refused(S ",\"fs\":{\"write\":[\"tmp\"]}}", "/fs/write/0", "$WORKDIR/tmp");
	refused(S ",\"fs\":{\"write\":[\"\"]}}", "/fs/write/0", "empty string");
	refused(S ",\"fs\":{\"exec\":[\"/usr/../bin\"]}}", "/fs/exec/0", "..");
	refused(S ",\"fs\":{\"exec\":[\"/usr/./bin\"]}}", "/fs/exec/0", "\".\"");
	refused(S ",\"fs\":{\"read\":[],\"read\":[]}}", "/fs/read", "duplicate");
	refused(S ",\"fs\":{\"read\":[\"~/x\"]}}", "/fs/read/0", "$HOME/x");
	refused(S ",\"fs\":{\"read\":[\"$WORKIDR/x\"]}}", "/fs/read/0",
		"did you mean \"$WORKDIR\"?");
	refused(S ",\"fs\":{\"read\":[\"$FOO\"]}}", "/fs/read/0", "known: $WORKDIR");
	refused(S ",\"fs\":{\"read\":[\"$WORKDIRx/a\"]}}", "/fs/read/0", "unknown variable");
	refused(S ",\"fs\":{\"read\":[\"/a/$HOME\"]}}", "/fs/read/0", "may only start a path");
	refused(S ",\"fs\":{\"read\":[\"$HOME/../x\"]}}", "/fs/read/0", "..");
	refused(S ",\"fs\":{\"read\":[\"/home/*/.ssh\"]}}", "/fs/read/0", "not a pattern");
	refused(S ",\"fs\":{\"read\":[\"/a\\tb\"]}}", "/fs/read/0", "control characters");
	refused(S ",\"fs\":{\"deny\":[1]}}", "/fs/deny/0", "got a number");
	refused(S ",\"fs\":{\"protect\":{}}}", "/fs/protect", "expected an array");
	refused(S ",\"fs\":{\"protect\":[3]}}", "/fs/protect/0", "expected a path, or an object");
	refused(S ",\"fs\":{\"protect\":[{}]}}", "/fs/protect/0", "missing \"path\"");
	refused(S ",\"fs\":{\"protect\":[{\"path\":\"x\"}]}}", "/fs/protect/0/path", "absolute");
	refused(S ",\"fs\":{\"protect\":[{\"path\":\"/x\",\"op\":[]}]}}", "/fs/protect/0/op",
		"did you mean \"ops\"?");
	refused(S ",\"fs\":{\"protect\":[{\"path\":\"/x\",\"ops\":\"delete\"}]}}",
		"/fs/protect/0/ops", "expected an array");
	refused(S ",\"fs\":{\"protect\":[{\"path\":\"/x\",\"ops\":[]}]}}", "/fs/protect/0/ops",
		"at least one");
	refused(S ",\"fs\":{\"protect\":[{\"path\":\"/x\",\"ops\":[\"delet\"]}]}}",
		"/fs/protect/0/ops/0", "did you mean \"delete\"?");
	refused(S ",\"fs\":{\"protect\":[{\"path\":\"/x\",\"ops\":[\"rename\",\"rename\"]}]}}",
		"/fs/protect/0/ops/1", "listed twice");
	refused(S ",\"fs\":{\"protect\":[{\"path\":\"/x\",\"action\":\"ask\"}]}}",
		"/fs/protect/0/action", "\"deny\" or \"hold\"");
}

static void test_errors_exec(void **state)
{
	(void)state;
	refused(S ",\"exec\":[]}", "/exec", "expected an object");
	refused(S ",\"exec\":{\"allwo\":[]}}", "/exec/allwo", "did you mean \"allow\"?");
	refused(S ",\"exec\":{\"allow\":\"/bin\"}}", "/exec/allow", "expected an array");
	refused(S ",\"exec\":{\"deny\":[true]}}", "/exec/deny/0", "got a boolean");
	refused(S ",\"exec\":{\"deny\":[\"git\"]}}", "/exec/deny/0", "absolute");
	refused(S ",\"exec\":{\"hold\":[{\"argv\":[]}]}}", "/exec/hold/0", "missing \"path\"");
	refused(S ",\"exec\":{\"hold\":[{\"path\":\"/bin/rm\",\"args\":[]}]}}", "/exec/hold/0/args",
		"did you mean \"argv\"?");
	refused(S ",\"exec\":{\"hold\":[{\"path\":\"/bin/rm\",\"argv\":\"-rf\"}]}}",
		"/exec/hold/0/argv", "expected an array");
	refused(S ",\"exec\":{\"hold\":[{\"path\":\"/bin/rm\",\"argv\":[1]}]}}",
		"/exec/hold/0/argv/0", "got a number");
	refused(S ",\"exec\":{\"hold\":[{\"path\":\"/bin/rm\",\"argv\":[\"**\",\"x\"]}]}}",
		"/exec/hold/0/argv/0", "only be the last");
	refused(S ",\"exec\":{\"hold\":[{\"path\":\"/bin/rm\",\"argv\":[\"[a\"]}]}}",
		"/exec/hold/0/argv/0", "without \"]\"");
	refused(S ",\"exec\":{\"hold\":[{\"path\":\"/bin/rm\",\"argv\":[\"a\\\\\"]}]}}",
		"/exec/hold/0/argv/0", "ends in");
}

static void test_errors_net(void **state)
{
	(void)state;
	refused(S ",\"net\":\"deny\"}", "/net", "expected an object");
	refused(S ",\"net\":{\"defualt\":\"deny\"}}", "/net/defualt", "did you mean \"default\"?");
	refused(S ",\"net\":{\"default\":\"block\"}}", "/net/default", "\"deny\" or \"allow\"");
	refused(S ",\"net\":{\"allow\":\"x\"}}", "/net/allow", "expected an array");
	refused(S ",\"net\":{\"allow\":[443]}}", "/net/allow/0", "got a number");
	refused(S ",\"net\":{\"allow\":[\"example.com\"]}}", "/net/allow/0", "missing port");
	refused(S ",\"net\":{\"deny\":[\"10.0.0.1/8:1\"]}}", "/net/deny/0", "10.0.0.0/8");
	refused(S ",\"net\":{\"egress_rate\":5}}", "/net/egress_rate", "got a number");
	refused(S ",\"net\":{\"egress_rate\":\"5\"}}", "/net/egress_rate", "1MiB/s");
	refused(S ",\"net\":{\"egress_rate\":\"0B/s\"}}", "/net/egress_rate", "above zero");
	refused(S ",\"net\":{\"egress_rate\":\"1XB/s\"}}", "/net/egress_rate", "unknown unit");
}

static void test_errors_limits(void **state)
{
	(void)state;
	refused(S ",\"limits\":[]}", "/limits", "expected an object");
	refused(S ",\"limits\":{\"wal_time\":\"1s\"}}", "/limits/wal_time",
		"did you mean \"wall_time\"?");
	refused(S ",\"limits\":{\"wall_time\":30}}", "/limits/wall_time", "got a number");
	refused(S ",\"limits\":{\"wall_time\":\"30\"}}", "/limits/wall_time", "\"30s\"");
	refused(S ",\"limits\":{\"wall_time\":\"0s\"}}", "/limits/wall_time", "at least 1ms");
	refused(S ",\"limits\":{\"cpu_time\":\"1.5h\"}}", "/limits/cpu_time", "whole units");
	refused(S ",\"limits\":{\"cpu_time\":\"3y\"}}", "/limits/cpu_time", "unknown unit");
	refused(S ",\"limits\":{\"memory\":\"512K\"}}", "/limits/memory", "unknown unit");
	refused(S ",\"limits\":{\"memory\":\"64KiB\"}}", "/limits/memory", "at least 1MiB");
	refused(S ",\"limits\":{\"memory\":\"1.1KiB\"}}", "/limits/memory",
		"whole number of bytes");
	refused(S ",\"limits\":{\"memory\":true}}", "/limits/memory", "got a boolean");
	refused(S ",\"limits\":{\"pids\":\"64\"}}", "/limits/pids", "got a string");
	refused(S ",\"limits\":{\"pids\":0}}", "/limits/pids", "from 1 to 4194304");
	refused(S ",\"limits\":{\"pids\":1.5}}", "/limits/pids", "whole number");
	refused(S ",\"limits\":{\"pids\":1e99}}", "/limits/pids", "from 1 to");
	refused(S ",\"limits\":{\"fork_rate\":\"50\"}}", "/limits/fork_rate", "\"50/s\"");
	refused(S ",\"limits\":{\"fork_rate\":\"0/s\"}}", "/limits/fork_rate", "at least");
	refused(S ",\"limits\":{\"fork_rate\":\"50/d\"}}", "/limits/fork_rate", "rate such as");
	refused(S ",\"limits\":{\"output\":\"lots\"}}", "/limits/output", "size such as");
	refused(S ",\"limits\":{\"output\":\"1MB\",\"output\":\"2MB\"}}", "/limits/output",
		"duplicate");
}

static void test_errors_env_user_ns_hold(void **state)
{
	(void)state;
	refused(S ",\"env\":[]}", "/env", "expected an object");
	refused(S ",\"env\":{\"passs\":[]}}", "/env/passs", "did you mean \"pass\"?");
	refused(S ",\"env\":{\"pass\":\"PATH\"}}", "/env/pass", "expected an array");
	refused(S ",\"env\":{\"pass\":[1]}}", "/env/pass/0", "got a number");
	refused(S ",\"env\":{\"pass\":[\"A-B\"]}}", "/env/pass/0", "not a variable name");
	refused(S ",\"env\":{\"set\":[]}}", "/env/set", "expected an object");
	refused(S ",\"env\":{\"set\":{\"PORT\":8080}}}", "/env/set/PORT", "write \"8080\"");
	refused(S ",\"env\":{\"set\":{\"A\":null}}}", "/env/set/A", "got null");
	refused(S ",\"env\":{\"set\":{\"1X\":\"v\"}}}", "/env/set/1X", "not a variable name");
	refused(S ",\"env\":{\"set\":{\"X*\":\"v\"}}}", "/env/set/X*", "not a variable name");
	refused(S ",\"env\":{\"set\":{\"A\":\"1\",\"A\":\"2\"}}}", "/env/set/A", "duplicate");
	refused(S ",\"user\":[]}", "/user", "got an array");
	refused(S ",\"user\":-1}", "/user", "from 0 to 4294967294");
	refused(S ",\"user\":\"\"}", "/user", "user name or uid");
	refused(S ",\"user\":\"a:b:c\"}", "/user", "user name or uid");
	refused(S ",\"user\":\"-x\"}", "/user", "user name or uid");
	refused(S ",\"user\":\"4294967295\"}", "/user", "user name or uid");
	refused(S ",\"user\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}",
		"/user", "at most 32");
	refused(S ",\"namespaces\":\"host\"}", "/namespaces", "expected an object");
	refused(S ",\"namespaces\":{\"user\":\"host\"}}", "/namespaces/user", "unknown key");
	refused(S ",\"namespaces\":{\"net\":\"private\"}}", "/namespaces/net", "\"none\"");
	refused(S ",\"namespaces\":{\"net\":\"vet\"}}", "/namespaces/net",
		"did you mean \"veth\"?");
	refused(S ",\"namespaces\":{\"pid\":\"none\"}}", "/namespaces/pid", "are for \"net\"");
	refused(S ",\"namespaces\":{\"mount\":1}}", "/namespaces/mount", "got a number");
	refused(S ",\"namespaces\":{\"tmp\":\"none\"}}", "/namespaces/tmp", "are for \"net\"");
	refused(S ",\"namespaces\":{\"bind_ro\":\"/srv\"}}", "/namespaces/bind_ro",
		"expected an array");
	refused(S ",\"namespaces\":{\"bind_ro\":[\"srv\"]}}", "/namespaces/bind_ro/0",
		"absolute path");
	refused(S ",\"hold\":[]}", "/hold", "expected an object");
	refused(S ",\"hold\":{\"timout\":\"1m\"}}", "/hold/timout", "did you mean \"timeout\"?");
	refused(S ",\"hold\":{\"timeout\":60}}", "/hold/timeout", "got a number");
	refused(S ",\"hold\":{\"timeout\":\"1q\"}}", "/hold/timeout", "unknown unit");
	refused(S ",\"hold\":{\"timeout\":\"10ms\"}}", "/hold/timeout", "at least 1s");
	refused(S ",\"hold\":{\"on_timeout\":\"hold\"}}", "/hold/on_timeout",
		"\"deny\" or \"allow\"");
	refused(S ",\"hold\":{\"approvers\":\"root\"}}", "/hold/approvers", "expected an array");
	refused(S ",\"hold\":{\"approvers\":[\"root\"]}}", "/hold/approvers/0", "\"user:NAME\"");
	refused(S ",\"hold\":{\"approvers\":[2]}}", "/hold/approvers/0", "got a number");
	refused(S ",\"hold\":{\"approvers\":[\"group:\"]}}", "/hold/approvers/0", "\"group:NAME\"");
	refused(S ",\"hold\":{\"delete_burst\":5}}", "/hold/delete_burst", "\"count\" and \"window\"");
	refused(S ",\"hold\":{\"delete_burst\":{\"window\":\"1s\"}}}", "/hold/delete_burst",
		"missing \"count\"");
	refused(S ",\"hold\":{\"delete_burst\":{\"count\":5}}}", "/hold/delete_burst",
		"missing \"window\"");
	refused(S ",\"hold\":{\"delete_burst\":{\"count\":5,\"windw\":\"1s\"}}}",
		"/hold/delete_burst/windw", "did you mean \"window\"?");
	refused(S ",\"hold\":{\"delete_burst\":{\"count\":0,\"window\":\"1s\"}}}",
		"/hold/delete_burst/count", "from 1 to 100000");
	refused(S ",\"hold\":{\"delete_burst\":{\"count\":1.5,\"window\":\"1s\"}}}",
		"/hold/delete_burst/count", "whole number");
	refused(S ",\"hold\":{\"delete_burst\":{\"count\":\"5\",\"window\":\"1s\"}}}",
		"/hold/delete_burst/count", "got a string");
	refused(S ",\"hold\":{\"delete_burst\":{\"count\":5,\"window\":\"1\"}}}",
		"/hold/delete_burst/window", "\"1s\"");
	refused(S ",\"hold\":{\"delete_burst\":{\"count\":5,\"window\":\"0s\"}}}",
		"/hold/delete_burst/window", "at least 1ms");
	refused(S ",\"hold\":{\"delete_burst\":{\"count\":5,\"window\":\"2h\"}}}",
		"/hold/delete_burst/window", "at most 1h");
}

static void test_errors_strings(void **state)
{
	(void)state;
	/* JSON that cJSON takes but a policy must not hold */
	refused(S ",\"fs\":{\"read\":[\"/usr\\u0000/x\"]}}", "/fs/read/0", "\\u0000");
	refused(S ",\"fs\":{\"read\":[\"/usr\xff\"]}}", "/fs/read/0", "UTF-8");
	refused(S ",\"fs\":{\"read\":[\"/a\nb\"]}}", "/fs/read/0", "control character");
	refused(S ",\"fs\":{\"re\xc3\x28\":[]}}", "/fs/re?(", "UTF-8");
	refused(S ",\"fs\":{\"read\":[\"/\\ud800\"]}}", "", "not valid JSON");
	refused(S ",\x1c\"mode\":\"audit\"}", "", "not valid JSON");
	refused(S ",\"limits\":{\"pids\":+1}}", "", "not valid JSON");
	refused(S ",\"limits\":{\"pids\":01}}", "", "not valid JSON");
}

static void test_long_path(void **state)
{
	char json[1024], path[400];

	(void)state;
	memset(path, 'a', sizeof(path));
	path[0] = '/';
	path[sizeof(path) - 1] = 0;
	snprintf(json, sizeof(json), S ",\"fs\":{\"read\":[\"%s\"]}}", path);
	refused(json, "/fs/read/0", "longer than 246 bytes");
	/* under a variable the limit applies once it is expanded */
	path[0] = '/';
	snprintf(json, sizeof(json), S ",\"fs\":{\"read\":[\"$HOME%s\"]}}", path);
	{
		struct wd_policy p;

		ok(json, &p);
		wd_policy_free(&p);
	}
}

static void test_syntax_error_position(void **state)
{
	struct wd_policy p;
	struct wd_policy_error e;

	(void)state;
	assert_int_equal(parse("{\n  \"schema\": \"warden.policy/1\",\n  \"fs\": {,}\n}", &p, &e),
			 -EINVAL);
	assert_string_equal(e.pointer, "");
	assert_int_equal(e.line, 3);
	/* cJSON reports the offending byte or the one after it: "near" */
	assert_in_range(e.col, 10, 11);
	assert_non_null(strstr(e.msg, "line 3"));
	/* trailing garbage after the document */
	assert_int_equal(parse(S "} x", &p, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "not valid JSON"));
	assert_int_equal(parse("", &p, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "not valid JSON"));
}

static void test_error_positions(void **state)
{
	struct wd_policy_errors errs = { 0 };
	struct wd_policy p;
	const char *json = "{\n"
			   "  \"schema\": \"warden.policy/1\",\n"
			   "  \"fs\": {\n"
			   "    \"read\": [\"/usr\", 7],\n"
			   "    \"raed\": [],\n"
			   "    \"read\": []\n"
			   "  },\n"
			   "  \"limits\": { \"pids\": \"ten\" }\n"
			   "}\n";

	(void)state;
	assert_int_equal(wd_policy_parse_all(json, strlen(json), &p, &errs), -EINVAL);
	assert_int_equal(errs.n, 4);
	assert_string_equal(errs.v[0].pointer, "/fs/read/1");
	assert_int_equal(errs.v[0].line, 4);
	assert_int_equal(errs.v[0].col, 22);
	/* a key error points at the key */
	assert_string_equal(errs.v[1].pointer, "/fs/raed");
	assert_int_equal(errs.v[1].line, 5);
	assert_int_equal(errs.v[1].col, 5);
	/* a duplicate points at the second one */
	assert_string_equal(errs.v[2].pointer, "/fs/read");
	assert_int_equal(errs.v[2].line, 6);
	assert_int_equal(errs.v[2].col, 5);
	assert_string_equal(errs.v[3].pointer, "/limits/pids");
	assert_int_equal(errs.v[3].line, 8);
	assert_int_equal(errs.v[3].col, 23);
	wd_policy_errors_free(&errs);

	/* Columns count characters, not bytes */
	json = "{\"schema\":\"warden.policy/1\",\"env\":{\"set\":{\"A\":\"\xc3\xa9\xc3\xa9\"}},"
	       "\"mode\":1}";
	assert_int_equal(wd_policy_parse_all(json, strlen(json), &p, &errs), -EINVAL);
	assert_int_equal(errs.n, 1);
	assert_int_equal(errs.v[0].col, 61);
	wd_policy_errors_free(&errs);
}

static void test_error_limit(void **state)
{
	struct wd_policy_errors errs = { 0 };
	struct wd_policy p;
	char *json = malloc(200000);
	size_t o;

	(void)state;
	o = (size_t)sprintf(json, S ",\"fs\":{\"read\":[");
	for (int i = 0; i < 150; i++)
		o += (size_t)sprintf(json + o, "%s1", i ? "," : "");
	sprintf(json + o, "]}}");
	assert_int_equal(wd_policy_parse_all(json, strlen(json), &p, &errs), -EINVAL);
	assert_int_equal(errs.n, WD_POLICY_MAX_ERRORS);
	assert_int_equal(errs.dropped, 50);
	wd_policy_errors_free(&errs);
	free(json);
}

static void test_unenforced(void **state)
{
	/* every part is enforced on some backend now: fs.deny, fs.protect, exec.deny, exec.hold, hold settings,
	 * env, user, namespaces (a veth pair too), approvers, net (names too), net.egress_rate,
	 * limits (output and fork_rate too) */
	static const char *const enforced[] = {
		",\"fs\":{\"deny\":[\"/x\"]}}",
		",\"fs\":{\"protect\":[\"/x\"]}}",
		",\"exec\":{\"hold\":[\"/x\"]}}",
		",\"exec\":{\"deny\":[\"/x\",{\"path\":\"/y\",\"argv\":[\"-f\"]}]}}",
		",\"hold\":{\"timeout\":\"1m\",\"on_timeout\":\"allow\"}}",
		",\"env\":{\"set\":{\"A\":\"b\"}}}",
		",\"user\":\"nobody\"}",
		",\"namespaces\":{\"ipc\":\"host\",\"uts\":\"private\",\"net\":\"none\"}}",
		",\"namespaces\":{\"pid\":\"private\",\"net\":\"veth\"}}",
		",\"namespaces\":{\"tmp\":\"private\",\"bind_ro\":[\"/srv\"]}}",
		",\"hold\":{\"approvers\":[\"user:a\"]}}",
		",\"limits\":{\"output\":\"1MiB\"}}",
		",\"net\":{\"default\":\"deny\",\"deny\":[\"*:25\"],\"listen\":[\"tcp:80\"],"
		"\"ping\":true}}",
		",\"hold\":{\"delete_burst\":{\"count\":5,\"window\":\"1s\"}}}",
		/* net.egress_rate alone (cgroup_skb, supervisor/net/rate.c) */
		",\"net\":{\"egress_rate\":\"1MiB/s\"}}",
		/* names, through the supervisor's DNS forwarder (docs/network.md) */
		",\"net\":{\"allow\":[\"api.example.com:443\",\"*.example.org:443\"]}}",
		",\"limits\":{\"wall_time\":\"1s\",\"cpu_time\":\"1s\",\"memory\":\"1GiB\","
		"\"pids\":4,\"cpu\":0.5,\"kill_grace\":\"1s\"}}",
		/* limits.fork_rate: bpf-lsm's lsm/task_alloc (landlock refuses it, below) */
		",\"limits\":{\"memory\":\"1GiB\",\"fork_rate\":\"5/s\"}}",
		/* exec.allow: bpf-lsm's bprm_check (landlock refuses it, below) */
		",\"exec\":{\"allow\":[\"/x\"]}}",
	};
	struct wd_policy p;
	char json[512], why[512];

	(void)state;
	ok(S ",\"mode\":\"audit\",\"fs\":{\"read\":[\"/\"],\"deny\":[]},\"net\":{},\"limits\":{},"
	     "\"namespaces\":{\"net\":\"host\"},\"env\":{\"pass\":[]}}",
	   &p);
	assert_int_equal(wd_policy_unenforced(&p, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	wd_policy_free(&p);
	for (size_t i = 0; i < sizeof(enforced) / sizeof(enforced[0]); i++) {
		snprintf(json, sizeof(json), S "%s", enforced[i]);
		ok(json, &p);
		if (wd_policy_unenforced(&p, why, sizeof(why)))
			fail_msg("%s: refused: %s", json, why);
		wd_policy_free(&p);
	}
	/* a backend without WD_FEAT_FORK_RATE (landlock) refuses it by pointer, saying why */
	ok(S ",\"limits\":{\"memory\":\"1GiB\",\"fork_rate\":\"5/s\"}}", &p);
	assert_int_equal(wd_policy_unenforced_mask(&p, WD_FEAT_ENFORCED & ~WD_FEAT_FORK_RATE, why,
						   sizeof(why)),
			 -EOPNOTSUPP);
	assert_non_null(strstr(why, "/limits/fork_rate: limits.fork_rate"));
	assert_non_null(strstr(why, "landlock backend"));
	wd_policy_free(&p);
	/* and exec.allow, a backend without WD_FEAT_EXEC_ALLOW */
	ok(S ",\"exec\":{\"allow\":[\"/x\"]}}", &p);
	assert_int_equal(wd_policy_unenforced_mask(&p, WD_FEAT_ENFORCED & ~WD_FEAT_EXEC_ALLOW, why,
						   sizeof(why)),
			 -EOPNOTSUPP);
	assert_non_null(strstr(why, "/exec/allow/0: exec.allow"));
	assert_non_null(strstr(why, "use --backend bpf-lsm"));
	wd_policy_free(&p);
}

static void collect_key(const char *pointer, void *arg)
{
	char *buf = arg;

	strcat(buf, pointer);
	strcat(buf, " ");
}

static void test_keys(void **state)
{
	char buf[4096] = "";

	(void)state;
	wd_policy_keys(collect_key, buf);
	assert_non_null(strstr(buf, "/schema "));
	assert_non_null(strstr(buf, "/fs/protect/*/ops "));
	assert_non_null(strstr(buf, "/exec/hold/*/argv "));
	assert_non_null(strstr(buf, "/limits/fork_rate "));
	assert_non_null(strstr(buf, "/namespaces/net "));
	assert_non_null(strstr(buf, "/hold/approvers "));
	assert_null(strstr(buf, "/env/set/"));
	assert_string_equal(wd_limit_name(WD_LIMIT_OUTPUT), "output");
	assert_null(wd_limit_name(WD_LIMIT_NR));
	assert_string_equal(wd_ns_name(WD_NS_UTS), "uts");
	assert_null(wd_ns_name(WD_NS_NR));
	assert_string_equal(wd_ns_mode_name(WD_NS_VETH), "veth");
	assert_null(wd_ns_mode_name((enum wd_ns_mode)9));
}

static void test_load_file(void **state)
{
	struct wd_policy p;
	struct wd_policy_error e;
	char buf[512];
	char path[] = "/tmp/wd-test-policy-XXXXXX";
	int fd;
	FILE *f;

	(void)state;
	assert_int_equal(wd_policy_load_file("/nonexistent/policy.json", &p, &e), -ENOENT);
	wd_policy_error_format(&e, "/nonexistent/policy.json", buf, sizeof(buf));
	assert_string_equal(buf, "/nonexistent/policy.json: cannot read: No such file or directory");

	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs("{\"schema\":\"warden.policy/1\",\"fs\":{\"read\":[\"/usr\", 7]}}", f);
	fclose(f);
	assert_int_equal(wd_policy_load_file(path, &p, &e), -EINVAL);
	wd_policy_error_format(&e, "p.json", buf, sizeof(buf));
	assert_string_equal(buf, "p.json: /fs/read/1: expected an absolute path string, got a "
				 "number (line 1, column 51)");
	/* an error from another document names that one */
	snprintf(e.source, sizeof(e.source), "template cli");
	wd_policy_error_format(&e, "p.json", buf, sizeof(buf));
	assert_string_equal(buf, "template cli: /fs/read/1: expected an absolute path string, "
				 "got a number (line 1, column 51)");
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_full_fs),
		cmocka_unit_test(test_variables),
		cmocka_unit_test(test_protect),
		cmocka_unit_test(test_exec),
		cmocka_unit_test(test_net),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_env_user_ns_hold),
		cmocka_unit_test(test_extends),
		cmocka_unit_test(test_normalise),
		cmocka_unit_test(test_errors_document),
		cmocka_unit_test(test_errors_fs),
		cmocka_unit_test(test_errors_exec),
		cmocka_unit_test(test_errors_net),
		cmocka_unit_test(test_errors_limits),
		cmocka_unit_test(test_errors_env_user_ns_hold),
		cmocka_unit_test(test_errors_strings),
		cmocka_unit_test(test_long_path),
		cmocka_unit_test(test_syntax_error_position),
		cmocka_unit_test(test_error_positions),
		cmocka_unit_test(test_error_limit),
		cmocka_unit_test(test_unenforced),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_load_file),
	};

	return cmocka_run_group_tests_name("policy", tests, NULL, NULL);
}
