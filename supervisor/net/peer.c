// SPDX-License-Identifier: GPL-2.0
/* A local socket's cgroup through sock_diag (supervisor/net/peer.h), in the net/ room. */
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "supervisor/net/peer.h"

struct diag_req {
	struct nlmsghdr nh;
	struct inet_diag_req_v2 r;
};

/* An exact lookup of the socket (src, dst) names; which end is which differs (see below). */
static int ask(int fd, bool tcp, const struct sockaddr_in *src, const struct sockaddr_in *dst)
{
	struct diag_req q = {
		.nh = { .nlmsg_len = sizeof(q), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST },
		.r = { .sdiag_family = AF_INET,
		       .sdiag_protocol = tcp ? IPPROTO_TCP : IPPROTO_UDP,
		       .idiag_states = ~0u,
		       .id.idiag_cookie = { INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE } },
	};
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };

	q.r.id.idiag_src[0] = src->sin_addr.s_addr;
	q.r.id.idiag_sport = src->sin_port;
	q.r.id.idiag_dst[0] = dst->sin_addr.s_addr;
	q.r.id.idiag_dport = dst->sin_port;
	if (sendto(fd, &q, sizeof(q), 0, (struct sockaddr *)&nl, sizeof(nl)) < 0)
		return -errno;
	return 0;
}

/* The INET_DIAG_CGROUP_ID of one answer, if the socket it describes is bound to @own. */
static int cgroup_of(const struct nlmsghdr *nh, size_t len, const struct sockaddr_in *own,
		     uint64_t *cgid)
{
	const struct inet_diag_msg *m;
	const struct rtattr *a;
	int rest;

	if (!NLMSG_OK(nh, len))
		return -EIO;
	if (nh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = NLMSG_DATA(nh);

		return e->error ? e->error : -ENOENT;
	}
	if (nh->nlmsg_type != SOCK_DIAG_BY_FAMILY)
		return -EIO;
	m = NLMSG_DATA(nh);
	/* its own end, as the kernel reports it: (idiag_src, idiag_sport) */
	if (m->id.idiag_sport != own->sin_port ||
	    (m->id.idiag_src[0] != own->sin_addr.s_addr && m->id.idiag_src[0] != INADDR_ANY))
		return -ENOENT;
	rest = (int)(nh->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
	for (a = (const struct rtattr *)(m + 1); RTA_OK(a, rest); a = RTA_NEXT(a, rest)) {
		if (a->rta_type == INET_DIAG_CGROUP_ID && RTA_PAYLOAD(a) == sizeof(*cgid)) {
			memcpy(cgid, RTA_DATA(a), sizeof(*cgid));
			return 0;
		}
	}
	return -EOPNOTSUPP; /* a kernel before 5.10: no socket's cgroup to read */
}

/* One lookup of (src, dst) on a fresh sock_diag socket. */
static int lookup(bool tcp, const struct sockaddr_in *src, const struct sockaddr_in *dst,
		  const struct sockaddr_in *own, uint64_t *cgid)
{
	union {
		struct nlmsghdr nh;
		char b[8192];
	} buf;
	int fd, err;
	ssize_t n;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	err = ask(fd, tcp, src, dst);
	if (!err) {
		do
			n = recv(fd, &buf, sizeof(buf), 0);
		while (n < 0 && errno == EINTR);
		err = n < 0 ? -errno : cgroup_of(&buf.nh, (size_t)n, own, cgid);
	}
	close(fd);
	return err;
}

/*
 * TCP's exact lookup takes (src, dst) as the socket's (own, far end). UDP's has been the other
 * way round ("swapped for historical reasons", udp_diag.c), not alike on every kernel: both
 * orders are asked, and only an answer describing a socket bound to @own is taken.
 */
int wd_net_sock_cgroup(bool tcp, const struct sockaddr_in *own, const struct sockaddr_in *far,
		       uint64_t *cgid)
{
	int err = lookup(tcp, own, far, own, cgid);

	if (err == -ENOENT)
		err = lookup(tcp, far, own, own, cgid);
	return err;
}
