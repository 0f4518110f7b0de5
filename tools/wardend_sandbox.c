// SPDX-License-Identifier: GPL-2.0
/*
 * wardend's persistent sandboxes (docs/control.md#persistent-sandboxes): exec, inspect and
 * destroy on control.sock, and the supervisor's answers on the sandbox's exec socket
 * (supervisor/run/execs.h). create is run's code (wardend.c, op_run).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "audit/jsonl.h"
#include "supervisor/run/execs.h"
#include "supervisor/util/log.h"
#include "tools/wardend.h"

/* How long a put or get may take before its copy is killed (a full disk, a slow one). */
#define TRANSFER_MS 60000

/* The persistent sandbox @req names, or NULL with *err the reply. */
static struct sup *persistent_of(const cJSON *req, const char *op, cJSON **err)
{
	const char *name = str_field(req, "sandbox");
	struct sup *s = name ? sup_find(name) : NULL;

	*err = NULL;
	if (!name)
		*err = error_reply("%s: \"sandbox\" (its id or name) is required", op);
	else if (!s || !s->name[0])
		*err = coded_error("not_found", "no sandbox %s here", name);
	else if (!s->persistent)
		*err = coded_error("not_found", "%s is no persistent sandbox (made by create)",
				   name);
	return *err ? NULL : s;
}

static void close_pair(int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0)
			close(p[i]);
	p[0] = p[1] = -1;
}

cJSON *op_exec(const cJSON *req, int client, const cJSON *id)
{
	const cJSON *sin = cJSON_GetObjectItemCaseSensitive(req, "stdin_stream");
	const cJSON *argv = cJSON_GetObjectItemCaseSensitive(req, "argv"), *a;
	const cJSON *cwd = cJSON_GetObjectItemCaseSensitive(req, "cwd");
	const cJSON *env = cJSON_GetObjectItemCaseSensitive(req, "env");
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(req, "stdin");
	const cJSON *tmo = cJSON_GetObjectItemCaseSensitive(req, "timeout_ms");
	const cJSON *holds = cJSON_GetObjectItemCaseSensitive(req, "holds");
	int ip[2] = { -1, -1 }, op[2][2] = { { -1, -1 }, { -1, -1 } }, fds[3];
	cJSON *err = NULL, *m;
	struct sup *s = persistent_of(req, "exec", &err);
	char *text;

	if (err)
		return err;
	if (!cJSON_IsArray(argv) || cJSON_GetArraySize(argv) < 1)
		return error_reply("exec: \"argv\" must be a non-empty array of strings%s", "");
	cJSON_ArrayForEach(a, argv)
		if (!cJSON_IsString(a))
			return error_reply("exec: \"argv\" must be a non-empty array of strings%s",
					   "");
	if (cwd && (!cJSON_IsString(cwd) || cwd->valuestring[0] != '/'))
		return error_reply("exec: \"cwd\" must be an absolute path (in the sandbox)%s", "");
	if (env && !cJSON_IsObject(env))
		return error_reply("exec: \"env\" must be an object of strings%s", "");
	cJSON_ArrayForEach(a, env)
		if (!cJSON_IsString(a) || !a->string[0] || strchr(a->string, '='))
			return error_reply("exec: \"env\": %s is no variable name, or its value no "
					   "string", a->string);
	if (in && !cJSON_IsString(in))
		return error_reply("exec: \"stdin\" must be a string (what the command reads, "
				   "then end of file)%s", "");
	if (sin && (!cJSON_IsBool(sin) || (in && cJSON_IsTrue(sin))))
		return error_reply("exec: \"stdin_stream\" must be true or false, and not with "
				   "\"stdin\"%s", "");
	if (tmo && (!cJSON_IsNumber(tmo) || tmo->valuedouble < 1 ||
		    tmo->valuedouble > 864e5 * 365 ||
		    tmo->valuedouble != (double)(long long)tmo->valuedouble))
		return error_reply("exec: \"timeout_ms\" must be a whole number of milliseconds, "
				   "at least 1%s", "");
	if (holds && (!cJSON_IsString(holds) || (strcmp(holds->valuestring, "events") &&
						 strcmp(holds->valuestring, "return"))))
		return error_reply("exec: \"holds\" must be \"events\" (the sandbox's holds while the "
				   "command runs, on this request) or \"return\" (the first ends it)%s",
				   "");
	if (s->exec_running || s->exec_client >= 0)
		return coded_error("busy", "exec: a command of an exec runs in %s already (one "
				   "at a time)", s->name);
	if (s->exec < 0)
		return coded_error("internal", "exec: %s takes no more execs", s->name);
	/* its output: pipes of ours, streamed as a run's; its stdin: a fresh pipe, or nothing */
	for (int i = 0; i < 2; i++)
		if (pipe2(op[i], O_CLOEXEC) || fcntl(op[i][0], F_SETFL, O_NONBLOCK))
			goto fail;
	if (pipe2(ip, O_CLOEXEC))
		goto fail;
	if ((in || cJSON_IsTrue(sin)) && fcntl(ip[1], F_SETFL, O_NONBLOCK))
		goto fail;
	if (in && write(ip[1], in->valuestring, strlen(in->valuestring)) !=
			  (ssize_t)strlen(in->valuestring))
		goto fail;
	m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "op", "exec");
	cJSON_AddItemToObject(m, "argv", cJSON_Duplicate(argv, true));
	if (cwd)
		cJSON_AddStringToObject(m, "cwd", cwd->valuestring);
	if (env)
		cJSON_AddItemToObject(m, "env", cJSON_Duplicate(env, true));
	if (tmo)
		cJSON_AddNumberToObject(m, "timeout_ms", tmo->valuedouble);
	text = cJSON_PrintUnformatted(m);
	cJSON_Delete(m);
	fds[0] = ip[0];
	fds[1] = op[0][1];
	fds[2] = op[1][1];
	if (!text || wd_execs_send(s->exec, text, fds, 3) < 0) {
		free(text);
		goto fail;
	}
	free(text);
	close(ip[0]);
	close(op[0][1]);
	close(op[1][1]);
	/* streamed: the write end stays ours, for the stdin requests; else its end of file now */
	if (cJSON_IsTrue(sin)) {
		if (s->in_w >= 0)
			close(s->in_w);
		wd_outq_free(&s->in_q);
		wd_outq_init(&s->in_q, STDIN_MAX);
		s->in_w = ip[1];
		s->in_eof = false;
	} else {
		close(ip[1]);
	}
	/* until "started": the reply waits, and the output with it */
	for (int i = 0; i < 2; i++) {
		if (s->out[i] >= 0)
			close(s->out[i]);
		s->out[i] = op[i][0];
		s->out_bytes[i] = s->out_lost[i] = 0;
		s->out_kept[i] = 0;
	}
	s->streamed = true;
	s->exec_client = client;
	s->waiter = client;
	s->holds_events = holds != NULL;
	s->holds_return = holds && !strcmp(holds->valuestring, "return");
	/* what an earlier exec wrote with no one attached is not this one's */
	for (int i = 0; i < 2; i++) {
		free(s->missed[i]);
		s->missed[i] = NULL;
		s->missed_len[i] = 0;
	}
	cJSON_Delete(s->id);
	s->id = id ? cJSON_Duplicate(id, true) : NULL;
	return NULL;
fail:
	err = coded_error("internal", "exec: %s", strerror(errno));
	close_pair(ip);
	close_pair(op[0]);
	close_pair(op[1]);
	return err;
}

/*
 * A put or get on @s: @m (the message, taken) with stdin @in (a pipe's read end, or -1 for
 * none) and stdout a pipe of ours (kept in s->out[0] for a get). NULL, or the error reply.
 */
static cJSON *transfer_start(struct sup *s, cJSON *m, int in, int kind, const char *path,
			     int client, const cJSON *id)
{
	int op[2] = { -1, -1 }, fds[3] = { in, -1, -1 }, null = open("/dev/null", O_RDWR | O_CLOEXEC);
	char *text = cJSON_PrintUnformatted(m);
	cJSON *err = NULL;

	cJSON_Delete(m);
	if (null < 0 || pipe2(op, O_CLOEXEC) || fcntl(op[0], F_SETFL, O_NONBLOCK))
		err = coded_error("internal", "transfer: %s", strerror(errno));
	fds[0] = in >= 0 ? in : null;
	fds[1] = kind == 2 ? op[1] : null;
	fds[2] = null;
	if (!err && (!text || wd_execs_send(s->exec, text, fds, 3) < 0))
		err = coded_error("internal", "transfer: %s", strerror(errno));
	free(text);
	if (null >= 0)
		close(null);
	if (op[1] >= 0)
		close(op[1]);
	if (err || kind != 2) {
		if (op[0] >= 0)
			close(op[0]);
		op[0] = -1;
	}
	if (err)
		return err;
	if (s->out[0] >= 0)
		close(s->out[0]);
	s->out[0] = op[0];
	s->transfer = kind;
	free(s->xfer_path);
	s->xfer_path = strdup(path);
	free(s->got);
	s->got = NULL;
	s->got_len = 0;
	s->got_over = false;
	s->exec_client = client;
	cJSON_Delete(s->id);
	s->id = id ? cJSON_Duplicate(id, true) : NULL;
	return NULL;
}

/* What put and get share: their sandbox, free to take one, and an absolute path. */
static struct sup *transfer_of(const cJSON *req, const char *op, cJSON **err)
{
	const char *path = str_field(req, "path");
	struct sup *s;

	*err = NULL;
	s = persistent_of(req, op, err);
	if (*err)
		return NULL;
	if (!path || path[0] != '/')
		*err = error_reply("%s: \"path\" must be an absolute path in the sandbox", op);
	else if (s->exec_running || s->exec_client >= 0)
		*err = coded_error("busy", "%s: an exec or transfer runs in the sandbox already", op);
	else if (s->exec < 0)
		*err = coded_error("internal", "%s: the sandbox takes no more requests", op);
	return *err ? NULL : s;
}

cJSON *op_put(const cJSON *req, int client, const cJSON *id)
{
	const cJSON *data = cJSON_GetObjectItemCaseSensitive(req, "data");
	const cJSON *b64 = cJSON_GetObjectItemCaseSensitive(req, "data_b64");
	const cJSON *mode = cJSON_GetObjectItemCaseSensitive(req, "mode");
	unsigned char *bytes = NULL;
	long n = -1;
	int ip[2] = { -1, -1 };
	cJSON *err, *m;
	struct sup *s = transfer_of(req, "put", &err);

	if (!s)
		return err;
	if (!!cJSON_IsString(data) == !!cJSON_IsString(b64) || (data && !cJSON_IsString(data)) ||
	    (b64 && !cJSON_IsString(b64)))
		return error_reply("put: one of \"data\" (UTF-8) or \"data_b64\" (base64) is "
				   "required%s", "");
	if (mode && (!cJSON_IsNumber(mode) || mode->valuedouble < 0 || mode->valuedouble > 0777 ||
		     mode->valuedouble != (double)(int)mode->valuedouble))
		return error_reply("put: \"mode\" must be a file mode, 0 to 511 (0777)%s", "");
	if (data) {
		n = (long)strlen(data->valuestring);
	} else if ((bytes = malloc(strlen(b64->valuestring) + 1))) {
		n = wd_audit_unbase64(b64->valuestring, bytes);
		if (n < 0) {
			free(bytes);
			return error_reply("put: \"data_b64\" is no base64%s", "");
		}
	}
	/* a request is at most 64 KiB: what it carries fits a fresh pipe, written now */
	if (n < 0 || pipe2(ip, O_CLOEXEC) ||
	    write(ip[1], data ? data->valuestring : (const char *)bytes, (size_t)n) != n) {
		free(bytes);
		if (ip[0] >= 0)
			close(ip[0]);
		if (ip[1] >= 0)
			close(ip[1]);
		return coded_error("internal", "put: %s", strerror(errno));
	}
	free(bytes);
	close(ip[1]);
	m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "op", "exec");
	cJSON_AddStringToObject(m, "transfer", "put");
	cJSON_AddNumberToObject(m, "timeout_ms", TRANSFER_MS);
	cJSON_AddStringToObject(m, "path", str_field(req, "path"));
	cJSON_AddNumberToObject(m, "mode", mode ? mode->valuedouble : 0644);
	err = transfer_start(s, m, ip[0], 1, str_field(req, "path"), client, id);
	close(ip[0]);
	if (!err)
		s->got_len = (size_t)n; /* what went in, for the reply */
	return err;
}

cJSON *op_get(const cJSON *req, int client, const cJSON *id)
{
	cJSON *err, *m;
	struct sup *s = transfer_of(req, "get", &err);

	if (!s)
		return err;
	m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "op", "exec");
	cJSON_AddStringToObject(m, "transfer", "get");
	cJSON_AddNumberToObject(m, "timeout_ms", TRANSFER_MS);
	cJSON_AddStringToObject(m, "path", str_field(req, "path"));
	return transfer_start(s, m, -1, 2, str_field(req, "path"), client, id);
}

void transfer_take(struct sup *s, const char *b, size_t n)
{
	char *g;

	if (s->transfer != 2 || s->got_over)
		return;
	if (s->got_len + n > GET_MAX || !(g = realloc(s->got, s->got_len + n))) {
		s->got_over = true;
		return;
	}
	memcpy(g + s->got_len, b, n);
	s->got = g;
	s->got_len += n;
}

/* A put's or get's end: its reply, from the copy's status (0, or its errno). */
static void transfer_end(struct sup *s, const cJSON *m)
{
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(m, "code");
	int e = cJSON_IsNumber(code) ? code->valueint : EIO;
	const char *op = s->transfer == 1 ? "put" : "get";
	cJSON *r;

	stream_drain(s);
	if (!e && s->got_over) {
		r = coded_error("too_large", "get: %s is over 8 MiB", s->xfer_path);
	} else if (e) {
		char why[512];

		snprintf(why, sizeof(why), "%s: %s: %s", op, s->xfer_path,
			 e > 0 && e < 128 ? strerror(e) : "the copy was killed");
		r = coded_error("transfer_failed", "%s", why);
		cJSON_AddNumberToObject(r, "errno", e);
	} else {
		r = cJSON_CreateObject();
		cJSON_AddBoolToObject(r, "ok", true);
		cJSON_AddStringToObject(r, "sandbox", s->name);
		cJSON_AddStringToObject(r, "path", s->xfer_path);
		cJSON_AddNumberToObject(r, "bytes", (double)s->got_len);
		if (s->transfer == 2) {
			char *b64 = wd_audit_base64(s->got ? s->got : "", s->got_len);

			cJSON_AddStringToObject(r, "data_b64", b64 ? b64 : "");
			free(b64);
		}
	}
	if (s->exec_client >= 0)
		send_reply_id(s->exec_client, r, s->id);
	else
		cJSON_Delete(r);
	s->exec_client = -1;
	s->exec_running = false;
	s->transfer = 0;
	free(s->got);
	s->got = NULL;
	s->got_len = 0;
}

cJSON *op_inspect(const cJSON *req, int client, const cJSON *id)
{
	cJSON *err = NULL;
	struct sup *s = persistent_of(req, "inspect", &err);

	if (err)
		return err;
	if (s->inspector >= 0)
		return coded_error("busy", "inspect: %s is being inspected already", s->name);
	if (s->exec < 0 || wd_execs_send(s->exec, "{\"op\":\"inspect\"}", NULL, 0) < 0)
		return coded_error("internal", "inspect: %s does not answer", s->name);
	s->inspector = client;
	s->inspect_id = id ? cJSON_Duplicate(id, true) : NULL;
	return NULL;
}

cJSON *op_destroy(const cJSON *req, int client, const cJSON *id)
{
	cJSON *err = NULL;
	struct sup *s = persistent_of(req, "destroy", &err);

	if (err)
		return err;
	if (s->destroyer >= 0)
		return coded_error("busy", "destroy: %s is being destroyed already", s->name);
	/* its supervisor kills everything in it, writes the exit record and the report */
	if (kill(s->pid, SIGTERM))
		return coded_error("internal", "destroy: %s", strerror(errno));
	s->destroyer = client;
	s->destroy_id = id ? cJSON_Duplicate(id, true) : NULL;
	return NULL;
}

/* The exec's end: what is left of its output, then {"event":"exit",...} to its client. */
static void exec_exit(struct sup *s, cJSON *m)
{
	cJSON *e = cJSON_CreateObject(), *o;
	static const char *const copy[] = { "status", "code", "signal", "wall_ms" };

	stream_drain(s);
	s->exec_running = false;
	/* the command is gone: what it did not read of its streamed stdin goes too */
	if (s->in_w >= 0) {
		close(s->in_w);
		s->in_w = -1;
		wd_outq_free(&s->in_q);
	}
	cJSON_AddStringToObject(e, "event", "exit");
	cJSON_AddStringToObject(e, "sandbox", s->name);
	for (size_t i = 0; i < sizeof(copy) / sizeof(copy[0]); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, copy[i]);

		if (v)
			cJSON_AddItemToObject(e, copy[i], cJSON_Duplicate(v, true));
	}
	o = cJSON_AddObjectToObject(e, "output");
	cJSON_AddNumberToObject(o, "stdout_bytes", (double)s->out_bytes[0]);
	cJSON_AddNumberToObject(o, "stderr_bytes", (double)s->out_bytes[1]);
	cJSON_AddNumberToObject(o, "lost_bytes", (double)(s->out_lost[0] + s->out_lost[1]));
	if (s->waiter >= 0)
		send_reply_id(s->waiter, e, s->id);
	else
		cJSON_Delete(e);
	s->waiter = -1;
	s->holds_events = s->holds_return = false;
}

bool exec_read(struct sup *s)
{
	bool more = true;
	char *buf = malloc(65537);
	int fds[3], n = 0;
	ssize_t r = buf ? wd_execs_recv(s->exec, buf, 65537, fds, 3, &n) : -1;
	cJSON *m = r > 0 ? cJSON_Parse(buf) : NULL, *rep;
	const char *op = m ? str_field(m, "op") : NULL;

	while (n > 0)
		close(fds[--n]); /* the supervisor sends none */
	if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		more = false;
		goto out;
	}
	if (r <= 0) {
		more = false;
		/* it is ending: its exit status says the rest */
		close(s->exec);
		s->exec = -1;
		goto out;
	}
	if (op && !strcmp(op, "started") && s->transfer) {
		s->exec_running = true; /* its reply waits for its end */
	} else if (op && !strcmp(op, "exit") && s->transfer) {
		transfer_end(s, m);
	} else if (op && !strcmp(op, "started")) {
		s->exec_running = true;
		rep = cJSON_CreateObject();
		cJSON_AddBoolToObject(rep, "ok", true);
		cJSON_AddStringToObject(rep, "sandbox", s->name);
		cJSON_AddItemToObject(rep, "pid",
				      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(m, "pid"),
						      true));
		if (s->exec_client >= 0)
			send_reply_id(s->exec_client, rep, s->id);
		else
			cJSON_Delete(rep);
		s->exec_client = -1;
		/* "holds":"events": what a process left running holds already comes first */
		tell_held(s);
	} else if (op && !strcmp(op, "failed")) {
		const char *why = str_field(m, "error");

		const cJSON *e = cJSON_GetObjectItemCaseSensitive(m, "errno");

		rep = coded_error("start_failed", "exec: %s", why ? why : "it did not start");
		if (cJSON_IsNumber(e))
			cJSON_AddNumberToObject(rep, "errno", e->valuedouble);
		if (s->exec_client >= 0)
			send_reply_id(s->exec_client, rep, s->id);
		else
			cJSON_Delete(rep);
		for (int i = 0; i < 2; i++)
			if (s->out[i] >= 0) {
				close(s->out[i]);
				s->out[i] = -1;
			}
		s->exec_client = s->waiter = -1;
		s->holds_events = s->holds_return = false;
		s->transfer = 0;
	} else if (op && !strcmp(op, "exit")) {
		exec_exit(s, m);
	} else if (op && !strcmp(op, "inspect") && s->inspector >= 0) {
		cJSON_DeleteItemFromObjectCaseSensitive(m, "op");
		cJSON_AddBoolToObject(m, "ok", true);
		cJSON_AddStringToObject(m, "sandbox", s->name);
		if (s->label_name)
			cJSON_AddStringToObject(m, "name", s->label_name);
		cJSON_AddItemToObject(m, "labels", s->labels ? cJSON_Duplicate(s->labels, true) :
							       cJSON_CreateObject());
		cJSON_AddNumberToObject(m, "supervisor", s->pid);
		send_reply_id(s->inspector, m, s->inspect_id);
		m = NULL;
		cJSON_Delete(s->inspect_id);
		s->inspect_id = NULL;
		s->inspector = -1;
	}
out:
	cJSON_Delete(m);
	free(buf);
	return more;
}

void sandbox_ended(struct sup *s, cJSON *report)
{
	cJSON *r;

	if (s->inspector >= 0)
		send_reply_id(s->inspector, coded_error("not_found", "%s ended meanwhile", s->name),
			      s->inspect_id);
	if (s->exec_client >= 0)
		send_reply_id(s->exec_client, coded_error("not_found", "%s ended meanwhile",
							  s->name), s->id);
	s->inspector = s->exec_client = -1;
	if (s->destroyer < 0) {
		log_info("%s ended (%s)", s->name, s->label_name ? s->label_name : "unnamed");
		cJSON_Delete(report);
		return;
	}
	r = cJSON_CreateObject();
	cJSON_AddBoolToObject(r, "ok", true);
	cJSON_AddStringToObject(r, "sandbox", s->name);
	cJSON_AddItemToObject(r, "report", report ? report : cJSON_CreateNull());
	send_reply_id(s->destroyer, r, s->destroy_id);
	s->destroyer = -1;
}
