// SPDX-License-Identifier: GPL-2.0
/*
 * The operator's side of holds: `warden holds`, `approve`, `deny` and `prompt`. They talk to
 * every run's control socket under /run/warden (docs/control.md), so they work from any terminal
 * while a `warden run` waits on a hold.
 */
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

#include <cJSON.h>

#include "policy/grow.h"
#include "supervisor/hold/holds_socket.h"
#include "supervisor/ipc/line.h"
#include "supervisor/ipc/rundir.h"
#include "supervisor/ipc/sock.h"
#include "supervisor/util/log.h"
#include "tools/cmds.h"

/* Every run's socket. */
static const char *sock_glob(void)
{
	static char g[4096];

	if (wd_run_sock_glob(g, sizeof(g), WD_SOCK_HOLDS))
		g[0] = 0;
	return g;
}

struct conn {
	int fd;
	char path[108];
	struct wd_lines in;
	/*
	 * ids of this run's holds already put to the operator, all of them: a listing of
	 * hundreds can come in beside the same holds as events, and each is asked once
	 */
	double *asked;
	size_t n_asked;
};

/*
 * Connect to the holds socket at @path. Its peer must be root: a hold's token goes to it, and
 * only a run (warden run is root's) may be told one.
 */
static int conn_open(struct conn *c, const char *path)
{
	struct wd_peer peer;
	int err;

	memset(c, 0, sizeof(*c));
	snprintf(c->path, sizeof(c->path), "%s", path);
	wd_lines_init(&c->in, WD_CTL_OUT_MAX);
	c->fd = wd_sock_connect(path, SOCK_STREAM | SOCK_CLOEXEC);
	if (c->fd < 0)
		return c->fd;
	err = wd_peer_read(c->fd, &peer);
	if (!err && peer.uid != 0)
		err = -EPERM;
	if (err) {
		close(c->fd);
		c->fd = -1;
	}
	return err;
}

static void conn_close(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	wd_lines_free(&c->in);
	free(c->asked);
	c->fd = -1;
	c->asked = NULL;
	c->n_asked = 0;
}

static int conn_send(struct conn *c, cJSON *req)
{
	size_t len;
	char *s;
	int err;

	cJSON_AddNumberToObject(req, "v", WD_CTL_PROTO);
	s = wd_json_line(req, &len);
	cJSON_Delete(req);
	err = s ? wd_line_write(c->fd, s, len, -1) : -ENOMEM;
	free(s);
	return err;
}

/* The next line from @c as JSON (blocking), or NULL at EOF or on garbage. */
static cJSON *conn_recv(struct conn *c)
{
	return wd_lines_json(&c->in, c->fd);
}

/* A whole line is already read and waiting: poll() will not say so, so the caller must ask. */
static bool conn_buffered(const struct conn *c)
{
	return c->fd >= 0 && wd_lines_ready(&c->in);
}

static cJSON *request(struct conn *c, cJSON *req)
{
	if (conn_send(c, req))
		return NULL;
	return conn_recv(c);
}

static const char *str(const cJSON *o, const char *k);

/* Every run's holds, as one array of hold objects (each names its sandbox). */
static cJSON *all_holds(void)
{
	cJSON *all = cJSON_CreateArray();
	glob_t g;

	if (glob(sock_glob(), 0, NULL, &g) != 0)
		return all;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct conn c;
		cJSON *req, *rep, *holds, *h;
		int err = conn_open(&c, g.gl_pathv[i]);

		if (err == -EPERM)
			log_warnx("%s: its listener is not root: not asked", g.gl_pathv[i]);
		if (err)
			continue; /* a run that just ended */
		req = cJSON_CreateObject();
		cJSON_AddStringToObject(req, "op", "holds");
		rep = request(&c, req);
		/* a run whose policy does not list us says so: tell, rather than show no holds */
		if (rep && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rep, "ok")))
			log_warnx("%s: %s", g.gl_pathv[i], str(rep, "error"));
		holds = rep ? cJSON_GetObjectItemCaseSensitive(rep, "holds") : NULL;
		cJSON_ArrayForEach(h, holds)
			cJSON_AddItemToArray(all, cJSON_Duplicate(h, true));
		cJSON_Delete(rep);
		conn_close(&c);
	}
	globfree(&g);
	return all;
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : "";
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* Longest text of one field shown to a person (in bytes of what is shown). */
#define WD_SHOWN_MAX 512

/*
 * Is the UTF-8 sequence at @s (@n bytes left) a whole character that is safe on a terminal? Its
 * length, or 0. C1 controls (U+0080..U+009F: 0x9b is CSI on some terminals) and the
 * bidirectional overrides and isolates (which reorder what follows them) are not.
 */
static size_t printable_utf8(const unsigned char *s, size_t n)
{
	size_t len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	uint32_t cp;

	if (!len || s[0] > 0xf4 || n < len)
		return 0;
	cp = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond Unicode */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	if (cp <= 0x9f || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
	    cp == 0x200e || cp == 0x200f || cp == 0x061c)
		return 0;
	return len;
}

/*
 * @s as it may be shown to a person: control characters, escape sequences and bytes that are
 * not safe UTF-8 made visible as \xHH (a backslash as \\), so no file name or argument can
 * move the cursor, repaint the screen or pass for a line of the prompt; at most WD_SHOWN_MAX
 * bytes, the rest counted. Returns @buf (of WD_SHOWN_MAX + 32 bytes at least).
 */
static const char *shown(const char *s, char *buf, size_t bufsz)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, o = 0;

	while (i < n) {
		size_t len = p[i] >= 0x80 ? printable_utf8(p + i, n - i) : 1;

		if (o + 8 > WD_SHOWN_MAX || o + 8 > bufsz - 32)
			break;
		if (p[i] == '\\') {
			buf[o++] = '\\';
			buf[o++] = '\\';
		} else if (p[i] < 0x20 || p[i] == 0x7f || !len) {
			o += (size_t)snprintf(buf + o, bufsz - o, "\\x%02x", p[i]);
			len = 1;
		} else {
			memcpy(buf + o, p + i, len);
			o += len;
		}
		i += len;
	}
	buf[o] = 0;
	if (i < n)
		snprintf(buf + o, bufsz - o, "...(%zu bytes more)", n - i);
	return buf;
}

/* A field of @h as it may be shown (SHOW's buffers live until the end of the statement's block). */
#define SHOWN_BUF (WD_SHOWN_MAX + 32)
#define SHOW(h, k, b) shown(str((h), (k)), (b), sizeof(b))

static void print_hold_line(FILE *out, const cJSON *h)
{
	char comm[SHOWN_BUF], t1[SHOWN_BUF], t2[SHOWN_BUF], rule[SHOWN_BUF];

	fprintf(out, "%s/%-4.0f %-7u %-15s %-8s %s%s%s  (%s, %.0fs)\n", str(h, "sandbox"),
		num(h, "id"), (unsigned int)num(h, "pid"), SHOW(h, "comm", comm), str(h, "op"),
		SHOW(h, "target", t1), *str(h, "target2") ? " -> " : "", SHOW(h, "target2", t2),
		SHOW(h, "rule", rule), num(h, "age_ms") / 1000);
}

static const char holds_usage[] =
	"usage: warden holds [--json]\n"
	"\n"
	"List the operations that sandboxes are waiting on, from every run on this machine.\n"
	"Each is named SANDBOX/ID; `warden approve` and `warden deny` take that name (or the\n"
	"ID alone when it is unique).\n"
	"\n"
	"  --json   one JSON array of holds (fields as in docs/control.md)\n";

int cmd_holds(int argc, char **argv)
{
	bool json = false;
	cJSON *all, *h;
	int c;

	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	optind = 1;
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		if (c == 'j')
			json = true;
		else
			return wd_usage(holds_usage, c == 'h');
	}
	all = all_holds();
	if (json) {
		char *s = cJSON_Print(all);

		printf("%s\n", s);
		free(s);
	} else if (cJSON_GetArraySize(all) == 0) {
		printf("no holds\n");
	} else {
		cJSON_ArrayForEach(h, all)
			print_hold_line(stdout, h);
	}
	cJSON_Delete(all);
	return 0;
}

/* The hold named @name ("SANDBOX/ID" or a unique "ID"), or NULL with a message. */
static cJSON *find_hold(cJSON *all, const char *name)
{
	const char *slash = strchr(name, '/');
	cJSON *found = NULL, *h;
	char *end;
	unsigned long id = strtoul(slash ? slash + 1 : name, &end, 10);

	if (*end || end == (slash ? slash + 1 : name)) {
		log_warnx("\"%s\" is not a hold: expected SANDBOX/ID or ID (see `warden holds`)",
			  name);
		return NULL;
	}
	cJSON_ArrayForEach(h, all) {
		if ((unsigned long)num(h, "id") != id)
			continue;
		if (slash && (strlen(str(h, "sandbox")) != (size_t)(slash - name) ||
			      strncmp(str(h, "sandbox"), name, (size_t)(slash - name))))
			continue;
		if (found) {
			log_warnx("hold %s is in more than one sandbox: name it as SANDBOX/ID", name);
			return NULL;
		}
		found = h;
	}
	if (!found)
		log_warnx("no hold %s (decided already, or gone; see `warden holds`)", name);
	return found;
}

/* Send a decision on @h; 0, or 1 with the reason printed. */
static int send_decision(const cJSON *h, bool allow, const char *scope, const char *subtree,
			 double count, double ttl_ms)
{
	char path[108];
	struct conn c;
	cJSON *req, *rep;
	int rc = 1, err;

	err = wd_run_sock_path(path, sizeof(path), WD_SOCK_HOLDS, str(h, "sandbox"));
	if (!err)
		err = conn_open(&c, path);
	if (err) {
		log_warnx("cannot reach sandbox %s: %s", str(h, "sandbox"), strerror(-err));
		return 1;
	}
	req = cJSON_CreateObject();
	cJSON_AddStringToObject(req, "op", "decide");
	cJSON_AddNumberToObject(req, "id", num(h, "id"));
	cJSON_AddStringToObject(req, "token", str(h, "token"));
	cJSON_AddBoolToObject(req, "allow", allow);
	cJSON_AddStringToObject(req, "scope", scope);
	if (subtree)
		cJSON_AddStringToObject(req, "subtree", subtree);
	if (count > 0)
		cJSON_AddNumberToObject(req, "count", count);
	if (ttl_ms > 0)
		cJSON_AddNumberToObject(req, "ttl_ms", ttl_ms);
	rep = request(&c, req);
	if (!rep)
		log_warnx("sandbox %s did not answer", str(h, "sandbox"));
	else if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rep, "ok")))
		log_warnx("%s", str(rep, "error"));
	else
		rc = 0;
	cJSON_Delete(rep);
	conn_close(&c);
	return rc;
}

/* "30s", "5m", "1h", "250ms", or plain seconds; -1 when it is none of those. */
static double parse_duration_ms(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || v < 0)
		return -1;
	if (!*end || strcmp(end, "s") == 0)
		return v * 1000;
	if (strcmp(end, "ms") == 0)
		return v;
	if (strcmp(end, "m") == 0)
		return v * 60000;
	if (strcmp(end, "h") == 0)
		return v * 3600000;
	return -1;
}

static const char approve_usage[] =
	"usage: warden approve HOLD [--scope once|process|sandbox] [--subtree PATH]\n"
	"                      [--count N] [--ttl DURATION]\n"
	"       warden deny HOLD [--scope once|process|sandbox] [--subtree PATH]\n"
	"                   [--count N] [--ttl DURATION] [--all-like-this]\n"
	"\n"
	"Answer a hold (SANDBOX/ID from `warden holds`, or a unique ID). An approved operation\n"
	"is performed on the object that was checked; a denied one fails with EPERM.\n"
	"\n"
	"  --scope S      once (approve's default): this operation; process: this process's\n"
	"                 operations like it; sandbox: every process of the sandbox. deny's\n"
	"                 default is process, under the hold's protected tree (a delete burst,\n"
	"                 which has no tree: once)\n"
	"  --subtree P    with process or sandbox scope: only under P\n"
	"  --count N      with process or sandbox scope: at most N operations\n"
	"  --ttl D        with process or sandbox scope: for D (30s, 5m, 1h)\n"
	"  --all-like-this  deny this and the sandbox's operations like it from now on\n"
	"                 (--scope sandbox, anywhere)\n"
	"\n"
	"Exit status: 0 decided, 1 no such hold or not answered, 2 bad arguments.\n";

static int decide(int argc, char **argv, bool allow)
{
	static const struct option opts[] = {
		{ "scope", required_argument, NULL, 's' },
		{ "subtree", required_argument, NULL, 'p' },
		{ "count", required_argument, NULL, 'n' },
		{ "ttl", required_argument, NULL, 't' },
		{ "all-like-this", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *scope = NULL, *subtree = NULL;
	double count = 0, ttl = 0;
	cJSON *all, *h;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "s:p:n:t:ah", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			scope = optarg;
			break;
		case 'p':
			subtree = optarg;
			break;
		case 'n':
			count = strtod(optarg, NULL);
			break;
		case 't':
			ttl = parse_duration_ms(optarg);
			if (ttl < 0) {
				log_warnx("--ttl: \"%s\" is not a duration (30s, 5m, 1h)", optarg);
				return WD_EXIT_USAGE;
			}
			break;
		case 'a':
			scope = "sandbox";
			break;
		default:
			return wd_usage(approve_usage, c == 'h');
		}
	}
	if (optind != argc - 1)
		return wd_usage(approve_usage, false);
	if (scope && strcmp(scope, "once") && strcmp(scope, "process") &&
	    strcmp(scope, "sandbox")) {
		log_warnx("--scope: \"%s\" is not once, process or sandbox", scope);
		return WD_EXIT_USAGE;
	}
	all = all_holds();
	h = find_hold(all, argv[optind]);
	if (h && !scope && !allow && *str(h, "tree")) {
		/* a plain deny: this process under the protected tree (as the prompt's [d]) */
		scope = "process";
		if (!subtree)
			subtree = str(h, "tree");
	}
	rc = h ? send_decision(h, allow, scope ? scope : "once", subtree, count, ttl) : 1;
	cJSON_Delete(all);
	return rc;
}

int cmd_approve(int argc, char **argv)
{
	return decide(argc, argv, true);
}

int cmd_deny(int argc, char **argv)
{
	return decide(argc, argv, false);
}

/* ---- warden prompt ------------------------------------------------------------------------ */

struct prompt {
	/* every run followed: as many as there are (a run left out would be a hold unseen) */
	struct conn *conns;
	size_t n;
	int inotify;
	bool tty;
	char only[128]; /* follow only this socket (--sandbox) */
};

static bool prompt_has(const struct prompt *p, const char *path)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->conns[i].fd >= 0 && strcmp(p->conns[i].path, path) == 0)
			return true;
	return false;
}

/* Subscribe to every run's socket not yet followed. */
static void prompt_scan(struct prompt *p)
{
	glob_t g;

	if (glob(sock_glob(), 0, NULL, &g) != 0)
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct conn *c;
		cJSON *req, *rep;

		if (WD_GROW(p->conns, p->n)) {
			log_warnx("prompt: out of memory: %s is not followed", g.gl_pathv[i]);
			continue;
		}
		c = &p->conns[p->n];

		if ((p->only[0] && strcmp(g.gl_pathv[i], p->only) != 0) ||
		    prompt_has(p, g.gl_pathv[i]) || conn_open(c, g.gl_pathv[i]))
			continue;
		req = cJSON_CreateObject();
		cJSON_AddStringToObject(req, "op", "subscribe");
		rep = request(c, req);
		if (!rep) {
			conn_close(c);
			continue;
		}
		cJSON_Delete(rep);
		/* holds that were waiting before we came */
		req = cJSON_CreateObject();
		cJSON_AddStringToObject(req, "op", "holds");
		conn_send(c, req);
		p->n++;
	}
	globfree(&g);
}

/* One answer from the operator: a key on a terminal, a line otherwise. */
static int read_answer(const struct prompt *p)
{
	struct termios old, raw;
	char line[64];
	int ch;

	if (!p->tty) {
		if (!fgets(line, sizeof(line), stdin))
			return EOF;
		return line[0];
	}
	tcgetattr(STDIN_FILENO, &old);
	raw = old;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	ch = getchar();
	tcsetattr(STDIN_FILENO, TCSANOW, &old);
	if (ch != EOF)
		printf("%c\n", ch);
	return ch;
}

static void show_details(const cJSON *h)
{
	char comm[SHOWN_BUF], exe[SHOWN_BUF], cmd[SHOWN_BUF], t1[SHOWN_BUF], t2[SHOWN_BUF];
	char rule[SHOWN_BUF], argv[SHOWN_BUF];

	printf("  sandbox  %s\n  hold     %.0f\n  process  %u %s (%s)\n  command  %s\n",
	       str(h, "sandbox"), num(h, "id"), (unsigned int)num(h, "pid"),
	       SHOW(h, "comm", comm), SHOW(h, "exe", exe), SHOW(h, "cmdline", cmd));
	printf("  op       %s %s%s%s\n  rule     %s\n", str(h, "op"), SHOW(h, "target", t1),
	       *str(h, "target2") ? " -> " : "", SHOW(h, "target2", t2), SHOW(h, "rule", rule));
	if (*str(h, "exec_argv"))
		printf("  runs     %s   (argv is advisory: the exec allowlist decides)\n",
		       SHOW(h, "exec_argv", argv));
	if (num(h, "timeout_ms") > 0)
		printf("  timeout  %.0fs from when it was held\n", num(h, "timeout_ms") / 1000);
}

/* Ask about @h until answered; returns false at end of input. */
static bool ask(struct prompt *p, const cJSON *h)
{
	char buf[SHOWN_BUF], tree[SHOWN_BUF];

	printf("\nhold ");
	print_hold_line(stdout, h);
	if (*str(h, "exec_argv"))
		printf("  runs: %s\n", SHOW(h, "exec_argv", buf));
	SHOW(h, "tree", tree);
	for (;;) {
		int ch;

		/* only a delete burst has no tree: its sandbox-wide answer is for bursts anywhere */
		printf("[a]pprove once, approve for this [p]rocess, [s]andbox-wide %s%s, "
		       "[d]eny %s%s, deny [D]all like this, [i]nfo, [q]uit? ",
		       *tree ? "under " : "for delete bursts anywhere", tree,
		       *tree ? "for this process under " : "once", tree);
		fflush(stdout);
		ch = read_answer(p);
		switch (ch) {
		case EOF:
		case 'q':
			return false;
		case 'a':
			send_decision(h, true, "once", NULL, 0, 0);
			return true;
		case 'p':
			send_decision(h, true, "process", NULL, 0, 0);
			return true;
		case 's':
			/* the whole protected tree: one answer for an rm -rf of it */
			send_decision(h, true, "sandbox", *str(h, "tree") ? str(h, "tree") : NULL,
				      0, 0);
			return true;
		case 'd':
			/*
			 * As a grant: this process, under the protected tree, so a denied rm -rf
			 * is one question, not one per file (a burst has no tree: this once).
			 */
			send_decision(h, false, *tree ? "process" : "once",
				      *tree ? str(h, "tree") : NULL, 0, 0);
			return true;
		case 'D':
			send_decision(h, false, "sandbox", NULL, 0, 0);
			return true;
		case 'i':
			show_details(h);
			break;
		default:
			break;
		}
	}
}

/*
 * A hold reaches the prompt twice when it is made between subscribing and asking for the
 * pending ones (as an event and in the list): it is put to the operator once.
 */
static bool ask_once(struct prompt *p, struct conn *c, const cJSON *h)
{
	double id = num(h, "id");

	for (size_t k = 0; k < c->n_asked; k++)
		if (c->asked[k] == id)
			return true;
	if (WD_GROW(c->asked, c->n_asked))
		return ask(p, h); /* asked perhaps twice, never not at all */
	c->asked[c->n_asked++] = id;
	return ask(p, h);
}

static const char prompt_usage[] =
	"usage: warden prompt [--sandbox NAME]\n"
	"\n"
	"Show each new hold of every run on this machine, with its context, and take the\n"
	"answer: a key on a terminal, a line (a, p, s, d, D, i, q) otherwise. Runs that start\n"
	"while it waits are followed too. Ends at q or end of input.\n"
	"\n"
	"  --sandbox NAME   follow only that sandbox's run (what `warden run --prompt` uses)\n";

/* One line from a run followed: holds to ask about, or a decision to tell. False at the end. */
static bool prompt_message(struct prompt *p, struct conn *c, const cJSON *msg)
{
	const cJSON *h, *holds = cJSON_GetObjectItemCaseSensitive(msg, "holds");
	bool go = true;

	cJSON_ArrayForEach(h, holds)
		go = go && ask_once(p, c, h);
	if (strcmp(str(msg, "event"), "hold") == 0) {
		go = ask_once(p, c, cJSON_GetObjectItemCaseSensitive(msg, "hold"));
	} else if (strcmp(str(msg, "event"), "decision") == 0 &&
		   strcmp(str(msg, "by"), "grant") != 0) {
		/* what standing grants decide is in the audit stream, not on the screen */
		h = cJSON_GetObjectItemCaseSensitive(msg, "hold");
		printf("decided: %s/%.0f %s by %s (%s)\n", str(h, "sandbox"), num(h, "id"),
		       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(msg, "allow")) ? "allowed" :
										"denied",
		       str(msg, "by"), str(msg, "result"));
	}
	fflush(stdout);
	return go;
}

/* Wait for what comes next (a line from a run, a new run) and handle it. False at the end. */
static bool prompt_round(struct prompt *p)
{
	struct pollfd *pfd = calloc(p->n + 1, sizeof(*pfd));
	size_t n = 0, followed = p->n;
	int timeout = -1;
	bool go = true;

	if (!pfd)
		return false;
	for (size_t i = 0; i < followed; i++) {
		pfd[n].fd = p->conns[i].fd;
		pfd[n++].events = POLLIN;
		/*
		 * One read can bring several lines (a subscription's answer and the hold right
		 * behind it): what is buffered is handled before waiting again.
		 */
		if (conn_buffered(&p->conns[i]))
			timeout = 0;
	}
	if (p->inotify >= 0) {
		pfd[n].fd = p->inotify;
		pfd[n++].events = POLLIN;
	}
	if (poll(pfd, (nfds_t)n, timeout) < 0 && errno != EINTR) {
		free(pfd);
		return false;
	}
	for (size_t i = 0; i < n && go; i++) {
		cJSON *msg;

		if (i == followed) {
			char ev[4096];

			if ((pfd[i].revents & (POLLIN | POLLHUP)) &&
			    read(p->inotify, ev, sizeof(ev)) > 0)
				prompt_scan(p);
			continue;
		}
		if (!(pfd[i].revents & (POLLIN | POLLHUP)) && !conn_buffered(&p->conns[i]))
			continue;
		msg = conn_recv(&p->conns[i]);
		if (!msg) {
			conn_close(&p->conns[i]);
			continue;
		}
		go = prompt_message(p, &p->conns[i], msg);
		cJSON_Delete(msg);
	}
	free(pfd);
	/* forget ended runs */
	for (size_t i = 0; i < p->n;) {
		if (p->conns[i].fd >= 0)
			i++;
		else
			p->conns[i] = p->conns[--p->n];
	}
	return go;
}

int cmd_prompt(int argc, char **argv)
{
	struct prompt p = { .n = 0 };

	if (argc == 3 && strcmp(argv[1], "--sandbox") == 0 &&
	    wd_run_sock_path(p.only, sizeof(p.only), WD_SOCK_HOLDS, argv[2]) == 0) {
		/* followed by its socket's name */
	} else if (argc > 1) {
		return wd_usage(prompt_usage,
				strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0);
	}
	p.tty = isatty(STDIN_FILENO);
	wd_run_dir_make();
	/* new runs make sockets in the run directory: follow them as they appear */
	p.inotify = inotify_init1(IN_CLOEXEC);
	if (p.inotify >= 0)
		inotify_add_watch(p.inotify, wd_run_dir(), IN_CREATE | IN_MOVED_TO);
	prompt_scan(&p);
	printf("warden prompt: waiting for holds (%zu run%s followed)\n", p.n,
	       p.n == 1 ? "" : "s");
	fflush(stdout);
	while (prompt_round(&p))
		;
	for (size_t i = 0; i < p.n; i++)
		conn_close(&p.conns[i]);
	free(p.conns);
	if (p.inotify >= 0)
		close(p.inotify);
	return 0;
}
