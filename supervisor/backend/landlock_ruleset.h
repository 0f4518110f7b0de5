/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Backend room, landlock backend: Landlock rulesets from a policy's fs sets. Built in the child,
 * after its mounts are in place (rules name inodes, and the sandbox's /proc is a new mount): opens
 * and syscalls only, no allocation and no logging, so it is safe between clone3 and execve.
 * Constants newer than Debian 12's linux-libc-dev (6.1) are defined here; each right is used only
 * where the kernel's ABI has it.
 */
#ifndef WD_LANDLOCK_H
#define WD_LANDLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "supervisor/backend/carve.h"

struct wd_landlock_plan {
	int ruleset_fd;
	int abi;
	uint32_t restrict_flags;
	uint64_t handled_fs; /* the rights this ruleset governs */
	unsigned int n_rules; /* rules added */
	unsigned int n_missing; /* policy paths that did not exist (nothing to allow) */
	const char *failed_path; /* on error: the path whose rule failed */
};

/*
 * From now on, every ruleset this process (and its children) builds opens the policy's paths
 * with no symlink in any component, and a mount attribute is not set again: a persistent
 * sandbox's execs after its first build in a tree that earlier execs could change, where a
 * directory swapped for a symlink would move a rule (supervisor/run/execs.h). A swapped path
 * fails the build: the exec does not start.
 */
void wd_landlock_paths_strict(void);
bool wd_landlock_paths_are_strict(void);

/*
 * Build the ruleset from @n rules (WD_ACC_* access on paths, as wd_carve leaves them). 0 or
 * -errno (then failed_path names the culprit where one did).
 */
int wd_landlock_build(const struct wd_carve_rule *rules, size_t n, struct wd_landlock_plan *plan);
/* Restrict the calling task (needs no_new_privs set). 0 or -errno. */
int wd_landlock_enforce(const struct wd_landlock_plan *plan);
void wd_landlock_release(struct wd_landlock_plan *plan);

#endif
