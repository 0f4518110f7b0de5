// SPDX-License-Identifier: GPL-2.0
/*
 * A persistent sandbox's waiting rooms (wd_hold_add_room): every exec's room is served by the
 * one receiver, a room whose tasks have all gone gives its place back, and the limits refuse
 * rather than leave a room unheard.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "supervisor/hold/engine.h"
#include "supervisor/hold/engine_internal.h"
#include "supervisor/hold/rules.h"
#include "supervisor/hold/waiting_room.h"

static const struct wd_protect_rule protect[] = {
	{ "/srv/app", WD_HOLD_DELETE, WD_HOLD_ACT_HOLD, "/fs/protect/0" },
};
static const struct wd_hold_rules rules = { .protect = protect, .n_protect = 1 };
static const struct wd_hold_events no_events;

#define NOPE "/nonexistent-warden-test/x"

/* An exec's command: under the waiting room, it waits for @go, then deletes what is not there. */
struct room_child {
	pid_t pid;
	int listener;
	int go; /* write end: a byte lets it call */
};

static void room_child_start(struct room_child *c)
{
	struct wd_notify_plan p;
	int sv[2], go[2];
	char b;

	assert_int_equal(wd_waiting_room_prepare(&p, WD_HOLD_DELETE, false), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(pipe2(go, O_CLOEXEC), 0);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (c->pid == 0) {
		close(sv[0]);
		close(go[1]);
		/* a room no one answers fails the test (killed) rather than hanging it */
		alarm(30);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || wd_waiting_room_install(&p, sv[1]))
			_exit(2);
		if (read(go[0], &b, 1) != 1)
			_exit(3);
		/* unmatched by the rule: the receiver lets it go on, and it finds nothing */
		_exit(unlink(NOPE) == -1 && errno == ENOENT ? 0 : 4);
	}
	close(sv[1]);
	close(go[0]);
	c->listener = wd_waiting_room_receive(sv[0]);
	close(sv[0]);
	assert_true(c->listener >= 0);
	c->go = go[1];
}

static void room_child_finish(struct room_child *c)
{
	int status;

	assert_int_equal(write(c->go, "g", 1), 1);
	close(c->go);
	assert_int_equal(waitpid(c->pid, &status, 0), c->pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* Two execs' rooms, one receiver: the call of each is answered. */
static void test_rooms_each_served(void **state)
{
	struct wd_hold_engine *e;
	struct room_child c[2];

	(void)state;
	assert_int_equal(wd_hold_engine_new(&e, &rules, -1, &no_events), 0);
	for (int i = 0; i < 2; i++) {
		room_child_start(&c[i]);
		assert_int_equal(wd_hold_add_room(e, c[i].listener), 0);
	}
	/* the second room first: the receiver polls every room, not the first one added */
	room_child_finish(&c[1]);
	room_child_finish(&c[0]);
	wd_hold_engine_free(e);
}

/*
 * The rooms are full (WD_HOLD_ROOMS_MAX with tasks in them): one more is refused, for its
 * supervisor to report; once the tasks of one room have all gone, its place is free again.
 */
static void test_room_limit_and_reuse(void **state)
{
	struct wd_hold_engine *e;
	struct room_child c;
	struct pollfd p;
	int extra;

	(void)state;
	assert_int_equal(wd_hold_engine_new(&e, &rules, -1, &no_events), 0);
	room_child_start(&c);
	assert_int_equal(wd_hold_add_room(e, c.listener), 0);
	/* rooms that never hang up: their tasks stay */
	for (int i = 1; i < WD_HOLD_ROOMS_MAX; i++) {
		int fd = eventfd(0, EFD_CLOEXEC);

		assert_true(fd >= 0);
		assert_int_equal(wd_hold_add_room(e, fd), 0);
	}
	extra = eventfd(0, EFD_CLOEXEC);
	assert_true(extra >= 0);
	assert_int_equal(wd_hold_add_room(e, extra), -ENOSPC);
	/* the child's room empties: the receiver tells the main loop, which reaps it */
	room_child_finish(&c);
	p = (struct pollfd){ .fd = wd_hold_listener_fd(e), .events = POLLIN };
	assert_int_equal(poll(&p, 1, 30000), 1);
	assert_int_equal(wd_hold_on_notify(e), 0);
	assert_int_equal(wd_hold_add_room(e, extra), 0);
	wd_hold_engine_free(e);
}

/* A run's engine has its one listener: a room beside it is refused, not served by no one. */
static void test_room_refused_beside_a_runs_listener(void **state)
{
	struct wd_hold_engine *e;
	int fd = eventfd(0, EFD_CLOEXEC), room = eventfd(0, EFD_CLOEXEC);

	(void)state;
	assert_true(fd >= 0 && room >= 0);
	assert_int_equal(wd_hold_engine_new(&e, &rules, fd, &no_events), 0);
	assert_int_equal(wd_hold_add_room(e, room), -EBUSY);
	wd_hold_engine_free(e);
	close(room);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rooms_each_served),
		cmocka_unit_test(test_room_limit_and_reuse),
		cmocka_unit_test(test_room_refused_beside_a_runs_listener),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
