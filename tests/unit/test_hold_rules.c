// SPDX-License-Identifier: GPL-2.0
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "supervisor/hold_rules.h"

static const struct wd_protect_rule protect[] = {
	{ "/srv/app", WD_HOLD_DELETE | WD_HOLD_RENAME | WD_HOLD_TRUNCATE, WD_HOLD_ACT_HOLD,
	  "/fs/protect/0" },
	{ "/srv/app/keys", WD_HOLD_DELETE, WD_HOLD_ACT_DENY, "/fs/protect/1" },
	{ "/etc", WD_HOLD_TRUNCATE, WD_HOLD_ACT_DENY, "/fs/protect/2" },
};
static char *rm_pat[] = { "-*r*", "**" };
static char *git_pat[] = { "push", "**" };
static const struct wd_exec_hold_rule exec_rules[] = {
	{ "/usr/bin/rm", true, rm_pat, 2, "/exec/hold/0" },
	{ "/usr/bin/git", true, git_pat, 2, "/exec/hold/1" },
};
static const struct wd_hold_rules rules = {
	.protect = protect, .n_protect = 3, .exec = exec_rules, .n_exec = 2,
};

static enum wd_hold_action match(unsigned int class, const char *t, const char *t2,
				 const char *args, const char **rule)
{
	char buf[256], *argv[16];
	size_t argc = 0;
	struct wd_held_op op = { .class = class, .target = t, .target2 = t2 };

	snprintf(buf, sizeof(buf), "%s", args ? args : "");
	for (char *tok = strtok(buf, " "); tok && argc < 16; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	op.argv = argv;
	op.argc = argc;
	const char *tree;

	return wd_hold_match(&rules, &op, rule, &tree);
}

static void test_protect(void **state)
{
	const char *rule;

	(void)state;
	assert_int_equal(match(WD_HOLD_DELETE, "/srv/app/build/x.o", NULL, NULL, &rule),
			 WD_HOLD_ACT_HOLD);
	assert_string_equal(rule, "/fs/protect/0");
	{
		struct wd_held_op op = { .class = WD_HOLD_DELETE, .target = "/srv/app/k" };
		const char *tree;

		wd_hold_match(&rules, &op, &rule, &tree);
		assert_string_equal(tree, "/srv/app");
	}
	assert_int_equal(match(WD_HOLD_DELETE, "/srv/app", NULL, NULL, &rule), WD_HOLD_ACT_HOLD);
	/* a sibling sharing the prefix is not under the tree */
	assert_int_equal(match(WD_HOLD_DELETE, "/srv/application/x", NULL, NULL, &rule),
			 WD_HOLD_ACT_NONE);
	assert_null(rule);
	/* deny wins where rules overlap */
	assert_int_equal(match(WD_HOLD_DELETE, "/srv/app/keys/id", NULL, NULL, &rule),
			 WD_HOLD_ACT_DENY);
	assert_string_equal(rule, "/fs/protect/1");
	/* rename into the tree (rename-over) and out of it are both caught */
	assert_int_equal(match(WD_HOLD_RENAME, "/tmp/evil", "/srv/app/config", NULL, &rule),
			 WD_HOLD_ACT_HOLD);
	assert_int_equal(match(WD_HOLD_RENAME, "/srv/app/config", "/tmp/x", NULL, &rule),
			 WD_HOLD_ACT_HOLD);
	/* renaming a directory above the tree (either end) would carry the tree with it */
	assert_int_equal(match(WD_HOLD_RENAME, "/srv", "/tmp/srv", NULL, &rule),
			 WD_HOLD_ACT_HOLD);
	assert_int_equal(match(WD_HOLD_RENAME, "/tmp/empty", "/srv", NULL, &rule),
			 WD_HOLD_ACT_HOLD);
	/* but not a sibling sharing the prefix, nor deleting a directory above it */
	assert_int_equal(match(WD_HOLD_RENAME, "/srv/application", "/tmp/a", NULL, &rule),
			 WD_HOLD_ACT_NONE);
	assert_int_equal(match(WD_HOLD_TRUNCATE, "/etc/passwd", NULL, NULL, &rule),
			 WD_HOLD_ACT_DENY);
	/* a class the rule does not name */
	assert_int_equal(match(WD_HOLD_DELETE, "/etc/passwd", NULL, NULL, &rule), WD_HOLD_ACT_NONE);
}

static void test_exec(void **state)
{
	const char *rule;

	(void)state;
	assert_int_equal(match(WD_HOLD_EXEC, "/usr/bin/rm", NULL, "-rf /srv", &rule),
			 WD_HOLD_ACT_HOLD);
	assert_string_equal(rule, "/exec/hold/0");
	assert_int_equal(match(WD_HOLD_EXEC, "/usr/bin/rm", NULL, "-f x", &rule), WD_HOLD_ACT_NONE);
	assert_int_equal(match(WD_HOLD_EXEC, "/usr/bin/git", NULL, "push origin", &rule),
			 WD_HOLD_ACT_HOLD);
	assert_int_equal(match(WD_HOLD_EXEC, "/usr/bin/git", NULL, "status", &rule),
			 WD_HOLD_ACT_NONE);
	assert_int_equal(match(WD_HOLD_EXEC, "/usr/bin/git", NULL, "push", &rule),
			 WD_HOLD_ACT_HOLD);
	{
		char *pat[] = { "-f", "*.o" }, *yes[] = { "-f", "a.o" }, *no[] = { "-f", "a.o", "b" };

		assert_true(wd_argv_match(pat, 2, yes, 2));
		assert_false(wd_argv_match(pat, 2, no, 3));
		assert_true(wd_argv_match(NULL, 0, NULL, 0));
	}
	assert_true(wd_path_within("/a/b", "/"));
	assert_false(wd_path_within("/ab", "/a"));
}

static void test_grants(void **state)
{
	struct wd_grants gs = { 0 };
	struct wd_held_op in = { .class = WD_HOLD_DELETE, .target = "/srv/app/build/a" };
	struct wd_held_op out = { .class = WD_HOLD_DELETE, .target = "/srv/app/src/a" };
	struct wd_grant g = { .scope = WD_GRANT_SANDBOX, .allow = true, .classes = WD_HOLD_DELETE,
			      .subtree = "/srv/app/build", .budget = 2, .expires_ms = 1000 };

	(void)state;
	assert_int_equal(wd_grants_answer(&gs, &in, 10, 0), 0);
	assert_int_equal(wd_grants_add(&gs, &g), 0);
	assert_int_equal(wd_grants_answer(&gs, &out, 10, 0), 0); /* outside the subtree */
	assert_int_equal(wd_grants_answer(&gs, &in, 10, 0), 1);
	assert_int_equal(wd_grants_answer(&gs, &in, 11, 0), 1); /* budget spent now */
	assert_int_equal(wd_grants_answer(&gs, &in, 10, 0), 0);
	/* time to live */
	g.budget = 0;
	assert_int_equal(wd_grants_add(&gs, &g), 0);
	assert_int_equal(wd_grants_answer(&gs, &in, 10, 999), 1);
	assert_int_equal(wd_grants_answer(&gs, &in, 10, 1000), 0);
	/* process scope, and "deny all like this" */
	g = (struct wd_grant){ .scope = WD_GRANT_PROCESS, .allow = false, .pid = 7,
			       .classes = WD_HOLD_DELETE };
	assert_int_equal(wd_grants_add(&gs, &g), 0);
	assert_int_equal(wd_grants_answer(&gs, &out, 7, 0), -1);
	assert_int_equal(wd_grants_answer(&gs, &out, 8, 0), 0);
	/* once-scoped grants are not kept */
	g.scope = WD_GRANT_ONCE;
	g.pid = 8;
	assert_int_equal(wd_grants_add(&gs, &g), 0);
	assert_int_equal(wd_grants_answer(&gs, &out, 8, 0), 0);
	wd_grants_free(&gs);
}

/* A grant from a burst hold answers bursts only; one from a tree's hold never answers a burst. */
static void test_burst_grants_stay_apart(void **state)
{
	struct wd_grants gs = { 0 };
	struct wd_held_op tree = { .class = WD_HOLD_DELETE, .target = "/srv/app/a" };
	struct wd_held_op burst = { .class = WD_HOLD_DELETE, .target = "/tmp/x", .burst = true };
	struct wd_grant g = { .scope = WD_GRANT_SANDBOX, .allow = true, .classes = WD_HOLD_DELETE,
			      .burst = true };

	(void)state;
	assert_int_equal(wd_grants_add(&gs, &g), 0);
	assert_int_equal(wd_grants_answer(&gs, &burst, 1, 0), 1);
	assert_int_equal(wd_grants_answer(&gs, &tree, 1, 0), 0);
	wd_grants_free(&gs);
	g.burst = false;
	assert_int_equal(wd_grants_add(&gs, &g), 0);
	assert_int_equal(wd_grants_answer(&gs, &tree, 1, 0), 1);
	assert_int_equal(wd_grants_answer(&gs, &burst, 1, 0), 0);
	wd_grants_free(&gs);
}

/* Who may decide: root, a listed user, a member (primary or supplementary) of a listed group. */
static void test_approvers(void **state)
{
	static const uid_t uids[] = { 1000 };
	static const gid_t gids[] = { 4242 };
	static const gid_t other[] = { 5, 6 }, member[] = { 5, 4242 };
	struct wd_hold_rules r = { 0 };

	(void)state;
	assert_false(wd_hold_rules_have_approvers(&r));
	assert_true(wd_approver_may(&r, 0, 0, NULL, 0));
	assert_false(wd_approver_may(&r, 1000, 1000, NULL, 0));
	r.approver_uids = uids;
	r.n_approver_uids = 1;
	r.approver_gids = gids;
	r.n_approver_gids = 1;
	assert_true(wd_hold_rules_have_approvers(&r));
	assert_true(wd_approver_may(&r, 0, 0, NULL, 0));
	assert_true(wd_approver_may(&r, 1000, 1000, NULL, 0));
	assert_false(wd_approver_may(&r, 1001, 1001, other, 2));
	assert_true(wd_approver_may(&r, 1001, 4242, NULL, 0));
	assert_true(wd_approver_may(&r, 1001, 1001, member, 2));
}

/* The waiting room's filter sends exactly the held classes' syscalls. */
static void test_notify_filter(void **state)
{
	struct wd_notify_plan p;
	unsigned int all = WD_HOLD_DELETE | WD_HOLD_RENAME | WD_HOLD_TRUNCATE | WD_HOLD_EXEC;

	(void)state;
	assert_int_equal(wd_notify_prepare(&p, all, false), 0);
	assert_true(p.len < WD_NOTIFY_MAX_INSNS);
	assert_true(wd_notify_sends(WD_HOLD_DELETE, 263 /* unlinkat */, 0));
	assert_false(wd_notify_sends(WD_HOLD_RENAME, 263, 0));
	assert_true(wd_notify_sends(WD_HOLD_TRUNCATE, 257 /* openat */, 01000 /* O_TRUNC */));
	assert_false(wd_notify_sends(WD_HOLD_TRUNCATE, 257, 02 /* O_RDWR */));
	assert_true(wd_notify_sends(WD_HOLD_EXEC, 59 /* execve */, 0));
	assert_false(wd_notify_sends(all, 0 /* read */, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_protect),
		cmocka_unit_test(test_exec),
		cmocka_unit_test(test_grants),
		cmocka_unit_test(test_burst_grants_stay_apart),
		cmocka_unit_test(test_approvers),
		cmocka_unit_test(test_notify_filter),
	};

	return cmocka_run_group_tests_name("hold_rules", tests, NULL, NULL);
}
