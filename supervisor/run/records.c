// SPDX-License-Identifier: GPL-2.0
/*
 * The record path of a run (supervisor/run/records.h): each kernel record, checked and read by
 * audit/record.h, becomes an audit line with what only the supervisor knows added.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/record.h"
#include "policy/compile.h"
#include "supervisor/run/records.h"
#include "supervisor/util/log.h"

uint64_t wd_clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Kernel records are written in batches (one flush per ring-buffer drain); ours at once. */
void wd_run_audit_put(struct run_state *st, char *line, bool flush)
{
	if (!line) {
		log_warnx("audit: cannot format a record");
		return;
	}
	if (!st->audit) {
		/* only before the sink is open, when warden is failing to set the sandbox up */
		free(line);
		return;
	}
	fprintf(st->audit, "%s\n", line);
	if (flush)
		fflush(st->audit);
	free(line);
}

void wd_run_audit_write(struct run_state *st, char *line)
{
	wd_run_audit_put(st, line, true);
}

/*
 * The exe of the task behind @ev: what its last exec record said (exact, and known after the
 * task has gone), else /proc while the task lives, else its parent's last exec.
 */
static const char *exe_of(struct run_state *st, const struct wd_rec_view *ev, char *buf,
			  size_t bufsz)
{
	const char *exe = wd_exe_cache_get(&st->exes, ev->h->pid);
	char link[64];
	ssize_t n;

	if (exe)
		return exe;
	snprintf(link, sizeof(link), "/proc/%u/exe", ev->h->tid);
	n = readlink(link, buf, bufsz - 1);
	if (n > 0 && ev->type != WD_EV_EXEC) {
		buf[n] = 0;
		return buf;
	}
	return wd_exe_cache_get(&st->exes, ev->h->ppid);
}

/*
 * A relative path a task passed to a syscall, made absolute against its cwd or dirfd while the
 * task still lives; false when that can no longer be known.
 */
static bool absolute_target(const struct wd_rec_view *ev, char *buf, size_t bufsz)
{
	char link[64], base[PATH_MAX];
	ssize_t n;

	/* the recorder resolved it against the base the call had, or knows it cannot */
	if (ev->source == WD_SRC_LSM || !ev->path[0] || ev->path[0] == '/' ||
	    (ev->flags & WD_EVF_SOCKADDR) ||
	    (ev->flags & (WD_EVF_AT_ENTRY | WD_EVF_BASE_CHANGED)) ||
	    (ev->source == WD_SRC_SYSCALL_EXIT && !(ev->flags & WD_EVF_LATE)))
		return false;
	if (ev->dirfd == AT_FDCWD)
		snprintf(link, sizeof(link), "/proc/%u/cwd", ev->h->tid);
	else
		snprintf(link, sizeof(link), "/proc/%u/fd/%d", ev->h->tid, ev->dirfd);
	n = readlink(link, base, sizeof(base) - 1);
	if (n <= 0)
		return false;
	base[n] = 0;
	return (size_t)snprintf(buf, bufsz, "%s/%s", strcmp(base, "/") ? base : "", ev->path) <
	       bufsz;
}

/*
 * The rule that allowed @path for @acc, found as the kernel's LPM lookup would: for records whose
 * verdict was made where no rule id could be read (Landlock).
 */
static const char *rule_for(const struct wd_ruleset *rs, const char *path, unsigned int acc)
{
	const struct wd_rule_entry *e = wd_ruleset_lookup(rs, path);
	int idx = acc & WD_ACC_EXEC ? WD_ACC_IDX_EXEC :
		  acc & WD_ACC_WRITE ? WD_ACC_IDX_WRITE : WD_ACC_IDX_READ;

	if (!e || !(e->val.allow & acc))
		return NULL;
	return wd_ruleset_rule_name(rs, e->val.rule[idx]);
}

/* The record op of a held operation's syscall ("truncate" may be an open with O_TRUNC). */
static bool refusal_op_matches(uint16_t want, uint16_t got)
{
	return want == got || (want == WD_OP_TRUNCATE && got == WD_OP_OPEN);
}

/* The rule of the waiting room's refusal that @ev (a syscall-exit denial) records, or NULL. */
static const char *refusal_rule(struct run_state *st, const struct wd_rec_view *ev)
{
	uint64_t now = wd_clock_ns(CLOCK_MONOTONIC);

	if (ev->source != WD_SRC_SYSCALL_EXIT || ev->verdict != WD_VERDICT_DENY)
		return NULL;
	for (unsigned int i = 0; i < WD_REFUSALS; i++) {
		struct refusal *r = &st->refused[i];

		if (r->tid != ev->h->tid || !refusal_op_matches(r->op, ev->op) ||
		    now - r->ns > WD_REFUSAL_NS)
			continue;
		r->tid = 0; /* one record each */
		return r->rule;
	}
	return NULL;
}

int wd_run_on_record(void *ctx, void *rec, size_t size)
{
	struct run_state *st = ctx;
	struct wd_audit_extra extra = { 0 };
	char buf[PATH_MAX], target[PATH_MAX];
	struct wd_rec_view v;
	bool ok;
	char *line;

	ok = wd_rec_decode(rec, size, &v) == 0;
	if (ok) {
		extra.exe = exe_of(st, &v, buf, sizeof(buf));
		if (absolute_target(&v, target, sizeof(target)))
			extra.target = target;
		if (v.source != WD_SRC_LSM && v.verdict == WD_VERDICT_ALLOW && st->actx.rules)
			extra.rule = rule_for(st->actx.rules, extra.target ? extra.target : v.path,
					      v.access);
		else
			extra.rule = refusal_rule(st, &v);
	}
	/* a malformed record gets no line: counted, and nothing of it read */
	line = ok ? wd_audit_event_line(&st->actx, rec, size, &extra) : NULL;
	if (!line) {
		st->malformed++;
		log_warnx("audit: malformed kernel record of %zu bytes", size);
		return 0;
	}
	wd_run_audit_put(st, line, false);
	/* From here on the task runs what it just exec'd. */
	if (v.type == WD_EV_EXEC && v.verdict != WD_VERDICT_DENY && v.path[0])
		wd_exe_cache_set(&st->exes, v.h->pid, v.path);
	return 0;
}
