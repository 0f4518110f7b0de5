// SPDX-License-Identifier: GPL-2.0
/*
 * What a value of a policy may be: paths (absolute or under a variable, normalised), whole
 * numbers in a range, strings, user and group names, variable names, argument patterns whose
 * brackets close. Each check records its error and says no.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/wd_abi.h"
#include "policy/parse_internal.h"
#include "policy/policy.h"
#include "policy/units.h"

static const char *const var_names[] = { "WORKDIR", "HOME", "TMPDIR", NULL };
/* ---- values ---------------------------------------------------------------------------------- */

int wd_path_normalise(const char *in, char *out, size_t outsz, const char **why)
{
	size_t o = 0;
	const char *p = in;

	if (!in || in[0] != '/') {
		*why = "expected an absolute path (starting with \"/\")";
		return -EINVAL;
	}
	while (*p) {
		const char *seg;
		size_t n;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		seg = p;
		while (*p && *p != '/')
			p++;
		n = (size_t)(p - seg);
		if ((n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.')) {
			*why = "a path must not contain \".\" or \"..\" components";
			return -EINVAL;
		}
		if (o + 1 + n + 1 > outsz) {
			*why = "path is too long";
			return -EINVAL;
		}
		out[o++] = '/';
		memcpy(out + o, seg, n);
		o += n;
	}
	if (o == 0) {
		if (outsz < 2) {
			*why = "path is too long";
			return -EINVAL;
		}
		out[o++] = '/';
	}
	out[o] = 0;
	return 0;
}

/*
 * A path of the policy: absolute ("/usr") or under a variable ("$WORKDIR/src"); normalised.
 * Returns it allocated, or NULL (with an error recorded).
 */
char *wdp_check_path(struct pctx *c, const cJSON *v, const char *ptr)
{
	char norm[VAR_PATH_MAX], var[16] = "";
	const char *s, *rest, *why = NULL;
	char *out;

	if (!cJSON_IsString(v)) {
		perr(c, ptr, "expected an absolute path string, got %s", wdp_json_type(v));
		return NULL;
	}
	s = v->valuestring;
	if (!*s) {
		perr(c, ptr, "expected an absolute path, got an empty string");
		return NULL;
	}
	for (const char *q = s; *q; q++) {
		if ((unsigned char)*q < 0x20 || *q == 0x7f) {
			perr(c, ptr, "a path must not contain control characters");
			return NULL;
		}
	}
	if (s[0] == '~') {
		perr(c, ptr, "\"~\" is not expanded: write \"$HOME%s\"", s + 1);
		return NULL;
	}
	rest = s;
	if (s[0] == '$') {
		size_t n = 1;
		const char *near;

		while (s[n] && s[n] != '/')
			n++;
		if (n - 1 >= sizeof(var))
			n = sizeof(var);
		memcpy(var, s + 1, n - 1);
		var[n - 1] = 0;
		for (int i = 0; var_names[i]; i++)
			if (strcmp(var, var_names[i]) == 0)
				rest = s + n;
		if (rest == s) {
			near = wd_suggest(var, var_names);
			if (near)
				perr(c, ptr, "unknown variable \"$%s\" (did you mean \"$%s\"?)",
				     var, near);
			else
				perr(c, ptr,
				     "unknown variable \"$%s\" (known: $WORKDIR, $HOME, "
				     "$TMPDIR)",
				     var);
			return NULL;
		}
	} else if (s[0] != '/') {
		perr(c, ptr,
		     "expected an absolute path (starting with \"/\"), got \"%s\" (for a "
		     "path in the working directory, write \"$WORKDIR/%s\")",
		     s, s);
		return NULL;
	}
	if (strchr(rest, '$')) {
		perr(c, ptr, "a \"$\" may only start a path, as in \"$WORKDIR/src\", got \"%s\"",
		     s);
		return NULL;
	}
	if (strchr(rest, '*')) {
		perr(c, ptr,
		     "a path is a prefix, not a pattern: it covers everything under it, so "
		     "drop the \"*\" from \"%s\"",
		     s);
		return NULL;
	}
	if (wd_path_normalise(*rest ? rest : "/", norm, sizeof(norm), &why)) {
		if (strcmp(why, "path is too long") == 0)
			perr(c, ptr, "path \"%.64s...\" is longer than %d bytes", s,
			     var[0] ? VAR_PATH_MAX - 1 : WD_LPM_PATH_BYTES - 2);
		else
			perr(c, ptr, "%s, got \"%s\"", why, s);
		return NULL;
	}
	if (!var[0] && strlen(norm) > WD_LPM_PATH_BYTES - 2) {
		perr(c, ptr, "path \"%.64s...\" is longer than %d bytes", s, WD_LPM_PATH_BYTES - 2);
		return NULL;
	}
	if (var[0]) {
		size_t n = strlen(var) + 2 + strlen(norm);

		out = malloc(n);
		if (out)
			snprintf(out, n, "$%s%s", var, strcmp(norm, "/") ? norm : "");
	} else {
		out = strdup(norm);
	}
	if (!out)
		oom(c);
	return out;
}

/* A whole JSON number in [@min, @max]. */
bool wdp_check_uint(struct pctx *c, const cJSON *v, const char *ptr, double min, double max,
		       const char *what, uint64_t *out)
{
	if (!cJSON_IsNumber(v)) {
		perr(c, ptr, "expected %s (a whole number), got %s", what, wdp_json_type(v));
		return false;
	}
	if (!isfinite(v->valuedouble) || v->valuedouble != floor(v->valuedouble) ||
	    v->valuedouble < min || v->valuedouble > max) {
		perr(c, ptr, "expected %s: a whole number from %.0f to %.0f, got %g", what, min,
		     max, v->valuedouble);
		return false;
	}
	*out = (uint64_t)v->valuedouble;
	return true;
}

bool wdp_check_string(struct pctx *c, const cJSON *v, const char *ptr, const char *what)
{
	if (cJSON_IsString(v))
		return true;
	perr(c, ptr, "expected %s, got %s", what, wdp_json_type(v));
	return false;
}

bool wdp_check_duration(struct pctx *c, const cJSON *v, const char *ptr, const char *what,
			uint64_t *ms)
{
	char why[300];

	if (!wdp_check_string(c, v, ptr, what))
		return false;
	if (wd_parse_duration(v->valuestring, ms, why, sizeof(why))) {
		perr(c, ptr, "%s", why);
		return false;
	}
	return true;
}

/* A user or group name ("www-data") or a decimal id. */
bool wdp_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > NAME_MAX_LEN || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.' ||
		      (ch == '$' && i == n - 1)))
			return false;
	}
	if (strspn(s, "0123456789") == n)
		return n <= 10 && strtoull(s, NULL, 10) <= 4294967294ull;
	return true;
}

/* An environment variable name; with @pattern, "*" may stand for any run of characters. */
bool wdp_env_name_ok(const char *s, bool pattern)
{
	if (!*s || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || (pattern && *s == '*')))
			return false;
	return true;
}
/* Brackets in a pattern must close, so fnmatch() never reads them as literal by accident. */
bool wdp_pattern_ok(const char *s)
{
	for (; *s; s++) {
		if (*s == '\\') {
			if (!s[1])
				return false;
			s++;
		} else if (*s == '[') {
			const char *q = s + 1;

			if (*q == '!' || *q == '^')
				q++;
			if (*q == ']')
				q++;
			while (*q && *q != ']')
				q++;
			if (!*q)
				return false;
			s = q;
		}
	}
	return true;
}
