// SPDX-License-Identifier: GPL-2.0
/*
 * spawn_time ROUNDS CMD... [:: CMD...]...: the bench's timer of whole commands. Each round
 * fork+execs every CMD once, in turn (A B C, A B C, ...: interleaved, so a burst of load on the
 * shared machine falls on all of them alike), waits for it, and prints one line per round: the
 * wall time of each CMD in microseconds, separated by spaces. Timing from C rather than from a
 * shell, so the shell's own start-up is not in the figure. stdout and stdin of the commands are
 * /dev/null; a command that exits nonzero ends the run with status 1 (a figure of a failed run is
 * no figure).
 *
 * With SPAWN_SETTLE=CMD (a path, no arguments), CMD is run untimed after every timed command:
 * whatever a command left to finish in the background (wardend making its next spare) is done
 * before the next command's clock starts, so it falls on no other command's figure.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CMDS 16

static long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000L + t.tv_nsec;
}

/* run ARGV once; its wall time in ns, or -1 if it could not run or exited nonzero */
static long run_once(char **argv)
{
	long start = now_ns(), ret = -1;
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0) {
		perror("spawn_time: fork");
		goto out;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
		}
		execv(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("spawn_time: waitpid");
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "spawn_time: %s: status 0x%x\n", argv[0], status);
		goto out;
	}
	ret = now_ns() - start;
out:
	return ret;
}

int main(int argc, char **argv)
{
	char **cmds[MAX_CMDS];
	char *settle[] = { getenv("SPAWN_SETTLE"), NULL };
	int ncmds = 0, rc = 0;
	long rounds;

	if (!settle[0])
		settle[0] = "";

	if (argc < 3 || (rounds = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: spawn_time ROUNDS CMD... [:: CMD...]...\n");
		return 2;
	}
	/*
	 * split argv at each "::" in place ("--" is part of many commands): every command is a
	 * NULL-terminated slice
	 */
	cmds[ncmds++] = &argv[2];
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "::") != 0)
			continue;
		if (ncmds == MAX_CMDS || i + 1 == argc) {
			fprintf(stderr, "spawn_time: at most %d commands, none empty\n", MAX_CMDS);
			return 2;
		}
		argv[i] = NULL;
		cmds[ncmds++] = &argv[i + 1];
	}
	for (long r = 0; r < rounds && rc == 0; r++) {
		for (int c = 0; c < ncmds; c++) {
			long ns = run_once(cmds[c]);

			if (ns < 0 || (settle[0][0] && run_once(settle) < 0)) {
				rc = 1;
				break;
			}
			printf("%s%ld", c ? " " : "", ns / 1000);
		}
		if (rc == 0)
			printf("\n");
		fflush(stdout);
	}
	return rc;
}
