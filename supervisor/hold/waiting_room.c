// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "supervisor/backend/probe.h"
#include "supervisor/hold/waiting_room.h"

#ifndef __x86_64__
#error "the waiting-room filter knows x86_64's syscall numbers only"
#endif

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

#define EMIT(...) (err |= emit(p, (struct sock_filter)__VA_ARGS__))
#define RET(v) EMIT(BPF_STMT(BPF_RET | BPF_K, (v)))
#define LOAD(off) EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off)))
#define JUMP(op, k, jt, jf) EMIT(BPF_JUMP(BPF_JMP | (op) | BPF_K, (k), (jt), (jf)))

static int emit(struct wd_notify_plan *p, struct sock_filter insn)
{
	if (p->len >= WD_NOTIFY_MAX_INSNS)
		return -E2BIG;
	p->insns[p->len++] = insn;
	return 0;
}

/* Syscalls sent whole, per class. */
static const struct {
	unsigned int class;
	unsigned int nr;
} always[] = {
	{ WD_HOLD_DELETE, SYS_unlink },	    { WD_HOLD_DELETE, SYS_unlinkat },
	{ WD_HOLD_DELETE, SYS_rmdir },	    { WD_HOLD_RENAME, SYS_rename },
	{ WD_HOLD_RENAME, SYS_renameat },   { WD_HOLD_RENAME, SYS_renameat2 },
	{ WD_HOLD_TRUNCATE, SYS_truncate }, { WD_HOLD_TRUNCATE, SYS_ftruncate },
	{ WD_HOLD_TRUNCATE, SYS_creat },
	{ WD_HOLD_TRUNCATE, SYS_openat2 },  { WD_HOLD_TRUNCATE, SYS_link },
	{ WD_HOLD_TRUNCATE, SYS_linkat },   { WD_HOLD_EXEC, SYS_execve },
	{ WD_HOLD_EXEC, SYS_execveat },
};

static const unsigned int renames[] = { SYS_rename, SYS_renameat, SYS_renameat2 };

bool wd_notify_dir_change(unsigned int nr, unsigned long flags)
{
	switch (nr) {
	case SYS_rmdir:
	case SYS_rename:
	case SYS_renameat:
	case SYS_renameat2:
		return true;
	case SYS_unlinkat:
		return flags & AT_REMOVEDIR;
	default:
		return false;
	}
}

int wd_notify_prepare(struct wd_notify_plan *p, unsigned int classes, bool allow_io_uring)
{
	const unsigned int eperm = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
	int err = 0;

	p->len = 0;
	p->classes = classes;
	p->watch_dirs = (classes & WD_HOLD_PATHS) && !allow_io_uring;
	LOAD(offsetof(struct seccomp_data, arch));
	JUMP(BPF_JEQ, AUDIT_ARCH_X86_64, 1, 0);
	RET(SECCOMP_RET_KILL_PROCESS);
	LOAD(offsetof(struct seccomp_data, nr));
	/* io_uring would reach the held syscalls' work without passing this filter. */
	if (!allow_io_uring) {
		JUMP(BPF_JEQ, SYS_io_uring_setup, 0, 1);
		RET(eperm);
	}
	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++) {
		if (!(classes & always[i].class))
			continue;
		JUMP(BPF_JEQ, always[i].nr, 0, 1);
		RET(SECCOMP_RET_USER_NOTIF);
	}
	if (p->watch_dirs) {
		if (!(classes & WD_HOLD_RENAME))
			for (size_t i = 0; i < sizeof(renames) / sizeof(renames[0]); i++) {
				JUMP(BPF_JEQ, renames[i], 0, 1);
				RET(SECCOMP_RET_USER_NOTIF);
			}
		if (!(classes & WD_HOLD_DELETE)) {
			JUMP(BPF_JEQ, SYS_rmdir, 0, 1);
			RET(SECCOMP_RET_USER_NOTIF);
			/* unlinkat(dirfd, path, AT_REMOVEDIR) */
			JUMP(BPF_JEQ, SYS_unlinkat, 0, 3);
			LOAD(offsetof(struct seccomp_data, args[2]));
			JUMP(BPF_JSET, AT_REMOVEDIR, 0, 1);
			RET(SECCOMP_RET_USER_NOTIF);
			/* the accumulator no longer holds nr: reload it for what follows */
			LOAD(offsetof(struct seccomp_data, nr));
		}
	}
	if (classes & WD_HOLD_TRUNCATE) {
		/*
		 * open(path, flags) and openat(dirfd, path, flags): only with O_TRUNC;
		 * fallocate(fd, mode, ...): only with a mode that destroys or moves data
		 */
		JUMP(BPF_JEQ, SYS_open, 0, 2);
		LOAD(offsetof(struct seccomp_data, args[1]));
		JUMP(BPF_JSET, O_TRUNC, 6, 7);
		JUMP(BPF_JEQ, SYS_openat, 0, 2);
		LOAD(offsetof(struct seccomp_data, args[2]));
		JUMP(BPF_JSET, O_TRUNC, 3, 4);
		JUMP(BPF_JEQ, SYS_fallocate, 0, 3);
		LOAD(offsetof(struct seccomp_data, args[1]));
		JUMP(BPF_JSET, WD_FALLOC_DESTRUCTIVE, 0, 1);
		RET(SECCOMP_RET_USER_NOTIF);
	}
	RET(SECCOMP_RET_ALLOW);
	return err ? -E2BIG : 0;
}

int wd_notify_install(const struct wd_notify_plan *p, int sock)
{
	struct sock_fprog prog = { .len = p->len, .filter = (struct sock_filter *)p->insns };
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = "L", .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	long fd;
	int err = 0;

	/* Signals must not turn a held call into a second notification (5.19+). */
	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		     SECCOMP_FILTER_FLAG_NEW_LISTENER |
			     (wd_seccomp_wait_killable_supported(NULL, 0) ?
				      SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV : 0),
		     &prog);
	if (fd < 0)
		return -errno;
	memset(cbuf, 0, sizeof(cbuf));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &(int){ (int)fd }, sizeof(int));
	if (sendmsg(sock, &msg, MSG_NOSIGNAL) != 1)
		err = -errno;
	/* The sandbox keeps no copy: it could answer its own notifications. */
	close((int)fd);
	close(sock);
	return err;
}

int wd_notify_receive(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))], b;
	struct iovec iov = { .iov_base = &b, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	ssize_t n;
	int fd;

	do {
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	c = CMSG_FIRSTHDR(&msg);
	if (n != 1 || !c || c->cmsg_type != SCM_RIGHTS)
		return -EPROTO;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}
