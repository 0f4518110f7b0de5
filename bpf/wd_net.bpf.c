// SPDX-License-Identifier: GPL-2.0
/*
 * The network object: cgroup socket programs on warden's subtree (<cgroup2>/warden), on both
 * backends. connect4/6 and sendmsg4/6 decide a sandbox's egress by address (one LPM trie per
 * family), protocol and port; bind4/6 decide what it may listen on (net.listen); sock_create
 * refuses raw sockets, and ping sockets unless net.ping. Each returns "allow" at once for a
 * task outside a sandbox whose network is ruled. Docs: docs/network.md.
 */
#include "wd_common.bpf.h"
#include <bpf/bpf_endian.h>
#include "wd_net.bpf.h"

/* weak: linked with the other objects of the host set (bpf/wd_maps.bpf.h), one kept */
char LICENSE[] SEC("license") __weak = "GPL";

#define AF_INET 2
#define AF_INET6 10
#define SOCK_DGRAM 2
#define SOCK_RAW 3
#define IPPROTO_ICMP 1
#define IPPROTO_TCP 6
#define IPPROTO_UDP 17
#define IPPROTO_ICMPV6 58

/* cgroup sock_addr and sock programs: 1 lets the call go on, 0 fails it with EPERM */
#define WD_SOCK_ALLOW 1
#define WD_SOCK_DENY 0

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, WD_MAX_NET_KEYS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct wd_net4_key);
	__type(value, struct wd_net_val);
} wd_net4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, WD_MAX_NET_KEYS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct wd_net6_key);
	__type(value, struct wd_net_val);
} wd_net6 SEC(".maps");

/*
 * Each sandbox's network rules, written from user space only. Not preallocated: 16384 entries of
 * 472 bytes would be 7.7 MB of kernel memory, and 14 ms of every load of the set, for the few
 * sandboxes a host runs; the programs only look entries up, which never allocates.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, WD_MAX_SANDBOXES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct wd_net_cfg);
} wd_net_cfg SEC(".maps");

/* What was decided, and by which rule. */
struct wd_net_verdict {
	bool allow;
	__u32 rule;
};

static __always_inline __u8 proto_bit(__u32 protocol)
{
	return protocol == IPPROTO_TCP ? WD_NETP_TCP : protocol == IPPROTO_UDP ? WD_NETP_UDP : 0;
}

/*
 * The ranges of the longest stored prefix: a matching deny decides, else a matching allow;
 * nothing matching leaves the default, except on the host's own addresses (WD_NETV_HOST), which
 * only a rule naming them opens.
 *
 * match() and decide_bind() are global functions: the verifier checks each once, on its own,
 * rather than once per inlined copy and caller state (bind6 alone took 44 ms to load with them
 * inlined, and every embedded run loads the set). Their pointers may be NULL to the verifier.
 */
__noinline int match(const struct wd_net_val *v, __u8 proto, __u16 port, struct wd_net_verdict *d)
{
	bool allowed = false;
	__u32 arule = 0;

	if (!v || !d)
		return 0;
	if (v->flags & WD_NETV_HOST) {
		d->allow = false;
		d->rule = WD_RULE_NET_HOST;
	}
	for (int i = 0; i < WD_NET_RANGES; i++) {
		const struct wd_net_range *r = &v->r[i];

		if ((__u32)i >= v->n)
			break;
		if (r->proto && r->proto != proto)
			continue;
		if (port < r->port_lo || port > r->port_hi)
			continue;
		if (r->action == WD_NETA_DENY) {
			d->allow = false;
			d->rule = r->rule;
			return 0;
		}
		if (!allowed) {
			allowed = true;
			arule = r->rule;
		}
	}
	if (allowed) {
		d->allow = true;
		d->rule = arule;
	}
	return 0;
}

static __always_inline void decide4(__u64 id, const struct wd_net_cfg *cfg, __u32 addr,
				    __u8 proto, __u16 port, struct wd_net_verdict *d)
{
	struct wd_net4_key k = {
		.prefixlen = 64 + 32,
		.sandbox = { (__u32)id, (__u32)(id >> 32) },
	};
	struct wd_net_val *v;

	__builtin_memcpy(k.addr, &addr, 4);
	d->allow = cfg->def == WD_NETA_ALLOW;
	d->rule = WD_RULE_DEFAULT;
	v = bpf_map_lookup_elem(&wd_net4, &k);
	if (v)
		match(v, proto, port, d);
}

static __always_inline void decide6(__u64 id, const struct wd_net_cfg *cfg, const __u32 *addr,
				    __u8 proto, __u16 port, struct wd_net_verdict *d)
{
	struct wd_net6_key k = {
		.prefixlen = 64 + 128,
		.sandbox = { (__u32)id, (__u32)(id >> 32) },
	};
	struct wd_net_val *v;

	__builtin_memcpy(k.addr, addr, 16);
	d->allow = cfg->def == WD_NETA_ALLOW;
	d->rule = WD_RULE_DEFAULT;
	v = bpf_map_lookup_elem(&wd_net6, &k);
	if (v)
		match(v, proto, port, d);
}

/* The sandbox of the calling task and its network rules, or NULL: not ruled, allow. */
static __always_inline struct wd_net_cfg *ruled(__u64 *id, struct wd_sandbox **sb)
{
	struct wd_net_cfg *cfg;

	*sb = current_sandbox(id);
	if (!*sb)
		return NULL;
	cfg = bpf_map_lookup_elem(&wd_net_cfg, id);
	return cfg && (cfg->flags & WD_NETC_ON) ? cfg : NULL;
}

/*
 * The `net` record of a refusal (or, in audit mode, of what would have been one), with the
 * address as a struct sockaddr_in or sockaddr_in6; the syscall-exit recorder is told to leave
 * this call alone (wd_net_marks).
 */
static __always_inline void record(struct wd_sandbox *sb, __u64 id, __u16 op, __u32 family,
				   const __u32 *addr6, __u32 addr4, __u16 port_be, __u8 protocol,
				   const struct wd_net_verdict *d, bool audit)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct wd_scratch *s = scratch();
	struct wd_sock_buf *b;
	__u32 one = 1;
	__u16 len = 0;

	if (!s)
		return;
	b = &s->sock;
	fill_hdr(&b->r.h, WD_EV_NET, id);
	b->r.op = op;
	b->r.verdict = audit ? WD_VERDICT_AUDIT : WD_VERDICT_DENY;
	b->r.source = WD_SRC_CGROUP;
	b->r.rule = d->rule;
	b->r.err = audit ? 0 : EPERM;
	b->r.sysno = 0;
	b->r.fd = -1;
	b->r.proto = protocol;
	b->r.flags = 0;
	__builtin_memset(b->addr, 0, 28);
	if (family == AF_INET) {
		*(__u16 *)&b->addr[0] = AF_INET;
		*(__u16 *)&b->addr[2] = port_be;
		*(__u32 *)&b->addr[4] = addr4;
		len = 16;
	} else if (family == AF_INET6 && addr6) {
		*(__u16 *)&b->addr[0] = AF_INET6;
		*(__u16 *)&b->addr[2] = port_be;
		__builtin_memcpy(&b->addr[8], addr6, 16);
		len = 28;
	}
	if (len)
		b->r.flags = WD_EVF_SOCKADDR;
	b->r.addr_len = len;
	if (!audit) {
		__sync_fetch_and_add(&sb->denials, 1);
		bpf_map_update_elem(&wd_net_marks, &pid_tgid, &one, BPF_ANY);
	}
	emit_rec(b, WD_REC_SOCK_SIZE + (__u64)len, sizeof(*b), sb);
}

static __always_inline int verdict(struct wd_sandbox *sb, __u64 id, __u16 op, __u32 family,
				   const __u32 *addr6, __u32 addr4, __u16 port_be, __u8 protocol,
				   const struct wd_net_verdict *d)
{
	bool audit = sb->flags & WD_SB_AUDIT_MODE;

	if (d->allow)
		return WD_SOCK_ALLOW;
	record(sb, id, op, family, addr6, addr4, port_be, protocol, d, audit);
	return audit ? WD_SOCK_ALLOW : WD_SOCK_DENY;
}

static __always_inline int egress4(struct bpf_sock_addr *ctx, __u16 op)
{
	struct wd_net_verdict d;
	struct wd_net_cfg *cfg;
	struct wd_sandbox *sb;
	__u32 addr = ctx->user_ip4;
	__u16 port_be = (__u16)ctx->user_port;
	__u32 protocol = ctx->protocol;
	__u64 id;

	cfg = ruled(&id, &sb);
	if (!cfg)
		return WD_SOCK_ALLOW;
	if (cfg->dns_port && port_be == bpf_htons(53) &&
	    (protocol == IPPROTO_TCP || protocol == IPPROTO_UDP)) {
		/* to the sandbox's forwarder, which answers only the names its policy allows */
		ctx->user_ip4 = cfg->dns4;
		ctx->user_port = cfg->dns_port;
		return WD_SOCK_ALLOW;
	}
	decide4(id, cfg, addr, proto_bit(protocol), bpf_ntohs(port_be), &d);
	return verdict(sb, id, op, AF_INET, NULL, addr, port_be, protocol, &d);
}

/* An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is decided as the IPv4 address it maps. */
static __always_inline bool v4_mapped(const __u32 *a)
{
	return a[0] == 0 && a[1] == 0 && a[2] == bpf_htonl(0xffff);
}

static __always_inline int egress6(struct bpf_sock_addr *ctx, __u16 op)
{
	struct wd_net_verdict d;
	struct wd_net_cfg *cfg;
	struct wd_sandbox *sb;
	__u16 port_be = (__u16)ctx->user_port;
	__u32 protocol = ctx->protocol;
	__u32 a[4];
	__u64 id;

	cfg = ruled(&id, &sb);
	if (!cfg)
		return WD_SOCK_ALLOW;
	a[0] = ctx->user_ip6[0];
	a[1] = ctx->user_ip6[1];
	a[2] = ctx->user_ip6[2];
	a[3] = ctx->user_ip6[3];
	if (v4_mapped(a))
		decide4(id, cfg, a[3], proto_bit(protocol), bpf_ntohs(port_be), &d);
	else
		decide6(id, cfg, a, proto_bit(protocol), bpf_ntohs(port_be), &d);
	return verdict(sb, id, op, AF_INET6, a, 0, port_be, protocol, &d);
}

SEC("cgroup/connect4")
int wd_net_connect4(struct bpf_sock_addr *ctx)
{
	return egress4(ctx, WD_OP_CONNECT);
}

SEC("cgroup/sendmsg4")
int wd_net_sendmsg4(struct bpf_sock_addr *ctx)
{
	return egress4(ctx, WD_OP_SENDMSG);
}

/*
 * A UDP reply from the forwarder reads as from the nameserver the sandbox thinks it asked, so a
 * resolver that checks the source takes it.
 */
SEC("cgroup/recvmsg4")
int wd_net_recvmsg4(struct bpf_sock_addr *ctx)
{
	struct wd_net_cfg *cfg;
	struct wd_sandbox *sb;
	__u64 id;

	cfg = ruled(&id, &sb);
	if (!cfg || !cfg->dns_port)
		return WD_SOCK_ALLOW;
	if (ctx->user_ip4 == cfg->dns4 && (__u16)ctx->user_port == cfg->dns_port) {
		ctx->user_ip4 = cfg->dns_peer4;
		ctx->user_port = bpf_htons(53);
	}
	return WD_SOCK_ALLOW;
}

SEC("cgroup/connect6")
int wd_net_connect6(struct bpf_sock_addr *ctx)
{
	return egress6(ctx, WD_OP_CONNECT);
}

SEC("cgroup/sendmsg6")
int wd_net_sendmsg6(struct bpf_sock_addr *ctx)
{
	return egress6(ctx, WD_OP_SENDMSG);
}

/* A bind as decide_bind() takes it (a BPF function has at most five arguments). */
struct wd_net_bind {
	__u8 addr[16]; /* the family's bytes, network order */
	__u32 family;
	__u16 port; /* host order */
	__u8 proto; /* WD_NETP_* */
	__u8 __pad0;
};

/*
 * Does net.listen entry @l take the bind @q? Its protocol, its port range, and its address up to
 * its prefix, byte by byte (bounded: 16 bytes). Global, as match(): checked once.
 */
__noinline int listen_takes(const struct wd_net_listen *l, const struct wd_net_bind *q)
{
	if (!l || !q)
		return 0;
	if ((l->proto && l->proto != q->proto) || q->port < l->port_lo || q->port > l->port_hi)
		return 0;
	if (!l->family)
		return 1;
	if (l->family != q->family)
		return 0;
	for (int j = 0; j < 16; j++) {
		__u32 bits = l->prefix > j * 8 ? l->prefix - j * 8 : 0;
		__u8 mask;

		if (!bits)
			break;
		mask = bits >= 8 ? 0xff : (__u8)(0xff << (8 - bits));
		if ((q->addr[j] ^ l->addr[j]) & mask)
			return 0;
	}
	return 1;
}

/*
 * A bind to @q's port at its address: port 0 (an ephemeral port, what connect takes implicitly)
 * always; else a net.listen entry, else net.default.
 */
__noinline int decide_bind(const struct wd_net_cfg *cfg, const struct wd_net_bind *q,
			   struct wd_net_verdict *d)
{
	if (!d)
		return 0;
	d->allow = false;
	d->rule = WD_RULE_DEFAULT;
	if (!cfg || !q)
		return 0;
	d->allow = q->port == 0 || cfg->def == WD_NETA_ALLOW;
	if (q->port == 0)
		return 0;
	for (int i = 0; i < WD_NET_LISTEN_MAX; i++) {
		if (i >= cfg->n_listen)
			break;
		if (listen_takes(&cfg->listen[i], q)) {
			d->allow = true;
			d->rule = cfg->listen[i].rule;
			return 0;
		}
	}
	return 0;
}

SEC("cgroup/bind4")
int wd_net_bind4(struct bpf_sock_addr *ctx)
{
	struct wd_net_verdict d;
	struct wd_net_cfg *cfg;
	struct wd_sandbox *sb;
	__u16 port_be = (__u16)ctx->user_port;
	__u32 protocol = ctx->protocol;
	__u32 addr = ctx->user_ip4;
	struct wd_net_bind q = { .family = AF_INET };
	__u64 id;

	cfg = ruled(&id, &sb);
	if (!cfg)
		return WD_SOCK_ALLOW;
	__builtin_memcpy(q.addr, &addr, 4);
	q.port = bpf_ntohs(port_be);
	q.proto = proto_bit(protocol);
	decide_bind(cfg, &q, &d);
	return verdict(sb, id, WD_OP_BIND, AF_INET, NULL, addr, port_be, protocol, &d);
}

SEC("cgroup/bind6")
int wd_net_bind6(struct bpf_sock_addr *ctx)
{
	struct wd_net_verdict d;
	struct wd_net_cfg *cfg;
	struct wd_sandbox *sb;
	__u16 port_be = (__u16)ctx->user_port;
	__u32 protocol = ctx->protocol;
	struct wd_net_bind q = { .family = AF_INET6 };
	__u32 a[4];
	__u64 id;

	cfg = ruled(&id, &sb);
	if (!cfg)
		return WD_SOCK_ALLOW;
	a[0] = ctx->user_ip6[0];
	a[1] = ctx->user_ip6[1];
	a[2] = ctx->user_ip6[2];
	a[3] = ctx->user_ip6[3];
	if (v4_mapped(a)) {
		q.family = AF_INET;
		__builtin_memcpy(q.addr, &a[3], 4);
	} else {
		__builtin_memcpy(q.addr, a, 16);
	}
	q.port = bpf_ntohs(port_be);
	q.proto = proto_bit(protocol);
	decide_bind(cfg, &q, &d);
	return verdict(sb, id, WD_OP_BIND, AF_INET6, a, 0, port_be, protocol, &d);
}

/*
 * Socket creation (inet and inet6 only: the kernel runs this hook in inet_create and
 * inet6_create; packet sockets are closed by the seccomp filter): raw sockets never, ICMP echo
 * ("ping") sockets only with net.ping.
 */
SEC("cgroup/sock_create")
int wd_net_sock_create(struct bpf_sock *sk)
{
	struct wd_net_verdict d = { .allow = true };
	struct wd_net_cfg *cfg;
	struct wd_sandbox *sb;
	__u32 type = sk->type, protocol = sk->protocol, family = sk->family;
	__u64 id;

	cfg = ruled(&id, &sb);
	if (!cfg)
		return WD_SOCK_ALLOW;
	if (type == SOCK_RAW)
		d.allow = false;
	else if (type == SOCK_DGRAM && (protocol == IPPROTO_ICMP || protocol == IPPROTO_ICMPV6))
		d.allow = cfg->flags & WD_NETC_PING;
	if (d.allow)
		return WD_SOCK_ALLOW;
	d.rule = WD_RULE_NET_SOCKET;
	/* no address yet: the record names the protocol */
	(void)family;
	return verdict(sb, id, WD_OP_SOCKET, 0, NULL, 0, 0, (__u8)protocol, &d);
}
