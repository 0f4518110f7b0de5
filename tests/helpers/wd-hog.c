// SPDX-License-Identifier: GPL-2.0
/*
 * wd-hog: the workloads of the limits tests (tests/integration/t_limits.sh), run inside a
 * sandbox.
 *   alloc                  touch memory 1 MiB at a time, for ever (until the OOM killer)
 *   spin MS                burn CPU on one thread until MS of wall-clock time have passed
 *   forkbomb               fork children that wait, until fork fails; print how many, exit 0
 *   forkloop N [HOW]       try N new processes by fork (or HOW: clone3, spawn: posix_spawn of
 *                          /bin/true, vfork's way), each exiting at once and reaped; print "ok S failed F eagain E ms T":
 *                          successes, failures, EAGAIN ones, time
 *   sleepers N FILE        fork N children that wait; their pids, then "ready", to FILE; wait
 *   trap FILE [stay]       on SIGINT or SIGTERM write "got N" to FILE and exit 0 (with "stay":
 *                          go on waiting); "ready" to FILE once the handlers are in
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void say(const char *file, const char *text)
{
	int fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		_exit(3);
	close(fd);
}

static int alloc(void)
{
	for (;;) {
		char *p = malloc(1 << 20);

		if (!p)
			return 2;
		memset(p, 1, 1 << 20);
	}
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int spin(long ms)
{
	uint64_t end = now_ms() + (uint64_t)ms;
	volatile unsigned long x = 0;

	while (now_ms() < end)
		for (int i = 0; i < 100000; i++)
			x++;
	return 0;
}

static int forkbomb(void)
{
	long n = 0;

	for (;;) {
		pid_t pid = fork();

		if (pid == 0) {
			pause();
			_exit(0);
		}
		if (pid < 0) {
			printf("forked %ld, then: %s\n", n, strerror(errno));
			return 0;
		}
		n++;
	}
}

/*
 * A new process by fork(), clone3() with fork's flags, or posix_spawn() of /bin/true (glibc's is
 * clone with CLONE_VM | CLONE_VFORK, vfork's way): its pid, or -1 with errno set.
 */
static pid_t new_process(const char *how)
{
	struct clone_args ca = { .exit_signal = SIGCHLD };
	char *const argv[] = { "true", NULL };
	pid_t pid;
	int err;

	if (!strcmp(how, "clone3"))
		return (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	if (strcmp(how, "spawn"))
		return fork();
	err = posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ);
	if (err) {
		errno = err;
		return -1;
	}
	return pid;
}

static int forkloop(long n, const char *how)
{
	long ok = 0, failed = 0, eagain = 0;
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		pid_t pid = new_process(how);

		if (pid == 0)
			_exit(0);
		if (pid < 0) {
			failed++;
			eagain += errno == EAGAIN;
			continue;
		}
		ok++;
		waitpid(pid, NULL, 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("ok %ld failed %ld eagain %ld ms %ld\n", ok, failed, eagain,
	       (long)((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000) + 1);
	return 0;
}

static int sleepers(int n, const char *file)
{
	char line[32];

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 2;
		if (pid == 0) {
			for (;;)
				pause();
		}
		snprintf(line, sizeof(line), "%d\n", (int)pid);
		say(file, line);
	}
	snprintf(line, sizeof(line), "%d\n", (int)getpid());
	say(file, line);
	say(file, "ready\n");
	for (;;)
		pause();
	return 0;
}

static const char *trap_file;
static int trap_stay;

static void on_stop(int sig)
{
	char line[32];

	snprintf(line, sizeof(line), "got %d\n", sig);
	say(trap_file, line);
	if (!trap_stay)
		_exit(0);
}

static int trap(const char *file, int stay)
{
	struct sigaction sa = { .sa_handler = on_stop };

	trap_file = file;
	trap_stay = stay;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	say(file, "ready\n");
	for (;;)
		pause();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "alloc"))
		return alloc();
	if (argc >= 3 && !strcmp(argv[1], "spin"))
		return spin(atol(argv[2]));
	if (argc >= 2 && !strcmp(argv[1], "forkbomb"))
		return forkbomb();
	if (argc >= 3 && !strcmp(argv[1], "forkloop"))
		return forkloop(atol(argv[2]), argc >= 4 ? argv[3] : "fork");
	if (argc >= 4 && !strcmp(argv[1], "sleepers"))
		return sleepers(atoi(argv[2]), argv[3]);
	if (argc >= 3 && !strcmp(argv[1], "trap"))
		return trap(argv[2], argc >= 4 && !strcmp(argv[3], "stay"));
	fprintf(stderr, "usage: wd-hog alloc|spin MS|forkbomb|forkloop N [HOW]|sleepers N FILE|"
			"trap FILE [stay]\n");
	return 2;
}
