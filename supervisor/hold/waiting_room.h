/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The holds' waiting room: a seccomp filter that sends the syscalls of held classes to the
 * supervisor (SECCOMP_RET_USER_NOTIF), where the task sleeps in the kernel until it is answered.
 * Built in the parent, installed in the child after the backend's own set-up; the listener fd
 * goes to the parent over a socket, and the child keeps no copy.
 */
#ifndef WD_HOLD_WAITING_ROOM_H
#define WD_HOLD_WAITING_ROOM_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>

#include "bpf/wd_syscalls.h"

#define WD_NOTIFY_MAX_INSNS 96

/* What a policy holds; each class sends its syscalls to the waiting room. */
enum wd_hold_class {
	WD_HOLD_DELETE = 1 << 0, /* unlink, unlinkat, rmdir */
	WD_HOLD_RENAME = 1 << 1, /* rename, renameat, renameat2 (rename-over) */
	WD_HOLD_TRUNCATE = 1 << 2, /* (f)truncate, open/openat with O_TRUNC, creat, openat2,
				    * fallocate with WD_FALLOC_DESTRUCTIVE; and link/linkat,
				    * which would give a file another name */
	WD_HOLD_EXEC = 1 << 3, /* execve, execveat */
};

/*
 * fallocate modes that destroy or move what a file holds, as a truncation does: punching a hole,
 * zeroing a range, collapsing one (the rest moves down, the file shrinks) or inserting one (the
 * rest moves up). Allocating (0, KEEP_SIZE) and UNSHARE_RANGE change no byte the file holds.
 */
#define WD_FALLOC_DESTRUCTIVE (0x02 /* PUNCH_HOLE */ | 0x08 /* COLLAPSE_RANGE */ | \
			       0x10 /* ZERO_RANGE */ | 0x20 /* INSERT_RANGE */)

/* The classes whose targets are paths the supervisor resolves. */
#define WD_HOLD_PATHS (WD_HOLD_DELETE | WD_HOLD_RENAME | WD_HOLD_TRUNCATE)


/* One row of WD_SYSCALLS_HELD. */
struct wd_held_call {
	unsigned int nr;
	const char *name;
	unsigned int class; /* enum wd_hold_class */
	int arg; /* -1: held whole; else held when args[arg] & bits */
	unsigned long bits;
	int dir_arg; /* -2: never a directory change; -1: always; else when args[dir_arg] & */
	unsigned long dir_bits;
};

/* The row of held call @nr, or NULL. */
const struct wd_held_call *wd_waiting_room_call(unsigned int nr);

struct wd_notify_plan {
	struct sock_filter insns[WD_NOTIFY_MAX_INSNS];
	unsigned short len;
	unsigned int classes;
	/*
	 * Every call that removes or moves a directory (rmdir, unlinkat with AT_REMOVEDIR, the
	 * renames) reaches the waiting room too, whatever the classes, so the supervisor sees each
	 * way a directory it walked could change. Set for path classes when io_uring is refused.
	 */
	bool watch_dirs;
};

/*
 * The waiting room's filter (not the self-protection filter, supervisor/backend/seccomp_guard.c).
 * Build it for @classes; io_uring_setup is refused unless @allow_io_uring. With path
 * classes and no io_uring the filter also watches directory changes (see watch_dirs).
 */
int wd_waiting_room_prepare(struct wd_notify_plan *p, unsigned int classes, bool allow_io_uring);
/*
 * In the child: install it with a new listener and send the listener over @sock, then close it.
 * Async-signal-safe. 0 or -errno.
 */
int wd_waiting_room_install(const struct wd_notify_plan *p, int sock);
/* In the parent: the listener fd the child sent over @sock, or -errno. */
int wd_waiting_room_receive(int sock);

/* Is @nr with @args a directory change the filter sends for watch_dirs alone? */
bool wd_waiting_room_dir_change(unsigned int nr, const uint64_t args[6]);

#endif
