// SPDX-License-Identifier: GPL-2.0
/*
 * wd-escape: one attack of the threat model (docs/threat-model.md), one answer, for the escape
 * tests. Prints "ok" and exits 0 when the attack's operation worked, or prints the errno name
 * (EPERM, EACCES, ...) and exits 1; 2 for bad usage. Reads print what they read.
 *
 *   wd-escape link OLD NEW            link(2)
 *   wd-escape symlink TARGET NEW      symlink(2)
 *   wd-escape rename OLD NEW          rename(2)
 *   wd-escape unlink PATH             unlink(2)
 *   wd-escape mkdir PATH              mkdir(2)
 *   wd-escape rmdir PATH              rmdir(2)
 *   wd-escape create PATH             open(O_CREAT|O_EXCL|O_RDONLY): the name, no write access
 *   wd-escape truncate PATH           truncate(2) to 0 bytes
 *   wd-escape chmod PATH              chmod(2) to 0600
 *   wd-escape cat PATH                open O_RDONLY and print the first line
 *   wd-escape cat-at DIR REL          open DIR with O_PATH, then openat(dirfd, REL) and print
 *   wd-escape cat-fd DIR REL          open DIR with O_PATH, then /proc/self/fd/N/REL and print
 *   wd-escape cat-handle PATH DIR     name_to_handle_at + open_by_handle_at (DIR, on the same
 *                                     mount, opened for reading as the mount fd), and print
 *   wd-escape bind SRC DST            mount --bind SRC DST
 *   wd-escape uring-cat PATH          openat through io_uring (raw syscalls), then print
 *   wd-escape uring-unlink PATH       unlinkat through io_uring
 *   wd-escape uring-otrunc PATH       openat O_WRONLY|O_TRUNC through io_uring
 *   wd-escape uring-rename OLD NEW    renameat through io_uring
 *   wd-escape mmap-exec PATH          map PATH with PROT_READ|PROT_EXEC
 *   wd-escape mprotect-exec PATH      map PATH with PROT_READ, then mprotect PROT_EXEC
 *   wd-escape ptrace PID              PTRACE_ATTACH (then detach)
 *   wd-escape kill PID SIG            kill(2)
 *   wd-escape write-str PATH STR      open O_WRONLY (no O_CREAT) and write STR
 *   wd-escape tiocsti                 TIOCSTI into a new pty's terminal
 *   wd-escape userns                  unshare(CLONE_NEWUSER)
 *   wd-escape euid                    print the effective uid
 *   wd-escape via-fd OP DIR NAME [OTHER]
 *                                     open DIR as fd 900 and do OP on /proc/self/fd/900/NAME:
 *                                     unlink, truncate, otrunc (open O_WRONLY|O_TRUNC),
 *                                     rename-away (to OTHER), rename-over (OTHER onto it), or
 *                                     setxattr (trusted.wd=1). warden's waiting room cannot read
 *                                     such a path (the supervisor's own /proc/self has no fd
 *                                     900), so only the kernel decides it
 *   wd-escape race-unlink LINK DECOY PROT NAME N
 *                                     a second thread flips the symlink LINK between the
 *                                     directories DECOY and PROT while this one N times
 *                                     recreates DECOY/NAME and unlinks LINK/NAME; prints "ok"
 *                                     and how many unlinks worked
 *   wd-escape utimes PATH             utimensat(2) to the epoch
 *   wd-escape setxattr PATH           setxattr(2) trusted.wd=1 (tmpfs has no user.* before 6.6)
 *   wd-escape removexattr PATH        removexattr(2) trusted.wd
 *   wd-escape setacl PATH             setxattr(2) of an access ACL with a named user (1234,
 *                                     read): an attribute its owner may set without a
 *                                     capability, where trusted.* needs CAP_SYS_ADMIN
 *   wd-escape removeacl PATH          removexattr(2) of the access ACL
 */
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "uring.h"

static int fail(void)
{
	const char *name = strerrorname_np(errno);

	printf("%s\n", name ? name : "EUNKNOWN");
	return 1;
}

static int done(int r)
{
	if (r)
		return fail();
	puts("ok");
	return 0;
}

/* Print the first line of @fd: what the attack got. */
static int print_fd(int fd)
{
	char buf[256];
	ssize_t n;

	if (fd < 0)
		return fail();
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return fail();
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	puts(buf);
	return 0;
}

static int cat_at(const char *dir, const char *rel, bool via_proc)
{
	char path[4096];
	int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0)
		return fail();
	if (!via_proc)
		return print_fd(openat(dfd, rel, O_RDONLY | O_CLOEXEC));
	snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dfd, rel);
	return print_fd(open(path, O_RDONLY | O_CLOEXEC));
}

static int cat_handle(const char *path, const char *dir)
{
	struct {
		struct file_handle fh;
		unsigned char buf[MAX_HANDLE_SZ];
	} h = { .fh.handle_bytes = MAX_HANDLE_SZ };
	int mount_id, mfd;

	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0))
		return fail();
	mfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0)
		return fail();
	return print_fd(open_by_handle_at(mfd, &h.fh, O_RDONLY | O_CLOEXEC));
}

static void prep_openat(struct io_uring_sqe *sqe, const void *path)
{
	sqe->opcode = IORING_OP_OPENAT;
	sqe->fd = AT_FDCWD;
	sqe->addr = (unsigned long)path;
	sqe->open_flags = O_RDONLY | O_CLOEXEC;
}

static void prep_unlinkat(struct io_uring_sqe *sqe, const void *path)
{
	sqe->opcode = IORING_OP_UNLINKAT;
	sqe->fd = AT_FDCWD;
	sqe->addr = (unsigned long)path;
}

/* IORING_OP_RENAMEAT's destination (prep functions take one path) */
static const char *uring_to;

static void prep_renameat(struct io_uring_sqe *sqe, const void *path)
{
	sqe->opcode = IORING_OP_RENAMEAT;
	sqe->fd = AT_FDCWD;
	sqe->addr = (unsigned long)path;
	sqe->len = (unsigned int)AT_FDCWD;
	sqe->addr2 = (unsigned long)uring_to;
}

static void prep_otrunc(struct io_uring_sqe *sqe, const void *path)
{
	prep_openat(sqe, path);
	sqe->open_flags = O_WRONLY | O_TRUNC | O_CLOEXEC;
}

enum uring_op { URING_CAT, URING_UNLINK, URING_RENAME, URING_OTRUNC };

static int uring(const char *path, enum uring_op op)
{
	static void (*const prep[])(struct io_uring_sqe *, const void *) = {
		[URING_CAT] = prep_openat,
		[URING_UNLINK] = prep_unlinkat,
		[URING_RENAME] = prep_renameat,
		[URING_OTRUNC] = prep_otrunc,
	};
	int res = 0, err;

	err = wd_uring_one(prep[op], path, &res);
	if (err || res < 0) {
		errno = err ? -err : -res;
		return fail();
	}
	if (op == URING_CAT)
		return print_fd(res);
	if (op == URING_OTRUNC)
		close(res);
	puts("ok");
	return 0;
}

static int map_exec(const char *path, bool later)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *p;

	if (fd < 0)
		return fail();
	p = mmap(NULL, 4096, PROT_READ | (later ? 0 : PROT_EXEC), MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return fail();
	return done(later ? mprotect(p, 4096, PROT_READ | PROT_EXEC) : 0);
}

static int try_ptrace(pid_t pid)
{
	if (ptrace(PTRACE_ATTACH, pid, NULL, NULL))
		return fail();
	waitpid(pid, NULL, __WALL);
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
	puts("ok");
	return 0;
}

static int write_str(const char *path, const char *str)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return fail();
	n = write(fd, str, strlen(str));
	close(fd);
	return done(n < 0 ? -1 : 0);
}

static int tiocsti(void)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), s;
	char c = 'x';

	if (m < 0 || grantpt(m) || unlockpt(m))
		return fail();
	s = open(ptsname(m), O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s < 0)
		return fail();
	return done(ioctl(s, TIOCSTI, &c));
}

#define PARKED_FD 900

static int via_fd(const char *op, const char *dir, const char *name, const char *other)
{
	char path[64 + 256];
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || dup2(fd, PARKED_FD) < 0)
		return fail();
	close(fd);
	snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", PARKED_FD, name);
	if (!strcmp(op, "unlink"))
		return done(unlink(path));
	if (!strcmp(op, "truncate"))
		return done(truncate(path, 0));
	if (!strcmp(op, "otrunc")) {
		fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		return done(fd < 0 ? -1 : close(fd));
	}
	if (!strcmp(op, "rename-away") && other)
		return done(rename(path, other));
	if (!strcmp(op, "rename-over") && other)
		return done(rename(other, path));
	if (!strcmp(op, "setxattr"))
		return done(setxattr(path, "trusted.wd", "1", 1, 0));
	fprintf(stderr, "wd-escape: via-fd: unknown operation %s\n", op);
	return 2;
}

static struct {
	const char *link, *decoy, *prot;
	char tmp[4096];
	volatile int stop;
} race;

/* Point race.link at @target atomically (a new symlink renamed over it). */
static void point(const char *target)
{
	unlink(race.tmp);
	if (symlink(target, race.tmp) == 0)
		rename(race.tmp, race.link);
}

static void *flipper(void *arg)
{
	(void)arg;
	while (!race.stop) {
		point(race.decoy);
		point(race.prot);
	}
	return NULL;
}

static int race_unlink(const char *link, const char *decoy, const char *prot, const char *name,
		       int n)
{
	char victim[4096], decoy_file[4096];
	pthread_t t;
	int worked = 0;

	race.link = link;
	race.decoy = decoy;
	race.prot = prot;
	snprintf(race.tmp, sizeof(race.tmp), "%s.tmp", link);
	snprintf(victim, sizeof(victim), "%s/%s", link, name);
	snprintf(decoy_file, sizeof(decoy_file), "%s/%s", decoy, name);
	point(decoy);
	if (pthread_create(&t, NULL, flipper, NULL))
		return fail();
	for (int i = 0; i < n; i++) {
		int fd = open(decoy_file, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

		if (fd >= 0)
			close(fd);
		if (unlink(victim) == 0)
			worked++;
	}
	race.stop = 1;
	pthread_join(t, NULL);
	printf("ok %d\n", worked);
	return 0;
}

int main(int argc, char **argv)
{
	const char *op = argc >= 2 ? argv[1] : "";
	const char *a = argc >= 3 ? argv[2] : NULL, *b = argc >= 4 ? argv[3] : NULL;

	if (!strcmp(op, "link") && b)
		return done(link(a, b));
	if (!strcmp(op, "symlink") && b)
		return done(symlink(a, b));
	if (!strcmp(op, "rename") && b)
		return done(rename(a, b));
	if (!strcmp(op, "unlink") && a)
		return done(unlink(a));
	if (!strcmp(op, "mkdir") && a)
		return done(mkdir(a, 0755));
	if (!strcmp(op, "rmdir") && a)
		return done(rmdir(a));
	if (!strcmp(op, "create") && a) {
		int fd = open(a, O_CREAT | O_EXCL | O_RDONLY | O_CLOEXEC, 0644);

		return done(fd < 0 ? -1 : close(fd));
	}
	if (!strcmp(op, "truncate") && a)
		return done(truncate(a, 0));
	if (!strcmp(op, "chmod") && a)
		return done(chmod(a, 0600));
	if (!strcmp(op, "cat") && a)
		return print_fd(open(a, O_RDONLY | O_CLOEXEC));
	if (!strcmp(op, "cat-at") && b)
		return cat_at(a, b, false);
	if (!strcmp(op, "cat-fd") && b)
		return cat_at(a, b, true);
	if (!strcmp(op, "cat-handle") && b)
		return cat_handle(a, b);
	if (!strcmp(op, "bind") && b)
		return done(mount(a, b, NULL, MS_BIND, NULL));
	if (!strcmp(op, "uring-cat") && a)
		return uring(a, URING_CAT);
	if (!strcmp(op, "uring-unlink") && a)
		return uring(a, URING_UNLINK);
	if (!strcmp(op, "uring-otrunc") && a)
		return uring(a, URING_OTRUNC);
	if (!strcmp(op, "uring-rename") && a && b) {
		uring_to = b;
		return uring(a, URING_RENAME);
	}
	if (!strcmp(op, "mmap-exec") && a)
		return map_exec(a, false);
	if (!strcmp(op, "mprotect-exec") && a)
		return map_exec(a, true);
	if (!strcmp(op, "ptrace") && a)
		return try_ptrace(atoi(a));
	if (!strcmp(op, "kill") && b)
		return done(kill(atoi(a), atoi(b)));
	if (!strcmp(op, "write-str") && b)
		return write_str(a, b);
	if (!strcmp(op, "tiocsti"))
		return tiocsti();
	if (!strcmp(op, "userns"))
		return done(unshare(CLONE_NEWUSER));
	if (!strcmp(op, "euid")) {
		printf("%u\n", (unsigned int)geteuid());
		return 0;
	}
	if (!strcmp(op, "via-fd") && argc >= 5)
		return via_fd(a, b, argv[4], argc >= 6 ? argv[5] : NULL);
	if (!strcmp(op, "race-unlink") && argc >= 7)
		return race_unlink(a, b, argv[4], argv[5], atoi(argv[6]));
	if (!strcmp(op, "utimes") && a) {
		struct timespec ts[2] = { { 0, 0 }, { 0, 0 } };

		return done(utimensat(AT_FDCWD, a, ts, 0));
	}
	if (!strcmp(op, "setxattr") && a)
		return done(setxattr(a, "trusted.wd", "1", 1, 0));
	if (!strcmp(op, "removexattr") && a)
		return done(removexattr(a, "trusted.wd"));
	if (!strcmp(op, "setacl") && a) {
		/* posix_acl_xattr format: version 2, then (tag, perm, id) sorted by tag */
		static const struct {
			uint32_t version;
			struct { uint16_t tag, perm; uint32_t id; } e[5];
		} acl = { 2, { { 0x01, 6, ~0u }, { 0x02, 4, 1234 }, { 0x04, 4, ~0u },
			       { 0x10, 4, ~0u }, { 0x20, 4, ~0u } } };

		return done(setxattr(a, "system.posix_acl_access", &acl, sizeof(acl), 0));
	}
	if (!strcmp(op, "removeacl") && a)
		return done(removexattr(a, "system.posix_acl_access"));
	fprintf(stderr, "usage: wd-escape OP [ARGS...] (ops are listed at the top of wd-escape.c)\n");
	return 2;
}
