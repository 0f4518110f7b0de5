// SPDX-License-Identifier: GPL-2.0
/* The run report, warden.report/1, written once the run ends (supervisor/run/report.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "supervisor/util/log.h"
#include "supervisor/run/report.h"

/* "net": what net.egress_rate let through and dropped (docs/policy.md, "Egress rate"). */
static void add_egress(cJSON *o, const struct wd_audit_egress *e)
{
	cJSON *net = cJSON_AddObjectToObject(o, "net");

	if (!net)
		return;
	cJSON_AddNumberToObject(net, "egress_rate", (double)e->rate);
	cJSON_AddNumberToObject(net, "egress_bytes", (double)e->bytes);
	cJSON_AddNumberToObject(net, "egress_dropped_bytes", (double)e->dropped_bytes);
	cJSON_AddNumberToObject(net, "egress_dropped_packets", (double)e->dropped_packets);
}

/* "output": what limits.output passed on and dropped (docs/report.md). */
static void add_output(cJSON *o, const struct wd_audit_output *out)
{
	cJSON *j = cJSON_AddObjectToObject(o, "output");

	if (!j)
		return;
	cJSON_AddNumberToObject(j, "limit_bytes", (double)out->limit);
	cJSON_AddNumberToObject(j, "passed_bytes", (double)out->passed);
	cJSON_AddNumberToObject(j, "dropped_bytes", (double)out->dropped);
	cJSON_AddNumberToObject(j, "dropped_blocked_bytes", (double)out->dropped_blocked);
	cJSON_AddBoolToObject(j, "cut", out->cut);
}

static void add_u64_or_null(cJSON *o, const char *key, bool have, uint64_t v)
{
	if (have)
		cJSON_AddNumberToObject(o, key, (double)v);
	else
		cJSON_AddNullToObject(o, key);
}

static void add_usage(cJSON *o, const struct wd_report *r)
{
	cJSON *u = cJSON_AddObjectToObject(o, "usage");

	if (!u)
		return;
	if (r->have_cpu) {
		cJSON_AddNumberToObject(u, "cpu_time_s", r->cpu_time_s);
		cJSON_AddNumberToObject(u, "user_time_s", r->user_time_s);
		cJSON_AddNumberToObject(u, "system_time_s", r->system_time_s);
	} else {
		cJSON_AddNullToObject(u, "cpu_time_s");
		cJSON_AddNullToObject(u, "user_time_s");
		cJSON_AddNullToObject(u, "system_time_s");
	}
	add_u64_or_null(u, "peak_memory_bytes", r->have_mem, r->peak_memory);
	add_u64_or_null(u, "max_pids", r->have_pids, r->max_pids);
	add_u64_or_null(u, "oom_kills", r->have_mem, r->oom_kills);
	add_u64_or_null(u, "pids_max_hits", r->have_pids, r->pids_max_hits);
}

static void add_limits(cJSON *o, const struct wd_report *r)
{
	cJSON *ls = cJSON_AddObjectToObject(o, "limits");

	for (size_t i = 0; ls && i < r->n_limits; i++) {
		const struct wd_report_limit *l = &r->limits[i];
		cJSON *e = cJSON_AddObjectToObject(ls, l->name);

		if (!e)
			return;
		cJSON_AddNumberToObject(e, "value", (double)l->value);
		cJSON_AddStringToObject(e, "unit", l->unit);
		cJSON_AddStringToObject(e, "mechanism", l->mechanism ? l->mechanism : "");
		cJSON_AddBoolToObject(e, "hit", l->hit);
		if (l->have_figure) {
			cJSON_AddNumberToObject(e, "figure", (double)l->figure);
			cJSON_AddStringToObject(e, "figure_unit", l->figure_unit);
		}
	}
}

char *wd_report_json(const struct wd_report *r)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *argv;
	char *s;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "schema", WD_REPORT_SCHEMA);
	cJSON_AddStringToObject(o, "backend", r->backend ? r->backend : "");
	cJSON_AddStringToObject(o, "sandbox", r->sandbox ? r->sandbox : "");
	cJSON_AddStringToObject(o, "status", r->status);
	cJSON_AddNumberToObject(o, "exit_code", r->exit_code);
	if (r->signal)
		cJSON_AddNumberToObject(o, "signal", r->signal);
	else
		cJSON_AddNullToObject(o, "signal");
	if (r->start_errno)
		cJSON_AddStringToObject(o, "error", strerror(r->start_errno));
	else if (r->error)
		cJSON_AddStringToObject(o, "error", r->error);
	cJSON_AddNumberToObject(o, "wall_time_s", r->wall_time_s);
	add_usage(o, r);
	add_limits(o, r);
	cJSON_AddNumberToObject(o, "denials", (double)r->denials);
	cJSON_AddNumberToObject(o, "lost_records", (double)r->lost_records);
	cJSON_AddNumberToObject(o, "holds", (double)r->holds);
	if (r->has_egress)
		add_egress(o, &r->egress);
	if (r->has_output)
		add_output(o, &r->output);
	argv = cJSON_AddArrayToObject(o, "argv");
	for (size_t i = 0; argv && r->argv && r->argv[i]; i++)
		cJSON_AddItemToArray(argv, cJSON_CreateString(r->argv[i]));
	s = cJSON_Print(o);
	cJSON_Delete(o);
	return s;
}

int wd_report_open(struct wd_out_file *f, const char *path, wd_dir_check_fn check, void *arg)
{
	return wd_out_replace_open(f, "report", path, check, arg);
}

int wd_report_commit(struct wd_out_file *f, const struct wd_report *r)
{
	char *json = wd_report_json(r), *line = NULL;
	int err = -ENOMEM;

	if (json && asprintf(&line, "%s\n", json) >= 0)
		err = wd_out_replace_commit(f, line, strlen(line));
	else
		wd_out_close(f);
	free(line);
	free(json);
	return err;
}
