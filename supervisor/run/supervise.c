// SPDX-License-Identifier: GPL-2.0
/* The run loop, shared by run and adopt (supervisor/run/supervise.h). */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "supervisor/run/dns.h"
#include "supervisor/run/execs.h"
#include "supervisor/run/output.h"
#include "supervisor/run/pty.h"
#include "supervisor/run/status.h"
#include "supervisor/run/supervise.h"
#include "supervisor/sandbox/limits.h"
#include "supervisor/util/log.h"

#define WD_POLL_MAX 48

int wd_run_stop_signals(sigset_t *old)
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

static bool has_records(const struct run_records *rec)
{
	return rec->be || rec->ev;
}

static int records_fd(const struct run_records *rec)
{
	return rec->be ? rec->ops->event_fd(rec->be) : wd_events_fd(rec->ev);
}

void wd_run_records_drain(struct run_state *st, const struct run_records *rec)
{
	if (rec->be)
		rec->ops->consume(rec->be);
	else if (rec->ev)
		wd_events_consume(rec->ev);
	wd_run_audit_flush(st);
}

enum poll_kind { P_RECORDS, P_CHILD, P_EMPTIED, P_SIGNAL, P_LISTENER, P_TIMER, P_CTL, P_PTY, P_OUTPUT,
		 P_WALL, P_SAMPLE, P_GRACE, P_DNS, P_STATUS, P_EXEC };

/* How often cpu_time is checked and the peaks sampled. */
#define WD_SAMPLE_MS 100
/* What limits.kill_grace is when the policy leaves it out. */
#define WD_KILL_GRACE_MS 5000

static int timer_arm(int *fd, uint64_t ms, bool periodic)
{
	struct itimerspec it = { .it_value = { .tv_sec = (time_t)(ms / 1000),
					       .tv_nsec = (long)(ms % 1000) * 1000000 } };

	if (periodic)
		it.it_interval = it.it_value;
	if (*fd < 0)
		*fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (*fd < 0 || timerfd_settime(*fd, 0, &it, NULL))
		return -errno;
	return 0;
}

int wd_run_limits_start(struct run_limits *lim)
{
	int err = 0;

	lim->wall_fd = lim->sample_fd = lim->grace_fd = -1;
	if (lim->wall_ms)
		err = timer_arm(&lim->wall_fd, lim->wall_ms, false);
	if (!err)
		err = timer_arm(&lim->sample_fd, WD_SAMPLE_MS, true);
	if (err)
		log_warnx("run: cannot arm the limits' timers: %s", strerror(-err));
	return err;
}

void wd_run_limits_close(struct run_limits *lim)
{
	int *fds[] = { &lim->wall_fd, &lim->sample_fd, &lim->grace_fd };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

static void limits_poll_set(const struct run_limits *lim, struct pollfd *pfd,
			    enum poll_kind *kind, int *n)
{
	const int fds[] = { lim->wall_fd, lim->sample_fd, lim->grace_fd };
	const enum poll_kind kinds[] = { P_WALL, P_SAMPLE, P_GRACE, P_DNS };

	for (int i = 0; i < 3; i++) {
		if (fds[i] < 0)
			continue;
		pfd[*n] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
		kind[(*n)++] = kinds[i];
	}
}

/* The parent pid of @pid, from /proc/PID/stat (after the command name's closing paren). */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512], *p;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p ? (pid_t)strtol(p + 4, NULL, 10) : -1;
}

/*
 * The command's pid as warden sees it: the child itself, or in a new pid namespace the one
 * task of the sandbox's cgroup whose parent is the init. -1 when it is gone.
 */
static pid_t command_pid(const struct wd_cgroup *cg, const struct wd_child *child)
{
	char line[32];
	pid_t found = -1;
	FILE *f;
	int fd;

	if (child->status_fd < 0)
		return child->pid;
	fd = openat(cg->fd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while (found < 0 && fgets(line, sizeof(line), f)) {
		pid_t pid = (pid_t)strtol(line, NULL, 10);

		if (pid > 0 && parent_of(pid) == child->pid)
			found = pid;
	}
	fclose(f);
	return found;
}

/* The run loop ends the sandbox itself: every task of its cgroup dies. */
static void limits_kill(struct run_limits *lim, const struct wd_cgroup *cg)
{
	lim->killed = true;
	wd_cgroup_kill(cg);
}

/*
 * A stop signal to warden: the first is passed on to the command, which has limits.kill_grace
 * to end; a second, or the grace running out, kills the sandbox.
 */
static void limits_on_signal(struct run_limits *lim, const struct wd_cgroup *cg,
			     const struct wd_child *child, int signo)
{
	uint64_t grace = lim->grace_ms ? lim->grace_ms : WD_KILL_GRACE_MS;
	pid_t cmd;

	if (lim->signo) {
		log_info("run: signal %d again, killing sandbox %s", signo, cg->name);
		limits_kill(lim, cg);
		return;
	}
	lim->signo = signo;
	cmd = command_pid(cg, child);
	log_info("run: got signal %d, passed on to the command; sandbox %s is killed in %llu ms "
		 "unless it ends first", signo, cg->name, (unsigned long long)grace);
	if (cmd <= 0 || kill(cmd, signo) || timer_arm(&lim->grace_fd, grace, false))
		limits_kill(lim, cg);
}

static void limits_on_sample(struct run_limits *lim, const struct wd_cgroup *cg)
{
	struct wd_limit_usage u;
	uint64_t ticks;

	if (read(lim->sample_fd, &ticks, sizeof(ticks)) < 0)
		return;
	wd_limits_read(lim->l, cg->fd, &u);
	if (u.mem_current > lim->mem_peak)
		lim->mem_peak = u.mem_current;
	if (u.pids_current > lim->pids_peak)
		lim->pids_peak = u.pids_current;
	if (lim->cpu_usec && u.have_cpu && u.cpu_usec >= lim->cpu_usec && !lim->hit) {
		lim->hit = RUN_HIT_CPU_TIME;
		lim->hit_figure = u.cpu_usec;
		log_info("run: sandbox %s used %llu ms of CPU time, its limit: killed", cg->name,
			 (unsigned long long)(u.cpu_usec / 1000));
		limits_kill(lim, cg);
	}
}

static void limits_on_timer(struct run_limits *lim, const struct wd_cgroup *cg,
			    enum poll_kind kind)
{
	uint64_t ticks;

	if (kind == P_SAMPLE) {
		limits_on_sample(lim, cg);
		return;
	}
	if (read(kind == P_WALL ? lim->wall_fd : lim->grace_fd, &ticks, sizeof(ticks)) < 0)
		return;
	if (kind == P_WALL && !lim->hit) {
		lim->hit = RUN_HIT_WALL_TIME;
		lim->hit_figure = lim->wall_ms;
		log_info("run: sandbox %s ran for its wall time: killed", cg->name);
	} else if (kind == P_GRACE) {
		log_info("run: sandbox %s did not end within the grace: killed", cg->name);
	}
	limits_kill(lim, cg);
}

/* What the loop waits on this time round, in @pfd and @kind: how many. */
static int poll_set(struct run_state *st, const struct run_records *rec, struct wd_child *child,
		    int events, int sigfd, struct run_holds *holds, struct pollfd *pfd,
		    enum poll_kind *kind)
{
	int n = 0;

	if (has_records(rec)) {
		pfd[n] = (struct pollfd){ .fd = records_fd(rec), .events = POLLIN };
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
	if (st->lim && child)
		limits_poll_set(st->lim, pfd, kind, &n);
	if (holds->engine) {
		pfd[n] = (struct pollfd){ .fd = wd_hold_listener_fd(holds->engine),
					  .events = POLLIN };
		kind[n++] = P_LISTENER;
		pfd[n] = (struct pollfd){ .fd = wd_hold_timer_fd(holds->engine), .events = POLLIN };
		kind[n++] = P_TIMER;
	}
	if (holds->ctl) {
		int fds[WD_POLL_MAX], m = wd_ctl_poll_fds(holds->ctl, fds, WD_POLL_MAX - n);

		for (int i = 0; i < m; i++) {
			pfd[n] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
			kind[n++] = P_CTL;
		}
	}
	if (st->dns) {
		pfd[n] = (struct pollfd){ .fd = wd_run_dns_fd(st->dns), .events = POLLIN };
		kind[n++] = P_DNS;
	}
	if (st->status && st->status->timer >= 0) {
		pfd[n] = (struct pollfd){ .fd = st->status->timer, .events = POLLIN };
		kind[n++] = P_STATUS;
	}
	if (st->pty) {
		int m = wd_pty_poll_fds(st->pty, pfd + n, WD_POLL_MAX - n);

		for (int i = 0; i < m; i++)
			kind[n++] = P_PTY;
	}
	if (st->out) {
		int m = wd_output_poll_fds(st->out, pfd + n, WD_POLL_MAX - n);

		for (int i = 0; i < m; i++)
			kind[n++] = P_OUTPUT;
	}
	if (st->execs) {
		int m = wd_execs_poll_fds(st->execs, pfd + n, WD_POLL_MAX - n);

		for (int i = 0; i < m; i++)
			kind[n++] = P_EXEC;
	}
	return n;
}

int wd_run_supervise(struct run_state *st, const struct run_records *rec,
		     const struct wd_cgroup *cg, struct wd_child *child, int events, int sigfd,
		     struct run_holds *holds, siginfo_t *si)
{
	bool done = child == NULL && wd_cgroup_events_empty(events);

	while (!done) {
		struct pollfd pfd[WD_POLL_MAX];
		enum poll_kind kind[WD_POLL_MAX];
		int n = poll_set(st, rec, child, events, sigfd, holds, pfd, kind), r;

		r = poll(pfd, (nfds_t)n, st->dns ? wd_run_dns_timeout(st->dns) : -1);
		if (st->dns)
			wd_run_dns_tick(st->dns);
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
				wd_run_records_drain(st, rec);
				break;
			case P_CHILD:
				if (wd_child_wait(child, si) == 0)
					done = true;
				break;
			case P_EMPTIED:
				done = wd_cgroup_events_empty(events);
				break;
			case P_SIGNAL:
				if (read(sigfd, &ssi, sizeof(ssi)) != sizeof(ssi))
					break;
				if (st->execs) {
					/* a persistent sandbox: its supervisor ends it (destroy) */
					wd_execs_stop(st->execs);
				} else if (st->lim && child) {
					limits_on_signal(st->lim, cg, child, (int)ssi.ssi_signo);
				} else {
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
			case P_OUTPUT:
				wd_output_on_ready(st->out, &pfd[i]);
				break;
			case P_WALL:
			case P_SAMPLE:
			case P_GRACE:
				limits_on_timer(st->lim, cg, kind[i]);
				break;
			case P_DNS:
				wd_run_dns_ready(st->dns);
				break;
			case P_EXEC:
				wd_execs_on_ready(st->execs, &pfd[i]);
				break;
			case P_STATUS:
				wd_run_status_tick(st->status, st, cg, holds);
				break;
			}
		}
	}
	return 0;
}
