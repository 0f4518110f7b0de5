// SPDX-License-Identifier: GPL-2.0
/* A persistent sandbox's commands, one exec at a time (supervisor/run/execs.h). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervisor/run/execs.h"
#include "supervisor/run/records.h"
#include "supervisor/sandbox/exit_status.h"
#include "supervisor/util/log.h"

#define EXEC_MSG_MAX 65536
#define EXEC_ARGS_MAX 4096

ssize_t wd_execs_send(int sock, const char *text, const int *fds, int n)
{
	char cbuf[CMSG_SPACE(WD_EXECS_FDS_MAX * sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = (void *)text, .iov_len = strlen(text) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (n > WD_EXECS_FDS_MAX) {
		errno = EINVAL;
		return -1;
	}
	if (n > 0) {
		struct cmsghdr *c;

		msg.msg_control = cbuf;
		msg.msg_controllen = CMSG_SPACE((size_t)n * sizeof(int));
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN((size_t)n * sizeof(int));
		memcpy(CMSG_DATA(c), fds, (size_t)n * sizeof(int));
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL);
}

ssize_t wd_execs_recv(int sock, char *buf, size_t bufsz, int *fds, int max, int *n)
{
	char cbuf[CMSG_SPACE(WD_EXECS_FDS_MAX * sizeof(int))];
	struct iovec iov = { .iov_base = buf, .iov_len = bufsz - 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	ssize_t r;

	*n = 0;
	do
		r = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	while (r < 0 && errno == EINTR);
	for (c = r >= 0 ? CMSG_FIRSTHDR(&msg) : NULL; c; c = CMSG_NXTHDR(&msg, c)) {
		size_t k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*n < max)
				fds[(*n)++] = fd;
			else
				close(fd);
		}
	}
	if (r >= 0 && (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		while (*n > 0)
			close(fds[--*n]);
		errno = EMSGSIZE;
		return -1;
	}
	if (r >= 0)
		buf[r] = 0;
	return r;
}

static void arm(int fd, uint64_t ms)
{
	struct itimerspec it = { .it_value = { .tv_sec = (time_t)(ms / 1000),
					       .tv_nsec = (long)(ms % 1000) * 1000000 } };

	if (fd >= 0)
		timerfd_settime(fd, 0, &it, NULL);
}

static void tell(struct wd_execs *x, cJSON *o)
{
	char *text = cJSON_PrintUnformatted(o);

	if (text && x->sock >= 0 && wd_execs_send(x->sock, text, NULL, 0) < 0)
		log_warn("exec: cannot tell wardend");
	free(text);
	cJSON_Delete(o);
}

static void tell_failed(struct wd_execs *x, const char *why, int err)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "op", "failed");
	cJSON_AddStringToObject(o, "error", why);
	if (err)
		cJSON_AddNumberToObject(o, "errno", err);
	tell(x, o);
}

int wd_execs_open(struct wd_execs *x, int sock, unsigned int idle_s,
		  const struct wd_execs_ops *ops)
{
	*x = (struct wd_execs){ .sock = sock, .idle_s = idle_s, .ops = ops, .timeout_fd = -1 };
	wd_child_init(&x->run);
	x->idle_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	x->timeout_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (x->idle_fd < 0 || x->timeout_fd < 0)
		return -errno;
	if (idle_s)
		arm(x->idle_fd, (uint64_t)idle_s * 1000);
	return 0;
}

int wd_execs_poll_fds(const struct wd_execs *x, struct pollfd *pfd, int max)
{
	int n = 0;

	if (x->sock >= 0 && n < max)
		pfd[n++] = (struct pollfd){ .fd = x->sock, .events = POLLIN };
	if (x->run.pid > 0 && n < max)
		pfd[n++] = (struct pollfd){ .fd = x->run.pidfd, .events = POLLIN };
	if (x->run.pid > 0 && n < max)
		pfd[n++] = (struct pollfd){ .fd = x->timeout_fd, .events = POLLIN };
	if (x->run.pid <= 0 && x->idle_s && n < max)
		pfd[n++] = (struct pollfd){ .fd = x->idle_fd, .events = POLLIN };
	return n;
}

/* A JSON array of strings into a NULL-ended array (pointing into @a), or NULL. */
char **wd_execs_strings(const cJSON *a, bool nonempty)
{
	int n = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : -1, i = 0;
	const cJSON *e;
	char **v;

	if (n < (nonempty ? 1 : 0) || n > EXEC_ARGS_MAX)
		return NULL;
	v = calloc((size_t)n + 1, sizeof(*v));
	cJSON_ArrayForEach(e, a) {
		if (!v || !cJSON_IsString(e)) {
			free(v);
			return NULL;
		}
		v[i++] = e->valuestring;
	}
	return v;
}

/* {"NAME":"VALUE"...} into NAME=VALUE strings (malloc'd), or NULL: a name that is none. */
static char **env_of(const cJSON *env, size_t *n)
{
	const cJSON *e;
	char **v;

	*n = 0;
	if (!env)
		return calloc(1, sizeof(char *));
	if (!cJSON_IsObject(env) || cJSON_GetArraySize(env) > EXEC_ARGS_MAX)
		return NULL;
	v = calloc((size_t)cJSON_GetArraySize(env) + 1, sizeof(*v));
	cJSON_ArrayForEach(e, env) {
		if (!v || !cJSON_IsString(e) || !e->string[0] || strchr(e->string, '=') ||
		    asprintf(&v[*n], "%s=%s", e->string, e->valuestring) < 0)
			goto bad;
		(*n)++;
	}
	return v;
bad:
	for (size_t i = 0; v && i < *n; i++)
		free(v[i]);
	free(v);
	return NULL;
}

static void on_exec(struct wd_execs *x, const cJSON *req, int *fds, int nfds)
{
	const cJSON *cwd = cJSON_GetObjectItemCaseSensitive(req, "cwd");
	const cJSON *tmo = cJSON_GetObjectItemCaseSensitive(req, "timeout_ms");
	const cJSON *tr = cJSON_GetObjectItemCaseSensitive(req, "transfer");
	const cJSON *path = cJSON_GetObjectItemCaseSensitive(req, "path");
	const cJSON *mode = cJSON_GetObjectItemCaseSensitive(req, "mode");
	struct wd_exec_transfer t = { .kind = WD_TRANSFER_NONE, .mode = 0644 };
	char **argv, **env;
	size_t n_env;
	cJSON *o;
	int err;

	/* a transfer runs no command: its argv is only what its records and messages call it */
	if (cJSON_IsString(tr) && cJSON_IsString(path) && path->valuestring[0] == '/') {
		t.kind = !strcmp(tr->valuestring, "put") ? WD_TRANSFER_PUT :
			 !strcmp(tr->valuestring, "get") ? WD_TRANSFER_GET : WD_TRANSFER_NONE;
		t.path = path->valuestring;
		if (cJSON_IsNumber(mode) && mode->valuedouble >= 0 && mode->valuedouble <= 07777)
			t.mode = (unsigned int)mode->valuedouble;
	}
	argv = t.kind ? calloc(2, sizeof(*argv)) :
			wd_execs_strings(cJSON_GetObjectItemCaseSensitive(req, "argv"), true);
	if (t.kind && argv)
		argv[0] = (char *)t.path;
	env = env_of(cJSON_GetObjectItemCaseSensitive(req, "env"), &n_env);
	if (x->run.pid > 0)
		tell_failed(x, "an exec runs in this sandbox already", EBUSY);
	else if (nfds != 3 || !argv || !env || (cwd && (!cJSON_IsString(cwd) ||
							 cwd->valuestring[0] != '/')) ||
		 (tmo && (!cJSON_IsNumber(tmo) || tmo->valuedouble < 1)) || (tr && !t.kind))
		tell_failed(x, "a malformed exec", EINVAL);
	else if ((err = x->ops->spawn(x->ops->ctx, argv, env, cwd ? cwd->valuestring : NULL,
				      fds, &t, &x->run)))
		tell_failed(x, strerror(-err), -err);
	if (x->run.pid > 0 && (x->run.setup_errno || x->run.exec_errno)) {
		siginfo_t si;
		int e = x->run.setup_errno ? x->run.setup_errno : x->run.exec_errno;
		char why[160];

		snprintf(why, sizeof(why), "%s: %s", x->run.setup_errno ?
			 "the sandbox could not be entered" : argv[0], strerror(e));
		waitid(P_PIDFD, (id_t)x->run.pidfd, &si, WEXITED);
		wd_child_close(&x->run);
		wd_child_init(&x->run);
		tell_failed(x, why, e);
	} else if (x->run.pid > 0) {
		x->execs++;
		x->timed_out = false;
		x->started_ns = wd_clock_ns(CLOCK_MONOTONIC);
		arm(x->idle_fd, 0);
		if (tmo)
			arm(x->timeout_fd, (uint64_t)tmo->valuedouble);
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "op", "started");
		cJSON_AddNumberToObject(o, "pid", x->run.pid);
		tell(x, o);
	}
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	for (size_t i = 0; env && i < n_env; i++)
		free(env[i]);
	free(env);
	free(argv);
}

/* The running exec ended (@si, from waitid): wardend is told how, and the idle clock starts. */
static void ended(struct wd_execs *x, const siginfo_t *si, const char *status)
{
	struct wd_exit_status how = wd_exit_status_of(si);
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "op", "exit");
	cJSON_AddStringToObject(o, "status", status ? status : x->timed_out ? "timeout" :
					     how.signo ? "killed" : "completed");
	cJSON_AddNumberToObject(o, "code", how.code);
	if (how.signo)
		cJSON_AddNumberToObject(o, "signal", how.signo);
	cJSON_AddNumberToObject(o, "wall_ms",
				(double)((wd_clock_ns(CLOCK_MONOTONIC) - x->started_ns) / 1000000));
	tell(x, o);
	wd_child_close(&x->run);
	wd_child_init(&x->run);
	arm(x->timeout_fd, 0);
	if (x->idle_s)
		arm(x->idle_fd, (uint64_t)x->idle_s * 1000);
}

static void on_message(struct wd_execs *x)
{
	char *buf = malloc(EXEC_MSG_MAX + 1);
	int fds[3], nfds = 0;
	ssize_t n = buf ? wd_execs_recv(x->sock, buf, EXEC_MSG_MAX + 1, fds, 3, &nfds) : -1;
	cJSON *req = n > 0 ? cJSON_Parse(buf) : NULL, *o;
	const cJSON *op = req ? cJSON_GetObjectItemCaseSensitive(req, "op") : NULL;

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		free(buf);
		return;
	}
	if (n == 0) {
		/* wardend went: no more execs (its death ends this supervisor too) */
		close(x->sock);
		x->sock = -1;
	} else if (cJSON_IsString(op) && !strcmp(op->valuestring, "exec")) {
		on_exec(x, req, fds, nfds);
		nfds = 0;
	} else if (cJSON_IsString(op) && !strcmp(op->valuestring, "inspect")) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "op", "inspect");
		cJSON_AddNumberToObject(o, "execs", (double)x->execs);
		if (x->run.pid > 0)
			cJSON_AddNumberToObject(o, "running", x->run.pid);
		else
			cJSON_AddNullToObject(o, "running");
		cJSON_AddNumberToObject(o, "idle_timeout_s", x->idle_s);
		x->ops->inspect(x->ops->ctx, o);
		tell(x, o);
	} else if (n > 0) {
		tell_failed(x, "not a request of this socket", EINVAL);
	}
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	cJSON_Delete(req);
	free(buf);
}

void wd_execs_on_ready(struct wd_execs *x, const struct pollfd *p)
{
	uint64_t ticks;
	siginfo_t si;

	if (p->fd == x->sock) {
		on_message(x);
	} else if (x->run.pid > 0 && p->fd == x->run.pidfd) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_PIDFD, (id_t)x->run.pidfd, &si, WEXITED | WNOHANG) == 0 && si.si_pid)
			ended(x, &si, NULL);
	} else if (p->fd == x->timeout_fd) {
		if (read(x->timeout_fd, &ticks, sizeof(ticks)) == sizeof(ticks) && x->run.pid > 0) {
			x->timed_out = true;
			syscall(SYS_pidfd_send_signal, x->run.pidfd, SIGKILL, NULL, 0);
		}
	} else if (p->fd == x->idle_fd) {
		if (read(x->idle_fd, &ticks, sizeof(ticks)) == sizeof(ticks) && x->run.pid <= 0) {
			log_info("exec: idle for %u s: the sandbox ends", x->idle_s);
			x->ops->end(x->ops->ctx, "idle");
		}
	}
}

void wd_execs_stop(struct wd_execs *x)
{
	x->ops->end(x->ops->ctx, "destroyed");
}

void wd_execs_close(struct wd_execs *x)
{
	siginfo_t si;

	if (x->run.pid > 0) {
		syscall(SYS_pidfd_send_signal, x->run.pidfd, SIGKILL, NULL, 0);
		memset(&si, 0, sizeof(si));
		if (!waitid(P_PIDFD, (id_t)x->run.pidfd, &si, WEXITED))
			ended(x, &si, "ended");
	}
	if (x->sock >= 0)
		close(x->sock);
	if (x->idle_fd >= 0)
		close(x->idle_fd);
	if (x->timeout_fd >= 0)
		close(x->timeout_fd);
	x->sock = x->idle_fd = x->timeout_fd = -1;
}
