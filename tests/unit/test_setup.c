// SPDX-License-Identifier: GPL-2.0
/* supervisor/sandbox/setup.c, the parent's half: what it prepares from a policy, without root. */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "policy/compile.h"
#include "policy/policy.h"
#include "supervisor/sandbox/setup.h"

/* Prepare @json's set-up into @s; returns what wd_setup_prepare returned, @why its words. */
static int prepare(const char *json, struct wd_setup *s, char *why, size_t whysz)
{
	struct wd_policy p;
	struct wd_policy_error e;
	struct wd_ruleset rs;
	int r;

	assert_int_equal(wd_policy_parse(json, strlen(json), &p, &e), 0);
	assert_int_equal(wd_compile(&p, &rs, &e), 0);
	r = wd_setup_prepare(s, &rs, why, whysz);
	/* bind_ro is borrowed from the rule set: not used past this point here */
	s->bind_ro = NULL;
	wd_ruleset_free(&rs);
	wd_policy_free(&p);
	return r;
}

#define S "{\"schema\":\"warden.policy/1\""

static bool has(const struct wd_setup *s, const char *kv)
{
	for (size_t i = 0; i < s->n_env; i++)
		if (strcmp(s->envp[i], kv) == 0)
			return true;
	return false;
}

static const char *const caller_vars[] = {
	"TERM", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_NUMERIC", "LC_TIME", "LC_COLLATE",
	"LC_MONETARY", "LC_MESSAGES", "LC_PAPER", "LC_NAME", "LC_ADDRESS", "LC_TELEPHONE",
	"LC_MEASUREMENT", "LC_IDENTIFICATION", "TZ", NULL,
};

static void test_env(void **state)
{
	struct wd_setup s;
	char why[512];

	(void)state;
	/* none of what passes by default, so that what is there is counted */
	for (const char *const *v = caller_vars; *v; v++)
		unsetenv(*v);
	setenv("WDT_A", "1", 1);
	setenv("WDT_B", "2", 1);
	setenv("OTHER_SECRET", "x", 1);
	assert_int_equal(prepare(S ",\"env\":{\"pass\":[\"WDT_*\"],\"set\":{\"WDT_B\":\"over\","
				   "\"NEW\":\"a=b\"}}}",
				 &s, why, sizeof(why)),
			 0);
	/* the base (PATH, HOME, USER, LOGNAME), the passed and the set */
	assert_int_equal(s.n_env, 7);
	assert_true(has(&s, "WDT_A=1"));
	assert_true(has(&s, "WDT_B=over"));
	assert_true(has(&s, "NEW=a=b"));
	assert_true(has(&s, "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"));
	assert_false(has(&s, "OTHER_SECRET=x"));
	assert_null(s.envp[7]);
	wd_setup_release(&s);

	/* no env: the base and the caller's locale and terminal, never its other variables */
	setenv("PATH", "/wdt/bin:/usr/bin", 1);
	setenv("TERM", "wdt-term", 1);
	setenv("LC_TIME", "C", 1);
	setenv("LC_WDT_SMUGGLED", "x", 1);
	assert_int_equal(prepare(S "}", &s, why, sizeof(why)), 0);
	assert_non_null(s.envp);
	assert_true(has(&s, "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"));
	assert_true(has(&s, "TERM=wdt-term"));
	assert_true(has(&s, "LC_TIME=C"));
	assert_false(has(&s, "LC_WDT_SMUGGLED=x"));
	assert_false(has(&s, "OTHER_SECRET=x"));
	assert_false(has(&s, "WDT_A=1"));
	for (size_t i = 0; i < s.n_env; i++)
		assert_true(strncmp(s.envp[i], "HOME=", 5) != 0 || s.envp[i][5] == '/');
	assert_false(s.drop_user);
	assert_int_equal(s.clone_flags, 0);
	assert_int_equal(s.netns_fd, -1);
	wd_setup_release(&s);

	/* env.pass may name what the base sets: the caller's PATH then */
	assert_int_equal(prepare(S ",\"env\":{\"pass\":[\"PATH\"]}}", &s, why, sizeof(why)), 0);
	assert_true(has(&s, "PATH=/wdt/bin:/usr/bin"));
	wd_setup_release(&s);
}

static void test_user(void **state)
{
	struct wd_setup s;
	char why[512];

	(void)state;
	assert_int_equal(prepare(S ",\"user\":\"54321:54322\"}", &s, why, sizeof(why)), 0);
	assert_true(s.drop_user);
	assert_int_equal(s.uid, 54321);
	assert_int_equal(s.gid, 54322);
	assert_int_equal(s.n_groups, 1);
	assert_int_equal(s.groups[0], 54322);
	wd_setup_release(&s);

	assert_int_equal(prepare(S ",\"user\":\"root\"}", &s, why, sizeof(why)), 0);
	assert_int_equal(s.uid, 0);
	assert_int_equal(s.gid, 0);
	assert_true(s.n_groups >= 1);
	wd_setup_release(&s);

	assert_int_equal(prepare(S ",\"user\":\"wd-no-such-user\"}", &s, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "/user: no user \"wd-no-such-user\""));
	wd_setup_release(&s);

	assert_int_equal(prepare(S ",\"user\":\"root:wd-no-such-group\"}", &s, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "/user: no group \"wd-no-such-group\""));
	wd_setup_release(&s);

	/* a uid nobody has: its group cannot be guessed */
	assert_int_equal(prepare(S ",\"user\":\"54321\"}", &s, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "\"54321:GID\""));
	wd_setup_release(&s);
}

static void test_namespaces(void **state)
{
	char why[512], host_if[IF_NAMESIZE];
	unsigned int name_of_pair;
	struct wd_setup s;

	(void)state;
	assert_int_equal(prepare(S ",\"namespaces\":{\"pid\":\"private\",\"uts\":\"private\","
				   "\"ipc\":\"private\"}}",
				 &s, why, sizeof(why)),
			 0);
	/* its own /proc needs its own mount table */
	assert_int_equal(s.clone_flags, CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC);
	wd_setup_name(&s, "sb-1234");
	assert_string_equal(s.hostname, "sb-1234");
	wd_setup_release(&s);

	assert_int_equal(prepare(S ",\"namespaces\":{\"tmp\":\"private\"}}", &s, why, sizeof(why)),
			 0);
	assert_int_equal(s.clone_flags, CLONE_NEWNS);
	assert_true(s.tmp);
	wd_setup_release(&s);

	assert_int_equal(prepare(S ",\"namespaces\":{\"bind_ro\":[\"/\",\"/wd-no-such-dir\"]}}", &s,
				 why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "/namespaces/bind_ro/1: cannot bind /wd-no-such-dir"));
	wd_setup_release(&s);

	/* a veth pair needs root (tests/integration/t_netmode.sh runs it for real) */
	if (geteuid() != 0)
		return;
	assert_int_equal(prepare(S ",\"namespaces\":{\"net\":\"veth\"}}", &s, why, sizeof(why)),
			 0);
	assert_true(s.netns_fd >= 0);
	assert_memory_equal(s.veth.host_if, "wd", 2);
	name_of_pair = if_nametoindex(s.veth.host_if);
	assert_true(name_of_pair > 0);
	assert_int_equal(ntohl(s.veth.host4) & 0xffff0000u, WD_VETH_POOL);
	assert_int_equal(ntohl(s.veth.host4) & 3u, 1);
	assert_int_equal(ntohl(s.veth.sandbox4), ntohl(s.veth.host4) + 1);
	snprintf(host_if, sizeof(host_if), "%s", s.veth.host_if);
	wd_setup_release(&s);
	/* the host end goes with the sandbox */
	assert_int_equal(if_nametoindex(host_if), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_user),
		cmocka_unit_test(test_namespaces),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
