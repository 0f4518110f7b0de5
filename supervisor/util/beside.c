// SPDX-License-Identifier: GPL-2.0
/*
 * Finding warden's helper programs (supervisor/util/beside.h): the directory of the running
 * binary, as the kernel names it, is the only place looked in.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "supervisor/util/beside.h"
#include "supervisor/util/log.h"

int wd_open_beside_self(const char *name)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	size_t len = strlen(name);
	char *slash;
	int fd;

	if (n < 0)
		return -errno;
	path[n] = 0;
	slash = strrchr(path, '/');
	if (!slash || (size_t)(slash - path) + len + 2 > sizeof(path))
		return -ENAMETOOLONG;
	memcpy(slash + 1, name, len + 1);
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		fd = -errno;
		log_warn("spawn: warden's helper program %s", path);
	}
	return fd;
}
