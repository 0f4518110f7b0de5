/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hold engine's view of a held task's paths (internal to supervisor/hold/): reading strings
 * from its memory, resolving a path as the task would (the parent pinned as an O_PATH fd), and the
 * cache of directories known to hold no symlink on their way.
 */
#ifndef WD_HOLD_TASKPATH_H
#define WD_HOLD_TASKPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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

/* How hold_resolve() goes: from which root, and whether the parent must be pinned. */
struct resolver {
	int root; /* the sandbox's root directory (O_PATH), or -1 */
	struct dircache *dirs; /* or NULL */
	bool pin;
	bool by_inode; /* truncations are also checked by inode: pin their targets */
};

/* What a name was when the call was decided: an approval acts on that object or on none. */
struct seen {
	bool exists;
	dev_t dev;
	ino_t ino;
};

void hold_dircache_free(struct dircache *c);

/* A NUL-terminated string from the task's memory, or -errno. */
int hold_read_string(uint32_t pid, uint64_t addr, char *buf, size_t bufsz);
/* Has @path a ".." component? */
bool hold_has_dotdot(const char *path);
/*
 * Resolve @path as task @pid would, relative to @dirfd: 0 with *name (the last component) and
 * *full (its canonical path) set, and *parent (O_PATH) when @r->pin or when the walk opened it
 * anyway (-1 otherwise); -EXDEV through a magic link. See taskpath.c.
 */
int hold_resolve(const struct resolver *r, uint32_t pid, int dirfd, const char *path,
		 int *parent, char **name, char **full);
/* The canonical path of what @fd is open on (O_PATH is enough), or NULL. */
char *hold_path_of_fd(int fd);
/* Open @name under @dirfd (AT_FDCWD: absolute) following every link, and name what it is. */
int hold_follow_to(int dirfd, const char *name, char **out);
/*
 * @path through task @pid's own /proc/self, /proc/thread-self or /dev/fd, as the same place
 * under its /proc/PID in warden's /proc: true with @via set, false for any other path.
 */
bool hold_task_self_path(uint32_t pid, const char *path, char *via, size_t viasz);
/* What @name in @dirfd is now (a symlink itself, not what it points to). */
void hold_look(int dirfd, const char *name, struct seen *o);
/* Is @name in @dirfd still what @o says it was when the call was decided? */
bool hold_still(int dirfd, const char *name, const struct seen *o);

#endif
