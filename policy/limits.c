// SPDX-License-Identifier: GPL-2.0
/* The "limits" section: each limit's unit and bounds, and parsing its value. */
#include <stdio.h>
#include <string.h>

#include "policy/parse_internal.h"
#include "policy/policy.h"
#include "policy/units.h"

static const struct {
	const char *name;
	enum { U_DURATION, U_SIZE, U_COUNT, U_RATE, U_CPUS } unit;
	uint64_t min;
	uint64_t max;
} limit_defs[WD_LIMIT_NR] = {
	[WD_LIMIT_WALL_TIME] = { "wall_time", U_DURATION, 1, UINT64_MAX },
	[WD_LIMIT_CPU_TIME] = { "cpu_time", U_DURATION, 1, UINT64_MAX },
	[WD_LIMIT_MEMORY] = { "memory", U_SIZE, 1 << 20, UINT64_MAX },
	[WD_LIMIT_PIDS] = { "pids", U_COUNT, 1, 4194304 },
	[WD_LIMIT_FORK_RATE] = { "fork_rate", U_RATE, 1, UINT64_MAX },
	[WD_LIMIT_OUTPUT] = { "output", U_SIZE, 0, UINT64_MAX },
	/* thousandths of a CPU: 0.01 to 1024 CPUs */
	[WD_LIMIT_CPU] = { "cpu", U_CPUS, 10, 1024000 },
	[WD_LIMIT_KILL_GRACE] = { "kill_grace", U_DURATION, 1, 3600000 },
	[WD_LIMIT_DISK] = { "disk", U_SIZE, 1 << 20, UINT64_MAX },
};

const char *wd_limit_name(enum wd_limit_kind k)
{
	return (unsigned int)k < WD_LIMIT_NR ? limit_defs[k].name : NULL;
}
static void parse_limit(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	struct wd_limit *l = NULL;
	enum wd_limit_kind k = 0;
	uint64_t value = 0, per_ms = 0;
	char why[300], lo[48] = "";
	int err = 0;

	for (int i = 0; i < WD_LIMIT_NR; i++) {
		if (strcmp(limit_defs[i].name, name) == 0) {
			k = (enum wd_limit_kind)i;
			l = &c->p->limits[i];
		}
	}
	if (!l)
		return;
	switch (limit_defs[k].unit) {
	case U_COUNT:
		if (!wdp_check_uint(c, v, ptr, (double)limit_defs[k].min, (double)limit_defs[k].max,
				"a count", &value))
			return;
		break;
	case U_DURATION:
		if (!wdp_check_string(c, v, ptr, "a duration such as \"30s\", \"5m\" or \"1h30m\""))
			return;
		err = wd_parse_duration(v->valuestring, &value, why, sizeof(why));
		wd_format_duration(limit_defs[k].min, lo, sizeof(lo));
		break;
	case U_SIZE:
		if (!wdp_check_string(c, v, ptr, "a size such as \"256MiB\""))
			return;
		err = wd_parse_size(v->valuestring, &value, why, sizeof(why));
		wd_format_size(limit_defs[k].min, lo, sizeof(lo));
		break;
	case U_CPUS:
		if (!cJSON_IsNumber(v) || v->valuedouble < 0.01 || v->valuedouble > 1024) {
			perr(c, ptr, "%s must be a number of CPUs from 0.01 to 1024, such as 0.5",
			     name);
			return;
		}
		value = (uint64_t)(v->valuedouble * 1000 + 0.5);
		break;
	case U_RATE:
		if (!wdp_check_string(c, v, ptr, "a rate such as \"50/s\""))
			return;
		err = wd_parse_rate(v->valuestring, false, &value, &per_ms, why, sizeof(why));
		snprintf(lo, sizeof(lo), "1/h");
		break;
	}
	if (err) {
		perr(c, ptr, "%s", why);
		return;
	}
	if (value < limit_defs[k].min) {
		perr(c, ptr, "%s must be at least %s (leave it out for no limit)", name, lo);
		return;
	}
	l->value = value;
	l->per_ms = per_ms;
	l->s.set = true;
}

const struct key wdp_limit_keys[] = {
	{ .name = "wall_time", .parse = parse_limit },
	{ .name = "cpu_time", .parse = parse_limit },
	{ .name = "memory", .parse = parse_limit },
	{ .name = "pids", .parse = parse_limit },
	{ .name = "fork_rate", .parse = parse_limit },
	{ .name = "output", .parse = parse_limit },
	{ .name = "cpu", .parse = parse_limit },
	{ .name = "kill_grace", .parse = parse_limit },
	{ .name = "disk", .parse = parse_limit },
	{ 0 },
};
