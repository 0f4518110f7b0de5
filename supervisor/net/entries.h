/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sandbox's network rules into the network object's maps (wd_net4, wd_net6, wd_net_cfg), in
 * the net/ room; their removal is wd_pinset_purge's.
 */
#ifndef WD_NET_ENTRIES_H
#define WD_NET_ENTRIES_H

#include <stdint.h>

#include "policy/compile.h"

/*
 * Write @rs's rules for @sandbox into the maps @fds (wd_net4, wd_net6, wd_net_cfg), the
 * settings last (they turn the rules on). Nothing for a policy without net. 0 or -errno, with
 * a sentence logged.
 */
int wd_net_entries_add(const int fds[3], uint64_t sandbox, const struct wd_ruleset *rs);
/* Remove them again (settings first). */
void wd_net_entries_remove(const int fds[3], uint64_t sandbox, const struct wd_ruleset *rs);

#endif
