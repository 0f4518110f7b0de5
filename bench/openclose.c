// SPDX-License-Identifier: GPL-2.0
/*
 * openclose PATH N: the bench's probe of what every syscall costs where it runs: N times
 * open(PATH, O_RDONLY) and close() it, then print "wall_ns cpu_ns" per iteration. cpu_ns is the
 * thread's own CPU time (CLOCK_THREAD_CPUTIME_ID), which on a loaded machine leaves out the time
 * spent waiting for a core; both include what the kernel runs on the way (LSM hooks, Landlock,
 * tracepoint programs), which is the point.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long clock_ns(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return t.tv_sec * 1000000000L + t.tv_nsec;
}

int main(int argc, char **argv)
{
	long n, wall, cpu;

	if (argc != 3 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: openclose PATH N\n");
		return 2;
	}
	/* one call first: the dentry is cached and a missing PATH is an error, not a figure */
	int fd = open(argv[1], O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	close(fd);
	wall = clock_ns(CLOCK_MONOTONIC);
	cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	for (long i = 0; i < n; i++) {
		fd = open(argv[1], O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			perror(argv[1]);
			return 1;
		}
		close(fd);
	}
	cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
	wall = clock_ns(CLOCK_MONOTONIC) - wall;
	printf("%.1f %.1f\n", (double)wall / n, (double)cpu / n);
	return 0;
}
