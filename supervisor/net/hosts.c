// SPDX-License-Identifier: GPL-2.0
/* The host's own addresses through libnl (supervisor/net/hosts.h), in the net/ room. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <netlink/netlink.h>
#include <netlink/route/addr.h>

#include "supervisor/net/hosts.h"
#include "supervisor/util/log.h"

struct collect {
	struct wd_net_block *v;
	size_t n;
	int err;
};

static void one_addr(struct nl_object *obj, void *arg)
{
	struct rtnl_addr *a = (struct rtnl_addr *)obj;
	struct nl_addr *local = rtnl_addr_get_local(a);
	struct collect *c = arg;
	struct wd_net_block b = { 0 }, *more;
	int family = rtnl_addr_get_family(a);
	unsigned int len;

	if (!local || (family != AF_INET && family != AF_INET6) || c->err)
		return;
	len = nl_addr_get_len(local);
	if (len != (family == AF_INET ? 4u : 16u))
		return;
	b.family = (unsigned char)family;
	b.prefix = (unsigned char)(len * 8);
	memcpy(b.addr, nl_addr_get_binary_addr(local), len);
	more = realloc(c->v, (c->n + 1) * sizeof(*more));
	if (!more) {
		c->err = -ENOMEM;
		return;
	}
	c->v = more;
	c->v[c->n++] = b;
}

int wd_net_host_blocks(struct wd_net_block **out, size_t *n)
{
	struct collect c = { 0 };
	struct nl_cache *cache = NULL;
	struct nl_sock *sk;
	int err;

	*out = NULL;
	*n = 0;
	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	err = nl_connect(sk, NETLINK_ROUTE);
	if (!err)
		err = rtnl_addr_alloc_cache(sk, &cache);
	if (err) {
		log_warnx("net: cannot read the host's addresses: %s", nl_geterror(err));
		nl_socket_free(sk);
		return -EIO;
	}
	nl_cache_foreach(cache, one_addr, &c);
	nl_cache_free(cache);
	nl_socket_free(sk);
	if (c.err) {
		free(c.v);
		return c.err;
	}
	*out = c.v;
	*n = c.n;
	return 0;
}
