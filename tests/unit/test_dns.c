// SPDX-License-Identifier: GPL-2.0
/*
 * supervisor/dns/: the sandbox's DNS forwarder against a fake upstream on loopback (a UDP and a
 * TCP socket on one port, answered here with ldns-built messages): allowed names answered with
 * every A/AAAA handed on before the reply, CNAME chains, REFUSED names with their event,
 * "*.suffix" semantics, TCP queries, a truncated answer asked again over TCP, upstream silence,
 * malformed queries, and spoofed answers ignored. One thread: the test pumps the forwarder's
 * loop and the fake upstream's sockets with poll(), and time is the forwarder's clock plus a
 * skew the test moves, so timeouts need no waiting.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include <ldns/ldns.h>

#include "policy/net.h"
#include "supervisor/dns/forwarder.h"
#include "supervisor/dns/message.h"
#include "supervisor/dns/names.h"

enum up_mode {
	UP_ANSWER = 0,	 /* answer with the records */
	UP_SILENT = 1,	 /* never answer */
	UP_TRUNCATE = 2, /* UDP: TC and no records; TCP: the records */
	UP_SPOOF = 3,	 /* first three wrong answers (other source, wrong id, wrong name) */
};

#define MAX_RRS 40
#define MAX_SEEN 64

struct seen {
	int family;
	char addr[INET6_ADDRSTRLEN];
	char name[256];
	uint32_t ttl;
	const struct wd_net_rule *rule;
	bool deny;
	bool reply_waiting; /* the sandbox's socket already had the reply: too late */
};

struct fx {
	struct wd_dns *d;
	struct wd_dns_config c;
	struct wd_net_list allow, deny;
	int up_udp, up_tcp, up_conn;
	uint8_t up_in[LDNS_MAX_PACKETLEN + 2];
	size_t up_in_len;
	struct sockaddr_storage up_addr;
	enum up_mode mode;
	const char *rrs[MAX_RRS];
	size_t n_rrs;
	unsigned int udp_queries, tcp_queries;
	uint64_t skew;
	int client; /* the sandbox's socket of the current query */
	struct seen seen[MAX_SEEN];
	size_t n_seen;
	struct wd_dns_event ev;
	char ev_name[256];
	size_t n_events;
	bool foreign;		 /* peer_ok refuses every querier */
	unsigned int peer_calls; /* how often it was asked, and of what */
	bool peer_tcp;
	struct sockaddr_in peer;
};


static uint64_t now(struct fx *f)
{
	return wd_dns_now_ms() + f->skew;
}

static void add_rule(struct wd_net_list *l, const char *s)
{
	struct wd_net_rule r = { 0 };
	char why[200];

	if (wd_net_rule_parse(s, &r, why, sizeof(why)))
		fail_msg("%s: %s", s, why);
	assert_int_equal(wd_net_list_add(l, &r), 0);
	free(r.name);
}

static int on_resolved(const struct wd_dns_resolved *r, void *arg)
{
	struct fx *f = arg;
	struct seen *s;
	char b;

	assert_true(f->n_seen < MAX_SEEN);
	s = &f->seen[f->n_seen++];
	s->family = r->family;
	inet_ntop(r->family, r->addr, s->addr, sizeof(s->addr));
	snprintf(s->name, sizeof(s->name), "%s", r->name);
	s->ttl = r->ttl;
	s->rule = r->rule;
	s->deny = r->deny;
	/* before the reply: nothing may be waiting on the sandbox's socket yet */
	s->reply_waiting = f->client >= 0 && recv(f->client, &b, 1, MSG_PEEK | MSG_DONTWAIT) >= 0;
	return 0;
}

static void on_event(const struct wd_dns_event *ev, void *arg)
{
	struct fx *f = arg;

	f->ev = *ev;
	snprintf(f->ev_name, sizeof(f->ev_name), "%s", ev->name);
	f->ev.name = f->ev_name;
	f->n_events++;
}

/* ---- the fake upstream ------------------------------------------------------------------ */

/* The answer to @query (wire) the fake upstream gives: its records, or TC. */
static uint8_t *up_answer(struct fx *f, const uint8_t *query, size_t qlen, bool tc, uint16_t id,
			  const char *qname_override, size_t *len)
{
	ldns_pkt *q = NULL, *a;
	uint8_t *wire = NULL;

	assert_int_equal(ldns_wire2pkt(&q, query, qlen), LDNS_STATUS_OK);
	if (qname_override) {
		ldns_rr *qrr = NULL;
		char s[300];

		snprintf(s, sizeof(s), "%s IN A", qname_override);
		assert_int_equal(ldns_rr_new_question_frm_str(&qrr, s, NULL, NULL), LDNS_STATUS_OK);
		a = ldns_pkt_new();
		ldns_pkt_push_rr(a, LDNS_SECTION_QUESTION, qrr);
	} else {
		a = ldns_pkt_new();
		ldns_pkt_push_rr(a, LDNS_SECTION_QUESTION,
				 ldns_rr_clone(ldns_rr_list_rr(ldns_pkt_question(q), 0)));
	}
	ldns_pkt_set_id(a, id);
	ldns_pkt_set_qr(a, true);
	ldns_pkt_set_rd(a, ldns_pkt_rd(q));
	ldns_pkt_set_ra(a, true);
	ldns_pkt_set_tc(a, tc);
	if (ldns_pkt_edns(q))
		ldns_pkt_set_edns_udp_size(a, 1232);
	for (size_t i = 0; !tc && i < f->n_rrs; i++) {
		ldns_rr *rr = NULL;

		assert_int_equal(ldns_rr_new_frm_str(&rr, f->rrs[i], 0, NULL, NULL),
				 LDNS_STATUS_OK);
		ldns_pkt_push_rr(a, LDNS_SECTION_ANSWER, rr);
	}
	assert_int_equal(ldns_pkt2wire(&wire, a, len), LDNS_STATUS_OK);
	ldns_pkt_free(a);
	ldns_pkt_free(q);
	return wire;
}

static void up_udp_in(struct fx *f)
{
	struct sockaddr_storage from;
	socklen_t fl = sizeof(from);
	uint8_t buf[4096], *a;
	size_t alen;
	ssize_t n = recvfrom(f->up_udp, buf, sizeof(buf), MSG_DONTWAIT, (void *)&from, &fl);

	if (n < 0)
		return;
	f->udp_queries++;
	if (f->mode == UP_SILENT)
		return;
	if (f->mode == UP_SPOOF) {
		int other = socket(AF_INET, SOCK_DGRAM, 0);
		const char *keep = f->rrs[0];
		struct sockaddr_in lo = { .sin_family = AF_INET,
					  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

		/* the right id from another port: the connected socket never sees it */
		f->rrs[0] = "api.example.com. 300 IN A 192.0.2.66";
		a = up_answer(f, buf, (size_t)n, false, ldns_read_uint16(buf), NULL, &alen);
		assert_int_equal(bind(other, (void *)&lo, sizeof(lo)), 0);
		assert_int_equal(sendto(other, a, alen, 0, (void *)&from, fl), (ssize_t)alen);
		close(other);
		free(a);
		/* the right source, a wrong id */
		a = up_answer(f, buf, (size_t)n, false, ldns_read_uint16(buf) ^ 0x5555, NULL,
			      &alen);
		assert_int_equal(sendto(f->up_udp, a, alen, 0, (void *)&from, fl), (ssize_t)alen);
		free(a);
		/* the right source and id, another question */
		f->rrs[0] = "evil.example.net. 300 IN A 192.0.2.77";
		a = up_answer(f, buf, (size_t)n, false, ldns_read_uint16(buf), "evil.example.net.",
			      &alen);
		assert_int_equal(sendto(f->up_udp, a, alen, 0, (void *)&from, fl), (ssize_t)alen);
		free(a);
		f->rrs[0] = keep;
	}
	a = up_answer(f, buf, (size_t)n, f->mode == UP_TRUNCATE, ldns_read_uint16(buf), NULL, &alen);
	assert_int_equal(sendto(f->up_udp, a, alen, 0, (void *)&from, fl), (ssize_t)alen);
	free(a);
}

static void up_tcp_in(struct fx *f)
{
	ssize_t n;

	if (f->up_conn < 0) {
		f->up_conn = accept4(f->up_tcp, NULL, NULL, SOCK_NONBLOCK);
		f->up_in_len = 0;
		return;
	}
	n = read(f->up_conn, f->up_in + f->up_in_len, sizeof(f->up_in) - f->up_in_len);
	if (n <= 0) {
		close(f->up_conn);
		f->up_conn = -1;
		return;
	}
	f->up_in_len += (size_t)n;
	if (f->up_in_len >= 2 && f->up_in_len >= 2u + ldns_read_uint16(f->up_in)) {
		size_t alen;
		uint8_t *a = up_answer(f, f->up_in + 2, ldns_read_uint16(f->up_in), false,
				       ldns_read_uint16(f->up_in + 2), NULL, &alen);
		uint8_t len[2];

		f->tcp_queries++;
		ldns_write_uint16(len, (uint16_t)alen);
		assert_int_equal(write(f->up_conn, len, 2), 2);
		assert_int_equal(write(f->up_conn, a, alen), (ssize_t)alen);
		free(a);
		f->up_in_len = 0;
	}
}

/* ---- pumping ---------------------------------------------------------------------------- */

typedef bool (*pred_fn)(struct fx *f, const void *arg);

/* Run the forwarder and the fake upstream until @pred holds; false after 10 s of real time. */
static bool pump(struct fx *f, pred_fn pred, const void *arg)
{
	uint64_t end = wd_dns_now_ms() + 10000;

	while (!pred(f, arg)) {
		struct pollfd p[4] = {
			{ .fd = wd_dns_fd(f->d), .events = POLLIN },
			{ .fd = f->up_udp, .events = POLLIN },
			{ .fd = f->up_tcp, .events = POLLIN },
			{ .fd = f->up_conn, .events = POLLIN },
		};
		int t = wd_dns_timeout(f->d, now(f));
		uint64_t left;

		if (wd_dns_now_ms() >= end)
			return false;
		left = end - wd_dns_now_ms();
		if (t < 0 || (uint64_t)t > left)
			t = (int)left;
		if (t > 100)
			t = 100; /* the predicate may watch a socket this poll does not */
		poll(p, 4, t);
		if (p[1].revents & POLLIN)
			up_udp_in(f);
		if (p[2].revents & POLLIN)
			up_tcp_in(f);
		if (f->up_conn >= 0 && (p[3].revents & (POLLIN | POLLHUP)))
			up_tcp_in(f);
		wd_dns_handle(f->d, now(f));
		wd_dns_tick(f->d, now(f));
	}
	return true;
}

static bool readable(struct fx *f, const void *arg)
{
	struct pollfd p = { .fd = *(const int *)arg, .events = POLLIN };

	(void)f;
	return poll(&p, 1, 0) == 1;
}

static bool count_at_least(struct fx *f, const void *arg)
{
	const unsigned int *want = arg;

	return f->udp_queries + f->tcp_queries >= *want;
}

static bool stat_at_least(struct fx *f, const void *arg)
{
	const uint64_t *field = arg;

	(void)f;
	return *field > 0;
}

/* ---- the sandbox's side ----------------------------------------------------------------- */

static uint8_t *make_query(const char *name, ldns_rr_type type, bool edns, size_t *len)
{
	ldns_pkt *q = NULL;
	uint8_t *wire = NULL;

	assert_int_equal(ldns_pkt_query_new_frm_str(&q, name, type, LDNS_RR_CLASS_IN, LDNS_RD),
			 LDNS_STATUS_OK);
	ldns_pkt_set_id(q, 0x4242);
	if (edns)
		ldns_pkt_set_edns_udp_size(q, 1232);
	assert_int_equal(ldns_pkt2wire(&wire, q, len), LDNS_STATUS_OK);
	ldns_pkt_free(q);
	return wire;
}

static void dns_addr(struct fx *f, struct sockaddr_storage *ss, socklen_t *len)
{
	wd_dns_local(f->d, ss, len);
}

/* Send @wire over UDP from a fresh socket; the socket becomes f->client. */
static void send_udp(struct fx *f, const uint8_t *wire, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl;

	dns_addr(f, &ss, &sl);
	if (f->client >= 0)
		close(f->client);
	f->client = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	assert_true(f->client >= 0);
	assert_int_equal(connect(f->client, (void *)&ss, sl), 0);
	assert_int_equal(send(f->client, wire, len, 0), (ssize_t)len);
}

/* The reply on f->client (UDP), parsed. */
static ldns_pkt *udp_reply(struct fx *f)
{
	uint8_t buf[65536];
	ldns_pkt *p = NULL;
	ssize_t n;

	assert_true(pump(f, readable, &f->client));
	n = recv(f->client, buf, sizeof(buf), 0);
	assert_true(n > 0);
	assert_int_equal(ldns_wire2pkt(&p, buf, (size_t)n), LDNS_STATUS_OK);
	return p;
}

static ldns_pkt *ask_udp(struct fx *f, const char *name, ldns_rr_type type)
{
	size_t len;
	uint8_t *q = make_query(name, type, false, &len);

	send_udp(f, q, len);
	free(q);
	return udp_reply(f);
}

/* ---- fixture ---------------------------------------------------------------------------- */

static bool peer_ok(const struct sockaddr_storage *peer, const struct sockaddr_storage *local,
		    bool tcp, void *arg)
{
	struct fx *f = arg;

	(void)local;
	f->peer_calls++;
	f->peer_tcp = tcp;
	memcpy(&f->peer, peer, sizeof(f->peer));
	return !f->foreign;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct sockaddr_in lo = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(f->up_addr);
	int one = 1;

	assert_non_null(f);
	f->client = f->up_conn = -1;
	/* the fake upstream: UDP and TCP on one loopback port */
	for (int i = 0; i < 16; i++) {
		f->up_udp = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
		assert_int_equal(bind(f->up_udp, (void *)&lo, sizeof(lo)), 0);
		assert_int_equal(getsockname(f->up_udp, (void *)&f->up_addr, &sl), 0);
		f->up_tcp = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		setsockopt(f->up_tcp, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(f->up_tcp, (void *)&f->up_addr, sl) == 0)
			break;
		close(f->up_udp);
		close(f->up_tcp);
		f->up_tcp = -1;
	}
	assert_true(f->up_tcp >= 0);
	assert_int_equal(listen(f->up_tcp, 8), 0);

	add_rule(&f->allow, "api.example.com:443");
	add_rule(&f->allow, "*.example.com:443");
	add_rule(&f->allow, "tcp:www.example.org:80");
	add_rule(&f->deny, "blocked.example.com:*");
	add_rule(&f->deny, "tcp:mail.example.com:25");

	wd_dns_config_default(&f->c);
	((struct sockaddr_in *)&f->c.listen)->sin_family = AF_INET;
	((struct sockaddr_in *)&f->c.listen)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	f->c.listen_len = sizeof(struct sockaddr_in);
	f->c.upstream[0] = f->up_addr;
	f->c.n_upstream = 1;
	f->c.allow = &f->allow;
	f->c.deny = &f->deny;
	f->c.on_resolved = on_resolved;
	f->c.on_event = on_event;
	f->c.peer_ok = peer_ok;
	f->c.arg = f;
	assert_int_equal(wd_dns_new(&f->c, &f->d), 0);
	*state = f;
	return 0;
}

static void list_free(struct wd_net_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
}

static int teardown(void **state)
{
	struct fx *f = *state;

	wd_dns_free(f->d);
	if (f->client >= 0)
		close(f->client);
	if (f->up_conn >= 0)
		close(f->up_conn);
	close(f->up_udp);
	close(f->up_tcp);
	list_free(&f->allow);
	list_free(&f->deny);
	free(f);
	return 0;
}

static const char *rr_text(const ldns_pkt *p, size_t i)
{
	static char s[512];
	char *t = ldns_rr2str(ldns_rr_list_rr(ldns_pkt_answer(p), i));

	snprintf(s, sizeof(s), "%s", t);
	free(t);
	s[strcspn(s, "\n")] = 0;
	return s;
}

/* ---- tests ------------------------------------------------------------------------------ */

static void test_allowed_answered(void **state)
{
	struct fx *f = *state;
	ldns_pkt *p;

	f->rrs[0] = "api.example.com. 300 IN A 192.0.2.1";
	f->rrs[1] = "api.example.com. 60 IN A 192.0.2.2";
	f->rrs[2] = "api.example.com. 120 IN AAAA 2001:db8::1";
	f->n_rrs = 3;
	p = ask_udp(f, "API.Example.com.", LDNS_RR_TYPE_A);
	assert_int_equal(ldns_pkt_id(p), 0x4242); /* the sandbox's id, restored */
	assert_int_equal(ldns_pkt_get_rcode(p), LDNS_RCODE_NOERROR);
	assert_int_equal(ldns_pkt_ancount(p), 3);
	/* each address once for each rule that matched: api.example.com:443, *.example.com:443 */
	assert_int_equal(f->n_seen, 6);
	assert_string_equal(f->seen[0].addr, "192.0.2.1");
	assert_int_equal(f->seen[0].ttl, 300);
	assert_string_equal(f->seen[2].addr, "192.0.2.2");
	assert_int_equal(f->seen[2].ttl, 60);
	assert_int_equal(f->seen[4].family, AF_INET6);
	assert_string_equal(f->seen[4].addr, "2001:db8::1");
	assert_int_equal(f->seen[4].ttl, 120);
	for (size_t i = 0; i < f->n_seen; i++) {
		assert_false(f->seen[i].reply_waiting);
		assert_string_equal(f->seen[i].name, "api.example.com");
		assert_string_equal(f->seen[i].addr, f->seen[i & ~1u].addr);
		assert_ptr_equal(f->seen[i].rule, &f->allow.v[i % 2]);
		assert_false(f->seen[i].deny);
	}
	assert_int_equal(f->ev.verdict, WD_DNS_ALLOWED);
	assert_string_equal(f->ev.name, "api.example.com");
	assert_int_equal(wd_dns_stats(f->d)->answered, 1);
	ldns_pkt_free(p);
}

static void test_cname_chain(void **state)
{
	struct fx *f = *state;
	ldns_pkt *p;

	f->rrs[0] = "www.example.org. 30 IN CNAME cdn.example.net.";
	f->rrs[1] = "cdn.example.net. 30 IN CNAME edge.CDN.example.net.";
	f->rrs[2] = "unrelated.example.net. 30 IN A 192.0.2.99";
	f->rrs[3] = "edge.cdn.example.net. 20 IN A 192.0.2.10";
	f->rrs[4] = "edge.cdn.example.net. 25 IN AAAA 2001:db8::10";
	f->rrs[5] = "www.example.org. 30 IN TXT \"not an address\"";
	f->n_rrs = 6;
	p = ask_udp(f, "www.example.org.", LDNS_RR_TYPE_A);
	assert_int_equal(ldns_pkt_get_rcode(p), LDNS_RCODE_NOERROR);
	assert_int_equal(ldns_pkt_ancount(p), 6); /* upstream's answer, whole */
	assert_int_equal(f->n_seen, 2);		  /* not the unrelated name's */
	assert_string_equal(f->seen[0].addr, "192.0.2.10");
	assert_string_equal(f->seen[0].name, "edge.cdn.example.net");
	assert_int_equal(f->seen[0].ttl, 20);
	assert_string_equal(f->seen[1].addr, "2001:db8::10");
	assert_ptr_equal(f->seen[1].rule, &f->allow.v[2]);
	assert_false(f->seen[0].reply_waiting);
	ldns_pkt_free(p);

	/* a chain into a name denied outright: REFUSED, nothing handed on */
	f->n_seen = 0;
	f->rrs[0] = "x.example.com. 30 IN CNAME blocked.example.com.";
	f->rrs[1] = "blocked.example.com. 30 IN A 192.0.2.13";
	f->n_rrs = 2;
	p = ask_udp(f, "x.example.com.", LDNS_RR_TYPE_A);
	assert_int_equal(ldns_pkt_get_rcode(p), LDNS_RCODE_REFUSED);
	assert_int_equal(f->n_seen, 0);
	assert_int_equal(f->ev.verdict, WD_DNS_REFUSED);
	assert_string_equal(f->ev.why, "cname");
	assert_ptr_equal(f->ev.rule, &f->deny.v[0]);
	ldns_pkt_free(p);

	/* a CNAME loop ends; the addresses of the loop's names still count */
	f->rrs[0] = "a.example.com. 30 IN CNAME b.example.com.";
	f->rrs[1] = "b.example.com. 30 IN CNAME a.example.com.";
	f->rrs[2] = "b.example.com. 30 IN A 192.0.2.14";
	f->n_rrs = 3;
	p = ask_udp(f, "a.example.com.", LDNS_RR_TYPE_A);
	assert_int_equal(ldns_pkt_get_rcode(p), LDNS_RCODE_NOERROR);
	assert_int_equal(f->n_seen, 1);
	ldns_pkt_free(p);
}

static void test_refused(void **state)
{
	struct fx *f = *state;
	const struct wd_dns_stats *st = wd_dns_stats(f->d);
	ldns_pkt *p;

	f->rrs[0] = "evil.example.net. 30 IN A 192.0.2.66";
	f->n_rrs = 1;
	p = ask_udp(f, "evil.example.net.", LDNS_RR_TYPE_AAAA);
	assert_int_equal(ldns_pkt_get_rcode(p), LDNS_RCODE_REFUSED);
	assert_int_equal(ldns_pkt_id(p), 0x4242);
	assert_int_equal(ldns_pkt_qdcount(p), 1);
	ldns_pkt_free(p);
	assert_int_equal(f->udp_queries, 0); /* never asked upstream */
	assert_int_equal(f->n_seen, 0);
	assert_int_equal(f->n_events, 1);
	assert_int_equal(f->ev.verdict, WD_DNS_REFUSED);
	assert_string_equal(f->ev.name, "evil.example.net");
	assert_int_equal(f->ev.qtype, LDNS_RR_TYPE_AAAA);
	assert_null(f->ev.rule); /* "default" */
	assert_string_equal(f->ev.why, "name");

	/* a deny rule for every port refuses the name, and says which rule */
	p = ask_udp(f, "blocked.example.com.", LDNS_RR_TYPE_A);
	assert_int_equal(ldns_pkt_get_rcode(p), LDNS_RCODE_REFUSED);
	assert_ptr_equal(f->ev.rule, &f->deny.v[0]);
	ldns_pkt_free(p);

	/* a deny rule for some ports: resolved, the deny rule handed on with the address */
	f->rrs[0] = "mail.example.com. 30 IN A 192.0.2.25";
	p = ask_udp(f, "mail.example.com.", LDNS_RR_TYPE_A);
	assert_int_equal(ldns_pkt_get_rcode(p), LDNS_RCODE_NOERROR);
	assert_int_equal(f->n_seen, 2);
	assert_ptr_equal(f->seen[0].rule, &f->deny.v[1]);
	assert_true(f->seen[0].deny);
	assert_ptr_equal(f->seen[1].rule, &f->allow.v[1]);
	assert_false(f->seen[1].deny);
	ldns_pkt_free(p);

	/* zone transfers and classes other than IN */
	p = ask_udp(f, "api.example.com.", LDNS_RR_TYPE_AXFR);
	assert_int_equal(ldns_pkt_get_rcode(p), LDNS_RCODE_REFUSED);
	assert_string_equal(f->ev.why, "type");
	ldns_pkt_free(p);
	assert_int_equal(st->refused, 3);
	assert_int_equal(f->udp_queries, 1);
}

static void test_suffix(void **state)
{
	struct fx *f = *state;
	static const struct {
		const char *name;
		bool allowed;
	} cases[] = {
		{ "a.example.com.", true },	     { "a.b.c.example.com.", true },
		{ "WWW.EXAMPLE.COM.", true },	     { "example.com.", false },
		{ "badexample.com.", false },	     { "example.com.evil.net.", false },
		{ "www.example.org.", true },	     { "a.www.example.org.", false },
		{ "example.org.", false },	     { "com.", false },
		{ ".", false },
	};
	struct wd_dns_names names;

	(void)f;
	assert_int_equal(wd_dns_names_init(&names, &f->allow, &f->deny, false), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ldns_rdf *dn = ldns_dname_new_frm_str(cases[i].name);
		struct wd_dns_verdict v;

		assert_non_null(dn);
		wd_dns_names_decide(&names, dn, &v);
		if (v.allowed != cases[i].allowed)
			fail_msg("%s: allowed %d, want %d", cases[i].name, v.allowed,
				 cases[i].allowed);
		ldns_rdf_deep_free(dn);
	}
	wd_dns_names_free(&names);

	/* and through the forwarder: example.com itself is not under *.example.com */
	f->rrs[0] = "example.com. 30 IN A 192.0.2.5";
	f->n_rrs = 1;
	ldns_pkt *p = ask_udp(f, "example.com.", LDNS_RR_TYPE_A);

	assert_int_equal(ldns_pkt_get_rcode(p), LDNS_RCODE_REFUSED);
	ldns_pkt_free(p);
	f->rrs[0] = "deep.sub.example.com. 30 IN A 192.0.2.6";
	p = ask_udp(f, "deep.sub.example.com.", LDNS_RR_TYPE_A);
	assert_int_equal(ldns_pkt_get_rcode(p), LDNS_RCODE_NOERROR);
	assert_int_equal(f->n_seen, 1);
	assert_ptr_equal(f->seen[0].rule, &f->allow.v[1]);
	ldns_pkt_free(p);
}

static void test_default_allow_and_any(void **state)
{
	struct wd_net_list any = { 0 };
	struct wd_dns_names names;
	struct wd_dns_verdict v;
	ldns_rdf *dn = ldns_dname_new_frm_str("anything.example.");

	(void)state;
	assert_int_equal(wd_dns_names_init(&names, NULL, NULL, true), 0);
	wd_dns_names_decide(&names, dn, &v);
	assert_true(v.allowed);
	assert_null(v.rule);
	wd_dns_names_free(&names);
	add_rule(&any, "tcp:*:443");
	assert_int_equal(wd_dns_names_init(&names, &any, NULL, false), 0);
	wd_dns_names_decide(&names, dn, &v);
	assert_true(v.allowed);
	assert_ptr_equal(v.rule, &any.v[0]);
	wd_dns_names_free(&names);
	assert_int_equal(wd_dns_names_init(&names, NULL, NULL, false), 0);
	wd_dns_names_decide(&names, dn, &v);
	assert_false(v.allowed);
	wd_dns_names_free(&names);
	ldns_rdf_deep_free(dn);
	list_free(&any);
}

/* Connect to the forwarder over TCP. */
static int tcp_client(struct fx *f)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	dns_addr(f, &ss, &sl);
	assert_int_equal(connect(fd, (void *)&ss, sl), 0);
	assert_int_equal(fcntl(fd, F_SETFL, O_NONBLOCK), 0);
	return fd;
}

/* One whole length-prefixed message from @fd, pumping the forwarder meanwhile. */
static ldns_pkt *tcp_reply(struct fx *f, int fd)
{
	uint8_t buf[2 + 65535];
	size_t have = 0, need = 2;
	ldns_pkt *p = NULL;

	while (have < need) {
		ssize_t n;

		assert_true(pump(f, readable, &fd));
		n = read(fd, buf + have, need - have);
		assert_true(n > 0);
		have += (size_t)n;
		if (have == 2 && need == 2)
			need = 2 + ldns_read_uint16(buf);
	}
	assert_int_equal(ldns_wire2pkt(&p, buf + 2, need - 2), LDNS_STATUS_OK);
	return p;
}

static void test_tcp_query(void **state)
{
	struct fx *f = *state;
	uint8_t msg[2048];
	size_t off = 0;
	ldns_pkt *p[2];
	int fd = tcp_client(f);

	f->rrs[0] = "api.example.com. 300 IN A 192.0.2.1";
	f->n_rrs = 1;
	/* two queries in one write: an allowed name and a refused one */
	for (int i = 0; i < 2; i++) {
		size_t len;
		uint8_t *q = make_query(i ? "nope.example.net." : "api.example.com.",
					LDNS_RR_TYPE_A, i == 0, &len);

		ldns_write_uint16(msg + off, (uint16_t)len);
		memcpy(msg + off + 2, q, len);
		off += 2 + len;
		free(q);
	}
	assert_int_equal(write(fd, msg, off), (ssize_t)off);
	p[0] = tcp_reply(f, fd);
	p[1] = tcp_reply(f, fd);
	/* the refused one is answered at once, so first */
	assert_int_equal(ldns_pkt_get_rcode(p[0]), LDNS_RCODE_REFUSED);
	assert_int_equal(ldns_pkt_get_rcode(p[1]), LDNS_RCODE_NOERROR);
	assert_int_equal(ldns_pkt_ancount(p[1]), 1);
	assert_int_equal(f->n_seen, 2); /* two rules match api.example.com */
	assert_int_equal(wd_dns_stats(f->d)->tcp_queries, 2);
	ldns_pkt_free(p[0]);
	ldns_pkt_free(p[1]);

	/* a length prefix past the limit closes the connection */
	ldns_write_uint16(msg, 60000);
	assert_int_equal(write(fd, msg, 2), 2);
	assert_true(pump(f, stat_at_least, &wd_dns_stats(f->d)->tcp_closed_bad));
	assert_true(pump(f, readable, &fd));
	assert_int_equal(read(fd, msg, 1), 0); /* EOF */
	close(fd);
}

/* A querier peer_ok refuses gets nothing, over either protocol, and nothing goes upstream. */
static void test_foreign_querier_unanswered(void **state)
{
	struct fx *f = *state;
	const struct wd_dns_stats *st = wd_dns_stats(f->d);
	struct sockaddr_in me;
	socklen_t ml = sizeof(me);
	uint8_t *q, buf[64];
	size_t len;
	ssize_t n;
	int fd;

	f->rrs[0] = "api.example.com. 300 IN A 192.0.2.1";
	f->n_rrs = 1;
	f->foreign = true;
	q = make_query("api.example.com.", LDNS_RR_TYPE_A, false, &len);
	send_udp(f, q, len);
	assert_true(pump(f, stat_at_least, &st->foreign));
	assert_false(readable(f, &f->client));
	/* it was asked about the datagram's source */
	assert_int_equal(getsockname(f->client, (void *)&me, &ml), 0);
	assert_int_equal(f->peer.sin_port, me.sin_port);
	assert_false(f->peer_tcp);

	fd = tcp_client(f);
	ldns_write_uint16(buf, (uint16_t)len);
	assert_int_equal(write(fd, buf, 2), 2);
	assert_int_equal(write(fd, q, len), (ssize_t)len);
	free(q);
	assert_true(pump(f, readable, &fd));
	/* closed unanswered (a reset: the query was never read) */
	n = read(fd, buf, sizeof(buf));
	assert_true(n == 0 || (n < 0 && errno == ECONNRESET));
	close(fd);
	assert_true(f->peer_tcp);
	assert_int_equal(st->foreign, 2);
	assert_int_equal(st->queries, 0);
	assert_int_equal(f->n_seen, 0);
	assert_int_equal(f->udp_queries + f->tcp_queries, 0);

	/* the same query from a querier it takes is answered */
	f->foreign = false;
	{
		ldns_pkt *p = ask_udp(f, "api.example.com.", LDNS_RR_TYPE_A);

		assert_int_equal(ldns_pkt_get_rcode(p), LDNS_RCODE_NOERROR);
		ldns_pkt_free(p);
	}
}

static void test_truncated_retried_over_tcp(void **state)
{
	struct fx *f = *state;
	char rrs[30][80];
	ldns_pkt *p;
	size_t len;
	uint8_t *q;
	int fd;

	f->mode = UP_TRUNCATE;
	for (int i = 0; i < 30; i++) {
		snprintf(rrs[i], sizeof(rrs[i]), "big.example.com. 60 IN A 198.51.100.%d", i + 1);
		f->rrs[i] = rrs[i];
	}
	f->n_rrs = 30;
	p = ask_udp(f, "big.example.com.", LDNS_RR_TYPE_A);
	assert_int_equal(f->udp_queries, 1);
	assert_int_equal(f->tcp_queries, 1);
	assert_int_equal(wd_dns_stats(f->d)->upstream_truncated, 1);
	assert_int_equal(f->n_seen, 30);
	/* 30 records are more than a sandbox without EDNS takes over UDP: TC, so it asks by TCP */
	assert_true(ldns_pkt_tc(p));
	assert_int_equal(ldns_pkt_ancount(p), 0);
	assert_int_equal(ldns_pkt_id(p), 0x4242);
	ldns_pkt_free(p);
	assert_int_equal(wd_dns_stats(f->d)->truncated_to_sandbox, 1);

	fd = tcp_client(f);
	q = make_query("big.example.com.", LDNS_RR_TYPE_A, false, &len);
	uint8_t pre[2];

	ldns_write_uint16(pre, (uint16_t)len);
	assert_int_equal(write(fd, pre, 2), 2);
	assert_int_equal(write(fd, q, len), (ssize_t)len);
	free(q);
	p = tcp_reply(f, fd);
	assert_false(ldns_pkt_tc(p));
	assert_int_equal(ldns_pkt_ancount(p), 30);
	assert_string_equal(rr_text(p, 29), "big.example.com.\t60\tIN\tA\t198.51.100.30");
	ldns_pkt_free(p);
	close(fd);
}

static void test_upstream_timeout(void **state)
{
	struct fx *f = *state;
	ldns_pkt *p;
	unsigned int one = 1, two = 2;
	size_t len;
	uint8_t *q = make_query("api.example.com.", LDNS_RR_TYPE_A, false, &len);

	f->mode = UP_SILENT;
	send_udp(f, q, len);
	free(q);
	assert_true(pump(f, count_at_least, &one));
	f->skew += f->c.attempt_ms; /* the first try's time is up: asked again */
	assert_true(pump(f, count_at_least, &two));
	f->skew += f->c.attempt_ms; /* and the second's: SERVFAIL */
	p = udp_reply(f);
	assert_int_equal(ldns_pkt_get_rcode(p), LDNS_RCODE_SERVFAIL);
	assert_int_equal(ldns_pkt_id(p), 0x4242);
	ldns_pkt_free(p);
	assert_int_equal(f->udp_queries, 2);
	assert_int_equal(wd_dns_stats(f->d)->upstream_timeouts, 2);
	assert_int_equal(wd_dns_stats(f->d)->servfail, 1);
	assert_int_equal(f->n_seen, 0);
	assert_int_equal(wd_dns_timeout(f->d, now(f)), -1); /* nothing left waiting */
}

static void test_malformed(void **state)
{
	struct fx *f = *state;
	const struct wd_dns_stats *st = wd_dns_stats(f->d);
	uint8_t shorty[5] = { 1, 2, 3, 4, 5 };
	/* a header that promises two questions and carries none */
	uint8_t hdr[12] = { 0x12, 0x34, 0x01, 0x00, 0x00, 0x02, 0, 0, 0, 0, 0, 0 };
	/* a STATUS query (opcode 2) */
	uint8_t status[12] = { 0x12, 0x35, 0x10, 0x00, 0, 0, 0, 0, 0, 0, 0, 0 };
	uint8_t *q, big[WD_DNS_QUERY_MAX + 100] = { 0 };
	ldns_pkt *p;
	size_t len;

	send_udp(f, shorty, sizeof(shorty));
	assert_true(pump(f, stat_at_least, &st->malformed));
	assert_false(readable(f, &f->client)); /* dropped, no reply */

	send_udp(f, hdr, sizeof(hdr));
	p = udp_reply(f);
	assert_int_equal(ldns_pkt_get_rcode(p), LDNS_RCODE_FORMERR);
	assert_int_equal(ldns_pkt_id(p), 0x1234);
	ldns_pkt_free(p);
	assert_int_equal(st->malformed, 2);

	send_udp(f, status, sizeof(status));
	p = udp_reply(f);
	assert_int_equal(ldns_pkt_get_rcode(p), LDNS_RCODE_NOTIMPL);
	ldns_pkt_free(p);

	/* two questions */
	{
		ldns_pkt *two = NULL;
		ldns_rr *rr = NULL;
		uint8_t *wire;

		assert_int_equal(ldns_pkt_query_new_frm_str(&two, "api.example.com.",
							    LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN, 0),
				 LDNS_STATUS_OK);
		assert_int_equal(ldns_rr_new_question_frm_str(&rr, "x.example.com. IN A", NULL,
							      NULL),
				 LDNS_STATUS_OK);
		ldns_pkt_push_rr(two, LDNS_SECTION_QUESTION, rr);
		assert_int_equal(ldns_pkt2wire(&wire, two, &len), LDNS_STATUS_OK);
		send_udp(f, wire, len);
		free(wire);
		ldns_pkt_free(two);
		p = udp_reply(f);
		assert_int_equal(ldns_pkt_get_rcode(p), LDNS_RCODE_FORMERR);
		ldns_pkt_free(p);
	}

	/* a response sent as a query: dropped (no answering answers) */
	q = make_query("api.example.com.", LDNS_RR_TYPE_A, false, &len);
	q[2] |= 0x80;
	send_udp(f, q, len);
	free(q);
	/* oversize */
	send_udp(f, big, sizeof(big));
	assert_true(pump(f, stat_at_least, &st->oversize));
	assert_int_equal(st->malformed, 4);

	/* and the forwarder still answers */
	f->rrs[0] = "api.example.com. 300 IN A 192.0.2.1";
	f->n_rrs = 1;
	p = ask_udp(f, "api.example.com.", LDNS_RR_TYPE_A);
	assert_int_equal(ldns_pkt_get_rcode(p), LDNS_RCODE_NOERROR);
	ldns_pkt_free(p);
}

static void test_spoofed_ignored(void **state)
{
	struct fx *f = *state;
	ldns_pkt *p;

	f->mode = UP_SPOOF;
	f->rrs[0] = "api.example.com. 300 IN A 192.0.2.1";
	f->n_rrs = 1;
	p = ask_udp(f, "api.example.com.", LDNS_RR_TYPE_A);
	assert_int_equal(ldns_pkt_get_rcode(p), LDNS_RCODE_NOERROR);
	assert_int_equal(ldns_pkt_ancount(p), 1);
	assert_string_equal(rr_text(p, 0), "api.example.com.\t300\tIN\tA\t192.0.2.1");
	ldns_pkt_free(p);
	assert_int_equal(f->n_seen, 2); /* two rules match api.example.com */
	assert_string_equal(f->seen[0].addr, "192.0.2.1");
	assert_string_equal(f->seen[1].addr, "192.0.2.1");
	/* the wrong id and the wrong question; the other port never got past the kernel */
	assert_int_equal(wd_dns_stats(f->d)->upstream_spoofed, 2);
}

static void test_resolv_conf(void **state)
{
	char path[] = "/tmp/wd-dns-resolv-XXXXXX";
	struct sockaddr_storage ss[WD_DNS_UPSTREAM_MAX];
	char a[INET6_ADDRSTRLEN];
	size_t n = 0;
	int fd = mkstemp(path);
	const char *text = "# generated\nsearch example.com\nnameserver 192.0.2.53\n"
			   "options edns0 trust-ad\nnameserver 2001:db8::53\n";

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(wd_dns_upstreams_read(path, ss, WD_DNS_UPSTREAM_MAX, &n), 0);
	unlink(path);
	assert_int_equal(n, 2);
	assert_int_equal(ss[0].ss_family, AF_INET);
	inet_ntop(AF_INET, &((struct sockaddr_in *)&ss[0])->sin_addr, a, sizeof(a));
	assert_string_equal(a, "192.0.2.53");
	assert_int_equal(ntohs(((struct sockaddr_in *)&ss[0])->sin_port), 53);
	assert_int_equal(ss[1].ss_family, AF_INET6);
	inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss[1])->sin6_addr, a, sizeof(a));
	assert_string_equal(a, "2001:db8::53");
	assert_int_equal(wd_dns_upstreams_read("/nonexistent/resolv.conf", ss, 3, &n), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_allowed_answered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cname_chain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_suffix, setup, teardown),
		cmocka_unit_test(test_default_allow_and_any),
		cmocka_unit_test_setup_teardown(test_tcp_query, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_retried_over_tcp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_upstream_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_querier_unanswered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spoofed_ignored, setup, teardown),
		cmocka_unit_test(test_resolv_conf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
