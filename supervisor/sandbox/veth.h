/* SPDX-License-Identifier: GPL-2.0 */
/*
 * namespaces.net "veth": a veth pair between the host and a sandbox's network namespace, made
 * through libnl. One /30 of 10.243.0.0/16 a sandbox (WD_VETH_POOL), the host end named "wd<n>"
 * for the /30's number n: the name is claimed with NLM_F_EXCL, so two supervisors never take the
 * same /30. Where the host has IPv6, the slot's /64 of fd77:6172:6465::/48 too (WD_VETH_POOL6,
 * the slot in the fourth group: host end ::1, sandbox end ::2), and no other IPv6 address: no
 * link-local, no router advertisement taken. The sandbox end is "eth0" in its namespace with
 * the default routes via the host end. Routing only. Docs: docs/network.md ("veth").
 */
#ifndef WD_VETH_H
#define WD_VETH_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#define WD_VETH_POOL 0x0af30000u /* 10.243.0.0/16, host order */
#define WD_VETH_SLOTS 16384u	 /* /30s in the pool */
/* the IPv6 pool's /48 (a unique local block), as three big-endian groups */
#define WD_VETH_POOL6 { 0xfd, 0x77, 0x61, 0x72, 0x64, 0x65 }

struct wd_veth {
	char host_if[IF_NAMESIZE]; /* "wd<slot>", in the host's namespace; "" when none */
	uint32_t host4;		   /* the host end's address, network order */
	uint32_t sandbox4;	   /* the sandbox end's (eth0), network order */
	bool has6;		   /* both ends have the slot's IPv6 addresses */
	struct in6_addr host6, sandbox6;
};

/*
 * Give the network namespace @netns_fd (loopback already up) a veth pair to the host, the
 * first free slot from one derived from @seed. 0 or -errno, with a line logged.
 */
int wd_veth_make(struct wd_veth *v, int netns_fd, uint32_t seed);
/* Delete the pair (its host end) if @v has one; the sandbox end goes with it. */
void wd_veth_remove(struct wd_veth *v);

#endif
