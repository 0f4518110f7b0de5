// SPDX-License-Identifier: GPL-2.0
/*
 * The holds' waiting room (supervisor/hold/): the seccomp filter that sends the held classes'
 * calls, as bpf/wd_syscalls.h lists them, to the supervisor (SECCOMP_RET_USER_NOTIF), its
 * installation in the child, and the listener's way to the parent. Not the self-protection
 * filter (supervisor/backend/seccomp_guard.c), which refuses calls outright.
 */
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
#error "the waiting-room filter knows x86_64's syscall numbers only (bpf/wd_syscalls.h)"
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

/* The held calls, from the one table; each number checked against libc's. */
#define HELD_ROW(nr, name, class, when, dirs) { nr, #name, WD_HOLD_##class, when, dirs },
static const struct wd_held_call held[] = { WD_SYSCALLS_HELD(HELD_ROW) };
#define HELD_CHECK(nr, name, ...) _Static_assert(nr == SYS_##name, #name " is not " #nr);
WD_SYSCALLS_HELD(HELD_CHECK)
_Static_assert(WD_SYSCALL_IO_URING_SETUP == SYS_io_uring_setup, "io_uring_setup");

const struct wd_held_call *wd_waiting_room_call(unsigned int nr)
{
	for (size_t i = 0; i < sizeof(held) / sizeof(held[0]); i++)
		if (held[i].nr == nr)
			return &held[i];
	return NULL;
}

bool wd_waiting_room_dir_change(unsigned int nr, const uint64_t args[6])
{
	const struct wd_held_call *c = wd_waiting_room_call(nr);

	if (!c || c->dir_arg == -2)
		return false;
	return c->dir_arg < 0 || (args[c->dir_arg] & c->dir_bits);
}

/*
 * Send @nr to the waiting room: every call (@arg < 0), or one whose args[@arg] has a bit of
 * @bits. The accumulator holds nr before and after.
 */
static int send_call(struct wd_notify_plan *p, unsigned int nr, int arg, unsigned long bits)
{
	int err = 0;

	if (arg < 0) {
		JUMP(BPF_JEQ, nr, 0, 1);
		RET(SECCOMP_RET_USER_NOTIF);
		return err;
	}
	JUMP(BPF_JEQ, nr, 0, 4);
	LOAD(offsetof(struct seccomp_data, args[0]) + (unsigned int)arg * sizeof(__u64));
	JUMP(BPF_JSET, (unsigned int)bits, 0, 1);
	RET(SECCOMP_RET_USER_NOTIF);
	/* the accumulator no longer holds nr: reload it for what follows */
	LOAD(offsetof(struct seccomp_data, nr));
	return err;
}

int wd_waiting_room_prepare(struct wd_notify_plan *p, unsigned int classes, bool allow_io_uring)
{
	const unsigned int eperm = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
	const size_t n = sizeof(held) / sizeof(held[0]);
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
		JUMP(BPF_JEQ, WD_SYSCALL_IO_URING_SETUP, 0, 1);
		RET(eperm);
	}
	/* the calls of held classes sent whole first, the ones their arguments decide last */
	for (size_t i = 0; i < n; i++)
		if ((classes & held[i].class) && held[i].arg < 0)
			err |= send_call(p, held[i].nr, -1, 0);
	/* a directory change a held class does not send already */
	for (size_t i = 0; i < n && p->watch_dirs; i++)
		if (!(classes & held[i].class) && held[i].dir_arg != -2)
			err |= send_call(p, held[i].nr, held[i].dir_arg, held[i].dir_bits);
	for (size_t i = 0; i < n; i++)
		if ((classes & held[i].class) && held[i].arg >= 0)
			err |= send_call(p, held[i].nr, held[i].arg, held[i].bits);
	RET(SECCOMP_RET_ALLOW);
	return err ? -E2BIG : 0;
}

int wd_waiting_room_install(const struct wd_notify_plan *p, int sock)
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

int wd_waiting_room_receive(int sock)
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
