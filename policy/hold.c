// SPDX-License-Identifier: GPL-2.0
/*
 * The "hold" section: how long an operator has to decide, what happens then, who may decide,
 * io_uring, and the delete burst that is held.
 */
#include <stdio.h>
#include <string.h>

#include "policy/parse_internal.h"
#include "policy/policy.h"
#include "policy/units.h"

static void parse_hold_timeout(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	(void)name;
	if (!wdp_check_duration(c, v, ptr, "a duration such as \"5m\"", &c->p->hold_timeout_ms))
		return;
	if (c->p->hold_timeout_ms < 1000) {
		perr(c, ptr, "a hold timeout must be at least 1s");
		return;
	}
	c->p->hold_timeout_set.set = true;
}

static void parse_hold_on_timeout(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	(void)name;
	wdp_deny_allow(c, v, ptr, &c->p->hold_on_timeout, &c->p->hold_on_timeout_set);
}

static void approver_item(struct pctx *c, const cJSON *item, const char *ip)
{
	const char *s, *who;

	if (!wdp_check_string(c, item, ip, "an approver (\"user:NAME\" or \"group:NAME\")"))
		return;
	s = item->valuestring;
	who = strncmp(s, "user:", 5) == 0    ? s + 5
	      : strncmp(s, "group:", 6) == 0 ? s + 6
					     : NULL;
	if (!who || !wdp_name_ok(who)) {
		perr(c, ip,
		     "expected \"user:NAME\" or \"group:NAME\" (a name or a numeric id), "
		     "got \"%s\"",
		     s);
		return;
	}
	wdp_list_add_once(c, &c->p->hold_approvers, s);
}

static void parse_hold_io_uring(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	static const char *const vals[] = { "refuse", "allow", NULL };
	int i = wdp_pick_set(c, v, ptr, vals, &c->p->hold_io_uring_set);

	(void)name;
	if (i >= 0)
		c->p->hold_io_uring = i == 1;
}

static void burst_count(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	uint64_t n;

	(void)name;
	if (wdp_check_uint(c, v, ptr, 1, WD_HOLD_BURST_COUNT_MAX, "how many deletes may pass", &n))
		c->p->hold_burst_count = (uint32_t)n;
}

static void burst_window(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	char max[32];

	(void)name;
	if (!wdp_check_duration(c, v, ptr, "a duration such as \"1s\"",
				&c->p->hold_burst_window_ms))
		return;
	if (c->p->hold_burst_window_ms == 0) {
		perr(c, ptr, "a burst window must be at least 1ms");
	} else if (c->p->hold_burst_window_ms > WD_HOLD_BURST_WINDOW_MAX_MS) {
		wd_format_duration(WD_HOLD_BURST_WINDOW_MAX_MS, max, sizeof(max));
		perr(c, ptr, "a burst window may be at most %s", max);
	}
}

static const struct key burst_keys[] = {
	{ .name = "count", .parse = burst_count },
	{ .name = "window", .parse = burst_window },
	{ 0 },
};

/* {"count": N, "window": DURATION}: both required, as neither has a sensible default. */
static void parse_hold_delete_burst(struct pctx *c, const cJSON *v, const char *ptr,
				    const char *name)
{
	size_t before = c->errs->n + c->errs->dropped;

	(void)name;
	c->p->hold_burst_count = 0;
	c->p->hold_burst_window_ms = 0;
	wdp_parse_members(c, v, ptr, burst_keys, "an object with \"count\" and \"window\"");
	if (c->errs->n + c->errs->dropped != before)
		return;
	if (!cJSON_GetObjectItemCaseSensitive(v, "count") ||
	    !cJSON_GetObjectItemCaseSensitive(v, "window")) {
		perr(c, ptr, "missing \"%s\" (a burst is more than \"count\" deletes within "
			     "\"window\": {\"count\": 100, \"window\": \"1s\"})",
		     cJSON_GetObjectItemCaseSensitive(v, "count") ? "window" : "count");
		return;
	}
	c->p->hold_burst_set.set = true;
}

const struct key wdp_hold_keys[] = {
	{ .name = "timeout", .parse = parse_hold_timeout },
	{ .name = "on_timeout", .parse = parse_hold_on_timeout },
	{ .name = "approvers", .item = approver_item,
	  .what = "approvers (\"user:NAME\", \"group:NAME\")" },
	{ .name = "io_uring", .parse = parse_hold_io_uring },
	{ .name = "delete_burst", .parse = parse_hold_delete_burst, .sub = burst_keys },
	{ 0 },
};
