// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sched.h>
#include <linux/seccomp.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cJSON.h>

#include "policy/path.h"
#include "audit/jsonl.h"
#include "policy/compile.h"
#include "policy/effective.h"
#include "policy/explain.h"
#include "supervisor/sandbox/cgroup.h"
#include "supervisor/run/exe_cache.h"
#include "supervisor/util/fsutil.h"
#include "supervisor/util/log.h"
#include "supervisor/backend/backend.h"
#include "supervisor/hold/holds_socket.h"
#include "supervisor/hold/engine.h"
#include "supervisor/hold/from_policy.h"
#include "supervisor/hold/rules.h"
#include "supervisor/run/keeper.h"
#include "supervisor/run/pty.h"
#include "supervisor/run/records.h"
#include "supervisor/run/report.h"
#include "supervisor/sandbox/resolve.h"
#include "supervisor/run/run.h"
#include "supervisor/sandbox/setup.h"
#include "supervisor/sandbox/spawn.h"

static int exit_code_of(const siginfo_t *si, int *signo)
{
	*signo = 0;
	if (si->si_code == CLD_EXITED)
		return si->si_status;
	*signo = si->si_status;
	return 128 + si->si_status;
}

/* The holds of this run, where its policy holds anything. */
struct run_holds {
	struct wd_hold_rules rules;
	struct wd_notify_plan plan;
	struct wd_hold_engine *engine;
	struct wd_ctl *ctl;
	struct run_state *st;
	struct wd_keeper *keeper; /* gets a copy of the listener */
	int deny_errno; /* what the backend's kernel side answers a denied change */
	uint64_t held, decided;
	bool prompting; /* `run --prompt` asks on the caller's terminal: the relay pauses */
};

static void on_held(void *ctx, const struct wd_hold_view *v)
{
	struct run_holds *h = ctx;

	h->held++;
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
	wd_run_audit_write(h->st, wd_audit_decision_line(&h->st->actx, wd_clock_ns(CLOCK_REALTIME), v, allow,
						  who, result));
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

/*
 * `warden run --prompt`: `warden prompt --sandbox NAME` on the caller's terminal, so the one
 * who started the run can answer its holds there. Returns its pid, or -1 (said why).
 */
static pid_t start_prompt(const char *sandbox)
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

/* The engine and its socket exist before the child: its own exec may be held. */
static int start_holds(struct run_holds *h, const char *sandbox, bool allow_io_uring)
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
	if (!err)
		err = wd_ctl_open(&h->ctl, sandbox, h->engine, &h->rules);
	if (err)
		log_warnx("holds: cannot set up the waiting room: %s", strerror(-err));
	return err;
}

static void holds_attach(void *ctx, int listener)
{
	struct run_holds *h = ctx;

	wd_hold_attach(h->engine, listener);
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
	return n + wd_ctl_poll_fds(h->ctl, fds + n, max - n);
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

#define WD_POLL_MAX 48

/*
 * The signals that end a supervised sandbox, blocked and read from the returned signalfd (or
 * -1, said why); @old gets the mask to restore.
 */
static int stop_signals(sigset_t *old)
{
	sigset_t sigs;
	int fd;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGQUIT);
	sigprocmask(SIG_BLOCK, &sigs, old);
	fd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0)
		log_warn("signalfd");
	return fd;
}

/*
 * Wait for the child to exit, passing records on, answering holds, turning signals into a kill.
 * A supervisor that took the sandbox over (no @child, no backend) waits instead for its cgroup to
 * empty, on @events (its cgroup.events).
 */
static int supervise(struct run_state *st, const struct wd_backend_ops *ops,
		     struct wd_backend *be, struct ring_buffer *rb, const struct wd_cgroup *cg,
		     struct wd_child *child, int events, int sigfd, struct run_holds *holds,
		     siginfo_t *si)
{
	enum { P_RECORDS, P_CHILD, P_EMPTIED, P_SIGNAL, P_LISTENER, P_TIMER, P_CTL, P_PTY };
	bool done = child == NULL && wd_cgroup_events_empty(events);

	while (!done) {
		struct pollfd pfd[WD_POLL_MAX];
		int kind[WD_POLL_MAX], n = 0, r;

		if (be || rb) {
			pfd[n] = (struct pollfd){ .fd = be ? ops->event_fd(be) :
							     ring_buffer__epoll_fd(rb),
						  .events = POLLIN };
			kind[n++] = P_RECORDS;
		}
		if (child) {
			pfd[n] = (struct pollfd){ .fd = child->pidfd, .events = POLLIN };
			kind[n++] = P_CHILD;
		} else {
			pfd[n] = (struct pollfd){ .fd = events, .events = POLLPRI };
			kind[n++] = P_EMPTIED;
		}
		pfd[n] = (struct pollfd){ .fd = sigfd, .events = POLLIN };
		kind[n++] = P_SIGNAL;
		if (holds->engine) {
			pfd[n] = (struct pollfd){ .fd = wd_hold_listener_fd(holds->engine),
						  .events = POLLIN };
			kind[n++] = P_LISTENER;
			pfd[n] = (struct pollfd){ .fd = wd_hold_timer_fd(holds->engine),
						  .events = POLLIN };
			kind[n++] = P_TIMER;
		}
		if (holds->ctl) {
			int fds[WD_POLL_MAX], m = wd_ctl_poll_fds(holds->ctl, fds, WD_POLL_MAX - n);

			for (int i = 0; i < m; i++) {
				pfd[n] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
				kind[n++] = P_CTL;
			}
		}
		if (st->pty) {
			int m = wd_pty_poll_fds(st->pty, pfd + n, WD_POLL_MAX - n);

			for (int i = 0; i < m; i++)
				kind[n++] = P_PTY;
		}
		r = poll(pfd, (nfds_t)n, -1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			log_warn("run: supervising %s", cg->name);
			return -errno;
		}
		for (int i = 0; i < n; i++) {
			struct signalfd_siginfo ssi;

			if (!pfd[i].revents)
				continue;
			switch (kind[i]) {
			case P_RECORDS:
				if (be)
					ops->consume(be);
				else
					ring_buffer__consume(rb);
				if (st->audit)
					fflush(st->audit);
				break;
			case P_CHILD:
				if (wd_child_wait(child, si) == 0)
					done = true;
				break;
			case P_EMPTIED:
				done = wd_cgroup_events_empty(events);
				break;
			case P_SIGNAL:
				if (read(sigfd, &ssi, sizeof(ssi)) == sizeof(ssi)) {
					log_info("run: got signal %u, killing sandbox %s",
						 ssi.ssi_signo, cg->name);
					wd_cgroup_kill(cg);
				}
				break;
			case P_LISTENER:
				/* POLLHUP: every task of the filter has gone */
				if (pfd[i].revents & POLLIN)
					wd_hold_on_notify(holds->engine);
				break;
			case P_TIMER:
				wd_hold_on_timer(holds->engine);
				break;
			case P_CTL:
				wd_ctl_on_ready(holds->ctl, pfd[i].fd);
				break;
			case P_PTY:
				wd_pty_on_ready(st->pty, &pfd[i]);
				break;
			}
		}
	}
	return 0;
}

/* The child's side of the backend, between clone3 and execve. */
struct child_ctx {
	const struct wd_backend_ops *ops;
	struct wd_backend *be;
};

static int child_setup(void *ctx)
{
	struct child_ctx *c = ctx;

	return c->ops->child_setup(c->be);
}

/* What a path warden will write is checked against: the run's rules. */
struct reach {
	const struct wd_ruleset *rs;
	const char *what; /* "report", "audit", "run directory" */
	const char *path; /* as the caller named it */
};

/*
 * A directory warden looks a name up in, or makes a file in, must be one the sandbox cannot
 * change: where it may create, remove or rename names (fs.write, at or above the directory), a
 * file warden writes as root could be swapped, linked elsewhere or forged after the fact. So it
 * is refused up front, naming the path and the rule (docs/threat-model.md).
 */
static int sandbox_cannot_change(void *arg, const char *dir)
{
	const struct reach *r = arg;
	const struct wd_rule_entry *e;

	/* a private /tmp hides the host's /tmp, and all under it, from the sandbox */
	if (r->rs->ns[WD_NS_TMP] == WD_NS_PRIVATE && wd_path_within(dir, "/tmp"))
		return 0;
	e = wd_ruleset_lookup(r->rs, dir);
	if (!e || !(e->val.allow & WD_ACC_WRITE))
		return 0;
	log_warnx("%s: %s is refused: the sandbox may write %s (policy rule %s), so it could replace "
		  "or redirect what warden writes there; name a path outside the trees the policy "
		  "lets it write", r->what, r->path, dir,
		  wd_ruleset_rule_name(r->rs, e->val.rule[WD_ACC_IDX_WRITE]));
	return -EPERM;
}

/* The run directory, when the run will use it: a directory the sandbox cannot change either. */
static int check_run_dir(const struct wd_ruleset *rs, int *fd)
{
	struct reach r = { .rs = rs, .what = "run directory", .path = wd_run_dir() };
	char real[PATH_MAX];
	int err = wd_run_dir_check(wd_run_dir(), false);

	if (!err)
		err = wd_dir_open_checked(wd_run_dir(), sandbox_cannot_change, &r, fd, real);
	if (err && err != -EPERM)
		log_warnx("run: cannot open the run directory %s: %s", wd_run_dir(),
			  strerror(-err));
	return err;
}

/*
 * Where the records go without --audit: a file of this sandbox's own under the run directory,
 * <run dir>/audit/SANDBOX.jsonl (made O_EXCL, mode 0600), said on warden's standard error.
 */
static int open_default_sink(struct run_state *st, const struct wd_ruleset *rs,
			     const char *sandbox)
{
	struct wd_out_file f = WD_OUT_FILE_INIT;
	struct reach r = { .rs = rs, .what = "audit" };
	char path[PATH_MAX];
	struct stat sb;
	int dir = -1, err;

	err = check_run_dir(rs, &dir);
	if (err)
		return err;
	if (mkdirat(dir, "audit", 0700) && errno != EEXIST) {
		err = -errno;
		goto out;
	}
	if (fstatat(dir, "audit", &sb, AT_SYMLINK_NOFOLLOW)) {
		err = -errno;
		goto out;
	}
	if (!S_ISDIR(sb.st_mode) || sb.st_uid != geteuid() || (sb.st_mode & 022)) {
		log_warnx("audit: %s/audit must be a directory owned by uid %u that no one else may "
			  "write", wd_run_dir(), (unsigned int)geteuid());
		err = -EPERM;
		goto out;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/audit/%s.jsonl", wd_run_dir(), sandbox) >=
	    sizeof(path)) {
		err = -ENAMETOOLONG;
		goto out;
	}
	r.path = path;
	err = wd_out_append_open(&f, "audit", path, sandbox_cannot_change, &r);
	if (!err) {
		st->audit = fdopen(f.fd, "a+");
		if (st->audit)
			f.fd = -1;
		else
			err = -errno;
	}
	if (!err)
		fprintf(stderr, "warden: audit records of sandbox %s go to %s\n", sandbox, path);
	wd_out_close(&f);
out:
	if (err && err != -EPERM)
		log_warnx("audit: cannot make %s/audit/%s.jsonl: %s", wd_run_dir(), sandbox,
			  strerror(-err));
	close(dir);
	return err;
}

/* --audit FILE: opened (and checked) before the command runs, never after. */
static int open_audit(FILE **out, const struct wd_ruleset *rs, const char *path)
{
	struct wd_out_file f = WD_OUT_FILE_INIT;
	struct reach r = { .rs = rs, .what = "audit", .path = path };
	int err = wd_out_append_open(&f, "audit", path, sandbox_cannot_change, &r);

	if (!err) {
		*out = fdopen(f.fd, "a+");
		if (!*out)
			*out = fdopen(f.fd, "a"); /* /dev/null */
		if (*out)
			f.fd = -1;
		else
			err = -errno;
	}
	wd_out_close(&f);
	return err;
}

/*
 * What the keeper needs to end the audit stream if warden dies, and a successor to take the
 * sandbox on (`warden run --survive`), as a warden.keep/1 object: the effective policy itself,
 * so a file changed or removed since does not matter.
 */
static void tell_keeper(struct wd_keeper *k, const struct run_state *st,
			const struct wd_policy *pol, pid_t pid)
{
	cJSON *o = cJSON_CreateObject(), *p = wd_policy_to_json(pol);
	char *text = NULL;
	int err = -ENOMEM;

	if (o && p) {
		cJSON_AddStringToObject(o, "schema", "warden.keep/1");
		cJSON_AddStringToObject(o, "sandbox", st->actx.sandbox);
		cJSON_AddStringToObject(o, "backend", st->actx.backend);
		cJSON_AddNumberToObject(o, "pid", pid);
		/* the audit file itself goes to the keeper as an fd (WD_KEEP_AUDIT), never a path */
		cJSON_AddItemToObject(o, "policy", p);
		p = NULL;
		text = cJSON_PrintUnformatted(o);
	}
	if (text)
		err = wd_keeper_state(k, text);
	if (err)
		log_warnx("run: cannot give the keeper the run's state (%s): if warden dies, the "
			  "sandbox dies with it, and without an exit record", strerror(-err));
	free(text);
	cJSON_Delete(p);
	cJSON_Delete(o);
}

int wd_run(const struct wd_run_opts *o)
{
	struct run_state st = { .audit = NULL };
	struct wd_out_file report = WD_OUT_FILE_INIT;
	struct wd_policy pol;
	struct wd_ruleset rs = { 0 };
	struct wd_policy_error perr;
	struct wd_cgroup cg = { .fd = -1 };
	struct wd_child child = { .pid = 0, .pidfd = -1, .status_fd = -1 };
	struct wd_sandbox final = { 0 };
	struct wd_report rep = { .argv = o->argv };
	const struct wd_backend_ops *ops;
	struct wd_backend *be = NULL;
	struct child_ctx cctx;
	struct run_holds holds = { .engine = NULL };
	struct wd_keeper keeper = { .pid = -1, .sock = -1 };
	struct wd_setup setup = { .netns_fd = -1 };
	struct wd_pty pty = { .master = -1, .slave = -1, .in = -1, .out = -1, .tty = -1,
			      .winch = -1 };
	pid_t prompter = -1;
	struct wd_spawn_opts sopts;
	sigset_t oldsigs;
	siginfo_t si;
	uint64_t t0, t_start, t_end;
	char msg[1024];
	int sigfd = -1, rc = WD_EXIT_INTERNAL, err;
	bool sandbox_added = false;

	/* The effective policy: what it extends, the derived flags, its variables expanded. */
	err = wd_policy_load_effective(o->policy_path, o->derive, &pol, msg, sizeof(msg));
	if (err) {
		log_warnx("%s", msg);
		wd_policy_free(&pol);
		return err == -ENOMEM ? WD_EXIT_INTERNAL : WD_EXIT_USAGE;
	}
	/* Rules name what the kernel will see: symlinks in policy paths are followed first. */
	err = wd_resolve_policy(&pol);
	if (!err)
		err = wd_compile(&pol, &rs, &perr);
	if (err) {
		wd_policy_error_format(&perr, o->policy_path, msg, sizeof(msg));
		log_warnx("%s", msg);
		wd_policy_free(&pol);
		return err == -EINVAL ? WD_EXIT_USAGE : WD_EXIT_INTERNAL;
	}
	/*
	 * The files warden will write, made and checked before anything else: a run whose
	 * report or audit cannot be written (or would be in reach of the sandbox) never runs.
	 */
	if (o->report_path) {
		struct reach r = { .rs = &rs, .what = "report", .path = o->report_path };

		err = wd_report_open(&report, o->report_path, sandbox_cannot_change, &r);
		if (err) {
			rc = err == -EPERM || err == -EINVAL ? WD_EXIT_USAGE : WD_EXIT_INTERNAL;
			goto out_free_rules;
		}
	}
	if (o->audit_path) {
		err = open_audit(&st.audit, &rs, o->audit_path);
		if (err) {
			rep.error = "the audit file could not be opened (see warden's messages)";
			rc = err == -EPERM || err == -EINVAL ? WD_EXIT_USAGE : WD_EXIT_INTERNAL;
			goto out_free_rules;
		}
	}

	ops = wd_backend_choose(o->backend, msg, sizeof(msg));
	if (!ops) {
		log_warnx("cannot run a sandbox here: %s", msg);
		rep.error = msg;
		goto out_free_rules;
	}
	rep.backend = ops->name;
	/* A part this backend does not enforce is refused, never ignored. */
	if (wd_policy_refuse_unenforced(&pol, o->policy_path, ops->features, msg, sizeof(msg))) {
		log_warnx("%s (backend %s)", msg, ops->name);
		rep.error = msg;
		rc = WD_EXIT_USAGE;
		goto out_free_rules;
	}
	/* Users looked up, environment built, network made: before anything is spawned. */
	err = wd_setup_prepare(&setup, &rs, msg, sizeof(msg));
	if (err) {
		log_warnx("%s: %s", o->policy_path, msg);
		rep.error = msg;
		rc = err == -EINVAL || err == -EOPNOTSUPP ? WD_EXIT_USAGE : WD_EXIT_INTERNAL;
		goto out_free_rules;
	}
	err = wd_hold_rules_build(&pol, &holds.rules, msg, sizeof(msg));
	if (err) {
		bool said = err == -EINVAL || err == -E2BIG;

		log_warnx("%s: %s", o->policy_path, said ? msg : strerror(-err));
		rep.error = said ? msg : NULL;
		rc = said ? WD_EXIT_USAGE : rc;
		goto out_free_rules;
	}
	holds.st = &st;
	/* Its sockets (holds, --survive) are where the CLI trusts to find them. */
	if (o->survive_s || wd_hold_rules_classes(&holds.rules)) {
		int dir = -1;

		err = check_run_dir(&rs, &dir);
		if (dir >= 0)
			close(dir);
		if (err) {
			rep.error = "the run directory is refused (see warden's messages)";
			rc = err == -EPERM ? WD_EXIT_USAGE : WD_EXIT_INTERNAL;
			goto out_free_rules;
		}
	}
	/*
	 * Without --audit the records go to a file under the run directory, opened once the
	 * sandbox has its name, never to warden's standard error: the command writes there too,
	 * either as its own inherited fd 2 or, on a terminal, through the pty warden relays onto
	 * the same terminal, so it could print records of its own among warden's.
	 */

	sigfd = stop_signals(&oldsigs);
	if (sigfd < 0)
		goto out_restore_sigs;

	st.actx.backend = ops->name;
	st.actx.rules = &rs;
	st.actx.boot_to_real_ns =
		(int64_t)wd_clock_ns(CLOCK_REALTIME) - (int64_t)wd_clock_ns(CLOCK_BOOTTIME);
	if (ops->start(&be, wd_run_on_record, &st))
		goto out_restore_sigs;
	if (wd_cgroup_create(&cg))
		goto out_stop_backend;
	st.actx.sandbox = cg.name;
	wd_setup_name(&setup, cg.name);
	rep.sandbox = cg.name;
	if (!st.audit && open_default_sink(&st, &rs, cg.name)) {
		rep.error = "the audit file could not be made (see warden's messages)";
		goto out_destroy_cgroup;
	}
	if (ops->sandbox_add(be, cg.id, &pol, &rs))
		goto out_destroy_cgroup;
	sandbox_added = true;
	st.actx.backend_detail = ops->detail(be);
	/* From here on, if warden dies, the sandbox dies too: it never runs unconfined. */
	err = wd_keeper_start(&keeper, &cg, o->survive_s);
	if (err) {
		log_warnx("run: cannot start the keeper: %s", strerror(-err));
		goto out_destroy_cgroup;
	}
	holds.keeper = &keeper;
	/* Landlock answers a denied change EACCES; the LSM hooks answer EPERM. */
	holds.deny_errno = strcmp(ops->name, "landlock") == 0 ? EACCES : EPERM;
	if (wd_hold_rules_classes(&holds.rules) && start_holds(&holds, cg.name, pol.hold_io_uring))
		goto out_destroy_cgroup;
	if (o->prompt && holds.engine)
		prompter = start_prompt(cg.name);
	else if (o->prompt)
		log_info("run: --prompt: the policy holds nothing");
	/* After the keeper and the prompt are forked: neither holds the command's terminal. */
	err = wd_pty_open(&pty);
	if (err) {
		snprintf(msg, sizeof(msg), "cannot give the command a terminal of its own: %s",
			 strerror(-err));
		log_warnx("run: %s", msg);
		rep.error = msg;
		goto out_destroy_cgroup;
	}
	if (pty.master >= 0) {
		st.pty = &pty;
		holds.prompting = prompter > 0;
	}

	t0 = wd_clock_ns(CLOCK_MONOTONIC);
	t_start = wd_clock_ns(CLOCK_REALTIME);
	cctx = (struct child_ctx){ .ops = ops, .be = be };
	sopts = (struct wd_spawn_opts){ .cgroup_fd = cg.fd,
					.clone_flags = ops->clone_flags(be) | setup.clone_flags,
					.plan = &setup, .setup = child_setup, .setup_ctx = &cctx };
	sopts.join_after_setup = ops->refuses_mounts && (sopts.clone_flags & CLONE_NEWNS);
	sopts.survive = o->survive_s > 0;
	sopts.tty = pty.slave;
	sopts.tty_fds = pty.master >= 0 ? pty.slave_fds : 0;
	if (holds.engine) {
		sopts.notify = &holds.plan;
		sopts.notify_attach = holds_attach;
		sopts.notify_fds = holds_fds;
		sopts.notify_service = holds_service;
		sopts.notify_ctx = &holds;
	}
	err = wd_spawn(&sopts, o->argv, &child);
	if (err)
		goto out_destroy_cgroup;
	/* Written before any kernel record is read, dated before the first could be made. */
	wd_run_audit_write(&st, wd_audit_start_line(&st.actx, t_start, child.pid, o->argv));
	/* raw only for a command that runs: warden's own messages on failure read as usual */
	if (!child.setup_errno && !child.exec_errno)
		wd_pty_started(&pty);
	if (o->ready_fd > 0 && !child.setup_errno && !child.exec_errno) {
		dprintf(o->ready_fd, "%s\n", cg.name);
		close(o->ready_fd);
	}
	if (!child.setup_errno && !child.exec_errno) {
		/*
		 * What the keeper needs to write the exit record if it ends the sandbox itself,
		 * and a successor to take it over: from the init, how the command ended.
		 */
		int maps[2];

		ops->audit_maps(be, &maps[0], &maps[1]);
		fflush(st.audit);
		if ((child.status_fd >= 0 &&
		     wd_keeper_give(&keeper, WD_KEEP_STATUS, child.status_fd)) ||
		    wd_keeper_give(&keeper, WD_KEEP_EVENTS, maps[0]) ||
		    wd_keeper_give(&keeper, WD_KEEP_COUNTS, maps[1]) ||
		    wd_keeper_give(&keeper, WD_KEEP_AUDIT, fileno(st.audit)) ||
		    /* if warden dies, the pty lives on (no hang-up) for `warden adopt` to relay */
		    (o->survive_s && pty.master >= 0 &&
		     wd_keeper_give(&keeper, WD_KEEP_TERMINAL, pty.master)))
			log_warn("run: cannot give the keeper what a successor needs");
		tell_keeper(&keeper, &st, &pol, child.pid);
	}
	if (child.setup_errno) {
		wd_child_wait(&child, &si);
		rep.status = "failed_to_start";
		rc = WD_EXIT_INTERNAL;
		rep.exit_code = rc;
		snprintf(msg, sizeof(msg), "the %s sandbox could not be entered: %s", ops->name,
			 strerror(child.setup_errno));
		rep.error = msg;
		log_warnx("%s", msg);
	} else if (child.exec_errno) {
		wd_child_wait(&child, &si);
		rep.status = "failed_to_start";
		rep.start_errno = child.exec_errno;
		rc = child.exec_errno == ENOENT ? WD_EXIT_NOT_FOUND : WD_EXIT_CANNOT_EXEC;
		rep.exit_code = rc;
		log_warnx("%s: %s", o->argv[0], strerror(child.exec_errno));
	} else {
		err = supervise(&st, ops, be, NULL, &cg, &child, -1, sigfd, &holds, &si);
		if (err) {
			/* Could not watch the child: it must not run on unwatched. */
			wd_cgroup_kill(&cg);
			wd_child_wait(&child, &si);
		}
		rc = exit_code_of(&si, &rep.signal);
		rep.status = rep.signal ? "killed" : "completed";
		rep.exit_code = rc;
	}
	t_end = wd_clock_ns(CLOCK_MONOTONIC);
	rep.wall_time_s = (double)(t_end - t0) / 1e9;

out_destroy_cgroup:
	/* Whatever the command left behind dies with the sandbox. */
	wd_cgroup_destroy(&cg);
	/* Its last output, then the caller's terminal as it was, before warden says more. */
	wd_pty_drain(&pty);
	wd_pty_close(&pty);
	st.pty = NULL;
	/* The sandbox is gone: the keeper lets go of the rules it holds before they are removed. */
	wd_keeper_stop(&keeper);
	if (be)
		ops->consume(be);
	if (st.audit)
		fflush(st.audit);
	if (sandbox_added) {
		ops->sandbox_remove(be, cg.id, &rs, &final);
		rep.denials = final.denials;
		rep.lost_records = final.lost;
		if (final.lost)
			wd_run_audit_write(&st, wd_audit_lost_line(&st.actx, wd_clock_ns(CLOCK_REALTIME),
							    final.lost));
	}
	rep.holds = holds.held;
	if (rep.status) {
		wd_run_audit_write(&st, wd_audit_exit_line(&st.actx, wd_clock_ns(CLOCK_REALTIME), child.pid,
						    rep.status, rep.exit_code, rep.signal));
		if (report.fd >= 0 && wd_report_commit(&report, &rep))
			rc = rc ? rc : WD_EXIT_INTERNAL;
	}
	/* held calls of a sandbox that has gone have nobody left to answer */
	if (prompter > 0) {
		kill(prompter, SIGTERM);
		waitpid(prompter, NULL, 0);
	}
	wd_ctl_close(holds.ctl);
	wd_hold_engine_free(holds.engine);
	wd_child_close(&child);
out_stop_backend:
	if (be)
		ops->stop(be);
out_restore_sigs:
	if (sigfd >= 0)
		close(sigfd);
	sigprocmask(SIG_SETMASK, &oldsigs, NULL);
	wd_exe_cache_free(&st.exes);
out_free_rules:
	if (st.audit && st.audit != stderr)
		fclose(st.audit);
	if (!rep.status && report.fd >= 0) {
		/* Nothing ran; the report still says so, and why. */
		rep.status = "failed_to_start";
		rep.exit_code = rc;
		if (!rep.error)
			rep.error = "warden could not set the sandbox up (see its messages)";
		wd_report_commit(&report, &rep);
	}
	wd_out_close(&report);
	wd_hold_rules_free(&holds.rules);
	wd_setup_release(&setup);
	wd_ruleset_free(&rs);
	wd_policy_free(&pol);
	return rc;
}

/* Open the running sandbox @name's cgroup, as wd_cgroup_create() made it. */
static int cgroup_of(const char *name, struct wd_cgroup *cg)
{
	char root[PATH_MAX];
	int err = wd_cgroup_root(root, sizeof(root));

	memset(cg, 0, sizeof(*cg));
	cg->fd = -1;
	if (err)
		return err;
	if (strncmp(name, "sb-", 3) || strchr(name, '/') ||
	    (size_t)snprintf(cg->name, sizeof(cg->name), "%s", name) >= sizeof(cg->name) ||
	    (size_t)snprintf(cg->path, sizeof(cg->path), "%s/%s", root, name) >= sizeof(cg->path))
		return -EINVAL;
	cg->fd = open(cg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->fd < 0)
		return -errno;
	return wd_cgroup_id(cg->path, &cg->id);
}

/* The keeper's warden.keep/1 state: the policy (compiled into @rs) and the rest into @k. */
struct kept {
	const char *backend;
	int pid;
};

static int read_state(cJSON *state, const char *name, struct wd_policy *pol,
		      struct wd_ruleset *rs, struct kept *k, char *msg, size_t msgsz)
{
	cJSON *schema = cJSON_GetObjectItemCaseSensitive(state, "schema");
	cJSON *sb = cJSON_GetObjectItemCaseSensitive(state, "sandbox");
	cJSON *be = cJSON_GetObjectItemCaseSensitive(state, "backend");
	cJSON *pid = cJSON_GetObjectItemCaseSensitive(state, "pid");
	cJSON *p = cJSON_GetObjectItemCaseSensitive(state, "policy");
	struct wd_policy_error perr;
	char *text;
	int err;

	if (!cJSON_IsString(schema) || strcmp(schema->valuestring, "warden.keep/1") ||
	    !cJSON_IsString(sb) || strcmp(sb->valuestring, name) || !cJSON_IsString(be) ||
	    !cJSON_IsNumber(pid) || !cJSON_IsObject(p)) {
		snprintf(msg, msgsz, "the keeper of %s sent a state this warden does not read", name);
		return -EPROTO;
	}
	k->backend = be->valuestring;
	k->pid = pid->valueint;
	text = cJSON_PrintUnformatted(p);
	if (!text)
		return -ENOMEM;
	err = wd_policy_parse(text, strlen(text), pol, &perr);
	free(text);
	if (!err)
		err = wd_resolve_policy(pol);
	if (!err)
		err = wd_compile(pol, rs, &perr);
	if (err)
		wd_policy_error_format(&perr, "the sandbox's policy", msg, msgsz);
	return err;
}

/* Records of the sandbox that found the ring buffer full, from its kernel counters. */
static void lost_since(struct run_state *st, int counts, const struct wd_cgroup *cg)
{
	struct wd_sandbox sb;
	uint64_t id = cg->id;

	if (counts < 0 || bpf_map_lookup_elem(counts, &id, &sb) || !sb.lost)
		return;
	wd_run_audit_write(st, wd_audit_lost_line(&st->actx, wd_clock_ns(CLOCK_REALTIME), sb.lost));
}

/*
 * wd_keeper_adopt(), waiting up to @o->wait_ms for a supervisor still ending: its keeper renames
 * a listening socket over the name once it has seen it go, which inotify tells.
 */
static int adopt_when_let_in(const struct wd_adopt_opts *o, struct wd_keeper *k,
			     struct wd_adoption *a)
{
	uint64_t deadline = wd_clock_ns(CLOCK_MONOTONIC) + (uint64_t)o->wait_ms * 1000000;
	char name[64], ev[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int in, err;

	err = wd_keeper_adopt(o->sandbox, k, a);
	if (err != -ECONNREFUSED || !o->wait_ms)
		return err;
	snprintf(name, sizeof(name), "keep-%s.sock", o->sandbox);
	in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (in < 0 || inotify_add_watch(in, wd_run_dir(), IN_MOVED_TO | IN_CREATE) < 0) {
		if (in >= 0)
			close(in);
		return err;
	}
	/* watched first, then tried again: a rename in between is not missed */
	while ((err = wd_keeper_adopt(o->sandbox, k, a)) == -ECONNREFUSED) {
		bool ours = false;

		/* until the name is made again, or the time is up */
		while (!ours) {
			uint64_t now = wd_clock_ns(CLOCK_MONOTONIC);
			struct pollfd pfd = { .fd = in, .events = POLLIN };
			ssize_t n;

			if (now >= deadline ||
			    poll(&pfd, 1, (int)((deadline - now + 999999) / 1000000)) <= 0)
				goto out;
			while ((n = read(in, ev, sizeof(ev))) > 0)
				for (char *p = ev; p < ev + n;) {
					struct inotify_event *ie = (struct inotify_event *)p;

					ours |= ie->len && strcmp(ie->name, name) == 0;
					p += sizeof(*ie) + ie->len;
				}
		}
	}
out:
	close(in);
	return err;
}

int wd_adopt(const struct wd_adopt_opts *o)
{
	struct run_state st = { .audit = NULL };
	struct run_holds holds = { .engine = NULL };
	struct wd_keeper keeper = { .pid = -1, .sock = -1 };
	struct wd_adoption a = { .state = NULL };
	struct ring_buffer *rb = NULL;
	struct wd_cgroup cg = { .fd = -1 };
	struct wd_policy pol = { 0 };
	struct wd_ruleset rs = { 0 };
	struct kept k = { 0 };
	struct wd_pty pty = { .master = -1, .slave = -1, .in = -1, .out = -1, .tty = -1,
			      .winch = -1 };
	cJSON *state = NULL;
	pid_t prompter = -1;
	sigset_t oldsigs;
	siginfo_t si;
	char msg[1024];
	int err, sigfd = -1, events = -1, held = 0, rc = 1;
	size_t waiting;
	bool ended = false;

	err = adopt_when_let_in(o, &keeper, &a);
	if (err) {
		if (err == -ENOENT)
			log_warnx("adopt: no sandbox %s waits for a supervisor (no keeper socket "
				  "in %s; was it run with --survive?)", o->sandbox, wd_run_dir());
		else if (err == -ECONNREFUSED)
			log_warnx("adopt: sandbox %s has a supervisor (its keeper lets no one in)",
				  o->sandbox);
		else
			log_warnx("adopt: cannot take %s over from its keeper: %s", o->sandbox,
				  strerror(-err));
		return 1;
	}
	state = cJSON_Parse(a.state);
	err = state ? read_state(state, o->sandbox, &pol, &rs, &k, msg, sizeof(msg)) : -EPROTO;
	if (!state)
		snprintf(msg, sizeof(msg), "the keeper of %s sent a state that does not parse",
			 o->sandbox);
	if (!err) {
		err = wd_hold_rules_build(&pol, &holds.rules, msg, sizeof(msg));
		if (err && err != -EINVAL && err != -E2BIG)
			snprintf(msg, sizeof(msg), "%s", strerror(-err));
	}
	if (!err) {
		err = cgroup_of(o->sandbox, &cg);
		if (err)
			snprintf(msg, sizeof(msg), "cannot open the cgroup of %s: %s", o->sandbox,
				 strerror(-err));
	}
	if (!err) {
		events = openat(cg.fd, "cgroup.events", O_RDONLY | O_CLOEXEC);
		if (events < 0) {
			err = -errno;
			snprintf(msg, sizeof(msg), "cannot watch %.900s/cgroup.events: %s",
				 cg.path, strerror(errno));
		}
	}
	if (err) {
		/* The keeper keeps it: a later `warden adopt` may do better (or the keeper ends it). */
		log_warnx("adopt: %s", msg);
		goto out;
	}
	/*
	 * Where the run's records went, as the fd the keeper holds (never reopened by a name the
	 * sandbox might have changed since), or --audit FILE, checked as `warden run` checks it.
	 * Read too: the records go on numbering from the last one there.
	 */
	if (o->audit_path) {
		err = open_audit(&st.audit, &rs, o->audit_path);
		if (err)
			goto out;
	} else if (a.fds[WD_KEEP_AUDIT] >= 0) {
		int fd = fcntl(a.fds[WD_KEEP_AUDIT], F_DUPFD_CLOEXEC, 3);

		st.audit = fd >= 0 ? fdopen(fd, "a+") : NULL;
		if (!st.audit && fd >= 0)
			st.audit = fdopen(fd, "a"); /* a stream: write only */
		if (!st.audit) {
			log_warn("adopt: cannot write to the run's audit stream");
			if (fd >= 0)
				close(fd);
			goto out;
		}
	} else {
		log_warnx("adopt: the keeper of %s holds no audit stream; give --audit FILE",
			  o->sandbox);
		goto out;
	}
	sigfd = stop_signals(&oldsigs);
	if (sigfd < 0)
		goto out_sigs;
	st.actx.seq = wd_audit_next_seq(st.audit, o->sandbox);
	st.actx.backend = k.backend;
	st.actx.rules = &rs;
	st.actx.sandbox = cg.name;
	st.actx.boot_to_real_ns =
		(int64_t)wd_clock_ns(CLOCK_REALTIME) - (int64_t)wd_clock_ns(CLOCK_BOOTTIME);
	holds.st = &st;
	holds.keeper = &keeper;
	holds.deny_errno = strcmp(k.backend, "landlock") == 0 ? EACCES : EPERM;
	if (wd_hold_rules_classes(&holds.rules) &&
	    start_holds(&holds, cg.name, pol.hold_io_uring))
		goto out_sigs;
	/*
	 * The kernel's records went on into the ring buffer the keeper holds: read on from where
	 * the old supervisor stopped (what did not fit is counted, see lost_since()).
	 */
	waiting = 0;
	for (size_t i = 0; i < a.n_calls; i++)
		if (a.fds[WD_KEEP_LISTENER] >= 0 &&
		    !ioctl(a.fds[WD_KEEP_LISTENER], SECCOMP_IOCTL_NOTIF_ID_VALID, &a.calls[i].notif_id))
			a.calls[waiting++] = a.calls[i];
	a.n_calls = waiting;
	if (a.fds[WD_KEEP_EVENTS] >= 0) {
		rb = ring_buffer__new(a.fds[WD_KEEP_EVENTS], wd_run_on_record, &st, NULL);
		if (!rb)
			log_warn("adopt: cannot read the kernel's records of %s", cg.name);
	}
	wd_run_audit_write(&st, wd_audit_adopt_line(&st.actx, wd_clock_ns(CLOCK_REALTIME), a.n_calls,
					     rb != NULL));
	if (holds.engine && a.fds[WD_KEEP_LISTENER] >= 0) {
		/* the engine answers on it now; the keeper keeps its own copy */
		held = wd_hold_take_over(holds.engine, a.fds[WD_KEEP_LISTENER], a.calls, a.n_calls);
		if (held < 0)
			log_warnx("adopt: cannot take the waiting room over: %s",
				  strerror(-held));
	}
	log_info("adopt: supervising sandbox %s (%d held call(s) asked again)", cg.name,
		 held > 0 ? held : 0);
	if (o->prompt && holds.engine)
		prompter = start_prompt(cg.name);
	/* The command's terminal (run --survive on one): relayed here now. */
	if (a.fds[WD_KEEP_TERMINAL] >= 0 && wd_pty_attach(&pty, a.fds[WD_KEEP_TERMINAL]) == 0) {
		st.pty = &pty;
		holds.prompting = prompter > 0;
	}
	err = supervise(&st, NULL, NULL, rb, &cg, NULL, events, sigfd, &holds, &si);
	wd_pty_drain(&pty);
	wd_pty_close(&pty);
	st.pty = NULL;
	if (err)
		wd_cgroup_kill(&cg);
	ended = true;
	if (rb)
		ring_buffer__consume(rb);
	lost_since(&st, a.fds[WD_KEEP_COUNTS], &cg);
	/*
	 * How the command ended: from the sandbox's init, where it has one; otherwise that went
	 * with the supervisor that started it.
	 */
	memset(&si, 0, sizeof(si));
	if (a.fds[WD_KEEP_STATUS] >= 0 &&
	    wd_child_read_status(a.fds[WD_KEEP_STATUS], k.pid, &si) == 0) {
		int signo, code = exit_code_of(&si, &signo);

		wd_run_audit_write(&st, wd_audit_exit_line(&st.actx, wd_clock_ns(CLOCK_REALTIME), k.pid,
						    signo ? "killed" : "completed", code, signo));
	} else {
		wd_run_audit_write(&st, wd_audit_exit_line(&st.actx, wd_clock_ns(CLOCK_REALTIME), k.pid,
						    "ended", -1, 0));
	}
	rc = err ? 1 : 0;
out_sigs:
	if (prompter > 0) {
		kill(prompter, SIGTERM);
		waitpid(prompter, NULL, 0);
	}
	if (ended) {
		wd_cgroup_destroy(&cg);
		wd_keeper_stop(&keeper);
	}
	wd_ctl_close(holds.ctl);
	wd_hold_engine_free(holds.engine);
	ring_buffer__free(rb);
	if (sigfd >= 0)
		close(sigfd);
	sigprocmask(SIG_SETMASK, &oldsigs, NULL);
out:
	if (events >= 0)
		close(events);
	if (cg.fd >= 0)
		close(cg.fd);
	if (st.audit)
		fclose(st.audit);
	/* closing our end without "done" leaves the sandbox to its keeper, as a crash would */
	if (keeper.sock >= 0)
		close(keeper.sock);
	wd_exe_cache_free(&st.exes);
	wd_adoption_free(&a);
	cJSON_Delete(state);
	wd_hold_rules_free(&holds.rules);
	wd_ruleset_free(&rs);
	wd_policy_free(&pol);
	return rc;
}
