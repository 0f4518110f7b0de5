/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run's DNS forwarder (supervisor/dns/) for a policy with names in net.allow or net.deny:
 * listening on 127.0.0.1 (with namespaces.net "veth": on the pair's host end, bound to it),
 * where the network programs send the sandbox's DNS (TCP and UDP to port 53 of any IPv4
 * address), answering only the sandbox's own sockets, asking the host's nameservers, opening
 * each address of an allowed answer in the sandbox's tries until its TTL plus
 * WD_NET_RESOLVED_GRACE_MS (supervisor/net/resolved.h), and writing a `dns` record of each query
 * and of each address let through.
 */
#ifndef WD_RUN_DNS_H
#define WD_RUN_DNS_H

#include <stdint.h>

#include "policy/compile.h"
#include "policy/policy.h"
#include "supervisor/dns/forwarder.h"
#include "supervisor/net/resolved.h"
#include "supervisor/run/records.h"
#include "supervisor/sandbox/veth.h"

struct run_dns {
	struct wd_dns *dns;
	struct wd_net_resolved set;
	struct run_state *st;
	const struct wd_ruleset *rs;
	uint32_t sandbox4; /* veth: the sandbox end's address, the only querier; 0: loopback */
};

/*
 * Start the forwarder when @rs has names, and write its address into @rs (dns4, dns_port,
 * dns_peer4) before the sandbox is added; @veth is the sandbox's pair (host_if "": none, the
 * forwarder is on loopback). st->sandbox_id is set: only its sockets are answered. *@out NULL
 * when the policy needs none. 0 or -errno. The upstreams are /etc/resolv.conf's, or those of
 * the file $WARDEN_DNS_RESOLV names.
 */
int wd_run_dns_start(struct run_dns **out, const struct wd_policy *p, struct wd_ruleset *rs,
		     struct run_state *st, const struct wd_veth *veth);
/* The sandbox is in the maps @fds (wd_net4, wd_net6) as @sandbox: addresses may go in. */
void wd_run_dns_bind(struct run_dns *d, const int fds[2], uint64_t sandbox);
int wd_run_dns_fd(const struct run_dns *d);
void wd_run_dns_ready(struct run_dns *d);
void wd_run_dns_tick(struct run_dns *d);
/* A poll timeout: the next deadline of the forwarder or of a resolved address, -1 for none. */
int wd_run_dns_timeout(const struct run_dns *d);
void wd_run_dns_stop(struct run_dns *d);

#endif
