// SPDX-License-Identifier: GPL-2.0
/*
 * wardend's spares (supervisor/run/spare.h, docs/design.md#spares): after a run, a supervisor
 * for the same request shape (policy, backend, working directory, env, timeout) is made while
 * nothing else is asked, up to its command's exec. The next run request of that shape whose
 * effective policy hashes the same claims it: its whole set-up is already done. A spare serves
 * one run; a request it does not fit runs as any other does.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cJSON.h>

#include "policy/effective.h"
#include "supervisor/bpf/progs.h"
#include "supervisor/run/execs.h"
#include "supervisor/run/run.h"
#include "supervisor/run/spare.h"
#include "supervisor/sandbox/cgroup.h"
#include "supervisor/util/log.h"

#include "tools/wardend.h"

struct spare spares[WD_SPARES_MAX];
/* the shape of the last run that could have a spare: the next one made (NULL: none wanted) */
static char *wanted;

void spares_init(void)
{
	for (int i = 0; i < WD_SPARES_MAX; i++)
		spares[i] = (struct spare){.sock = -1};
}

static void spare_free(struct spare *sp)
{
	if (sp->sock >= 0)
		close(sp->sock);
	if (sp->policy_file)
		unlink(sp->policy_file);
	if (sp->cgroup)
		rmdir(sp->cgroup);
	free(sp->policy_file);
	free(sp->cgroup);
	free(sp->key);
	*sp = (struct spare){.sock = -1};
}

/* @sp told to end: it removes what it made; its slot is free once it is reaped. */
static void spare_end(struct spare *sp, const char *why)
{
	if (sp->pid <= 0 || sp->ending)
		return;
	log_info("spare %d ends: %s", (int)sp->pid, why);
	kill(sp->pid, SIGTERM);
	sp->ending = true;
}

char *spare_key(const cJSON *req, const char *backend, const char *cwd)
{
	static const char *const keys[] = {"policy", "env", "timeout_ms"};
	cJSON *k = cJSON_CreateObject();
	char *text;

	for (size_t i = 0; k && i < sizeof(keys) / sizeof(keys[0]); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, keys[i]);

		if (v)
			cJSON_AddItemToObject(k, keys[i], cJSON_Duplicate(v, true));
	}
	cJSON_AddStringToObject(k, "backend", backend);
	cJSON_AddStringToObject(k, "cwd", cwd);
	text = k ? cJSON_PrintUnformatted(k) : NULL;
	cJSON_Delete(k);
	return text;
}

/* Is the working directory of @pid the directory @cwd is now (not one since replaced)? */
static bool same_cwd(pid_t pid, const char *cwd)
{
	char link[64];
	struct stat a, b;

	snprintf(link, sizeof(link), "/proc/%d/cwd", (int)pid);
	return !stat(link, &a) && !stat(cwd, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

struct spare *spare_match(const char *key, const char *hash, const char *cwd)
{
	for (int i = 0; i < WD_SPARES_MAX; i++) {
		struct spare *sp = &spares[i];

		if (sp->pid <= 0 || sp->ending || strcmp(sp->key, key))
			continue;
		/* made for this shape, but its policy or directory is not what this run gets now */
		if (sp->hash[0] && (strcmp(sp->hash, hash) || !same_cwd(sp->pid, cwd))) {
			spare_end(sp, "its policy or working directory changed");
			continue;
		}
		if (sp->hash[0])
			return sp;
	}
	return NULL;
}

void spare_want(const char *key)
{
	if (d.cfg.spares <= 0)
		return;
	for (int i = 0; i < WD_SPARES_MAX; i++)
		if (spares[i].pid > 0 && !spares[i].ending && !strcmp(spares[i].key, key))
			return; /* one there already */
	free(wanted);
	wanted = strdup(key);
}

bool spares_wanted(void)
{
	return wanted != NULL;
}

/* A free slot for the next spare: the oldest other one is ended to make room. NULL: not yet. */
static struct spare *spare_slot(void)
{
	struct spare *free_one = NULL, *oldest = NULL;
	int live = 0;

	for (int i = 0; i < WD_SPARES_MAX; i++) {
		struct spare *sp = &spares[i];

		if (sp->pid <= 0 && !free_one)
			free_one = sp;
		if (sp->pid > 0 && !sp->ending) {
			live++;
			if (!oldest || sp->made < oldest->made)
				oldest = sp;
		}
	}
	if (live >= d.cfg.spares && oldest)
		spare_end(oldest, "room for a newer one");
	return live < d.cfg.spares || oldest ? free_one : NULL;
}

/* The spare of shape @key forked into @sp. 0, or -errno (said why). */
static int spare_fork(struct spare *sp, const char *key)
{
	static unsigned long long seq;
	cJSON *shape = cJSON_Parse(key);
	const cJSON *pol = cJSON_GetObjectItemCaseSensitive(shape, "policy");
	const char *backend = str_field(shape, "backend"), *cwd = str_field(shape, "cwd");
	struct wd_policy_derive derive = {0};
	struct wd_cgroup cg = {.fd = -1};
	char *policy_file = NULL;
	const char *policy = NULL;
	struct ring *ring;
	int sv[2] = {-1, -1}, big = 1 << 20, err = 0;
	cJSON *bad;
	pid_t pid;

	if (!shape || !backend || !cwd) {
		cJSON_Delete(shape);
		return -EINVAL;
	}
	bad = run_derive(shape, &derive);
	if (cJSON_IsString(pol))
		policy = pol->valuestring;
	else if (!bad)
		policy = policy_file = write_inline_policy(pol, "spares");
	if (bad || !policy || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		err = bad ? -EINVAL : -errno;
	cJSON_Delete(bad);
	if (err) {
		log_warnx("cannot make a spare: %s", strerror(-err));
		goto out;
	}
	/* a claim carries a whole request (up to 64 KiB of it): room for it, whatever the sysctl */
	if (setsockopt(sv[0], SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big)))
		setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	wd_cgroup_pool_take(&d.pool, &cg);
	ring = ring_take(backend);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		wd_cgroup_destroy(&cg);
		log_warn("cannot make a spare: fork");
		goto out;
	}
	if (pid == 0) {
		struct wd_run_opts o = {.policy_path = policy,
					.derive = &derive,
					.backend = backend,
					.survive_s = d.cfg.survive_s,
					.out_fd = {-1, -1, -1},
					.keep_out = {-1, -1},
					.spare_fd = sv[1]};
		int nul = open("/dev/null", O_RDWR | O_CLOEXEC);

		child_common(ring ? ring->fd : -1);
		if (ring)
			wd_progs_ring_give(ring->fd, ring->key);
		prctl(PR_SET_NAME, "wardend-spare");
		close(sv[0]);
		/* until a claim: no stdin or stdout; its messages go to wardend's journal */
		if (nul < 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0 || chdir(cwd))
			_exit(125);
		if (cg.fd >= 0)
			wd_cgroup_use_next(&cg);
		_exit(wd_run(&o));
	}
	close(sv[1]);
	sv[1] = -1;
	if (ring)
		ring->user = pid;
	*sp = (struct spare){.pid = pid,
			     .sock = sv[0],
			     .key = strdup(key),
			     .made = ++seq,
			     .policy_file = policy_file,
			     .cgroup = cg.fd >= 0 ? strdup(cg.path) : NULL};
	if (cg.fd >= 0)
		close(cg.fd);
	sv[0] = -1;
	policy_file = NULL;
	log_debug("spare %d: made for the next run like the last", (int)pid);
out:
	for (int i = 0; i < 2; i++)
		if (sv[i] >= 0)
			close(sv[i]);
	if (policy_file)
		unlink(policy_file);
	free(policy_file);
	wd_policy_derive_free(&derive);
	cJSON_Delete(shape);
	return err;
}

void spares_make(void)
{
	struct spare *sp;

	/* fewer wanted now (a reload): the newest are kept */
	for (int live = 0, i = 0; i < WD_SPARES_MAX; i++)
		if (spares[i].pid > 0 && !spares[i].ending && ++live > d.cfg.spares)
			spare_end(&spares[i], "fewer spares configured");
	if (!wanted)
		return;
	if (d.cfg.spares <= 0) {
		free(wanted);
		wanted = NULL;
		return;
	}
	sp = spare_slot();
	if (!sp)
		return; /* once the one ending has gone */
	spare_fork(sp, wanted);
	free(wanted);
	wanted = NULL;
}

void spare_read(struct spare *sp)
{
	char buf[128];
	ssize_t n = recv(sp->sock, buf, sizeof(buf) - 1, MSG_DONTWAIT);

	if (n <= 0) {
		/* it ended (reap says how), or said nothing: not claimed, whatever comes */
		if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			close(sp->sock);
			sp->sock = -1;
			spare_end(sp, "its socket closed");
		}
		return;
	}
	buf[n] = 0;
	/* "ready HASH SANDBOX" */
	if (strncmp(buf, "ready ", 6) || strlen(buf) < 6 + 64 + 2 || buf[6 + 64] != ' ' ||
	    strspn(buf + 6, "0123456789abcdef") != 64) {
		spare_end(sp, "it said what a spare does not");
		return;
	}
	memcpy(sp->hash, buf + 6, 64);
	sp->hash[64] = 0;
	/* read: an inline policy's file is no longer needed (the keeper gets the policy itself) */
	if (sp->policy_file) {
		unlink(sp->policy_file);
		free(sp->policy_file);
		sp->policy_file = NULL;
	}
	log_info("spare #%llu (supervisor %d) is ready for the next run like the last: %.31s "
		 "(policy %.12s)",
		 sp->made, (int)sp->pid, buf + 6 + 65, sp->hash);
}

bool spare_reaped(pid_t pid, int status)
{
	for (int i = 0; i < WD_SPARES_MAX; i++) {
		struct spare *sp = &spares[i];

		if (sp->pid != pid)
			continue;
		if (!sp->ending)
			log_warnx("spare %d ended unclaimed (status 0x%x): the next run makes its "
				  "own",
				  (int)pid, status);
		else
			log_debug("spare %d ended (status 0x%x)", (int)pid, status);
		ring_return(pid, "", WIFSIGNALED(status));
		spare_free(sp);
		return true;
	}
	return false;
}

pid_t spare_claim(struct spare *sp, cJSON *claim, const int *fds, const char *const *names, int n,
		  char **cgroup, char **policy_file)
{
	cJSON *list = cJSON_AddArrayToObject(claim, "fds");
	char *text;
	pid_t pid = sp->pid;
	ssize_t sent = -1;

	for (int i = 0; list && i < n; i++)
		cJSON_AddItemToArray(list, cJSON_CreateString(names[i]));
	text = list ? cJSON_PrintUnformatted(claim) : NULL;
	if (text && strlen(text) <= WD_SPARE_CLAIM_MAX)
		sent = wd_execs_send(sp->sock, text, fds, n);
	free(text);
	if (sent < 0) {
		spare_end(sp, "its claim could not be sent");
		return -1;
	}
	/* the run's now: its supervisor, cgroup and policy file are the sup's from here */
	*cgroup = sp->cgroup;
	*policy_file = sp->policy_file;
	sp->cgroup = sp->policy_file = NULL;
	sp->pid = 0;
	spare_free(sp);
	return pid;
}

void spares_close_in_child(void)
{
	for (int i = 0; i < WD_SPARES_MAX; i++)
		if (spares[i].sock >= 0)
			close(spares[i].sock);
}

int spares_count(bool ready)
{
	int n = 0;

	for (int i = 0; i < WD_SPARES_MAX; i++)
		n += spares[i].pid > 0 && !spares[i].ending && (!ready || spares[i].hash[0]);
	return n;
}

void spares_stop(void)
{
	free(wanted);
	wanted = NULL;
	for (int i = 0; i < WD_SPARES_MAX; i++)
		spare_end(&spares[i], "wardend stops");
}

int spares_running(void)
{
	int n = 0;

	for (int i = 0; i < WD_SPARES_MAX; i++)
		n += spares[i].pid > 0;
	return n;
}
