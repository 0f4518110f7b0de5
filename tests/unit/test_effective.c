// SPDX-License-Identifier: GPL-2.0
/* policy/effective.c: extends, command-line additions, variables, and what warden run gets. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "policy/effective.h"

static char dir[PATH_MAX];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/wd-test-effective-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Write @text to @name under the test directory; returns its path (static buffer). */
static const char *put(const char *name, const char *text)
{
	static char path[PATH_MAX + 64];
	char sub[PATH_MAX + 64], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(sub, sizeof(sub), "%s", path);
	slash = strrchr(sub, '/');
	*slash = 0;
	mkdir(sub, 0755);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void load_ok(const char *name, const struct wd_policy_derive *d, struct wd_policy *p)
{
	struct wd_load_opts o = { .derive = d };
	struct wd_policy_errors errs = { 0 };

	if (wd_policy_load(name, &o, p, &errs))
		fail_msg("%s: %s: %s: %s", name, errs.n ? errs.v[0].source : "",
			 errs.n ? errs.v[0].pointer : "", errs.n ? errs.v[0].msg : "?");
	wd_policy_errors_free(&errs);
}

/* Loading fails; error @i is "@source: @pointer: ...@words..." */
static void load_bad(const char *name, const struct wd_policy_derive *d, size_t i,
		     const char *source, const char *pointer, const char *words)
{
	struct wd_load_opts o = { .derive = d };
	struct wd_policy_errors errs = { 0 };
	struct wd_policy p;
	int r = wd_policy_load(name, &o, &p, &errs);

	if (r == 0) {
		wd_policy_free(&p);
		fail_msg("%s loaded", name);
	}
	assert_int_equal(r, -EINVAL);
	if (i >= errs.n)
		fail_msg("%s: %zu errors, want error %zu", name, errs.n, i);
	if ((source && !strstr(errs.v[i].source, source)) || strcmp(errs.v[i].pointer, pointer) ||
	    !strstr(errs.v[i].msg, words))
		fail_msg("%s: got \"%s\" \"%s\" \"%s\", want \"%s\" \"%s\" \"...%s...\"", name,
			 errs.v[i].source, errs.v[i].pointer, errs.v[i].msg, source ? source : "",
			 pointer, words);
	wd_policy_errors_free(&errs);
}

static void test_template_by_name(void **state)
{
	struct wd_policy p;

	(void)state;
	load_ok("cli", NULL, &p);
	assert_int_equal(p.n_origins, 1);
	assert_string_equal(p.origins[0], "template cli");
	assert_true(wd_path_list_has(&p.fs_write, "$WORKDIR"));
	assert_int_equal(p.extends.n, 0);
	wd_policy_free(&p);

	/* worker-parallel extends worker: its settings win, worker's lists stay */
	load_ok("worker-parallel", NULL, &p);
	assert_int_equal(p.n_origins, 2);
	assert_string_equal(p.origins[0], "template worker");
	assert_string_equal(p.origins[1], "template worker-parallel");
	assert_int_equal(p.top_origin, 1);
	assert_int_equal(p.limits[WD_LIMIT_PIDS].value, 1024);
	assert_int_equal(p.limits[WD_LIMIT_PIDS].s.origin, 1);
	assert_int_equal(p.limits[WD_LIMIT_WALL_TIME].value, 3600000);
	assert_int_equal(p.limits[WD_LIMIT_WALL_TIME].s.origin, 0);
	assert_int_equal(p.exec_deny.n, 3);
	assert_int_equal(p.exec_deny.v[0].origin, 0);
	wd_policy_free(&p);

	load_bad("nosuch", NULL, 0, "template nosuch", "", "no template \"nosuch\"");
	load_bad("nosuch", NULL, 0, NULL, "", "./nosuch");
}

static void test_files_and_merge(void **state)
{
	struct wd_policy p;
	const char *path;

	(void)state;
	put("base/base.json",
	    "{\"schema\":\"warden.policy/1\",\"extends\":\"cli\",\"mode\":\"audit\","
	    "\"fs\":{\"read\":[\"/srv\",\"/usr\"]},\"net\":{\"allow\":[\"a.example:443\"]},"
	    "\"limits\":{\"memory\":\"1GiB\",\"pids\":8},\"env\":{\"set\":{\"A\":\"base\","
	    "\"B\":\"base\"}},\"user\":\"nobody\",\"namespaces\":{\"pid\":\"private\"},"
	    "\"hold\":{\"timeout\":\"1m\",\"approvers\":[\"user:a\"],"
	    "\"delete_burst\":{\"count\":50,\"window\":\"2s\"}},\"caps\":[\"CAP_CHOWN\"]}");
	path = put("p.json",
		   "{\"schema\":\"warden.policy/1\",\"extends\":\"base/base.json\",\"mode\":"
		   "\"enforce\","
		   "\"fs\":{\"read\":[\"/srv\",\"/opt\"],\"deny\":[\"/srv/x\"]},"
		   "\"net\":{\"allow\":[\"A.example:443\",\"b.example:443\"]},"
		   "\"limits\":{\"pids\":16},\"env\":{\"set\":{\"B\":\"top\"}},\"user\":\"1000:"
		   "1000\","
		   "\"namespaces\":{\"pid\":\"host\"},\"hold\":{\"approvers\":[\"user:b\","
		   "\"user:a\"]},\"caps\":[\"CAP_NET_BIND_SERVICE\",\"CAP_CHOWN\"]}");
	load_ok(path, NULL, &p);
	assert_int_equal(p.n_origins, 3);
	assert_string_equal(p.origins[0], "template cli");
	assert_non_null(strstr(p.origins[1], "/base/base.json"));
	assert_string_equal(p.origins[2], path);
	assert_int_equal(p.top_origin, 2);
	assert_int_equal(p.mode, WD_MODE_ENFORCE);
	assert_int_equal(p.mode_set.origin, 2);
	/* lists join, a repeat is not added twice */
	assert_true(wd_path_list_has(&p.fs_read, "/srv"));
	assert_true(wd_path_list_has(&p.fs_read, "/opt"));
	{
		size_t n = 0;

		for (size_t i = 0; i < p.fs_read.n; i++)
			n += strcmp(p.fs_read.paths[i], "/usr") == 0;
		assert_int_equal(n, 1);
	}
	assert_int_equal(p.net_allow.n, 2);
	assert_int_equal(p.limits[WD_LIMIT_PIDS].value, 16);
	assert_int_equal(p.limits[WD_LIMIT_MEMORY].value, 1u << 30);
	assert_int_equal(p.n_env_set, 2);
	assert_string_equal(p.env_set[1].value, "top");
	assert_int_equal(p.env_set[1].origin, 2);
	assert_string_equal(p.user, "1000");
	assert_string_equal(p.group, "1000");
	assert_int_equal(p.ns[WD_NS_PID], WD_NS_HOST);
	assert_int_equal(p.hold_timeout_ms, 60000);
	assert_int_equal(p.hold_approvers.n, 2);
	/* what each layer keeps adds up, each name once, from where it was first said */
	assert_int_equal(p.caps.n, 2);
	assert_string_equal(p.caps.paths[0], "CAP_CHOWN");
	assert_int_equal(p.caps.origin[0], 1);
	assert_string_equal(p.caps.paths[1], "CAP_NET_BIND_SERVICE");
	assert_int_equal(p.caps.origin[1], 2);
	/* the upper document says nothing of bursts: the lower one's burst, both parts, stays */
	assert_true(p.hold_burst_set.set);
	assert_int_equal(p.hold_burst_set.origin, 1);
	assert_int_equal(p.hold_burst_count, 50);
	assert_int_equal(p.hold_burst_window_ms, 2000);
	/* the pid namespace is back to the host's: the policy asks for no namespace */
	assert_false(wd_policy_features(&p) & WD_FEAT_NAMESPACES);
	wd_policy_free(&p);
}

static void test_extends_errors(void **state)
{
	char path[PATH_MAX + 64];

	(void)state;
	snprintf(path, sizeof(path), "%s", put("missing.json",
		 "{\"schema\":\"warden.policy/1\",\n\"extends\":[\"cli\",\"gone.json\"]}"));
	load_bad(path, NULL, 0, path, "/extends/1", "cannot read");
	snprintf(path, sizeof(path), "%s", put("one.json",
		 "{\"schema\":\"warden.policy/1\",\"extends\":\"./gone.json\"}"));
	load_bad(path, NULL, 0, path, "/extends", "No such file");

	/* an error in an extended file names that file */
	put("inner.json", "{\"schema\":\"warden.policy/1\",\n\"fs\":{\"read\":[\"rel\"]}}");
	snprintf(path, sizeof(path), "%s", put("outer.json",
		 "{\"schema\":\"warden.policy/1\",\"extends\":\"inner.json\"}"));
	load_bad(path, NULL, 0, "inner.json", "/fs/read/0", "absolute");

	/* cycles and depth */
	put("c1.json", "{\"schema\":\"warden.policy/1\",\"extends\":\"c2.json\"}");
	snprintf(path, sizeof(path), "%s",
		 put("c2.json", "{\"schema\":\"warden.policy/1\",\"extends\":\"c1.json\"}"));
	load_bad(path, NULL, 0, NULL, "", "extends itself");
	for (int i = 0; i < 10; i++) {
		char name[32], text[128];

		snprintf(name, sizeof(name), "d%d.json", i);
		snprintf(text, sizeof(text),
			 "{\"schema\":\"warden.policy/1\",\"extends\":\"d%d.json\"}", i + 1);
		put(name, i == 9 ? "{\"schema\":\"warden.policy/1\"}" : text);
	}
	snprintf(path, sizeof(path), "%s/d0.json", dir);
	load_bad(path, NULL, 0, NULL, "", "more than 8");

	/* a template may not be extended from a file that is itself broken JSON */
	snprintf(path, sizeof(path), "%s", put("broken.json", "{\"schema\":"));
	load_bad(path, NULL, 0, path, "", "not valid JSON");
	load_bad("/nonexistent/p.json", NULL, 0, "/nonexistent/p.json", "", "cannot read");
}

static void test_templates_only(void **state)
{
	const char *t1 = "{\"schema\":\"warden.policy/1\",\"extends\":\"./x.json\"}";
	const char *t2 = "{\"schema\":\"warden.policy/1\",\"extends\":\"worker\"}";
	struct wd_load_opts o = { .templates_only = true };
	struct wd_policy_errors errs = { 0 };
	struct wd_policy p;

	(void)state;
	assert_int_equal(wd_policy_load_text(t1, strlen(t1), "t.json", &o, &p, &errs), -EINVAL);
	assert_non_null(strstr(errs.v[0].msg, "only templates"));
	wd_policy_errors_free(&errs);
	assert_int_equal(wd_policy_load_text(t2, strlen(t2), "t.json", &o, &p, &errs), 0);
	assert_string_equal(p.origins[p.top_origin], "t.json");
	wd_policy_free(&p);
}

static void test_derive(void **state)
{
	struct wd_policy_derive d = { 0 };
	struct wd_policy p;

	(void)state;
	assert_string_equal(wd_derive_flag(WD_DERIVE_LIMIT), "--limit");
	assert_null(wd_derive_flag(WD_DERIVE_NR));
	assert_int_equal(wd_policy_derive_add(&d, WD_DERIVE_ALLOW_HOST, "api.example.com:443"), 0);
	assert_int_equal(wd_policy_derive_add(&d, WD_DERIVE_DENY_HOST, "10.0.0.0/8:*"), 0);
	assert_int_equal(wd_policy_derive_add(&d, WD_DERIVE_ALLOW_READ, "/srv//data/"), 0);
	assert_int_equal(wd_policy_derive_add(&d, WD_DERIVE_ALLOW_WRITE, "$HOME/out"), 0);
	assert_int_equal(wd_policy_derive_add(&d, WD_DERIVE_ALLOW_EXEC, "/opt/bin"), 0);
	assert_int_equal(wd_policy_derive_add(&d, WD_DERIVE_MODE, "audit"), 0);
	assert_int_equal(wd_policy_derive_add(&d, WD_DERIVE_LIMIT, "pids=32"), 0);
	assert_int_equal(wd_policy_derive_add(&d, WD_DERIVE_LIMIT, "wall_time=30s"), 0);
	assert_int_equal(wd_policy_derive_add(&d, WD_DERIVE_LIMIT, "pids=48"), 0);
	assert_int_equal(wd_policy_derive_add(&d, WD_DERIVE_ENV, "GREETING=hi=there"), 0);
	load_ok("cli", &d, &p);
	assert_int_equal(p.net_allow.n, 1);
	assert_string_equal(p.net_allow.v[0].name, "api.example.com");
	assert_int_equal(p.net_deny.n, 1);
	assert_true(wd_path_list_has(&p.fs_read, "/srv/data"));
	assert_true(wd_path_list_has(&p.fs_write, "$HOME/out"));
	assert_true(wd_path_list_has(&p.fs_exec, "/opt/bin"));
	assert_int_equal(p.mode, WD_MODE_AUDIT);
	assert_string_equal(p.origins[p.mode_set.origin], "--mode");
	assert_int_equal(p.limits[WD_LIMIT_PIDS].value, 48);
	assert_int_equal(p.limits[WD_LIMIT_WALL_TIME].value, 30000);
	assert_int_equal(p.top_origin, 0);
	assert_int_equal(p.n_env_set, 1);
	assert_string_equal(p.env_set[0].name, "GREETING");
	assert_string_equal(p.env_set[0].value, "hi=there");
	wd_policy_free(&p);
	wd_policy_derive_free(&d);
}

static void test_derive_errors(void **state)
{
	static const struct {
		enum wd_derive_kind kind;
		const char *value, *source, *words;
	} cases[] = {
		{ WD_DERIVE_ALLOW_HOST, "example.com", "--allow-host example.com", "missing port" },
		{ WD_DERIVE_DENY_HOST, "1.2.3.4/8:1", "--deny-host", "did you mean \"1.0.0.0/8\"" },
		{ WD_DERIVE_ALLOW_READ, "relative", "--allow-read relative", "absolute" },
		{ WD_DERIVE_ALLOW_WRITE, "/a/../b", "--allow-write", ".." },
		{ WD_DERIVE_ALLOW_EXEC, "$NOPE/x", "--allow-exec", "unknown variable" },
		{ WD_DERIVE_MODE, "audti", "--mode audti", "did you mean \"audit\"?" },
		{ WD_DERIVE_LIMIT, "wal_time=30s", "--limit wal_time=30s",
		  "did you mean \"wall_time\"?" },
		{ WD_DERIVE_LIMIT, "wall_time", "--limit wall_time", "KEY=VALUE" },
		{ WD_DERIVE_LIMIT, "=1", "--limit =1", "KEY=VALUE" },
		{ WD_DERIVE_LIMIT, "memory=lots", "--limit memory=lots", "size such as" },
		{ WD_DERIVE_LIMIT, "pids=ten", "--limit pids=ten", "got a string" },
		{ WD_DERIVE_LIMIT, "pids=99999999999999999999", "--limit pids", "got a string" },
		{ WD_DERIVE_ENV, "NOVALUE", "--env NOVALUE", "NAME=VALUE" },
		{ WD_DERIVE_ENV, "=x", "--env =x", "NAME=VALUE" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wd_policy_derive d = { 0 };

		assert_int_equal(wd_policy_derive_add(&d, cases[i].kind, cases[i].value), 0);
		load_bad("cli", &d, 0, cases[i].source, "", cases[i].words);
		wd_policy_derive_free(&d);
	}
	/* every bad addition is listed, after the document's own errors */
	{
		struct wd_policy_derive d = { 0 };

		wd_policy_derive_add(&d, WD_DERIVE_ALLOW_READ, "x");
		wd_policy_derive_add(&d, WD_DERIVE_MODE, "y");
		load_bad("nosuch", &d, 1, "--allow-read x", "", "absolute");
		load_bad("nosuch", &d, 2, "--mode y", "", "\"enforce\" or \"audit\"");
		wd_policy_derive_free(&d);
	}
}

static void test_expand(void **state)
{
	struct wd_policy_vars v = { .workdir = "/w/proj", .home = "/home/u/", .tmpdir = "/tmp" };
	struct wd_policy_errors errs = { 0 };
	struct wd_policy p;
	char long_dir[300];

	(void)state;
	load_ok("fs-tool", NULL, &p);
	assert_int_equal(wd_policy_expand(&p, &v, &errs), 0);
	assert_true(wd_path_list_has(&p.fs_write, "/w/proj"));
	assert_true(wd_path_list_has(&p.fs_write, "/tmp"));
	assert_true(wd_path_list_has(&p.fs_deny, "/w/proj/.git/hooks"));
	assert_string_equal(p.fs_protect[0].path, "/w/proj/.git");
	wd_policy_free(&p);

	load_ok("postgres-client", NULL, &p);
	assert_int_equal(wd_policy_expand(&p, &v, &errs), 0);
	assert_true(wd_path_list_has(&p.fs_read, "/home/u/.pgpass"));
	wd_policy_free(&p);

	/* what cannot be expanded is an error naming the entry and where it came from */
	v.home[0] = 0;
	load_ok("postgres-client", NULL, &p);
	assert_int_equal(wd_policy_expand(&p, &v, &errs), -EINVAL);
	assert_int_equal(errs.n, 3);
	assert_non_null(strstr(errs.v[0].msg, "$HOME is not set"));
	assert_non_null(strstr(errs.v[0].pointer, "/fs/read/"));
	wd_policy_free(&p);
	wd_policy_errors_free(&errs);

	snprintf(v.home, sizeof(v.home), "relative");
	load_ok("postgres-client", NULL, &p);
	assert_int_equal(wd_policy_expand(&p, &v, &errs), -EINVAL);
	assert_non_null(strstr(errs.v[0].msg, "not an absolute path"));
	wd_policy_free(&p);
	wd_policy_errors_free(&errs);

	snprintf(v.home, sizeof(v.home), "/home/../etc");
	load_ok("postgres-client", NULL, &p);
	assert_int_equal(wd_policy_expand(&p, &v, &errs), -EINVAL);
	assert_non_null(strstr(errs.v[0].msg, ".."));
	wd_policy_free(&p);
	wd_policy_errors_free(&errs);

	/* "$WORKDIR" in "/" would be the whole file system */
	snprintf(v.workdir, sizeof(v.workdir), "//");
	load_ok("cli", NULL, &p);
	assert_int_equal(wd_policy_expand(&p, &v, &errs), -EINVAL);
	assert_non_null(strstr(errs.v[0].msg, "whole file system"));
	wd_policy_free(&p);
	wd_policy_errors_free(&errs);

	memset(long_dir, 'a', sizeof(long_dir));
	long_dir[0] = '/';
	long_dir[sizeof(long_dir) - 1] = 0;
	snprintf(v.workdir, sizeof(v.workdir), "%s", long_dir);
	load_ok("cli", NULL, &p);
	assert_int_equal(wd_policy_expand(&p, &v, &errs), -EINVAL);
	assert_non_null(strstr(errs.v[0].msg, "longer than 246 bytes"));
	assert_string_equal(errs.v[0].pointer, "/fs/write/0");
	wd_policy_free(&p);
	wd_policy_errors_free(&errs);

	/* an entry from an extended document says so */
	snprintf(v.workdir, sizeof(v.workdir), "/");
	load_ok("fs-tool", NULL, &p);
	assert_int_equal(wd_policy_expand(&p, &v, &errs), -EINVAL);
	assert_non_null(strstr(errs.v[0].msg, "(from template cli)"));
	wd_policy_free(&p);
	wd_policy_errors_free(&errs);
}

static void test_vars_from_env(void **state)
{
	struct wd_policy_vars v;
	char cwd[PATH_MAX];

	(void)state;
	setenv("HOME", "/home/someone", 1);
	unsetenv("TMPDIR");
	wd_policy_vars_from_env(&v);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_string_equal(v.workdir, cwd);
	assert_string_equal(v.home, "/home/someone");
	assert_string_equal(v.tmpdir, "/tmp");
	setenv("TMPDIR", "/var/tmp", 1);
	unsetenv("HOME");
	wd_policy_vars_from_env(&v);
	assert_string_equal(v.tmpdir, "/var/tmp");
	assert_true(v.home[0] == '/'); /* from the password database */
	unsetenv("TMPDIR");
}

static void test_prepare(void **state)
{
	struct wd_policy_derive d = { 0 };
	struct wd_policy pol;
	struct wd_ruleset rs;
	char msg[1024], path[PATH_MAX + 64];
	int fd;

	(void)state;
	setenv("HOME", "/root", 1);
	fd = open(".", O_RDONLY);
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(wd_policy_prepare("cli", NULL, &rs, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "");
	assert_true(rs.n_entries > 0);
	assert_int_equal(rs.features, WD_FEAT_FS);
	wd_ruleset_free(&rs);

	/* one line: the file, the pointer, what is wrong, where; and how many more */
	snprintf(path, sizeof(path), "%s", put("two.json",
		 "{\"schema\":\"warden.policy/1\",\n\"fs\":{\"read\":[\"a\",\"b\"]}}"));
	assert_int_equal(wd_policy_prepare(path, NULL, &rs, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, ": /fs/read/0: expected an absolute path"));
	assert_non_null(strstr(msg, "(line 2, column 15)"));
	assert_non_null(strstr(msg, "(and 1 more: `warden policy check` lists them)"));
	assert_int_equal(strncmp(msg, path, strlen(path)), 0);
	assert_null(strchr(msg, '\n'));

	/* asked for, not enforced: refused, never ignored, with where it came from */
	put("allow.json", "{\"schema\":\"warden.policy/1\",\"extends\":\"cli\","
			  "\"exec\":{\"allow\":[\"/usr/bin\"]}}");
	snprintf(path, sizeof(path), "%s", put("on-top.json",
		 "{\"schema\":\"warden.policy/1\",\"extends\":\"./allow.json\"}"));
	/* exec.allow runs (on bpf-lsm); a backend without it refuses it, saying where it is from */
	assert_int_equal(wd_policy_prepare(path, NULL, &rs, msg, sizeof(msg)), 0);
	wd_ruleset_free(&rs);
	assert_int_equal(wd_policy_load_effective(path, NULL, &pol, msg, sizeof(msg)), 0);
	assert_int_equal(wd_policy_refuse_unenforced(&pol, path,
						     WD_FEAT_ENFORCED & ~WD_FEAT_EXEC_ALLOW, msg,
						     sizeof(msg)),
			 -EOPNOTSUPP);
	wd_policy_free(&pol);
	assert_non_null(strstr(msg, "/exec/allow/0: exec.allow"));
	assert_non_null(strstr(msg, "is not enforced by this warden yet (it comes from "));
	assert_non_null(strstr(msg, "allow.json), so the policy is refused rather than run "
				    "without it"));
	/* derived flags on top of a template that runs: every part is enforced */
	wd_policy_derive_add(&d, WD_DERIVE_ALLOW_HOST, "api.example.com:443");
	wd_policy_derive_add(&d, WD_DERIVE_LIMIT, "output=1MiB");
	assert_int_equal(wd_policy_prepare("cli", &d, &rs, msg, sizeof(msg)), 0);
	wd_ruleset_free(&rs);
	wd_policy_derive_free(&d);

	/* a variable that cannot be expanded where warden runs */
	unsetenv("HOME");
	setenv("HOME", "relative", 1);
	snprintf(path, sizeof(path), "%s", put("home.json",
		 "{\"schema\":\"warden.policy/1\",\"fs\":{\"read\":[\"$HOME/x\"]}}"));
	assert_int_equal(wd_policy_prepare(path, NULL, &rs, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "/fs/read/0: $HOME is \"relative\""));
	setenv("HOME", "/root", 1);
	assert_int_equal(fchdir(fd), 0);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_template_by_name),
		cmocka_unit_test(test_files_and_merge),
		cmocka_unit_test(test_extends_errors),
		cmocka_unit_test(test_templates_only),
		cmocka_unit_test(test_derive),
		cmocka_unit_test(test_derive_errors),
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_vars_from_env),
		cmocka_unit_test(test_prepare),
	};

	return cmocka_run_group_tests_name("effective", tests, setup, teardown);
}
