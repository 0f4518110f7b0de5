// SPDX-License-Identifier: GPL-2.0
/*
 * The "net" section: its host entries ("api.example.com:443", "10.0.0.0/8:443", "[::1]:80") parsed
 * into wd_net_rule, the allow and deny lists, the default and the egress rate.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cJSON.h>

#include "policy/net.h"
#include "policy/parse_internal.h"
#include "policy/policy.h"
#include "policy/units.h"

#define HOST_MAX 256

static const unsigned char v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

/* "443", "8000-8099", "*" into [*lo, *hi]. */
static int parse_ports(const char *s, unsigned int *lo, unsigned int *hi, char *why, size_t whysz)
{
	unsigned long a, b;
	char *end;

	if (strcmp(s, "*") == 0) {
		*lo = 0;
		*hi = 65535;
		return 0;
	}
	if (!isdigit((unsigned char)s[0]))
		goto bad;
	a = strtoul(s, &end, 10);
	b = a;
	if (*end == '-') {
		if (!isdigit((unsigned char)end[1]))
			goto bad;
		b = strtoul(end + 1, &end, 10);
	}
	if (*end)
		goto bad;
	if (a < 1 || a > 65535 || b < 1 || b > 65535) {
		snprintf(why, whysz,
			 "port \"%s\" is out of range: ports are 1-65535 (\"*\" for any)", s);
		return -EINVAL;
	}
	if (a > b) {
		snprintf(why, whysz, "port range \"%s\" runs backwards (write \"%lu-%lu\")", s, b,
			 a);
		return -EINVAL;
	}
	*lo = (unsigned int)a;
	*hi = (unsigned int)b;
	return 0;
bad:
	snprintf(why, whysz, "expected a port, a range such as \"8000-8099\", or \"*\", got \"%s\"",
		 s);
	return -EINVAL;
}

/* "/24" at @s (may be empty: the whole address) for a family of @bits. */
static int parse_prefix(const char *s, unsigned int bits, unsigned int *prefix, char *why,
			size_t whysz)
{
	unsigned long v;
	char *end;

	if (!*s) {
		*prefix = bits;
		return 0;
	}
	if (s[0] != '/' || !isdigit((unsigned char)s[1]))
		goto bad;
	v = strtoul(s + 1, &end, 10);
	if (*end || v > bits || (s[1] == '0' && s[2]))
		goto bad;
	*prefix = (unsigned int)v;
	return 0;
bad:
	snprintf(why, whysz, "expected a prefix length of 0-%u after \"/\", got \"%s\"", bits, s);
	return -EINVAL;
}

static int host_bits_set(const unsigned char *addr, unsigned int nbytes, unsigned int prefix)
{
	for (unsigned int bit = prefix; bit < nbytes * 8; bit++)
		if (addr[bit / 8] & (0x80 >> (bit % 8)))
			return 1;
	return 0;
}

static void clear_host_bits(unsigned char *addr, unsigned int nbytes, unsigned int prefix)
{
	for (unsigned int bit = prefix; bit < nbytes * 8; bit++)
		addr[bit / 8] &= (unsigned char)~(0x80 >> (bit % 8));
}

void wd_net_addr_format(int family, const unsigned char *addr, unsigned int prefix, char *buf,
			size_t bufsz)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(family, addr, a, sizeof(a));
	if (prefix == (family == AF_INET ? 32u : 128u))
		snprintf(buf, bufsz, "%s", a);
	else
		snprintf(buf, bufsz, "%s/%u", a, prefix);
}

static int parse_addr(const char *host, const char *pfx, int family, struct wd_net_rule *r,
		      char *why, size_t whysz)
{
	unsigned int bits = family == AF_INET ? 32 : 128;
	unsigned char addr[16] = { 0 };
	int err;

	if (inet_pton(family, host, addr) != 1) {
		snprintf(why, whysz, "\"%s\" is not a valid %s address", host,
			 family == AF_INET ? "IPv4" : "IPv6");
		return -EINVAL;
	}
	err = parse_prefix(pfx, bits, &r->prefix, why, whysz);
	if (err)
		return err;
	if (host_bits_set(addr, bits / 8, r->prefix)) {
		char fixed[64];

		clear_host_bits(addr, bits / 8, r->prefix);
		wd_net_addr_format(family, addr, r->prefix, fixed, sizeof(fixed));
		snprintf(why, whysz,
			 "\"%s%s\" has bits set past its prefix (did you mean \"%s%s%s\"?)", host,
			 pfx, family == AF_INET6 ? "[" : "", fixed, family == AF_INET6 ? "]" : "");
		return -EINVAL;
	}
	/* IPv4-mapped IPv6 is IPv4: the kernel side compares it folded. */
	if (family == AF_INET6 && r->prefix >= 96 && memcmp(addr, v4mapped, 12) == 0) {
		memmove(addr, addr + 12, 4);
		memset(addr + 4, 0, 12);
		family = AF_INET;
		r->prefix -= 96;
	}
	r->kind = WD_NET_HOST_ADDR;
	r->family = family;
	memcpy(r->addr, addr, sizeof(r->addr));
	return 0;
}

static int bad_label(const char *host, char *why, size_t whysz)
{
	snprintf(why, whysz, "\"%s\" is not a host name (empty label or label ending in \"-\")",
		 host);
	return -EINVAL;
}

static int parse_name(const char *host, struct wd_net_rule *r, char *why, size_t whysz)
{
	char name[HOST_MAX];
	size_t n = strlen(host), label = 0;
	const char *p = host;
	bool all_digits = true;

	if (n && host[n - 1] == '.')
		n--; /* "example.com." is example.com */
	if (n == 0 || n > 253) {
		snprintf(why, whysz, "\"%s\" is not a host name (1-253 characters)", host);
		return -EINVAL;
	}
	if (p[0] == '*') {
		if (n == 1 || p[1] != '.') {
			snprintf(why, whysz, "a wildcard is a whole first label, as in \"*.%s\"",
				 p[1] == '.' ? p + 2 : p + 1);
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < n; i++) {
		char c = (char)tolower((unsigned char)p[i]);

		if (i == 0 && c == '*') {
			name[i] = c;
			label = 1;
			all_digits = false;
			continue;
		}
		if (c == '.') {
			if (label == 0 || p[i - 1] == '-')
				return bad_label(host, why, whysz);
			label = 0;
			all_digits = true;
		} else if (isalnum((unsigned char)c) || c == '-') {
			if ((label == 0 && c == '-') || ++label > 63) {
				snprintf(why, whysz,
					 "\"%s\" is not a host name (labels are 1-63 "
					 "letters, digits or \"-\", not starting with \"-\")",
					 host);
				return -EINVAL;
			}
			if (!isdigit((unsigned char)c))
				all_digits = false;
		} else if (c == '*') {
			snprintf(why, whysz,
				 "a wildcard may only be the whole first label, as in "
				 "\"*.example.com\", got \"%s\"",
				 host);
			return -EINVAL;
		} else {
			snprintf(why, whysz, "\"%s\" is not a host name: '%c' is not allowed", host,
				 isprint((unsigned char)c) ? c : '?');
			return -EINVAL;
		}
		name[i] = c;
	}
	if (label == 0 || p[n - 1] == '-')
		return bad_label(host, why, whysz);
	if (all_digits) {
		snprintf(why, whysz, "\"%s\" is neither an IPv4 address nor a host name", host);
		return -EINVAL;
	}
	name[n] = 0;
	r->kind = WD_NET_HOST_NAME;
	r->name = strdup(name);
	return r->name ? 0 : -ENOMEM;
}

int wd_net_rule_parse(const char *s, struct wd_net_rule *r, char *why, size_t whysz)
{
	char host[HOST_MAX + 8], pfx[8] = "";
	const char *rest = s, *ports;
	size_t n;
	int err, origin = r->origin;

	memset(r, 0, sizeof(*r));
	r->origin = origin;
	if (strncmp(s, "tcp:", 4) == 0) {
		r->proto = WD_NET_PROTO_TCP;
		rest = s + 4;
	} else if (strncmp(s, "udp:", 4) == 0) {
		r->proto = WD_NET_PROTO_UDP;
		rest = s + 4;
	} else {
		/* "icmp:host:port" or "TCP:...": a word then two more colon-separated parts */
		const char *c1 = strchr(s, ':');

		if (c1 && c1 != s && strchr(c1 + 1, ':') && s[0] != '[') {
			bool word = true;

			for (const char *p = s; p < c1; p++)
				if (!isalpha((unsigned char)*p))
					word = false;
			if (word) {
				snprintf(why, whysz,
					 "unknown protocol \"%.*s\" (expected \"tcp:\" or "
					 "\"udp:\", or none for both)",
					 (int)(c1 - s), s);
				return -EINVAL;
			}
		}
	}
	if (rest[0] == '[') {
		const char *close = strchr(rest, ']'), *slash;

		if (!close) {
			snprintf(why, whysz, "\"%s\": \"[\" without \"]\"", s);
			return -EINVAL;
		}
		n = (size_t)(close - rest - 1);
		if (n >= HOST_MAX)
			n = HOST_MAX - 1;
		memcpy(host, rest + 1, n);
		host[n] = 0;
		/* "[2001:db8::/32]" or "[2001:db8::]/32" */
		slash = strchr(host, '/');
		if (slash) {
			snprintf(pfx, sizeof(pfx), "%.7s", slash);
			host[slash - host] = 0;
		}
		ports = close + 1;
		if (*ports == '/' && !slash) {
			size_t k = strcspn(ports, ":");

			if (k >= sizeof(pfx))
				k = sizeof(pfx) - 1;
			memcpy(pfx, ports, k);
			pfx[k] = 0;
			ports += strcspn(ports, ":");
		}
		if (*ports != ':') {
			snprintf(why, whysz,
				 "missing port: write \"%s:PORT\", \"%s:LOW-HIGH\" or "
				 "\"%s:*\" for any port",
				 s, s, s);
			return -EINVAL;
		}
		ports++;
		err = parse_addr(host, pfx, AF_INET6, r, why, whysz);
		if (err)
			return err;
	} else {
		const char *colon = strrchr(rest, ':'), *slash;

		if (!colon) {
			snprintf(why, whysz,
				 "missing port: write \"%s:PORT\", \"%s:LOW-HIGH\" or "
				 "\"%s:*\" for any port",
				 s, s, s);
			return -EINVAL;
		}
		n = (size_t)(colon - rest);
		if (memchr(rest, ':', n)) {
			snprintf(why, whysz,
				 "an IPv6 address goes in brackets, as in \"[::1]:443\", "
				 "got \"%s\"",
				 s);
			return -EINVAL;
		}
		if (n >= HOST_MAX) {
			snprintf(why, whysz, "host name is longer than 253 characters");
			return -EINVAL;
		}
		memcpy(host, rest, n);
		host[n] = 0;
		ports = colon + 1;
		slash = strchr(host, '/');
		if (slash) {
			snprintf(pfx, sizeof(pfx), "%.7s", slash);
			host[slash - host] = 0;
		}
		if (strcmp(host, "*") == 0 && !slash) {
			r->kind = WD_NET_HOST_ANY;
		} else if (host[0] && strspn(host, "0123456789.") == strlen(host)) {
			err = parse_addr(host, pfx, AF_INET, r, why, whysz);
			if (err)
				return err;
		} else if (slash) {
			snprintf(why, whysz,
				 "a prefix length goes with an address, not a name: "
				 "\"%s\"",
				 s);
			return -EINVAL;
		} else {
			err = parse_name(host, r, why, whysz);
			if (err)
				return err;
		}
	}
	err = parse_ports(ports, &r->port_lo, &r->port_hi, why, whysz);
	if (err) {
		free(r->name);
		r->name = NULL;
	}
	return err;
}

void wd_net_ports_format(const struct wd_net_rule *r, bool words, char *buf, size_t bufsz)
{
	if (r->port_lo == 0 && r->port_hi == 65535)
		snprintf(buf, bufsz, "%s", words ? "any port" : "*");
	else if (r->port_lo == r->port_hi)
		snprintf(buf, bufsz, "%s%u", words ? "port " : "", r->port_lo);
	else
		snprintf(buf, bufsz, "%s%u-%u", words ? "ports " : "", r->port_lo, r->port_hi);
}

void wd_net_rule_format(const struct wd_net_rule *r, char *buf, size_t bufsz)
{
	const char *proto = r->proto == WD_NET_PROTO_TCP   ? "tcp:"
			    : r->proto == WD_NET_PROTO_UDP ? "udp:"
							   : "";
	char host[300], ports[16];

	if (r->kind == WD_NET_HOST_ANY) {
		snprintf(host, sizeof(host), "*");
	} else if (r->kind == WD_NET_HOST_NAME) {
		snprintf(host, sizeof(host), "%s", r->name ? r->name : "?");
	} else {
		char a[64];

		wd_net_addr_format(r->family, r->addr, r->prefix, a, sizeof(a));
		if (r->family == AF_INET6)
			snprintf(host, sizeof(host), "[%s]", a);
		else
			snprintf(host, sizeof(host), "%s", a);
	}
	wd_net_ports_format(r, false, ports, sizeof(ports));
	snprintf(buf, bufsz, "%s%s:%s", proto, host, ports);
}

int wd_net_rule_cmp(const struct wd_net_rule *a, const struct wd_net_rule *b)
{
	char x[320], y[320];

	wd_net_rule_format(a, x, sizeof(x));
	wd_net_rule_format(b, y, sizeof(y));
	return strcmp(x, y);
}

static void parse_net_default(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	(void)name;
	wdp_deny_allow(c, v, ptr, &c->p->net_default, &c->p->net_default_set);
}

static void net_item(struct pctx *c, const cJSON *item, const char *ip)
{
	struct wd_net_list *l = KEY_FIELD(c, struct wd_net_list);
	struct wd_net_rule r = { 0 };
	char why[400];
	int err;

	if (!wdp_check_string(c, item, ip, "a host entry such as \"api.example.com:443\""))
		return;
	err = wd_net_rule_parse(item->valuestring, &r, why, sizeof(why));
	if (err == -ENOMEM) {
		oom(c);
		return;
	}
	if (err) {
		perr(c, ip, "%s", why);
		return;
	}
	if (wd_net_list_add(l, &r))
		oom(c);
	free(r.name);
}

/*
 * A net.listen entry: "[tcp:|udp:]PORTS" or "[tcp:|udp:]HOST:PORTS", HOST an address, a CIDR
 * block or "*" (never a name: a bind names a local address).
 */
static void listen_item(struct pctx *c, const cJSON *item, const char *ip)
{
	struct wd_net_rule r = { 0 };
	const char *s, *rest;
	char why[400], buf[320];
	int err;

	if (!wdp_check_string(c, item, ip, "a listen entry such as \"tcp:8080\""))
		return;
	s = item->valuestring;
	rest = s;
	if (strncmp(rest, "tcp:", 4) == 0 || strncmp(rest, "udp:", 4) == 0)
		rest += 4;
	/* ports alone ("8080", "8000-8099", "*"): any local address */
	if (*rest && strspn(rest, "0123456789-*") == strlen(rest)) {
		snprintf(buf, sizeof(buf), "%.*s*:%s", (int)(rest - s), s, rest);
		s = buf;
	}
	err = wd_net_rule_parse(s, &r, why, sizeof(why));
	if (err == -ENOMEM) {
		oom(c);
		return;
	}
	if (!err && r.kind == WD_NET_HOST_NAME) {
		snprintf(why, sizeof(why), "a listen entry names a local address or \"*\", not a "
			 "name (\"tcp:8080\", \"tcp:127.0.0.1:8080\")");
		err = -EINVAL;
	}
	if (err) {
		perr(c, ip, "%s", why);
		free(r.name);
		return;
	}
	if (wd_net_list_add(&c->p->net_listen, &r))
		oom(c);
	free(r.name);
}

static void parse_net_ping(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	(void)name;
	if (!cJSON_IsBool(v)) {
		perr(c, ptr, "expected true or false (may the sandbox make ICMP echo sockets?)");
		return;
	}
	c->p->net_ping = cJSON_IsTrue(v);
	c->p->net_ping_set.set = true;
}

static void parse_egress_rate(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	char why[300];

	(void)name;
	if (!wdp_check_string(c, v, ptr, "a rate such as \"1MiB/s\""))
		return;
	if (wd_parse_rate(v->valuestring, true, &c->p->egress_bytes, &c->p->egress_per_ms, why,
			  sizeof(why))) {
		perr(c, ptr, "%s", why);
		return;
	}
	if (!c->p->egress_bytes) {
		perr(c, ptr, "an egress rate must be above zero (leave it out for no limit)");
		return;
	}
	c->p->egress_rate_set.set = true;
}

const struct key wdp_net_keys[] = {
	{ .name = "default", .parse = parse_net_default },
#define HOSTS(n) { .name = #n, .item = net_item, \
		    .what = "hosts (\"host:port\", \"10.0.0.0/8:443\", \"[::1]:80\")", \
		    .off = offsetof(struct wd_policy, net_##n) }
	HOSTS(allow),
	HOSTS(deny),
#undef HOSTS
	{ .name = "egress_rate", .parse = parse_egress_rate },
	{ .name = "listen", .item = listen_item,
	  .what = "listen entries (\"tcp:8080\", \"udp:5353\", \"tcp:127.0.0.1:8000-8099\")" },
	{ .name = "ping", .parse = parse_net_ping },
	{ 0 },
};
