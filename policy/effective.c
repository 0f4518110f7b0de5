// SPDX-License-Identifier: GPL-2.0
/*
 * The effective policy (policy/effective.h): extends resolved, documents merged, command-line
 * additions on top, variables expanded.
 */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "bpf/wd_abi.h"
#include "policy/effective.h"
#include "policy/grow.h"
#include "policy/json_locate.h"
#include "policy/net.h"
#include "policy/templates.h"

#define MAX_DEPTH 8

static const char *const derive_flags[WD_DERIVE_NR] = {
	"--allow-host", "--deny-host", "--allow-read", "--allow-write",
	"--allow-exec", "--mode",      "--limit",      "--env",
};

const char *wd_derive_flag(enum wd_derive_kind kind)
{
	return (unsigned int)kind < WD_DERIVE_NR ? derive_flags[kind] : NULL;
}

int wd_policy_derive_add(struct wd_policy_derive *d, enum wd_derive_kind kind, const char *value)
{
	if (WD_GROW(d->v, d->n))
		return -ENOMEM;
	d->v[d->n].kind = kind;
	d->v[d->n].value = strdup(value);
	if (!d->v[d->n].value)
		return -ENOMEM;
	d->n++;
	return 0;
}

void wd_policy_derive_free(struct wd_policy_derive *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i].value);
	free(d->v);
	d->v = NULL;
	d->n = 0;
}

void wd_policy_vars_from_env(struct wd_policy_vars *v)
{
	const char *home = getenv("HOME"), *tmp = getenv("TMPDIR");

	memset(v, 0, sizeof(*v));
	if (!getcwd(v->workdir, sizeof(v->workdir)))
		v->workdir[0] = 0;
	if (!home || !*home) {
		struct passwd *pw = getpwuid(geteuid());

		home = pw ? pw->pw_dir : NULL;
	}
	snprintf(v->home, sizeof(v->home), "%s", home ? home : "");
	snprintf(v->tmpdir, sizeof(v->tmpdir), "%s", tmp && *tmp ? tmp : "/tmp");
}

void wd_policy_source_name(const char *name, char *buf, size_t bufsz)
{
	if (wd_is_template_name(name))
		snprintf(buf, bufsz, "template %s", name);
	else
		snprintf(buf, bufsz, "%s", name);
}

/* ---- merging --------------------------------------------------------------------------------- */

/* Index of origin @name in @p, added when missing; -1 when out of memory. */
static int origin_index(struct wd_policy *p, const char *name)
{
	for (size_t i = 0; i < p->n_origins; i++)
		if (strcmp(p->origins[i], name) == 0)
			return (int)i;
	if (WD_GROW(p->origins, p->n_origins))
		return -1;
	p->origins[p->n_origins] = strdup(name);
	if (!p->origins[p->n_origins])
		return -1;
	return (int)p->n_origins++;
}

static int map_origin(struct wd_policy *dst, const struct wd_policy *src, int origin)
{
	if (origin < 0 || (size_t)origin >= src->n_origins)
		return origin_index(dst, "");
	return origin_index(dst, src->origins[origin]);
}

static int merge_paths(struct wd_policy *dst, struct wd_path_list *d, const struct wd_policy *src,
		       const struct wd_path_list *s)
{
	for (size_t i = 0; i < s->n; i++) {
		int o;

		if (wd_path_list_has(d, s->paths[i]))
			continue;
		o = map_origin(dst, src, s->origin[i]);
		if (o < 0 || wd_path_list_add(d, s->paths[i], o))
			return -ENOMEM;
	}
	return 0;
}

static bool same_exec(const struct wd_exec_rule *a, const struct wd_exec_rule *b)
{
	if (strcmp(a->path, b->path) || a->has_argv != b->has_argv || a->argc != b->argc)
		return false;
	for (size_t i = 0; i < a->argc; i++)
		if (strcmp(a->argv[i], b->argv[i]))
			return false;
	return true;
}

static int merge_exec(struct wd_policy *dst, struct wd_exec_list *d, const struct wd_policy *src,
		      const struct wd_exec_list *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct wd_exec_rule r = s->v[i];
		bool dup = false;

		for (size_t j = 0; j < d->n && !dup; j++)
			dup = same_exec(&d->v[j], &r);
		if (dup)
			continue;
		r.origin = map_origin(dst, src, r.origin);
		if (r.origin < 0 || wd_exec_list_add(d, &r))
			return -ENOMEM;
	}
	return 0;
}

static int merge_net(struct wd_policy *dst, struct wd_net_list *d, const struct wd_policy *src,
		     const struct wd_net_list *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct wd_net_rule r = s->v[i];
		bool dup = false;

		for (size_t j = 0; j < d->n && !dup; j++)
			dup = wd_net_rule_cmp(&d->v[j], &r) == 0;
		if (dup)
			continue;
		r.origin = map_origin(dst, src, r.origin);
		if (r.origin < 0 || wd_net_list_add(d, &r))
			return -ENOMEM;
	}
	return 0;
}

/* A setting of @src replaces that of @dst; its origin is carried over. */
static int take_setting(struct wd_policy *dst, struct wd_setting *d, const struct wd_policy *src,
			const struct wd_setting *s)
{
	if (!s->set)
		return 0;
	d->set = true;
	d->origin = map_origin(dst, src, s->origin);
	return d->origin < 0 ? -ENOMEM : 0;
}

int wd_policy_merge(struct wd_policy *dst, const struct wd_policy *src)
{
	int err = 0;

	bool empty = dst->n_origins == 0;

	/* Origins in the order of @src: lower layers first. */
	for (size_t i = 0; i < src->n_origins; i++)
		if (origin_index(dst, src->origins[i]) < 0)
			return -ENOMEM;
	/* Merged into nothing, @src is copied whole, which document it was included. */
	if (empty)
		dst->top_origin = map_origin(dst, src, src->top_origin);
	err = take_setting(dst, &dst->mode_set, src, &src->mode_set);
	if (src->mode_set.set)
		dst->mode = src->mode;
	err = err ?: merge_paths(dst, &dst->fs_read, src, &src->fs_read);
	err = err ?: merge_paths(dst, &dst->fs_write, src, &src->fs_write);
	err = err ?: merge_paths(dst, &dst->fs_exec, src, &src->fs_exec);
	err = err ?: merge_paths(dst, &dst->fs_deny, src, &src->fs_deny);
	for (size_t i = 0; !err && i < src->n_fs_protect; i++) {
		struct wd_protect pr = src->fs_protect[i];
		bool dup = false;

		for (size_t j = 0; j < dst->n_fs_protect && !dup; j++)
			dup = strcmp(dst->fs_protect[j].path, pr.path) == 0 &&
			      dst->fs_protect[j].ops == pr.ops &&
			      dst->fs_protect[j].action == pr.action;
		if (dup)
			continue;
		pr.origin = map_origin(dst, src, pr.origin);
		err = pr.origin < 0 ? -ENOMEM : wd_protect_add(dst, &pr);
	}
	err = err ?: merge_exec(dst, &dst->exec_allow, src, &src->exec_allow);
	err = err ?: merge_exec(dst, &dst->exec_deny, src, &src->exec_deny);
	err = err ?: merge_exec(dst, &dst->exec_hold, src, &src->exec_hold);

	err = err ?: take_setting(dst, &dst->net_default_set, src, &src->net_default_set);
	if (src->net_default_set.set)
		dst->net_default = src->net_default;
	err = err ?: merge_net(dst, &dst->net_allow, src, &src->net_allow);
	err = err ?: merge_net(dst, &dst->net_deny, src, &src->net_deny);
	err = err ?: merge_net(dst, &dst->net_listen, src, &src->net_listen);
	err = err ?: take_setting(dst, &dst->net_ping_set, src, &src->net_ping_set);
	if (src->net_ping_set.set)
		dst->net_ping = src->net_ping;
	err = err ?: take_setting(dst, &dst->egress_rate_set, src, &src->egress_rate_set);
	if (src->egress_rate_set.set) {
		dst->egress_bytes = src->egress_bytes;
		dst->egress_per_ms = src->egress_per_ms;
	}
	for (int i = 0; !err && i < WD_LIMIT_NR; i++) {
		err = take_setting(dst, &dst->limits[i].s, src, &src->limits[i].s);
		if (src->limits[i].s.set) {
			dst->limits[i].value = src->limits[i].value;
			dst->limits[i].per_ms = src->limits[i].per_ms;
		}
	}
	err = err ?: merge_paths(dst, &dst->env_pass, src, &src->env_pass);
	for (size_t i = 0; !err && i < src->n_env_set; i++) {
		int o = map_origin(dst, src, src->env_set[i].origin);

		err = o < 0 ? -ENOMEM
			    : wd_env_set_put(dst, src->env_set[i].name, src->env_set[i].value, o);
	}
	if (!err && src->user_set.set) {
		char *u = strdup(src->user), *g = src->group ? strdup(src->group) : NULL;

		if (!u || (src->group && !g)) {
			free(u);
			free(g);
			return -ENOMEM;
		}
		free(dst->user);
		free(dst->group);
		dst->user = u;
		dst->group = g;
		err = take_setting(dst, &dst->user_set, src, &src->user_set);
	}
	/* what each layer keeps adds up, as its paths do; each name was checked when parsed */
	err = err ?: merge_paths(dst, &dst->caps, src, &src->caps);
	for (int i = 0; !err && i < WD_NS_NR; i++) {
		err = take_setting(dst, &dst->ns_set[i], src, &src->ns_set[i]);
		if (src->ns_set[i].set)
			dst->ns[i] = src->ns[i];
	}
	err = err ?: merge_paths(dst, &dst->ns_bind_ro, src, &src->ns_bind_ro);
	err = err ?: take_setting(dst, &dst->hold_timeout_set, src, &src->hold_timeout_set);
	if (src->hold_timeout_set.set)
		dst->hold_timeout_ms = src->hold_timeout_ms;
	err = err ?: take_setting(dst, &dst->hold_on_timeout_set, src, &src->hold_on_timeout_set);
	if (src->hold_on_timeout_set.set)
		dst->hold_on_timeout = src->hold_on_timeout;
	err = err ?: merge_paths(dst, &dst->hold_approvers, src, &src->hold_approvers);
	err = err ?: take_setting(dst, &dst->hold_io_uring_set, src, &src->hold_io_uring_set);
	if (src->hold_io_uring_set.set)
		dst->hold_io_uring = src->hold_io_uring;
	/* count and window are one setting: a burst of 5 in 1s is not a window of 1s for 100 */
	err = err ?: take_setting(dst, &dst->hold_burst_set, src, &src->hold_burst_set);
	if (src->hold_burst_set.set) {
		dst->hold_burst_count = src->hold_burst_count;
		dst->hold_burst_window_ms = src->hold_burst_window_ms;
	}
	return err;
}

/* ---- loading --------------------------------------------------------------------------------- */

struct loader {
	const struct wd_load_opts *o;
	struct wd_policy_errors *errs;
	const char *chain[MAX_DEPTH + 2]; /* identities of the documents being loaded */
	int depth;
};

/* Where an error about a reference to another document goes: the referring entry. */
struct ref_at {
	const char *source;
	char pointer[64];
	int line;
	int col;
};

static void add_error(struct loader *l, const struct ref_at *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_error(struct loader *l, const struct ref_at *at, const char *fmt, ...)
{
	struct wd_policy_error e;
	va_list ap;

	memset(&e, 0, sizeof(e));
	snprintf(e.source, sizeof(e.source), "%s", at->source);
	snprintf(e.pointer, sizeof(e.pointer), "%s", at->pointer);
	e.line = at->line;
	e.col = at->col;
	va_start(ap, fmt);
	vsnprintf(e.msg, sizeof(e.msg), fmt, ap);
	va_end(ap);
	wd_policy_errors_add(l->errs, &e);
}

static int load_doc(struct loader *l, const char *text, size_t len, const char *display,
		    const char *identity, const char *dir, struct wd_policy *out);

/* Load what @name (an "extends" entry, or the name asked for) points at; @dir: where from. */
static int load_ref(struct loader *l, const char *name, const char *dir, const struct ref_at *at,
		    struct wd_policy *out)
{
	char display[PATH_MAX + 16], path[PATH_MAX + 16], identity[PATH_MAX + 16];
	char rdir[PATH_MAX + 16], *text = NULL, *slash;
	const struct wd_template *t;
	size_t len = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if (wd_is_template_name(name)) {
		t = wd_template_find(name);
		if (!t) {
			add_error(l, at,
				  "no template \"%s\" (`warden policy init` lists them; for a "
				  "file in this directory write ./%s)",
				  name, name);
			return -EINVAL;
		}
		snprintf(display, sizeof(display), "template %s", name);
		snprintf(identity, sizeof(identity), "template:%s", name);
		return load_doc(l, t->text, t->len, display, identity, NULL, out);
	}
	if (l->o && l->o->templates_only) {
		add_error(l, at, "only templates may be extended here, not \"%s\"", name);
		return -EINVAL;
	}
	if (name[0] == '/' || !dir)
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "%s/%s", dir, name);
	err = wd_policy_read_file(path, &text, &len);
	if (err == -ENOMEM)
		return err;
	if (err) {
		if (at->pointer[0])
			add_error(l, at, "cannot read \"%s\": %s", path,
				  err == -EFBIG ? "larger than 16 MiB" : strerror(-err));
		else
			add_error(l, at, "cannot read: %s",
				  err == -EFBIG ? "larger than 16 MiB" : strerror(-err));
		return -EINVAL;
	}
	memcpy(identity, "file:", 6);
	if (!realpath(path, identity + 5))
		snprintf(identity, sizeof(identity), "file:%.4000s", path);
	snprintf(rdir, sizeof(rdir), "%s", path);
	slash = strrchr(rdir, '/');
	if (slash == rdir)
		slash[1] = 0;
	else if (slash)
		*slash = 0;
	snprintf(display, sizeof(display), "%s", path);
	err = load_doc(l, text, len, display, identity, slash ? rdir : NULL, out);
	free(text);
	return err;
}

/* Parse one document and what it extends into @out (the document on top). */
static int load_doc(struct loader *l, const char *text, size_t len, const char *display,
		    const char *identity, const char *dir, struct wd_policy *out)
{
	struct wd_policy_errors errs = { 0 };
	struct ref_at top = { .source = display };
	struct wd_policy doc;
	int err = 0;

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < l->depth; i++) {
		if (strcmp(l->chain[i], identity) == 0) {
			add_error(l, &top, "extends itself (through %s)", l->chain[l->depth - 1]);
			return -EINVAL;
		}
	}
	if (l->depth > MAX_DEPTH) {
		add_error(l, &top, "extends more than %d policies deep", MAX_DEPTH);
		return -EINVAL;
	}
	err = wd_policy_parse_all(text, len, &doc, &errs);
	for (size_t i = 0; i < errs.n; i++) {
		snprintf(errs.v[i].source, sizeof(errs.v[i].source), "%s", display);
		if (wd_policy_errors_add(l->errs, &errs.v[i]))
			err = -ENOMEM;
	}
	l->errs->dropped += errs.dropped;
	wd_policy_errors_free(&errs);
	if (err)
		return err;

	free(doc.origins[0]);
	doc.origins[0] = strdup(display);
	if (!doc.origins[0]) {
		err = -ENOMEM;
		goto out_free_doc;
	}
	l->chain[l->depth++] = identity;
	for (size_t i = 0; i < doc.extends.n; i++) {
		struct ref_at at = { .source = display };
		struct wd_policy base;
		size_t off = 0;
		int r;

		/* "extends": "cli" or "extends": ["cli", "./more.json"] */
		snprintf(at.pointer, sizeof(at.pointer), "/extends/%zu", i);
		r = wd_json_locate(text, len, at.pointer, false, 0, &off);
		if (r != 0)
			snprintf(at.pointer, sizeof(at.pointer), "/extends");
		if (r >= 0)
			wd_json_line_col(text, len, off, &at.line, &at.col);
		r = load_ref(l, doc.extends.paths[i], dir, &at, &base);
		if (r == -ENOMEM) {
			err = r;
			break;
		}
		if (r) {
			err = r;
			continue;
		}
		r = err ? 0 : wd_policy_merge(out, &base);
		wd_policy_free(&base);
		if (r) {
			err = r;
			break;
		}
	}
	l->depth--;
	if (!err)
		err = wd_policy_merge(out, &doc);
	if (!err)
		out->top_origin = origin_index(out, display);
out_free_doc:
	wd_policy_free(&doc);
	if (err)
		wd_policy_free(out);
	return err;
}

/* "KEY=VALUE": KEY into @key (of @size), and the "=" returned; NULL when there is no KEY. */
static const char *split_kv(const char *v, char *key, size_t size)
{
	const char *eq = strchr(v, '=');

	if (!eq || eq == v || (size_t)(eq - v) >= size)
		return NULL;
	memcpy(key, v, (size_t)(eq - v));
	key[eq - v] = 0;
	return eq;
}

/* One command-line addition, as a document of its own on top of @out. */
static int apply_derive(struct loader *l, const struct wd_derive_item *it, struct wd_policy *out)
{
	static const char *const paths[][2] = {
		[WD_DERIVE_ALLOW_HOST] = { "net", "allow" },
		[WD_DERIVE_DENY_HOST] = { "net", "deny" },
		[WD_DERIVE_ALLOW_READ] = { "fs", "read" },
		[WD_DERIVE_ALLOW_WRITE] = { "fs", "write" },
		[WD_DERIVE_ALLOW_EXEC] = { "fs", "exec" },
	};
	struct wd_policy_errors errs = { 0 };
	struct ref_at at = { .source = "" };
	char source[256], *text = NULL;
	cJSON *doc, *sec, *val = NULL;
	struct wd_policy p;
	int err = -ENOMEM;

	snprintf(source, sizeof(source), "%s %s", wd_derive_flag(it->kind), it->value);
	at.source = source;
	doc = cJSON_CreateObject();
	if (!doc || !cJSON_AddStringToObject(doc, "schema", WD_POLICY_SCHEMA))
		goto out_free;
	switch (it->kind) {
	case WD_DERIVE_MODE:
		if (!cJSON_AddStringToObject(doc, "mode", it->value))
			goto out_free;
		break;
	case WD_DERIVE_ENV: {
		char name[256];
		const char *eq = split_kv(it->value, name, sizeof(name));

		if (!eq) {
			add_error(l, &at, "expected NAME=VALUE, as in LANG=C.UTF-8");
			err = -EINVAL;
			goto out_free;
		}
		sec = cJSON_AddObjectToObject(doc, "env");
		sec = sec ? cJSON_AddObjectToObject(sec, "set") : NULL;
		if (!sec || !cJSON_AddStringToObject(sec, name, eq + 1))
			goto out_free;
		break;
	}
	case WD_DERIVE_LIMIT: {
		char key[64];
		const char *eq = split_kv(it->value, key, sizeof(key));

		if (!eq) {
			add_error(l, &at, "expected KEY=VALUE, as in wall_time=30s or pids=64");
			err = -EINVAL;
			goto out_free;
		}
		sec = cJSON_AddObjectToObject(doc, "limits");
		if (eq[1] && strspn(eq + 1, "0123456789.") == strlen(eq + 1) && strlen(eq + 1) < 16)
			val = cJSON_AddNumberToObject(sec, key, strtod(eq + 1, NULL));
		else
			val = cJSON_AddStringToObject(sec, key, eq + 1);
		if (!sec || !val)
			goto out_free;
		break;
	}
	default:
		if ((unsigned int)it->kind > WD_DERIVE_ALLOW_EXEC) {
			err = -EINVAL;
			goto out_free;
		}
		sec = cJSON_AddObjectToObject(doc, paths[it->kind][0]);
		val = sec ? cJSON_AddArrayToObject(sec, paths[it->kind][1]) : NULL;
		if (!val)
			goto out_free;
		cJSON_AddItemToArray(val, cJSON_CreateString(it->value));
		if (cJSON_GetArraySize(val) != 1)
			goto out_free;
		break;
	}
	text = cJSON_PrintUnformatted(doc);
	if (!text)
		goto out_free;
	err = wd_policy_parse_all(text, strlen(text), &p, &errs);
	for (size_t i = 0; i < errs.n; i++) {
		/* The flag and its value say where; a pointer into a made-up document would not. */
		struct wd_policy_error e = errs.v[i];

		snprintf(e.source, sizeof(e.source), "%s", source);
		e.pointer[0] = 0;
		e.line = e.col = 0;
		wd_policy_errors_add(l->errs, &e);
	}
	wd_policy_errors_free(&errs);
	if (err)
		goto out_free;
	free(p.origins[0]);
	p.origins[0] = strdup(wd_derive_flag(it->kind));
	err = p.origins[0] ? wd_policy_merge(out, &p) : -ENOMEM;
	wd_policy_free(&p);
out_free:
	free(text);
	cJSON_Delete(doc);
	return err;
}

static int load_top(struct loader *l, const char *name, const char *text, size_t len,
		    struct wd_policy *out)
{
	char display[PATH_MAX + 16];
	int err, r;

	memset(out, 0, sizeof(*out));
	if (text) {
		char identity[PATH_MAX + 16], dir[PATH_MAX + 16], *slash;

		snprintf(display, sizeof(display), "%s", name);
		snprintf(identity, sizeof(identity), "text:%s", name);
		snprintf(dir, sizeof(dir), "%s", name);
		slash = strrchr(dir, '/');
		if (slash == dir)
			slash[1] = 0;
		else if (slash)
			*slash = 0;
		err = load_doc(l, text, len, display, identity, slash ? dir : NULL, out);
	} else {
		struct ref_at at = { 0 };

		wd_policy_source_name(name, display, sizeof(display));
		at.source = display;
		err = load_ref(l, name, NULL, &at, out);
	}
	for (size_t i = 0; l->o && l->o->derive && i < l->o->derive->n; i++) {
		/* Every bad addition is reported, even after an error in the document. */
		struct wd_policy scratch = { 0 };

		r = apply_derive(l, &l->o->derive->v[i], err ? &scratch : out);
		wd_policy_free(&scratch);
		if (r && !err)
			wd_policy_free(out);
		if (r == -ENOMEM || (r && !err))
			err = r;
	}
	return err;
}

int wd_policy_load(const char *name, const struct wd_load_opts *o, struct wd_policy *out,
		   struct wd_policy_errors *errs)
{
	struct loader l = { .o = o, .errs = errs };

	return load_top(&l, name, NULL, 0, out);
}

int wd_policy_load_text(const char *text, size_t len, const char *source,
			const struct wd_load_opts *o, struct wd_policy *out,
			struct wd_policy_errors *errs)
{
	struct loader l = { .o = o, .errs = errs };

	return load_top(&l, source, text, len, out);
}

/* ---- variables ------------------------------------------------------------------------------- */

static void expand_error(struct wd_policy_errors *errs, const struct wd_policy *p, int origin,
			 const char *pointer, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void expand_error(struct wd_policy_errors *errs, const struct wd_policy *p, int origin,
			 const char *pointer, const char *fmt, ...)
{
	struct wd_policy_error e;
	va_list ap;
	size_t n;

	memset(&e, 0, sizeof(e));
	snprintf(e.pointer, sizeof(e.pointer), "%s", pointer);
	va_start(ap, fmt);
	vsnprintf(e.msg, sizeof(e.msg), fmt, ap);
	va_end(ap);
	n = strlen(e.msg);
	if (origin != p->top_origin && origin >= 0 && (size_t)origin < p->n_origins &&
	    n < sizeof(e.msg))
		snprintf(e.msg + n, sizeof(e.msg) - n, " (from %s)", p->origins[origin]);
	wd_policy_errors_add(errs, &e);
}

/* Expand *@path in place when it starts with a variable. 0, -EINVAL (reported) or -ENOMEM. */
static int expand_one(char **path, const struct wd_policy_vars *v, const struct wd_policy *p,
		      int origin, const char *pointer, struct wd_policy_errors *errs)
{
	const char *s = *path, *rest, *val = NULL, *why = NULL;
	char full[2 * 4096 + 8], norm[4096], name[16];
	size_t n;

	if (s[0] != '$')
		return 0;
	rest = strchr(s, '/');
	n = rest ? (size_t)(rest - s - 1) : strlen(s) - 1;
	if (!rest)
		rest = "";
	snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1), s + 1);
	if (strcmp(name, "WORKDIR") == 0)
		val = v->workdir;
	else if (strcmp(name, "HOME") == 0)
		val = v->home;
	else if (strcmp(name, "TMPDIR") == 0)
		val = v->tmpdir;
	if (!val) {
		expand_error(errs, p, origin, pointer, "unknown variable \"$%s\"", name);
		return -EINVAL;
	}
	if (!val[0]) {
		expand_error(errs, p, origin, pointer, "$%s is not set, so \"%s\" means nothing",
			     name, s);
		return -EINVAL;
	}
	if (val[0] != '/') {
		expand_error(errs, p, origin, pointer, "$%s is \"%s\", not an absolute path", name,
			     val);
		return -EINVAL;
	}
	if (wd_path_normalise(val, norm, sizeof(norm), &why) == 0 && strcmp(norm, "/") == 0) {
		/* "$WORKDIR" from a shell in "/" would hand out the whole file system. */
		expand_error(errs, p, origin, pointer,
			     "$%s is \"/\": a variable may not stand for "
			     "the whole file system (start warden somewhere else, or write \"/\")",
			     name);
		return -EINVAL;
	}
	snprintf(full, sizeof(full), "%s%s", val, rest);
	if (wd_path_normalise(full, norm, sizeof(norm), &why)) {
		expand_error(errs, p, origin, pointer, "\"%s\" expands to \"%.200s\": %s", s, full,
			     why);
		return -EINVAL;
	}
	if (strlen(norm) > WD_LPM_PATH_BYTES - 2) {
		expand_error(errs, p, origin, pointer,
			     "\"%s\" expands to \"%.64s...\", longer than %d "
			     "bytes",
			     s, norm, WD_LPM_PATH_BYTES - 2);
		return -EINVAL;
	}
	free(*path);
	*path = strdup(norm);
	return *path ? 0 : -ENOMEM;
}

static int expand_list(struct wd_policy *p, struct wd_path_list *l, const char *base,
		       const struct wd_policy_vars *v, struct wd_policy_errors *errs)
{
	int err = 0;

	for (size_t i = 0; i < l->n; i++) {
		char ptr[64];
		int r;

		snprintf(ptr, sizeof(ptr), "%s/%zu", base, i);
		r = expand_one(&l->paths[i], v, p, l->origin[i], ptr, errs);
		if (r == -ENOMEM)
			return r;
		err = err ?: r;
	}
	return err;
}

static int expand_exec(struct wd_policy *p, struct wd_exec_list *l, const char *base,
		       const struct wd_policy_vars *v, struct wd_policy_errors *errs)
{
	int err = 0;

	for (size_t i = 0; i < l->n; i++) {
		char ptr[64];
		int r;

		snprintf(ptr, sizeof(ptr), "%s/%zu/path", base, i);
		r = expand_one(&l->v[i].path, v, p, l->v[i].origin, ptr, errs);
		if (r == -ENOMEM)
			return r;
		err = err ?: r;
	}
	return err;
}

int wd_policy_expand(struct wd_policy *p, const struct wd_policy_vars *v,
		     struct wd_policy_errors *errs)
{
	int err = 0, r = 0;

	r = expand_list(p, &p->fs_read, "/fs/read", v, errs);
	err = r == -ENOMEM ? r : err ?: r;
	r = expand_list(p, &p->fs_write, "/fs/write", v, errs);
	err = r == -ENOMEM ? r : err ?: r;
	r = expand_list(p, &p->fs_exec, "/fs/exec", v, errs);
	err = r == -ENOMEM ? r : err ?: r;
	r = expand_list(p, &p->fs_deny, "/fs/deny", v, errs);
	err = r == -ENOMEM ? r : err ?: r;
	for (size_t i = 0; i < p->n_fs_protect && err != -ENOMEM; i++) {
		char ptr[64];

		snprintf(ptr, sizeof(ptr), "/fs/protect/%zu/path", i);
		r = expand_one(&p->fs_protect[i].path, v, p, p->fs_protect[i].origin, ptr, errs);
		err = r == -ENOMEM ? r : err ?: r;
	}
	r = expand_exec(p, &p->exec_allow, "/exec/allow", v, errs);
	err = r == -ENOMEM ? r : err ?: r;
	r = expand_exec(p, &p->exec_deny, "/exec/deny", v, errs);
	err = r == -ENOMEM ? r : err ?: r;
	r = expand_exec(p, &p->exec_hold, "/exec/hold", v, errs);
	err = r == -ENOMEM ? r : err ?: r;
	r = expand_list(p, &p->ns_bind_ro, "/namespaces/bind_ro", v, errs);
	err = r == -ENOMEM ? r : err ?: r;
	return err;
}

/* ---- for warden run -------------------------------------------------------------------------- */

static void first_error(const struct wd_policy_errors *errs, const char *display, char *msg,
			size_t msgsz)
{
	size_t more, n;

	if (!errs->n) {
		snprintf(msg, msgsz, "%s: out of memory", display);
		return;
	}
	wd_policy_error_format(&errs->v[0], display, msg, msgsz);
	more = errs->n - 1 + errs->dropped;
	n = strlen(msg);
	if (more && n < msgsz)
		snprintf(msg + n, msgsz - n, " (and %zu more: `warden policy check` lists them)",
			 more);
}

int wd_policy_load_effective(const char *name, const struct wd_policy_derive *d,
			     struct wd_policy *out, char *msg, size_t msgsz)
{
	return wd_policy_load_effective_at(name, d, NULL, out, msg, msgsz);
}

int wd_policy_load_effective_at(const char *name, const struct wd_policy_derive *d,
				const char *workdir, struct wd_policy *out, char *msg,
				size_t msgsz)
{
	struct wd_load_opts o = { .derive = d };
	struct wd_policy_errors errs = { 0 };
	struct wd_policy_vars vars;
	char display[PATH_MAX + 16];
	int err;

	msg[0] = 0;
	wd_policy_source_name(name, display, sizeof(display));
	err = wd_policy_load(name, &o, out, &errs);
	if (!err) {
		wd_policy_vars_from_env(&vars);
		if (workdir)
			snprintf(vars.workdir, sizeof(vars.workdir), "%s", workdir);
		err = wd_policy_expand(out, &vars, &errs);
		if (err)
			wd_policy_free(out);
	}
	if (err)
		first_error(&errs, display, msg, msgsz);
	wd_policy_errors_free(&errs);
	return err;
}

int wd_policy_refuse_unenforced(const struct wd_policy *p, const char *name, unsigned int enforced,
				char *msg, size_t msgsz)
{
	char display[PATH_MAX + 16], why[1024];
	int err = wd_policy_unenforced_mask(p, enforced, why, sizeof(why));

	msg[0] = 0;
	if (err) {
		wd_policy_source_name(name, display, sizeof(display));
		snprintf(msg, msgsz, "%s: %s, so the policy is refused rather than run without it",
			 display, why);
	}
	return err;
}

int wd_policy_prepare(const char *name, const struct wd_policy_derive *d, struct wd_ruleset *rs,
		      char *msg, size_t msgsz)
{
	struct wd_policy_error e;
	struct wd_policy p;
	char display[PATH_MAX + 16];
	int err;

	memset(rs, 0, sizeof(*rs));
	err = wd_policy_load_effective(name, d, &p, msg, msgsz);
	if (err)
		return err;
	err = wd_policy_refuse_unenforced(&p, name, WD_FEAT_ENFORCED, msg, msgsz);
	if (!err) {
		err = wd_compile(&p, rs, &e);
		wd_policy_source_name(name, display, sizeof(display));
		if (err)
			wd_policy_error_format(&e, display, msg, msgsz);
	}
	wd_policy_free(&p);
	return err;
}
