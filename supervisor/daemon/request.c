// SPDX-License-Identifier: GPL-2.0
/*
 * Control protocol requests (see request.h): the envelope every request shares and the keys of
 * each op, in one table. An op's handler (tools/wardend*.c) reads the values of the keys it takes,
 * each checked where it is used; a key no op takes never reaches one.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "supervisor/daemon/request.h"

#define ENVELOPE "op", "v", "id"

static const char *const run_keys[] = { ENVELOPE, "policy", "argv", "audit", "report", "stdout",
					"stderr", "cwd", "backend", "wait", "stream", "holds", "env",
					"timeout_ms", "stdin", "on_disconnect", "stdin_stream",
					"pty", NULL };
static const char *const create_keys[] = { ENVELOPE, "policy", "audit", "report", "stderr", "cwd",
					   "backend", "env", "timeout_ms", "name", "labels",
					   "idle_timeout_s", NULL };
static const char *const exec_keys[] = { ENVELOPE, "sandbox", "argv", "cwd", "env", "stdin",
					 "timeout_ms", "stdin_stream", "holds", NULL };
static const char *const put_keys[] = { ENVELOPE, "sandbox", "path", "data", "data_b64", "mode",
					NULL };
static const char *const path_keys[] = { ENVELOPE, "sandbox", "path", NULL };
static const char *const stdin_keys[] = { ENVELOPE, "sandbox", "data", "data_b64", "eof", NULL };
static const char *const resume_keys[] = { ENVELOPE, "token", "resolution", "scope", "subtree",
					   "count", "ttl_ms", NULL };
static const char *const decide_keys[] = { ENVELOPE, "sandbox", "hold", "token", "scope",
					   "subtree", "count", "ttl_ms", NULL };
static const char *const sandbox_keys[] = { ENVELOPE, "sandbox", NULL };
static const char *const plain_keys[] = { ENVELOPE, NULL };

/* In the order the "op is required" error lists them. */
static const struct {
	const char *op;
	const char *const *keys;
} ops[] = {
	{ "run", run_keys },		{ "resume", resume_keys },   { "attach", sandbox_keys },
	{ "stdin", stdin_keys },	{ "create", create_keys },   { "exec", exec_keys },
	{ "put", put_keys },		{ "get", path_keys },	     { "inspect", sandbox_keys },
	{ "destroy", sandbox_keys },	{ "list", plain_keys },	     { "kill", sandbox_keys },
	{ "status", plain_keys },	{ "holds", sandbox_keys },   { "subscribe", sandbox_keys },
	{ "approve", decide_keys },	{ "deny", decide_keys },
};

cJSON *coded_error(const char *code, const char *fmt, const char *arg)
{
	cJSON *r = cJSON_CreateObject();
	char msg[1200];

	snprintf(msg, sizeof(msg), fmt, arg);
	cJSON_AddBoolToObject(r, "ok", false);
	cJSON_AddStringToObject(r, "error", msg);
	cJSON_AddStringToObject(r, "code", code);
	return r;
}

cJSON *error_reply(const char *fmt, const char *arg)
{
	return coded_error("bad_request", fmt, arg);
}

cJSON *check_keys(const cJSON *req, const char *op, const char *const *keys)
{
	const cJSON *k;

	cJSON_ArrayForEach(k, req) {
		bool known = false;

		for (int i = 0; keys[i] && !known; i++)
			known = strcmp(k->string, keys[i]) == 0;
		if (!known) {
			char what[300];
			cJSON *r;

			snprintf(what, sizeof(what), "%s: unknown key \"%.200s\"", op, k->string);
			r = coded_error("unknown_key", "%s", what);
			cJSON_AddStringToObject(r, "key", k->string);
			return r;
		}
	}
	return NULL;
}

const char *const *wd_request_keys(const char *op)
{
	for (size_t i = 0; op && i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(ops[i].op, op))
			return ops[i].keys;
	return NULL;
}

/* Only white space after the object, up to the line's end. */
static bool rest_blank(const char *p, const char *end)
{
	for (; p < end; p++)
		if (!strchr(" \t\r\n", *p) || !*p)
			return false;
	return true;
}

cJSON *wd_request_parse(const char *line, size_t len, struct wd_request *q)
{
	const char *end = NULL;
	const cJSON *v, *id, *op;
	const char *const *keys;

	*q = (struct wd_request){ 0 };
	q->req = cJSON_ParseWithLengthOpts(line, len, &end, false);
	if (!q->req || !cJSON_IsObject(q->req) || !end || !rest_blank(end, line + len))
		return error_reply("a request is one JSON object a line%s", "");
	op = cJSON_GetObjectItemCaseSensitive(q->req, "op");
	q->op = cJSON_IsString(op) ? op->valuestring : NULL;
	/* an id is the client's to match replies and events with: a short string or a number */
	id = cJSON_GetObjectItemCaseSensitive(q->req, "id");
	if (id && (cJSON_IsNumber(id) || (cJSON_IsString(id) && strlen(id->valuestring) <= 128)))
		q->id = id;
	v = cJSON_GetObjectItemCaseSensitive(q->req, "v");
	if (v && (!cJSON_IsNumber(v) || v->valuedouble != WD_DAEMON_PROTO))
		return error_reply("unsupported protocol version (this wardend speaks 1)%s", "");
	if (id && !q->id)
		return error_reply("\"id\" must be a number or a string of at most 128 bytes%s", "");
	if (!q->op)
		return error_reply("\"op\" is required: run, resume, attach, stdin, create, exec, put, "
				   "get, inspect, destroy, list, kill, status, holds, subscribe, "
				   "approve or deny%s", "");
	keys = wd_request_keys(q->op);
	if (!keys)
		return error_reply("unknown op %s (run, resume, attach, stdin, create, exec, put, get, "
				   "inspect, destroy, list, kill, status, holds, subscribe, approve, "
				   "deny)", q->op);
	return check_keys(q->req, q->op, keys);
}

void wd_request_free(struct wd_request *q)
{
	cJSON_Delete(q->req);
	*q = (struct wd_request){ 0 };
}
