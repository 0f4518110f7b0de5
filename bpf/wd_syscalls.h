/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The syscalls warden refuses whole, x86_64 numbers, one copy for every side that reads them:
 * the seccomp filter (supervisor/backend/seccomp_guard.c), the syscall-exit recorder's classify()
 * (bpf/wd_sandbox.bpf.c) and the audit formatter's names (audit/jsonl.c). X(nr, name) each.
 */
#ifndef WD_SYSCALLS_H
#define WD_SYSCALLS_H

/*
 * Self-protection, on the landlock backend only (on bpf-lsm the LSM programs decide these, which
 * allow some inside one sandbox, and record them): other processes, keyrings, perf, namespaces.
 * io_uring_setup, memfd_create, unshare/clone of a user namespace and the terminal ioctls are
 * refused by argument or by policy in the filter itself.
 */
#define WD_SYSCALLS_SELF_PROTECT(X)                                                              \
	X(101, ptrace) X(250, keyctl) X(248, add_key) X(249, request_key)                        \
	X(298, perf_event_open) X(308, setns) X(310, process_vm_readv) X(311, process_vm_writev)

/*
 * Privileged: what no sandboxed program needs, refused on both backends as a second line behind
 * the empty capability set (each needs a capability the command does not have, or acts on the
 * host as a whole). Close to what docker's default seccomp profile refuses without the
 * capability; reading the clock (clock_gettime, gettimeofday, time) stays allowed, but adjtimex
 * and clock_adjtime pass their modes in memory a filter cannot read, so they go whole. The
 * monitor (bpf), the mount table and file handles are here too: without the capabilities the
 * kernel refuses them before any LSM hook would (and record) on bpf-lsm, where the hooks stay
 * behind the filter for what does not pass it (io_uring).
 */
#define WD_SYSCALLS_PRIVILEGED(X)                                                                \
	X(321, bpf) X(165, mount) X(166, umount2) X(161, chroot) X(428, open_tree)               \
	X(429, move_mount) X(430, fsopen) X(431, fsconfig) X(432, fsmount) X(433, fspick)       \
	X(442, mount_setattr) X(304, open_by_handle_at)                                          \
	X(167, swapon) X(168, swapoff) X(169, reboot) X(246, kexec_load)                         \
	X(320, kexec_file_load) X(175, init_module) X(313, finit_module) X(176, delete_module)    \
	X(174, create_module) X(177, get_kernel_syms) X(178, query_module) X(163, acct)          \
	X(164, settimeofday) X(227, clock_settime) X(305, clock_adjtime) X(159, adjtimex)        \
	X(103, syslog) X(300, fanotify_init) X(179, quotactl) X(443, quotactl_fd)                \
	X(155, pivot_root) X(153, vhangup) X(172, iopl) X(173, ioperm) X(212, lookup_dcookie)    \
	X(180, nfsservctl) X(134, uselib) X(156, _sysctl) X(136, ustat) X(139, sysfs)            \
	X(183, afs_syscall) X(184, tuxcall) X(185, security) X(181, getpmsg) X(182, putpmsg)

/* personality(2): only these personas pass (docker's list: Linux, 32-bit, UNAME26, a query). */
#define WD_SYSCALL_PERSONALITY 135
#define WD_PERSONAS(X) X(0x0) X(0x8) X(0x20000) X(0x20008) X(0xffffffff)

#endif
