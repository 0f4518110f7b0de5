// SPDX-License-Identifier: GPL-2.0
/*
 * `warden run`: one sandboxed command, start to finish, as a short sequence of named steps
 * (wd_run). The parts it shares with `warden adopt` live beside it: sink.c (where a run writes),
 * holds.c (its holds), supervise.c (the run loop), records.c (kernel records to audit lines).
 */
#include <errno.h>
#include <malloc.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "audit/jsonl.h"
#include "policy/compile.h"
#include "policy/effective.h"
#include "policy/explain.h"
#include "supervisor/backend/backend.h"
#include "supervisor/hold/from_policy.h"
#include "supervisor/run/exe_cache.h"
#include "supervisor/run/holds.h"
#include "supervisor/run/keeper.h"
#include "supervisor/run/pty.h"
#include "supervisor/run/records.h"
#include "supervisor/run/dns.h"
#include "supervisor/run/report.h"
#include "supervisor/run/run.h"
#include "supervisor/run/sink.h"
#include "supervisor/run/supervise.h"
#include "supervisor/sandbox/cgroup.h"
#include "supervisor/sandbox/exit_status.h"
#include "supervisor/sandbox/resolve.h"
#include "supervisor/sandbox/setup.h"
#include "supervisor/sandbox/spawn.h"
#include "supervisor/util/log.h"

/* Everything one run makes, so each step can say what it made and the teardown undo it. */
struct run {
	const struct wd_run_opts *o;
	struct run_state st;
	struct wd_out_file report;
	struct wd_policy pol;
	struct wd_ruleset rs;
	struct wd_cgroup cg;
	struct wd_child child;
	struct wd_sandbox final;
	struct wd_report rep;
	const struct wd_backend_ops *ops;
	struct wd_backend *be;
	struct run_holds holds;
	struct wd_keeper keeper;
	struct wd_setup setup;
	struct wd_pty pty;
	struct run_dns *dns;
	pid_t prompter;
	sigset_t oldsigs;
	siginfo_t si;
	uint64_t t0;
	char msg[1024];
	int sigfd, rc;
	bool sandbox_added;
};

static void run_init(struct run *r, const struct wd_run_opts *o)
{
	memset(r, 0, sizeof(*r));
	r->o = o;
	r->report = (struct wd_out_file)WD_OUT_FILE_INIT;
	r->cg.fd = -1;
	r->child = (struct wd_child){ .pid = 0, .pidfd = -1, .status_fd = -1, .notify_fd = -1 };
	r->rep.argv = o->argv;
	r->keeper = (struct wd_keeper){ .pid = -1, .sock = -1 };
	r->setup.netns_fd = -1;
	r->pty = (struct wd_pty){ .master = -1, .slave = -1, .in = -1, .out = -1, .tty = -1,
				  .winch = -1 };
	r->prompter = -1;
	r->sigfd = -1;
	r->rc = WD_EXIT_INTERNAL;
}

/*
 * The effective policy (what it extends, the derived flags, its variables expanded), its paths
 * resolved and compiled. 0, or -errno with r->rc what warden exits with (said why; nothing is
 * left to free).
 */
static int prepare_policy(struct run *r)
{
	struct wd_policy_error perr;
	int err;

	err = wd_policy_load_effective(r->o->policy_path, r->o->derive, &r->pol, r->msg,
				       sizeof(r->msg));
	if (err) {
		log_warnx("%s", r->msg);
		wd_policy_free(&r->pol);
		r->rc = err == -ENOMEM ? WD_EXIT_INTERNAL : WD_EXIT_USAGE;
		return err;
	}
	/* Rules name what the kernel will see: symlinks in policy paths are followed first. */
	err = wd_resolve_policy(&r->pol);
	if (!err)
		err = wd_compile(&r->pol, &r->rs, &perr);
	if (err) {
		wd_policy_error_format(&perr, r->o->policy_path, r->msg, sizeof(r->msg));
		log_warnx("%s", r->msg);
		wd_policy_free(&r->pol);
		r->rc = err == -EINVAL ? WD_EXIT_USAGE : WD_EXIT_INTERNAL;
		return err;
	}
	return 0;
}

/*
 * The files warden will write, made and checked before anything else: a run whose report or
 * audit cannot be written (or would be in reach of the sandbox) never runs. 0 or -errno.
 */
static int open_sinks(struct run *r)
{
	int err;

	if (r->o->report_path) {
		err = wd_run_open_report(&r->report, &r->rs, r->o->report_path);
		if (err) {
			r->rc = err == -EPERM || err == -EINVAL ? WD_EXIT_USAGE : WD_EXIT_INTERNAL;
			return err;
		}
	}
	if (r->o->audit_path) {
		err = wd_run_open_audit(&r->st.audit, &r->rs, r->o->audit_path);
		if (err) {
			r->rep.error = "the audit file could not be opened (see warden's messages)";
			r->rc = err == -EPERM || err == -EINVAL ? WD_EXIT_USAGE : WD_EXIT_INTERNAL;
			return err;
		}
	}
	return 0;
}

/*
 * The backend, and all a policy needs before anything is spawned: refused parts, users,
 * environment, network, hold rules, the run directory its sockets go in. 0 or -errno.
 */
static int prepare_sandbox(struct run *r)
{
	const char *policy = r->o->policy_path;
	int err;

	r->ops = wd_backend_choose(r->o->backend, r->msg, sizeof(r->msg));
	if (!r->ops) {
		log_warnx("cannot run a sandbox here: %s", r->msg);
		r->rep.error = r->msg;
		return -ENOTSUP;
	}
	r->rep.backend = r->ops->name;
	/* A part this backend does not enforce is refused, never ignored. */
	if (wd_policy_refuse_unenforced(&r->pol, policy, r->ops->features, r->msg,
					sizeof(r->msg))) {
		log_warnx("%s (backend %s)", r->msg, r->ops->name);
		r->rep.error = r->msg;
		r->rc = WD_EXIT_USAGE;
		return -EINVAL;
	}
	/* Users looked up, environment built, network made: before anything is spawned. */
	err = wd_setup_prepare(&r->setup, &r->rs, r->msg, sizeof(r->msg));
	if (err) {
		log_warnx("%s: %s", policy, r->msg);
		r->rep.error = r->msg;
		r->rc = err == -EINVAL || err == -EOPNOTSUPP ? WD_EXIT_USAGE : WD_EXIT_INTERNAL;
		return err;
	}
	err = wd_hold_rules_build(&r->pol, &r->holds.rules, r->msg, sizeof(r->msg));
	if (err) {
		bool said = err == -EINVAL || err == -E2BIG;

		log_warnx("%s: %s", policy, said ? r->msg : strerror(-err));
		r->rep.error = said ? r->msg : NULL;
		r->rc = said ? WD_EXIT_USAGE : r->rc;
		return err;
	}
	r->holds.st = &r->st;
	/*
	 * Its sockets (holds, --survive) are where the CLI trusts to find them, and the probe's
	 * answers (probe_cache.h) are where every later run trusts them: whatever the run uses,
	 * no sandbox may write the run directory.
	 */
	err = wd_run_dir_usable(&r->rs);
	if (err) {
		r->rep.error = "the run directory is refused (see warden's messages)";
		r->rc = err == -EPERM ? WD_EXIT_USAGE : WD_EXIT_INTERNAL;
		return err;
	}
	/*
	 * Without --audit the records go to a file under the run directory, opened once the
	 * sandbox has its name, never to warden's standard error: the command writes there too,
	 * either as its own inherited fd 2 or, on a terminal, through the pty warden relays onto
	 * the same terminal, so it could print records of its own among warden's.
	 */
	return 0;
}

/*
 * The sandbox's cgroup exists: its audit sink, its entry in the backend, its keeper, its holds,
 * the prompt and the command's terminal. 0 or -errno; whatever was made is undone by
 * teardown_sandbox().
 */
static int confine(struct run *r)
{
	struct run_holds *holds = &r->holds;
	int err;

	r->st.actx.sandbox = r->cg.name;
	r->st.sandbox_id = r->cg.id;
	wd_setup_name(&r->setup, r->cg.name);
	r->rep.sandbox = r->cg.name;
	if (!r->st.audit && wd_run_open_default_sink(&r->st, &r->rs, r->cg.name)) {
		r->rep.error = "the audit file could not be made (see warden's messages)";
		return -EIO;
	}
	err = wd_run_dns_start(&r->dns, &r->pol, &r->rs, &r->st);
	if (err) {
		r->rep.error = "the sandbox's DNS forwarder could not start (see warden's messages)";
		return err;
	}
	err = r->ops->sandbox_add(r->be, r->cg.id, &r->pol, &r->rs);
	if (err)
		return err;
	r->sandbox_added = true;
	if (r->dns) {
		int fds[2];

		/* every backend's struct starts with its programs (backend.h) */
		wd_progs_net_maps(((struct wd_backend_base *)r->be)->progs, fds);
		wd_run_dns_bind(r->dns, fds, r->cg.id);
	}
	r->st.actx.backend_detail = r->ops->detail(r->be);
	/* From here on, if warden dies, the sandbox dies too: it never runs unconfined. */
	err = wd_keeper_start(&r->keeper, &r->cg, r->o->survive_s);
	if (err) {
		log_warnx("run: cannot start the keeper: %s", strerror(-err));
		return err;
	}
	holds->keeper = &r->keeper;
	/* Landlock answers a denied change EACCES; the LSM hooks answer EPERM. */
	holds->deny_errno = r->ops->deny_errno;
	if (wd_hold_rules_classes(&holds->rules)) {
		err = wd_run_holds_start(holds, r->cg.name, r->pol.hold_io_uring);
		if (err)
			return err;
	}
	if (r->o->prompt && holds->engine)
		r->prompter = wd_run_prompt_start(r->cg.name);
	else if (r->o->prompt)
		log_info("run: --prompt: the policy holds nothing");
	/* After the keeper and the prompt are forked: neither holds the command's terminal. */
	err = wd_pty_open(&r->pty);
	if (err) {
		snprintf(r->msg, sizeof(r->msg), "cannot give the command a terminal of its own: %s",
			 strerror(-err));
		log_warnx("run: %s", r->msg);
		r->rep.error = r->msg;
		return err;
	}
	if (r->pty.master >= 0) {
		r->st.pty = &r->pty;
		holds->prompting = r->prompter > 0;
	}
	return 0;
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

/*
 * What the keeper needs to write the exit record if it ends the sandbox itself, and a successor
 * to take it over: from the init, how the command ended.
 */
static void equip_keeper(struct run *r)
{
	int maps[2];

	r->ops->audit_maps(r->be, &maps[0], &maps[1]);
	fflush(r->st.audit);
	if ((r->child.status_fd >= 0 &&
	     wd_keeper_give(&r->keeper, WD_KEEP_STATUS, r->child.status_fd)) ||
	    wd_keeper_give(&r->keeper, WD_KEEP_EVENTS, maps[0]) ||
	    wd_keeper_give(&r->keeper, WD_KEEP_COUNTS, maps[1]) ||
	    wd_keeper_give(&r->keeper, WD_KEEP_AUDIT, fileno(r->st.audit)) ||
	    /* if warden dies, the pty lives on (no hang-up) for `warden adopt` to relay */
	    (r->o->survive_s && r->pty.master >= 0 &&
	     wd_keeper_give(&r->keeper, WD_KEEP_TERMINAL, r->pty.master)))
		log_warn("run: cannot give the keeper what a successor needs");
	tell_keeper(&r->keeper, &r->st, &r->pol, r->child.pid);
}

/* The child's side of the backend, between clone3 and execve. */
static int child_setup(void *ctx)
{
	struct run *r = ctx;

	return r->ops->child_setup(r->be);
}

/* The command, spawned in the sandbox and started (or failed to). 0 or -errno. */
static int spawn_command(struct run *r)
{
	struct wd_spawn_opts sopts;
	uint64_t t_start;
	bool started;
	int err;

	r->t0 = wd_clock_ns(CLOCK_MONOTONIC);
	t_start = wd_clock_ns(CLOCK_REALTIME);
	sopts = (struct wd_spawn_opts){ .cgroup_fd = r->cg.fd,
					.clone_flags = r->ops->clone_flags(r->be) |
						       r->setup.clone_flags,
					.plan = &r->setup, .setup = child_setup, .setup_ctx = r };
	sopts.join_after_setup = r->ops->refuses_mounts && (sopts.clone_flags & CLONE_NEWNS);
	sopts.survive = r->o->survive_s > 0;
	sopts.tty = r->pty.slave;
	sopts.tty_fds = r->pty.master >= 0 ? r->pty.slave_fds : 0;
	if (r->holds.engine)
		wd_run_holds_spawn_opts(&r->holds, &sopts);
	err = wd_spawn(&sopts, r->o->argv, &r->child);
	if (err)
		return err;
	/* Written before any kernel record is read, dated before the first could be made. */
	wd_run_audit_write(&r->st,
			   wd_audit_start_line(&r->st.actx, t_start, r->child.pid, r->o->argv));
	started = !r->child.setup_errno && !r->child.exec_errno;
	/* raw only for a command that runs: warden's own messages on failure read as usual */
	if (started)
		wd_pty_started(&r->pty);
	if (r->o->ready_fd > 0 && started) {
		dprintf(r->o->ready_fd, "%s\n", r->cg.name);
		close(r->o->ready_fd);
	}
	if (started)
		equip_keeper(r);
	return 0;
}

/* How the command ended (or why it never started), in the report and warden's exit code. */
static void supervise_command(struct run *r)
{
	struct run_records rec = { .ops = r->ops, .be = r->be };
	struct wd_exit_status how;

	if (r->child.setup_errno) {
		wd_child_wait(&r->child, &r->si);
		r->rep.status = "failed_to_start";
		r->rc = WD_EXIT_INTERNAL;
		r->rep.exit_code = r->rc;
		snprintf(r->msg, sizeof(r->msg), "the %s sandbox could not be entered: %s",
			 r->ops->name, strerror(r->child.setup_errno));
		r->rep.error = r->msg;
		log_warnx("%s", r->msg);
	} else if (r->child.exec_errno) {
		wd_child_wait(&r->child, &r->si);
		r->rep.status = "failed_to_start";
		r->rep.start_errno = r->child.exec_errno;
		r->rc = r->child.exec_errno == ENOENT ? WD_EXIT_NOT_FOUND : WD_EXIT_CANNOT_EXEC;
		r->rep.exit_code = r->rc;
		log_warnx("%s: %s", r->o->argv[0], strerror(r->child.exec_errno));
	} else {
		if (wd_run_supervise(&r->st, &rec, &r->cg, &r->child, -1, r->sigfd, &r->holds,
				     &r->si)) {
			/* Could not watch the child: it must not run on unwatched. */
			wd_cgroup_kill(&r->cg);
			wd_child_wait(&r->child, &r->si);
		}
		how = wd_exit_status_of(&r->si);
		r->rc = how.code;
		r->rep.signal = how.signo;
		r->rep.status = r->rep.signal ? "killed" : "completed";
		r->rep.exit_code = r->rc;
	}
	r->rep.wall_time_s = (double)(wd_clock_ns(CLOCK_MONOTONIC) - r->t0) / 1e9;
}

/*
 * The cgroup was made: whatever the command left behind dies with the sandbox, then the last
 * records, the exit record and the report; the holds and the prompt go.
 */
static void teardown_sandbox(struct run *r)
{
	struct run_records rec = { .ops = r->ops, .be = r->be };
	struct run_state *st = &r->st;

	wd_cgroup_destroy(&r->cg);
	/* Its last output, then the caller's terminal as it was, before warden says more. */
	wd_pty_drain(&r->pty);
	wd_pty_close(&r->pty);
	st->pty = NULL;
	/* The sandbox is gone: the keeper lets go of the rules it holds before they are removed. */
	wd_keeper_stop(&r->keeper);
	wd_run_records_drain(st, &rec);
	if (r->sandbox_added) {
		r->ops->sandbox_remove(r->be, r->cg.id, &r->rs, &r->final);
		r->rep.denials = r->final.denials;
		r->rep.lost_records = r->final.lost;
		if (r->final.lost)
			wd_run_audit_write(st, wd_audit_lost_line(&st->actx,
								  wd_clock_ns(CLOCK_REALTIME),
								  r->final.lost));
	}
	wd_run_dns_stop(r->dns);
	r->dns = NULL;
	r->rep.holds = r->holds.held;
	if (r->rep.status) {
		wd_run_audit_write(st, wd_audit_exit_line(&st->actx, wd_clock_ns(CLOCK_REALTIME),
							  r->child.pid, r->rep.status,
							  r->rep.exit_code, r->rep.signal));
		if (r->report.fd >= 0 && wd_report_commit(&r->report, &r->rep))
			r->rc = r->rc ? r->rc : WD_EXIT_INTERNAL;
	}
	wd_run_prompt_stop(r->prompter);
	wd_run_holds_close(&r->holds);
	wd_child_close(&r->child);
}

/* The sinks close; a report of a run where nothing ran still says so, and why. */
static void release(struct run *r)
{
	if (r->st.audit && r->st.audit != stderr)
		fclose(r->st.audit);
	if (!r->rep.status && r->report.fd >= 0) {
		r->rep.status = "failed_to_start";
		r->rep.exit_code = r->rc;
		if (!r->rep.error)
			r->rep.error = "warden could not set the sandbox up (see its messages)";
		wd_report_commit(&r->report, &r->rep);
	}
	wd_out_close(&r->report);
	wd_hold_rules_free(&r->holds.rules);
	wd_setup_release(&r->setup);
	wd_ruleset_free(&r->rs);
	wd_policy_free(&r->pol);
}

int wd_run(const struct wd_run_opts *o)
{
	struct run r;

	run_init(&r, o);
	if (prepare_policy(&r))
		return r.rc;
	if (open_sinks(&r) || prepare_sandbox(&r))
		goto out_release;
	r.sigfd = wd_run_stop_signals(&r.oldsigs);
	if (r.sigfd < 0)
		goto out_restore_sigs;
	r.st.actx.backend = r.ops->name;
	r.st.actx.rules = &r.rs;
	r.st.actx.boot_to_real_ns =
		(int64_t)wd_clock_ns(CLOCK_REALTIME) - (int64_t)wd_clock_ns(CLOCK_BOOTTIME);
	if (r.ops->start(&r.be, wd_run_on_record, &r.st))
		goto out_restore_sigs;
	/* the loader's BTF and object copies are freed: their pages go back before anything forks */
	malloc_trim(0);
	if (wd_cgroup_create(&r.cg))
		goto out_stop_backend;
	if (!confine(&r) && !spawn_command(&r))
		supervise_command(&r);
	teardown_sandbox(&r);
out_stop_backend:
	if (r.be)
		r.ops->stop(r.be);
out_restore_sigs:
	if (r.sigfd >= 0)
		close(r.sigfd);
	sigprocmask(SIG_SETMASK, &r.oldsigs, NULL);
	wd_exe_cache_free(&r.st.exes);
out_release:
	release(&r);
	return r.rc;
}
