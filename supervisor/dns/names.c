// SPDX-License-Identifier: GPL-2.0
/*
 * DNS room: the policy's name rules compiled into ldns names and the one predicate that says
 * whether the sandbox may resolve a name (see names.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/dns/names.h"

static int add_list(struct wd_dns_names *names, const struct wd_net_list *l, bool deny)
{
	for (size_t i = 0; l && i < l->n; i++) {
		const struct wd_net_rule *r = &l->v[i];
		struct wd_dns_name_rule *nr;
		const char *s;

		if (r->kind == WD_NET_HOST_ANY && !deny && !names->allow_any)
			names->allow_any = r;
		if (r->kind != WD_NET_HOST_NAME || !r->name)
			continue;
		nr = &names->v[names->n];
		s = r->name;
		nr->wildcard = s[0] == '*' && s[1] == '.';
		if (nr->wildcard)
			s += 2;
		nr->dname = ldns_dname_new_frm_str(s);
		if (!nr->dname)
			return -EINVAL;
		ldns_dname2canonical(nr->dname);
		nr->rule = r;
		nr->deny = deny;
		nr->every_port = r->proto == WD_NET_PROTO_ANY && r->port_lo == 0 &&
				 r->port_hi == 65535;
		names->n++;
	}
	return 0;
}

int wd_dns_names_init(struct wd_dns_names *names, const struct wd_net_list *allow,
		      const struct wd_net_list *deny, bool default_allow)
{
	size_t cap = (allow ? allow->n : 0) + (deny ? deny->n : 0);
	int err;

	memset(names, 0, sizeof(*names));
	names->default_allow = default_allow;
	names->v = calloc(cap ? cap : 1, sizeof(*names->v));
	if (!names->v)
		return -ENOMEM;
	/* deny rules first: they win, and are found first */
	err = add_list(names, deny, true);
	if (!err)
		err = add_list(names, allow, false);
	if (err)
		wd_dns_names_free(names);
	return err;
}

void wd_dns_names_free(struct wd_dns_names *names)
{
	for (size_t i = 0; names->v && i < names->n; i++)
		ldns_rdf_deep_free(names->v[i].dname);
	free(names->v);
	memset(names, 0, sizeof(*names));
}

bool wd_dns_name_rule_covers(const struct wd_dns_name_rule *rule, const ldns_rdf *dname)
{
	if (rule->wildcard)
		return ldns_dname_is_subdomain(dname, rule->dname);
	return ldns_dname_compare(dname, rule->dname) == 0;
}

const struct wd_net_rule *wd_dns_names_denied(const struct wd_dns_names *names,
					      const ldns_rdf *dname)
{
	for (size_t i = 0; i < names->n; i++) {
		const struct wd_dns_name_rule *nr = &names->v[i];

		if (nr->deny && nr->every_port && wd_dns_name_rule_covers(nr, dname))
			return nr->rule;
	}
	return NULL;
}

static void add_match(struct wd_dns_verdict *v, const struct wd_net_rule *rule, bool deny)
{
	if (v->n == WD_DNS_MATCH_MAX) {
		v->dropped++;
		return;
	}
	v->m[v->n].rule = rule;
	v->m[v->n].deny = deny;
	v->n++;
}

void wd_dns_names_decide(const struct wd_dns_names *names, const ldns_rdf *dname,
			 struct wd_dns_verdict *v)
{
	const struct wd_net_rule *denied = wd_dns_names_denied(names, dname);

	memset(v, 0, sizeof(*v));
	if (denied) {
		v->rule = denied;
		return;
	}
	for (size_t i = 0; i < names->n; i++) {
		const struct wd_dns_name_rule *nr = &names->v[i];

		if (!wd_dns_name_rule_covers(nr, dname))
			continue;
		if (!nr->deny && !v->allowed) {
			v->allowed = true;
			v->rule = nr->rule;
		}
		add_match(v, nr->rule, nr->deny);
	}
	if (!v->allowed && names->allow_any) {
		v->allowed = true;
		v->rule = names->allow_any;
		add_match(v, names->allow_any, false);
	} else if (!v->allowed && names->default_allow) {
		v->allowed = true;
		add_match(v, NULL, false);
	}
	if (!v->allowed)
		v->n = 0; /* deny rules for some ports alone resolve nothing */
}
