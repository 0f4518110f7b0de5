// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper for net.egress_rate (tests/integration/t_rate.sh, bench/rows/net.sh): a TCP
 * receiver that measures what arrives, and a sender that writes as fast as it can. The VM has
 * no python or socat.
 *
 *   wd-rate serve PORTFILE SKIP_MS [N]
 *	listen on 127.0.0.1 (the port written to PORTFILE), take N connections (1), read each to
 *	EOF; print one JSON line: bytes, the rate over [SKIP_MS after the first byte, the last
 *	byte] (so the initial burst is not counted), and that interval
 *   wd-rate send PORT SECONDS [N]
 *	connect to 127.0.0.1:PORT (N times at once, each from a process of its own), write for
 *	SECONDS, wait until the receiver has read it all; print the bytes written
 *   wd-rate connects PORTFILE
 *	accept and close connections until killed
 *   wd-rate connect PORT N
 *	connect and close N times; print how many a second
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* connections at once, each side */
#define WD_RATE_MAX_CONNS 64
/* the sender's send buffer (the kernel doubles it) */
#define WD_RATE_SNDBUF (256 << 10)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* (a backlog as deep as a connect round, so a receiver short of CPU drops no SYN) */
static int listen_lo(const char *portfile)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	char tmp[4096];
	FILE *f;

	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 4096) ||
	    getsockname(s, (struct sockaddr *)&a, &len)) {
		perror("wd-rate: listen");
		exit(1);
	}
	/* written whole and renamed, so a reader never sees half a port */
	snprintf(tmp, sizeof(tmp), "%s.tmp", portfile);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%u\n", ntohs(a.sin_port)) < 0 || fclose(f) || rename(tmp, portfile)) {
		perror(portfile);
		exit(1);
	}
	return s;
}

static int connect_lo(unsigned int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a))) {
		fprintf(stderr, "wd-rate: connect 127.0.0.1:%u: %s\n", port, strerror(errno));
		exit(3);
	}
	return s;
}

/* What arrived: in all, and after the mark (SKIP_MS after the first byte of any connection). */
struct tally {
	uint64_t first, last, mark, total, at_mark, skip_ms;
};

static void count(struct tally *t, size_t n)
{
	uint64_t now = now_ns();

	if (!t->first) {
		t->first = now;
		t->mark = now + t->skip_ms * 1000000ull;
	}
	if (now < t->mark)
		t->at_mark = t->total + n;
	t->total += n;
	t->last = now;
}

static int serve(const char *portfile, uint64_t skip_ms, int n_conns)
{
	static char buf[1 << 16];
	struct pollfd fds[WD_RATE_MAX_CONNS];
	struct tally t = { .skip_ms = skip_ms };
	int l = listen_lo(portfile), open_conns = 0;

	for (int i = 0; i < n_conns; i++) {
		fds[i].fd = accept(l, NULL, NULL);
		fds[i].events = POLLIN;
		if (fds[i].fd < 0) {
			perror("wd-rate: accept");
			return 1;
		}
		open_conns++;
	}
	while (open_conns) {
		if (poll(fds, (nfds_t)n_conns, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("wd-rate: poll");
			return 1;
		}
		for (int i = 0; i < n_conns; i++) {
			ssize_t n;

			if (fds[i].fd < 0 || !fds[i].revents)
				continue;
			n = read(fds[i].fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				perror("wd-rate: read");
				return 1;
			}
			if (n == 0) {
				/* closed here, so the sender's wait for the end returns */
				close(fds[i].fd);
				fds[i].fd = -1;
				open_conns--;
				continue;
			}
			count(&t, (size_t)n);
		}
	}
	if (!t.first || t.last <= t.mark) {
		printf("{\"bytes\":%llu,\"rate\":0,\"interval_s\":0}\n",
		       (unsigned long long)t.total);
		return 0;
	}
	printf("{\"bytes\":%llu,\"counted\":%llu,\"rate\":%.0f,\"interval_s\":%.3f}\n",
	       (unsigned long long)t.total, (unsigned long long)(t.total - t.at_mark),
	       (double)(t.total - t.at_mark) / ((double)(t.last - t.mark) / 1e9),
	       (double)(t.last - t.mark) / 1e9);
	return 0;
}

static int send_for(unsigned int port, uint64_t seconds)
{
	static char buf[1 << 16];
	int s = connect_lo(port);
	uint64_t end = now_ns() + seconds * 1000000000ull, total = 0;

	/*
	 * A send buffer of a fixed size, not autotuned to 4 MiB: what is still queued when the
	 * time is up drains at the limited rate, and eight of them would drain for 16 s.
	 */
	if (setsockopt(s, SOL_SOCKET, SO_SNDBUF, &(int){ WD_RATE_SNDBUF }, sizeof(int))) {
		perror("wd-rate: SO_SNDBUF");
		return 1;
	}
	memset(buf, 'x', sizeof(buf));
	while (now_ns() < end) {
		ssize_t n = write(s, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			perror("wd-rate: write");
			return 1;
		}
		total += (uint64_t)n;
	}
	/*
	 * Wait for the receiver to have it all: what a socket still holds when its process
	 * exits leaves after the sandbox has ended (docs/policy.md, "Egress rate").
	 */
	if (shutdown(s, SHUT_WR)) {
		perror("wd-rate: shutdown");
		return 1;
	}
	while (read(s, buf, sizeof(buf)) > 0)
		;
	close(s);
	printf("%llu\n", (unsigned long long)total);
	return 0;
}

static __attribute__((noreturn)) void accept_loop(const char *portfile)
{
	int l = listen_lo(portfile);

	for (;;) {
		int c = accept(l, NULL, NULL);

		char b;

		/*
		 * The client closes first, with a reset: closing here first would leave this
		 * side in TIME_WAIT for a port the client reuses, and its SYN would wait.
		 */
		if (c >= 0) {
			while (read(c, &b, 1) > 0)
				;
			close(c);
		}
	}
}

static int connect_n(unsigned int port, unsigned long n)
{
	uint64_t t0 = now_ns(), t;

	/* closed with a reset: thousands in TIME_WAIT would make the port search the cost */
	for (unsigned long i = 0; i < n; i++) {
		int s = connect_lo(port);

		setsockopt(s, SOL_SOCKET, SO_LINGER, &(struct linger){ .l_onoff = 1 },
			   sizeof(struct linger));
		close(s);
	}
	t = now_ns() - t0;
	printf("%.0f\n", (double)n / ((double)(t ? t : 1) / 1e9));
	return 0;
}

/* @n senders at once, one connection each: the bytes all of them wrote. */
static int send_many(unsigned int port, uint64_t seconds, int n)
{
	int fds[WD_RATE_MAX_CONNS][2], rc = 0;
	uint64_t total = 0;

	for (int i = 0; i < n; i++) {
		pid_t pid;

		if (pipe(fds[i])) {
			perror("wd-rate: pipe");
			return 1;
		}
		pid = fork();
		if (pid < 0) {
			perror("wd-rate: fork");
			return 1;
		}
		if (pid == 0) {
			close(fds[i][0]);
			dup2(fds[i][1], 1);
			rc = send_for(port, seconds);
			fflush(stdout);
			_exit(rc);
		}
		close(fds[i][1]);
	}
	for (int i = 0; i < n; i++) {
		char line[32] = "";
		FILE *f = fdopen(fds[i][0], "r");

		if (!f || !fgets(line, sizeof(line), f))
			rc = 1;
		total += strtoull(line, NULL, 10);
		if (f)
			fclose(f);
	}
	while (wait(NULL) > 0)
		;
	printf("%llu\n", (unsigned long long)total);
	return rc;
}

static int conns_arg(const char *s)
{
	int n = atoi(s);

	if (n < 1 || n > WD_RATE_MAX_CONNS) {
		fprintf(stderr, "wd-rate: 1 to %d connections\n", WD_RATE_MAX_CONNS);
		exit(2);
	}
	return n;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "serve") == 0)
		return serve(argv[2], strtoull(argv[3], NULL, 10),
			     argc == 5 ? conns_arg(argv[4]) : 1);
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "send") == 0)
		return send_many((unsigned int)strtoul(argv[2], NULL, 10),
				 strtoull(argv[3], NULL, 10), argc == 5 ? conns_arg(argv[4]) : 1);
	if (argc == 3 && strcmp(argv[1], "connects") == 0)
		accept_loop(argv[2]);
	if (argc == 4 && strcmp(argv[1], "connect") == 0)
		return connect_n((unsigned int)strtoul(argv[2], NULL, 10),
				 strtoul(argv[3], NULL, 10));
	fprintf(stderr, "usage: wd-rate serve PORTFILE SKIP_MS [N] | send PORT SECONDS [N] | "
			"connects PORTFILE | connect PORT N\n");
	return 2;
}
