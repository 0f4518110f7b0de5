/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A parsed policy to the plain rule set that goes into the kernel's maps: LPM entries for paths,
 * sandbox flags, and the table that names each rule id for the audit stream. Pure C and
 * deterministic: the same policy always gives the same rule set and the same text dump.
 */
#ifndef WD_COMPILE_H
#define WD_COMPILE_H

#include <stdio.h>

#include "bpf/wd_abi.h"
#include "policy/policy.h"

struct wd_rule_entry {
	/*
	 * Stored prefix: a rule "/etc" becomes "/etc/" (everything under it) and "/etc\0" (the
	 * object itself), so "/etcfoo" matches neither. "/" is stored as "/" alone.
	 */
	char path[WD_LPM_PATH_BYTES];
	__u32 len; /* bytes of path that are part of the prefix, terminator included */
	struct wd_path_rule val;
};

struct wd_ruleset {
	__u32 sandbox_flags; /* WD_SB_* */
	struct wd_rule_entry *entries;
	size_t n_entries;
	char **rule_names; /* [id]: JSON pointer of the rule; [0] is the default */
	size_t n_rules;
};

/* Returns 0 or -errno (with @err filled in for a policy that cannot be expressed). */
int wd_compile(const struct wd_policy *p, struct wd_ruleset *rs, struct wd_policy_error *err);
void wd_ruleset_free(struct wd_ruleset *rs);

/* The LPM key of @e for @sandbox. */
void wd_rule_entry_key(const struct wd_rule_entry *e, __u64 sandbox, struct wd_path_key *key);

/* Name of rule @id ("default" for WD_RULE_DEFAULT or an unknown id). */
const char *wd_ruleset_rule_name(const struct wd_ruleset *rs, __u32 id);

/*
 * What the kernel's LPM lookup answers for @path (NUL-terminated, matched on at most
 * WD_LPM_PATH_BYTES bytes): the stored prefix with the most bytes equal to the path's first
 * bytes, or NULL. For records whose verdict was made where no rule id could be read, and tests.
 */
const struct wd_rule_entry *wd_ruleset_lookup(const struct wd_ruleset *rs, const char *path);

/* Stable text form, one entry a line, for tests and `policy explain`. */
void wd_ruleset_dump(const struct wd_ruleset *rs, FILE *out);

#endif
