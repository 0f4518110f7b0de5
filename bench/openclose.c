// SPDX-License-Identifier: GPL-2.0
/*
 * openclose PATH N [REPS]: the bench's probe of what every syscall costs where it runs: REPS
 * loops (default 1) of N open(PATH, O_RDONLY)+close(), then "wall_ns cpu_ns" per iteration of
 * the fastest loop. cpu_ns is the thread's own CPU time (CLOCK_THREAD_CPUTIME_ID), which leaves
 * out waiting for a core on a loaded machine; both include what the kernel runs on the way (LSM
 * hooks, Landlock, tracepoint programs), which is the point. The fastest of several short loops:
 * load on the machine (or, in a VM, on its host) only ever adds time, so the least is the truest.
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

/* one loop of N; its wall and CPU ns in *wall and *cpu; -1 if PATH does not open */
static int loop(const char *path, long n, long *wall, long *cpu)
{
	long w = clock_ns(CLOCK_MONOTONIC), c = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	int ret = 0;

	for (long i = 0; i < n; i++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			perror(path);
			ret = -1;
			break;
		}
		close(fd);
	}
	*cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c;
	*wall = clock_ns(CLOCK_MONOTONIC) - w;
	return ret;
}

int main(int argc, char **argv)
{
	long n, reps = 1, wall, cpu, best_wall = -1, best_cpu = -1;

	if (argc < 3 || argc > 4 || (n = atol(argv[2])) <= 0 ||
	    (argc == 4 && (reps = atol(argv[3])) <= 0)) {
		fprintf(stderr, "usage: openclose PATH N [REPS]\n");
		return 2;
	}
	/* a first short loop warms the dentry and makes a missing PATH an error, not a figure */
	if (loop(argv[1], 1, &wall, &cpu) < 0)
		return 1;
	for (long r = 0; r < reps; r++) {
		if (loop(argv[1], n, &wall, &cpu) < 0)
			return 1;
		if (best_cpu < 0 || cpu < best_cpu)
			best_cpu = cpu;
		if (best_wall < 0 || wall < best_wall)
			best_wall = wall;
	}
	printf("%.1f %.1f\n", (double)best_wall / n, (double)best_cpu / n);
	return 0;
}
