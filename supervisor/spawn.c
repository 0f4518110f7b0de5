// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "supervisor/log.h"
#include "supervisor/spawn.h"

/* In the child, between clone3 and execve: async-signal-safe calls only. */
static void __attribute__((noreturn)) child_exec(char *const argv[], int errfd, pid_t parent)
{
	sigset_t all;
	int e;

	sigemptyset(&all);
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigprocmask(SIG_SETMASK, &all, NULL);

	/* Die with warden: the sandbox never runs on unsupervised. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		goto fail;
	/* A new session: no controlling terminal, so TIOCSTI cannot reach the caller's. */
	if (setsid() < 0)
		goto fail;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		goto fail;
	/* Only 0-2 go on: everything else, the error pipe included, closes at exec. */
	if (syscall(SYS_close_range, 3, ~0u, CLOSE_RANGE_CLOEXEC))
		goto fail;
	execvp(argv[0], argv);
fail:
	e = errno;
	if (write(errfd, &e, sizeof(e)) < 0) {
		/* nothing left to tell anyone */
	}
	_exit(127);
}

int wd_spawn(int cgroup_fd, char *const argv[], struct wd_child *child)
{
	struct clone_args args;
	int pipefd[2] = { -1, -1 };
	int pidfd = -1, e = 0, err = 0;
	pid_t parent = getpid();
	ssize_t n;
	long pid;

	memset(child, 0, sizeof(*child));
	child->pidfd = -1;
	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;

	memset(&args, 0, sizeof(args));
	args.flags = CLONE_INTO_CGROUP | CLONE_PIDFD;
	args.pidfd = (uint64_t)(uintptr_t)&pidfd;
	args.exit_signal = SIGCHLD;
	args.cgroup = (uint64_t)cgroup_fd;

	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid < 0) {
		err = -errno;
		log_warn("spawn: clone3 into the sandbox cgroup failed");
		goto out_close;
	}
	if (pid == 0) {
		close(pipefd[0]);
		child_exec(argv, pipefd[1], parent);
	}
	close(pipefd[1]);
	pipefd[1] = -1;
	child->pid = (pid_t)pid;
	child->pidfd = pidfd;

	/* EOF: execve succeeded (the pipe was close-on-exec); otherwise the child says why. */
	do {
		n = read(pipefd[0], &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	child->exec_errno = n == sizeof(e) ? e : 0;

out_close:
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	return err;
}
