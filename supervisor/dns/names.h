/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DNS room: which names the sandbox may resolve, decided from the policy's net entries: a name
 * rule "api.example.com" is that name, "*.example.com" any name under example.com (not
 * example.com itself), and an allowed "*" host every name. Names are compared by ldns, label by
 * label and case-insensitively, never as strings.
 */
#ifndef WD_DNS_NAMES_H
#define WD_DNS_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include <ldns/ldns.h>

#include "policy/policy.h"

struct wd_dns_name_rule {
	const struct wd_net_rule *rule; /* the policy's, not owned */
	ldns_rdf *dname;		/* the name, or the suffix of a "*." rule */
	bool wildcard;
	bool deny;
	bool every_port;		/* a deny rule for both protocols and all ports */
};

struct wd_dns_names {
	struct wd_dns_name_rule *v;
	size_t n;
	const struct wd_net_rule *allow_any; /* an allowed "*" host entry, else NULL */
	bool default_allow;		     /* net.default "allow" */
};

/* One matching rule, as the forwarder hands it on with each address. */
struct wd_dns_match {
	const struct wd_net_rule *rule; /* NULL: the default */
	bool deny;
};

#define WD_DNS_MATCH_MAX 16

struct wd_dns_verdict {
	bool allowed;
	const struct wd_net_rule *rule;	/* what decided; NULL: the default */
	/* allowed: every rule that matched (deny rules for some ports too), at most
	 * WD_DNS_MATCH_MAX; the rest are counted in dropped */
	struct wd_dns_match m[WD_DNS_MATCH_MAX];
	size_t n;
	size_t dropped;
};

/*
 * Compile @allow and @deny (either may be NULL) into @names; the rules must outlive it. 0,
 * -ENOMEM, or -EINVAL when a name rule's name is not one ldns reads (policy/net.c lets none
 * through).
 */
int wd_dns_names_init(struct wd_dns_names *names, const struct wd_net_list *allow,
		      const struct wd_net_list *deny, bool default_allow);
void wd_dns_names_free(struct wd_dns_names *names);

/* Does @rule's name cover @dname? */
bool wd_dns_name_rule_covers(const struct wd_dns_name_rule *rule, const ldns_rdf *dname);

/*
 * May the sandbox resolve @dname? A deny rule for every port and protocol refuses the name;
 * otherwise an allow rule (or an allowed "*", or net.default "allow") lets it through.
 */
void wd_dns_names_decide(const struct wd_dns_names *names, const ldns_rdf *dname,
			 struct wd_dns_verdict *v);

/* Is @dname refused outright by a deny rule (one in a CNAME chain)? The rule, or NULL. */
const struct wd_net_rule *wd_dns_names_denied(const struct wd_dns_names *names,
					      const ldns_rdf *dname);

#endif
