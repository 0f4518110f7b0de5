// SPDX-License-Identifier: GPL-2.0
/*
 * warden-init: pid 1 of a sandbox's pid namespace. warden execs it (supervisor/sandbox/spawn.c) with an
 * empty environment and two fds: 3, the status channel (a socket whose other end only warden
 * holds), and 4, the ready pipe to the command's process, which waits on it. It makes itself
 * unreadable (not dumpable) and powerless (no capabilities, bounding set emptied), says it is
 * ready, then reaps every process of the namespace; when the command (argv[1], a pid as the
 * namespace sees it) ends, it sends its wait status and exits, and the kernel ends the rest.
 * PID 0: a persistent sandbox's init (docs/control.md#persistent-sandboxes), which has no
 * command of its own: it reaps what the supervisor's execs leave until it is killed.
 *
 *   warden-init PID
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervisor/sandbox/caps.h"

#define STATUS_FD 3
#define READY_FD 4

int main(int argc, char **argv)
{
	sigset_t all;
	pid_t cmd, pid;
	int status;
	char *end;

	/* First: from here on /proc/1/mem, environ, maps and fd are not the command's to read. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		return 127;
	if (argc != 2)
		return 127;
	cmd = (pid_t)strtol(argv[1], &end, 10);
	if (*end || cmd < 0 || cmd == 1)
		return 127;
	prctl(PR_SET_NAME, "warden-init");
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	/*
	 * It needs none: waiting and writing to its own socket take no privilege. The same two
	 * steps as the command's (supervisor/sandbox/caps.c), keeping nothing; with no_new_privs, nothing
	 * gives them back.
	 */
	if (wd_caps_bound(&wd_caps_none) || wd_caps_drop(&wd_caps_none))
		return 127;
	/*
	 * the command runs at the pipe's EOF after the "r": by then this holds fd 3 alone (a
	 * persistent sandbox's has no command waiting, nobody reads)
	 */
	if (cmd && write(READY_FD, "r", 1) != 1)
		return 127;
	close(READY_FD);
	for (;;) {
		pid = waitpid(-1, &status, 0);
		if (pid < 0 && errno == EINTR)
			continue;
		/* a persistent sandbox's init waits for its next exec's leftovers (ECHILD) */
		if (pid < 0 && !cmd) {
			/* the kernel's set of 64: SIGCHLD only (blocked, so it waits pending) */
			unsigned long long chld = 1ull << (SIGCHLD - 1);

			syscall(SYS_rt_sigtimedwait, &chld, NULL, NULL, sizeof(chld));
			continue;
		}
		if (pid < 0)
			return 127;
		if (pid != cmd || !cmd)
			continue;
		if (write(STATUS_FD, &status, sizeof(status)) != sizeof(status))
			return 127;
		return 0;
	}
}
