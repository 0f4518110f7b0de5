/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Audit records to JSON lines, schema warden.audit/1 (docs/audit.md). Pure C (cJSON only): the
 * supervisor hands in kernel records and its own events, and gets one line each, no newline.
 * Kernel records, which come in floods, are written straight into the caller's buffer
 * (wd_audit_event_put, audit/jbuf.h): no allocation and no JSON tree per record.
 */
#ifndef WD_AUDIT_JSONL_H
#define WD_AUDIT_JSONL_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "audit/jbuf.h"
#include "bpf/wd_abi.h"
#include "policy/compile.h"

#define WD_AUDIT_SCHEMA "warden.audit/1"

struct wd_audit_ctx {
	const char *sandbox; /* the sandbox's name */
	const char *backend;
	const char *backend_detail; /* what the backend found ("Landlock ABI 7, ..."); may be NULL */
	const struct wd_ruleset *rules; /* names rule ids; may be NULL */
	int64_t boot_to_real_ns; /* CLOCK_REALTIME - CLOCK_BOOTTIME, to date kernel stamps */
	uint64_t seq; /* of the next record */
	/* the date part of the last "ts" written, and its second: made once a second */
	uint64_t ts_secs;
	char ts_date[20];
};

/* What the supervisor adds to a kernel record; each may be NULL. */
struct wd_audit_extra {
	const char *exe;
	const char *target; /* a relative path from a syscall, made absolute */
	const char *rule; /* the rule, where the kernel record could not name it */
};

/*
 * A kernel record of @size bytes as it came off the ring buffer. Returns a malloc'd line, or NULL
 * when the record is malformed (short, or path not NUL-terminated).
 */
char *wd_audit_event_line(struct wd_audit_ctx *ctx, const void *rec, size_t size,
			  const struct wd_audit_extra *extra);
/*
 * The same line, appended to @b. 0; -EINVAL when the record is malformed; -ENOSPC when a fixed
 * @b has no room for it. On either error nothing is left in @b and no seq is used up, so the
 * caller may make room and call again.
 */
int wd_audit_event_put(struct wd_audit_ctx *ctx, struct wd_jbuf *b, const void *rec, size_t size,
		       const struct wd_audit_extra *extra);

/* Supervisor records. @ts_real_ns is CLOCK_REALTIME. */
char *wd_audit_start_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns, int pid,
			  char *const argv[]);
char *wd_audit_exit_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns, int pid,
			 const char *status, int exit_code, int signo);
/*
 * A supervisor took over a running sandbox whose supervisor had died: @held calls it found
 * waiting, and whether it follows the kernel's records from here on (@kernel_records).
 */
char *wd_audit_adopt_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns, size_t held,
			  bool kernel_records);
/*
 * The seq after the last record of @sandbox in the audit file @f (read from its last MiB), so a
 * supervisor taking a run over goes on numbering where the one before stopped. 0 if none. A
 * half-written last line is ended with a newline (the next record starts a line of its own).
 */
uint64_t wd_audit_next_seq(FILE *f, const char *sandbox);
char *wd_audit_lost_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns, uint64_t count);

/* What net.egress_rate let through and dropped over a sandbox's life (supervisor/net/rate.c). */
struct wd_audit_egress {
	uint64_t rate; /* bytes per second */
	uint64_t bytes; /* passed */
	uint64_t dropped_bytes;
	uint64_t dropped_packets;
};
/* The one `limit` record of a sandbox whose egress rate dropped packets, at its end. */
char *wd_audit_egress_limit_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns,
				 const struct wd_audit_egress *e);
/* A query of the sandbox's DNS forwarder decided, or (with addr) one address it let through. */
struct wd_audit_dns {
	const char *name;
	unsigned int qtype;
	const char *verdict; /* "allow" or "deny" */
	const char *rule;    /* the deciding rule's pointer ("/net/allow/0"); NULL: the default */
	const char *why;     /* a refusal's reason (name, class, type, cname), or NULL */
	bool tcp;
	const char *addr;    /* an address of the answer, or NULL */
	unsigned int ttl;
};
char *wd_audit_dns_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns,
			const struct wd_audit_dns *d);

/*
 * The one `limit` record of a sandbox whose limits.fork_rate refused forks, at its end: the
 * rate (@forks per @per_ms), the new processes let through and those refused.
 */
char *wd_audit_fork_limit_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns, uint64_t forks,
			       uint64_t per_ms, uint64_t allowed, uint64_t refused);

/* What limits.output passed on and dropped over a run (supervisor/run/output.h). */
struct wd_audit_output {
	uint64_t limit; /* bytes of stdout and stderr together */
	uint64_t passed; /* written to warden's own fd 1 and 2 */
	uint64_t dropped; /* read and discarded: over the cap, or not taken by the caller */
	uint64_t dropped_blocked; /* of those, what the caller did not take (blocked, closed) */
	bool cut; /* the command wrote more than the cap */
};
/* The one `limit` record of a run whose output was cut, at its end. */
char *wd_audit_output_limit_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns,
				 const struct wd_audit_output *o);

struct wd_hold_view;
struct cJSON;
/*
 * What a hold is, as JSON fields of @o (pid, comm, exe, cmdline, op, target[2], exec_argv,
 * rule): the same words in the audit stream and on the control socket.
 */
void wd_hold_view_fields(struct cJSON *o, const struct wd_hold_view *v);
/* A hold: the operation waits for a decision. */
char *wd_audit_hold_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns,
			 const struct wd_hold_view *v);
/* The decision on a hold: by whom, and what the operation returned (0 or -errno). */
char *wd_audit_decision_line(struct wd_audit_ctx *ctx, uint64_t ts_real_ns,
			     const struct wd_hold_view *v, bool allow, const char *who, int result);

/* "2026-11-30T12:00:00.123456789Z" into @buf (at least 32 bytes). */
void wd_audit_format_ts(uint64_t real_ns, char *buf, size_t bufsz);

/*
 * Strings from outside warden in the audit stream (docs/audit.md, "Bytes that are not UTF-8"):
 * whether @n bytes at @s are well-formed UTF-8 (no overlong forms, surrogates or cut sequences);
 * a malloc'd copy of NUL-terminated @s with each byte that starts no such sequence replaced by
 * U+FFFD; and @n bytes at @s in base64 (RFC 4648, padded), malloc'd.
 */
bool wd_audit_utf8_valid(const char *s, size_t n);
char *wd_audit_utf8_readable(const char *s);
char *wd_audit_base64(const char *s, size_t n);
/*
 * RFC 4648 base64 @s (padded or not, no whitespace) into @out (room for 3/4 of strlen(@s)):
 * how many bytes, or -1 for a character that is none of it or padding before the end.
 */
long wd_audit_unbase64(const char *s, unsigned char *out);

const char *wd_audit_type_name(unsigned int type);
const char *wd_audit_op_name(unsigned int op);
const char *wd_audit_verdict_name(unsigned int verdict);
/* x86_64 name of a syscall the kernel side records; NULL when not one of them. */
const char *wd_audit_syscall_name(unsigned int nr);

#endif
