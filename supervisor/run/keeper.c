// SPDX-License-Identifier: GPL-2.0
/*
 * The keeper (supervisor/run/keeper.h): the process that ends the sandbox if warden dies, or keeps
 * it, held calls held, for a successor (`warden adopt`) and hands it over.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "audit/jsonl.h"
#include "policy/grow.h"
#include "supervisor/hold/holds_socket.h"
#include "supervisor/ipc/rundir.h"
#include "supervisor/ipc/sock.h"
#include "supervisor/run/keeper.h"
#include "supervisor/sandbox/exit_status.h"
#include "supervisor/sandbox/spawn.h"
#include "supervisor/util/log.h"

/*
 * The messages, one per SOCK_SEQPACKET datagram, a type byte first:
 *   supervisor -> keeper: F (+ an fd, its enum wd_keep_fd next), S state, W call waits,
 *                         A call answered, D done
 *   keeper -> successor:  S state, F for each fd, W for each waiting call, E end
 */
enum {
	KEEP_FD = 'F',
	KEEP_STATE = 'S',
	KEEP_WAITS = 'W',
	KEEP_ANSWERED = 'A',
	KEEP_DONE = 'D',
	KEEP_END = 'E',
};

#define WD_KEEP_STATE_MAX (1u << 20)

struct keep {
	int sock;
	struct wd_cgroup cg;
	unsigned int survive_s;
	int fds[WD_KEEP_NFDS];
	char *state;
	size_t state_len;
	struct wd_hold_call *calls;
	size_t n_calls;
	char path[108];
	int named; /* bound at path, not listening: refuses successors while a supervisor lives */
};

static int keep_path(char *buf, size_t bufsz, const char *name)
{
	return wd_run_sock_path(buf, bufsz, WD_SOCK_KEEPER, name);
}

static ssize_t send_msg(int sock, char type, const void *data, size_t len, int fd)
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

/* One message into @buf (its type is buf[0]); *fd gets a passed fd or -1. 0 on EOF. */
static ssize_t recv_msg(int sock, char *buf, size_t bufsz, int *fd)
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

static void journal_add(struct keep *kp, const struct wd_hold_call *c)
{
	/* a successor journals again the calls it was handed */
	for (size_t i = 0; i < kp->n_calls; i++)
		if (kp->calls[i].notif_id == c->notif_id)
			return;
	if (WD_GROW(kp->calls, kp->n_calls)) {
		/* the successor would not know of this call: better no successor */
		log_warnx("keeper: out of memory for the journal; no successor will be let in");
		kp->survive_s = 0;
		return;
	}
	kp->calls[kp->n_calls++] = *c;
}

static void journal_remove(struct keep *kp, uint64_t id)
{
	for (size_t i = 0; i < kp->n_calls; i++)
		if (kp->calls[i].notif_id == id) {
			kp->calls[i] = kp->calls[--kp->n_calls];
			return;
		}
}

/*
 * The supervisor has died: listen for a successor until @survive_s have passed. Returns its
 * connection, or -1 when nobody came (or the sandbox emptied meanwhile: *gone).
 */
static int await_successor(struct keep *kp, bool *gone)
{
	struct timespec t0;
	int lsock, events, conn = -1;

	*gone = false;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/*
	 * The name stood, bound and not listening, for as long as the supervisor lived. A
	 * listening socket made under a temporary name replaces it in one rename, so a successor
	 * waiting for the name (inotify) can connect as soon as it sees it.
	 */
	lsock = wd_sock_listen("keeper", kp->path, SOCK_SEQPACKET | SOCK_CLOEXEC, 0600, 4);
	if (lsock < 0)
		return -1;
	if (kp->named >= 0)
		close(kp->named);
	kp->named = -1;
	log_warnx("keeper: the supervisor of sandbox %s ended; its %zu held call(s) stay held "
		  "and the sandbox waits up to %u s for `warden adopt %s`",
		  kp->cg.name, kp->n_calls, kp->survive_s, kp->cg.name);
	events = openat(kp->cg.fd, "cgroup.events", O_RDONLY | O_CLOEXEC);
	while (conn < 0) {
		struct pollfd pfd[2] = { { .fd = lsock, .events = POLLIN },
					 { .fd = events, .events = POLLPRI } };
		struct timespec now;
		long left;
		struct wd_peer cr;

		if (events >= 0 && wd_cgroup_events_empty(events)) {
			*gone = true;
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = (long)kp->survive_s * 1000 -
		       ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0)
			break;
		if (poll(pfd, events >= 0 ? 2 : 1, (int)left) < 0 && errno != EINTR)
			break;
		if (!(pfd[0].revents & POLLIN))
			continue;
		conn = wd_sock_accept(lsock, SOCK_CLOEXEC, &cr);
		if (conn < 0)
			continue;
		/*
		 * The socket is root's alone (mode 0600); the peer's credentials say so again, and
		 * a root process inside a sandbox (which may reach the name) is no successor.
		 */
		if (!wd_peer_is(&cr, geteuid())) {
			log_warnx("keeper: refused a successor for %s (pid %d: not root, or inside "
				  "a sandbox)", kp->cg.name, (int)cr.pid);
			close(conn);
			conn = -1;
		}
	}
	if (events >= 0)
		close(events);
	close(lsock);
	unlink(kp->path);
	if (conn < 0)
		return -1;
	/* bound, not listening, again: a second successor is refused while this one lives */
	kp->named = wd_sock_bind_name("keeper", kp->path, SOCK_SEQPACKET | SOCK_CLOEXEC, 0600);
	if (kp->named < 0)
		kp->named = -1;
	return conn;
}

/*
 * A datagram of a unix socket must fit its sender's buffer (about 200 KiB by default): room for
 * the largest state, a policy of up to WD_KEEP_STATE_MAX. Root may set it past the sysctl cap.
 */
static void room_for_state(int sock)
{
	int size = 2 * WD_KEEP_STATE_MAX;

	if (setsockopt(sock, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)))
		setsockopt(sock, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
}

/* Tell the successor everything; 0, or -1 if it went away meanwhile. */
static int hand_over(struct keep *kp, int conn)
{
	room_for_state(conn);
	if (send_msg(conn, KEEP_STATE, kp->state, kp->state_len, -1) < 0)
		return -1;
	for (unsigned char i = 0; i < WD_KEEP_NFDS; i++)
		if (kp->fds[i] >= 0 && send_msg(conn, KEEP_FD, &i, 1, kp->fds[i]) < 0)
			return -1;
	for (size_t i = 0; i < kp->n_calls; i++)
		if (send_msg(conn, KEEP_WAITS, &kp->calls[i], sizeof(kp->calls[i]), -1) < 0)
			return -1;
	if (send_msg(conn, KEEP_END, NULL, 0, -1) < 0)
		return -1;
	log_info("keeper: sandbox %s taken over with %zu held call(s)", kp->cg.name, kp->n_calls);
	return 0;
}

/*
 * The sandbox ended without a supervisor (@killed: by the keeper): the run's audit stream still
 * ends with an exit record, numbered on from the file, how the command ended where the init
 * said so.
 */
static void write_exit(struct keep *kp, bool killed)
{
	cJSON *st = kp->state ? cJSON_Parse(kp->state) : NULL;
	cJSON *be = cJSON_GetObjectItemCaseSensitive(st, "backend");
	cJSON *pid = cJSON_GetObjectItemCaseSensitive(st, "pid");
	struct wd_audit_ctx actx = { .sandbox = kp->cg.name };
	const char *status = killed ? "killed" : "ended";
	int code = killed ? 128 + SIGKILL : -1, signo = killed ? SIGKILL : 0;
	struct timespec now;
	siginfo_t si = { 0 };
	char *line;
	FILE *f = NULL;
	int fd;

	if (kp->fds[WD_KEEP_AUDIT] < 0 || !cJSON_IsNumber(pid))
		goto out; /* no state, or no stream to end */
	actx.backend = cJSON_IsString(be) ? be->valuestring : "";
	if (kp->fds[WD_KEEP_STATUS] >= 0 &&
	    wd_child_read_status(kp->fds[WD_KEEP_STATUS], (pid_t)pid->valueint, &si) == 0) {
		struct wd_exit_status how = wd_exit_status_of(&si);

		status = how.signo ? "killed" : "completed";
		signo = how.signo;
		code = how.code;
	}
	/* the stream warden opened before the command ran: no name is looked up again */
	fd = fcntl(kp->fds[WD_KEEP_AUDIT], F_DUPFD_CLOEXEC, 3);
	if (fd >= 0) {
		f = fdopen(fd, "a+");
		if (!f)
			f = fdopen(fd, "a"); /* a stream, not a file: write only */
		if (!f)
			close(fd);
	}
	if (!f) {
		log_warn("keeper: cannot append the exit record of %s", kp->cg.name);
		goto out;
	}
	actx.seq = wd_audit_next_seq(f, kp->cg.name);
	clock_gettime(CLOCK_REALTIME, &now);
	line = wd_audit_exit_line(&actx, (uint64_t)now.tv_sec * 1000000000ull +
						 (uint64_t)now.tv_nsec,
				  pid->valueint, status, code, signo);
	if (line)
		fprintf(f, "%s\n", line);
	free(line);
	fclose(f);
out:
	cJSON_Delete(st);
}

/* The keeper's whole life: hold on until told done; if the supervisor dies, hand over or end. */
static void __attribute__((noreturn)) keeper_main(struct keep *kp)
{
	static const int quiet[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP,
				     SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2 };
	char *buf = malloc(WD_KEEP_STATE_MAX + 1);
	bool gone = false;
	int null;

	prctl(PR_SET_NAME, "warden-keeper");
	/* Out of the caller's session: a ^C at its terminal is for warden, not for the keeper. */
	setsid();
	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
		signal(quiet[i], SIG_IGN);
	/* stderr stays, for the one message that matters; stdin and stdout are not ours. */
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		close(null);
	}
	if (!buf)
		kp->survive_s = 0;
	for (;;) {
		int fd;
		ssize_t n = buf ? recv_msg(kp->sock, buf, WD_KEEP_STATE_MAX + 1, &fd) : 0;

		if (n > 0) {
			switch (buf[0]) {
			case KEEP_DONE:
				if (kp->path[0])
					unlink(kp->path);
				_exit(0);
			case KEEP_FD:
				if (fd >= 0 && n == 2 && (unsigned char)buf[1] < WD_KEEP_NFDS) {
					int *slot = &kp->fds[(unsigned char)buf[1]];

					if (*slot >= 0)
						close(*slot);
					*slot = fd;
				} else if (fd >= 0) {
					close(fd);
				}
				continue;
			case KEEP_STATE:
				free(kp->state);
				kp->state_len = (size_t)n - 1;
				kp->state = malloc(kp->state_len + 1);
				if (kp->state) {
					memcpy(kp->state, buf + 1, kp->state_len);
					kp->state[kp->state_len] = 0;
				}
				continue;
			case KEEP_WAITS:
				if ((size_t)n == 1 + sizeof(struct wd_hold_call)) {
					struct wd_hold_call c;

					memcpy(&c, buf + 1, sizeof(c));
					journal_add(kp, &c);
				}
				continue;
			case KEEP_ANSWERED:
				if ((size_t)n == 1 + sizeof(uint64_t)) {
					uint64_t id;

					memcpy(&id, buf + 1, sizeof(id));
					journal_remove(kp, id);
				}
				continue;
			default:
				if (fd >= 0)
					close(fd);
				continue; /* nothing else is ever sent */
			}
		}
		/* EOF (or the socket broke): the supervisor is gone */
		if (kp->survive_s && kp->state) {
			int conn = await_successor(kp, &gone);

			if (conn >= 0 && hand_over(kp, conn) == 0) {
				close(kp->sock);
				kp->sock = conn;
				continue;
			}
			if (conn >= 0)
				close(conn);
		}
		break;
	}
	if (!gone)
		log_warnx("keeper: warden ended while sandbox %s ran; killing the sandbox",
			  kp->cg.name);
	if (kp->path[0])
		unlink(kp->path);
	/* Held calls stay held meanwhile (the listener is ours); the kill ends them. */
	wd_cgroup_destroy(&kp->cg);
	write_exit(kp, !gone);
	_exit(0);
}

int wd_keeper_start(struct wd_keeper *k, const struct wd_cgroup *cg, unsigned int survive_s)
{
	struct keep kp = { .cg = *cg, .survive_s = survive_s, .named = -1 };
	int sv[2], named = -1;
	pid_t pid;

	k->pid = -1;
	k->sock = -1;
	for (int i = 0; i < WD_KEEP_NFDS; i++)
		kp.fds[i] = -1;
	if (survive_s) {
		int err = keep_path(kp.path, sizeof(kp.path), cg->name);

		if (!err)
			err = wd_run_dir_check(wd_run_dir(), false);
		if (err)
			return err;
		/* The name is there from the start, refusing connections until the supervisor dies. */
		named = wd_sock_bind_name("keeper", kp.path, SOCK_SEQPACKET | SOCK_CLOEXEC, 0600);
		if (named < 0)
			return named;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		int err = -errno;

		if (named >= 0) {
			close(named);
			unlink(kp.path);
		}
		return err;
	}
	/* Nothing buffered may be written twice. */
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(sv[0]);
		close(sv[1]);
		if (named >= 0) {
			close(named);
			unlink(kp.path);
		}
		return err;
	}
	if (pid == 0) {
		close(sv[0]);
		kp.sock = sv[1];
		kp.named = named;
		keeper_main(&kp);
	}
	close(sv[1]);
	if (named >= 0)
		close(named);
	room_for_state(sv[0]);
	k->pid = pid;
	k->sock = sv[0];
	return 0;
}

int wd_keeper_give(struct wd_keeper *k, enum wd_keep_fd what, int fd)
{
	unsigned char i = (unsigned char)what;

	if (k->sock < 0)
		return -EBADF;
	return send_msg(k->sock, KEEP_FD, &i, 1, fd) < 0 ? -errno : 0;
}

int wd_keeper_state(struct wd_keeper *k, const char *state)
{
	size_t len = strlen(state);

	if (k->sock < 0)
		return -EBADF;
	if (len > WD_KEEP_STATE_MAX)
		return -E2BIG;
	return send_msg(k->sock, KEEP_STATE, state, len, -1) < 0 ? -errno : 0;
}

int wd_keeper_journal(struct wd_keeper *k, const struct wd_hold_call *c, bool waiting)
{
	ssize_t n;

	if (k->sock < 0)
		return -EBADF;
	if (waiting)
		n = send_msg(k->sock, KEEP_WAITS, c, sizeof(*c), -1);
	else
		n = send_msg(k->sock, KEEP_ANSWERED, &c->notif_id, sizeof(c->notif_id), -1);
	return n < 0 ? -errno : 0;
}

void wd_keeper_stop(struct wd_keeper *k)
{
	if (k->sock < 0)
		return;
	if (send_msg(k->sock, KEEP_DONE, NULL, 0, -1) < 0)
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
		ssize_t n = recv_msg(sock, buf, WD_KEEP_STATE_MAX + 1, &fd);

		if (n <= 0) {
			err = n < 0 ? -errno : -ECONNRESET;
			goto out;
		}
		if (buf[0] == KEEP_END)
			break;
		if (buf[0] == KEEP_FD && fd >= 0 && n == 2 &&
		    (unsigned char)buf[1] < WD_KEEP_NFDS && a->fds[(unsigned char)buf[1]] < 0) {
			a->fds[(unsigned char)buf[1]] = fd;
		} else if (buf[0] == KEEP_STATE && !a->state) {
			a->state = strndup(buf + 1, (size_t)n - 1);
			if (!a->state) {
				err = -ENOMEM;
				goto out;
			}
		} else if (buf[0] == KEEP_WAITS && (size_t)n == 1 + sizeof(struct wd_hold_call)) {
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
