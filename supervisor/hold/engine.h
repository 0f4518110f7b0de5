/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The waiting room's supervisor side: each notified syscall is decoded, its paths resolved as the
 * task would resolve them, and matched against the hold rules. No rule: the call goes on. A deny
 * rule: EPERM. A hold rule: the task sleeps in the kernel until an operator (or a standing grant,
 * or the timeout) decides; an approved operation is performed by the supervisor itself on the
 * resolved parent directory it pinned, so a path swapped afterwards cannot change what it does.
 */
#ifndef WD_HOLD_H
#define WD_HOLD_H

#include "audit/hold_view.h"
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "supervisor/hold/rules.h"

struct wd_hold_engine;

/* A call in the waiting room as the kernel gave it: enough for another supervisor to answer it. */
struct wd_hold_call {
	uint64_t notif_id;
	uint32_t pid;
	uint32_t nr;
	uint64_t args[6];
};

struct wd_hold_events {
	/* A new hold (the view lives until the callback returns). */
	void (*held)(void *ctx, const struct wd_hold_view *v);
	/*
	 * A decision: @allow, by @who ("uid 0 (root)", "timeout", "grant", "rule"), and the
	 * operation's result (0 or -errno) where it ran.
	 */
	void (*decided)(void *ctx, const struct wd_hold_view *v, bool allow, const char *who,
			int result);
	/*
	 * Whether the sandbox's own file rules let it change @path (delete, rename either end,
	 * truncate): 0, or the errno its backend would give. An approved operation the task could
	 * not do itself is answered with that errno, never performed. NULL: no rules to check.
	 */
	int (*may_write)(void *ctx, const char *path);
	/*
	 * @c now waits for a decision (@waiting), or no longer does. The kernel hands each call to
	 * one receiver only: a supervisor taking over after a crash knows the calls its predecessor
	 * had received only from this journal (see wd_hold_take_over). May be NULL.
	 */
	void (*waiting)(void *ctx, const struct wd_hold_call *c, bool waiting);
	void *ctx;
};

/*
 * The memory the kernel writes each received call into, instead of the engine's own: a page of a
 * memfd the keeper also holds, so a call received by a supervisor that dies before it is decided
 * and journaled is still known to the successor (wd_hold_received_call). Set before
 * wd_hold_attach / wd_hold_take_over; ignored if smaller than the kernel's notification.
 */
void wd_hold_set_receive_page(struct wd_hold_engine *e, void *page, size_t size);

/*
 * The call a dead supervisor had received into @page (@size bytes) and perhaps not decided: 0
 * and *@c when the page holds one, -ENOENT when it holds none. Whether the kernel still has it
 * pending is for the caller to ask (SECCOMP_IOCTL_NOTIF_ID_VALID).
 */
int wd_hold_received_call(const void *page, size_t size, struct wd_hold_call *c);

/* @listener may be -1 until the child has sent it (wd_hold_attach). */
int wd_hold_engine_new(struct wd_hold_engine **out, const struct wd_hold_rules *rules,
		       int listener, const struct wd_hold_events *ev);
void wd_hold_attach(struct wd_hold_engine *e, int listener);
/*
 * The waiting room's filter sends every directory removal and rename (wd_notify_plan's
 * watch_dirs): the engine may then decide unmatched paths under directories it has walked
 * before without walking them again.
 */
void wd_hold_dirs_watched(struct wd_hold_engine *e, bool watched);
/*
 * Instead of wd_hold_attach, for a supervisor taking over a running sandbox: the @n calls its
 * predecessor had received and not answered are decided again from the tasks' memory (they
 * still sleep in the same syscalls) and held anew; then @listener is attached. Returns how many
 * are held, or -errno.
 */
int wd_hold_take_over(struct wd_hold_engine *e, int listener, const struct wd_hold_call *calls,
		      size_t n);
void wd_hold_engine_free(struct wd_hold_engine *e);

/*
 * The key that signs @e's hold tokens, in a sealed memfd of its own (for the keeper: a successor
 * that loads it signs each call it asks again with the token its predecessor gave, so a token
 * handed out before a crash or a restart still decides that call): the fd, or -errno.
 */
int wd_hold_key_fd(const struct wd_hold_engine *e);
/* Sign with the key in @fd (wd_hold_key_fd's) from now on. 0, or -errno (@e's own key kept). */
int wd_hold_key_load(struct wd_hold_engine *e, int fd);

/* The listener: poll it readable, then call wd_hold_on_notify. */
int wd_hold_listener_fd(const struct wd_hold_engine *e);
/*
 * Instead of wd_hold_attach, for a persistent sandbox: one more waiting room (an exec's
 * @listener, which the engine owns from now on, closing it once its tasks have all gone).
 * The receiver thread polls them all. 0, -ENOSPC (WD_HOLD_ROOMS_MAX rooms still have tasks),
 * -EBUSY (the engine has a run's one listener), or -errno.
 */
int wd_hold_add_room(struct wd_hold_engine *e, int listener);
int wd_hold_on_notify(struct wd_hold_engine *e);
/* A timerfd that fires at the next timeout: then call wd_hold_on_timer. */
int wd_hold_timer_fd(const struct wd_hold_engine *e);
int wd_hold_on_timer(struct wd_hold_engine *e);

/* The pending holds: calls @fn for each (views live for the call). */
void wd_hold_list(struct wd_hold_engine *e, void (*fn)(void *arg, const struct wd_hold_view *v),
		  void *arg);

struct wd_hold_decision {
	bool allow;
	enum wd_grant_scope scope;
	const char *subtree; /* NULL: no limit */
	uint64_t budget; /* 0: no limit */
	uint64_t ttl_ms; /* 0: no limit */
	const char *who;
};

/* The id of the pending hold whose token is @token: 0 and *@id, or -ENOENT. */
int wd_hold_by_token(struct wd_hold_engine *e, const char *token, uint64_t *id);
/* Decide hold @id (whose @token must match). 0, -ENOENT (no such hold), -EACCES (bad token). */
int wd_hold_decide(struct wd_hold_engine *e, uint64_t id, const char *token,
		   const struct wd_hold_decision *d);

#endif
