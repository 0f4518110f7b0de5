// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the DNS forwarder's messages (`make fuzz-dns`): the first byte picks the
 * path, the rest is the message. 0: a query from the sandbox, read and decided, then the
 * replies and the upstream query made from it. 1: an answer from upstream, checked against the
 * query of its own question (so the fuzzer gets past the question check), its CNAME chain
 * followed and the sandbox's copy made. Beyond "no crash, no undefined behaviour, no leak" it
 * checks what must hold for every input: whatever the forwarder writes, ldns reads back with
 * the sandbox's id; an address handed on is of a name of the chain and of the right size; a
 * refused query never goes upstream.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <ldns/ldns.h>

#include "policy/net.h"
#include "supervisor/dns/message.h"
#include "supervisor/dns/names.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct wd_net_list allow, deny;
static struct wd_dns_names names;

static void rule(struct wd_net_list *l, const char *s)
{
	struct wd_net_rule r = { 0 };
	char why[200];

	if (wd_net_rule_parse(s, &r, why, sizeof(why)) || wd_net_list_add(l, &r))
		abort();
	free(r.name);
}

static void init(void)
{
	static bool done;

	if (done)
		return;
	rule(&allow, "api.example.com:443");
	rule(&allow, "*.example.com:443");
	rule(&allow, "tcp:*.test:80");
	rule(&deny, "blocked.example.com:*");
	rule(&deny, "udp:*.a.test:53");
	if (wd_dns_names_init(&names, &allow, &deny, false))
		abort();
	done = true;
}

/* @wire must read back as a response to @q with @q's id. */
static void check_reply(const struct wd_dns_query *q, uint8_t *wire, size_t len)
{
	ldns_pkt *p = NULL;

	if (ldns_wire2pkt(&p, wire, len) != LDNS_STATUS_OK)
		abort();
	if (ldns_pkt_id(p) != q->id || !ldns_pkt_qr(p))
		abort();
	ldns_pkt_free(p);
	free(wire);
}

static void query_path(const uint8_t *data, size_t size)
{
	struct wd_dns_query q;
	bool malformed;
	enum wd_dns_action act = wd_dns_query_read(&names, data, size, &q, &malformed);
	uint8_t *wire;
	size_t len;

	if (act == WD_DNS_REPLY || act == WD_DNS_FORWARD) {
		if (!wd_dns_reply_build(&q, q.rcode, &wire, &len))
			check_reply(&q, wire, len);
		if (!wd_dns_reply_build(&q, LDNS_RCODE_SERVFAIL, &wire, &len))
			check_reply(&q, wire, len);
	}
	if (act == WD_DNS_FORWARD) {
		ldns_pkt *p = NULL;

		if (!q.verdict.allowed || !q.qname)
			abort();
		if (!wd_dns_upstream_query(&q, 0x7777, &wire, &len)) {
			if (ldns_wire2pkt(&p, wire, len) != LDNS_STATUS_OK ||
			    ldns_pkt_id(p) != 0x7777 || ldns_pkt_qdcount(p) != 1 ||
			    ldns_pkt_ancount(p) || ldns_pkt_nscount(p) || ldns_pkt_arcount(p))
				abort();
			ldns_pkt_free(p);
			free(wire);
		}
	} else if (q.verdict.allowed && q.rcode == LDNS_RCODE_REFUSED) {
		abort();
	}
	wd_dns_query_clear(&q);
}

struct chain_ctx {
	const ldns_pkt *ans;
	size_t n;
};

static int on_addr(const struct wd_dns_addr *a, void *arg)
{
	struct chain_ctx *c = arg;

	if (a->family != AF_INET && a->family != AF_INET6)
		abort();
	if (!a->name || !a->name[0])
		abort();
	c->n++;
	return c->n > 1000 ? -1 : 0;
}

static void answer_path(const uint8_t *data, size_t size)
{
	struct wd_dns_query q = { 0 };
	const struct wd_net_rule *denied = NULL;
	ldns_pkt *own = NULL, *ans = NULL;
	const ldns_rr *qrr;
	uint8_t *wire;
	size_t len;

	if (size < WD_DNS_HEADER || ldns_wire2pkt(&own, data, size) != LDNS_STATUS_OK)
		return;
	if (ldns_pkt_qdcount(own) < 1 || !ldns_pkt_question(own) ||
	    !ldns_rr_list_rr_count(ldns_pkt_question(own)))
		goto out;
	qrr = ldns_rr_list_rr(ldns_pkt_question(own), 0);
	q.qname = ldns_rdf_clone(ldns_rr_owner(qrr));
	if (!q.qname)
		goto out;
	q.qtype = (uint16_t)ldns_rr_get_type(qrr);
	q.qclass = LDNS_RR_CLASS_IN;
	q.id = 0x4242;
	q.udp_max = 512;
	wd_dns_name_text(q.qname, q.name, sizeof(q.name));
	wd_dns_names_decide(&names, q.qname, &q.verdict);
	if (wd_dns_answer_read(&q, LDNS_ID_WIRE(data), data, size, &ans) == WD_DNS_ANSWER_OK) {
		struct chain_ctx c = { ans, 0 };

		wd_dns_answer_addrs(&names, &q, ans, on_addr, &c, &denied);
		if (denied && c.n)
			abort(); /* a denied chain hands nothing on */
		ldns_pkt_free(ans);
		if (!wd_dns_answer_for_sandbox(&q, data, size, q.udp_max, &wire, &len)) {
			if (len > q.udp_max && len != size)
				abort();
			check_reply(&q, wire, len);
		}
	}
out:
	wd_dns_query_clear(&q);
	ldns_pkt_free(own);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	init();
	if (size < 1)
		return 0;
	if (data[0] & 1)
		answer_path(data + 1, size - 1);
	else
		query_path(data + 1, size - 1);
	return 0;
}
