/* SPDX-License-Identifier: GPL-2.0 */
/*
 * namespaces.net "veth": a veth pair between the host and a sandbox's network namespace, made
 * through libnl. One /30 of 10.243.0.0/16 a sandbox (WD_VETH_POOL), the host end named "wd<n>"
 * for the /30's number n: the name is claimed with NLM_F_EXCL, so two supervisors never take the
 * same /30. The sandbox end is "eth0" in its namespace with the default route via the host end.
 * Routing only, IPv4 only. Docs: docs/network.md ("veth").
 */
#ifndef WD_VETH_H
#define WD_VETH_H

#include <net/if.h>
#include <stdint.h>

#define WD_VETH_POOL 0x0af30000u /* 10.243.0.0/16, host order */
#define WD_VETH_SLOTS 16384u	 /* /30s in the pool */

struct wd_veth {
	char host_if[IF_NAMESIZE]; /* "wd<slot>", in the host's namespace; "" when none */
	uint32_t host4;		   /* the host end's address, network order */
	uint32_t sandbox4;	   /* the sandbox end's (eth0), network order */
};

/*
 * Give the network namespace @netns_fd (loopback already up) a veth pair to the host, the
 * first free slot from one derived from @seed. 0 or -errno, with a line logged.
 */
int wd_veth_make(struct wd_veth *v, int netns_fd, uint32_t seed);
/* Delete the pair (its host end) if @v has one; the sandbox end goes with it. */
void wd_veth_remove(struct wd_veth *v);

#endif
