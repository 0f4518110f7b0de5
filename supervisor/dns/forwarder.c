// SPDX-License-Identifier: GPL-2.0
/*
 * DNS room: the forwarder's sockets and its one-thread event loop (forwarder.h). The sandbox's
 * UDP datagrams and TCP connections come in on the listening sockets; each allowed query gets
 * its own upstream socket (a fresh source port and id per try), connected to the server so the
 * kernel drops datagrams from anywhere else, and checked again here. Everything is bounded:
 * queries pending, TCP clients, queries a connection has in flight, message sizes, time.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <ldns/ldns.h>

#include "supervisor/dns/forwarder.h"
#include "supervisor/dns/message.h"
#include "supervisor/dns/names.h"
#include "supervisor/util/log.h"

/* a TCP message's length prefix */
#define LEN_PREFIX 2
/* the most replies a TCP client may leave unread before it is closed */
#define CLIENT_OUT_MAX (4 * (LEN_PREFIX + 65535))
/* events worked through in one wd_dns_handle(), so the caller's loop is not starved */
#define HANDLE_BATCH 64
/* tries of each server before SERVFAIL (the query's deadline may come first) */
#define ROUNDS 2

enum ep_kind {
	EP_UDP_LISTEN = 1,
	EP_TCP_LISTEN = 2,
	EP_CLIENT = 3,
	EP_UPSTREAM = 4,
};

/* What epoll hands back: the kind of socket and where it lives. */
struct ep {
	enum ep_kind kind;
	int fd;
};

struct client {
	struct ep ep; /* fd -1: a free slot */
	uint32_t gen; /* bumped when closed, so late answers find it gone */
	uint8_t in[LEN_PREFIX + WD_DNS_QUERY_MAX];
	size_t in_len;
	uint8_t *out;
	size_t out_len, out_off;
	unsigned int inflight;
	uint64_t idle_at;
};

struct query {
	struct ep ep; /* the upstream socket; fd -1 between tries */
	bool used;
	struct wd_dns_query q;
	bool from_tcp;
	struct sockaddr_storage peer; /* a UDP sandbox's address */
	socklen_t peer_len;
	size_t client;
	uint32_t client_gen;
	size_t server;
	unsigned int tries;
	uint16_t up_id;
	bool up_tcp;	   /* asking over TCP (an answer came truncated) */
	bool up_connected; /* TCP: connect() done */
	uint8_t *up_out;   /* the query as sent (TCP: with its length prefix) */
	size_t up_out_len, up_out_off;
	uint8_t *up_in; /* TCP: the answer as it arrives */
	size_t up_in_len, up_in_need;
	uint64_t try_at, give_up_at;
};

struct wd_dns {
	struct wd_dns_config c;
	struct wd_dns_names names;
	struct wd_dns_stats st;
	int epfd;
	struct ep udp, tcp;
	struct sockaddr_storage local;
	socklen_t local_len;
	struct client *clients;
	struct query *queries;
	unsigned int pending;
	uint8_t buf[65536]; /* one datagram */
};

uint64_t wd_dns_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void wd_dns_config_default(struct wd_dns_config *c)
{
	memset(c, 0, sizeof(*c));
	c->udp_fd = -1;
	c->tcp_fd = -1;
	c->max_pending = 128;
	c->max_tcp_clients = 16;
	c->max_tcp_inflight = 16;
	c->attempt_ms = 2000;
	c->query_ms = 5000;
	c->tcp_idle_ms = 10000;
}

static int ep_add(struct wd_dns *d, struct ep *ep, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = ep };

	return epoll_ctl(d->epfd, EPOLL_CTL_ADD, ep->fd, &ev) ? -errno : 0;
}

static int ep_mod(struct wd_dns *d, struct ep *ep, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = ep };

	return epoll_ctl(d->epfd, EPOLL_CTL_MOD, ep->fd, &ev) ? -errno : 0;
}

static void ep_close(struct ep *ep)
{
	if (ep->fd >= 0)
		close(ep->fd); /* leaves the epoll set with its last reference */
	ep->fd = -1;
}

static bool same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;

		return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;

		return x->sin6_port == y->sin6_port &&
		       !memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr));
	}
	return false;
}

static socklen_t addr_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

static uint16_t get_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

/* ---- replies to the sandbox -------------------------------------------------------------- */

static struct client *live_client(struct wd_dns *d, size_t i, uint32_t gen)
{
	struct client *cl = &d->clients[i];

	return cl->ep.fd >= 0 && cl->gen == gen ? cl : NULL;
}

static void client_close(struct wd_dns *d, struct client *cl)
{
	(void)d;
	ep_close(&cl->ep);
	cl->gen++;
	free(cl->out);
	cl->out = NULL;
	cl->out_len = cl->out_off = cl->in_len = 0;
	cl->inflight = 0;
}

/* Write what @cl has queued; watch for writability while some is left. */
static void client_flush(struct wd_dns *d, struct client *cl)
{
	while (cl->out_off < cl->out_len) {
		ssize_t n = write(cl->ep.fd, cl->out + cl->out_off, cl->out_len - cl->out_off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			d->st.send_failed++;
			client_close(d, cl);
			return;
		}
		cl->out_off += (size_t)n;
	}
	if (cl->out_off == cl->out_len) {
		cl->out_off = cl->out_len = 0;
		ep_mod(d, &cl->ep, EPOLLIN);
	} else {
		ep_mod(d, &cl->ep, EPOLLIN | EPOLLOUT);
	}
}

static void client_queue(struct wd_dns *d, struct client *cl, const uint8_t *msg, size_t len)
{
	size_t left = cl->out_len - cl->out_off;
	uint8_t *out;

	if (len > 65535 || left + LEN_PREFIX + len > CLIENT_OUT_MAX) {
		d->st.tcp_closed_bad++; /* it does not read its answers */
		client_close(d, cl);
		return;
	}
	out = malloc(left + LEN_PREFIX + len);
	if (!out) {
		d->st.send_failed++;
		return;
	}
	if (left)
		memcpy(out, cl->out + cl->out_off, left);
	ldns_write_uint16(out + left, (uint16_t)len);
	memcpy(out + left + LEN_PREFIX, msg, len);
	free(cl->out);
	cl->out = out;
	cl->out_off = 0;
	cl->out_len = left + LEN_PREFIX + len;
	client_flush(d, cl);
}

/* Send @msg to where @q came from. */
static void to_sandbox(struct wd_dns *d, const struct query *q, const uint8_t *msg, size_t len)
{
	if (q->from_tcp) {
		struct client *cl = live_client(d, q->client, q->client_gen);

		if (cl)
			client_queue(d, cl, msg, len);
		return;
	}
	if (sendto(d->udp.fd, msg, len, MSG_DONTWAIT | MSG_NOSIGNAL,
		   (const struct sockaddr *)&q->peer, q->peer_len) != (ssize_t)len)
		d->st.send_failed++;
}

static void reply(struct wd_dns *d, const struct query *q, uint8_t rcode)
{
	uint8_t *wire = NULL;
	size_t len = 0;

	if (wd_dns_reply_build(&q->q, rcode, &wire, &len)) {
		d->st.send_failed++;
		return;
	}
	to_sandbox(d, q, wire, len);
	free(wire);
}

static void event(struct wd_dns *d, const struct query *q, enum wd_dns_verdict_kind verdict,
		  const struct wd_net_rule *rule, const char *why)
{
	struct wd_dns_event ev = {
		.name = q->q.name,
		.qtype = q->q.qtype,
		.verdict = verdict,
		.rule = rule,
		.why = why,
		.tcp = q->from_tcp,
	};

	if (d->c.on_event)
		d->c.on_event(&ev, d->c.arg);
}

/* ---- queries ------------------------------------------------------------------------------- */

static void query_done(struct wd_dns *d, struct query *q)
{
	struct client *cl;

	ep_close(&q->ep);
	if (q->from_tcp) {
		cl = live_client(d, q->client, q->client_gen);
		if (cl && cl->inflight)
			cl->inflight--;
	}
	free(q->up_out);
	free(q->up_in);
	wd_dns_query_clear(&q->q);
	memset(q, 0, sizeof(*q));
	q->ep.fd = -1;
	q->ep.kind = EP_UPSTREAM;
	d->pending--;
}

static void servfail(struct wd_dns *d, struct query *q)
{
	d->st.servfail++;
	reply(d, q, LDNS_RCODE_SERVFAIL);
	query_done(d, q);
}

/* Open a socket to the query's current server and send (UDP) or start connecting (TCP). */
static int try_start(struct wd_dns *d, struct query *q, uint64_t now)
{
	const struct sockaddr_storage *srv = &d->c.upstream[q->server];
	int type = (q->up_tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_NONBLOCK | SOCK_CLOEXEC;
	uint8_t *wire = NULL;
	size_t len = 0;
	int err;

	free(q->up_out);
	free(q->up_in);
	q->up_out = q->up_in = NULL;
	q->up_out_off = q->up_in_len = q->up_in_need = 0;
	q->up_connected = false;
	if (getrandom(&q->up_id, sizeof(q->up_id), 0) != sizeof(q->up_id))
		return -EIO;
	err = wd_dns_upstream_query(&q->q, q->up_id, &wire, &len);
	if (err)
		return err;
	if (q->up_tcp) {
		q->up_out = malloc(LEN_PREFIX + len);
		if (!q->up_out) {
			free(wire);
			return -ENOMEM;
		}
		ldns_write_uint16(q->up_out, (uint16_t)len);
		memcpy(q->up_out + LEN_PREFIX, wire, len);
		q->up_out_len = LEN_PREFIX + len;
		free(wire);
	} else {
		q->up_out = wire;
		q->up_out_len = len;
	}
	q->ep.fd = socket(srv->ss_family, type, 0);
	if (q->ep.fd < 0)
		return -errno;
	/* connected: a fresh ephemeral port, and the kernel keeps other sources out */
	if (connect(q->ep.fd, (const struct sockaddr *)srv, addr_len(srv)) && errno != EINPROGRESS)
		return -errno;
	q->try_at = now + d->c.attempt_ms;
	if (!q->up_tcp) {
		if (send(q->ep.fd, q->up_out, q->up_out_len, MSG_NOSIGNAL) != (ssize_t)q->up_out_len)
			return errno ? -errno : -EIO;
		return ep_add(d, &q->ep, EPOLLIN);
	}
	return ep_add(d, &q->ep, EPOLLOUT);
}

/* This try failed or timed out: the next server, or the next round, or SERVFAIL. */
static void try_next(struct wd_dns *d, struct query *q, uint64_t now)
{
	ep_close(&q->ep);
	for (;;) {
		q->tries++;
		q->server = (q->server + 1) % d->c.n_upstream;
		if (q->tries >= ROUNDS * d->c.n_upstream || now >= q->give_up_at) {
			servfail(d, q);
			return;
		}
		if (!try_start(d, q, now))
			return;
		d->st.upstream_errors++;
		ep_close(&q->ep);
	}
}

struct resolved_ctx {
	struct wd_dns *d;
	struct query *q;
};

/* One A/AAAA of the chain: to the caller once for every rule that matched the question. */
static int on_addr(const struct wd_dns_addr *a, void *arg)
{
	struct resolved_ctx *ctx = arg;
	const struct wd_dns_verdict *v = &ctx->q->q.verdict;

	for (size_t i = 0; i < v->n; i++) {
		struct wd_dns_resolved r = {
			.family = a->family,
			.addr = a->addr,
			.ttl = a->ttl,
			.name = a->name,
			.qname = ctx->q->q.name,
			.rule = v->m[i].rule,
			.deny = v->m[i].deny,
		};
		int err = ctx->d->c.on_resolved ? ctx->d->c.on_resolved(&r, ctx->d->c.arg) : 0;

		if (err)
			return err;
		ctx->d->st.resolved++;
	}
	return 0;
}

/*
 * Upstream's answer @buf arrived: check it; if it is the one, hand its addresses on, then pass
 * it to the sandbox. Returns false when it was not the answer (the try goes on).
 */
static bool answer(struct wd_dns *d, struct query *q, const uint8_t *buf, size_t len, uint64_t now)
{
	struct resolved_ctx ctx = { d, q };
	const struct wd_net_rule *denied = NULL;
	ldns_pkt *pkt = NULL;
	uint8_t *wire = NULL;
	size_t wlen = 0;
	int err;

	switch (wd_dns_answer_read(&q->q, q->up_id, buf, len, &pkt)) {
	case WD_DNS_ANSWER_OK:
		break;
	case WD_DNS_ANSWER_TRUNCATED:
		d->st.upstream_truncated++;
		if (q->up_tcp) {
			try_next(d, q, now); /* TC over TCP means nothing sensible */
			return true;
		}
		ep_close(&q->ep);
		q->up_tcp = true;
		if (try_start(d, q, now)) {
			d->st.upstream_errors++;
			try_next(d, q, now);
		}
		return true;
	case WD_DNS_ANSWER_MISMATCH:
		d->st.upstream_spoofed++;
		return false;
	case WD_DNS_ANSWER_MALFORMED:
		d->st.upstream_malformed++;
		return false;
	}
	err = wd_dns_answer_addrs(&d->names, &q->q, pkt, on_addr, &ctx, &denied);
	ldns_pkt_free(pkt);
	if (denied) {
		d->st.refused++;
		event(d, q, WD_DNS_REFUSED, denied, "cname");
		reply(d, q, LDNS_RCODE_REFUSED);
		query_done(d, q);
		return true;
	}
	if (err) {
		d->st.resolved_failed++;
		log_debug("dns: %s: the allow set did not take an address: %s", q->q.name,
			  strerror(err < 0 ? -err : err));
		servfail(d, q);
		return true;
	}
	if (wd_dns_answer_for_sandbox(&q->q, buf, len, q->from_tcp ? 65535 : q->q.udp_max, &wire,
				      &wlen)) {
		servfail(d, q);
		return true;
	}
	if (wlen < len)
		d->st.truncated_to_sandbox++;
	d->st.answered++;
	to_sandbox(d, q, wire, wlen);
	free(wire);
	query_done(d, q);
	return true;
}

static void upstream_udp(struct wd_dns *d, struct query *q, uint64_t now)
{
	for (;;) {
		struct sockaddr_storage from;
		socklen_t fromlen = sizeof(from);
		ssize_t n = recvfrom(q->ep.fd, d->buf, sizeof(d->buf), MSG_TRUNC, (void *)&from,
				     &fromlen);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n < 0) { /* ICMP port unreachable and the like */
			d->st.upstream_errors++;
			try_next(d, q, now);
			return;
		}
		if ((size_t)n > sizeof(d->buf)) {
			d->st.upstream_malformed++;
			continue;
		}
		if (!same_addr(&from, &d->c.upstream[q->server])) {
			d->st.upstream_spoofed++;
			continue;
		}
		if (answer(d, q, d->buf, (size_t)n, now))
			return;
	}
}

static void upstream_tcp(struct wd_dns *d, struct query *q, uint32_t events, uint64_t now)
{
	if (!q->up_connected) {
		int soerr = 0;
		socklen_t sl = sizeof(soerr);

		if (getsockopt(q->ep.fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) || soerr) {
			d->st.upstream_errors++;
			try_next(d, q, now);
			return;
		}
		q->up_connected = true;
	}
	while ((events & EPOLLOUT) && q->up_out_off < q->up_out_len) {
		ssize_t n = send(q->ep.fd, q->up_out + q->up_out_off, q->up_out_len - q->up_out_off,
				 MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			d->st.upstream_errors++;
			try_next(d, q, now);
			return;
		}
		q->up_out_off += (size_t)n;
		if (q->up_out_off == q->up_out_len)
			ep_mod(d, &q->ep, EPOLLIN);
	}
	if (!(events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		return;
	for (;;) {
		size_t want = q->up_in_need ? q->up_in_need : LEN_PREFIX;
		ssize_t n;

		if (!q->up_in) {
			q->up_in = malloc(LEN_PREFIX + 65535);
			if (!q->up_in) {
				servfail(d, q);
				return;
			}
		}
		n = read(q->ep.fd, q->up_in + q->up_in_len, want - q->up_in_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) { /* closed or reset before the whole answer */
			d->st.upstream_errors++;
			try_next(d, q, now);
			return;
		}
		q->up_in_len += (size_t)n;
		if (q->up_in_len < want)
			continue;
		if (!q->up_in_need) {
			q->up_in_need = LEN_PREFIX + ldns_read_uint16(q->up_in);
			continue;
		}
		if (!answer(d, q, q->up_in + LEN_PREFIX, q->up_in_len - LEN_PREFIX, now))
			try_next(d, q, now); /* one answer a connection: a wrong one ends the try */
		return;
	}
}

/* A query read from the sandbox (@cl NULL: over UDP from @peer). */
static void query_in(struct wd_dns *d, const uint8_t *buf, size_t len, struct client *cl,
		     const struct sockaddr_storage *peer, socklen_t peer_len, uint64_t now)
{
	struct query tmp = { .ep.fd = -1 }, *q = &tmp;
	enum wd_dns_action act;
	bool malformed;

	d->st.queries++;
	if (cl) {
		d->st.tcp_queries++;
		tmp.from_tcp = true;
		tmp.client = (size_t)(cl - d->clients);
		tmp.client_gen = cl->gen;
	} else {
		memcpy(&tmp.peer, peer, peer_len);
		tmp.peer_len = peer_len;
	}
	act = wd_dns_query_read(&d->names, buf, len, &tmp.q, &malformed);
	if (malformed)
		d->st.malformed++;
	if (act == WD_DNS_DROP)
		goto out_clear;
	if (act == WD_DNS_REPLY) {
		if (tmp.q.rcode == LDNS_RCODE_NOTIMPL)
			d->st.notimp++;
		if (tmp.q.rcode == LDNS_RCODE_REFUSED) {
			d->st.refused++;
			event(d, q, WD_DNS_REFUSED, tmp.q.verdict.rule, tmp.q.why);
		}
		reply(d, q, tmp.q.rcode);
		goto out_clear;
	}
	if (d->pending >= d->c.max_pending || (cl && cl->inflight >= d->c.max_tcp_inflight)) {
		d->st.busy++;
		reply(d, q, LDNS_RCODE_SERVFAIL);
		goto out_clear;
	}
	for (size_t i = 0; i < d->c.max_pending; i++) {
		if (!d->queries[i].used) {
			q = &d->queries[i];
			break;
		}
	}
	*q = tmp;
	q->used = true;
	q->ep.kind = EP_UPSTREAM;
	q->give_up_at = now + d->c.query_ms;
	d->pending++;
	if (cl)
		cl->inflight++;
	d->st.allowed++;
	event(d, q, WD_DNS_ALLOWED, q->q.verdict.rule, "name");
	if (try_start(d, q, now)) {
		d->st.upstream_errors++;
		try_next(d, q, now);
	}
	return;
out_clear:
	wd_dns_query_clear(&tmp.q);
}

/* ---- the sandbox's sockets ------------------------------------------------------------------ */

/* Only the queriers the caller's peer_ok takes are answered, or read at all. */
static bool peer_answered(struct wd_dns *d, const struct sockaddr_storage *peer, bool tcp)
{
	if (!d->c.peer_ok || d->c.peer_ok(peer, &d->local, tcp, d->c.arg))
		return true;
	d->st.foreign++;
	return false;
}

static void udp_in(struct wd_dns *d, uint64_t now)
{
	for (int i = 0; i < HANDLE_BATCH; i++) {
		struct sockaddr_storage peer;
		socklen_t plen = sizeof(peer);
		ssize_t n = recvfrom(d->udp.fd, d->buf, sizeof(d->buf), MSG_TRUNC | MSG_DONTWAIT,
				     (void *)&peer, &plen);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return;
		if (!peer_answered(d, &peer, false))
			continue;
		if ((size_t)n > WD_DNS_QUERY_MAX) {
			d->st.queries++;
			d->st.oversize++;
			continue;
		}
		query_in(d, d->buf, (size_t)n, NULL, &peer, plen, now);
	}
}

static void tcp_accept(struct wd_dns *d, uint64_t now)
{
	for (int i = 0; i < HANDLE_BATCH; i++) {
		struct sockaddr_storage peer;
		socklen_t plen = sizeof(peer);
		int fd = accept4(d->tcp.fd, (struct sockaddr *)&peer, &plen,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct client *cl = NULL;

		if (fd < 0 && errno == EINTR)
			continue;
		if (fd < 0)
			return;
		if (!peer_answered(d, &peer, true)) {
			close(fd);
			continue;
		}
		for (size_t j = 0; j < d->c.max_tcp_clients; j++) {
			if (d->clients[j].ep.fd < 0) {
				cl = &d->clients[j];
				break;
			}
		}
		if (!cl) {
			d->st.tcp_rejected++;
			close(fd);
			continue;
		}
		cl->ep.fd = fd;
		cl->ep.kind = EP_CLIENT;
		cl->idle_at = now + d->c.tcp_idle_ms;
		if (ep_add(d, &cl->ep, EPOLLIN)) {
			log_warn("dns: cannot watch a TCP client");
			client_close(d, cl);
		}
	}
}

static void client_in(struct wd_dns *d, struct client *cl, uint64_t now)
{
	uint32_t gen = cl->gen;

	for (;;) {
		size_t need = LEN_PREFIX;
		ssize_t n;

		if (cl->in_len >= LEN_PREFIX) {
			size_t mlen = ldns_read_uint16(cl->in);

			if (mlen < WD_DNS_HEADER || mlen > WD_DNS_QUERY_MAX) {
				d->st.queries++;
				if (mlen > WD_DNS_QUERY_MAX)
					d->st.oversize++;
				else
					d->st.malformed++;
				d->st.tcp_closed_bad++;
				client_close(d, cl);
				return;
			}
			need = LEN_PREFIX + mlen;
		}
		if (cl->in_len == need) {
			cl->in_len = 0;
			cl->idle_at = now + d->c.tcp_idle_ms;
			query_in(d, cl->in + LEN_PREFIX, need - LEN_PREFIX, cl, NULL, 0, now);
			if (cl->ep.fd < 0 || cl->gen != gen)
				return; /* closed by its reply */
			continue;
		}
		n = read(cl->ep.fd, cl->in + cl->in_len, need - cl->in_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			client_close(d, cl);
			return;
		}
		cl->in_len += (size_t)n;
	}
}

void wd_dns_handle(struct wd_dns *d, uint64_t now_ms)
{
	/* one event a call to epoll_wait: handling one may close the socket of the next */
	for (int i = 0; i < HANDLE_BATCH; i++) {
		struct epoll_event ev;
		struct ep *ep;
		int n = epoll_wait(d->epfd, &ev, 1, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		ep = ev.data.ptr;
		switch (ep->kind) {
		case EP_UDP_LISTEN:
			udp_in(d, now_ms);
			break;
		case EP_TCP_LISTEN:
			tcp_accept(d, now_ms);
			break;
		case EP_CLIENT: {
			struct client *cl = (struct client *)ep;

			if (ev.events & EPOLLOUT)
				client_flush(d, cl);
			if (cl->ep.fd >= 0 && (ev.events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
				client_in(d, cl, now_ms);
			break;
		}
		case EP_UPSTREAM: {
			struct query *q = (struct query *)ep;

			if (q->up_tcp)
				upstream_tcp(d, q, ev.events, now_ms);
			else
				upstream_udp(d, q, now_ms);
			break;
		}
		}
	}
}

void wd_dns_tick(struct wd_dns *d, uint64_t now_ms)
{
	for (size_t i = 0; i < d->c.max_pending; i++) {
		struct query *q = &d->queries[i];

		if (!q->used)
			continue;
		if (now_ms >= q->give_up_at) {
			d->st.upstream_timeouts++;
			servfail(d, q);
		} else if (now_ms >= q->try_at) {
			d->st.upstream_timeouts++;
			try_next(d, q, now_ms);
		}
	}
	for (size_t i = 0; i < d->c.max_tcp_clients; i++) {
		struct client *cl = &d->clients[i];

		if (cl->ep.fd >= 0 && !cl->inflight && cl->out_len == 0 && now_ms >= cl->idle_at) {
			d->st.tcp_idle++;
			client_close(d, cl);
		}
	}
}

int wd_dns_timeout(const struct wd_dns *d, uint64_t now_ms)
{
	uint64_t next = UINT64_MAX;

	for (size_t i = 0; i < d->c.max_pending; i++) {
		const struct query *q = &d->queries[i];

		if (q->used) {
			next = q->try_at < next ? q->try_at : next;
			next = q->give_up_at < next ? q->give_up_at : next;
		}
	}
	for (size_t i = 0; i < d->c.max_tcp_clients; i++) {
		const struct client *cl = &d->clients[i];

		if (cl->ep.fd >= 0 && cl->idle_at < next)
			next = cl->idle_at;
	}
	if (next == UINT64_MAX)
		return -1;
	if (next <= now_ms)
		return 0;
	return next - now_ms > 60000 ? 60000 : (int)(next - now_ms);
}

/* ---- set-up -------------------------------------------------------------------------------- */

static int bind_one(int type, const struct sockaddr_storage *ss, const char *dev, int *fdp)
{
	int fd = socket(ss->ss_family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -errno;
	if (type == SOCK_STREAM)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if ((dev[0] && setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev, (socklen_t)strlen(dev))) ||
	    bind(fd, (const struct sockaddr *)ss, addr_len(ss)) ||
	    (type == SOCK_STREAM && listen(fd, 64))) {
		int err = -errno;

		close(fd);
		return err;
	}
	*fdp = fd;
	return 0;
}

/* UDP and TCP on one address; port 0: a port free for both (a few tries). */
static int bind_listen(struct wd_dns *d)
{
	struct sockaddr_storage ss = d->c.listen;
	int err = -EINVAL;

	if (ss.ss_family != AF_INET && ss.ss_family != AF_INET6) {
		log_warnx("dns: the listen address is neither IPv4 nor IPv6");
		return -EINVAL;
	}
	for (int i = 0; i < 16; i++) {
		socklen_t len = sizeof(ss);

		ss = d->c.listen;
		err = bind_one(SOCK_DGRAM, &ss, d->c.bind_dev, &d->udp.fd);
		if (err)
			break;
		if (getsockname(d->udp.fd, (struct sockaddr *)&ss, &len)) {
			err = -errno;
			break;
		}
		err = bind_one(SOCK_STREAM, &ss, d->c.bind_dev, &d->tcp.fd);
		if (!err || err != -EADDRINUSE || get_port(&d->c.listen) != 0)
			break;
		ep_close(&d->udp); /* that UDP port's TCP twin is taken: another port */
	}
	if (err) {
		char a[INET6_ADDRSTRLEN] = "?";
		const void *p = ss.ss_family == AF_INET6
					? (const void *)&((struct sockaddr_in6 *)&ss)->sin6_addr
					: (const void *)&((struct sockaddr_in *)&ss)->sin_addr;

		inet_ntop(ss.ss_family, p, a, sizeof(a));
		log_warnx("dns: cannot listen on %s port %u: %s", a, get_port(&ss), strerror(-err));
	}
	return err;
}

int wd_dns_new(const struct wd_dns_config *c, struct wd_dns **out)
{
	struct wd_dns *d;
	int err = -EINVAL;

	*out = NULL;
	if (!c->n_upstream || c->n_upstream > WD_DNS_UPSTREAM_MAX || !c->max_pending ||
	    !c->max_tcp_clients || !c->max_tcp_inflight || !c->attempt_ms || !c->query_ms) {
		log_warnx("dns: no upstream server, or a limit of 0");
		return -EINVAL;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->c = *c;
	d->epfd = -1;
	d->udp = (struct ep){ EP_UDP_LISTEN, c->udp_fd };
	d->tcp = (struct ep){ EP_TCP_LISTEN, c->tcp_fd };
	d->clients = calloc(c->max_tcp_clients, sizeof(*d->clients));
	d->queries = calloc(c->max_pending, sizeof(*d->queries));
	err = -ENOMEM;
	if (!d->clients || !d->queries)
		goto out_free;
	for (size_t i = 0; i < c->max_tcp_clients; i++)
		d->clients[i].ep = (struct ep){ EP_CLIENT, -1 };
	for (size_t i = 0; i < c->max_pending; i++)
		d->queries[i].ep = (struct ep){ EP_UPSTREAM, -1 };
	err = wd_dns_names_init(&d->names, c->allow, c->deny, c->default_allow);
	if (err) {
		log_warnx("dns: a name rule of the policy is not a DNS name ldns reads");
		goto out_free;
	}
	if ((c->udp_fd < 0) != (c->tcp_fd < 0)) {
		log_warnx("dns: give both listening sockets (UDP and TCP) or neither");
		err = -EINVAL;
		goto out_free;
	}
	if (c->udp_fd < 0) {
		err = bind_listen(d);
		if (err)
			goto out_free;
	} else {
		/* the caller's sockets: the forwarder's own from here on, non-blocking */
		fcntl(d->udp.fd, F_SETFL, fcntl(d->udp.fd, F_GETFL) | O_NONBLOCK);
		fcntl(d->tcp.fd, F_SETFL, fcntl(d->tcp.fd, F_GETFL) | O_NONBLOCK);
	}
	d->local_len = sizeof(d->local);
	if (getsockname(d->udp.fd, (struct sockaddr *)&d->local, &d->local_len)) {
		err = -errno;
		log_warn("dns: cannot read the listening address");
		goto out_free;
	}
	d->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (d->epfd < 0) {
		err = -errno;
		log_warn("dns: epoll_create1");
		goto out_free;
	}
	err = ep_add(d, &d->udp, EPOLLIN);
	if (!err)
		err = ep_add(d, &d->tcp, EPOLLIN);
	if (err) {
		log_warnx("dns: cannot watch the listening sockets: %s", strerror(-err));
		goto out_free;
	}
	*out = d;
	return 0;
out_free:
	wd_dns_free(d);
	return err;
}

void wd_dns_free(struct wd_dns *d)
{
	if (!d)
		return;
	for (size_t i = 0; d->queries && i < d->c.max_pending; i++) {
		if (d->queries[i].used)
			query_done(d, &d->queries[i]);
	}
	for (size_t i = 0; d->clients && i < d->c.max_tcp_clients; i++)
		client_close(d, &d->clients[i]);
	ep_close(&d->udp);
	ep_close(&d->tcp);
	if (d->epfd >= 0)
		close(d->epfd);
	wd_dns_names_free(&d->names);
	free(d->queries);
	free(d->clients);
	free(d);
}

int wd_dns_fd(const struct wd_dns *d)
{
	return d->epfd;
}

void wd_dns_local(const struct wd_dns *d, struct sockaddr_storage *ss, socklen_t *len)
{
	*ss = d->local;
	*len = d->local_len;
}

const struct wd_dns_stats *wd_dns_stats(const struct wd_dns *d)
{
	return &d->st;
}
