/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A spare: a run's supervisor that wardend makes before any request names it, for the policy
 * its last run had (docs/design.md#spares). It makes the whole sandbox (cgroup, backend entry,
 * keeper, holds, namespaces, init, the command's process confined) up to the command's exec,
 * says so with its policy's hash, and waits. The run request that claims it sends what only a
 * request knows: the command, where its audit and report go, and its fds. A spare serves one
 * run and ends with it: no sandbox ever serves two.
 *
 * wardend -> spare, on wd_run_opts.spare_fd (SOCK_SEQPACKET), one message:
 *   {"argv":[...],"audit":P,"report":P,"stdout":P,"stderr":P,"daemon":TEXT,"fds":[NAME...]}
 *   with the fds named, in order, among "ready", "stdin", "out", "err", "keep_out",
 *   "keep_err" (wd_run_opts' ready_fd, fd 0, out_fd[1], out_fd[2], keep_out[0], keep_out[1]).
 * spare -> wardend, before that: "ready POLICY_SHA256" once it waits.
 */
#ifndef WD_SPARE_H
#define WD_SPARE_H

#include <cJSON.h>

struct wd_run_opts;

enum wd_spare_fd {
	WD_SPARE_READY,
	WD_SPARE_STDIN,
	WD_SPARE_OUT,
	WD_SPARE_ERR,
	WD_SPARE_KEEP_OUT,
	WD_SPARE_KEEP_ERR,
	WD_SPARE_FDS,
};

/* The fds' names in a claim, by enum wd_spare_fd. */
extern const char *const wd_spare_fd_names[WD_SPARE_FDS];

/* Most bytes of a claim message. */
#define WD_SPARE_CLAIM_MAX (256 * 1024)

struct wd_spare_claim {
	cJSON *msg;
	char **argv;	      /* into msg */
	int fd[WD_SPARE_FDS]; /* -1: not given */
};

/*
 * Wait for the claim on @sock, or for a signal on @sigfd (then -EINTR: the spare is ended
 * unclaimed); the socket's end (wardend gone, or done with it) is -ECANCELED. 0, or -errno.
 */
int wd_spare_claim_wait(int sock, int sigfd, struct wd_spare_claim *c);

/*
 * The claim into @o (the spare's own options, copied: argv, sinks, fds, wardend's state), and
 * this process's fds 0-2 made the run's: the request's stdin, stdout and stderr files opened
 * as wardend's forked supervisors open them. 0, or -errno (said why).
 */
int wd_spare_claim_apply(const struct wd_spare_claim *c, struct wd_run_opts *o);

void wd_spare_claim_free(struct wd_spare_claim *c);

struct wd_policy;

/*
 * The SHA-256 of @p as the keeper gets it (its effective warden.policy/1 document, printed
 * compactly), in hex: two policies with the same hash confine alike. 0, or -ENOMEM.
 */
int wd_spare_policy_hash(const struct wd_policy *p, char hex[65]);

#endif
