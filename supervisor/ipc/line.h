/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipc/: JSON-line framing, the one copy. Every byte from a peer is input to be bounded: a line
 * longer than its reader's bound is refused (never grown into without limit), a NUL byte inside a
 * line refuses the line (no parser may see less than was sent), and what a peer has not yet taken
 * waits in a bounded queue.
 */
#ifndef WD_IPC_LINE_H
#define WD_IPC_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct cJSON;

/* Bytes waiting between a peer and us: @off..@len, in @cap bytes allocated, bounded by @max. */
struct wd_bytes {
	char *buf;
	size_t off, len, cap, max;
};

/*
 * The lines coming from one peer: at most max bytes a line, its newline not counted (the buffer
 * grows as lines need it, never past max + 1).
 */
struct wd_lines {
	struct wd_bytes b;
};

void wd_lines_init(struct wd_lines *l, size_t max);
void wd_lines_free(struct wd_lines *l);
/*
 * One read(2) of @fd into @l: the bytes read, 0 at EOF, or -errno (-EAGAIN on a non-blocking fd
 * with nothing to read; -EMSGSIZE when a line already fills the bound and has no end yet).
 */
ssize_t wd_lines_fill(struct wd_lines *l, int fd);
/*
 * The next whole line: 1 with *@line (NUL-terminated, newline dropped; valid until the next call)
 * and *@len; 0 when no whole line waits; -EMSGSIZE when what waits is already over the bound
 * (the stream cannot be resynchronised: drop the peer); -EBADMSG when the line held a NUL byte
 * (the line is consumed, the next one may follow).
 */
int wd_lines_next(struct wd_lines *l, char **line, size_t *len);
/* Whether wd_lines_next would return something other than 0: poll() cannot say so. */
bool wd_lines_ready(const struct wd_lines *l);

/*
 * The next line from the blocking socket @fd as JSON (reading into @l as needed), or NULL at
 * EOF, on garbage (over the bound, a NUL byte) or on a line that is no JSON.
 */
struct cJSON *wd_lines_json(struct wd_lines *l, int fd);
/* @o as one line: unformatted JSON and a newline, no NUL (caller frees); NULL out of memory. */
char *wd_json_line(const struct cJSON *o, size_t *len);
/*
 * Write all of @s to the socket @fd, waiting up to @timeout_ms (-1: for ever) each time it has no
 * room. 0, or -errno (-ETIMEDOUT when the peer took nothing for that long).
 */
int wd_line_write(int fd, const char *s, size_t len, int timeout_ms);

/* What waits to be sent to one peer: at most max bytes not yet taken. */
struct wd_outq {
	struct wd_bytes b;
};

void wd_outq_init(struct wd_outq *q, size_t max);
void wd_outq_free(struct wd_outq *q);
/* Queue @n bytes of @s: 0, -ENOBUFS when that would leave more than the bound unsent, -ENOMEM. */
int wd_outq_push(struct wd_outq *q, const char *s, size_t n);
/*
 * Send what the socket (or a non-blocking pipe's write end, its writer ignoring SIGPIPE) takes
 * now: 0 when all is sent, -EAGAIN when some waits, else -errno.
 */
int wd_outq_flush(struct wd_outq *q, int fd);
/* Bytes queued and not yet sent. */
size_t wd_outq_pending(const struct wd_outq *q);

#endif
