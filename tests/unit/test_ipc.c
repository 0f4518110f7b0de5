// SPDX-License-Identifier: GPL-2.0
/*
 * supervisor/ipc/: the one unix-socket layer. Line framing (split, merged, oversize, NUL bytes),
 * the output queue's bound, listening by rename, the peer check, and the run directory's names.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "supervisor/ipc/line.h"
#include "supervisor/ipc/rundir.h"
#include "supervisor/ipc/sock.h"

static void put(int fd, const char *s, size_t n)
{
	assert_int_equal(write(fd, s, n), (ssize_t)n);
}

/* The next line must be @want. */
static void next_is(struct wd_lines *l, const char *want)
{
	size_t len = 0;
	char *line = NULL;

	assert_int_equal(wd_lines_next(l, &line, &len), 1);
	assert_string_equal(line, want);
	assert_int_equal(len, strlen(want));
}

static void no_line(struct wd_lines *l)
{
	size_t len;
	char *line;

	assert_false(wd_lines_ready(l));
	assert_int_equal(wd_lines_next(l, &line, &len), 0);
}

/* A line written in pieces is one line; pieces of the next one wait for their end. */
static void test_split_lines(void **state)
{
	struct wd_lines l;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	wd_lines_init(&l, 64);
	put(sv[1], "{\"op\":", 6);
	assert_int_equal(wd_lines_fill(&l, sv[0]), 6);
	no_line(&l);
	put(sv[1], "\"holds\"}\n{\"op\"", 14);
	assert_int_equal(wd_lines_fill(&l, sv[0]), 14);
	assert_true(wd_lines_ready(&l));
	next_is(&l, "{\"op\":\"holds\"}");
	no_line(&l);
	put(sv[1], ":1}\n", 4);
	assert_int_equal(wd_lines_fill(&l, sv[0]), 4);
	next_is(&l, "{\"op\":1}");
	no_line(&l);
	close(sv[1]);
	assert_int_equal(wd_lines_fill(&l, sv[0]), 0); /* EOF */
	wd_lines_free(&l);
	close(sv[0]);
}

/* Several lines in one read come out one by one, an empty line among them. */
static void test_merged_lines(void **state)
{
	static const char in[] = "a\n\nbb\nccc\nd";
	struct wd_lines l;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	wd_lines_init(&l, 64);
	assert_int_equal(wd_lines_fill(&l, sv[0]), -EAGAIN); /* nothing yet */
	put(sv[1], in, sizeof(in) - 1);
	assert_int_equal(wd_lines_fill(&l, sv[0]), (ssize_t)(sizeof(in) - 1));
	next_is(&l, "a");
	next_is(&l, "");
	next_is(&l, "bb");
	next_is(&l, "ccc");
	no_line(&l);
	put(sv[1], "\n", 1);
	assert_int_equal(wd_lines_fill(&l, sv[0]), 1);
	next_is(&l, "d");
	wd_lines_free(&l);
	close(sv[0]);
	close(sv[1]);
}

/* A line of the bound is taken; one byte more is refused, and the buffer stays at the bound. */
static void test_oversize_refused(void **state)
{
	char big[64];
	struct wd_lines l;
	size_t len;
	char *line;
	int sv[2];

	(void)state;
	memset(big, 'x', sizeof(big));
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	wd_lines_init(&l, 16);
	/* exactly 16 bytes and the newline: a line */
	put(sv[1], big, 16);
	put(sv[1], "\n", 1);
	assert_int_equal(wd_lines_fill(&l, sv[0]), 17);
	big[16] = 0;
	next_is(&l, big);
	big[16] = 'x';
	/* 17 bytes and no end: over the bound, whatever follows */
	put(sv[1], big, 17);
	assert_int_equal(wd_lines_fill(&l, sv[0]), 17);
	assert_true(wd_lines_ready(&l));
	assert_int_equal(wd_lines_next(&l, &line, &len), -EMSGSIZE);
	put(sv[1], big, sizeof(big));
	assert_int_equal(wd_lines_fill(&l, sv[0]), -EMSGSIZE);
	assert_true(l.b.cap <= 17);
	wd_lines_free(&l);
	close(sv[0]);
	close(sv[1]);
}

/* A peer sending far more than the bound never makes the buffer grow past it. */
static void test_flood_bounded(void **state)
{
	const size_t max = 65536, total = 1u << 20;
	char *junk = malloc(total);
	struct wd_lines l;
	ssize_t n = 1;
	size_t len;
	char *line;
	int sv[2];

	(void)state;
	assert_non_null(junk);
	memset(junk, 'y', total);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	wd_lines_init(&l, max);
	for (size_t sent = 0; sent < total && n != -EMSGSIZE;) {
		ssize_t w = send(sv[1], junk + sent, total - sent, MSG_DONTWAIT);

		if (w > 0)
			sent += (size_t)w;
		n = wd_lines_fill(&l, sv[0]);
		assert_true(n > 0 || n == -EAGAIN || n == -EMSGSIZE);
		assert_true(l.b.cap <= max + 1);
		if (n > 0)
			assert_true(wd_lines_next(&l, &line, &len) <= 0);
	}
	assert_int_equal(n, -EMSGSIZE);
	assert_int_equal(wd_lines_next(&l, &line, &len), -EMSGSIZE);
	wd_lines_free(&l);
	free(junk);
	close(sv[0]);
	close(sv[1]);
}

/* A NUL byte refuses its line (no parser sees less than was sent); the next line follows. */
static void test_nul_in_line(void **state)
{
	static const char in[] = "{\"op\":\"holds\"}\0{\"op\":\"decide\"}\nok\n";
	struct wd_lines l;
	size_t len;
	char *line;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	wd_lines_init(&l, 64);
	put(sv[1], in, sizeof(in) - 1);
	assert_int_equal(wd_lines_fill(&l, sv[0]), (ssize_t)(sizeof(in) - 1));
	assert_int_equal(wd_lines_next(&l, &line, &len), -EBADMSG);
	next_is(&l, "ok");
	no_line(&l);
	wd_lines_free(&l);
	close(sv[0]);
	close(sv[1]);
}

/* What a peer does not read waits, up to the bound; past it, the push is refused. */
static void test_outq_bound(void **state)
{
	static char chunk[4096];
	struct wd_outq q;
	char back[8192];
	int sv[2], sz = 4096, err;
	size_t got = 0, pushed = 0;

	(void)state;
	memset(chunk, 'z', sizeof(chunk));
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	wd_outq_init(&q, 1u << 20);
	/* more than the socket takes: the rest waits */
	for (err = 0; err == 0 && pushed < (1u << 20); pushed += sizeof(chunk)) {
		assert_int_equal(wd_outq_push(&q, chunk, sizeof(chunk)), 0);
		err = wd_outq_flush(&q, sv[0]);
	}
	assert_int_equal(err, -EAGAIN);
	assert_true(wd_outq_pending(&q) > 0);
	/* the queue fills to its bound and no further */
	while (wd_outq_pending(&q) + sizeof(chunk) <= q.b.max)
		assert_int_equal(wd_outq_push(&q, chunk, sizeof(chunk)), 0);
	assert_int_equal(wd_outq_push(&q, chunk, sizeof(chunk)), -ENOBUFS);
	pushed = wd_outq_pending(&q);
	/* the reader takes it all, in order, as it reads */
	while (wd_outq_pending(&q) > 0 || got < pushed) {
		ssize_t n;

		err = wd_outq_flush(&q, sv[0]);
		assert_true(err == 0 || err == -EAGAIN);
		n = recv(sv[1], back, sizeof(back), MSG_DONTWAIT);
		if (n > 0) {
			for (ssize_t i = 0; i < n; i++)
				assert_int_equal(back[i], 'z');
			got += (size_t)n;
		}
		if (err == 0 && n <= 0)
			break;
	}
	assert_int_equal(wd_outq_pending(&q), 0);
	wd_outq_free(&q);
	close(sv[0]);
	close(sv[1]);
}

/* The decision, from given credentials: the one user, and never from inside a sandbox. */
static void test_peer_decision(void **state)
{
	struct wd_peer p = { .uid = 0, .gid = 0, .in_sandbox = false };

	(void)state;
	assert_true(wd_peer_is(&p, 0));
	assert_false(wd_peer_is(&p, 1000));
	p.in_sandbox = true; /* root inside a sandbox is no one's peer */
	assert_false(wd_peer_is(&p, 0));
	p.in_sandbox = false;
	p.uid = 1000;
	assert_false(wd_peer_is(&p, 0));
	assert_true(wd_peer_is(&p, 1000));
	p.uid = (uid_t)-1; /* what an unread peer says */
	assert_false(wd_peer_is(&p, (uid_t)-1));
	/* a socket that is not connected has no peer: whatever the kernel says, no one passes */
	{
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);

		wd_peer_read(fd, &p);
		assert_false(wd_peer_is(&p, 0));
		assert_false(wd_peer_is(&p, (uid_t)-1));
		close(fd);
	}
}

static char dir[64];

static int make_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/wd-test-ipc-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	/* searchable, so a user other than root can reach a socket in it */
	return chmod(dir, 0755);
}

static int remove_dir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* A name that refuses until a listener is renamed over it, with the mode asked for. */
static void test_listen_by_rename(void **state)
{
	char path[128], tmp[128];
	struct stat st;
	int named, lfd, fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/keep-sb-1.sock", dir);
	snprintf(tmp, sizeof(tmp), "%s/.keep-sb-1.sock", dir);
	named = wd_sock_bind_name("test", path, SOCK_SEQPACKET | SOCK_CLOEXEC, 0600);
	assert_true(named >= 0);
	assert_int_equal(wd_sock_connect(path, SOCK_SEQPACKET), -ECONNREFUSED);
	lfd = wd_sock_listen("test", path, SOCK_SEQPACKET | SOCK_CLOEXEC, 0600, 4);
	assert_true(lfd >= 0);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(lstat(tmp, &st), -1); /* the temporary name is gone */
	fd = wd_sock_connect(path, SOCK_SEQPACKET | SOCK_CLOEXEC);
	assert_true(fd >= 0);
	close(fd);
	close(lfd);
	close(named);
	unlink(path);
	/* a path that does not fit a socket address is refused, not cut short */
	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = 0;
	assert_int_equal(wd_sock_listen("test", path, SOCK_STREAM, 0600, 1), -ENAMETOOLONG);
	assert_int_equal(wd_sock_connect(path, SOCK_STREAM), -ENAMETOOLONG);
}

/*
 * The peer check refuses another uid: a child that became nobody connects, and the kernel's word
 * on it (not anything it says) is what the check sees. Root itself passes.
 */
static void test_peer_other_uid(void **state)
{
	char path[128];
	struct wd_peer p;
	int lfd, fd, go[2], status;
	pid_t pid;

	(void)state;
	if (geteuid() != 0)
		skip(); /* only root can become another user */
	snprintf(path, sizeof(path), "%s/run-sb-2.sock", dir);
	lfd = wd_sock_listen("test", path, SOCK_STREAM | SOCK_CLOEXEC, 0666, 4);
	assert_true(lfd >= 0);
	assert_int_equal(pipe(go), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char c;

		close(go[1]);
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(1);
		fd = wd_sock_connect(path, SOCK_STREAM);
		if (fd < 0)
			_exit(2);
		/* connected until the parent has looked at us */
		if (read(go[0], &c, 1) < 0)
			_exit(3);
		_exit(0);
	}
	close(go[0]);
	fd = wd_sock_accept(lfd, SOCK_CLOEXEC, &p);
	assert_true(fd >= 0);
	assert_int_equal(p.uid, 65534);
	assert_int_equal(p.gid, 65534);
	assert_int_equal(p.pid, pid);
	assert_false(wd_peer_is(&p, 0));
	assert_false(wd_peer_is(&p, geteuid()));
	close(fd);
	close(go[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* root, from outside every sandbox: the one peer such a socket takes */
	fd = wd_sock_connect(path, SOCK_STREAM | SOCK_CLOEXEC);
	assert_true(fd >= 0);
	{
		int acc = wd_sock_accept(lfd, SOCK_CLOEXEC, &p);

		assert_true(acc >= 0);
		assert_int_equal(p.uid, 0);
		assert_true(wd_peer_is(&p, 0));
		close(acc);
	}
	close(fd);
	close(lfd);
	unlink(path);
}

/* Socket names: one place, and a sandbox name must name a file in the run directory. */
static void test_run_dir_names(void **state)
{
	char buf[128], name[32];

	(void)state;
	setenv("WARDEN_RUN_DIR", "/tmp/wd-names", 1);
	assert_int_equal(wd_run_sock_path(buf, sizeof(buf), WD_SOCK_HOLDS, "sb-12"), 0);
	assert_string_equal(buf, "/tmp/wd-names/run-sb-12.sock");
	assert_int_equal(wd_run_sock_path(buf, sizeof(buf), WD_SOCK_KEEPER, "sb-12"), 0);
	assert_string_equal(buf, "/tmp/wd-names/keep-sb-12.sock");
	assert_int_equal(wd_run_sock_path(buf, sizeof(buf), WD_SOCK_DAEMON, NULL), 0);
	assert_string_equal(buf, "/tmp/wd-names/control.sock");
	assert_int_equal(wd_run_sock_glob(buf, sizeof(buf), WD_SOCK_HOLDS), 0);
	assert_string_equal(buf, "/tmp/wd-names/run-*.sock");
	assert_int_equal(wd_run_sock_path(buf, sizeof(buf), WD_SOCK_HOLDS, "../x"), -EINVAL);
	assert_int_equal(wd_run_sock_path(buf, sizeof(buf), WD_SOCK_HOLDS, ".hidden"), -EINVAL);
	assert_int_equal(wd_run_sock_path(buf, sizeof(buf), WD_SOCK_HOLDS, ""), -EINVAL);
	assert_int_equal(wd_run_sock_path(buf, 20, WD_SOCK_HOLDS, "sb-12"), -ENAMETOOLONG);
	assert_true(wd_run_sock_sandbox("keep-sb-7.sock", WD_SOCK_KEEPER, name, sizeof(name)));
	assert_string_equal(name, "sb-7");
	assert_false(wd_run_sock_sandbox("run-sb-7.sock", WD_SOCK_KEEPER, name, sizeof(name)));
	assert_false(wd_run_sock_sandbox("keep-.sock", WD_SOCK_KEEPER, name, sizeof(name)));
	assert_false(wd_run_sock_sandbox(".keep-sb-7.sock", WD_SOCK_KEEPER, name, sizeof(name)));
	assert_false(wd_run_sock_sandbox("keep-sb-7.sock.x", WD_SOCK_KEEPER, name, sizeof(name)));
	assert_false(wd_run_sock_sandbox("keep-sb-7777777777.sock", WD_SOCK_KEEPER, name, 8));
	unsetenv("WARDEN_RUN_DIR");
	assert_string_equal(wd_run_dir(), WD_RUN_DIR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_lines),
		cmocka_unit_test(test_merged_lines),
		cmocka_unit_test(test_oversize_refused),
		cmocka_unit_test(test_flood_bounded),
		cmocka_unit_test(test_nul_in_line),
		cmocka_unit_test(test_outq_bound),
		cmocka_unit_test(test_peer_decision),
		cmocka_unit_test_setup_teardown(test_listen_by_rename, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_peer_other_uid, make_dir, remove_dir),
		cmocka_unit_test(test_run_dir_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
