// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "policy/compile.h"

struct src_rule {
	const char *path;
	__u32 access; /* WD_ACC_* */
	__u32 id;
};

static int entry_cmp(const void *a, const void *b)
{
	const struct wd_rule_entry *x = a, *y = b;
	__u32 n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->path, y->path, n);

	if (c)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

/* Does rule @r (a normalised path) cover the stored prefix @e? */
static bool covers(const struct src_rule *r, const struct wd_rule_entry *e)
{
	size_t n = strlen(r->path);

	if (n == 1) /* "/" covers everything */
		return true;
	if (e->len < n + 1 || memcmp(e->path, r->path, n) != 0)
		return false;
	/* "/etc/..." or exactly "/etc\0" */
	return e->path[n] == '/' || (e->path[n] == 0 && e->len == n + 1);
}

static int add_entry(struct wd_ruleset *rs, size_t *cap, const char *path, size_t len)
{
	struct wd_rule_entry *e;

	for (size_t i = 0; i < rs->n_entries; i++)
		if (rs->entries[i].len == len && memcmp(rs->entries[i].path, path, len) == 0)
			return 0;
	if (rs->n_entries == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		struct wd_rule_entry *ne = realloc(rs->entries, ncap * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		rs->entries = ne;
		*cap = ncap;
	}
	e = &rs->entries[rs->n_entries++];
	memset(e, 0, sizeof(*e));
	memcpy(e->path, path, len);
	e->len = (__u32)len;
	return 0;
}

int wd_compile(const struct wd_policy *p, struct wd_ruleset *rs, struct wd_policy_error *err)
{
	const struct {
		const struct wd_path_list *list;
		__u32 access;
		const char *pointer;
	} sets[] = {
		{ &p->fs_read, WD_ACC_READ, "/fs/read" },
		/* Writing a tree implies reading it (an O_RDWR open needs both). */
		{ &p->fs_write, WD_ACC_READ | WD_ACC_WRITE, "/fs/write" },
		{ &p->fs_exec, WD_ACC_EXEC, "/fs/exec" },
	};
	struct src_rule *rules = NULL;
	size_t nrules = 0, cap = 0, total = 0;
	int r = 0;

	memset(rs, 0, sizeof(*rs));
	memset(err, 0, sizeof(*err));
	rs->sandbox_flags = p->mode == WD_MODE_AUDIT ? WD_SB_AUDIT_MODE : 0;
	for (size_t s = 0; s < sizeof(sets) / sizeof(sets[0]); s++)
		total += sets[s].list->n;

	rules = calloc(total + 1, sizeof(*rules));
	rs->rule_names = calloc(total + 1, sizeof(char *));
	if (!rules || !rs->rule_names) {
		r = -ENOMEM;
		goto out_free;
	}
	rs->rule_names[0] = strdup("default");
	if (!rs->rule_names[0]) {
		r = -ENOMEM;
		goto out_free;
	}
	rs->n_rules = 1;

	for (size_t s = 0; s < sizeof(sets) / sizeof(sets[0]); s++) {
		for (size_t i = 0; i < sets[s].list->n; i++) {
			const char *path = sets[s].list->paths[i];
			size_t n = strlen(path);
			char name[64];

			if (n + 1 >= WD_LPM_PATH_BYTES) {
				snprintf(err->pointer, sizeof(err->pointer), "%s/%zu",
					 sets[s].pointer, i);
				snprintf(err->msg, sizeof(err->msg),
					 "path is longer than %d bytes", WD_LPM_PATH_BYTES - 2);
				r = -EINVAL;
				goto out_free;
			}
			snprintf(name, sizeof(name), "%s/%zu", sets[s].pointer, i);
			rs->rule_names[rs->n_rules] = strdup(name);
			if (!rs->rule_names[rs->n_rules]) {
				r = -ENOMEM;
				goto out_free;
			}
			rules[nrules].path = path;
			rules[nrules].access = sets[s].access;
			rules[nrules].id = (__u32)rs->n_rules++;
			nrules++;

			if (n == 1) {
				r = add_entry(rs, &cap, "/", 1);
			} else {
				char buf[WD_LPM_PATH_BYTES] = { 0 };

				memcpy(buf, path, n);
				buf[n] = '/';
				r = add_entry(rs, &cap, buf, n + 1);
				buf[n] = 0;
				if (!r)
					r = add_entry(rs, &cap, buf, n + 1);
			}
			if (r)
				goto out_free;
		}
	}

	/* Each stored prefix gets what every rule covering it grants; the longest rule names it. */
	for (size_t e = 0; e < rs->n_entries; e++) {
		struct wd_rule_entry *ent = &rs->entries[e];
		size_t best[WD_ACC_IDX_NR] = { 0 };

		for (size_t i = 0; i < nrules; i++) {
			size_t n = strlen(rules[i].path);

			if (!covers(&rules[i], ent))
				continue;
			ent->val.allow |= rules[i].access;
			for (int idx = 0; idx < WD_ACC_IDX_NR; idx++) {
				if (!(rules[i].access & (1u << idx)))
					continue;
				if (!ent->val.rule[idx] || n > best[idx]) {
					ent->val.rule[idx] = rules[i].id;
					best[idx] = n;
				}
			}
		}
	}
	qsort(rs->entries, rs->n_entries, sizeof(*rs->entries), entry_cmp);

out_free:
	free(rules);
	if (r)
		wd_ruleset_free(rs);
	return r;
}

void wd_ruleset_free(struct wd_ruleset *rs)
{
	for (size_t i = 0; rs->rule_names && i < rs->n_rules; i++)
		free(rs->rule_names[i]);
	free(rs->rule_names);
	free(rs->entries);
	memset(rs, 0, sizeof(*rs));
}

void wd_rule_entry_key(const struct wd_rule_entry *e, __u64 sandbox, struct wd_path_key *key)
{
	memset(key, 0, sizeof(*key));
	key->prefixlen = 64 + e->len * 8;
	key->sandbox[0] = (__u32)sandbox;
	key->sandbox[1] = (__u32)(sandbox >> 32);
	memcpy(key->path, e->path, e->len);
}

const char *wd_ruleset_rule_name(const struct wd_ruleset *rs, __u32 id)
{
	if (id == WD_RULE_DEFAULT || id >= rs->n_rules)
		return "default";
	return rs->rule_names[id];
}

const struct wd_rule_entry *wd_ruleset_lookup(const struct wd_ruleset *rs, const char *path)
{
	const struct wd_rule_entry *best = NULL;
	size_t n = strlen(path) + 1;

	if (n > WD_LPM_PATH_BYTES)
		n = WD_LPM_PATH_BYTES;
	for (size_t i = 0; i < rs->n_entries; i++) {
		const struct wd_rule_entry *e = &rs->entries[i];

		if (e->len <= n && memcmp(e->path, path, e->len) == 0 &&
		    (!best || e->len > best->len))
			best = e;
	}
	return best;
}

void wd_ruleset_dump(const struct wd_ruleset *rs, FILE *out)
{
	fprintf(out, "flags %s\n", rs->sandbox_flags & WD_SB_AUDIT_MODE ? "audit" : "enforce");
	for (size_t i = 0; i < rs->n_entries; i++) {
		const struct wd_rule_entry *e = &rs->entries[i];
		__u32 a = e->val.allow;

		/* The object-itself prefix ends in NUL, shown as "$". */
		fprintf(out, "%.*s%s %c%c%c", (int)(e->path[e->len - 1] ? e->len : e->len - 1),
			e->path, e->path[e->len - 1] ? "" : "$", a & WD_ACC_READ ? 'r' : '-',
			a & WD_ACC_WRITE ? 'w' : '-', a & WD_ACC_EXEC ? 'x' : '-');
		if (a & WD_ACC_READ)
			fprintf(out, " read=%s", wd_ruleset_rule_name(rs, e->val.rule[WD_ACC_IDX_READ]));
		if (a & WD_ACC_WRITE)
			fprintf(out, " write=%s",
				wd_ruleset_rule_name(rs, e->val.rule[WD_ACC_IDX_WRITE]));
		if (a & WD_ACC_EXEC)
			fprintf(out, " exec=%s", wd_ruleset_rule_name(rs, e->val.rule[WD_ACC_IDX_EXEC]));
		fputc('\n', out);
	}
}
