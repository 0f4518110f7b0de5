// SPDX-License-Identifier: GPL-2.0
/*
 * The audit formatter (audit/jsonl.h): kernel records (read through audit/record.h) and the
 * supervisor's own events as JSON lines of schema warden.audit/1 (docs/audit.md).
 */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cJSON.h>

#include "audit/jsonl.h"
#include "audit/record.h"
#include "bpf/wd_syscalls.h"
#include "audit/hold_view.h"

const char *wd_audit_type_name(unsigned int type)
{
	switch (type) {
	case WD_EV_EXEC:
		return "exec";
	case WD_EV_FILE:
		return "file";
	case WD_EV_NET:
		return "net";
	case WD_EV_HOLD:
		return "hold";
	case WD_EV_DECISION:
		return "decision";
	case WD_EV_LIMIT:
		return "limit";
	case WD_EV_LOST:
		return "lost";
	case WD_EV_START:
		return "start";
	case WD_EV_EXIT:
		return "exit";
	case WD_EV_SYSCALL:
		return "syscall";
	default:
		return "unknown";
	}
}

const char *wd_audit_op_name(unsigned int op)
{
	switch (op) {
	case WD_OP_OPEN:
		return "open";
	case WD_OP_EXEC:
		return "exec";
	case WD_OP_CREATE:
		return "create";
	case WD_OP_MKDIR:
		return "mkdir";
	case WD_OP_UNLINK:
		return "unlink";
	case WD_OP_RMDIR:
		return "rmdir";
	case WD_OP_RENAME:
		return "rename";
	case WD_OP_LINK:
		return "link";
	case WD_OP_SYMLINK:
		return "symlink";
	case WD_OP_TRUNCATE:
		return "truncate";
	case WD_OP_SETATTR:
		return "setattr";
	case WD_OP_MKNOD:
		return "mknod";
	case WD_OP_SYSCALL:
		return "syscall";
	case WD_OP_XATTR:
		return "xattr";
	case WD_OP_IOCTL:
		return "ioctl";
	case WD_OP_CONNECT:
		return "connect";
	case WD_OP_BIND:
		return "bind";
	case WD_OP_SENDTO:
		return "sendto";
	default:
		return "unknown";
	}
}

const char *wd_audit_verdict_name(unsigned int verdict)
{
	switch (verdict) {
	case WD_VERDICT_ALLOW:
		return "allow";
	case WD_VERDICT_DENY:
		return "deny";
	case WD_VERDICT_AUDIT:
		return "audit";
	case WD_VERDICT_HOLD:
		return "hold";
	default:
		return "unknown";
	}
}

const char *wd_audit_syscall_name(unsigned int nr)
{
	static const struct {
		unsigned int nr;
		const char *name;
	} names[] = {
		{ WD_SYSCALL_PERSONALITY, "personality" },
#define NAME(nr, name, ...) { nr, #name },
		WD_SYSCALLS_PATH(NAME) WD_SYSCALLS_SELF_PROTECT(NAME) WD_SYSCALLS_BY_ARG(NAME)
		WD_SYSCALLS_PRIVILEGED(NAME)
#undef NAME
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].nr == nr)
			return names[i].name;
	return NULL;
}

void wd_audit_format_ts(uint64_t real_ns, char *buf, size_t bufsz)
{
	time_t secs = (time_t)(real_ns / 1000000000ull);
	struct tm tm;
	char date[24];

	gmtime_r(&secs, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, bufsz, "%.19s.%09lluZ", date, (unsigned long long)(real_ns % 1000000000ull));
}

/*
 * Length of the well-formed UTF-8 sequence that starts @s (@n bytes left), or 0 when none does:
 * the ranges of Unicode's table 3-7, so overlong forms, surrogates (ED A0..BF), code points past
 * U+10FFFF and a sequence cut short are all refused, as strict JSON parsers refuse them.
 */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		lo = c == 0xe0 ? 0xa0 : 0x80;
		hi = c == 0xed ? 0x9f : 0xbf;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		lo = c == 0xf0 ? 0x90 : 0x80;
		hi = c == 0xf4 ? 0x8f : 0xbf;
	} else {
		return 0;
	}
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

bool wd_audit_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, len;

	while (i < n) {
		len = utf8_seq(p + i, n - i);
		if (!len)
			return false;
		i += len;
	}
	return true;
}

char *wd_audit_utf8_readable(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, o = 0, len;
	char *out = malloc(3 * n + 1); /* each byte at worst becomes U+FFFD's three */

	if (!out)
		return NULL;
	while (i < n) {
		len = utf8_seq(p + i, n - i);
		if (len) {
			memcpy(out + o, s + i, len);
			o += len;
			i += len;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	out[o] = 0;
	return out;
}

char *wd_audit_base64(const char *s, size_t n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = (const unsigned char *)s;
	char *out = malloc((n + 2) / 3 * 4 + 1), *q = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i += 3) {
		unsigned int v = (unsigned int)p[i] << 16;

		if (i + 1 < n)
			v |= (unsigned int)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		*q++ = tab[(v >> 18) & 63];
		*q++ = tab[(v >> 12) & 63];
		*q++ = i + 1 < n ? tab[(v >> 6) & 63] : '=';
		*q++ = i + 2 < n ? tab[v & 63] : '=';
	}
	*q = 0;
	return out;
}

/*
 * A string that came from outside warden (a path, a command name, an argv word): cJSON copies
 * bytes through, so one that is not UTF-8 is written readable, each invalid byte as U+FFFD, and
 * its exact bytes go beside it in "<key>_b64" (docs/audit.md). Control characters are escaped by
 * cJSON's printer. Returns the readable item, or NULL when out of memory.
 */
static cJSON *str_item(const char *s, char **b64)
{
	cJSON *item;
	char *fixed;

	*b64 = NULL;
	if (wd_audit_utf8_valid(s, strlen(s)))
		return cJSON_CreateString(s);
	fixed = wd_audit_utf8_readable(s);
	item = fixed ? cJSON_CreateString(fixed) : NULL;
	free(fixed);
	*b64 = wd_audit_base64(s, strlen(s));
	return item;
}

static void add_str(cJSON *o, const char *key, const char *s)
{
	char *b64, bkey[64];
	cJSON *item;

	if (!s)
		return; /* as cJSON_AddStringToObject left it out (a hold refused before it had a name) */
	item = str_item(s, &b64);

	if (item)
		cJSON_AddItemToObject(o, key, item);
	if (b64) {
		snprintf(bkey, sizeof(bkey), "%s_b64", key);
		cJSON_AddStringToObject(o, bkey, b64);
		free(b64);
	}
}

/* An array of such strings; "<key>_b64" then holds each word's bytes, or null where it is UTF-8. */
static void add_str_array(cJSON *o, const char *key, char *const v[])
{
	cJSON *a = cJSON_AddArrayToObject(o, key), *b = NULL;
	char bkey[64];
	size_t n = 0;

	while (v && v[n])
		n++;
	for (size_t i = 0; a && i < n; i++) {
		char *b64;
		cJSON *item = str_item(v[i], &b64);

		if (item)
			cJSON_AddItemToArray(a, item);
		if (b64 && !b) {
			snprintf(bkey, sizeof(bkey), "%s_b64", key);
			b = cJSON_AddArrayToObject(o, bkey);
			for (size_t j = 0; b && j < i; j++)
				cJSON_AddItemToArray(b, cJSON_CreateNull());
		}
		if (b)
			cJSON_AddItemToArray(b, b64 ? cJSON_CreateString(b64) : cJSON_CreateNull());
		free(b64);
	}
}

/* The fields every record carries, in schema order. */
static cJSON *record_new(struct wd_audit_ctx *ctx, uint64_t real_ns, const char *type)
{
	cJSON *o = cJSON_CreateObject();
	char ts[64];

	if (!o)
		return NULL;
	wd_audit_format_ts(real_ns, ts, sizeof(ts));
	cJSON_AddStringToObject(o, "schema", WD_AUDIT_SCHEMA);
	cJSON_AddStringToObject(o, "ts", ts);
	cJSON_AddNumberToObject(o, "seq", (double)ctx->seq++);
	add_str(o, "sandbox", ctx->sandbox ? ctx->sandbox : "");
	cJSON_AddStringToObject(o, "type", type);
	return o;
}

static char *record_finish(cJSON *o)
{
	char *line = o ? cJSON_PrintUnformatted(o) : NULL;

	cJSON_Delete(o);
	return line;
}

static void add_access(cJSON *o, unsigned int acc)
{
	cJSON *a = cJSON_AddArrayToObject(o, "access");

	if (!a)
		return;
	if (acc & WD_ACC_READ)
		cJSON_AddItemToArray(a, cJSON_CreateString("read"));
	if (acc & WD_ACC_WRITE)
		cJSON_AddItemToArray(a, cJSON_CreateString("write"));
	if (acc & WD_ACC_EXEC)
		cJSON_AddItemToArray(a, cJSON_CreateString("exec"));
}

static const char *rule_name(const struct wd_audit_ctx *ctx, unsigned int rule)
{
	if (rule == WD_RULE_SELF_PROTECT)
		return "self-protection";
	if (ctx->rules)
		return wd_ruleset_rule_name(ctx->rules, rule);
	return rule == WD_RULE_DEFAULT ? "default" : "unknown";
}

/*
 * A socket address as the task passed it (@n bytes), as "target": a unix path, "@name" for an
 * abstract name (each NUL in it shown as "@", as ss(8) does; the exact bytes then in target_b64),
 * "ADDR:PORT" or "[ADDR]:PORT"; and "family". Another family: its number, and a null target.
 */
static void add_sockaddr(cJSON *o, const char *a, size_t n)
{
	char buf[WD_PATH_MAX], ip[INET6_ADDRSTRLEN];
	unsigned short family;

	if (n < sizeof(family)) {
		cJSON_AddNullToObject(o, "target");
		return;
	}
	memcpy(&family, a, sizeof(family));
	if (family == AF_UNIX) {
		const char *name = a + offsetof(struct sockaddr_un, sun_path);
		size_t len = n - offsetof(struct sockaddr_un, sun_path), b;
		bool nul = false;

		cJSON_AddStringToObject(o, "family", "unix");
		if (len == 0 || (len == 1 && name[0] == 0)) {
			cJSON_AddNullToObject(o, "target"); /* unnamed */
			return;
		}
		if (name[0] != 0) { /* a path: up to its NUL, as the kernel reads it */
			len = strnlen(name, len);
			memcpy(buf, name, len);
			buf[len] = 0;
			add_str(o, "target", buf);
			return;
		}
		for (b = 0; b < len && b < sizeof(buf) - 1; b++) {
			buf[b] = name[b] ? name[b] : '@';
			nul |= b > 0 && !name[b];
		}
		buf[b] = 0;
		if (!nul && wd_audit_utf8_valid(buf, b)) {
			cJSON_AddStringToObject(o, "target", buf);
		} else {
			/* readable, and the exact name (NULs and all) beside it */
			char *fixed = wd_audit_utf8_readable(buf), *b64 = wd_audit_base64(name, len);

			if (fixed)
				cJSON_AddStringToObject(o, "target", fixed);
			if (b64)
				cJSON_AddStringToObject(o, "target_b64", b64);
			free(fixed);
			free(b64);
		}
		return;
	}
	if (family == AF_INET && n >= sizeof(struct sockaddr_in)) {
		struct sockaddr_in in;

		memcpy(&in, a, sizeof(in));
		inet_ntop(AF_INET, &in.sin_addr, ip, sizeof(ip));
		snprintf(buf, sizeof(buf), "%s:%u", ip, ntohs(in.sin_port));
		cJSON_AddStringToObject(o, "family", "inet");
		cJSON_AddStringToObject(o, "target", buf);
		return;
	}
	if (family == AF_INET6 && n >= sizeof(struct sockaddr_in6)) {
		struct sockaddr_in6 in6;

		memcpy(&in6, a, sizeof(in6));
		inet_ntop(AF_INET6, &in6.sin6_addr, ip, sizeof(ip));
		snprintf(buf, sizeof(buf), "[%s]:%u", ip, ntohs(in6.sin6_port));
		cJSON_AddStringToObject(o, "family", "inet6");
		cJSON_AddStringToObject(o, "target", buf);
		return;
	}
	cJSON_AddNumberToObject(o, "family", family);
	cJSON_AddNullToObject(o, "target");
}

char *wd_audit_event_line(struct wd_audit_ctx *ctx, const void *rec, size_t size,
			  const struct wd_audit_extra *extra)
{
	const char *exe = extra ? extra->exe : NULL;
	const char *target = extra && extra->target ? extra->target : NULL;
	char comm[WD_COMM_LEN + 1];
	struct wd_rec_view ev;
	bool changed, sockaddr;
	cJSON *o;

	if (wd_rec_decode(rec, size, &ev))
		return NULL;

	memcpy(comm, ev.h->comm, WD_COMM_LEN);
	comm[WD_COMM_LEN] = 0;
	/* a relative name whose base moved during the call names no file we could vouch for */
	changed = ev.source != WD_SRC_LSM && (ev.flags & WD_EVF_BASE_CHANGED);
	sockaddr = ev.source == WD_SRC_SYSCALL_EXIT && (ev.flags & WD_EVF_SOCKADDR);
	if (!target && ev.path[0] && !changed && !sockaddr)
		target = ev.path;
	if (!target && ev.type == WD_EV_SYSCALL)
		target = wd_audit_syscall_name(ev.sysno);
	o = record_new(ctx, (uint64_t)((int64_t)ev.h->ts_ns + ctx->boot_to_real_ns),
		       wd_audit_type_name(ev.type));
	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "pid", ev.h->pid);
	cJSON_AddNumberToObject(o, "tid", ev.h->tid);
	cJSON_AddNumberToObject(o, "ppid", ev.h->ppid);
	cJSON_AddNumberToObject(o, "uid", ev.h->uid);
	add_str(o, "comm", comm);
	if (exe)
		add_str(o, "exe", exe);
	else
		cJSON_AddNullToObject(o, "exe");
	cJSON_AddStringToObject(o, "op", wd_audit_op_name(ev.op));
	if (sockaddr)
		add_sockaddr(o, (const char *)ev.addr, ev.addr_len);
	else if (target)
		add_str(o, "target", target);
	else
		cJSON_AddNullToObject(o, "target"); /* the kernel could not resolve it */
	if (ev.op == WD_OP_IOCTL) {
		char req[24];

		snprintf(req, sizeof(req), "0x%llx", (unsigned long long)ev.arg);
		cJSON_AddStringToObject(o, "request", req);
		cJSON_AddNumberToObject(o, "fd", ev.dirfd);
	}
	if (ev.type == WD_EV_NET)
		cJSON_AddNumberToObject(o, "fd", ev.dirfd);
	if (changed && ev.path[0]) {
		add_str(o, "name", ev.path);
		if (ev.dirfd == -100) /* AT_FDCWD */
			cJSON_AddStringToObject(o, "base", "cwd changed during the call");
		else
			cJSON_AddStringToObject(o, "base", "dirfd changed during the call");
		cJSON_AddNumberToObject(o, "dirfd", ev.dirfd);
	}
	cJSON_AddStringToObject(o, "verdict", wd_audit_verdict_name(ev.verdict));
	add_str(o, "rule", extra && extra->rule ? extra->rule : rule_name(ctx, ev.rule));
	add_access(o, ev.access);
	if (ev.err > 0) {
		const char *name = strerrorname_np(ev.err);

		if (name)
			cJSON_AddStringToObject(o, "errno", name);
		else
			cJSON_AddNumberToObject(o, "errno", ev.err);
	}
	cJSON_AddStringToObject(o, "source", ev.source == WD_SRC_SYSCALL_EXIT ? "syscall-exit" :
					     ev.source == WD_SRC_EXEC_TRACEPOINT ? "exec-tracepoint" :
										 "lsm");
	return record_finish(o);
}

char *wd_audit_start_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns, int pid,
			  char *const argv[])
{
	cJSON *o = record_new(ctx, ts_real_ns, "start");

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "pid", pid);
	cJSON_AddStringToObject(o, "backend", ctx->backend ? ctx->backend : "");
	if (ctx->backend_detail)
		add_str(o, "backend_detail", ctx->backend_detail);
	add_str_array(o, "argv", argv);
	return record_finish(o);
}

char *wd_audit_exit_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns, int pid,
			 const char *status, int exit_code, int signo)
{
	cJSON *o = record_new(ctx, ts_real_ns, "exit");

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "pid", pid);
	cJSON_AddStringToObject(o, "status", status);
	if (exit_code >= 0)
		cJSON_AddNumberToObject(o, "exit_code", exit_code);
	else
		cJSON_AddNullToObject(o, "exit_code");
	if (signo)
		cJSON_AddNumberToObject(o, "signal", signo);
	else
		cJSON_AddNullToObject(o, "signal");
	return record_finish(o);
}

uint64_t wd_audit_next_seq(FILE *f, const char *sandbox)
{
	const long window = 1 << 20;
	uint64_t next = 0;
	char *buf, *line;
	long end, start;
	size_t n;

	if (fseek(f, 0, SEEK_END) || (end = ftell(f)) < 0)
		return 0;
	start = end > window ? end - window : 0;
	buf = malloc((size_t)(end - start) + 1);
	if (!buf || fseek(f, start, SEEK_SET)) {
		free(buf);
		return 0;
	}
	n = fread(buf, 1, (size_t)(end - start), f);
	buf[n] = 0;
	fseek(f, 0, SEEK_END);
	/* a line the dead supervisor left half written is ended, so the next starts a line */
	if (n && buf[n - 1] != '\n') {
		fputc('\n', f);
		fflush(f);
	}
	/* whole lines only: the first may be cut by the window, the last by a crash */
	line = start ? strchr(buf, '\n') : buf;
	while (line && *line) {
		char *nl = strchr(line, '\n');
		cJSON *o, *sb, *seq;

		if (*line == '\n')
			line++;
		if (!nl)
			break;
		*nl = 0;
		o = cJSON_Parse(line);
		sb = cJSON_GetObjectItemCaseSensitive(o, "sandbox");
		seq = cJSON_GetObjectItemCaseSensitive(o, "seq");
		if (cJSON_IsString(sb) && strcmp(sb->valuestring, sandbox) == 0 &&
		    cJSON_IsNumber(seq) && seq->valuedouble >= 0)
			next = (uint64_t)seq->valuedouble + 1;
		cJSON_Delete(o);
		line = nl + 1;
	}
	free(buf);
	return next;
}

char *wd_audit_adopt_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns, size_t held,
			  bool kernel_records)
{
	cJSON *o = record_new(ctx, ts_real_ns, "adopt");

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "backend", ctx->backend ? ctx->backend : "");
	cJSON_AddNumberToObject(o, "held", (double)held);
	cJSON_AddBoolToObject(o, "kernel_records", kernel_records);
	return record_finish(o);
}

char *wd_audit_lost_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns, uint64_t count)
{
	cJSON *o = record_new(ctx, ts_real_ns, "lost");

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "count", (double)count);
	return record_finish(o);
}

void wd_hold_view_fields(cJSON *o, const struct wd_hold_view *v)
{
	cJSON_AddNumberToObject(o, "pid", v->pid);
	add_str(o, "comm", v->comm);
	if (v->exe)
		add_str(o, "exe", v->exe);
	else
		cJSON_AddNullToObject(o, "exe");
	if (v->cmdline)
		add_str(o, "cmdline", v->cmdline);
	else
		cJSON_AddNullToObject(o, "cmdline");
	cJSON_AddStringToObject(o, "op", v->op);
	add_str(o, "target", v->target);
	if (v->target2)
		add_str(o, "target2", v->target2);
	if (v->exec_argv)
		add_str(o, "exec_argv", v->exec_argv);
	add_str(o, "rule", v->rule ? v->rule : "");
}

/* The fields a hold and its decision share. */
static void add_hold(cJSON *o, const struct wd_hold_view *v)
{
	cJSON_AddNumberToObject(o, "hold", (double)v->id);
	wd_hold_view_fields(o, v);
}

char *wd_audit_hold_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns,
			 const struct wd_hold_view *v)
{
	cJSON *o = record_new(ctx, ts_real_ns, "hold");

	if (!o)
		return NULL;
	add_hold(o, v);
	cJSON_AddStringToObject(o, "verdict", "hold");
	cJSON_AddStringToObject(o, "token", v->token);
	cJSON_AddNumberToObject(o, "timeout_ms", (double)v->timeout_ms);
	return record_finish(o);
}

char *wd_audit_decision_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns,
			     const struct wd_hold_view *v, bool allow, const char *who, int result)
{
	cJSON *o = record_new(ctx, ts_real_ns, "decision");
	const char *name;

	if (!o)
		return NULL;
	add_hold(o, v);
	cJSON_AddStringToObject(o, "verdict", allow ? "allow" : "deny");
	add_str(o, "by", who);
	name = result ? strerrorname_np(-result) : NULL;
	cJSON_AddStringToObject(o, "result", result ? (name ? name : "error") : "ok");
	return record_finish(o);
}
