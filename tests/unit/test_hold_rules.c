// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "policy/argv.h"
#include "policy/path.h"
#include "supervisor/hold/rules.h"

static const struct wd_protect_rule protect[] = {
	{ "/srv/app", WD_HOLD_DELETE | WD_HOLD_RENAME | WD_HOLD_TRUNCATE, WD_HOLD_ACT_HOLD,
	  "/fs/protect/0" },
	{ "/srv/app/keys", WD_HOLD_DELETE, WD_HOLD_ACT_DENY, "/fs/protect/1" },
	{ "/etc", WD_HOLD_TRUNCATE, WD_HOLD_ACT_DENY, "/fs/protect/2" },
};
static char *rm_pat[] = { "-*r*", "**" };
static char *git_pat[] = { "push", "**" };
static char *force_pat[] = { "push", "--force", "**" };
static const struct wd_exec_hold_rule exec_rules[] = {
	{ "/usr/bin/rm", true, rm_pat, 2, "/exec/hold/0", WD_HOLD_ACT_HOLD },
	{ "/usr/bin/git", true, git_pat, 2, "/exec/hold/1", WD_HOLD_ACT_HOLD },
	/* exec.deny with arguments: refused by the waiting room, and deny wins over hold */
	{ "/usr/bin/git", true, force_pat, 3, "/exec/deny/0", WD_HOLD_ACT_DENY },
};
static const struct wd_hold_rules rules = {
	.protect = protect, .n_protect = 3, .exec = exec_rules, .n_exec = 3,
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
	assert_int_equal(match(WD_HOLD_EXEC, "/usr/bin/git", NULL, "push --force origin", &rule),
			 WD_HOLD_ACT_DENY);
	assert_string_equal(rule, "/exec/deny/0");
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

/* A file with another name is caught by its inode, under its tree's rule and action. */
static void test_match_inode(void **state)
{
	static const struct wd_linked_file linked[] = { { 8, 42, 0 }, { 8, 43, 2 } };
	struct wd_hold_rules r = rules;
	const char *rule, *tree;

	(void)state;
	r.linked = linked;
	r.n_linked = 2;
	assert_int_equal(wd_hold_match_inode(&r, 8, 42, &rule, &tree), WD_HOLD_ACT_HOLD);
	assert_string_equal(rule, "/fs/protect/0");
	assert_string_equal(tree, "/srv/app");
	assert_int_equal(wd_hold_match_inode(&r, 8, 43, &rule, &tree), WD_HOLD_ACT_DENY);
	assert_string_equal(rule, "/fs/protect/2");
	/* the same inode number on another device is another file */
	assert_int_equal(wd_hold_match_inode(&r, 9, 42, &rule, &tree), WD_HOLD_ACT_NONE);
	assert_null(rule);
	assert_int_equal(wd_hold_match_inode(&rules, 8, 42, &rule, &tree), WD_HOLD_ACT_NONE);
}

/* One syscall the child makes, and whether the filter must send it. */
struct probe_call {
	long nr;
	long a0, a1, a2, a3;
	bool sent;
};

/*
 * Install the real filter for @p in a child, which makes @calls (every one fails with ENOENT:
 * nothing exists under the path they name), and return how many it sent to the waiting room;
 * each sent call must be the next one @calls marks as sent.
 */
static void run_filter(const struct wd_notify_plan *p, const struct probe_call *calls, size_t n)
{
	int sv[2], listener, status;
	size_t want = 0, got = 0;
	pid_t pid;

	for (size_t i = 0; i < n; i++)
		want += calls[i].sent;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(sv[0]);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || wd_waiting_room_install(p, sv[1]))
			_exit(2);
		for (size_t i = 0; i < n; i++)
			/* every argument given: what a register held before is no flag of linkat's */
			if (syscall(calls[i].nr, calls[i].a0, calls[i].a1, calls[i].a2, calls[i].a3,
				    0L, 0L) != -1 ||
			    errno != ENOENT)
				_exit(3);
		_exit(0);
	}
	close(sv[1]);
	listener = wd_waiting_room_receive(sv[0]);
	close(sv[0]);
	assert_true(listener >= 0);
	for (;;) {
		struct seccomp_notif req;
		struct seccomp_notif_resp resp;
		struct pollfd pfd = { .fd = listener, .events = POLLIN };
		size_t next = 0;

		/* a stuck child fails the test rather than hanging it */
		assert_true(poll(&pfd, 1, 10000) == 1);
		if (!(pfd.revents & POLLIN))
			break; /* POLLHUP: the child is gone */
		memset(&req, 0, sizeof(req));
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req))
			continue;
		for (size_t i = 0, seen = 0; i < n; i++)
			if (calls[i].sent && seen++ == got)
				next = i;
		assert_true(got < want);
		assert_int_equal(req.data.nr, calls[next].nr);
		assert_int_equal(req.data.args[2], (uint64_t)calls[next].a2);
		got++;
		resp = (struct seccomp_notif_resp){ .id = req.id,
						    .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE };
		assert_int_equal(ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp), 0);
	}
	close(listener);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(got, want);
}

#define NOPE "/nonexistent-warden-test/x"
#define CALL(nr, a0, a1, a2, sent) { nr, (long)(a0), (long)(a1), (long)(a2), 0, sent }
/* renameat and linkat: their new name is the fourth argument */
#define CALL4(nr, a0, a1, a2, a3, sent) { nr, (long)(a0), (long)(a1), (long)(a2), (long)(a3), sent }

/* The waiting room's filter, installed for real, sends exactly the held classes' syscalls. */
static void test_notify_filter(void **state)
{
	const unsigned int all = WD_HOLD_DELETE | WD_HOLD_RENAME | WD_HOLD_TRUNCATE | WD_HOLD_EXEC;
	struct wd_notify_plan p;
	/* truncate held alone: O_TRUNC opens go, and directory changes are watched */
	const struct probe_call trunc[] = {
		CALL(SYS_openat, AT_FDCWD, NOPE, O_RDONLY, false),
		CALL(SYS_openat, AT_FDCWD, NOPE, O_WRONLY | O_TRUNC, true),
		CALL(SYS_open, NOPE, O_WRONLY | O_TRUNC, 0, true),
		CALL(SYS_open, NOPE, O_RDONLY, 0, false),
		CALL(SYS_truncate, NOPE, 0, 0, true),
		CALL(SYS_unlink, NOPE, 0, 0, false),
		CALL(SYS_unlinkat, AT_FDCWD, NOPE, 0, false),
		CALL(SYS_unlinkat, AT_FDCWD, NOPE, AT_REMOVEDIR, true),
		CALL(SYS_rmdir, NOPE, 0, 0, true),
		CALL(SYS_rename, NOPE, NOPE "2", 0, true),
		CALL4(SYS_renameat, AT_FDCWD, NOPE, AT_FDCWD, NOPE "2", true),
		CALL(SYS_execve, NOPE, 0, 0, false),
		/* a second name for a file: what truncating it through that name would need */
		CALL(SYS_link, NOPE, NOPE "2", 0, true),
		CALL4(SYS_linkat, AT_FDCWD, NOPE, AT_FDCWD, NOPE "2", true),
		/* the accumulator reloaded after the unlinkat test: open's O_TRUNC still seen */
		CALL(SYS_open, NOPE, O_WRONLY | O_TRUNC, 0, true),
	};
	/* everything held: each class's calls, and nothing else */
	const struct probe_call every[] = {
		CALL(SYS_unlink, NOPE, 0, 0, true),
		CALL(SYS_unlinkat, AT_FDCWD, NOPE, 0, true),
		CALL(SYS_rename, NOPE, NOPE "2", 0, true),
		CALL(SYS_openat, AT_FDCWD, NOPE, O_WRONLY | O_TRUNC, true),
		CALL(SYS_openat, AT_FDCWD, NOPE, O_RDONLY, false),
		CALL(SYS_execve, NOPE, 0, 0, true),
		CALL(SYS_mkdir, NOPE, 0700, 0, false),
	};
	/* exec alone: no path class, so no directory watch */
	const struct probe_call exec[] = {
		CALL(SYS_execve, NOPE, 0, 0, true),
		CALL(SYS_rmdir, NOPE, 0, 0, false),
		CALL(SYS_rename, NOPE, NOPE "2", 0, false),
		CALL(SYS_unlink, NOPE, 0, 0, false),
		CALL(SYS_link, NOPE, NOPE "2", 0, false),
	};

	(void)state;
	assert_int_equal(wd_waiting_room_prepare(&p, WD_HOLD_TRUNCATE, false), 0);
	assert_true(p.watch_dirs);
	run_filter(&p, trunc, sizeof(trunc) / sizeof(trunc[0]));
	assert_int_equal(wd_waiting_room_prepare(&p, all, false), 0);
	assert_true(p.len < WD_NOTIFY_MAX_INSNS);
	run_filter(&p, every, sizeof(every) / sizeof(every[0]));
	assert_int_equal(wd_waiting_room_prepare(&p, WD_HOLD_EXEC, false), 0);
	assert_false(p.watch_dirs);
	run_filter(&p, exec, sizeof(exec) / sizeof(exec[0]));
	/* io_uring allowed: calls could change directories unseen, so none is watched */
	assert_int_equal(wd_waiting_room_prepare(&p, WD_HOLD_DELETE, true), 0);
	assert_false(p.watch_dirs);
}

/*
 * The held calls' table (bpf/wd_syscalls.h) as the waiting room reads it: each call once, in one
 * class, and the directory changes the filter watches are exactly rmdir, the renames and
 * unlinkat with AT_REMOVEDIR.
 */
static void test_held_table(void **state)
{
	const long dirs[] = { SYS_rmdir, SYS_rename, SYS_renameat, SYS_renameat2 };
	const uint64_t none[6] = { 0 }, removedir[6] = { 0, 0, AT_REMOVEDIR };
	const struct wd_held_call *c;

	(void)state;
	for (unsigned int nr = 0; nr < 512; nr++) {
		bool dir = false;

		for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
			dir |= dirs[i] == nr;
		assert_int_equal(wd_waiting_room_dir_change(nr, none), dir);
		c = wd_waiting_room_call(nr);
		if (!c)
			continue;
		assert_int_equal(c->nr, nr);
		assert_true(c->class && !(c->class & (c->class - 1)));
	}
	assert_true(wd_waiting_room_dir_change(SYS_unlinkat, removedir));
	assert_false(wd_waiting_room_dir_change(SYS_unlink, removedir));
	assert_int_equal(wd_waiting_room_call(SYS_unlinkat)->class, WD_HOLD_DELETE);
	assert_int_equal(wd_waiting_room_call(SYS_renameat2)->class, WD_HOLD_RENAME);
	assert_int_equal(wd_waiting_room_call(SYS_fallocate)->class, WD_HOLD_TRUNCATE);
	assert_int_equal(wd_waiting_room_call(SYS_execveat)->class, WD_HOLD_EXEC);
	assert_null(wd_waiting_room_call(SYS_mkdir));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_protect),
		cmocka_unit_test(test_exec),
		cmocka_unit_test(test_grants),
		cmocka_unit_test(test_burst_grants_stay_apart),
		cmocka_unit_test(test_approvers),
		cmocka_unit_test(test_match_inode),
		cmocka_unit_test(test_notify_filter),
		cmocka_unit_test(test_held_table),
	};

	return cmocka_run_group_tests_name("hold_rules", tests, NULL, NULL);
}
