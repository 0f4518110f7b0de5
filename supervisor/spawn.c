// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/sched.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervisor/log.h"
#include "supervisor/spawn.h"

/* What the child reports when it cannot exec: the stage (0 set-up, 1 execve) and errno. */
struct wd_spawn_failure {
	int stage;
	int err;
};

/*
 * pid 1 of the sandbox's pid namespace: reap everything, and when the command ends, report its
 * wait status and end (the kernel then kills what is left in the namespace).
 */
static void __attribute__((noreturn)) init_loop(pid_t cmd, int status_fd)
{
	sigset_t all;
	int status;
	pid_t pid;

	/* ps shows what it is, not the name of the warden it was forked from */
	prctl(PR_SET_NAME, "warden-init");
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	for (;;) {
		pid = waitpid(-1, &status, 0);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			_exit(127);
		if (pid != cmd)
			continue;
		if (write(status_fd, &status, sizeof(status)) != sizeof(status))
			_exit(127);
		_exit(0);
	}
}

/* In the child, between clone3 and execve: async-signal-safe calls only. */
/* The child's ends of what it shares with the parent. */
struct child_fds {
	int err; /* why it could not exec */
	int status; /* init reports the command's status (new pid namespace) */
	int notify; /* the waiting room's listener goes over it */
	int procs; /* the sandbox's cgroup.procs, when it is joined after the set-up */
};

static void __attribute__((noreturn)) child_exec(const struct wd_spawn_opts *o,
						  char *const argv[], const struct child_fds *fds,
						  pid_t parent)
{
	int errfd = fds->err;
	pid_t cmd;
	struct wd_spawn_failure f = { .stage = 0 };
	sigset_t all;
	int r;

	sigemptyset(&all);
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigprocmask(SIG_SETMASK, &all, NULL);

	/*
	 * Die with warden: the sandbox never runs on unsupervised. (In a new pid namespace the parent
	 * is outside it and getppid() says 0; otherwise a changed parent means warden already died.)
	 * A run that is to survive warden is ended by its keeper instead, if nobody takes it over.
	 */
	if (!o->survive && prctl(PR_SET_PDEATHSIG, SIGKILL))
		goto fail;
	if (getppid() != parent && !((o->clone_flags & CLONE_NEWPID) && getppid() == 0)) {
		errno = ESRCH;
		goto fail;
	}
	/* A new session: no controlling terminal, so TIOCSTI cannot reach the caller's. */
	if (setsid() < 0)
		goto fail;
	/*
	 * Its own terminal where the caller has one: on the fds that were the caller's terminal,
	 * and the controlling terminal of the new session, so job control works inside.
	 */
	if (o->tty_fds) {
		for (int fd = 0; fd < 3; fd++)
			if ((o->tty_fds & (1u << fd)) && dup2(o->tty, fd) < 0)
				goto fail;
		if (ioctl(o->tty, TIOCSCTTY, 0) < 0)
			goto fail;
		close(o->tty);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		goto fail;
	/* Only 0-2 go on: everything else, the error pipe included, closes at exec. */
	if (syscall(SYS_close_range, 3, ~0u, CLOSE_RANGE_CLOEXEC))
		goto fail;
	/* Mounts, host name, network: while every privilege is still there. */
	r = wd_setup_child_ns(o->plan, o->clone_flags);
	if (r) {
		errno = -r;
		goto fail;
	}
	if (fds->procs >= 0 && write(fds->procs, "0", 1) != 1)
		goto fail;
	if (o->setup) {
		r = o->setup(o->setup_ctx);
		if (r) {
			errno = -r;
			goto fail;
		}
	}
	if (o->notify) {
		r = wd_notify_install(o->notify, fds->notify);
		if (r) {
			errno = -r;
			goto fail;
		}
	}
	/* Last: the init of a pid namespace runs as the user too. */
	r = wd_setup_child_user(o->plan);
	if (r) {
		errno = -r;
		goto fail;
	}
	if (o->clone_flags & CLONE_NEWPID) {
		cmd = fork();
		if (cmd < 0)
			goto fail;
		if (cmd > 0) {
			/*
			 * The init never execs: it keeps nothing of warden's (its BPF objects, its
			 * sockets, its keeper's line) but the status pipe, moved to fd 3.
			 */
			if (dup2(fds->status, 3) < 0 ||
			    syscall(SYS_close_range, 4, ~0u, 0))
				_exit(127);
			init_loop(cmd, 3);
		}
	}
	f.stage = 1;
	execvp(argv[0], argv);
fail:
	f.err = errno;
	if (write(errfd, &f, sizeof(f)) < 0) {
		/* nothing left to tell anyone */
	}
	_exit(127);
}

int wd_spawn(const struct wd_spawn_opts *o, char *const argv[], struct wd_child *child)
{
	struct clone_args args;
	int pipefd[2] = { -1, -1 }, statusfd[2] = { -1, -1 }, notifyfd[2] = { -1, -1 };
	struct child_fds fds;
	struct wd_spawn_failure f = { 0 };
	int pidfd = -1, procs = -1, err = 0;
	pid_t parent = getpid();
	ssize_t n;
	long pid;

	memset(child, 0, sizeof(*child));
	child->pidfd = -1;
	child->status_fd = -1;
	child->notify_fd = -1;
	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	if (o->notify && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, notifyfd)) {
		err = -errno;
		goto out_close;
	}
	if ((o->clone_flags & CLONE_NEWPID) && pipe2(statusfd, O_CLOEXEC)) {
		err = -errno;
		goto out_close;
	}

	if (o->join_after_setup) {
		procs = openat(o->cgroup_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
		if (procs < 0) {
			err = -errno;
			log_warn("spawn: cannot open the sandbox's cgroup.procs");
			goto out_close;
		}
	}

	memset(&args, 0, sizeof(args));
	args.flags = CLONE_PIDFD | o->clone_flags;
	if (!o->join_after_setup) {
		args.flags |= CLONE_INTO_CGROUP;
		args.cgroup = (uint64_t)o->cgroup_fd;
	}
	args.pidfd = (uint64_t)(uintptr_t)&pidfd;
	args.exit_signal = SIGCHLD;

	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid < 0) {
		err = -errno;
		log_warn("spawn: clone3 into the sandbox cgroup failed");
		goto out_close;
	}
	if (pid == 0) {
		close(pipefd[0]);
		if (statusfd[0] >= 0)
			close(statusfd[0]);
		if (notifyfd[0] >= 0)
			close(notifyfd[0]);
		fds = (struct child_fds){ .err = pipefd[1], .status = statusfd[1],
					  .notify = notifyfd[1], .procs = procs };
		child_exec(o, argv, &fds, parent);
	}
	close(pipefd[1]);
	pipefd[1] = -1;
	child->status_fd = statusfd[0];
	statusfd[0] = -1;
	child->pid = (pid_t)pid;
	child->pidfd = pidfd;
	if (o->notify) {
		close(notifyfd[1]);
		notifyfd[1] = -1;
		/* An error here means the child failed first: the error pipe says why. */
		child->notify_fd = wd_notify_receive(notifyfd[0]);
		if (child->notify_fd >= 0 && o->notify_attach)
			o->notify_attach(o->notify_ctx, child->notify_fd);
	}

	/*
	 * EOF: execve succeeded (the pipe was close-on-exec); otherwise the child says why. The
	 * exec itself may wait in the waiting room meanwhile: answer it.
	 */
	for (;;) {
		struct pollfd pfd[64] = { { .fd = pipefd[0], .events = POLLIN } };
		int watch[63], m = 0;

		if (child->notify_fd >= 0 && o->notify_fds && o->notify_service)
			m = o->notify_fds(o->notify_ctx, watch, 63);
		for (int i = 0; i < m; i++)
			pfd[i + 1] = (struct pollfd){ .fd = watch[i], .events = POLLIN };
		if (m && poll(pfd, (nfds_t)m + 1, -1) >= 0 && !pfd[0].revents) {
			o->notify_service(o->notify_ctx);
			continue;
		}
		n = read(pipefd[0], &f, sizeof(f));
		if (n >= 0 || errno != EINTR)
			break;
	}
	if (n == sizeof(f) && f.stage == 0)
		child->setup_errno = f.err ? f.err : EIO;
	else if (n == sizeof(f))
		child->exec_errno = f.err ? f.err : EIO;

out_close:
	if (procs >= 0)
		close(procs);
	for (int i = 0; i < 2; i++) {
		if (pipefd[i] >= 0)
			close(pipefd[i]);
		if (statusfd[i] >= 0)
			close(statusfd[i]);
		if (notifyfd[i] >= 0)
			close(notifyfd[i]);
	}
	if (!err && o->notify && child->notify_fd < 0 && !child->setup_errno &&
	    !child->exec_errno)
		child->setup_errno = -child->notify_fd;
	return err;
}

int wd_child_wait(struct wd_child *child, siginfo_t *si)
{
	memset(si, 0, sizeof(*si));
	if (waitid(P_PIDFD, (id_t)child->pidfd, si, WEXITED))
		return -errno;
	if (child->status_fd >= 0)
		wd_child_read_status(child->status_fd, si);
	return 0;
}

int wd_child_read_status(int status_fd, siginfo_t *si)
{
	int status;
	ssize_t n;

	/* The init wrote the command's status before it exited, or never will. */
	do {
		n = read(status_fd, &status, sizeof(status));
	} while (n < 0 && errno == EINTR);
	if (n != sizeof(status))
		return -ENODATA; /* the init itself was killed: its own status stands */
	if (WIFEXITED(status)) {
		si->si_code = CLD_EXITED;
		si->si_status = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		si->si_code = WCOREDUMP(status) ? CLD_DUMPED : CLD_KILLED;
		si->si_status = WTERMSIG(status);
	}
	return 0;
}

void wd_child_close(struct wd_child *child)
{
	if (child->notify_fd >= 0)
		close(child->notify_fd);
	child->notify_fd = -1;
	if (child->pidfd >= 0)
		close(child->pidfd);
	if (child->status_fd >= 0)
		close(child->status_fd);
	child->pidfd = -1;
	child->status_fd = -1;
}
