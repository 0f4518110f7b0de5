/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A JSON writer into a buffer, for the audit formatter's hot path (audit/jsonl.c): a kernel record
 * becomes its line by appending bytes, with no allocation and no cJSON tree per record. Pure C.
 * Strings are escaped exactly as cJSON's printer escapes them, so a line reads the same whichever
 * of the two wrote it.
 */
#ifndef WD_AUDIT_JBUF_H
#define WD_AUDIT_JBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * @p holds @len bytes of @cap. A buffer made by wd_jb_init_fixed never grows: what does not fit
 * sets @full and is not written (the caller makes room and writes the record again); one made by
 * wd_jb_init_heap grows, and sets @full only when out of memory.
 */
struct wd_jbuf {
	char *p;
	size_t len, cap;
	bool full;
	bool heap;
	bool comma; /* a value was written at this level: the next key or element needs a ',' */
};

void wd_jb_init_fixed(struct wd_jbuf *b, char *p, size_t cap);
void wd_jb_init_heap(struct wd_jbuf *b);
/* The heap buffer's bytes as a NUL-terminated string the caller frees; NULL if it ran out. */
char *wd_jb_take(struct wd_jbuf *b);
void wd_jb_free(struct wd_jbuf *b);

/* Room for @n more bytes, made where the buffer may grow: false (and @full) when there is none. */
bool wd_jb_grow(struct wd_jbuf *b, size_t n);

/* The common case inline: a record is some forty of these, a flood a million records a second. */
static inline bool wd_jb_room(struct wd_jbuf *b, size_t n)
{
	if (!b->full && b->cap - b->len >= n)
		return true;
	return wd_jb_grow(b, n);
}

static inline void wd_jb_raw(struct wd_jbuf *b, const char *s, size_t n)
{
	if (!wd_jb_room(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

void wd_jb_open(struct wd_jbuf *b, char bracket); /* '{' or '[' */
void wd_jb_close(struct wd_jbuf *b, char bracket); /* '}' or ']' */

/* A key of warden's own (plain ASCII, nothing to escape), and the ',' before it if one is due. */
static inline void wd_jb_key(struct wd_jbuf *b, const char *key)
{
	size_t n = strlen(key);
	char *p;

	if (wd_jb_room(b, n + 4)) {
		p = b->p + b->len;
		if (b->comma)
			*p++ = ',';
		*p++ = '"';
		memcpy(p, key, n);
		p += n;
		*p++ = '"';
		*p++ = ':';
		b->len = (size_t)(p - b->p);
	}
	b->comma = false; /* the value follows the ':' */
}
/* A string of warden's own, or one already known to be UTF-8: @n bytes, escaped. */
void wd_jb_str(struct wd_jbuf *b, const char *s, size_t n);
void wd_jb_cstr(struct wd_jbuf *b, const char *s);
void wd_jb_int(struct wd_jbuf *b, int64_t v);
void wd_jb_uint(struct wd_jbuf *b, uint64_t v);
void wd_jb_null(struct wd_jbuf *b);
void wd_jb_bool(struct wd_jbuf *b, bool v);
/*
 * A string from outside warden (docs/audit.md, "Bytes that are not UTF-8"): as it is when @n
 * bytes at @s are well-formed UTF-8; else readable, each byte that starts no well-formed sequence
 * written as U+FFFD. Returns whether it was UTF-8 (else the caller adds its "_b64").
 */
bool wd_jb_ext_str(struct wd_jbuf *b, const char *s, size_t n);
/* @n bytes at @s in base64 (RFC 4648, padded), as a JSON string; _raw: the bare digits. */
void wd_jb_base64(struct wd_jbuf *b, const char *s, size_t n);
void wd_jb_base64_raw(struct wd_jbuf *b, const char *s, size_t n);
/* @n bytes with each byte that starts no well-formed UTF-8 sequence as U+FFFD; nothing escaped. */
void wd_jb_readable_raw(struct wd_jbuf *b, const char *s, size_t n);
/* "key":"s" for a string from outside, and "key_b64":"..." after it when it was not UTF-8. */
void wd_jb_ext_field(struct wd_jbuf *b, const char *key, const char *s, size_t n);

/*
 * Length of the well-formed UTF-8 sequence that starts @s (@n bytes left, @n > 0), or 0 when
 * none does (Unicode's table 3-7).
 */
size_t wd_utf8_seq(const unsigned char *s, size_t n);
/* Whether @n bytes at @s are well-formed UTF-8: no overlong forms, surrogates or cut sequences. */
bool wd_utf8_valid(const char *s, size_t n);

#endif
