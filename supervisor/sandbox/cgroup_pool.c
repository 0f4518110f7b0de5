// SPDX-License-Identifier: GPL-2.0
/*
 * A daemon's pool of sandbox cgroups made ahead (supervisor/sandbox/cgroup.h): made off the
 * request path, each taken once, and a marker file per cgroup so that what a killed daemon
 * left is removed by the next.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "supervisor/sandbox/cgroup.h"
#include "supervisor/util/log.h"

void wd_cgroup_pool_init(struct wd_cgroup_pool *p, int marks, int want)
{
	memset(p, 0, sizeof(*p));
	p->marks = marks;
	p->want = want < 0 ? 0 : want > WD_CGROUP_POOL_MAX ? WD_CGROUP_POOL_MAX : want;
}

int wd_cgroup_pool_fill_one(struct wd_cgroup_pool *p)
{
	struct wd_cgroup *cg = &p->cg[p->n];
	size_t len;
	int fd, err;

	if (p->n >= p->want)
		return 0;
	err = wd_cgroup_create(cg);
	if (err)
		return err;
	fd = openat(p->marks, cg->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	len = strlen(cg->path);
	if (fd < 0 || write(fd, cg->path, len) != (ssize_t)len) {
		err = -errno;
		log_warn("cgroup: cannot mark %s as the pool's", cg->name);
		if (fd >= 0)
			unlinkat(p->marks, cg->name, 0);
		wd_cgroup_destroy(cg);
	} else {
		p->n++;
		err = 1;
	}
	if (fd >= 0)
		close(fd);
	return err;
}

int wd_cgroup_pool_take(struct wd_cgroup_pool *p, struct wd_cgroup *cg)
{
	if (p->n == 0)
		return -ENOENT;
	*cg = p->cg[--p->n];
	/* from here it is a sandbox's: no later daemon may remove it as a pool's */
	if (unlinkat(p->marks, cg->name, 0) && errno != ENOENT)
		log_warn("cgroup: cannot unmark %s", cg->name);
	return 0;
}

void wd_cgroup_pool_empty(struct wd_cgroup_pool *p)
{
	while (p->n > 0) {
		struct wd_cgroup *cg = &p->cg[--p->n];

		wd_cgroup_destroy(cg);
		unlinkat(p->marks, cg->name, 0);
	}
}

/*
 * Whether @path, read from a marker, names a cgroup a pool can hold: a sb-* directory right
 * below a group of warden's subtree (<cgroup2>/warden[/<group>]/sb-*), nothing else.
 */
static bool pool_path(const char *path, const char *name)
{
	char mnt[PATH_MAX], pre[PATH_MAX + 16];
	const char *rest, *slash;

	if (wd_cgroup2_mount(mnt, sizeof(mnt)))
		return false;
	snprintf(pre, sizeof(pre), "%s/warden/", mnt);
	if (strncmp(path, pre, strlen(pre)) || strstr(path, "/.") || strstr(path, "//"))
		return false;
	rest = path + strlen(pre);
	slash = strchr(rest, '/');
	if (slash && strchr(slash + 1, '/'))
		return false;
	rest = slash ? slash + 1 : rest;
	return strncmp(rest, "sb-", 3) == 0 && strcmp(rest, name) == 0;
}

int wd_cgroup_pool_reap(int marks)
{
	int dfd = openat(marks, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), n = 0;
	DIR *dir = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *e;

	if (!dir) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	while ((e = readdir(dir))) {
		struct wd_cgroup cg = { .fd = -1 };
		ssize_t len;
		int fd;

		if (strncmp(e->d_name, "sb-", 3) || strlen(e->d_name) >= sizeof(cg.name))
			continue;
		fd = openat(marks, e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		len = fd >= 0 ? read(fd, cg.path, sizeof(cg.path) - 1) : -1;
		if (fd >= 0)
			close(fd);
		unlinkat(marks, e->d_name, 0);
		if (len <= 0)
			continue;
		cg.path[len] = 0;
		if (!pool_path(cg.path, e->d_name)) {
			log_warnx("cgroup: ignored a pool marker naming %s", cg.path);
			continue;
		}
		memcpy(cg.name, e->d_name, strlen(e->d_name) + 1);
		/* never a sandbox's: whatever is in it got there by itself, and goes */
		cg.fd = open(cg.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cg.fd < 0 && errno == ENOENT)
			continue;
		if (wd_cgroup_destroy(&cg) == 0)
			n++;
	}
	closedir(dir);
	return n;
}
