// SPDX-License-Identifier: GPL-2.0
/* A run's DNS forwarder and the addresses it opens (supervisor/run/dns.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "supervisor/net/peer.h"
#include "supervisor/run/dns.h"
#include "supervisor/util/log.h"

/* The ruleset's name rule compiled from the policy's @r (a deny rule when @deny). */
static const struct wd_net_name *name_of(const struct wd_ruleset *rs,
					 const struct wd_net_rule *r, bool deny)
{
	__u8 action = deny ? WD_ACTION_DENY : WD_ACTION_ALLOW;

	for (size_t i = 0; r->name && i < rs->n_net_names; i++) {
		const struct wd_net_name *nm = &rs->net_names[i];

		if (nm->action == action && nm->proto == (__u8)r->proto &&
		    nm->port_lo == r->port_lo && nm->port_hi == r->port_hi &&
		    !strcmp(nm->name, r->name))
			return nm;
	}
	return NULL;
}

/* A rule as records name it: its JSON pointer ("/net/allow/0"), as the net records do. */
static const char *rule_ptr(const struct wd_ruleset *rs, const struct wd_net_rule *r)
{
	const struct wd_net_name *nm = name_of(rs, r, false);

	nm = nm ?: name_of(rs, r, true);
	return nm ? wd_ruleset_rule_name(rs, nm->id) : NULL;
}

static int on_resolved(const struct wd_dns_resolved *r, void *arg)
{
	struct run_dns *d = arg;
	const struct wd_net_name *nm;
	char addr[INET6_ADDRSTRLEN] = "";
	uint64_t deadline;
	int err;

	inet_ntop(r->family, r->addr, addr, sizeof(addr));
	if (!r->rule) /* net.default "allow": nothing to open */
		return 0;
	nm = name_of(d->rs, r->rule, r->deny);
	if (!nm) {
		log_warnx("dns: no compiled rule for %s", r->rule->name);
		return -ENOENT;
	}
	deadline = wd_dns_now_ms() + (uint64_t)r->ttl * 1000 + WD_NET_RESOLVED_GRACE_MS;
	err = wd_net_resolved_add(&d->set, r->family, r->addr, nm, deadline);
	if (!err && !r->deny) {
		struct wd_audit_dns a = { .name = r->qname, .verdict = "allow",
					  .rule = wd_ruleset_rule_name(d->rs, nm->id),
					  .addr = addr, .ttl = r->ttl };

		wd_run_audit_write(d->st, wd_audit_dns_line(&d->st->actx,
							    wd_clock_ns(CLOCK_REALTIME), &a));
	}
	return err;
}

static void on_event(const struct wd_dns_event *ev, void *arg)
{
	struct run_dns *d = arg;
	struct wd_audit_dns a = {
		.name = ev->name,
		.qtype = ev->qtype,
		.verdict = ev->verdict == WD_DNS_ALLOWED ? "allow" : "deny",
		.why = ev->verdict == WD_DNS_ALLOWED ? NULL : ev->why,
		.tcp = ev->tcp,
	};

	if (ev->rule)
		a.rule = rule_ptr(d->rs, ev->rule);
	wd_run_audit_write(d->st, wd_audit_dns_line(&d->st->actx, wd_clock_ns(CLOCK_REALTIME),
						    &a));
}

/*
 * Only the sandbox's own sockets are answered. Over a veth pair the forwarder's sockets are
 * bound to the pair's host end, so what reaches them came through the pair, from the sandbox's
 * namespace: from its address. On loopback every host process could send: the querier's socket
 * is looked up (sock_diag) and must be in the sandbox's cgroup.
 */
static bool peer_ok(const struct sockaddr_storage *peer, const struct sockaddr_storage *local,
		    bool tcp, void *arg)
{
	const struct sockaddr_in *pin = (const struct sockaddr_in *)peer;
	struct run_dns *d = arg;
	uint64_t cg = 0;
	int err;

	if (peer->ss_family != AF_INET || local->ss_family != AF_INET)
		return false;
	if (d->sandbox4)
		return pin->sin_addr.s_addr == d->sandbox4;
	err = wd_net_sock_cgroup(tcp, pin, (const struct sockaddr_in *)local, &cg);
	if (err && err != -ENOENT)
		log_warnx("dns: cannot tell whose socket asked: %s", strerror(-err));
	return !err && cg == d->st->sandbox_id;
}

/*
 * On loopback the querier check needs sock_diag (inet_diag, tcp_diag, udp_diag): look the
 * forwarder's own sockets up once, so a host without it is told at start, not by every query
 * going unanswered.
 */
static int sock_diag_works(const struct sockaddr_in *local)
{
	const struct sockaddr_in any = { .sin_family = AF_INET };
	uint64_t cg;
	int err = wd_net_sock_cgroup(false, local, &any, &cg);

	err = err ?: wd_net_sock_cgroup(true, local, &any, &cg);
	if (err)
		log_warnx("dns: cannot look sockets up through sock_diag (%s): the forwarder could "
			  "not tell its sandbox's queries from others' (load inet_diag, tcp_diag "
			  "and udp_diag)", strerror(-err));
	return err ? -EOPNOTSUPP : 0;
}

static int upstreams(struct wd_dns_config *c)
{
	const char *path = getenv("WARDEN_DNS_RESOLV");
	int err;

	if (!path || !*path)
		path = "/etc/resolv.conf";
	err = wd_dns_upstreams_read(path, c->upstream, WD_DNS_UPSTREAM_MAX, &c->n_upstream);
	if (err)
		log_warnx("dns: no nameserver to forward to in %s: %s", path, strerror(-err));
	return err;
}

/* Where the sandbox thinks its replies come from: the first IPv4 nameserver, else 127.0.0.1. */
static __u32 peer_of(const struct wd_dns_config *c)
{
	for (size_t i = 0; i < c->n_upstream; i++)
		if (c->upstream[i].ss_family == AF_INET)
			return ((const struct sockaddr_in *)&c->upstream[i])->sin_addr.s_addr;
	return htonl(INADDR_LOOPBACK);
}

int wd_run_dns_start(struct run_dns **out, const struct wd_policy *p, struct wd_ruleset *rs,
		     struct run_state *st, const struct wd_veth *veth)
{
	struct sockaddr_in *sin;
	struct sockaddr_storage ss;
	struct wd_dns_config c;
	struct run_dns *d;
	socklen_t len;
	int err;

	*out = NULL;
	if (!rs->net_on || !rs->n_net_names)
		return 0;
	if (rs->ns[WD_NS_NET] == WD_NS_NONE ||
	    (rs->ns[WD_NS_NET] == WD_NS_VETH && !veth->host_if[0])) {
		log_warnx("/namespaces/net: names in net rules need namespaces.net \"host\" or "
			  "\"veth\" (with \"none\" nothing reaches the forwarder)");
		return -EOPNOTSUPP;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->st = st;
	d->rs = rs;
	wd_dns_config_default(&c);
	c.udp_fd = c.tcp_fd = -1;
	sin = (struct sockaddr_in *)&c.listen;
	memset(&c.listen, 0, sizeof(c.listen));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (veth->host_if[0]) {
		sin->sin_addr.s_addr = veth->host4;
		snprintf(c.bind_dev, sizeof(c.bind_dev), "%s", veth->host_if);
		d->sandbox4 = veth->sandbox4;
	}
	c.listen_len = sizeof(*sin);
	c.allow = &p->net_allow;
	c.deny = &p->net_deny;
	c.default_allow = p->net_default == WD_ACTION_ALLOW;
	c.on_resolved = on_resolved;
	c.on_event = on_event;
	c.peer_ok = peer_ok;
	c.arg = d;
	err = upstreams(&c);
	err = err ?: wd_dns_new(&c, &d->dns);
	if (err) {
		free(d);
		return err;
	}
	wd_dns_local(d->dns, &ss, &len);
	sin = (struct sockaddr_in *)&ss;
	err = d->sandbox4 ? 0 : sock_diag_works(sin);
	if (err) {
		wd_dns_free(d->dns);
		free(d);
		return err;
	}
	rs->dns4 = sin->sin_addr.s_addr;
	rs->dns_port = sin->sin_port;
	rs->dns_peer4 = peer_of(&c);
	st->dns = d;
	*out = d;
	return 0;
}

void wd_run_dns_bind(struct run_dns *d, const int fds[2], uint64_t sandbox)
{
	wd_net_resolved_init(&d->set, fds, sandbox, d->rs);
}

int wd_run_dns_fd(const struct run_dns *d)
{
	return wd_dns_fd(d->dns);
}

void wd_run_dns_ready(struct run_dns *d)
{
	wd_dns_handle(d->dns, wd_dns_now_ms());
	wd_run_audit_flush(d->st);
}

void wd_run_dns_tick(struct run_dns *d)
{
	uint64_t now = wd_dns_now_ms();

	wd_dns_tick(d->dns, now);
	wd_net_resolved_tick(&d->set, now);
	wd_run_audit_flush(d->st);
}

int wd_run_dns_timeout(const struct run_dns *d)
{
	uint64_t now = wd_dns_now_ms();
	int a = wd_dns_timeout(d->dns, now), b = wd_net_resolved_timeout(&d->set, now);

	if (a < 0)
		return b;
	return b < 0 || a < b ? a : b;
}

void wd_run_dns_stop(struct run_dns *d)
{
	if (!d)
		return;
	if (d->st)
		d->st->dns = NULL;
	wd_dns_free(d->dns);
	wd_net_resolved_free(&d->set);
	free(d);
}
