/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Util room: small file helpers every room may use: writes to kernel interfaces (cgroupfs,
 * procfs), the linked-file walk, and the files warden writes as root.
 */
#ifndef WD_FSUTIL_H
#define WD_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* Close *@fd where it is open, and leave it -1: every struct's "fd or -1" field closes so. */
void wd_fd_close(int *fd);

/* Write @val to @path (relative to @dirfd, or AT_FDCWD) in one write. 0 or -errno. */
int wd_write_at(int dirfd, const char *path, const char *val);

/*
 * Most multiply-linked files one protected tree may hold: fs.deny (protected by inode in the
 * kernel) and fs.protect (held truncations) walk the same trees with the same limit, and a tree
 * over it refuses the sandbox rather than protect it in part.
 */
#define WD_LINKED_FILES_MAX 4096

/*
 * Call @fn for each regular file under @tree with more than one name (a hard link made before a
 * sandbox started reaches such a file from anywhere), not crossing mounts or following
 * symlinks. 0; -E2BIG past @max such files; @fn's nonzero return; or -errno when @tree cannot
 * be walked. Not reentrant (nftw takes no context).
 */
int wd_walk_linked(const char *tree, size_t max,
		   int (*fn)(void *arg, const char *path, const struct stat *st), void *arg);

/*
 * Files warden writes as root (docs/threat-model.md, "Files warden writes"). A tree a sandbox
 * may write is input, never authority: every directory a name of the path is looked up in is
 * handed to @check (its real path, read back from the opened directory) before anything is
 * made, and @check refuses (nonzero, said why) what a sandbox could change.
 */
typedef int (*wd_dir_check_fn)(void *arg, const char *dir);

/*
 * Open the directory @dir one component at a time (O_PATH, O_NOFOLLOW at each step; a symlink
 * is read and its target walked in turn, at most 40 of them), calling @check on each directory
 * looked in and on @dir's own. *@fd gets the directory (O_PATH), @real (PATH_MAX) its real
 * path. 0, @check's refusal, or -errno.
 */
int wd_dir_open_checked(const char *dir, wd_dir_check_fn check, void *arg, int *fd, char *real);

/* A file named by the caller, in a directory pinned before the command starts. */
struct wd_out_file {
	int dirfd; /* O_PATH of the directory the name is in */
	int fd; /* the file; -1 when not open */
	const char *what; /* "report", "audit": what messages call it */
	char name[256]; /* its name in dirfd */
	char tmp[300]; /* replace: the temporary name made, if any */
	char path[4096]; /* as the caller gave it, for messages */
};

/*
 * Append-only file (the audit file): created O_CREAT|O_EXCL|O_NOFOLLOW mode 0600, or an
 * existing one taken only if it is a regular file (not a link), owned by warden's uid, with one
 * name (st_nlink 1); it is then made 0600. The null device is taken as it is (write only).
 * @f->fd is O_RDWR|O_APPEND. 0 or -errno (said why).
 */
int wd_out_append_open(struct wd_out_file *f, const char *what, const char *path,
		       wd_dir_check_fn check, void *arg);

/*
 * File written once, at the end (the report): an unnamed file (O_TMPFILE, or a fresh name made
 * O_EXCL where the filesystem has none) is made now, mode 0600, in the pinned directory;
 * wd_out_replace_commit() writes @data to it and renames it over the name. A name that exists
 * and is not a regular file is refused now. 0 or -errno (said why).
 */
int wd_out_replace_open(struct wd_out_file *f, const char *what, const char *path,
			wd_dir_check_fn check, void *arg);
int wd_out_replace_commit(struct wd_out_file *f, const char *data, size_t len);
/* Close what is open (a temporary name not committed is removed). Safe on a zeroed one. */
void wd_out_close(struct wd_out_file *f);
/* A wd_out_file that holds nothing yet. */
#define WD_OUT_FILE_INIT { .dirfd = -1, .fd = -1 }

#endif
