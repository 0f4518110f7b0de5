// SPDX-License-Identifier: GPL-2.0
/*
 * wardend: holds, subscribe, approve and deny on control.sock, passed on to each sandbox's own
 * holds socket and answered back (docs/control.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cJSON.h>

#include "supervisor/ipc/line.h"
#include "supervisor/ipc/rundir.h"
#include "supervisor/ipc/sock.h"
#include "tools/wardend.h"

/*
 * Passed to the sandbox's own holds socket
 * (run-SANDBOX.sock, its supervisor's), and its answer (or, for subscribe, its events) passed
 * back with the request's id. One socket, one vocabulary: a client of wardend needs no other.
 */
struct relay relays[MAX_RELAYS];

void relay_init(void)
{
	for (int i = 0; i < MAX_RELAYS; i++)
		relays[i].up = -1;
}

static void relay_close(struct relay *r)
{
	if (r->up >= 0)
		close(r->up);
	wd_lines_free(&r->in);
	cJSON_Delete(r->id);
	*r = (struct relay){ .up = -1 };
}

/* A client went: what it waited for from the sandboxes goes too. */
void relay_drop_client(int fd)
{
	for (int i = 0; i < MAX_RELAYS; i++)
		if (relays[i].up >= 0 && relays[i].client == fd)
			relay_close(&relays[i]);
}

/* Open a relay of @op to sandbox @name's holds socket, sending @up_req (taken): NULL, or an error. */
static cJSON *relay_open(const char *op, const char *name, cJSON *up_req, int client,
			 const cJSON *id, bool stream)
{
	struct relay *r = NULL;
	char path[108], *text = NULL;
	size_t len;
	int fd = -1, err;
	cJSON *bad = NULL;

	const struct sup *s = sup_find(name);

	if (!s) {
		bad = coded_error("not_found", "this daemon supervises no sandbox %s", name);
		goto out;
	}
	name = s->name; /* a persistent sandbox's name finds its id's socket */
	for (int i = 0; i < MAX_RELAYS && !r; i++)
		if (relays[i].up < 0)
			r = &relays[i];
	if (!r) {
		bad = coded_error("busy", "%s: too many requests to sandboxes at once", op);
		goto out;
	}
	/* non-blocking: a supervisor whose backlog is full never stops the daemon */
	if (wd_run_sock_path(path, sizeof(path), WD_SOCK_HOLDS, name) ||
	    (fd = wd_sock_connect(path, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK)) < 0) {
		if (fd == -EAGAIN)
			bad = coded_error("busy", "%s: its supervisor takes no connection now",
					  name);
		else
			bad = coded_error("not_found", "%s: no holds socket for this sandbox (its "
					  "policy holds nothing)", name);
		fd = -1;
		goto out;
	}
	text = wd_json_line(up_req, &len);
	err = text ? wd_line_write(fd, text, len, 2000) : -ENOMEM;
	if (err) {
		bad = coded_error("internal", "cannot ask the sandbox's supervisor: %s",
				  strerror(-err));
		goto out;
	}
	*r = (struct relay){ .up = fd, .client = client, .stream = stream,
			     .id = id ? cJSON_Duplicate(id, true) : NULL };
	snprintf(r->sandbox, sizeof(r->sandbox), "%s", name);
	wd_lines_init(&r->in, 256 << 20);
	fd = -1;
out:
	if (fd >= 0)
		close(fd);
	free(text);
	cJSON_Delete(up_req);
	return bad;
}

/* A line from a sandbox's holds socket, to the client with the request's id. */
static void relay_pass(struct relay *r, const char *line)
{
	cJSON *o = cJSON_Parse(line);
	const cJSON *err;

	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		o = coded_error("internal", "the sandbox's supervisor answered no JSON%s", "");
	}
	cJSON_DeleteItemFromObjectCaseSensitive(o, "v");
	err = cJSON_GetObjectItemCaseSensitive(o, "error");
	/* the holds socket's errors carry no code: one for a program to act on */
	if (cJSON_IsString(err) && !cJSON_GetObjectItemCaseSensitive(o, "code"))
		cJSON_AddStringToObject(o, "code", strncmp(err->valuestring, "no hold", 7) ?
					"bad_request" : "not_found");
	if (!cJSON_GetObjectItemCaseSensitive(o, "sandbox"))
		cJSON_AddStringToObject(o, "sandbox", r->sandbox);
	send_reply_id(r->client, o, r->id);
}

void on_relay(struct relay *r)
{
	ssize_t n = wd_lines_fill(&r->in, r->up);
	size_t len;
	char *line;
	int got;

	if (n == -EAGAIN)
		return;
	while ((got = wd_lines_next(&r->in, &line, &len)) > 0) {
		relay_pass(r, line);
		if (!r->stream) {
			relay_close(r);
			return;
		}
	}
	if (n <= 0 || got < 0) {
		/* the sandbox ended (or its supervisor went): a subscriber is told */
		if (r->stream) {
			cJSON *e = cJSON_CreateObject();

			cJSON_AddStringToObject(e, "event", "end");
			cJSON_AddStringToObject(e, "sandbox", r->sandbox);
			send_reply_id(r->client, e, r->id);
		} else {
			send_reply_id(r->client, coded_error("internal", "the sandbox's supervisor "
							     "went without answering%s", ""), r->id);
		}
		relay_close(r);
	}
}


/* holds, subscribe, approve or deny of @req, for the client @c. */
cJSON *op_relay(const struct client *c, const cJSON *req, const char *op, const cJSON *id)
{
	static const char *const pass[] = { "token", "scope", "subtree", "count", "ttl_ms" };
	const char *name = str_field(req, "sandbox");
	bool decide = !strcmp(op, "approve") || !strcmp(op, "deny");
	const cJSON *hold = cJSON_GetObjectItemCaseSensitive(req, "hold");
	cJSON *up;

	if (!name)
		return error_reply("%s: \"sandbox\" is required", op);
	if (decide && (!cJSON_IsNumber(hold) || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(
							   req, "token"))))
		return error_reply("%s: \"hold\" (its id) and \"token\" are required", op);
	up = cJSON_CreateObject();
	cJSON_AddNumberToObject(up, "v", 1);
	if (decide) {
		cJSON_AddStringToObject(up, "op", "decide");
		cJSON_AddNumberToObject(up, "id", hold->valuedouble);
		cJSON_AddBoolToObject(up, "allow", !strcmp(op, "approve"));
		for (size_t i = 0; i < sizeof(pass) / sizeof(pass[0]); i++) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, pass[i]);

			if (v)
				cJSON_AddItemToObject(up, pass[i], cJSON_Duplicate(v, true));
		}
		/* the record names who decided, not wardend */
		cJSON_AddStringToObject(up, "for", c->who);
	} else {
		cJSON_AddStringToObject(up, "op", op);
	}
	return relay_open(op, name, up, c->fd, id, !strcmp(op, "subscribe"));
}

