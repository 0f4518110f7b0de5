/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sandbox's resource limits (docs/report.md, docs/policy.md): the host's cgroup layout found
 * at start, each of limits.memory, pids and cpu applied through cgroup v2 controllers where
 * warden's subtree has them, else through warden's own cgroup v1 hierarchies, else rlimits;
 * and the figures (usage, peaks, limit hits) read back for the report.
 */
#ifndef WD_SANDBOX_LIMITS_H
#define WD_SANDBOX_LIMITS_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "policy/policy.h"
#include "supervisor/sandbox/cgroup.h"

struct wd_ruleset;

enum wd_cg_layout {
	WD_CG_PURE_V2 = 0, /* cgroup2 with controllers for warden's subtree */
	WD_CG_HYBRID = 1, /* cgroup v1 controllers, cgroup2 (for BPF) without them */
	WD_CG_NEITHER = 2, /* no controller for warden anywhere: rlimits only */
};

enum wd_ctrl { WD_CTRL_MEMORY = 0, WD_CTRL_PIDS = 1, WD_CTRL_CPU = 2, WD_CTRL_CPUACCT = 3,
	       WD_CTRL_NR = 4 };

struct wd_cg_layout_info {
	enum wd_cg_layout layout;
	char v2[PATH_MAX]; /* the cgroup2 mount, "" when there is none */
	bool v2_ctrl[WD_CTRL_NR]; /* enabled for the sandboxes of warden's subtree */
	char v1[WD_CTRL_NR][PATH_MAX]; /* where a v1 hierarchy with it is mounted, or "" */
	bool kill; /* cgroup.kill (5.14+) */
};

/*
 * Find the layout; with @enable, switch memory, pids and cpu on in warden's own subtree's
 * cgroup.subtree_control (each level from <cgroup2>/warden down) where cgroup2 offers them. 0 or
 * -errno (no cgroup2: layout "neither", what else was found kept).
 */
int wd_cg_layout_find(struct wd_cg_layout_info *info, bool enable);
const char *wd_cg_layout_name(enum wd_cg_layout l);
const char *wd_ctrl_name(enum wd_ctrl c);

/* One sandbox's limits, as applied. */
struct wd_limits {
	const char *mech[WD_LIMIT_NR]; /* what applied each limit, NULL when unset */
	char v1[WD_CTRL_NR][PATH_MAX]; /* the sandbox's own v1 cgroups, "" when none */
	int v1_procs[WD_CTRL_NR]; /* their cgroup.procs (O_WRONLY), joined by the command */
	uint64_t rl_as, rl_nproc; /* rlimits the command gets, 0 for none */
	bool v2_mem, v2_pids; /* the v2 controller files are there to read */
};

void wd_limits_init(struct wd_limits *l);
/*
 * Apply the ruleset's memory, pids and cpu limits to the sandbox @cg (its v1 cgroups named after
 * it, made under <v1 mount>/warden[/<group>]). 0, or -errno with @msg saying which limit (by its
 * policy key) could not be applied; what was made is undone by wd_limits_remove.
 */
int wd_limits_apply(struct wd_limits *l, const struct wd_cg_layout_info *info,
		    const struct wd_cgroup *cg, const struct wd_ruleset *rs, char *msg,
		    size_t msgsz);
/*
 * In the command's process, once it is in its v2 cgroup and before anything of the command
 * runs: join the v1 cgroups (writes "0", itself) and set the rlimits. Async-signal-safe. 0 or
 * -errno.
 */
int wd_limits_child_join(const struct wd_limits *l);

struct wd_limit_usage {
	uint64_t cpu_usec, user_usec, system_usec; /* cpu.stat (v2), else cpuacct */
	uint64_t mem_peak; /* bytes: memory.peak / max_usage_in_bytes, else the sampled peak */
	uint64_t mem_current, pids_current, pids_peak;
	uint64_t oom_kills; /* memory.events oom_kill / v1 memory.oom_control oom_kill */
	uint64_t mem_failcnt; /* v1 memory.failcnt, or v2 memory.events max */
	uint64_t pids_max_hits; /* pids.events max */
	uint64_t cpu_throttled; /* periods the quota held it back: cpu.stat nr_throttled */
	bool have_cpu, have_mem, have_pids;
};

/* Read what the kernel counts now; the v2 cgroup is @cg_fd. Fields not found stay 0. */
void wd_limits_read(const struct wd_limits *l, int cg_fd, struct wd_limit_usage *u);
/* The sandbox's cpu time so far in microseconds (v2 cpu.stat usage_usec, v1 cpuacct.usage). */
uint64_t wd_limits_cpu_usec(const struct wd_limits *l, int cg_fd);
/* The v1 cgroups removed (what is left in them killed first: only the sandbox's). */
void wd_limits_remove(struct wd_limits *l);
/*
 * Where warden did not make them itself (a keeper, an adopter): remove the v1 cgroups of the
 * sandbox whose v2 cgroup is @cg, at the same path under each v1 hierarchy. How many went.
 */
int wd_limits_remove_for(const struct wd_cgroup *cg);

#endif
