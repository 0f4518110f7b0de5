/* SPDX-License-Identifier: GPL-2.0 */
/* A policy's fs.protect, exec.hold and hold settings as the waiting room's rules. */
#ifndef WD_HOLD_POLICY_H
#define WD_HOLD_POLICY_H

#include "policy/policy.h"
#include "supervisor/hold/rules.h"

#define WD_HOLD_DEFAULT_TIMEOUT_MS (5 * 60 * 1000)

/*
 * Rules that point into @p (which must outlive them). 0, -ENOMEM, or -EINVAL with @why saying
 * which entry of hold.approvers names no user or group here ("/hold/approvers/1: ..."), or
 * -E2BIG with @why naming a tree protected from truncation with too many multiply-linked files,
 * or -EINVAL with @why naming a protected tree that is also mounted elsewhere (a bind mount).
 */
int wd_hold_rules_build(const struct wd_policy *p, struct wd_hold_rules *r, char *why,
			size_t whysz);
void wd_hold_rules_free(struct wd_hold_rules *r);
/* The syscall classes the rules need sent to the waiting room (0: none, no filter). */
unsigned int wd_hold_rules_classes(const struct wd_hold_rules *r);

#endif
