/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loader of warden's BPF objects, bpf/wd_lsm.bpf.c and bpf/wd_recorder.bpf.c: their programs,
 * the per-sandbox map entries, the audit ring buffer.
 */
#ifndef WD_SANDBOX_BPF_H
#define WD_SANDBOX_BPF_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/wd_abi.h"
#include "policy/compile.h"

struct bpf_object;
struct wd_progs;

/* Called for each record off the ring buffer (@size bytes at @rec). */
typedef int (*wd_record_fn)(void *ctx, void *rec, size_t size);

/* Which programs of the object a backend runs. */
enum wd_progs_set {
	WD_PROGS_LSM, /* the LSM hooks decide and record (bpf-lsm backend) */
	WD_PROGS_SYSCALL_EXIT, /* only the recorders: syscall exit and exec (landlock backend) */
};

/* Load and attach @set; records go to @fn. */
int wd_progs_start(struct wd_progs **out, enum wd_progs_set set, wd_record_fn fn, void *ctx);
/*
 * wd_progs_start's first half, loading nothing: open the object and choose @set's programs for
 * this kernel (each program's autoload flag, and for LSM lsm/bpf's wd_bpf_ret_arg in .rodata).
 * For checking that choice against the kernel's BTF where LSM programs cannot be loaded
 * (tests/helpers/wd-lsm-check.c). Free with wd_progs_stop.
 */
int wd_progs_open(struct wd_progs **out, enum wd_progs_set set);
struct bpf_object *wd_progs_object(const struct wd_progs *progs);
void wd_progs_stop(struct wd_progs *progs);

/* Rules first, then the sandbox entry that turns them on: a task never sees half a policy. */
int wd_progs_sandbox_add(struct wd_progs *progs, uint64_t sandbox, const struct wd_ruleset *rs);
/*
 * Protect the existing object at @path in @sandbox by its (dev, ino), whatever name reaches it:
 * @deny (WD_ACC_*) is denied on it, and link() to it, with @rule named in the record. Call before
 * wd_progs_sandbox_add; entries go with wd_progs_sandbox_remove. 0 or -errno.
 */
int wd_progs_protect_inode(struct wd_progs *progs, uint64_t sandbox, const char *path,
			   uint32_t deny, uint32_t rule);
/* The reverse order; also reads the sandbox's final counters into @final (may be NULL). */
int wd_progs_sandbox_remove(struct wd_progs *progs, uint64_t sandbox, const struct wd_ruleset *rs,
			  struct wd_sandbox *final);

/* An fd that polls readable when records wait; then call wd_progs_consume. */
int wd_progs_event_fd(const struct wd_progs *progs);
int wd_progs_consume(struct wd_progs *progs);
/*
 * The maps a successor supervisor needs (`warden adopt`): the audit ring buffer and the
 * per-sandbox counters (struct wd_sandbox by cgroup id).
 */
void wd_progs_audit_maps(const struct wd_progs *progs, int *events, int *counts);

#endif
