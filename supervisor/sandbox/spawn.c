// SPDX-License-Identifier: GPL-2.0
/*
 * Starting a command inside its sandbox (supervisor/sandbox/spawn.h): clone3 into the cgroup, the
 * child's set-up in its order, the init of a new pid namespace, and reading how the command ended.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/close_range.h>
#include <linux/sched.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervisor/sandbox/caps.h"
#include "supervisor/sandbox/exit_status.h"
#include "supervisor/util/beside.h"
#include "supervisor/util/fsutil.h"
#include "supervisor/util/log.h"
#include "supervisor/sandbox/spawn.h"

/* What the child reports when it cannot exec: the stage (0 set-up, 1 execve) and errno. */
struct wd_spawn_failure {
	int stage;
	int err;
};

/* The init's fds across its exec (tools/warden-init.c says what it does with them). */
#define INIT_STATUS_FD 3
#define INIT_READY_FD 4

/*
 * pid 1 of the sandbox's pid namespace becomes the init program: a small one of its own, with an
 * empty environment, no fd but its status channel and its ready pipe, and none of warden's
 * memory. This runs before the backend's restrictions and before the cgroup is joined (only the
 * command joins it), so no exec rule of the sandbox applies to it, and it stays outside what the
 * command may reach: Landlock refuses ptrace (so /proc/1/mem, environ, fd and pidfd_getfd) of a
 * task outside the command's domain, the BPF programs of a task outside its cgroup.
 */
static void __attribute__((noreturn)) exec_init(int init, int status, int ready, int errfd,
						 pid_t cmd)
{
	struct wd_spawn_failure f = { .stage = 0 };
	char pid[16], *argv[] = { "warden-init", pid, NULL }, *envp[] = { NULL };
	int i = (int)sizeof(pid) - 1, s, r;

	/* the command's pid, as the init sees it, in decimal: no stdio after fork */
	pid[i] = 0;
	do {
		pid[--i] = (char)('0' + cmd % 10);
		cmd /= 10;
	} while (cmd && i > 0);
	memmove(pid, pid + i, sizeof(pid) - (size_t)i);
	/*
	 * Out of the way of 3 and 4 first (the program itself too: a daemon's opened it early, on
	 * a low number), then there (dup2 leaves them open across exec).
	 */
	init = fcntl(init, F_DUPFD_CLOEXEC, 10);
	s = fcntl(status, F_DUPFD_CLOEXEC, 10);
	r = fcntl(ready, F_DUPFD_CLOEXEC, 10);
	if (init < 0 || s < 0 || r < 0 || dup2(s, INIT_STATUS_FD) < 0 ||
	    dup2(r, INIT_READY_FD) < 0)
		goto fail;
	/* Not even the caller's standard streams: everything else is close-on-exec already. */
	if (syscall(SYS_close_range, 0, 2, 0))
		goto fail;
	syscall(SYS_execveat, init, "", argv, envp, AT_EMPTY_PATH);
fail:
	f.err = errno;
	if (write(errfd, &f, sizeof(f)) < 0) {
		/* nothing left to tell anyone */
	}
	_exit(127);
}

/* In the child: why it could not exec (@stage 0 set-up, 1 execve), to the parent; then it ends. */
static void __attribute__((noreturn)) tell_failure(int errfd, int stage, int err)
{
	struct wd_spawn_failure f = { .stage = stage, .err = err };

	if (write(errfd, &f, sizeof(f)) < 0) {
		/* nothing left to tell anyone */
	}
	_exit(127);
}

/* The child's ends of what it shares with the parent. */
struct child_fds {
	int err; /* why it could not exec */
	int status; /* init reports the command's status (new pid namespace) */
	int ready[2]; /* the init says it is out of reach (read end, write end) */
	int init; /* the init program, opened O_PATH */
	int notify; /* the waiting room's listener goes over it */
	int procs; /* the sandbox's cgroup.procs, when it is joined after the set-up */
	int go; /* the parent's word that it may exec (wd_spawn_opts.before_exec), or -1 */
};

/*
 * In the child, once in the cgroup: the backend, the waiting room, the bounding set, the user,
 * the other capability sets, in this order. Async-signal-safe. 0 or -errno.
 */
static int child_confine(const struct wd_spawn_opts *o, const struct child_fds *fds)
{
	const struct wd_caps_plan *caps = o->plan ? &o->plan->caps : NULL;
	int r = 0;

	if (o->setup)
		r = o->setup(o->setup_ctx);
	if (!r && o->notify)
		r = wd_waiting_room_install(o->notify, fds->notify);
	/* Capabilities, step one: the bounding set, while CAP_SETPCAP is still there. */
	if (!r)
		r = wd_caps_bound(caps);
	if (!r)
		r = wd_setup_child_user(o->plan);
	/* Capabilities, step two: only what the policy keeps, right before execve. */
	if (!r)
		r = wd_caps_drop(caps);
	return r;
}

/*
 * A fork of this process that starts in the cgroup @cgroup_fd (clone3 with CLONE_INTO_CGROUP,
 * 5.7+, older than any kernel with Landlock): it never runs a single instruction outside it,
 * and no cgroup.procs write (a migration, with its lock) is needed. 0 in the child, its pid in
 * the parent, -1 (errno set) on failure.
 */
static pid_t fork_into_cgroup(int cgroup_fd)
{
	struct clone_args args = { .flags = CLONE_INTO_CGROUP, .cgroup = (uint64_t)cgroup_fd,
				   .exit_signal = SIGCHLD };

	return (pid_t)syscall(SYS_clone3, &args, sizeof(args));
}

/*
 * In the child of wd_spawn_begin, confined: the go word that wd_spawn_finish sends, 'g' and the
 * command's arguments (each ending in a NUL) into @buf, with exactly three fds that become its
 * 0, 1 and 2; @argv points into @buf. 0, or -errno (-ESRCH: no word came, the parent gave up).
 * The fds are the host's, opened by the supervisor for this command: nothing of the sandbox's.
 */
static int receive_command(int go, char *buf, size_t size, char **argv)
{
	union {
		char b[CMSG_SPACE(3 * sizeof(int))];
		struct cmsghdr align;
	} c;
	struct iovec iov = { .iov_base = buf, .iov_len = size };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.b,
			    .msg_controllen = sizeof(c.b) };
	struct cmsghdr *h;
	int fds[3] = { -1, -1, -1 }, n = 0, err = 0;
	ssize_t len;

	do {
		len = recvmsg(go, &m, MSG_CMSG_CLOEXEC);
	} while (len < 0 && errno == EINTR);
	if (len <= 0)
		return -ESRCH;
	h = CMSG_FIRSTHDR(&m);
	if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
	    h->cmsg_len == CMSG_LEN(sizeof(fds)))
		memcpy(fds, CMSG_DATA(h), sizeof(fds));
	else
		err = -EPROTO;
	if (!err && ((m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || len < 3 || buf[0] != 'g' ||
		     buf[len - 1] != 0))
		err = -EPROTO;
	for (ssize_t i = 1; !err && i < len; i += (ssize_t)strlen(buf + i) + 1) {
		if (n == WD_SPAWN_ARGC_MAX)
			err = -E2BIG;
		else
			argv[n++] = buf + i;
	}
	argv[n] = NULL;
	/* the received fds are above 2: 0-2 were open (the supervisor's) when they came */
	for (int fd = 0; fd < 3 && !err; fd++)
		if (fds[fd] < 3 || dup2(fds[fd], fd) < 0)
			err = fds[fd] < 3 ? -EPROTO : -errno;
	for (int fd = 0; fd < 3; fd++)
		if (fds[fd] > 2)
			close(fds[fd]);
	return err;
}

/* In the child, between clone3 and execve: async-signal-safe calls only. */
static void __attribute__((noreturn)) child_exec(const struct wd_spawn_opts *o,
						  char *const argv[], const struct child_fds *fds,
						  pid_t parent)
{
	/* a spare's command, received (wd_spawn_begin): in this child's own copy of memory */
	static char cmd_buf[WD_SPAWN_ARGV_MAX + 2];
	static char *cmd_argv[WD_SPAWN_ARGC_MAX + 1];
	int errfd = fds->err;
	pid_t cmd;
	struct wd_spawn_failure f = { .stage = 0 };
	sigset_t all;
	char ready;
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
	for (int fd = 1; fd < 3; fd++)
		if ((o->out_fds & (1u << fd)) && dup2(o->out[fd], fd) < 0)
			goto fail;
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
	/* a persistent sandbox's init has no command: its execs come later (wd_spawn_enter) */
	if ((o->clone_flags & CLONE_NEWPID) && o->persistent)
		exec_init(fds->init, fds->status, fds->ready[1], errfd, 0);
	if (o->clone_flags & CLONE_NEWPID) {
		/*
		 * Here, before the cgroup and the backend: this process stays pid 1 and becomes
		 * the init (exec_init); its child, born in the cgroup (so the init never is),
		 * goes on to be the command.
		 */
		cmd = fork_into_cgroup(o->cgroup_fd);
		if (cmd < 0)
			goto fail;
		if (cmd > 0)
			exec_init(fds->init, fds->status, fds->ready[1], errfd, cmd);
		close(fds->ready[1]);
	} else if (fds->procs >= 0 && write(fds->procs, "0", 1) != 1) {
		goto fail;
	}
	/* the command's process, in its cgroup: its v1 cgroups and rlimits, before the backend */
	r = o->join ? o->join(o->join_ctx) : 0;
	if (!r)
		r = child_confine(o, fds);
	if (r) {
		errno = -r;
		goto fail;
	}
	/*
	 * The command runs only once the init says it is out of its reach (not dumpable, no
	 * capabilities). Until then this process is warden's code alone, so it confines itself
	 * while the init execs, on the other CPU where there is one.
	 */
	if (o->clone_flags & CLONE_NEWPID) {
		do {
			r = (int)read(fds->ready[0], &ready, 1);
		} while (r < 0 && errno == EINTR);
		/* no word: the init failed (an exec failure it said first), or was killed */
		if (r != 1 || ready != 'r') {
			errno = ESRCH;
			goto fail;
		}
		/*
		 * ...and once it closed its end: the command sees the init hold its status
		 * channel and nothing else (it writes, then closes, and the command could run in
		 * between).
		 */
		do {
			r = (int)read(fds->ready[0], &ready, 1);
		} while (r < 0 && errno == EINTR);
		if (r != 0) {
			errno = ESRCH;
			goto fail;
		}
	}
	/* the parent's word that it may run the command (EOF: it died, or gave up on it) */
	if (fds->go >= 0 && !argv) {
		r = receive_command(fds->go, cmd_buf, sizeof(cmd_buf), cmd_argv);
		if (r) {
			errno = -r;
			goto fail;
		}
		argv = cmd_argv;
	} else if (fds->go >= 0) {
		do {
			r = (int)read(fds->go, &ready, 1);
		} while (r < 0 && errno == EINTR);
		if (r != 1) {
			errno = ESRCH;
			goto fail;
		}
	}
	f.stage = 1;
	execvp(argv[0], argv);
fail:
	tell_failure(errfd, f.stage, errno);
}

/*
 * In the confined child of a transfer: the copy (never following a symlink at the path's end;
 * one before it is the sandbox's rules' to refuse, as for any of its commands), of a regular
 * file only: a FIFO or a device the sandbox put at the path would hold the copy (and the
 * request) up for as long as it liked. 0 or an errno.
 */
static int copy_file(const struct wd_spawn_opts *o)
{
	bool put = o->transfer == WD_TRANSFER_PUT;
	int flags = O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
	int fd = put ? open(o->transfer_path, O_WRONLY | O_CREAT | flags, o->transfer_mode) :
		       open(o->transfer_path, O_RDONLY | flags);
	int from = put ? 0 : fd, to = put ? fd : 1;
	char buf[16384];
	struct stat st;

	if (fd < 0)
		return errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return fstat(fd, &st) ? errno : EINVAL;
	/* regular: truncated only now (O_TRUNC would have cut a file it then refused), blocking */
	if (fcntl(fd, F_SETFL, 0) || (put && ftruncate(fd, 0)))
		return errno;
	for (;;) {
		ssize_t n = read(from, buf, sizeof(buf)), w;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			break;
		for (ssize_t off = 0; off < n; off += w) {
			w = write(to, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				w = 0;
			else if (w < 0)
				return errno;
		}
	}
	return close(fd) ? errno : 0;
}

/*
 * In the child of wd_spawn_enter, born in the sandbox's pid namespace (not yet its cgroup): the
 * rest of the sandbox's namespaces, then what child_exec does once its own are made.
 * Async-signal-safe calls only.
 */
static void __attribute__((noreturn)) child_enter(const struct wd_spawn_opts *o,
						   char *const argv[], int errfd, int procs,
						   int notify)
{
	struct child_fds fds = { .err = errfd, .status = -1, .ready = { -1, -1 }, .init = -1,
				 .notify = notify, .procs = -1, .go = -1 };
	struct wd_spawn_failure f = { .stage = 0 };
	sigset_t all;
	int r;

	/*
	 * Visible in the sandbox's /proc before it is confined, with the supervisor's fds: not
	 * dumpable, so no task there (no CAP_SYS_PTRACE) may trace it or take its fds. The exec
	 * of the command makes it dumpable again.
	 */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		goto fail;
	sigemptyset(&all);
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigprocmask(SIG_SETMASK, &all, NULL);
	/* the supervisor's death ends the command: its keeper ends the rest */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || setsid() < 0)
		goto fail;
	if (o->in_fd >= 0 && dup2(o->in_fd, 0) < 0)
		goto fail;
	for (int fd = 1; fd < 3; fd++)
		if ((o->out_fds & (1u << fd)) && dup2(o->out[fd], fd) < 0)
			goto fail;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_close_range, 3, ~0u, CLOSE_RANGE_CLOEXEC))
		goto fail;
	/* its mounts, host name, IPC and network: the init's (its root and cwd are reset) */
	if (o->enter_ns && setns(o->enter_pidfd, (int)o->enter_ns))
		goto fail;
	if (chdir(o->enter_cwd ? o->enter_cwd : "/"))
		goto fail;
	/*
	 * Only now into the cgroup: bpf-lsm refuses a sandbox's task the privilege setns needs.
	 * Until here this process ran warden's code alone, outside the sandbox's reach.
	 */
	if (write(procs, "0", 1) != 1)
		goto fail;
	r = o->join ? o->join(o->join_ctx) : 0;
	if (!r)
		r = child_confine(o, &fds);
	if (r) {
		errno = -r;
		goto fail;
	}
	if (o->transfer) {
		/* confined: it started (the error pipe's EOF says so), the copy's end is its status */
		close(errfd);
		_exit(copy_file(o) & 0xff);
	}
	f.stage = 1;
	execvp(argv[0], argv);
fail:
	tell_failure(errfd, f.stage, errno);
}

/*
 * The child's word on its error pipe @errfd: EOF, execve succeeded (the pipe was
 * close-on-exec); otherwise why it failed, into @child. The exec itself may wait in the
 * waiting room meanwhile: it is answered.
 */
/*
 * The child's waiting room, from the pair @notifyfd (its end closed here): in child->notify_fd
 * and handed to o->notify_attach. An error means the child failed first: its error pipe says why.
 */
static void take_room(const struct wd_spawn_opts *o, struct wd_child *child, int notifyfd[2])
{
	close(notifyfd[1]);
	notifyfd[1] = -1;
	child->notify_fd = wd_waiting_room_receive(notifyfd[0]);
	if (child->notify_fd >= 0 && o->notify_attach)
		o->notify_attach(o->notify_ctx, child->notify_fd);
}

static void await_exec(const struct wd_spawn_opts *o, struct wd_child *child, int errfd)
{
	struct wd_spawn_failure f = { 0 };
	ssize_t n;

	for (;;) {
		struct pollfd pfd[64] = { { .fd = errfd, .events = POLLIN } };
		int watch[63], m = 0;

		if (child->notify_fd >= 0 && o->notify_fds && o->notify_service)
			m = o->notify_fds(o->notify_ctx, watch, 63);
		for (int i = 0; i < m; i++)
			pfd[i + 1] = (struct pollfd){ .fd = watch[i], .events = POLLIN };
		if (m && poll(pfd, (nfds_t)m + 1, -1) >= 0 && !pfd[0].revents) {
			o->notify_service(o->notify_ctx);
			continue;
		}
		n = read(errfd, &f, sizeof(f));
		if (n >= 0 || errno != EINTR)
			break;
	}
	if (n == sizeof(f) && f.stage == 0)
		child->setup_errno = f.err ? f.err : EIO;
	else if (n == sizeof(f))
		child->exec_errno = f.err ? f.err : EIO;
}

int wd_spawn_enter(const struct wd_spawn_opts *o, char *const argv[], struct wd_child *child)
{
	struct clone_args args = { .flags = CLONE_PIDFD, .exit_signal = SIGCHLD };
	int pipefd[2], notifyfd[2] = { -1, -1 }, pidfd = -1, own, procs, err = 0;
	long pid;

	wd_child_init(child);
	/* where this thread's children are born now, to come back to */
	own = open("/proc/thread-self/ns/pid_for_children", O_RDONLY | O_CLOEXEC);
	if (own < 0)
		return -errno;
	procs = openat(o->cgroup_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
	if (procs < 0 || pipe2(pipefd, O_CLOEXEC)) {
		err = -errno;
		if (procs >= 0)
			close(procs);
		close(own);
		return err;
	}
	/* a waiting room of its own (a persistent sandbox's exec): its listener comes over it */
	if (o->notify && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, notifyfd)) {
		err = -errno;
		goto out;
	}
	/* born in the sandbox's pid namespace (the parent cannot join it; its children can) */
	if (setns(o->enter_pidfd, CLONE_NEWPID)) {
		err = -errno;
		goto out;
	}
	args.pidfd = (uint64_t)(uintptr_t)&pidfd;
	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid == 0) {
		close(pipefd[0]);
		if (notifyfd[0] >= 0)
			close(notifyfd[0]);
		child_enter(o, argv, pipefd[1], procs, notifyfd[1]);
	}
	if (pid < 0)
		err = -errno;
	/* back, whatever happened: this thread's later children are the host's again */
	if (setns(own, CLONE_NEWPID) && !err)
		err = -errno;
	if (pid < 0)
		goto out;
	close(pipefd[1]);
	pipefd[1] = -1;
	child->pid = (pid_t)pid;
	child->pidfd = pidfd;
	if (o->notify)
		take_room(o, child, notifyfd);
	await_exec(o, child, pipefd[0]);
	if (o->notify && child->notify_fd < 0 && !child->setup_errno && !child->exec_errno)
		child->setup_errno = -child->notify_fd;
out:
	close(own);
	close(procs);
	for (int i = 0; i < 2; i++) {
		if (pipefd[i] >= 0)
			close(pipefd[i]);
		if (notifyfd[i] >= 0)
			close(notifyfd[i]);
	}
	return err;
}

/* warden-init opened once by a daemon (wd_spawn_preload), for it and the supervisors it forks. */
static int init_preloaded = -1;

int wd_spawn_preload(void)
{
	int fd = init_preloaded >= 0 ? init_preloaded : wd_open_beside_self("warden-init");

	if (fd >= 0)
		init_preloaded = fd;
	return fd < 0 ? fd : 0;
}

/* wd_spawn up to the command's exec: its child waits for the go word (@argv NULL: for it too). */
static int spawn_begin(const struct wd_spawn_opts *o, char *const argv[], struct wd_child *child,
		       struct wd_spawn_pending *pending)
{
	struct clone_args args;
	int pipefd[2] = { -1, -1 }, statusfd[2] = { -1, -1 }, notifyfd[2] = { -1, -1 };
	int readyfd[2] = { -1, -1 }, gofd[2] = { -1, -1 };
	bool newpid = o->clone_flags & CLONE_NEWPID;
	struct child_fds fds;
	int pidfd = -1, procs = -1, init = -1, err = 0, one = 1;
	pid_t parent = getpid();
	long pid;

	wd_child_init(child);
	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	if (o->notify && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, notifyfd)) {
		err = -errno;
		goto out_close;
	}
	/* a socket: the word is sent with MSG_NOSIGNAL, whether or not the child still listens */
	if (o->before_exec && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, gofd)) {
		err = -errno;
		goto out_close;
	}
	/*
	 * The init's status channel is a socket, not a pipe: nothing can open it again through
	 * /proc/1/fd (ENXIO), and with SO_PASSCRED the kernel names the sender of what is read.
	 */
	if (newpid && (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, statusfd) ||
		       setsockopt(statusfd[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) ||
		       pipe2(readyfd, O_CLOEXEC))) {
		err = -errno;
		goto out_close;
	}
	if (newpid) {
		init = init_preloaded >= 0 ? init_preloaded : wd_open_beside_self("warden-init");
		if (init < 0) {
			err = init;
			goto out_close;
		}
	}

	/*
	 * Without an init, a backend that refuses mounts to the sandbox's tasks has the child join
	 * once its mounts are made; otherwise the command is born in the cgroup (with an init,
	 * the init's child: the init stays out of its reach).
	 */
	if (o->join_after_setup && !newpid) {
		procs = openat(o->cgroup_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
		if (procs < 0) {
			err = -errno;
			log_warn("spawn: cannot open the sandbox's cgroup.procs");
			goto out_close;
		}
	}

	memset(&args, 0, sizeof(args));
	args.flags = CLONE_PIDFD | o->clone_flags;
	if (procs < 0 && !newpid) {
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
		if (gofd[0] >= 0)
			close(gofd[0]);
		fds = (struct child_fds){ .err = pipefd[1], .status = statusfd[1],
					  .ready = { readyfd[0], readyfd[1] }, .init = init,
					  .notify = notifyfd[1], .procs = procs, .go = gofd[1] };
		child_exec(o, argv, &fds, parent);
	}
	close(pipefd[1]);
	pipefd[1] = -1;
	/* the ready pipe is the init's and the command's alone: EOF means the init is gone */
	for (int i = 0; i < 2; i++) {
		if (readyfd[i] >= 0)
			close(readyfd[i]);
		readyfd[i] = -1;
	}
	child->status_fd = statusfd[0];
	statusfd[0] = -1;
	child->pid = (pid_t)pid;
	child->pidfd = pidfd;
	if (o->notify)
		take_room(o, child, notifyfd);
	if (o->before_exec) {
		close(gofd[1]);
		gofd[1] = -1;
	}
	pending->err_r = pipefd[0];
	pending->go_w = gofd[0];
	pipefd[0] = gofd[0] = -1;

out_close:
	if (procs >= 0)
		close(procs);
	if (init >= 0 && init != init_preloaded)
		close(init);
	for (int i = 0; i < 2; i++) {
		if (readyfd[i] >= 0)
			close(readyfd[i]);
		if (pipefd[i] >= 0)
			close(pipefd[i]);
		if (statusfd[i] >= 0)
			close(statusfd[i]);
		if (notifyfd[i] >= 0)
			close(notifyfd[i]);
		if (gofd[i] >= 0)
			close(gofd[i]);
	}
	return err;
}

/* The go word: 'g', and for a command not given at the start its arguments and fds 0-2. */
static int send_go(int go, char *const argv[], const int fds[3])
{
	static char buf[WD_SPAWN_ARGV_MAX + 2];
	union {
		char b[CMSG_SPACE(3 * sizeof(int))];
		struct cmsghdr align;
	} c;
	struct iovec iov = { .iov_base = buf, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *h;
	size_t len = 1;
	int n = 0;

	buf[0] = 'g';
	for (; argv && argv[n]; n++) {
		size_t l = strlen(argv[n]) + 1;

		if (n == WD_SPAWN_ARGC_MAX || len + l > WD_SPAWN_ARGV_MAX + 1)
			return -E2BIG;
		memcpy(buf + len, argv[n], l);
		len += l;
	}
	if (argv) {
		if (!n)
			return -EINVAL;
		iov.iov_len = len;
		memset(&c, 0, sizeof(c));
		m.msg_control = c.b;
		m.msg_controllen = sizeof(c.b);
		h = CMSG_FIRSTHDR(&m);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(3 * sizeof(int));
		memcpy(CMSG_DATA(h), fds, 3 * sizeof(int));
	}
	/* a child that failed first has gone: its error pipe says why */
	if (sendmsg(go, &m, MSG_NOSIGNAL) != (ssize_t)len)
		log_debug("spawn: the child went before it was let exec");
	return 0;
}

/* Let the child of spawn_begin exec, and wait until it has (or failed to). */
static int spawn_finish(const struct wd_spawn_opts *o, struct wd_child *child,
			struct wd_spawn_pending *p, char *const argv[], const int fds[3])
{
	int err = 0;

	if (o->before_exec) {
		o->before_exec(o->before_exec_ctx);
		err = send_go(p->go_w, argv, fds);
	}
	wd_fd_close(&p->go_w);
	/* refused (no exec may come): the child reads EOF, fails, and its pipe says so */
	await_exec(o, child, p->err_r);
	wd_fd_close(&p->err_r);
	if (!err && o->notify && child->notify_fd < 0 && !child->setup_errno &&
	    !child->exec_errno)
		child->setup_errno = -child->notify_fd;
	return err;
}

int wd_spawn(const struct wd_spawn_opts *o, char *const argv[], struct wd_child *child)
{
	struct wd_spawn_pending p = { -1, -1 };
	int err = spawn_begin(o, argv, child, &p);

	return err ? err : spawn_finish(o, child, &p, NULL, NULL);
}

int wd_spawn_begin(const struct wd_spawn_opts *o, struct wd_child *child,
		   struct wd_spawn_pending *pending)
{
	*pending = (struct wd_spawn_pending){ -1, -1 };
	if (!o->before_exec)
		return -EINVAL;
	return spawn_begin(o, NULL, child, pending);
}

int wd_spawn_finish(const struct wd_spawn_opts *o, struct wd_child *child,
		    struct wd_spawn_pending *pending, char *const argv[], const int fds[3])
{
	if (!argv || !argv[0])
		return -EINVAL;
	return spawn_finish(o, child, pending, argv, fds);
}

void wd_spawn_abandon(struct wd_spawn_pending *pending)
{
	wd_fd_close(&pending->go_w);
	wd_fd_close(&pending->err_r);
}

int wd_child_wait(struct wd_child *child, siginfo_t *si)
{
	memset(si, 0, sizeof(*si));
	if (waitid(P_PIDFD, (id_t)child->pidfd, si, WEXITED))
		return -errno;
	if (child->status_fd >= 0)
		wd_child_read_status(child->status_fd, child->pid, si);
	return 0;
}

int wd_child_read_status(int status_fd, pid_t init, siginfo_t *si)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(struct ucred))];
	} ctl;
	struct ucred cred;
	struct msghdr msg;
	struct iovec iov;
	int status, err = -ENODATA;
	ssize_t n;

	/*
	 * The init wrote the command's status before it exited, or never will. Only a message
	 * the kernel says the init (@init, as this process sees pids) sent counts: nothing else
	 * should hold the other end, and were it stolen, what it says is not an exit status.
	 */
	for (;;) {
		iov = (struct iovec){ .iov_base = &status, .iov_len = sizeof(status) };
		msg = (struct msghdr){ .msg_iov = &iov,
				       .msg_iovlen = 1,
				       .msg_control = ctl.buf,
				       .msg_controllen = sizeof(ctl.buf) };
		n = recvmsg(status_fd, &msg, MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* the init itself was killed: its own status stands */
		cred.pid = 0;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
			    c->cmsg_len == CMSG_LEN(sizeof(cred)))
				memcpy(&cred, CMSG_DATA(c), sizeof(cred));
			else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
				for (size_t i = 0;
				     i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++)
					close(((int *)CMSG_DATA(c))[i]);
		}
		if (n != sizeof(status) || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
		    init <= 0 || cred.pid != init) {
			log_warnx("spawn: ignored a status from pid %d, not the sandbox's init %d",
				  (int)cred.pid, (int)init);
			continue;
		}
		wd_exit_siginfo_of_wait(status, si);
		err = 0;
		break;
	}
	return err;
}

void wd_child_init(struct wd_child *child)
{
	*child = (struct wd_child){ .pidfd = -1, .status_fd = -1, .notify_fd = -1 };
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
