/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whose is a local socket? Its cgroup (the cgroup of the task that made it), read through
 * sock_diag (NETLINK_SOCK_DIAG, INET_DIAG_CGROUP_ID), in the net/ room: the DNS forwarder
 * answers only sockets of its sandbox (docs/network.md, "Who the forwarder answers").
 */
#ifndef WD_NET_PEER_H
#define WD_NET_PEER_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * The cgroup id of the IPv4 socket in this network namespace bound to @own (TCP: connected to
 * @far; UDP: the one a datagram from @far to @own would reach). 0, -ENOENT when there is none
 * (gone already), or -errno.
 */
int wd_net_sock_cgroup(bool tcp, const struct sockaddr_in *own, const struct sockaddr_in *far,
		       uint64_t *cgid);

#endif
