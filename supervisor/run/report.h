/* SPDX-License-Identifier: GPL-2.0 */
/* The run report: one JSON object, schema warden.report/1 (docs/report.md). */
#ifndef WD_REPORT_H
#define WD_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "audit/jsonl.h"

#include "supervisor/util/fsutil.h"

#define WD_REPORT_SCHEMA "warden.report/1"

struct wd_report {
	const char *backend;
	const char *sandbox;
	const char *status; /* "completed" | "killed" | "failed_to_start" */
	int exit_code; /* as warden exits: the command's, or 128+signal */
	int signal; /* 0 unless killed */
	int start_errno; /* for failed_to_start: why execve failed */
	const char *error; /* for failed_to_start: why warden could not set the sandbox up */
	double wall_time_s;
	uint64_t denials;
	uint64_t lost_records;
	uint64_t holds; /* operations that waited for a decision */
	/* net.egress_rate: the "net" object, when the policy set a rate */
	bool has_egress;
	struct wd_audit_egress egress;
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

#endif
