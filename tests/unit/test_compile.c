// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "policy/compile.h"

static void compile(const char *json, struct wd_ruleset *rs)
{
	struct wd_policy p;
	struct wd_policy_error e;

	if (wd_policy_parse(json, strlen(json), &p, &e))
		fail_msg("parse: %s: %s", e.pointer, e.msg);
	if (wd_compile(&p, rs, &e))
		fail_msg("compile: %s: %s", e.pointer, e.msg);
	wd_policy_free(&p);
}

static const struct wd_rule_entry *lookup(const struct wd_ruleset *rs, const char *path)
{
	return wd_ruleset_lookup(rs, path);
}

static __u32 allowed(const struct wd_ruleset *rs, const char *path)
{
	const struct wd_rule_entry *e = lookup(rs, path);

	return e ? e->val.allow : 0;
}

static char *dump(const struct wd_ruleset *rs)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	wd_ruleset_dump(rs, f);
	fclose(f);
	return buf;
}

static void test_prefix_boundaries(void **state)
{
	struct wd_ruleset rs;

	(void)state;
	compile("{\"schema\":\"warden.policy/1\",\"fs\":{\"read\":[\"/etc\"]}}", &rs);
	assert_int_equal(allowed(&rs, "/etc/passwd"), WD_ACC_READ);
	assert_int_equal(allowed(&rs, "/etc"), WD_ACC_READ);
	assert_int_equal(allowed(&rs, "/etc/"), WD_ACC_READ);
	assert_int_equal(allowed(&rs, "/etcfoo"), 0);
	assert_int_equal(allowed(&rs, "/etcfoo/passwd"), 0);
	assert_int_equal(allowed(&rs, "/et"), 0);
	assert_int_equal(allowed(&rs, "/"), 0);
	wd_ruleset_free(&rs);
}

static void test_inheritance_and_rule_names(void **state)
{
	struct wd_ruleset rs;
	const struct wd_rule_entry *e;

	(void)state;
	compile("{\"schema\":\"warden.policy/1\",\"fs\":{\"read\":[\"/usr\",\"/usr/share\"],"
		"\"write\":[\"/tmp\"],\"exec\":[\"/usr/bin\"]}}",
		&rs);
	/* /usr/bin/ls: read from /usr, exec from /usr/bin, in one longest-prefix entry */
	e = lookup(&rs, "/usr/bin/ls");
	assert_non_null(e);
	assert_int_equal(e->val.allow, WD_ACC_READ | WD_ACC_EXEC);
	assert_string_equal(wd_ruleset_rule_name(&rs, e->val.rule[WD_ACC_IDX_READ]), "/fs/read/0");
	assert_string_equal(wd_ruleset_rule_name(&rs, e->val.rule[WD_ACC_IDX_EXEC]), "/fs/exec/0");
	/* the more specific read rule names the grant under it */
	e = lookup(&rs, "/usr/share/doc");
	assert_string_equal(wd_ruleset_rule_name(&rs, e->val.rule[WD_ACC_IDX_READ]), "/fs/read/1");
	/* write implies read */
	assert_int_equal(allowed(&rs, "/tmp/x"), WD_ACC_READ | WD_ACC_WRITE);
	e = lookup(&rs, "/tmp/x");
	assert_string_equal(wd_ruleset_rule_name(&rs, e->val.rule[WD_ACC_IDX_WRITE]), "/fs/write/0");
	assert_int_equal(allowed(&rs, "/var/log"), 0);
	assert_string_equal(wd_ruleset_rule_name(&rs, WD_RULE_DEFAULT), "default");
	assert_string_equal(wd_ruleset_rule_name(&rs, 999), "default");
	wd_ruleset_free(&rs);
}

static void test_root_rule(void **state)
{
	struct wd_ruleset rs;

	(void)state;
	compile("{\"schema\":\"warden.policy/1\",\"fs\":{\"read\":[\"/\"],\"exec\":[\"/bin\"]}}",
		&rs);
	assert_int_equal(allowed(&rs, "/"), WD_ACC_READ);
	assert_int_equal(allowed(&rs, "/anything/at/all"), WD_ACC_READ);
	assert_int_equal(allowed(&rs, "/bin/sh"), WD_ACC_READ | WD_ACC_EXEC);
	assert_int_equal(allowed(&rs, "/binx"), WD_ACC_READ);
	wd_ruleset_free(&rs);
}

static void test_long_looked_up_path(void **state)
{
	struct wd_ruleset rs;
	char path[600];

	(void)state;
	compile("{\"schema\":\"warden.policy/1\",\"fs\":{\"read\":[\"/data\"]}}", &rs);
	memset(path, 'x', sizeof(path));
	memcpy(path, "/data/", 6);
	path[sizeof(path) - 1] = 0;
	/* longer than the key: matched on its first bytes, which lie under /data */
	assert_int_equal(allowed(&rs, path), WD_ACC_READ);
	memcpy(path, "/datax", 6);
	assert_int_equal(allowed(&rs, path), 0);
	wd_ruleset_free(&rs);
}

static void test_dump_is_stable(void **state)
{
	const char *json = "{\"schema\":\"warden.policy/1\",\"mode\":\"audit\",\"fs\":{"
			   "\"exec\":[\"/usr/bin\"],\"read\":[\"/usr\",\"/etc/ld.so.cache\"],"
			   "\"write\":[\"/tmp\",\"/tmp\"]}}";
	struct wd_ruleset a, b;
	char *da, *db;

	(void)state;
	compile(json, &a);
	compile(json, &b);
	da = dump(&a);
	db = dump(&b);
	assert_string_equal(da, db);
	assert_string_equal(da, "flags audit\n"
				"/etc/ld.so.cache$ r-- read=/fs/read/1\n"
				"/etc/ld.so.cache/ r-- read=/fs/read/1\n"
				"/tmp$ rw- read=/fs/write/0 write=/fs/write/0\n"
				"/tmp/ rw- read=/fs/write/0 write=/fs/write/0\n"
				"/usr$ r-- read=/fs/read/0\n"
				"/usr/ r-- read=/fs/read/0\n"
				"/usr/bin$ r-x read=/fs/read/0 exec=/fs/exec/0\n"
				"/usr/bin/ r-x read=/fs/read/0 exec=/fs/exec/0\n");
	assert_int_equal(a.sandbox_flags, WD_SB_AUDIT_MODE);
	free(da);
	free(db);
	wd_ruleset_free(&a);
	wd_ruleset_free(&b);
}

static void test_key(void **state)
{
	struct wd_ruleset rs;
	struct wd_path_key key;

	(void)state;
	compile("{\"schema\":\"warden.policy/1\",\"fs\":{\"read\":[\"/usr\"]}}", &rs);
	assert_int_equal(rs.n_entries, 2);
	wd_rule_entry_key(&rs.entries[0], 0x1122334455667788ull, &key);
	assert_int_equal(key.prefixlen, 64 + 8 * 5); /* "/usr\0" */
	assert_int_equal(key.sandbox[0], 0x55667788u);
	assert_int_equal(key.sandbox[1], 0x11223344u);
	assert_memory_equal(key.path, "/usr\0", 5);
	assert_int_equal(key.path[5], 0);
	wd_ruleset_free(&rs);
}

static void test_empty_policy_denies_everything(void **state)
{
	struct wd_ruleset rs;

	(void)state;
	compile("{\"schema\":\"warden.policy/1\"}", &rs);
	assert_int_equal(rs.n_entries, 0);
	assert_int_equal(allowed(&rs, "/etc/passwd"), 0);
	assert_int_equal(rs.sandbox_flags, 0);
	wd_ruleset_free(&rs);
}

static void test_carried_parts_dump(void **state)
{
	const char *json =
		"{\"schema\":\"warden.policy/1\",\"fs\":{\"read\":[\"/usr\"],\"deny\":"
		"[\"/usr/secret\"],"
		"\"protect\":[\"/data\",{\"path\":\"/db\",\"ops\":[\"truncate\",\"delete\"],"
		"\"action\":\"hold\"}]},"
		"\"exec\":{\"allow\":[\"/usr/bin\"],\"deny\":[{\"path\":\"/usr/bin/git\","
		"\"argv\":[\"push\",\"**\"]}],\"hold\":[{\"path\":\"/bin/rm\",\"argv\":[]}]},"
		"\"net\":{\"allow\":[\"tcp:10.0.0.0/8:80-90\",\"[2001:db8::/32]:443\","
		"\"udp:*.example.com:53\",\"*:8080\"],\"deny\":[\"[::ffff:10.1.2.3]:*\"],"
		"\"egress_rate\":\"2MiB/s\"},"
		"\"limits\":{\"wall_time\":\"30s\",\"cpu_time\":\"1m\",\"memory\":\"256MiB\","
		"\"pids\":64,\"fork_rate\":\"600/m\",\"output\":\"1MiB\",\"cpu\":1.5,"
		"\"kill_grace\":\"3s\"},"
		"\"env\":{\"pass\":[\"PATH\",\"LC_*\"],\"set\":{\"Z\":\"last\",\"A\":\"a\\nb\"}},"
		"\"user\":\"nobody:nogroup\",\"namespaces\":{\"pid\":\"private\",\"net\":\"none\","
		"\"ipc\":\"host\"},\"hold\":{\"timeout\":\"2m\",\"approvers\":[\"group:ops\"]}}";
	struct wd_ruleset a, b;
	char *da, *db;

	(void)state;
	compile(json, &a);
	compile(json, &b);
	da = dump(&a);
	db = dump(&b);
	assert_string_equal(da, db);
	assert_string_equal(da, "flags enforce exec-allow\n"
				"/usr$ r-- read=/fs/read/0\n"
				"/usr/ r-- read=/fs/read/0\n"
				/* exec.allow's own prefixes: the run right there, and nowhere else */
				"/usr/bin$ r-- read=/fs/read/0 run=/exec/allow/0\n"
				"/usr/bin/ r-- read=/fs/read/0 run=/exec/allow/0\n"
				"deny /usr/secret rule=/fs/deny/0\n"
				"protect /data ops=delete,rename,truncate action=deny "
				"rule=/fs/protect/0\n"
				"protect /db ops=delete,truncate action=hold rule=/fs/protect/1\n"
				"exec allow /usr/bin rule=/exec/allow/0\n"
				"exec deny /usr/bin/git argv=[\"push\",\"**\"] rule=/exec/deny/0\n"
				"exec hold /bin/rm argv=[] rule=/exec/hold/0\n"
				"net default deny\n"
				"net allow tcp 10.0.0.0/8 port 80-90 rule=/net/allow/0\n"
				"net allow any 2001:db8::/32 port 443 rule=/net/allow/1\n"
				"net allow any 0.0.0.0/0 port 8080 rule=/net/allow/3\n"
				"net allow any ::/0 port 8080 rule=/net/allow/3\n"
				"net deny any 10.1.2.3 port * rule=/net/deny/0\n"
				"net allow udp name *.example.com port 53 rule=/net/allow/2\n"
				"net egress 2097152 bytes per 1000 ms\n"
				"limit wall_time 30000 ms\n"
				"limit cpu_time 60000 ms\n"
				"limit memory 268435456 bytes\n"
				"limit pids 64 tasks\n"
				"limit fork_rate 600 forks per 60000 ms\n"
				"limit output 1048576 bytes\n"
				"limit cpu 1500 millicpus\n"
				"limit kill_grace 3000 ms\n"
				"env clean\n"
				"env pass PATH\n"
				"env pass LC_*\n"
				"env set \"A=a\\x0ab\"\n"
				"env set \"Z=last\"\n"
				"user nobody group nogroup\n"
				"ns pid private\n"
				"ns net none\n"
				"hold timeout 120000 ms on_timeout deny\n"
				"hold approver group:ops\n");
	assert_int_equal(a.features, WD_FEAT_FS | WD_FEAT_FS_DENY | WD_FEAT_FS_PROTECT |
					     WD_FEAT_EXEC | WD_FEAT_NET | WD_FEAT_NET_NAMES |
					     WD_FEAT_NET_RATE |
					     WD_FEAT_ENV | WD_FEAT_USER | WD_FEAT_NAMESPACES |
					     WD_FEAT_HOLD | WD_FEAT_EXEC_HOLD | WD_FEAT_EXEC_ALLOW |
					     WD_FEAT_HOLD_APPROVERS | WD_FEAT_NET_RATE |
					     WD_FEAT_FORK_RATE);
	/* Every rule has a name the audit stream can use. */
	assert_int_equal(a.n_rules, 1 + 1 + 1 + 2 + 3 + 5);
	assert_string_equal(wd_ruleset_rule_name(&a, a.net_names[0].id), "/net/allow/2");
	assert_int_equal(a.n_fs_rules, 1);
	assert_string_equal(a.fs_rules[0].path, "/usr");
	assert_int_equal(a.fs_rules[0].access, WD_ACC_READ);
	/* every limit but disk, which wants every writable path on a private /tmp */
	assert_int_equal(a.limits_set, ((1u << WD_LIMIT_NR) - 1) & ~(1u << WD_LIMIT_DISK));
	assert_int_equal(a.limit[WD_LIMIT_MEMORY], 256u << 20);
	assert_int_equal(a.hold_timeout_ms, 120000);
	assert_int_equal(a.ns[WD_NS_IPC], WD_NS_HOST);
	free(da);
	free(db);
	wd_ruleset_free(&a);
	wd_ruleset_free(&b);
}

static void test_defaults(void **state)
{
	struct wd_ruleset rs;
	char *d;

	(void)state;
	compile("{\"schema\":\"warden.policy/1\",\"fs\":{\"write\":[\"/w\"]}}", &rs);
	assert_false(rs.env_clean);
	assert_null(rs.user);
	assert_int_equal(rs.net_default, WD_ACTION_DENY);
	assert_int_equal(rs.hold_timeout_ms, WD_HOLD_TIMEOUT_DEFAULT_MS);
	assert_int_equal(rs.hold_on_timeout, WD_ACTION_DENY);
	assert_int_equal(rs.n_fs_rules, 1);
	assert_int_equal(rs.fs_rules[0].access, WD_ACC_READ | WD_ACC_WRITE);
	d = dump(&rs);
	/* nothing but what the policy states */
	assert_string_equal(d, "flags enforce\n/w$ rw- read=/fs/write/0 write=/fs/write/0\n"
			       "/w/ rw- read=/fs/write/0 write=/fs/write/0\n");
	free(d);
	wd_ruleset_free(&rs);
	/* a hold rule shows the hold settings in force, defaults included */
	compile("{\"schema\":\"warden.policy/1\",\"exec\":{\"hold\":[\"/bin/rm\"]}}", &rs);
	d = dump(&rs);
	assert_non_null(strstr(d, "hold timeout 300000 ms on_timeout deny\n"));
	free(d);
	wd_ruleset_free(&rs);
}

static void test_unexpanded_refused(void **state)
{
	const char *cases[][2] = {
		{ "{\"schema\":\"warden.policy/1\",\"fs\":{\"read\":[\"$HOME\"]}}", "/fs/read/0" },
		{ "{\"schema\":\"warden.policy/1\",\"fs\":{\"deny\":[\"$HOME/x\"]}}",
		  "/fs/deny/0" },
		{ "{\"schema\":\"warden.policy/1\",\"fs\":{\"protect\":[\"$TMPDIR\"]}}",
		  "/fs/protect/0" },
		{ "{\"schema\":\"warden.policy/1\",\"exec\":{\"deny\":[\"$WORKDIR/x\"]}}",
		  "/exec/deny/0" },
		{ "{\"schema\":\"warden.policy/1\",\"namespaces\":{\"bind_ro\":[\"$HOME/x\"]}}",
		  "/namespaces/bind_ro/0" },
	};
	struct wd_policy p;
	struct wd_policy_error e;
	struct wd_ruleset rs;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(wd_policy_parse(cases[i][0], strlen(cases[i][0]), &p, &e), 0);
		assert_int_equal(wd_compile(&p, &rs, &e), -EINVAL);
		assert_string_equal(e.pointer, cases[i][1]);
		assert_non_null(strstr(e.msg, "not expanded"));
		wd_policy_free(&p);
	}
}

/* A private /tmp and read-only binds bring a private mount namespace, and need one. */
static void test_mounts(void **state)
{
	const char *bad = "{\"schema\":\"warden.policy/1\",\"namespaces\":{\"mount\":\"host\","
			  "\"tmp\":\"private\"}}";
	struct wd_policy p;
	struct wd_policy_error e;
	struct wd_ruleset rs;
	char *d;

	(void)state;
	compile("{\"schema\":\"warden.policy/1\",\"namespaces\":{\"tmp\":\"private\","
		"\"bind_ro\":[\"/srv/data\",\"/opt\"]}}",
		&rs);
	assert_int_equal(rs.ns[WD_NS_MOUNT], WD_NS_PRIVATE);
	assert_int_equal(rs.ns[WD_NS_TMP], WD_NS_PRIVATE);
	assert_int_equal(rs.features, WD_FEAT_NAMESPACES);
	d = dump(&rs);
	assert_string_equal(d, "flags enforce\nns mount private\nns tmp private\n"
			       "ns bind_ro \"/srv/data\"\nns bind_ro \"/opt\"\n");
	free(d);
	wd_ruleset_free(&rs);

	assert_int_equal(wd_policy_parse(bad, strlen(bad), &p, &e), 0);
	assert_int_equal(wd_compile(&p, &rs, &e), -EINVAL);
	assert_string_equal(e.pointer, "/namespaces/mount");
	assert_non_null(strstr(e.msg, "contradicts /namespaces/tmp"));
	wd_policy_free(&p);
}

/* @json refused by wd_compile() at @pointer, with @words in the message. */
static void refused(const char *json, const char *pointer, const char *words)
{
	struct wd_policy p;
	struct wd_policy_error e;
	struct wd_ruleset rs;

	assert_int_equal(wd_policy_parse(json, strlen(json), &p, &e), 0);
	assert_int_equal(wd_compile(&p, &rs, &e), -EINVAL);
	assert_string_equal(e.pointer, pointer);
	if (!strstr(e.msg, words))
		fail_msg("\"%s\" not in: %s", words, e.msg);
	wd_policy_free(&p);
}

/*
 * limits.disk holds as the size of a private /tmp only: every writable path on it (or a device
 * that stores nothing), else refused at /limits/disk saying why.
 */
static void test_disk_limit(void **state)
{
	struct wd_ruleset rs;

	(void)state;
	compile("{\"schema\":\"warden.policy/1\",\"fs\":{\"write\":[\"/tmp\",\"/dev/null\"]},"
		"\"namespaces\":{\"tmp\":\"private\"},\"limits\":{\"disk\":\"8MiB\"}}",
		&rs);
	assert_true(rs.limits_set & (1u << WD_LIMIT_DISK));
	assert_int_equal(rs.limit[WD_LIMIT_DISK], 8u << 20);
	wd_ruleset_free(&rs);
	refused("{\"schema\":\"warden.policy/1\",\"fs\":{\"write\":[\"/tmp\"]},"
		"\"limits\":{\"disk\":\"8MiB\"}}",
		"/limits/disk", "only as the size of a private /tmp");
	refused("{\"schema\":\"warden.policy/1\",\"fs\":{\"write\":[\"/tmp\",\"/var/tmp\"]},"
		"\"namespaces\":{\"tmp\":\"private\"},\"limits\":{\"disk\":\"8MiB\"}}",
		"/limits/disk", "/fs/write/1 lets the sandbox write /var/tmp");
	/* /tmpfoo is not under /tmp */
	refused("{\"schema\":\"warden.policy/1\",\"fs\":{\"write\":[\"/tmpfoo\"]},"
		"\"namespaces\":{\"tmp\":\"private\"},\"limits\":{\"disk\":\"8MiB\"}}",
		"/limits/disk", "/fs/write/0 lets the sandbox write /tmpfoo");
}

static const char *rule_of(const struct wd_ruleset *rs, const char *path, int idx)
{
	const struct wd_rule_entry *e = lookup(rs, path);

	return e ? wd_ruleset_rule_name(rs, e->val.rule[idx]) : "none";
}

/* exec.deny by path takes exec away at and under it, keeps read, and names itself. */
static void test_exec_deny(void **state)
{
	struct wd_ruleset rs;
	char *d;

	(void)state;
	compile("{\"schema\":\"warden.policy/1\",\"fs\":{\"read\":[\"/usr\"],"
		"\"exec\":[\"/usr/bin\",\"/usr/lib\"]},"
		"\"exec\":{\"deny\":[\"/usr/bin/su\",\"/usr/lib/games\","
		"{\"path\":\"/usr/bin/git\",\"argv\":[\"push\",\"**\"]}]}}",
		&rs);
	assert_int_equal(allowed(&rs, "/usr/bin/su"), WD_ACC_READ);
	assert_string_equal(rule_of(&rs, "/usr/bin/su", WD_ACC_IDX_EXEC), "/exec/deny/0");
	assert_string_equal(rule_of(&rs, "/usr/bin/su", WD_ACC_IDX_READ), "/fs/read/0");
	assert_string_equal(wd_ruleset_exec_denied(&rs, "/usr/bin/su"), "/exec/deny/0");
	/* a neighbour, a longer name and a directory's contents */
	assert_int_equal(allowed(&rs, "/usr/bin/sudo"), WD_ACC_READ | WD_ACC_EXEC);
	assert_int_equal(allowed(&rs, "/usr/bin/s"), WD_ACC_READ | WD_ACC_EXEC);
	assert_null(wd_ruleset_exec_denied(&rs, "/usr/bin/sudo"));
	assert_int_equal(allowed(&rs, "/usr/lib/games/x/y"), WD_ACC_READ);
	assert_string_equal(wd_ruleset_exec_denied(&rs, "/usr/lib/games/x/y"), "/exec/deny/1");
	assert_int_equal(allowed(&rs, "/usr/lib/gamesx"), WD_ACC_READ | WD_ACC_EXEC);
	/* argument patterns are the waiting room's: the path keeps its exec in the kernel */
	assert_int_equal(allowed(&rs, "/usr/bin/git"), WD_ACC_READ | WD_ACC_EXEC);
	assert_null(wd_ruleset_exec_denied(&rs, "/usr/bin/git"));
	/* outside fs.exec nothing changes: no exec to take, no rule named */
	assert_int_equal(allowed(&rs, "/usr/share/x"), WD_ACC_READ);
	assert_null(wd_ruleset_exec_denied(&rs, "/usr/share/x"));
	d = dump(&rs);
	assert_non_null(strstr(d, "/usr/bin/su$ r-- read=/fs/read/0 noexec=/exec/deny/0\n"));
	assert_non_null(strstr(d, "/usr/lib/games/ r-- read=/fs/read/0 noexec=/exec/deny/1\n"));
	assert_non_null(strstr(d, "exec deny /usr/bin/su rule=/exec/deny/0\n"));
	free(d);
	wd_ruleset_free(&rs);
}

/* A denied directory inside a denied directory: the longer rule names the refusal. */
static void test_exec_deny_nested(void **state)
{
	struct wd_ruleset rs;

	(void)state;
	compile("{\"schema\":\"warden.policy/1\",\"fs\":{\"exec\":[\"/opt\"]},"
		"\"exec\":{\"deny\":[\"/opt/a/b\",\"/opt/a\"]}}",
		&rs);
	assert_int_equal(allowed(&rs, "/opt/a/b/c"), 0);
	assert_string_equal(wd_ruleset_exec_denied(&rs, "/opt/a/b/c"), "/exec/deny/0");
	assert_string_equal(wd_ruleset_exec_denied(&rs, "/opt/a/x"), "/exec/deny/1");
	assert_int_equal(allowed(&rs, "/opt/ab"), WD_ACC_EXEC);
	wd_ruleset_free(&rs);
}

/* exec.deny paths go through the same checks as fs paths. */
static void test_exec_deny_unexpanded(void **state)
{
	const char *json = "{\"schema\":\"warden.policy/1\","
			   "\"exec\":{\"deny\":[\"$WORKDIR/x\"]}}";
	struct wd_policy p;
	struct wd_policy_error e;
	struct wd_ruleset rs;

	(void)state;
	assert_int_equal(wd_policy_parse(json, strlen(json), &p, &e), 0);
	assert_int_equal(wd_compile(&p, &rs, &e), -EINVAL);
	assert_string_equal(e.pointer, "/exec/deny/0");
	wd_policy_free(&p);
	/* with a private /tmp, a program under the host's /tmp is one the sandbox never sees */
	json = "{\"schema\":\"warden.policy/1\",\"namespaces\":{\"tmp\":\"private\"},"
	       "\"exec\":{\"deny\":[\"/usr/bin/su\",\"/tmp/x/tool\"]}}";
	assert_int_equal(wd_policy_parse(json, strlen(json), &p, &e), 0);
	assert_int_equal(wd_compile(&p, &rs, &e), -EINVAL);
	assert_string_equal(e.pointer, "/exec/deny/1");
	assert_non_null(strstr(e.msg, "/tmp/x/tool lies under /tmp"));
	wd_policy_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefix_boundaries),
		cmocka_unit_test(test_inheritance_and_rule_names),
		cmocka_unit_test(test_root_rule),
		cmocka_unit_test(test_long_looked_up_path),
		cmocka_unit_test(test_dump_is_stable),
		cmocka_unit_test(test_key),
		cmocka_unit_test(test_empty_policy_denies_everything),
		cmocka_unit_test(test_carried_parts_dump),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_unexpanded_refused),
		cmocka_unit_test(test_mounts),
		cmocka_unit_test(test_disk_limit),
		cmocka_unit_test(test_exec_deny),
		cmocka_unit_test(test_exec_deny_nested),
		cmocka_unit_test(test_exec_deny_unexpanded),
	};

	return cmocka_run_group_tests_name("compile", tests, NULL, NULL);
}
