/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A held call as records and the holds socket show it: a plain view with no pointer into the hold
 * engine, so the audit layer formats it without including anything of supervisor/.
 */
#ifndef WD_AUDIT_HOLD_VIEW_H
#define WD_AUDIT_HOLD_VIEW_H

#include <stdint.h>

/* What a hold looks like to the operator surfaces and the audit stream. */
struct wd_hold_view {
	uint64_t id;
	uint32_t pid;
	char comm[17];
	const char *exe;
	const char *cmdline; /* the process's arguments, joined by spaces */
	const char *exec_argv; /* exec holds: the program and arguments it is to run (advisory) */
	const char *op; /* "delete", "rmdir", "rename", "truncate", "exec" */
	const char *target;
	const char *target2; /* rename: the destination */
	const char *rule;
	const char *tree; /* the rule's protected tree (or held program); NULL for a burst */
	const char *token; /* opaque; an approval must present it */
	uint64_t age_ms;
	uint64_t timeout_ms;
};

#endif
