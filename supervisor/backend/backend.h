/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Backend room: the enforcement backend interface, what the run path calls to confine one
 * sandbox. Two exist, chosen by probing (probe.h, docs/backends.md): bpf-lsm (bpf_lsm.c), where
 * BPF-LSM programs decide in the kernel, and landlock (landlock.c), for hosts where LSM programs
 * cannot load. Both share cgroups, spawning, records and reports. What differs between them is a
 * field of struct wd_backend_ops, never a comparison of its name.
 */
#ifndef WD_BACKEND_H
#define WD_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy/compile.h"
#include "policy/policy.h"
#include "supervisor/backend/guarantees.h"
#include "supervisor/bpf/progs.h"

struct wd_backend;

/*
 * The parts of a policy both backends enforce (holds: the waiting room, supervisor/hold/, works
 * under either; audit mode, which landlock cannot give, is refused in its sandbox_add).
 */
#define WD_BACKEND_FEATURES                                                                 \
	(WD_FEAT_FS | WD_FEAT_MODE | WD_FEAT_FS_DENY | WD_FEAT_FS_PROTECT | WD_FEAT_HOLD |  \
	 WD_FEAT_EXEC | WD_FEAT_EXEC_HOLD | WD_FEAT_ENV | WD_FEAT_USER | WD_FEAT_NAMESPACES | \
	 WD_FEAT_HOLD_APPROVERS | WD_FEAT_NET | WD_FEAT_NET_RATE | WD_FEAT_NET_NAMES |      \
	 WD_FEAT_NET_VETH)

struct wd_backend_ops {
	const char *name;
	/* Its column of the guarantee table (guarantees.c). */
	enum wd_guarantee_column column;
	/* The parts of a policy (WD_FEAT_*) it enforces; a policy asking for more is refused. */
	unsigned int features;
	/*
	 * Its kernel programs refuse mounts to the sandbox's tasks: a child that needs a mount
	 * namespace set up joins the sandbox's cgroup only after that.
	 */
	bool refuses_mounts;
	/* What its kernel side answers a denied change: the waiting room answers the same. */
	int deny_errno;
	/* Can it run on this kernel? On false, @why says what is missing (one sentence). */
	bool (*supported)(char *why, size_t whysz);
	/* Load what the kernel side needs; kernel records go to @fn. */
	int (*start)(struct wd_backend **out, wd_record_fn fn, void *ctx);
	void (*stop)(struct wd_backend *b);
	/*
	 * Prepare the sandbox with cgroup id @cgid for @p (compiled as @rs): everything that
	 * allocates or opens happens here, in the parent.
	 */
	int (*sandbox_add)(struct wd_backend *b, uint64_t cgid, const struct wd_policy *p,
			   const struct wd_ruleset *rs);
	/* Namespaces the child is cloned into. */
	uint64_t (*clone_flags)(const struct wd_backend *b);
	/* In the child, before execve: async-signal-safe, no allocation. 0 or -errno. */
	int (*child_setup)(struct wd_backend *b);
	/* After the sandbox has emptied; @final gets its kernel counters. */
	int (*sandbox_remove)(struct wd_backend *b, uint64_t cgid, const struct wd_ruleset *rs,
			      struct wd_sandbox *final);
	int (*event_fd)(const struct wd_backend *b);
	/* Its audit ring buffer and per-sandbox counters, for a successor (wd_progs_audit_maps). */
	void (*audit_maps)(const struct wd_backend *b, int *events, int *counts);
	int (*consume)(struct wd_backend *b);
	/* One line on what this backend found ("Landlock ABI 7"), for the start record. */
	const char *(*detail)(const struct wd_backend *b);
};

extern const struct wd_backend_ops wd_backend_bpf_lsm;
extern const struct wd_backend_ops wd_backend_landlock;
/* Every backend, strongest first, ended by NULL. */
extern const struct wd_backend_ops *const wd_backends[];

/* The backend called @name (a --backend argument), or NULL. */
const struct wd_backend_ops *wd_backend_named(const char *name);

/*
 * What both backends hold first: their kernel programs. Each struct wd_backend starts with it,
 * so the ops that only pass a call on to the programs are one copy for both.
 */
struct wd_backend_base {
	struct wd_progs *progs;
};

int wd_backend_base_sandbox_remove(struct wd_backend *b, uint64_t cgid,
				   const struct wd_ruleset *rs, struct wd_sandbox *final);
int wd_backend_base_event_fd(const struct wd_backend *b);
/* The sandbox's net.egress_rate counters (wd_progs_rate), either backend: 0 or -errno. */
int wd_backend_rate(const struct wd_backend *b, uint64_t cgid, struct wd_rate *out);
/* The sandbox's limits.fork_rate counters (wd_progs_fork): 0, -ENOENT or -errno. */
int wd_backend_fork(const struct wd_backend *b, uint64_t cgid, struct wd_fork *out);
void wd_backend_base_audit_maps(const struct wd_backend *b, int *events, int *counts);
int wd_backend_base_consume(struct wd_backend *b);
/* The ops every backend takes from its struct wd_backend_base, in its ops table. */
#define WD_BACKEND_BASE_OPS                                      \
	.sandbox_remove = wd_backend_base_sandbox_remove,        \
	.event_fd = wd_backend_base_event_fd,                    \
	.audit_maps = wd_backend_base_audit_maps,                \
	.consume = wd_backend_base_consume

/*
 * The backend to use: @want is "auto" (the strongest that can run here) or a backend's name,
 * which must then run (never a fallback). NULL with @why saying why none can.
 */
const struct wd_backend_ops *wd_backend_choose(const char *want, char *why, size_t whysz);

#endif
