/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hold engine's own types (internal to supervisor/hold/): a pending hold with the objects its
 * operation acts on, the engine's state, and the few helpers every part of it uses (engine.c the
 * lifecycle and decisions, receiver.c the notify receiver, decode.c, perform.c, token.c, task.c).
 */
#ifndef WD_HOLD_ENGINE_INTERNAL_H
#define WD_HOLD_ENGINE_INTERNAL_H

#include <linux/seccomp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "supervisor/hold/engine.h"
#include "supervisor/hold/taskpath.h"

#define WD_HOLD_GROUPS_MAX 64

/* A call the receiver matched, with what matched, on its way to the main loop. */
struct matched {
	enum wd_hold_action act;
	uint64_t now;
};

/* A pending hold: the notification, and the pinned objects its operation acts on. */
struct hold {
	uint64_t id;
	uint64_t notif_id;
	int listener; /* the waiting room it came from (a persistent sandbox has one per exec) */
	uint32_t pid;
	unsigned int nr;
	uint64_t args[6];
	struct wd_held_op op;
	const char *opname;
	bool rmdir;
	/* truncating opens: the flags and mode the task gave (openat2's from its open_how) */
	int oflags;
	mode_t omode;
	const char *refused; /* why hold_decode() refused to follow the call (with -EXDEV) */
	bool link; /* link/linkat: a second name for target, refused where truncation is held */
	bool fd_target; /* target is the task's open file args[0] (ftruncate, linkat of "") */
	int dirfd; /* the resolved parent directory of target, O_PATH */
	int dirfd2; /* rename: of target2 */
	struct seen seen, seen2; /* delete, rename: name (and name2) in the pinned directories */
	/* the kernel's own answer to a call on an fd that cannot do it (read-only, O_PATH) */
	int fd_errno;
	char *name; /* last component of target */
	char *name2;
	char *target;
	char *target2;
	char **argv; /* exec: argv[1..] */
	size_t argc;
	char *argv_line; /* exec: the program and its arguments, for the operator */
	char *cmdline;
	char *exe;
	char comm[17];
	const char *rule;
	const char *tree; /* the rule's protected tree or held program */
	char token[33];
	uint64_t created_ms;
	uint64_t deadline_ms; /* 0: none */
	bool follower; /* another pending hold asks the same: one prompt, one decision */
	bool waited; /* journaled as waiting: its answer is journaled too */
	struct matched m; /* what the receiver found */
	/* the task's file-system credentials: an approved operation is performed with them */
	bool creds_known;
	uid_t fsuid;
	gid_t fsgid;
	gid_t groups[WD_HOLD_GROUPS_MAX];
	int n_groups;
	struct hold *next;
};

#define WD_HOLD_ROOMS_MAX 64

struct wd_hold_engine {
	const struct wd_hold_rules *rules;
	int listener;
	/*
	 * A persistent sandbox's waiting rooms, one per exec (wd_hold_add_room), instead of
	 * @listener: the receiver polls them all and marks one gone once every task of it has
	 * (it hangs up); the main loop closes it (hold_rooms_reap). Under @qlock.
	 */
	bool rooms_on;
	int rooms[WD_HOLD_ROOMS_MAX];
	bool room_gone[WD_HOLD_ROOMS_MAX];
	int rooms_changed; /* eventfd: the receiver's poll set is stale */
	int timer;
	struct wd_hold_events ev;
	struct wd_grants grants;
	struct hold *pending;
	uint64_t next_id;
	unsigned char key[32];
	struct seccomp_notif_sizes sizes;
	struct seccomp_notif *recv_page; /* shared with the keeper (wd_hold_set_receive_page) */
	/*
	 * The receiver thread: blocked in SECCOMP_IOCTL_NOTIF_RECV (so the synchronous wake-up
	 * puts it on the caller's CPU), it answers every call no rule matches at once and queues
	 * the rest for the main loop, which it wakes through @wake (an eventfd).
	 */
	pthread_t receiver;
	bool receiving;
	atomic_bool stop;
	int wake;
	pthread_mutex_t qlock;
	struct hold *qhead, **qtail;
	int root; /* the sandbox's root directory, O_PATH (the receiver's alone) */
	struct dircache dirs; /* the receiver's alone */
	/* delete burst (the receiver's alone): times (ms) of the recent deletes, a ring */
	uint64_t *burst;
	unsigned int burst_head, burst_n;
	atomic_bool burst_restart; /* the main loop approved a burst: the receiver starts over */
};

/* CLOCK_MONOTONIC in ms. */
uint64_t hold_now_ms(void);
/* Free what @h holds but not @h itself (a hold decided on the receiver's stack). */
void hold_clear(struct hold *h);
void hold_free(struct hold *h);
/* Answer @h's notification: @error and @val, or let it go on (@cont). 0 or -errno. */
int hold_respond(const struct hold *h, int error, int64_t val, bool cont);
/* Tell whoever keeps the journal of waiting calls that @h waits, or no longer does. */
void hold_journal(struct wd_hold_engine *e, const struct hold *h, bool waiting);

/* receiver.c */
/*
 * Decide call @c and answer it if no rule matches; otherwise *@out is it, decoded, for the main
 * loop to admit. 0 or -errno.
 */
int hold_take(struct wd_hold_engine *e, int listener, const struct wd_hold_call *c,
	      struct hold **out);
/* Receive one notification of waiting room @listener into @n (@nsz bytes) and take it. */
int hold_receive_one(struct wd_hold_engine *e, int listener, struct seccomp_notif *n, size_t nsz,
		     struct hold **out);
/* The main loop: close the rooms the receiver found empty for good, and forget their holds. */
void hold_rooms_reap(struct wd_hold_engine *e);
/* The size of a notification as this kernel gives it. */
size_t hold_notif_size(const struct wd_hold_engine *e);
void hold_stop_receiver(struct wd_hold_engine *e);

#endif
