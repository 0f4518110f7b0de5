// SPDX-License-Identifier: GPL-2.0
/*
 * unlink_lat [--go FIFO] DIR N [at]: make N files in DIR, then unlink them one by one, timing each
 * call; print the median and the 90th percentile in nanoseconds ("median_ns p90_ns"). Each call
 * names its file by absolute path (unlink), or with "at" by bare name in an open DIR, as rm -r
 * does (unlinkat). With --go, the unlinks start only once a byte can be read from FIFO (so a
 * tracer counting the supervisor's syscalls can attach first).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	const char *go = NULL;
	int dfd = -1;

	if (argc > 2 && strcmp(argv[1], "--go") == 0) {
		go = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 3 || argc > 4 || (n = atol(argv[2])) <= 0 ||
	    (argc == 4 && strcmp(argv[3], "at") != 0)) {
		fprintf(stderr, "usage: unlink_lat [--go FIFO] DIR N [at]\n");
		return 2;
	}
	if (argc == 4) {
		dfd = open(argv[1], O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0) {
			perror(argv[1]);
			return 1;
		}
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
	if (go) {
		char byte;
		int gfd = open(go, O_RDONLY | O_CLOEXEC);

		if (gfd < 0 || read(gfd, &byte, 1) != 1) {
			perror(go);
			return 1;
		}
		close(gfd);
	}
	for (long i = 0; i < n; i++) {
		struct timespec a, b;

		if (dfd >= 0)
			snprintf(path, sizeof(path), "f%ld", i);
		else
			snprintf(path, sizeof(path), "%s/f%ld", argv[1], i);
		clock_gettime(CLOCK_MONOTONIC, &a);
		if (dfd >= 0 ? unlinkat(dfd, path, 0) : unlink(path)) {
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
