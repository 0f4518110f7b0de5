// SPDX-License-Identifier: GPL-2.0
/*
 * Backend room: the seccomp filter both backends install in the child (seccomp_guard.h), a
 * classic BPF program built in the parent from bpf/wd_syscalls.h. Not the waiting-room filter,
 * which sends held calls to the supervisor (supervisor/hold/waiting_room.c).
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bpf/wd_syscalls.h"
#include "supervisor/backend/seccomp_guard.h"

#ifndef __x86_64__
#error "the seccomp filter knows x86_64's syscall numbers only: port bpf/wd_syscalls.h"
#endif

#define X32_SYSCALL_BIT 0x40000000u
#define WD_TIOCSTI 0x5412u
#define WD_TIOCLINUX 0x541cu
#define WD_AF_PACKET 17u

#define NR(nr, name) nr,
/* Refused whole, whatever the arguments: bpf/wd_syscalls.h, which classify() reads too. */
static const unsigned int self_protect[] = { WD_SYSCALLS_SELF_PROTECT(NR) };
static const unsigned int privileged[] = { WD_SYSCALLS_PRIVILEGED(NR) };
#undef NR

static bool in(const unsigned int *v, size_t n, unsigned int nr)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == nr)
			return true;
	return false;
}

static bool is_refused(unsigned int nr, unsigned int flags)
{
	if (in(privileged, sizeof(privileged) / sizeof(privileged[0]), nr))
		return true;
	/* on bpf-lsm the LSM programs refuse the rest themselves, and record it */
	if (flags & WD_SECCOMP_PRIVILEGED_ONLY)
		return false;
	if (in(self_protect, sizeof(self_protect) / sizeof(self_protect[0]), nr))
		return true;
	if (nr == SYS_io_uring_setup && !(flags & WD_SECCOMP_ALLOW_IO_URING))
		return true;
	if (nr == SYS_memfd_create && (flags & WD_SECCOMP_DENY_MEMFD))
		return true;
	return false;
}

bool wd_seccomp_refuses(unsigned int nr, unsigned int flags)
{
	return is_refused(nr, flags);
}

static int emit(struct wd_seccomp_plan *p, struct sock_filter insn)
{
	if (p->len >= WD_SECCOMP_MAX_INSNS)
		return -E2BIG;
	p->insns[p->len++] = insn;
	return 0;
}

#define EMIT(...) (err |= emit(p, (struct sock_filter)__VA_ARGS__))
#define RET(v) EMIT(BPF_STMT(BPF_RET | BPF_K, (v)))
#define LOAD(off) EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off)))
/* if (A op k) go to the next instruction, else skip it */
#define IF_EQ_NEXT(k) EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), 0, 1))
#define IF_SET_NEXT(k) EMIT(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, (k), 0, 1))
#define JUMP(op, k, jt, jf) EMIT(BPF_JUMP(BPF_JMP | (op) | BPF_K, (k), (jt), (jf)))

int wd_seccomp_prepare(struct wd_seccomp_plan *p, unsigned int flags)
{
	const unsigned int eperm = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
	const unsigned int enosys = SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA);
#define PERSONA(v) v,
	static const unsigned int personas[] = { WD_PERSONAS(PERSONA) };
#undef PERSONA
	const unsigned int n_personas = sizeof(personas) / sizeof(personas[0]);
	int err = 0;

	p->len = 0;
	/* Another architecture's syscall numbers mean other syscalls: kill. */
	LOAD(offsetof(struct seccomp_data, arch));
	JUMP(BPF_JEQ, AUDIT_ARCH_X86_64, 1, 0);
	RET(SECCOMP_RET_KILL_PROCESS);
	LOAD(offsetof(struct seccomp_data, nr));
	/* x32 numbers alias x86_64 ones with a bit set: refuse them all. */
	JUMP(BPF_JGE, X32_SYSCALL_BIT, 0, 1);
	RET(eperm);
	for (unsigned int nr = 0; nr < 512; nr++) {
		if (!is_refused(nr, flags))
			continue;
		IF_EQ_NEXT(nr);
		RET(eperm);
	}
	/* personality(2): the usual personas only (no READ_IMPLIES_EXEC, no ADDR_NO_RANDOMIZE) */
	JUMP(BPF_JEQ, WD_SYSCALL_PERSONALITY, 0, (unsigned char)(n_personas + 3));
	LOAD(offsetof(struct seccomp_data, args[0])); /* its low word: the kernel reads no more */
	for (unsigned int i = 0; i < n_personas; i++)
		JUMP(BPF_JEQ, personas[i], (unsigned char)(n_personas - i), 0);
	RET(eperm);
	LOAD(offsetof(struct seccomp_data, nr));
	/*
	 * socket(AF_PACKET, ...), on both backends: the cgroup sock_create hook sees inet sockets
	 * only, and a packet socket would read and write frames past every address rule.
	 */
	JUMP(BPF_JEQ, SYS_socket, 0, 3);
	LOAD(offsetof(struct seccomp_data, args[0]));
	JUMP(BPF_JEQ, WD_AF_PACKET, 0, 1);
	RET(eperm);
	LOAD(offsetof(struct seccomp_data, nr));
	if (flags & WD_SECCOMP_PRIVILEGED_ONLY) {
		RET(SECCOMP_RET_ALLOW);
		return err ? -E2BIG : 0;
	}
	/* clone3 passes its flags in memory a filter cannot read: ENOSYS makes libc use clone. */
	IF_EQ_NEXT(SYS_clone3);
	RET(enosys);
	if (!(flags & WD_SECCOMP_ALLOW_USERNS)) {
		/* unshare(flags) and clone(flags, ...): no new user namespace */
		JUMP(BPF_JEQ, SYS_unshare, 1, 0);
		JUMP(BPF_JEQ, SYS_clone, 0, 3);
		LOAD(offsetof(struct seccomp_data, args[0]));
		IF_SET_NEXT(CLONE_NEWUSER);
		RET(eperm);
		LOAD(offsetof(struct seccomp_data, nr));
	}
	/* ioctl(fd, TIOCSTI / TIOCLINUX): no typing into a terminal (the session is new anyway). */
	JUMP(BPF_JEQ, SYS_ioctl, 0, 4);
	LOAD(offsetof(struct seccomp_data, args[1]));
	JUMP(BPF_JEQ, WD_TIOCSTI, 1, 0);
	JUMP(BPF_JEQ, WD_TIOCLINUX, 0, 1);
	RET(eperm);
	RET(SECCOMP_RET_ALLOW);
	return err ? -E2BIG : 0;
}

int wd_seccomp_install(const struct wd_seccomp_plan *p)
{
	struct sock_fprog prog = {
		.len = p->len,
		.filter = (struct sock_filter *)p->insns,
	};

	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		return -errno;
	return 0;
}
