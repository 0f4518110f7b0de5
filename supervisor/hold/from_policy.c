// SPDX-License-Identifier: GPL-2.0
/*
 * A policy as the waiting room's rules (supervisor/hold/): fs.protect, exec.hold and the hold
 * settings turned into struct wd_hold_rules, with the multiply-linked files under protected trees
 * gathered at start and a tree that a second mount shows under another name refused.
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "policy/grow.h"
#include "policy/path.h"
#include "supervisor/util/fsutil.h"
#include "supervisor/hold/from_policy.h"

static unsigned int classes_of(unsigned int ops)
{
	return ((ops & WD_PROTECT_DELETE) ? WD_HOLD_DELETE : 0) |
	       ((ops & WD_PROTECT_RENAME) ? WD_HOLD_RENAME : 0) |
	       ((ops & WD_PROTECT_TRUNCATE) ? WD_HOLD_TRUNCATE : 0);
}

/* A decimal id ("1000"), or -1. */
static long numeric_id(const char *s)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	return *end || errno || v < 0 || v >= (long)UINT32_MAX ? -1 : v;
}

/*
 * hold.approvers as ids, looked up now: the run that starts is the one whose users count, and a
 * name that means nothing here is an error rather than an approver nobody can be.
 */
static int resolve_approvers(const struct wd_policy *p, struct wd_hold_rules *r, char *why,
			     size_t whysz)
{
	size_t n = p->hold_approvers.n;
	uid_t *uids = calloc(n + 1, sizeof(*uids));
	gid_t *gids = calloc(n + 1, sizeof(*gids));
	int err = 0;

	r->approver_uids = uids;
	r->approver_gids = gids;
	if (!uids || !gids)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *a = p->hold_approvers.paths[i];
		bool user = strncmp(a, "user:", 5) == 0;
		const char *name = strchr(a, ':') + 1;
		long id = numeric_id(name);

		if (user && id < 0) {
			struct passwd *pw = getpwnam(name);

			id = pw ? (long)pw->pw_uid : -1;
		} else if (!user && id < 0) {
			struct group *gr = getgrnam(name);

			id = gr ? (long)gr->gr_gid : -1;
		}
		if (id < 0) {
			snprintf(why, whysz, "/hold/approvers/%zu: there is no %s \"%s\" on this system",
				 i, user ? "user" : "group", name);
			err = -EINVAL;
			break;
		}
		if (user)
			uids[r->n_approver_uids++] = (uid_t)id;
		else
			gids[r->n_approver_gids++] = (gid_t)id;
	}
	return err;
}

/* The multiply-linked files of the trees protected from truncation, gathered at start. */
struct linked_set {
	struct wd_linked_file *v;
	size_t n, rule;
};

static int add_linked(void *arg, const char *path, const struct stat *st)
{
	struct linked_set *ls = arg;

	(void)path;
	if (WD_GROW(ls->v, ls->n))
		return -ENOMEM;
	ls->v[ls->n++] = (struct wd_linked_file){ st->st_dev, st->st_ino, ls->rule };
	return 0;
}

static int find_linked(struct wd_hold_rules *r, char *why, size_t whysz)
{
	struct linked_set ls = { 0 };
	struct stat st;
	int err = 0;

	for (size_t i = 0; i < r->n_protect && !err; i++) {
		if (!(r->protect[i].classes & WD_HOLD_TRUNCATE) || lstat(r->protect[i].path, &st) ||
		    !S_ISDIR(st.st_mode))
			continue; /* nothing there yet, or a file: its name is the only way there */
		ls.rule = i;
		err = wd_walk_linked(r->protect[i].path, WD_LINKED_FILES_MAX, add_linked, &ls);
		if (err == -E2BIG)
			snprintf(why, whysz, "%s: more than %d files under %s have another name too",
				 r->protect[i].name, WD_LINKED_FILES_MAX, r->protect[i].path);
		else if (err && err != -ENOMEM)
			err = 0; /* a tree that cannot be walked: its names are all there is */
	}
	r->linked = ls.v;
	r->n_linked = ls.n;
	return err;
}

/* One line of mountinfo: where a mount is, which file system, and which of its directories. */
struct mnt {
	unsigned int major, minor;
	char root[PATH_MAX]; /* the directory of the file system it shows */
	char point[PATH_MAX]; /* where */
};

/* mountinfo's octal escapes (\040 for a space, ...) undone, in place. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
}

static bool parse_mnt(char *line, struct mnt *m)
{
	char root[PATH_MAX], point[PATH_MAX];

	if (sscanf(line, "%*u %*u %u:%u %4095s %4095s", &m->major, &m->minor, root, point) != 4)
		return false;
	unescape(root);
	unescape(point);
	snprintf(m->root, sizeof(m->root), "%s", root);
	snprintf(m->point, sizeof(m->point), "%s", point);
	return true;
}

/* @path with its prefix @under (a path-within prefix) replaced by @by, into @out. */
static void rebase(const char *path, const char *under, const char *by, char *out, size_t outsz)
{
	const char *rest = strcmp(under, "/") == 0 ? path : path + strlen(under);

	snprintf(out, outsz, "%s%s", strcmp(by, "/") == 0 && *rest ? "" : by, rest);
}

/* Does another protect rule cover @alias with every class of rule @i (so the alias is held too)? */
static bool alias_protected(const struct wd_hold_rules *r, size_t i, const char *alias)
{
	for (size_t j = 0; j < r->n_protect; j++)
		if (j != i && wd_path_within(alias, r->protect[j].path) &&
		    (r->protect[j].classes & r->protect[i].classes) == r->protect[i].classes &&
		    (r->protect[j].action == WD_HOLD_ACT_DENY ||
		     r->protect[i].action == WD_HOLD_ACT_HOLD))
			return true;
	return false;
}

/*
 * A protected tree that is also mounted elsewhere (a bind mount of it, of a directory above it
 * or of one below it, made before the run) could be deleted, renamed or truncated under the
 * other name, which no rule names and bpf-lsm's path rules do not see. Refused at start, naming
 * the alias, unless a protect rule at least as strict covers the alias too (as bubblewrap and
 * systemd, which see only paths, leave aliases to whoever mounts them, warden cannot resolve an
 * alias at each call without a walk of every mount: so it refuses to start instead).
 */
static int find_aliases(const struct wd_hold_rules *r, char *why, size_t whysz)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	struct mnt *v = NULL, m;
	size_t n = 0;
	char *line = NULL;
	size_t linesz = 0;
	int err = 0;

	if (!f)
		return 0; /* no /proc: nothing to compare with (the run's own checks need it anyway) */
	while (getline(&line, &linesz, f) > 0) {
		if (!parse_mnt(line, &m))
			continue;
		if (WD_GROW(v, n)) {
			err = -ENOMEM;
			goto out;
		}
		v[n++] = m;
	}
	for (size_t i = 0; i < r->n_protect && !err; i++) {
		char real[PATH_MAX], inside[PATH_MAX], alias[PATH_MAX];
		const char *path = realpath(r->protect[i].path, real) ? real : r->protect[i].path;
		ssize_t at = -1;

		/* the mount that shows @path: the longest mount point above it, the last one there */
		for (size_t k = 0; k < n; k++)
			if (wd_path_within(path, v[k].point) &&
			    (at < 0 || strlen(v[k].point) >= strlen(v[at].point)))
				at = (ssize_t)k;
		if (at < 0)
			continue;
		/* @path as a directory of its file system */
		rebase(path, v[at].point, v[at].root, inside, sizeof(inside));
		for (size_t k = 0; k < n && !err; k++) {
			if ((ssize_t)k == at || v[k].major != v[at].major ||
			    v[k].minor != v[at].minor)
				continue;
			if (wd_path_within(inside, v[k].root))
				/* shows the tree itself, under another name */
				rebase(inside, v[k].root, v[k].point, alias, sizeof(alias));
			else if (wd_path_within(v[k].root, inside))
				/* shows a part of it */
				snprintf(alias, sizeof(alias), "%s", v[k].point);
			else
				continue;
			if (strcmp(v[k].point, v[at].point) == 0)
				continue; /* under the mount that shows the tree: hidden by it */
			if (alias_protected(r, i, alias))
				continue;
			snprintf(why, whysz,
				 "%s: %s is also mounted at %s (a bind mount), where no rule protects "
				 "it: unmount it, or protect %s too",
				 r->protect[i].name, r->protect[i].path, alias, alias);
			err = -EINVAL;
		}
	}
out:
	free(line);
	free(v);
	fclose(f);
	return err;
}

int wd_hold_rules_build(const struct wd_policy *p, struct wd_hold_rules *r, char *why,
			size_t whysz)
{
	struct wd_protect_rule *protect = NULL;
	struct wd_exec_hold_rule *exec = NULL;
	int err;

	memset(r, 0, sizeof(*r));
	if (why && whysz)
		why[0] = 0;
	protect = calloc(p->n_fs_protect + 1, sizeof(*protect));
	exec = calloc(p->exec_hold.n + p->exec_deny.n + 1, sizeof(*exec));
	if (!protect || !exec)
		goto out_nomem;
	for (size_t i = 0; i < p->n_fs_protect; i++) {
		char *name;

		if (asprintf(&name, "/fs/protect/%zu", i) < 0)
			goto out_nomem;
		protect[i] = (struct wd_protect_rule){
			.path = p->fs_protect[i].path,
			.classes = classes_of(p->fs_protect[i].ops),
			.action = p->fs_protect[i].action == WD_ACTION_HOLD ? WD_HOLD_ACT_HOLD :
									      WD_HOLD_ACT_DENY,
			.name = name,
		};
		r->n_protect++;
	}
	for (size_t i = 0; i < p->exec_hold.n; i++) {
		const struct wd_exec_rule *e = &p->exec_hold.v[i];
		char *name;

		if (asprintf(&name, "/exec/hold/%zu", i) < 0)
			goto out_nomem;
		exec[i] = (struct wd_exec_hold_rule){ .path = e->path, .has_argv = e->has_argv,
						      .argv = e->argv, .argc = e->argc,
						      .action = WD_HOLD_ACT_HOLD, .name = name };
		r->n_exec++;
	}
	/* exec.deny by arguments: only the waiting room can read them (exec.deny by path alone
	 * is the kernel's rule, compiled into the backend's) */
	for (size_t i = 0; i < p->exec_deny.n; i++) {
		const struct wd_exec_rule *e = &p->exec_deny.v[i];
		char *name;

		if (!e->has_argv)
			continue;
		if (asprintf(&name, "/exec/deny/%zu", i) < 0)
			goto out_nomem;
		exec[r->n_exec++] = (struct wd_exec_hold_rule){ .path = e->path, .has_argv = true,
								.argv = e->argv, .argc = e->argc,
								.action = WD_HOLD_ACT_DENY,
								.name = name };
	}
	r->protect = protect;
	r->exec = exec;
	/* nobody answering must not hold a sandbox forever: 5 minutes unless the policy says */
	r->timeout_ms = p->hold_timeout_set.set ? p->hold_timeout_ms : WD_HOLD_DEFAULT_TIMEOUT_MS;
	r->timeout_allows = p->hold_on_timeout == WD_ACTION_ALLOW;
	if (p->hold_burst_set.set) {
		r->burst_count = p->hold_burst_count;
		r->burst_ms = (unsigned int)p->hold_burst_window_ms;
	}
	err = resolve_approvers(p, r, why, whysz);
	if (!err)
		err = find_linked(r, why, whysz);
	if (!err)
		err = find_aliases(r, why, whysz);
	if (err)
		wd_hold_rules_free(r);
	return err;

out_nomem:
	r->protect = protect;
	r->exec = exec;
	wd_hold_rules_free(r);
	return -ENOMEM;
}

void wd_hold_rules_free(struct wd_hold_rules *r)
{
	for (size_t i = 0; r->protect && i < r->n_protect; i++)
		free((char *)r->protect[i].name);
	for (size_t i = 0; r->exec && i < r->n_exec; i++)
		free((char *)r->exec[i].name);
	free((void *)r->protect);
	free((void *)r->exec);
	free((void *)r->approver_uids);
	free((void *)r->approver_gids);
	free((void *)r->linked);
	memset(r, 0, sizeof(*r));
}

unsigned int wd_hold_rules_classes(const struct wd_hold_rules *r)
{
	unsigned int c = 0;

	for (size_t i = 0; i < r->n_protect; i++)
		c |= r->protect[i].classes;
	if (r->n_exec)
		c |= WD_HOLD_EXEC;
	if (r->burst_count)
		c |= WD_HOLD_DELETE;
	return c;
}
