// SPDX-License-Identifier: GPL-2.0
/*
 * wd-leak: what a command may take from another process, for tests/escape/t_leak.sh. Each prints
 * one answer and exits 0, or 2 for bad usage (fake-status: the status asked for). A PID may be
 * "ppid": the process's parent (0, so ENOENT, when that is outside its pid namespace).
 *
 *   wd-leak grep PID FILE TEXT  read /proc/PID/FILE: "found" if it holds TEXT (NULs count as
 *                               separators), "absent" if not, else the errno name of the open
 *                               or read
 *   wd-leak read PID FILE       read a byte of /proc/PID/FILE: "ok" or the errno name
 *   wd-leak mem PID             read a byte of /proc/PID/mem at the start of its first mapping
 *                               (from /proc/PID/maps, else its stack's address here): "ok" or
 *                               the errno name
 *   wd-leak fds PID             list /proc/PID/fd: how many entries, or the errno name
 *   wd-leak getfd PID           pidfd_getfd every fd 0-255 of PID: "ok" for the first it gets,
 *                               else the errno name of the last try
 *   wd-leak fake-status PID N [FD]  as an attacker inside (PID 1, the init): write a fake wait
 *                               status (exit 42) into every /proc/PID/fd/M (M 0-255, whether
 *                               listed or not; only FD if given) and every fd pidfd_getfd takes
 *                               from PID; print how many writes went through ("wrote K"), then
 *                               exit N. SIGPIPE is ignored: a pipe with no reader is no answer
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

static const char *errname(int e)
{
	switch (e) {
	case EPERM:
		return "EPERM";
	case EACCES:
		return "EACCES";
	case ENOENT:
		return "ENOENT";
	case ESRCH:
		return "ESRCH";
	case EBADF:
		return "EBADF";
	case ENXIO:
		return "ENXIO";
	case EIO:
		return "EIO";
	case EINVAL:
		return "EINVAL";
	case ENOSYS:
		return "ENOSYS";
	default:
		return strerror(e);
	}
}

static int answer(const char *s)
{
	printf("%s\n", s);
	return 0;
}

static int proc_path(char *buf, size_t n, const char *pid, const char *file)
{
	return snprintf(buf, n, "/proc/%s/%s", pid, file) >= (int)n ? -1 : 0;
}

static int cmd_grep(const char *pid, const char *file, const char *text)
{
	static char buf[1 << 20];
	char path[256];
	size_t len = 0;
	ssize_t n;
	int fd;

	if (proc_path(path, sizeof(path), pid, file))
		return 2;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return answer(errname(errno));
	while (len < sizeof(buf) - 1 && (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	if (n < 0 && len == 0)
		return answer(errname(errno));
	close(fd);
	for (size_t i = 0; i < len; i++)
		if (!buf[i])
			buf[i] = '\n';
	buf[len] = 0;
	return answer(strstr(buf, text) ? "found" : "absent");
}

static int cmd_read(const char *pid, const char *file)
{
	char path[256], c;
	int fd;

	if (proc_path(path, sizeof(path), pid, file))
		return 2;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return answer(errname(errno));
	if (read(fd, &c, 1) < 0)
		return answer(errname(errno));
	return answer("ok");
}

static int cmd_mem(const char *pid)
{
	char path[256], line[512], c;
	unsigned long addr = (unsigned long)&c;
	FILE *maps;
	int fd;

	if (proc_path(path, sizeof(path), pid, "maps"))
		return 2;
	maps = fopen(path, "re");
	if (maps && fgets(line, sizeof(line), maps))
		addr = strtoul(line, NULL, 16);
	if (maps)
		fclose(maps);
	if (proc_path(path, sizeof(path), pid, "mem"))
		return 2;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return answer(errname(errno));
	if (pread(fd, &c, 1, (off_t)addr) != 1)
		return answer(errname(errno));
	return answer("ok");
}

static int cmd_fds(const char *pid)
{
	char path[256];
	struct dirent *d;
	int n = 0;
	DIR *dir;

	if (proc_path(path, sizeof(path), pid, "fd"))
		return 2;
	dir = opendir(path);
	if (!dir)
		return answer(errname(errno));
	errno = 0;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			n++;
	if (errno)
		return answer(errname(errno));
	closedir(dir);
	printf("%d\n", n);
	return 0;
}

/* pidfd_getfd of each fd 0-255 of @pid: the number of the first it got, or -errno. */
static int getfd_any(pid_t pid, int *got)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), err = -ENOENT;

	if (pidfd < 0)
		return -errno;
	for (int i = 0; i < 256; i++) {
		int fd = (int)syscall(SYS_pidfd_getfd, pidfd, i, 0);

		if (fd >= 0) {
			*got = fd;
			err = i;
			break;
		}
		if (errno != EBADF || err == -ENOENT)
			err = -errno;
	}
	close(pidfd);
	return err;
}

static int cmd_getfd(const char *pid)
{
	int got, r = getfd_any((pid_t)atoi(pid), &got);

	return answer(r >= 0 ? "ok" : errname(-r));
}

static int cmd_fake_status(pid_t pid, int code, int only)
{
	int fake = W_EXITCODE(42, 0), wrote = 0, pidfd;
	char path[64];

	signal(SIGPIPE, SIG_IGN);
	for (int i = 0; i < 256; i++) {
		if (only >= 0 && i != only)
			continue;
		int fd;

		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, i);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (write(fd, &fake, sizeof(fake)) == sizeof(fake))
			wrote++;
		close(fd);
	}
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	for (int i = 0; pidfd >= 0 && i < 256; i++) {
		int fd = only >= 0 && i != only ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, i, 0);

		if (fd < 0)
			continue;
		if (write(fd, &fake, sizeof(fake)) == sizeof(fake))
			wrote++;
		close(fd);
	}
	printf("wrote %d\n", wrote);
	fflush(stdout);
	return code;
}

int main(int argc, char **argv)
{
	static char ppid[16];

	if (argc > 2 && strcmp(argv[2], "ppid") == 0) {
		snprintf(ppid, sizeof(ppid), "%d", (int)getppid());
		argv[2] = ppid;
	}
	if (argc == 5 && strcmp(argv[1], "grep") == 0)
		return cmd_grep(argv[2], argv[3], argv[4]);
	if (argc == 4 && strcmp(argv[1], "read") == 0)
		return cmd_read(argv[2], argv[3]);
	if (argc == 3 && strcmp(argv[1], "mem") == 0)
		return cmd_mem(argv[2]);
	if (argc == 3 && strcmp(argv[1], "fds") == 0)
		return cmd_fds(argv[2]);
	if (argc == 3 && strcmp(argv[1], "getfd") == 0)
		return cmd_getfd(argv[2]);
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "fake-status") == 0)
		return cmd_fake_status((pid_t)atoi(argv[2]), atoi(argv[3]),
				       argc == 5 ? atoi(argv[4]) : -1);
	fprintf(stderr, "usage: see the comment at the top of wd-leak.c\n");
	return 2;
}
