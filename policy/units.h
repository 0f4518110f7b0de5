/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Human units in policies: durations ("30s", "1h30m"), sizes ("256MiB", "1.5GB"), rates ("50/s",
 * "1MiB/s"), their canonical text, and the "did you mean" that friendly errors offer. Pure C.
 */
#ifndef WD_UNITS_H
#define WD_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * "500ms", "30s", "5m", "1h30m", "2d": whole numbers, each unit (d, h, m, s, ms) at most once and
 * largest first. 0 or -EINVAL with a sentence in @why.
 */
int wd_parse_duration(const char *s, uint64_t *ms, char *why, size_t whysz);
/* "512B", "64KiB", "256MiB", "1.5GiB", "10MB": the unit is required; the result whole bytes. */
int wd_parse_size(const char *s, uint64_t *bytes, char *why, size_t whysz);
/* "50/s", "600/m", "10/h"; with @size the count is a size ("1MiB/s"). */
int wd_parse_rate(const char *s, bool size, uint64_t *count, uint64_t *per_ms, char *why,
		  size_t whysz);

/* Canonical text, which the parsers read back to the same value. */
void wd_format_duration(uint64_t ms, char *buf, size_t bufsz);
void wd_format_size(uint64_t bytes, char *buf, size_t bufsz);
void wd_format_rate(uint64_t count, uint64_t per_ms, bool size, char *buf, size_t bufsz);

/*
 * The candidate of NULL-terminated @cands closest to @word (case aside, at most two edits, fewer
 * for short words), or NULL when none is close enough.
 */
const char *wd_suggest(const char *word, const char *const *cands);

#endif
