/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The holds' waiting room: a seccomp filter that sends the syscalls of held classes to the
 * supervisor (SECCOMP_RET_USER_NOTIF), where the task sleeps in the kernel until it is answered.
 * Built in the parent, installed in the child after the backend's own set-up; the listener fd
 * goes to the parent over a socket, and the child keeps no copy.
 */
#ifndef WD_NOTIFY_H
#define WD_NOTIFY_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>

#define WD_NOTIFY_MAX_INSNS 96

/* What a policy holds; each class sends its syscalls to the waiting room. */
enum wd_hold_class {
	WD_HOLD_DELETE = 1 << 0, /* unlink, unlinkat, rmdir */
	WD_HOLD_RENAME = 1 << 1, /* rename, renameat, renameat2 (rename-over) */
	WD_HOLD_TRUNCATE = 1 << 2, /* (f)truncate, open/openat with O_TRUNC, creat, openat2 */
	WD_HOLD_EXEC = 1 << 3, /* execve, execveat */
};

struct wd_notify_plan {
	struct sock_filter insns[WD_NOTIFY_MAX_INSNS];
	unsigned short len;
	unsigned int classes;
};

/* Build the filter for @classes; io_uring_setup is refused unless @allow_io_uring. */
int wd_notify_prepare(struct wd_notify_plan *p, unsigned int classes, bool allow_io_uring);
/*
 * In the child: install it with a new listener and send the listener over @sock, then close it.
 * Async-signal-safe. 0 or -errno.
 */
int wd_notify_install(const struct wd_notify_plan *p, int sock);
/* In the parent: the listener fd the child sent over @sock, or -errno. */
int wd_notify_receive(int sock);

/* Does the filter send syscall @nr (with open flags @flags where they matter) to the waiting room? */
bool wd_notify_sends(unsigned int classes, unsigned int nr, unsigned long flags);

#endif
