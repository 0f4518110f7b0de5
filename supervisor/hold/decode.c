// SPDX-License-Identifier: GPL-2.0
/*
 * Decoding a held call (supervisor/hold/): what the syscall names, read from the task's memory
 * and resolved as the task would (taskpath.c), with the objects an approval would act on pinned.
 * One decoder per call of the table in bpf/wd_syscalls.h (WD_SYSCALLS_HELD), by family: delete,
 * rename, truncation (by fd, by path, by open), a second name, exec.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "supervisor/hold/decode.h"
#include "supervisor/hold/engine_internal.h"
#include "supervisor/hold/waiting_room.h"

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
		err = hold_read_string(h->pid, p, arg, sizeof(arg));
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
		h->fd_errno = (fl & O_PATH) || h->nr != WD_NR_ftruncate ? -EBADF : -EINVAL;
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
	canon = hold_path_of_fd(fd);
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
	err = hold_resolve(pinned, h->pid, AT_FDCWD, canon, &h->dirfd, &h->name, &h->target);
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
		if (hold_task_self_path(h->pid, text, via, sizeof(via)))
			return hold_has_dotdot(via) ? -EXDEV :
						      follow_magic(h, pinned, AT_FDCWD, via);
		free(h->name);
		free(h->target);
		h->name = h->target = NULL;
		h->dirfd = -1;
		/* an absolute text from the sandbox's root; a relative one from the link's directory */
		if (text[0] == '/')
			err = hold_resolve(pinned, h->pid, AT_FDCWD, text, &h->dirfd, &h->name,
					   &h->target);
		else
			err = hold_resolve(pinned, (uint32_t)getpid(), at, text, &h->dirfd,
					   &h->name, &h->target);
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

	if (!*path && h->nr == WD_NR_execveat && (h->args[4] & AT_EMPTY_PATH)) {
		snprintf(via, sizeof(via), "/proc/%u/fd/%d", h->pid, dirfd);
		return hold_follow_to(AT_FDCWD, via, &h->target);
	}
	if (hold_task_self_path(h->pid, path, via, sizeof(via))) {
		/* "/proc/self/../N/exe" would leave the task's own directory for warden's N */
		if (hold_has_dotdot(via))
			return (h->target = strdup(path)) ? -EXDEV : -ENOMEM;
		return hold_follow_to(AT_FDCWD, via, &h->target);
	}
	err = hold_resolve(pinned, h->pid, dirfd, path, &h->dirfd, &h->name, &h->target);
	if (!err)
		return follow_last(h, pinned);
	if (!h->target)
		h->target = strdup(path); /* as the task wrote it, for the record */
	return err;
}

/* What a call's decoder found: the paths to read (0: none), from where, and how. */
struct call_paths {
	int dirfd, dirfd2;
	uint64_t p1, p2;
	bool follow; /* a truncation that follows a symlink in the last component */
};

/*
 * A decoder: 0 with @a filled for the walk, 1 when it decoded the call itself (a target that is
 * the task's open file), or -errno (-ENOSYS: nothing held in this call after all).
 */
typedef int decoder_fn(struct hold *h, const struct resolver *r, struct call_paths *a);

static int decode_unlink(struct hold *h, const struct resolver *r, struct call_paths *a)
{
	(void)r;
	h->rmdir = h->nr == WD_NR_rmdir;
	a->p1 = h->args[0];
	return 0;
}

static int decode_unlinkat(struct hold *h, const struct resolver *r, struct call_paths *a)
{
	(void)r;
	a->dirfd = (int)h->args[0];
	a->p1 = h->args[1];
	h->rmdir = h->args[2] & AT_REMOVEDIR;
	return 0;
}

static int decode_rename(struct hold *h, const struct resolver *r, struct call_paths *a)
{
	(void)r;
	a->p1 = h->args[0];
	a->p2 = h->args[1];
	return 0;
}

/* renameat, renameat2 */
static int decode_renameat(struct hold *h, const struct resolver *r, struct call_paths *a)
{
	(void)r;
	a->dirfd = (int)h->args[0];
	a->p1 = h->args[1];
	a->dirfd2 = (int)h->args[2];
	a->p2 = h->args[3];
	return 0;
}

/* ftruncate: the file the task has open, whose path is what the kernel says it is */
static int decode_ftruncate(struct hold *h, const struct resolver *r, struct call_paths *a)
{
	(void)a;
	h->opname = "truncate";
	h->fd_target = true;
	return open_fd_target(h, r->pin) ?: 1;
}

static int decode_fallocate(struct hold *h, const struct resolver *r, struct call_paths *a)
{
	(void)a;
	/* only the modes that destroy or move what the file holds (the filter sends those) */
	if (!(h->args[1] & WD_FALLOC_DESTRUCTIVE))
		return -ENOSYS;
	h->opname = "fallocate";
	h->fd_target = true;
	return open_fd_target(h, r->pin) ?: 1;
}

/* link, linkat: the file that would get another name, checked as a truncation of it */
static int decode_link(struct hold *h, const struct resolver *r, struct call_paths *a)
{
	char path[2];

	(void)r;
	h->opname = "link";
	h->link = true;
	if (h->nr == WD_NR_link) {
		a->p1 = h->args[0];
		return 0;
	}
	a->dirfd = (int)h->args[0];
	a->p1 = h->args[1];
	a->follow = h->args[4] & AT_SYMLINK_FOLLOW;
	if ((h->args[4] & AT_EMPTY_PATH) && hold_read_string(h->pid, a->p1, path, 2) == 0 &&
	    !path[0]) {
		h->fd_target = true;
		return open_fd_target(h, false) ?: 1;
	}
	return 0;
}

static int decode_truncate(struct hold *h, const struct resolver *r, struct call_paths *a)
{
	(void)r;
	a->p1 = h->args[0];
	a->follow = true;
	return 0;
}

static int decode_creat(struct hold *h, const struct resolver *r, struct call_paths *a)
{
	(void)r;
	a->p1 = h->args[0];
	h->oflags = O_CREAT | O_WRONLY | O_TRUNC;
	h->omode = (mode_t)h->args[1];
	a->follow = true;
	return 0;
}

/* open, openat */
static int decode_open(struct hold *h, const struct resolver *r, struct call_paths *a)
{
	const uint64_t *args = h->args;

	(void)r;
	if (h->nr == WD_NR_openat) {
		a->dirfd = (int)h->args[0];
		args++;
	}
	a->p1 = args[0];
	h->oflags = (int)args[1];
	h->omode = (mode_t)args[2];
	a->follow = opens_through_link(h->oflags);
	return 0;
}

static int decode_openat2(struct hold *h, const struct resolver *r, struct call_paths *a)
{
	struct open_how how;
	int err;

	(void)r;
	a->dirfd = (int)h->args[0];
	a->p1 = h->args[1];
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
	a->follow = opens_through_link(h->oflags) && !(how.resolve & RESOLVE_NO_SYMLINKS);
	return 0;
}

/* execve, execveat */
static int decode_execve(struct hold *h, const struct resolver *r, struct call_paths *a)
{
	(void)r;
	if (h->nr == WD_NR_execveat) {
		a->dirfd = (int)h->args[0];
		a->p1 = h->args[1];
	} else {
		a->p1 = h->args[0];
	}
	return 0;
}

/* The families: calls that share a decoder. */
#define decode_rmdir decode_unlink
#define decode_renameat2 decode_renameat
#define decode_linkat decode_link
#define decode_openat decode_open
#define decode_execveat decode_execve

/* Each held call's decoder, by number: a row of the table without one does not build. */
#define DECODER(nr, name, ...) [nr] = decode_##name,
static decoder_fn *const decoders[] = { WD_SYSCALLS_HELD(DECODER) };

/* An exec's program, arguments and the line the operator sees. */
static int decode_exec(struct hold *h, const struct resolver *pinned, int dirfd, const char *path)
{
	int err = exec_target(h, pinned, dirfd, path);

	if (!err)
		err = read_argv(h, h->nr == WD_NR_execve ? h->args[1] : h->args[2]);
	if (!err)
		err = join_argv(h);
	h->op.target = h->target;
	h->op.argv = h->argv;
	h->op.argc = h->argc;
	return err;
}

/* A rename's destination: resolved, and what it names now. */
static int decode_second(struct hold *h, const struct resolver *r, const struct call_paths *a)
{
	char path2[PATH_MAX];
	int err;

	err = hold_read_string(h->pid, a->p2, path2, sizeof(path2));
	if (!err)
		err = hold_resolve(r, h->pid, a->dirfd2, path2, &h->dirfd2, &h->name2, &h->target2);
	if (err == -EXDEV)
		h->target2 = strdup(path2);
	if (err)
		return err;
	h->op.target2 = h->target2;
	if (h->dirfd2 >= 0)
		hold_look(h->dirfd2, h->name2, &h->seen2);
	return 0;
}

int hold_decode(struct hold *h, const struct resolver *r)
{
	const struct resolver pinned = { .root = r->root, .dirs = r->dirs, .pin = true,
					 .by_inode = r->by_inode };
	const struct wd_held_call *call = wd_waiting_room_call(h->nr);
	struct call_paths a = { .dirfd = AT_FDCWD, .dirfd2 = AT_FDCWD };
	char path[PATH_MAX];
	bool follow_pinned;
	int err;

	h->dirfd = h->dirfd2 = -1;
	if (!call || call->nr >= sizeof(decoders) / sizeof(decoders[0]) || !decoders[call->nr])
		return -ENOSYS;
	h->op.class = call->class;
	err = decoders[call->nr](h, r, &a);
	if (err)
		return err > 0 ? 0 : err;
	if (!h->opname)
		h->opname = h->op.class == WD_HOLD_DELETE ? (h->rmdir ? "rmdir" : "delete") :
			    h->op.class == WD_HOLD_RENAME ? "rename" :
			    h->op.class == WD_HOLD_TRUNCATE ? "truncate" : "exec";
	err = hold_read_string(h->pid, a.p1, path, sizeof(path));
	if (err)
		return err;
	if (h->op.class == WD_HOLD_EXEC)
		return decode_exec(h, &pinned, a.dirfd, path);
	/*
	 * A truncation that follows its last component needs the parent pinned to look there, and
	 * so does one checked by inode.
	 */
	follow_pinned = a.follow || (r->by_inode && h->op.class == WD_HOLD_TRUNCATE);
	err = hold_resolve(follow_pinned ? &pinned : r, h->pid, a.dirfd, path, &h->dirfd, &h->name,
			   &h->target);
	if (!err && a.follow)
		err = follow_last(h, &pinned);
	if (err == -EXDEV && !h->target)
		h->target = strdup(path); /* as the task wrote it, for the record */
	if (err)
		return err;
	h->op.target = h->target;
	/* what the name is now: an approval later acts on this object or on none */
	if (h->dirfd >= 0 && h->op.class != WD_HOLD_TRUNCATE)
		hold_look(h->dirfd, h->name, &h->seen);
	return a.p2 ? decode_second(h, r, &a) : 0;
}

/* Forget what hold_decode() found, to decode it again (or to free the hold). */
void hold_undecode(struct hold *h)
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
