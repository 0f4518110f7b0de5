/* SPDX-License-Identifier: GPL-2.0 */
/* Small file helpers for kernel interfaces (cgroupfs, procfs). */
#ifndef WD_FSUTIL_H
#define WD_FSUTIL_H

/* Write @val to @path (relative to @dirfd, or AT_FDCWD) in one write. 0 or -errno. */
int wd_write_at(int dirfd, const char *path, const char *val);

#endif
