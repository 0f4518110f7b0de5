// SPDX-License-Identifier: GPL-2.0
/*
 * A spare's claim (supervisor/run/spare.c): a claim's fds land where their names say and its
 * fields become the run's options; a claim that is not one (no argv, an fd name twice or
 * unknown, fds and names that do not match) is refused with every fd it carried closed; a
 * stop signal or the socket's end leaves the spare unclaimed.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "supervisor/run/execs.h"
#include "supervisor/run/run.h"
#include "supervisor/run/spare.h"

static int sv[2], sigfd = -1;

static int setup(void **state)
{
	sigset_t s;

	(void)state;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	sigprocmask(SIG_BLOCK, &s, NULL);
	sigfd = signalfd(-1, &s, SFD_CLOEXEC | SFD_NONBLOCK);
	return sigfd < 0 || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv);
}

static int teardown(void **state)
{
	(void)state;
	close(sv[0]);
	close(sv[1]);
	close(sigfd);
	return 0;
}

/* Is @fd open in this process? */
static bool is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

/* The inode of @fd, to tell which file a received fd is. */
static ino_t ino(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : st.st_ino;
}

static void test_a_claim_lands_where_its_names_say(void **state)
{
	struct wd_spare_claim c;
	int p[2], q[2], fds[2];

	(void)state;
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(pipe2(q, O_CLOEXEC), 0);
	fds[0] = q[0];
	fds[1] = p[1];
	assert_true(
		wd_execs_send(
			sv[0],
			"{\"argv\":[\"/bin/echo\",\"a b\"],\"audit\":\"/var/a\","
			"\"report\":\"/var/r\",\"daemon\":\"{}\",\"fds\":[\"stdin\",\"ready\"]}",
			fds, 2) > 0);
	assert_int_equal(wd_spare_claim_wait(sv[1], sigfd, &c), 0);
	assert_string_equal(c.argv[0], "/bin/echo");
	assert_string_equal(c.argv[1], "a b");
	assert_null(c.argv[2]);
	assert_int_equal(ino(c.fd[WD_SPARE_STDIN]), ino(q[0]));
	assert_int_equal(ino(c.fd[WD_SPARE_READY]), ino(p[1]));
	assert_int_equal(c.fd[WD_SPARE_OUT], -1);
	assert_int_equal(c.fd[WD_SPARE_KEEP_ERR], -1);
	/* received close-on-exec: no command inherits them */
	assert_true(fcntl(c.fd[WD_SPARE_STDIN], F_GETFD) & FD_CLOEXEC);
	wd_spare_claim_free(&c);
	for (int i = 0; i < 2; i++) {
		close(p[i]);
		close(q[i]);
	}
}

static void test_a_claim_that_is_none_is_refused_and_its_fds_closed(void **state)
{
	static const char *const bad[] = {
		"{\"fds\":[\"ready\"]}",			    /* no argv */
		"{\"argv\":[],\"fds\":[\"ready\"]}",		    /* an empty one */
		"{\"argv\":[\"x\",1],\"fds\":[\"ready\"]}",	    /* not strings */
		"{\"argv\":[\"x\"],\"fds\":[\"ready\",\"ready\"]}", /* one name twice */
		"{\"argv\":[\"x\"],\"fds\":[\"ready\",\"mine\"]}",  /* a name it does not know */
		"{\"argv\":[\"x\"],\"fds\":[\"ready\"]}",	    /* more fds than names */
		"not json",
	};
	struct wd_spare_claim c;
	int p[2], fds[2];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int before = -1;

		assert_int_equal(pipe2(p, O_CLOEXEC), 0);
		fds[0] = p[0];
		fds[1] = p[1];
		assert_true(wd_execs_send(sv[0], bad[i], fds, 2) > 0);
		/* what the receiver will be given: the lowest free fd numbers */
		before = dup(0);
		close(before);
		if (wd_spare_claim_wait(sv[1], sigfd, &c) != -EPROTO)
			fail_msg("%s: not refused", bad[i]);
		/* nothing it was sent is left open in the receiver */
		assert_false(is_open(before) && ino(before) == ino(p[0]));
		assert_false(is_open(before + 1) && ino(before + 1) == ino(p[1]));
		wd_spare_claim_free(&c);
		close(p[0]);
		close(p[1]);
	}
}

static void test_a_stop_signal_or_the_socket_s_end_leaves_it_unclaimed(void **state)
{
	struct wd_spare_claim c;
	int pair[2];

	(void)state;
	kill(getpid(), SIGUSR1);
	assert_int_equal(wd_spare_claim_wait(sv[1], sigfd, &c), -EINTR);
	/* the signal was taken: it does not end the spare again later */
	assert_int_equal(
		read(sigfd, &(struct signalfd_siginfo){0}, sizeof(struct signalfd_siginfo)), -1);
	wd_spare_claim_free(&c);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), 0);
	close(pair[0]);
	assert_int_equal(wd_spare_claim_wait(pair[1], sigfd, &c), -ECANCELED);
	wd_spare_claim_free(&c);
	close(pair[1]);
}

static void test_apply_makes_the_claim_the_run_s(void **state)
{
	struct wd_spare_claim c;
	struct wd_run_opts o = {
		.policy_path = "cli", .out_fd = {-1, -1, -1}, .keep_out = {-1, -1}, .spare_fd = 9};
	char path[] = "/tmp/wd-spare-out-XXXXXX";
	int keep1 = dup(1), keep2 = dup(2), keep0 = dup(0), fd = mkstemp(path), p[2];
	char json[512];

	(void)state;
	assert_true(fd >= 0 && keep0 >= 0 && keep1 >= 0 && keep2 >= 0);
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	snprintf(json, sizeof(json),
		 "{\"argv\":[\"true\"],\"stdout\":\"%s\",\"audit\":\"/var/"
		 "a\",\"fds\":[\"out\",\"ready\"]}",
		 path);
	assert_true(wd_execs_send(sv[0], json, (int[]){p[1], p[1]}, 2) > 0);
	assert_int_equal(wd_spare_claim_wait(sv[1], sigfd, &c), 0);
	assert_int_equal(wd_spare_claim_apply(&c, &o), 0);
	/* its own options kept, the claim's laid over them */
	assert_string_equal(o.policy_path, "cli");
	assert_string_equal(o.argv[0], "true");
	assert_string_equal(o.audit_path, "/var/a");
	assert_null(o.report_path);
	assert_int_equal(o.ready_fd, c.fd[WD_SPARE_READY]);
	assert_int_equal(o.out_fd[1], c.fd[WD_SPARE_OUT]);
	assert_int_equal(o.out_fd[2], -1);
	/* this process's stdout is the request's file now */
	assert_int_equal(ino(1), ino(fd));
	dup2(keep0, 0);
	dup2(keep1, 1);
	dup2(keep2, 2);
	wd_spare_claim_free(&c);
	close(p[0]);
	close(p[1]);
	close(fd);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_claim_lands_where_its_names_say),
		cmocka_unit_test(test_a_claim_that_is_none_is_refused_and_its_fds_closed),
		cmocka_unit_test(test_a_stop_signal_or_the_socket_s_end_leaves_it_unclaimed),
		cmocka_unit_test(test_apply_makes_the_claim_the_run_s),
	};

	return cmocka_run_group_tests_name("spare", tests, setup, teardown);
}
