// SPDX-License-Identifier: GPL-2.0
/* A run's holds wired to the rest of the run (supervisor/run/holds.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "audit/jsonl.h"
#include "policy/compile.h"
#include "policy/path.h"
#include "supervisor/hold/from_policy.h"
#include "supervisor/run/holds.h"
#include "supervisor/run/keeper.h"
#include "supervisor/run/pty.h"
#include "supervisor/run/records.h"
#include "supervisor/sandbox/spawn.h"
#include "supervisor/util/log.h"

static void on_held(void *ctx, const struct wd_hold_view *v)
{
	struct run_holds *h = ctx;

	h->held++;
	snprintf(h->waiting_on, sizeof(h->waiting_on), "%s %s%s%s",
		 v->op ? v->op : "an operation", v->target ? v->target : "",
		 v->target2 ? " to " : "", v->target2 ? v->target2 : "");
	/* before the prompt hears of it: it finds the terminal in the caller's modes, not read */
	if (h->prompting && h->st->pty)
		wd_pty_pause(h->st->pty, true);
	wd_run_audit_write(h->st, wd_audit_hold_line(&h->st->actx, wd_clock_ns(CLOCK_REALTIME), v));
	if (h->ctl)
		wd_ctl_publish_hold(h->ctl, v);
}

/* The op the syscall-exit recorder gives a held operation's syscall. */
static uint16_t refusal_op(const char *op)
{
	static const struct {
		const char *name;
		uint16_t op;
	} ops[] = {
		{ "delete", WD_OP_UNLINK },   { "rmdir", WD_OP_RMDIR }, { "rename", WD_OP_RENAME },
		{ "truncate", WD_OP_TRUNCATE }, { "link", WD_OP_LINK }, { "exec", WD_OP_EXEC },
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strcmp(op, ops[i].name) == 0)
			return ops[i].op;
	return 0;
}

static void on_decided(void *ctx, const struct wd_hold_view *v, bool allow, const char *who,
		       int result)
{
	struct run_holds *h = ctx;

	h->decided++;
	wd_run_audit_write(h->st, wd_audit_decision_line(&h->st->actx, wd_clock_ns(CLOCK_REALTIME),
							 v, allow, who, result));
	if (!allow || result == -EPERM || result == -EACCES) {
		struct run_state *st = h->st;
		struct refusal *r = &st->refused[st->next_refusal++ % WD_REFUSALS];

		r->tid = v->pid;
		r->op = refusal_op(v->op);
		snprintf(r->rule, sizeof(r->rule), "%s", v->rule ? v->rule : "default");
		r->ns = wd_clock_ns(CLOCK_MONOTONIC);
	}
	if (h->ctl)
		wd_ctl_publish_decision(h->ctl, v, allow, who, result);
	if (h->prompting && h->st->pty && h->decided >= h->held)
		wd_pty_pause(h->st->pty, false);
}

/* The keeper keeps the journal of waiting calls: a successor must ask about them again. */
static void holds_waiting(void *ctx, const struct wd_hold_call *c, bool waiting)
{
	struct run_holds *h = ctx;
	int err = h->keeper ? wd_keeper_journal(h->keeper, c, waiting) : 0;

	if (err)
		log_warnx("holds: cannot tell the keeper of a waiting call: %s", strerror(-err));
}

/* The sandbox's own rules for a change to @path: fs.write allows it and no fs.deny covers it. */
static int holds_may_write(void *ctx, const char *path)
{
	struct run_holds *h = ctx;
	const struct wd_ruleset *rs = h->st->actx.rules;
	const struct wd_rule_entry *e = wd_ruleset_lookup(rs, path);

	if (!e || !(e->val.allow & WD_ACC_WRITE))
		return -h->deny_errno;
	for (size_t i = 0; i < rs->n_fs_deny; i++)
		if (wd_path_within(path, rs->fs_deny[i].path))
			return -h->deny_errno;
	return 0;
}

pid_t wd_run_prompt_start(const char *sandbox)
{
	pid_t pid;
	int tty;

	tty = open("/dev/tty", O_RDWR | O_CLOEXEC);
	if (tty < 0) {
		log_warn("run: --prompt: no terminal to ask on; holds wait for other answers");
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		char *args[] = { "warden", "prompt", "--sandbox", (char *)sandbox, NULL };
		sigset_t none;

		/* warden blocks its signals for the signalfd; the prompt must get them */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		dup2(tty, 0);
		dup2(tty, 1);
		dup2(tty, 2);
		execv("/proc/self/exe", args);
		_exit(127);
	}
	close(tty);
	if (pid < 0)
		log_warn("run: --prompt");
	return pid;
}

void wd_run_prompt_stop(pid_t prompter)
{
	if (prompter > 0) {
		kill(prompter, SIGTERM);
		waitpid(prompter, NULL, 0);
	}
}

int wd_run_holds_serve(struct run_holds *h, const char *sandbox)
{
	int err = h->engine && !h->ctl ? wd_ctl_open(&h->ctl, sandbox, h->engine, &h->rules) : 0;

	if (err)
		log_warnx("holds: cannot open the holds socket: %s", strerror(-err));
	return err;
}

int wd_run_holds_start(struct run_holds *h, const char *sandbox, bool allow_io_uring, bool serve)
{
	struct wd_hold_events ev = { .held = on_held, .decided = on_decided,
				     .may_write = holds_may_write, .waiting = holds_waiting,
				     .ctx = h };
	int err;

	err = wd_waiting_room_prepare(&h->plan, wd_hold_rules_classes(&h->rules), allow_io_uring);
	if (!err)
		err = wd_hold_engine_new(&h->engine, &h->rules, -1, &ev);
	if (!err)
		wd_hold_dirs_watched(h->engine, h->plan.watch_dirs);
	if (err)
		log_warnx("holds: cannot set up the waiting room: %s", strerror(-err));
	if (!err && serve)
		err = wd_run_holds_serve(h, sandbox);
	return err;
}

int wd_run_holds_receive_page(struct run_holds *h, int fd)
{
	struct stat st;
	void *page;
	int err;

	if (fd < 0) {
		fd = memfd_create("warden-received", MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, WD_RECV_PAGE)) {
			err = -errno;
			goto fail;
		}
	} else {
		fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (fd < 0 || fstat(fd, &st)) {
			err = -errno;
			goto fail;
		}
		if (st.st_size < WD_RECV_PAGE) {
			err = -EINVAL;
			goto fail;
		}
	}
	page = mmap(NULL, WD_RECV_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (page == MAP_FAILED) {
		err = -errno;
		goto fail;
	}
	h->recv_page = page;
	h->recv_fd = fd;
	wd_hold_set_receive_page(h->engine, page, WD_RECV_PAGE);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	log_warnx("holds: no shared page for the waiting room's calls: %s", strerror(-err));
	return err;
}

void wd_run_holds_close(struct run_holds *h)
{
	wd_ctl_close(h->ctl);
	h->ctl = NULL;
	wd_hold_engine_free(h->engine);
	h->engine = NULL;
	if (h->recv_page) {
		munmap(h->recv_page, WD_RECV_PAGE);
		close(h->recv_fd);
		h->recv_page = NULL;
	}
}

/* The tokens' key: a successor (after a crash, or a wardend restarted) signs as we do. */
static void give_key(struct run_holds *h)
{
	int fd = wd_hold_key_fd(h->engine);

	if (fd < 0 || wd_keeper_give(h->keeper, WD_KEEP_HOLD_KEY, fd))
		log_warnx("holds: the keeper has no key for the hold tokens: a successor gives new "
			  "ones");
	if (fd >= 0)
		close(fd);
}

static void holds_attach(void *ctx, int listener)
{
	struct run_holds *h = ctx;

	/* before the receiver starts: every call it receives is in the keeper's copy too */
	if (!h->recv_page && wd_run_holds_receive_page(h, -1) == 0 &&
	    wd_keeper_give(h->keeper, WD_KEEP_RECEIVED, h->recv_fd))
		log_warn("holds: cannot give the keeper the received-call page");
	wd_hold_attach(h->engine, listener);
	give_key(h);
	/* Without it a crash of warden would fail held calls with ENOSYS instead of ending them. */
	if (wd_keeper_give(h->keeper, WD_KEEP_LISTENER, listener))
		log_warn("holds: cannot give the keeper the waiting room");
}

static int holds_fds(void *ctx, int *fds, int max)
{
	struct run_holds *h = ctx;
	int n = 0;

	if (max < 2)
		return 0;
	fds[n++] = wd_hold_listener_fd(h->engine);
	fds[n++] = wd_hold_timer_fd(h->engine);
	return n + (h->ctl ? wd_ctl_poll_fds(h->ctl, fds + n, max - n) : 0);
}

/* While the command's exec waits: answer the waiting room and the operators, nothing else. */
static void holds_service(void *ctx)
{
	struct run_holds *h = ctx;
	struct pollfd pfd[WD_CTL_POLL_MAX + 2];
	int fds[WD_CTL_POLL_MAX + 2], n = holds_fds(h, fds, WD_CTL_POLL_MAX + 2);

	for (int i = 0; i < n; i++)
		pfd[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
	if (poll(pfd, (nfds_t)n, 0) <= 0)
		return;
	if (pfd[0].revents & POLLIN)
		wd_hold_on_notify(h->engine);
	if (pfd[1].revents)
		wd_hold_on_timer(h->engine);
	for (int i = 2; i < n; i++)
		if (pfd[i].revents)
			wd_ctl_on_ready(h->ctl, pfd[i].fd);
}

void wd_run_holds_spawn_opts(struct run_holds *h, struct wd_spawn_opts *o)
{
	o->notify = &h->plan;
	o->notify_attach = holds_attach;
	o->notify_fds = holds_fds;
	o->notify_service = holds_service;
	o->notify_ctx = h;
}

/*
 * An exec's waiting room, one more of the engine's: a copy, since the exec's own closes with
 * its command while what it left in the background may still call. Nothing goes to the
 * keeper: a persistent sandbox dies with its supervisor.
 */
static void holds_add_room(void *ctx, int listener)
{
	struct run_holds *h = ctx;
	int fd = fcntl(listener, F_DUPFD_CLOEXEC, 3), err;

	err = fd < 0 ? -errno : wd_hold_add_room(h->engine, fd);
	if (err) {
		/* fail closed: with no one listening, every call it would hold fails (ENOSYS) */
		log_warnx("holds: an exec's waiting room has no receiver (%s): its calls that a "
			  "rule could hold fail", strerror(-err));
		if (fd >= 0)
			close(fd);
	}
}

void wd_run_holds_exec_opts(struct run_holds *h, struct wd_spawn_opts *o)
{
	wd_run_holds_spawn_opts(h, o);
	o->notify_attach = holds_add_room;
}
