// SPDX-License-Identifier: GPL-2.0
/*
 * `warden adopt`: a successor takes over a sandbox whose supervisor died (`warden run
 * --survive`), from its keeper: the policy, the audit stream, the waiting room and its journal
 * of held calls, the kernel's ring buffer, the command's terminal; then supervises it to its end.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/seccomp.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "audit/jsonl.h"
#include "policy/compile.h"
#include "policy/grow.h"
#include "policy/explain.h"
#include "supervisor/backend/backend.h"
#include "supervisor/bpf/events.h"
#include "supervisor/hold/from_policy.h"
#include "supervisor/run/exe_cache.h"
#include "supervisor/run/execs.h"
#include "supervisor/run/holds.h"
#include "supervisor/run/keeper.h"
#include "supervisor/run/pty.h"
#include "supervisor/run/records.h"
#include "supervisor/run/report.h"
#include "supervisor/run/run.h"
#include "supervisor/run/sink.h"
#include "supervisor/run/supervise.h"
#include "supervisor/sandbox/cgroup.h"
#include "supervisor/sandbox/limits.h"
#include "supervisor/sandbox/exit_status.h"
#include "supervisor/sandbox/resolve.h"
#include "supervisor/sandbox/spawn.h"
#include "supervisor/util/log.h"

/* The keeper's warden.keep/1 state: the policy (compiled into the ruleset) and the rest. */
struct kept {
	const char *backend;
	int pid;
};

/* Everything one adoption takes over or makes, for the steps and the teardown. */
struct adopt {
	const struct wd_adopt_opts *o;
	struct run_state st;
	struct run_holds holds;
	struct wd_keeper keeper;
	struct wd_adoption a;
	struct wd_events *ev;
	struct wd_cgroup cg;
	struct wd_policy pol;
	struct wd_ruleset rs;
	struct kept k;
	struct wd_pty pty;
	struct wd_limit_usage usage; /* the emptied sandbox's cgroup figures */
	struct wd_exit_status how; /* how the command ended, where its init said */
	bool have_how;
	cJSON *state;
	pid_t prompter;
	sigset_t oldsigs;
	char msg[1024];
	int sigfd, events;
};

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

/*
 * What the sandbox's backend answers a denied change, by the name its keeper kept: the
 * backend's own, or EPERM for one this warden does not know.
 */
static int deny_errno_of(const char *backend)
{
	static const struct wd_backend_ops *const known[] = { &wd_backend_bpf_lsm,
							      &wd_backend_landlock };

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(backend, known[i]->name) == 0)
			return known[i]->deny_errno;
	return EPERM;
}

/* Records of the sandbox that found the ring buffer full, from its kernel counters. */
static void lost_since(struct run_state *st, int counts, const struct wd_cgroup *cg)
{
	struct wd_sandbox sb;

	if (wd_events_sandbox_counts(counts, cg->id, &sb) || !sb.lost)
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

/* The keeper lets this process in, or it says why not. 0 or -errno. */
static int take_over(struct adopt *d)
{
	const char *name = d->o->sandbox;
	int err = adopt_when_let_in(d->o, &d->keeper, &d->a);

	if (err == -ENOENT)
		log_warnx("adopt: no sandbox %s waits for a supervisor (no keeper socket in %s; was "
			  "it run with --survive?)", name, wd_run_dir());
	else if (err == -ECONNREFUSED)
		log_warnx("adopt: sandbox %s has a supervisor (its keeper lets no one in)", name);
	else if (err)
		log_warnx("adopt: cannot take %s over from its keeper: %s", name, strerror(-err));
	return err;
}

/*
 * What the keeper kept, read back: the state and its policy, the hold rules, the cgroup and its
 * events file. 0, or -errno with d->msg saying why.
 */
static int read_kept(struct adopt *d)
{
	const char *name = d->o->sandbox;
	int err;

	d->state = cJSON_Parse(d->a.state);
	err = d->state ? read_state(d->state, name, &d->pol, &d->rs, &d->k, d->msg,
				    sizeof(d->msg)) : -EPROTO;
	if (!d->state)
		snprintf(d->msg, sizeof(d->msg), "the keeper of %s sent a state that does not parse",
			 name);
	if (!err) {
		err = wd_hold_rules_build(&d->pol, &d->holds.rules, d->msg, sizeof(d->msg));
		if (err && err != -EINVAL && err != -E2BIG)
			snprintf(d->msg, sizeof(d->msg), "%s", strerror(-err));
	}
	if (!err) {
		err = cgroup_of(name, &d->cg);
		if (err)
			snprintf(d->msg, sizeof(d->msg), "cannot open the cgroup of %s: %s", name,
				 strerror(-err));
	}
	if (!err) {
		d->events = openat(d->cg.fd, "cgroup.events", O_RDONLY | O_CLOEXEC);
		if (d->events < 0) {
			err = -errno;
			snprintf(d->msg, sizeof(d->msg), "cannot watch %.900s/cgroup.events: %s",
				 d->cg.path, strerror(errno));
		}
	}
	return err;
}

/*
 * Where the run's records went, as the fd the keeper holds (never reopened by a name the
 * sandbox might have changed since), or --audit FILE, checked as `warden run` checks it.
 * Read too: the records go on numbering from the last one there. 0 or -errno (said why).
 */
static int open_stream(struct adopt *d)
{
	int fd;

	if (d->o->audit_path)
		return wd_run_open_audit(&d->st.audit, &d->rs, d->o->audit_path);
	if (d->a.fds[WD_KEEP_AUDIT] < 0) {
		log_warnx("adopt: the keeper of %s holds no audit stream; give --audit FILE",
			  d->o->sandbox);
		return -ENOENT;
	}
	fd = fcntl(d->a.fds[WD_KEEP_AUDIT], F_DUPFD_CLOEXEC, 3);
	d->st.audit = fd >= 0 ? fdopen(fd, "a+") : NULL;
	if (!d->st.audit && fd >= 0)
		d->st.audit = fdopen(fd, "a"); /* a stream: write only */
	if (!d->st.audit) {
		log_warn("adopt: cannot write to the run's audit stream");
		if (fd >= 0)
			close(fd);
		return -EIO;
	}
	return 0;
}

/*
 * The call the dead supervisor had received and perhaps neither decided nor journaled: the kernel
 * never sends it again, so it is asked again with the journal's (from the page the keeper kept;
 * this supervisor receives into the same page).
 */
static void received_too(struct adopt *d, int listener)
{
	struct wd_hold_call c;

	if (!d->holds.engine || listener < 0 ||
	    wd_run_holds_receive_page(&d->holds, d->a.fds[WD_KEEP_RECEIVED]) ||
	    wd_hold_received_call(d->holds.recv_page, WD_RECV_PAGE, &c))
		return;
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &c.notif_id))
		return; /* answered before that supervisor died, or its task is gone */
	for (size_t i = 0; i < d->a.n_calls; i++)
		if (d->a.calls[i].notif_id == c.notif_id)
			return; /* journaled: held already */
	if (WD_GROW(d->a.calls, d->a.n_calls)) {
		log_warnx("adopt: out of memory: a call received before the take-over is not asked");
		return;
	}
	d->a.calls[d->a.n_calls++] = c;
	log_debug("adopt: asking again a call received but not decided (id %llu)",
		  (unsigned long long)c.notif_id);
}

/*
 * The run goes on here: the held calls still waiting asked again, the kernel's records read on
 * from where the old supervisor stopped (what did not fit is counted, see lost_since()), the
 * prompt and the command's terminal.
 */
static void resume(struct adopt *d)
{
	int listener = d->a.fds[WD_KEEP_LISTENER], held = 0, err;
	size_t waiting = 0;

	for (size_t i = 0; i < d->a.n_calls; i++)
		if (listener >= 0 &&
		    !ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &d->a.calls[i].notif_id))
			d->a.calls[waiting++] = d->a.calls[i];
	d->a.n_calls = waiting;
	received_too(d, listener);
	/* a keeper that kept no maps: the host's pinned set has them, found by the sandbox's id */
	if (d->a.fds[WD_KEEP_EVENTS] < 0 && d->a.fds[WD_KEEP_COUNTS] < 0 &&
	    wd_progs_find_maps(wd_progs_set_of(d->k.backend), d->cg.id, &d->a.fds[WD_KEEP_EVENTS],
			       &d->a.fds[WD_KEEP_COUNTS]))
		log_warnx("adopt: the pinned set has no maps for %s", d->cg.name);
	if (d->a.fds[WD_KEEP_EVENTS] >= 0) {
		err = wd_events_open(&d->ev, d->a.fds[WD_KEEP_EVENTS], wd_run_on_record, &d->st);
		if (err) {
			errno = -err;
			log_warn("adopt: cannot read the kernel's records of %s", d->cg.name);
		}
	}
	wd_run_audit_write(&d->st, wd_audit_adopt_line(&d->st.actx, wd_clock_ns(CLOCK_REALTIME),
						       d->a.n_calls, d->ev != NULL));
	/* the tokens handed out before stay good: each call asked again is signed as it was */
	if (d->holds.engine && d->a.fds[WD_KEEP_HOLD_KEY] >= 0 &&
	    (err = wd_hold_key_load(d->holds.engine, d->a.fds[WD_KEEP_HOLD_KEY])))
		log_warnx("adopt: the keeper's key for the hold tokens is unusable (%s): the calls "
			  "asked again get new tokens", strerror(-err));
	if (d->holds.engine && listener >= 0) {
		/* the engine answers on it now; the keeper keeps its own copy */
		held = wd_hold_take_over(d->holds.engine, listener, d->a.calls, d->a.n_calls);
		if (held < 0)
			log_warnx("adopt: cannot take the waiting room over: %s", strerror(-held));
	}
	log_info("adopt: supervising sandbox %s (%d held call(s) asked again)", d->cg.name,
		 held > 0 ? held : 0);
	if (d->o->prompt && d->holds.engine)
		d->prompter = wd_run_prompt_start(d->cg.name);
	/* The command's terminal (run --survive on one): relayed here now. */
	if (d->a.fds[WD_KEEP_TERMINAL] >= 0 &&
	    wd_pty_attach(&d->pty, d->a.fds[WD_KEEP_TERMINAL]) == 0) {
		d->st.pty = &d->pty;
		d->holds.prompting = d->prompter > 0;
	}
}

/*
 * How the command ended: from the sandbox's init, where it has one; otherwise that went with
 * the supervisor that started it.
 */
static void write_exit(struct adopt *d)
{
	uint64_t now = wd_clock_ns(CLOCK_REALTIME);
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (d->a.fds[WD_KEEP_STATUS] >= 0 &&
	    wd_child_read_status(d->a.fds[WD_KEEP_STATUS], d->k.pid, &si) == 0) {
		d->how = wd_exit_status_of(&si);
		d->have_how = true;
		wd_run_audit_write(&d->st, wd_audit_exit_line(&d->st.actx, now, d->k.pid,
							      d->how.signo ? "killed" : "completed",
							      d->how.code, d->how.signo));
	} else {
		wd_run_audit_write(&d->st, wd_audit_exit_line(&d->st.actx, now, d->k.pid, "ended",
							      -1, 0));
	}
}

/*
 * The sandbox's cgroup figures, read once it is empty and before it goes: cpu.stat always, the
 * memory and pids files where the v2 controllers are there (a hybrid host's v1 cgroups were
 * the first supervisor's to know).
 */
static void read_usage(struct adopt *d)
{
	struct wd_limits l = { 0 };

	l.v2_mem = faccessat(d->cg.fd, "memory.current", F_OK, 0) == 0;
	l.v2_pids = faccessat(d->cg.fd, "pids.current", F_OK, 0) == 0;
	wd_limits_read(&l, d->cg.fd, &d->usage);
}

/*
 * --report FILE of the run taken over: written into the file its warden made, which the keeper
 * kept (never its name looked up again), with what this supervisor knows; what it cannot know
 * is named in "unknown" (docs/report.md, "After warden").
 */
static void write_report(struct adopt *d)
{
	const struct wd_limit_usage *u = &d->usage;
	struct wd_report r = { .writer = "adopt", .reason = "taken over by warden adopt" };
	struct wd_out_file f;
	struct wd_sandbox sb;
	char **argv = NULL;

	if (wd_report_kept_file(&f, d->state, d->a.fds[WD_KEEP_REPORT],
				d->a.fds[WD_KEEP_REPORT_DIR]))
		return;
	if (wd_report_from_kept(&r, d->state, &argv)) {
		f.tmp[0] = 0;
		wd_out_close(&f);
		return;
	}
	if (d->have_how) {
		r.signal = d->how.signo;
		r.status = r.signal ? "killed" : "completed";
		r.exit_code = d->how.code;
	} else {
		/* no init to ask (the first supervisor reaped the command) */
		r.status = "completed";
		wd_report_unknown(&r, "status");
		wd_report_unknown(&r, "exit_code");
	}
	wd_report_usage(&r, u);
	if (wd_events_sandbox_counts(d->a.fds[WD_KEEP_COUNTS], d->cg.id, &sb) == 0) {
		r.denials = sb.denials;
		r.lost_records = sb.lost;
	} else {
		wd_report_unknown(&r, "denials");
		wd_report_unknown(&r, "lost_records");
	}
	/* those of the supervisors before this one went with them */
	r.holds = d->holds.held;
	wd_report_unknown(&r, "holds");
	wd_report_commit(&f, &r);
	free(argv);
}

/* Supervised to its end: the last records, what was lost, the exit record. 0 or -errno. */
static int supervise_to_end(struct adopt *d)
{
	struct run_records rec = { .ev = d->ev };
	siginfo_t si;
	int err;

	err = wd_run_supervise(&d->st, &rec, &d->cg, NULL, d->events, d->sigfd, &d->holds, &si);
	wd_pty_drain(&d->pty);
	wd_pty_close(&d->pty);
	d->st.pty = NULL;
	if (err)
		wd_cgroup_kill(&d->cg);
	wd_run_records_drain(&d->st, &rec);
	lost_since(&d->st, d->a.fds[WD_KEEP_COUNTS], &d->cg);
	write_exit(d);
	wd_cgroup_drain(&d->cg);
	read_usage(d);
	return err;
}

/*
 * To the wardend that started us (wd_adopt_opts.hand_fd): what the run's wardend gave the keeper
 * to carry it on (its request's state, the read ends of the command's output), once the held
 * calls are held again and the holds socket serves. Sent whatever it holds, then closed: its
 * end says the take-over is done.
 */
static void hand_over(struct adopt *d)
{
	static const char *const names[2] = { "stdout", "stderr" };
	const cJSON *dst = cJSON_GetObjectItemCaseSensitive(d->state, "daemon");
	cJSON *m = cJSON_CreateObject(), *arr = m ? cJSON_AddArrayToObject(m, "fds") : NULL;
	int fds[2], n = 0;
	char *text;

	if (d->o->hand_fd <= 2)
		return;
	for (int i = 0; arr && i < 2; i++)
		if (d->a.fds[WD_KEEP_STDOUT + i] >= 0) {
			fds[n++] = d->a.fds[WD_KEEP_STDOUT + i];
			cJSON_AddItemToArray(arr, cJSON_CreateString(names[i]));
		}
	if (m && cJSON_IsObject(dst))
		cJSON_AddItemToObject(m, "daemon", cJSON_Duplicate(dst, true));
	text = m ? cJSON_PrintUnformatted(m) : NULL;
	if (!text || wd_execs_send(d->o->hand_fd, text, fds, n) < 0)
		log_warn("adopt: cannot hand the run's output over to wardend");
	free(text);
	cJSON_Delete(m);
	close(d->o->hand_fd);
}

static void adopt_init(struct adopt *d, const struct wd_adopt_opts *o)
{
	memset(d, 0, sizeof(*d));
	d->o = o;
	d->keeper = (struct wd_keeper){ .pid = -1, .sock = -1 };
	for (int i = 0; i < WD_KEEP_NFDS; i++)
		d->a.fds[i] = -1;
	d->cg.fd = -1;
	d->pty = (struct wd_pty){ .master = -1, .slave = -1, .in = -1, .out = -1, .tty = -1,
				  .winch = -1 };
	d->prompter = -1;
	d->sigfd = -1;
	d->events = -1;
}

/* What was read back or opened goes; the sandbox stays with its keeper unless it ended. */
static void adopt_release(struct adopt *d)
{
	if (d->events >= 0)
		close(d->events);
	if (d->cg.fd >= 0)
		close(d->cg.fd);
	if (d->st.audit)
		fclose(d->st.audit);
	/* closing our end without "done" leaves the sandbox to its keeper, as a crash would */
	if (d->keeper.sock >= 0)
		close(d->keeper.sock);
	wd_exe_cache_free(&d->st.exes);
	wd_adoption_free(&d->a);
	cJSON_Delete(d->state);
	wd_hold_rules_free(&d->holds.rules);
	wd_ruleset_free(&d->rs);
	wd_policy_free(&d->pol);
}

int wd_adopt(const struct wd_adopt_opts *o)
{
	struct adopt d;
	bool ended = false;
	int rc = 1;

	adopt_init(&d, o);
	if (take_over(&d))
		return 1;
	if (read_kept(&d)) {
		/* The keeper keeps it: a later `warden adopt` may do better (or the keeper ends it). */
		log_warnx("adopt: %s", d.msg);
		goto out;
	}
	if (open_stream(&d))
		goto out;
	d.sigfd = wd_run_stop_signals(&d.oldsigs);
	if (d.sigfd < 0)
		goto out_sigs;
	d.st.actx.seq = wd_audit_next_seq(d.st.audit, o->sandbox);
	d.st.actx.backend = d.k.backend;
	d.st.actx.rules = &d.rs;
	d.st.actx.sandbox = d.cg.name;
	d.st.sandbox_id = d.cg.id;
	d.st.actx.boot_to_real_ns =
		(int64_t)wd_clock_ns(CLOCK_REALTIME) - (int64_t)wd_clock_ns(CLOCK_BOOTTIME);
	d.holds.st = &d.st;
	d.holds.keeper = &d.keeper;
	d.holds.deny_errno = deny_errno_of(d.k.backend);
	if (wd_hold_rules_classes(&d.holds.rules) &&
	    wd_run_holds_start(&d.holds, d.cg.name, d.pol.hold_io_uring, true))
		goto out_sigs;
	resume(&d);
	hand_over(&d);
	rc = supervise_to_end(&d) ? 1 : 0;
	ended = true;
out_sigs:
	wd_run_prompt_stop(d.prompter);
	if (ended) {
		wd_limits_remove_for(&d.cg);
		wd_cgroup_destroy(&d.cg);
		wd_keeper_stop(&d.keeper);
		/* the keeper let go: nobody else writes the report now */
		write_report(&d);
		/* its entries leave the host's pinned set; the last one out unpins it */
		wd_progs_forget(wd_progs_set_of(d.k.backend), d.cg.id);
	}
	wd_run_holds_close(&d.holds);
	wd_events_free(d.ev);
	if (d.sigfd >= 0)
		close(d.sigfd);
	sigprocmask(SIG_SETMASK, &d.oldsigs, NULL);
out:
	adopt_release(&d);
	return rc;
}
