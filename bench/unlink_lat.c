// SPDX-License-Identifier: GPL-2.0
/*
 * unlink_lat DIR N: make N files in DIR, then unlink them one by one, timing each call; print the
 * median and the 90th percentile in nanoseconds ("median_ns p90_ns").
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	char path[4096];
	long n, *ns;

	if (argc != 3 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: unlink_lat DIR N\n");
		return 2;
	}
	ns = calloc((size_t)n, sizeof(*ns));
	if (!ns)
		return 1;
	for (long i = 0; i < n; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/f%ld", argv[1], i);
		fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0) {
			perror(path);
			return 1;
		}
		close(fd);
	}
	for (long i = 0; i < n; i++) {
		struct timespec a, b;

		snprintf(path, sizeof(path), "%s/f%ld", argv[1], i);
		clock_gettime(CLOCK_MONOTONIC, &a);
		if (unlink(path)) {
			perror(path);
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		ns[i] = (b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec);
	}
	qsort(ns, (size_t)n, sizeof(*ns), cmp);
	printf("%ld %ld\n", ns[n / 2], ns[n * 9 / 10]);
	return 0;
}
