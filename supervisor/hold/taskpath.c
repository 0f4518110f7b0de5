// SPDX-License-Identifier: GPL-2.0
/*
 * A held task's paths, as the task would resolve them (supervisor/hold/): strings read from its
 * memory, a path's parent directory found and pinned (O_PATH) under the sandbox's root with the
 * last component split off, and the directory cache that lets an unmatched call be decided from
 * its text alone. Everything here treats what the task names as input it controls.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "supervisor/hold/taskpath.h"

static unsigned int dircache_slot(const char *dir)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (; *dir; dir++)
		h = (h ^ (unsigned char)*dir) * 16777619u;
	return h % WD_DIRCACHE_SLOTS;
}

static bool dircache_has(const struct dircache *c, const char *dir)
{
	unsigned int i = dircache_slot(dir);

	return c && c->on && c->slot[i].dir && c->slot[i].gen == c->gen &&
	       c->now - c->slot[i].ms < WD_DIRCACHE_MS && !strcmp(c->slot[i].dir, dir);
}

static void dircache_add(struct dircache *c, const char *dir)
{
	unsigned int i = dircache_slot(dir);
	char *copy;

	if (!c || !c->on || dircache_has(c, dir) || !(copy = strdup(dir)))
		return;
	free(c->slot[i].dir);
	c->slot[i].dir = copy;
	c->slot[i].gen = c->gen;
	c->slot[i].ms = c->now;
}

void hold_dircache_free(struct dircache *c)
{
	for (unsigned int i = 0; i < WD_DIRCACHE_SLOTS; i++)
		free(c->slot[i].dir);
}

int hold_read_string(uint32_t pid, uint64_t addr, char *buf, size_t bufsz)
{
	size_t got = 0;

	while (got < bufsz - 1) {
		/*
		 * Up to the end of the page, so a string ending before an unmapped page reads; the
		 * first read 256 bytes only, which most paths fit in (it is most of warden's own
		 * cost per call: 2.3 us here, copying less saves a little of it).
		 */
		size_t chunk = 4096 - ((addr + got) & 4095);

		if (!got && chunk > 256)
			chunk = 256;
		struct iovec local, remote;
		ssize_t n;

		if (chunk > bufsz - 1 - got)
			chunk = bufsz - 1 - got;
		local = (struct iovec){ buf + got, chunk };
		remote = (struct iovec){ (void *)(uintptr_t)(addr + got), chunk };
		n = process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0);
		if (n <= 0)
			return n < 0 ? -errno : -EFAULT;
		if (memchr(buf + got, 0, (size_t)n))
			return 0;
		got += (size_t)n;
	}
	buf[bufsz - 1] = 0;
	return -ENAMETOOLONG;
}

/*
 * Open directory @rel under @base as the task would: an absolute path (@in_root) from @base as
 * its root, so neither ".." nor an absolute symlink leaves it. -EXDEV when the way passes a magic
 * link (/proc/self/fd/N, /proc/PID/cwd, /dev/fd/N): such a link names something of whoever
 * resolves it, and warden is not the task, so what it would find is not what the kernel will.
 */
static int open_dir(int base, const char *rel, bool in_root)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_MAGICLINKS | (in_root ? RESOLVE_IN_ROOT : 0),
	};
	int fd;

	while (in_root && *rel == '/')
		rel++;
	if (!*rel)
		rel = ".";
	fd = (int)syscall(SYS_openat2, base, rel, &how, sizeof(how));
	if (fd >= 0)
		return fd;
	if (errno != ELOOP)
		return -errno;
	/*
	 * A real symlink loop fails the same way without the flag (the kernel will say ELOOP
	 * too); anything else means a magic link was on the way, whatever it led to here.
	 */
	how.resolve &= ~(__u64)RESOLVE_NO_MAGICLINKS;
	fd = (int)syscall(SYS_openat2, base, rel, &how, sizeof(how));
	if (fd < 0 && errno == ELOOP)
		return -ELOOP;
	if (fd >= 0)
		close(fd);
	return -EXDEV;
}

/*
 * @dir (absolute) with "." and ".." taken away as the kernel would take them when no symlink is
 * on the way ("/" for the root). False if it does not fit.
 */
static bool lexical(const char *dir, char *out, size_t outsz)
{
	size_t len = 0;
	const char *p = dir;

	while (*p) {
		const char *end;
		size_t n;

		while (*p == '/')
			p++;
		end = strchrnul(p, '/');
		n = (size_t)(end - p);
		if (n == 0 || (n == 1 && p[0] == '.')) {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (len > 0 && out[len] != '/')
				len--;
			out[len] = 0;
		} else {
			if (len + 1 + n >= outsz)
				return false;
			out[len++] = '/';
			memcpy(out + len, p, n);
			len += n;
			out[len] = 0;
		}
		p = end;
	}
	if (len == 0) {
		out[0] = '/';
		out[1] = 0;
	}
	return true;
}

/*
 * Open absolute @dir under the root @base refusing every symlink: when that works, @dir's own
 * text (made lexical) is where it is, and @canon gets it. -ELOOP when a symlink is on the way
 * (the caller then walks as the task would and asks the kernel where it arrived).
 */
static int open_plain(int base, const char *dir, char *canon, size_t canonsz)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_IN_ROOT,
	};
	const char *rel = dir;
	int fd;

	while (*rel == '/')
		rel++;
	fd = (int)syscall(SYS_openat2, base, *rel ? rel : ".", &how, sizeof(how));
	if (fd < 0)
		return errno == ELOOP ? -ELOOP : -errno;
	if (!lexical(dir, canon, canonsz)) {
		close(fd);
		canon[0] = 0;
		return -ELOOP; /* the long way handles it */
	}
	return fd;
}

/*
 * *name and *full for @last under canonical directory @canon. Both from one copy of the joined
 * path (no printf: this runs for every call the receiver answers at once).
 */
static int name_under(const char *canon, const char *last, char **name, char **full)
{
	size_t dlen = strcmp(canon, "/") ? strlen(canon) : 0, llen = strlen(last);

	*full = malloc(dlen + 1 + llen + 1);
	*name = NULL;
	if (*full) {
		memcpy(*full, canon, dlen);
		(*full)[dlen] = '/';
		memcpy(*full + dlen + 1, last, llen + 1);
		*name = strdup(last);
	}
	if (!*name || !*full) {
		free(*full);
		*full = NULL;
		free(*name);
		*name = NULL;
		return -ENOMEM;
	}
	return 0;
}

bool hold_has_dotdot(const char *path)
{
	for (const char *p = strstr(path, ".."); p; p = strstr(p + 1, ".."))
		if ((p == path || p[-1] == '/') && (p[2] == 0 || p[2] == '/'))
			return true;
	return false;
}

/* Where task @pid's walk of @path from @dirfd starts, in warden's /proc. */
static void task_base(char *base, size_t basesz, uint32_t pid, int dirfd, const char *path)
{
	if (path[0] == '/')
		snprintf(base, basesz, "/proc/%u/root", pid);
	else if (dirfd == AT_FDCWD)
		snprintf(base, basesz, "/proc/%u/cwd", pid);
	else
		snprintf(base, basesz, "/proc/%u/fd/%d", pid, dirfd);
}

/*
 * Where @path names, decided without opening anything: an absolute path whose directory the
 * cache knows, a file in "/", or a bare name in the task's directory (/proc/PID/fd/N or
 * /proc/PID/cwd, whose link text is its canonical path). @dir is @path's copy, @slash its last
 * '/' (or NULL), @last its last component. 1 when done, 0 when the caller must walk, or -errno.
 */
static int resolve_unpinned(const struct resolver *r, uint32_t pid, int dirfd, const char *path,
			    char *dir, char *slash, const char *last, char **name, char **full)
{
	char canon[PATH_MAX], base[64];
	ssize_t n;

	if (path[0] == '/' && r->root >= 0) {
		bool known;

		if (slash == dir)
			return name_under("/", last, name, full) ?: 1;
		/*
		 * Only text without "..": after a symlink, ".." leaves where the link led, not
		 * where the text was, so the lexical form would be another directory.
		 */
		*slash = 0;
		known = !hold_has_dotdot(dir) && lexical(dir, canon, sizeof(canon)) &&
			dircache_has(r->dirs, canon);
		*slash = '/';
		return known ? name_under(canon, last, name, full) ?: 1 : 0;
	}
	if (slash || path[0] == '/')
		return 0;
	task_base(base, sizeof(base), pid, dirfd, path);
	n = readlink(base, canon, sizeof(canon) - 1);
	if (n <= 0 || canon[0] != '/')
		return 0; /* not a directory's path (a pipe, a socket): the walk says why */
	canon[n] = 0;
	return name_under(canon, last, name, full) ?: 1;
}

/*
 * Resolve @path as task @pid would, relative to @dirfd: find its parent directory (following
 * symlinks on the way, as the kernel does) and split off the last component, which the held
 * syscalls do not follow. Returns 0 with *name and *full set, and *parent (O_PATH fd) when
 * @r->pin or when the walk opened it anyway (-1 otherwise).
 * @r->root is the sandbox's root directory (O_PATH), or -1 to go through /proc/@pid/root: tasks
 * in a sandbox cannot chroot, pivot_root or mount, so one root serves them all, and sparing the
 * procfs lookup is most of what an unmatched call costs.
 */
int hold_resolve(const struct resolver *r, uint32_t pid, int dirfd, const char *path,
		 int *parent, char **name, char **full)
{
	char base[64], dir[PATH_MAX], canon[PATH_MAX], link[64];
	const char *last;
	char *slash;
	size_t len = strlen(path);
	int root = r->root, bfd = -1, pfd, err = 0;
	ssize_t n;

	*parent = -1;
	*name = NULL;
	*full = NULL;
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len == 0 || len >= sizeof(dir))
		return -EINVAL;
	memcpy(dir, path, len);
	dir[len] = 0;
	slash = strrchr(dir, '/');
	last = slash ? slash + 1 : dir;
	if (!*last || strcmp(last, ".") == 0 || strcmp(last, "..") == 0)
		return -EINVAL;
	if (!r->pin) {
		err = resolve_unpinned(r, pid, dirfd, path, dir, slash, last, name, full);
		if (err)
			return err < 0 ? err : 0;
	}
	task_base(base, sizeof(base), pid, dirfd, path);
	if (path[0] == '/' && root >= 0) {
		bfd = root;
	} else {
		bfd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (bfd < 0)
			return -errno;
	}
	canon[0] = 0;
	if (slash == dir) {
		pfd = open_dir(bfd, ".", path[0] == '/');
	} else if (slash) {
		*slash = 0;
		/* an absolute path without symlinks is its own canonical form: no readlink */
		pfd = path[0] == '/' ? open_plain(bfd, dir, canon, sizeof(canon)) : -ELOOP;
		if (pfd >= 0 && bfd == root)
			dircache_add(r->dirs, canon);
		if (pfd == -ELOOP)
			pfd = open_dir(bfd, dir, path[0] == '/');
	} else if (bfd != root) {
		/* a bare name (rm -rf's unlinkat(dirfd, name)): the base is the parent */
		pfd = bfd;
		bfd = -1;
	} else {
		pfd = open_dir(bfd, ".", false);
	}
	if (pfd < 0) {
		err = pfd;
		goto out_close_base;
	}
	if (!canon[0]) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", pfd);
		n = readlink(link, canon, sizeof(canon) - 1);
		if (n <= 0) {
			err = n < 0 ? -errno : -EINVAL;
			close(pfd);
			goto out_close_base;
		}
		canon[n] = 0;
	}
	err = name_under(canon, last, name, full);
	if (err) {
		close(pfd);
		goto out_close_base;
	}
	*parent = pfd;
out_close_base:
	if (bfd >= 0 && bfd != root)
		close(bfd);
	return err;
}

void hold_look(int dirfd, const char *name, struct seen *o)
{
	struct stat st;

	*o = (struct seen){ .exists = fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 };
	if (o->exists) {
		o->dev = st.st_dev;
		o->ino = st.st_ino;
	}
}

bool hold_still(int dirfd, const char *name, const struct seen *o)
{
	struct seen now;

	hold_look(dirfd, name, &now);
	return now.exists == o->exists && (!now.exists || (now.dev == o->dev && now.ino == o->ino));
}

char *hold_path_of_fd(int fd)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = 0;
	return strdup(buf);
}

int hold_follow_to(int dirfd, const char *name, char **out)
{
	int fd = openat(dirfd, name, O_PATH | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	*out = hold_path_of_fd(fd);
	close(fd);
	return *out ? 0 : -ENOMEM;
}

/*
 * @path through the task's own /proc/self, /proc/thread-self or /dev/fd, as the same place
 * under its /proc/PID in warden's /proc (where warden's own "self" would name warden): true with
 * @via set, false for any other path.
 */
bool hold_task_self_path(uint32_t pid, const char *path, char *via, size_t viasz)
{
	static const char *const self[] = { "/proc/self/", "/proc/thread-self/", "/dev/fd/" };

	for (size_t i = 0; i < sizeof(self) / sizeof(self[0]); i++) {
		const char *rest = path + strlen(self[i]);

		if (strncmp(path, self[i], strlen(self[i])) != 0)
			continue;
		if (i == 0)
			snprintf(via, viasz, "/proc/%u/%s", pid, rest);
		else if (i == 1)
			snprintf(via, viasz, "/proc/%u/task/%u/%s", pid, pid, rest);
		else
			snprintf(via, viasz, "/proc/%u/fd/%s", pid, rest);
		return true;
	}
	return false;
}
