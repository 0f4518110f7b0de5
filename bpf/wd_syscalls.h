/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The syscalls warden refuses or records, x86_64 numbers, one copy for every side that reads
 * them: the seccomp filter (supervisor/backend/seccomp_guard.c), the syscall-exit recorder's
 * classify() (bpf/wd_recorder.bpf.c) and the audit formatter's names (audit/jsonl.c). No other
 * file spells a syscall number: each list is an X-macro, X(nr, name, ...).
 * The calls the holds' waiting room sends to the supervisor are WD_SYSCALLS_HELD, below.
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

/*
 * Path syscalls the recorder at syscall exit records a denial of (the landlock backend):
 * X(nr, name, type, op, path_arg, dirfd_arg, flags_arg), the type and op as in bpf/wd_abi.h
 * without their prefixes, and the argument holding the path, the dirfd and open(2)'s flags (-1
 * for none). openat2's flags are in memory; link and symlink record the new name.
 */
#define WD_SYSCALLS_PATH(X)                                                                      \
	X(2, open, FILE, OPEN, 0, -1, 1) X(257, openat, FILE, OPEN, 1, 0, 2)                     \
	X(437, openat2, FILE, OPEN, 1, 0, -1) X(85, creat, FILE, CREATE, 0, -1, -1)              \
	X(59, execve, EXEC, EXEC, 0, -1, -1) X(322, execveat, EXEC, EXEC, 1, 0, -1)              \
	X(83, mkdir, FILE, MKDIR, 0, -1, -1) X(258, mkdirat, FILE, MKDIR, 1, 0, -1)              \
	X(133, mknod, FILE, MKNOD, 0, -1, -1) X(259, mknodat, FILE, MKNOD, 1, 0, -1)             \
	X(87, unlink, FILE, UNLINK, 0, -1, -1) X(84, rmdir, FILE, RMDIR, 0, -1, -1)              \
	X(263, unlinkat, FILE, UNLINK, 1, 0, -1) X(82, rename, FILE, RENAME, 0, -1, -1)          \
	X(264, renameat, FILE, RENAME, 1, 0, -1) X(316, renameat2, FILE, RENAME, 1, 0, -1)       \
	X(86, link, FILE, LINK, 1, -1, -1) X(265, linkat, FILE, LINK, 3, 2, -1)                  \
	X(88, symlink, FILE, SYMLINK, 1, -1, -1) X(266, symlinkat, FILE, SYMLINK, 2, 1, -1)      \
	X(76, truncate, FILE, TRUNCATE, 0, -1, -1) X(90, chmod, FILE, SETATTR, 0, -1, -1)        \
	X(92, chown, FILE, SETATTR, 0, -1, -1) X(94, lchown, FILE, SETATTR, 0, -1, -1)           \
	X(268, fchmodat, FILE, SETATTR, 1, 0, -1) X(260, fchownat, FILE, SETATTR, 1, 0, -1)      \
	X(280, utimensat, FILE, SETATTR, 1, 0, -1)

/*
 * Refused by argument or by policy in the seccomp filter, on the landlock backend only:
 * io_uring_setup, memfd_create (where vm.memfd_noexec is missing), unshare and clone of a user
 * namespace, the terminal ioctls (TIOCSTI, TIOCLINUX).
 */
#define WD_SYSCALLS_BY_ARG(X)                                                                    \
	X(425, io_uring_setup) X(319, memfd_create) X(272, unshare) X(56, clone) X(16, ioctl)

/* Socket calls whose refusal the recorder sees at exit: X(nr, name, op, addr_arg, len_arg). */
#define WD_SYSCALLS_SOCK(X)                                                                      \
	X(42, connect, CONNECT, 1, 2) X(44, sendto, SENDTO, 4, 5) X(49, bind, BIND, 1, 2)

/* Calls on an fd that only the holds' waiting room takes (WD_SYSCALLS_HELD names them). */
#define WD_SYSCALLS_FD(X) X(77, ftruncate) X(285, fallocate)

/*
 * WD_NR_open, WD_NR_ioctl ...: each listed syscall's number by name, the only place a number
 * is written; WD_SYSCALLS_HELD below names its rows' numbers so.
 */
#define WD_NR_ENUM_(nr, name, ...) WD_NR_##name = nr,
enum wd_syscall_nr {
	WD_SYSCALLS_PATH(WD_NR_ENUM_) WD_SYSCALLS_BY_ARG(WD_NR_ENUM_)
	WD_SYSCALLS_SOCK(WD_NR_ENUM_) WD_SYSCALLS_SELF_PROTECT(WD_NR_ENUM_)
	WD_SYSCALLS_FD(WD_NR_ENUM_)
};
#undef WD_NR_ENUM_

/* personality(2): only these personas pass (docker's list: Linux, 32-bit, UNAME26, a query). */
#define WD_SYSCALL_PERSONALITY 135
#define WD_PERSONAS(X) X(0x0) X(0x8) X(0x20000) X(0x20008) X(0xffffffff)

/*
 * The holds' waiting room (supervisor/hold/): the calls its filter sends to the supervisor
 * (waiting_room.c) and the engine decodes (decode.c), one row each: X(nr, name, class, when, dirs).
 * @class: the hold class (enum wd_hold_class without WD_HOLD_) whose rules send the call.
 * @when: WD_HELD_ALL (every call) or WD_HELD_ARG(n, bits): only a call whose args[n] has one of
 * @bits (an open with O_TRUNC); openat2's flags are in memory, so every openat2 goes.
 * @dirs: whether the call can remove or move a directory (WD_HELD_NO, WD_HELD_ALL or
 * WD_HELD_ARG): the filter's watch_dirs sends those whatever the classes. The user side checks
 * each number against its libc's __NR_ name.
 */
#define WD_SYSCALLS_HELD(X)                                                                      \
	X(WD_NR_unlink, unlink, DELETE, WD_HELD_ALL, WD_HELD_NO)                                 \
	X(WD_NR_unlinkat, unlinkat, DELETE, WD_HELD_ALL, WD_HELD_ARG(2, AT_REMOVEDIR))           \
	X(WD_NR_rmdir, rmdir, DELETE, WD_HELD_ALL, WD_HELD_ALL)                                  \
	X(WD_NR_rename, rename, RENAME, WD_HELD_ALL, WD_HELD_ALL)                                \
	X(WD_NR_renameat, renameat, RENAME, WD_HELD_ALL, WD_HELD_ALL)                            \
	X(WD_NR_renameat2, renameat2, RENAME, WD_HELD_ALL, WD_HELD_ALL)                          \
	X(WD_NR_truncate, truncate, TRUNCATE, WD_HELD_ALL, WD_HELD_NO)                           \
	X(WD_NR_ftruncate, ftruncate, TRUNCATE, WD_HELD_ALL, WD_HELD_NO)                         \
	X(WD_NR_creat, creat, TRUNCATE, WD_HELD_ALL, WD_HELD_NO)                                 \
	X(WD_NR_openat2, openat2, TRUNCATE, WD_HELD_ALL, WD_HELD_NO)                             \
	X(WD_NR_link, link, TRUNCATE, WD_HELD_ALL, WD_HELD_NO)                                   \
	X(WD_NR_linkat, linkat, TRUNCATE, WD_HELD_ALL, WD_HELD_NO)                               \
	X(WD_NR_open, open, TRUNCATE, WD_HELD_ARG(1, O_TRUNC), WD_HELD_NO)                       \
	X(WD_NR_openat, openat, TRUNCATE, WD_HELD_ARG(2, O_TRUNC), WD_HELD_NO)                   \
	X(WD_NR_fallocate, fallocate, TRUNCATE, WD_HELD_ARG(1, WD_FALLOC_DESTRUCTIVE), WD_HELD_NO) \
	X(WD_NR_execve, execve, EXEC, WD_HELD_ALL, WD_HELD_NO)                                   \
	X(WD_NR_execveat, execveat, EXEC, WD_HELD_ALL, WD_HELD_NO)

/* The conditions of WD_SYSCALLS_HELD's @when and @dirs, as (argument, bits): see there. */
#define WD_HELD_ALL -1, 0
#define WD_HELD_NO -2, 0
#define WD_HELD_ARG(n, bits) n, bits

/* io_uring_setup(2): the waiting room refuses it unless the policy allows io_uring. */
#define WD_SYSCALL_IO_URING_SETUP WD_NR_io_uring_setup

#endif
