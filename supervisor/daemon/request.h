/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control protocol's requests (docs/control.md), read apart from what serves them: one JSON
 * object a line, its protocol version, its id, its op, and the keys that op takes. What the
 * sandbox side, or any client, sends is hostile input: this is what fuzz/fuzz_request.c drives.
 */
#ifndef WD_DAEMON_REQUEST_H
#define WD_DAEMON_REQUEST_H

#include <stddef.h>

#include <cJSON.h>

/* The protocol version wardend speaks ("v"). */
#define WD_DAEMON_PROTO 1

struct wd_request {
	cJSON *req; /* the parsed line (NULL: not JSON), the caller's to free (wd_request_free) */
	const char *op; /* its "op" when a string, else NULL */
	const cJSON *id; /* its "id" when a number or a short string, else NULL */
};

/*
 * Read the request line @line (@len bytes, no NUL needed) into @q: NULL when it is one a
 * wardend serves (an object, protocol 1, a good id, a known op with only that op's keys), else
 * the error reply naming what is wrong. @q is filled as far as the line allowed either way.
 */
cJSON *wd_request_parse(const char *line, size_t len, struct wd_request *q);
void wd_request_free(struct wd_request *q);

/* The keys op @op takes (NULL-ended), or NULL for an op wardend does not know. */
const char *const *wd_request_keys(const char *op);

/* {"ok":false,"error":@fmt with @arg,"code":@code} */
cJSON *coded_error(const char *code, const char *fmt, const char *arg);
/* coded_error("bad_request", ...) */
cJSON *error_reply(const char *fmt, const char *arg);
/* An unknown_key error for the first key of @req not in @keys (NULL-ended), or NULL. */
cJSON *check_keys(const cJSON *req, const char *op, const char *const *keys);

#endif
