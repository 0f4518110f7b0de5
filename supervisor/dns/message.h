/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DNS room: the messages the forwarder reads and writes, all through ldns: a query from the
 * sandbox read and decided, the query sent upstream, upstream's answer checked against it and
 * its addresses found (the CNAME chain from the question's name followed), and the replies the
 * forwarder makes itself (REFUSED, FORMERR, NOTIMP, SERVFAIL, a truncated one). No sockets: the
 * fuzz target drives these directly.
 */
#ifndef WD_DNS_MESSAGE_H
#define WD_DNS_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ldns/ldns.h>

#include "supervisor/dns/names.h"

/* the size of a DNS header: a shorter datagram is not answered at all */
#define WD_DNS_HEADER 12
/* the most a sandbox may send in one query (a question and an EDNS record fit in far less) */
#define WD_DNS_QUERY_MAX 1024
/* what the forwarder asks upstream for over UDP when the sandbox speaks EDNS (RFC 9715) */
#define WD_DNS_EDNS_SIZE 1232
/* the most names of a CNAME chain followed */
#define WD_DNS_CHAIN_MAX 16
/* a name in presentation form, ldns's escapes included (4 characters a byte at worst) */
#define WD_DNS_NAME_TEXT 1024

enum wd_dns_action {
	WD_DNS_DROP = 0,    /* no reply: too short, a response, or unreadable without an id */
	WD_DNS_REPLY = 1,   /* answer q->rcode at once (FORMERR, NOTIMP, REFUSED) */
	WD_DNS_FORWARD = 2, /* allowed: ask upstream */
};

struct wd_dns_query {
	uint16_t id; /* the sandbox's */
	uint16_t qtype;
	uint16_t qclass;
	uint8_t rcode; /* WD_DNS_REPLY */
	uint8_t opcode;
	bool rd, cd;
	bool edns, edns_do;
	uint16_t udp_max;	/* the most the sandbox takes in a datagram */
	ldns_rdf *qname;	/* owned; NULL when the question was not read */
	char name[WD_DNS_NAME_TEXT]; /* lower case, no trailing dot ("." for the root) */
	const char *why;	/* REFUSED: "class", "type" or "name" */
	struct wd_dns_verdict verdict;
};

/*
 * Read the sandbox's query @buf (@len bytes) and decide it with @names. Fills @q (free it with
 * wd_dns_query_clear()) and returns what to do. A query is refused unless it is one question
 * of class IN, opcode QUERY, a type other than AXFR/IXFR, for an allowed name; *@malformed is
 * set when the message itself was bad (FORMERR or dropped).
 */
enum wd_dns_action wd_dns_query_read(const struct wd_dns_names *names, const uint8_t *buf,
				     size_t len, struct wd_dns_query *q, bool *malformed);
void wd_dns_query_clear(struct wd_dns_query *q);

/*
 * The forwarder's own reply to @q with @rcode (the question echoed when it was read), in a
 * malloc'ed *@wire of *@len bytes. 0 or -ENOMEM.
 */
int wd_dns_reply_build(const struct wd_dns_query *q, uint8_t rcode, uint8_t **wire, size_t *len);

/*
 * The query upstream gets for @q: a fresh message with @id, @q's question and RD/CD bits, and
 * EDNS only when the sandbox spoke it (its DO bit kept, WD_DNS_EDNS_SIZE asked for), so
 * upstream's answer fits what the sandbox accepts. Nothing else of the sandbox's message
 * (options, other sections) goes upstream. 0 or -ENOMEM.
 */
int wd_dns_upstream_query(const struct wd_dns_query *q, uint16_t id, uint8_t **wire, size_t *len);

enum wd_dns_answer {
	WD_DNS_ANSWER_OK = 0,
	WD_DNS_ANSWER_TRUNCATED = 1, /* TC set: ask again over TCP */
	WD_DNS_ANSWER_MISMATCH = 2,  /* not the answer to this query (id, question, flags) */
	WD_DNS_ANSWER_MALFORMED = 3, /* ldns could not read it */
};

/*
 * Check upstream's answer @buf to the query @q sent with @id; on WD_DNS_ANSWER_OK *@pkt holds
 * the parsed answer (the caller frees it with ldns_pkt_free()).
 */
enum wd_dns_answer wd_dns_answer_read(const struct wd_dns_query *q, uint16_t id, const uint8_t *buf,
				      size_t len, ldns_pkt **pkt);

/* One A or AAAA of the chain, as the forwarder hands it to its caller. */
struct wd_dns_addr {
	int family; /* AF_INET or AF_INET6 */
	unsigned char addr[16];
	uint32_t ttl;		/* the record's own, as upstream sent it */
	const char *name;	/* its owner name, lower case, no trailing dot */
};

typedef int (*wd_dns_addr_fn)(const struct wd_dns_addr *a, void *arg);

/*
 * Follow the CNAME chain from @q's name in @ans's answer section (at most WD_DNS_CHAIN_MAX
 * names) and call @fn for every A and AAAA of class IN owned by a name of the chain. A chain
 * that reaches a name a deny rule refuses stops there: *@denied is that rule and nothing is
 * reported. Returns 0, or @fn's first error.
 */
int wd_dns_answer_addrs(const struct wd_dns_names *names, const struct wd_dns_query *q,
			const ldns_pkt *ans, wd_dns_addr_fn fn, void *arg,
			const struct wd_net_rule **denied);

/*
 * Upstream's answer @buf for the sandbox: the same bytes with the sandbox's id, in a malloc'ed
 * *@wire; when longer than @max (a UDP sandbox's limit), a reply with TC set and the question
 * only, so the sandbox asks again over TCP. 0 or -ENOMEM.
 */
int wd_dns_answer_for_sandbox(const struct wd_dns_query *q, const uint8_t *buf, size_t len,
			      size_t max, uint8_t **wire, size_t *wlen);

/* @dname as text: lower case, no trailing dot, "." for the root; "?" if ldns cannot print it. */
void wd_dns_name_text(const ldns_rdf *dname, char *buf, size_t bufsz);

#endif
