/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one path-prefix predicate of the tree. Every "is this path in that tree" question (hold
 * rules, carving, deny coverage of stored LPM prefixes, mount aliases, the run directory check)
 * asks it here, so no two copies can disagree about "/", "/etc" against "/etcfoo", or a stored
 * prefix's trailing '/' or NUL. Paths are absolute and normalised (no "//", no trailing '/').
 */
#ifndef WD_POLICY_PATH_H
#define WD_POLICY_PATH_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Is @path (its first @len bytes; it need not be NUL-terminated) at or under @tree? "/" holds
 * every absolute path. A stored LPM prefix ("/etc/" or "/etc\0", its terminator counted in @len)
 * is at or under "/etc" and under "/", never under "/et".
 */
bool wd_path_within_n(const char *path, size_t len, const char *tree);

/* Is the NUL-terminated @path at or under @tree? */
bool wd_path_within(const char *path, const char *tree);

/* Is @path under @tree and not @tree itself? */
bool wd_path_strictly_within(const char *path, const char *tree);

#endif
