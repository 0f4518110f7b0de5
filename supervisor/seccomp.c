// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "supervisor/seccomp.h"

#ifndef __x86_64__
#error "the seccomp filter knows x86_64's syscall numbers only: port refused[]"
#endif

#define X32_SYSCALL_BIT 0x40000000u
#define WD_TIOCSTI 0x5412u
#define WD_TIOCLINUX 0x541cu

/* Refused whole, whatever the arguments. Keep in step with classify() in bpf/wd_sandbox.bpf.c. */
static const unsigned int refused[] = {
	SYS_bpf, SYS_ptrace, SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot, SYS_keyctl,
	SYS_add_key, SYS_request_key, SYS_perf_event_open, SYS_open_by_handle_at, SYS_setns,
	SYS_open_tree, SYS_move_mount, SYS_fsopen, SYS_fsconfig, SYS_fsmount, SYS_fspick,
	SYS_mount_setattr, SYS_kexec_load, SYS_kexec_file_load, SYS_init_module,
	SYS_finit_module, SYS_delete_module, SYS_process_vm_readv, SYS_process_vm_writev,
};

static bool is_refused(unsigned int nr, unsigned int flags)
{
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (refused[i] == nr)
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
