// SPDX-License-Identifier: GPL-2.0
/*
 * A test DNS client (ldns), for tests/integration/t_dns.sh and t_netmode.sh (their server is
 * Debian's dnsmasq: lib.sh testnet_dns).
 *
 *   wd-dns query udp|udpu|tcp SERVER NAME [TYPE] ask SERVER:53 (TYPE A or AAAA); print the
 *                                               addresses, one per line, or the rcode's name;
 *                                               udpu: unconnected (sendto), and the reply must
 *                                               come from SERVER:53 ("SOURCE addr" if not);
 *                                               SERVER#PORT asks that port instead
 *   wd-dns peer SERVER                          connect a UDP socket to SERVER:53 and print
 *                                               the peer the kernel gave it ("ADDR:PORT"; in
 *                                               a sandbox with names, its forwarder's)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <ldns/ldns.h>

static int sa_of(const char *addr, int port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		*len = sizeof(*s4);
		return 0;
	}
	if (inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		*len = sizeof(*s6);
		return 0;
	}
	return -1;
}

/* The reply to @q (wire, @n bytes) into a malloc'd wire buffer; NULL to drop it. */
static int server_of(const char *arg, struct sockaddr_storage *ss, socklen_t *len)
{
	char addr[INET6_ADDRSTRLEN + 8];
	const char *hash = strchr(arg, '#');
	int port = 53;

	snprintf(addr, sizeof(addr), "%s", arg);
	if (hash) {
		addr[hash - arg] = 0;
		port = atoi(hash + 1);
	}
	return sa_of(addr, port, ss, len);
}

static int peer(const char *server)
{
	struct sockaddr_storage ss, p;
	socklen_t len, pl = sizeof(p);
	char a[INET6_ADDRSTRLEN] = "";
	int fd;

	if (server_of(server, &ss, &len) || ss.ss_family != AF_INET)
		return 2;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&ss, len) ||
	    getpeername(fd, (struct sockaddr *)&p, &pl)) {
		printf("%s\n", strerrorname_np(errno));
		return 1;
	}
	inet_ntop(AF_INET, &((struct sockaddr_in *)&p)->sin_addr, a, sizeof(a));
	printf("%s:%u\n", a, ntohs(((struct sockaddr_in *)&p)->sin_port));
	return 0;
}

static int query(int argc, char **argv)
{
	bool tcp = !strcmp(argv[2], "tcp"), unconnected = !strcmp(argv[2], "udpu");
	ldns_rr_type type = argc > 5 && !strcmp(argv[5], "AAAA") ? LDNS_RR_TYPE_AAAA
								    : LDNS_RR_TYPE_A;
	struct sockaddr_storage ss;
	ldns_pkt *q = NULL, *r = NULL;
	uint8_t *wire, buf[65535];
	size_t wl, n = 0;
	socklen_t len;
	ssize_t k;
	int fd;

	if (server_of(argv[3], &ss, &len))
		return 2;
	if (ldns_pkt_query_new_frm_str(&q, argv[4], type, LDNS_RR_CLASS_IN, LDNS_RD) !=
	    LDNS_STATUS_OK)
		return 2;
	ldns_pkt_set_random_id(q);
	if (ldns_pkt2wire(&wire, q, &wl) != LDNS_STATUS_OK)
		return 2;
	fd = socket(ss.ss_family, tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
	if (fd >= 0 && unconnected) {
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		char fa[INET6_ADDRSTRLEN] = "";

		if (sendto(fd, wire, wl, 0, (struct sockaddr *)&ss, len) != (ssize_t)wl) {
			printf("%s\n", strerrorname_np(errno));
			return 1;
		}
		if (poll(&pfd, 1, 10000) != 1) {
			printf("TIMEOUT\n");
			return 1;
		}
		k = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
		n = k > 0 ? (size_t)k : 0;
		if (fl != len || memcmp(&from, &ss, len)) {
			inet_ntop(from.ss_family, from.ss_family == AF_INET
				  ? (void *)&((struct sockaddr_in *)&from)->sin_addr
				  : (void *)&((struct sockaddr_in6 *)&from)->sin6_addr, fa, sizeof(fa));
			printf("SOURCE %s:%u\n", fa, ntohs(((struct sockaddr_in *)&from)->sin_port));
			return 1;
		}
		goto parse;
	}
	if (fd < 0 || connect(fd, (struct sockaddr *)&ss, len)) {
		printf("%s\n", strerrorname_np(errno));
		return 1;
	}
	if (tcp) {
		uint8_t lenb[2] = { (uint8_t)(wl >> 8), (uint8_t)wl };

		if (write(fd, lenb, 2) != 2 || write(fd, wire, wl) != (ssize_t)wl)
			return 1;
		while (n < 2 && (k = read(fd, buf + n, 2 - n)) > 0)
			n += (size_t)k;
		if (n < 2) {
			printf("EOF\n");
			return 1;
		}
		wl = (size_t)buf[0] << 8 | buf[1];
		n = 0;
		while (n < wl && (k = read(fd, buf + n, wl - n)) > 0)
			n += (size_t)k;
	} else {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		if (write(fd, wire, wl) != (ssize_t)wl) {
			printf("%s\n", strerrorname_np(errno));
			return 1;
		}
		if (poll(&pfd, 1, 10000) != 1) {
			printf("TIMEOUT\n");
			return 1;
		}
		k = recv(fd, buf, sizeof(buf), 0);
		n = k > 0 ? (size_t)k : 0;
	}
parse:
	if (ldns_wire2pkt(&r, buf, n) != LDNS_STATUS_OK) {
		printf("MALFORMED\n");
		return 1;
	}
	if (ldns_pkt_get_rcode(r) != LDNS_RCODE_NOERROR) {
		ldns_lookup_table *lt = ldns_lookup_by_id(ldns_rcodes, ldns_pkt_get_rcode(r));

		printf("%s\n", lt ? lt->name : "RCODE");
		return 0;
	}
	for (size_t i = 0; i < ldns_pkt_ancount(r); i++) {
		ldns_rr *rr = ldns_rr_list_rr(ldns_pkt_answer(r), i);

		if (ldns_rr_get_type(rr) == type) {
			char *s = ldns_rdf2str(ldns_rr_rdf(rr, 0));

			printf("%s\n", s);
			free(s);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "query"))
		return query(argc, argv);
	if (argc == 3 && !strcmp(argv[1], "peer"))
		return peer(argv[2]);
	fprintf(stderr, "usage: wd-dns query udp|udpu|tcp SERVER[#PORT] NAME [A|AAAA] | "
			"peer SERVER\n");
	return 2;
}
