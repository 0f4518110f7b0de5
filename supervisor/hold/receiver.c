// SPDX-License-Identifier: GPL-2.0
/*
 * The notify receiver (supervisor/hold/): a thread blocked in SECCOMP_IOCTL_NOTIF_RECV that
 * decodes each call of the waiting room, matches it against the hold rules, answers at once every
 * call no rule holds, and queues the rest for the main loop (engine.c). Also the delete-burst
 * count and the directory cache's invalidation, which are the receiver's alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "supervisor/backend/probe.h"
#include "supervisor/hold/decode.h"
#include "supervisor/hold/engine_internal.h"
#include "supervisor/hold/from_policy.h"
#include "supervisor/hold/waiting_room.h"
#include "supervisor/util/log.h"

static void *receive_loop(void *arg);
static void *receive_rooms(void *arg);

/* The receiver's wake-up from its blocking RECV when the engine ends: the signal interrupts it. */
#define WD_HOLD_STOP_SIG SIGURG

static void on_stop_sig(int sig)
{
	(void)sig;
}

/* The receiver thread, running @loop: 0, or -errno (then the main loop answers, or no one). */
static int start_receiver(struct wd_hold_engine *e, void *(*loop)(void *))
{
	struct sigaction sa = { .sa_handler = on_stop_sig }; /* no SA_RESTART: RECV returns EINTR */
	sigset_t all, old;
	int err;

	e->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (e->wake < 0)
		return -errno;
	sigaction(WD_HOLD_STOP_SIG, &sa, NULL);
	/* The receiver takes only its stop signal; everything else stays the main loop's. */
	sigfillset(&all);
	sigdelset(&all, WD_HOLD_STOP_SIG);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&e->receiver, NULL, loop, e);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		close(e->wake);
		e->wake = -1;
		return -err;
	}
	e->receiving = true;
	return 0;
}

void wd_hold_attach(struct wd_hold_engine *e, int listener)
{
	int err;

	e->listener = listener;
	if (listener < 0 || e->receiving)
		return;
	/* 6.6+: wake the supervisor on the task's CPU, which makes an unmatched call cost several
	 * times less (an answer across CPUs costs a few tens of microseconds). */
	if (wd_seccomp_set_sync_wake_up(listener) == 0)
		log_debug("holds: synchronous wake-up of the waiting room");
	err = start_receiver(e, receive_loop);
	if (err)
		log_warnx("holds: no receiver thread (%s); answering from the main loop",
			  strerror(-err));
}

int wd_hold_add_room(struct wd_hold_engine *e, int listener)
{
	const uint64_t one = 1;
	int slot = -1, err;

	if (e->listener >= 0)
		return -EBUSY; /* a run's one waiting room (wd_hold_attach) */
	if (!e->rooms_on) {
		e->rooms_changed = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (e->rooms_changed < 0)
			return -errno;
		for (int i = 0; i < WD_HOLD_ROOMS_MAX; i++)
			e->rooms[i] = -1;
		e->rooms_on = true;
	}
	hold_rooms_reap(e);
	pthread_mutex_lock(&e->qlock);
	for (int i = 0; i < WD_HOLD_ROOMS_MAX && slot < 0; i++)
		if (e->rooms[i] < 0) {
			e->rooms[i] = listener;
			slot = i;
		}
	pthread_mutex_unlock(&e->qlock);
	if (slot < 0)
		return -ENOSPC;
	wd_seccomp_set_sync_wake_up(listener);
	if (!e->receiving) {
		/* the rooms need the thread: the main loop polls one listener only */
		err = start_receiver(e, receive_rooms);
		if (err) {
			pthread_mutex_lock(&e->qlock);
			e->rooms[slot] = -1;
			pthread_mutex_unlock(&e->qlock);
			return err;
		}
	} else if (write(e->rooms_changed, &one, sizeof(one)) < 0) {
		return -errno;
	}
	return 0;
}

void wd_hold_dirs_watched(struct wd_hold_engine *e, bool watched)
{
	e->dirs.on = watched;
}

void hold_stop_receiver(struct wd_hold_engine *e)
{
	if (!e->receiving)
		return;
	atomic_store(&e->stop, true);
	/* A signal sent just before it blocks again is missed: send until it has gone. */
	while (pthread_tryjoin_np(e->receiver, NULL) == EBUSY) {
		struct timespec ts = { .tv_nsec = 1000000 };

		pthread_kill(e->receiver, WD_HOLD_STOP_SIG);
		nanosleep(&ts, NULL);
	}
	e->receiving = false;
}

int wd_hold_listener_fd(const struct wd_hold_engine *e)
{
	return e->receiving ? e->wake : e->listener;
}

/* More than burst_count deletes within burst_ms, this one included? */
static bool burst(struct wd_hold_engine *e, uint64_t now)
{
	unsigned int cap = e->rules->burst_count + 1;
	unsigned int recent = 0;

	if (atomic_exchange(&e->burst_restart, false))
		e->burst_n = e->burst_head = 0;
	e->burst[e->burst_head] = now;
	e->burst_head = (e->burst_head + 1) % cap;
	if (e->burst_n < cap)
		e->burst_n++;
	for (unsigned int i = 0; i < e->burst_n; i++)
		if (now - e->burst[i] < e->rules->burst_ms)
			recent++;
	return recent > e->rules->burst_count;
}

/* Does @h carry every object an approved operation acts on? (an exec acts on none) */
static bool pinned(const struct hold *h)
{
	return h->op.class == WD_HOLD_EXEC || (h->dirfd >= 0 && (!h->target2 || h->dirfd2 >= 0));
}

/* The file a truncation (or a link) acts on, for the rules' linked files. */
static int target_stat(const struct hold *h, struct stat *st)
{
	char link[64];

	if (h->fd_target && h->dirfd < 0) {
		snprintf(link, sizeof(link), "/proc/%u/fd/%d", h->pid, (int)h->args[0]);
		return stat(link, st) ? -errno : 0;
	}
	if (h->fd_target)
		return fstat(h->dirfd, st) ? -errno : 0;
	if (h->dirfd < 0 || !h->name)
		return -ENOENT;
	return fstatat(h->dirfd, h->name, st, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
}

/*
 * Decode @h and match it. WD_HOLD_ACT_NONE with *answer 0 lets the call go on; with a negative
 * *answer the task gets that error from here, without a hold.
 */
static enum wd_hold_action classify(struct wd_hold_engine *e, struct hold *h,
				    const struct resolver *r, int *answer)
{
	enum wd_hold_action act;
	struct stat st;
	int err = hold_decode(h, r);

	*answer = 0;
	if (!err && h->fd_errno) {
		/* an fd that cannot do it: the kernel's answer, from here (no hold, no reopen) */
		*answer = h->fd_errno;
		return WD_HOLD_ACT_NONE;
	}
	if (err == -EXDEV) {
		/*
		 * Through a magic link warden cannot follow as the task would: refused, never let
		 * through on a guess (a CONTINUE here would let the kernel find what was not checked).
		 */
		h->rule = h->refused ? h->refused : "/hold/magic-link";
		return WD_HOLD_ACT_DENY;
	}
	if (err && (err == -ENOSYS || err == -EINVAL || h->op.class == WD_HOLD_EXEC)) {
		/*
		 * A call this engine does not decode, a last component "." or ".." (which no
		 * delete, rename or truncate accepts), or an exec (advisory): the call goes on and
		 * the kernel and the backend's rules answer it as they would.
		 */
		return WD_HOLD_ACT_NONE;
	}
	if (err) {
		/*
		 * Unreadable arguments, a directory that does not resolve: the task gets that
		 * error from here. Never CONTINUE on a path warden could not follow: where its
		 * walk differs from the task's (a /proc/self that is warden's, or none at all in
		 * the sandbox's pid namespace), the kernel would find what was never checked.
		 */
		*answer = err;
		return WD_HOLD_ACT_NONE;
	}
	act = wd_hold_match(e->rules, &h->op, &h->rule, &h->tree);
	if (act == WD_HOLD_ACT_NONE && h->op.class == WD_HOLD_TRUNCATE && e->rules->n_linked &&
	    target_stat(h, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink > 1)
		act = wd_hold_match_inode(e->rules, st.st_dev, st.st_ino, &h->rule, &h->tree);
	/* a second name is not held: it would outlive the decision (bpf-lsm refuses it too) */
	return h->link && act != WD_HOLD_ACT_NONE ? WD_HOLD_ACT_DENY : act;
}

/*
 * A directory removal or rename: what the cache knew may be false from now on. True when the
 * call was sent for that alone (watch_dirs), no rule holding its class.
 */
static bool dir_changes(struct wd_hold_engine *e, const struct hold *h)
{
	if (!wd_waiting_room_dir_change(h->nr, h->args))
		return false;
	e->dirs.gen++;
	return !(wd_hold_rules_classes(e->rules) & wd_waiting_room_call(h->nr)->class);
}

/*
 * Decide one call and answer it if no rule matches (or it cannot be decoded); otherwise return
 * it, decoded, for admit() (engine.c). Runs on the receiver thread (or the main loop without
 * one); touches nothing of the engine's but the listener, the rules, the burst ring and the
 * directory cache.
 */
int hold_take(struct wd_hold_engine *e, int listener, const struct wd_hold_call *c,
	      struct hold **out)
{
	struct resolver r = { .dirs = &e->dirs, .by_inode = e->rules->n_linked > 0 };
	enum wd_hold_action act;
	/*
	 * Decided on the stack: most calls are answered here and gone, and only one that is held
	 * is copied to the heap for the main loop (nothing points into a hold, so it moves).
	 */
	struct hold s = { .notif_id = c->notif_id, .listener = listener, .pid = c->pid,
			  .nr = c->nr };
	struct hold *h = &s;
	uint64_t now = hold_now_ms();
	int answer, err = 0;

	*out = NULL;
	h->dirfd = h->dirfd2 = -1;
	memcpy(h->args, c->args, sizeof(h->args));
	if (dir_changes(e, h)) {
		hold_respond(h, 0, 0, true);
		goto out_clear;
	}
	e->dirs.now = now;
	/* The sandbox's root, from the first task that asks (see hold_resolve()). */
	if (e->root < 0) {
		char base[64];

		snprintf(base, sizeof(base), "/proc/%u/root", h->pid);
		e->root = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	r.root = e->root;
	act = classify(e, h, &r, &answer);
	if (act == WD_HOLD_ACT_NONE && !answer && h->op.class == WD_HOLD_DELETE && e->burst &&
	    burst(e, now)) {
		act = WD_HOLD_ACT_HOLD;
		h->rule = "/hold/delete_burst";
		h->op.burst = true;
	}
	if (act == WD_HOLD_ACT_HOLD && !pinned(h)) {
		/* decided on the path alone: pin what an approval would act on, and look again */
		bool was_burst = h->op.burst;

		hold_undecode(h);
		h->op.burst = false;
		r.pin = true;
		act = classify(e, h, &r, &answer);
		if (act == WD_HOLD_ACT_NONE && !answer && was_burst) {
			act = WD_HOLD_ACT_HOLD;
			h->rule = "/hold/delete_burst";
			h->op.burst = true;
		}
	}
	if (act == WD_HOLD_ACT_NONE) {
		/*
		 * No ID_VALID first: a CONTINUE to a task that has gone (or whose memory changed)
		 * decides nothing the kernel does not decide again itself.
		 */
		hold_respond(h, answer, 0, !answer);
		goto out_clear;
	}
	/* What was read is only good if the task is still the one that asked. */
	if (ioctl(h->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &h->notif_id))
		goto out_clear;
	h = malloc(sizeof(*h));
	if (!h) {
		/* fail closed: the call is refused, never let through for want of memory */
		hold_respond(&s, -ENOMEM, 0, false);
		err = -ENOMEM;
		h = &s;
		goto out_clear;
	}
	*h = s;
	h->m = (struct matched){ .act = act, .now = now };
	/*
	 * Journaled here, before the hop to the main loop: a supervisor that dies after this
	 * leaves a call its successor can ask about again (sending from this thread is safe: one
	 * datagram each, and its answer can only be sent after it).
	 */
	h->waited = true;
	hold_journal(e, h, true);
	*out = h;
	return 0;
out_clear:
	hold_clear(h);
	return err;
}

size_t hold_notif_size(const struct wd_hold_engine *e)
{
	return e->sizes.seccomp_notif > sizeof(struct seccomp_notif) ? e->sizes.seccomp_notif :
								       sizeof(struct seccomp_notif);
}

void wd_hold_set_receive_page(struct wd_hold_engine *e, void *page, size_t size)
{
	if (page && size >= hold_notif_size(e))
		e->recv_page = page;
}

int wd_hold_received_call(const void *page, size_t size, struct wd_hold_call *c)
{
	struct seccomp_notif n;

	if (!page || size < sizeof(n))
		return -ENOENT;
	memcpy(&n, page, sizeof(n));
	if (!n.id)
		return -ENOENT; /* zeroed before each RECV: nothing received since */
	*c = (struct wd_hold_call){ .notif_id = n.id, .pid = n.pid, .nr = (uint32_t)n.data.nr };
	memcpy(c->args, n.data.args, sizeof(c->args));
	return 0;
}

/*
 * One call from the waiting room into @n: the kernel writes it there (into the page the keeper
 * shares, where one is set), so from the moment the kernel counts it as sent, a successor can
 * find it; the next RECV zeroes it only after this one is answered or journaled.
 */
int hold_receive_one(struct wd_hold_engine *e, int listener, struct seccomp_notif *n, size_t nsz,
		     struct hold **out)
{
	struct wd_hold_call c;

	*out = NULL;
	memset(n, 0, nsz);
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, n))
		return -errno;
	c = (struct wd_hold_call){ .notif_id = n->id, .pid = n->pid, .nr = (uint32_t)n->data.nr };
	memcpy(c.args, n->data.args, sizeof(c.args));
	return hold_take(e, listener, &c, out);
}

/*
 * Has every task of the waiting room gone? Then RECV fails with ENOENT at once, again and again
 * (nothing can join a filter no task holds), and the receiver would spin until it is stopped. A
 * call whose task was killed between the kernel's count and this RECV fails the same way once,
 * with tasks left: the listener does not hang up then.
 */
static bool orphaned(int listener)
{
	struct pollfd p = { .fd = listener, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLHUP) && !(p.revents & POLLIN);
}

/* A call to hold, to the main loop. */
static void queue(struct wd_hold_engine *e, struct hold *h)
{
	const uint64_t one = 1;

	pthread_mutex_lock(&e->qlock);
	h->next = NULL;
	*e->qtail = h;
	e->qtail = &h->next;
	pthread_mutex_unlock(&e->qlock);
	if (write(e->wake, &one, sizeof(one)) < 0)
		log_warn("holds: waking the main loop");
}

static void *receive_loop(void *arg)
{
	struct wd_hold_engine *e = arg;
	size_t nsz = hold_notif_size(e);
	struct seccomp_notif *n = e->recv_page ? e->recv_page : calloc(1, nsz);

	if (!n) {
		log_warnx("holds: receiver: out of memory");
		return NULL;
	}
	while (!atomic_load(&e->stop)) {
		struct hold *h;
		int err = hold_receive_one(e, e->listener, n, nsz, &h);

		if (err == -ENOENT && orphaned(e->listener)) {
			log_debug("holds: the waiting room is empty for good; the receiver ends");
			break;
		}
		if (err == -EINTR || err == -ENOENT || err == -ENOMEM)
			continue;
		if (err) {
			log_warnx("holds: receiving from the waiting room: %s", strerror(-err));
			break;
		}
		if (h)
			queue(e, h);
	}
	if (n != e->recv_page)
		free(n);
	return NULL;
}

/*
 * A persistent sandbox's receiver: every exec's waiting room, polled. Each poll costs the
 * synchronous wake-up nothing (the kernel wakes a poller as it wakes a RECV), and one more
 * call per notification. A room that hangs up (all its tasks gone, reaped) is marked gone for
 * the main loop to close; it is never read again.
 */
static void *receive_rooms(void *arg)
{
	struct wd_hold_engine *e = arg;
	size_t nsz = hold_notif_size(e);
	struct seccomp_notif *n = calloc(1, nsz);
	const uint64_t one = 1;

	if (!n) {
		log_warnx("holds: receiver: out of memory");
		return NULL;
	}
	while (!atomic_load(&e->stop)) {
		struct pollfd p[WD_HOLD_ROOMS_MAX + 1];
		int slot[WD_HOLD_ROOMS_MAX], k = 0;
		uint64_t count;

		pthread_mutex_lock(&e->qlock);
		for (int i = 0; i < WD_HOLD_ROOMS_MAX; i++)
			if (e->rooms[i] >= 0 && !e->room_gone[i]) {
				p[k] = (struct pollfd){ .fd = e->rooms[i], .events = POLLIN };
				slot[k++] = i;
			}
		pthread_mutex_unlock(&e->qlock);
		p[k] = (struct pollfd){ .fd = e->rooms_changed, .events = POLLIN };
		if (poll(p, (nfds_t)k + 1, -1) < 0)
			continue; /* EINTR: the stop signal, looked at above */
		if (p[k].revents && read(e->rooms_changed, &count, sizeof(count)) < 0 &&
		    errno != EAGAIN)
			log_warn("holds: receiver");
		for (int j = 0; j < k; j++) {
			struct hold *h = NULL;
			int err;

			if (p[j].revents & POLLIN) {
				err = hold_receive_one(e, p[j].fd, n, nsz, &h);
				if (err && err != -EINTR && err != -ENOENT && err != -ENOMEM)
					log_warnx("holds: receiving from a waiting room: %s",
						  strerror(-err));
				if (h)
					queue(e, h);
			} else if (p[j].revents & (POLLHUP | POLLERR | POLLNVAL)) {
				pthread_mutex_lock(&e->qlock);
				e->room_gone[slot[j]] = true;
				pthread_mutex_unlock(&e->qlock);
				if (write(e->wake, &one, sizeof(one)) < 0)
					log_warn("holds: waking the main loop");
			}
		}
	}
	free(n);
	return NULL;
}
