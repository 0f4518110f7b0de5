// SPDX-License-Identifier: GPL-2.0
/* The run report, warden.report/2, written once the run ends (supervisor/run/report.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "supervisor/util/log.h"
#include "supervisor/run/report.h"
#include "supervisor/sandbox/limits.h"

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
	cJSON *argv, *unknown;
	char *s;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "schema", WD_REPORT_SCHEMA);
	cJSON_AddStringToObject(o, "writer", r->writer ? r->writer : "run");
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
	if (r->reason)
		cJSON_AddStringToObject(o, "reason", r->reason);
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
	unknown = cJSON_AddArrayToObject(o, "unknown");
	for (size_t i = 0; unknown && i < r->n_unknown; i++)
		cJSON_AddItemToArray(unknown, cJSON_CreateString(r->unknown[i]));
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

void wd_report_unknown(struct wd_report *r, const char *name)
{
	for (size_t i = 0; i < r->n_unknown; i++)
		if (strcmp(r->unknown[i], name) == 0)
			return;
	if (r->n_unknown < WD_REPORT_UNKNOWN)
		r->unknown[r->n_unknown++] = name;
}

static const char *kept_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

int wd_report_kept_file(struct wd_out_file *f, const cJSON *state, int fd, int dirfd)
{
	const cJSON *rep = cJSON_GetObjectItemCaseSensitive(state, "report");
	const char *name = kept_str(rep, "name"), *tmp = kept_str(rep, "tmp");
	const char *path = kept_str(rep, "path");

	*f = (struct wd_out_file)WD_OUT_FILE_INIT;
	f->what = "report";
	if (fd < 0 || dirfd < 0 || !name || !tmp || !path)
		return -ENOENT;
	/* one name in the pinned directory, never a path: the state is warden's, but be sure */
	if (!name[0] || strchr(name, '/') || strchr(tmp, '/') ||
	    strlen(name) >= sizeof(f->name) || strlen(tmp) >= sizeof(f->tmp))
		return -EINVAL;
	strcpy(f->name, name);
	strcpy(f->tmp, tmp);
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	f->dirfd = f->fd >= 0 ? fcntl(dirfd, F_DUPFD_CLOEXEC, 3) : -1;
	if (f->fd < 0 || f->dirfd < 0) {
		int err = -errno;

		/* not wd_out_close(): the temporary name is not ours to remove yet */
		f->tmp[0] = 0;
		wd_out_close(f);
		return err;
	}
	return 0;
}

/* The limits as the run applied them, from the state; whether one was hit is not known. */
static void kept_limits(struct wd_report *r, const cJSON *state)
{
	const cJSON *ls = cJSON_GetObjectItemCaseSensitive(state, "limits"), *l;

	r->n_limits = 0;
	cJSON_ArrayForEach(l, ls) {
		const char *name = kept_str(l, "name"), *unit = kept_str(l, "unit");
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(l, "value");
		struct wd_report_limit *e = &r->limits[r->n_limits];

		if (r->n_limits >= WD_REPORT_LIMITS || !name || !unit || !cJSON_IsNumber(v) ||
		    v->valuedouble < 0)
			continue;
		*e = (struct wd_report_limit){ .name = name, .unit = unit,
					       .value = (uint64_t)v->valuedouble,
					       .mechanism = kept_str(l, "mechanism") };
		if (!e->mechanism || !e->mechanism[0])
			e->mechanism = "unknown";
		r->n_limits++;
	}
	if (r->n_limits)
		wd_report_unknown(r, "limits.hit");
}

int wd_report_from_kept(struct wd_report *r, const cJSON *state, char ***argv)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(state, "argv"), *e;
	const cJSON *t0 = cJSON_GetObjectItemCaseSensitive(state, "started_ns");
	struct timespec now;
	size_t n = 0;

	r->backend = kept_str(state, "backend");
	r->sandbox = kept_str(state, "sandbox");
	*argv = calloc((size_t)cJSON_GetArraySize(a) + 1, sizeof(**argv));
	if (!*argv)
		return -ENOMEM;
	cJSON_ArrayForEach(e, a)
		if (cJSON_IsString(e))
			(*argv)[n++] = e->valuestring;
	r->argv = *argv;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (cJSON_IsNumber(t0)) {
		double ns = (double)now.tv_sec * 1e9 + (double)now.tv_nsec - t0->valuedouble;

		r->wall_time_s = ns > 0 ? ns / 1e9 : 0;
	} else {
		wd_report_unknown(r, "wall_time_s");
	}
	kept_limits(r, state);
	return 0;
}

void wd_report_usage(struct wd_report *r, const struct wd_limit_usage *u)
{
	r->have_cpu = u->have_cpu;
	r->cpu_time_s = (double)u->cpu_usec / 1e6;
	r->user_time_s = (double)u->user_usec / 1e6;
	r->system_time_s = (double)u->system_usec / 1e6;
	r->have_mem = u->have_mem;
	r->peak_memory = u->mem_peak;
	r->oom_kills = u->oom_kills;
	r->have_pids = u->have_pids;
	r->max_pids = u->pids_peak;
	r->pids_max_hits = u->pids_max_hits;
}
