// SPDX-License-Identifier: GPL-2.0
/* A sandbox's network rules into the maps (supervisor/net/entries.h), in the net/ room. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <bpf/bpf.h>

#include "policy/net_keys.h"
#include "supervisor/net/entries.h"
#include "supervisor/net/hosts.h"
#include "supervisor/util/log.h"

/*
 * What no rule names is closed on the host's network: loopback, 0.0.0.0 and the host's own
 * addresses. A sandbox with a network namespace of its own has its own loopback: with loopback
 * only ("none") it has none of the host's addresses to reach, so nothing is closed for it
 * beyond the rules; with a veth pair the host routes for it, so every host address (the pair's
 * host end too, made before this runs) stays closed, but not its own loopback.
 */
/* Is @b on loopback (127.0.0.0/8, ::1)? In a namespace of its own, the sandbox's own. */
static bool on_loopback(const struct wd_net_block *b)
{
	static const unsigned char one6[16] = { [15] = 1 };

	if (b->family == AF_INET)
		return b->addr[0] == 127;
	return b->family == AF_INET6 && !memcmp(b->addr, one6, 16);
}

/* Drop the loopback blocks of @v (the host's lo carries 127.0.0.1 and ::1). */
static size_t drop_loopback(struct wd_net_block *v, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!on_loopback(&v[i]))
			v[k++] = v[i];
	return k;
}

static int host_blocks(const struct wd_ruleset *rs, struct wd_net_block **out, size_t *n)
{
	struct wd_net_block lo[4], *v = NULL, *more;
	size_t k = 0, nlo;
	int err;

	*out = NULL;
	*n = 0;
	if (rs->ns[WD_NS_NET] == WD_NS_NONE)
		return 0;
	err = wd_net_host_blocks(&v, &k);
	if (err)
		return err;
	nlo = 0;
	if (rs->ns[WD_NS_NET] == WD_NS_HOST)
		nlo = wd_net_loopback_blocks(lo, 4);
	else
		k = drop_loopback(v, k);
	more = realloc(v, (k + nlo + 1) * sizeof(*v));
	if (!more) {
		free(v);
		return -ENOMEM;
	}
	memcpy(more + k, lo, nlo * sizeof(*lo));
	*out = more;
	*n = k + nlo;
	return 0;
}

static void node_key(const struct wd_net_node *nd, uint64_t sandbox, void *key)
{
	if (nd->at.family == AF_INET) {
		struct wd_net4_key *k = key;

		memset(k, 0, sizeof(*k));
		k->prefixlen = 64 + nd->at.prefix;
		k->sandbox[0] = (uint32_t)sandbox;
		k->sandbox[1] = (uint32_t)(sandbox >> 32);
		memcpy(k->addr, nd->at.addr, 4);
	} else {
		struct wd_net6_key *k = key;

		memset(k, 0, sizeof(*k));
		k->prefixlen = 64 + nd->at.prefix;
		k->sandbox[0] = (uint32_t)sandbox;
		k->sandbox[1] = (uint32_t)(sandbox >> 32);
		memcpy(k->addr, nd->at.addr, 16);
	}
}

int wd_net_entries_add(const int fds[3], uint64_t sandbox, const struct wd_ruleset *rs)
{
	struct wd_net_block *host = NULL;
	struct wd_net_node *nodes = NULL;
	struct wd_net_cfg cfg;
	size_t n_host = 0, n = 0;
	char why[256] = "";
	int err;

	if (!rs->net_on)
		return 0;
	if (fds[0] < 0 || fds[1] < 0 || fds[2] < 0) {
		log_warnx("net: the program set has no network maps");
		return -EOPNOTSUPP;
	}
	/*
	 * A name (rs->net_names) opens nothing here: the run's DNS forwarder adds the addresses
	 * it resolves to (supervisor/run/dns.c). egress_rate is refused before this by the policy
	 * layer (WD_FEAT_NET_RATE).
	 */
	err = wd_net_cfg_of(rs, &cfg, why, sizeof(why));
	err = err ?: host_blocks(rs, &host, &n_host);
	err = err ?: wd_net_nodes(rs, host, n_host, &nodes, &n, why, sizeof(why));
	if (err && why[0])
		log_warnx("%s", why);
	for (size_t i = 0; i < n && !err; i++) {
		union {
			struct wd_net4_key k4;
			struct wd_net6_key k6;
		} key;
		int fd = nodes[i].at.family == AF_INET ? fds[0] : fds[1];

		node_key(&nodes[i], sandbox, &key);
		if (bpf_map_update_elem(fd, &key, &nodes[i].val, BPF_ANY)) {
			err = -errno;
			log_warn("net: cannot add a network rule of sandbox %llu",
				 (unsigned long long)sandbox);
		}
	}
	if (!err && bpf_map_update_elem(fds[2], &sandbox, &cfg, BPF_ANY)) {
		err = -errno;
		log_warn("net: cannot add the network settings of sandbox %llu",
			 (unsigned long long)sandbox);
	}
	free(host);
	free(nodes);
	if (err)
		wd_net_entries_remove(fds, sandbox, rs);
	return err;
}

void wd_net_entries_remove(const int fds[3], uint64_t sandbox, const struct wd_ruleset *rs)
{
	struct wd_net4_key k4, next4;
	struct wd_net6_key k6, next6;
	bool first = true;

	(void)rs;
	if (fds[2] >= 0)
		bpf_map_delete_elem(fds[2], &sandbox);
	/* deleting while walking restarts the walk: collect first would cost; keys are few */
	while (fds[0] >= 0 && !bpf_map_get_next_key(fds[0], first ? NULL : &k4, &next4)) {
		first = false;
		k4 = next4;
		if (k4.sandbox[0] == (uint32_t)sandbox && k4.sandbox[1] == (uint32_t)(sandbox >> 32)) {
			bpf_map_delete_elem(fds[0], &k4);
			first = true;
		}
	}
	first = true;
	while (fds[1] >= 0 && !bpf_map_get_next_key(fds[1], first ? NULL : &k6, &next6)) {
		first = false;
		k6 = next6;
		if (k6.sandbox[0] == (uint32_t)sandbox && k6.sandbox[1] == (uint32_t)(sandbox >> 32)) {
			bpf_map_delete_elem(fds[1], &k6);
			first = true;
		}
	}
}
