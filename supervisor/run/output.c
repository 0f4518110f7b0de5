// SPDX-License-Identifier: GPL-2.0
/* limits.output: the command's stdout and stderr through warden (supervisor/run/output.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "supervisor/run/output.h"
#include "supervisor/util/log.h"

/* At the end: how long the drain waits for a pipe or the caller without any progress. */
#define WD_OUTPUT_DRAIN_MS 1000

void wd_output_init(struct wd_output *o)
{
	memset(o, 0, sizeof(*o));
	for (int i = 0; i < 2; i++)
		o->s[i].rd = o->s[i].wr = o->s[i].to = -1;
}

/*
 * Where stream @s goes: warden's fd @fd opened again non-blocking (a pipe, a terminal, a
 * device), so O_NONBLOCK never lands on the caller's own description; a socket written with
 * MSG_DONTWAIT; a regular file (never blocks) or anything else as it is.
 */
static void caller_side(struct wd_output_stream *s, int fd)
{
	char path[32];
	struct stat st;

	if (fstat(fd, &st)) {
		s->gone = true; /* warden has no such fd: nowhere to pass it */
		return;
	}
	s->to = fd;
	if (S_ISREG(st.st_mode))
		return;
	if (S_ISSOCK(st.st_mode)) {
		s->is_sock = true;
		return;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		s->to = fd;
		s->own_to = true;
	}
}

/* A pipe whose ends are both fd 3 or above (fds 0-2 may be closed in warden). */
static int pipe_above_std(int p[2])
{
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	for (int i = 0; i < 2; i++) {
		if (p[i] < 3) {
			int fd = fcntl(p[i], F_DUPFD_CLOEXEC, 3);

			close(p[i]);
			p[i] = fd;
		}
	}
	if (p[0] < 0 || p[1] < 0)
		return -EMFILE;
	/* the command's end blocks as a pipe's end normally does */
	if (fcntl(p[1], F_SETFL, 0))
		return -errno;
	return 0;
}

int wd_output_open(struct wd_output *o, uint64_t cap, unsigned int tty_fds, const int to[3])
{
	o->on = true;
	o->cap = cap;
	for (int i = 0; i < 2; i++) {
		struct wd_output_stream *s = &o->s[i];
		int p[2] = { -1, -1 }, err;

		if (tty_fds & (1u << (i + 1)))
			continue;
		caller_side(s, to[i + 1] > 2 ? to[i + 1] : i + 1);
		err = pipe_above_std(p);
		if (err) {
			log_warnx("output: cannot make the pipe for the command's fd %d: %s", i + 1,
				  strerror(-err));
			if (p[0] >= 0)
				close(p[0]);
			if (p[1] >= 0)
				close(p[1]);
			wd_output_close(o);
			return err;
		}
		s->rd = p[0];
		s->wr = p[1];
		o->fds |= 1u << (i + 1);
	}
	/* a caller who closed its end must not kill warden: the write says EPIPE instead */
	if (o->fds)
		signal(SIGPIPE, SIG_IGN);
	return 0;
}

void wd_output_child_fds(const struct wd_output *o, int fd_for[3])
{
	fd_for[0] = -1;
	fd_for[1] = o->s[0].wr;
	fd_for[2] = o->s[1].wr;
}

void wd_output_started(struct wd_output *o)
{
	for (int i = 0; i < 2; i++) {
		if (o->s[i].wr >= 0)
			close(o->s[i].wr);
		o->s[i].wr = -1;
	}
}

size_t wd_output_admit(struct wd_output *o, size_t n)
{
	size_t keep = n;

	if (!o->on)
		return n;
	if ((uint64_t)n > o->cap - o->admitted) {
		keep = (size_t)(o->cap - o->admitted);
		o->cut = true;
	}
	o->admitted += keep;
	o->dropped += n - keep;
	return keep;
}

/* Write what is buffered to the caller; false while it must wait for room. */
static bool flush(struct wd_output *o, struct wd_output_stream *s)
{
	while (s->off < s->len) {
		ssize_t n = 0;

		if (s->gone)
			errno = EPIPE; /* nowhere to write: dropped below */
		else if (s->is_sock)
			n = send(s->to, s->buf + s->off, s->len - s->off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
		else
			n = write(s->to, s->buf + s->off, s->len - s->off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return false;
		if (n <= 0) {
			/* the caller closed its end (or there is none): the rest is dropped */
			s->gone = true;
			o->dropped += s->len - s->off;
			o->dropped_blocked += s->len - s->off;
			break;
		}
		s->off += (size_t)n;
		o->passed += (uint64_t)n;
	}
	s->len = s->off = 0;
	return true;
}

/*
 * One read of the command's stream @s: admitted up to the cap, buffered as room allows, the
 * rest dropped. 0 at its end (every write end closed), -EAGAIN when dry, else bytes read.
 */
static ssize_t take(struct wd_output *o, struct wd_output_stream *s)
{
	static char chunk[WD_OUTPUT_BUF];
	size_t keep, fit;
	ssize_t n;

	do {
		n = read(s->rd, chunk, sizeof(chunk));
	} while (n < 0 && errno == EINTR);
	if (n <= 0)
		return n < 0 ? -errno : 0;
	keep = wd_output_admit(o, (size_t)n);
	if (s->off && s->len + keep > sizeof(s->buf)) {
		memmove(s->buf, s->buf + s->off, s->len - s->off);
		s->len -= s->off;
		s->off = 0;
	}
	fit = sizeof(s->buf) - s->len < keep ? sizeof(s->buf) - s->len : keep;
	if (s->gone)
		fit = 0;
	memcpy(s->buf + s->len, chunk, fit);
	s->len += fit;
	/* the caller does not keep up: the run loop does not wait for it, the command neither */
	o->dropped += keep - fit;
	o->dropped_blocked += keep - fit;
	flush(o, s);
	return n;
}

static void close_rd(struct wd_output_stream *s)
{
	if (s->rd >= 0)
		close(s->rd);
	s->rd = -1;
}

int wd_output_poll_fds(struct wd_output *o, struct pollfd *pfd, int max)
{
	int n = 0;

	if (!o->on || max < WD_OUTPUT_POLL_MAX)
		return 0;
	for (int i = 0; i < 2; i++) {
		struct wd_output_stream *s = &o->s[i];

		if (s->rd >= 0)
			pfd[n++] = (struct pollfd){ .fd = s->rd, .events = POLLIN };
		if (s->len > s->off && !s->gone && s->to >= 0)
			pfd[n++] = (struct pollfd){ .fd = s->to, .events = POLLOUT };
	}
	return n;
}

void wd_output_on_ready(struct wd_output *o, const struct pollfd *pfd)
{
	for (int i = 0; i < 2; i++) {
		struct wd_output_stream *s = &o->s[i];

		if (pfd->fd == s->rd) {
			/* at most one pipe's worth a round: the rest of the loop goes on */
			if (take(o, s) == 0)
				close_rd(s); /* every write end closed */
			return;
		}
		if (pfd->fd == s->to && s->len > s->off) {
			flush(o, s);
			return;
		}
	}
}

/* The drain's wait for the caller to take @s's buffer; false when it did not in time. */
static bool wait_caller(struct wd_output *o, struct wd_output_stream *s)
{
	while (!flush(o, s)) {
		struct pollfd pfd = { .fd = s->to, .events = POLLOUT };

		if (poll(&pfd, 1, WD_OUTPUT_DRAIN_MS) <= 0) {
			o->dropped += s->len - s->off;
			o->dropped_blocked += s->len - s->off;
			s->len = s->off = 0;
			return false;
		}
	}
	return true;
}

void wd_output_drain(struct wd_output *o)
{
	if (!o->on)
		return;
	wd_output_started(o);
	for (int i = 0; i < 2; i++) {
		struct wd_output_stream *s = &o->s[i];

		while (s->rd >= 0) {
			struct pollfd pfd = { .fd = s->rd, .events = POLLIN };
			ssize_t n;

			if (s->len > s->off && !wait_caller(o, s))
				s->gone = true; /* it is not reading: the rest is counted only */
			n = take(o, s);
			if (n == -EAGAIN && poll(&pfd, 1, WD_OUTPUT_DRAIN_MS) > 0)
				continue;
			if (n <= 0)
				close_rd(s); /* dry, or a writer outside the sandbox keeps it */
		}
		if (s->len > s->off)
			wait_caller(o, s);
	}
}

void wd_output_close(struct wd_output *o)
{
	wd_output_started(o);
	for (int i = 0; i < 2; i++) {
		struct wd_output_stream *s = &o->s[i];

		close_rd(s);
		if (s->own_to && s->to >= 0)
			close(s->to);
		s->to = -1;
		s->own_to = false;
	}
}
