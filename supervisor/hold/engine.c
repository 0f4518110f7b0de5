// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "supervisor/backend/probe.h"
#include "supervisor/hold/engine.h"
#include "supervisor/hold/from_policy.h"
#include "supervisor/util/log.h"

#define WD_ARGV_MAX 4096 /* bytes of a process's command line shown to the operator */
#define WD_HOLD_GROUPS_MAX 64

/*
 * Directories (absolute, lexical, as the sandbox names them) that openat2 found with no symlink
 * on their way. A path under one of them is where its text says, so an unmatched call is decided
 * without opening anything. Sound only while every call that removes or moves a directory passes
 * the receiver (the filter's watch_dirs): each one empties the cache before it goes on, and a
 * directory cannot become a symlink, or move, any other way from inside the sandbox (no mounts,
 * no io_uring). What it cannot see, a change made from outside the sandbox, it forgets soon: an
 * entry lives WD_DIRCACHE_MS. Like every call answered CONTINUE, a path a second thread swaps
 * between the receiver's look and the kernel's walk meets only the kernel (docs/holds.md).
 * Direct-mapped; a generation number empties it.
 */
#define WD_DIRCACHE_SLOTS 256
#define WD_DIRCACHE_MS 100

struct dircache {
	bool on;
	uint32_t gen;
	uint64_t now; /* ms, of the call being decided */
	struct {
		uint32_t gen;
		uint64_t ms;
		char *dir;
	} slot[WD_DIRCACHE_SLOTS];
};

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

static void dircache_free(struct dircache *c)
{
	for (unsigned int i = 0; i < WD_DIRCACHE_SLOTS; i++)
		free(c->slot[i].dir);
}

/* A call the receiver matched, with what matched, on its way to the main loop. */
struct matched {
	enum wd_hold_action act;
	uint64_t now;
};

/* What a name was when the call was decided: an approval acts on that object or on none. */
struct seen {
	bool exists;
	dev_t dev;
	ino_t ino;
};

/* A pending hold: the notification, and the pinned objects its operation acts on. */
struct hold {
	uint64_t id;
	uint64_t notif_id;
	uint32_t pid;
	unsigned int nr;
	uint64_t args[6];
	struct wd_held_op op;
	const char *opname;
	bool rmdir;
	/* truncating opens: the flags and mode the task gave (openat2's from its open_how) */
	int oflags;
	mode_t omode;
	const char *refused; /* why decode() refused to follow the call (with -EXDEV) */
	bool link; /* link/linkat: a second name for target, refused where truncation is held */
	bool fd_target; /* target is the task's open file args[0] (ftruncate, linkat of "") */
	int dirfd; /* the resolved parent directory of target, O_PATH */
	int dirfd2; /* rename: of target2 */
	struct seen seen, seen2; /* delete, rename: name (and name2) in the pinned directories */
	/* the kernel's own answer to a call on an fd that cannot do it (read-only, O_PATH) */
	int fd_errno;
	char *name; /* last component of target */
	char *name2;
	char *target;
	char *target2;
	char **argv; /* exec: argv[1..] */
	size_t argc;
	char *argv_line; /* exec: the program and its arguments, for the operator */
	char *cmdline;
	char *exe;
	char comm[17];
	const char *rule;
	const char *tree; /* the rule's protected tree or held program */
	char token[33];
	uint64_t created_ms;
	uint64_t deadline_ms; /* 0: none */
	bool follower; /* another pending hold asks the same: one prompt, one decision */
	bool waited; /* journaled as waiting: its answer is journaled too */
	struct matched m; /* what the receiver found */
	/* the task's file-system credentials: an approved operation is performed with them */
	bool creds_known;
	uid_t fsuid;
	gid_t fsgid;
	gid_t groups[WD_HOLD_GROUPS_MAX];
	int n_groups;
	struct hold *next;
};

struct wd_hold_engine {
	const struct wd_hold_rules *rules;
	int listener;
	int timer;
	struct wd_hold_events ev;
	struct wd_grants grants;
	struct hold *pending;
	uint64_t next_id;
	unsigned char key[32];
	struct seccomp_notif_sizes sizes;
	/*
	 * The receiver thread: blocked in SECCOMP_IOCTL_NOTIF_RECV (so the synchronous wake-up
	 * puts it on the caller's CPU), it answers every call no rule matches at once and queues
	 * the rest for the main loop, which it wakes through @wake (an eventfd).
	 */
	pthread_t receiver;
	bool receiving;
	atomic_bool stop;
	int wake;
	pthread_mutex_t qlock;
	struct hold *qhead, **qtail;
	int root; /* the sandbox's root directory, O_PATH (the receiver's alone) */
	struct dircache dirs; /* the receiver's alone */
	/* delete burst (the receiver's alone): times (ms) of the recent deletes, a ring */
	uint64_t *burst;
	unsigned int burst_head, burst_n;
	atomic_bool burst_restart; /* the main loop approved a burst: the receiver starts over */
};


static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int wd_hold_engine_new(struct wd_hold_engine **out, const struct wd_hold_rules *rules,
		       int listener, const struct wd_hold_events *ev)
{
	struct wd_hold_engine *e = calloc(1, sizeof(*e));
	int err;

	if (!e)
		return -ENOMEM;
	e->rules = rules;
	e->listener = listener;
	e->ev = *ev;
	e->next_id = 1;
	e->wake = -1;
	e->root = -1;
	e->qtail = &e->qhead;
	pthread_mutex_init(&e->qlock, NULL);
	e->timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (e->timer < 0) {
		err = -errno;
		goto out_free;
	}
	err = wd_seccomp_notif_sizes(&e->sizes);
	if (err)
		goto out_close;
	/* The key that signs hold tokens: fresh for each supervisor, never written anywhere. */
	if (RAND_bytes(e->key, sizeof(e->key)) != 1) {
		err = -EIO;
		goto out_close;
	}
	if (rules->burst_count) {
		e->burst = calloc(rules->burst_count + 1, sizeof(*e->burst));
		if (!e->burst) {
			err = -ENOMEM;
			goto out_close;
		}
	}
	*out = e;
	return 0;

out_close:
	close(e->timer);
out_free:
	free(e);
	return err;
}

static void hold_free(struct hold *h)
{
	if (h->dirfd >= 0)
		close(h->dirfd);
	if (h->dirfd2 >= 0)
		close(h->dirfd2);
	free(h->name);
	free(h->name2);
	free(h->target);
	free(h->target2);
	for (size_t i = 0; i < h->argc; i++)
		free(h->argv[i]);
	free(h->argv);
	free(h->argv_line);
	free(h->cmdline);
	free(h->exe);
	free(h);
}

static void stop_receiver(struct wd_hold_engine *e);

void wd_hold_engine_free(struct wd_hold_engine *e)
{
	if (!e)
		return;
	stop_receiver(e);
	while (e->qhead) {
		struct hold *h = e->qhead;

		e->qhead = h->next;
		hold_free(h);
	}
	if (e->wake >= 0)
		close(e->wake);
	if (e->root >= 0)
		close(e->root);
	dircache_free(&e->dirs);
	pthread_mutex_destroy(&e->qlock);
	while (e->pending) {
		struct hold *h = e->pending;

		e->pending = h->next;
		hold_free(h);
	}
	wd_grants_free(&e->grants);
	free(e->burst);
	if (e->timer >= 0)
		close(e->timer);
	free(e);
}

static void *receive_loop(void *arg);

/* The receiver's wake-up from its blocking RECV when the engine ends: the signal interrupts it. */
#define WD_HOLD_STOP_SIG SIGURG

static void on_stop_sig(int sig)
{
	(void)sig;
}

void wd_hold_attach(struct wd_hold_engine *e, int listener)
{
	struct sigaction sa = { .sa_handler = on_stop_sig }; /* no SA_RESTART: RECV returns EINTR */
	sigset_t all, old;
	int err;

	e->listener = listener;
	if (listener < 0 || e->receiving)
		return;
	/* 6.6+: wake the supervisor on the task's CPU, which makes an unmatched call cost several
	 * times less (an answer across CPUs costs a few tens of microseconds). */
	if (wd_seccomp_set_sync_wake_up(listener) == 0)
		log_debug("holds: synchronous wake-up of the waiting room");
	e->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (e->wake < 0) {
		log_warn("holds: eventfd; answering the waiting room from the main loop");
		return;
	}
	sigaction(WD_HOLD_STOP_SIG, &sa, NULL);
	/* The receiver takes only its stop signal; everything else stays the main loop's. */
	sigfillset(&all);
	sigdelset(&all, WD_HOLD_STOP_SIG);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&e->receiver, NULL, receive_loop, e);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		log_warnx("holds: no receiver thread (%s); answering from the main loop",
			  strerror(err));
		close(e->wake);
		e->wake = -1;
		return;
	}
	e->receiving = true;
}

void wd_hold_dirs_watched(struct wd_hold_engine *e, bool watched)
{
	e->dirs.on = watched;
}

static void stop_receiver(struct wd_hold_engine *e)
{
	if (!e->receiving)
		return;
	atomic_store(&e->stop, true);
	/* A signal sent just before it blocks again is missed: send until it has gone. */
	while (pthread_tryjoin_np(e->receiver, NULL) == EBUSY) {
		struct timespec ts = { .tv_nsec = 1000000 };

		pthread_kill(e->receiver, WD_HOLD_STOP_SIG);
		nanosleep(&ts, NULL);
	}
	e->receiving = false;
}

int wd_hold_listener_fd(const struct wd_hold_engine *e)
{
	return e->receiving ? e->wake : e->listener;
}

int wd_hold_timer_fd(const struct wd_hold_engine *e)
{
	return e->timer;
}

/* A NUL-terminated string from the task's memory, or -errno. */
static int read_string(uint32_t pid, uint64_t addr, char *buf, size_t bufsz)
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

/* How resolve() goes: from which root, and whether the parent must be pinned. */
struct resolver {
	int root; /* the sandbox's root directory (O_PATH), or -1 */
	struct dircache *dirs; /* or NULL */
	bool pin;
	bool by_inode; /* truncations are also checked by inode: pin their targets */
};

/* *name and *full for @last under canonical directory @canon. */
static int name_under(const char *canon, const char *last, char **name, char **full)
{
	*name = strdup(last);
	if (*name && asprintf(full, "%s/%s", strcmp(canon, "/") ? canon : "", last) < 0)
		*full = NULL;
	if (!*name || !*full) {
		free(*name);
		*name = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Has @path a ".." component? */
static bool has_dotdot(const char *path)
{
	for (const char *p = strstr(path, ".."); p; p = strstr(p + 1, ".."))
		if ((p == path || p[-1] == '/') && (p[2] == 0 || p[2] == '/'))
			return true;
	return false;
}

/*
 * Where @path names, decided without opening anything: an absolute path whose directory the
 * cache knows, a file in "/", or a bare name in the task's directory @base (/proc/PID/fd/N or
 * /proc/PID/cwd, whose link text is its canonical path). @dir is @path's copy, @slash its last
 * '/' (or NULL), @last its last component. 1 when done, 0 when the caller must walk, or -errno.
 */
static int resolve_unpinned(const struct resolver *r, const char *base, const char *path,
			    char *dir, char *slash, const char *last, char **name, char **full)
{
	char canon[PATH_MAX];
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
		known = !has_dotdot(dir) && lexical(dir, canon, sizeof(canon)) &&
			dircache_has(r->dirs, canon);
		*slash = '/';
		return known ? name_under(canon, last, name, full) ?: 1 : 0;
	}
	if (slash || path[0] == '/')
		return 0;
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
static int resolve(const struct resolver *r, uint32_t pid, int dirfd, const char *path,
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
	if (path[0] == '/')
		snprintf(base, sizeof(base), "/proc/%u/root", pid);
	else if (dirfd == AT_FDCWD)
		snprintf(base, sizeof(base), "/proc/%u/cwd", pid);
	else
		snprintf(base, sizeof(base), "/proc/%u/fd/%d", pid, dirfd);
	if (!r->pin) {
		err = resolve_unpinned(r, base, path, dir, slash, last, name, full);
		if (err)
			return err < 0 ? err : 0;
	}
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

/* The process's arguments from /proc, joined by spaces (best effort). */
static char *read_cmdline(uint32_t pid)
{
	char path[64], buf[WD_ARGV_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	for (ssize_t i = 0; i < n - 1; i++)
		if (!buf[i])
			buf[i] = ' ';
	buf[n] = 0;
	return strdup(buf);
}

/* An exec's arguments after argv[0], from the task's memory (at most 256, 1 KiB each). */
static int read_argv(struct hold *h, uint64_t argv_addr)
{
	h->argv = calloc(256, sizeof(char *));
	if (!h->argv)
		return -ENOMEM;
	for (int i = 1; i < 256 && argv_addr; i++) {
		uint64_t p;
		struct iovec l = { &p, sizeof(p) };
		struct iovec r = { (void *)(uintptr_t)(argv_addr + (uint64_t)i * 8), sizeof(p) };
		char arg[1024];
		int err;

		if (process_vm_readv((pid_t)h->pid, &l, 1, &r, 1, 0) != sizeof(p))
			return -EFAULT;
		if (!p)
			break;
		err = read_string(h->pid, p, arg, sizeof(arg));
		if (err)
			return err;
		h->argv[h->argc] = strdup(arg);
		if (!h->argv[h->argc])
			return -ENOMEM;
		h->argc++;
	}
	return 0;
}

static int join_argv(struct hold *h)
{
	size_t len = strlen(h->target) + 1, used;

	for (size_t i = 0; i < h->argc; i++)
		len += strlen(h->argv[i]) + 1;
	h->argv_line = malloc(len);
	if (!h->argv_line)
		return -ENOMEM;
	used = (size_t)sprintf(h->argv_line, "%s", h->target);
	for (size_t i = 0; i < h->argc; i++)
		used += (size_t)sprintf(h->argv_line + used, " %s", h->argv[i]);
	return 0;
}

/*
 * The held thread's file-system uid and gid and its groups, from /proc/TID/status. They cannot
 * change while it is held (the wait is killable only: no handler runs in it).
 */
static void read_creds(struct hold *h)
{
	char path[64], line[1024];
	bool uid = false, gid = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", h->pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned int r, eff, sv, fs;

		if (sscanf(line, "Uid: %u %u %u %u", &r, &eff, &sv, &fs) == 4) {
			h->fsuid = fs;
			uid = true;
		} else if (sscanf(line, "Gid: %u %u %u %u", &r, &eff, &sv, &fs) == 4) {
			h->fsgid = fs;
			gid = true;
		} else if (strncmp(line, "Groups:", 7) == 0) {
			char *p = line + 7, *end;

			h->n_groups = 0;
			for (;;) {
				unsigned long g = strtoul(p, &end, 10);

				if (end == p)
					break;
				if (h->n_groups == WD_HOLD_GROUPS_MAX) {
					fclose(f);
					return; /* more groups than we keep: unknown, so refused */
				}
				h->groups[h->n_groups++] = (gid_t)g;
				p = end;
			}
		}
	}
	fclose(f);
	h->creds_known = uid && gid;
}

static void fill_task(struct hold *h)
{
	char path[64], buf[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/comm", h->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, h->comm, sizeof(h->comm) - 1);
		if (n > 0 && h->comm[n - 1] == '\n')
			n--;
		h->comm[n > 0 ? n : 0] = 0;
		close(fd);
	}
	snprintf(path, sizeof(path), "/proc/%u/exe", h->pid);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = 0;
		h->exe = strdup(buf);
	}
	h->cmdline = read_cmdline(h->pid);
	read_creds(h);
}

/*
 * ftruncate(fd, len), fallocate(fd, ...): the target is the task's open file. Pinned (when @pin)
 * as the very file the task has open (pidfd_getfd, so a dup2 over the fd number meanwhile cannot
 * change which), its path read from that copy, and reopened for writing only where the task's
 * own open file could write: a file opened read-only or O_PATH gets the kernel's own answer
 * (EINVAL, EBADF; fd_errno), never an approval that a reopen would make more than it was.
 */
static int open_fd_target(struct hold *h, bool pin)
{
	char link[64], path[PATH_MAX];
	int pidfd = -1, fd = -1, fl, err = 0;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%u/fd/%d", h->pid, (int)h->args[0]);
	if (pin) {
		pidfd = (int)syscall(SYS_pidfd_open, (pid_t)h->pid, 0);
		fd = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, (int)h->args[0], 0);
		if (fd < 0) {
			err = -errno;
			goto out;
		}
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	}
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0 || path[0] != '/') {
		err = n < 0 ? -errno : -EINVAL; /* a pipe, a socket: nothing protected */
		goto out;
	}
	path[n] = 0;
	h->target = strdup(path);
	if (!h->target) {
		err = -ENOMEM;
		goto out;
	}
	h->op.target = h->target;
	if (!pin)
		goto out;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0) {
		err = -errno;
		goto out;
	}
	if ((fl & O_PATH) || (fl & O_ACCMODE) == O_RDONLY) {
		/* ftruncate of a file not open for writing is EINVAL; fallocate's, and O_PATH, EBADF */
		h->fd_errno = (fl & O_PATH) || h->nr != SYS_ftruncate ? -EBADF : -EINVAL;
		goto out;
	}
	/* the same inode, opened anew: the task's file may carry its sandbox's truncate right */
	h->dirfd = open(link, O_WRONLY | O_CLOEXEC);
	if (h->dirfd < 0)
		err = -errno;
out:
	if (fd >= 0)
		close(fd);
	if (pidfd >= 0)
		close(pidfd);
	return err;
}

/* What @name in @dirfd is now (a symlink itself, not what it points to). */
static void look(int dirfd, const char *name, struct seen *o)
{
	struct stat st;

	*o = (struct seen){ .exists = fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 };
	if (o->exists) {
		o->dev = st.st_dev;
		o->ino = st.st_ino;
	}
}

/* Is @name in @dirfd still what @o says it was when the call was decided? */
static bool still(int dirfd, const char *name, const struct seen *o)
{
	struct seen now;

	look(dirfd, name, &now);
	return now.exists == o->exists && (!now.exists || (now.dev == o->dev && now.ino == o->ino));
}

/* Does an open with @flags follow a symlink in its last component? */
static bool opens_through_link(int flags)
{
	/* O_CREAT | O_EXCL fails on any link there (EEXIST), O_NOFOLLOW with ELOOP */
	return !(flags & O_NOFOLLOW) && (flags & (O_CREAT | O_EXCL)) != (O_CREAT | O_EXCL);
}

#ifndef OPEN_HOW_SIZE_VER0
#define OPEN_HOW_SIZE_VER0 24 /* flags, mode, resolve: what every openat2 caller passes */
#endif

/* openat2's struct open_how, from the task's memory. */
static int read_how(struct hold *h, struct open_how *how)
{
	size_t size = h->args[3] < sizeof(*how) ? (size_t)h->args[3] : sizeof(*how);
	struct iovec local = { how, size };
	struct iovec remote = { (void *)(uintptr_t)h->args[2], size };

	memset(how, 0, sizeof(*how));
	if (size < OPEN_HOW_SIZE_VER0)
		return -EINVAL;
	if (process_vm_readv((pid_t)h->pid, &local, 1, &remote, 1, 0) != (ssize_t)size)
		return -EFAULT;
	return 0;
}

/* The canonical path of what @fd is open on (O_PATH is enough), or NULL. */
static char *path_of_fd(int fd)
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

/* Open @name under @dirfd (AT_FDCWD: absolute) following every link, and name what it is. */
static int follow_to(int dirfd, const char *name, char **out)
{
	int fd = openat(dirfd, name, O_PATH | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	*out = path_of_fd(fd);
	close(fd);
	return *out ? 0 : -ENOMEM;
}

/*
 * @path through the task's own /proc/self, /proc/thread-self or /dev/fd, as the same place
 * under its /proc/PID in warden's /proc (where warden's own "self" would name warden): true with
 * @via set, false for any other path.
 */
static bool task_self_path(const struct hold *h, const char *path, char *via, size_t viasz)
{
	static const char *const self[] = { "/proc/self/", "/proc/thread-self/", "/dev/fd/" };

	for (size_t i = 0; i < sizeof(self) / sizeof(self[0]); i++) {
		const char *rest = path + strlen(self[i]);

		if (strncmp(path, self[i], strlen(self[i])) != 0)
			continue;
		if (i == 0)
			snprintf(via, viasz, "/proc/%u/%s", h->pid, rest);
		else if (i == 1)
			snprintf(via, viasz, "/proc/%u/task/%u/%s", h->pid, h->pid, rest);
		else
			snprintf(via, viasz, "/proc/%u/fd/%s", h->pid, rest);
		return true;
	}
	return false;
}

/*
 * A truncation reaching what a magic link (a task's fd in /proc) leads to: opened to find it, as
 * the kernel will; a regular file is then resolved and pinned like any target, anything else (a
 * pipe, a terminal: nothing to truncate) is only named.
 */
static int follow_magic(struct hold *h, const struct resolver *pinned, int dirfd, const char *name)
{
	struct stat st;
	char *canon;
	int fd = openat(dirfd, name, O_PATH | O_CLOEXEC), err;

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno; /* nothing there: the name is the target */
	canon = path_of_fd(fd);
	err = fstat(fd, &st) ? -errno : canon ? 0 : -ENOMEM;
	close(fd);
	if (err) {
		free(canon);
		return err;
	}
	if (h->dirfd >= 0)
		close(h->dirfd);
	free(h->name);
	free(h->target);
	h->dirfd = -1;
	h->name = NULL;
	h->target = canon;
	if (!S_ISREG(st.st_mode) || canon[0] != '/')
		return 0;
	h->target = NULL;
	err = resolve(pinned, h->pid, AT_FDCWD, canon, &h->dirfd, &h->name, &h->target);
	free(canon);
	return err;
}

/*
 * A truncating open or truncate(2) follows a symlink in the last component (a delete or a
 * rename never does): move h's target from the link to what it names, as the kernel would, so
 * a link outside a protected tree does not truncate a file inside it unheld. The parent stays
 * pinned at each step; the link's text is read once, where it was found. A link into the task's
 * own fds (/dev/stdout is /proc/self/fd/1) is followed through its /proc/PID, as for exec.
 */
static int follow_last(struct hold *h, const struct resolver *pinned)
{
	char text[PATH_MAX], via[PATH_MAX];
	struct statfs sfs;

	for (int hops = 0; hops < 40; hops++) {
		ssize_t n;
		int at = h->dirfd, err;

		n = readlinkat(h->dirfd, h->name, text, sizeof(text) - 1);
		if (n < 0)
			return errno == EINVAL || errno == ENOENT ? 0 : -errno; /* no link: there */
		text[n] = 0;
		/* an fd in /proc: a magic link, whose text is no path to follow */
		if (fstatfs(h->dirfd, &sfs) == 0 && sfs.f_type == PROC_SUPER_MAGIC)
			return follow_magic(h, pinned, h->dirfd, h->name);
		if (task_self_path(h, text, via, sizeof(via)))
			return has_dotdot(via) ? -EXDEV : follow_magic(h, pinned, AT_FDCWD, via);
		free(h->name);
		free(h->target);
		h->name = h->target = NULL;
		h->dirfd = -1;
		/* an absolute text from the sandbox's root; a relative one from the link's directory */
		if (text[0] == '/')
			err = resolve(pinned, h->pid, AT_FDCWD, text, &h->dirfd, &h->name, &h->target);
		else
			err = resolve(pinned, (uint32_t)getpid(), at, text, &h->dirfd, &h->name,
				      &h->target);
		close(at);
		if (err)
			return err;
	}
	return -ELOOP;
}

/*
 * The program an exec would run, as a canonical path in h->target: followed, as execve does.
 * execveat(fd, "", AT_EMPTY_PATH) (fexecve) runs the task's open file; a path through its own
 * /proc/self, /proc/thread-self or /dev/fd is read through its /proc/PID here, where warden's
 * own would name warden's fds. Otherwise the parent is resolved as for any held call and the
 * last component followed as a truncation's is (follow_last: links into the task's own fds
 * too). A magic link on the way to the parent is -EXDEV: refused, not guessed, so an exec hold
 * is not passed by naming the program another way.
 */
static int exec_target(struct hold *h, const struct resolver *pinned, int dirfd, const char *path)
{
	char via[PATH_MAX];
	int err;

	if (!*path && h->nr == SYS_execveat && (h->args[4] & AT_EMPTY_PATH)) {
		snprintf(via, sizeof(via), "/proc/%u/fd/%d", h->pid, dirfd);
		return follow_to(AT_FDCWD, via, &h->target);
	}
	if (task_self_path(h, path, via, sizeof(via))) {
		/* "/proc/self/../N/exe" would leave the task's own directory for warden's N */
		if (has_dotdot(via))
			return (h->target = strdup(path)) ? -EXDEV : -ENOMEM;
		return follow_to(AT_FDCWD, via, &h->target);
	}
	err = resolve(pinned, h->pid, dirfd, path, &h->dirfd, &h->name, &h->target);
	if (!err)
		return follow_last(h, pinned);
	if (!h->target)
		h->target = strdup(path); /* as the task wrote it, for the record */
	return err;
}

/*
 * Read what the held syscall names. 0, or -errno (the call then goes on as the kernel decides).
 * Unless @r->pin, a target may be left unpinned (h->dirfd -1): enough to match it.
 */
static int decode(struct hold *h, const struct resolver *r)
{
	const struct resolver pinned = { .root = r->root, .dirs = r->dirs, .pin = true,
					 .by_inode = r->by_inode };
	char path[PATH_MAX], path2[PATH_MAX];
	int dirfd = AT_FDCWD, dirfd2 = AT_FDCWD, err;
	uint64_t p1 = 0, p2 = 0;
	bool follow = false;

	h->dirfd = h->dirfd2 = -1;
	switch (h->nr) {
	case SYS_unlink:
	case SYS_rmdir:
		h->op.class = WD_HOLD_DELETE;
		h->rmdir = h->nr == SYS_rmdir;
		p1 = h->args[0];
		break;
	case SYS_unlinkat:
		h->op.class = WD_HOLD_DELETE;
		dirfd = (int)h->args[0];
		p1 = h->args[1];
		h->rmdir = h->args[2] & AT_REMOVEDIR;
		break;
	case SYS_rename:
		h->op.class = WD_HOLD_RENAME;
		p1 = h->args[0];
		p2 = h->args[1];
		break;
	case SYS_renameat:
	case SYS_renameat2:
		h->op.class = WD_HOLD_RENAME;
		dirfd = (int)h->args[0];
		p1 = h->args[1];
		dirfd2 = (int)h->args[2];
		p2 = h->args[3];
		break;
	case SYS_ftruncate:
		/* the file the task has open: its path is what the kernel says it is */
		h->op.class = WD_HOLD_TRUNCATE;
		h->opname = "truncate";
		h->fd_target = true;
		return open_fd_target(h, r->pin);
	case SYS_fallocate:
		/* only the modes that destroy or move what the file holds (the filter sends those) */
		if (!(h->args[1] & WD_FALLOC_DESTRUCTIVE))
			return -ENOSYS;
		h->op.class = WD_HOLD_TRUNCATE;
		h->opname = "fallocate";
		h->fd_target = true;
		return open_fd_target(h, r->pin);
	case SYS_link:
	case SYS_linkat:
		/* the file that would get another name: checked as a truncation of it */
		h->op.class = WD_HOLD_TRUNCATE;
		h->opname = "link";
		h->link = true;
		if (h->nr == SYS_link) {
			p1 = h->args[0];
			break;
		}
		dirfd = (int)h->args[0];
		p1 = h->args[1];
		follow = h->args[4] & AT_SYMLINK_FOLLOW;
		if ((h->args[4] & AT_EMPTY_PATH) && read_string(h->pid, p1, path, 2) == 0 &&
		    !path[0]) {
			h->fd_target = true;
			return open_fd_target(h, false);
		}
		break;
	case SYS_truncate:
		h->op.class = WD_HOLD_TRUNCATE;
		p1 = h->args[0];
		follow = true;
		break;
	case SYS_creat:
		h->op.class = WD_HOLD_TRUNCATE;
		p1 = h->args[0];
		h->oflags = O_CREAT | O_WRONLY | O_TRUNC;
		h->omode = (mode_t)h->args[1];
		follow = true;
		break;
	case SYS_open:
		h->op.class = WD_HOLD_TRUNCATE;
		p1 = h->args[0];
		h->oflags = (int)h->args[1];
		h->omode = (mode_t)h->args[2];
		follow = opens_through_link(h->oflags);
		break;
	case SYS_openat:
		h->op.class = WD_HOLD_TRUNCATE;
		dirfd = (int)h->args[0];
		p1 = h->args[1];
		h->oflags = (int)h->args[2];
		h->omode = (mode_t)h->args[3];
		follow = opens_through_link(h->oflags);
		break;
	case SYS_openat2: {
		struct open_how how;

		h->op.class = WD_HOLD_TRUNCATE;
		dirfd = (int)h->args[0];
		p1 = h->args[1];
		err = read_how(h, &how);
		if (err)
			return err;
		if (!(how.flags & O_TRUNC))
			return -ENOSYS; /* the filter sends every openat2: most truncate nothing */
		h->oflags = (int)how.flags;
		h->omode = (mode_t)how.mode;
		if (how.resolve & (RESOLVE_IN_ROOT | RESOLVE_BENEATH)) {
			/* resolved from the dirfd as its root: not how warden walks; never guess */
			h->opname = "truncate";
			h->refused = "/hold/openat2-scoped";
			return -EXDEV;
		}
		follow = opens_through_link(h->oflags) && !(how.resolve & RESOLVE_NO_SYMLINKS);
		break;
	}
	case SYS_execve:
		h->op.class = WD_HOLD_EXEC;
		p1 = h->args[0];
		break;
	case SYS_execveat:
		h->op.class = WD_HOLD_EXEC;
		dirfd = (int)h->args[0];
		p1 = h->args[1];
		break;
	default:
		return -ENOSYS;
	}
	if (!h->opname)
		h->opname = h->op.class == WD_HOLD_DELETE ? (h->rmdir ? "rmdir" : "delete") :
			    h->op.class == WD_HOLD_RENAME ? "rename" :
			    h->op.class == WD_HOLD_TRUNCATE ? "truncate" : "exec";
	err = read_string(h->pid, p1, path, sizeof(path));
	if (err)
		return err;
	if (h->op.class == WD_HOLD_EXEC) {
		err = exec_target(h, &pinned, dirfd, path);
		if (!err)
			err = read_argv(h, h->nr == SYS_execve ? h->args[1] : h->args[2]);
		if (!err)
			err = join_argv(h);
		h->op.target = h->target;
		h->op.argv = h->argv;
		h->op.argc = h->argc;
		return err;
	}
	/*
	 * A truncation that follows its last component needs the parent pinned to look there, and
	 * so does one checked by inode.
	 */
	err = resolve(follow || (r->by_inode && h->op.class == WD_HOLD_TRUNCATE) ? &pinned : r,
		      h->pid, dirfd, path, &h->dirfd, &h->name, &h->target);
	if (!err && follow)
		err = follow_last(h, &pinned);
	if (err == -EXDEV && !h->target)
		h->target = strdup(path); /* as the task wrote it, for the record */
	if (err)
		return err;
	h->op.target = h->target;
	/* what the name is now: an approval later acts on this object or on none */
	if (h->dirfd >= 0 && h->op.class != WD_HOLD_TRUNCATE)
		look(h->dirfd, h->name, &h->seen);
	if (p2) {
		err = read_string(h->pid, p2, path2, sizeof(path2));
		if (!err)
			err = resolve(r, h->pid, dirfd2, path2, &h->dirfd2, &h->name2,
				      &h->target2);
		if (err == -EXDEV)
			h->target2 = strdup(path2);
		if (err)
			return err;
		h->op.target2 = h->target2;
		if (h->dirfd2 >= 0)
			look(h->dirfd2, h->name2, &h->seen2);
	}
	return 0;
}

static int respond(struct wd_hold_engine *e, uint64_t notif_id, int error, int64_t val,
		   bool cont)
{
	struct seccomp_notif_resp r = { .id = notif_id, .error = error, .val = val };

	if (cont)
		r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	if (ioctl(e->listener, SECCOMP_IOCTL_NOTIF_SEND, &r))
		return -errno; /* -ENOENT: the task is gone (killed while held) */
	return 0;
}

/*
 * Delete the object that was checked, or none: a name another process swapped while the call
 * waited is not deleted in its place (ESTALE, on record). Linux cannot unlink by inode, so what
 * the name holds is first moved aside to a name of warden's own in the same directory (atomic:
 * whatever is there then), looked at there, and only then removed; anything else goes back.
 */
static int delete_checked(struct hold *h)
{
	char aside[64];
	int r;

	snprintf(aside, sizeof(aside), ".warden-held-%016llx", (unsigned long long)h->notif_id);
	if (syscall(SYS_renameat2, h->dirfd, h->name, h->dirfd, aside, RENAME_NOREPLACE))
		return -errno; /* ENOENT, EBUSY (a mount point), EACCES: what unlink would say */
	if (!still(h->dirfd, aside, &h->seen)) {
		r = -ESTALE;
		goto put_back;
	}
	r = unlinkat(h->dirfd, aside, h->rmdir ? AT_REMOVEDIR : 0) ? -errno : 0;
	if (!r)
		return 0;
put_back:
	/* not deleted (ESTALE, ENOTEMPTY, ENOTDIR, ...): it goes back where it was */
	if (syscall(SYS_renameat2, h->dirfd, aside, h->dirfd, h->name, RENAME_NOREPLACE))
		log_warn("holds: %s could not go back to %s: it is %s beside it", h->target,
			 h->name, aside);
	return r;
}

/*
 * Perform the approved operation on the pinned parent directory, and answer the task with its
 * result. The supervisor acts, so a path swapped after the check changes nothing.
 */
static int perform_op(struct wd_hold_engine *e, struct hold *h)
{
	int r = 0, fd, flags;

	switch (h->op.class) {
	case WD_HOLD_EXEC:
		/* exec holds are advisory: the exec allowlist stays the authority */
		return respond(e, h->notif_id, 0, 0, true) ? -ESRCH : 0;
	case WD_HOLD_DELETE:
		r = delete_checked(h);
		break;
	case WD_HOLD_RENAME:
		flags = h->nr == SYS_renameat2 ? (int)h->args[4] : 0;
		/* an exchange acts on the destination too, even one that was not there */
		if (!still(h->dirfd, h->name, &h->seen) ||
		    ((h->seen2.exists || (flags & RENAME_EXCHANGE)) &&
		     !still(h->dirfd2, h->name2, &h->seen2))) {
			r = -ESTALE;
			break;
		}
		/* nothing was there to replace when it was shown: nothing may be replaced now */
		if (!h->seen2.exists && !(flags & RENAME_EXCHANGE))
			flags |= RENAME_NOREPLACE;
		r = (int)syscall(SYS_renameat2, h->dirfd, h->name, h->dirfd2, h->name2,
				 (unsigned int)flags);
		r = r ? -errno : 0;
		if (r == -EEXIST && !h->seen2.exists && !(h->nr == SYS_renameat2 &&
							  (h->args[4] & RENAME_NOREPLACE)))
			r = -ESTALE; /* a destination appeared while it waited */
		break;
	case WD_HOLD_TRUNCATE:
		if (h->nr == SYS_ftruncate) {
			r = ftruncate(h->dirfd, (off_t)h->args[1]) ? -errno : 0;
			break;
		}
		if (h->nr == SYS_fallocate) {
			r = fallocate(h->dirfd, (int)h->args[1], (off_t)h->args[2],
				      (off_t)h->args[3]) ? -errno : 0;
			break;
		}
		if (h->nr == SYS_truncate) {
			fd = openat(h->dirfd, h->name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
			r = fd < 0 ? -errno : (ftruncate(fd, (off_t)h->args[1]) ? -errno : 0);
			if (fd >= 0)
				close(fd);
			break;
		}
		/*
		 * An open with O_TRUNC: open it here, and hand the task the file as the result.
		 * The name is the one checked (any link was followed then), so no link now.
		 */
		flags = h->oflags;
		fd = openat(h->dirfd, h->name, flags | O_NOFOLLOW | O_CLOEXEC, h->omode);
		if (fd < 0) {
			r = -errno;
			break;
		} else {
			struct seccomp_notif_addfd add = {
				.id = h->notif_id,
				.flags = SECCOMP_ADDFD_FLAG_SEND,
				.srcfd = (uint32_t)fd,
				.newfd_flags = (flags & O_CLOEXEC) ? O_CLOEXEC : 0,
			};
			int got = ioctl(e->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);

			r = got < 0 ? -errno : 0;
			close(fd);
			return r;
		}
	default:
		r = -ENOSYS;
	}
	respond(e, h->notif_id, r, 0, false);
	return r;
}

/*
 * Switch this thread's file-system credentials to @h's task's (raw syscalls: glibc would make
 * every thread of warden switch). An approval lifts the hold, nothing else: what the task could
 * not do itself, the supervisor does not do for it.
 */
static int become_task(const struct hold *h)
{
	if (syscall(SYS_setgroups, (size_t)h->n_groups, h->groups))
		return -errno;
	syscall(SYS_setfsgid, h->fsgid);
	syscall(SYS_setfsuid, h->fsuid);
	/* setfs[ug]id say the previous id, never an error: check what stuck */
	if ((uid_t)syscall(SYS_setfsuid, -1) != h->fsuid ||
	    (gid_t)syscall(SYS_setfsgid, -1) != h->fsgid)
		return -EPERM;
	return 0;
}

/* Back to warden's own (fsuid 0 gives back the capabilities a non-zero fsuid took away). */
static int become_self(const gid_t *groups, int n_groups)
{
	syscall(SYS_setfsuid, 0);
	syscall(SYS_setfsgid, 0);
	return syscall(SYS_setgroups, (size_t)n_groups, groups) ? -errno : 0;
}

/* The sandbox's own file rules for what @h changes: 0, or the errno the kernel would give. */
static int may_write(struct wd_hold_engine *e, const struct hold *h)
{
	int r = 0;

	if (!e->ev.may_write || h->op.class == WD_HOLD_EXEC || h->fd_target)
		return 0; /* an open file was checked when it was opened */
	if (h->target)
		r = e->ev.may_write(e->ev.ctx, h->target);
	if (!r && h->target2)
		r = e->ev.may_write(e->ev.ctx, h->target2);
	return r;
}

static int perform(struct wd_hold_engine *e, struct hold *h)
{
	gid_t groups[WD_HOLD_GROUPS_MAX];
	int n_groups, r;

	if (h->op.class == WD_HOLD_EXEC)
		return perform_op(e, h);
	r = may_write(e, h);
	if (!r && !h->creds_known)
		r = -EPERM; /* whose rights to act with cannot be known: refused */
	if (r) {
		respond(e, h->notif_id, r, 0, false);
		return r;
	}
	n_groups = (int)syscall(SYS_getgroups, WD_HOLD_GROUPS_MAX, groups);
	if (n_groups < 0) {
		r = -errno;
		respond(e, h->notif_id, r, 0, false);
		return r;
	}
	r = become_task(h);
	if (r) {
		become_self(groups, n_groups);
		respond(e, h->notif_id, -EPERM, 0, false);
		return r;
	}
	r = perform_op(e, h);
	if (become_self(groups, n_groups))
		log_warn("holds: cannot return to warden's own groups");
	return r;
}

static void view_of(const struct hold *h, struct wd_hold_view *v, uint64_t now,
		    const struct wd_hold_rules *rules)
{
	memset(v, 0, sizeof(*v));
	v->id = h->id;
	v->pid = h->pid;
	memcpy(v->comm, h->comm, sizeof(v->comm));
	v->exe = h->exe;
	v->cmdline = h->cmdline;
	v->exec_argv = h->argv_line;
	v->op = h->opname;
	v->target = h->target;
	v->target2 = h->target2;
	v->rule = h->rule;
	v->tree = h->tree;
	v->token = h->token;
	v->age_ms = now - h->created_ms;
	v->timeout_ms = rules->timeout_ms;
}

static void sign(struct wd_hold_engine *e, struct hold *h)
{
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	char msg[PATH_MAX * 2 + 64];
	int n;

	n = snprintf(msg, sizeof(msg), "%llu|%u|%s|%s|%s", (unsigned long long)h->id, h->pid,
		     h->opname, h->target, h->target2 ? h->target2 : "");
	HMAC(EVP_sha256(), e->key, sizeof(e->key), (unsigned char *)msg, (size_t)n, mac, &len);
	for (unsigned int i = 0; i < 16 && i < len; i++)
		snprintf(h->token + 2 * i, 3, "%02x", mac[i]);
}

static void arm_timer(struct wd_hold_engine *e)
{
	struct itimerspec its = { 0 };
	uint64_t next = 0, now = now_ms();

	for (struct hold *h = e->pending; h; h = h->next)
		if (h->deadline_ms && (!next || h->deadline_ms < next))
			next = h->deadline_ms;
	if (next) {
		uint64_t in = next > now ? next - now : 1;

		its.it_value.tv_sec = (time_t)(in / 1000);
		its.it_value.tv_nsec = (long)(in % 1000) * 1000000;
	}
	timerfd_settime(e->timer, 0, &its, NULL);
}

/* Decide @h: perform it or refuse it, tell the events, free it. */
/* Tell whoever keeps the journal of waiting calls that @h waits, or no longer does. */
static void journal(struct wd_hold_engine *e, const struct hold *h, bool waiting)
{
	struct wd_hold_call c = { .notif_id = h->notif_id, .pid = h->pid, .nr = h->nr };

	if (!e->ev.waiting)
		return;
	memcpy(c.args, h->args, sizeof(c.args));
	e->ev.waiting(e->ev.ctx, &c, waiting);
}

static void settle(struct wd_hold_engine *e, struct hold *h, bool allow, const char *who)
{
	struct wd_hold_view v;
	int result = -EPERM;

	/* an approved burst is over: the next deletes are counted afresh (set before the answer) */
	if (allow && h->op.burst)
		atomic_store(&e->burst_restart, true);
	if (allow)
		result = perform(e, h);
	else
		respond(e, h->notif_id, -EPERM, 0, false);
	view_of(h, &v, now_ms(), e->rules);
	if (e->ev.decided)
		e->ev.decided(e->ev.ctx, &v, allow, who, result);
	if (h->waited)
		journal(e, h, false);
	hold_free(h);
}

/* Do @a and @b ask the operator the same thing (many threads on one target)? */
static bool same_question(const struct hold *a, const struct hold *b)
{
	return a->op.class == b->op.class && strcmp(a->target, b->target) == 0 &&
	       !a->target2 == !b->target2 && (!a->target2 || strcmp(a->target2, b->target2) == 0);
}

/* @gone led its question: the next caller asking the same leads it now, and is announced. */
static void promote_follower(struct wd_hold_engine *e, const struct hold *gone)
{
	for (struct hold *h = e->pending; h; h = h->next) {
		struct wd_hold_view v;

		if (!h->follower || !same_question(h, gone))
			continue;
		h->follower = false;
		view_of(h, &v, now_ms(), e->rules);
		if (e->ev.held)
			e->ev.held(e->ev.ctx, &v);
		return;
	}
}

/*
 * After a decision on @decided: holds asking the same are answered alike, and holds that a
 * standing grant now covers are answered by it.
 */
static void sweep(struct wd_hold_engine *e, const struct hold *decided, bool allow,
		  const char *who)
{
	struct hold **pp = &e->pending;
	uint64_t now = now_ms();

	while (*pp) {
		struct hold *h = *pp;
		int granted = 0;

		if (decided && same_question(h, decided))
			granted = allow ? 1 : -1;
		else
			granted = wd_grants_answer(&e->grants, &h->op, h->pid, now);
		if (!granted) {
			pp = &h->next;
			continue;
		}
		*pp = h->next;
		settle(e, h, granted > 0, decided && same_question(h, decided) ? who : "grant");
	}
}

/* More than burst_count deletes within burst_ms, this one included? */
static bool burst(struct wd_hold_engine *e, uint64_t now)
{
	unsigned int cap = e->rules->burst_count + 1;
	unsigned int recent = 0;

	if (atomic_exchange(&e->burst_restart, false))
		e->burst_n = e->burst_head = 0;
	e->burst[e->burst_head] = now;
	e->burst_head = (e->burst_head + 1) % cap;
	if (e->burst_n < cap)
		e->burst_n++;
	for (unsigned int i = 0; i < e->burst_n; i++)
		if (now - e->burst[i] < e->rules->burst_ms)
			recent++;
	return recent > e->rules->burst_count;
}

/* Forget what decode() found, to decode it again. */
static void undecode(struct hold *h)
{
	if (h->dirfd >= 0)
		close(h->dirfd);
	if (h->dirfd2 >= 0)
		close(h->dirfd2);
	h->dirfd = h->dirfd2 = -1;
	h->fd_errno = 0;
	free(h->name);
	free(h->name2);
	free(h->target);
	free(h->target2);
	h->name = h->name2 = h->target = h->target2 = NULL;
	h->op.target = h->op.target2 = NULL;
}

/* Does @h carry every object an approved operation acts on? (an exec acts on none) */
static bool pinned(const struct hold *h)
{
	return h->op.class == WD_HOLD_EXEC || (h->dirfd >= 0 && (!h->target2 || h->dirfd2 >= 0));
}

/* The file a truncation (or a link) acts on, for the rules' linked files. */
static int target_stat(const struct hold *h, struct stat *st)
{
	char link[64];

	if (h->fd_target && h->dirfd < 0) {
		snprintf(link, sizeof(link), "/proc/%u/fd/%d", h->pid, (int)h->args[0]);
		return stat(link, st) ? -errno : 0;
	}
	if (h->fd_target)
		return fstat(h->dirfd, st) ? -errno : 0;
	if (h->dirfd < 0 || !h->name)
		return -ENOENT;
	return fstatat(h->dirfd, h->name, st, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
}

/*
 * Decode @h and match it. WD_HOLD_ACT_NONE with *answer 0 lets the call go on; with a negative
 * *answer the task gets that error from here, without a hold.
 */
static enum wd_hold_action classify(struct wd_hold_engine *e, struct hold *h,
				    const struct resolver *r, int *answer)
{
	enum wd_hold_action act;
	struct stat st;
	int err = decode(h, r);

	*answer = 0;
	if (!err && h->fd_errno) {
		/* an fd that cannot do it: the kernel's answer, from here (no hold, no reopen) */
		*answer = h->fd_errno;
		return WD_HOLD_ACT_NONE;
	}
	if (err == -EXDEV) {
		/*
		 * Through a magic link warden cannot follow as the task would: refused, never let
		 * through on a guess (a CONTINUE here would let the kernel find what was not checked).
		 */
		h->rule = h->refused ? h->refused : "/hold/magic-link";
		return WD_HOLD_ACT_DENY;
	}
	if (err && (err == -ENOSYS || err == -EINVAL || h->op.class == WD_HOLD_EXEC)) {
		/*
		 * A call this engine does not decode, a last component "." or ".." (which no
		 * delete, rename or truncate accepts), or an exec (advisory): the call goes on and
		 * the kernel and the backend's rules answer it as they would.
		 */
		return WD_HOLD_ACT_NONE;
	}
	if (err) {
		/*
		 * Unreadable arguments, a directory that does not resolve: the task gets that
		 * error from here. Never CONTINUE on a path warden could not follow: where its
		 * walk differs from the task's (a /proc/self that is warden's, or none at all in
		 * the sandbox's pid namespace), the kernel would find what was never checked.
		 */
		*answer = err;
		return WD_HOLD_ACT_NONE;
	}
	act = wd_hold_match(e->rules, &h->op, &h->rule, &h->tree);
	if (act == WD_HOLD_ACT_NONE && h->op.class == WD_HOLD_TRUNCATE && e->rules->n_linked &&
	    target_stat(h, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink > 1)
		act = wd_hold_match_inode(e->rules, st.st_dev, st.st_ino, &h->rule, &h->tree);
	/* a second name is not held: it would outlive the decision (bpf-lsm refuses it too) */
	return h->link && act != WD_HOLD_ACT_NONE ? WD_HOLD_ACT_DENY : act;
}

/*
 * A directory removal or rename: what the cache knew may be false from now on. True when the
 * call was sent for that alone (watch_dirs), no rule holding its class.
 */
static bool dir_changes(struct wd_hold_engine *e, const struct hold *h)
{
	unsigned int class = h->nr == SYS_rmdir || h->nr == SYS_unlinkat ? WD_HOLD_DELETE :
									   WD_HOLD_RENAME;

	if (!wd_notify_dir_change(h->nr, h->nr == SYS_unlinkat ? h->args[2] : 0))
		return false;
	e->dirs.gen++;
	return !(wd_hold_rules_classes(e->rules) & class);
}

/*
 * Decide one call and answer it if no rule matches (or it cannot be decoded); otherwise return
 * it, decoded, for admit(). Runs on the receiver thread (or the main loop without one); touches
 * nothing of the engine's but the listener, the rules, the burst ring and the directory cache.
 */
static int take(struct wd_hold_engine *e, const struct wd_hold_call *c, struct hold **out)
{
	struct resolver r = { .dirs = &e->dirs, .by_inode = e->rules->n_linked > 0 };
	enum wd_hold_action act;
	struct hold *h;
	uint64_t now = now_ms();
	int answer;

	*out = NULL;
	h = calloc(1, sizeof(*h));
	if (!h) {
		respond(e, c->notif_id, -ENOMEM, 0, false);
		return -ENOMEM;
	}
	h->notif_id = c->notif_id;
	h->pid = c->pid;
	h->nr = c->nr;
	h->dirfd = h->dirfd2 = -1;
	memcpy(h->args, c->args, sizeof(h->args));
	if (dir_changes(e, h)) {
		respond(e, h->notif_id, 0, 0, true);
		hold_free(h);
		return 0;
	}
	e->dirs.now = now;
	/* The sandbox's root, from the first task that asks (see resolve()). */
	if (e->root < 0) {
		char base[64];

		snprintf(base, sizeof(base), "/proc/%u/root", h->pid);
		e->root = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	r.root = e->root;
	act = classify(e, h, &r, &answer);
	if (act == WD_HOLD_ACT_NONE && !answer && h->op.class == WD_HOLD_DELETE && e->burst &&
	    burst(e, now)) {
		act = WD_HOLD_ACT_HOLD;
		h->rule = "/hold/delete_burst";
		h->op.burst = true;
	}
	if (act == WD_HOLD_ACT_HOLD && !pinned(h)) {
		/* decided on the path alone: pin what an approval would act on, and look again */
		bool was_burst = h->op.burst;

		undecode(h);
		h->op.burst = false;
		r.pin = true;
		act = classify(e, h, &r, &answer);
		if (act == WD_HOLD_ACT_NONE && !answer && was_burst) {
			act = WD_HOLD_ACT_HOLD;
			h->rule = "/hold/delete_burst";
			h->op.burst = true;
		}
	}
	if (act == WD_HOLD_ACT_NONE) {
		/*
		 * No ID_VALID first: a CONTINUE to a task that has gone (or whose memory changed)
		 * decides nothing the kernel does not decide again itself.
		 */
		respond(e, h->notif_id, answer, 0, !answer);
		hold_free(h);
		return 0;
	}
	/* What was read is only good if the task is still the one that asked. */
	if (ioctl(e->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &h->notif_id)) {
		hold_free(h);
		return 0;
	}
	h->m = (struct matched){ .act = act, .now = now };
	/*
	 * Journaled here, before the hop to the main loop: a supervisor that dies after this
	 * leaves a call its successor can ask about again (sending from this thread is safe: one
	 * datagram each, and its answer can only be sent after it).
	 */
	h->waited = true;
	journal(e, h, true);
	*out = h;
	return 0;
}

static int receive_one(struct wd_hold_engine *e, struct seccomp_notif *n, size_t nsz,
		       struct hold **out)
{
	struct wd_hold_call c;

	*out = NULL;
	memset(n, 0, nsz);
	if (ioctl(e->listener, SECCOMP_IOCTL_NOTIF_RECV, n))
		return -errno;
	c = (struct wd_hold_call){ .notif_id = n->id, .pid = n->pid, .nr = (uint32_t)n->data.nr };
	memcpy(c.args, n->data.args, sizeof(c.args));
	return take(e, &c, out);
}

static void *receive_loop(void *arg)
{
	struct wd_hold_engine *e = arg;
	size_t nsz = e->sizes.seccomp_notif > sizeof(struct seccomp_notif) ?
			     e->sizes.seccomp_notif : sizeof(struct seccomp_notif);
	struct seccomp_notif *n = calloc(1, nsz);
	const uint64_t one = 1;

	if (!n) {
		log_warnx("holds: receiver: out of memory");
		return NULL;
	}
	while (!atomic_load(&e->stop)) {
		struct hold *h;
		int err = receive_one(e, n, nsz, &h);

		if (err == -EINTR || err == -ENOENT || err == -ENOMEM)
			continue;
		if (err) {
			log_warnx("holds: receiving from the waiting room: %s", strerror(-err));
			break;
		}
		if (!h)
			continue;
		pthread_mutex_lock(&e->qlock);
		h->next = NULL;
		*e->qtail = h;
		e->qtail = &h->next;
		pthread_mutex_unlock(&e->qlock);
		if (write(e->wake, &one, sizeof(one)) < 0)
			log_warn("holds: waking the main loop");
	}
	free(n);
	return NULL;
}

/* A matched call, on the main loop: deny it, answer it from a grant, or hold it. */
static void admit(struct wd_hold_engine *e, struct hold *h)
{
	struct wd_hold_view v;
	uint64_t now = h->m.now;
	int granted;

	h->next = NULL;
	h->id = e->next_id++;
	fill_task(h);
	sign(e, h);
	h->created_ms = now;
	if (h->m.act == WD_HOLD_ACT_DENY) {
		settle(e, h, false, "rule");
		return;
	}
	granted = wd_grants_answer(&e->grants, &h->op, h->pid, now);
	if (granted) {
		settle(e, h, granted > 0, "grant");
		return;
	}
	h->deadline_ms = e->rules->timeout_ms ? now + e->rules->timeout_ms : 0;
	for (struct hold *o = e->pending; o; o = o->next)
		if (same_question(o, h))
			h->follower = true;
	h->next = e->pending;
	e->pending = h;
	arm_timer(e);
	view_of(h, &v, now, e->rules);
	if (e->ev.held && !h->follower)
		e->ev.held(e->ev.ctx, &v);
}

int wd_hold_on_notify(struct wd_hold_engine *e)
{
	struct hold *h, *q;
	uint64_t count;
	int err;

	if (!e->receiving) {
		size_t nsz = e->sizes.seccomp_notif > sizeof(struct seccomp_notif) ?
				     e->sizes.seccomp_notif : sizeof(struct seccomp_notif);
		struct seccomp_notif *n = calloc(1, nsz);

		if (!n)
			return -ENOMEM;
		err = receive_one(e, n, nsz, &h);
		free(n);
		if (h)
			admit(e, h);
		return err == -EINTR || err == -ENOENT ? 0 : err;
	}
	if (read(e->wake, &count, sizeof(count)) < 0 && errno != EAGAIN)
		return -errno;
	pthread_mutex_lock(&e->qlock);
	q = e->qhead;
	e->qhead = NULL;
	e->qtail = &e->qhead;
	pthread_mutex_unlock(&e->qlock);
	/* in the order they came */
	while (q) {
		h = q;
		q = q->next;
		admit(e, h);
	}
	return 0;
}

int wd_hold_on_timer(struct wd_hold_engine *e)
{
	uint64_t ticks, now = now_ms();
	struct hold **pp = &e->pending;

	if (read(e->timer, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		return -errno;
	while (*pp) {
		struct hold *h = *pp;

		if (h->deadline_ms && h->deadline_ms <= now) {
			*pp = h->next;
			settle(e, h, e->rules->timeout_allows, "timeout");
			continue;
		}
		pp = &h->next;
	}
	arm_timer(e);
	return 0;
}

void wd_hold_list(struct wd_hold_engine *e, void (*fn)(void *arg, const struct wd_hold_view *v),
		  void *arg)
{
	uint64_t now = now_ms();
	struct hold **pp = &e->pending;

	while (*pp) {
		struct hold *h = *pp;
		struct wd_hold_view v;

		/* a held task that was killed has no call left to answer */
		if (ioctl(e->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &h->notif_id)) {
			*pp = h->next;
			if (!h->follower)
				promote_follower(e, h);
			view_of(h, &v, now, e->rules);
			if (e->ev.decided)
				e->ev.decided(e->ev.ctx, &v, false, "gone", -ESRCH);
			journal(e, h, false);
			hold_free(h);
			continue;
		}
		/* one question, one entry: callers asking the same wait behind the first */
		if (!h->follower) {
			view_of(h, &v, now, e->rules);
			fn(arg, &v);
		}
		pp = &h->next;
	}
}

int wd_hold_decide(struct wd_hold_engine *e, uint64_t id, const char *token,
		   const struct wd_hold_decision *d)
{
	struct hold **pp = &e->pending;
	uint64_t now = now_ms();

	for (; *pp; pp = &(*pp)->next) {
		struct hold *h = *pp;
		struct wd_grant g;
		int err;

		if (h->id != id)
			continue;
		if (!token || strcmp(token, h->token) != 0)
			return -EACCES;
		*pp = h->next;
		g = (struct wd_grant){
			.scope = d->scope,
			.allow = d->allow,
			.pid = h->pid,
			.classes = h->op.class,
			.subtree = (char *)d->subtree,
			.budget = d->budget,
			.expires_ms = d->ttl_ms ? now + d->ttl_ms : 0,
			.burst = h->op.burst,
		};
		err = wd_grants_add(&e->grants, &g);
		/* h is off the list: its followers, and what the grant covers, go first */
		sweep(e, h, d->allow, d->who);
		settle(e, h, d->allow, d->who);
		arm_timer(e);
		return err;
	}
	return -ENOENT;
}

int wd_hold_take_over(struct wd_hold_engine *e, int listener, const struct wd_hold_call *calls,
		      size_t n)
{
	int taken = 0;

	if (e->receiving)
		return -EBUSY;
	e->listener = listener;
	for (size_t i = 0; i < n; i++) {
		struct hold *h;

		/* a task killed meanwhile has no call left */
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &calls[i].notif_id))
			continue;
		if (take(e, &calls[i], &h) == 0 && h) {
			admit(e, h);
			taken++;
		}
	}
	wd_hold_attach(e, listener);
	return taken;
}
