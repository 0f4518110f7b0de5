/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Policy paths as the kernel will see them. Both backends decide on resolved objects (bpf-lsm on
 * d_path, Landlock on the inode a rule's path leads to), so a rule naming a symlink ("/lib" on a
 * merged-/usr system) is rewritten to where it leads before it is compiled.
 */
#ifndef WD_RESOLVE_H
#define WD_RESOLVE_H

#include "policy/policy.h"

/* Replace each existing path of @l by its realpath(). Missing paths stay as they are. */
int wd_resolve_paths(struct wd_path_list *l);
/* All of a policy's path sets. 0 or -ENOMEM. */
int wd_resolve_policy(struct wd_policy *p);

#endif
