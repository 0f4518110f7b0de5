/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run loop, shared by run and adopt: waits for the sandbox to end while passing kernel
 * records on, answering holds and operators, relaying the command's terminal and turning the
 * signals that end warden into a kill of the sandbox.
 */
#ifndef WD_RUN_SUPERVISE_H
#define WD_RUN_SUPERVISE_H

#include <signal.h>

#include "supervisor/backend/backend.h"
#include "supervisor/bpf/events.h"
#include "supervisor/run/holds.h"
#include "supervisor/run/records.h"
#include "supervisor/sandbox/cgroup.h"
#include "supervisor/sandbox/spawn.h"

/* Where the kernel's records come from: the run's own backend, or a handed-over ring buffer. */
struct run_records {
	const struct wd_backend_ops *ops; /* with @be: the backend this process started */
	struct wd_backend *be;
	struct wd_events *ev; /* a successor's reader of the keeper's ring buffer; may be NULL */
};

/* Why the run loop ended the sandbox itself. */
enum run_limit_hit { RUN_HIT_NONE = 0, RUN_HIT_WALL_TIME, RUN_HIT_CPU_TIME };

/*
 * What the run loop enforces over time for `warden run` (run_state.lim): limits.wall_time (a
 * timerfd), limits.cpu_time (the cgroup's usage, read on a 100 ms timerfd that also samples the
 * peaks), and a stop signal to warden passed on to the command, the sandbox killed after
 * limits.kill_grace or at a second signal.
 */
struct run_limits {
	const struct wd_limits *l;
	uint64_t wall_ms, cpu_usec, grace_ms; /* 0: no such limit (grace: at once) */
	int wall_fd, sample_fd, grace_fd; /* timerfds, -1 until armed */
	/* what happened */
	enum run_limit_hit hit;
	uint64_t hit_figure; /* the wall ms or cpu usec that crossed it */
	int signo; /* the first stop signal warden got, or 0 */
	bool killed; /* the run loop killed the sandbox */
	uint64_t mem_peak, pids_peak; /* sampled */
};

/* Arm the timers (run start); 0 or -errno. */
int wd_run_limits_start(struct run_limits *lim);
void wd_run_limits_close(struct run_limits *lim);

/*
 * The signals that end a supervised sandbox, blocked and read from the returned signalfd (or
 * -1, said why); @old gets the mask to restore.
 */
int wd_run_stop_signals(sigset_t *old);

/* Pass on every record waiting now, then flush the audit stream. */
void wd_run_records_drain(struct run_state *st, const struct run_records *rec);

/*
 * Wait for the child to exit, passing records on, answering holds, turning signals into a kill.
 * A supervisor that took the sandbox over (no @child, no backend) waits instead for its cgroup to
 * empty, on @events (its cgroup.events). 0, or -errno when it could not watch.
 */
int wd_run_supervise(struct run_state *st, const struct run_records *rec,
		     const struct wd_cgroup *cg, struct wd_child *child, int events, int sigfd,
		     struct run_holds *holds, siginfo_t *si);

#endif
