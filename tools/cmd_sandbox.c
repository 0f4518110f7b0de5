// SPDX-License-Identifier: GPL-2.0
/*
 * `warden sandbox create|exec|list|inspect|destroy`: persistent sandboxes of the wardend on this
 * run directory (docs/control.md#persistent-sandboxes), through its control.sock.
 */
#include <errno.h>
#include <poll.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cJSON.h>

#include "audit/jsonl.h"
#include "supervisor/hold/holds_socket.h"
#include "supervisor/ipc/line.h"
#include "supervisor/ipc/rundir.h"
#include "supervisor/ipc/sock.h"
#include "supervisor/util/log.h"
#include "tools/cmds.h"

static const char sandbox_usage[] =
	"usage: warden sandbox create --policy POLICY [--name NAME] [--label KEY=VALUE]...\n"
	"                             [--idle SECONDS] [--cwd DIR] [--backend NAME] [--audit FILE]\n"
	"       warden sandbox exec SANDBOX [--cwd DIR] [--env NAME=VALUE]... [--timeout MS]\n"
	"                             [--stdin] -- COMMAND [ARG...]\n"
	"       warden sandbox put SANDBOX PATH [--mode OCTAL] < FILE\n"
	"       warden sandbox get SANDBOX PATH > FILE\n"
	"       warden sandbox list | inspect SANDBOX | destroy SANDBOX\n"
	"\n"
	"A persistent sandbox of wardend's (docs/control.md): made once, many commands run in it,\n"
	"each in its cgroup, namespaces and rules, files and background processes kept between them.\n"
	"  create   make one (POLICY: a policy file's absolute path or a template name); prints its\n"
	"           id. --idle: end it after SECONDS with no command running (default 600, 0 never)\n"
	"  exec     run COMMAND in SANDBOX (its id or name): its output on this process's, its\n"
	"           exit status this command's (128+N for signal N). --stdin: this process's\n"
	"           standard input is COMMAND's, to its end (else COMMAND reads none)\n"
	"  put      write standard input (at most 48 KiB) to PATH in SANDBOX, as the sandbox may\n"
	"  get      PATH in SANDBOX (at most 8 MiB) onto standard output, as the sandbox may\n"
	"  list     the daemon's sandboxes, one JSON object a line\n"
	"  inspect  one sandbox: processes, usage, execs, labels (JSON)\n"
	"  destroy  end everything in it and remove it; prints its report's status\n"
	"wardend must run on this run directory ($WARDEN_RUN_DIR, else /run/warden); root only.\n";

/* One connection to control.sock, whose peer must be root (wardend is root's). */
struct ctl {
	int fd;
	struct wd_lines in;
};

static int ctl_open(struct ctl *c)
{
	char path[108];
	struct wd_peer peer;
	int err = wd_run_sock_path(path, sizeof(path), WD_SOCK_DAEMON, NULL);

	wd_lines_init(&c->in, WD_CTL_OUT_MAX);
	c->fd = err ? err : wd_sock_connect(path, SOCK_STREAM | SOCK_CLOEXEC);
	if (c->fd < 0) {
		log_warnx("sandbox: cannot reach wardend at %s: %s", path, strerror(-c->fd));
		return c->fd;
	}
	err = wd_peer_read(c->fd, &peer);
	if (!err && peer.uid != 0)
		err = -EPERM;
	if (err) {
		log_warnx("sandbox: %s is not root's wardend", path);
		close(c->fd);
		c->fd = -1;
	}
	return err;
}

static int ctl_send(struct ctl *c, cJSON *req)
{
	size_t len;
	char *s = wd_json_line(req, &len);
	int err = s ? wd_line_write(c->fd, s, len, -1) : -ENOMEM;

	free(s);
	cJSON_Delete(req);
	return err;
}

static cJSON *ctl_recv(struct ctl *c)
{
	return wd_lines_json(&c->in, c->fd);
}

static void ctl_close(struct ctl *c)
{
	if (c->fd >= 0)
		close(c->fd);
	wd_lines_free(&c->in);
}

/* @r's error said (its code, its pointer), and true; false for an ok reply. */
static bool said_error(const cJSON *r, const char *what)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(r, "error");

	if (!r) {
		log_warnx("sandbox %s: wardend did not answer", what);
		return true;
	}
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "ok")))
		return false;
	log_warnx("sandbox %s: %s", what, cJSON_IsString(e) ? e->valuestring : "refused");
	return true;
}

/* One request, its one reply printed (pretty) or its error said: 0, 1 refused, 125 no reply. */
static int one_request(cJSON *req, const char *what, bool print)
{
	struct ctl c;
	cJSON *r;
	int rc;

	if (ctl_open(&c))
		return WD_EXIT_INTERNAL;
	r = ctl_send(&c, req) ? NULL : ctl_recv(&c);
	rc = !r ? WD_EXIT_INTERNAL : said_error(r, what) ? 1 : 0;
	if (!rc && print) {
		char *s = cJSON_Print(r);

		if (s)
			puts(s);
		free(s);
	}
	if (!rc && !strcmp(what, "create"))
		puts(cJSON_GetObjectItemCaseSensitive(r, "sandbox")->valuestring);
	if (!rc && !strcmp(what, "destroy")) {
		const cJSON *rep = cJSON_GetObjectItemCaseSensitive(r, "report");
		const cJSON *st = rep ? cJSON_GetObjectItemCaseSensitive(rep, "status") : NULL;

		printf("%s\n", cJSON_IsString(st) ? st->valuestring : "destroyed");
	}
	cJSON_Delete(r);
	ctl_close(&c);
	return rc;
}

/* KEY=VALUE into @obj; false for one without a key. */
static bool add_pair(cJSON *obj, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char key[256];

	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(key))
		return false;
	memcpy(key, arg, (size_t)(eq - arg));
	key[eq - arg] = 0;
	cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
	cJSON_AddStringToObject(obj, key, eq + 1);
	return true;
}

static int sandbox_create(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' }, { "name", required_argument, NULL, 'n' },
		{ "label", required_argument, NULL, 'l' },  { "idle", required_argument, NULL, 'i' },
		{ "cwd", required_argument, NULL, 'c' },    { "backend", required_argument, NULL, 'b' },
		{ "audit", required_argument, NULL, 'a' },  { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	cJSON *req = cJSON_CreateObject(), *labels = cJSON_CreateObject();
	char cwd[4096], *end;
	int c;

	cJSON_AddStringToObject(req, "op", "create");
	while ((c = getopt_long(argc, argv, "+p:n:l:i:c:b:a:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			cJSON_AddStringToObject(req, "policy", optarg);
			break;
		case 'n':
			cJSON_AddStringToObject(req, "name", optarg);
			break;
		case 'l':
			if (!add_pair(labels, optarg))
				goto usage;
			break;
		case 'i':
			cJSON_AddNumberToObject(req, "idle_timeout_s", (double)strtoul(optarg, &end, 10));
			if (*end || !optarg[0])
				goto usage;
			break;
		case 'c':
			cJSON_AddStringToObject(req, "cwd", optarg);
			break;
		case 'b':
			cJSON_AddStringToObject(req, "backend", optarg);
			break;
		case 'a':
			cJSON_AddStringToObject(req, "audit", optarg);
			break;
		case 'h':
			cJSON_Delete(req);
			cJSON_Delete(labels);
			return wd_usage(sandbox_usage, true);
		default:
			goto usage;
		}
	}
	if (optind != argc || !cJSON_GetObjectItemCaseSensitive(req, "policy"))
		goto usage;
	/* the caller's directory, by default: the daemon's is not the caller's */
	if (!cJSON_GetObjectItemCaseSensitive(req, "cwd") && getcwd(cwd, sizeof(cwd)))
		cJSON_AddStringToObject(req, "cwd", cwd);
	if (cJSON_GetArraySize(labels))
		cJSON_AddItemToObject(req, "labels", labels);
	else
		cJSON_Delete(labels);
	return one_request(req, "create", false);
usage:
	cJSON_Delete(req);
	cJSON_Delete(labels);
	return wd_usage(sandbox_usage, false);
}

/* An output event's bytes onto fd 1 or 2. */
static void write_event(const cJSON *e, int fd)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(e, "data");
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(e, "data_b64");
	unsigned char *buf = NULL;
	const void *p = NULL;
	ssize_t n = -1;

	if (cJSON_IsString(d)) {
		p = d->valuestring;
		n = (ssize_t)strlen(d->valuestring);
	} else if (cJSON_IsString(b) && (buf = malloc(strlen(b->valuestring) + 1))) {
		n = wd_audit_unbase64(b->valuestring, buf);
		p = buf;
	}
	while (n > 0) {
		ssize_t w = write(fd, p, (size_t)n);

		if (w <= 0)
			break;
		p = (const char *)p + w;
		n -= w;
	}
	free(buf);
}

/*
 * exec --stdin: this process's standard input goes on the exec's own connection as stdin
 * requests (id "in"), one chunk in flight at a time, so at most a chunk and wardend's bounded
 * queue wait; a "busy" answer (the queue is full: the command reads slower) sends the chunk
 * again a moment later. Then its end, as "eof".
 */
#define STDIN_CHUNK (32u << 10)

struct feed {
	const char *sandbox;
	bool open; /* fd 0 not at its end yet */
	bool in_flight; /* a stdin request waits for its answer */
	char *again; /* the line wardend was too busy for, sent again after a moment */
	size_t again_len;
};

static int feed_send(struct ctl *c, struct feed *f, const char *buf, ssize_t n)
{
	cJSON *req = cJSON_CreateObject();
	char *b64 = n > 0 ? wd_audit_base64(buf, (size_t)n) : NULL;
	size_t len;
	char *line;
	int err;

	cJSON_AddStringToObject(req, "op", "stdin");
	cJSON_AddStringToObject(req, "id", "in");
	cJSON_AddStringToObject(req, "sandbox", f->sandbox);
	if (n > 0)
		cJSON_AddStringToObject(req, "data_b64", b64 ? b64 : "");
	else
		cJSON_AddBoolToObject(req, "eof", true);
	free(b64);
	line = wd_json_line(req, &len);
	cJSON_Delete(req);
	err = line ? wd_line_write(c->fd, line, len, -1) : -ENOMEM;
	free(f->again);
	f->again = line;
	f->again_len = len;
	f->in_flight = !err;
	return err;
}

/* fd 0 is readable: a chunk of it, or its end, to the command. */
static void feed_read(struct ctl *c, struct feed *f)
{
	char buf[STDIN_CHUNK];
	ssize_t n = read(0, buf, sizeof(buf));

	if (n < 0 && errno == EINTR)
		return;
	if (n <= 0)
		f->open = false;
	if (feed_send(c, f, buf, n > 0 ? n : 0))
		f->open = false;
}

/* The answer to a stdin request: true when it was one (taken), false for anything else. */
static bool feed_answer(struct feed *f, const cJSON *r)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(r, "id");
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(r, "code");

	if (!cJSON_IsString(id) || strcmp(id->valuestring, "in") ||
	    cJSON_GetObjectItemCaseSensitive(r, "event"))
		return false;
	f->in_flight = false;
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "ok"))) {
		free(f->again);
		f->again = NULL;
	} else if (!cJSON_IsString(code) || strcmp(code->valuestring, "busy")) {
		/* the command went, or closed its stdin: the rest is not read (said if not that) */
		if (!cJSON_IsString(code) || strcmp(code->valuestring, "not_found"))
			said_error(r, "exec --stdin");
		free(f->again);
		f->again = NULL;
		f->open = false;
	}
	return true;
}

static int sandbox_exec(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cwd", required_argument, NULL, 'c' },     { "env", required_argument, NULL, 'e' },
		{ "timeout", required_argument, NULL, 't' }, { "help", no_argument, NULL, 'h' },
		{ "stdin", no_argument, NULL, 'i' },	     { NULL, 0, NULL, 0 }
	};
	cJSON *req = cJSON_CreateObject(), *env = cJSON_CreateObject(), *a, *r;
	struct feed feed = { 0 };
	struct ctl ctl;
	char *end;
	int c, rc = WD_EXIT_INTERNAL;

	cJSON_AddStringToObject(req, "op", "exec");
	cJSON_AddStringToObject(req, "id", "exec");
	while ((c = getopt_long(argc, argv, "+c:e:t:hi", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			feed.open = true;
			break;
		case 'c':
			cJSON_AddStringToObject(req, "cwd", optarg);
			break;
		case 'e':
			if (!add_pair(env, optarg))
				goto usage;
			break;
		case 't':
			cJSON_AddNumberToObject(req, "timeout_ms", (double)strtoul(optarg, &end, 10));
			if (*end || !optarg[0])
				goto usage;
			break;
		case 'h':
			cJSON_Delete(req);
			cJSON_Delete(env);
			return wd_usage(sandbox_usage, true);
		default:
			goto usage;
		}
	}
	/* SANDBOX, then the command (after --, which getopt took, or as it comes) */
	if (optind + 2 > argc)
		goto usage;
	feed.sandbox = argv[optind];
	cJSON_AddStringToObject(req, "sandbox", argv[optind++]);
	if (feed.open)
		cJSON_AddBoolToObject(req, "stdin_stream", true);
	if (!strcmp(argv[optind], "--"))
		optind++;
	if (optind >= argc)
		goto usage;
	a = cJSON_AddArrayToObject(req, "argv");
	for (int i = optind; i < argc; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(argv[i]));
	if (cJSON_GetArraySize(env))
		cJSON_AddItemToObject(req, "env", env);
	else
		cJSON_Delete(env);
	if (ctl_open(&ctl)) {
		cJSON_Delete(req);
		return WD_EXIT_INTERNAL;
	}
	if (ctl_send(&ctl, req)) {
		ctl_close(&ctl);
		return WD_EXIT_INTERNAL;
	}
	/* the reply (its start, or why not), its output as it comes, its exit */
	r = ctl_recv(&ctl);
	if (said_error(r, "exec")) {
		const cJSON *code = cJSON_GetObjectItemCaseSensitive(r, "code");
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(r, "errno");

		/* as warden run exits: 127 not found, 126 not runnable, 2 a bad request */
		rc = !cJSON_IsString(code) || strcmp(code->valuestring, "start_failed") ?
			     WD_EXIT_USAGE : cJSON_IsNumber(e) && e->valueint == ENOENT ?
			     WD_EXIT_NOT_FOUND : WD_EXIT_CANNOT_EXEC;
		r = (cJSON_Delete(r), NULL);
	}
	while (r) {
		const char *ev = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(r, "event")) ?
			cJSON_GetObjectItemCaseSensitive(r, "event")->valuestring : "";

		if (feed_answer(&feed, r)) {
			;
		} else if (!strcmp(ev, "stdout") || !strcmp(ev, "stderr")) {
			write_event(r, ev[3] == 'o' ? 1 : 2);
		} else if (!strcmp(ev, "exit")) {
			const cJSON *code = cJSON_GetObjectItemCaseSensitive(r, "code");

			rc = cJSON_IsNumber(code) ? code->valueint : WD_EXIT_INTERNAL;
			cJSON_Delete(r);
			break;
		}
		cJSON_Delete(r);
		r = NULL;
		/* what comes next: wardend's line, or (fed) our stdin, or a busy chunk's retry */
		while (!r && !wd_lines_ready(&ctl.in)) {
			struct pollfd p[2] = { { .fd = ctl.fd, .events = POLLIN },
					       { .fd = 0, .events = POLLIN } };
			bool retry = feed.again && !feed.in_flight;
			int n = poll(p, feed.open && !feed.in_flight && !retry ? 2 : 1,
				     retry ? 50 : -1);

			if (n < 0 && errno != EINTR)
				break;
			if (n == 0 && retry &&
			    !(feed.in_flight = !wd_line_write(ctl.fd, feed.again, feed.again_len, -1)))
				feed.open = false;
			if (n > 0 && p[1].revents)
				feed_read(&ctl, &feed);
			if (n > 0 && p[0].revents)
				break;
		}
		r = ctl_recv(&ctl);
	}
	free(feed.again);
	ctl_close(&ctl);
	return rc;
usage:
	cJSON_Delete(req);
	cJSON_Delete(env);
	return wd_usage(sandbox_usage, false);
}

static int sandbox_list(void)
{
	struct ctl c;
	cJSON *req = cJSON_CreateObject(), *r, *s, *list;
	int rc;

	cJSON_AddStringToObject(req, "op", "list");
	if (ctl_open(&c)) {
		cJSON_Delete(req);
		return WD_EXIT_INTERNAL;
	}
	r = ctl_send(&c, req) ? NULL : ctl_recv(&c);
	rc = said_error(r, "list") ? 1 : 0;
	list = rc ? NULL : cJSON_GetObjectItemCaseSensitive(r, "sandboxes");
	cJSON_ArrayForEach(s, list) {
		char *line = cJSON_PrintUnformatted(s);

		if (line)
			puts(line);
		free(line);
	}
	cJSON_Delete(r);
	ctl_close(&c);
	return rc;
}

/* put (standard input into PATH) and get (PATH onto standard output): 0, 1 refused, 125. */
static int sandbox_transfer(int argc, char **argv)
{
	bool put = !strcmp(argv[0], "put");
	cJSON *req, *r;
	struct ctl c;
	int rc;

	if (argc != 3 && !(put && argc == 5 && !strcmp(argv[3], "--mode")))
		return wd_usage(sandbox_usage, false);
	req = cJSON_CreateObject();
	cJSON_AddStringToObject(req, "op", argv[0]);
	cJSON_AddStringToObject(req, "sandbox", argv[1]);
	cJSON_AddStringToObject(req, "path", argv[2]);
	if (put) {
		/* a request is at most 64 KiB: 48 KiB of bytes in base64, with room for the rest */
		static char in[49153];
		size_t n = 0;
		ssize_t k;
		char *b64, *end;

		while (n < sizeof(in) && (k = read(0, in + n, sizeof(in) - n)) > 0)
			n += (size_t)k;
		if (n == sizeof(in)) {
			log_warnx("sandbox put: at most 48 KiB a put");
			cJSON_Delete(req);
			return WD_EXIT_USAGE;
		}
		b64 = wd_audit_base64(in, n);
		cJSON_AddStringToObject(req, "data_b64", b64 ? b64 : "");
		free(b64);
		if (argc == 5) {
			cJSON_AddNumberToObject(req, "mode", (double)strtoul(argv[4], &end, 8));
			if (*end || !argv[4][0]) {
				cJSON_Delete(req);
				return wd_usage(sandbox_usage, false);
			}
		}
	}
	if (ctl_open(&c)) {
		cJSON_Delete(req);
		return WD_EXIT_INTERNAL;
	}
	r = ctl_send(&c, req) ? NULL : ctl_recv(&c);
	rc = !r ? WD_EXIT_INTERNAL : said_error(r, argv[0]) ? 1 : 0;
	/* get's bytes, as an output event's */
	if (!rc && !put)
		write_event(r, 1);
	cJSON_Delete(r);
	ctl_close(&c);
	return rc;
}

int cmd_sandbox(int argc, char **argv)
{
	cJSON *req;

	if (argc < 2)
		return wd_usage(sandbox_usage, false);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"))
		return wd_usage(sandbox_usage, true);
	if (!strcmp(argv[1], "create"))
		return sandbox_create(argc - 1, argv + 1);
	if (!strcmp(argv[1], "exec"))
		return sandbox_exec(argc - 1, argv + 1);
	if (!strcmp(argv[1], "put") || !strcmp(argv[1], "get"))
		return sandbox_transfer(argc - 1, argv + 1);
	if (!strcmp(argv[1], "list") && argc == 2)
		return sandbox_list();
	if ((!strcmp(argv[1], "inspect") || !strcmp(argv[1], "destroy")) && argc == 3) {
		req = cJSON_CreateObject();
		cJSON_AddStringToObject(req, "op", argv[1]);
		cJSON_AddStringToObject(req, "sandbox", argv[2]);
		return one_request(req, argv[1], !strcmp(argv[1], "inspect"));
	}
	return wd_usage(sandbox_usage, false);
}
