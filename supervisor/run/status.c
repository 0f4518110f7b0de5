// SPDX-License-Identifier: GPL-2.0
/* The live status line (supervisor/run/status.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "supervisor/run/holds.h"
#include "supervisor/run/pty.h"
#include "supervisor/run/records.h"
#include "supervisor/run/status.h"
#include "supervisor/sandbox/cgroup.h"
#include "supervisor/sandbox/limits.h"

/* Whether fd 2 is the terminal the relay writes the command's output to. */
static bool stderr_is_relay(const struct wd_pty *p)
{
	struct stat a, b;

	if (!p || p->master < 0 || p->out < 0 || !isatty(2))
		return false;
	return fstat(2, &a) == 0 && fstat(p->out, &b) == 0 && S_ISCHR(a.st_mode) &&
	       a.st_rdev == b.st_rdev;
}

int wd_run_status_start(struct run_status *s, const struct run_state *st, uint64_t t0)
{
	struct itimerspec its = { .it_interval = { 1, 0 }, .it_value = { 1, 0 } };

	s->timer = -1;
	s->t0 = t0;
	if (!stderr_is_relay(st->pty))
		return 0;
	s->timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (s->timer < 0)
		return -errno;
	if (timerfd_settime(s->timer, 0, &its, NULL)) {
		close(s->timer);
		s->timer = -1;
		return -errno;
	}
	return 0;
}

static void size_words(char *buf, size_t bufsz, uint64_t b)
{
	if (b >= 1ull << 30)
		snprintf(buf, bufsz, "%.1f GiB", (double)b / (1ull << 30));
	else if (b >= 1ull << 20)
		snprintf(buf, bufsz, "%llu MiB", (unsigned long long)(b >> 20));
	else
		snprintf(buf, bufsz, "%llu KiB", (unsigned long long)(b >> 10));
}

void wd_run_status_format(char *buf, size_t bufsz, double elapsed_s, uint64_t mem, int have_mem,
			  uint64_t pids, int have_pids, uint64_t denials, uint64_t waiting,
			  const char *held)
{
	char m[32] = "", t[32] = "";
	unsigned long long e = (unsigned long long)elapsed_s;

	if (have_mem)
		size_words(m, sizeof(m), mem);
	if (have_pids)
		snprintf(t, sizeof(t), "%llu task%s", (unsigned long long)pids,
			 pids == 1 ? "" : "s");
	snprintf(buf, bufsz, "warden: %llu:%02llu elapsed%s%s%s%s, %llu denial%s%s%s%s",
		 e / 60, e % 60, m[0] ? ", " : "", m, t[0] ? ", " : "", t,
		 (unsigned long long)denials, denials == 1 ? "" : "s",
		 waiting ? ", waiting for an operator to answer: " : "",
		 waiting && held && held[0] ? held : waiting ? "a held operation" : "",
		 waiting > 1 ? " (and more)" : "");
}

void wd_run_status_tick(struct run_status *s, struct run_state *st, const struct wd_cgroup *cg,
			const struct run_holds *h)
{
	struct wd_limits none = { 0 };
	struct wd_limit_usage u;
	uint64_t ticks, waiting = 0;
	struct timespec now;
	char line[512];

	if (s->timer < 0 || read(s->timer, &ticks, sizeof(ticks)) != sizeof(ticks) || !st->pty)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!s->lim) {
		none.v2_mem = faccessat(cg->fd, "memory.current", F_OK, 0) == 0;
		none.v2_pids = faccessat(cg->fd, "pids.current", F_OK, 0) == 0;
	}
	wd_limits_read(s->lim ? s->lim : &none, cg->fd, &u);
	if (h && h->held > h->decided)
		waiting = h->held - h->decided;
	wd_run_status_format(line, sizeof(line),
			     ((double)now.tv_sec * 1e9 + (double)now.tv_nsec - (double)s->t0) / 1e9,
			     u.mem_current, u.have_mem, u.pids_current, u.have_pids,
			     st->denials_seen, waiting, h ? h->waiting_on : NULL);
	wd_pty_status(st->pty, line);
}

void wd_run_status_stop(struct run_status *s)
{
	if (s->timer >= 0)
		close(s->timer);
	s->timer = -1;
}
