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
