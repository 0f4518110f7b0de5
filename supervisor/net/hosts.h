/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's own addresses (every interface's, read through libnl's route cache), in the net/
 * room: a sandbox on the host's network must not reach a host service on them unless a rule
 * names the address.
 */
#ifndef WD_NET_HOSTS_H
#define WD_NET_HOSTS_H

#include <stddef.h>

#include "policy/net_keys.h"

/* The host's addresses as /32 and /128 blocks, loopback ones included. 0 or -errno. */
int wd_net_host_blocks(struct wd_net_block **out, size_t *n);

#endif
