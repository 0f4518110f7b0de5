// SPDX-License-Identifier: GPL-2.0
/*
 * wd-try: one operation, one answer, for the integration tests. Prints "ok" and exits 0, or
 * prints the errno name (EPERM, ENOENT, ...) and exits 1; 2 for bad usage.
 *
 *   wd-try read PATH          open O_RDONLY and read a byte
 *   wd-try write PATH         open O_WRONLY|O_CREAT and write a byte
 *   wd-try exec PATH [ARG..]  execv PATH (prints nothing itself on success)
 *   wd-try gate READY GO      write "ready" into fifo READY, then wait for EOF on fifo GO
 */
#include <errno.h>
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

int main(int argc, char **argv)
{
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
	fprintf(stderr, "usage: wd-try read|write PATH | exec PATH [ARG...] | gate READY GO\n");
	return 2;
}
