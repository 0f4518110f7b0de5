/* SPDX-License-Identifier: GPL-2.0 */
/* The run report: one JSON object, schema warden.report/2 (docs/report.md). */
#ifndef WD_REPORT_H
#define WD_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "audit/jsonl.h"

#include "supervisor/util/fsutil.h"

#define WD_REPORT_SCHEMA "warden.report/2"

struct cJSON;

/* One limit of the policy as the run applied it. */
struct wd_report_limit {
	const char *name; /* its policy key */
	uint64_t value; /* in @unit */
	const char *unit; /* "ms", "bytes", "tasks", "millicpus" */
	const char *mechanism; /* what applied it (supervisor/sandbox/limits.c) */
	bool hit; /* the sandbox reached it */
	bool have_figure;
	uint64_t figure; /* what crossed it (or how often it was reached), in @figure_unit */
	const char *figure_unit;
};

#define WD_REPORT_LIMITS 9
#define WD_REPORT_UNKNOWN 12

struct wd_report {
	/* who wrote it: "run" (warden run), "adopt" (a successor), "keeper" (nobody adopted) */
	const char *writer;
	const char *reason; /* adopt, keeper: what ended the run, in words; NULL for none */
	/* the fields this writer could not know (their values are null, 0 or partial) */
	const char *unknown[WD_REPORT_UNKNOWN];
	size_t n_unknown;
	const char *backend;
	const char *sandbox;
	/*
	 * "completed" | "killed" (by a signal of its own) | "timeout" | "oom" | "signal" (warden
	 * was told to stop) | "failed_to_start" | "denied_to_start" (the policy refused the exec)
	 * | "idle" | "destroyed" (a persistent sandbox: its idle timeout ran out, or destroy)
	 */
	const char *status;
	int exit_code; /* as warden exits: the command's, 128+signal, or warden's own */
	int signal; /* what killed the command, or for "signal" what warden got; 0 otherwise */
	int start_errno; /* for failed_to_start: why execve failed */
	const char *error; /* for failed_to_start: why warden could not set the sandbox up */
	double wall_time_s;
	bool have_cpu, have_mem, have_pids;
	double cpu_time_s, user_time_s, system_time_s; /* the sandbox's cgroup's, all its tasks */
	uint64_t peak_memory; /* bytes */
	uint64_t max_pids;
	uint64_t oom_kills, pids_max_hits;
	struct wd_report_limit limits[WD_REPORT_LIMITS];
	size_t n_limits;
	uint64_t denials;
	uint64_t lost_records;
	uint64_t holds; /* operations that waited for a decision */
	/* net.egress_rate: the "net" object, when the policy set a rate */
	bool has_egress;
	struct wd_audit_egress egress;
	/* limits.output: the "output" object, when the policy set it */
	bool has_output;
	struct wd_audit_output output;
	char *const *argv;
};

/* Serialise @r; malloc'd string, or NULL on allocation failure. */
char *wd_report_json(const struct wd_report *r);
/*
 * Before the command runs: pin @path's directory (each directory on the way through @check, see
 * fsutil.h) and make the unnamed file the report will be, mode 0600; a path refused or not
 * writable is said now, so a run whose report cannot be written never runs. 0 or -errno.
 */
int wd_report_open(struct wd_out_file *f, const char *path, wd_dir_check_fn check, void *arg);
/* At the end: write @r into it and rename it over the name (atomic). Closes @f. 0 or -errno. */
int wd_report_commit(struct wd_out_file *f, const struct wd_report *r);

/*
 * A run's report, as its keeper and a successor write it (docs/report.md, "After warden"):
 * the warden.keep/1 state says what the run knew of it (the report file's name in the directory
 * pinned by @dirfd, the start time, argv, the limits as applied: run.c tell_keeper()); @fd is the
 * unnamed file warden made, handed over as an fd, never reopened by its name.
 */
/* Into @f, copies of @fd and @dirfd with the names of @state's "report". 0, -ENOENT (no report). */
int wd_report_kept_file(struct wd_out_file *f, const struct cJSON *state, int fd, int dirfd);
/* @r filled from @state: sandbox, backend, argv (*@argv, free it), the limits, wall time so far. */
int wd_report_from_kept(struct wd_report *r, const struct cJSON *state, char ***argv);
/* @name among @r's unknown fields. */
void wd_report_unknown(struct wd_report *r, const char *name);

struct wd_limit_usage;
/* The cgroup's figures (supervisor/sandbox/limits.h) into @r: CPU times, peak memory, pids. */
void wd_report_usage(struct wd_report *r, const struct wd_limit_usage *u);

#endif
