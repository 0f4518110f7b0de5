/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live status line of `warden run` on a terminal (docs/cli.md, "Status line"): elapsed
 * time, memory, tasks, denials and a held operation waiting for an operator, in words, redrawn
 * at most once a second by the run loop. It is drawn through the pty relay (supervisor/run/pty.c)
 * only: the relay keeps it on the bottom line, below the command's own output, and never in it.
 */
#ifndef WD_RUN_STATUS_H
#define WD_RUN_STATUS_H

#include <stddef.h>
#include <stdint.h>

struct run_holds;
struct run_state;
struct wd_cgroup;
struct wd_limits;

struct run_status {
	int timer; /* a 1 s timerfd; -1 when there is no status line */
	uint64_t t0; /* CLOCK_MONOTONIC ns of the command's start */
	const struct wd_limits *lim; /* the sandbox's v1 cgroups (the figures' files), or NULL */
};

/*
 * With stderr a terminal, no --quiet and the pty relay showing the command's output on that
 * same terminal: arm the timer. 0 (s->timer -1 when there is to be no line) or -errno.
 */
int wd_run_status_start(struct run_status *s, const struct run_state *st, uint64_t t0);
/* The timer fired: the line, made afresh, to the relay. */
void wd_run_status_tick(struct run_status *s, struct run_state *st, const struct wd_cgroup *cg,
			const struct run_holds *h);
/* The line in words into @buf (for tests too). */
void wd_run_status_format(char *buf, size_t bufsz, double elapsed_s, uint64_t mem, int have_mem,
			  uint64_t pids, int have_pids, uint64_t denials, uint64_t waiting,
			  const char *held);
void wd_run_status_stop(struct run_status *s);

#endif
