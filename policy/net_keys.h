/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A ruleset's network entries as the stored prefixes of the kernel's LPM tries (bpf/wd_abi.h,
 * struct wd_net_val) and its net.listen entries as the sandbox's wd_net_cfg. Pure C: the
 * supervisor (supervisor/net/entries.c) writes what this returns.
 */
#ifndef WD_NET_KEYS_H
#define WD_NET_KEYS_H

#include <stddef.h>

#include "bpf/wd_abi.h"
#include "policy/compile.h"

/* An address block of the host (loopback, 0.0.0.0, its own addresses): no broad rule opens it. */
struct wd_net_block {
	__u8 family; /* AF_INET or AF_INET6 */
	__u8 prefix;
	__u8 addr[16]; /* network byte order, host bits zero */
};

/* One stored prefix and what it carries. */
struct wd_net_node {
	struct wd_net_block at;
	struct wd_net_val val;
};

/*
 * The prefixes to store for @rs with the host's blocks @host (@n_host of them): one per rule
 * block and per host block, each carrying every rule whose block covers it (deny rules always,
 * allow rules only where no host block lies between the rule's block and the node). 0, -ENOMEM,
 * or -E2BIG with a sentence naming the prefix in @why when more than WD_NET_RANGES rules cover
 * one. Free *@out with free().
 */
int wd_net_nodes(const struct wd_ruleset *rs, const struct wd_net_block *host, size_t n_host,
		 struct wd_net_node **out, size_t *n, char *why, size_t whysz);

/* @rs's wd_net_cfg (flags, default, listen entries). -E2BIG past WD_NET_LISTEN_MAX entries. */
int wd_net_cfg_of(const struct wd_ruleset *rs, struct wd_net_cfg *cfg, char *why, size_t whysz);

/* The blocks every host has: 127.0.0.0/8, 0.0.0.0/32, ::1/128, ::/128. */
size_t wd_net_loopback_blocks(struct wd_net_block *out, size_t max);

/* Does block @outer contain block @inner (same family, prefix no longer, same leading bits)? */
bool wd_net_block_covers(const struct wd_net_block *outer, const struct wd_net_block *inner);

#endif
