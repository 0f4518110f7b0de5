// SPDX-License-Identifier: GPL-2.0
/*
 * Positions and string checks in JSON text (policy/json_locate.h), by a bounded scan of the
 * text itself.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/json_locate.h"

/* Deeper than cJSON's own nesting limit (1000), so anything cJSON parsed can be walked. */
#define MAX_DEPTH 1100
#define NAME_MAX_BYTES 512

struct scan {
	const char *t;
	size_t len;
	size_t pos;
};

static void skip_ws(struct scan *s)
{
	while (s->pos < s->len && strchr(" \t\r\n", s->t[s->pos]) && s->t[s->pos])
		s->pos++;
}

static int peek(const struct scan *s)
{
	return s->pos < s->len ? (unsigned char)s->t[s->pos] : -1;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int read_hex4(struct scan *s, unsigned int *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval(peek(s));

		if (h < 0)
			return -EINVAL;
		*v = *v << 4 | (unsigned int)h;
		s->pos++;
	}
	return 0;
}

/* Length of the UTF-8 sequence at @p (at most @n bytes), 0 when it is not valid UTF-8. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	uint32_t cp;
	size_t need;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		need = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		need = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		need = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (n < need)
		return 0;
	for (size_t i = 1; i < need; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((need == 3 && cp < 0x800) || (need == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return need;
}

static void put_utf8(char *out, size_t outsz, size_t *o, uint32_t cp)
{
	unsigned char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (unsigned char)(0xc0 | cp >> 6);
		b[1] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (unsigned char)(0xe0 | cp >> 12);
		b[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (unsigned char)(0xf0 | cp >> 18);
		b[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		b[3] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	for (size_t i = 0; i < n; i++, (*o)++)
		if (out && *o + 1 < outsz)
			out[*o] = (char)b[i];
}

/*
 * The escape after a backslash, at s->pos, as a code point (a surrogate pair joined). @why as for
 * scan_string. -EINVAL when it is no escape JSON has.
 */
static int scan_escape(struct scan *s, uint32_t *out, const char **why)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *q;
	unsigned int cp, lo;
	int c = peek(s);

	s->pos++;
	q = c > 0 ? strchr(from, c) : NULL;
	if (q) {
		*out = (unsigned char)to[q - from];
		return 0;
	}
	if (c != 'u' || read_hex4(s, &cp))
		return -EINVAL;
	if (cp >= 0xd800 && cp <= 0xdbff && peek(s) == '\\' && s->pos + 1 < s->len &&
	    s->t[s->pos + 1] == 'u') {
		size_t save = s->pos;

		s->pos += 2;
		if (read_hex4(s, &lo))
			return -EINVAL;
		if (lo >= 0xdc00 && lo <= 0xdfff)
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		else
			s->pos = save;
	}
	if (cp == 0 && why && !*why)
		*why = "a string must not contain \"\\u0000\"";
	if (cp >= 0xd800 && cp <= 0xdfff && why && !*why)
		*why = "a string must not contain a lone UTF-16 surrogate";
	*out = cp;
	return 0;
}

/*
 * The string at s->pos (its opening quote), decoded into @out (NUL-terminated, cut at @outsz;
 * *@outlen is the full decoded length). @why (may be NULL) gets the first problem a policy must
 * not have: invalid UTF-8, a raw control character, or an escaped NUL. -EINVAL when it is not a
 * JSON string at all.
 */
static int scan_string(struct scan *s, char *out, size_t outsz, size_t *outlen, const char **why)
{
	size_t o = 0;

	if (why)
		*why = NULL;
	if (peek(s) != '"')
		return -EINVAL;
	s->pos++;
	for (;;) {
		int c = peek(s);

		if (c < 0)
			return -EINVAL;
		if (c == '"') {
			s->pos++;
			break;
		}
		if (c == '\\') {
			uint32_t cp;

			s->pos++;
			if (scan_escape(s, &cp, why))
				return -EINVAL;
			put_utf8(out, outsz, &o, cp);
			continue;
		}
		if (c < 0x20) {
			if (why && !*why)
				*why = "a control character in a string must be escaped";
			put_utf8(out, outsz, &o, (uint32_t)c);
			s->pos++;
			continue;
		}
		if (c >= 0x80) {
			size_t n = utf8_len((const unsigned char *)s->t + s->pos, s->len - s->pos);

			if (!n) {
				if (why && !*why)
					*why = "a string must be valid UTF-8";
				n = 1;
			}
			for (size_t i = 0; i < n; i++, o++)
				if (out && o + 1 < outsz)
					out[o] = s->t[s->pos + i];
			s->pos += n;
			continue;
		}
		if (out && o + 1 < outsz)
			out[o] = (char)c;
		o++;
		s->pos++;
	}
	if (out && outsz)
		out[o < outsz ? o : outsz - 1] = 0;
	if (outlen)
		*outlen = o;
	return 0;
}

static int skip_value(struct scan *s, int depth);

/* The ':' after a member's name, with the white space around it. */
static int scan_colon(struct scan *s)
{
	skip_ws(s);
	if (peek(s) != ':')
		return -EINVAL;
	s->pos++;
	skip_ws(s);
	return 0;
}

/* After an item of a container: 1 past a ',' (another follows), 0 past @close, else -EINVAL. */
static int scan_next(struct scan *s, int close)
{
	int c;

	skip_ws(s);
	c = peek(s);
	if (c != ',' && c != close)
		return -EINVAL;
	s->pos++;
	return c == ',';
}

static bool skip_digits(struct scan *s)
{
	size_t start = s->pos;

	while (peek(s) >= '0' && peek(s) <= '9')
		s->pos++;
	return s->pos > start;
}

static int skip_container(struct scan *s, int depth, bool object)
{
	int close = object ? '}' : ']', r;

	if (depth > MAX_DEPTH)
		return -EINVAL;
	s->pos++;
	skip_ws(s);
	if (peek(s) == close) {
		s->pos++;
		return 0;
	}
	for (;;) {
		skip_ws(s);
		if (object) {
			if (scan_string(s, NULL, 0, NULL, NULL) || scan_colon(s))
				return -EINVAL;
		}
		if (skip_value(s, depth + 1))
			return -EINVAL;
		r = scan_next(s, close);
		if (r <= 0)
			return r;
	}
}

static int skip_value(struct scan *s, int depth)
{
	int c = peek(s);

	if (c == '{' || c == '[')
		return skip_container(s, depth, c == '{');
	if (c == '"')
		return scan_string(s, NULL, 0, NULL, NULL);
	if (c < 0)
		return -EINVAL;
	/* Numbers as RFC 8259 has them: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
	if (c == '-' || (c >= '0' && c <= '9')) {
		if (c == '-')
			s->pos++;
		if (peek(s) == '0')
			s->pos++;
		else if (!skip_digits(s))
			return -EINVAL;
		if (peek(s) == '.') {
			s->pos++;
			if (!skip_digits(s))
				return -EINVAL;
		}
		if (peek(s) == 'e' || peek(s) == 'E') {
			s->pos++;
			if (peek(s) == '+' || peek(s) == '-')
				s->pos++;
			if (!skip_digits(s))
				return -EINVAL;
		}
		return 0;
	}
	for (const char *lit = "true\0false\0null\0"; *lit; lit += strlen(lit) + 1) {
		size_t n = strlen(lit);

		if (s->len - s->pos >= n && memcmp(s->t + s->pos, lit, n) == 0) {
			s->pos += n;
			return 0;
		}
	}
	return -EINVAL;
}

/* The next reference token of @p into @seg (unescaped: "~1" is "/", "~0" is "~"); advances. */
static void next_token(const char **p, char *seg, size_t segsz, size_t *seglen)
{
	size_t o = 0;

	(*p)++; /* the "/" */
	while (**p && **p != '/') {
		char c = **p;

		if (c == '~' && ((*p)[1] == '0' || (*p)[1] == '1')) {
			c = (*p)[1] == '0' ? '~' : '/';
			(*p)++;
		}
		if (o + 1 < segsz)
			seg[o] = c;
		o++;
		(*p)++;
	}
	seg[o < segsz ? o : segsz - 1] = 0;
	*seglen = o;
}

int wd_json_locate(const char *text, size_t len, const char *pointer, bool key, unsigned int nth,
		   size_t *off)
{
	struct scan s = { .t = text, .len = len };
	char seg[NAME_MAX_BYTES], name[NAME_MAX_BYTES];
	const char *p = pointer;

	skip_ws(&s);
	*off = s.pos;
	if (peek(&s) < 0)
		return -EINVAL;
	while (*p == '/') {
		size_t seglen, namelen, here = s.pos;
		bool last, found = false;
		int c = peek(&s);

		next_token(&p, seg, sizeof(seg), &seglen);
		last = *p == 0;
		if (c == '{') {
			unsigned int seen = 0;

			s.pos++;
			skip_ws(&s);
			while (peek(&s) == '"') {
				size_t kpos = s.pos;

				if (scan_string(&s, name, sizeof(name), &namelen, NULL))
					return -EINVAL;
				skip_ws(&s);
				if (peek(&s) != ':')
					return -EINVAL;
				s.pos++;
				skip_ws(&s);
				if (namelen == seglen && seglen < sizeof(seg) &&
				    memcmp(name, seg, seglen) == 0 && (!last || seen++ == nth)) {
					found = true;
					if (last && key)
						s.pos = kpos;
					break;
				}
				if (skip_value(&s, 1))
					return -EINVAL;
				skip_ws(&s);
				if (peek(&s) == ',')
					s.pos++;
				skip_ws(&s);
			}
		} else if (c == '[') {
			char *end = NULL;
			unsigned long idx = strtoul(seg, &end, 10);

			s.pos++;
			skip_ws(&s);
			if (seglen && end && !*end && peek(&s) != ']') {
				for (unsigned long i = 0;; i++) {
					skip_ws(&s);
					if (i == idx) {
						found = true;
						break;
					}
					if (skip_value(&s, 1))
						return -EINVAL;
					skip_ws(&s);
					if (peek(&s) != ',')
						break;
					s.pos++;
				}
			}
		}
		if (!found) {
			*off = here;
			return 1;
		}
		*off = s.pos;
	}
	return 0;
}

void wd_json_line_col(const char *text, size_t len, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && i < len; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else if (((unsigned char)text[i] & 0xc0) != 0x80) {
			(*col)++;
		}
	}
}

struct check {
	struct scan s;
	char *ptr;
	size_t ptrsz;
	size_t *off;
	const char **why;
};

/* Append "/" + @name (escaped as RFC 6901 asks; what is not printable UTF-8 as "?") at @at. */
static size_t ptr_append(struct check *c, size_t at, const char *name, size_t n)
{
	size_t o = at;

	if (o + 1 < c->ptrsz)
		c->ptr[o] = '/';
	o++;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)name[i];

		if (ch == '~' || ch == '/') {
			if (o + 2 < c->ptrsz) {
				c->ptr[o] = '~';
				c->ptr[o + 1] = ch == '~' ? '0' : '1';
			}
			o += 2;
		} else if (ch >= 0x80) {
			size_t k = utf8_len((const unsigned char *)name + i, n - i);

			/* an invalid sequence shows as "?", so messages stay UTF-8 */
			for (size_t j = 0; j < (k ? k : 1); j++, o++)
				if (o + 1 < c->ptrsz)
					c->ptr[o] = k ? name[i + j] : '?';
			if (k)
				i += k - 1;
		} else {
			if (o + 1 < c->ptrsz)
				c->ptr[o] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
			o++;
		}
	}
	if (c->ptrsz)
		c->ptr[o < c->ptrsz ? o : c->ptrsz - 1] = 0;
	return o;
}

/* 0: fine; 1: a bad string found (reported); -EINVAL: not JSON. */
static int check_value(struct check *c, size_t plen, int depth)
{
	struct scan *s = &c->s;
	int ch = peek(s);

	if (depth > MAX_DEPTH)
		return -EINVAL;
	if (plen < c->ptrsz)
		c->ptr[plen] = 0;
	if (ch == '"') {
		size_t at = s->pos;

		if (scan_string(s, NULL, 0, NULL, c->why))
			return -EINVAL;
		if (*c->why) {
			*c->off = at;
			return 1;
		}
		return 0;
	}
	if (ch == '{' || ch == '[') {
		bool object = ch == '{';
		int close = object ? '}' : ']';
		size_t idx = 0;

		s->pos++;
		skip_ws(s);
		if (peek(s) == close) {
			s->pos++;
			return 0;
		}
		for (;; idx++) {
			size_t cl;
			int r;

			skip_ws(s);
			if (object) {
				char name[NAME_MAX_BYTES];
				size_t at = s->pos, n;

				if (scan_string(s, name, sizeof(name), &n, c->why))
					return -EINVAL;
				cl = ptr_append(c, plen, name,
						n < sizeof(name) ? n : sizeof(name) - 1);
				if (*c->why) {
					*c->off = at;
					return 1;
				}
				if (scan_colon(s))
					return -EINVAL;
			} else {
				char num[24];

				snprintf(num, sizeof(num), "%zu", idx);
				cl = ptr_append(c, plen, num, strlen(num));
			}
			r = check_value(c, cl, depth + 1);
			if (r)
				return r;
			r = scan_next(s, close);
			if (r < 0)
				return r;
			if (r == 0) {
				if (plen < c->ptrsz)
					c->ptr[plen] = 0;
				return 0;
			}
		}
	}
	return skip_value(s, depth);
}

int wd_json_check(const char *text, size_t len, char *pointer, size_t pointersz, size_t *off,
		  const char **why)
{
	struct check c = {
		.s = { .t = text, .len = len },
		.ptr = pointer,
		.ptrsz = pointersz,
		.off = off,
		.why = why,
	};
	int r;

	*why = NULL;
	*off = 0;
	if (pointersz)
		pointer[0] = 0;
	skip_ws(&c.s);
	r = check_value(&c, 0, 0);
	if (r == 1)
		return -EINVAL;
	skip_ws(&c.s);
	if (r < 0 || c.s.pos < len) {
		*why = "not valid JSON";
		*off = c.s.pos;
		if (pointersz)
			pointer[0] = 0;
		return -EINVAL;
	}
	return 0;
}
