/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Network rule entries of a policy: "[tcp:|udp:]HOST:PORTS", where HOST is an IPv4 address or
 * CIDR block, an IPv6 one in brackets ("[2001:db8::/32]"), a DNS name ("api.example.com",
 * "*.example.com") or "*", and PORTS is a port, a range "8000-8099" or "*". Pure C.
 */
#ifndef WD_NET_H
#define WD_NET_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/policy.h"

/*
 * Parse @s into @r (r->name allocated for a DNS name; r->origin untouched). 0, -ENOMEM, or
 * -EINVAL with a sentence in @why.
 */
int wd_net_rule_parse(const char *s, struct wd_net_rule *r, char *why, size_t whysz);

/* Canonical text of @r, which wd_net_rule_parse() reads back to the same rule. */
void wd_net_rule_format(const struct wd_net_rule *r, char *buf, size_t bufsz);
/* @r's ports as policy text ("*", "443", "8000-8099") or, with @words, as explain says them. */
void wd_net_ports_format(const struct wd_net_rule *r, bool words, char *buf, size_t bufsz);

/* "10.0.0.0/8", "2001:db8::/32", "::1" (the prefix left out when it is the whole address). */
void wd_net_addr_format(int family, const unsigned char *addr, unsigned int prefix, char *buf,
			size_t bufsz);

/* Do @a and @b say the same thing (origin aside)? */
int wd_net_rule_cmp(const struct wd_net_rule *a, const struct wd_net_rule *b);

#endif
