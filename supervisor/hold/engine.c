// SPDX-License-Identifier: GPL-2.0
/*
 * The hold engine (supervisor/hold/): the lifecycle of a hold and its decisions. A matched call
 * from the receiver (receiver.c) is denied, answered by a standing grant, or held and announced;
 * an operator's decision, a grant or the timeout then settles it: performed (perform.c) or
 * refused, and recorded. The parts: decode.c and taskpath.c read what a call names, task.c who
 * asks, token.c signs each hold, waiting_room.c is the filter that sends the calls.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "supervisor/backend/probe.h"
#include "supervisor/hold/decode.h"
#include "supervisor/hold/engine_internal.h"
#include "supervisor/hold/perform.h"
#include "supervisor/hold/task.h"
#include "supervisor/hold/token.h"

uint64_t hold_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int wd_hold_engine_new(struct wd_hold_engine **out, const struct wd_hold_rules *rules,
		       int listener, const struct wd_hold_events *ev)
{
	struct wd_hold_engine *e = calloc(1, sizeof(*e));
	int err;

	if (!e)
		return -ENOMEM;
	e->rules = rules;
	e->listener = listener;
	e->ev = *ev;
	e->next_id = 1;
	e->wake = -1;
	e->rooms_changed = -1;
	e->root = -1;
	e->qtail = &e->qhead;
	pthread_mutex_init(&e->qlock, NULL);
	e->timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (e->timer < 0) {
		err = -errno;
		goto out_free;
	}
	err = wd_seccomp_notif_sizes(&e->sizes);
	if (err)
		goto out_close;
	/* The key that signs hold tokens: fresh for each supervisor, never written anywhere. */
	err = hold_token_key(e);
	if (err)
		goto out_close;
	if (rules->burst_count) {
		e->burst = calloc(rules->burst_count + 1, sizeof(*e->burst));
		if (!e->burst) {
			err = -ENOMEM;
			goto out_close;
		}
	}
	*out = e;
	return 0;

out_close:
	close(e->timer);
out_free:
	free(e);
	return err;
}

void hold_clear(struct hold *h)
{
	hold_undecode(h);
	for (size_t i = 0; i < h->argc; i++)
		free(h->argv[i]);
	free(h->argv);
	free(h->argv_line);
	free(h->cmdline);
	free(h->exe);
}

void hold_free(struct hold *h)
{
	hold_clear(h);
	free(h);
}

void wd_hold_engine_free(struct wd_hold_engine *e)
{
	if (!e)
		return;
	hold_stop_receiver(e);
	while (e->qhead) {
		struct hold *h = e->qhead;

		e->qhead = h->next;
		hold_free(h);
	}
	if (e->wake >= 0)
		close(e->wake);
	for (int i = 0; e->rooms_on && i < WD_HOLD_ROOMS_MAX; i++)
		if (e->rooms[i] >= 0)
			close(e->rooms[i]);
	if (e->rooms_changed >= 0)
		close(e->rooms_changed);
	if (e->root >= 0)
		close(e->root);
	hold_dircache_free(&e->dirs);
	pthread_mutex_destroy(&e->qlock);
	while (e->pending) {
		struct hold *h = e->pending;

		e->pending = h->next;
		hold_free(h);
	}
	wd_grants_free(&e->grants);
	free(e->burst);
	if (e->timer >= 0)
		close(e->timer);
	free(e);
}

int wd_hold_timer_fd(const struct wd_hold_engine *e)
{
	return e->timer;
}

int hold_respond(const struct hold *h, int error, int64_t val, bool cont)
{
	struct seccomp_notif_resp r = { .id = h->notif_id, .error = error, .val = val };

	if (cont)
		r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	if (ioctl(h->listener, SECCOMP_IOCTL_NOTIF_SEND, &r))
		return -errno; /* -ENOENT: the task is gone (killed while held) */
	return 0;
}

static void view_of(const struct hold *h, struct wd_hold_view *v, uint64_t now,
		    const struct wd_hold_rules *rules)
{
	memset(v, 0, sizeof(*v));
	v->id = h->id;
	v->pid = h->pid;
	memcpy(v->comm, h->comm, sizeof(v->comm));
	v->exe = h->exe;
	v->cmdline = h->cmdline;
	v->exec_argv = h->argv_line;
	v->op = h->opname;
	v->target = h->target;
	v->target2 = h->target2;
	v->rule = h->rule;
	v->tree = h->tree;
	v->token = h->token;
	v->age_ms = now - h->created_ms;
	v->timeout_ms = rules->timeout_ms;
}

static void arm_timer(struct wd_hold_engine *e)
{
	struct itimerspec its = { 0 };
	uint64_t next = 0, now = hold_now_ms();

	for (struct hold *h = e->pending; h; h = h->next)
		if (h->deadline_ms && (!next || h->deadline_ms < next))
			next = h->deadline_ms;
	if (next) {
		uint64_t in = next > now ? next - now : 1;

		its.it_value.tv_sec = (time_t)(in / 1000);
		its.it_value.tv_nsec = (long)(in % 1000) * 1000000;
	}
	timerfd_settime(e->timer, 0, &its, NULL);
}

void hold_journal(struct wd_hold_engine *e, const struct hold *h, bool waiting)
{
	struct wd_hold_call c = { .notif_id = h->notif_id, .pid = h->pid, .nr = h->nr };

	if (!e->ev.waiting)
		return;
	memcpy(c.args, h->args, sizeof(c.args));
	e->ev.waiting(e->ev.ctx, &c, waiting);
}

/* Decide @h: perform it or refuse it, tell the events, free it. */
static void settle(struct wd_hold_engine *e, struct hold *h, bool allow, const char *who)
{
	struct wd_hold_view v;
	int result = -EPERM;

	/* an approved burst is over: the next deletes are counted afresh (set before the answer) */
	if (allow && h->op.burst)
		atomic_store(&e->burst_restart, true);
	if (allow)
		result = hold_perform(e, h);
	else
		hold_respond(h, -EPERM, 0, false);
	view_of(h, &v, hold_now_ms(), e->rules);
	if (e->ev.decided)
		e->ev.decided(e->ev.ctx, &v, allow, who, result);
	if (h->waited)
		hold_journal(e, h, false);
	hold_free(h);
}

/* Do @a and @b ask the operator the same thing (many threads on one target)? */
static bool same_question(const struct hold *a, const struct hold *b)
{
	return a->op.class == b->op.class && strcmp(a->target, b->target) == 0 &&
	       !a->target2 == !b->target2 && (!a->target2 || strcmp(a->target2, b->target2) == 0);
}

/* @gone led its question: the next caller asking the same leads it now, and is announced. */
static void promote_follower(struct wd_hold_engine *e, const struct hold *gone)
{
	for (struct hold *h = e->pending; h; h = h->next) {
		struct wd_hold_view v;

		if (!h->follower || !same_question(h, gone))
			continue;
		h->follower = false;
		view_of(h, &v, hold_now_ms(), e->rules);
		if (e->ev.held)
			e->ev.held(e->ev.ctx, &v);
		return;
	}
}

/*
 * After a decision on @decided: holds asking the same are answered alike, and holds that a
 * standing grant now covers are answered by it.
 */
static void sweep(struct wd_hold_engine *e, const struct hold *decided, bool allow,
		  const char *who)
{
	struct hold **pp = &e->pending;
	uint64_t now = hold_now_ms();

	while (*pp) {
		struct hold *h = *pp;
		int granted = 0;

		if (decided && same_question(h, decided))
			granted = allow ? 1 : -1;
		else
			granted = wd_grants_answer(&e->grants, &h->op, h->pid, now);
		if (!granted) {
			pp = &h->next;
			continue;
		}
		*pp = h->next;
		settle(e, h, granted > 0, decided && same_question(h, decided) ? who : "grant");
	}
}

/* A matched call, on the main loop: deny it, answer it from a grant, or hold it. */
static void admit(struct wd_hold_engine *e, struct hold *h)
{
	struct wd_hold_view v;
	uint64_t now = h->m.now;
	int granted;

	h->next = NULL;
	h->id = e->next_id++;
	hold_fill_task(h);
	hold_token_sign(e, h);
	h->created_ms = now;
	if (h->m.act == WD_HOLD_ACT_DENY) {
		settle(e, h, false, "rule");
		return;
	}
	granted = wd_grants_answer(&e->grants, &h->op, h->pid, now);
	if (granted) {
		settle(e, h, granted > 0, "grant");
		return;
	}
	h->deadline_ms = e->rules->timeout_ms ? now + e->rules->timeout_ms : 0;
	for (struct hold *o = e->pending; o; o = o->next)
		if (same_question(o, h))
			h->follower = true;
	h->next = e->pending;
	e->pending = h;
	arm_timer(e);
	view_of(h, &v, now, e->rules);
	if (e->ev.held && !h->follower)
		e->ev.held(e->ev.ctx, &v);
}

int wd_hold_on_notify(struct wd_hold_engine *e)
{
	struct hold *h, *q;
	uint64_t count;
	int err;

	if (!e->receiving) {
		size_t nsz = hold_notif_size(e);
		struct seccomp_notif *n = e->recv_page ? e->recv_page : calloc(1, nsz);

		if (!n)
			return -ENOMEM;
		err = hold_receive_one(e, e->listener, n, nsz, &h);
		if (n != e->recv_page)
			free(n);
		if (h)
			admit(e, h);
		return err == -EINTR || err == -ENOENT ? 0 : err;
	}
	if (read(e->wake, &count, sizeof(count)) < 0 && errno != EAGAIN)
		return -errno;
	pthread_mutex_lock(&e->qlock);
	q = e->qhead;
	e->qhead = NULL;
	e->qtail = &e->qhead;
	pthread_mutex_unlock(&e->qlock);
	/* in the order they came */
	while (q) {
		h = q;
		q = q->next;
		admit(e, h);
	}
	hold_rooms_reap(e);
	return 0;
}

/* @h (off the pending list) was a call of a task that has gone: its deciders are told. */
static void forget_gone(struct wd_hold_engine *e, struct hold *h, uint64_t now)
{
	struct wd_hold_view v;

	if (!h->follower)
		promote_follower(e, h);
	view_of(h, &v, now, e->rules);
	if (e->ev.decided)
		e->ev.decided(e->ev.ctx, &v, false, "gone", -ESRCH);
	hold_journal(e, h, false);
	hold_free(h);
}

void hold_rooms_reap(struct wd_hold_engine *e)
{
	uint64_t now = hold_now_ms();
	int gone[WD_HOLD_ROOMS_MAX], n = 0;

	if (!e->rooms_on)
		return;
	pthread_mutex_lock(&e->qlock);
	for (int i = 0; i < WD_HOLD_ROOMS_MAX; i++)
		if (e->room_gone[i]) {
			gone[n++] = e->rooms[i];
			e->rooms[i] = -1;
			e->room_gone[i] = false;
		}
	pthread_mutex_unlock(&e->qlock);
	/* every task of the room has gone, and so have the calls it held */
	for (int i = 0; i < n; i++) {
		struct hold **pp = &e->pending;

		while (*pp) {
			struct hold *h = *pp;

			if (h->listener != gone[i]) {
				pp = &h->next;
				continue;
			}
			*pp = h->next;
			forget_gone(e, h, now);
		}
		close(gone[i]);
	}
	if (n)
		arm_timer(e);
}

int wd_hold_on_timer(struct wd_hold_engine *e)
{
	uint64_t ticks, now = hold_now_ms();
	struct hold **pp = &e->pending;

	if (read(e->timer, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		return -errno;
	while (*pp) {
		struct hold *h = *pp;

		if (h->deadline_ms && h->deadline_ms <= now) {
			*pp = h->next;
			settle(e, h, e->rules->timeout_allows, "timeout");
			continue;
		}
		pp = &h->next;
	}
	arm_timer(e);
	return 0;
}

void wd_hold_list(struct wd_hold_engine *e, void (*fn)(void *arg, const struct wd_hold_view *v),
		  void *arg)
{
	uint64_t now = hold_now_ms();
	struct hold **pp = &e->pending;

	while (*pp) {
		struct hold *h = *pp;
		struct wd_hold_view v;

		/* a held task that was killed has no call left to answer */
		if (ioctl(h->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &h->notif_id)) {
			*pp = h->next;
			forget_gone(e, h, now);
			continue;
		}
		/* one question, one entry: callers asking the same wait behind the first */
		if (!h->follower) {
			view_of(h, &v, now, e->rules);
			fn(arg, &v);
		}
		pp = &h->next;
	}
}

int wd_hold_by_token(struct wd_hold_engine *e, const char *token, uint64_t *id)
{
	for (struct hold *h = e->pending; h; h = h->next)
		if (hold_token_matches(h, token)) {
			*id = h->id;
			return 0;
		}
	return -ENOENT;
}

int wd_hold_decide(struct wd_hold_engine *e, uint64_t id, const char *token,
		   const struct wd_hold_decision *d)
{
	struct hold **pp = &e->pending;
	uint64_t now = hold_now_ms();

	for (; *pp; pp = &(*pp)->next) {
		struct hold *h = *pp;
		struct wd_grant g;
		int err;

		if (h->id != id)
			continue;
		if (!hold_token_matches(h, token))
			return -EACCES;
		*pp = h->next;
		g = (struct wd_grant){
			.scope = d->scope,
			.allow = d->allow,
			.pid = h->pid,
			.classes = h->op.class,
			.subtree = (char *)d->subtree,
			.budget = d->budget,
			.expires_ms = d->ttl_ms ? now + d->ttl_ms : 0,
			.burst = h->op.burst,
		};
		err = wd_grants_add(&e->grants, &g);
		/* h is off the list: its followers, and what the grant covers, go first */
		sweep(e, h, d->allow, d->who);
		settle(e, h, d->allow, d->who);
		arm_timer(e);
		return err;
	}
	return -ENOENT;
}

int wd_hold_take_over(struct wd_hold_engine *e, int listener, const struct wd_hold_call *calls,
		      size_t n)
{
	int taken = 0;

	if (e->receiving)
		return -EBUSY;
	e->listener = listener;
	for (size_t i = 0; i < n; i++) {
		struct hold *h;

		/* a task killed meanwhile has no call left */
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &calls[i].notif_id))
			continue;
		if (hold_take(e, listener, &calls[i], &h) == 0 && h) {
			admit(e, h);
			taken++;
		}
	}
	wd_hold_attach(e, listener);
	return taken;
}
