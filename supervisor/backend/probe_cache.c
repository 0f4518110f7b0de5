// SPDX-License-Identifier: GPL-2.0
/*
 * Backend room: the probe cache file (probe_cache.h): its key, its text both ways, and reading
 * and writing it in the run directory. Reading is syscalls and the stack only, so a child that
 * asks a cheap probe first may read it too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "supervisor/backend/probe_cache.h"
#include "supervisor/util/log.h"
#include "wd_probe_key.h"

#define WD_BOOT_ID "/proc/sys/kernel/random/boot_id"
#define WD_ERRNO_MAX 4095

const char *const wd_probe_hooks[WD_PROBE_N_HOOKS] = {
	"bpf", "file_truncate", "inode_setattr", "inode_set_acl", "inode_remove_acl",
};

int wd_probe_key_get(struct wd_probe_key *key)
{
	struct utsname u;
	ssize_t n;
	int fd, err = 0;

	memset(key, 0, sizeof(*key));
	fd = open(WD_BOOT_ID, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, key->boot, sizeof(key->boot) - 1);
	if (n < 0)
		err = -errno;
	close(fd);
	if (err)
		return err;
	key->boot[n] = 0;
	key->boot[strcspn(key->boot, "\n")] = 0;
	if (uname(&u))
		return -errno;
	snprintf(key->kernel, sizeof(key->kernel), "%s", u.release);
	snprintf(key->build, sizeof(key->build), "%s", WD_PROBE_BUILD);
	/* a field with a space or nothing in it could not be read back */
	if (!key->boot[0] || !key->kernel[0] || strpbrk(key->boot, " \t") ||
	    strpbrk(key->kernel, " \t"))
		err = -EINVAL;
	return err;
}

/* ---- the text ---- */

struct out {
	char *buf;
	size_t size, len;
	bool full;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->size - o->len)
		o->full = true;
	else
		o->len += n;
}

int wd_probe_cache_format(char *buf, size_t size, const struct wd_probe_key *key,
			  const struct wd_probe_answers *a)
{
	struct out o = { buf, size, 0, size == 0 };
	char why[sizeof(a->bpf_lsm_why)];

	put(&o, "warden-probe-cache 1\nboot %s\nkernel %s\nbuild %s\nbtf %d\n", key->boot,
	    key->kernel, key->build, a->btf);
	if (a->bpf_lsm) {
		put(&o, "bpf_lsm 1\n");
	} else {
		/* one line, and never empty */
		snprintf(why, sizeof(why), "%s", a->bpf_lsm_why[0] ? a->bpf_lsm_why : "unknown");
		for (char *p = why; *p; p++)
			if ((unsigned char)*p < ' ' || *p == 0x7f)
				*p = ' ';
		put(&o, "bpf_lsm 0 %s\n", why);
	}
	put(&o, "landlock %d %d\nmemfd_noexec %d\nseccomp_notify %d %u %u %u\n", a->landlock,
	    a->landlock_abi, a->memfd_noexec, a->notify, a->notif_sizes[0], a->notif_sizes[1],
	    a->notif_sizes[2]);
	put(&o, "seccomp_wait_killable %d\nseccomp_sync_wake_up %d\n", a->wait_killable,
	    a->sync_wake_up);
	for (size_t i = 0; i < WD_PROBE_N_HOOKS; i++)
		put(&o, "hook %s %d\n", wd_probe_hooks[i], a->hook_args[i]);
	put(&o, "end\n");
	return o.full ? -ENOSPC : (int)o.len;
}

/* The next line of [*p, end) into @line, without its newline: false if there is none whole. */
static bool next_line(const char **p, const char *end, char *line, size_t size)
{
	const char *nl = memchr(*p, '\n', end - *p);
	size_t n;

	if (!nl)
		return false;
	n = nl - *p;
	if (n >= size || memchr(*p, 0, n))
		return false;
	memcpy(line, *p, n);
	line[n] = 0;
	*p = nl + 1;
	return true;
}

static bool errno_ok(int e)
{
	return e >= 0 && e <= WD_ERRNO_MAX;
}

/* "NAME VALUE" with nothing after, VALUE a field of at most 63 bytes. */
static bool keyed(const char *line, const char *name, char *value)
{
	char fmt[32];
	int n = -1;

	size_t off = strlen(name);

	if (strncmp(line, name, off) || line[off] != ' ' || line[off + 1] == ' ')
		return false;
	snprintf(fmt, sizeof(fmt), "%s %%63s%%n", name);
	return sscanf(line, fmt, value, &n) == 1 && n == (int)strlen(line);
}

/* "NAME %d..." with exactly @want numbers and nothing after. */
static bool numbers(const char *line, const char *name, int want, int *v)
{
	size_t off = strlen(name);
	int n = 0, got;

	if (strncmp(line, name, off) || line[off] != ' ')
		return false;
	for (got = 0; got < want; got++) {
		if (sscanf(line + off, " %d%n", &v[got], &n) != 1)
			return false;
		off += n;
	}
	return line[off] == 0;
}

static int parse_answers(const char **p, const char *end, struct wd_probe_answers *a)
{
	char line[640];
	int v[4];

	if (!next_line(p, end, line, sizeof(line)) || !numbers(line, "btf", 1, v) ||
	    !errno_ok(v[0]))
		return -EINVAL;
	a->btf = v[0];
	if (!next_line(p, end, line, sizeof(line)))
		return -EINVAL;
	if (strcmp(line, "bpf_lsm 1") == 0) {
		a->bpf_lsm = true;
	} else if (strncmp(line, "bpf_lsm 0 ", 10) == 0 && line[10] &&
		   strlen(line + 10) < sizeof(a->bpf_lsm_why)) {
		for (const char *c = line + 10; *c; c++)
			if ((unsigned char)*c < ' ' || *c == 0x7f)
				return -EINVAL;
		snprintf(a->bpf_lsm_why, sizeof(a->bpf_lsm_why), "%s", line + 10);
	} else {
		return -EINVAL;
	}
	if (!next_line(p, end, line, sizeof(line)) || !numbers(line, "landlock", 2, v) ||
	    !errno_ok(v[0]) || v[1] < 0 || v[1] > 1000 || (v[0] == 0) != (v[1] >= 1))
		return -EINVAL;
	a->landlock = v[0];
	a->landlock_abi = v[1];
	if (!next_line(p, end, line, sizeof(line)) || !numbers(line, "memfd_noexec", 1, v) ||
	    !errno_ok(v[0]))
		return -EINVAL;
	a->memfd_noexec = v[0];
	if (!next_line(p, end, line, sizeof(line)) || !numbers(line, "seccomp_notify", 4, v) ||
	    !errno_ok(v[0]))
		return -EINVAL;
	a->notify = v[0];
	for (int i = 0; i < 3; i++) {
		if (v[i + 1] < 0 || v[i + 1] > 65535)
			return -EINVAL;
		a->notif_sizes[i] = v[i + 1];
	}
	if (!next_line(p, end, line, sizeof(line)) ||
	    !numbers(line, "seccomp_wait_killable", 1, v) || !errno_ok(v[0]))
		return -EINVAL;
	a->wait_killable = v[0];
	if (!next_line(p, end, line, sizeof(line)) ||
	    !numbers(line, "seccomp_sync_wake_up", 1, v) || !errno_ok(v[0]))
		return -EINVAL;
	a->sync_wake_up = v[0];
	for (size_t i = 0; i < WD_PROBE_N_HOOKS; i++) {
		char name[64];

		snprintf(name, sizeof(name), "hook %s", wd_probe_hooks[i]);
		if (!next_line(p, end, line, sizeof(line)) || !numbers(line, name, 1, v) ||
		    v[0] < -WD_ERRNO_MAX || v[0] > 64)
			return -EINVAL;
		a->hook_args[i] = v[0];
	}
	if (!next_line(p, end, line, sizeof(line)) || strcmp(line, "end") || *p != end)
		return -EINVAL;
	return 0;
}

int wd_probe_cache_parse(const char *text, size_t len, const struct wd_probe_key *key,
			 struct wd_probe_answers *out)
{
	const char *p = text, *end = text + len;
	char line[640], boot[64], kernel[64], build[64];
	struct wd_probe_answers a = { 0 };
	int err;

	if (!next_line(&p, end, line, sizeof(line)) || strcmp(line, "warden-probe-cache 1"))
		return -EINVAL;
	if (!next_line(&p, end, line, sizeof(line)) || !keyed(line, "boot", boot) ||
	    !next_line(&p, end, line, sizeof(line)) || !keyed(line, "kernel", kernel) ||
	    !next_line(&p, end, line, sizeof(line)) || !keyed(line, "build", build))
		return -EINVAL;
	err = parse_answers(&p, end, &a);
	if (err)
		return err;
	/* well formed but not ours: another boot, kernel or build wrote it */
	if (strcmp(boot, key->boot) || strcmp(kernel, key->kernel) || strcmp(build, key->build))
		return -ESTALE;
	*out = a;
	return 0;
}

/* ---- the file ---- */

const char *wd_probe_cache_untrusted(const struct stat *dir, const struct stat *st)
{
	if (!S_ISDIR(dir->st_mode) || dir->st_uid != 0 || (dir->st_mode & 022))
		return "the run directory is not root's alone";
	if (!S_ISREG(st->st_mode))
		return "not a regular file";
	if (st->st_uid != 0)
		return "not owned by root";
	if ((st->st_mode & 07777) != 0600)
		return "not mode 0600";
	if (st->st_nlink != 1)
		return "more than one link";
	if (st->st_size > WD_PROBE_CACHE_MAX)
		return "too big";
	return NULL;
}

static int open_dir(const char *dir, struct stat *st)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (dfd < 0)
		return -errno;
	if (fstat(dfd, st)) {
		int err = -errno;

		close(dfd);
		return err;
	}
	return dfd;
}

int wd_probe_cache_read(const char *dir, const struct wd_probe_key *key,
			struct wd_probe_answers *out)
{
	char text[WD_PROBE_CACHE_MAX + 1];
	struct stat dst, st;
	const char *bad;
	int dfd, fd = -1, err;
	ssize_t n;

	dfd = open_dir(dir, &dst);
	if (dfd < 0) {
		err = dfd;
		goto out;
	}
	/* O_NONBLOCK: a fifo planted there must not hang the run */
	fd = openat(dfd, WD_PROBE_CACHE_NAME, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		err = -errno;
		goto out_close;
	}
	bad = wd_probe_cache_untrusted(&dst, &st);
	if (bad) {
		log_debug("probe: %s/%s is not trusted: %s", dir, WD_PROBE_CACHE_NAME, bad);
		err = -EPERM;
		goto out_close;
	}
	n = read(fd, text, sizeof(text));
	if (n < 0) {
		err = -errno;
		goto out_close;
	}
	err = n > WD_PROBE_CACHE_MAX ? -EINVAL : wd_probe_cache_parse(text, n, key, out);
out_close:
	if (fd >= 0)
		close(fd);
	close(dfd);
out:
	if (err)
		log_debug("probe: no cached answers in %s: %s", dir, strerror(-err));
	return err;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		len -= n;
	}
	return 0;
}

int wd_probe_cache_write(const char *dir, const struct wd_probe_key *key,
			 const struct wd_probe_answers *a)
{
	char text[WD_PROBE_CACHE_MAX], tmp[64];
	struct stat dst;
	int dfd, fd, len, err;

	len = wd_probe_cache_format(text, sizeof(text), key, a);
	if (len < 0)
		return len;
	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	dfd = open_dir(dir, &dst);
	if (dfd < 0)
		return dfd;
	if (!S_ISDIR(dst.st_mode) || dst.st_uid != 0 || (dst.st_mode & 022)) {
		err = -EPERM;
		goto out_close_dir;
	}
	snprintf(tmp, sizeof(tmp), ".%s.%d", WD_PROBE_CACHE_NAME, (int)getpid());
	(void)unlinkat(dfd, tmp, 0);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		goto out_close_dir;
	}
	err = fchmod(fd, 0600) ? -errno : write_all(fd, text, len);
	if (close(fd) && !err)
		err = -errno;
	if (!err && renameat(dfd, tmp, dfd, WD_PROBE_CACHE_NAME))
		err = -errno;
	if (err)
		(void)unlinkat(dfd, tmp, 0);
out_close_dir:
	close(dfd);
	if (err)
		log_debug("probe: cannot write %s/%s: %s", dir, WD_PROBE_CACHE_NAME,
			  strerror(-err));
	return err;
}
