// SPDX-License-Identifier: GPL-2.0
/* The run loop, shared by run and adopt (supervisor/run/supervise.h). */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "supervisor/run/dns.h"
#include "supervisor/run/pty.h"
#include "supervisor/run/supervise.h"
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

enum poll_kind { P_RECORDS, P_CHILD, P_EMPTIED, P_SIGNAL, P_LISTENER, P_TIMER, P_CTL, P_PTY, P_DNS };

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
	if (st->pty) {
		int m = wd_pty_poll_fds(st->pty, pfd + n, WD_POLL_MAX - n);

		for (int i = 0; i < m; i++)
			kind[n++] = P_PTY;
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
			case P_DNS:
				wd_run_dns_ready(st->dns);
				break;
			}
		}
	}
	return 0;
}
