/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Positions in JSON text, for error messages: cJSON keeps no node positions, so this walks the
 * text itself. Also the checks cJSON does not make on strings (valid UTF-8, no control
 * characters, no "\u0000" that would cut a C string short). Bounded and allocation-free: it runs
 * on whatever a policy file holds.
 */
#ifndef WD_JSON_LOCATE_H
#define WD_JSON_LOCATE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Byte offset in @text of the value at JSON pointer @pointer (RFC 6901), or of its member name
 * with @key; @nth picks among members of the same name in one object (0: the first). Returns 0
 * when found, 1 when only an ancestor was (its offset is given), -EINVAL when @text is not JSON.
 */
int wd_json_locate(const char *text, size_t len, const char *pointer, bool key, unsigned int nth,
		   size_t *off);

/* Line and column (1-based; the column counts characters, not bytes) of byte @off. */
void wd_json_line_col(const char *text, size_t len, size_t off, int *line, int *col);

/*
 * Check that @text is one JSON value as RFC 8259 has it (cJSON takes more: any control character
 * as white space, "+1", "01") and that every string, member names included, is one a policy may
 * hold. 0 when all is fine, else -EINVAL with a sentence in @why, the offset of the problem in
 * @off, and for a bad string its JSON pointer in @pointer ("" for a syntax error).
 */
int wd_json_check(const char *text, size_t len, char *pointer, size_t pointersz, size_t *off,
		  const char **why);

#endif
