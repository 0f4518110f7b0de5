// SPDX-License-Identifier: GPL-2.0
/*
 * The audit flood (bench/rows/audit.sh): run inside a sandbox, it opens a file the policy denies
 * as fast as it can, N times, so each call makes one kernel record. It prints
 * "CALLS DENIED NS": the calls made, how many were refused (each one a record), and the wall time
 * of the flood in nanoseconds.
 *
 *   audit_flood PATH N
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned long long t0, t1, n, denied = 0, i;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: audit_flood PATH N\n");
		return 2;
	}
	n = strtoull(argv[2], NULL, 10);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		fd = open(argv[1], O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
		else if (errno == EACCES || errno == EPERM)
			denied++;
	}
	t1 = now_ns();
	printf("%llu %llu %llu\n", n, denied, t1 - t0);
	return denied ? 0 : 1; /* nothing refused: the policy does not deny PATH, no flood */
}
