// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervisor/keeper.h"
#include "supervisor/log.h"

/* What warden says to its keeper: one byte, with a listener fd for KEEP_LISTENER. */
enum { KEEP_LISTENER = 'L', KEEP_DONE = 'D' };

/* The keeper's whole life: hold on until warden says done or dies; if it dies, end the sandbox. */
static void __attribute__((noreturn)) keeper_main(int sock, struct wd_cgroup cg)
{
	static const int quiet[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP,
				     SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2 };
	int listener = -1, null;

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
	for (;;) {
		char cbuf[CMSG_SPACE(sizeof(int))];
		char what = 0;
		struct iovec iov = { .iov_base = &what, .iov_len = 1 };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
				      .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *c;
		ssize_t n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 1 && what == KEEP_DONE)
			_exit(0);
		if (n == 1 && what == KEEP_LISTENER) {
			c = CMSG_FIRSTHDR(&msg);
			if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
				if (listener >= 0)
					close(listener);
				memcpy(&listener, CMSG_DATA(c), sizeof(int));
			}
			continue;
		}
		if (n > 0)
			continue; /* nothing else is ever sent */
		break; /* EOF (or the socket broke): warden is gone */
	}
	log_warnx("keeper: warden ended while sandbox %s ran; killing the sandbox", cg.name);
	/* Held calls stay held meanwhile (the listener is ours); the kill ends them. */
	wd_cgroup_destroy(&cg);
	_exit(0);
}

int wd_keeper_start(struct wd_keeper *k, const struct wd_cgroup *cg)
{
	int sv[2];
	pid_t pid;

	k->pid = -1;
	k->sock = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	/* Nothing buffered may be written twice. */
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(sv[0]);
		close(sv[1]);
		return err;
	}
	if (pid == 0) {
		close(sv[0]);
		keeper_main(sv[1], *cg);
	}
	close(sv[1]);
	k->pid = pid;
	k->sock = sv[0];
	return 0;
}

int wd_keeper_give(struct wd_keeper *k, int listener)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	char what = KEEP_LISTENER;
	struct iovec iov = { .iov_base = &what, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	if (k->sock < 0)
		return -EBADF;
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &listener, sizeof(int));
	if (sendmsg(k->sock, &msg, MSG_NOSIGNAL) != 1)
		return -errno;
	return 0;
}

void wd_keeper_stop(struct wd_keeper *k)
{
	char what = KEEP_DONE;

	if (k->sock < 0)
		return;
	if (send(k->sock, &what, 1, MSG_NOSIGNAL) != 1)
		log_warn("keeper: cannot tell it the sandbox has ended");
	close(k->sock);
	k->sock = -1;
	while (k->pid > 0 && waitpid(k->pid, NULL, 0) < 0 && errno == EINTR)
		;
	k->pid = -1;
}
