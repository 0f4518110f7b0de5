/* SPDX-License-Identifier: GPL-2.0 */
/*
 * limits.output (`warden run`): the command's stdout and stderr are pipes the run loop reads,
 * passing the bytes on to warden's own fd 1 and fd 2 as they come, up to the cap (both
 * together), then reading and discarding the rest, counted. The caller's fds are written
 * without blocking: while one does not take what is buffered (64 KiB per stream), what comes
 * next is dropped and counted too, so the run loop never waits on the caller.
 */
#ifndef WD_RUN_OUTPUT_H
#define WD_RUN_OUTPUT_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WD_OUTPUT_BUF 65536

struct wd_output_stream {
	int rd; /* the pipe's read end, or -1 (not piped, or dry) */
	int wr; /* its write end until the command is spawned, else -1 */
	int to; /* where it goes: warden's fd 1 or 2, or its own non-blocking open of it */
	bool own_to; /* @to is warden's own open, closed at the end */
	bool is_sock; /* @to is a socket: send(MSG_DONTWAIT) */
	bool gone; /* the caller's side failed (closed): what comes is dropped */
	char buf[WD_OUTPUT_BUF];
	size_t len, off;
};

struct wd_output {
	bool on; /* the policy set limits.output */
	uint64_t cap; /* bytes of stdout and stderr together passed on */
	uint64_t admitted; /* what the cap has counted: read under it */
	uint64_t passed, dropped; /* dropped: over the cap, or not taken by the caller */
	uint64_t dropped_blocked; /* of those, not taken by the caller (or it closed) */
	bool cut; /* the cap was reached and something more came */
	unsigned int fds; /* bit N: the command's fd N is a pipe of ours */
	struct wd_output_stream s[2]; /* fd 1, fd 2 */
};

#define WD_OUTPUT_POLL_MAX 4

void wd_output_init(struct wd_output *o);
/*
 * Pipes for those of fds 1 and 2 whose bit is clear in @tty_fds (they are not the command's
 * pty), capped at @cap bytes, passed on to warden's own fd N, or to @to[N] where that is above
 * 2. 0 or -errno (said why).
 */
int wd_output_open(struct wd_output *o, uint64_t cap, unsigned int tty_fds, const int to[3]);
/* The write ends for the child: @fd_for[N] for the command's fd N (1, 2), else -1. */
void wd_output_child_fds(const struct wd_output *o, int fd_for[3]);
/* The command has its write ends: warden's copies close. */
void wd_output_started(struct wd_output *o);
/* The fds to poll now, into @pfd (at most WD_OUTPUT_POLL_MAX); how many. */
int wd_output_poll_fds(struct wd_output *o, struct pollfd *pfd, int max);
/* @pfd (one of those) is ready. */
void wd_output_on_ready(struct wd_output *o, const struct pollfd *pfd);
/*
 * At the end, the sandbox empty: everything left in the pipes (until every write end is
 * closed), and what is buffered, given a short time to go to the caller. Then close.
 */
void wd_output_drain(struct wd_output *o);
void wd_output_close(struct wd_output *o);

/*
 * The pty's cap (supervisor/run/pty.c): of @n bytes just read, how many may pass; the rest is
 * counted dropped.
 */
size_t wd_output_admit(struct wd_output *o, size_t n);

#endif
