// SPDX-License-Identifier: GPL-2.0
/*
 * The audit formatter (audit/jsonl.h): kernel records (read through audit/record.h) and the
 * supervisor's own events as JSON lines of schema warden.audit/1 (docs/audit.md).
 */
#include <arpa/inet.h>
#include <errno.h>
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
	case WD_OP_SOCKET:
		return "socket";
	case WD_OP_SENDMSG:
		return "sendmsg";
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
 * "ts" of @real_ns: the date part made once a second (records come thousands a second), the
 * nanoseconds each time.
 */
static void put_ts(struct wd_audit_ctx *ctx, struct wd_jbuf *b, uint64_t real_ns)
{
	uint64_t secs = real_ns / 1000000000ull, ns = real_ns % 1000000000ull;
	char ts[32];

	if (!ctx->ts_date[0] || ctx->ts_secs != secs) {
		wd_audit_format_ts(secs * 1000000000ull, ts, sizeof(ts));
		memcpy(ctx->ts_date, ts, 19);
		ctx->ts_date[19] = 0;
		ctx->ts_secs = secs;
	}
	memcpy(ts, ctx->ts_date, 19);
	ts[19] = '.';
	for (int i = 28; i >= 20; i--) {
		ts[i] = (char)('0' + ns % 10);
		ns /= 10;
	}
	ts[29] = 'Z';
	wd_jb_key(b, "ts");
	wd_jb_str(b, ts, 30);
}

bool wd_audit_utf8_valid(const char *s, size_t n)
{
	return wd_utf8_valid(s, n);
}

char *wd_audit_utf8_readable(const char *s)
{
	struct wd_jbuf b;

	wd_jb_init_heap(&b);
	wd_jb_readable_raw(&b, s, strlen(s));
	return wd_jb_take(&b);
}

char *wd_audit_base64(const char *s, size_t n)
{
	struct wd_jbuf b;

	wd_jb_init_heap(&b);
	wd_jb_base64_raw(&b, s, n);
	return wd_jb_take(&b);
}

long wd_audit_unbase64(const char *s, unsigned char *out)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned int acc = 0;
	int bits = 0;
	long n = 0;

	for (; *s && *s != '='; s++) {
		const char *p = strchr(set, *s);

		if (!p)
			return -1;
		acc = (acc << 6) | (unsigned int)(p - set);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (unsigned char)(acc >> bits);
		}
	}
	while (*s == '=')
		s++;
	return *s ? -1 : n;
}

/*
 * A string that came from outside warden, into a cJSON object (the holds socket's replies):
 * cJSON copies bytes through, so one that is not UTF-8 is written readable, each invalid byte as
 * U+FFFD, and its exact bytes go beside it in "<key>_b64" (docs/audit.md). Control characters
 * are escaped by cJSON's printer.
 */
static void add_str(cJSON *o, const char *key, const char *s)
{
	char *fixed, *b64, bkey[64];

	if (!s)
		return; /* as cJSON_AddStringToObject left it out (a hold refused before it had a name) */
	if (wd_audit_utf8_valid(s, strlen(s))) {
		cJSON_AddStringToObject(o, key, s);
		return;
	}
	fixed = wd_audit_utf8_readable(s);
	if (fixed)
		cJSON_AddStringToObject(o, key, fixed);
	free(fixed);
	b64 = wd_audit_base64(s, strlen(s));
	if (b64) {
		snprintf(bkey, sizeof(bkey), "%s_b64", key);
		cJSON_AddStringToObject(o, bkey, b64);
		free(b64);
	}
}

/* A string from outside warden into the line being written, and its "_b64" where needed. */
static void put_str(struct wd_jbuf *b, const char *key, const char *s)
{
	wd_jb_ext_field(b, key, s, strlen(s));
}

/* An array of such strings; "<key>_b64" then holds each word's bytes, or null where it is UTF-8. */
static void put_str_array(struct wd_jbuf *b, const char *key, char *const v[])
{
	bool all_utf8 = true;
	size_t n = 0;
	char bkey[64];

	while (v && v[n])
		n++;
	wd_jb_key(b, key);
	wd_jb_open(b, '[');
	for (size_t i = 0; i < n; i++)
		all_utf8 &= wd_jb_ext_str(b, v[i], strlen(v[i]));
	wd_jb_close(b, ']');
	if (all_utf8)
		return;
	snprintf(bkey, sizeof(bkey), "%s_b64", key);
	wd_jb_key(b, bkey);
	wd_jb_open(b, '[');
	for (size_t i = 0; i < n; i++) {
		if (wd_audit_utf8_valid(v[i], strlen(v[i])))
			wd_jb_null(b);
		else
			wd_jb_base64(b, v[i], strlen(v[i]));
	}
	wd_jb_close(b, ']');
}

/* The fields every record carries, in schema order: the line's opening. */
static void record_head(struct wd_audit_ctx *ctx, struct wd_jbuf *b, uint64_t real_ns,
			const char *type)
{
	wd_jb_open(b, '{');
	wd_jb_key(b, "schema");
	wd_jb_cstr(b, WD_AUDIT_SCHEMA);
	put_ts(ctx, b, real_ns);
	wd_jb_key(b, "seq");
	wd_jb_uint(b, ctx->seq++);
	put_str(b, "sandbox", ctx->sandbox ? ctx->sandbox : "");
	wd_jb_key(b, "type");
	wd_jb_cstr(b, type);
}

/* A supervisor record begun with record_head into @b: closed, and handed over as a string. */
static char *record_take(struct wd_jbuf *b)
{
	wd_jb_close(b, '}');
	return wd_jb_take(b);
}

/* "key":"value" of warden's own words. */
static void put_word(struct wd_jbuf *b, const char *key, const char *value)
{
	wd_jb_key(b, key);
	wd_jb_cstr(b, value);
}

static void put_int(struct wd_jbuf *b, const char *key, int64_t v)
{
	wd_jb_key(b, key);
	wd_jb_int(b, v);
}

static void put_null(struct wd_jbuf *b, const char *key)
{
	wd_jb_key(b, key);
	wd_jb_null(b);
}

static void put_access(struct wd_jbuf *b, unsigned int acc)
{
	wd_jb_key(b, "access");
	wd_jb_open(b, '[');
	if (acc & WD_ACC_READ)
		wd_jb_cstr(b, "read");
	if (acc & WD_ACC_WRITE)
		wd_jb_cstr(b, "write");
	if (acc & WD_ACC_EXEC)
		wd_jb_cstr(b, "exec");
	wd_jb_close(b, ']');
}

static const char *rule_name(const struct wd_audit_ctx *ctx, unsigned int rule)
{
	if (rule == WD_RULE_SELF_PROTECT)
		return "self-protection";
	if (rule == WD_RULE_NET_HOST)
		return "host-address";
	if (rule == WD_RULE_NET_SOCKET)
		return "socket-kind";
	if (ctx->rules)
		return wd_ruleset_rule_name(ctx->rules, rule);
	return rule == WD_RULE_DEFAULT ? "default" : "unknown";
}

/* An abstract unix socket name (@len bytes at @name, the first a NUL) as "@name", NULs as '@'. */
static void put_abstract(struct wd_jbuf *b, const char *name, size_t len)
{
	char buf[WD_PATH_MAX];
	bool nul = false;
	size_t i;

	for (i = 0; i < len && i < sizeof(buf) - 1; i++) {
		buf[i] = name[i] ? name[i] : '@';
		nul |= i > 0 && !name[i];
	}
	buf[i] = 0;
	wd_jb_key(b, "target");
	if (!wd_jb_ext_str(b, buf, i) || nul) {
		/* readable, and the exact name (NULs and all) beside it */
		wd_jb_key(b, "target_b64");
		wd_jb_base64(b, name, len);
	}
}

/*
 * A socket address as the task passed it (@n bytes), as "target": a unix path, "@name" for an
 * abstract name (each NUL in it shown as "@", as ss(8) does; the exact bytes then in target_b64),
 * "ADDR:PORT" or "[ADDR]:PORT"; and "family". Another family: its number, and a null target.
 */
static void put_sockaddr(struct wd_jbuf *b, const char *a, size_t n)
{
	char buf[INET6_ADDRSTRLEN + 16], ip[INET6_ADDRSTRLEN];
	unsigned short family;

	if (n < sizeof(family)) {
		put_null(b, "target");
		return;
	}
	memcpy(&family, a, sizeof(family));
	if (family == AF_UNIX) {
		const char *name = a + offsetof(struct sockaddr_un, sun_path);
		size_t len = n - offsetof(struct sockaddr_un, sun_path);

		put_word(b, "family", "unix");
		if (len == 0 || (len == 1 && name[0] == 0))
			put_null(b, "target"); /* unnamed */
		else if (name[0] != 0) /* a path: up to its NUL, as the kernel reads it */
			wd_jb_ext_field(b, "target", name, strnlen(name, len));
		else
			put_abstract(b, name, len);
		return;
	}
	if (family == AF_INET && n >= sizeof(struct sockaddr_in)) {
		struct sockaddr_in in;

		memcpy(&in, a, sizeof(in));
		inet_ntop(AF_INET, &in.sin_addr, ip, sizeof(ip));
		snprintf(buf, sizeof(buf), "%s:%u", ip, ntohs(in.sin_port));
		put_word(b, "family", "inet");
		put_word(b, "target", buf);
		return;
	}
	if (family == AF_INET6 && n >= sizeof(struct sockaddr_in6)) {
		struct sockaddr_in6 in6;

		memcpy(&in6, a, sizeof(in6));
		inet_ntop(AF_INET6, &in6.sin6_addr, ip, sizeof(ip));
		snprintf(buf, sizeof(buf), "[%s]:%u", ip, ntohs(in6.sin6_port));
		put_word(b, "family", "inet6");
		put_word(b, "target", buf);
		return;
	}
	put_int(b, "family", family);
	put_null(b, "target");
}

/* The fields of a kernel record after the header, in schema order. */
static void put_event(struct wd_jbuf *b, const struct wd_audit_ctx *ctx,
		      const struct wd_rec_view *ev, const struct wd_audit_extra *extra)
{
	const char *target = extra && extra->target ? extra->target : NULL;
	bool changed, sockaddr;

	/* a relative name whose base moved during the call names no file we could vouch for */
	changed = ev->source != WD_SRC_LSM && (ev->flags & WD_EVF_BASE_CHANGED);
	sockaddr = (ev->source == WD_SRC_SYSCALL_EXIT || ev->source == WD_SRC_CGROUP) &&
		   (ev->flags & WD_EVF_SOCKADDR);
	if (!target && ev->path[0] && !changed && !sockaddr)
		target = ev->path;
	if (!target && ev->type == WD_EV_SYSCALL)
		target = wd_audit_syscall_name(ev->sysno);
	put_int(b, "pid", ev->h->pid);
	put_int(b, "tid", ev->h->tid);
	put_int(b, "ppid", ev->h->ppid);
	put_int(b, "uid", ev->h->uid);
	wd_jb_ext_field(b, "comm", ev->h->comm, strnlen(ev->h->comm, WD_COMM_LEN));
	if (extra && extra->exe)
		put_str(b, "exe", extra->exe);
	else
		put_null(b, "exe");
	put_word(b, "op", wd_audit_op_name(ev->op));
	if (sockaddr)
		put_sockaddr(b, (const char *)ev->addr, ev->addr_len);
	else if (target)
		put_str(b, "target", target);
	else
		put_null(b, "target"); /* the kernel could not resolve it */
	if (ev->op == WD_OP_IOCTL) {
		char req[24];

		snprintf(req, sizeof(req), "0x%llx", (unsigned long long)ev->arg);
		put_word(b, "request", req);
		put_int(b, "fd", ev->dirfd);
	}
	if (ev->type == WD_EV_NET && ev->source == WD_SRC_CGROUP)
		put_word(b, "protocol", ev->proto == 6 ? "tcp" : ev->proto == 17 ? "udp" :
					ev->proto == 1 ? "icmp" : ev->proto == 58 ? "icmpv6" :
					ev->proto == 0 ? "ip" : "other");
	else if (ev->type == WD_EV_NET)
		put_int(b, "fd", ev->dirfd);
	if (changed && ev->path[0]) {
		put_str(b, "name", ev->path);
		put_word(b, "base", ev->dirfd == -100 /* AT_FDCWD */ ? "cwd changed during the call" :
								       "dirfd changed during the call");
		put_int(b, "dirfd", ev->dirfd);
	}
	put_word(b, "verdict", wd_audit_verdict_name(ev->verdict));
	put_str(b, "rule", extra && extra->rule ? extra->rule : rule_name(ctx, ev->rule));
	put_access(b, ev->access);
	if (ev->err > 0) {
		const char *name = strerrorname_np(ev->err);

		if (name)
			put_word(b, "errno", name);
		else
			put_int(b, "errno", ev->err);
	}
	put_word(b, "source", ev->source == WD_SRC_SYSCALL_EXIT     ? "syscall-exit" :
			      ev->source == WD_SRC_EXEC_TRACEPOINT ? "exec-tracepoint" :
			      ev->source == WD_SRC_CGROUP	   ? "cgroup" :
								     "lsm");
}

int wd_audit_event_put(struct wd_audit_ctx *ctx, struct wd_jbuf *b, const void *rec, size_t size,
		       const struct wd_audit_extra *extra)
{
	size_t len = b->len;
	uint64_t seq = ctx->seq;
	struct wd_rec_view ev;

	if (wd_rec_decode(rec, size, &ev))
		return -EINVAL;
	b->comma = false;
	record_head(ctx, b, (uint64_t)((int64_t)ev.h->ts_ns + ctx->boot_to_real_ns),
		    wd_audit_type_name(ev.type));
	put_event(b, ctx, &ev, extra);
	wd_jb_close(b, '}');
	if (!b->full)
		return 0;
	/* no room: nothing of it stays, and it keeps its number for the next try */
	b->len = len;
	b->full = false;
	ctx->seq = seq;
	return -ENOSPC;
}

char *wd_audit_event_line(struct wd_audit_ctx *ctx, const void *rec, size_t size,
			  const struct wd_audit_extra *extra)
{
	struct wd_jbuf b;
	char *line;

	wd_jb_init_heap(&b);
	if (wd_audit_event_put(ctx, &b, rec, size, extra)) {
		wd_jb_free(&b);
		return NULL;
	}
	line = wd_jb_take(&b);
	return line;
}

char *wd_audit_start_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns, int pid,
			  char *const argv[])
{
	struct wd_jbuf b;

	wd_jb_init_heap(&b);
	record_head(ctx, &b, ts_real_ns, "start");
	put_int(&b, "pid", pid);
	put_word(&b, "backend", ctx->backend ? ctx->backend : "");
	if (ctx->backend_detail)
		put_str(&b, "backend_detail", ctx->backend_detail);
	put_str_array(&b, "argv", argv);
	return record_take(&b);
}

char *wd_audit_exit_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns, int pid,
			 const char *status, int exit_code, int signo)
{
	struct wd_jbuf b;

	wd_jb_init_heap(&b);
	record_head(ctx, &b, ts_real_ns, "exit");
	put_int(&b, "pid", pid);
	put_word(&b, "status", status);
	if (exit_code >= 0)
		put_int(&b, "exit_code", exit_code);
	else
		put_null(&b, "exit_code");
	if (signo)
		put_int(&b, "signal", signo);
	else
		put_null(&b, "signal");
	return record_take(&b);
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
	struct wd_jbuf b;

	wd_jb_init_heap(&b);
	record_head(ctx, &b, ts_real_ns, "adopt");
	put_word(&b, "backend", ctx->backend ? ctx->backend : "");
	put_int(&b, "held", (int64_t)held);
	wd_jb_key(&b, "kernel_records");
	wd_jb_bool(&b, kernel_records);
	return record_take(&b);
}

char *wd_audit_lost_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns, uint64_t count)
{
	struct wd_jbuf b;

	wd_jb_init_heap(&b);
	record_head(ctx, &b, ts_real_ns, "lost");
	wd_jb_key(&b, "count");
	wd_jb_uint(&b, count);
	return record_take(&b);
}

char *wd_audit_egress_limit_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns,
				 const struct wd_audit_egress *e)
{
	struct wd_jbuf b;

	wd_jb_init_heap(&b);
	record_head(ctx, &b, ts_real_ns, "limit");
	put_word(&b, "op", "egress_rate");
	put_word(&b, "verdict", "deny");
	put_word(&b, "rule", "/net/egress_rate");
	wd_jb_key(&b, "rate");
	wd_jb_uint(&b, e->rate);
	wd_jb_key(&b, "egress_bytes");
	wd_jb_uint(&b, e->bytes);
	wd_jb_key(&b, "dropped_bytes");
	wd_jb_uint(&b, e->dropped_bytes);
	wd_jb_key(&b, "dropped_packets");
	wd_jb_uint(&b, e->dropped_packets);
	return record_take(&b);
}

char *wd_audit_fork_limit_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns, uint64_t forks,
			       uint64_t per_ms, uint64_t allowed, uint64_t refused)
{
	struct wd_jbuf b;

	wd_jb_init_heap(&b);
	record_head(ctx, &b, ts_real_ns, "limit");
	put_word(&b, "op", "fork_rate");
	put_word(&b, "verdict", "deny");
	put_word(&b, "rule", "/limits/fork_rate");
	wd_jb_key(&b, "forks");
	wd_jb_uint(&b, forks);
	wd_jb_key(&b, "per_ms");
	wd_jb_uint(&b, per_ms);
	wd_jb_key(&b, "allowed_forks");
	wd_jb_uint(&b, allowed);
	wd_jb_key(&b, "refused_forks");
	wd_jb_uint(&b, refused);
	return record_take(&b);
}

char *wd_audit_output_limit_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns,
				 const struct wd_audit_output *o)
{
	struct wd_jbuf b;

	wd_jb_init_heap(&b);
	record_head(ctx, &b, ts_real_ns, "limit");
	put_word(&b, "op", "output");
	put_word(&b, "verdict", "deny");
	put_word(&b, "rule", "/limits/output");
	wd_jb_key(&b, "limit_bytes");
	wd_jb_uint(&b, o->limit);
	wd_jb_key(&b, "passed_bytes");
	wd_jb_uint(&b, o->passed);
	wd_jb_key(&b, "dropped_bytes");
	wd_jb_uint(&b, o->dropped);
	return record_take(&b);
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

/*
 * A hold or its decision: the fields the holds socket shows too (wd_hold_view_fields, a cJSON
 * object), after the line's opening. Holds come a few a second, never in floods.
 */
static cJSON *hold_body(const struct wd_hold_view *v)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "hold", (double)v->id);
	wd_hold_view_fields(o, v);
	return o;
}

static char *hold_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns, const char *type, cJSON *o)
{
	char *body = o ? cJSON_PrintUnformatted(o) : NULL;
	struct wd_jbuf b;
	size_t n;

	cJSON_Delete(o);
	if (!body)
		return NULL;
	wd_jb_init_heap(&b);
	record_head(ctx, &b, ts_real_ns, type);
	/* "{...}": its members go on after the opening's */
	n = strlen(body);
	if (n > 2) {
		wd_jb_raw(&b, ",", 1);
		wd_jb_raw(&b, body + 1, n - 2);
	}
	free(body);
	return record_take(&b);
}

char *wd_audit_hold_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns,
			 const struct wd_hold_view *v)
{
	cJSON *o = hold_body(v);

	if (o) {
		cJSON_AddStringToObject(o, "verdict", "hold");
		cJSON_AddStringToObject(o, "token", v->token);
		cJSON_AddNumberToObject(o, "timeout_ms", (double)v->timeout_ms);
	}
	return hold_line(ctx, ts_real_ns, "hold", o);
}

char *wd_audit_decision_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns,
			     const struct wd_hold_view *v, bool allow, const char *who, int result)
{
	cJSON *o = hold_body(v);
	const char *name;

	if (o) {
		cJSON_AddStringToObject(o, "verdict", allow ? "allow" : "deny");
		add_str(o, "by", who);
		name = result ? strerrorname_np(-result) : NULL;
		cJSON_AddStringToObject(o, "result", result ? (name ? name : "error") : "ok");
	}
	return hold_line(ctx, ts_real_ns, "decision", o);
}

char *wd_audit_dns_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns,
			const struct wd_audit_dns *d)
{
	struct wd_jbuf b;

	wd_jb_init_heap(&b);
	record_head(ctx, &b, ts_real_ns, "dns");
	wd_jb_key(&b, "name");
	wd_jb_cstr(&b, d->name);
	wd_jb_key(&b, "qtype");
	wd_jb_uint(&b, d->qtype);
	wd_jb_key(&b, "verdict");
	wd_jb_cstr(&b, d->verdict);
	wd_jb_key(&b, "rule");
	wd_jb_cstr(&b, d->rule ? d->rule : "default");
	if (d->why) {
		wd_jb_key(&b, "why");
		wd_jb_cstr(&b, d->why);
	}
	wd_jb_key(&b, "tcp");
	wd_jb_bool(&b, d->tcp);
	if (d->addr) {
		wd_jb_key(&b, "addr");
		wd_jb_cstr(&b, d->addr);
		wd_jb_key(&b, "ttl");
		wd_jb_uint(&b, d->ttl);
	}
	return record_take(&b);
}
