// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON walk of one policy document: parse the text, check its schema, walk its members through
 * the key tables of each section (top_keys here, the others in the section files) and collect
 * every error with its JSON pointer, line and column. Reading a policy file from disk is here too.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/grow.h"
#include "policy/json_locate.h"
#include "policy/parse_internal.h"
#include "policy/policy.h"
#include "policy/templates.h"
#include "policy/units.h"

#define MAX_EXTENDS 8

/* ---- errors ---------------------------------------------------------------------------------- */

int wd_policy_errors_add(struct wd_policy_errors *errs, const struct wd_policy_error *e)
{
	if (errs->n >= WD_POLICY_MAX_ERRORS) {
		errs->dropped++;
		return 0;
	}
	if (WD_GROW(errs->v, errs->n))
		return -ENOMEM;
	errs->v[errs->n++] = *e;
	return 0;
}

void wd_policy_errors_free(struct wd_policy_errors *errs)
{
	free(errs->v);
	memset(errs, 0, sizeof(*errs));
}

void wdp_perr_at(struct pctx *c, const char *ptr, bool key, unsigned int nth, const char *fmt, ...)
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

/* @base + "/" + @key as a JSON pointer: "~" becomes "~0" and "/" becomes "~1" (RFC 6901). */
void wdp_pointer_join(char *buf, size_t bufsz, const char *base, const char *key)
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

void wdp_pointer_index(char *buf, size_t bufsz, const char *base, size_t i)
{
	snprintf(buf, bufsz, "%.*s/%zu", (int)(bufsz - 24), base, i);
}

const char *wdp_json_type(const cJSON *v)
{
	static const struct {
		cJSON_bool (*is)(const cJSON *v);
		const char *name;
	} types[] = {
		{ cJSON_IsString, "a string" }, { cJSON_IsNumber, "a number" },
		{ cJSON_IsBool, "a boolean" },	{ cJSON_IsNull, "null" },
		{ cJSON_IsArray, "an array" },	{ cJSON_IsObject, "an object" },
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].is(v))
			return types[i].name;
	return "something else";
}

/* A list of names for messages: "\"a\", \"b\" or \"c\"". */
void wdp_name_list(char *buf, size_t bufsz, const char *const *names)
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
int wdp_pick(struct pctx *c, const cJSON *v, const char *ptr, const char *const *names)
{
	char list[256];
	const char *near;

	wdp_name_list(list, sizeof(list), names);
	if (!cJSON_IsString(v)) {
		perr(c, ptr, "expected %s, got %s", list, wdp_json_type(v));
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
/* ---- objects --------------------------------------------------------------------------------- */

static void key_names(const struct key *keys, const char **names, size_t max)
{
	size_t n = 0;

	for (; keys[n].name && n + 1 < max; n++)
		names[n] = keys[n].name;
	names[n] = NULL;
}

bool wdp_repeated(struct pctx *c, const cJSON *obj, const cJSON *item, const char *ptr)
{
	unsigned int seen = 0;

	for (const cJSON *prev = obj->child; prev != item; prev = prev->next)
		if (strcmp(prev->string, item->string) == 0)
			seen++;
	if (seen)
		wdp_perr_at(c, ptr, true, seen, "duplicate key \"%s\"", item->string);
	return seen;
}

/* The value @v of key @k, at @ptr. */
static void parse_value(struct pctx *c, const struct key *k, const cJSON *v, const char *ptr)
{
	const cJSON *item;
	char ip[PTR_MAX];
	size_t i;

	c->key = k;
	if (k->parse) {
		k->parse(c, v, ptr, k->name);
	} else if (k->item) {
		if (!wdp_check_array(c, v, ptr, k->what))
			return;
		for_each_item(v, item, i, ptr, ip)
		{
			c->key = k; /* an item's own members moved it */
			k->item(c, item, ip);
		}
	} else {
		wdp_parse_members(c, v, ptr, k->sub, k->what);
	}
}

/* Each member of object @obj through the table @keys; unknown and repeated names are errors. */
void wdp_parse_members(struct pctx *c, const cJSON *obj, const char *ptr, const struct key *keys,
			  const char *what)
{
	const cJSON *item;

	if (!cJSON_IsObject(obj)) {
		perr(c, ptr, "expected %s, got %s", what, wdp_json_type(obj));
		return;
	}
	cJSON_ArrayForEach(item, obj)
	{
		char child[PTR_MAX];
		const struct key *k = NULL;

		wdp_pointer_join(child, sizeof(child), ptr, item->string);
		if (wdp_repeated(c, obj, item, child))
			continue;
		for (const struct key *kk = keys; kk->name; kk++)
			if (strcmp(kk->name, item->string) == 0)
				k = kk;
		if (!k) {
			const char *names[32], *near;
			char list[400];

			key_names(keys, names, 32);
			near = wd_suggest(item->string, names);
			wdp_name_list(list, sizeof(list), names);
			if (near)
				wdp_perr_at(c, child, true, 0,
					"unknown key \"%s\" (did you mean \"%s\"?)", item->string,
					near);
			else
				wdp_perr_at(c, child, true, 0, "unknown key \"%s\" (expected %s)",
					item->string, list);
			continue;
		}
		parse_value(c, k, item, child);
	}
}

bool wdp_check_array(struct pctx *c, const cJSON *v, const char *ptr, const char *what)
{
	if (cJSON_IsArray(v))
		return true;
	perr(c, ptr, "expected an array of %s, got %s", what, wdp_json_type(v));
	return false;
}

int wdp_pick_set(struct pctx *c, const cJSON *v, const char *ptr, const char *const *names,
		 struct wd_setting *s)
{
	int i = wdp_pick(c, v, ptr, names);

	if (i >= 0)
		s->set = true;
	return i;
}

void wdp_deny_allow(struct pctx *c, const cJSON *v, const char *ptr, enum wd_action *out,
		    struct wd_setting *s)
{
	static const char *const vals[] = { "deny", "allow", NULL };
	int i = wdp_pick_set(c, v, ptr, vals, s);

	if (i >= 0)
		*out = i == 0 ? WD_ACTION_DENY : WD_ACTION_ALLOW;
}

bool wdp_path_or_object(struct pctx *c, const cJSON *v, const char *ptr, const struct key *keys,
			const char *expected, char **path)
{
	bool ok = true;

	if (cJSON_IsString(v)) {
		*path = wdp_check_path(c, v, ptr);
	} else if (cJSON_IsObject(v)) {
		wdp_parse_members(c, v, ptr, keys, "an object");
		if (!cJSON_GetObjectItemCaseSensitive(v, "path")) {
			perr(c, ptr, "missing \"path\"");
			ok = false;
		}
	} else {
		perr(c, ptr, "expected %s, got %s", expected, wdp_json_type(v));
	}
	return ok;
}

void wdp_list_add_once(struct pctx *c, struct wd_path_list *l, const char *s)
{
	if (!wd_path_list_has(l, s) && wd_path_list_add(l, s, 0))
		oom(c);
}

/* ---- top level ------------------------------------------------------------------------------- */

static void parse_schema(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	(void)name;
	if (!cJSON_IsString(v))
		perr(c, ptr, "expected \"%s\", got %s", WD_POLICY_SCHEMA, wdp_json_type(v));
	else if (strcmp(v->valuestring, WD_POLICY_SCHEMA))
		perr(c, ptr, "expected \"%s\", got \"%s\"", WD_POLICY_SCHEMA, v->valuestring);
}

static void parse_mode(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	static const char *const modes[] = { "enforce", "audit", NULL };
	int i = wdp_pick_set(c, v, ptr, modes, &c->p->mode_set);

	(void)name;
	if (i >= 0)
		c->p->mode = i == 0 ? WD_MODE_ENFORCE : WD_MODE_AUDIT;
}

static void extends_one(struct pctx *c, const cJSON *v, const char *ptr)
{
	const char *s;

	if (!wdp_check_string(c, v, ptr, "a template name or a policy file"))
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
		wdp_name_list(list, sizeof(list), names);
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
		     wdp_json_type(v));
		return;
	}
	if (cJSON_GetArraySize(v) > MAX_EXTENDS) {
		perr(c, ptr, "at most %d policies may be extended", MAX_EXTENDS);
		return;
	}
	for_each_item(v, item, i, ptr, ip) extends_one(c, item, ip);
}
static const struct key top_keys[] = {
	{ .name = "schema", .parse = parse_schema },
	{ .name = "extends", .parse = parse_extends },
	{ .name = "mode", .parse = parse_mode },
	{ .name = "fs",
	  .sub = wdp_fs_keys,
	  .what = "an object with \"read\", \"write\", \"exec\", \"deny\" or \"protect\"" },
	{ .name = "exec",
	  .sub = wdp_exec_keys,
	  .what = "an object with \"allow\", \"deny\" or \"hold\"" },
	{ .name = "net",
	  .sub = wdp_net_keys,
	  .what = "an object with \"default\", \"allow\", \"deny\" or \"egress_rate\"" },
	{ .name = "limits", .sub = wdp_limit_keys, .what = "an object of limits" },
	{ .name = "env", .sub = wdp_env_keys, .what = "an object with \"pass\" or \"set\"" },
	{ .name = "user", .parse = wdp_parse_user },
	{ .name = "caps",
	  .item = wdp_cap_item,
	  .what = "capability names (\"CAP_NET_BIND_SERVICE\")" },
	{ .name = "namespaces",
	  .sub = wdp_ns_keys,
	  .what = "an object with \"mount\", \"pid\", \"ipc\", \"uts\", \"net\", \"tmp\" or "
		  "\"bind_ro\"" },
	{ .name = "hold",
	  .sub = wdp_hold_keys,
	  .what = "an object with \"timeout\", \"on_timeout\", \"approvers\", \"io_uring\" or "
		  "\"delete_burst\"" },
	{ 0 },
};

static void list_keys(const struct key *keys, const char *base,
		      void (*fn)(const char *pointer, void *arg), void *arg)
{
	for (const struct key *k = keys; k->name; k++) {
		char ptr[PTR_MAX];

		wdp_pointer_join(ptr, sizeof(ptr), base, k->name);
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
	if (!WD_GROW(p->origins, 0)) {
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
		perr(&c, "", "expected a JSON object, got %s", wdp_json_type(doc));
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
	wdp_parse_members(&c, doc, "", top_keys, "a JSON object");
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
