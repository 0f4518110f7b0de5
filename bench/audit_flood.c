// SPDX-License-Identifier: GPL-2.0
/*
 * The audit flood (bench/rows/audit.sh): run inside a sandbox, it opens a file the policy denies
 * as fast as it can, N times in each of P processes (1 by default), so each call makes one kernel
 * record. It prints "CALLS DENIED NS": the calls made, how many were refused (each one a record),
 * and the wall time of the flood in nanoseconds, from before the first call to after the last.
 *
 *   audit_flood PATH N [P]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* N opens of @path: how many were refused. */
static unsigned long long flood(const char *path, unsigned long long n)
{
	unsigned long long denied = 0;
	int fd;

	for (unsigned long long i = 0; i < n; i++) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
		else if (errno == EACCES || errno == EPERM)
			denied++;
	}
	return denied;
}

int main(int argc, char **argv)
{
	unsigned long long t0, t1, n, denied = 0, d;
	int p = 1, fds[2], status, rc = 0;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: audit_flood PATH N [P]\n");
		return 2;
	}
	n = strtoull(argv[2], NULL, 10);
	if (argc == 4)
		p = atoi(argv[3]);
	if (p < 1 || pipe(fds))
		return 2;
	t0 = now_ns();
	for (int i = 0; i < p; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 2;
		if (pid == 0) {
			d = flood(argv[1], n);
			_exit(write(fds[1], &d, sizeof(d)) == sizeof(d) ? 0 : 1);
		}
	}
	close(fds[1]);
	while (wait(&status) > 0)
		rc |= !WIFEXITED(status) || WEXITSTATUS(status);
	t1 = now_ns();
	while (read(fds[0], &d, sizeof(d)) == sizeof(d))
		denied += d;
	printf("%llu %llu %llu\n", n * (unsigned long long)p, denied, t1 - t0);
	return rc || !denied; /* nothing refused: the policy does not deny PATH, no flood */
}
