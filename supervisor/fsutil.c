// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
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
