// SPDX-License-Identifier: GPL-2.0
/*
 * hold/: a run's holds socket (<run dir>/run-<sandbox>.sock): who may list and decide the run's
 * holds, the requests holds, decide and subscribe, and the events sent to subscribers
 * (docs/control.md). The socket itself (listen, peer credentials, line framing, output queues)
 * is ipc/'s.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cJSON.h>

#include "audit/jsonl.h"
#include "supervisor/daemon/request.h"
#include "supervisor/hold/holds_socket.h"
#include "supervisor/ipc/line.h"
#include "supervisor/ipc/sock.h"
#include "supervisor/util/log.h"

#define WD_CTL_MAX_CLIENTS 32
/*
 * Connections from others than root and the approvers (who get one refusal each) at once, at
 * most: an idle crowd of them cannot take the slots the deciders need.
 */
#define WD_CTL_MAX_OUTSIDERS 4
/*
 * WD_CTL_OUT_MAX: what may wait to be sent to one client, at most. A listing is written whole
 * however large it is (a client reading slower than the socket takes it gets the rest as it
 * reads), and only a client that leaves this much unread is dropped.
 */

struct client {
	int fd;
	bool subscribed;
	bool outsider; /* neither root nor an approver when it connected */
	bool root; /* uid 0 outside every sandbox: may say whom it decides for (wardend) */
	char who[64]; /* "uid 0 (root)" from the peer's credentials */
	struct wd_lines in;
	struct wd_outq out; /* replies and events not yet taken by the socket */
	bool want_out; /* watched for EPOLLOUT */
	int ep; /* the socket's epoll set, which watches this client */
};

struct wd_ctl {
	int listen_fd;
	/*
	 * Every fd of the socket (the listening one and each client's) is watched through this
	 * one: readable, and writable for a client with output waiting, so the caller's poll
	 * needs no more than POLLIN on it to let a long reply go out as the client reads.
	 */
	int ep;
	char path[108];
	char sandbox[32];
	struct wd_hold_engine *holds;
	const struct wd_hold_rules *rules; /* its approvers say who besides root may connect */
	struct client clients[WD_CTL_MAX_CLIENTS];
};

int wd_ctl_open(struct wd_ctl **out, const char *sandbox, struct wd_hold_engine *holds,
		const struct wd_hold_rules *rules)
{
	struct wd_ctl *c = calloc(1, sizeof(*c));
	bool approvers = rules && wd_hold_rules_have_approvers(rules);
	int err;

	if (!c)
		return -ENOMEM;
	for (int i = 0; i < WD_CTL_MAX_CLIENTS; i++)
		c->clients[i].fd = -1;
	c->holds = holds;
	c->rules = rules;
	c->listen_fd = -1;
	c->ep = epoll_create1(EPOLL_CLOEXEC);
	if (c->ep < 0) {
		err = -errno;
		goto out_free;
	}
	snprintf(c->sandbox, sizeof(c->sandbox), "%s", sandbox);
	err = wd_run_sock_path(c->path, sizeof(c->path), WD_SOCK_HOLDS, sandbox);
	if (err) {
		log_warnx("ctl: %s is too long a directory for a socket", wd_run_dir());
		goto out_free;
	}
	err = wd_run_dir_check(wd_run_dir(), approvers);
	if (err)
		goto out_free;
	/*
	 * Listening before its name appears (`warden prompt` watches the directory and connects
	 * at once). With approvers, anyone may connect (a socket's mode cannot name several users
	 * and groups), and every request is checked against the peer's credentials (authorised()).
	 */
	c->listen_fd = wd_sock_listen("ctl", c->path, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
				      approvers ? 0666 : 0600, 16);
	if (c->listen_fd < 0) {
		err = c->listen_fd;
		goto out_free;
	}
	if (epoll_ctl(c->ep, EPOLL_CTL_ADD, c->listen_fd,
		      &(struct epoll_event){ .events = EPOLLIN, .data.fd = c->listen_fd })) {
		err = -errno;
		log_warn("ctl: cannot watch %s", c->path);
		goto out_close;
	}
	*out = c;
	return 0;

out_close:
	close(c->listen_fd);
	unlink(c->path);
out_free:
	if (c->ep >= 0)
		close(c->ep);
	free(c);
	return err;
}

static void drop(struct client *cl)
{
	if (cl->fd >= 0) {
		/* off the set first: a copy of the fd a fork left would keep it there */
		epoll_ctl(cl->ep, EPOLL_CTL_DEL, cl->fd, NULL);
		close(cl->fd);
	}
	wd_lines_free(&cl->in);
	wd_outq_free(&cl->out);
	memset(cl, 0, sizeof(*cl));
	cl->fd = -1;
}

void wd_ctl_close(struct wd_ctl *c)
{
	if (!c)
		return;
	for (int i = 0; i < WD_CTL_MAX_CLIENTS; i++)
		drop(&c->clients[i]);
	close(c->listen_fd);
	close(c->ep);
	unlink(c->path);
	free(c);
}

int wd_ctl_poll_fds(const struct wd_ctl *c, int *fds, int max)
{
	int n = 0;

	if (n < max)
		fds[n++] = c->ep;
	return n;
}

/* Watch @cl for room to write (@on), or no longer. */
static void want_out(struct wd_ctl *c, struct client *cl, bool on)
{
	struct epoll_event ev = { .events = EPOLLIN | (on ? EPOLLOUT : 0), .data.fd = cl->fd };

	if (cl->want_out == on)
		return;
	if (epoll_ctl(c->ep, EPOLL_CTL_MOD, cl->fd, &ev)) {
		log_warn("ctl: cannot watch a client");
		drop(cl);
		return;
	}
	cl->want_out = on;
}

/*
 * Send what waits for @cl, as much as the socket takes now; the rest goes when it has room
 * (EPOLLOUT). Never a part followed by a disconnect: only a broken socket drops the client.
 */
static void flush(struct wd_ctl *c, struct client *cl)
{
	int err;

	if (cl->fd < 0)
		return;
	err = wd_outq_flush(&cl->out, cl->fd);
	if (err && err != -EAGAIN)
		drop(cl);
	else
		want_out(c, cl, err == -EAGAIN);
}

static void send_json(struct wd_ctl *c, struct client *cl, cJSON *o)
{
	size_t len = 0;
	char *s = cl->fd >= 0 ? wd_json_line(o, &len) : NULL;
	int err;

	cJSON_Delete(o);
	if (!s)
		return;
	err = wd_outq_push(&cl->out, s, len);
	free(s);
	if (err == -ENOBUFS)
		/* a client that leaves this much unread is not reading: dropped, said so */
		log_warnx("ctl: %s leaves %zu bytes unread: disconnected", cl->who,
			  wd_outq_pending(&cl->out));
	if (err) {
		drop(cl);
		return;
	}
	flush(c, cl);
}

static cJSON *reply(bool ok, const char *error)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "v", WD_CTL_PROTO);
	cJSON_AddBoolToObject(o, "ok", ok);
	if (error)
		cJSON_AddStringToObject(o, "error", error);
	return o;
}

cJSON *wd_hold_view_json(const char *sandbox, const struct wd_hold_view *v)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "id", (double)v->id);
	cJSON_AddStringToObject(o, "sandbox", sandbox);
	wd_hold_view_fields(o, v);
	if (v->tree)
		cJSON_AddStringToObject(o, "tree", v->tree);
	cJSON_AddStringToObject(o, "token", v->token);
	cJSON_AddNumberToObject(o, "age_ms", (double)v->age_ms);
	cJSON_AddNumberToObject(o, "timeout_ms", (double)v->timeout_ms);
	return o;
}

struct list_arg {
	const char *sandbox;
	cJSON *arr;
};

static void list_one(void *arg, const struct wd_hold_view *v)
{
	struct list_arg *a = arg;

	cJSON_AddItemToArray(a->arr, wd_hold_view_json(a->sandbox, v));
}

cJSON *wd_hold_list_json(struct wd_hold_engine *e, const char *sandbox)
{
	struct list_arg a = { .sandbox = sandbox, .arr = cJSON_CreateArray() };

	if (a.arr)
		wd_hold_list(e, list_one, &a);
	return a.arr;
}

static const char *scope_error(const char *s, enum wd_grant_scope *scope)
{
	if (!s || strcmp(s, "once") == 0)
		*scope = WD_GRANT_ONCE;
	else if (strcmp(s, "process") == 0)
		*scope = WD_GRANT_PROCESS;
	else if (strcmp(s, "sandbox") == 0)
		*scope = WD_GRANT_SANDBOX;
	else
		return "\"scope\" must be \"once\", \"process\" or \"sandbox\"";
	return NULL;
}

/*
 * May the peer of @cl list and decide? Asked of the kernel on every request, so what decides is
 * the peer's credentials (uid, primary and supplementary groups, as of its connect), never a
 * name the request claims.
 */
static bool authorised(const struct wd_ctl *c, const struct client *cl)
{
	struct wd_peer *p = malloc(sizeof(*p));
	bool ok = false;

	if (!p || wd_peer_read(cl->fd, p))
		goto out;
	/* not even root: a sandboxed process must not answer its own holds */
	if (p->in_sandbox)
		goto out;
	ok = wd_peer_is(p, 0) ||
	     (c->rules && wd_hold_rules_have_approvers(c->rules) &&
	      wd_approver_may(c->rules, p->uid, p->gid, p->groups, p->n_groups));
out:
	free(p);
	return ok;
}

/*
 * What a decision's request says of its reach (scope, subtree, count, ttl_ms) into @d: NULL, or
 * the error to answer (a bad scope).
 */
static const char *decision_reach(const cJSON *req, struct wd_hold_decision *d)
{
	const cJSON *sc = cJSON_GetObjectItemCaseSensitive(req, "scope");
	const cJSON *sub = cJSON_GetObjectItemCaseSensitive(req, "subtree");
	const cJSON *cnt = cJSON_GetObjectItemCaseSensitive(req, "count");
	const cJSON *ttl = cJSON_GetObjectItemCaseSensitive(req, "ttl_ms");

	d->subtree = cJSON_IsString(sub) ? sub->valuestring : NULL;
	d->budget = cJSON_IsNumber(cnt) && cnt->valuedouble > 0 ? (uint64_t)cnt->valuedouble : 0;
	d->ttl_ms = cJSON_IsNumber(ttl) && ttl->valuedouble > 0 ? (uint64_t)ttl->valuedouble : 0;
	return scope_error(cJSON_IsString(sc) ? sc->valuestring : NULL, &d->scope);
}

/* @r (taken) to @cl, with the request's id (control.sock's envelope: "id" is the client's). */
static void send_id(struct wd_ctl *c, struct client *cl, cJSON *r, const cJSON *id)
{
	if (!cJSON_GetObjectItemCaseSensitive(r, "v"))
		cJSON_AddNumberToObject(r, "v", WD_CTL_PROTO);
	if (id && (cJSON_IsNumber(id) || (cJSON_IsString(id) && strlen(id->valuestring) <= 128)))
		cJSON_AddItemToObject(r, "id", cJSON_Duplicate(id, true));
	send_json(c, cl, r);
}

/*
 * approve, deny ({"hold":N,"token":T}) and resume ({"token":T,"resolution":R}) as control.sock
 * takes them (docs/control.md), so a harness says the same to an embedded run as to wardend:
 * "id" is the request's, echoed; keys checked; errors coded. The decision is the engine's.
 */
static void decide_as_control(struct wd_ctl *c, struct client *cl, const cJSON *req,
			      const char *op)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(req, "id");
	const cJSON *hold = cJSON_GetObjectItemCaseSensitive(req, "hold");
	const cJSON *tok = cJSON_GetObjectItemCaseSensitive(req, "token");
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(req, "resolution");
	const cJSON *sb = cJSON_GetObjectItemCaseSensitive(req, "sandbox");
	struct wd_hold_decision d = { .who = cl->who };
	bool resume = !strcmp(op, "resume");
	cJSON *bad = check_keys(req, op, wd_request_keys(op)), *r;
	const char *why;
	uint64_t hid = 0;
	int err;

	if (bad) {
		send_id(c, cl, bad, id);
		return;
	}
	if (sb && (!cJSON_IsString(sb) || strcmp(sb->valuestring, c->sandbox))) {
		send_id(c, cl, coded_error("not_found", "this socket is the sandbox %s's alone",
					   c->sandbox), id);
		return;
	}
	if (!cJSON_IsString(tok) || (!resume && !cJSON_IsNumber(hold)) ||
	    (resume && !(cJSON_IsString(res) && (!strcmp(res->valuestring, "approve") ||
						  !strcmp(res->valuestring, "deny"))))) {
		send_id(c, cl, error_reply(resume ? "resume: \"token\" and \"resolution\" "
					   "(\"approve\" or \"deny\") are required%s" :
					   "%s: \"hold\" (its id) and \"token\" are required",
					   resume ? "" : op), id);
		return;
	}
	why = decision_reach(req, &d);
	if (why) {
		send_id(c, cl, error_reply("%s", why), id);
		return;
	}
	d.allow = resume ? !strcmp(res->valuestring, "approve") : !strcmp(op, "approve");
	if (resume)
		err = wd_hold_by_token(c->holds, tok->valuestring, &hid);
	else
		err = 0, hid = (uint64_t)hold->valuedouble;
	if (!err)
		err = wd_hold_decide(c->holds, hid, tok->valuestring, &d);
	if (err == -ENOENT || err == -EACCES)
		r = coded_error("not_found", "%s: no held operation has this token (decided "
				"already, or gone)", op);
	else if (err)
		r = coded_error("internal", "%s", strerror(-err));
	else {
		r = cJSON_CreateObject();
		cJSON_AddBoolToObject(r, "ok", true);
		cJSON_AddStringToObject(r, "sandbox", c->sandbox);
	}
	send_id(c, cl, r, id);
}

/* One request line (NULL: a line that is no request at all). */
static void handle(struct wd_ctl *c, struct client *cl, const char *line)
{
	cJSON *req = line ? cJSON_Parse(line) : NULL, *r;
	const cJSON *op, *v;
	char msg[256];

	if (!authorised(c, cl)) {
		snprintf(msg, sizeof(msg),
			 "%s may not list or decide the holds of %s (root and the policy's "
			 "hold.approvers may, from outside every sandbox)",
			 cl->who, c->sandbox);
		send_json(c, cl, reply(false, msg));
		drop(cl);
		goto out;
	}
	if (!req || !cJSON_IsObject(req)) {
		send_json(c, cl, reply(false, "a request is one JSON object a line"));
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(req, "v");
	if (v && (!cJSON_IsNumber(v) || v->valueint != WD_CTL_PROTO)) {
		send_json(c, cl, reply(false, "unsupported protocol version (this warden speaks 1)"));
		goto out;
	}
	op = cJSON_GetObjectItemCaseSensitive(req, "op");
	if (!cJSON_IsString(op)) {
		send_json(c, cl, reply(false, "missing \"op\""));
		goto out;
	}
	if (strcmp(op->valuestring, "holds") == 0) {
		r = reply(true, NULL);
		cJSON_AddStringToObject(r, "sandbox", c->sandbox);
		cJSON_AddItemToObject(r, "holds", wd_hold_list_json(c->holds, c->sandbox));
		send_json(c, cl, r);
	} else if (strcmp(op->valuestring, "subscribe") == 0) {
		cl->subscribed = true;
		r = reply(true, NULL);
		cJSON_AddStringToObject(r, "sandbox", c->sandbox);
		send_json(c, cl, r);
	} else if (strcmp(op->valuestring, "decide") == 0) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(req, "id");
		const cJSON *tok = cJSON_GetObjectItemCaseSensitive(req, "token");
		const cJSON *allow = cJSON_GetObjectItemCaseSensitive(req, "allow");
		const cJSON *on_behalf = cJSON_GetObjectItemCaseSensitive(req, "for");
		struct wd_hold_decision d = { .who = cl->who };
		char who[176];
		const char *bad;
		int err;

		if (!cJSON_IsNumber(id) || !cJSON_IsString(tok) || !cJSON_IsBool(allow)) {
			send_json(c, cl, reply(false, "\"decide\" needs \"id\", \"token\" and \"allow\""));
			goto out;
		}
		bad = decision_reach(req, &d);
		if (bad) {
			send_json(c, cl, reply(false, bad));
			goto out;
		}
		/*
		 * wardend relays an approver's decision from control.sock: root's word on whom it
		 * decides for names the decider in the record; anyone else's "for" is refused.
		 */
		if (on_behalf && !(cl->root && cJSON_IsString(on_behalf) &&
				   strlen(on_behalf->valuestring) < 100)) {
			send_json(c, cl, reply(false, "\"for\" is root's alone (wardend's), a "
					       "string of at most 99 bytes"));
			goto out;
		}
		if (on_behalf) {
			snprintf(who, sizeof(who), "%s via %s", on_behalf->valuestring, cl->who);
			d.who = who;
		}
		d.allow = cJSON_IsTrue(allow);
		err = wd_hold_decide(c->holds, (uint64_t)id->valuedouble, tok->valuestring, &d);
		if (err == -ENOENT)
			snprintf(msg, sizeof(msg), "no hold %.0f in %s (decided already, or gone)",
				 id->valuedouble, c->sandbox);
		else if (err == -EACCES)
			snprintf(msg, sizeof(msg), "the token does not match hold %.0f",
				 id->valuedouble);
		else if (err)
			snprintf(msg, sizeof(msg), "%s", strerror(-err));
		send_json(c, cl, reply(!err, err ? msg : NULL));
	} else if (!strcmp(op->valuestring, "approve") || !strcmp(op->valuestring, "deny") ||
		   !strcmp(op->valuestring, "resume")) {
		decide_as_control(c, cl, req, op->valuestring);
	} else {
		snprintf(msg, sizeof(msg), "unknown op \"%.64s\" (known: holds, decide, subscribe, "
			 "approve, deny, resume)", op->valuestring);
		send_json(c, cl, reply(false, msg));
	}
out:
	cJSON_Delete(req);
}

static void accept_one(struct wd_ctl *c)
{
	struct wd_peer cred;
	struct passwd *pw;
	int fd, slot = -1, outsiders = 0;

	fd = wd_sock_accept(c->listen_fd, SOCK_CLOEXEC | SOCK_NONBLOCK, &cred);
	if (fd < 0)
		return;
	if (cred.uid != 0 && !(c->rules && wd_hold_rules_have_approvers(c->rules))) {
		/* without approvers the socket is 0600 already; the credentials say so once more */
		close(fd);
		return;
	}
	for (int i = 0; i < WD_CTL_MAX_CLIENTS; i++) {
		if (c->clients[i].fd < 0 && slot < 0)
			slot = i;
		outsiders += c->clients[i].fd >= 0 && c->clients[i].outsider;
	}
	if (slot < 0) {
		close(fd);
		return;
	}
	if (epoll_ctl(c->ep, EPOLL_CTL_ADD, fd,
		      &(struct epoll_event){ .events = EPOLLIN, .data.fd = fd })) {
		close(fd);
		return;
	}
	c->clients[slot].fd = fd;
	c->clients[slot].ep = c->ep;
	wd_lines_init(&c->clients[slot].in, WD_CTL_LINE_MAX);
	wd_outq_init(&c->clients[slot].out, WD_CTL_OUT_MAX);
	c->clients[slot].outsider = !authorised(c, &c->clients[slot]);
	if (c->clients[slot].outsider && outsiders >= WD_CTL_MAX_OUTSIDERS) {
		drop(&c->clients[slot]);
		return;
	}
	c->clients[slot].root = wd_peer_is(&cred, 0);
	pw = getpwuid(cred.uid);
	snprintf(c->clients[slot].who, sizeof(c->clients[slot].who), "uid %u (%s)", cred.uid,
		 pw ? pw->pw_name : "?");
}

static void on_client(struct wd_ctl *c, struct client *cl, uint32_t events)
{
	size_t len;
	char *line;
	ssize_t n;
	int r;

	if (events & EPOLLOUT)
		flush(c, cl);
	if (cl->fd < 0 || !(events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		return;
	n = wd_lines_fill(&cl->in, cl->fd);
	if (n == -EAGAIN)
		return;
	if (n <= 0) {
		/* the end, a broken socket, or a line longer than any request */
		drop(cl);
		return;
	}
	while (cl->fd >= 0 && (r = wd_lines_next(&cl->in, &line, &len)) != 0) {
		if (r < 0 && r != -EBADMSG) {
			drop(cl);
			break;
		}
		/* a line with a NUL byte in it is answered as garbage */
		handle(c, cl, r > 0 ? line : NULL);
	}
}

void wd_ctl_on_ready(struct wd_ctl *c, int fd)
{
	struct epoll_event evs[WD_CTL_MAX_CLIENTS + 1];
	int n;

	if (fd != c->ep)
		return;
	n = epoll_wait(c->ep, evs, WD_CTL_MAX_CLIENTS + 1, 0);
	for (int i = 0; i < n; i++) {
		struct client *cl = NULL;

		if (evs[i].data.fd == c->listen_fd) {
			accept_one(c);
			continue;
		}
		/* an earlier event of this round may have dropped it (and its fd be reused) */
		for (int k = 0; k < WD_CTL_MAX_CLIENTS; k++)
			if (c->clients[k].fd >= 0 && c->clients[k].fd == evs[i].data.fd)
				cl = &c->clients[k];
		if (cl)
			on_client(c, cl, evs[i].events);
	}
}

static void publish(struct wd_ctl *c, cJSON *ev)
{
	for (int i = 0; i < WD_CTL_MAX_CLIENTS; i++)
		if (c->clients[i].fd >= 0 && c->clients[i].subscribed)
			send_json(c, &c->clients[i], cJSON_Duplicate(ev, true));
	cJSON_Delete(ev);
}

void wd_ctl_publish_hold(struct wd_ctl *c, const struct wd_hold_view *v)
{
	cJSON *ev = cJSON_CreateObject();

	cJSON_AddNumberToObject(ev, "v", WD_CTL_PROTO);
	cJSON_AddStringToObject(ev, "event", "hold");
	cJSON_AddItemToObject(ev, "hold", wd_hold_view_json(c->sandbox, v));
	publish(c, ev);
}

void wd_ctl_publish_decision(struct wd_ctl *c, const struct wd_hold_view *v, bool allow,
			     const char *who, int result)
{
	cJSON *ev = cJSON_CreateObject();

	cJSON_AddNumberToObject(ev, "v", WD_CTL_PROTO);
	cJSON_AddStringToObject(ev, "event", "decision");
	cJSON_AddItemToObject(ev, "hold", wd_hold_view_json(c->sandbox, v));
	cJSON_AddBoolToObject(ev, "allow", allow);
	cJSON_AddStringToObject(ev, "by", who);
	cJSON_AddStringToObject(ev, "result", result ? strerrorname_np(-result) : "ok");
	publish(c, ev);
}
