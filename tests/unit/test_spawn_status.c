// SPDX-License-Identifier: GPL-2.0
/*
 * supervisor/sandbox/spawn.c, wd_child_read_status: a status counts only when the kernel says the
 * init sent it (SCM_CREDENTIALS), whoever else holds the other end of the socket; and the one
 * exit-status decoder (supervisor/sandbox/exit_status.c) it and everyone else use.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "supervisor/sandbox/exit_status.h"
#include "supervisor/sandbox/spawn.h"

/* A status channel as wd_spawn makes it: [0] warden's end (SO_PASSCRED), [1] the init's. */
static void channel(int sv[2])
{
	int one = 1;

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)), 0);
}

/* Send @status from a new process; its pid. */
static pid_t send_from_child(int fd, int status)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(write(fd, &status, sizeof(status)) == sizeof(status) ? 0 : 1);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

static void test_only_the_init(void **state)
{
	siginfo_t si = { 0 };
	int sv[2], fake = W_EXITCODE(42, 0), real = W_EXITCODE(3, 0);
	pid_t init;

	(void)state;
	channel(sv);
	/* whoever stole the init's end writes first; the init writes after */
	send_from_child(sv[1], fake);
	init = send_from_child(sv[1], real);
	close(sv[1]);
	assert_int_equal(wd_child_read_status(sv[0], init, &si), 0);
	assert_int_equal(si.si_code, CLD_EXITED);
	assert_int_equal(si.si_status, 3);
	close(sv[0]);
}

static void test_nothing_from_the_init(void **state)
{
	siginfo_t si = { 0 };
	int sv[2];

	(void)state;
	channel(sv);
	/* only a stranger spoke, then every end closed: the init's own status stands */
	send_from_child(sv[1], W_EXITCODE(42, 0));
	close(sv[1]);
	assert_int_equal(wd_child_read_status(sv[0], 1, &si), -ENODATA);
	assert_int_equal(si.si_code, 0);
	close(sv[0]);
}

static void test_signal(void **state)
{
	siginfo_t si = { 0 };
	int sv[2];
	pid_t init;

	(void)state;
	channel(sv);
	init = send_from_child(sv[1], 9); /* killed by SIGKILL */
	close(sv[1]);
	assert_int_equal(wd_child_read_status(sv[0], init, &si), 0);
	assert_int_equal(si.si_code, CLD_KILLED);
	assert_int_equal(si.si_status, 9);
	close(sv[0]);
}

/* The one decoder: what a real child's wait status says, as warden exits and reports it. */
static int status_of_child(int how)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		if (how > 0)
			_exit(how);
		signal(-how, SIG_DFL);
		raise(-how);
		_exit(99);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static void test_one_decoder(void **state)
{
	siginfo_t si;
	struct wd_exit_status how;
	int status;
	pid_t pid;

	(void)state;
	status = status_of_child(3);
	memset(&si, 0, sizeof(si));
	wd_exit_siginfo_of_wait(status, &si);
	assert_int_equal(si.si_code, CLD_EXITED);
	how = wd_exit_status_of(&si);
	assert_int_equal(how.code, 3);
	assert_int_equal(how.signo, 0);
	assert_int_equal(wd_exit_code_of_wait(status), 3);

	status = status_of_child(-SIGTERM);
	memset(&si, 0, sizeof(si));
	wd_exit_siginfo_of_wait(status, &si);
	assert_int_equal(si.si_code, CLD_KILLED);
	how = wd_exit_status_of(&si);
	assert_int_equal(how.code, 128 + SIGTERM);
	assert_int_equal(how.signo, SIGTERM);
	assert_int_equal(wd_exit_code_of_wait(status), 128 + SIGTERM);

	/* waitid's own siginfo decodes the same way */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(7);
	memset(&si, 0, sizeof(si));
	assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED), 0);
	how = wd_exit_status_of(&si);
	assert_int_equal(how.code, 7);
	assert_int_equal(how.signo, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_only_the_init),
		cmocka_unit_test(test_nothing_from_the_init),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_one_decoder),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
