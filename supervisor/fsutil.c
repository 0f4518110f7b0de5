// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <string.h>
#include <unistd.h>

#include "supervisor/fsutil.h"

/* Async-signal-safe: the landlock backend calls it between clone3 and execve. */
int wd_write_at(int dirfd, const char *path, const char *val)
{
	int fd, err = 0;

	fd = openat(dirfd, path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		err = -errno;
	close(fd);
	return err;
}

static struct {
	int (*fn)(void *arg, const char *path, const struct stat *st);
	void *arg;
	size_t max, seen;
	int err;
} linked;

static int linked_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)type;
	(void)ftw;
	if (!S_ISREG(st->st_mode) || st->st_nlink < 2)
		return 0;
	if (++linked.seen > linked.max) {
		linked.err = -E2BIG;
		return 1;
	}
	linked.err = linked.fn(linked.arg, path, st);
	return linked.err ? 1 : 0;
}

int wd_walk_linked(const char *tree, size_t max,
		   int (*fn)(void *arg, const char *path, const struct stat *st), void *arg)
{
	linked.fn = fn;
	linked.arg = arg;
	linked.max = max;
	linked.seen = 0;
	linked.err = 0;
	if (nftw(tree, linked_one, 32, FTW_PHYS | FTW_MOUNT) < 0 && !linked.err)
		return -errno;
	return linked.err;
}
