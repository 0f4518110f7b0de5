// SPDX-License-Identifier: GPL-2.0
/*
 * ctl_latency SOCKET N REQUEST: N requests, one at a time, on one connection to a wardend's
 * control socket, each timed from its write to its whole reply line (CLOCK_MONOTONIC). Prints
 * "P50 P99" in microseconds. Exits 1 if a reply is not "ok":true.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static char buf[1 << 20];
	int n = argc == 4 ? atoi(argv[2]) : 0, fd;
	size_t len;
	double *t;

	if (n < 1 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: ctl_latency SOCKET N REQUEST\n");
		return 2;
	}
	t = calloc((size_t)n, sizeof(*t));
	strcpy(sa.sun_path, argv[1]);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (!t || fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("ctl_latency");
		return 1;
	}
	len = strlen(argv[3]);
	for (int i = 0; i < n; i++) {
		size_t have = 0;
		double t0 = now_us();

		if (write(fd, argv[3], len) != (ssize_t)len || write(fd, "\n", 1) != 1)
			return 1;
		/* one reply line; the next request waits for it */
		while (!have || buf[have - 1] != '\n') {
			ssize_t r = read(fd, buf + have, sizeof(buf) - 1 - have);

			if (r <= 0 || have + (size_t)r >= sizeof(buf) - 1)
				return 1;
			have += (size_t)r;
		}
		t[i] = now_us() - t0;
		buf[have] = 0;
		if (!strstr(buf, "\"ok\":true")) {
			fprintf(stderr, "ctl_latency: %s", buf);
			return 1;
		}
	}
	qsort(t, (size_t)n, sizeof(*t), cmp);
	printf("%.1f %.1f\n", t[n / 2], t[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1]);
	return 0;
}
