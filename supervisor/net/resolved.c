// SPDX-License-Identifier: GPL-2.0
/* Resolved addresses of allowed names in the LPM tries (supervisor/net/resolved.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <bpf/bpf.h>

#include "supervisor/net/resolved.h"
#include "supervisor/util/log.h"

void wd_net_resolved_init(struct wd_net_resolved *s, const int fds[2], uint64_t sandbox,
			  const struct wd_ruleset *rs)
{
	memset(s, 0, sizeof(*s));
	s->fds[0] = fds[0];
	s->fds[1] = fds[1];
	s->sandbox = sandbox;
	s->rs = rs;
}

/* The full-length key of @addr: room for either family. */
static int key_of(const struct wd_net_resolved *s, int family, const uint8_t *addr, void *key)
{
	if (family == AF_INET) {
		struct wd_net4_key *k = key;

		memset(k, 0, sizeof(*k));
		k->prefixlen = 64 + 32;
		k->sandbox[0] = (uint32_t)s->sandbox;
		k->sandbox[1] = (uint32_t)(s->sandbox >> 32);
		memcpy(k->addr, addr, 4);
		return s->fds[0];
	}
	struct wd_net6_key *k = key;

	memset(k, 0, sizeof(*k));
	k->prefixlen = 64 + 128;
	k->sandbox[0] = (uint32_t)s->sandbox;
	k->sandbox[1] = (uint32_t)(s->sandbox >> 32);
	memcpy(k->addr, addr, 16);
	return s->fds[1];
}

static struct wd_net_resolved_ent *find(struct wd_net_resolved *s, int family,
					 const uint8_t *addr)
{
	size_t len = family == AF_INET ? 4 : 16;

	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].family == family && !memcmp(s->v[i].addr, addr, len))
			return &s->v[i];
	return NULL;
}

/* Add @nm's range to @val unless there; -E2BIG when full. */
static int add_range(struct wd_net_val *val, const struct wd_net_name *nm)
{
	struct wd_net_range r = {
		.port_lo = nm->port_lo,
		.port_hi = nm->port_hi,
		.proto = nm->proto,
		.action = nm->action == WD_ACTION_ALLOW ? WD_NETA_ALLOW : WD_NETA_DENY,
		.rule = nm->id,
	};

	for (__u32 i = 0; i < val->n && i < WD_NET_RANGES; i++)
		if (!memcmp(&val->r[i], &r, sizeof(r)))
			return 0;
	if (val->n >= WD_NET_RANGES)
		return -E2BIG;
	val->r[val->n++] = r;
	return 0;
}

static struct wd_net_resolved_ent *new_ent(struct wd_net_resolved *s, int family,
					    const uint8_t *addr, const struct wd_net_val *cur,
					    bool found)
{
	struct wd_net_resolved_ent *more, *e;

	if (s->n >= WD_NET_RESOLVED_MAX)
		return NULL;
	more = realloc(s->v, (s->n + 1) * sizeof(*s->v));
	if (!more)
		return NULL;
	s->v = more;
	e = &s->v[s->n++];
	memset(e, 0, sizeof(*e));
	e->family = family;
	memcpy(e->addr, addr, family == AF_INET ? 4 : 16);
	e->had = found;
	if (found)
		e->orig = *cur;
	return e;
}

int wd_net_resolved_add(struct wd_net_resolved *s, int family, const uint8_t *addr,
			const struct wd_net_name *nm, uint64_t deadline_ms)
{
	union {
		struct wd_net4_key k4;
		struct wd_net6_key k6;
	} key;
	struct wd_net_resolved_ent *e;
	struct wd_net_val val;
	bool found;
	int fd, err;

	if (family != AF_INET && family != AF_INET6)
		return -EAFNOSUPPORT;
	fd = key_of(s, family, addr, &key);
	/* the longest stored prefix holding the address: what decides it now */
	found = bpf_map_lookup_elem(fd, &key, &val) == 0;
	if (!found)
		memset(&val, 0, sizeof(val));
	if (found && (val.flags & WD_NETV_HOST) && !find(s, family, addr)) {
		/* a name never opens the host's own addresses or loopback */
		log_info("dns: %s resolved to an address of this host: left closed", nm->name);
		return 0;
	}
	err = add_range(&val, nm);
	if (err) {
		log_warnx("dns: %s: more than %d rules cover one of its addresses", nm->name,
			  WD_NET_RANGES);
		return err;
	}
	e = find(s, family, addr);
	if (!e) {
		struct wd_net_val cur;

		memset(&cur, 0, sizeof(cur));
		if (found) {
			cur = val;
			cur.n--; /* without the range just added */
		}
		e = new_ent(s, family, addr, &cur, found);
		if (!e)
			return -ENOMEM;
	}
	if (bpf_map_update_elem(fd, &key, &val, BPF_ANY)) {
		err = -errno;
		log_warn("dns: cannot open a resolved address of %s", nm->name);
		return err;
	}
	if (deadline_ms > e->deadline_ms)
		e->deadline_ms = deadline_ms;
	return 0;
}

void wd_net_resolved_tick(struct wd_net_resolved *s, uint64_t now_ms)
{
	for (size_t i = 0; i < s->n;) {
		struct wd_net_resolved_ent *e = &s->v[i];
		union {
			struct wd_net4_key k4;
			struct wd_net6_key k6;
		} key;
		int fd;

		if (e->deadline_ms > now_ms) {
			i++;
			continue;
		}
		fd = key_of(s, e->family, e->addr, &key);
		if (e->had ? bpf_map_update_elem(fd, &key, &e->orig, BPF_ANY)
			   : bpf_map_delete_elem(fd, &key))
			log_warn("dns: cannot close a lapsed resolved address");
		s->v[i] = s->v[--s->n];
	}
}

int wd_net_resolved_timeout(const struct wd_net_resolved *s, uint64_t now_ms)
{
	uint64_t next = UINT64_MAX;

	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].deadline_ms < next)
			next = s->v[i].deadline_ms;
	if (next == UINT64_MAX)
		return -1;
	if (next <= now_ms)
		return 0;
	return next - now_ms > 600000 ? 600000 : (int)(next - now_ms);
}

void wd_net_resolved_free(struct wd_net_resolved *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}
