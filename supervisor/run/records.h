/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The record path of a run: what the kernel's ring buffer sends becomes audit lines, with what only
 * the supervisor can add (the exe, a relative target made absolute, the rule a Landlock verdict
 * came from, the waiting room's refusal behind a syscall-exit denial). Shared by run and adopt.
 */
#ifndef WD_RUN_RECORDS_H
#define WD_RUN_RECORDS_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "audit/jsonl.h"
#include "supervisor/run/exe_cache.h"

struct wd_pty;
struct run_dns;

/*
 * A call the waiting room failed (denied, or approved and failed): on landlock the syscall-exit
 * recorder then sees its EPERM too, and would name no rule ("default") for it.
 */
struct refusal {
	uint32_t tid;
	uint16_t op; /* WD_OP_* the record will carry */
	char rule[48];
	uint64_t ns;
};

/*
 * Kernel records are formatted straight into one buffer and written out with one write(2) per
 * ring-buffer drain, or as soon as the next record would take it past this: under a flood the
 * writes are of 64 KiB, each ending on a line's end, and nothing waits past its drain.
 */
#define WD_AUDIT_BATCH (64 * 1024)

/* What /proc/PID/exe said of a task that has not exec'd, and when: kept this long. */
struct proc_exe {
	uint32_t pid; /* 0: empty */
	uint64_t ns; /* CLOCK_MONOTONIC_COARSE */
	char exe[PATH_MAX];
};

#define WD_PROC_EXES 4
#define WD_PROC_EXE_NS 10000000ull

#define WD_REFUSALS 16
#define WD_REFUSAL_NS 2000000000ull /* the record follows within milliseconds: be generous */

struct run_limits;

struct run_state {
	struct wd_audit_ctx actx;
	FILE *audit;
	struct wd_exe_cache exes;
	uint64_t malformed; /* records the kernel sent that did not parse */
	/*
	 * The sandbox whose records these are (its cgroup id; 0 until known). A record of any
	 * other is dropped, counted with the malformed: a ring wardend reuses run after run carries only
	 * the current run's, and none of an earlier one reaches this run's audit stream.
	 */
	uint64_t sandbox_id;
	struct refusal refused[WD_REFUSALS];
	unsigned int next_refusal;
	struct wd_pty *pty; /* the command's own terminal, relayed in the run loop; may be NULL */
	struct wd_output *out; /* limits.output's pipes, read in the run loop; may be NULL */
	struct run_limits *lim; /* wall time, cpu time, the signal's grace (supervise.h); may be NULL */
	struct run_dns *dns; /* the sandbox's DNS forwarder (supervisor/run/dns.h); may be NULL */
	struct run_status *status; /* the live status line (supervisor/run/status.h); may be NULL */
	struct wd_execs *execs; /* a persistent sandbox's commands (supervisor/run/execs.h); may be NULL */
	uint64_t denials_seen; /* denial records read so far, for the status line */
	struct proc_exe proc_exe[WD_PROC_EXES];
	size_t batch_len; /* bytes of whole lines in batch, not yet written */
	uint64_t batch_writes; /* write(2) calls that wrote batches, for tests and benchmarks */
	bool write_failed; /* said once */
	char batch[WD_AUDIT_BATCH];
};

uint64_t wd_clock_ns(clockid_t clk);
/*
 * A line of ours (malloc'd, freed here; NULL when it could not be made): after the records
 * before it, into the batch; with @flush, the batch is written out at once.
 */
void wd_run_audit_put(struct run_state *st, char *line, bool flush);
void wd_run_audit_write(struct run_state *st, char *line);
/* The batch to the audit file: once after each ring-buffer drain (supervise.c). */
void wd_run_audit_flush(struct run_state *st);
/* The ring buffer's callback: one kernel record, @ctx the run_state. */
int wd_run_on_record(void *ctx, void *rec, size_t size);

#endif
