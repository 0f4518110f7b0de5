/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DNS room: the sandbox's resolver. A forwarder listens on an address of the caller's (UDP and
 * TCP), answers only the names the policy allows, forwards those to upstream and, before the
 * sandbox sees an answer, hands every A and AAAA of the question's CNAME chain to the caller,
 * which puts it into the sandbox's allow set until its TTL plus a grace period. Other names are
 * REFUSED and reported. One thread: the caller polls wd_dns_fd() and calls wd_dns_handle() and
 * wd_dns_tick(); nothing blocks. docs/network.md ("Names") says what is answered and the limits.
 */
#ifndef WD_DNS_FORWARDER_H
#define WD_DNS_FORWARDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "policy/policy.h"

#define WD_DNS_UPSTREAM_MAX 3 /* as resolv.conf's MAXNS */

/* One address of an allowed name, with one rule that matched the question's name. */
struct wd_dns_resolved {
	int family;		 /* AF_INET or AF_INET6 */
	const unsigned char *addr; /* 4 or 16 bytes, network order */
	uint32_t ttl;		 /* the record's, seconds: keep it for ttl + grace */
	const char *name;	 /* the record's owner (a name of the chain), lower case */
	const char *qname;	 /* the question's name */
	const struct wd_net_rule *rule; /* NULL: net.default "allow" */
	bool deny;		 /* @rule is a deny rule for some ports of the name */
};

/* 0 when the address is in the allow set, or -errno: the sandbox then gets SERVFAIL. */
typedef int (*wd_dns_resolved_fn)(const struct wd_dns_resolved *r, void *arg);

enum wd_dns_verdict_kind {
	WD_DNS_ALLOWED = 0, /* forwarded upstream */
	WD_DNS_REFUSED = 1, /* answered REFUSED */
};

/* One query from the sandbox decided: a "dns" record. */
struct wd_dns_event {
	const char *name; /* the question's name, lower case, no trailing dot */
	uint16_t qtype;
	enum wd_dns_verdict_kind verdict;
	const struct wd_net_rule *rule; /* what decided; NULL: the default */
	const char *why;		/* "name", "class", "type" or "cname" (a chain name denied) */
	bool tcp;
};

typedef void (*wd_dns_event_fn)(const struct wd_dns_event *ev, void *arg);

/*
 * Is the querier at @peer (UDP: the datagram's source; TCP: the connection's far end) one the
 * forwarder answers? @local is the forwarder's own address, @tcp the protocol. False: the
 * datagram is dropped, the connection closed, unanswered (counted in `foreign`).
 */
typedef bool (*wd_dns_peer_fn)(const struct sockaddr_storage *peer,
			       const struct sockaddr_storage *local, bool tcp, void *arg);

struct wd_dns_config {
	/*
	 * Where the sandbox's queries arrive: bound sockets (a UDP and a TCP one, made in the
	 * sandbox's network namespace, say), owned by the forwarder from wd_dns_new() on; or, with
	 * both -1, @listen (port 0: one port free for both protocols) bound here.
	 */
	int udp_fd, tcp_fd;
	struct sockaddr_storage listen;
	socklen_t listen_len;
	char bind_dev[16]; /* "" or an interface @listen's sockets are bound to (SO_BINDTODEVICE) */
	struct sockaddr_storage upstream[WD_DNS_UPSTREAM_MAX]; /* port included */
	size_t n_upstream;
	/* the policy's net.allow and net.deny (either may be NULL), and net.default "allow" */
	const struct wd_net_list *allow, *deny;
	bool default_allow;
	unsigned int max_pending;     /* queries waiting for upstream at once */
	unsigned int max_tcp_clients; /* TCP connections from the sandbox at once */
	unsigned int max_tcp_inflight; /* queries waiting on one TCP connection */
	unsigned int attempt_ms;      /* one try at one server */
	unsigned int query_ms;	      /* a query's whole life before SERVFAIL */
	unsigned int tcp_idle_ms;     /* a TCP client with nothing pending is closed after */
	wd_dns_resolved_fn on_resolved;
	wd_dns_event_fn on_event; /* may be NULL */
	wd_dns_peer_fn peer_ok;	  /* may be NULL: every querier answered */
	void *arg;
};

/* Every drop and refusal counted. */
struct wd_dns_stats {
	uint64_t queries;	    /* read from the sandbox, both protocols */
	uint64_t tcp_queries;
	uint64_t allowed;	    /* forwarded */
	uint64_t refused;	    /* answered REFUSED (names, classes, types, chains) */
	uint64_t notimp;	    /* opcodes other than QUERY */
	uint64_t malformed;	    /* answered FORMERR or dropped */
	uint64_t oversize;	    /* queries over WD_DNS_QUERY_MAX, dropped */
	uint64_t busy;		    /* over max_pending or max_tcp_inflight: SERVFAIL */
	uint64_t tcp_rejected;	    /* connections over max_tcp_clients, closed at once */
	uint64_t tcp_closed_bad;    /* connections closed for bad framing or a reply backlog */
	uint64_t tcp_idle;	    /* connections closed idle */
	uint64_t upstream_timeouts; /* tries that had no answer in attempt_ms */
	uint64_t upstream_errors;   /* tries that failed (refused, reset, unreachable) */
	uint64_t upstream_spoofed;  /* answers of the wrong id, question or source: ignored */
	uint64_t upstream_malformed; /* answers ldns could not read: ignored */
	uint64_t upstream_truncated; /* answers with TC: asked again over TCP */
	uint64_t servfail;	    /* queries given up: SERVFAIL */
	uint64_t resolved_failed;   /* the caller could not take an address: SERVFAIL */
	uint64_t resolved;	    /* addresses handed to the caller */
	uint64_t answered;	    /* upstream answers passed to the sandbox */
	uint64_t truncated_to_sandbox; /* too big for its UDP: TC, so it asks over TCP */
	uint64_t send_failed;	    /* replies the sandbox's socket did not take */
	uint64_t foreign;	    /* queries and connections peer_ok refused: not answered */
};

struct wd_dns;

/* Limits and timeouts as docs/network.md ("Names") gives them, no sockets, no rules. */
void wd_dns_config_default(struct wd_dns_config *c);

/*
 * A forwarder for @c (its rules must outlive it). 0 or -errno, with a line logged naming what
 * failed (the address that could not be bound, say).
 */
int wd_dns_new(const struct wd_dns_config *c, struct wd_dns **out);
void wd_dns_free(struct wd_dns *d);

/* The one fd to poll for POLLIN (an epoll set of all the forwarder's sockets). */
int wd_dns_fd(const struct wd_dns *d);
/* Work through what is ready; @now_ms is wd_dns_now_ms(). */
void wd_dns_handle(struct wd_dns *d, uint64_t now_ms);
/* Expire tries, queries and idle connections due by @now_ms. */
void wd_dns_tick(struct wd_dns *d, uint64_t now_ms);
/* Milliseconds until the next deadline (0: now), -1 when nothing waits: a poll timeout. */
int wd_dns_timeout(const struct wd_dns *d, uint64_t now_ms);
uint64_t wd_dns_now_ms(void);

/* The address the forwarder listens on (the port chosen when it was 0). */
void wd_dns_local(const struct wd_dns *d, struct sockaddr_storage *ss, socklen_t *len);
const struct wd_dns_stats *wd_dns_stats(const struct wd_dns *d);

/*
 * The nameservers of a resolv.conf at @path (read by ldns), at most @max into @out with port
 * 53; *@n how many. 0, -ENOENT when the file names none, or -errno.
 */
int wd_dns_upstreams_read(const char *path, struct sockaddr_storage *out, size_t max, size_t *n);

#endif
