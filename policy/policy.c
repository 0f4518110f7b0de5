// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>

#include <cJSON.h>

#include "bpf/wd_abi.h"
#include "policy/json_locate.h"
#include "policy/net.h"
#include "policy/policy.h"
#include "policy/argv.h"
#include "policy/grow.h"
#include "policy/templates.h"
#include "policy/units.h"

#define PTR_MAX 512
#define MAX_EXTENDS 8
/* Longest path a variable may expand into, and longest user or group name. */
#define VAR_PATH_MAX 4096
#define NAME_MAX_LEN 32

/* Parse state of one document. */
struct pctx {
	const char *text;
	size_t len;
	struct wd_policy *p;
	struct wd_policy_errors *errs;
	bool nomem;
	/* The protect or exec entry whose members are being parsed. */
	struct wd_protect *protect;
	struct wd_exec_rule *exec;
};

struct key {
	const char *name;
	void (*parse)(struct pctx *c, const cJSON *v, const char *ptr, const char *name);
	const struct key *sub; /* keys of the object (or, with items, of each array item) */
	bool items;
};

static const char *const var_names[] = { "WORKDIR", "HOME", "TMPDIR", NULL };

static const struct {
	const char *name;
	enum { U_DURATION, U_SIZE, U_COUNT, U_RATE } unit;
	uint64_t min;
	uint64_t max;
} limit_defs[WD_LIMIT_NR] = {
	[WD_LIMIT_WALL_TIME] = { "wall_time", U_DURATION, 1, UINT64_MAX },
	[WD_LIMIT_CPU_TIME] = { "cpu_time", U_DURATION, 1, UINT64_MAX },
	[WD_LIMIT_MEMORY] = { "memory", U_SIZE, 1 << 20, UINT64_MAX },
	[WD_LIMIT_PIDS] = { "pids", U_COUNT, 1, 4194304 },
	[WD_LIMIT_FORK_RATE] = { "fork_rate", U_RATE, 1, UINT64_MAX },
	[WD_LIMIT_OUTPUT] = { "output", U_SIZE, 0, UINT64_MAX },
};

static const char *const ns_names[WD_NS_NR] = { "mount", "pid", "ipc", "uts", "net", "tmp" };
static const char *const ns_mode_names[] = { "host", "private", "none", "veth" };

const char *wd_limit_name(enum wd_limit_kind k)
{
	return (unsigned int)k < WD_LIMIT_NR ? limit_defs[k].name : NULL;
}

const char *wd_ns_name(enum wd_ns_kind k)
{
	return (unsigned int)k < WD_NS_NR ? ns_names[k] : NULL;
}

const char *wd_ns_mode_name(enum wd_ns_mode m)
{
	return (unsigned int)m <= WD_NS_VETH ? ns_mode_names[m] : NULL;
}

/* ---- errors ---------------------------------------------------------------------------------- */

int wd_policy_errors_add(struct wd_policy_errors *errs, const struct wd_policy_error *e)
{
	if (errs->n >= WD_POLICY_MAX_ERRORS) {
		errs->dropped++;
		return 0;
	}
	if (errs->n == errs->cap) {
		size_t cap = errs->cap ? errs->cap * 2 : 8;
		struct wd_policy_error *v = realloc(errs->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		errs->v = v;
		errs->cap = cap;
	}
	errs->v[errs->n++] = *e;
	return 0;
}

void wd_policy_errors_free(struct wd_policy_errors *errs)
{
	free(errs->v);
	memset(errs, 0, sizeof(*errs));
}

static void perr_at(struct pctx *c, const char *ptr, bool key, unsigned int nth, const char *fmt,
		    ...) __attribute__((format(printf, 5, 6)));

static void perr_at(struct pctx *c, const char *ptr, bool key, unsigned int nth, const char *fmt,
		    ...)
{
	struct wd_policy_error e;
	va_list ap;
	size_t off;

	if (c->errs->n >= WD_POLICY_MAX_ERRORS) {
		c->errs->dropped++;
		return;
	}
	memset(&e, 0, sizeof(e));
	snprintf(e.pointer, sizeof(e.pointer), "%s", ptr);
	va_start(ap, fmt);
	vsnprintf(e.msg, sizeof(e.msg), fmt, ap);
	va_end(ap);
	if (c->text && wd_json_locate(c->text, c->len, ptr, key, nth, &off) >= 0)
		wd_json_line_col(c->text, c->len, off, &e.line, &e.col);
	if (wd_policy_errors_add(c->errs, &e))
		c->nomem = true;
}

#define perr(c, ptr, ...) perr_at(c, ptr, false, 0, __VA_ARGS__)

static void oom(struct pctx *c)
{
	c->nomem = true;
}

/* @base + "/" + @key as a JSON pointer: "~" becomes "~0" and "/" becomes "~1" (RFC 6901). */
static void pointer_join(char *buf, size_t bufsz, const char *base, const char *key)
{
	size_t o = (size_t)snprintf(buf, bufsz, "%s/", base);

	if (o >= bufsz) {
		buf[bufsz - 1] = 0;
		return;
	}
	for (; *key && o + 3 < bufsz; key++) {
		if (*key == '~' || *key == '/') {
			buf[o++] = '~';
			buf[o++] = *key == '~' ? '0' : '1';
		} else {
			buf[o++] = *key;
		}
	}
	buf[o] = 0;
}

static void pointer_index(char *buf, size_t bufsz, const char *base, size_t i)
{
	snprintf(buf, bufsz, "%.*s/%zu", (int)(bufsz - 24), base, i);
}

static const char *json_type_name(const cJSON *v)
{
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsNumber(v))
		return "a number";
	if (cJSON_IsBool(v))
		return "a boolean";
	if (cJSON_IsNull(v))
		return "null";
	if (cJSON_IsArray(v))
		return "an array";
	if (cJSON_IsObject(v))
		return "an object";
	return "something else";
}

/* A list of names for messages: "\"a\", \"b\" or \"c\"". */
static void name_list(char *buf, size_t bufsz, const char *const *names)
{
	size_t o = 0, n = 0;

	while (names[n])
		n++;
	buf[0] = 0;
	for (size_t i = 0; i < n && o < bufsz; i++)
		o += (size_t)snprintf(buf + o, bufsz - o, "%s\"%s\"",
				      i == 0	   ? ""
				      : i + 1 == n ? " or "
						   : ", ",
				      names[i]);
}

/*
 * The value of @v among NULL-terminated @names: its index, or -1 with an error that says what
 * was expected and, when one is close, what was probably meant.
 */
static int pick(struct pctx *c, const cJSON *v, const char *ptr, const char *const *names)
{
	char list[256];
	const char *near;

	name_list(list, sizeof(list), names);
	if (!cJSON_IsString(v)) {
		perr(c, ptr, "expected %s, got %s", list, json_type_name(v));
		return -1;
	}
	for (int i = 0; names[i]; i++)
		if (strcmp(v->valuestring, names[i]) == 0)
			return i;
	near = wd_suggest(v->valuestring, names);
	if (near)
		perr(c, ptr, "expected %s, got \"%s\" (did you mean \"%s\"?)", list, v->valuestring,
		     near);
	else
		perr(c, ptr, "expected %s, got \"%s\"", list, v->valuestring);
	return -1;
}

/* ---- lists ----------------------------------------------------------------------------------- */

/* Append @s (taken over, freed on failure) to @l. */
static int list_take(struct wd_path_list *l, char *s, int origin)
{
	if (wd_grow((void **)&l->paths, l->n, sizeof(*l->paths)) ||
	    wd_grow((void **)&l->origin, l->n, sizeof(*l->origin))) {
		free(s);
		return -ENOMEM;
	}
	l->paths[l->n] = s;
	l->origin[l->n] = origin;
	l->n++;
	return 0;
}

int wd_path_list_add(struct wd_path_list *l, const char *s, int origin)
{
	char *d = strdup(s);

	return d ? list_take(l, d, origin) : -ENOMEM;
}

bool wd_path_list_has(const struct wd_path_list *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->paths[i], s) == 0)
			return true;
	return false;
}

int wd_exec_list_add(struct wd_exec_list *l, const struct wd_exec_rule *r)
{
	struct wd_exec_rule d = { .has_argv = r->has_argv, .argc = r->argc, .origin = r->origin };

	d.path = strdup(r->path);
	if (!d.path)
		goto out_nomem;
	if (r->has_argv) {
		d.argv = calloc(r->argc + 1, sizeof(char *));
		if (!d.argv)
			goto out_nomem;
		for (size_t i = 0; i < r->argc; i++) {
			d.argv[i] = strdup(r->argv[i]);
			if (!d.argv[i])
				goto out_nomem;
		}
	}
	if (wd_grow((void **)&l->v, l->n, sizeof(*l->v)))
		goto out_nomem;
	l->v[l->n++] = d;
	return 0;
out_nomem:
	wd_exec_rule_free(&d);
	return -ENOMEM;
}

int wd_net_list_add(struct wd_net_list *l, const struct wd_net_rule *r)
{
	struct wd_net_rule d = *r;

	d.name = NULL;
	if (r->name) {
		d.name = strdup(r->name);
		if (!d.name)
			return -ENOMEM;
	}
	if (wd_grow((void **)&l->v, l->n, sizeof(*l->v))) {
		free(d.name);
		return -ENOMEM;
	}
	l->v[l->n++] = d;
	return 0;
}

int wd_protect_add(struct wd_policy *p, const struct wd_protect *pr)
{
	struct wd_protect d = *pr;

	d.path = strdup(pr->path);
	if (!d.path)
		return -ENOMEM;
	if (wd_grow((void **)&p->fs_protect, p->n_fs_protect, sizeof(*p->fs_protect))) {
		free(d.path);
		return -ENOMEM;
	}
	p->fs_protect[p->n_fs_protect++] = d;
	return 0;
}

int wd_env_set_put(struct wd_policy *p, const char *name, const char *value, int origin)
{
	char *v = strdup(value), *n = NULL;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_env_set; i++) {
		if (strcmp(p->env_set[i].name, name) == 0) {
			free(p->env_set[i].value);
			p->env_set[i].value = v;
			p->env_set[i].origin = origin;
			return 0;
		}
	}
	n = strdup(name);
	if (!n || wd_grow((void **)&p->env_set, p->n_env_set, sizeof(*p->env_set))) {
		free(n);
		free(v);
		return -ENOMEM;
	}
	p->env_set[p->n_env_set].name = n;
	p->env_set[p->n_env_set].value = v;
	p->env_set[p->n_env_set].origin = origin;
	p->n_env_set++;
	return 0;
}

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
static char *check_path(struct pctx *c, const cJSON *v, const char *ptr)
{
	char norm[VAR_PATH_MAX], var[16] = "";
	const char *s, *rest, *why = NULL;
	char *out;

	if (!cJSON_IsString(v)) {
		perr(c, ptr, "expected an absolute path string, got %s", json_type_name(v));
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
static bool check_uint(struct pctx *c, const cJSON *v, const char *ptr, double min, double max,
		       const char *what, uint64_t *out)
{
	if (!cJSON_IsNumber(v)) {
		perr(c, ptr, "expected %s (a whole number), got %s", what, json_type_name(v));
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

static bool check_string(struct pctx *c, const cJSON *v, const char *ptr, const char *what)
{
	if (cJSON_IsString(v))
		return true;
	perr(c, ptr, "expected %s, got %s", what, json_type_name(v));
	return false;
}

/* A user or group name ("www-data") or a decimal id. */
static bool name_ok(const char *s)
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
static bool env_name_ok(const char *s, bool pattern)
{
	if (!*s || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || (pattern && *s == '*')))
			return false;
	return true;
}

/* ---- objects --------------------------------------------------------------------------------- */

static void key_names(const struct key *keys, const char **names, size_t max)
{
	size_t n = 0;

	for (; keys[n].name && n + 1 < max; n++)
		names[n] = keys[n].name;
	names[n] = NULL;
}

/* Each member of object @obj through the table @keys; unknown and repeated names are errors. */
static void parse_members(struct pctx *c, const cJSON *obj, const char *ptr, const struct key *keys,
			  const char *what)
{
	const cJSON *item;

	if (!cJSON_IsObject(obj)) {
		perr(c, ptr, "expected %s, got %s", what, json_type_name(obj));
		return;
	}
	cJSON_ArrayForEach(item, obj)
	{
		char child[PTR_MAX];
		const struct key *k = NULL;
		unsigned int seen = 0;

		pointer_join(child, sizeof(child), ptr, item->string);
		for (const cJSON *prev = obj->child; prev != item; prev = prev->next)
			if (strcmp(prev->string, item->string) == 0)
				seen++;
		if (seen) {
			perr_at(c, child, true, seen, "duplicate key \"%s\"", item->string);
			continue;
		}
		for (const struct key *kk = keys; kk->name; kk++)
			if (strcmp(kk->name, item->string) == 0)
				k = kk;
		if (!k) {
			const char *names[32], *near;
			char list[400];

			key_names(keys, names, 32);
			near = wd_suggest(item->string, names);
			name_list(list, sizeof(list), names);
			if (near)
				perr_at(c, child, true, 0,
					"unknown key \"%s\" (did you mean \"%s\"?)", item->string,
					near);
			else
				perr_at(c, child, true, 0, "unknown key \"%s\" (expected %s)",
					item->string, list);
			continue;
		}
		k->parse(c, item, child, k->name);
	}
}

/* The item at index @i of array @arr is @v; its pointer into @buf. */
#define for_each_item(arr, v, i, ptr, buf)                                                         \
	for ((i) = 0, (v) = (arr)->child; (v); (v) = (v)->next, (i)++)                             \
		if (pointer_index(buf, sizeof(buf), ptr, i), 1)

static bool check_array(struct pctx *c, const cJSON *v, const char *ptr, const char *what)
{
	if (cJSON_IsArray(v))
		return true;
	perr(c, ptr, "expected an array of %s, got %s", what, json_type_name(v));
	return false;
}

/* ---- top level ------------------------------------------------------------------------------- */

static void parse_schema(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	(void)name;
	if (!cJSON_IsString(v))
		perr(c, ptr, "expected \"%s\", got %s", WD_POLICY_SCHEMA, json_type_name(v));
	else if (strcmp(v->valuestring, WD_POLICY_SCHEMA))
		perr(c, ptr, "expected \"%s\", got \"%s\"", WD_POLICY_SCHEMA, v->valuestring);
}

static void parse_mode(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	static const char *const modes[] = { "enforce", "audit", NULL };
	int i = pick(c, v, ptr, modes);

	(void)name;
	if (i < 0)
		return;
	c->p->mode = i == 0 ? WD_MODE_ENFORCE : WD_MODE_AUDIT;
	c->p->mode_set.set = true;
}

static void extends_one(struct pctx *c, const cJSON *v, const char *ptr)
{
	const char *s;

	if (!check_string(c, v, ptr, "a template name or a policy file"))
		return;
	s = v->valuestring;
	if (!*s) {
		perr(c, ptr, "expected a template name or a policy file, got an empty string");
		return;
	}
	for (const char *q = s; *q; q++) {
		if ((unsigned char)*q < 0x20) {
			perr(c, ptr, "a file name must not contain control characters");
			return;
		}
	}
	if (wd_is_template_name(s) && !wd_template_find(s)) {
		const char *names[32], *near;
		char list[400];
		size_t n = 0;

		for (; wd_templates[n].name && n + 1 < 32; n++)
			names[n] = wd_templates[n].name;
		names[n] = NULL;
		near = wd_suggest(s, names);
		name_list(list, sizeof(list), names);
		if (near)
			perr(c, ptr, "unknown template \"%s\" (did you mean \"%s\"?)", s, near);
		else
			perr(c, ptr,
			     "unknown template \"%s\" (templates: %s; a file name has a \"/\" "
			     "or a \".\")",
			     s, list);
		return;
	}
	if (wd_path_list_has(&c->p->extends, s)) {
		perr(c, ptr, "\"%s\" is extended twice", s);
		return;
	}
	if (wd_path_list_add(&c->p->extends, s, 0))
		oom(c);
}

static void parse_extends(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	const cJSON *item;
	char ip[PTR_MAX];
	size_t i;

	(void)name;
	if (cJSON_IsString(v)) {
		extends_one(c, v, ptr);
		return;
	}
	if (!cJSON_IsArray(v)) {
		perr(c, ptr, "expected a template name, a policy file, or an array of them, got %s",
		     json_type_name(v));
		return;
	}
	if (cJSON_GetArraySize(v) > MAX_EXTENDS) {
		perr(c, ptr, "at most %d policies may be extended", MAX_EXTENDS);
		return;
	}
	for_each_item(v, item, i, ptr, ip) extends_one(c, item, ip);
}

/* ---- fs -------------------------------------------------------------------------------------- */

static struct wd_path_list *fs_list(struct wd_policy *p, const char *name)
{
	if (strcmp(name, "read") == 0)
		return &p->fs_read;
	if (strcmp(name, "write") == 0)
		return &p->fs_write;
	if (strcmp(name, "exec") == 0)
		return &p->fs_exec;
	return &p->fs_deny;
}

static void parse_fs_paths(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	struct wd_path_list *l = fs_list(c->p, name);
	const cJSON *item;
	char ip[PTR_MAX];
	size_t i;

	if (!check_array(c, v, ptr, "absolute paths"))
		return;
	for_each_item(v, item, i, ptr, ip)
	{
		char *path = check_path(c, item, ip);

		if (path && list_take(l, path, 0))
			oom(c);
	}
}

static void protect_path(struct pctx *c, const cJSON *v, const char *ptr, const char *name);
static void protect_ops(struct pctx *c, const cJSON *v, const char *ptr, const char *name);
static void protect_action(struct pctx *c, const cJSON *v, const char *ptr, const char *name);

static const struct key protect_keys[] = {
	{ .name = "path", .parse = protect_path },
	{ .name = "ops", .parse = protect_ops },
	{ .name = "action", .parse = protect_action },
	{ 0 },
};

static void protect_path(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	(void)name;
	c->protect->path = check_path(c, v, ptr);
	if (!c->protect->path)
		c->protect->origin = -1; /* marks the entry bad */
}

static void protect_ops(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	static const char *const ops[] = { "delete", "rename", "truncate", NULL };
	const cJSON *item;
	char ip[PTR_MAX];
	size_t i;

	(void)name;
	c->protect->ops = 0;
	if (!check_array(c, v, ptr, "operations (\"delete\", \"rename\", \"truncate\")")) {
		c->protect->origin = -1;
		return;
	}
	if (!cJSON_GetArraySize(v)) {
		perr(c, ptr,
		     "expected at least one of \"delete\", \"rename\", \"truncate\" (leave "
		     "\"ops\" out for all three)");
		c->protect->origin = -1;
		return;
	}
	for_each_item(v, item, i, ptr, ip)
	{
		int op = pick(c, item, ip, ops);

		if (op < 0) {
			c->protect->origin = -1;
		} else if (c->protect->ops & (1u << op)) {
			perr(c, ip, "\"%s\" is listed twice", ops[op]);
			c->protect->origin = -1;
		} else {
			c->protect->ops |= 1u << op;
		}
	}
}

static void protect_action(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	static const char *const actions[] = { "deny", "hold", NULL };
	int i = pick(c, v, ptr, actions);

	(void)name;
	if (i < 0)
		c->protect->origin = -1;
	else
		c->protect->action = i == 0 ? WD_ACTION_DENY : WD_ACTION_HOLD;
}

static void parse_fs_protect(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	const cJSON *item;
	char ip[PTR_MAX];
	size_t i;

	(void)name;
	if (!check_array(c, v, ptr, "protected paths"))
		return;
	for_each_item(v, item, i, ptr, ip)
	{
		struct wd_protect pr = { .ops = WD_PROTECT_ALL, .action = WD_ACTION_DENY };

		if (cJSON_IsString(item)) {
			pr.path = check_path(c, item, ip);
		} else if (cJSON_IsObject(item)) {
			c->protect = &pr;
			parse_members(c, item, ip, protect_keys, "an object");
			c->protect = NULL;
			if (!cJSON_GetObjectItemCaseSensitive(item, "path")) {
				perr(c, ip, "missing \"path\"");
				pr.origin = -1;
			}
		} else {
			perr(c, ip,
			     "expected a path, or an object with \"path\", \"ops\" and "
			     "\"action\", got %s",
			     json_type_name(item));
		}
		if (pr.path && pr.origin == 0 && wd_protect_add(c->p, &pr))
			oom(c);
		free(pr.path);
	}
}

static const struct key fs_keys[] = {
	{ .name = "read", .parse = parse_fs_paths },
	{ .name = "write", .parse = parse_fs_paths },
	{ .name = "exec", .parse = parse_fs_paths },
	{ .name = "deny", .parse = parse_fs_paths },
	{ .name = "protect", .parse = parse_fs_protect, .sub = protect_keys, .items = true },
	{ 0 },
};

static void parse_fs(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	(void)name;
	parse_members(c, v, ptr, fs_keys,
		      "an object with \"read\", \"write\", \"exec\", \"deny\" "
		      "or \"protect\"");
}

/* ---- exec ------------------------------------------------------------------------------------ */

static void exec_path(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	(void)name;
	c->exec->path = check_path(c, v, ptr);
	if (!c->exec->path)
		c->exec->origin = -1;
}

/* Brackets in a pattern must close, so fnmatch() never reads them as literal by accident. */
static bool pattern_ok(const char *s)
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

static void exec_argv(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	const cJSON *item;
	char ip[PTR_MAX];
	size_t i, n;

	(void)name;
	if (!check_array(c, v, ptr, "argument patterns")) {
		c->exec->origin = -1;
		return;
	}
	n = (size_t)cJSON_GetArraySize(v);
	c->exec->has_argv = true;
	c->exec->argv = calloc(n + 1, sizeof(char *));
	if (!c->exec->argv) {
		oom(c);
		c->exec->origin = -1;
		return;
	}
	for_each_item(v, item, i, ptr, ip)
	{
		if (!check_string(c, item, ip, "an argument pattern (a string)")) {
			c->exec->origin = -1;
			continue;
		}
		if (strcmp(item->valuestring, "**") == 0 && i + 1 != n) {
			perr(c, ip, "\"**\" (any further arguments) may only be the last pattern");
			c->exec->origin = -1;
			continue;
		}
		if (!pattern_ok(item->valuestring)) {
			perr(c, ip, "pattern \"%s\" has a \"[\" without \"]\" or ends in \"\\\"",
			     item->valuestring);
			c->exec->origin = -1;
			continue;
		}
		c->exec->argv[c->exec->argc] = strdup(item->valuestring);
		if (!c->exec->argv[c->exec->argc]) {
			oom(c);
			c->exec->origin = -1;
			return;
		}
		c->exec->argc++;
	}
}

static const struct key exec_rule_keys[] = {
	{ .name = "path", .parse = exec_path },
	{ .name = "argv", .parse = exec_argv },
	{ 0 },
};

void wd_exec_rule_free(struct wd_exec_rule *r)
{
	free(r->path);
	for (size_t i = 0; r->argv && i < r->argc; i++)
		free(r->argv[i]);
	free(r->argv);
	memset(r, 0, sizeof(*r));
}

static void parse_exec_list(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	struct wd_exec_list *l = strcmp(name, "allow") == 0  ? &c->p->exec_allow
				 : strcmp(name, "deny") == 0 ? &c->p->exec_deny
							     : &c->p->exec_hold;
	const cJSON *item;
	char ip[PTR_MAX];
	size_t i;

	if (!check_array(c, v, ptr, "programs (paths, or objects with \"path\" and \"argv\")"))
		return;
	for_each_item(v, item, i, ptr, ip)
	{
		struct wd_exec_rule r = { 0 };

		if (cJSON_IsString(item)) {
			r.path = check_path(c, item, ip);
		} else if (cJSON_IsObject(item)) {
			c->exec = &r;
			parse_members(c, item, ip, exec_rule_keys, "an object");
			c->exec = NULL;
			if (!cJSON_GetObjectItemCaseSensitive(item, "path")) {
				perr(c, ip, "missing \"path\"");
				r.origin = -1;
			}
		} else {
			perr(c, ip,
			     "expected a program path, or an object with \"path\" and \"argv\", "
			     "got %s",
			     json_type_name(item));
		}
		if (r.path && r.origin == 0) {
			if (wd_grow((void **)&l->v, l->n, sizeof(*l->v))) {
				oom(c);
			} else {
				l->v[l->n++] = r;
				continue;
			}
		}
		wd_exec_rule_free(&r);
	}
}

static const struct key exec_keys[] = {
	{ .name = "allow", .parse = parse_exec_list, .sub = exec_rule_keys, .items = true },
	{ .name = "deny", .parse = parse_exec_list, .sub = exec_rule_keys, .items = true },
	{ .name = "hold", .parse = parse_exec_list, .sub = exec_rule_keys, .items = true },
	{ 0 },
};

static void parse_exec(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	(void)name;
	parse_members(c, v, ptr, exec_keys, "an object with \"allow\", \"deny\" or \"hold\"");
}

/* ---- net ------------------------------------------------------------------------------------- */

static void parse_net_default(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	static const char *const vals[] = { "deny", "allow", NULL };
	int i = pick(c, v, ptr, vals);

	(void)name;
	if (i < 0)
		return;
	c->p->net_default = i == 0 ? WD_ACTION_DENY : WD_ACTION_ALLOW;
	c->p->net_default_set.set = true;
}

static void parse_net_list(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	struct wd_net_list *l = strcmp(name, "allow") == 0 ? &c->p->net_allow : &c->p->net_deny;
	const cJSON *item;
	char ip[PTR_MAX];
	size_t i;

	if (!check_array(c, v, ptr, "hosts (\"host:port\", \"10.0.0.0/8:443\", \"[::1]:80\")"))
		return;
	for_each_item(v, item, i, ptr, ip)
	{
		struct wd_net_rule r = { 0 };
		char why[400];
		int err;

		if (!check_string(c, item, ip, "a host entry such as \"api.example.com:443\""))
			continue;
		err = wd_net_rule_parse(item->valuestring, &r, why, sizeof(why));
		if (err == -ENOMEM) {
			oom(c);
			continue;
		}
		if (err) {
			perr(c, ip, "%s", why);
			continue;
		}
		if (wd_net_list_add(l, &r))
			oom(c);
		free(r.name);
	}
}

static void parse_egress_rate(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	char why[300];

	(void)name;
	if (!check_string(c, v, ptr, "a rate such as \"1MiB/s\""))
		return;
	if (wd_parse_rate(v->valuestring, true, &c->p->egress_bytes, &c->p->egress_per_ms, why,
			  sizeof(why))) {
		perr(c, ptr, "%s", why);
		return;
	}
	if (!c->p->egress_bytes) {
		perr(c, ptr, "an egress rate must be above zero (leave it out for no limit)");
		return;
	}
	c->p->egress_rate_set.set = true;
}

static const struct key net_keys[] = {
	{ .name = "default", .parse = parse_net_default },
	{ .name = "allow", .parse = parse_net_list },
	{ .name = "deny", .parse = parse_net_list },
	{ .name = "egress_rate", .parse = parse_egress_rate },
	{ 0 },
};

static void parse_net(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	(void)name;
	parse_members(c, v, ptr, net_keys,
		      "an object with \"default\", \"allow\", \"deny\" or "
		      "\"egress_rate\"");
}

/* ---- limits ---------------------------------------------------------------------------------- */

static void parse_limit(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	struct wd_limit *l = NULL;
	enum wd_limit_kind k = 0;
	uint64_t value = 0, per_ms = 0;
	char why[300], lo[48] = "";
	int err = 0;

	for (int i = 0; i < WD_LIMIT_NR; i++) {
		if (strcmp(limit_defs[i].name, name) == 0) {
			k = (enum wd_limit_kind)i;
			l = &c->p->limits[i];
		}
	}
	if (!l)
		return;
	switch (limit_defs[k].unit) {
	case U_COUNT:
		if (!check_uint(c, v, ptr, (double)limit_defs[k].min, (double)limit_defs[k].max,
				"a count", &value))
			return;
		break;
	case U_DURATION:
		if (!check_string(c, v, ptr, "a duration such as \"30s\", \"5m\" or \"1h30m\""))
			return;
		err = wd_parse_duration(v->valuestring, &value, why, sizeof(why));
		wd_format_duration(limit_defs[k].min, lo, sizeof(lo));
		break;
	case U_SIZE:
		if (!check_string(c, v, ptr, "a size such as \"256MiB\""))
			return;
		err = wd_parse_size(v->valuestring, &value, why, sizeof(why));
		wd_format_size(limit_defs[k].min, lo, sizeof(lo));
		break;
	case U_RATE:
		if (!check_string(c, v, ptr, "a rate such as \"50/s\""))
			return;
		err = wd_parse_rate(v->valuestring, false, &value, &per_ms, why, sizeof(why));
		snprintf(lo, sizeof(lo), "1/h");
		break;
	}
	if (err) {
		perr(c, ptr, "%s", why);
		return;
	}
	if (value < limit_defs[k].min) {
		perr(c, ptr, "%s must be at least %s (leave it out for no limit)", name, lo);
		return;
	}
	l->value = value;
	l->per_ms = per_ms;
	l->s.set = true;
}

static const struct key limit_keys[] = {
	{ .name = "wall_time", .parse = parse_limit },
	{ .name = "cpu_time", .parse = parse_limit },
	{ .name = "memory", .parse = parse_limit },
	{ .name = "pids", .parse = parse_limit },
	{ .name = "fork_rate", .parse = parse_limit },
	{ .name = "output", .parse = parse_limit },
	{ 0 },
};

static void parse_limits(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	(void)name;
	parse_members(c, v, ptr, limit_keys, "an object of limits");
}

/* ---- env, user, namespaces, hold ------------------------------------------------------------- */

static void parse_env_pass(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	const cJSON *item;
	char ip[PTR_MAX];
	size_t i;

	(void)name;
	if (!check_array(c, v, ptr, "variable names (\"PATH\", \"LC_*\")"))
		return;
	for_each_item(v, item, i, ptr, ip)
	{
		if (!check_string(c, item, ip, "a variable name"))
			continue;
		if (!env_name_ok(item->valuestring, true)) {
			perr(c, ip,
			     "\"%s\" is not a variable name (letters, digits and \"_\", not "
			     "starting with a digit; \"*\" for any run of them)",
			     item->valuestring);
			continue;
		}
		if (wd_path_list_has(&c->p->env_pass, item->valuestring))
			continue;
		if (wd_path_list_add(&c->p->env_pass, item->valuestring, 0))
			oom(c);
	}
}

static void parse_env_set(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	const cJSON *item;

	(void)name;
	if (!cJSON_IsObject(v)) {
		perr(c, ptr, "expected an object of variables and their values, got %s",
		     json_type_name(v));
		return;
	}
	cJSON_ArrayForEach(item, v)
	{
		char ip[PTR_MAX];
		unsigned int seen = 0;

		pointer_join(ip, sizeof(ip), ptr, item->string);
		for (const cJSON *prev = v->child; prev != item; prev = prev->next)
			if (strcmp(prev->string, item->string) == 0)
				seen++;
		if (seen) {
			perr_at(c, ip, true, seen, "duplicate key \"%s\"", item->string);
			continue;
		}
		if (!env_name_ok(item->string, false)) {
			perr_at(c, ip, true, 0,
				"\"%s\" is not a variable name (letters, digits and "
				"\"_\", not starting with a digit)",
				item->string);
			continue;
		}
		if (!cJSON_IsString(item)) {
			if (cJSON_IsNumber(item))
				perr(c, ip, "expected a string, got a number (write \"%g\")",
				     item->valuedouble);
			else
				perr(c, ip, "expected a string, got %s", json_type_name(item));
			continue;
		}
		if (wd_env_set_put(c->p, item->string, item->valuestring, 0))
			oom(c);
	}
}

static const struct key env_keys[] = {
	{ .name = "pass", .parse = parse_env_pass },
	{ .name = "set", .parse = parse_env_set },
	{ 0 },
};

static void parse_env(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	(void)name;
	parse_members(c, v, ptr, env_keys, "an object with \"pass\" or \"set\"");
}

static void parse_user(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	char user[2 * NAME_MAX_LEN + 2], orig[sizeof(user)], *colon;
	uint64_t uid;

	(void)name;
	if (cJSON_IsNumber(v)) {
		if (!check_uint(c, v, ptr, 0, 4294967294.0, "a uid", &uid))
			return;
		snprintf(user, sizeof(user), "%llu", (unsigned long long)uid);
	} else if (cJSON_IsString(v)) {
		if (strlen(v->valuestring) >= sizeof(user)) {
			perr(c, ptr, "a user or group name has at most %d characters",
			     NAME_MAX_LEN);
			return;
		}
		snprintf(user, sizeof(user), "%s", v->valuestring);
	} else {
		perr(c, ptr, "expected a user name or uid, optionally with \":GROUP\", got %s",
		     json_type_name(v));
		return;
	}
	snprintf(orig, sizeof(orig), "%s", user);
	colon = strchr(user, ':');
	if (colon)
		*colon = 0;
	if (strlen(user) > NAME_MAX_LEN || (colon && strlen(colon + 1) > NAME_MAX_LEN)) {
		perr(c, ptr, "a user or group name has at most %d characters", NAME_MAX_LEN);
		return;
	}
	if (!name_ok(user) || (colon && !name_ok(colon + 1))) {
		perr(c, ptr,
		     "expected a user name or uid, optionally with \":GROUP\" (\"nobody\", "
		     "\"www-data:www-data\", \"1000:1000\"), got \"%s\"",
		     orig);
		return;
	}
	free(c->p->user);
	free(c->p->group);
	c->p->user = strdup(user);
	c->p->group = colon ? strdup(colon + 1) : NULL;
	if (!c->p->user || (colon && !c->p->group))
		oom(c);
	c->p->user_set.set = true;
}

static void parse_ns(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	static const char *const modes4[] = { "host", "private", NULL };
	static const char *const modes_net[] = { "host", "none", "veth", NULL };
	enum wd_ns_kind k = WD_NS_MOUNT;
	int i;

	for (int j = 0; j < WD_NS_NR; j++)
		if (strcmp(ns_names[j], name) == 0)
			k = (enum wd_ns_kind)j;
	if (k == WD_NS_NET) {
		if (cJSON_IsString(v) && strcmp(v->valuestring, "private") == 0) {
			perr(c, ptr,
			     "expected \"host\", \"none\" or \"veth\", got \"private\" (a "
			     "private network namespace is \"none\": loopback only, or \"veth\")");
			return;
		}
		i = pick(c, v, ptr, modes_net);
		if (i < 0)
			return;
		c->p->ns[k] = i == 0 ? WD_NS_HOST : i == 1 ? WD_NS_NONE : WD_NS_VETH;
	} else {
		if (cJSON_IsString(v) &&
		    (strcmp(v->valuestring, "none") == 0 || strcmp(v->valuestring, "veth") == 0)) {
			perr(c, ptr,
			     "expected \"host\" or \"private\", got \"%s\" (\"none\" and "
			     "\"veth\" are for \"net\")",
			     v->valuestring);
			return;
		}
		i = pick(c, v, ptr, modes4);
		if (i < 0)
			return;
		c->p->ns[k] = i == 0 ? WD_NS_HOST : WD_NS_PRIVATE;
	}
	c->p->ns_set[k].set = true;
}

static void parse_ns_bind_ro(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	const cJSON *item;
	char ip[PTR_MAX];
	size_t i;

	(void)name;
	if (!check_array(c, v, ptr, "absolute paths"))
		return;
	for_each_item(v, item, i, ptr, ip)
	{
		char *path = check_path(c, item, ip);

		if (path && list_take(&c->p->ns_bind_ro, path, 0))
			oom(c);
	}
}

static const struct key ns_keys[] = {
	{ .name = "mount", .parse = parse_ns }, { .name = "pid", .parse = parse_ns },
	{ .name = "ipc", .parse = parse_ns },	{ .name = "uts", .parse = parse_ns },
	{ .name = "net", .parse = parse_ns },	{ .name = "tmp", .parse = parse_ns },
	{ .name = "bind_ro", .parse = parse_ns_bind_ro },
	{ 0 },
};

static void parse_namespaces(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	(void)name;
	parse_members(c, v, ptr, ns_keys,
		      "an object with \"mount\", \"pid\", \"ipc\", \"uts\", \"net\", "
		      "\"tmp\" or \"bind_ro\"");
}

static void parse_hold_timeout(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	char why[300];

	(void)name;
	if (!check_string(c, v, ptr, "a duration such as \"5m\""))
		return;
	if (wd_parse_duration(v->valuestring, &c->p->hold_timeout_ms, why, sizeof(why))) {
		perr(c, ptr, "%s", why);
		return;
	}
	if (c->p->hold_timeout_ms < 1000) {
		perr(c, ptr, "a hold timeout must be at least 1s");
		return;
	}
	c->p->hold_timeout_set.set = true;
}

static void parse_hold_on_timeout(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	static const char *const vals[] = { "deny", "allow", NULL };
	int i = pick(c, v, ptr, vals);

	(void)name;
	if (i < 0)
		return;
	c->p->hold_on_timeout = i == 0 ? WD_ACTION_DENY : WD_ACTION_ALLOW;
	c->p->hold_on_timeout_set.set = true;
}

static void parse_hold_approvers(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	const cJSON *item;
	char ip[PTR_MAX];
	size_t i;

	(void)name;
	if (!check_array(c, v, ptr, "approvers (\"user:NAME\", \"group:NAME\")"))
		return;
	for_each_item(v, item, i, ptr, ip)
	{
		const char *s, *who;

		if (!check_string(c, item, ip, "an approver (\"user:NAME\" or \"group:NAME\")"))
			continue;
		s = item->valuestring;
		who = strncmp(s, "user:", 5) == 0    ? s + 5
		      : strncmp(s, "group:", 6) == 0 ? s + 6
						     : NULL;
		if (!who || !name_ok(who)) {
			perr(c, ip,
			     "expected \"user:NAME\" or \"group:NAME\" (a name or a numeric id), "
			     "got \"%s\"",
			     s);
			continue;
		}
		if (wd_path_list_has(&c->p->hold_approvers, s))
			continue;
		if (wd_path_list_add(&c->p->hold_approvers, s, 0))
			oom(c);
	}
}

static void parse_hold_io_uring(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	static const char *const vals[] = { "refuse", "allow", NULL };
	int i = pick(c, v, ptr, vals);

	(void)name;
	if (i < 0)
		return;
	c->p->hold_io_uring = i == 1;
	c->p->hold_io_uring_set.set = true;
}

static void burst_count(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	uint64_t n;

	(void)name;
	if (check_uint(c, v, ptr, 1, WD_HOLD_BURST_COUNT_MAX, "how many deletes may pass", &n))
		c->p->hold_burst_count = (uint32_t)n;
}

static void burst_window(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	char why[300], max[32];

	(void)name;
	if (!check_string(c, v, ptr, "a duration such as \"1s\""))
		return;
	if (wd_parse_duration(v->valuestring, &c->p->hold_burst_window_ms, why, sizeof(why))) {
		perr(c, ptr, "%s", why);
		return;
	}
	if (c->p->hold_burst_window_ms == 0) {
		perr(c, ptr, "a burst window must be at least 1ms");
	} else if (c->p->hold_burst_window_ms > WD_HOLD_BURST_WINDOW_MAX_MS) {
		wd_format_duration(WD_HOLD_BURST_WINDOW_MAX_MS, max, sizeof(max));
		perr(c, ptr, "a burst window may be at most %s", max);
	}
}

static const struct key burst_keys[] = {
	{ .name = "count", .parse = burst_count },
	{ .name = "window", .parse = burst_window },
	{ 0 },
};

/* {"count": N, "window": DURATION}: both required, as neither has a sensible default. */
static void parse_hold_delete_burst(struct pctx *c, const cJSON *v, const char *ptr,
				    const char *name)
{
	size_t before = c->errs->n + c->errs->dropped;

	(void)name;
	c->p->hold_burst_count = 0;
	c->p->hold_burst_window_ms = 0;
	parse_members(c, v, ptr, burst_keys, "an object with \"count\" and \"window\"");
	if (c->errs->n + c->errs->dropped != before)
		return;
	if (!cJSON_GetObjectItemCaseSensitive(v, "count") ||
	    !cJSON_GetObjectItemCaseSensitive(v, "window")) {
		perr(c, ptr, "missing \"%s\" (a burst is more than \"count\" deletes within "
			     "\"window\": {\"count\": 100, \"window\": \"1s\"})",
		     cJSON_GetObjectItemCaseSensitive(v, "count") ? "window" : "count");
		return;
	}
	c->p->hold_burst_set.set = true;
}

static const struct key hold_keys[] = {
	{ .name = "timeout", .parse = parse_hold_timeout },
	{ .name = "on_timeout", .parse = parse_hold_on_timeout },
	{ .name = "approvers", .parse = parse_hold_approvers },
	{ .name = "io_uring", .parse = parse_hold_io_uring },
	{ .name = "delete_burst", .parse = parse_hold_delete_burst, .sub = burst_keys },
	{ 0 },
};

static void parse_hold(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	(void)name;
	parse_members(c, v, ptr, hold_keys,
		      "an object with \"timeout\", \"on_timeout\", \"approvers\", "
		      "\"io_uring\" or \"delete_burst\"");
}

/* ---- caps ------------------------------------------------------------------------------------ */

/*
 * What a command may keep, and why the rest is refused. The allowed few are those a service or a
 * build step plausibly needs whose reach the sandbox's other rules still bound (paths by Landlock
 * or the LSM programs, signals by the pid namespace or task_kill); the refused ones reach the
 * kernel, the host or the monitor itself. bubblewrap and nsjail keep nothing unless asked;
 * docker's default set is larger (it keeps MKNOD, NET_RAW, SETFCAP, SETPCAP, SYS_CHROOT,
 * AUDIT_WRITE): warden refuses those.
 */
#define CAP(n, ok, why) { #n, n, ok, why }
static const struct wd_cap_info cap_table[] = {
	CAP(CAP_CHOWN, true, "change the owner of files it may write: it can give them to any user "
			     "or group, host users' included"),
	CAP(CAP_DAC_OVERRIDE, true, "ignore file modes and ACLs (not Landlock's or warden's path "
				    "rules): it reads and writes any file in the trees it may use, "
				    "whoever owns it"),
	CAP(CAP_DAC_READ_SEARCH, false, "reads any file and opens files by handle "
					"(open_by_handle_at): around every path rule"),
	CAP(CAP_FOWNER, true, "act as the owner of any file in the trees it may use (chmod, "
			      "utimes, removing others' files from sticky directories)"),
	CAP(CAP_FSETID, true, "keep set-user-ID and set-group-ID bits when it changes a file: such "
			      "a file it writes can later run with its owner's rights outside the "
			      "sandbox"),
	CAP(CAP_KILL, true, "signal any process of the sandbox whatever its user (host processes "
			    "stay out of reach)"),
	CAP(CAP_SETGID, true, "become any group and set any supplementary groups: it reads what "
			      "those groups may read in the trees it may use"),
	CAP(CAP_SETUID, true, "become any user: it reads and writes as that user in the trees it "
			      "may use"),
	CAP(CAP_SETPCAP, false, "changes capability sets and secure bits: a way to widen what it "
				"keeps"),
	CAP(CAP_LINUX_IMMUTABLE, false, "sets and clears the immutable and append-only flags the "
					"host relies on"),
	CAP(CAP_NET_BIND_SERVICE, true, "bind TCP and UDP ports below 1024 (in the sandbox's "
					"network namespace when it has its own): it can answer "
					"as a system service on the host's addresses"),
	CAP(CAP_NET_BROADCAST, false, "may broadcast and multicast (unused by Linux today: refused "
				      "for what it may come to mean)"),
	CAP(CAP_NET_ADMIN, false, "configures interfaces, routes, firewall rules and traffic "
				  "control: around warden's egress rules"),
	CAP(CAP_NET_RAW, false, "opens raw and packet sockets: forged packets and sniffing, "
				"around the egress rules' ports and protocols"),
	CAP(CAP_IPC_LOCK, false, "locks memory and makes huge pages: pins host memory"),
	CAP(CAP_IPC_OWNER, false, "bypasses the permissions of every System V IPC object"),
	CAP(CAP_SYS_MODULE, false, "loads and removes kernel modules: runs its own code in the "
				   "kernel"),
	CAP(CAP_SYS_RAWIO, false, "does raw I/O: ioperm, iopl, /dev/mem, SCSI and disk commands"),
	CAP(CAP_SYS_CHROOT, false, "chroots into a new root the path rules were not written for"),
	CAP(CAP_SYS_PTRACE, false, "traces any process and reads or writes its memory"),
	CAP(CAP_SYS_PACCT, false, "turns process accounting on, writing a file of its choosing "
				  "host-wide"),
	CAP(CAP_SYS_ADMIN, false, "mounts file systems, makes namespaces and reaches most of "
				  "the kernel's administrative interface: the way out of every "
				  "sandbox"),
	CAP(CAP_SYS_BOOT, false, "reboots the host and loads a new kernel (kexec)"),
	CAP(CAP_SYS_NICE, false, "sets real-time scheduling and other processes' priorities: "
				 "it can starve the host's CPUs"),
	CAP(CAP_SYS_RESOURCE, false, "overrides resource limits, quotas and reserved space: around "
				     "the policy's limits"),
	CAP(CAP_SYS_TIME, false, "sets the host's clock, which every log and certificate check "
				 "reads"),
	CAP(CAP_SYS_TTY_CONFIG, false, "calls vhangup and configures the host's "
				       "terminals"),
	CAP(CAP_MKNOD, false, "makes device nodes: a disk or /dev/mem opened through a node of its "
			      "own"),
	CAP(CAP_LEASE, false, "takes leases on files it does not own: stalls host processes that "
			      "open them"),
	CAP(CAP_AUDIT_WRITE, false, "writes records into the kernel's audit log, which the host "
				    "trusts"),
	CAP(CAP_AUDIT_CONTROL, false, "changes the kernel's audit rules: hides what it does"),
	CAP(CAP_SETFCAP, false, "sets file capabilities: a file it writes can later run with "
				"capabilities outside the sandbox"),
	CAP(CAP_MAC_OVERRIDE, false, "overrides mandatory access control (Smack)"),
	CAP(CAP_MAC_ADMIN, false, "changes mandatory access control policy"),
	CAP(CAP_SYSLOG, false, "reads and clears the kernel log, which holds host addresses and "
			       "secrets"),
	CAP(CAP_WAKE_ALARM, false, "sets alarms that wake the host from suspend"),
	CAP(CAP_BLOCK_SUSPEND, false, "keeps the host from suspending"),
	CAP(CAP_AUDIT_READ, false, "reads the kernel's audit stream: every host process's records"),
	CAP(CAP_PERFMON, false, "monitors the whole host's performance: reads kernel and "
				"other processes' data"),
	CAP(CAP_BPF, false, "loads BPF programs and reads maps: the very kind that confine the "
			    "sandbox"),
	CAP(CAP_CHECKPOINT_RESTORE, false, "picks pids and reads other processes' state "
					   "(checkpoint and restore)"),
};
#undef CAP

const struct wd_cap_info *wd_cap_find(const char *name)
{
	for (size_t i = 0; i < sizeof(cap_table) / sizeof(cap_table[0]); i++)
		if (strcmp(cap_table[i].name, name) == 0)
			return &cap_table[i];
	return NULL;
}

const struct wd_cap_info *wd_cap_table(size_t *n)
{
	*n = sizeof(cap_table) / sizeof(cap_table[0]);
	return cap_table;
}

uint64_t wd_policy_caps_mask(const struct wd_policy *p)
{
	const struct wd_cap_info *ci;
	uint64_t m = 0;

	for (size_t i = 0; i < p->caps.n; i++) {
		ci = wd_cap_find(p->caps.paths[i]);
		if (ci && ci->allowed)
			m |= 1ULL << ci->nr;
	}
	return m;
}

/* The names a policy may keep, for an error message: "CAP_CHOWN, CAP_DAC_OVERRIDE, ...". */
static void allowed_caps(char *buf, size_t sz)
{
	size_t off = 0;

	buf[0] = 0;
	for (size_t i = 0; i < sizeof(cap_table) / sizeof(cap_table[0]) && off < sz; i++) {
		if (!cap_table[i].allowed)
			continue;
		off += (size_t)snprintf(buf + off, sz - off, "%s%s", off ? ", " : "",
					cap_table[i].name);
	}
}

static void parse_caps(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	const struct wd_cap_info *ci;
	const cJSON *item;
	char ip[PTR_MAX], ok[512];
	size_t i;

	(void)name;
	if (!check_array(c, v, ptr, "capability names (\"CAP_NET_BIND_SERVICE\")"))
		return;
	allowed_caps(ok, sizeof(ok));
	for_each_item(v, item, i, ptr, ip)
	{
		if (!check_string(c, item, ip, "a capability name (\"CAP_NET_BIND_SERVICE\")"))
			continue;
		ci = wd_cap_find(item->valuestring);
		if (!ci) {
			perr(c, ip, "expected a capability name in upper case (\"CAP_CHOWN\"), got "
				    "\"%s\"; a policy may keep: %s",
			     item->valuestring, ok);
			continue;
		}
		if (!ci->allowed) {
			perr(c, ip, "%s is refused: a process holding it %s; a policy may keep: %s",
			     ci->name,
			     ci->risk, ok);
			continue;
		}
		if (wd_path_list_has(&c->p->caps, ci->name))
			continue;
		if (wd_path_list_add(&c->p->caps, ci->name, 0))
			oom(c);
	}
}

static const struct key top_keys[] = {
	{ .name = "schema", .parse = parse_schema },
	{ .name = "extends", .parse = parse_extends },
	{ .name = "mode", .parse = parse_mode },
	{ .name = "fs", .parse = parse_fs, .sub = fs_keys },
	{ .name = "exec", .parse = parse_exec, .sub = exec_keys },
	{ .name = "net", .parse = parse_net, .sub = net_keys },
	{ .name = "limits", .parse = parse_limits, .sub = limit_keys },
	{ .name = "env", .parse = parse_env, .sub = env_keys },
	{ .name = "user", .parse = parse_user },
	{ .name = "caps", .parse = parse_caps },
	{ .name = "namespaces", .parse = parse_namespaces, .sub = ns_keys },
	{ .name = "hold", .parse = parse_hold, .sub = hold_keys },
	{ 0 },
};

static void list_keys(const struct key *keys, const char *base,
		      void (*fn)(const char *pointer, void *arg), void *arg)
{
	for (const struct key *k = keys; k->name; k++) {
		char ptr[PTR_MAX];

		pointer_join(ptr, sizeof(ptr), base, k->name);
		fn(ptr, arg);
		if (k->sub) {
			char sub[PTR_MAX + 2];

			snprintf(sub, sizeof(sub), "%s%s", ptr, k->items ? "/*" : "");
			list_keys(k->sub, sub, fn, arg);
		}
	}
}

void wd_policy_keys(void (*fn)(const char *pointer, void *arg), void *arg)
{
	list_keys(top_keys, "", fn, arg);
}

/* ---- documents ------------------------------------------------------------------------------- */

static void set_origins(struct wd_policy *p)
{
	/* One document: every part comes from it, origin 0. Nothing to do but make [0] exist. */
	p->origins = calloc(1, sizeof(char *));
	if (p->origins) {
		p->origins[0] = strdup("");
		p->n_origins = p->origins[0] ? 1 : 0;
	}
}

int wd_policy_parse_all(const char *text, size_t len, struct wd_policy *out,
			struct wd_policy_errors *errs)
{
	struct pctx c = { .text = text, .len = len, .p = out, .errs = errs };
	const char *end = NULL, *why = NULL;
	const cJSON *item;
	bool seen_schema = false;
	char ptr[PTR_MAX];
	size_t off = 0;
	cJSON *doc;
	int r = 0;

	memset(out, 0, sizeof(*out));
	doc = cJSON_ParseWithLengthOpts(text, len, &end, false);
	if (doc && end) {
		/* Only white space may follow the document. */
		while ((size_t)(end - text) < len && *end && strchr(" \t\r\n", *end))
			end++;
		if ((size_t)(end - text) < len) {
			cJSON_Delete(doc);
			doc = NULL;
		}
	}
	if (!doc) {
		struct wd_policy_error e = { 0 };

		off = end ? (size_t)(end - text) : 0;
		if (!end && cJSON_GetErrorPtr())
			off = (size_t)(cJSON_GetErrorPtr() - text);
		wd_json_line_col(text, len, off, &e.line, &e.col);
		snprintf(e.msg, sizeof(e.msg), "not valid JSON (error near line %d, column %d)",
			 e.line, e.col);
		r = wd_policy_errors_add(errs, &e) ? -ENOMEM : -EINVAL;
		goto out;
	}
	if (wd_json_check(text, len, ptr, sizeof(ptr), &off, &why)) {
		struct wd_policy_error e = { 0 };

		wd_json_line_col(text, len, off, &e.line, &e.col);
		snprintf(e.pointer, sizeof(e.pointer), "%s", ptr);
		if (ptr[0])
			snprintf(e.msg, sizeof(e.msg), "%s", why);
		else
			snprintf(e.msg, sizeof(e.msg), "%s (error near line %d, column %d)", why,
				 e.line, e.col);
		r = wd_policy_errors_add(errs, &e) ? -ENOMEM : -EINVAL;
		goto out_free_doc;
	}
	if (!cJSON_IsObject(doc)) {
		perr(&c, "", "expected a JSON object, got %s", json_type_name(doc));
		goto out_free_doc;
	}
	/* A document of another schema is not read further: its other keys mean other things. */
	cJSON_ArrayForEach(item, doc)
	{
		if (strcmp(item->string, "schema") == 0) {
			if (!seen_schema)
				parse_schema(&c, item, "/schema", "schema");
			seen_schema = true;
		}
	}
	if (!seen_schema)
		perr(&c, "/schema", "missing; expected \"%s\"", WD_POLICY_SCHEMA);
	else if (errs->n)
		goto out_free_doc;
	parse_members(&c, doc, "", top_keys, "a JSON object");
	set_origins(out);
	if (!out->origins)
		c.nomem = true;
out_free_doc:
	cJSON_Delete(doc);
	if (c.nomem)
		r = -ENOMEM;
	else if (errs->n || errs->dropped)
		r = -EINVAL;
out:
	if (r)
		wd_policy_free(out);
	return r;
}

int wd_policy_parse(const char *text, size_t len, struct wd_policy *out,
		    struct wd_policy_error *err)
{
	struct wd_policy_errors errs = { 0 };
	int r = wd_policy_parse_all(text, len, out, &errs);

	memset(err, 0, sizeof(*err));
	if (errs.n)
		*err = errs.v[0];
	else if (r == -ENOMEM)
		snprintf(err->msg, sizeof(err->msg), "out of memory");
	wd_policy_errors_free(&errs);
	return r;
}

int wd_policy_read_file(const char *path, char **text, size_t *len)
{
	char *buf = NULL;
	size_t n = 0, cap = 0;
	FILE *f;
	int r = 0;

	*text = NULL;
	*len = 0;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	for (;;) {
		size_t got;

		if (n + 1 >= cap) {
			char *nb;

			cap = cap ? cap * 2 : 4096;
			if (cap > (16u << 20) + 1) {
				r = -EFBIG;
				goto out_close;
			}
			nb = realloc(buf, cap);
			if (!nb) {
				r = -ENOMEM;
				goto out_close;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		r = -EIO;
		goto out_close;
	}
	buf[n] = 0;
	*text = buf;
	*len = n;
	buf = NULL;
out_close:
	fclose(f);
	free(buf);
	return r;
}

int wd_policy_load_file(const char *path, struct wd_policy *out, struct wd_policy_error *err)
{
	char *text = NULL;
	size_t len = 0;
	int r;

	memset(err, 0, sizeof(*err));
	memset(out, 0, sizeof(*out));
	r = wd_policy_read_file(path, &text, &len);
	if (r == -EFBIG) {
		snprintf(err->msg, sizeof(err->msg), "larger than 16 MiB");
		return r;
	}
	if (r) {
		snprintf(err->msg, sizeof(err->msg), "cannot read: %s", strerror(-r));
		return r;
	}
	r = wd_policy_parse(text, len, out, err);
	free(text);
	return r;
}

static void free_list(struct wd_path_list *l)
{
	for (size_t i = 0; l->paths && i < l->n; i++)
		free(l->paths[i]);
	free(l->paths);
	free(l->origin);
	memset(l, 0, sizeof(*l));
}

static void free_exec_list(struct wd_exec_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		wd_exec_rule_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static void free_net_list(struct wd_net_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void wd_policy_free(struct wd_policy *p)
{
	free_list(&p->fs_read);
	free_list(&p->fs_write);
	free_list(&p->fs_exec);
	free_list(&p->fs_deny);
	for (size_t i = 0; i < p->n_fs_protect; i++)
		free(p->fs_protect[i].path);
	free(p->fs_protect);
	free_exec_list(&p->exec_allow);
	free_exec_list(&p->exec_deny);
	free_exec_list(&p->exec_hold);
	free_net_list(&p->net_allow);
	free_net_list(&p->net_deny);
	free_list(&p->env_pass);
	free_list(&p->ns_bind_ro);
	for (size_t i = 0; i < p->n_env_set; i++) {
		free(p->env_set[i].name);
		free(p->env_set[i].value);
	}
	free(p->env_set);
	free(p->user);
	free(p->group);
	free_list(&p->hold_approvers);
	free_list(&p->caps);
	free_list(&p->extends);
	for (size_t i = 0; i < p->n_origins; i++)
		free(p->origins[i]);
	free(p->origins);
	memset(p, 0, sizeof(*p));
}

void wd_policy_error_format(const struct wd_policy_error *err, const char *file, char *buf,
			    size_t bufsz)
{
	const char *src = err->source[0] ? err->source : file;
	char pos[48] = "";

	/* A syntax error says where in its own message. */
	if (err->line && err->pointer[0])
		snprintf(pos, sizeof(pos), " (line %d, column %d)", err->line, err->col);
	if (err->pointer[0])
		snprintf(buf, bufsz, "%s: %s: %s%s", src, err->pointer, err->msg, pos);
	else
		snprintf(buf, bufsz, "%s: %s", src, err->msg);
}

/* ---- templates ------------------------------------------------------------------------------- */

const struct wd_template *wd_template_find(const char *name)
{
	for (const struct wd_template *t = wd_templates; t->name; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

bool wd_is_template_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return false;
	return true;
}

/* ---- exec matching --------------------------------------------------------------------------- */

bool wd_exec_rule_matches(const struct wd_exec_rule *r, char *const *args, size_t n)
{
	return !r->has_argv || wd_argv_match(r->argv, r->argc, args, n);
}

/* ---- what is asked for, what is enforced ----------------------------------------------------- */

unsigned int wd_policy_features(const struct wd_policy *p)
{
	unsigned int f = 0;

	if (p->fs_read.n || p->fs_write.n || p->fs_exec.n)
		f |= WD_FEAT_FS;
	if (p->mode_set.set)
		f |= WD_FEAT_MODE;
	if (p->fs_deny.n)
		f |= WD_FEAT_FS_DENY;
	if (p->n_fs_protect)
		f |= WD_FEAT_FS_PROTECT;
	if (p->exec_allow.n || p->exec_deny.n)
		f |= WD_FEAT_EXEC;
	if (p->exec_hold.n)
		f |= WD_FEAT_EXEC_HOLD;
	if (p->net_default_set.set || p->net_allow.n || p->net_deny.n || p->egress_rate_set.set)
		f |= WD_FEAT_NET;
	for (int i = 0; i < WD_LIMIT_NR; i++)
		if (p->limits[i].s.set)
			f |= WD_FEAT_LIMITS;
	if (p->env_pass.n || p->n_env_set)
		f |= WD_FEAT_ENV;
	if (p->user_set.set)
		f |= WD_FEAT_USER;
	for (int i = 0; i < WD_NS_NR; i++)
		if (p->ns_set[i].set && p->ns[i] != WD_NS_HOST)
			f |= WD_FEAT_NAMESPACES;
	if (p->ns_bind_ro.n)
		f |= WD_FEAT_NAMESPACES;
	if (p->ns_set[WD_NS_NET].set && p->ns[WD_NS_NET] == WD_NS_VETH)
		f |= WD_FEAT_NET_VETH;
	if (p->hold_timeout_set.set || p->hold_on_timeout_set.set || p->hold_io_uring_set.set ||
	    p->hold_burst_set.set)
		f |= WD_FEAT_HOLD;
	if (p->hold_approvers.n)
		f |= WD_FEAT_HOLD_APPROVERS;
	return f;
}

/* The first part of @p that asks for @feat: its pointer and where it came from. */
static void feature_where(const struct wd_policy *p, unsigned int feat, char *ptr, size_t ptrsz,
			  int *origin)
{
	*origin = 0;
	snprintf(ptr, ptrsz, "/");
	switch (feat) {
	case WD_FEAT_FS_DENY:
		snprintf(ptr, ptrsz, "/fs/deny/0");
		*origin = p->fs_deny.origin[0];
		break;
	case WD_FEAT_FS_PROTECT:
		snprintf(ptr, ptrsz, "/fs/protect/0");
		*origin = p->fs_protect[0].origin;
		break;
	case WD_FEAT_EXEC_HOLD:
		snprintf(ptr, ptrsz, "/exec/hold/0");
		*origin = p->exec_hold.v[0].origin;
		break;
	case WD_FEAT_EXEC: {
		const struct wd_exec_list *l = p->exec_allow.n	? &p->exec_allow
					       : p->exec_deny.n ? &p->exec_deny
								: &p->exec_hold;

		snprintf(ptr, ptrsz, "/exec/%s/0",
			 l == &p->exec_allow  ? "allow"
			 : l == &p->exec_deny ? "deny"
					      : "hold");
		*origin = l->v[0].origin;
		break;
	}
	case WD_FEAT_NET:
		if (p->net_default_set.set) {
			snprintf(ptr, ptrsz, "/net/default");
			*origin = p->net_default_set.origin;
		} else if (p->net_allow.n) {
			snprintf(ptr, ptrsz, "/net/allow/0");
			*origin = p->net_allow.v[0].origin;
		} else if (p->net_deny.n) {
			snprintf(ptr, ptrsz, "/net/deny/0");
			*origin = p->net_deny.v[0].origin;
		} else {
			snprintf(ptr, ptrsz, "/net/egress_rate");
			*origin = p->egress_rate_set.origin;
		}
		break;
	case WD_FEAT_LIMITS:
		for (int i = WD_LIMIT_NR - 1; i >= 0; i--) {
			if (p->limits[i].s.set) {
				snprintf(ptr, ptrsz, "/limits/%s", limit_defs[i].name);
				*origin = p->limits[i].s.origin;
			}
		}
		break;
	case WD_FEAT_ENV:
		if (p->env_pass.n) {
			snprintf(ptr, ptrsz, "/env/pass/0");
			*origin = p->env_pass.origin[0];
		} else {
			pointer_join(ptr, ptrsz, "/env/set", p->env_set[0].name);
			*origin = p->env_set[0].origin;
		}
		break;
	case WD_FEAT_USER:
		snprintf(ptr, ptrsz, "/user");
		*origin = p->user_set.origin;
		break;
	case WD_FEAT_NET_VETH:
		snprintf(ptr, ptrsz, "/namespaces/net");
		*origin = p->ns_set[WD_NS_NET].origin;
		break;
	case WD_FEAT_NAMESPACES:
		if (p->ns_bind_ro.n) {
			snprintf(ptr, ptrsz, "/namespaces/bind_ro/0");
			*origin = p->ns_bind_ro.origin[0];
		}
		for (int i = WD_NS_NR - 1; i >= 0; i--) {
			if (p->ns_set[i].set && p->ns[i] != WD_NS_HOST) {
				snprintf(ptr, ptrsz, "/namespaces/%s", ns_names[i]);
				*origin = p->ns_set[i].origin;
			}
		}
		break;
	case WD_FEAT_HOLD:
		if (p->hold_timeout_set.set) {
			snprintf(ptr, ptrsz, "/hold/timeout");
			*origin = p->hold_timeout_set.origin;
		} else if (p->hold_on_timeout_set.set) {
			snprintf(ptr, ptrsz, "/hold/on_timeout");
			*origin = p->hold_on_timeout_set.origin;
		} else if (p->hold_io_uring_set.set) {
			snprintf(ptr, ptrsz, "/hold/io_uring");
			*origin = p->hold_io_uring_set.origin;
		} else {
			snprintf(ptr, ptrsz, "/hold/delete_burst");
			*origin = p->hold_burst_set.origin;
		}
		break;
	case WD_FEAT_HOLD_APPROVERS:
		snprintf(ptr, ptrsz, "/hold/approvers/0");
		*origin = p->hold_approvers.origin[0];
		break;
	}
}

static const struct {
	unsigned int feat;
	const char *what;
} feature_words[] = {
	{ WD_FEAT_FS_DENY, "fs.deny (carving paths out of allowed trees)" },
	{ WD_FEAT_FS_PROTECT, "fs.protect (delete, rename and truncate protection)" },
	{ WD_FEAT_EXEC, "exec rules (programs by path and arguments)" },
	{ WD_FEAT_NET, "net (egress rules)" },
	{ WD_FEAT_LIMITS, "limits" },
	{ WD_FEAT_ENV, "env (the sandbox's environment)" },
	{ WD_FEAT_USER, "user (running as another user)" },
	{ WD_FEAT_NAMESPACES, "namespaces other than the host's" },
	{ WD_FEAT_HOLD, "hold settings" },
	{ WD_FEAT_EXEC_HOLD, "exec.hold (programs run only when an operator approves)" },
	{ WD_FEAT_HOLD_APPROVERS, "hold.approvers (deciders other than root)" },
	{ WD_FEAT_NET_VETH, "namespaces.net \"veth\" (a veth pair to the host)" },
};

const char *wd_feature_words(unsigned int feat)
{
	for (size_t i = 0; i < sizeof(feature_words) / sizeof(feature_words[0]); i++)
		if (feature_words[i].feat == feat)
			return feature_words[i].what;
	return NULL;
}

int wd_policy_feature_pointer(const struct wd_policy *p, unsigned int feat, char *ptr, size_t ptrsz)
{
	int origin;

	feature_where(p, feat, ptr, ptrsz, &origin);
	return origin;
}

int wd_policy_unenforced(const struct wd_policy *p, char *why, size_t whysz)
{
	return wd_policy_unenforced_mask(p, WD_FEAT_ENFORCED, why, whysz);
}

int wd_policy_unenforced_mask(const struct wd_policy *p, unsigned int enforced, char *why,
			      size_t whysz)
{
	unsigned int missing = wd_policy_features(p) & ~enforced;
	char ptr[PTR_MAX], from[300] = "";
	int origin;

	if (why && whysz)
		why[0] = 0;
	if (!missing)
		return 0;
	for (size_t i = 0; i < sizeof(feature_words) / sizeof(feature_words[0]); i++) {
		unsigned int feat = feature_words[i].feat;

		if (!(missing & feat))
			continue;
		feature_where(p, feat, ptr, sizeof(ptr), &origin);
		if (origin != p->top_origin && origin >= 0 && (size_t)origin < p->n_origins)
			snprintf(from, sizeof(from), " (it comes from %s)", p->origins[origin]);
		snprintf(why, whysz, "%s: %s %s not enforced by this warden yet%s", ptr,
			 feature_words[i].what,
			 feat == WD_FEAT_LIMITS || feat == WD_FEAT_EXEC ||
					 feat == WD_FEAT_NAMESPACES || feat == WD_FEAT_HOLD
				 ? "are"
				 : "is",
			 from);
		break;
	}
	return -EOPNOTSUPP;
}
