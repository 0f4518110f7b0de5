/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control socket of one embedded run: /run/warden/run-<sandbox>.sock, for root and the
 * policy's hold.approvers, newline-delimited JSON requests and replies (docs/control.md). It
 * serves the run's holds, so
 * `warden holds | approve | deny | prompt` from another terminal can answer them.
 */
#ifndef WD_CTL_H
#define WD_CTL_H

#include <stdbool.h>
#include <stdint.h>

#include "supervisor/hold/engine.h"

#define WD_RUN_DIR "/run/warden"

/*
 * Where runs put their sockets: $WARDEN_RUN_DIR, else /run/warden. Tests give each its own, so
 * suites running side by side on one machine never answer each other's holds.
 */
const char *wd_run_dir(void);
/*
 * Make @dir if missing; 0 if it is a directory only root may write (and, for @approvers, that
 * others may search), else -errno, said why.
 */
int wd_run_dir_check(const char *dir, bool approvers);
#define WD_CTL_PROTO 1
/* Most fds wd_ctl_poll_fds returns: the listening socket and every client. */
#define WD_CTL_POLL_MAX 33

struct wd_ctl;

/*
 * @rules (which must outlive the socket) name the approvers: without any the socket is root's
 * alone (mode 0600); with some, anyone may connect and each request is checked against the
 * peer's credentials.
 */
int wd_ctl_open(struct wd_ctl **out, const char *sandbox, struct wd_hold_engine *holds,
		const struct wd_hold_rules *rules);
void wd_ctl_close(struct wd_ctl *c);

/*
 * Its fds change as clients come and go: call wd_ctl_poll_fds to get the set to watch, and
 * wd_ctl_on_ready when one of them is readable.
 */
int wd_ctl_poll_fds(const struct wd_ctl *c, int *fds, int max);
void wd_ctl_on_ready(struct wd_ctl *c, int fd);

/* Tell subscribers (and write nothing else): a hold, or a decision. */
void wd_ctl_publish_hold(struct wd_ctl *c, const struct wd_hold_view *v);
void wd_ctl_publish_decision(struct wd_ctl *c, const struct wd_hold_view *v, bool allow,
			     const char *who, int result);

/* The JSON object of a hold, as every surface shows it (caller frees with cJSON_Delete). */
struct cJSON *wd_hold_view_json(const char *sandbox, const struct wd_hold_view *v);

#endif
