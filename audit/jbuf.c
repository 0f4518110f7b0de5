// SPDX-License-Identifier: GPL-2.0
/* The audit formatter's JSON writer into a buffer (audit/jbuf.h). */
#include <stdlib.h>
#include <string.h>

#include "audit/jbuf.h"

void wd_jb_init_fixed(struct wd_jbuf *b, char *p, size_t cap)
{
	*b = (struct wd_jbuf){ .p = p, .cap = cap };
}

void wd_jb_init_heap(struct wd_jbuf *b)
{
	*b = (struct wd_jbuf){ .heap = true };
}

char *wd_jb_take(struct wd_jbuf *b)
{
	char *s = NULL;

	wd_jb_raw(b, "", 1);
	if (!b->full)
		s = b->p;
	else
		free(b->p);
	*b = (struct wd_jbuf){ .heap = true };
	return s;
}

void wd_jb_free(struct wd_jbuf *b)
{
	if (b->heap)
		free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

bool wd_jb_grow(struct wd_jbuf *b, size_t n)
{
	size_t cap;
	char *p;

	if (b->full)
		return false;
	if (b->cap - b->len >= n)
		return true;
	if (!b->heap) {
		b->full = true;
		return false;
	}
	cap = b->cap ? b->cap : 512;
	while (cap - b->len < n)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->full = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

static inline void put_char(struct wd_jbuf *b, char c)
{
	if (wd_jb_room(b, 1))
		b->p[b->len++] = c;
}

/* The ',' before a value or key that is not the first at its level. */
static void sep(struct wd_jbuf *b)
{
	if (b->comma)
		put_char(b, ',');
	b->comma = true;
}

void wd_jb_open(struct wd_jbuf *b, char bracket)
{
	sep(b);
	put_char(b, bracket);
	b->comma = false;
}

void wd_jb_close(struct wd_jbuf *b, char bracket)
{
	put_char(b, bracket);
	b->comma = true;
}

/* Does byte @c need an escape in a JSON string? As cJSON: '"', '\' and below 0x20. */
static inline bool needs_escape(unsigned char c)
{
	return c < 0x20 || c == '"' || c == '\\';
}

static void put_escape(struct wd_jbuf *b, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	char e[6] = { '\\', 0 };
	size_t n = 2;

	switch (c) {
	case '"':
	case '\\':
		e[1] = (char)c;
		break;
	case '\b':
		e[1] = 'b';
		break;
	case '\f':
		e[1] = 'f';
		break;
	case '\n':
		e[1] = 'n';
		break;
	case '\r':
		e[1] = 'r';
		break;
	case '\t':
		e[1] = 't';
		break;
	default:
		memcpy(e + 1, "u00", 3);
		e[4] = hex[c >> 4];
		e[5] = hex[c & 15];
		n = 6;
	}
	wd_jb_raw(b, e, n);
}

/* @n bytes, escaped, inside quotes already written: runs of plain bytes go in one copy. */
static void put_escaped(struct wd_jbuf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run;

	while (i < n) {
		for (run = i; run < n && !needs_escape(p[run]); run++)
			;
		wd_jb_raw(b, s + i, run - i);
		if (run < n)
			put_escape(b, p[run++]);
		i = run;
	}
}

void wd_jb_str(struct wd_jbuf *b, const char *s, size_t n)
{
	sep(b);
	put_char(b, '"');
	put_escaped(b, s, n);
	put_char(b, '"');
}

void wd_jb_cstr(struct wd_jbuf *b, const char *s)
{
	wd_jb_str(b, s, strlen(s));
}

void wd_jb_uint(struct wd_jbuf *b, uint64_t v)
{
	char d[20];
	size_t i = sizeof(d);

	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	sep(b);
	wd_jb_raw(b, d + i, sizeof(d) - i);
}

void wd_jb_int(struct wd_jbuf *b, int64_t v)
{
	if (v >= 0) {
		wd_jb_uint(b, (uint64_t)v);
		return;
	}
	sep(b);
	put_char(b, '-');
	b->comma = false;
	wd_jb_uint(b, -(uint64_t)v);
}

void wd_jb_null(struct wd_jbuf *b)
{
	sep(b);
	wd_jb_raw(b, "null", 4);
}

void wd_jb_bool(struct wd_jbuf *b, bool v)
{
	sep(b);
	if (v)
		wd_jb_raw(b, "true", 4);
	else
		wd_jb_raw(b, "false", 5);
}

size_t wd_utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		lo = c == 0xe0 ? 0xa0 : 0x80;
		hi = c == 0xed ? 0x9f : 0xbf;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		lo = c == 0xf0 ? 0x90 : 0x80;
		hi = c == 0xf4 ? 0x8f : 0xbf;
	} else {
		return 0;
	}
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* Whether @n bytes at @p are well-formed UTF-8; ASCII, the common case, in a tight loop. */
static bool utf8_ok(const unsigned char *p, size_t n)
{
	size_t i = 0, len;

	while (i < n) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		len = wd_utf8_seq(p + i, n - i);
		if (!len)
			return false;
		i += len;
	}
	return true;
}

/* Each byte that starts no well-formed sequence as U+FFFD; the rest escaped when @escape. */
static void readable(struct wd_jbuf *b, const char *s, size_t n, bool escape)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, len;

	while (i < n) {
		len = wd_utf8_seq(p + i, n - i);
		if (!len) {
			wd_jb_raw(b, "\xef\xbf\xbd", 3);
			i++;
		} else {
			if (escape)
				put_escaped(b, s + i, len);
			else
				wd_jb_raw(b, s + i, len);
			i += len;
		}
	}
}

void wd_jb_readable_raw(struct wd_jbuf *b, const char *s, size_t n)
{
	readable(b, s, n, false);
}

bool wd_jb_ext_str(struct wd_jbuf *b, const char *s, size_t n)
{
	if (utf8_ok((const unsigned char *)s, n)) {
		wd_jb_str(b, s, n);
		return true;
	}
	sep(b);
	put_char(b, '"');
	readable(b, s, n, true);
	put_char(b, '"');
	return false;
}

void wd_jb_base64_raw(struct wd_jbuf *b, const char *s, size_t n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = (const unsigned char *)s;
	char q[4];

	for (size_t i = 0; i < n; i += 3) {
		unsigned int v = (unsigned int)p[i] << 16;

		if (i + 1 < n)
			v |= (unsigned int)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		q[0] = tab[(v >> 18) & 63];
		q[1] = tab[(v >> 12) & 63];
		q[2] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
		q[3] = i + 2 < n ? tab[v & 63] : '=';
		wd_jb_raw(b, q, 4);
	}
}

void wd_jb_base64(struct wd_jbuf *b, const char *s, size_t n)
{
	sep(b);
	put_char(b, '"');
	wd_jb_base64_raw(b, s, n);
	put_char(b, '"');
}

bool wd_utf8_valid(const char *s, size_t n)
{
	return utf8_ok((const unsigned char *)s, n);
}

void wd_jb_ext_field(struct wd_jbuf *b, const char *key, const char *s, size_t n)
{
	wd_jb_key(b, key);
	if (wd_jb_ext_str(b, s, n))
		return;
	sep(b);
	put_char(b, '"');
	wd_jb_raw(b, key, strlen(key));
	wd_jb_raw(b, "_b64\":", 6);
	b->comma = false;
	wd_jb_base64(b, s, n);
}
