// SPDX-License-Identifier: GPL-2.0
/*
 * wd-try: one operation, one answer, for the integration tests. Prints "ok" and exits 0, or
 * prints the errno name (EPERM, ENOENT, ...) and exits 1; 2 for bad usage.
 *
 *   wd-try read PATH          open O_RDONLY and read a byte
 *   wd-try write PATH         open O_WRONLY|O_CREAT and write a byte
 *   wd-try exec PATH [ARG..]  execv PATH (prints nothing itself on success)
 *   wd-try gate READY GO      write "ready" into fifo READY, then wait for EOF on fifo GO
 *   wd-try exit N             exit with status N
 *   wd-try kill-self SIG      send itself signal SIG
 *   wd-try fork-orphan FIFO   fork a child that blocks opening FIFO, print its pid once it is
 *                             running, exit 0 (the child outlives it)
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int fail(void)
{
	const char *name = strerrorname_np(errno);

	printf("%s\n", name ? name : "EUNKNOWN");
	return 1;
}

static int try_read(const char *path)
{
	char c;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return fail();
	if (read(fd, &c, 1) < 0 && errno != EISDIR) {
		close(fd);
		return fail();
	}
	close(fd);
	puts("ok");
	return 0;
}

static int try_write(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		return fail();
	if (write(fd, "x", 1) != 1) {
		close(fd);
		return fail();
	}
	close(fd);
	puts("ok");
	return 0;
}

static int gate(const char *ready, const char *go)
{
	char buf[64];
	int fd;

	fd = open(ready, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "ready\n", 6) != 6)
		return fail();
	close(fd);
	fd = open(go, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail();
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	puts("ok");
	return 0;
}

static int fork_orphan(const char *fifo)
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe(p))
		return fail();
	pid = fork();
	if (pid < 0)
		return fail();
	if (pid == 0) {
		close(p[0]);
		if (write(p[1], "r", 1) != 1)
			_exit(1);
		close(p[1]);
		open(fifo, O_RDONLY); /* blocks: nobody opens it for writing */
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		return fail();
	printf("%d\n", (int)pid);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "exit") == 0)
		return atoi(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "kill-self") == 0) {
		kill(getpid(), atoi(argv[2]));
		return fail();
	}
	if (argc >= 3 && strcmp(argv[1], "fork-orphan") == 0)
		return fork_orphan(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "read") == 0)
		return try_read(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "write") == 0)
		return try_write(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "exec") == 0) {
		execv(argv[2], argv + 2);
		return fail();
	}
	if (argc >= 4 && strcmp(argv[1], "gate") == 0)
		return gate(argv[2], argv[3]);
	fprintf(stderr, "usage: wd-try read|write PATH | exec PATH [ARG...] | gate READY GO |\n"
			"              exit N | kill-self SIG | fork-orphan FIFO\n");
	return 2;
}
