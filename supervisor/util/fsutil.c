// SPDX-License-Identifier: GPL-2.0
/*
 * Util room: file helpers every room may use (fsutil.h): one-write sysctl and cgroupfs writes,
 * the walk for multiply-linked files, and the files warden writes as root (opened one checked
 * directory at a time, replaced by rename).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "supervisor/util/fsutil.h"
#include "supervisor/util/log.h"

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

#define WD_SYMLINK_HOPS 40

/* The real path of the directory @fd, as the kernel names it. */
static int fd_path(int fd, char *buf)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, PATH_MAX - 1);
	if (n < 0)
		return -errno;
	if (n >= PATH_MAX - 1)
		return -ENAMETOOLONG;
	buf[n] = 0;
	return 0;
}

/* @cur becomes @fd: its real path into @real, then @check's word on it. */
static int enter(int *cur, int fd, char *real, wd_dir_check_fn check, void *arg)
{
	int err;

	if (fd < 0)
		return -errno;
	if (*cur >= 0)
		close(*cur);
	*cur = fd;
	err = fd_path(fd, real);
	if (!err && check)
		err = check(arg, real);
	return err;
}

int wd_dir_open_checked(const char *dir, wd_dir_check_fn check, void *arg, int *out, char *real)
{
	size_t cap = 2 * PATH_MAX, pos = 0;
	char *rest = malloc(cap), *next = malloc(cap), *tgt = malloc(PATH_MAX);
	char comp[NAME_MAX + 1];
	int cur = -1, hops = 0, err;

	*out = -1;
	if (!rest || !next || !tgt) {
		err = -ENOMEM;
		goto out;
	}
	if (snprintf(rest, cap, "%s", dir) >= (int)cap) {
		err = -ENAMETOOLONG;
		goto out;
	}
	err = enter(&cur, open(dir[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC), real,
		    check, arg);
	while (!err) {
		struct stat st;
		size_t len;
		ssize_t n;

		while (rest[pos] == '/')
			pos++;
		if (!rest[pos])
			break;
		len = strcspn(rest + pos, "/");
		if (len > NAME_MAX) {
			err = -ENAMETOOLONG;
			break;
		}
		memcpy(comp, rest + pos, len);
		comp[len] = 0;
		pos += len;
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			err = enter(&cur, openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC), real,
				    check, arg);
			continue;
		}
		if (fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW)) {
			err = -errno;
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			/* swapped for a link since the stat: refused, never followed */
			err = enter(
				&cur,
				openat(cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC),
				real, check, arg);
			continue;
		}
		if (!S_ISLNK(st.st_mode)) {
			err = -ENOTDIR;
			break;
		}
		/* a link is read and walked like the rest: each directory it passes is checked */
		if (++hops > WD_SYMLINK_HOPS) {
			err = -ELOOP;
			break;
		}
		n = readlinkat(cur, comp, tgt, PATH_MAX - 1);
		if (n < 0) {
			err = -errno;
			break;
		}
		tgt[n] = 0;
		if (snprintf(next, cap, "%s/%s", tgt, rest + pos) >= (int)cap) {
			err = -ENAMETOOLONG;
			break;
		}
		memcpy(rest, next, strlen(next) + 1);
		pos = 0;
		if (tgt[0] == '/')
			err = enter(&cur, open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), real, check,
				    arg);
	}
	if (!err) {
		*out = cur;
		cur = -1;
	}
out:
	if (cur >= 0)
		close(cur);
	free(rest);
	free(next);
	free(tgt);
	return err;
}

/* Split @path into its directory (pinned and checked) and its last name. */
static int out_dir(struct wd_out_file *f, const char *what, const char *path, wd_dir_check_fn check,
		   void *arg)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	int err;

	f->dirfd = -1;
	f->fd = -1;
	f->what = what;
	f->tmp[0] = 0;
	snprintf(f->path, sizeof(f->path), "%s", path);
	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0 ||
	    strlen(base) >= sizeof(f->name) - 24) {
		log_warnx("%s: %s does not name a file", what, path);
		return -EINVAL;
	}
	snprintf(f->name, sizeof(f->name), "%s", base);
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if ((size_t)(slash - path) < sizeof(dir))
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	else
		return -ENAMETOOLONG;
	err = wd_dir_open_checked(dir, check, arg, &f->dirfd, real);
	if (err == -EPERM)
		return err; /* @check said why */
	if (err)
		log_warnx("%s: cannot open the directory of %s: %s", what, path, strerror(-err));
	return err;
}

int wd_out_append_open(struct wd_out_file *f, const char *what, const char *path,
		       wd_dir_check_fn check, void *arg)
{
	struct stat st, fst;
	int err = out_dir(f, what, path, check, arg), fl;

	if (err)
		goto out;
	f->fd = openat(f->dirfd, f->name,
		       O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
		       0600);
	if (f->fd >= 0) {
		if (fchmod(f->fd, 0600))
			err = -errno;
		goto out_said;
	}
	if (errno != EEXIST) {
		err = -errno;
		goto out_said;
	}
	/* An existing file: only a plain one of warden's own, with no other name. */
	if (fstatat(f->dirfd, f->name, &st, AT_SYMLINK_NOFOLLOW)) {
		err = -errno;
		goto out_said;
	}
	/* the null device: records thrown away (benchmarks), nothing to redirect */
	if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)) {
		f->fd = openat(f->dirfd, f->name, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
		if (f->fd < 0 || fstat(f->fd, &fst))
			err = -errno;
		else if (!S_ISCHR(fst.st_mode) || fst.st_rdev != st.st_rdev)
			err = -EPERM;
		goto out_said;
	}
	if (!S_ISREG(st.st_mode)) {
		log_warnx("%s: %s exists and is not a regular file (%s): refused", what, path,
			  S_ISLNK(st.st_mode) ? "a symbolic link" : "a directory, device or fifo");
		err = -EPERM;
		goto out;
	}
	if (st.st_uid != geteuid() || st.st_nlink != 1) {
		log_warnx("%s: %s exists but %s: refused (remove it, or name another file)", what,
			  path,
			  st.st_uid != geteuid() ? "is not owned by warden's user"
						 : "has more than one name (a hard link)");
		err = -EPERM;
		goto out;
	}
	f->fd = openat(f->dirfd, f->name,
		       O_RDWR | O_APPEND | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (f->fd < 0 || fstat(f->fd, &fst)) {
		err = -errno;
		goto out_said;
	}
	if (fst.st_dev != st.st_dev || fst.st_ino != st.st_ino) {
		log_warnx("%s: %s changed while it was opened: refused", what, path);
		err = -EPERM;
		goto out;
	}
	fl = fcntl(f->fd, F_GETFL);
	if (fl < 0 || fcntl(f->fd, F_SETFL, fl & ~O_NONBLOCK) ||
	    ((st.st_mode & 07777) != 0600 && fchmod(f->fd, 0600)))
		err = -errno;
out_said:
	if (err || f->fd < 0)
		log_warnx("%s: cannot open %s: %s", what, path, strerror(err ? -err : errno));
	if (!err && f->fd < 0)
		err = -EIO;
out:
	if (err)
		wd_out_close(f);
	return err;
}

/* A name for the temporary file that no one could have guessed ahead. */
static void tmp_name(struct wd_out_file *f)
{
	unsigned char r[6];
	char hex[13];

	if (getrandom(r, sizeof(r), 0) != sizeof(r))
		memset(r, getpid() & 0xff, sizeof(r));
	for (size_t i = 0; i < sizeof(r); i++)
		snprintf(hex + 2 * i, 3, "%02x", r[i]);
	snprintf(f->tmp, sizeof(f->tmp), ".%s.warden-%s", f->name, hex);
}

int wd_out_replace_open(struct wd_out_file *f, const char *what, const char *path,
			wd_dir_check_fn check, void *arg)
{
	struct stat st;
	int err = out_dir(f, what, path, check, arg);

	if (err)
		goto out;
	if (fstatat(f->dirfd, f->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode)) {
		log_warnx("%s: %s exists and is not a regular file (%s): refused", what, path,
			  S_ISLNK(st.st_mode) ? "a symbolic link" : "a directory, device or fifo");
		err = -EPERM;
		goto out;
	}
	/* Unnamed until the end: nothing is left behind if warden dies. */
	f->fd = openat(f->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	for (int i = 0;
	     f->fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EEXIST) && i < 8;
	     i++) {
		tmp_name(f);
		f->fd = openat(f->dirfd, f->tmp,
			       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (f->fd < 0)
			f->tmp[0] = 0;
	}
	if (f->fd < 0 || fchmod(f->fd, 0600)) {
		err = -errno;
		log_warnx("%s: cannot write %s: %s", what, path, strerror(-err));
	}
out:
	if (err)
		wd_out_close(f);
	return err;
}

int wd_out_replace_commit(struct wd_out_file *f, const char *data, size_t len)
{
	char proc[64];
	int err = 0;

	if (f->fd < 0)
		return -EBADF;
	for (size_t done = 0; done < len && !err;) {
		ssize_t n = write(f->fd, data + done, len - done);

		if (n < 0 && errno != EINTR)
			err = -errno;
		else if (n > 0)
			done += (size_t)n;
	}
	if (!err && fsync(f->fd))
		err = -errno;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f->fd);
	for (int i = 0; !err && !f->tmp[0]; i++) {
		tmp_name(f);
		if (linkat(AT_FDCWD, proc, f->dirfd, f->tmp, AT_SYMLINK_FOLLOW) == 0)
			break;
		f->tmp[0] = 0;
		if (errno != EEXIST || i >= 8)
			err = -errno;
	}
	if (!err && renameat(f->dirfd, f->tmp, f->dirfd, f->name))
		err = -errno;
	if (!err)
		f->tmp[0] = 0; /* it is the name now */
	if (err)
		log_warnx("%s: cannot write %s: %s", f->what, f->path, strerror(-err));
	wd_out_close(f);
	return err;
}

void wd_out_close(struct wd_out_file *f)
{
	if (f->tmp[0] && f->dirfd >= 0)
		unlinkat(f->dirfd, f->tmp, 0);
	f->tmp[0] = 0;
	wd_fd_close(&f->fd);
	wd_fd_close(&f->dirfd);
}

void wd_fd_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}
