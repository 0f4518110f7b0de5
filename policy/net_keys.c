// SPDX-License-Identifier: GPL-2.0
/*
 * Network entries into LPM prefixes and the sandbox's network settings (policy/net_keys.h).
 * The kernel looks up the longest stored prefix holding the address; every rule whose block
 * holds that address holds the whole prefix, so the prefix carries them all and its value alone
 * decides.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "policy/net.h"
#include "policy/net_keys.h"

/* a rule's protocol goes into the kernel's ranges as it is */
_Static_assert((int)WD_NET_PROTO_ANY == (int)WD_NETP_ANY &&
		       (int)WD_NET_PROTO_TCP == (int)WD_NETP_TCP &&
		       (int)WD_NET_PROTO_UDP == (int)WD_NETP_UDP,
	       "policy and kernel protocol numbers agree");

bool wd_net_block_covers(const struct wd_net_block *outer, const struct wd_net_block *inner)
{
	unsigned int bits = outer->prefix, full = bits / 8, rest = bits % 8;

	if (outer->family != inner->family || outer->prefix > inner->prefix)
		return false;
	if (memcmp(outer->addr, inner->addr, full))
		return false;
	return !rest || !((outer->addr[full] ^ inner->addr[full]) & (0xff << (8 - rest)));
}

static struct wd_net_block entry_block(const struct wd_net_entry *e)
{
	struct wd_net_block b = { .family = e->family, .prefix = e->prefix };

	memcpy(b.addr, e->addr, sizeof(b.addr));
	return b;
}

size_t wd_net_loopback_blocks(struct wd_net_block *out, size_t max)
{
	static const struct wd_net_block lo[] = {
		{ .family = AF_INET, .prefix = 8, .addr = { 127 } },
		{ .family = AF_INET, .prefix = 32, .addr = { 0 } },
		{ .family = AF_INET6, .prefix = 128, .addr = { [15] = 1 } },
		{ .family = AF_INET6, .prefix = 128, .addr = { 0 } },
	};
	size_t n = sizeof(lo) / sizeof(lo[0]);

	if (n > max)
		n = max;
	memcpy(out, lo, n * sizeof(lo[0]));
	return n;
}

static bool same_block(const struct wd_net_block *a, const struct wd_net_block *b)
{
	return a->family == b->family && a->prefix == b->prefix &&
	       !memcmp(a->addr, b->addr, sizeof(a->addr));
}

/* Add @b to the nodes unless there; 0 or -ENOMEM. */
static int add_node(struct wd_net_node **v, size_t *n, const struct wd_net_block *b)
{
	struct wd_net_node *more;

	for (size_t i = 0; i < *n; i++)
		if (same_block(&(*v)[i].at, b))
			return 0;
	more = realloc(*v, (*n + 1) * sizeof(**v));
	if (!more)
		return -ENOMEM;
	*v = more;
	memset(&more[*n], 0, sizeof(more[*n]));
	more[(*n)++].at = *b;
	return 0;
}

/* Is there a host block between rule block @r (exclusive, broader) and node @at? */
static bool host_between(const struct wd_net_block *r, const struct wd_net_block *at,
			 const struct wd_net_block *host, size_t n_host)
{
	for (size_t i = 0; i < n_host; i++)
		if (host[i].prefix > r->prefix && wd_net_block_covers(&host[i], at))
			return true;
	return false;
}

static int fill_node(const struct wd_ruleset *rs, const struct wd_net_block *host, size_t n_host,
		     struct wd_net_node *node, char *why, size_t whysz)
{
	for (size_t h = 0; h < n_host; h++)
		if (wd_net_block_covers(&host[h], &node->at))
			node->val.flags |= WD_NETV_HOST;
	for (size_t i = 0; i < rs->n_net; i++) {
		const struct wd_net_entry *e = &rs->net[i];
		struct wd_net_block b = entry_block(e);
		struct wd_net_range *r;

		if (!wd_net_block_covers(&b, &node->at))
			continue;
		if (e->action != WD_ACTION_DENY && host_between(&b, &node->at, host, n_host))
			continue;
		if (node->val.n >= WD_NET_RANGES) {
			char a[64];

			wd_net_addr_format(node->at.family, node->at.addr, node->at.prefix, a,
					   sizeof(a));
			snprintf(why, whysz, "net: more than %d rules cover %s (rule %s): merge some",
				 WD_NET_RANGES, a, wd_ruleset_rule_name(rs, e->id));
			return -E2BIG;
		}
		r = &node->val.r[node->val.n++];
		r->port_lo = e->port_lo;
		r->port_hi = e->port_hi;
		r->proto = e->proto;
		r->action = e->action == WD_ACTION_DENY ? WD_NETA_DENY : WD_NETA_ALLOW;
		r->rule = e->id;
	}
	return 0;
}

int wd_net_nodes(const struct wd_ruleset *rs, const struct wd_net_block *host, size_t n_host,
		 struct wd_net_node **out, size_t *n, char *why, size_t whysz)
{
	struct wd_net_node *v = NULL;
	size_t k = 0;
	int err = 0;

	for (size_t i = 0; i < rs->n_net && !err; i++) {
		struct wd_net_block b = entry_block(&rs->net[i]);

		err = add_node(&v, &k, &b);
	}
	for (size_t i = 0; i < n_host && !err; i++)
		err = add_node(&v, &k, &host[i]);
	for (size_t i = 0; i < k && !err; i++)
		err = fill_node(rs, host, n_host, &v[i], why, whysz);
	if (err) {
		free(v);
		v = NULL;
		k = 0;
	}
	*out = v;
	*n = k;
	return err;
}

int wd_net_cfg_of(const struct wd_ruleset *rs, struct wd_net_cfg *cfg, char *why, size_t whysz)
{
	memset(cfg, 0, sizeof(*cfg));
	if (!rs->net_on)
		return 0;
	cfg->flags = WD_NETC_ON | (rs->net_ping ? WD_NETC_PING : 0) |
		     (rs->ns[WD_NS_NET] != WD_NS_HOST ? WD_NETC_OWN_NETNS : 0);
	cfg->def = rs->net_default == WD_ACTION_ALLOW ? WD_NETA_ALLOW : WD_NETA_DENY;
	if (rs->n_net_listen > WD_NET_LISTEN_MAX) {
		snprintf(why, whysz, "net.listen: at most %d entries (this policy has %zu)",
			 WD_NET_LISTEN_MAX, rs->n_net_listen);
		return -E2BIG;
	}
	for (size_t i = 0; i < rs->n_net_listen; i++) {
		const struct wd_net_entry *e = &rs->net_listen[i];
		struct wd_net_listen *l = &cfg->listen[i];

		l->port_lo = e->port_lo;
		l->port_hi = e->port_hi;
		l->proto = e->proto;
		l->family = e->family;
		l->prefix = e->prefix;
		l->rule = e->id;
		memcpy(l->addr, e->addr, sizeof(l->addr));
	}
	cfg->n_listen = (__u8)rs->n_net_listen;
	cfg->dns4 = rs->dns4;
	cfg->dns_peer4 = rs->dns_peer4;
	cfg->dns_port = rs->dns_port;
	return 0;
}
