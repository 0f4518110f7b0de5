// SPDX-License-Identifier: GPL-2.0
/* A wardend spare's side of its claim (supervisor/run/spare.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "policy/explain.h"
#include "supervisor/run/execs.h"
#include "supervisor/run/run.h"
#include "supervisor/run/spare.h"
#include "supervisor/util/log.h"

const char *const wd_spare_fd_names[WD_SPARE_FDS] = {
	[WD_SPARE_READY] = "ready",	  [WD_SPARE_STDIN] = "stdin",
	[WD_SPARE_OUT] = "out",		  [WD_SPARE_ERR] = "err",
	[WD_SPARE_KEEP_OUT] = "keep_out", [WD_SPARE_KEEP_ERR] = "keep_err",
};

static const char *field(const cJSON *m, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The message @buf with its @n fds into @c: each fd where its name says. 0 or -EPROTO. */
static int parse(struct wd_spare_claim *c, const char *buf, const int *fds, int n)
{
	const cJSON *names, *e;
	int i = 0;

	c->msg = cJSON_Parse(buf);
	names = cJSON_GetObjectItemCaseSensitive(c->msg, "fds");
	c->argv = wd_execs_strings(cJSON_GetObjectItemCaseSensitive(c->msg, "argv"), true);
	if (!c->argv || !cJSON_IsArray(names) || cJSON_GetArraySize(names) != n)
		return -EPROTO;
	cJSON_ArrayForEach(e, names)
	{
		int k;

		for (k = 0; k < WD_SPARE_FDS; k++)
			if (cJSON_IsString(e) && !strcmp(e->valuestring, wd_spare_fd_names[k]))
				break;
		if (k == WD_SPARE_FDS || c->fd[k] >= 0)
			return -EPROTO;
		c->fd[k] = fds[i++];
	}
	return 0;
}

int wd_spare_claim_wait(int sock, int sigfd, struct wd_spare_claim *c)
{
	struct pollfd p[2] = {{.fd = sock, .events = POLLIN}, {.fd = sigfd, .events = POLLIN}};
	int fds[WD_EXECS_FDS_MAX], n = 0, err;
	char *buf;
	ssize_t len;

	*c = (struct wd_spare_claim){.msg = NULL};
	for (int k = 0; k < WD_SPARE_FDS; k++)
		c->fd[k] = -1;
	while (poll(p, 2, -1) < 0)
		if (errno != EINTR)
			return -errno;
	if (p[1].revents) {
		struct signalfd_siginfo si;

		/* taken: it ends the spare here, not again once the signals are let through */
		if (read(sigfd, &si, sizeof(si)) != sizeof(si))
			log_debug("spare: a stop signal, unread");
		return -EINTR;
	}
	buf = malloc(WD_SPARE_CLAIM_MAX + 1);
	if (!buf)
		return -ENOMEM;
	len = wd_execs_recv(sock, buf, WD_SPARE_CLAIM_MAX + 1, fds, WD_EXECS_FDS_MAX, &n);
	if (len <= 0) {
		err = len == 0 || errno == ECONNRESET ? -ECANCELED : -errno;
	} else {
		err = parse(c, buf, fds, n);
		/* what was not taken (a bad claim's) is closed here */
		for (int i = 0; err && i < n; i++)
			close(fds[i]);
		for (int k = 0; err && k < WD_SPARE_FDS; k++)
			c->fd[k] = -1;
	}
	free(buf);
	if (err == -EPROTO)
		log_warnx("spare: a claim that is none");
	return err;
}

/* Open @path for the supervisor's output (appending), or /dev/null, onto fd @fd. */
static int output_onto(const char *path, int fd)
{
	int f = open(path ? path : "/dev/null", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	int err = f < 0 || dup2(f, fd) < 0 ? -errno : 0;

	if (f >= 0)
		close(f);
	if (err)
		log_warnx("spare: %s: %s", path ? path : "/dev/null", strerror(-err));
	return err;
}

int wd_spare_claim_apply(const struct wd_spare_claim *c, struct wd_run_opts *o)
{
	const int *fd = c->fd;
	int err;

	o->argv = c->argv;
	o->audit_path = field(c->msg, "audit");
	o->report_path = field(c->msg, "report");
	o->daemon_state = field(c->msg, "daemon");
	o->ready_fd = fd[WD_SPARE_READY];
	o->out_fd[1] = fd[WD_SPARE_OUT];
	o->out_fd[2] = fd[WD_SPARE_ERR];
	o->keep_out[0] = fd[WD_SPARE_KEEP_OUT];
	o->keep_out[1] = fd[WD_SPARE_KEEP_ERR];
	/* as wardend's forked supervisor: stdout, stderr (its own messages too), then stdin */
	err = output_onto(field(c->msg, "stdout"), 1) ?: output_onto(field(c->msg, "stderr"), 2);
	/* its stderr is the request's file now, not the journal */
	if (!err)
		log_journal_set(false);
	if (!err && fd[WD_SPARE_STDIN] >= 0 && dup2(fd[WD_SPARE_STDIN], 0) < 0)
		err = -errno;
	return err;
}

void wd_spare_claim_free(struct wd_spare_claim *c)
{
	for (int k = 0; k < WD_SPARE_FDS; k++)
		if (c->fd[k] >= 0 && k != WD_SPARE_READY)
			close(c->fd[k]);
	free(c->argv);
	cJSON_Delete(c->msg);
	*c = (struct wd_spare_claim){.msg = NULL};
}

int wd_spare_policy_hash(const struct wd_policy *p, char hex[65])
{
	cJSON *j = wd_policy_to_json(p);
	char *text = j ? cJSON_PrintUnformatted(j) : NULL;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	int err = -ENOMEM;

	hex[0] = 0;
	if (text && EVP_Digest(text, strlen(text), md, &n, EVP_sha256(), NULL) == 1 && n == 32) {
		for (unsigned int i = 0; i < n; i++)
			snprintf(hex + 2 * i, 3, "%02x", md[i]);
		err = 0;
	}
	free(text);
	cJSON_Delete(j);
	return err;
}
