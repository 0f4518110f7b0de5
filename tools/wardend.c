// SPDX-License-Identifier: GPL-2.0
/*
 * wardend: the long-lived supervisor. It runs sandboxes on request over its control socket
 * (<run dir>/control.sock, newline-delimited JSON, docs/control.md), each under a supervisor
 * process of its own (the same code as `warden run`, with --survive), and at start takes over
 * every sandbox whose supervisor died (the same code as `warden adopt`). Its supervisors die
 * with it; their keepers keep the sandboxes, held calls held, until the next wardend takes them
 * over. So a wardend killed mid-hold leaves the call held, and a restarted one answers it.
 */
#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "audit/jsonl.h"
#include "policy/effective.h"
#include "policy/templates.h"
#include "policy/policy.h"
#include "supervisor/backend/backend.h"
#include "supervisor/bpf/progs.h"
#include "supervisor/daemon/config.h"
#include "supervisor/daemon/notify.h"
#include "supervisor/daemon/request.h"
#include "supervisor/ipc/line.h"
#include "supervisor/ipc/rundir.h"
#include "supervisor/ipc/sock.h"
#include "supervisor/sandbox/cgroup.h"
#include "supervisor/sandbox/exit_status.h"
#include "supervisor/run/execs.h"
#include "supervisor/run/run.h"
#include "supervisor/run/spare.h"
#include "supervisor/sandbox/spawn.h"
#include "supervisor/util/log.h"
#include "tools/cmds.h"

#include "tools/wardend.h"

struct wardend d;

static void holds_unlink(struct sup *s);
static cJSON *op_resume(const cJSON *req, int client, const cJSON *id, bool *deferred);
static char *kept_state(const cJSON *req, const char *report, bool own_report, const char *holds);
static int holds_link(struct sup *s);
static cJSON *pty_fields(const cJSON *req, struct winsize *ws);
static int open_pty(int pt[2], const struct winsize *ws);
static void send_missed(struct sup *s);
static void resumes_drop(int fd);

static struct client *client_by_fd(int fd)
{
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (d.clients[i].fd == fd && fd >= 0)
			return &d.clients[i];
	return NULL;
}

static void client_kill(struct client *c, const char *why)
{
	if (c->dead)
		return;
	log_warnx("client %d dropped: %s", c->fd, why);
	c->dead = true;
	shutdown(c->fd, SHUT_RDWR);
}

/* As much of @c's queue as its socket takes now, never waiting. */
static void client_flush(struct client *c)
{
	int err = c->dead ? 0 : wd_outq_flush(&c->out, c->fd);

	if (err && err != -EAGAIN)
		client_kill(c, strerror(-err));
}

/* @len bytes at @text onto @c's queue, then sent as far as they go. 0, or -ENOSPC (no room). */
static int client_queue(struct client *c, const char *text, size_t len, size_t max)
{
	if (c->dead)
		return 0;
	if (wd_outq_pending(&c->out) + len > max || wd_outq_push(&c->out, text, len))
		return -ENOSPC;
	client_flush(c);
	return 0;
}

/*
 * @r (freed) with the request's @id and the protocol version, as one line to the client on
 * @fd: queued in order behind what it has not read yet, never waited for. Beyond @max queued
 * (0: OUTQ_MAX) an event is not queued (-ENOSPC, for the caller to count), and a reply drops
 * the client. A refused connection (not a client of ours) gets its one line at once.
 */
static int send_line(int fd, cJSON *r, const cJSON *id, size_t max)
{
	struct client *c = client_by_fd(fd);
	size_t len;
	char *text;
	int err;

	if (id)
		cJSON_AddItemToObject(r, "id", cJSON_Duplicate(id, true));
	cJSON_AddNumberToObject(r, "v", WD_DAEMON_PROTO);
	text = wd_json_line(r, &len);
	cJSON_Delete(r);
	if (!text)
		err = -ENOMEM;
	else if (!c)
		err = wd_line_write(fd, text, len, 1000);
	else
		err = client_queue(c, text, len, max ? max : OUTQ_MAX);
	free(text);
	if (err && c && !max)
		client_kill(c, "it reads nothing of its replies");
	else if (err && !c)
		log_warnx("replying: %s", strerror(-err));
	return err;
}

void send_reply_id(int fd, cJSON *r, const cJSON *id)
{
	send_line(fd, r, id, 0);
}

static void send_reply(int fd, cJSON *r)
{
	send_reply_id(fd, r, NULL);
}

/*
 * An error reply: "error" in words, "code" for a program to act on: bad_request (malformed, or
 * a field of the wrong type or value), unknown_key (with "key"), bad_policy (with "pointer"
 * when the policy names one), not_found, busy, start_failed, internal.
 */
static struct sup *sup_free_slot(void)
{
	for (int i = 0; i < MAX_SANDBOXES; i++)
		if (d.sups[i].pid == 0)
			return &d.sups[i];
	return NULL;
}

struct sup *sup_by_name(const char *name)
{
	for (int i = 0; i < MAX_SANDBOXES; i++)
		if (d.sups[i].pid > 0 && strcmp(d.sups[i].name, name) == 0)
			return &d.sups[i];
	return NULL;
}

struct sup *sup_find(const char *name)
{
	struct sup *s = sup_by_name(name);

	for (int i = 0; !s && i < MAX_SANDBOXES; i++)
		if (d.sups[i].pid > 0 && d.sups[i].label_name &&
		    strcmp(d.sups[i].label_name, name) == 0)
			s = &d.sups[i];
	return s;
}

/* In a supervisor child: end with the daemon, whose signals are not ours; @keep_ring its ring. */
void child_common(int keep_ring)
{
	sigset_t none;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	close(d.listen_fd);
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (d.clients[i].fd >= 0)
			close(d.clients[i].fd);
	/* the pool is the daemon's: a supervisor holds only the cgroup it was given */
	for (int i = 0; i < d.pool.n; i++)
		close(d.pool.cg[i].fd);
	if (d.pool.marks >= 0)
		close(d.pool.marks);
	/* the rings lent to other supervisors are theirs */
	for (int i = 0; i < MAX_SANDBOXES; i++)
		if (d.rings[i].fd >= 0 && d.rings[i].fd != keep_ring)
			close(d.rings[i].fd);
	/*
	 * other runs' output, input, holds links and exec sockets are theirs (a copy here of a
	 * command's stdin would keep its end of file from ever coming)
	 */
	for (int i = 0; i < MAX_SANDBOXES; i++) {
		struct sup *s = &d.sups[i];

		if (s->pid <= 0)
			continue;
		for (int j = 0; j < 2; j++)
			if (s->out[j] >= 0)
				close(s->out[j]);
		if (s->in_w >= 0)
			close(s->in_w);
		if (s->exec >= 0)
			close(s->exec);
		if (s->hl >= 0)
			close(s->hl);
		if (s->hand >= 0)
			close(s->hand);
		if (s->term >= 0)
			close(s->term);
	}
	spares_close_in_child();
	/* the hold is wardend's: a supervisor (and its keeper) must not keep the set pinned */
	wd_progs_forsake(d.progs);
	d.progs = NULL;
}

/* Take over @name (a keeper waits for a successor); @wait_ms for a supervisor still ending. */
static void adopt(const char *name, unsigned int wait_ms)
{
	struct sup *s = sup_by_name(name);
	int hs[2], term[2] = { -1, -1 };
	pid_t pid;

	if (s)
		return;
	s = sup_free_slot();
	if (!s) {
		log_warnx("too many sandboxes to take %s over", name);
		return;
	}
	fflush(NULL);
	/* where the successor hands over what the run's wardend left with its keeper */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, hs)) {
		log_warn("socketpair");
		hs[0] = hs[1] = -1;
	}
	/*
	 * Its stdin and stdout are not ours (our terminal, our log): nothing, and a pipe that a
	 * "pty" run's terminal is relayed into, read as that run's stdout once it is handed over
	 */
	if (pipe2(term, O_CLOEXEC) || fcntl(term[0], F_SETFL, O_NONBLOCK)) {
		log_warn("pipe");
		for (int i = 0; i < 2; i++)
			if (term[i] >= 0)
				close(term[i]);
		term[0] = term[1] = -1;
	}
	pid = fork();
	if (pid < 0) {
		log_warn("fork");
		for (int i = 0; i < 2; i++) {
			if (hs[i] >= 0)
				close(hs[i]);
			if (term[i] >= 0)
				close(term[i]);
		}
		return;
	}
	if (pid == 0) {
		struct wd_adopt_opts o = { .sandbox = name, .wait_ms = wait_ms, .hand_fd = hs[1] };
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		child_common(-1);
		if (hs[0] >= 0)
			close(hs[0]);
		if (null < 0 || dup2(null, 0) < 0 || dup2(term[1] >= 0 ? term[1] : null, 1) < 0)
			_exit(125);
		prctl(PR_SET_NAME, "wardend-sup");
		_exit(wd_adopt(&o));
	}
	if (hs[1] >= 0)
		close(hs[1]);
	if (term[1] >= 0)
		close(term[1]);
	*s = (struct sup){ .pid = pid, .adopted = true, .ready = -1, .client = -1, .waiter = -1,
			   .out = { -1, -1 }, .hl = -1, .hand = hs[0], .resumer = -1, .exec = -1,
			   .exec_client = -1, .destroyer = -1, .inspector = -1, .in_w = -1,
			   .term = term[0] };
	snprintf(s->name, sizeof(s->name), "%s", name);
	log_info("taking %s over (supervisor %d)", name, (int)pid);
}

/*
 * @s's successor handed over what the run's wardend (one before us, or ours that crashed) gave
 * the keeper: how its request asked to be answered, its report file, the read ends of the
 * command's output. What we have already (our own crashed run's) stays; the rest is taken on,
 * and its holds linked, so a resume finds the held calls by the tokens the run gave out.
 */
static void on_hand(struct sup *s)
{
	char buf[8192];
	int fds[3], nf = 0;
	ssize_t n = wd_execs_recv(s->hand, buf, sizeof(buf), fds, 3, &nf);
	cJSON *m = n > 0 ? cJSON_Parse(buf) : NULL;
	const cJSON *dst = cJSON_GetObjectItemCaseSensitive(m, "daemon");
	const cJSON *names = cJSON_GetObjectItemCaseSensitive(m, "fds"), *v;
	const char *holds = str_field(dst, "holds"), *report = str_field(dst, "report");

	if (n < 0 && errno == EAGAIN)
		return;
	close(s->hand);
	s->hand = -1;
	for (int i = 0; i < nf; i++) {
		const char *what = cJSON_IsString(cJSON_GetArrayItem(names, i)) ?
			cJSON_GetArrayItem(names, i)->valuestring : "";
		int j = !strcmp(what, "stdout") ? 0 : !strcmp(what, "stderr") ? 1 : -1;

		if (j >= 0 && s->out[j] < 0 && !fcntl(fds[i], F_SETFL, O_NONBLOCK)) {
			s->out[j] = fds[i];
			continue;
		}
		close(fds[i]);
	}
	/* a terminal's output comes through the successor now (the old master went with wardend) */
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(dst, "pty")) && s->out[0] < 0 &&
	    s->term >= 0) {
		s->out[0] = s->term;
		s->term = -1;
		s->pty = true;
	}
	if (cJSON_IsObject(dst) && !s->streamed && !s->holds_events) {
		s->streamed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(dst, "streamed"));
		s->holds_events = holds != NULL;
		s->holds_return = holds && !strcmp(holds, "return");
	}
	/* the run's report file (its request's, or one of ours): its exit event reads it */
	if (report && !s->report && report[0] == '/') {
		s->report = strdup(report);
		s->own_report = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(dst, "own_report"));
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(dst, "argv0")) && cJSON_IsString(v) && !s->argv0)
		s->argv0 = strdup(v->valuestring);
	cJSON_Delete(m);
	holds_link(s);
}

/* Every sandbox whose supervisor died: its keeper's socket is in the run directory. */
static void adopt_orphans(void)
{
	DIR *dir = opendir(d.dir);
	struct dirent *e;

	if (!dir)
		return;
	while ((e = readdir(dir))) {
		char name[32];

		if (!wd_run_sock_sandbox(e->d_name, WD_SOCK_KEEPER, name, sizeof(name)) ||
		    strncmp(name, "sb-", 3))
			continue;
		/* a supervisor of the daemon before us may still be ending */
		adopt(name, 5000);
	}
	closedir(dir);
}

const char *str_field(const cJSON *req, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Open @path for a supervisor's output (appending), or /dev/null. */
static int output_fd(const char *path)
{
	return open(path ? path : "/dev/null", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
}

static unsigned int file_seq;

/* A file of ours under <run dir>/@sub (made root-only), for @what: its path in @buf. 0 or -1. */
static int our_file(char *buf, size_t size, const char *sub, const char *what)
{
	snprintf(buf, size, "%s/%s", d.dir, sub);
	if (mkdir(buf, 0700) && errno != EEXIST)
		return -1;
	snprintf(buf, size, "%s/%s/%s-%d-%u.json", d.dir, sub, what, (int)getpid(), ++file_seq);
	return 0;
}

/*
 * An inline policy (a JSON object) written where its supervisor reads it, under <run dir>/@sub:
 * the path, or NULL.
 */
char *write_inline_policy(const cJSON *pol, const char *sub)
{
	char path[PATH_MAX], *text = cJSON_PrintUnformatted(pol);
	size_t len = text ? strlen(text) : 0;
	int fd = -1;
	bool ok = false;

	if (text && !our_file(path, sizeof(path), sub, "policy"))
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd >= 0) {
		ok = write(fd, text, len) == (ssize_t)len;
		close(fd);
		if (!ok)
			unlink(path);
	}
	free(text);
	return ok ? strdup(path) : NULL;
}

/*
 * The policy a run asks for, checked here before anything starts, so the client hears what is
 * wrong with it (the field by JSON pointer) rather than "see its stderr": NULL if it is good.
 */
/*
 * @policy as a run started in @workdir gets it, checked: NULL, or the error reply. Its hash in
 * @hash (supervisor/run/spare.h), "" when it has none or a spare could not run it (one whose
 * output is capped: its pipes are made before its command is known).
 */
static cJSON *check_policy(const char *policy, const struct wd_policy_derive *derive,
			   const char *backend, const char *workdir, char hash[65])
{
	const struct wd_backend_ops *ops;
	struct wd_policy pol;
	char msg[1024], why[1024];
	const char *ptr;
	cJSON *r = NULL;

	hash[0] = 0;
	if (wd_policy_load_effective_at(policy, derive, workdir, &pol, msg, sizeof(msg))) {
		r = coded_error("bad_policy", "run: %s", msg);
	} else {
		if (!pol.limits[WD_LIMIT_OUTPUT].s.set)
			wd_spare_policy_hash(&pol, hash);
		ops = wd_backend_choose(backend ? backend : "auto", why, sizeof(why));
		if (!ops)
			r = coded_error("start_failed", "run: cannot run a sandbox here: %s", why);
		else if (wd_policy_refuse_unenforced(&pol, policy, ops->features, msg, sizeof(msg)))
			r = coded_error("bad_policy", "run: %s", msg);
	}
	wd_policy_free(&pol);
	/* "FILE: /pointer: what": the pointer, for a program to point at */
	ptr = r ? strstr(msg, ": /") : NULL;
	if (r && ptr) {
		char pointer[512];
		size_t n = strcspn(ptr + 2, ":");

		snprintf(pointer, sizeof(pointer), "%.*s", (int)(n < 511 ? n : 511), ptr + 2);
		cJSON_AddStringToObject(r, "pointer", pointer);
	}
	return r;
}

static int free_rings(void)
{
	int n = 0;

	for (int i = 0; i < MAX_SANDBOXES; i++)
		n += d.rings[i].fd >= 0 && !d.rings[i].user;
	return n;
}

/* One more ring in the pool. 0, or -errno (said why). */
static int ring_add(void)
{
	for (int i = 0; i < MAX_SANDBOXES; i++) {
		struct ring *r = &d.rings[i];

		if (r->fd < 0)
			return wd_progs_ring_make(d.progs, WD_PROGS_RING_BYTES_DAEMON, &r->fd,
						  &r->key);
	}
	return -ENOSPC;
}

/*
 * A ring to lend a run of @backend: a free one, or one made now; NULL when runs of that
 * backend use another set than the one held (or none is held): that run makes its own.
 */
struct ring *ring_take(const char *backend)
{
	if (!strcmp(backend, "auto"))
		backend = d.auto_choice;
	if (!d.progs || !backend || strcmp(backend, d.held_backend))
		return NULL;
	if (!free_rings() && ring_add())
		return NULL;
	for (int i = 0; i < MAX_SANDBOXES; i++)
		if (d.rings[i].fd >= 0 && !d.rings[i].user)
			return &d.rings[i];
	return NULL;
}

/*
 * Supervisor @pid ended: its ring comes back, unless its sandbox may still write to it (the
 * supervisor crashed, or left the sandbox to its keeper for a successor): then the ring is that
 * sandbox's alone, for the successor to read through the keeper's copy, and is retired here (it
 * leaves wd_rings with the sandbox's entries).
 */
void ring_return(pid_t pid, const char *sandbox, bool crashed)
{
	char sock[108];

	for (int i = 0; i < MAX_SANDBOXES; i++) {
		struct ring *r = &d.rings[i];

		if (r->fd < 0 || r->user != pid)
			continue;
		r->user = 0;
		if (crashed || (sandbox[0] && !wd_run_sock_path(sock, sizeof(sock), WD_SOCK_KEEPER,
							       sandbox) &&
				access(sock, F_OK) == 0)) {
			log_debug("ring %016llx stays with %s", (unsigned long long)r->key, sandbox);
			close(r->fd);
			r->fd = -1;
		}
		return;
	}
}

/* wardend ends: its rings leave wd_rings, but those a sandbox still uses (retired) are gone. */
static void rings_free(void)
{
	for (int i = 0; i < MAX_SANDBOXES; i++)
		if (d.rings[i].fd >= 0 && !d.rings[i].user)
			wd_progs_ring_unmake(d.progs, d.rings[i].fd, d.rings[i].key);
		else if (d.rings[i].fd >= 0)
			close(d.rings[i].fd);
}

/*
 * A run request's additions to its policy, as `warden run`'s derived flags: "env" (an object
 * of strings: env.set) and "timeout_ms" (limits.wall_time). NULL, or the error reply.
 */
cJSON *run_derive(const cJSON *req, struct wd_policy_derive *derive)
{
	const cJSON *env = cJSON_GetObjectItemCaseSensitive(req, "env"), *v;
	const cJSON *tmo = cJSON_GetObjectItemCaseSensitive(req, "timeout_ms");
	char buf[4096];

	if (env && !cJSON_IsObject(env))
		return error_reply("run: \"env\" must be an object of strings%s", "");
	cJSON_ArrayForEach(v, env) {
		if (!cJSON_IsString(v))
			return error_reply("run: \"env\": %s must be a string", v->string);
		if ((size_t)snprintf(buf, sizeof(buf), "%s=%s", v->string, v->valuestring) >=
			    sizeof(buf) ||
		    !v->string[0] || strchr(v->string, '='))
			return error_reply("run: \"env\": %s is no variable name, or too long",
					   v->string);
		if (wd_policy_derive_add(derive, WD_DERIVE_ENV, buf))
			return coded_error("internal", "run: %s", strerror(ENOMEM));
	}
	if (tmo && (!cJSON_IsNumber(tmo) || tmo->valuedouble < 1 || tmo->valuedouble > 864e5 * 365 ||
		    tmo->valuedouble != (double)(long long)tmo->valuedouble))
		return error_reply("run: \"timeout_ms\" must be a whole number of milliseconds, at "
				   "least 1%s", "");
	if (tmo) {
		snprintf(buf, sizeof(buf), "wall_time=%lldms", (long long)tmo->valuedouble);
		if (wd_policy_derive_add(derive, WD_DERIVE_LIMIT, buf))
			return coded_error("internal", "run: %s", strerror(ENOMEM));
	}
	return NULL;
}

static bool backend_name_ok(const char *name)
{
	return wd_daemon_backend_ok(name);
}

/*
 * create's own fields: a name (letters, digits, ".", "_", "-", not "sb-..."; at most 31 bytes,
 * unique here), its idle timeout (seconds, 0 for none; default 600) and labels (an object of
 * strings, at most 32), into @s's. NULL, or the error reply.
 */
static cJSON *create_fields(const cJSON *req, char **name, cJSON **labels, unsigned int *idle)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(req, "name");
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(req, "labels"), *v;
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(req, "idle_timeout_s");

	*idle = 600;
	if (t && (!cJSON_IsNumber(t) || t->valuedouble < 0 || t->valuedouble > 30 * 86400 ||
		  t->valuedouble != (double)(long long)t->valuedouble))
		return error_reply("create: \"idle_timeout_s\" must be a whole number of seconds "
				   "from 0 (never) to 2592000%s", "");
	if (t)
		*idle = (unsigned int)t->valuedouble;
	if (n && (!cJSON_IsString(n) || !n->valuestring[0] || strlen(n->valuestring) > 31 ||
		  strspn(n->valuestring, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					 "0123456789._-") != strlen(n->valuestring) ||
		  !strncmp(n->valuestring, "sb-", 3)))
		return error_reply("create: \"name\" must be 1 to 31 letters, digits, '.', '_' or "
				   "'-', not beginning \"sb-\"%s", "");
	if (n && sup_find(n->valuestring))
		return coded_error("busy", "create: a sandbox is named %s already",
				   n->valuestring);
	if (l && (!cJSON_IsObject(l) || cJSON_GetArraySize(l) > 32))
		return error_reply("create: \"labels\" must be an object of at most 32 strings%s",
				   "");
	cJSON_ArrayForEach(v, l)
		if (!cJSON_IsString(v) || strlen(v->string) > 128 || strlen(v->valuestring) > 1024)
			return error_reply("create: \"labels\": %s must be a string (names at most "
					   "128 bytes, values 1024)", v->string);
	*name = n ? strdup(n->valuestring) : NULL;
	*labels = l ? cJSON_Duplicate(l, true) : NULL;
	return NULL;
}

/*
 * Run request @req given to the spare @sp (wardend_spare.c): what wardend's forked supervisor
 * would get from it, sent as its claim with the fds it would inherit: the ready pipe @ready, its
 * stdin @in, and a streamed run's pipes @opipe. The spare's pid (its cgroup and policy file in
 * @cg and @policy_file), or -1: it could not take it, and the run is forked as any other.
 */
static pid_t claim_spare(struct spare *sp, const cJSON *req, const char *report, bool own_report,
			 const char *holds, bool waits, int ready, int in, int opipe[2][2],
			 char **cg, char **policy_file)
{
	static const char *const paths[] = { "audit", "stdout", "stderr" };
	const char *names[WD_SPARE_FDS];
	int fds[WD_SPARE_FDS], n = 0;
	cJSON *c = cJSON_CreateObject();
	char *state = kept_state(req, waits ? report : NULL, own_report, holds);
	pid_t pid = -1;

	cJSON_AddItemToObject(c, "argv",
			      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(req, "argv"), true));
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (str_field(req, paths[i]))
			cJSON_AddStringToObject(c, paths[i], str_field(req, paths[i]));
	if (report)
		cJSON_AddStringToObject(c, "report", report);
	if (state)
		cJSON_AddStringToObject(c, "daemon", state);
	free(state);
	fds[n] = ready;
	names[n++] = wd_spare_fd_names[WD_SPARE_READY];
	if (in >= 0) {
		fds[n] = in;
		names[n++] = wd_spare_fd_names[WD_SPARE_STDIN];
	}
	for (int i = 0; i < 2; i++)
		if (opipe[i][1] >= 0) {
			fds[n] = opipe[i][1];
			names[n++] = wd_spare_fd_names[i ? WD_SPARE_ERR : WD_SPARE_OUT];
			fds[n] = opipe[i][0];
			names[n++] = wd_spare_fd_names[i ? WD_SPARE_KEEP_ERR : WD_SPARE_KEEP_OUT];
		}
	if (cJSON_GetObjectItemCaseSensitive(c, "argv"))
		pid = spare_claim(sp, c, fds, names, n, cg, policy_file);
	cJSON_Delete(c);
	return pid;
}

static cJSON *op_run(const cJSON *req, int client, const cJSON *id, bool *deferred, bool create)
{
	static char *const no_argv[] = { NULL };
	char *label_name = NULL;
	cJSON *labels = NULL;
	unsigned int idle_s = 0;
	int xs[2] = { -1, -1 };
	static const char *const paths[] = { "audit", "report", "stdout", "stderr", "cwd" };
	const cJSON *argv = cJSON_GetObjectItemCaseSensitive(req, "argv"), *a;
	const cJSON *pol = cJSON_GetObjectItemCaseSensitive(req, "policy");
	const cJSON *wait = cJSON_GetObjectItemCaseSensitive(req, "wait");
	const cJSON *stream = cJSON_GetObjectItemCaseSensitive(req, "stream");
	const char *holds = str_field(req, "holds");
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(req, "stdin");
	struct wd_policy_derive derive = { 0 };
	int ipipe[2] = { -1, -1 };
	bool streamed_in = false;
	int opipe[2][2] = { { -1, -1 }, { -1, -1 } };
	bool ptyreq = cJSON_GetObjectItemCaseSensitive(req, "pty") != NULL, streams;
	struct winsize ws = { 0 };
	bool waits, holds_return;
	const char *backend = str_field(req, "backend") ?: d.backend, *policy = NULL, *report;
	char *policy_file = NULL, own_report[PATH_MAX];
	int pfd[2], n = 0, out, err;
	struct wd_cgroup cg = { .fd = -1 };
	char workdir[PATH_MAX] = "", hash[65] = "", *shape = NULL, *spare_cg = NULL;
	char *spare_policy = NULL;
	struct spare *spare = NULL;
	bool claimed = false;
	struct ring *ring = NULL;
	struct sup *s;
	cJSON *bad;
	char **args;
	pid_t pid = -1;

	if (cJSON_IsString(pol) &&
	    (pol->valuestring[0] == '/' || wd_is_template_name(pol->valuestring))) {
		policy = pol->valuestring;
	} else if (!cJSON_IsObject(pol)) {
		/* the daemon's working directory is not the client's */
		return error_reply("run: \"policy\" must be a policy (a JSON object), a template "
				   "name or a policy file's absolute path%s", "");
	}
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, paths[i]);
		const char *p = cJSON_IsString(v) ? v->valuestring : NULL;

		if (v && !p)
			return error_reply("run: \"%s\" must be a string", paths[i]);
		if (p && p[0] != '/')
			return error_reply("run: \"%s\" must be an absolute path", paths[i]);
	}
	if (wait && !cJSON_IsBool(wait))
		return error_reply("run: \"wait\" must be true or false%s", "");
	if (stream && !cJSON_IsBool(stream))
		return error_reply("run: \"stream\" must be true or false%s", "");
	if (cJSON_IsTrue(stream) && str_field(req, "stdout"))
		return error_reply("run: with \"stream\" the command's output comes on this "
				   "connection: no \"stdout\" file%s", "");
	if (cJSON_GetObjectItemCaseSensitive(req, "holds") &&
	    (!holds || (strcmp(holds, "events") && strcmp(holds, "return"))))
		return error_reply("run: \"holds\" must be \"events\" or \"return\"%s", "");
	holds_return = holds && !strcmp(holds, "return");
	if (cJSON_GetObjectItemCaseSensitive(req, "on_disconnect") &&
	    (!str_field(req, "on_disconnect") || (strcmp(str_field(req, "on_disconnect"), "keep") &&
						 strcmp(str_field(req, "on_disconnect"), "kill"))))
		return error_reply("run: \"on_disconnect\" must be \"keep\" or \"kill\"%s", "");
	if (in && !cJSON_IsString(in))
		return error_reply("run: \"stdin\" must be a string (what the command reads, then "
				   "end of file)%s", "");
	if (cJSON_GetObjectItemCaseSensitive(req, "stdin_stream") &&
	    (!cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(req, "stdin_stream")) ||
	     (in && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(req, "stdin_stream")))))
		return error_reply("run: \"stdin_stream\" must be true or false, and not with "
				   "\"stdin\"%s", "");
	streamed_in = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(req, "stdin_stream"));
	if (ptyreq && (bad = pty_fields(req, &ws)))
		return bad;
	/* a terminal is the command's stdin, stdout and stderr: all of it streamed */
	if (ptyreq)
		streamed_in = true;
	/* a streamed run ends with its exit event, as one that waits; so does one whose holds return */
	streams = cJSON_IsTrue(stream) || ptyreq;
	waits = cJSON_IsTrue(wait) || streams || holds;
	bad = NULL;
	if (!create && (!cJSON_IsArray(argv) || cJSON_GetArraySize(argv) < 1))
		bad = error_reply("run: \"argv\" must be a non-empty array of strings%s", "");
	if (create)
		argv = NULL; /* none: its commands come by exec */
	cJSON_ArrayForEach(a, argv)
		if (!bad && !cJSON_IsString(a))
			bad = error_reply("run: \"argv\" must be a non-empty array of strings%s", "");
	if (!bad && !backend_name_ok(backend))
		bad = error_reply("run: \"backend\" must be auto, bpf-lsm or landlock, not %s",
				  backend);
	if (!bad && create)
		bad = create_fields(req, &label_name, &labels, &idle_s);
	s = bad ? NULL : sup_free_slot();
	if (!bad && !s)
		bad = coded_error("busy", "run: this daemon supervises as many sandboxes as it "
				  "may%s", "");
	/* its execs' socket; its report is written for its destroy to answer with */
	if (!bad && create && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, xs))
		bad = coded_error("internal", "create: socketpair: %s", strerror(errno));
	if (bad) {
		free(label_name);
		cJSON_Delete(labels);
		return bad;
	}
	waits = waits || create;
	if (!policy) {
		policy_file = write_inline_policy(pol, "policies");
		if (!policy_file)
			return coded_error("internal", "run: cannot write the policy for its "
					   "supervisor: %s", strerror(errno));
		policy = policy_file;
	}
	if (!bad)
		bad = run_derive(req, &derive);
	/* $WORKDIR as its supervisor will see it: where it starts (none: where wardend is) */
	if (!(str_field(req, "cwd") ? realpath(str_field(req, "cwd"), workdir)
				     : getcwd(workdir, sizeof(workdir))))
		workdir[0] = 0;
	if (!bad)
		bad = check_policy(policy, &derive, backend, workdir[0] ? workdir : NULL, hash);
	report = str_field(req, "report");
	own_report[0] = 0;
	if (!bad && waits && !report) {
		if (our_file(own_report, sizeof(own_report), "reports", "report"))
			bad = coded_error("internal", "run: cannot make a report file: %s",
					  strerror(errno));
		report = own_report;
	}
	if (!bad && pipe2(pfd, O_CLOEXEC))
		bad = coded_error("internal", "run: pipe: %s", strerror(errno));
	for (int i = 0; !bad && streams && !ptyreq && i < 2; i++)
		if (pipe2(opipe[i], O_CLOEXEC) || fcntl(opipe[i][0], F_SETFL, O_NONBLOCK))
			bad = coded_error("internal", "run: pipe: %s", strerror(errno));
	/* a terminal: its master is read as stdout and written as stdin; the slave the command's */
	if (!bad && ptyreq && (open_pty(opipe[0], &ws) ||
			       (ipipe[1] = fcntl(opipe[0][0], F_DUPFD_CLOEXEC, 3)) < 0))
		bad = coded_error("internal", "run: pty: %s", strerror(errno));
	/* a request is at most 64 KiB: its stdin fits a fresh pipe, written now, never waited on */
	if (!bad && in && (pipe2(ipipe, O_CLOEXEC) || fcntl(ipipe[1], F_SETFL, O_NONBLOCK) ||
			   write(ipipe[1], in->valuestring, strlen(in->valuestring)) !=
				   (ssize_t)strlen(in->valuestring)))
		bad = coded_error("internal", "run: stdin: %s", strerror(errno));
	/* streamed: the write end stays ours, for the stdin requests that follow */
	if (!bad && streamed_in && !ptyreq &&
	    (pipe2(ipipe, O_CLOEXEC) || fcntl(ipipe[1], F_SETFL, O_NONBLOCK)))
		bad = coded_error("internal", "run: stdin: %s", strerror(errno));
	if (ipipe[1] >= 0 && (bad || !streamed_in)) {
		close(ipipe[1]);
		ipipe[1] = -1;
	}
	if (bad) {
		for (int i = 0; i < 4; i++)
			if (opipe[i / 2][i % 2] >= 0)
				close(opipe[i / 2][i % 2]);
		for (int i = 0; i < 2; i++)
			if (xs[i] >= 0)
				close(xs[i]);
		free(label_name);
		cJSON_Delete(labels);
		if (ipipe[0] >= 0)
			close(ipipe[0]);
		wd_policy_derive_free(&derive);
		if (policy_file)
			unlink(policy_file);
		free(policy_file);
		return bad;
	}
	/* a run like the last: its spare, made ahead, if it still fits (wardend_spare.c) */
	if (!create && !ptyreq && hash[0] && workdir[0] && d.cfg.spares > 0)
		shape = spare_key(req, backend, workdir);
	spare = shape ? spare_match(shape, hash, workdir) : NULL;
	if (spare) {
		pid = claim_spare(spare, req, report, own_report[0] != 0, holds, waits, pfd[1],
				  ipipe[0], opipe, &spare_cg, &spare_policy);
		claimed = pid > 0;
	}
	if (pid < 0) {
		/* an empty pool is no error: the run makes its own cgroup (and ring) */
		wd_cgroup_pool_take(&d.pool, &cg);
		ring = ring_take(backend);
		fflush(NULL);
		pid = fork();
	}
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		if (ipipe[0] >= 0)
			close(ipipe[0]);
		if (ipipe[1] >= 0)
			close(ipipe[1]);
		wd_policy_derive_free(&derive);
		for (int i = 0; i < 4; i++)
			if (opipe[i / 2][i % 2] >= 0)
				close(opipe[i / 2][i % 2]);
		wd_cgroup_destroy(&cg);
		if (policy_file)
			unlink(policy_file);
		free(policy_file);
		for (int i = 0; i < 2; i++)
			if (xs[i] >= 0)
				close(xs[i]);
		free(label_name);
		cJSON_Delete(labels);
		free(shape);
		return coded_error("internal", "run: fork: %s", strerror(errno));
	}
	if (pid == 0) {
		struct wd_run_opts o = {
			.policy_path = policy,
			.audit_path = str_field(req, "audit"),
			.report_path = report,
			.backend = backend,
			.survive_s = d.cfg.survive_s,
			.ready_fd = pfd[1],
			.out_fd = { -1, opipe[0][1], opipe[1][1] },
			.derive = &derive,
			/* a supervisor's death ends a persistent sandbox: no successor takes execs */
			.persistent = create,
			.exec_fd = xs[1],
			.idle_s = idle_s,
		};

		child_common(ring ? ring->fd : -1);
		if (ring)
			wd_progs_ring_give(ring->fd, ring->key);
		prctl(PR_SET_NAME, "wardend-sup");
		if (ipipe[1] >= 0)
			close(ipipe[1]); /* wardend's alone: its close is the command's end of file */
		close(pfd[0]);
		if (create) {
			close(xs[0]);
			o.survive_s = 0;
		}
		if (create) {
			for (int i = 0; i < 2; i++)
				if (opipe[i][0] >= 0)
					close(opipe[i][0]);
		} else if (ptyreq) {
			/* the terminal's master is wardend's alone; the slave is fds 0-2 below */
			close(opipe[0][0]);
			o.out_fd[1] = -1;
			o.quiet = true;
			/* a successor's relay of the command's terminal is this run's stdout then */
			o.daemon_state = kept_state(req, waits ? report : NULL, own_report[0] != 0,
						    holds);
		} else {
			/* the keeper keeps the read ends and this for the next wardend */
			o.keep_out[0] = opipe[0][0];
			o.keep_out[1] = opipe[1][0];
			o.daemon_state = kept_state(req, waits ? report : NULL, own_report[0] != 0,
						    holds);
		}
		if (cg.fd >= 0)
			wd_cgroup_use_next(&cg);
		/* the command's output and the supervisor's messages: where the request says */
		args = calloc((size_t)(argv ? cJSON_GetArraySize(argv) : 0) + 1, sizeof(*args));
		/*
		 * a terminal's: a session of its own with it as the controlling terminal, so the
		 * supervisor relays it into the command's own pty as `warden run` on a terminal does
		 */
		if (ptyreq && (setsid() < 0 || ioctl(opipe[0][1], TIOCSCTTY, 0) ||
			       dup2(opipe[0][1], 0) < 0 || dup2(opipe[0][1], 1) < 0 ||
			       dup2(opipe[0][1], 2) < 0))
			_exit(125);
		out = ptyreq ? 1 : output_fd(str_field(req, "stdout"));
		err = ptyreq ? 2 : output_fd(str_field(req, "stderr"));
		/* the supervisor's own messages stay off the terminal: the request's stderr file */
		if (ptyreq)
			log_to(fdopen(output_fd(str_field(req, "stderr")), "a"));
		if (!args || out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
			_exit(125);
		/* its stderr is the request's file now, not the journal */
		log_journal_set(false);
		if (!ptyreq)
			dup2(ipipe[0] >= 0 ? ipipe[0] : open("/dev/null", O_RDONLY | O_CLOEXEC), 0);
		if (str_field(req, "cwd") && chdir(str_field(req, "cwd")))
			_exit(125);
		cJSON_ArrayForEach(a, argv)
			args[n++] = a->valuestring;
		o.argv = create ? no_argv : args;
		_exit(wd_run(&o));
	}
	close(pfd[1]);
	for (int i = 0; i < 2; i++)
		if (opipe[i][1] >= 0)
			close(opipe[i][1]);
	if (ipipe[0] >= 0)
		close(ipipe[0]);
	wd_policy_derive_free(&derive);
	if (ring)
		ring->user = pid;
	if (xs[1] >= 0)
		close(xs[1]);
	*s = (struct sup){ .pid = pid, .ready = pfd[0], .client = client, .waiter = -1,
			   .policy_file = policy_file, .out = { opipe[0][0], opipe[1][0] },
			   .streamed = streams, .pty = ptyreq, .hl = -1, .hand = -1, .resumer = -1,
			   .holds_events = holds != NULL, .holds_return = holds_return,
			   .persistent = create, .exec = xs[0], .label_name = label_name,
			   .labels = labels, .idle_s = idle_s, .exec_client = -1, .destroyer = -1,
			   .inspector = -1,
			   .kill_on_drop = str_field(req, "on_disconnect") &&
					   !strcmp(str_field(req, "on_disconnect"), "kill"),
			   .in_w = ipipe[1], .term = -1 };
	wd_outq_init(&s->in_q, STDIN_MAX);
	s->argv0 = create ? NULL : strdup(cJSON_GetArrayItem(argv, 0)->valuestring);
	s->id = id ? cJSON_Duplicate(id, true) : NULL;
	if (waits) {
		/* a persistent sandbox's end is told to its destroy, not to its create */
		s->waiter = create ? -1 : client;
		s->report = strdup(report);
		s->own_report = own_report[0] != 0;
	}
	if (cg.fd >= 0) {
		/* the supervisor has it now: its own fd, its own removal */
		close(cg.fd);
		s->cgroup = strdup(cg.path);
	}
	if (claimed) {
		/* a claimed spare: its cgroup and policy file, not this request's copy */
		s->from_spare = true;
		s->cgroup = spare_cg;
		if (policy_file)
			unlink(policy_file);
		free(policy_file);
		s->policy_file = spare_policy;
	}
	/* once it has ended, a spare is made for the next run like it (sup_release) */
	s->shape = shape;
	*deferred = true;
	return NULL;
}

/* "pty": true, or {"rows":N,"cols":N}; alone for the command's stdin and output. */
static cJSON *pty_fields(const cJSON *req, struct winsize *ws)
{
	/* ("stderr" is then the supervisor's messages alone) */
	static const char *const not_with[] = { "stdout", "stdin", "stdin_stream" };
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(req, "pty"), *k;

	for (size_t i = 0; i < sizeof(not_with) / sizeof(not_with[0]); i++)
		if (cJSON_GetObjectItemCaseSensitive(req, not_with[i]))
			return error_reply("run: with \"pty\" the terminal is the command's stdin and "
					   "output (streamed, and written by stdin requests): no \"%s\"",
					   not_with[i]);
	if (cJSON_IsTrue(p))
		return NULL;
	if (!cJSON_IsObject(p))
		return error_reply("run: \"pty\" must be true or {\"rows\":N,\"cols\":N}%s", "");
	cJSON_ArrayForEach(k, p) {
		bool rows = !strcmp(k->string, "rows"), cols = !strcmp(k->string, "cols");

		if ((!rows && !cols) || !cJSON_IsNumber(k) || k->valuedouble < 1 ||
		    k->valuedouble > 10000 || k->valuedouble != (int)k->valuedouble)
			return error_reply("run: \"pty\" takes \"rows\" and \"cols\", each 1 to "
					   "10000, not \"%.64s\"", k->string);
		if (rows)
			ws->ws_row = (unsigned short)k->valueint;
		else
			ws->ws_col = (unsigned short)k->valueint;
	}
	return NULL;
}

/* A terminal for a run: @pt[0] its master (non-blocking), @pt[1] its slave. 0 or -1 (errno). */
static int open_pty(int pt[2], const struct winsize *ws)
{
	int e;

	pt[0] = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (pt[0] < 0)
		return -1;
	if (grantpt(pt[0]) || unlockpt(pt[0]) || fcntl(pt[0], F_SETFL, O_NONBLOCK) ||
	    (pt[1] = ioctl(pt[0], TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0 ||
	    ((ws->ws_row || ws->ws_col) && ioctl(pt[0], TIOCSWINSZ, ws))) {
		e = errno;
		close(pt[0]);
		pt[0] = -1;
		errno = e;
		return -1;
	}
	return 0;
}

/*
 * What a successor hands the next wardend if this one dies while the run goes on (its keeper
 * keeps it, wd_run_opts.daemon_state): how the request asked to be answered, and the report
 * file its exit event reads. The text (a child's, never freed) or NULL.
 */
static char *kept_state(const cJSON *req, const char *report, bool own_report, const char *holds)
{
	cJSON *o = cJSON_CreateObject();
	const cJSON *argv = cJSON_GetObjectItemCaseSensitive(req, "argv");
	bool pty = cJSON_GetObjectItemCaseSensitive(req, "pty") != NULL;
	char *text;

	if (!o)
		return NULL;
	cJSON_AddBoolToObject(o, "streamed",
			      cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(req, "stream")) || pty);
	if (pty)
		cJSON_AddBoolToObject(o, "pty", true);
	if (holds)
		cJSON_AddStringToObject(o, "holds", holds);
	if (report) {
		cJSON_AddStringToObject(o, "report", report);
		cJSON_AddBoolToObject(o, "own_report", own_report);
	}
	if (cJSON_IsString(cJSON_GetArrayItem(argv, 0)))
		cJSON_AddStringToObject(o, "argv0", cJSON_GetArrayItem(argv, 0)->valuestring);
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return text;
}

static cJSON *op_list(void)
{
	cJSON *r = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(r, "sandboxes");

	cJSON_AddBoolToObject(r, "ok", true);
	for (int i = 0; i < MAX_SANDBOXES; i++) {
		const struct sup *s = &d.sups[i];
		cJSON *o;

		if (s->pid <= 0 || !s->name[0])
			continue;
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "sandbox", s->name);
		cJSON_AddNumberToObject(o, "supervisor", s->pid);
		cJSON_AddStringToObject(o, "how", s->adopted ? "taken over" : "run");
		if (s->argv0)
			cJSON_AddStringToObject(o, "command", s->argv0);
		if (s->persistent) {
			cJSON_AddBoolToObject(o, "persistent", true);
			if (s->label_name)
				cJSON_AddStringToObject(o, "name", s->label_name);
			if (s->labels)
				cJSON_AddItemToObject(o, "labels", cJSON_Duplicate(s->labels, true));
			cJSON_AddBoolToObject(o, "running", s->exec_running);
		}
		cJSON_AddItemToArray(arr, o);
	}
	return r;
}

static cJSON *op_kill(const cJSON *req)
{
	const char *name = str_field(req, "sandbox");
	struct sup *s = name ? sup_find(name) : NULL;
	cJSON *r;

	if (!name)
		return error_reply("kill: \"sandbox\" is required%s", "");
	if (!s)
		return coded_error("not_found", "kill: this daemon supervises no sandbox %s", name);
	/* its supervisor kills the sandbox, writes the exit record and removes it */
	if (kill(s->pid, SIGTERM))
		return error_reply("kill: %s", strerror(errno));
	r = cJSON_CreateObject();
	cJSON_AddBoolToObject(r, "ok", true);
	return r;
}

/*
 * Who may do what on control.sock, asked of the kernel on every request (the peer's uid and
 * groups as of its connect, its cgroup now): root everything; a member of approver_group what
 * changes no sandbox (list, status); anyone else, and any process inside a sandbox, nothing.
 */

static enum role peer_role(int fd)
{
	struct wd_peer *p = malloc(sizeof(*p));
	enum role r = ROLE_SANDBOXED;

	/* credentials that cannot be read are a sandboxed nobody's (wd_peer_read) */
	if (!p || wd_peer_read(fd, p) || p->in_sandbox)
		goto out;
	r = ROLE_NONE;
	if (wd_peer_is(p, 0))
		r = ROLE_ROOT;
	else if (wd_peer_has_group(p, d.cfg.approver_gid))
		r = ROLE_APPROVER;
out:
	free(p);
	return r;
}

/* What changes which sandboxes run: root's alone. Approvers may do every other op. */
static bool root_op(const char *op)
{
	return !strcmp(op, "run") || !strcmp(op, "kill") || !strcmp(op, "create") ||
	       !strcmp(op, "exec") || !strcmp(op, "destroy") || !strcmp(op, "attach") ||
	       !strcmp(op, "put") || !strcmp(op, "get") || !strcmp(op, "stdin");
}

/* The refusal of @op to the peer @c: a reply (code forbidden) and a record in wardend's log. */
static cJSON *forbidden(const struct client *c, const char *op)
{
	char msg[512];
	cJSON *r;

	log_warnx("control: refused %s to %s: forbidden", op, c->who);
	snprintf(msg, sizeof(msg), "%s may not %s (root may do everything%s%s%s, from outside "
		 "every sandbox)", c->who, op,
		 d.cfg.approver_group[0] ? "; group " : "", d.cfg.approver_group,
		 d.cfg.approver_group[0] ? " may list, status, inspect, holds, subscribe, approve and deny" :
		 "");
	r = coded_error("forbidden", "%s", msg);
	return r;
}

/* The refusal of a process inside a sandbox, whatever its uid: a reply and a log record. */
static cJSON *sandboxed(const struct client *c)
{
	log_warnx("control: refused %s inside a sandbox: forbidden", c->who);
	return coded_error("forbidden", "no process inside a sandbox may use wardend%s", "");
}

/* One request line: true when the client is to be dropped (it may do nothing here). */
static bool handle(struct client *c, const char *line)
{
	struct wd_request q;
	cJSON *bad = wd_request_parse(line, strlen(line), &q), *r = NULL, *req = q.req;
	const char *op = q.op;
	const cJSON *id = q.id;
	enum role role = peer_role(c->fd);
	bool deferred = false;

	if (role == ROLE_SANDBOXED)
		r = sandboxed(c);
	else if (role == ROLE_NONE)
		r = forbidden(c, "use wardend");
	else if (role == ROLE_APPROVER && op && root_op(op))
		r = forbidden(c, op);
	else if (bad) {
		r = bad;
		bad = NULL;
	} else if (strcmp(op, "run") == 0)
		r = op_run(req, c->fd, id, &deferred, false);
	else if (strcmp(op, "create") == 0)
		r = op_run(req, c->fd, id, &deferred, true);
	else if (strcmp(op, "exec") == 0)
		r = op_exec(req, c->fd, id);
	else if (strcmp(op, "inspect") == 0)
		r = op_inspect(req, c->fd, id);
	else if (strcmp(op, "destroy") == 0)
		r = op_destroy(req, c->fd, id);
	else if (strcmp(op, "attach") == 0)
		r = op_attach(req, c->fd, id);
	else if (strcmp(op, "put") == 0)
		r = op_put(req, c->fd, id);
	else if (strcmp(op, "stdin") == 0)
		r = op_stdin(req);
	else if (strcmp(op, "get") == 0)
		r = op_get(req, c->fd, id);
	else if (strcmp(op, "resume") == 0)
		r = op_resume(req, c->fd, id, &deferred);
	else if (strcmp(op, "list") == 0)
		r = op_list();
	else if (strcmp(op, "kill") == 0)
		r = op_kill(req);
	else if (strcmp(op, "status") == 0)
		r = op_status();
	else
		r = op_relay(c, req, op, id); /* holds, subscribe, approve, deny */
	if (r)
		send_reply_id(c->fd, r, id);
	cJSON_Delete(bad);
	wd_request_free(&q);
	(void)deferred;
	return role <= ROLE_NONE;
}

static void drop(struct client *c)
{
	/* a run waiting to answer this client answers no one */
	for (int i = 0; i < MAX_SANDBOXES; i++) {
		if (d.sups[i].client == c->fd)
			d.sups[i].client = -1;
		if (d.sups[i].waiter == c->fd && d.sups[i].kill_on_drop && d.sups[i].pid > 0) {
			/* it asked: its client's going ends the run (its supervisor kills it) */
			log_info("%s: its client went: ending it (on_disconnect kill)", d.sups[i].name);
			kill(d.sups[i].pid, SIGTERM);
		}
		if (d.sups[i].waiter == c->fd)
			d.sups[i].waiter = -1;
		if (d.sups[i].resumer == c->fd)
			d.sups[i].resumer = -1;
		if (d.sups[i].exec_client == c->fd)
			d.sups[i].exec_client = -1;
		if (d.sups[i].destroyer == c->fd)
			d.sups[i].destroyer = -1;
		if (d.sups[i].inspector == c->fd)
			d.sups[i].inspector = -1;
	}
	relay_drop_client(c->fd);
	resumes_drop(c->fd);
	if (c->fd >= 0)
		close(c->fd);
	wd_lines_free(&c->in);
	wd_outq_free(&c->out);
	*c = (struct client){ .fd = -1 };
}

static void on_client(struct client *c)
{
	ssize_t n = wd_lines_fill(&c->in, c->fd);
	size_t len;
	char *line;
	int r;

	if (n == -EAGAIN)
		return;
	if (n == 0 || (n < 0 && n != -EMSGSIZE)) {
		drop(c);
		return;
	}
	while ((r = wd_lines_next(&c->in, &line, &len)) != 0) {
		if (r == -EMSGSIZE) {
			send_reply(c->fd, error_reply("a request is at most %s bytes", "65535"));
			drop(c);
			return;
		}
		/* a line with a NUL byte in it is no request: answered as garbage */
		if (handle(c, r > 0 ? line : "")) {
			/* one refusal each: then its connection goes */
			drop(c);
			return;
		}
	}
}

/*
 * Approvers' connections at most, so root always finds a place; and of peers that may do
 * nothing here (each kept until its first request is answered "forbidden", so it reads why
 * rather than a closed socket), fewer still.
 */
#define MAX_APPROVER_CLIENTS (MAX_CLIENTS - 4)
#define MAX_REFUSED_CLIENTS 4

static void on_accept(void)
{
	struct wd_peer *cr = malloc(sizeof(*cr));
	int fd = cr ? wd_sock_accept(d.listen_fd, SOCK_CLOEXEC | SOCK_NONBLOCK, cr) : -ENOMEM;
	struct client who = { .fd = fd };
	int approvers = 0, refused = 0, limit;
	struct passwd *pw;
	enum role role;

	if (fd < 0)
		goto out;
	pw = getpwuid(cr->uid);
	snprintf(who.who, sizeof(who.who), "uid %u (%s)", (unsigned int)cr->uid,
		 pw ? pw->pw_name : "?");
	role = cr->in_sandbox ? ROLE_SANDBOXED : wd_peer_is(cr, 0) ? ROLE_ROOT :
	       wd_peer_has_group(cr, d.cfg.approver_gid) ? ROLE_APPROVER : ROLE_NONE;
	for (int i = 0; i < MAX_CLIENTS; i++) {
		approvers += d.clients[i].fd >= 0 && d.clients[i].role == ROLE_APPROVER;
		refused += d.clients[i].fd >= 0 && d.clients[i].role <= ROLE_NONE;
	}
	limit = role == ROLE_ROOT ? MAX_CLIENTS : role == ROLE_APPROVER ?
		MAX_APPROVER_CLIENTS - approvers : MAX_REFUSED_CLIENTS - refused;
	for (int i = 0; i < MAX_CLIENTS && limit > 0; i++)
		if (d.clients[i].fd < 0) {
			d.clients[i] = who;
			d.clients[i].role = role;
			wd_lines_init(&d.clients[i].in, REQ_MAX - 1);
			wd_outq_init(&d.clients[i].out, OUTQ_MAX);
			goto out;
		}
	if (role <= ROLE_NONE)
		send_reply(fd, role == ROLE_SANDBOXED ? sandboxed(&who) :
			   forbidden(&who, "use wardend"));
	else
		send_reply(fd, coded_error("busy", "too many clients%s", ""));
	close(fd);
out:
	free(cr);
}

/* The hold of @s whose token is @token (in s->held), or NULL. */
static cJSON *held_by_token(const struct sup *s, const char *token)
{
	cJSON *h;

	cJSON_ArrayForEach(h, s->held) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(h, "token");

		if (cJSON_IsString(t) && !strcmp(t->valuestring, token))
			return h;
	}
	return NULL;
}

static void held_remove(struct sup *s, const cJSON *hold)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(hold, "id");
	int i = 0;
	cJSON *h;

	cJSON_ArrayForEach(h, s->held) {
		if (cJSON_Compare(cJSON_GetObjectItemCaseSensitive(h, "id"), id, true)) {
			cJSON_DeleteItemFromArray(s->held, i);
			return;
		}
		i++;
	}
}

/*
 * A hold of @s (a HOLD object, its supervisor's): kept for resume; to the client waiting for
 * the run as {"event":"hold",...}, or, when it asked "holds":"return", as the request's end,
 * {"status":"held","sandbox":S,"token":T,"hold":HOLD}: the process stays held in the kernel
 * until a resume (on any connection) presents the token.
 */
static void tell_hold(struct sup *s, const cJSON *hold)
{
	const cJSON *tok = cJSON_GetObjectItemCaseSensitive(hold, "token");
	cJSON *e;

	if (s->waiter < 0 || !s->holds_events)
		return;
	e = cJSON_CreateObject();
	if (s->holds_return) {
		cJSON_AddStringToObject(e, "status", "held");
		cJSON_AddStringToObject(e, "sandbox", s->name);
		cJSON_AddStringToObject(e, "token", tok->valuestring);
	} else {
		cJSON_AddStringToObject(e, "event", "hold");
		cJSON_AddStringToObject(e, "sandbox", s->name);
	}
	cJSON_AddItemToObject(e, "hold", cJSON_Duplicate(hold, true));
	send_line(s->waiter, e, s->id, 0);
	if (s->holds_return)
		s->waiter = -1; /* that request has its answer; a resume carries the run on */
}

void tell_held(struct sup *s)
{
	const cJSON *h;

	cJSON_ArrayForEach(h, s->held)
		tell_hold(s, h);
}

static void on_hold(struct sup *s, const cJSON *hold)
{
	const cJSON *tok = cJSON_GetObjectItemCaseSensitive(hold, "token");

	if (!cJSON_IsString(tok) || held_by_token(s, tok->valuestring))
		return;
	cJSON_AddItemToArray(s->held, cJSON_Duplicate(hold, true));
	tell_hold(s, hold);
}

/* A line from @s's holds link: an event, or the answer to the resume's decide. */
static void holds_line(struct sup *s, const char *line)
{
	cJSON *m = cJSON_Parse(line), *r;
	const cJSON *ev = m ? cJSON_GetObjectItemCaseSensitive(m, "event") : NULL;
	const cJSON *hold = m ? cJSON_GetObjectItemCaseSensitive(m, "hold") : NULL;
	const cJSON *arr = m ? cJSON_GetObjectItemCaseSensitive(m, "holds") : NULL, *h;

	if (!m)
		goto out;
	if (cJSON_IsString(ev) && !strcmp(ev->valuestring, "hold") && cJSON_IsObject(hold)) {
		on_hold(s, hold);
	} else if (cJSON_IsString(ev) && !strcmp(ev->valuestring, "decision")) {
		if (cJSON_IsObject(hold))
			held_remove(s, hold);
		if (s->waiter >= 0 && s->holds_events) {
			r = cJSON_Duplicate(m, true);
			cJSON_DeleteItemFromObject(r, "v");
			cJSON_AddStringToObject(r, "sandbox", s->name);
			send_line(s->waiter, r, s->id, 0);
		}
	} else if (cJSON_IsArray(arr)) {
		/* the listing asked for at the link's start: holds pending before it */
		cJSON_ArrayForEach(h, arr)
			if (cJSON_IsObject(h))
				on_hold(s, h);
		s->hl_listed = true;
	} else if (s->resumer >= 0 && cJSON_GetObjectItemCaseSensitive(m, "ok")) {
		const cJSON *err = cJSON_GetObjectItemCaseSensitive(m, "error");

		bool attach = false;
		cJSON *hh;

		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "ok"))) {
			r = cJSON_CreateObject();
			cJSON_AddBoolToObject(r, "ok", true);
			cJSON_AddStringToObject(r, "sandbox", s->name);
			/* decided: whatever its decision event says later */
			hh = held_by_token(s, s->resume_token);
			if (hh)
				held_remove(s, hh);
			attach = s->resume_attach && s->waiter < 0;
		} else {
			r = coded_error("not_found", "resume: %s",
					cJSON_IsString(err) ? err->valuestring : "refused");
		}
		send_line(s->resumer, r, s->resume_id, 0);
		if (attach) {
			/* the run goes on on this connection: its output, holds and end */
			s->waiter = s->resumer;
			cJSON_Delete(s->id);
			s->id = s->resume_id ? cJSON_Duplicate(s->resume_id, true) : NULL;
			/* what it wrote since the held result, then what was held meanwhile */
			send_missed(s);
			cJSON_ArrayForEach(hh, s->held)
				if (s->waiter >= 0)
					tell_hold(s, hh);
		}
		s->resumer = -1;
		cJSON_Delete(s->resume_id);
		s->resume_id = NULL;
		free(s->resume_token);
		s->resume_token = NULL;
	}
	/* the subscribe's own answer needs nothing */
out:
	cJSON_Delete(m);
}

/* @s's holds link is readable: its lines; at EOF (the supervisor ended) it closes. */
static bool holds_read(struct sup *s)
{
	ssize_t n = wd_lines_fill(&s->hl_in, s->hl);
	size_t len;
	char *line;
	int r;

	if (n == -EAGAIN)
		return false;
	if (n <= 0 && n != -EMSGSIZE) {
		holds_unlink(s);
		return false;
	}
	while ((r = wd_lines_next(&s->hl_in, &line, &len)) != 0) {
		if (r == -EMSGSIZE) {
			holds_unlink(s);
			return false;
		}
		if (r > 0)
			holds_line(s, line);
	}
	return s->hl >= 0;
}

/*
 * At its supervisor's end, what it said on the link before it went: the answer to a resume's
 * decide may be there still unread (its exit can be seen first, the signal coming first in the
 * loop).
 */
static void holds_drain(struct sup *s)
{
	for (int k = 0; k < 4096 && s->hl >= 0 && holds_read(s); k++)
		;
}

/*
 * Link @s to its supervisor's holds socket, if it has one: subscribe, and list what is held
 * already (a successor's holds, after a restart). 0 when linked or there is nothing to link
 * to yet; the supervisor is ours and answers at once.
 */
static int holds_link(struct sup *s)
{
	static const char hello[] = "{\"v\":1,\"op\":\"subscribe\"}\n{\"v\":1,\"op\":\"holds\"}\n";
	char path[108];
	int fd;

	if (s->hl >= 0 || !s->name[0] ||
	    wd_run_sock_path(path, sizeof(path), WD_SOCK_HOLDS, s->name))
		return 0;
	fd = wd_sock_connect(path, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return fd; /* its policy holds nothing, or its successor does not serve yet */
	if (wd_line_write(fd, hello, sizeof(hello) - 1, 2000)) {
		close(fd);
		return -EIO;
	}
	s->hl = fd;
	s->hl_listed = false;
	wd_lines_init(&s->hl_in, 1u << 26);
	if (!s->held)
		s->held = cJSON_CreateArray();
	return 0;
}

static void holds_unlink(struct sup *s)
{
	if (s->hl >= 0) {
		close(s->hl);
		wd_lines_free(&s->hl_in);
	}
	s->hl = -1;
	if (s->resumer >= 0)
		send_line(s->resumer, coded_error("not_found", "resume: %s ended before it "
						  "answered", s->name), s->resume_id, 0);
	s->resumer = -1;
	cJSON_Delete(s->resume_id);
	s->resume_id = NULL;
	free(s->resume_token);
	s->resume_token = NULL;
	cJSON_Delete(s->held);
	s->held = NULL;
}

/*
 * A sandbox being taken over has not yet told what it holds: its successor has not handed it
 * over, or its holds link has not listed what was held before it came.
 */
static bool taking_over(void)
{
	for (int i = 0; i < MAX_SANDBOXES; i++) {
		const struct sup *s = &d.sups[i];

		if (s->pid > 0 && s->adopted && (s->hand >= 0 || (s->hl >= 0 && !s->hl_listed)))
			return true;
	}
	return false;
}

/* Keep resume @req of @client for when the take-overs have told: false if there is no room. */
static bool resume_later(const cJSON *req, int client)
{
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (!d.later[i].req) {
			d.later[i].req = cJSON_Duplicate(req, true);
			d.later[i].client = client;
			return d.later[i].req != NULL;
		}
	return false;
}

/* The resumes kept for the take-overs, asked again now that one has told (or ended). */
static void resumes_again(void)
{
	for (int i = 0; i < MAX_CLIENTS; i++) {
		cJSON *req = d.later[i].req, *r;
		const cJSON *id;
		bool deferred = false;

		if (!req || taking_over())
			continue;
		d.later[i].req = NULL;
		id = cJSON_GetObjectItemCaseSensitive(req, "id");
		r = op_resume(req, d.later[i].client, id, &deferred);
		if (r)
			send_reply_id(d.later[i].client, r, id);
		cJSON_Delete(req);
	}
}

/* @fd's client went: its kept resumes go too. */
static void resumes_drop(int fd)
{
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (d.later[i].req && d.later[i].client == fd) {
			cJSON_Delete(d.later[i].req);
			d.later[i].req = NULL;
		}
}

/*
 * {"op":"resume","token":T,"resolution":"approve"|"deny","scope":...,"subtree":P,"count":N,
 * "ttl_ms":N}: the held operation whose token is T, decided; the request's connection then
 * carries the run on (output, holds, exit) when no other waits for it.
 */
static cJSON *op_resume(const cJSON *req, int client, const cJSON *id, bool *deferred)
{
	/* what a decide takes besides the token */
	static const char *const passed[] = { "scope", "subtree", "count", "ttl_ms", NULL };
	const char *token = str_field(req, "token"), *res = str_field(req, "resolution");
	cJSON *hold = NULL, *dec;
	struct sup *s = NULL;
	char *text;
	size_t len;
	int err;

	if (!token)
		return error_reply("resume: \"token\" is required%s", "");
	if (!res || (strcmp(res, "approve") && strcmp(res, "deny")))
		return error_reply("resume: \"resolution\" must be \"approve\" or \"deny\"%s", "");
	for (int pass = 0; pass < 2 && !hold; pass++)
		for (int i = 0; i < MAX_SANDBOXES && !hold; i++) {
			if (d.sups[i].pid <= 0)
				continue;
			/* a successor that serves now, linked on the way (after a restart) */
			if (pass)
				holds_link(&d.sups[i]);
			if (d.sups[i].held && (hold = held_by_token(&d.sups[i], token)))
				s = &d.sups[i];
		}
	if (!hold && taking_over() && resume_later(req, client)) {
		*deferred = true;
		return NULL;
	}
	if (!hold)
		return coded_error("not_found", "resume: no held operation has this token (decided "
				   "already, or its sandbox gone)%s", "");
	if (s->resumer >= 0)
		return coded_error("busy", "resume: another resume of %s waits for its answer",
				   s->name);
	dec = cJSON_CreateObject();
	cJSON_AddNumberToObject(dec, "v", 1);
	cJSON_AddStringToObject(dec, "op", "decide");
	cJSON_AddItemToObject(dec, "id",
			      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(hold, "id"), true));
	cJSON_AddStringToObject(dec, "token", token);
	cJSON_AddBoolToObject(dec, "allow", !strcmp(res, "approve"));
	for (const char *const *k = passed; *k; k++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, *k);

		if (v)
			cJSON_AddItemToObject(dec, *k, cJSON_Duplicate(v, true));
	}
	text = wd_json_line(dec, &len);
	cJSON_Delete(dec);
	err = text ? wd_line_write(s->hl, text, len, 2000) : -ENOMEM;
	free(text);
	if (err)
		return coded_error("internal", "resume: cannot reach the supervisor of %s",
				   s->name);
	s->resumer = client;
	s->resume_id = id ? cJSON_Duplicate(id, true) : NULL;
	s->resume_token = strdup(token);
	/*
	 * a persistent sandbox's execs answer their own requests: nothing to carry on here, but
	 * for an exec whose request a hold ended ("holds":"return"), which this one carries on
	 */
	s->resume_attach = !s->persistent || (s->exec_running && s->holds_return && s->waiter < 0);
	*deferred = true;
	return NULL;
}

/* A run's supervisor said its sandbox's name (or ended before it had one). */
static void on_ready(struct sup *s)
{
	char buf[sizeof(s->name)];
	ssize_t n = read(s->ready, buf, sizeof(buf) - 1);
	cJSON *r;

	close(s->ready);
	s->ready = -1;
	if (n <= 0 || buf[n - 1] != '\n')
		return; /* on_exit_status() answers */
	buf[n - 1] = 0;
	memcpy(s->name, buf, (size_t)n);
	log_info("%s runs %s (supervisor %d%s)", s->name,
		 s->argv0 ? s->argv0 : "(a persistent sandbox)", (int)s->pid,
		 s->from_spare ? ", a spare made ahead" : "");
	holds_link(s);
	if (s->client >= 0) {
		r = cJSON_CreateObject();
		cJSON_AddBoolToObject(r, "ok", true);
		cJSON_AddStringToObject(r, "sandbox", s->name);
		cJSON_AddNumberToObject(r, "supervisor", s->pid);
		if (s->from_spare)
			cJSON_AddBoolToObject(r, "spare", true);
		send_reply_id(s->client, r, s->id);
		s->client = -1;
	}
}

/* The report file @path as JSON, or NULL (none written, or not JSON). */
cJSON *read_report(const char *path)
{
	char buf[65536];
	ssize_t n = -1;
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;

	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n <= 0)
		return NULL;
	buf[n] = 0;
	return cJSON_Parse(buf);
}

/*
 * How many bytes at the end of @n at @b begin a UTF-8 sequence the read cut (0 to 3): they
 * wait for the rest, so a character is never split over two events.
 */
static size_t utf8_cut(const char *b, size_t n)
{
	for (size_t back = 1; back <= 3 && back <= n; back++) {
		unsigned char c = (unsigned char)b[n - back];
		size_t need;

		if ((c & 0xc0) == 0x80)
			continue; /* a continuation byte: look further back */
		need = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 1;
		return need > back ? back : 0;
	}
	return 0;
}

/*
 * @n bytes of stream @i (0 stdout, 1 stderr) of a streamed run, to the client waiting for it:
 * {"event":"stdout","sandbox":S,"data":TEXT} where they are UTF-8 without NUL, else
 * "data_b64" (RFC 4648). Counted lost when no client waits or its queue is full.
 */
static void stream_emit(struct sup *s, int i, char *b, size_t n)
{
	cJSON *e;
	char *b64 = NULL;

	if (!n)
		return;
	if (s->transfer) {
		transfer_take(s, b, n);
		return;
	}
	if (s->waiter < 0) {
		/* kept for a client that attaches, up to the bound; what passes it is lost */
		size_t all = s->missed_len[0] + s->missed_len[1];
		char *m = s->streamed && all + n <= MISSED_MAX ?
			realloc(s->missed[i], s->missed_len[i] + n + 1) : NULL;

		if (!m) {
			s->out_lost[i] += n;
			return;
		}
		memcpy(m + s->missed_len[i], b, n);
		s->missed[i] = m;
		s->missed_len[i] += n;
		return;
	}
	e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "event", i ? "stderr" : "stdout");
	cJSON_AddStringToObject(e, "sandbox", s->name);
	if (wd_audit_utf8_valid(b, n) && !memchr(b, 0, n)) {
		char keep = b[n];

		b[n] = 0; /* the buffer has room past the chunk */
		cJSON_AddStringToObject(e, "data", b);
		b[n] = keep;
	} else {
		b64 = wd_audit_base64(b, n);
		cJSON_AddStringToObject(e, "data_b64", b64 ? b64 : "");
	}
	free(b64);
	if (send_line(s->waiter, e, s->id, OUTQ_STREAM_MAX))
		s->out_lost[i] += n;
	else
		s->out_bytes[i] += n;
}

void stdin_flush(struct sup *s)
{
	int r = s->in_w >= 0 ? wd_outq_flush(&s->in_q, s->in_w) : 0;

	/* gone (the command closed its end: EPIPE), or all sent and its end of file asked for */
	if (s->in_w >= 0 && ((r && r != -EAGAIN) || (!r && s->in_eof))) {
		close(s->in_w);
		s->in_w = -1;
		wd_outq_free(&s->in_q);
	}
}

cJSON *op_stdin(const cJSON *req)
{
	const char *name = str_field(req, "sandbox");
	const cJSON *data = cJSON_GetObjectItemCaseSensitive(req, "data");
	const cJSON *b64 = cJSON_GetObjectItemCaseSensitive(req, "data_b64");
	const cJSON *eof = cJSON_GetObjectItemCaseSensitive(req, "eof");
	struct sup *s = name ? sup_find(name) : NULL;
	unsigned char *bytes = NULL;
	cJSON *r;
	long n = 0;
	int err = 0;

	if (!name)
		return error_reply("stdin: \"sandbox\" (its id or name) is required%s", "");
	if (!s || !s->name[0])
		return coded_error("not_found", "stdin: no sandbox %s here", name);
	if ((data && !cJSON_IsString(data)) || (b64 && !cJSON_IsString(b64)) || (data && b64) ||
	    (eof && !cJSON_IsBool(eof)))
		return error_reply("stdin: \"data\" (UTF-8) or \"data_b64\", and \"eof\" (true "
				   "or false)%s", "");
	if (s->in_w < 0)
		return coded_error("not_found", "stdin: %s reads no streamed stdin (not asked, or "
				   "ended)", s->name);
	if (data) {
		n = (long)strlen(data->valuestring);
		bytes = (unsigned char *)data->valuestring;
	} else if (b64) {
		bytes = malloc(strlen(b64->valuestring) + 1);
		n = bytes ? wd_audit_unbase64(b64->valuestring, bytes) : -1;
		if (n < 0) {
			free(bytes);
			return error_reply("stdin: \"data_b64\" is no base64%s", "");
		}
	}
	if (n > 0)
		err = wd_outq_push(&s->in_q, (const char *)bytes, (size_t)n);
	if (b64)
		free(bytes);
	if (err == -ENOBUFS)
		return coded_error("busy", "stdin: %s has 1 MiB waiting to be read already: send "
				   "again when it has read some", s->name);
	if (err)
		return coded_error("internal", "stdin: %s", strerror(-err));
	/* a terminal's end of file is its EOF character (the command reads a line's end) */
	if (cJSON_IsTrue(eof) && s->pty && !s->in_eof)
		err = wd_outq_push(&s->in_q, "\x04", 1);
	if (err)
		return coded_error("internal", "stdin: %s", strerror(-err));
	if (cJSON_IsTrue(eof))
		s->in_eof = true;
	r = cJSON_CreateObject();
	cJSON_AddBoolToObject(r, "ok", true);
	cJSON_AddStringToObject(r, "sandbox", s->name);
	stdin_flush(s);
	cJSON_AddNumberToObject(r, "waiting_bytes", (double)wd_outq_pending(&s->in_q));
	return r;
}

cJSON *op_attach(const cJSON *req, int client, const cJSON *id)
{
	const char *name = str_field(req, "sandbox");
	struct sup *s = name ? sup_find(name) : NULL;
	size_t missed;
	cJSON *r;

	if (!name)
		return error_reply("attach: \"sandbox\" (its id or name) is required%s", "");
	if (!s || !s->name[0])
		return coded_error("not_found", "attach: no sandbox %s here", name);
	if (s->waiter >= 0 || s->exec_client >= 0)
		return coded_error("busy", "attach: a client waits for %s already", s->name);
	if (!s->streamed && !s->report)
		return error_reply("attach: %s was run without \"wait\" or \"stream\": it has no "
				   "end to tell", s->name);
	missed = s->missed_len[0] + s->missed_len[1];
	s->waiter = client;
	cJSON_Delete(s->id);
	s->id = id ? cJSON_Duplicate(id, true) : NULL;
	r = cJSON_CreateObject();
	cJSON_AddBoolToObject(r, "ok", true);
	cJSON_AddStringToObject(r, "sandbox", s->name);
	cJSON_AddNumberToObject(r, "missed_bytes", (double)missed);
	cJSON_AddNumberToObject(r, "lost_bytes", (double)(s->out_lost[0] + s->out_lost[1]));
	send_reply_id(client, r, s->id);
	send_missed(s);
	return NULL;
}

/* What @s's output kept while no client waited, to the one that waits now, before anything newer. */
static void send_missed(struct sup *s)
{
	for (int i = 0; i < 2; i++) {
		char *m = s->missed[i];
		size_t n = s->missed_len[i];

		s->missed[i] = NULL;
		s->missed_len[i] = 0;
		for (size_t off = 0, k; off < n; off += k) {
			k = n - off < STREAM_CHUNK ? n - off : STREAM_CHUNK;
			/* a character cut at the chunk's end goes whole into the next */
			if (off + k < n && utf8_cut(m + off, k) < k)
				k -= utf8_cut(m + off, k);
			/* (stream_emit ends the chunk with a NUL for a moment: m has a byte to spare) */
			stream_emit(s, i, m + off, k);
		}
		free(m);
	}
}

/* Stream @i of @s is readable: a chunk of it on (a cut character waits); at EOF it closes. */
static void stream_read(struct sup *s, int i)
{
	char buf[STREAM_CHUNK + 8];
	size_t kept = s->out_kept[i], len, cut;
	ssize_t n;

	memcpy(buf, s->out_keep[i], kept);
	do {
		n = read(s->out[i], buf + kept, STREAM_CHUNK);
	} while (n < 0 && errno == EINTR);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	if (n <= 0) {
		stream_emit(s, i, buf, kept); /* a cut sequence at the end: as it is */
		s->out_kept[i] = 0;
		close(s->out[i]);
		s->out[i] = -1;
		return;
	}
	len = kept + (size_t)n;
	cut = utf8_cut(buf, len);
	stream_emit(s, i, buf, len - cut);
	memcpy(s->out_keep[i], buf + len - cut, cut);
	s->out_kept[i] = cut;
}

/* At the run's end, every writer gone: what is left in its pipes, then they close. */
void stream_drain(struct sup *s)
{
	for (int i = 0; i < 2; i++) {
		for (int k = 0; k < 4096 && s->out[i] >= 0; k++)
			stream_read(s, i);
		if (s->out[i] >= 0) {
			close(s->out[i]);
			s->out[i] = -1;
		}
	}
}

/*
 * The run's end, to the client that asked to wait: {"event":"exit","sandbox":S,"code":N,
 * "report":{...}} with the supervisor's exit code (warden run's) and the run report; after a
 * take-over "taken_over":true and the report its successor wrote into the run's file (null
 * when the run asked for none, or none could be written).
 */
static void tell_exit(struct sup *s, int status)
{
	cJSON *e = cJSON_CreateObject(), *rep = read_report(s->report);
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(rep, "exit_code");

	cJSON_AddStringToObject(e, "event", "exit");
	if (s->name[0])
		cJSON_AddStringToObject(e, "sandbox", s->name);
	/* a successor's own status says it supervised to the end: the run's is in its report */
	cJSON_AddNumberToObject(e, "code", s->adopted && cJSON_IsNumber(code) ?
				code->valuedouble : wd_exit_code_of_wait(status));
	if (s->adopted)
		cJSON_AddBoolToObject(e, "taken_over", true);
	if (s->streamed) {
		cJSON *o = cJSON_AddObjectToObject(e, "output");

		cJSON_AddNumberToObject(o, "stdout_bytes", (double)s->out_bytes[0]);
		cJSON_AddNumberToObject(o, "stderr_bytes", (double)s->out_bytes[1]);
		cJSON_AddNumberToObject(o, "lost_bytes", (double)(s->out_lost[0] + s->out_lost[1]));
	}
	cJSON_AddItemToObject(e, "report", rep ? rep : cJSON_CreateNull());
	send_reply_id(s->waiter, e, s->id);
	s->waiter = -1;
}

/* What a sup slot holds of its request, let go (the slot is free, or taken over afresh). */
static void sup_release(struct sup *s)
{
	/* made now, not while it ran: its making takes no CPU from the run it is for */
	if (s->shape)
		spare_want(s->shape);
	free(s->shape);
	if (s->own_report && s->report)
		unlink(s->report);
	if (s->policy_file)
		unlink(s->policy_file);
	free(s->report);
	free(s->policy_file);
	free(s->argv0);
	cJSON_Delete(s->id);
	for (int i = 0; i < 2; i++)
		if (s->out[i] >= 0)
			close(s->out[i]);
	if (s->hand >= 0)
		close(s->hand);
	holds_unlink(s);
	if (s->exec >= 0)
		close(s->exec);
	free(s->label_name);
	free(s->missed[0]);
	free(s->missed[1]);
	free(s->xfer_path);
	free(s->got);
	cJSON_Delete(s->labels);
	cJSON_Delete(s->destroy_id);
	cJSON_Delete(s->inspect_id);
	if (s->in_w >= 0)
		close(s->in_w);
	if (s->term >= 0)
		close(s->term);
	wd_outq_free(&s->in_q);
	*s = (struct sup){ .out = { -1, -1 }, .hl = -1, .hand = -1, .resumer = -1, .exec = -1,
			   .exec_client = -1, .destroyer = -1, .inspector = -1, .in_w = -1, .term = -1 };
}

static void on_exit_status(struct sup *s, int status)
{
	bool crashed = WIFSIGNALED(status);

	if (s->ready >= 0)
		on_ready(s);
	/* a successor that handed over and ended at once: its output and report are read on */
	if (s->hand >= 0)
		on_hand(s);
	/* what it answered before it went (a resume's answer may wait unread there) */
	holds_drain(s);
	if (s->client >= 0) {
		char msg[64];
		cJSON *rep = read_report(s->report), *r;
		const cJSON *why = rep ? cJSON_GetObjectItemCaseSensitive(rep, "error") : NULL;

		snprintf(msg, sizeof(msg), "%d", wd_exit_code_of_wait(status));
		r = coded_error("start_failed", "run: the sandbox did not start (its supervisor "
				"exited %s; see its stderr and report)", msg);
		if (cJSON_IsString(why))
			cJSON_AddStringToObject(r, "reason", why->valuestring);
		send_reply_id(s->client, r, s->id);
		cJSON_Delete(rep);
		/* answered: nothing more to wait for */
		s->waiter = -1;
	}
	log_info("supervisor %d of %s ended (status %d)", (int)s->pid,
		 s->name[0] ? s->name : "(no sandbox)", status);
	ring_return(s->pid, s->name, crashed);
	/*
	 * A supervisor that ended before it used the cgroup it was given leaves it empty: it
	 * goes. One a sandbox still holds (its keeper kept it) is busy, and stays.
	 */
	if (s->cgroup)
		rmdir(s->cgroup);
	free(s->cgroup);
	s->cgroup = NULL;
	/* a persistent sandbox's supervisor ends it, however it ends: its destroy is answered */
	if (s->persistent) {
		/* what it said before it went: an exec's end comes before the sandbox's */
		for (int k = 0; k < 64 && s->exec >= 0 && exec_read(s); k++)
			;
		stream_drain(s);
		if (s->waiter >= 0)
			tell_exit(s, status);
		sandbox_ended(s, read_report(s->report));
		sup_release(s);
		return;
	}
	/* a supervisor of ours that crashed leaves its sandbox to its keeper: take it back */
	if (crashed && s->name[0]) {
		char name[32];
		int waiter = s->waiter;
		cJSON *id = s->id;
		char *report = s->report;
		bool own_report = s->own_report;
		struct sup *t, was;

		/*
		 * A terminal's master: its other end was the dead supervisor's alone, so what that
		 * relayed is read to its end now; the successor relays the command's own terminal
		 * through its stdout pipe, taken as this run's stdout when it hands over
		 */
		for (int k = 0; s->pty && k < 4096 && s->out[0] >= 0; k++)
			stream_read(s, 0);
		if (s->pty && s->out[0] >= 0) {
			close(s->out[0]);
			s->out[0] = -1;
		}
		was = *s;
		snprintf(name, sizeof(name), "%s", s->name);
		s->id = NULL;
		/* the sandbox lives on, writing into its pipes: they go with it to its successor */
		s->out[0] = s->out[1] = -1;
		/* the run's report file: its successor writes it, through the keeper's fd */
		s->report = NULL;
		sup_release(s);
		adopt(name, 5000);
		/* a client waiting for the run waits for its successor */
		t = sup_by_name(name);
		if (t) {
			memcpy(t->out, was.out, sizeof(t->out));
			memcpy(t->out_bytes, was.out_bytes, sizeof(t->out_bytes));
			memcpy(t->out_lost, was.out_lost, sizeof(t->out_lost));
			memcpy(t->out_keep, was.out_keep, sizeof(t->out_keep));
			memcpy(t->out_kept, was.out_kept, sizeof(t->out_kept));
			t->streamed = was.streamed;
			t->pty = was.pty;
			t->holds_events = was.holds_events;
			t->holds_return = was.holds_return;
		} else {
			for (int i = 0; i < 2; i++)
				if (was.out[i] >= 0)
					close(was.out[i]);
		}
		if (t && waiter >= 0) {
			t->waiter = waiter;
			t->id = id;
			id = NULL;
		}
		if (t && !t->report) {
			t->report = report;
			t->own_report = own_report;
			report = NULL;
		}
		if (!t && waiter >= 0) {
			struct sup gone = { .waiter = waiter, .id = id, .adopted = true };

			snprintf(gone.name, sizeof(gone.name), "%s", name);
			tell_exit(&gone, status);
		}
		if (report && own_report)
			unlink(report);
		free(report);
		cJSON_Delete(id);
		return;
	}
	/* its output before its end */
	stream_drain(s);
	if (s->waiter >= 0)
		tell_exit(s, status);
	sup_release(s);
}

static void reap(void)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (spare_reaped(pid, status))
			continue;
		for (int i = 0; i < MAX_SANDBOXES; i++)
			if (d.sups[i].pid == pid) {
				on_exit_status(&d.sups[i], status);
				break;
			}
	}
}

/*
 * What every run would otherwise redo, done once here and inherited by each supervisor forked:
 * warden-init opened, the user database's modules loaded, the pool's markers opened and what a
 * daemon killed before us left of its pool removed. 0, or -1 (said why).
 */
static int prepare_runs(int pool)
{
	char path[PATH_MAX];
	int n;

	if (wd_spawn_preload())
		return -1;
	/* a lookup loads the name service's modules (the runs' lookups are their own, fresh) */
	getpwuid(0);
	getgrgid(0);
	endpwent();
	endgrent();
	snprintf(path, sizeof(path), "%s/pool", d.dir);
	if (mkdir(path, 0700) && errno != EEXIST) {
		log_warn("cannot make %s", path);
		return -1;
	}
	d.pool.marks = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d.pool.marks < 0) {
		log_warn("cannot open %s", path);
		return -1;
	}
	n = wd_cgroup_pool_reap(d.pool.marks);
	if (n)
		log_info("removed %d cgroup%s a wardend before this one left in its pool", n,
			 n == 1 ? "" : "s");
	wd_cgroup_pool_init(&d.pool, d.pool.marks, pool);
	return 0;
}

static int rings_made(void)
{
	int n = 0;

	for (int i = 0; i < MAX_SANDBOXES; i++)
		n += d.rings[i].fd >= 0;
	return n;
}

/* More rings wanted ahead: as many as cgroups in the pool, while rings can be made. */
static bool rings_wanted(void)
{
	return d.progs && !d.rings_failed && rings_made() < d.pool.want;
}

/* The pool one cgroup (or ring) fuller, while nothing else waits; a pool that cannot grow stops. */
static void refill(void)
{
	static bool said;
	int err;

	if (rings_wanted() && ring_add()) {
		log_warnx("cannot make an audit ring ahead: each run makes its own");
		d.rings_failed = true;
	}
	if (d.pool.n >= d.pool.want || d.pool_failed)
		return;
	err = wd_cgroup_pool_fill_one(&d.pool);

	if (err > 0)
		log_debug("pool: %s made ahead (%d of %d)", d.pool.cg[d.pool.n - 1].name, d.pool.n,
			  d.pool.want);
	if (err > 0 && d.pool.n == d.pool.want && !said) {
		log_info("pool: %d sandbox cgroups made ahead", d.pool.n);
		said = true;
	}
	if (err < 0 && !d.pool_failed) {
		log_warnx("cannot make a cgroup ahead (%s): each run makes its own",
			  strerror(-err));
		d.pool_failed = true;
	}
}

/*
 * The host's program set for the backend runs get by default, held while wardend lives: loaded
 * and pinned if need be, so no run through wardend loads it (docs/design.md).
 */
static struct wd_progs *hold_programs(void)
{
	const struct wd_backend_ops *ops;
	struct wd_progs *progs = NULL;
	char why[1024];

	ops = wd_backend_choose("auto", why, sizeof(why));
	d.auto_choice = ops ? ops->name : NULL;
	if (strcmp(d.backend, "auto"))
		ops = wd_backend_choose(d.backend, why, sizeof(why));
	if (!ops)
		log_warnx("no %s backend here (%s): runs that name none fail", d.backend, why);
	if (ops && wd_progs_hold(&progs, wd_progs_set_of(ops->name)))
		log_warnx("cannot hold the host's program set: each run finds or loads it");
	if (progs)
		d.held_backend = ops->name;
	return progs;
}

static int listen_on(void)
{
	int fd, probe;

	if (wd_run_sock_path(d.path, sizeof(d.path), WD_SOCK_DAEMON, NULL)) {
		log_warnx("%s is too long a directory for a socket", d.dir);
		return -1;
	}
	if (wd_run_dir_check(d.dir, d.cfg.approver_gid != (gid_t)-1))
		return -1;
	/* one daemon a run directory: a socket someone answers is another wardend's */
	probe = wd_sock_connect(d.path, SOCK_STREAM | SOCK_CLOEXEC);
	if (probe >= 0) {
		close(probe);
		log_warnx("another wardend answers on %s", d.path);
		return -1;
	}
	fd = wd_sock_listen("wardend", d.path, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0600, 16);
	if (fd >= 0 && socket_access()) {
		close(fd);
		unlink(d.path);
		fd = -1;
	}
	return fd < 0 ? -1 : fd;
}

static int sups_running(void)
{
	int n = 0;

	for (int i = 0; i < MAX_SANDBOXES; i++)
		n += d.sups[i].pid > 0;
	return n;
}

/*
 * Reap what ends, until @left() says none is left or @secs have gone: how many are left. The
 * signals read meanwhile are SIGCHLD's or the stop's own, already being acted on.
 */
static int reap_while(int sigfd, int (*left)(void), int secs)
{
	struct signalfd_siginfo si;
	struct pollfd p = { .fd = sigfd, .events = POLLIN };
	struct timespec t0, now;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	reap();
	while (left()) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec >= secs)
			return left();
		if (poll(&p, 1, 1000) > 0 && read(sigfd, &si, sizeof(si)) == sizeof(si) &&
		    si.ssi_signo == SIGCHLD)
			reap();
	}
	return 0;
}

/*
 * on_stop "end": every supervisor told to end its sandbox (as kill does: the sandbox killed,
 * its exit record written, its cgroup removed), and waited for, up to 30 s.
 */
static void end_sandboxes(int sigfd)
{
	int n;

	for (int i = 0; i < MAX_SANDBOXES; i++)
		if (d.sups[i].pid > 0)
			kill(d.sups[i].pid, SIGTERM);
	n = reap_while(sigfd, sups_running, 30);
	if (n)
		log_warnx("%d supervisors did not end in 30 s: leaving them to their keepers", n);
}

/* Every spare told to end, and waited for up to 10 s: none outlives wardend with its cgroup. */
static void end_spares(int sigfd)
{
	int n;

	spares_stop();
	n = reap_while(sigfd, spares_running, 10);
	if (n)
		log_warnx("%d spares did not end in 10 s: left to their keepers", n);
}

static void stop(int sigfd, unsigned int signo)
{
	wd_notify("STOPPING=1\nSTATUS=stopping");
	end_spares(sigfd);
	if (d.cfg.on_stop == WD_ON_STOP_END) {
		log_info("got signal %u; ending (its %d sandboxes end too: on_stop end)", signo,
			 sups_running());
		end_sandboxes(sigfd);
	} else {
		/* its supervisors end with it; their keepers wait for the next */
		log_info("got signal %u; ending (sandboxes wait up to %u s for the next wardend)",
			 signo, d.cfg.survive_s);
	}
	wd_cgroup_pool_empty(&d.pool);
	unlink(d.path);
	rings_free();
	wd_progs_stop(d.progs);
}

int main(int argc, char **argv)
{
	int verbosity = WD_LOG_INFO, c, sigfd;
	bool check = false;
	char msg[1024];
	sigset_t sigs;

	d.config_path = WD_DAEMON_CONFIG;
	c = parse_args(argc, argv, &check, &verbosity);
	if (c >= 0)
		return c;
	log_init("wardend", verbosity);
	log_journal_detect();
	if (config_load(&d.cfg, &d.config_read, msg, sizeof(msg))) {
		log_warnx("%s", msg);
		return 1;
	}
	if (check) {
		config_print(stdout, &d.cfg, d.config_read);
		return 0;
	}
	if (geteuid() != 0) {
		log_warnx("must run as root (it runs sandboxes)");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &d.started);
	/* no supervisor nor sandbox of ours may speak to the service manager for us */
	wd_notify_init();
	memcpy(d.backend, d.cfg.backend, sizeof(d.backend));
	for (int i = 0; i < MAX_CLIENTS; i++)
		d.clients[i].fd = -1;
	for (int i = 0; i < MAX_SANDBOXES; i++)
		d.rings[i].fd = -1;
	d.pool.marks = -1;
	relay_init();
	spares_init();
	d.dir = wd_run_dir();
	d.listen_fd = listen_on();
	if (d.listen_fd < 0)
		return 1;
	d.progs = hold_programs();
	/* a ring per supervisor: small, as it is most of what each sandbox costs here */
	wd_progs_ring_default(WD_PROGS_RING_BYTES_DAEMON);
	if (prepare_runs(d.cfg.pool)) {
		unlink(d.path);
		wd_progs_stop(d.progs);
		return 1;
	}
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGCHLD);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0) {
		log_warn("signalfd");
		return 1;
	}
	adopt_orphans();
	/* what the set-up freed goes back before each request forks a supervisor from us */
	malloc_trim(0);
	log_info("listening on %s", d.path);
	/* the set is held and the socket listens: what connects now is served */
	wd_notifyf("READY=1\nSTATUS=serving %s\nMAINPID=%d", d.path, (int)getpid());
	for (;;) {
		struct pollfd pfd[2 + MAX_CLIENTS + 6 * MAX_SANDBOXES + MAX_RELAYS + WD_SPARES_MAX];
		/* what each entry is: and which client, supervisor (or stream of one) or relay */
		struct {
			enum { W_LISTEN, W_SIG, W_CLIENT, W_READY, W_OUT, W_HOLDS, W_EXEC, W_HAND,
			       W_STDIN, W_RELAY, W_SPARE } kind;
			int i, j;
		} who[2 + MAX_CLIENTS + 6 * MAX_SANDBOXES + MAX_RELAYS + WD_SPARES_MAX];
		int n = 0;

		for (int i = 0; i < MAX_CLIENTS; i++)
			if (d.clients[i].fd >= 0 && d.clients[i].dead)
				drop(&d.clients[i]);
		/* resumes that waited for take-overs which have told what they hold (or ended) */
		resumes_again();
		pfd[n] = (struct pollfd){ .fd = d.listen_fd, .events = POLLIN };
		who[n].kind = W_LISTEN;
		who[n++].i = 0;
		pfd[n] = (struct pollfd){ .fd = sigfd, .events = POLLIN };
		who[n].kind = W_SIG;
		who[n++].i = 0;
		for (int i = 0; i < MAX_CLIENTS; i++) {
			const struct client *cl = &d.clients[i];

			if (cl->fd < 0)
				continue;
			/* POLLOUT while replies or events wait for it to read them */
			pfd[n] = (struct pollfd){ .fd = cl->fd, .events = POLLIN |
				(wd_outq_pending(&cl->out) ? POLLOUT : 0) };
			who[n].kind = W_CLIENT;
			who[n++].i = i;
		}
		for (int i = 0; i < MAX_SANDBOXES; i++) {
			const struct sup *sp = &d.sups[i];

			if (sp->pid <= 0)
				continue;
			if (sp->ready >= 0) {
				pfd[n] = (struct pollfd){ .fd = sp->ready, .events = POLLIN };
				who[n].kind = W_READY;
				who[n++].i = i;
				/* its output waits until its client has the reply, which comes first */
				continue;
			}
			if (sp->exec >= 0) {
				pfd[n] = (struct pollfd){ .fd = sp->exec, .events = POLLIN };
				who[n].kind = W_EXEC;
				who[n++].i = i;
			}
			if (sp->hand >= 0) {
				pfd[n] = (struct pollfd){ .fd = sp->hand, .events = POLLIN };
				who[n].kind = W_HAND;
				who[n++].i = i;
			}
			/* a streamed stdin with bytes waiting: when the command's pipe has room */
			if (sp->in_w >= 0 && wd_outq_pending(&sp->in_q)) {
				pfd[n] = (struct pollfd){ .fd = sp->in_w, .events = POLLOUT };
				who[n].kind = W_STDIN;
				who[n++].i = i;
			}
			/*
			 * while a resume waits for its answer, its output waits for its reply too;
			 * so does an exec's for its "started"
			 */
			for (int j = 0; j < 2 && sp->resumer < 0 &&
					(sp->exec_client < 0 || sp->transfer); j++)
				if (sp->out[j] >= 0) {
					pfd[n] = (struct pollfd){ .fd = sp->out[j], .events = POLLIN };
					who[n].kind = W_OUT;
					who[n].i = i;
					who[n++].j = j;
				}
			if (sp->hl >= 0) {
				pfd[n] = (struct pollfd){ .fd = sp->hl, .events = POLLIN };
				who[n].kind = W_HOLDS;
				who[n++].i = i;
			}
		}
		for (int i = 0; i < MAX_RELAYS; i++)
			if (relays[i].up >= 0) {
				pfd[n] = (struct pollfd){ .fd = relays[i].up, .events = POLLIN };
				who[n].kind = W_RELAY;
				who[n++].i = i;
			}
		for (int i = 0; i < WD_SPARES_MAX; i++)
			if (spares[i].pid > 0 && spares[i].sock >= 0 && !spares[i].hash[0]) {
				pfd[n] = (struct pollfd){ .fd = spares[i].sock, .events = POLLIN };
				who[n].kind = W_SPARE;
				who[n++].i = i;
			}
		/* the pool fills while nothing is asked, never in a request's way */
		c = poll(pfd, (nfds_t)n,
			 (d.pool.n < d.pool.want && !d.pool_failed) || rings_wanted() ||
					 spares_wanted()
				 ? 0
				 : -1);
		if (c < 0) {
			if (errno == EINTR)
				continue;
			log_warn("poll");
			break;
		}
		if (c == 0) {
			/* a cgroup for the pool first: a spare takes one */
			if ((d.pool.n < d.pool.want && !d.pool_failed) || rings_wanted())
				refill();
			else
				spares_make();
			continue;
		}
		for (int k = 0; k < n; k++) {
			struct signalfd_siginfo si;
			/* (each only where its kind says that is what .i indexes) */
			struct client *cl = &d.clients[who[k].kind == W_CLIENT ? who[k].i : 0];
			struct sup *sp = &d.sups[who[k].kind >= W_READY && who[k].kind <= W_STDIN ?
						 who[k].i : 0];

			if (!pfd[k].revents)
				continue;
			/* an entry something before it in this turn closed is skipped */
			switch (who[k].kind) {
			case W_LISTEN:
				on_accept();
				break;
			case W_SIG:
				if (read(sigfd, &si, sizeof(si)) != sizeof(si))
					break;
				if (si.ssi_signo == SIGCHLD) {
					reap();
					break;
				}
				if (si.ssi_signo == SIGHUP) {
					reload();
					break;
				}
				stop(sigfd, si.ssi_signo);
				return 0;
			case W_CLIENT:
				if (cl->fd != pfd[k].fd || cl->dead)
					break;
				if (pfd[k].revents & POLLOUT)
					client_flush(cl);
				if (pfd[k].revents & ~POLLOUT)
					on_client(cl);
				break;
			case W_READY:
				if (sp->pid > 0 && sp->ready == pfd[k].fd)
					on_ready(sp);
				break;
			case W_OUT:
				if (sp->pid > 0 && sp->out[who[k].j] == pfd[k].fd)
					stream_read(sp, who[k].j);
				break;
			case W_HOLDS:
				if (sp->pid > 0 && sp->hl == pfd[k].fd)
					holds_read(sp);
				break;
			case W_EXEC:
				if (sp->pid > 0 && sp->exec == pfd[k].fd)
					exec_read(sp);
				break;
			case W_HAND:
				if (sp->pid > 0 && sp->hand == pfd[k].fd)
					on_hand(sp);
				break;
			case W_STDIN:
				if (sp->pid > 0 && sp->in_w == pfd[k].fd)
					stdin_flush(sp);
				break;
			case W_RELAY:
				if (relays[who[k].i].up == pfd[k].fd)
					on_relay(&relays[who[k].i]);
				break;
			case W_SPARE:
				if (spares[who[k].i].sock == pfd[k].fd)
					spare_read(&spares[who[k].i]);
				break;
			}
		}
	}
	wd_notify("STOPPING=1");
	wd_cgroup_pool_empty(&d.pool);
	unlink(d.path);
	rings_free();
	wd_progs_stop(d.progs);
	return 1;
}
