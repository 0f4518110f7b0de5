/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Backend room, landlock backend: fs.deny for backends that can only allow (Landlock): a denied
 * path inside an allowed tree is carved out by allowing the tree's other entries instead, level by
 * level down to the denied path. Pure C over a directory-listing callback, so it is unit-tested on
 * made-up trees.
 */
#ifndef WD_CARVE_H
#define WD_CARVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Most rules one carve may produce before it refuses (a denial inside a huge directory). */
#define WD_CARVE_MAX_RULES 4096

struct wd_carve_rule {
	char *path;
	uint32_t access; /* WD_ACC_* */
	/* Only the right to list this directory: it lies on the way to a denied file. */
	int list_only;
	/* WD_PROTECT_* Landlock must not grant here (fs.protect, carved where exact). */
	uint32_t protect;
};

struct wd_carve_fs {
	/*
	 * Call @fn for each entry of directory @dir (not "." or ".."); 0 or -errno (-ENOTDIR
	 * when @dir is not a directory).
	 */
	int (*list)(void *ctx, const char *dir, int (*fn)(void *arg, const char *name),
		    void *arg);
	/* 'd' directory, 'f' anything else, 0 missing. */
	char (*kind)(void *ctx, const char *path);
	void *ctx;
};

/*
 * The allow rules to give Landlock for @allow (@n_allow rules) minus @deny (@n_deny normalised
 * absolute paths). Returns 0 with a malloc'd array in @out, or -EINVAL with @why saying which deny
 * cannot be expressed (missing, or too many entries to carve around), or -ENOMEM.
 */
int wd_carve(const struct wd_carve_rule *allow, size_t n_allow, char *const *deny, size_t n_deny,
	     const struct wd_carve_fs *fs, struct wd_carve_rule **out, size_t *n_out, char *why,
	     size_t whysz);
/*
 * wd_carve(), and with @missing_ok a denied path that does not exist is carved around all the
 * same: its nearest existing directory is split into its entries, so whatever appears there later
 * gets none of the right. For a right the sandbox cannot use to make files (exec: what it
 * writes is never executable), that is the closed answer rather than a refusal.
 */
int wd_carve_missing(const struct wd_carve_rule *allow, size_t n_allow, char *const *deny,
		     size_t n_deny, bool missing_ok, const struct wd_carve_fs *fs,
		     struct wd_carve_rule **out, size_t *n_out, char *why, size_t whysz);
void wd_carve_free(struct wd_carve_rule *rules, size_t n);

/*
 * fs.protect where Landlock can express it exactly. Rights are a union down the tree, and
 * removing an entry is a right of its parent directory, so removal and truncation can be taken
 * from a protected tree only when no writable rule lies above it: then each writable rule at or
 * under the tree is marked (protect), and nothing outside the tree loses a right. Removal goes
 * only when delete and rename are both protected (Landlock has one right for both). @trees[i]
 * with @ops[i] (WD_PROTECT_*); returns how many trees were carved.
 */
size_t wd_carve_protect(struct wd_carve_rule *rules, size_t n, char *const *trees,
			const unsigned int *ops, size_t n_trees);

/* The real filesystem, for the landlock backend. */
extern const struct wd_carve_fs wd_carve_real_fs;

#endif
