/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Backend room: the seccomp guard filter of both backends: syscalls a sandboxed task has no
 * business making fail with EPERM. On both backends the privileged ones (swap, reboot, kexec,
 * modules, accounting, setting the clock, syslog, fanotify, quotas, pivot_root, vhangup, port I/O,
 * odd personalities: bpf/wd_syscalls.h), a second line behind the empty capability set; on the
 * landlock backend self-protection too (bpf, ptrace, the mount family, keyrings, perf, io_uring,
 * open_by_handle_at, new user namespaces). Built in the parent, installed in the child.
 */
#ifndef WD_SECCOMP_H
#define WD_SECCOMP_H

#include <linux/filter.h>
#include <stdbool.h>

#define WD_SECCOMP_MAX_INSNS 256

enum wd_seccomp_flags {
	WD_SECCOMP_DENY_MEMFD = 1 << 0, /* no vm.memfd_noexec: refuse memfd_create instead */
	WD_SECCOMP_ALLOW_USERNS = 1 << 1, /* the policy allows new user namespaces */
	WD_SECCOMP_ALLOW_IO_URING = 1 << 2, /* the policy allows io_uring */
	/* bpf-lsm: only the privileged syscalls and personalities (the LSM programs do the rest) */
	WD_SECCOMP_PRIVILEGED_ONLY = 1 << 3,
};

struct wd_seccomp_plan {
	struct sock_filter insns[WD_SECCOMP_MAX_INSNS];
	unsigned short len;
};

/* Build the filter. 0 or -E2BIG. */
int wd_seccomp_prepare(struct wd_seccomp_plan *plan, unsigned int flags);
/* In the child (no_new_privs set): install it. 0 or -errno. */
int wd_seccomp_install(const struct wd_seccomp_plan *plan);
/* Does the filter refuse syscall @nr (x86_64) whole? For tests and the guarantee table. */
bool wd_seccomp_refuses(unsigned int nr, unsigned int flags);

#endif
