// SPDX-License-Identifier: GPL-2.0
/*
 * Durations, sizes and rates in policies, their canonical text, and "did you mean"
 * (policy/units.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "policy/units.h"

/* Values stay below 2^62 so sums and products of checked terms cannot wrap. */
#define VALUE_MAX (UINT64_C(1) << 62)

static const struct unit {
	const char *name;
	uint64_t mult;
} duration_units[] = {
	{ "d", 86400000 }, { "h", 3600000 }, { "m", 60000 }, { "s", 1000 }, { "ms", 1 },
}, size_units[] = {
	{ "TiB", UINT64_C(1) << 40 }, { "TB", UINT64_C(1000000000000) },
	{ "GiB", UINT64_C(1) << 30 }, { "GB", 1000000000 },
	{ "MiB", UINT64_C(1) << 20 }, { "MB", 1000000 },
	{ "KiB", UINT64_C(1) << 10 }, { "KB", 1000 },
	{ "B", 1 },
}, rate_units[] = {
	{ "h", 3600000 }, { "m", 60000 }, { "s", 1000 },
};

#define N_DURATION (sizeof(duration_units) / sizeof(duration_units[0]))
#define N_SIZE (sizeof(size_units) / sizeof(size_units[0]))
#define N_RATE (sizeof(rate_units) / sizeof(rate_units[0]))

static const char *const size_unit_names[] = {
	"B", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", NULL,
};

/* Digits at *@s into @v (at most 18 of them); advances *@s. -EINVAL when there are none. */
static int take_digits(const char **s, uint64_t *v, unsigned int *ndigits)
{
	unsigned int n = 0;

	*v = 0;
	while (isdigit((unsigned char)**s)) {
		if (n == 18)
			return -ERANGE;
		*v = *v * 10 + (uint64_t)(**s - '0');
		(*s)++;
		n++;
	}
	if (ndigits)
		*ndigits = n;
	return n ? 0 : -EINVAL;
}

static const struct unit *find_unit(const struct unit *u, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(u[i].name) == len && memcmp(u[i].name, s, len) == 0)
			return &u[i];
	return NULL;
}

int wd_parse_duration(const char *s, uint64_t *ms, char *why, size_t whysz)
{
	const char *p = s;
	uint64_t total = 0;
	size_t last = 0; /* index of the previous unit + 1 */

	*ms = 0;
	if (!*p)
		goto bad;
	while (*p) {
		const struct unit *u;
		const char *us;
		uint64_t v;
		size_t idx;
		int r = take_digits(&p, &v, NULL);

		if (r == -ERANGE) {
			snprintf(why, whysz, "duration \"%s\" is too long", s);
			return -EINVAL;
		}
		if (r)
			goto bad;
		if (*p == '.') {
			snprintf(why, whysz,
				 "expected whole units, as in \"1h30m\" or \"1500ms\", got \"%s\"",
				 s);
			return -EINVAL;
		}
		us = p;
		while (isalpha((unsigned char)*p))
			p++;
		if (p == us && !*p && last == 0) {
			snprintf(why, whysz,
				 "\"%s\" has no unit: write \"%ss\" for seconds (units: d, "
				 "h, m, s, ms)",
				 s, s);
			return -EINVAL;
		}
		if (p == us)
			goto bad;
		u = find_unit(duration_units, N_DURATION, us, (size_t)(p - us));
		if (!u) {
			snprintf(why, whysz,
				 "unknown unit \"%.*s\" in \"%s\" (units: d, h, m, s, ms)",
				 (int)(p - us), us, s);
			return -EINVAL;
		}
		idx = (size_t)(u - duration_units);
		if (idx + 1 <= last) {
			snprintf(why, whysz, "units in \"%s\" must each appear once, largest first",
				 s);
			return -EINVAL;
		}
		last = idx + 1;
		if (v > VALUE_MAX / u->mult || total + v * u->mult > VALUE_MAX) {
			snprintf(why, whysz, "duration \"%s\" is too long", s);
			return -EINVAL;
		}
		total += v * u->mult;
	}
	*ms = total;
	return 0;
bad:
	snprintf(why, whysz, "expected a duration such as \"30s\", \"5m\" or \"1h30m\", got \"%s\"",
		 s);
	return -EINVAL;
}

int wd_parse_size(const char *s, uint64_t *bytes, char *why, size_t whysz)
{
	const char *p = s, *us;
	const struct unit *u;
	uint64_t whole, frac = 0, scale = 1;
	unsigned int nfrac = 0;
	int r;

	*bytes = 0;
	r = take_digits(&p, &whole, NULL);
	if (r == -ERANGE) {
		snprintf(why, whysz, "size \"%s\" is too large", s);
		return -EINVAL;
	}
	if (r)
		goto bad;
	if (*p == '.') {
		p++;
		r = take_digits(&p, &frac, &nfrac);
		if (r || nfrac > 9)
			goto bad;
		for (unsigned int i = 0; i < nfrac; i++)
			scale *= 10;
	}
	us = p;
	while (isalpha((unsigned char)*p))
		p++;
	if (*p)
		goto bad;
	if (p == us) {
		snprintf(why, whysz,
			 "\"%s\" has no unit: write \"%sMiB\", for one (units: B, KB, MB, "
			 "GB, TB, KiB, MiB, GiB, TiB)",
			 s, s);
		return -EINVAL;
	}
	u = find_unit(size_units, N_SIZE, us, (size_t)(p - us));
	if (!u && p - us == 1 && strchr("KkMmGgTt", *us)) {
		/* "256M": binary or decimal is for the policy to say */
		snprintf(why, whysz,
			 "unknown unit \"%s\" in \"%s\" (did you mean \"%ciB\"? or "
			 "\"%cB\" for powers of 1000)",
			 us, s, toupper((unsigned char)*us), toupper((unsigned char)*us));
		return -EINVAL;
	}
	if (!u) {
		const char *near = wd_suggest(us, size_unit_names);

		if (near)
			snprintf(why, whysz, "unknown unit \"%s\" in \"%s\" (did you mean \"%s\"?)",
				 us, s, near);
		else
			snprintf(why, whysz,
				 "unknown unit \"%s\" in \"%s\" (units: B, KB, MB, GB, TB, "
				 "KiB, MiB, GiB, TiB)",
				 us, s);
		return -EINVAL;
	}
	if (whole > VALUE_MAX / u->mult) {
		snprintf(why, whysz, "size \"%s\" is too large", s);
		return -EINVAL;
	}
	*bytes = whole * u->mult;
	if (nfrac) {
		/* frac / scale of a unit must be whole bytes; scale <= 1e9, mult <= 2^40 */
		unsigned __int128 f = (unsigned __int128)frac * u->mult;

		if (f % scale) {
			snprintf(why, whysz, "\"%s\" is not a whole number of bytes", s);
			*bytes = 0;
			return -EINVAL;
		}
		if ((uint64_t)(f / scale) > VALUE_MAX - *bytes) {
			snprintf(why, whysz, "size \"%s\" is too large", s);
			*bytes = 0;
			return -EINVAL;
		}
		*bytes += (uint64_t)(f / scale);
	}
	return 0;
bad:
	snprintf(why, whysz,
		 "expected a size such as \"512KiB\", \"256MiB\" or \"1.5GB\", got \"%s\"", s);
	return -EINVAL;
}

int wd_parse_rate(const char *s, bool size, uint64_t *count, uint64_t *per_ms, char *why,
		  size_t whysz)
{
	const char *slash = strrchr(s, '/');
	const struct unit *u;
	char num[64];
	int r;

	*count = 0;
	*per_ms = 0;
	if (!slash || (size_t)(slash - s) >= sizeof(num))
		goto bad;
	u = find_unit(rate_units, N_RATE, slash + 1, strlen(slash + 1));
	if (!u)
		goto bad;
	memcpy(num, s, (size_t)(slash - s));
	num[slash - s] = 0;
	if (size) {
		r = wd_parse_size(num, count, why, whysz);
		if (r)
			return r;
	} else {
		const char *p = num;

		r = take_digits(&p, count, NULL);
		if (r == -ERANGE || (!r && *count > VALUE_MAX)) {
			snprintf(why, whysz, "rate \"%s\" is too large", s);
			return -EINVAL;
		}
		if (r || *p)
			goto bad;
	}
	*per_ms = u->mult;
	return 0;
bad:
	*count = 0;
	if (size)
		snprintf(why, whysz, "expected a rate such as \"1MiB/s\", got \"%s\"", s);
	else
		snprintf(why, whysz,
			 "expected a rate such as \"50/s\", \"600/m\" or \"10/h\", got "
			 "\"%s\"",
			 s);
	return -EINVAL;
}

void wd_format_duration(uint64_t ms, char *buf, size_t bufsz)
{
	size_t o = 0;

	buf[0] = 0;
	if (ms == 0) {
		snprintf(buf, bufsz, "0s");
		return;
	}
	/* Only seconds and larger units unless milliseconds remain. */
	if (ms % 1000) {
		snprintf(buf, bufsz, "%llums", (unsigned long long)ms);
		return;
	}
	for (size_t i = 0; i + 1 < N_DURATION && o < bufsz; i++) {
		uint64_t n = ms / duration_units[i].mult;

		if (!n)
			continue;
		ms -= n * duration_units[i].mult;
		o += (size_t)snprintf(buf + o, bufsz - o, "%llu%s", (unsigned long long)n,
				      duration_units[i].name);
	}
}

void wd_format_size(uint64_t bytes, char *buf, size_t bufsz)
{
	/* The largest unit that divides exactly, binary before decimal at the same size. */
	for (size_t i = 0; i < N_SIZE; i++) {
		if (bytes && bytes % size_units[i].mult == 0) {
			snprintf(buf, bufsz, "%llu%s",
				 (unsigned long long)(bytes / size_units[i].mult),
				 size_units[i].name);
			return;
		}
	}
	snprintf(buf, bufsz, "%lluB", (unsigned long long)bytes);
}

void wd_format_rate(uint64_t count, uint64_t per_ms, bool size, char *buf, size_t bufsz)
{
	const char *unit = "s";
	char num[48];

	for (size_t i = 0; i < N_RATE; i++)
		if (rate_units[i].mult == per_ms)
			unit = rate_units[i].name;
	if (size)
		wd_format_size(count, num, sizeof(num));
	else
		snprintf(num, sizeof(num), "%llu", (unsigned long long)count);
	snprintf(buf, bufsz, "%s/%s", num, unit);
}

/* Optimal string alignment distance, case folded, for words of up to 63 bytes. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t d[64][64];

	if (la > 63 || lb > 63)
		return (size_t)-1;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = tolower((unsigned char)a[i - 1]) !=
				      tolower((unsigned char)b[j - 1]);
			size_t best = d[i - 1][j] + 1;

			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < best)
				best = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 &&
			    tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == tolower((unsigned char)b[j - 1]) &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[la][lb];
}

const char *wd_suggest(const char *word, const char *const *cands)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1;
	size_t len = strlen(word);
	/* One edit for short words, two for longer ones; never a rewrite of most of the word. */
	size_t limit = len <= 4 ? 1 : 2;

	for (size_t i = 0; cands[i]; i++) {
		size_t d = distance(word, cands[i]);

		if (d < best_d) {
			best_d = d;
			best = cands[i];
		}
	}
	if (!best || best_d > limit || best_d >= strlen(best))
		return NULL;
	return best;
}
