// SPDX-License-Identifier: GPL-2.0
/* A veth pair between the host and a sandbox's network (supervisor/sandbox/veth.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/link/veth.h>
#include <netlink/route/route.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "supervisor/sandbox/veth.h"
#include "supervisor/util/log.h"

#define TRIES 64 /* slots tried from the seed's on */
#define SANDBOX_IF "eth0"

static struct nl_sock *nl_open(void)
{
	struct nl_sock *sk = nl_socket_alloc();

	if (sk && nl_connect(sk, NETLINK_ROUTE)) {
		nl_socket_free(sk);
		sk = NULL;
	}
	return sk;
}

/* Does any address of the host's fall into the /30 at @base (host order)? */
struct in_slot {
	uint32_t base;
	bool hit;
};

static void addr_in_slot(struct nl_object *obj, void *arg)
{
	struct nl_addr *local = rtnl_addr_get_local((struct rtnl_addr *)obj);
	struct in_slot *s = arg;
	uint32_t a;

	if (!local || nl_addr_get_family(local) != AF_INET || nl_addr_get_len(local) != 4)
		return;
	memcpy(&a, nl_addr_get_binary_addr(local), 4);
	if ((ntohl(a) & ~3u) == s->base)
		s->hit = true;
}

static bool slot_used(struct nl_sock *sk, uint32_t base)
{
	struct in_slot s = { .base = base };
	struct nl_cache *cache;

	if (rtnl_addr_alloc_cache(sk, &cache))
		return true;
	nl_cache_foreach(cache, addr_in_slot, &s);
	nl_cache_free(cache);
	return s.hit;
}

/* The pair "wd<slot>" (here) and eth0 (in @netns_fd): -NLE_EXIST when the name is taken. */
static int add_pair(struct nl_sock *sk, const char *name, int netns_fd)
{
	struct rtnl_link *veth = rtnl_link_veth_alloc(), *peer;
	int r;

	if (!veth)
		return -NLE_NOMEM;
	rtnl_link_set_name(veth, name);
	peer = rtnl_link_veth_get_peer(veth);
	rtnl_link_set_name(peer, SANDBOX_IF);
	rtnl_link_set_ns_fd(peer, netns_fd);
	r = rtnl_link_add(sk, veth, NLM_F_CREATE | NLM_F_EXCL);
	rtnl_link_put(peer);
	rtnl_link_put(veth);
	return r;
}

/* @bin (@family's, @plen bits) on @ifindex; an IPv6 one needs no duplicate detection. */
static int addr_add(struct nl_sock *sk, int ifindex, int family, const void *bin, int plen)
{
	struct rtnl_addr *ra = rtnl_addr_alloc();
	struct nl_addr *local = nl_addr_build(family, bin, family == AF_INET ? 4 : 16);
	int r = -NLE_NOMEM;

	if (ra && local) {
		nl_addr_set_prefixlen(local, plen);
		rtnl_addr_set_ifindex(ra, ifindex);
		if (family == AF_INET6)
			rtnl_addr_set_flags(ra, IFA_F_NODAD);
		r = rtnl_addr_set_local(ra, local);
		r = r ?: rtnl_addr_add(sk, ra, 0);
	}
	nl_addr_put(local);
	rtnl_addr_put(ra);
	return r;
}

/* Link @name's addresses (@v4/30, and @v6/64 when @v6), the link up. */
static int addr_up(struct nl_sock *sk, const char *name, uint32_t v4, const struct in6_addr *v6,
		   int *ifindex)
{
	struct rtnl_link *link = NULL, *change = rtnl_link_alloc();
	int r = change ? rtnl_link_get_kernel(sk, 0, name, &link) : -NLE_NOMEM;

	if (!r) {
		*ifindex = rtnl_link_get_ifindex(link);
		r = addr_add(sk, *ifindex, AF_INET, &v4, 30);
		if (!r && v6)
			r = addr_add(sk, *ifindex, AF_INET6, v6, 64);
		rtnl_link_set_flags(change, IFF_UP);
		r = r ?: rtnl_link_change(sk, link, change, 0);
	}
	rtnl_link_put(change);
	rtnl_link_put(link);
	return r;
}

/* The default route of @family via @gw on @ifindex. */
static int default_route(struct nl_sock *sk, int ifindex, int family, const void *gw)
{
	static const unsigned char any[16];
	unsigned int len = family == AF_INET ? 4 : 16;
	struct rtnl_route *rt = rtnl_route_alloc();
	struct rtnl_nexthop *nh = rtnl_route_nh_alloc();
	struct nl_addr *dst = nl_addr_build(family, any, len);
	struct nl_addr *via = nl_addr_build(family, gw, len);
	int r = -NLE_NOMEM;

	if (rt && nh && dst && via) {
		nl_addr_set_prefixlen(dst, 0);
		rtnl_route_set_family(rt, (uint8_t)family);
		r = rtnl_route_set_dst(rt, dst);
		rtnl_route_nh_set_ifindex(nh, ifindex);
		rtnl_route_nh_set_gateway(nh, via);
		rtnl_route_add_nexthop(rt, nh);
		nh = NULL; /* the route's now */
		r = r ?: rtnl_route_add(sk, rt, NLM_F_CREATE);
	}
	if (nh)
		rtnl_route_nh_free(nh);
	nl_addr_put(dst);
	nl_addr_put(via);
	rtnl_route_put(rt);
	return r;
}

/* Write @val to /proc/sys/net/ipv6/conf/@name/@key, in the namespace warden is in now. */
static bool v6_set(const char *name, const char *key, const char *val)
{
	char path[128];
	int fd;
	bool ok;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/%s", name, key);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok;
}

/*
 * IPv6 on the down link @name, if the host has it on (a host without IPv6 has no such file, a
 * host that turned it off has disable_ipv6 1 on a new link: both stay IPv4 only): no address
 * the kernel makes itself (addr_gen_mode none: not even fe80::, which no rule could name), no
 * router advertisement or redirect taken from the other end. Anything short of that turns IPv6
 * off on the link. True when IPv6 is on.
 */
static bool v6_prepare(const char *name)
{
	char path[128], c = '1';
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (read(fd, &c, 1) != 1)
		c = '1';
	close(fd);
	if (c != '0')
		return false;
	if (v6_set(name, "addr_gen_mode", "1") && v6_set(name, "accept_ra", "0") &&
	    v6_set(name, "accept_redirects", "0"))
		return true;
	if (!v6_set(name, "disable_ipv6", "1"))
		log_warn("veth: cannot turn IPv6 off on %s", name);
	return false;
}

/* The sandbox's end, from inside its namespace: addresses, up, default routes via the host end. */
static int sandbox_end(struct wd_veth *v, int netns_fd)
{
	struct nl_sock *sk = NULL;
	int host, ifindex, r, err = 0;

	host = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (host < 0)
		return -errno;
	if (setns(netns_fd, CLONE_NEWNET)) {
		err = -errno;
		close(host);
		return err;
	}
	if (v->has6 && !v6_prepare(SANDBOX_IF))
		v->has6 = false;
	sk = nl_open();
	r = sk ? addr_up(sk, SANDBOX_IF, v->sandbox4, v->has6 ? &v->sandbox6 : NULL, &ifindex) :
		 -NLE_NOMEM;
	r = r ?: default_route(sk, ifindex, AF_INET, &v->host4);
	if (!r && v->has6)
		r = default_route(sk, ifindex, AF_INET6, &v->host6);
	if (r) {
		log_warnx("veth: %s in the sandbox: %s", SANDBOX_IF, nl_geterror(r));
		err = -EIO;
	}
	nl_socket_free(sk);
	/* warden itself must not stay in it: nothing would reach it any more */
	if (setns(host, CLONE_NEWNET))
		fatal("veth: cannot return to the host's network namespace");
	close(host);
	return err;
}

/* The slot's IPv6 address ending in @host (1: the host end, 2: the sandbox's). */
static void v6_of(struct in6_addr *a, uint32_t slot, unsigned char host)
{
	static const unsigned char pool[6] = WD_VETH_POOL6;

	memset(a, 0, sizeof(*a));
	memcpy(a->s6_addr, pool, sizeof(pool));
	a->s6_addr[6] = (unsigned char)(slot >> 8);
	a->s6_addr[7] = (unsigned char)slot;
	a->s6_addr[15] = host;
}

/* Claim a free slot: its name made with NLM_F_EXCL is the claim. */
static int claim(struct nl_sock *sk, struct wd_veth *v, int netns_fd, uint32_t seed)
{
	for (uint32_t i = 0; i < TRIES; i++) {
		uint32_t slot = (seed + i) % WD_VETH_SLOTS;
		uint32_t base = WD_VETH_POOL + slot * 4;
		int r;

		if (slot_used(sk, base))
			continue;
		snprintf(v->host_if, sizeof(v->host_if), "wd%u", slot);
		r = add_pair(sk, v->host_if, netns_fd);
		if (r == -NLE_EXIST)
			continue;
		if (r) {
			log_warnx("veth: cannot make the pair %s: %s", v->host_if, nl_geterror(r));
			v->host_if[0] = 0;
			return -EIO;
		}
		v->host4 = htonl(base + 1);
		v->sandbox4 = htonl(base + 2);
		v6_of(&v->host6, slot, 1);
		v6_of(&v->sandbox6, slot, 2);
		return 0;
	}
	v->host_if[0] = 0;
	log_warnx("veth: no free /30 in 10.243.0.0/16 after %d tries", TRIES);
	return -EADDRINUSE;
}

int wd_veth_make(struct wd_veth *v, int netns_fd, uint32_t seed)
{
	struct nl_sock *sk = nl_open();
	int ifindex, r, err;

	memset(v, 0, sizeof(*v));
	if (!sk)
		return -ENOMEM;
	err = claim(sk, v, netns_fd, seed);
	if (err)
		goto out;
	/* IPv6 on both ends or neither: the sandbox's end is asked in sandbox_end */
	v->has6 = v6_prepare(v->host_if);
	r = addr_up(sk, v->host_if, v->host4, v->has6 ? &v->host6 : NULL, &ifindex);
	if (r) {
		log_warnx("veth: %s: %s", v->host_if, nl_geterror(r));
		err = -EIO;
	}
	err = err ?: sandbox_end(v, netns_fd);
out:
	nl_socket_free(sk);
	if (err)
		wd_veth_remove(v);
	return err;
}

void wd_veth_remove(struct wd_veth *v)
{
	struct rtnl_link *link;
	struct nl_sock *sk;
	int r;

	if (!v->host_if[0])
		return;
	sk = nl_open();
	link = rtnl_link_alloc();
	if (sk && link) {
		rtnl_link_set_name(link, v->host_if);
		r = rtnl_link_delete(sk, link);
		/* gone already: the namespace died with the sandbox, and the pair with it */
		if (r && r != -NLE_NODEV && r != -NLE_OBJ_NOTFOUND)
			log_warnx("veth: cannot delete %s: %s", v->host_if, nl_geterror(r));
	}
	rtnl_link_put(link);
	nl_socket_free(sk);
	v->host_if[0] = 0;
}
