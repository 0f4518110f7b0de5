/* SPDX-License-Identifier: GPL-2.0 */
/* Loader of bpf/wd_lsm.bpf.c: programs, per-sandbox map entries, the audit ring buffer. */
#ifndef WD_LSM_H
#define WD_LSM_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/wd_abi.h"
#include "policy/compile.h"

struct wd_lsm;

/* Called for each record off the ring buffer (@size bytes at @rec). */
typedef int (*wd_record_fn)(void *ctx, void *rec, size_t size);

/* Load and attach the file and exec programs; records go to @fn. */
int wd_lsm_start(struct wd_lsm **out, wd_record_fn fn, void *ctx);
void wd_lsm_stop(struct wd_lsm *lsm);

/* Rules first, then the sandbox entry that turns them on: a task never sees half a policy. */
int wd_lsm_sandbox_add(struct wd_lsm *lsm, uint64_t sandbox, const struct wd_ruleset *rs);
/* The reverse order; also reads the sandbox's final counters into @final (may be NULL). */
int wd_lsm_sandbox_remove(struct wd_lsm *lsm, uint64_t sandbox, const struct wd_ruleset *rs,
			  struct wd_sandbox *final);

/* An fd that polls readable when records wait; then call wd_lsm_consume. */
int wd_lsm_event_fd(const struct wd_lsm *lsm);
int wd_lsm_consume(struct wd_lsm *lsm);

#endif
