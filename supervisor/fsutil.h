/* SPDX-License-Identifier: GPL-2.0 */
/* Small file helpers for kernel interfaces (cgroupfs, procfs). */
#ifndef WD_FSUTIL_H
#define WD_FSUTIL_H

#include <stddef.h>
#include <sys/stat.h>

/* Write @val to @path (relative to @dirfd, or AT_FDCWD) in one write. 0 or -errno. */
int wd_write_at(int dirfd, const char *path, const char *val);

/*
 * Call @fn for each regular file under @tree with more than one name (a hard link made before a
 * sandbox started reaches such a file from anywhere), not crossing mounts or following
 * symlinks. 0; -E2BIG past @max such files; @fn's nonzero return; or -errno when @tree cannot
 * be walked. Not reentrant (nftw takes no context).
 */
int wd_walk_linked(const char *tree, size_t max,
		   int (*fn)(void *arg, const char *path, const struct stat *st), void *arg);

#endif
