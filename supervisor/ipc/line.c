// SPDX-License-Identifier: GPL-2.0
/* ipc/: JSON-line framing with bounded buffers (line.h says what is refused, and why). */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cJSON.h>

#include "supervisor/ipc/line.h"

static void bytes_init(struct wd_bytes *b, size_t max)
{
	memset(b, 0, sizeof(*b));
	b->max = max;
}

static void bytes_free(struct wd_bytes *b)
{
	free(b->buf);
	bytes_init(b, b->max);
}

void wd_lines_init(struct wd_lines *l, size_t max)
{
	bytes_init(&l->b, max);
}

void wd_lines_free(struct wd_lines *l)
{
	bytes_free(&l->b);
}

/* Room for one more byte at least, within max + 1 (a longest line and its newline). */
static int lines_room(struct wd_lines *l)
{
	size_t limit = l->b.max + 1, ncap;
	char *nb;

	if (l->b.off) {
		memmove(l->b.buf, l->b.buf + l->b.off, l->b.len - l->b.off);
		l->b.len -= l->b.off;
		l->b.off = 0;
	}
	if (l->b.len < l->b.cap)
		return 0;
	if (l->b.cap >= limit)
		return -EMSGSIZE;
	ncap = l->b.cap ? 2 * l->b.cap : 4096;
	if (ncap > limit)
		ncap = limit;
	nb = realloc(l->b.buf, ncap);
	if (!nb)
		return -ENOMEM;
	l->b.buf = nb;
	l->b.cap = ncap;
	return 0;
}

ssize_t wd_lines_fill(struct wd_lines *l, int fd)
{
	ssize_t n;
	int err = lines_room(l);

	if (err)
		return err;
	do
		n = read(fd, l->b.buf + l->b.len, l->b.cap - l->b.len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	l->b.len += (size_t)n;
	return n;
}

int wd_lines_next(struct wd_lines *l, char **line, size_t *len)
{
	size_t avail = l->b.len - l->b.off, n;
	char *start, *nl;

	if (!avail)
		return 0;
	start = l->b.buf + l->b.off;
	nl = memchr(start, '\n', avail);
	if (!nl)
		return avail > l->b.max ? -EMSGSIZE : 0;
	n = (size_t)(nl - start);
	l->b.off += n + 1;
	if (n > l->b.max)
		return -EMSGSIZE;
	if (memchr(start, '\0', n))
		return -EBADMSG;
	*nl = 0;
	*line = start;
	*len = n;
	return 1;
}

bool wd_lines_ready(const struct wd_lines *l)
{
	size_t avail = l->b.len - l->b.off;

	return avail > l->b.max || (avail && memchr(l->b.buf + l->b.off, '\n', avail));
}

cJSON *wd_lines_json(struct wd_lines *l, int fd)
{
	for (;;) {
		size_t len;
		char *line;
		int r = wd_lines_next(l, &line, &len);

		if (r > 0)
			return cJSON_Parse(line);
		/* over the bound, or a NUL byte in the line: garbage */
		if (r < 0 || wd_lines_fill(l, fd) <= 0)
			return NULL;
	}
}

char *wd_json_line(const struct cJSON *o, size_t *len)
{
	char *s = cJSON_PrintUnformatted(o);

	if (!s)
		return NULL;
	*len = strlen(s);
	s[(*len)++] = '\n'; /* replaces the NUL: the line goes with its newline */
	return s;
}

int wd_line_write(int fd, const char *s, size_t len, int timeout_ms)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = send(fd, s + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };
		int r;

		if (n >= 0) {
			off += (size_t)n;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		do
			r = poll(&pfd, 1, timeout_ms);
		while (r < 0 && errno == EINTR);
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ETIMEDOUT;
	}
	return 0;
}

void wd_outq_init(struct wd_outq *q, size_t max)
{
	bytes_init(&q->b, max);
}

void wd_outq_free(struct wd_outq *q)
{
	bytes_free(&q->b);
}

size_t wd_outq_pending(const struct wd_outq *q)
{
	return q->b.len - q->b.off;
}

int wd_outq_push(struct wd_outq *q, const char *s, size_t n)
{
	size_t keep = wd_outq_pending(q);
	char *nb;

	if (n > q->b.max || keep > q->b.max - n)
		return -ENOBUFS;
	if (q->b.off) {
		memmove(q->b.buf, q->b.buf + q->b.off, keep);
		q->b.len = keep;
		q->b.off = 0;
	}
	nb = realloc(q->b.buf, keep + n ? keep + n : 1);
	if (!nb)
		return -ENOMEM;
	memcpy(nb + keep, s, n);
	q->b.buf = nb;
	q->b.len = keep + n;
	return 0;
}

int wd_outq_flush(struct wd_outq *q, int fd)
{
	while (q->b.off < q->b.len) {
		ssize_t n = send(fd, q->b.buf + q->b.off, q->b.len - q->b.off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		/* a pipe (a command's streamed stdin): non-blocking already, SIGPIPE ignored */
		if (n < 0 && errno == ENOTSOCK)
			n = write(fd, q->b.buf + q->b.off, q->b.len - q->b.off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EWOULDBLOCK ? -EAGAIN : -errno;
		q->b.off += (size_t)n;
	}
	/* all taken: the memory goes, a long listing does not stay for the life of the client */
	wd_outq_free(q);
	return 0;
}
