// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "audit/jsonl.h"
#include "policy/compile.h"
#include "policy/effective.h"
#include "supervisor/cgroup.h"
#include "supervisor/exe_cache.h"
#include "supervisor/log.h"
#include "supervisor/backend.h"
#include "supervisor/report.h"
#include "supervisor/resolve.h"
#include "supervisor/run.h"
#include "supervisor/spawn.h"

struct run_state {
	struct wd_audit_ctx actx;
	FILE *audit;
	struct wd_exe_cache exes;
	uint64_t malformed; /* records the kernel sent that did not parse */
};

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Kernel records are written in batches (one flush per ring-buffer drain); ours at once. */
static void audit_put(struct run_state *st, char *line, bool flush)
{
	if (!line) {
		log_warnx("audit: cannot format a record");
		return;
	}
	fprintf(st->audit, "%s\n", line);
	if (flush)
		fflush(st->audit);
	free(line);
}

static void audit_write(struct run_state *st, char *line)
{
	audit_put(st, line, true);
}

/*
 * The exe of the task behind @ev: what its last exec record said (exact, and known after the
 * task has gone), else /proc while the task lives, else its parent's last exec.
 */
static const char *exe_of(struct run_state *st, const struct wd_event *ev, char *buf,
			  size_t bufsz)
{
	const char *exe = wd_exe_cache_get(&st->exes, ev->pid);
	char link[64];
	ssize_t n;

	if (exe)
		return exe;
	snprintf(link, sizeof(link), "/proc/%u/exe", ev->tid);
	n = readlink(link, buf, bufsz - 1);
	if (n > 0 && ev->type != WD_EV_EXEC) {
		buf[n] = 0;
		return buf;
	}
	return wd_exe_cache_get(&st->exes, ev->ppid);
}

/*
 * A relative path a task passed to a syscall, made absolute against its cwd or dirfd while the
 * task still lives; false when that can no longer be known.
 */
static bool absolute_target(const struct wd_event *ev, char *buf, size_t bufsz)
{
	char link[64], base[PATH_MAX];
	ssize_t n;

	if (ev->source == WD_SRC_LSM || !ev->path[0] || ev->path[0] == '/')
		return false;
	if (ev->dirfd == AT_FDCWD)
		snprintf(link, sizeof(link), "/proc/%u/cwd", ev->tid);
	else
		snprintf(link, sizeof(link), "/proc/%u/fd/%d", ev->tid, ev->dirfd);
	n = readlink(link, base, sizeof(base) - 1);
	if (n <= 0)
		return false;
	base[n] = 0;
	return (size_t)snprintf(buf, bufsz, "%s/%s", strcmp(base, "/") ? base : "", ev->path) <
	       bufsz;
}

/*
 * The rule that allowed @path for @acc, found as the kernel's LPM lookup would: for records whose
 * verdict was made where no rule id could be read (Landlock).
 */
static const char *rule_for(const struct wd_ruleset *rs, const char *path, unsigned int acc)
{
	const struct wd_rule_entry *e = wd_ruleset_lookup(rs, path);
	int idx = acc & WD_ACC_EXEC ? WD_ACC_IDX_EXEC :
		  acc & WD_ACC_WRITE ? WD_ACC_IDX_WRITE : WD_ACC_IDX_READ;

	if (!e || !(e->val.allow & acc))
		return NULL;
	return wd_ruleset_rule_name(rs, e->val.rule[idx]);
}

static int on_record(void *ctx, void *rec, size_t size)
{
	struct run_state *st = ctx;
	const struct wd_event *ev = rec;
	struct wd_audit_extra extra = { 0 };
	char buf[PATH_MAX], target[PATH_MAX];
	char *line;

	if (size >= WD_EVENT_HDR_SIZE && size >= WD_EVENT_HDR_SIZE + ev->path_len) {
		extra.exe = exe_of(st, ev, buf, sizeof(buf));
		if (absolute_target(ev, target, sizeof(target)))
			extra.target = target;
		if (ev->source != WD_SRC_LSM && ev->verdict == WD_VERDICT_ALLOW &&
		    st->actx.rules)
			extra.rule = rule_for(st->actx.rules,
					      extra.target ? extra.target : ev->path, ev->access);
	}
	line = wd_audit_event_line(&st->actx, rec, size, &extra);
	if (!line) {
		st->malformed++;
		log_warnx("audit: malformed kernel record of %zu bytes", size);
		return 0;
	}
	audit_put(st, line, false);
	/* From here on the task runs what it just exec'd. */
	if (ev->type == WD_EV_EXEC && ev->verdict != WD_VERDICT_DENY && ev->path[0])
		wd_exe_cache_set(&st->exes, ev->pid, ev->path);
	return 0;
}

static int exit_code_of(const siginfo_t *si, int *signo)
{
	*signo = 0;
	if (si->si_code == CLD_EXITED)
		return si->si_status;
	*signo = si->si_status;
	return 128 + si->si_status;
}

/* Wait for the child to exit, passing records on and turning signals to warden into a kill. */
static int supervise(struct run_state *st, const struct wd_backend_ops *ops,
		     struct wd_backend *be, const struct wd_cgroup *cg, struct wd_child *child,
		     int sigfd, siginfo_t *si)
{
	struct epoll_event evs[4], e = { .events = EPOLLIN };
	int ep, err = 0;
	bool done = false;

	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		return -errno;
	e.data.u32 = 0;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, ops->event_fd(be), &e))
		goto out_errno;
	e.data.u32 = 1;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, child->pidfd, &e))
		goto out_errno;
	e.data.u32 = 2;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, sigfd, &e))
		goto out_errno;

	while (!done) {
		int n = epoll_wait(ep, evs, 4, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto out_errno;
		for (int i = 0; i < n; i++) {
			if (evs[i].data.u32 == 0) {
				ops->consume(be);
				fflush(st->audit);
			} else if (evs[i].data.u32 == 1) {
				if (wd_child_wait(child, si) == 0)
					done = true;
			} else {
				struct signalfd_siginfo ssi;

				if (read(sigfd, &ssi, sizeof(ssi)) == sizeof(ssi)) {
					log_info("run: got signal %u, killing sandbox %s",
						 ssi.ssi_signo, cg->name);
					wd_cgroup_kill(cg);
				}
			}
		}
	}
	goto out_close;

out_errno:
	err = -errno;
	log_warn("run: supervising %s", cg->name);
out_close:
	close(ep);
	return err;
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

int wd_run(const struct wd_run_opts *o)
{
	struct run_state st = { .audit = stderr };
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
	struct wd_spawn_opts sopts;
	sigset_t sigs, oldsigs;
	siginfo_t si;
	uint64_t t0, t_start, t_end;
	char msg[1024];
	int sigfd = -1, rc = WD_EXIT_INTERNAL, err;
	bool sandbox_added = false;

	/* The effective policy: what it extends, the derived flags, its variables expanded. */
	err = wd_policy_load_effective(o->policy_path, o->derive, &pol, msg, sizeof(msg));
	/* A part this warden does not enforce is refused, never ignored. */
	if (!err)
		err = wd_policy_refuse_unenforced(&pol, o->policy_path, WD_FEAT_ENFORCED, msg,
						  sizeof(msg));
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

	ops = wd_backend_choose(o->backend, msg, sizeof(msg));
	if (!ops) {
		log_warnx("cannot run a sandbox here: %s", msg);
		rep.error = msg;
		goto out_free_rules;
	}
	rep.backend = ops->name;

	if (o->audit_path) {
		st.audit = fopen(o->audit_path, "ae");
		if (!st.audit) {
			log_warn("audit: cannot open %s", o->audit_path);
			st.audit = stderr;
			goto out_free_rules;
		}
	}

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGQUIT);
	sigprocmask(SIG_BLOCK, &sigs, &oldsigs);
	sigfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0) {
		log_warn("run: signalfd");
		goto out_restore_sigs;
	}

	st.actx.backend = ops->name;
	st.actx.rules = &rs;
	st.actx.boot_to_real_ns =
		(int64_t)clock_ns(CLOCK_REALTIME) - (int64_t)clock_ns(CLOCK_BOOTTIME);
	if (ops->start(&be, on_record, &st))
		goto out_restore_sigs;
	if (wd_cgroup_create(&cg))
		goto out_stop_backend;
	st.actx.sandbox = cg.name;
	rep.sandbox = cg.name;
	if (ops->sandbox_add(be, cg.id, &pol, &rs))
		goto out_destroy_cgroup;
	sandbox_added = true;
	st.actx.backend_detail = ops->detail(be);

	t0 = clock_ns(CLOCK_MONOTONIC);
	t_start = clock_ns(CLOCK_REALTIME);
	cctx = (struct child_ctx){ .ops = ops, .be = be };
	sopts = (struct wd_spawn_opts){ .cgroup_fd = cg.fd, .clone_flags = ops->clone_flags(be),
					.setup = child_setup, .setup_ctx = &cctx };
	err = wd_spawn(&sopts, o->argv, &child);
	if (err)
		goto out_destroy_cgroup;
	/* Written before any kernel record is read, dated before the first could be made. */
	audit_write(&st, wd_audit_start_line(&st.actx, t_start, child.pid, o->argv));
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
		err = supervise(&st, ops, be, &cg, &child, sigfd, &si);
		if (err) {
			/* Could not watch the child: it must not run on unwatched. */
			wd_cgroup_kill(&cg);
			wd_child_wait(&child, &si);
		}
		rc = exit_code_of(&si, &rep.signal);
		rep.status = rep.signal ? "killed" : "completed";
		rep.exit_code = rc;
	}
	t_end = clock_ns(CLOCK_MONOTONIC);
	rep.wall_time_s = (double)(t_end - t0) / 1e9;

out_destroy_cgroup:
	/* Whatever the command left behind dies with the sandbox. */
	wd_cgroup_destroy(&cg);
	if (be)
		ops->consume(be);
	fflush(st.audit);
	if (sandbox_added) {
		ops->sandbox_remove(be, cg.id, &rs, &final);
		rep.denials = final.denials;
		rep.lost_records = final.lost;
		if (final.lost)
			audit_write(&st, wd_audit_lost_line(&st.actx, clock_ns(CLOCK_REALTIME),
							    final.lost));
	}
	if (rep.status) {
		audit_write(&st, wd_audit_exit_line(&st.actx, clock_ns(CLOCK_REALTIME), child.pid,
						    rep.status, rep.exit_code, rep.signal));
		if (o->report_path && wd_report_write(&rep, o->report_path))
			rc = rc ? rc : WD_EXIT_INTERNAL;
	}
	wd_child_close(&child);
out_stop_backend:
	if (be)
		ops->stop(be);
out_restore_sigs:
	if (sigfd >= 0)
		close(sigfd);
	sigprocmask(SIG_SETMASK, &oldsigs, NULL);
	if (st.audit != stderr)
		fclose(st.audit);
	wd_exe_cache_free(&st.exes);
out_free_rules:
	if (!rep.status && o->report_path) {
		/* Nothing ran; the report still says so, and why. */
		rep.status = "failed_to_start";
		rep.exit_code = rc;
		if (!rep.error)
			rep.error = "warden could not set the sandbox up (see its messages)";
		wd_report_write(&rep, o->report_path);
	}
	wd_ruleset_free(&rs);
	wd_policy_free(&pol);
	return rc;
}
