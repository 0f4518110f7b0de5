// SPDX-License-Identifier: GPL-2.0
/*
 * The record path of a run (supervisor/run/records.h): each kernel record, checked and read by
 * audit/record.h, becomes an audit line with what only the supervisor knows added.
 */
#include <errno.h>
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

/* @n bytes to the audit file, all of them: a short write is taken up where it stopped. */
static void write_all(struct run_state *st, const char *p, size_t n)
{
	int fd = fileno(st->audit);
	ssize_t w;

	/* anything written through the stream itself (an ended half line of adopt) goes first */
	fflush(st->audit);
	while (n) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!st->write_failed)
				log_warn("audit: cannot write records");
			st->write_failed = true;
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

void wd_run_audit_flush(struct run_state *st)
{
	if (!st->audit || !st->batch_len)
		return;
	write_all(st, st->batch, st->batch_len);
	st->batch_len = 0;
	st->batch_writes++;
}

/* @n bytes of whole lines after the batch: flushed first when they would not fit. */
static void batch_append(struct run_state *st, const char *p, size_t n)
{
	if (n > WD_AUDIT_BATCH - st->batch_len)
		wd_run_audit_flush(st);
	if (n > WD_AUDIT_BATCH) {
		write_all(st, p, n); /* a line longer than a batch: on its own */
		return;
	}
	memcpy(st->batch + st->batch_len, p, n);
	st->batch_len += n;
}

void wd_run_audit_put(struct run_state *st, char *line, bool flush)
{
	size_t n;

	if (!line) {
		log_warnx("audit: cannot format a record");
		return;
	}
	if (st->audit) {
		/* only before the sink is open, when warden is failing to set the sandbox up, is not */
		n = strlen(line);
		line[n] = '\n'; /* its NUL: the line goes by length from here */
		batch_append(st, line, n + 1);
		if (flush)
			wd_run_audit_flush(st);
	}
	free(line);
}

void wd_run_audit_write(struct run_state *st, char *line)
{
	wd_run_audit_put(st, line, true);
}

/*
 * Kernel record @rec as a line at the batch's end, formatted in place. 0, or -EINVAL when the
 * record is malformed. One too long for what is left of the batch is formatted again after the
 * batch is written; one too long for a whole batch (a path of escapes) is made on the heap.
 */
static int put_record(struct run_state *st, const void *rec, size_t size,
		      const struct wd_audit_extra *extra)
{
	struct wd_jbuf b;
	char *line;
	int err;

	for (int tries = 0; tries < 2; tries++) {
		/* a byte kept for the newline */
		wd_jb_init_fixed(&b, st->batch + st->batch_len, WD_AUDIT_BATCH - st->batch_len - 1);
		err = wd_audit_event_put(&st->actx, &b, rec, size, extra);
		if (err != -ENOSPC || !st->batch_len)
			break;
		wd_run_audit_flush(st);
	}
	if (!err) {
		b.p[b.len++] = '\n';
		st->batch_len += b.len;
		return 0;
	}
	if (err == -ENOSPC) {
		line = wd_audit_event_line(&st->actx, rec, size, extra);
		err = line ? 0 : -EINVAL;
		wd_run_audit_put(st, line, false);
	}
	return err;
}

/*
 * The exe of the task behind @ev: what its last exec record said (exact, and known after the
 * task has gone), else /proc while the task lives, else its parent's last exec. What /proc said
 * is kept for a few milliseconds: the forks of a flood that never exec'd would otherwise cost a
 * readlink each record, and in that time no pid is given to another process (the kernel hands
 * pids out in turn, and only a wrap past pid_max comes back to one).
 */
static const char *exe_of(struct run_state *st, const struct wd_rec_view *ev)
{
	const char *exe = wd_exe_cache_get(&st->exes, ev->h->pid);
	struct proc_exe *m = &st->proc_exe[ev->h->pid % WD_PROC_EXES];
	uint64_t now;
	char link[64];
	ssize_t n;

	/* an exec record's task runs its new program already: /proc tells nothing of the old */
	if (exe || ev->type == WD_EV_EXEC)
		return exe ? exe : wd_exe_cache_get(&st->exes, ev->h->ppid);
	now = wd_clock_ns(CLOCK_MONOTONIC_COARSE);
	if (m->pid == ev->h->pid && now - m->ns < WD_PROC_EXE_NS)
		return m->exe;
	snprintf(link, sizeof(link), "/proc/%u/exe", ev->h->tid);
	n = readlink(link, m->exe, sizeof(m->exe) - 1);
	if (n > 0) {
		m->exe[n] = 0;
		m->pid = ev->h->pid;
		m->ns = now;
		return m->exe;
	}
	m->pid = 0;
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

/*
 * The exec.deny rule that refused exec of @path on a backend whose refusal names no rule
 * (Landlock's EACCES, a noexec mount's): the path as the task passed it, resolved as the rule's
 * was (the rules are on the file the kernel executes).
 */
static const char *exec_deny_rule(const struct wd_ruleset *rs, const char *path)
{
	char real[PATH_MAX];

	if (path[0] != '/' || !realpath(path, real))
		return NULL;
	return wd_ruleset_exec_denied(rs, real);
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
	char target[PATH_MAX];
	struct wd_rec_view v;
	bool ok;

	ok = wd_rec_decode(rec, size, &v) == 0;
	if (ok && st->sandbox_id && v.h->sandbox != st->sandbox_id) {
		st->malformed++;
		log_warnx("audit: a kernel record of another sandbox (%llu) dropped",
			  (unsigned long long)v.h->sandbox);
		return 0;
	}
	if (ok) {
		extra.exe = exe_of(st, &v);
		if (absolute_target(&v, target, sizeof(target)))
			extra.target = target;
		if (v.source != WD_SRC_LSM && v.verdict == WD_VERDICT_ALLOW && st->actx.rules)
			extra.rule = rule_for(st->actx.rules, extra.target ? extra.target : v.path,
					      v.access);
		else
			extra.rule = refusal_rule(st, &v);
		if (!extra.rule && v.source != WD_SRC_LSM && v.verdict == WD_VERDICT_DENY &&
		    v.op == WD_OP_EXEC && st->actx.rules)
			extra.rule = exec_deny_rule(st->actx.rules,
						    extra.target ? extra.target : v.path);
	}
	/* a malformed record gets no line: counted, and nothing of it read */
	if (!ok || put_record(st, rec, size, &extra)) {
		st->malformed++;
		log_warnx("audit: malformed kernel record of %zu bytes", size);
		return 0;
	}
	if (v.verdict == WD_VERDICT_DENY)
		st->denials_seen++;
	/* From here on the task runs what it just exec'd. */
	if (v.type == WD_EV_EXEC && v.verdict != WD_VERDICT_DENY && v.path[0])
		wd_exe_cache_set(&st->exes, v.h->pid, v.path);
	return 0;
}
