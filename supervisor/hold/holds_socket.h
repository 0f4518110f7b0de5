/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hold/: the holds socket of one embedded run: /run/warden/run-<sandbox>.sock, for root and the
 * policy's hold.approvers, newline-delimited JSON requests and replies (docs/control.md). It
 * serves the run's holds, so
 * `warden holds | approve | deny | prompt` from another terminal can answer them.
 */
#ifndef WD_CTL_H
#define WD_CTL_H

#include <stdbool.h>
#include <stdint.h>

#include "supervisor/hold/engine.h"
/* the run directory the socket is in (callers of this header use it too) */
#include "supervisor/ipc/rundir.h"

#define WD_CTL_PROTO 1
/*
 * The longest request line the socket takes, and the most it queues for one client (a listing
 * is one line, however many holds): the CLI reads reply lines up to that bound.
 */
#define WD_CTL_LINE_MAX 65536
#define WD_CTL_OUT_MAX (256u << 20)
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
/* Every hold of @e pending now, as wd_hold_view_json() gives each: a new array (NULL: ENOMEM). */
struct cJSON *wd_hold_list_json(struct wd_hold_engine *e, const char *sandbox);

#endif
