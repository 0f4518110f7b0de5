/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The landlock backend's self-protection filter: syscalls a sandboxed task has no business making
 * (bpf, ptrace, the mount family, keyrings, perf, io_uring, open_by_handle_at, module and kexec
 * loading, new user namespaces) fail with EPERM. Built in the parent, installed in the child.
 */
#ifndef WD_SECCOMP_H
#define WD_SECCOMP_H

#include <linux/filter.h>
#include <stdbool.h>

#define WD_SECCOMP_MAX_INSNS 128

enum wd_seccomp_flags {
	WD_SECCOMP_DENY_MEMFD = 1 << 0, /* no vm.memfd_noexec: refuse memfd_create instead */
	WD_SECCOMP_ALLOW_USERNS = 1 << 1, /* the policy allows new user namespaces */
	WD_SECCOMP_ALLOW_IO_URING = 1 << 2, /* the policy allows io_uring */
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
