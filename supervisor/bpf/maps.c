// SPDX-License-Identifier: GPL-2.0
/*
 * The per-sandbox map entries of the loader (supervisor/bpf/progs.h): path rules, fs.deny and
 * fs.protect by path, protected inodes by (dev, ino), and the sandbox entry that turns them on,
 * added rules first and removed in the reverse order.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "policy/grow.h"
#include "policy/path.h"
#include "supervisor/net/entries.h"
#include "supervisor/bpf/devid.h"
#include "supervisor/bpf/progs_int.h"
#include "supervisor/net/rate.h"
#include "supervisor/util/fsutil.h"
#include "supervisor/util/log.h"

_Static_assert(sizeof(struct wd_inode_key) == 24, "wd_inode_key size");
_Static_assert(sizeof(struct wd_inode_rule) == 16, "wd_inode_rule size");
_Static_assert((int)WD_PROT_DELETE == (int)WD_PROTECT_DELETE &&
		       (int)WD_PROT_RENAME == (int)WD_PROTECT_RENAME &&
		       (int)WD_PROT_TRUNCATE == (int)WD_PROTECT_TRUNCATE,
	       "fs.protect ops are the kernel's bits");

/*
 * A map of the one set per host (bpf/wd_abi.h, WD_MAX_*) is full: a clear refusal naming it,
 * never a sandbox started with part of its rules. @err as bpf_map_update_elem gave it.
 */
static int say_full(const char *map, unsigned int max, int err)
{
	if (err == -E2BIG || err == -ENOSPC)
		log_warnx("bpf: the map %s is full (%u entries for all sandboxes on this host)", map,
			  max);
	return err;
}

/*
 * Put @add into the wd_inodes entry of the object at @path, keeping what an earlier rule put
 * there (an fs.deny and an fs.protect can name the same object).
 */
static int inode_put(struct wd_progs *progs, uint64_t sandbox, const char *path,
		     const struct wd_inode_rule *add)
{
	int fd = progs->maps[WD_MAP_INODES];
	struct wd_inode_key key = { .sandbox = sandbox };
	struct wd_devid id;
	int err;

	err = wd_devid_of(path, &id);
	if (err) {
		log_warnx("bpf: cannot protect %s: %s", path, strerror(-err));
		return err;
	}
	key.ino = id.ino;
	/* room for the two entries below (WD_GROW: capacity follows the length) */
	if (WD_GROW(progs->inodes, progs->n_inodes) || WD_GROW(progs->inodes, progs->n_inodes + 1))
		return -ENOMEM;
	/* one entry per device number the BPF side may compute (supervisor/bpf/devid.h) */
	for (int i = 0; i < (id.sb_dev != id.stat_dev ? 2 : 1); i++) {
		struct wd_inode_rule val = *add, old;

		key.dev = i ? id.sb_dev : id.stat_dev;
		if (bpf_map_lookup_elem(fd, &key, &old) == 0) {
			if (!val.deny) {
				val.deny = old.deny;
				val.rule = old.rule;
			}
			if (!val.protect) {
				val.protect = old.protect;
				val.protect_rule = old.protect_rule;
			}
		}
		err = bpf_map_update_elem(fd, &key, &val, BPF_ANY);
		if (err) {
			say_full("wd_inodes", WD_MAX_INODES, err);
			log_warnx("bpf: cannot protect %s: %s", path, strerror(-err));
			return err;
		}
		progs->inodes[progs->n_inodes++] = key;
	}
	return 0;
}

int wd_progs_protect_inode(struct wd_progs *progs, uint64_t sandbox, const char *path,
			   uint32_t deny, uint32_t rule)
{
	struct wd_inode_rule val = { .deny = deny, .rule = rule };

	/* the recorders decide nothing: there is no inode map to fill */
	if (progs->set != WD_PROGS_LSM)
		return 0;
	return inode_put(progs, sandbox, path, &val);
}

static void inodes_remove(struct wd_progs *progs, uint64_t sandbox)
{
	int fd = progs->maps[WD_MAP_INODES];
	size_t kept = 0;

	for (size_t i = 0; i < progs->n_inodes; i++) {
		if (progs->inodes[i].sandbox == sandbox)
			bpf_map_delete_elem(fd, &progs->inodes[i]);
		else
			progs->inodes[kept++] = progs->inodes[i];
	}
	progs->n_inodes = kept;
}

/* Every access denied, the fs.deny rule @id named for each. */
static void deny_rule(struct wd_path_rule *val, uint32_t id)
{
	val->allow = 0;
	for (int i = 0; i < WD_ACC_IDX_NR; i++)
		val->rule[i] = id;
}

static void deny_paths_free(char **paths, size_t n)
{
	for (size_t i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
}

/*
 * @n paths (the i-th from @path_at) as the kernel will name them: symlinks in them followed
 * where they exist, as written where they do not.
 */
static char **real_paths(const struct wd_ruleset *rs, size_t n,
			 const char *(*path_at)(const struct wd_ruleset *rs, size_t i))
{
	char **out = calloc(n + 1, sizeof(*out));

	for (size_t i = 0; out && i < n; i++) {
		out[i] = realpath(path_at(rs, i), NULL);
		if (!out[i])
			out[i] = strdup(path_at(rs, i));
		if (!out[i]) {
			deny_paths_free(out, i);
			out = NULL;
		}
	}
	return out;
}

static const char *deny_path_at(const struct wd_ruleset *rs, size_t i)
{
	return rs->fs_deny[i].path;
}

/* fs.deny paths as the kernel will name them. */
static char **deny_paths(const struct wd_ruleset *rs)
{
	return real_paths(rs, rs->n_fs_deny, deny_path_at);
}

/*
 * fs.deny wins over every allow: each compiled prefix at or under a denied path is stored with
 * nothing allowed, and the denied path itself is stored as "path/" and "path\0" the same way.
 */
static int denies_add(struct wd_progs *progs, uint64_t sandbox, const struct wd_ruleset *rs,
		      char **deny)
{
	size_t n = rs->n_fs_deny;
	int fd = progs->maps[WD_MAP_PATHS];
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		size_t len = strlen(deny[i]);
		struct wd_rule_entry e = { 0 };

		for (int form = 0; form < (len == 1 ? 1 : 2) && !err; form++) {
			struct wd_path_key *key;

			if (WD_GROW(progs->denies, progs->n_denies))
				return -ENOMEM;
			key = &progs->denies[progs->n_denies];
			if (len + 1 >= sizeof(e.path))
				return -ENAMETOOLONG;
			memcpy(e.path, deny[i], len);
			e.path[len] = form == 0 && len > 1 ? '/' : 0;
			e.len = len == 1 ? 1 : (uint32_t)len + 1;
			deny_rule(&e.val, rs->fs_deny[i].id);
			wd_rule_entry_key(&e, sandbox, key);
			err = bpf_map_update_elem(fd, key, &e.val, BPF_ANY);
			if (err)
				say_full("wd_paths", WD_MAX_PATHS, err);
			if (err)
				log_warnx("bpf: cannot add the fs.deny rule for %s: %s", deny[i],
					  strerror(-err));
			else
				progs->n_denies++;
		}
	}
	return err;
}

/* Delete @sandbox's keys among the @n in @keys from the map @fd; keep the others' in order. */
static void keys_remove(int fd, struct wd_path_key *keys, size_t *n, uint64_t sandbox)
{
	size_t kept = 0;

	for (size_t i = 0; i < *n; i++) {
		struct wd_path_key *k = &keys[i];

		if (k->sandbox[0] == (__u32)sandbox && k->sandbox[1] == (__u32)(sandbox >> 32))
			bpf_map_delete_elem(fd, k);
		else
			keys[kept++] = *k;
	}
	*n = kept;
}

static void denies_remove(struct wd_progs *progs, uint64_t sandbox)
{
	keys_remove(progs->maps[WD_MAP_PATHS], progs->denies, &progs->n_denies,
		    sandbox);
}

/* What protect_linked() stores for each multiply-linked file of a tree. */
struct linked_put {
	struct wd_progs *progs;
	uint64_t sandbox;
	struct wd_inode_rule val;
	int err;
};

static int linked_put_one(void *arg, const char *path, const struct stat *st)
{
	struct linked_put *lp = arg;

	(void)st;
	lp->err = inode_put(lp->progs, lp->sandbox, path, &lp->val);
	return lp->err;
}

/*
 * Store @val for the files under @tree with another name (a hard link made before the sandbox
 * started can reach them from anywhere; link() of them from inside is denied).
 */
static int protect_linked(struct wd_progs *progs, uint64_t sandbox, const char *tree,
			  const struct wd_inode_rule *val, const char *what)
{
	struct linked_put lp = { progs, sandbox, *val, 0 };
	int err = wd_walk_linked(tree, WD_LINKED_FILES_MAX, linked_put_one, &lp);

	if (lp.err)
		return lp.err;
	if (err == -E2BIG) {
		log_warnx("bpf: more than %d multiply-linked files under an %s path",
			  WD_LINKED_FILES_MAX, what);
		return err;
	}
	if (err) {
		errno = -err;
		log_warn("bpf: cannot walk the %s tree %s", what, tree);
	}
	return 0;
}

/*
 * An fs.deny object is also protected by inode, as are the files under it that have another
 * name (a hard link made before the sandbox started): no name reaches them.
 */
static int denies_protect(struct wd_progs *progs, uint64_t sandbox, const struct wd_ruleset *rs,
			  char **deny)
{
	size_t n = rs->n_fs_deny;
	struct stat st;
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		if (lstat(deny[i], &st))
			continue; /* nothing there yet: the path rule covers what appears */
		err = wd_progs_protect_inode(progs, sandbox, deny[i],
					     WD_ACC_READ | WD_ACC_WRITE | WD_ACC_EXEC,
					     rs->fs_deny[i].id);
		if (err || !S_ISDIR(st.st_mode))
			continue;
		err = protect_linked(progs, sandbox, deny[i],
				     &(struct wd_inode_rule){ .deny = WD_ACC_READ | WD_ACC_WRITE |
								      WD_ACC_EXEC,
							      .rule = rs->fs_deny[i].id },
				     "fs.deny");
	}
	return err;
}

/*
 * An exec.deny object (by path alone) is denied exec by inode as well, and so are the files under
 * it with another name: a hard link made before the sandbox started does not run it under a name
 * fs.exec allows. (A copy is another inode: docs/policy.md says what stops it.)
 */
static int exec_denies_protect(struct wd_progs *progs, uint64_t sandbox,
			       const struct wd_ruleset *rs)
{
	struct stat st;
	int err = 0;

	for (size_t i = 0; i < rs->n_exec && !err; i++) {
		const struct wd_rs_exec *x = &rs->exec[i];

		if (x->action != WD_ACTION_DENY || x->has_argv || lstat(x->path, &st))
			continue; /* argv rules are the waiting room's; nothing there: the path rule */
		err = wd_progs_protect_inode(progs, sandbox, x->path, WD_ACC_EXEC, x->id);
		if (err || !S_ISDIR(st.st_mode))
			continue;
		err = protect_linked(progs, sandbox, x->path,
				     &(struct wd_inode_rule){ .deny = WD_ACC_EXEC, .rule = x->id },
				     "exec.deny");
	}
	return err;
}

/* Is the stored prefix @c the exact name ("dir\0") of a directory strictly above @tree? */
static bool prefix_above_tree(const char *c, size_t clen, const char *tree)
{
	size_t n = clen - 1;

	return !c[n] && n > 1 && strlen(tree) > n && memcmp(c, tree, n) == 0 && tree[n] == '/';
}

/*
 * The wd_protect value of the stored prefix @c: every fs.protect tree that holds it gives its
 * ops (the longest names each), and a tree below an exact directory name makes renaming that
 * directory refused too.
 */
static void protect_value(const struct wd_ruleset *rs, char **trees, const char *c, size_t clen,
			  struct wd_protect_val *val)
{
	size_t best[WD_PROT_IDX_NR] = { 0 };

	memset(val, 0, sizeof(*val));
	for (size_t j = 0; j < rs->n_protect; j++) {
		size_t n = strlen(trees[j]);

		if (!wd_path_within_n(c, clen, trees[j]))
			continue;
		val->ops |= rs->protect[j].ops;
		for (int i = 0; i < WD_PROT_IDX_NR; i++) {
			if ((rs->protect[j].ops & (1u << i)) && (!val->rule[i] || n > best[i])) {
				val->rule[i] = rs->protect[j].id;
				best[i] = n;
			}
		}
	}
	for (size_t j = 0; j < rs->n_protect && !(val->ops & WD_PROT_RENAME); j++) {
		if ((rs->protect[j].ops & WD_PROT_RENAME) && prefix_above_tree(c, clen, trees[j])) {
			val->ops |= WD_PROT_RENAME;
			val->rule[WD_PROT_IDX_RENAME] = rs->protect[j].id;
		}
	}
}

/* Store the prefix @c (@clen bytes) in wd_protect once, with its value. */
static int protect_put(struct wd_progs *progs, uint64_t sandbox, const struct wd_ruleset *rs,
		       char **trees, const char *c, size_t clen)
{
	struct wd_rule_entry e = { 0 };
	struct wd_path_key key;
	struct wd_protect_val val;
	int err;

	if (clen > sizeof(e.path))
		return -ENAMETOOLONG;
	memcpy(e.path, c, clen);
	e.len = (__u32)clen;
	wd_rule_entry_key(&e, sandbox, &key);
	for (size_t i = 0; i < progs->n_protects; i++)
		if (memcmp(&progs->protects[i], &key, sizeof(key)) == 0)
			return 0;
	protect_value(rs, trees, c, clen, &val);
	if (!val.ops)
		return 0;
	if (WD_GROW(progs->protects, progs->n_protects))
		return -ENOMEM;
	err = bpf_map_update_elem(progs->maps[WD_MAP_PROTECT], &key, &val, BPF_ANY);
	if (err) {
		say_full("wd_protect", WD_MAX_PROTECTS, err);
		log_warnx("bpf: cannot add the fs.protect rule for %.*s: %s", (int)clen, c,
			  strerror(-err));
		return err;
	}
	progs->protects[progs->n_protects++] = key;
	return 0;
}

/*
 * fs.protect in the kernel: each tree as "tree/" and "tree\0" (or "/"), each directory above
 * it as "dir\0" (renaming it would carry the tree away), the tree's own object by (dev, ino)
 * with its ops, and, where truncation is protected, each file under it with another name.
 */
static int protects_add(struct wd_progs *progs, uint64_t sandbox, const struct wd_ruleset *rs,
			char **trees)
{
	char buf[WD_LPM_PATH_BYTES];
	struct stat st;
	int err = 0;

	for (size_t i = 0; i < rs->n_protect && !err; i++) {
		size_t n = strlen(trees[i]);

		if (n + 1 > sizeof(buf))
			return -ENAMETOOLONG;
		memcpy(buf, trees[i], n + 1);
		if (n == 1) {
			err = protect_put(progs, sandbox, rs, trees, "/", 1);
		} else {
			buf[n] = '/';
			err = protect_put(progs, sandbox, rs, trees, buf, n + 1);
			buf[n] = 0;
			err = err ?: protect_put(progs, sandbox, rs, trees, buf, n + 1);
		}
		for (size_t k = n - 1; k > 0 && !err; k--) {
			if (trees[i][k] != '/')
				continue;
			memcpy(buf, trees[i], k);
			buf[k] = 0;
			err = protect_put(progs, sandbox, rs, trees, buf, k + 1);
		}
		if (err || lstat(trees[i], &st))
			continue; /* nothing there yet: the path rule covers what appears */
		err = inode_put(progs, sandbox, trees[i],
				&(struct wd_inode_rule){ .protect = rs->protect[i].ops,
							 .protect_rule = rs->protect[i].id });
		if (err || !S_ISDIR(st.st_mode) || !(rs->protect[i].ops & WD_PROT_TRUNCATE))
			continue;
		/* another name outside the tree would truncate the same file */
		err = protect_linked(progs, sandbox, trees[i],
				     &(struct wd_inode_rule){ .protect = WD_PROT_TRUNCATE,
							      .protect_rule = rs->protect[i].id },
				     "fs.protect");
	}
	return err;
}

static void protects_remove(struct wd_progs *progs, uint64_t sandbox)
{
	keys_remove(progs->maps[WD_MAP_PROTECT], progs->protects,
		    &progs->n_protects, sandbox);
}

static const char *protect_path_at(const struct wd_ruleset *rs, size_t i)
{
	return rs->protect[i].path;
}

/* fs.protect paths as the kernel will name them. */
static char **protect_paths(const struct wd_ruleset *rs)
{
	return real_paths(rs, rs->n_protect, protect_path_at);
}

static int paths_update(struct wd_progs *progs, uint64_t sandbox, const struct wd_ruleset *rs,
			char **deny, bool add)
{
	int fd = progs->maps[WD_MAP_PATHS];
	int err = 0;

	for (size_t i = 0; i < rs->n_entries; i++) {
		struct wd_path_rule val = rs->entries[i].val;
		struct wd_path_key key;
		int r;

		for (size_t d = 0; add && deny && d < rs->n_fs_deny; d++)
			if (wd_path_within_n(rs->entries[i].path, rs->entries[i].len, deny[d]))
				deny_rule(&val, rs->fs_deny[d].id);
		wd_rule_entry_key(&rs->entries[i], sandbox, &key);
		if (add)
			r = bpf_map_update_elem(fd, &key, &val, BPF_NOEXIST);
		else
			r = bpf_map_delete_elem(fd, &key);
		if (r && !(r == -ENOENT && !add)) {
			err = say_full("wd_paths", WD_MAX_PATHS, r);
			log_warnx("bpf: cannot %s the path rule for %.*s: %s",
				  add ? "add" : "remove", (int)rs->entries[i].len,
				  rs->entries[i].path, strerror(-r));
			if (add)
				break;
		}
	}
	return err;
}

/* Remove @sandbox's entries from the LSM object's maps; -EIO when a path rule stayed. */
static int lsm_entries_remove(struct wd_progs *progs, uint64_t sandbox, const struct wd_ruleset *rs)
{
	int err;

	if (progs->set != WD_PROGS_LSM)
		return 0;
	err = paths_update(progs, sandbox, rs, NULL, false) ? -EIO : 0;
	denies_remove(progs, sandbox);
	protects_remove(progs, sandbox);
	inodes_remove(progs, sandbox);
	return err;
}

/* @sandbox's records to this run's ring (wd_rings), before its entry turns the programs on. */
static int ring_add(struct wd_progs *progs, uint64_t sandbox, struct wd_sandbox *sb)
{
	__u32 ring = (__u32)progs->ring;
	int err;

	if (progs->ring < 0)
		return 0;
	if (progs->ring_key) {
		/* wardend's ring, in wd_rings for as long as wardend runs */
		sb->ring = progs->ring_key;
		return 0;
	}
	sb->ring = sandbox;
	if (WD_GROW(progs->ring_ids, progs->n_ring_ids))
		return -ENOMEM;
	err = bpf_map_update_elem(progs->maps[WD_MAP_RINGS], &sandbox, &ring, BPF_ANY);
	if (err) {
		say_full("wd_rings", WD_MAX_SANDBOXES, err);
		log_warnx("bpf: cannot give sandbox %llu its ring: %s", (unsigned long long)sandbox,
			  strerror(-err));
		return err;
	}
	progs->ring_ids[progs->n_ring_ids++] = sandbox;
	return 0;
}

void wd_progs_rings_remove(struct wd_progs *progs)
{
	for (size_t i = 0; i < progs->n_ring_ids; i++)
		bpf_map_delete_elem(progs->maps[WD_MAP_RINGS], &progs->ring_ids[i]);
	progs->n_ring_ids = 0;
}

/*
 * limits.fork_rate as @sandbox's wd_fork entry: one process per rate interval, a burst of one
 * second's worth (at least one). No fork_rate: no entry, and lsm/task_alloc passes at once.
 */
static int fork_add(struct wd_progs *progs, uint64_t sandbox, const struct wd_ruleset *rs)
{
	uint64_t n = rs->limit[WD_LIMIT_FORK_RATE], per_ms = rs->limit_per_ms[WD_LIMIT_FORK_RATE];
	struct wd_fork f = { 0 };
	uint64_t burst;

	if (!(rs->limits_set & (1u << WD_LIMIT_FORK_RATE)) || !n || !per_ms)
		return 0;
	if (progs->maps[WD_MAP_FORK] < 0) {
		log_warnx("bpf: limits.fork_rate needs lsm/task_alloc, which this set lacks");
		return -EOPNOTSUPP;
	}
	f.interval_ns = per_ms * 1000000ull / n ?: 1;
	burst = n * 1000 / per_ms;
	f.burst_ns = (burst ? burst : 1) * f.interval_ns;
	if (bpf_map_update_elem(progs->maps[WD_MAP_FORK], &sandbox, &f, BPF_NOEXIST)) {
		int err = -errno;

		say_full("wd_fork", WD_MAX_SANDBOXES, err);
		log_warnx("bpf: cannot add the fork rate of sandbox %llu: %s",
			  (unsigned long long)sandbox, strerror(-err));
		return err;
	}
	return 0;
}

static void fork_remove(struct wd_progs *progs, uint64_t sandbox)
{
	if (progs->maps[WD_MAP_FORK] >= 0)
		bpf_map_delete_elem(progs->maps[WD_MAP_FORK], &sandbox);
}

int wd_progs_fork(const struct wd_progs *progs, uint64_t sandbox, struct wd_fork *out)
{
	if (progs->maps[WD_MAP_FORK] < 0)
		return -ENOENT;
	if (bpf_map_lookup_elem(progs->maps[WD_MAP_FORK], &sandbox, out))
		return -errno;
	return 0;
}

int wd_progs_sandbox_add(struct wd_progs *progs, uint64_t sandbox, const struct wd_ruleset *rs)
{
	struct wd_sandbox sb = { .flags = rs->sandbox_flags };
	char **deny = NULL, **trees = NULL;
	int err;

	/*
	 * Rules, fs.deny and fs.protect are the LSM programs' to enforce; the recorders read only
	 * the sandbox entry (the supervisor names a Landlock verdict's rule itself).
	 */
	if (progs->set != WD_PROGS_LSM)
		goto out_add_sandbox;
	if (rs->n_fs_deny) {
		deny = deny_paths(rs);
		if (!deny)
			return -ENOMEM;
	}
	if (rs->n_protect) {
		trees = protect_paths(rs);
		if (!trees) {
			deny_paths_free(deny, rs->n_fs_deny);
			return -ENOMEM;
		}
	}
	err = paths_update(progs, sandbox, rs, deny, true);
	/* before fs.deny's: an object both name is denied everything */
	if (!err)
		err = exec_denies_protect(progs, sandbox, rs);
	if (!err && deny)
		err = denies_add(progs, sandbox, rs, deny);
	if (!err && deny)
		err = denies_protect(progs, sandbox, rs, deny);
	if (!err && trees)
		err = protects_add(progs, sandbox, rs, trees);
	if (!err)
		err = fork_add(progs, sandbox, rs);
	deny_paths_free(deny, rs->n_fs_deny);
	deny_paths_free(trees, rs->n_protect);
	if (err)
		goto out_remove_paths;
out_add_sandbox:
	/* the network rules are the cgroup programs', on both sets */
	err = wd_net_entries_add(&progs->maps[WD_MAP_NET4], sandbox, rs);
	err = err ?: wd_rate_add(progs->maps[WD_MAP_RATE], sandbox, rs);
	if (err)
		goto out_remove_paths;
	err = ring_add(progs, sandbox, &sb);
	if (err)
		goto out_remove_paths;
	err = bpf_map_update_elem(progs->maps[WD_MAP_SANDBOXES], &sandbox, &sb, BPF_NOEXIST);
	if (err) {
		say_full("wd_sandboxes", WD_MAX_SANDBOXES, err);
		log_warnx("bpf: cannot add sandbox %llu: %s", (unsigned long long)sandbox,
			  strerror(-err));
		goto out_remove_paths;
	}
	wd_pinset_drop_hold(progs);
	return 0;

out_remove_paths:
	wd_net_entries_remove(&progs->maps[WD_MAP_NET4], sandbox, rs);
	wd_rate_remove(progs->maps[WD_MAP_RATE], sandbox);
	fork_remove(progs, sandbox);
	lsm_entries_remove(progs, sandbox, rs);
	return err;
}

int wd_progs_sandbox_remove(struct wd_progs *progs, uint64_t sandbox, const struct wd_ruleset *rs,
			  struct wd_sandbox *final)
{
	int fd = progs->maps[WD_MAP_SANDBOXES];
	int err = 0;

	if (final && bpf_map_lookup_elem(fd, &sandbox, final))
		memset(final, 0, sizeof(*final));
	if (bpf_map_delete_elem(fd, &sandbox) && errno != ENOENT) {
		err = -errno;
		log_warn("bpf: cannot remove sandbox %llu", (unsigned long long)sandbox);
	}
	wd_net_entries_remove(&progs->maps[WD_MAP_NET4], sandbox, rs);
	wd_rate_remove(progs->maps[WD_MAP_RATE], sandbox);
	fork_remove(progs, sandbox);
	if (lsm_entries_remove(progs, sandbox, rs) && !err)
		err = -EIO;
	return err;
}

int wd_progs_rate(const struct wd_progs *progs, uint64_t sandbox, struct wd_rate *out)
{
	return wd_rate_read(progs->maps[WD_MAP_RATE], sandbox, out);
}

void wd_progs_net_maps(const struct wd_progs *progs, int fds[2])
{
	fds[0] = progs->maps[WD_MAP_NET4];
	fds[1] = progs->maps[WD_MAP_NET6];
}
