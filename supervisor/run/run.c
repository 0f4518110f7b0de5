// SPDX-License-Identifier: GPL-2.0
/*
 * `warden run`: one sandboxed command, start to finish, as a short sequence of named steps
 * (wd_run). The parts it shares with `warden adopt` live beside it: sink.c (where a run writes),
 * holds.c (its holds), supervise.c (the run loop), records.c (kernel records to audit lines).
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <dirent.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cJSON.h>

#include "audit/jsonl.h"
#include "policy/compile.h"
#include "policy/effective.h"
#include "policy/explain.h"
#include "supervisor/backend/backend.h"
#include "supervisor/backend/landlock_ruleset.h"
#include "supervisor/hold/from_policy.h"
#include "supervisor/hold/holds_socket.h"
#include "supervisor/run/exe_cache.h"
#include "supervisor/run/execs.h"
#include "supervisor/run/holds.h"
#include "supervisor/run/keeper.h"
#include "supervisor/run/output.h"
#include "supervisor/run/pty.h"
#include "supervisor/run/records.h"
#include "supervisor/run/dns.h"
#include "supervisor/run/report.h"
#include "supervisor/run/run.h"
#include "supervisor/run/sink.h"
#include "supervisor/run/spare.h"
#include "supervisor/run/status.h"
#include "supervisor/run/supervise.h"
#include "supervisor/sandbox/cgroup.h"
#include "supervisor/sandbox/exit_status.h"
#include "supervisor/sandbox/limits.h"
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
	/* limits.fork_rate's counters, read with the other figures (fork_read: there were some) */
	struct wd_fork fork;
	bool fork_read;
	struct wd_cgroup cg;
	struct wd_child child;
	struct run_status status;
	int disk_fd; /* limits.disk: the sandbox's private /tmp (O_PATH), read at the end */
	struct wd_sandbox final;
	struct wd_report rep;
	const struct wd_backend_ops *ops;
	struct wd_backend *be;
	struct run_holds holds;
	struct wd_keeper keeper;
	struct wd_setup setup;
	struct wd_pty pty;
	struct wd_output out;
	struct wd_cg_layout_info layout;
	struct wd_limits lim;
	struct run_limits rl;
	struct run_dns *dns;
	pid_t prompter;
	sigset_t oldsigs;
	siginfo_t si;
	uint64_t t0;
	char msg[1024];
	int sigfd, rc;
	bool sandbox_added;
	/* a persistent sandbox: its commands, where they start, and why it ended */
	struct wd_execs execs;
	struct wd_execs_ops exec_ops;
	char cwd[PATH_MAX];
	uint64_t enter_ns;
	const char *end_why;
	/* a spare: its command's half-made spawn, the claim, and the options it completes */
	struct wd_spawn_pending pending;
	struct wd_spare_claim claim;
	struct wd_run_opts claimed;
	char spare_hash[65];
};

static void run_init(struct run *r, const struct wd_run_opts *o)
{
	memset(r, 0, sizeof(*r));
	r->o = o;
	r->report = (struct wd_out_file)WD_OUT_FILE_INIT;
	r->cg.fd = -1;
	r->child = (struct wd_child){ .pid = 0, .pidfd = -1, .status_fd = -1, .notify_fd = -1 };
	r->disk_fd = -1;
	r->status.timer = -1;
	r->rep.argv = o->argv;
	r->keeper = (struct wd_keeper){ .pid = -1, .sock = -1 };
	r->setup.netns_fd = -1;
	r->pty = (struct wd_pty){ .master = -1, .slave = -1, .in = -1, .out = -1, .tty = -1,
				  .winch = -1 };
	wd_output_init(&r->out);
	r->prompter = -1;
	wd_limits_init(&r->lim);
	r->rl = (struct run_limits){ .l = &r->lim, .wall_fd = -1, .sample_fd = -1, .grace_fd = -1 };
	r->sigfd = -1;
	r->rc = WD_EXIT_INTERNAL;
	r->execs = (struct wd_execs){ .sock = o->persistent ? o->exec_fd : -1, .idle_fd = -1,
				      .timeout_fd = -1 };
	r->pending = (struct wd_spawn_pending){ -1, -1 };
	for (int k = 0; k < WD_SPARE_FDS; k++)
		r->claim.fd[k] = -1;
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
	/* a spare's, as wardend hashes a request's policy: before its paths are resolved */
	if (r->o->spare_fd > 0 && wd_spare_policy_hash(&r->pol, r->spare_hash))
		r->spare_hash[0] = 0;
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
		/* a backend that does not exist is a usage error, one that cannot run here is not */
		if (strcmp(r->o->backend, "auto") && !wd_backend_named(r->o->backend))
			r->rc = WD_EXIT_USAGE;
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
	/* The host's cgroups: a limit no mechanism here can apply is refused now. */
	wd_cg_layout_find(&r->layout, true);
	if ((r->rs.limits_set & (1u << WD_LIMIT_CPU)) && !r->layout.v2_ctrl[WD_CTRL_CPU] &&
	    !r->layout.v1[WD_CTRL_CPU][0]) {
		snprintf(r->msg, sizeof(r->msg), "%s: /limits/cpu: no cpu controller here (%s), "
			 "and no rlimit holds a CPU quota", policy,
			 wd_cg_layout_name(r->layout.layout));
		log_warnx("%s", r->msg);
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
	err = wd_limits_apply(&r->lim, &r->layout, &r->cg, &r->rs, r->msg, sizeof(r->msg));
	if (err) {
		log_warnx("run: %s", r->msg);
		r->rep.error = r->msg;
		return err;
	}
	/* a spare's sinks are its claim's (spawn_spare) */
	if (r->o->spare_fd <= 0 && !r->st.audit &&
	    wd_run_open_default_sink(&r->st, &r->rs, r->cg.name)) {
		r->rep.error = "the audit file could not be made (see warden's messages)";
		return -EIO;
	}
	err = wd_run_dns_start(&r->dns, &r->pol, &r->rs, &r->st, &r->setup.veth);
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
		/* a spare's socket once it is claimed (spawn_spare): nobody answers it before */
		err = wd_run_holds_start(holds, r->cg.name, r->pol.hold_io_uring,
					 r->o->spare_fd <= 0);
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

static const char *const limit_units[WD_LIMIT_NR] = {
	[WD_LIMIT_WALL_TIME] = "ms", [WD_LIMIT_CPU_TIME] = "ms",  [WD_LIMIT_MEMORY] = "bytes",
	[WD_LIMIT_PIDS] = "tasks",   [WD_LIMIT_FORK_RATE] = "forks", [WD_LIMIT_OUTPUT] = "bytes",
	[WD_LIMIT_CPU] = "millicpus", [WD_LIMIT_KILL_GRACE] = "ms", [WD_LIMIT_DISK] = "bytes",
};

/* limits.fork_rate's unit: the value is new processes per second, minute or hour as written. */
static const char *fork_rate_unit(uint64_t per_ms)
{
	switch (per_ms) {
	case 1000:
		return "forks/s";
	case 60000:
		return "forks/m";
	default:
		return "forks/h";
	}
}

/* Limit @k as applied, for the report of a run warden does not see to its end. */
static cJSON *kept_limit(const struct run *r, int k)
{
	cJSON *l = cJSON_CreateObject();

	if (!l)
		return NULL;
	cJSON_AddStringToObject(l, "name", wd_limit_name((enum wd_limit_kind)k));
	cJSON_AddNumberToObject(l, "value", (double)r->rs.limit[k]);
	if (k == WD_LIMIT_FORK_RATE) {
		cJSON_AddStringToObject(l, "unit", fork_rate_unit(r->rs.limit_per_ms[k]));
		cJSON_AddStringToObject(l, "mechanism", r->sandbox_added ?
					"bpf-lsm task_alloc: a token bucket" : "");
	} else {
		cJSON_AddStringToObject(l, "unit", limit_units[k]);
		cJSON_AddStringToObject(l, "mechanism", r->lim.mech[k] ? r->lim.mech[k] : "");
	}
	return l;
}

/*
 * What the keeper needs to end the audit stream if warden dies, and a successor to take the
 * sandbox on (`warden run --survive`), as a warden.keep/1 object: the effective policy itself,
 * so a file changed or removed since does not matter.
 */
static void tell_keeper(struct run *r)
{
	cJSON *o = cJSON_CreateObject(), *p = wd_policy_to_json(&r->pol), *a, *ls, *rep;
	char *text = NULL;
	int err = -ENOMEM;

	if (o && p) {
		cJSON_AddStringToObject(o, "schema", "warden.keep/1");
		cJSON_AddStringToObject(o, "sandbox", r->st.actx.sandbox);
		cJSON_AddStringToObject(o, "backend", r->st.actx.backend);
		cJSON_AddNumberToObject(o, "pid", r->child.pid);
		/* the audit file itself goes to the keeper as an fd (WD_KEEP_AUDIT), never a path */
		cJSON_AddItemToObject(o, "policy", p);
		p = NULL;
		/* what the report of a run warden does not see to its end can still say */
		cJSON_AddNumberToObject(o, "started_ns", (double)r->t0);
		a = cJSON_AddArrayToObject(o, "argv");
		for (size_t i = 0; a && r->o->argv[i]; i++)
			cJSON_AddItemToArray(a, cJSON_CreateString(r->o->argv[i]));
		ls = cJSON_AddArrayToObject(o, "limits");
		for (int k = 0; ls && k < WD_LIMIT_NR; k++)
			if (r->rs.limits_set & (1u << k))
				cJSON_AddItemToArray(ls, kept_limit(r, k));
		/* wardend's, for the next one if it dies: handed over by a successor as it was */
		if (r->o->daemon_state && (rep = cJSON_Parse(r->o->daemon_state)))
			cJSON_AddItemToObject(o, "daemon", rep);
		/* the file goes as fds (WD_KEEP_REPORT*); its name in the pinned directory */
		if (r->report.fd >= 0 && (rep = cJSON_AddObjectToObject(o, "report"))) {
			cJSON_AddStringToObject(rep, "name", r->report.name);
			cJSON_AddStringToObject(rep, "tmp", r->report.tmp);
			cJSON_AddStringToObject(rep, "path", r->report.path);
		}
		text = cJSON_PrintUnformatted(o);
	}
	if (text)
		err = wd_keeper_state(&r->keeper, text);
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
	     wd_keeper_give(&r->keeper, WD_KEEP_TERMINAL, r->pty.master)) ||
	    /* a streamed run's output outlives wardend: the next one reads on */
	    (r->o->survive_s && r->o->keep_out[0] > 2 &&
	     wd_keeper_give(&r->keeper, WD_KEEP_STDOUT, r->o->keep_out[0])) ||
	    (r->o->survive_s && r->o->keep_out[1] > 2 &&
	     wd_keeper_give(&r->keeper, WD_KEEP_STDERR, r->o->keep_out[1])) ||
	    (r->report.fd >= 0 &&
	     (wd_keeper_give(&r->keeper, WD_KEEP_REPORT, r->report.fd) ||
	      wd_keeper_give(&r->keeper, WD_KEEP_REPORT_DIR, r->report.dirfd))))
		log_warn("run: cannot give the keeper what a successor needs");
	tell_keeper(r);
}

/*
 * Before the command may exec (wd_spawn_opts.before_exec): the keeper gets what it needs, so a
 * warden killed at any point after the command's first instruction leaves a sandbox its keeper
 * can end with an exit record, or hand to a successor (--survive).
 */
static void keeper_before_exec(void *ctx)
{
	equip_keeper(ctx);
}

/* The command's own cgroups v1 and rlimits, as soon as it is in its cgroup. */
static int child_join(void *ctx)
{
	struct run *r = ctx;

	return wd_limits_child_join(&r->lim);
}

/* The child's side of the backend, between clone3 and execve. */
static int child_setup(void *ctx)
{
	struct run *r = ctx;

	return r->ops->child_setup(r->be);
}

/* The run loop's limits over time, from the command's start. */
static void start_limits(struct run *r)
{
	const struct wd_ruleset *rs = &r->rs;

	if (rs->limits_set & (1u << WD_LIMIT_WALL_TIME))
		r->rl.wall_ms = rs->limit[WD_LIMIT_WALL_TIME];
	if (rs->limits_set & (1u << WD_LIMIT_CPU_TIME))
		r->rl.cpu_usec = rs->limit[WD_LIMIT_CPU_TIME] * 1000;
	if (rs->limits_set & (1u << WD_LIMIT_KILL_GRACE))
		r->rl.grace_ms = rs->limit[WD_LIMIT_KILL_GRACE];
	/* without its timers, a limit would not hold: the sandbox does not run on */
	if (wd_run_limits_start(&r->rl))
		wd_cgroup_kill(&r->cg);
	r->st.lim = &r->rl;
}

/*
 * limits.output: the command's fds 1 and 2 that are not its terminal become pipes the run loop
 * reads; on its terminal, the relay counts against the same cap. Without it, a streamed run's
 * command gets wardend's pipes (wd_run_opts.out_fd) as they are. 0 or -errno.
 */
static int open_output(struct run *r, struct wd_spawn_opts *so)
{
	unsigned int tty = r->pty.master >= 0 ? r->pty.slave_fds : 0;
	int err;

	if (!(r->rs.limits_set & (1u << WD_LIMIT_OUTPUT))) {
		/* a streamed run's: the command writes into wardend's pipes itself */
		for (int fd = 1; fd < 3; fd++)
			if (r->o->out_fd[fd] > 2 && !(tty & (1u << fd))) {
				so->out[fd] = r->o->out_fd[fd];
				so->out_fds |= 1u << fd;
			}
		return 0;
	}
	err = wd_output_open(&r->out, r->rs.limit[WD_LIMIT_OUTPUT], tty, r->o->out_fd);
	if (err) {
		snprintf(r->msg, sizeof(r->msg), "/limits/output: cannot pipe the command's output: "
			 "%s", strerror(-err));
		r->rep.error = r->msg;
		return err;
	}
	wd_output_child_fds(&r->out, so->out);
	so->out_fds = r->out.fds;
	r->st.out = &r->out;
	if (r->pty.master >= 0)
		r->pty.cap = &r->out;
	return 0;
}

/*
 * limits.disk: the sandbox's private /tmp, held open (O_PATH) so that its tmpfs can still be
 * asked at the end, once the sandbox and its mount namespace are gone. The mount was made
 * before the exec; the sandbox cannot unmount or move it (no CAP_SYS_ADMIN).
 */
static void open_disk(struct run *r)
{
	char path[64];
	struct statfs sf;

	if (!(r->rs.limits_set & (1u << WD_LIMIT_DISK)))
		return;
	snprintf(path, sizeof(path), "/proc/%d/root/tmp", (int)r->child.pid);
	r->disk_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (r->disk_fd >= 0 && (fstatfs(r->disk_fd, &sf) || sf.f_type != TMPFS_MAGIC)) {
		close(r->disk_fd);
		r->disk_fd = -1;
	}
	if (r->disk_fd < 0)
		log_warnx("run: cannot watch the private /tmp of %s: its report says nothing of "
			  "limits.disk's use", r->cg.name);
}

/* limits.disk at the end: what is left on the tmpfs, and whether it was full (blocks or inodes). */
static void disk_take(const struct run *r, struct wd_report_limit *l)
{
	struct statfs sf;

	if (r->disk_fd < 0 || fstatfs(r->disk_fd, &sf))
		return;
	l->have_figure = true;
	l->figure = (uint64_t)(sf.f_blocks - sf.f_bfree) * (uint64_t)sf.f_bsize;
	l->figure_unit = "bytes_at_end";
	l->hit = sf.f_bfree == 0 || sf.f_ffree == 0;
}

/* @base's environment with @add (NAME=VALUE) over it, for one exec: malloc'd, or NULL. */
static char **env_with(char *const *base, char *const *add)
{
	size_t n = 0, m = 0, k;
	char **v;

	while (base && base[n])
		n++;
	while (add && add[m])
		m++;
	v = calloc(n + m + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		v[i] = base[i];
	k = n;
	for (size_t j = 0; j < m; j++) {
		size_t len = strcspn(add[j], "=") + 1;
		size_t i;

		for (i = 0; i < n; i++)
			if (!strncmp(v[i], add[j], len))
				break;
		if (i < n)
			v[i] = add[j];
		else
			v[k++] = add[j];
	}
	return v;
}

/* execs.h: one exec, spawned into the persistent sandbox as its first command was. */
static int exec_spawn(void *ctx, char *const argv[], char *const env[], const char *cwd,
		      const int fds[3], const struct wd_exec_transfer *t, struct wd_child *out)
{
	struct run *r = ctx;
	struct wd_setup plan = r->setup;
	struct wd_spawn_opts so = { .cgroup_fd = r->cg.fd, .plan = &plan, .setup = child_setup,
				    .setup_ctx = r, .join = child_join, .join_ctx = r,
				    .enter_pidfd = r->child.pidfd, .enter_ns = r->enter_ns,
				    .enter_cwd = cwd ? cwd : r->cwd, .in_fd = fds[0],
				    .out = { -1, fds[1], fds[2] }, .out_fds = 6,
				    .transfer = t->kind, .transfer_path = t->path,
				    .transfer_mode = t->mode };
	int err;

	plan.envp = env_with(r->setup.envp, env);
	if (!plan.envp)
		return -ENOMEM;
	/* its own waiting room: the engine listens to every exec's */
	if (r->holds.engine)
		wd_run_holds_exec_opts(&r->holds, &so);
	err = wd_spawn_enter(&so, argv, out);
	free(plan.envp);
	/*
	 * That child built its rules in a tree nothing of the sandbox's had touched; from now on
	 * its commands may have changed it (landlock_ruleset.h).
	 */
	wd_landlock_paths_strict();
	return err;
}

/* execs.h: the sandbox's processes (as the host numbers them) and what it uses now. */
/*
 * "policy_sha256": the SHA-256 of the policy the sandbox runs, as the keeper gets it (the
 * effective warden.policy/1 document, variables expanded, printed compactly): two sandboxes
 * with the same hash are confined alike, whatever files their policies came from.
 */
static void policy_hash(struct run *r, cJSON *into)
{
	char hex[65];

	if (!wd_spare_policy_hash(&r->pol, hex))
		cJSON_AddStringToObject(into, "policy_sha256", hex);
}

static void exec_inspect(void *ctx, cJSON *into)
{
	struct run *r = ctx;
	cJSON *procs = cJSON_AddArrayToObject(into, "processes");
	struct wd_limit_usage u;
	int fd = openat(r->cg.fd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	long pid;
	cJSON *o;

	while (f && fscanf(f, "%ld", &pid) == 1)
		cJSON_AddItemToArray(procs, cJSON_CreateNumber((double)pid));
	if (f)
		fclose(f);
	else if (fd >= 0)
		close(fd);
	wd_limits_read(&r->lim, r->cg.fd, &u);
	o = cJSON_AddObjectToObject(into, "usage");
	cJSON_AddNumberToObject(o, "cpu_usec", (double)u.cpu_usec);
	if (u.have_mem)
		cJSON_AddNumberToObject(o, "memory_bytes", (double)u.mem_current);
	if (u.have_pids)
		cJSON_AddNumberToObject(o, "pids", (double)u.pids_current);
	cJSON_AddStringToObject(into, "backend", r->ops->name);
	policy_hash(r, into);
	cJSON_AddStringToObject(into, "cwd", r->cwd);
	/* what waits for a decision now, as the holds socket lists it; none without hold rules */
	if (r->holds.engine)
		cJSON_AddItemToObject(into, "holds", wd_hold_list_json(r->holds.engine, r->cg.name));
	cJSON_AddNumberToObject(into, "uptime_ms",
				(double)((wd_clock_ns(CLOCK_MONOTONIC) - r->t0) / 1000000));
}

/* execs.h: the sandbox ends (idle, or destroyed): every task of it, then its init. */
static void exec_end(void *ctx, const char *why)
{
	struct run *r = ctx;

	if (!r->end_why)
		r->end_why = why;
	log_info("run: sandbox %s ends (%s)", r->cg.name, why);
	wd_cgroup_kill(&r->cg);
	if (r->child.pidfd >= 0)
		syscall(SYS_pidfd_send_signal, r->child.pidfd, SIGKILL, NULL, 0);
}

static const struct wd_execs_ops exec_ops = { .spawn = exec_spawn, .inspect = exec_inspect,
					      .end = exec_end };

/*
 * A spare's command (supervisor/run/spare.h): the sandbox made up to its exec, wardend told, the
 * claim awaited; then the sinks are opened as a run's are before anything else, and the
 * command given its arguments and fds. 0 or -errno (unclaimed: -EINTR or -ECANCELED).
 */
static int spawn_spare(struct run *r, struct wd_spawn_opts *so, uint64_t *t_start)
{
	char ready[128];
	int fds[3], err = r->spare_hash[0] ? 0 : -ENOMEM;

	/* wardend makes none for these: their fds are set before the clone */
	if ((r->rs.limits_set & (1u << WD_LIMIT_OUTPUT)) || r->pty.master >= 0)
		return -EOPNOTSUPP;
	if (!err)
		err = wd_spawn_begin(so, &r->child, &r->pending);
	if (err)
		return err;
	snprintf(ready, sizeof(ready), "ready %s %s", r->spare_hash, r->cg.name);
	if (!err && send(r->o->spare_fd, ready, strlen(ready), MSG_NOSIGNAL) < 0)
		err = -errno;
	if (!err)
		err = wd_spare_claim_wait(r->o->spare_fd, r->sigfd, &r->claim);
	if (!err) {
		r->claimed = *r->o;
		err = wd_spare_claim_apply(&r->claim, &r->claimed);
		r->o = &r->claimed;
		r->rep.argv = r->claimed.argv;
	}
	if (!err)
		err = open_sinks(r);
	if (!err)
		err = wd_run_holds_serve(&r->holds, r->cg.name);
	if (!err && !r->st.audit && wd_run_open_default_sink(&r->st, &r->rs, r->cg.name)) {
		r->rep.error = "the audit file could not be made (see warden's messages)";
		err = -EIO;
	}
	if (err) {
		/* the child reads the word's EOF and fails: nothing of a command ever runs */
		wd_spawn_abandon(&r->pending);
		return err;
	}
	r->t0 = wd_clock_ns(CLOCK_MONOTONIC);
	*t_start = wd_clock_ns(CLOCK_REALTIME);
	fds[0] = 0;
	fds[1] = r->o->out_fd[1] > 2 ? r->o->out_fd[1] : 1;
	fds[2] = r->o->out_fd[2] > 2 ? r->o->out_fd[2] : 2;
	return wd_spawn_finish(so, &r->child, &r->pending, r->o->argv, fds);
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
					.plan = &r->setup, .setup = child_setup, .setup_ctx = r,
					.join = child_join, .join_ctx = r };
	/* a persistent sandbox keeps its namespaces in its init, for every exec to join */
	if (r->o->persistent)
		sopts.clone_flags |= CLONE_NEWPID | CLONE_NEWNS;
	sopts.persistent = r->o->persistent;
	r->enter_ns = CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET;
	sopts.join_after_setup = r->ops->refuses_mounts && (sopts.clone_flags & CLONE_NEWNS);
	sopts.survive = r->o->survive_s > 0;
	sopts.tty = r->pty.slave;
	sopts.tty_fds = r->pty.master >= 0 ? r->pty.slave_fds : 0;
	sopts.before_exec = keeper_before_exec;
	sopts.before_exec_ctx = r;
	/* a persistent sandbox's init has no command: each exec gets a waiting room of its own */
	if (r->holds.engine && !r->o->persistent)
		wd_run_holds_spawn_opts(&r->holds, &sopts);
	err = open_output(r, &sopts);
	if (err)
		return err;
	if (r->o->spare_fd > 0)
		err = spawn_spare(r, &sopts, &t_start);
	else
		err = wd_spawn(&sopts, r->o->argv, &r->child);
	/* the command has its write ends, or there is no command: warden's copies go */
	wd_output_started(&r->out);
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
		open_disk(r);
	if (started)
		start_limits(r);
	if (started && r->o->persistent) {
		if (!getcwd(r->cwd, sizeof(r->cwd)))
			snprintf(r->cwd, sizeof(r->cwd), "/");
		r->exec_ops = exec_ops;
		r->exec_ops.ctx = r;
		err = wd_execs_open(&r->execs, r->o->exec_fd, r->o->idle_s, &r->exec_ops);
		if (err) {
			log_warnx("run: cannot take execs: %s", strerror(-err));
			exec_end(r, "failed");
		}
		r->st.execs = &r->execs;
	}
	/* on the caller's terminal, unless --quiet: the live status line */
	if (started && !r->o->quiet && r->pty.master >= 0 &&
	    wd_run_status_start(&r->status, &r->st, r->t0) == 0 && r->status.timer >= 0) {
		r->status.lim = &r->lim;
		r->st.status = &r->status;
	}
	return 0;
}

/*
 * What ended the command, when it was not the command itself: warden told to stop (it exits
 * 128+N, whatever the command did with the signal), a time limit, the OOM killer.
 */
static void ended_by(struct run *r)
{
	struct wd_limit_usage u;

	if (r->rl.signo) {
		r->rep.status = "signal";
		r->rep.signal = r->rl.signo;
		r->rc = 128 + r->rl.signo;
		return;
	}
	if (r->rl.hit) {
		r->rep.status = "timeout";
		return;
	}
	wd_limits_read(&r->lim, r->cg.fd, &u);
	if (u.oom_kills && r->rc != 0)
		r->rep.status = "oom";
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
		r->rep.status = "failed_to_start"; /* denied_to_start once the denial is counted */
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
		ended_by(r);
		/* a persistent sandbox has no command: it ended idle, or was destroyed */
		if (r->o->persistent) {
			r->rc = 0;
			r->rep.signal = 0;
			r->rep.status = r->end_why && !strcmp(r->end_why, "idle") ? "idle" :
					"destroyed";
		}
		r->rep.exit_code = r->rc;
	}
	r->rep.wall_time_s = (double)(wd_clock_ns(CLOCK_MONOTONIC) - r->t0) / 1e9;
}

/* Whether limit @k was reached, and the figure that says so. */
static void limit_hit(const struct run *r, const struct wd_limit_usage *u,
		      struct wd_report_limit *l, int k)
{
	switch (k) {
	case WD_LIMIT_WALL_TIME:
	case WD_LIMIT_CPU_TIME:
		if ((k == WD_LIMIT_WALL_TIME) != (r->rl.hit == RUN_HIT_WALL_TIME) ||
		    !r->rl.hit)
			break;
		l->hit = l->have_figure = true;
		l->figure = k == WD_LIMIT_WALL_TIME ? r->rl.hit_figure : r->rl.hit_figure / 1000;
		l->figure_unit = "ms";
		break;
	case WD_LIMIT_MEMORY:
		l->have_figure = u->have_mem;
		l->figure = u->oom_kills;
		l->figure_unit = "oom_kills";
		l->hit = u->oom_kills > 0;
		break;
	case WD_LIMIT_PIDS:
		l->have_figure = u->have_pids;
		l->figure = u->pids_max_hits;
		l->figure_unit = "refused_forks";
		l->hit = u->pids_max_hits > 0;
		break;
	case WD_LIMIT_CPU:
		l->have_figure = true;
		l->figure = u->cpu_throttled;
		l->figure_unit = "throttled_periods";
		l->hit = u->cpu_throttled > 0;
		break;
	case WD_LIMIT_FORK_RATE:
		l->have_figure = r->fork_read;
		l->figure = r->fork.refused;
		l->figure_unit = "refused_forks";
		l->hit = r->fork.refused > 0;
		break;
	case WD_LIMIT_KILL_GRACE:
		l->hit = r->rl.signo && r->rl.killed && !r->rl.hit;
		break;
	case WD_LIMIT_DISK:
		disk_take(r, l);
		break;
	default:
		break;
	}
}

/* The emptied sandbox's figures, and each limit as applied, into the report. */
static void report_usage(struct run *r)
{
	struct wd_limit_usage u;

	if (r->cg.fd < 0)
		return;
	wd_limits_read(&r->lim, r->cg.fd, &u);
	wd_report_usage(&r->rep, &u);
	/* the peaks warden sampled itself, where the cgroup keeps none higher */
	if (r->rl.mem_peak > r->rep.peak_memory)
		r->rep.peak_memory = r->rl.mem_peak;
	if (r->rl.pids_peak > r->rep.max_pids)
		r->rep.max_pids = r->rl.pids_peak;
	r->rep.n_limits = 0;
	r->fork_read = r->sandbox_added && !wd_backend_fork(r->be, r->cg.id, &r->fork);
	for (int k = 0; k < WD_LIMIT_NR && r->rep.n_limits < WD_REPORT_LIMITS; k++) {
		struct wd_report_limit *l = &r->rep.limits[r->rep.n_limits];

		if (!(r->rs.limits_set & (1u << k)))
			continue;
		*l = (struct wd_report_limit){ .name = wd_limit_name((enum wd_limit_kind)k),
					       .value = r->rs.limit[k], .unit = limit_units[k],
					       .mechanism = r->lim.mech[k] };
		if (k == WD_LIMIT_FORK_RATE) {
			l->unit = fork_rate_unit(r->rs.limit_per_ms[k]);
			l->mechanism = r->fork_read ? "bpf-lsm task_alloc: a token bucket"
						    : "not enforced by this backend";
		}
		limit_hit(r, &u, l, k);
		r->rep.n_limits++;
	}
}

/*
 * net.egress_rate's counters into the report, and one `limit` record when it dropped anything.
 * The sandbox is empty: nothing sends any more.
 */
static void egress_take(struct run *r)
{
	struct wd_audit_egress *e = &r->rep.egress;
	struct wd_rate k;

	if (wd_backend_rate(r->be, r->cg.id, &k))
		return;
	r->rep.has_egress = true;
	*e = (struct wd_audit_egress){ .rate = k.rate,
				       .bytes = k.bytes,
				       .dropped_bytes = k.dropped_bytes,
				       .dropped_packets = k.dropped_packets };
	if (e->dropped_packets)
		wd_run_audit_write(&r->st, wd_audit_egress_limit_line(
						   &r->st.actx, wd_clock_ns(CLOCK_REALTIME), e));
}

/*
 * limits.output's figures into the report, its entry among the limits, and one `limit` record
 * when the output was cut. Every pipe is dry, the terminal drained.
 */
static void output_take(struct run *r)
{
	struct wd_audit_output *o = &r->rep.output;

	if (!r->out.on)
		return;
	r->rep.has_output = true;
	*o = (struct wd_audit_output){ .limit = r->out.cap, .passed = r->out.passed,
				       .dropped = r->out.dropped,
				       .dropped_blocked = r->out.dropped_blocked,
				       .cut = r->out.cut };
	for (size_t i = 0; i < r->rep.n_limits; i++) {
		struct wd_report_limit *l = &r->rep.limits[i];

		if (strcmp(l->name, "output"))
			continue;
		l->hit = o->cut;
		l->have_figure = true;
		l->figure = o->dropped;
		l->figure_unit = "dropped_bytes";
	}
	if (o->cut)
		wd_run_audit_write(&r->st, wd_audit_output_limit_line(
						   &r->st.actx, wd_clock_ns(CLOCK_REALTIME), o));
}

/*
 * The cgroup was made: whatever the command left behind dies with the sandbox, then the last
 * records, the exit record and the report; the holds and the prompt go.
 */
static void teardown_sandbox(struct run *r)
{
	struct run_records rec = { .ops = r->ops, .be = r->be };
	struct run_state *st = &r->st;

	/* a persistent sandbox's running exec is told ended, its init goes with the rest */
	if (r->st.execs) {
		wd_execs_close(&r->execs);
		r->st.execs = NULL;
		if (r->child.pidfd >= 0)
			syscall(SYS_pidfd_send_signal, r->child.pidfd, SIGKILL, NULL, 0);
	} else if (r->execs.sock >= 0) {
		close(r->execs.sock);
		r->execs.sock = -1;
	}
	/* emptied first, so the figures are the whole sandbox's, then removed, v1 and v2 */
	wd_cgroup_drain(&r->cg);
	/* no task of it writes any more: what is left in the pipes, then they close */
	wd_output_drain(&r->out);
	report_usage(r);
	wd_cgroup_destroy(&r->cg);
	wd_limits_remove(&r->lim);
	wd_run_limits_close(&r->rl);
	st->lim = NULL;
	/* Its last output, then the caller's terminal as it was, before warden says more. */
	wd_run_status_stop(&r->status);
	st->status = NULL;
	wd_pty_drain(&r->pty);
	wd_pty_close(&r->pty);
	st->pty = NULL;
	wd_output_close(&r->out);
	st->out = NULL;
	output_take(r);
	/* The sandbox is gone: the keeper lets go of the rules it holds before they are removed. */
	wd_keeper_stop(&r->keeper);
	wd_run_records_drain(st, &rec);
	if (r->sandbox_added) {
		egress_take(r);
		if (r->fork_read && r->fork.refused)
			wd_run_audit_write(st, wd_audit_fork_limit_line(
						       &st->actx, wd_clock_ns(CLOCK_REALTIME),
						       r->rs.limit[WD_LIMIT_FORK_RATE],
						       r->rs.limit_per_ms[WD_LIMIT_FORK_RATE],
						       r->fork.allowed, r->fork.refused));
		r->ops->sandbox_remove(r->be, r->cg.id, &r->rs, &r->final);
		r->rep.denials = r->final.denials;
		/* the exec failed with the backend's errno and the backend denied something: it */
		if (r->rep.start_errno && r->rep.start_errno == r->ops->deny_errno &&
		    r->final.denials)
			r->rep.status = "denied_to_start";
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
	wd_fd_close(&r->disk_fd);
	wd_hold_rules_free(&r->holds.rules);
	wd_setup_release(&r->setup);
	wd_ruleset_free(&r->rs);
	wd_policy_free(&r->pol);
	wd_spare_claim_free(&r->claim);
}

int wd_run(const struct wd_run_opts *o)
{
	struct run r;

	run_init(&r, o);
	if (prepare_policy(&r))
		return r.rc;
	/* a spare's sinks are its claim's, opened once it comes (spawn_spare) */
	if ((o->spare_fd <= 0 && open_sinks(&r)) || prepare_sandbox(&r))
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
