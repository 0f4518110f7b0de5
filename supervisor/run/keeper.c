// SPDX-License-Identifier: GPL-2.0
/*
 * The keeper (supervisor/run/keeper.h), warden's side: starting warden-keeper (tools/warden-keeper.c,
 * the process that ends the sandbox if warden dies, or keeps it, held calls held, for a successor),
 * telling it what it must know, and `warden adopt` taking a sandbox over from it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "policy/grow.h"
#include "supervisor/ipc/rundir.h"
#include "supervisor/ipc/sock.h"
#include "supervisor/run/keeper.h"
#include "supervisor/util/beside.h"
#include "supervisor/util/log.h"

static int keep_path(char *buf, size_t bufsz, const char *name)
{
	return wd_run_sock_path(buf, bufsz, WD_SOCK_KEEPER, name);
}

ssize_t wd_keep_send(int sock, char type, const void *data, size_t len, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov[2] = { { .iov_base = &type, .iov_len = 1 },
				{ .iov_base = (void *)data, .iov_len = len } };
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };

	if (fd >= 0) {
		struct cmsghdr *c;

		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL);
}

ssize_t wd_keep_recv(int sock, char *buf, size_t bufsz, int *fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = buf, .iov_len = bufsz };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	ssize_t n;

	*fd = -1;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	c = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL;
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
		memcpy(fd, CMSG_DATA(c), sizeof(int));
	if (n > 0 && (msg.msg_flags & MSG_TRUNC)) {
		if (*fd >= 0)
			close(*fd);
		errno = EMSGSIZE;
		return -1;
	}
	return n;
}

/*
 * A datagram of a unix socket must fit its sender's buffer (about 200 KiB by default): room for
 * the largest state, a policy of up to WD_KEEP_STATE_MAX. Root may set it past the sysctl cap.
 */
void wd_keep_room_for_state(int sock)
{
	int size = 2 * WD_KEEP_STATE_MAX;

	if (setsockopt(sock, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)))
		setsockopt(sock, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
}

/*
 * What of this process's fds keeps the sandbox confined and recorded: the backend's kernel
 * objects (BPF links, programs and maps, perf events), open in it now. The keeper holds them too,
 * so that enforcement stays attached if warden dies; nothing else of warden's goes to it.
 */
static int held_fds(int **out, size_t *n)
{
	static const char *const kinds[] = { "anon_inode:bpf", "anon_inode:[perf_event]" };
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int err = 0;

	*out = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char path[64], target[64];
		int fd = atoi(e->d_name);
		ssize_t len;
		bool held = false;

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		len = readlink(path, target, sizeof(target) - 1);
		if (len < 0)
			continue;
		target[len] = 0;
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			held |= strncmp(target, kinds[i], strlen(kinds[i])) == 0;
		if (!held)
			continue;
		if (WD_GROW(*out, *n)) {
			err = -ENOMEM;
			break;
		}
		(*out)[(*n)++] = fd;
	}
	closedir(d);
	if (err) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return err;
}

/*
 * In the child, between fork and execveat: async-signal-safe calls only. Each of @src[0..@n)
 * becomes fd i (copied above @n first, so that none is overwritten before it is copied), every
 * other fd closes at the exec.
 */
static void __attribute__((noreturn)) exec_keeper(int prog, int *src, int n, char *const argv[],
						   int errfd)
{
	char *envp[] = { NULL };
	int err;

	/*
	 * Out of warden's session and process group before anything else: warden may be a
	 * session leader (on a terminal), and its death hangs up its foreground group. A keeper
	 * still starting then would die of that SIGHUP with the sandbox it is there to keep.
	 */
	if (setsid() < 0)
		goto fail;
	prog = fcntl(prog, F_DUPFD_CLOEXEC, n);
	if (prog >= 0)
		errfd = fcntl(errfd, F_DUPFD_CLOEXEC, n);
	for (int i = 0; prog >= 0 && errfd >= 0 && i < n; i++) {
		src[i] = fcntl(src[i], F_DUPFD_CLOEXEC, n);
		if (src[i] < 0)
			goto fail;
	}
	if (prog < 0 || errfd < 0)
		goto fail;
	for (int i = 0; i < n; i++)
		if (dup2(src[i], i) < 0)
			goto fail;
	if (syscall(SYS_close_range, n, ~0u, CLOSE_RANGE_CLOEXEC))
		goto fail;
	syscall(SYS_execveat, prog, "", argv, envp, AT_EMPTY_PATH);
fail:
	err = errno;
	if (errfd >= 0 && write(errfd, &err, sizeof(err)) < 0) {
		/* nothing left to tell anyone */
	}
	_exit(127);
}

/*
 * vfork, and exec_keeper in the child: the keeper is exec'd at once, so copying the
 * supervisor's page tables (and faulting on each page it writes after) would be for nothing, and
 * the caller waits for the exec anyway. The child only makes system calls and writes its own
 * frame and @src (which the caller only frees). The child's pid, or -1 (errno).
 */
static pid_t __attribute__((noinline)) spawn_exec_keeper(int prog, int *src, int n,
							  char *const argv[], int errfd)
{
	pid_t pid = vfork();

	if (pid == 0)
		exec_keeper(prog, src, n, argv, errfd);
	return pid;
}

/*
 * Fork and exec warden-keeper with its fds in place (see WD_KEEPER_*_FD); -errno if it could
 * not be exec'd. @named is the successors' socket, or -1.
 */
static int spawn_keeper(struct wd_keeper *k, const struct wd_cgroup *cg, unsigned int survive_s,
			const char *path, int named)
{
	char level[12], id[24], survive[12];
	char *argv[] = { "warden-keeper", level, (char *)cg->name, (char *)cg->path, id, survive,
			 (char *)path, NULL };
	int sv[2] = { -1, -1 }, errp[2] = { -1, -1 }, prog, null, *src = NULL, *held = NULL;
	int n = 0, err, status;
	size_t n_held = 0;
	pid_t pid = -1;
	ssize_t r;

	snprintf(level, sizeof(level), "%d", log_level());
	snprintf(id, sizeof(id), "%llu", (unsigned long long)cg->id);
	snprintf(survive, sizeof(survive), "%u", survive_s);
	prog = wd_open_beside_self("warden-keeper");
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (prog < 0 || null < 0) {
		err = prog < 0 ? prog : -errno;
		goto out;
	}
	err = held_fds(&held, &n_held);
	if (err)
		goto out;
	src = calloc(WD_KEEPER_HELD_FD + n_held, sizeof(*src));
	if (!src || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) ||
	    pipe2(errp, O_CLOEXEC)) {
		err = src ? -errno : -ENOMEM;
		goto out;
	}
	/*
	 * stdin and stdout are not the keeper's; our messages' stream stays its stderr, for the one
	 * message that matters (not a terminal that is the command's, as a wardend "pty" run's)
	 */
	src[n++] = null;
	src[n++] = null;
	src[n++] = fcntl(fileno(log_stream()), F_GETFD) >= 0 ? fileno(log_stream()) : null;
	src[n++] = sv[1];
	src[n++] = cg->fd;
	src[n++] = named >= 0 ? named : null;
	for (size_t i = 0; i < n_held; i++)
		src[n++] = held[i];
	pid = spawn_exec_keeper(prog, src, n, argv, errp[1]);
	if (pid < 0) {
		err = -errno;
		goto out;
	}
	close(errp[1]);
	errp[1] = -1;
	/* EOF: the exec went through (the pipe was close-on-exec); else why it did not */
	do
		r = read(errp[0], &err, sizeof(err));
	while (r < 0 && errno == EINTR);
	if (r == sizeof(err)) {
		err = -err;
		log_warnx("keeper: cannot exec warden-keeper: %s", strerror(-err));
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		goto out;
	}
	err = 0;
	wd_keep_room_for_state(sv[0]);
	k->pid = pid;
	k->sock = sv[0];
	sv[0] = -1;
out:
	for (int i = 0; i < 2; i++) {
		if (sv[i] >= 0)
			close(sv[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	if (prog >= 0)
		close(prog);
	if (null >= 0)
		close(null);
	free(held);
	free(src);
	return err;
}

int wd_keeper_start(struct wd_keeper *k, const struct wd_cgroup *cg, unsigned int survive_s)
{
	char path[108] = "";
	int named = -1, err = 0;

	k->pid = -1;
	k->sock = -1;
	if (survive_s) {
		err = keep_path(path, sizeof(path), cg->name);
		if (!err)
			err = wd_run_dir_check(wd_run_dir(), false);
		if (err)
			return err;
		/* The name is there from the start, refusing connections until the supervisor dies. */
		named = wd_sock_bind_name("keeper", path, SOCK_SEQPACKET | SOCK_CLOEXEC, 0600);
		if (named < 0)
			return named;
	}
	err = spawn_keeper(k, cg, survive_s, path, named);
	if (named >= 0) {
		close(named);
		if (err)
			unlink(path);
	}
	return err;
}

int wd_keeper_give(struct wd_keeper *k, enum wd_keep_fd what, int fd)
{
	unsigned char i = (unsigned char)what;

	if (k->sock < 0)
		return -EBADF;
	return wd_keep_send(k->sock, WD_KEEP_MSG_FD, &i, 1, fd) < 0 ? -errno : 0;
}

int wd_keeper_state(struct wd_keeper *k, const char *state)
{
	size_t len = strlen(state);

	if (k->sock < 0)
		return -EBADF;
	if (len > WD_KEEP_STATE_MAX)
		return -E2BIG;
	return wd_keep_send(k->sock, WD_KEEP_MSG_STATE, state, len, -1) < 0 ? -errno : 0;
}

int wd_keeper_journal(struct wd_keeper *k, const struct wd_hold_call *c, bool waiting)
{
	ssize_t n;

	if (k->sock < 0)
		return -EBADF;
	if (waiting)
		n = wd_keep_send(k->sock, WD_KEEP_MSG_WAITS, c, sizeof(*c), -1);
	else
		n = wd_keep_send(k->sock, WD_KEEP_MSG_ANSWERED, &c->notif_id, sizeof(c->notif_id), -1);
	return n < 0 ? -errno : 0;
}

void wd_keeper_stop(struct wd_keeper *k)
{
	if (k->sock < 0)
		return;
	if (wd_keep_send(k->sock, WD_KEEP_MSG_DONE, NULL, 0, -1) < 0)
		log_warn("keeper: cannot tell it the sandbox has ended");
	close(k->sock);
	k->sock = -1;
	while (k->pid > 0 && waitpid(k->pid, NULL, 0) < 0 && errno == EINTR)
		;
	k->pid = -1;
}

int wd_keeper_adopt(const char *name, struct wd_keeper *k, struct wd_adoption *a)
{
	char path[108], *buf = NULL;
	struct wd_peer peer;
	int sock, err;

	memset(a, 0, sizeof(*a));
	for (int i = 0; i < WD_KEEP_NFDS; i++)
		a->fds[i] = -1;
	k->pid = -1;
	k->sock = -1;
	err = keep_path(path, sizeof(path), name);
	if (err)
		return err;
	sock = wd_sock_connect(path, SOCK_SEQPACKET | SOCK_CLOEXEC);
	if (sock < 0)
		return sock;
	/* what hands us a sandbox's fds is a keeper of ours: the same user (the run dir is its) */
	err = wd_peer_read(sock, &peer);
	if (!err && peer.uid != geteuid())
		err = -EPERM;
	if (err)
		goto out;
	buf = malloc(WD_KEEP_STATE_MAX + 1);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}
	for (;;) {
		int fd;
		ssize_t n = wd_keep_recv(sock, buf, WD_KEEP_STATE_MAX + 1, &fd);

		if (n <= 0) {
			err = n < 0 ? -errno : -ECONNRESET;
			goto out;
		}
		if (buf[0] == WD_KEEP_MSG_END)
			break;
		if (buf[0] == WD_KEEP_MSG_FD && fd >= 0 && n == 2 &&
		    (unsigned char)buf[1] < WD_KEEP_NFDS && a->fds[(unsigned char)buf[1]] < 0) {
			a->fds[(unsigned char)buf[1]] = fd;
		} else if (buf[0] == WD_KEEP_MSG_STATE && !a->state) {
			a->state = strndup(buf + 1, (size_t)n - 1);
			if (!a->state) {
				err = -ENOMEM;
				goto out;
			}
		} else if (buf[0] == WD_KEEP_MSG_WAITS && (size_t)n == 1 + sizeof(struct wd_hold_call)) {
			if (WD_GROW(a->calls, a->n_calls)) {
				err = -ENOMEM;
				goto out;
			}
			memcpy(&a->calls[a->n_calls++], buf + 1, sizeof(*a->calls));
		} else if (fd >= 0) {
			close(fd);
		}
	}
	if (!a->state) {
		err = -EPROTO;
		goto out;
	}
	free(buf);
	k->sock = sock;
	return 0;
out:
	free(buf);
	close(sock);
	wd_adoption_free(a);
	return err;
}

void wd_adoption_free(struct wd_adoption *a)
{
	free(a->state);
	free(a->calls);
	for (int i = 0; i < WD_KEEP_NFDS; i++)
		if (a->fds[i] >= 0)
			close(a->fds[i]);
	memset(a, 0, sizeof(*a));
	for (int i = 0; i < WD_KEEP_NFDS; i++)
		a->fds[i] = -1;
}
