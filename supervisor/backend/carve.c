// SPDX-License-Identifier: GPL-2.0
/*
 * Backend room: carving fs.deny out of allow rules for the landlock backend (carve.h), pure C
 * over a directory-listing callback; wd_carve_real_fs lists the real filesystem.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bpf/wd_abi.h"
#include "policy/policy.h"
#include "policy/grow.h"
#include "policy/path.h"
#include "supervisor/backend/carve.h"

struct carve {
	char *const *deny;
	size_t n_deny;
	const struct wd_carve_fs *fs;
	struct wd_carve_rule *out;
	size_t n;
	char *why;
	size_t whysz;
	int err;
};

static int emit(struct carve *c, const char *path, uint32_t access, int list_only)
{
	if (WD_GROW(c->out, c->n))
		return -ENOMEM;
	if (c->n >= WD_CARVE_MAX_RULES) {
		snprintf(c->why, c->whysz, "carving around a denied path under %s needs more than %d "
			 "rules", path, WD_CARVE_MAX_RULES);
		return -EINVAL;
	}
	c->out[c->n].path = strdup(path);
	if (!c->out[c->n].path)
		return -ENOMEM;
	c->out[c->n].access = access;
	c->out[c->n].list_only = list_only;
	c->out[c->n].protect = 0;
	c->n++;
	return 0;
}

static int carve_dir(struct carve *c, const char *dir, uint32_t access);

struct entry_arg {
	struct carve *c;
	const char *dir;
	uint32_t access;
};

static int on_entry(void *arg, const char *name)
{
	struct entry_arg *a = arg;
	struct carve *c = a->c;
	bool denied = false, has_below = false;
	char child[4096];

	if ((size_t)snprintf(child, sizeof(child), "%s/%s", strcmp(a->dir, "/") ? a->dir : "",
			     name) >= sizeof(child))
		return -ENAMETOOLONG;
	for (size_t i = 0; i < c->n_deny; i++) {
		if (strcmp(c->deny[i], child) == 0)
			denied = true;
		else if (wd_path_strictly_within(c->deny[i], child))
			has_below = true;
	}
	if (denied)
		return 0;
	if (has_below)
		return carve_dir(c, child, a->access);
	return emit(c, child, a->access, 0);
}

/* @dir is allowed @access except for the denied paths under it. */
static int carve_dir(struct carve *c, const char *dir, uint32_t access)
{
	struct entry_arg a = { .c = c, .dir = dir, .access = access };
	bool dir_denied_below = false;
	int err;

	/*
	 * Landlock's right to list a directory covers every directory beneath it: @dir may be
	 * listed only when no denied directory lies anywhere below.
	 */
	for (size_t i = 0; i < c->n_deny; i++) {
		if (!wd_path_strictly_within(c->deny[i], dir))
			continue;
		if (c->fs->kind(c->fs->ctx, c->deny[i]) == 'd')
			dir_denied_below = true;
	}
	err = c->fs->list(c->fs->ctx, dir, on_entry, &a);
	if (err) {
		if (!c->why[0])
			snprintf(c->why, c->whysz, "cannot list %s to carve out a denied path: %s",
				 dir, strerror(-err));
		return err == -ENOMEM ? err : -EINVAL;
	}
	if (!dir_denied_below)
		return emit(c, dir, access, 1);
	return 0;
}

int wd_carve(const struct wd_carve_rule *allow, size_t n_allow, char *const *deny, size_t n_deny,
	     const struct wd_carve_fs *fs, struct wd_carve_rule **out, size_t *n_out, char *why,
	     size_t whysz)
{
	return wd_carve_missing(allow, n_allow, deny, n_deny, false, fs, out, n_out, why, whysz);
}

int wd_carve_missing(const struct wd_carve_rule *allow, size_t n_allow, char *const *deny,
		     size_t n_deny, bool missing_ok, const struct wd_carve_fs *fs,
		     struct wd_carve_rule **out, size_t *n_out, char *why, size_t whysz)
{
	struct carve c = { .deny = deny, .n_deny = n_deny, .fs = fs, .why = why, .whysz = whysz };
	int err = 0;

	why[0] = 0;
	*out = NULL;
	*n_out = 0;
	for (size_t i = 0; i < n_deny; i++) {
		bool inside = false;

		for (size_t a = 0; a < n_allow; a++)
			if (wd_path_strictly_within(deny[i], allow[a].path))
				inside = true;
		/*
		 * A denied path that does not exist inside an allowed tree could appear there
		 * later, after the siblings were listed: that cannot be expressed.
		 */
		if (inside && !missing_ok && !fs->kind(fs->ctx, deny[i])) {
			snprintf(why, whysz, "denied path %s does not exist; inside an allowed tree "
				 "it must exist when the sandbox starts", deny[i]);
			return -EINVAL;
		}
	}
	for (size_t a = 0; a < n_allow && !err; a++) {
		bool dropped = false, carved = false;

		for (size_t i = 0; i < n_deny; i++) {
			if (strcmp(deny[i], allow[a].path) == 0 ||
			    wd_path_strictly_within(allow[a].path, deny[i]))
				dropped = true; /* the deny covers the whole allowed tree */
			else if (wd_path_strictly_within(deny[i], allow[a].path))
				carved = true;
		}
		if (dropped)
			continue;
		if (carved)
			err = carve_dir(&c, allow[a].path, allow[a].access);
		else
			err = emit(&c, allow[a].path, allow[a].access, allow[a].list_only);
	}
	if (err) {
		wd_carve_free(c.out, c.n);
		return err;
	}
	*out = c.out;
	*n_out = c.n;
	return 0;
}

void wd_carve_free(struct wd_carve_rule *rules, size_t n)
{
	for (size_t i = 0; rules && i < n; i++)
		free(rules[i].path);
	free(rules);
}

size_t wd_carve_protect(struct wd_carve_rule *rules, size_t n, char *const *trees,
			const unsigned int *ops, size_t n_trees)
{
	const unsigned int remove = WD_PROTECT_DELETE | WD_PROTECT_RENAME;
	size_t carved = 0;

	for (size_t t = 0; t < n_trees; t++) {
		unsigned int take = ops[t] & WD_PROTECT_TRUNCATE;
		bool above = false;

		if ((ops[t] & remove) == remove)
			take |= remove;
		for (size_t i = 0; i < n; i++)
			if ((rules[i].access & WD_ACC_WRITE) && !rules[i].list_only &&
			    wd_path_strictly_within(trees[t], rules[i].path))
				above = true;
		if (above || !take)
			continue;
		for (size_t i = 0; i < n; i++)
			if ((rules[i].access & WD_ACC_WRITE) && wd_path_within(rules[i].path, trees[t]))
				rules[i].protect |= take;
		carved++;
	}
	return carved;
}

static int real_list(void *ctx, const char *dir, int (*fn)(void *arg, const char *name),
		     void *arg)
{
	struct dirent *de;
	DIR *d;
	int err = 0;

	(void)ctx;
	d = opendir(dir);
	if (!d)
		return -errno;
	while (!err && (errno = 0, de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		err = fn(arg, de->d_name);
	}
	if (!err && errno)
		err = -errno;
	closedir(d);
	return err;
}

static char real_kind(void *ctx, const char *path)
{
	struct stat st;

	(void)ctx;
	if (lstat(path, &st))
		return 0;
	return S_ISDIR(st.st_mode) ? 'd' : 'f';
}

const struct wd_carve_fs wd_carve_real_fs = {
	.list = real_list,
	.kind = real_kind,
	.ctx = NULL,
};
