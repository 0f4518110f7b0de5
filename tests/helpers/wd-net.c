// SPDX-License-Identifier: GPL-2.0
/*
 * wd-net: one socket operation, one answer, for the network tests (tests/integration/t_net.sh).
 * Prints "ok" and exits 0, or prints the errno name and exits 1; 2 for bad usage.
 *
 *   wd-net connect tcp|udp ADDR PORT  connect (IPv6 when ADDR has a colon); for tcp, reads
 *                             until the server closes
 *   wd-net uring-connect tcp|udp ADDR PORT  the connect through io_uring (IORING_OP_CONNECT);
 *                             the ring refused prints its errno as the call's
 *   wd-net sendto ADDR PORT    one UDP datagram from an unconnected socket
 *   wd-net socket raw|packet|ping|ping6  make such a socket
 *   wd-net bind tcp|udp ADDR PORT  bind (and listen, for tcp); port 0 asks for any
 *   wd-net serve tcp|udp ADDR PORT  a test server: prints "ready", then accepts and closes
 *                             (tcp) or reads datagrams (udp) until killed
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "uring.h"

static int say(int err)
{
	if (!err) {
		puts("ok");
		return 0;
	}
	puts(strerrorname_np(err) ? strerrorname_np(err) : "EUNKNOWN");
	return 1;
}

/* ADDR PORT into @ss; its length, or 0 for a bad address. */
static socklen_t addr_of(const char *a, const char *port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (strchr(a, ':')) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((unsigned short)atoi(port));
		return inet_pton(AF_INET6, a, &s6->sin6_addr) == 1 ? sizeof(*s6) : 0;
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((unsigned short)atoi(port));
		return inet_pton(AF_INET, a, &s4->sin_addr) == 1 ? sizeof(*s4) : 0;
	}
}

static int sock_of(const char *proto, int family)
{
	return socket(family, strcmp(proto, "udp") == 0 ? SOCK_DGRAM : SOCK_STREAM, 0);
}

static int do_connect(const char *proto, const char *a, const char *port)
{
	struct sockaddr_storage ss;
	socklen_t len = addr_of(a, port, &ss);
	char buf[64];
	int fd;

	if (!len)
		return 2;
	fd = sock_of(proto, ss.ss_family);
	if (fd < 0 || connect(fd, (struct sockaddr *)&ss, len))
		return say(errno);
	if (strcmp(proto, "tcp") == 0)
		while (read(fd, buf, sizeof(buf)) > 0)
			;
	return say(0);
}

struct uring_connect {
	int fd;
	const struct sockaddr_storage *ss;
	socklen_t len;
};

static void prep_connect(struct io_uring_sqe *sqe, const void *arg)
{
	const struct uring_connect *c = arg;

	sqe->opcode = IORING_OP_CONNECT;
	sqe->fd = c->fd;
	sqe->addr = (unsigned long)c->ss;
	sqe->off = c->len; /* the address's length goes in off */
}

static int do_uring_connect(const char *proto, const char *a, const char *port)
{
	struct sockaddr_storage ss;
	struct uring_connect c = { .ss = &ss, .len = addr_of(a, port, &ss) };
	int res = 0, err;

	if (!c.len)
		return 2;
	c.fd = sock_of(proto, ss.ss_family);
	if (c.fd < 0)
		return say(errno);
	err = wd_uring_one(prep_connect, &c, &res);
	return say(err ? -err : res < 0 ? -res : 0);
}

static int do_sendto(const char *a, const char *port)
{
	struct sockaddr_storage ss;
	socklen_t len = addr_of(a, port, &ss);
	int fd;

	if (!len)
		return 2;
	fd = socket(ss.ss_family, SOCK_DGRAM, 0);
	if (fd < 0 || sendto(fd, "x", 1, 0, (struct sockaddr *)&ss, len) != 1)
		return say(errno);
	return say(0);
}

static int do_socket(const char *kind)
{
	int fd = -1;

	if (strcmp(kind, "raw") == 0)
		fd = socket(AF_INET, SOCK_RAW, IPPROTO_UDP);
	else if (strcmp(kind, "packet") == 0)
		fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	else if (strcmp(kind, "ping") == 0)
		fd = socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	else if (strcmp(kind, "ping6") == 0)
		fd = socket(AF_INET6, SOCK_DGRAM, IPPROTO_ICMPV6);
	else
		return 2;
	return say(fd < 0 ? errno : 0);
}

static int bound(const char *proto, const char *a, const char *port, int *out)
{
	struct sockaddr_storage ss;
	socklen_t len = addr_of(a, port, &ss);
	int fd, one = 1;

	if (!len)
		return EINVAL;
	fd = sock_of(proto, ss.ss_family);
	if (fd < 0)
		return errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len))
		return errno;
	if (strcmp(proto, "tcp") == 0 && listen(fd, 16))
		return errno;
	*out = fd;
	return 0;
}

static int do_serve(const char *proto, const char *a, const char *port)
{
	char buf[2048];
	int fd, err = bound(proto, a, port, &fd);

	if (err)
		return say(err);
	puts("ready");
	fflush(stdout);
	for (;;) {
		if (strcmp(proto, "tcp") == 0) {
			int c = accept(fd, NULL, NULL);

			if (c >= 0)
				close(c);
		} else if (recv(fd, buf, sizeof(buf), 0) < 0) {
			return say(errno);
		}
	}
}

int main(int argc, char **argv)
{
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 5 && strcmp(argv[1], "connect") == 0)
		return do_connect(argv[2], argv[3], argv[4]);
	if (argc == 5 && strcmp(argv[1], "uring-connect") == 0)
		return do_uring_connect(argv[2], argv[3], argv[4]);
	if (argc == 4 && strcmp(argv[1], "sendto") == 0)
		return do_sendto(argv[2], argv[3]);
	if (argc == 3 && strcmp(argv[1], "socket") == 0)
		return do_socket(argv[2]);
	if (argc == 5 && strcmp(argv[1], "bind") == 0)
		return say(bound(argv[2], argv[3], argv[4], &fd));
	if (argc == 5 && strcmp(argv[1], "serve") == 0)
		return do_serve(argv[2], argv[3], argv[4]);
	fprintf(stderr, "usage: wd-net connect|uring-connect|sendto|socket|bind|serve ...\n");
	return 2;
}
