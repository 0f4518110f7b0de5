/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one argv matcher of the tree: exec rules (policy) and exec holds (supervisor/hold) ask it, so
 * a pattern means the same wherever it is written.
 */
#ifndef WD_POLICY_ARGV_H
#define WD_POLICY_ARGV_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Does @argv (@argc arguments, argv[1..] of a command) match @pat (@npat fnmatch(3) patterns, one
 * per argument)? A last pattern "**" matches any number of further arguments, none included.
 */
bool wd_argv_match(char *const *pat, size_t npat, char *const *argv, size_t argc);

#endif
