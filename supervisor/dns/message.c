// SPDX-License-Identifier: GPL-2.0
/*
 * DNS room: reading and writing the forwarder's messages with ldns (see message.h). Every byte
 * here came from the sandbox or from upstream: nothing is trusted, nothing is parsed by hand
 * but through ldns's own header macros.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "supervisor/dns/message.h"

void wd_dns_name_text(const ldns_rdf *dname, char *buf, size_t bufsz)
{
	char *s = dname ? ldns_rdf2str(dname) : NULL;
	size_t n;

	if (!s) {
		snprintf(buf, bufsz, "?");
		return;
	}
	n = strlen(s);
	if (n > 1 && s[n - 1] == '.')
		s[--n] = 0;
	for (size_t i = 0; i < n; i++)
		s[i] = (char)tolower((unsigned char)s[i]);
	snprintf(buf, bufsz, "%s", s);
	free(s);
}

void wd_dns_query_clear(struct wd_dns_query *q)
{
	if (q->qname)
		ldns_rdf_deep_free(q->qname);
	q->qname = NULL;
}

/* types a sandbox never asks through the forwarder: zone transfers and the other meta types */
static bool refused_type(uint16_t t)
{
	return t == LDNS_RR_TYPE_OPT || (t >= LDNS_RR_TYPE_TKEY && t <= LDNS_RR_TYPE_MAILA);
}

static enum wd_dns_action bad(struct wd_dns_query *q, bool *malformed, uint8_t rcode)
{
	*malformed = true;
	q->rcode = rcode;
	return WD_DNS_REPLY;
}

enum wd_dns_action wd_dns_query_read(const struct wd_dns_names *names, const uint8_t *buf,
				     size_t len, struct wd_dns_query *q, bool *malformed)
{
	enum wd_dns_action act = WD_DNS_REPLY;
	ldns_pkt *pkt = NULL;
	const ldns_rr *qrr;
	ldns_rr_list *question;

	memset(q, 0, sizeof(*q));
	*malformed = false;
	q->udp_max = 512;
	snprintf(q->name, sizeof(q->name), "?");
	if (len < WD_DNS_HEADER || len > WD_DNS_QUERY_MAX || LDNS_QR_WIRE(buf)) {
		*malformed = true; /* no id to answer, too big to be a query, or a response */
		return WD_DNS_DROP;
	}
	q->id = LDNS_ID_WIRE(buf);
	q->opcode = LDNS_OPCODE_WIRE(buf);
	q->rd = LDNS_RD_WIRE(buf) != 0;
	q->cd = LDNS_CD_WIRE(buf) != 0;
	if (q->opcode != LDNS_PACKET_QUERY) {
		q->rcode = LDNS_RCODE_NOTIMPL;
		return WD_DNS_REPLY;
	}
	if (ldns_wire2pkt(&pkt, buf, len) != LDNS_STATUS_OK)
		return bad(q, malformed, LDNS_RCODE_FORMERR);
	question = ldns_pkt_question(pkt);
	if (!question || ldns_rr_list_rr_count(question) != 1 || ldns_pkt_ancount(pkt) ||
	    ldns_pkt_nscount(pkt)) {
		act = bad(q, malformed, LDNS_RCODE_FORMERR);
		goto out_free_pkt;
	}
	if (ldns_pkt_edns(pkt)) {
		uint16_t sz = ldns_pkt_edns_udp_size(pkt);

		q->edns = true;
		q->edns_do = ldns_pkt_edns_do(pkt);
		q->udp_max = sz < 512 ? 512 : sz > WD_DNS_EDNS_SIZE ? WD_DNS_EDNS_SIZE : sz;
	}
	qrr = ldns_rr_list_rr(question, 0);
	q->qtype = (uint16_t)ldns_rr_get_type(qrr);
	q->qclass = (uint16_t)ldns_rr_get_class(qrr);
	q->qname = ldns_rdf_clone(ldns_rr_owner(qrr));
	if (!q->qname) {
		act = bad(q, malformed, LDNS_RCODE_FORMERR);
		goto out_free_pkt;
	}
	wd_dns_name_text(q->qname, q->name, sizeof(q->name));
	q->rcode = LDNS_RCODE_REFUSED;
	q->why = q->qclass != LDNS_RR_CLASS_IN ? "class" : refused_type(q->qtype) ? "type" : "name";
	if (q->qclass != LDNS_RR_CLASS_IN || refused_type(q->qtype))
		goto out_free_pkt;
	wd_dns_names_decide(names, q->qname, &q->verdict);
	if (q->verdict.allowed) {
		q->rcode = LDNS_RCODE_NOERROR;
		act = WD_DNS_FORWARD;
	}
out_free_pkt:
	ldns_pkt_free(pkt);
	return act;
}

/* A reply of the forwarder's own: @q's id, flags and question, with @rcode (and TC when @tc). */
static int build(const struct wd_dns_query *q, uint8_t rcode, bool tc, uint8_t **wire, size_t *len)
{
	ldns_pkt *pkt = NULL;
	ldns_rdf *qname = NULL;
	int err = -ENOMEM;

	*wire = NULL;
	if (q->qname) {
		qname = ldns_rdf_clone(q->qname);
		if (!qname)
			goto out;
		/* takes qname */
		pkt = ldns_pkt_query_new(qname, (ldns_rr_type)q->qtype, (ldns_rr_class)q->qclass,
					  0);
	} else {
		pkt = ldns_pkt_new();
	}
	if (!pkt)
		goto out;
	ldns_pkt_set_id(pkt, q->id);
	ldns_pkt_set_qr(pkt, true);
	ldns_pkt_set_opcode(pkt, (ldns_pkt_opcode)q->opcode);
	ldns_pkt_set_rd(pkt, q->rd);
	ldns_pkt_set_cd(pkt, q->cd);
	ldns_pkt_set_ra(pkt, true);
	ldns_pkt_set_tc(pkt, tc);
	ldns_pkt_set_rcode(pkt, rcode);
	if (q->edns) {
		ldns_pkt_set_edns_udp_size(pkt, WD_DNS_EDNS_SIZE);
		ldns_pkt_set_edns_do(pkt, q->edns_do);
	}
	if (ldns_pkt2wire(wire, pkt, len) != LDNS_STATUS_OK) {
		*wire = NULL;
		goto out_free_pkt;
	}
	err = 0;
out_free_pkt:
	ldns_pkt_free(pkt);
out:
	return err;
}

int wd_dns_reply_build(const struct wd_dns_query *q, uint8_t rcode, uint8_t **wire, size_t *len)
{
	return build(q, rcode, false, wire, len);
}

int wd_dns_upstream_query(const struct wd_dns_query *q, uint16_t id, uint8_t **wire, size_t *len)
{
	ldns_rdf *qname = ldns_rdf_clone(q->qname);
	ldns_pkt *pkt;
	int err = -ENOMEM;

	*wire = NULL;
	if (!qname)
		return -ENOMEM;
	pkt = ldns_pkt_query_new(qname, (ldns_rr_type)q->qtype, LDNS_RR_CLASS_IN,
				 (q->rd ? LDNS_RD : 0) | (q->cd ? LDNS_CD : 0));
	if (!pkt)
		return -ENOMEM;
	ldns_pkt_set_id(pkt, id);
	if (q->edns) {
		ldns_pkt_set_edns_udp_size(pkt, WD_DNS_EDNS_SIZE);
		ldns_pkt_set_edns_do(pkt, q->edns_do);
	}
	if (ldns_pkt2wire(wire, pkt, len) == LDNS_STATUS_OK)
		err = 0;
	else
		*wire = NULL;
	ldns_pkt_free(pkt);
	return err;
}

enum wd_dns_answer wd_dns_answer_read(const struct wd_dns_query *q, uint16_t id, const uint8_t *buf,
				      size_t len, ldns_pkt **pkt)
{
	enum wd_dns_answer res = WD_DNS_ANSWER_MISMATCH;
	ldns_rr_list *question;
	const ldns_rr *qrr;
	ldns_pkt *p = NULL;

	*pkt = NULL;
	if (len < WD_DNS_HEADER)
		return WD_DNS_ANSWER_MALFORMED;
	if (LDNS_ID_WIRE(buf) != id || !LDNS_QR_WIRE(buf) ||
	    LDNS_OPCODE_WIRE(buf) != LDNS_PACKET_QUERY)
		return WD_DNS_ANSWER_MISMATCH;
	if (ldns_wire2pkt(&p, buf, len) != LDNS_STATUS_OK)
		return WD_DNS_ANSWER_MALFORMED;
	question = ldns_pkt_question(p);
	if (!question || ldns_rr_list_rr_count(question) != 1)
		goto out_free;
	qrr = ldns_rr_list_rr(question, 0);
	if (ldns_rr_get_type(qrr) != q->qtype || ldns_rr_get_class(qrr) != LDNS_RR_CLASS_IN ||
	    ldns_dname_compare(ldns_rr_owner(qrr), q->qname) != 0)
		goto out_free;
	if (ldns_pkt_tc(p)) {
		res = WD_DNS_ANSWER_TRUNCATED;
		goto out_free;
	}
	*pkt = p;
	return WD_DNS_ANSWER_OK;
out_free:
	ldns_pkt_free(p);
	return res;
}

static bool in_chain(ldns_rdf *const *chain, size_t n, const ldns_rdf *d)
{
	for (size_t i = 0; i < n; i++)
		if (ldns_dname_compare(chain[i], d) == 0)
			return true;
	return false;
}

/* The CNAME of @owner in @answer (class IN), or NULL. */
static const ldns_rdf *cname_of(const ldns_rr_list *answer, const ldns_rdf *owner)
{
	for (size_t i = 0; i < ldns_rr_list_rr_count(answer); i++) {
		const ldns_rr *rr = ldns_rr_list_rr(answer, i);
		const ldns_rdf *target;

		if (ldns_rr_get_type(rr) != LDNS_RR_TYPE_CNAME ||
		    ldns_rr_get_class(rr) != LDNS_RR_CLASS_IN ||
		    ldns_dname_compare(ldns_rr_owner(rr), owner) != 0)
			continue;
		target = ldns_rr_rd_count(rr) == 1 ? ldns_rr_rdf(rr, 0) : NULL;
		if (target && ldns_rdf_get_type(target) == LDNS_RDF_TYPE_DNAME)
			return target;
	}
	return NULL;
}

static int report(const ldns_rr *rr, wd_dns_addr_fn fn, void *arg)
{
	const ldns_rdf *rd = ldns_rr_rd_count(rr) == 1 ? ldns_rr_rdf(rr, 0) : NULL;
	char name[WD_DNS_NAME_TEXT];
	struct wd_dns_addr a = { 0 };

	if (!rd)
		return 0;
	if (ldns_rr_get_type(rr) == LDNS_RR_TYPE_A && ldns_rdf_get_type(rd) == LDNS_RDF_TYPE_A &&
	    ldns_rdf_size(rd) == 4)
		a.family = AF_INET;
	else if (ldns_rr_get_type(rr) == LDNS_RR_TYPE_AAAA &&
		 ldns_rdf_get_type(rd) == LDNS_RDF_TYPE_AAAA && ldns_rdf_size(rd) == 16)
		a.family = AF_INET6;
	else
		return 0;
	memcpy(a.addr, ldns_rdf_data(rd), ldns_rdf_size(rd));
	a.ttl = ldns_rr_ttl(rr);
	wd_dns_name_text(ldns_rr_owner(rr), name, sizeof(name));
	a.name = name;
	return fn(&a, arg);
}

int wd_dns_answer_addrs(const struct wd_dns_names *names, const struct wd_dns_query *q,
			const ldns_pkt *ans, wd_dns_addr_fn fn, void *arg,
			const struct wd_net_rule **denied)
{
	const ldns_rr_list *answer = ldns_pkt_answer(ans);
	ldns_rdf *chain[WD_DNS_CHAIN_MAX];
	size_t n = 1;
	int err = 0;

	*denied = NULL;
	if (!answer)
		return 0;
	chain[0] = q->qname;
	while (n < WD_DNS_CHAIN_MAX) {
		const ldns_rdf *next = cname_of(answer, chain[n - 1]);

		if (!next || in_chain(chain, n, next))
			break;
		*denied = wd_dns_names_denied(names, next);
		if (*denied)
			return 0;
		chain[n++] = (ldns_rdf *)next;
	}
	for (size_t i = 0; !err && i < ldns_rr_list_rr_count(answer); i++) {
		const ldns_rr *rr = ldns_rr_list_rr(answer, i);

		if (ldns_rr_get_class(rr) == LDNS_RR_CLASS_IN && in_chain(chain, n, ldns_rr_owner(rr)))
			err = report(rr, fn, arg);
	}
	return err;
}

int wd_dns_answer_for_sandbox(const struct wd_dns_query *q, const uint8_t *buf, size_t len,
			      size_t max, uint8_t **wire, size_t *wlen)
{
	if (len > max)
		return build(q, LDNS_RCODE_NOERROR, true, wire, wlen);
	*wire = malloc(len);
	if (!*wire)
		return -ENOMEM;
	memcpy(*wire, buf, len);
	LDNS_ID_SET(*wire, q->id);
	*wlen = len;
	return 0;
}
