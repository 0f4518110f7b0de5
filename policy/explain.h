/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A policy in plain words for the operator ("may read under /usr"), and as canonical JSON for
 * programs: what `warden policy explain` prints. Pure C.
 */
#ifndef WD_EXPLAIN_H
#define WD_EXPLAIN_H

#include <stdio.h>

#include <cJSON.h>

#include "policy/effective.h"
#include "policy/policy.h"

/*
 * @p as a warden.policy/1 document: keys in a fixed order, values in canonical form, unset parts
 * left out. Parsing the printed document gives a policy that prints the same. NULL when out of
 * memory.
 */
cJSON *wd_policy_to_json(const struct wd_policy *p);

/*
 * The plain-words explanation of @p, loaded from @name (shown in the heading). @vars (may be
 * NULL) gives the values the variables would have now.
 */
void wd_policy_explain(const struct wd_policy *p, const char *name,
		       const struct wd_policy_vars *vars, FILE *out);

/* The same as a warden.explain/1 JSON document (see docs/policy.md); NULL when out of memory. */
cJSON *wd_policy_explain_json(const struct wd_policy *p, const char *name,
			      const struct wd_policy_vars *vars);

#endif
