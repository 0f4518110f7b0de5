/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sandbox cgroups: one cgroup v2 directory per sandbox under warden's own subtree
 * (<cgroup2 mount>/warden). Its id keys every per-sandbox map entry.
 */
#ifndef WD_CGROUP_H
#define WD_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

/* warden's subtree under the cgroup2 mount: every sandbox is below it. */
#define WD_CGROUP_SUBTREE "warden"

struct wd_cgroup {
	char name[32]; /* "sb-<hex>": the sandbox's name in records and reports */
	char path[PATH_MAX];
	uint64_t id; /* what bpf_get_current_cgroup_id() returns for its tasks */
	int fd; /* O_DIRECTORY, for CLONE_INTO_CGROUP */
};

/* warden's subtree under the cgroup2 mount; the network programs attach to it whole. */
#define WD_CGROUP_SUBTREE "warden"

/* Where cgroup2 is mounted ("/sys/fs/cgroup" or, on a hybrid host, "/sys/fs/cgroup/unified"). */
int wd_cgroup2_mount(char *buf, size_t bufsz);
/* warden's subtree under the cgroup2 mount, made if missing. */
int wd_cgroup_root(char *buf, size_t bufsz);
/* An fd (O_DIRECTORY) of <cgroup2>/warden, made if missing, to attach programs to; or -errno. */
int wd_cgroup_subtree_open(void);
/* A fresh, empty sandbox cgroup. */
int wd_cgroup_create(struct wd_cgroup *cg);
/*
 * The cgroup the next wd_cgroup_create of this process returns instead of making one: a
 * daemon's supervisor, forked with a cgroup taken from the daemon's pool, passes it on so.
 * Once only; @cg is copied (its fd becomes the caller's).
 */
void wd_cgroup_use_next(const struct wd_cgroup *cg);

/*
 * A few empty sandbox cgroups made ahead by a daemon, off the request path, so a run starts in
 * one at once. Each is taken once and never comes back: a sandbox ran there, it is destroyed
 * with the sandbox. Each has a marker (its path) in @marks, a directory of the daemon's own, so
 * that a daemon killed before it emptied its pool leaves the next one (wd_cgroup_pool_reap) the
 * list of what to remove, which is never a sandbox's.
 */
#define WD_CGROUP_POOL_MAX 8
struct wd_cgroup_pool {
	struct wd_cgroup cg[WD_CGROUP_POOL_MAX];
	int n, want;
	int marks; /* O_DIRECTORY: one file per pool cgroup, named as it */
};

/* An empty pool of @want (at most WD_CGROUP_POOL_MAX) cgroups, its markers in @marks. */
void wd_cgroup_pool_init(struct wd_cgroup_pool *p, int marks, int want);
/* One more cgroup made (when fewer than wanted): 1 made, 0 full, or -errno. */
int wd_cgroup_pool_fill_one(struct wd_cgroup_pool *p);
/* A cgroup out of the pool into @cg, its marker removed: 0, or -ENOENT when empty. */
int wd_cgroup_pool_take(struct wd_cgroup_pool *p, struct wd_cgroup *cg);
/* Every cgroup of the pool removed, and its marker. */
void wd_cgroup_pool_empty(struct wd_cgroup_pool *p);
/* Remove what the markers in @marks name (a daemon before this one left them): how many. */
int wd_cgroup_pool_reap(int marks);

/* Kill every task in it, wait until it is empty (bounded), remove it. Safe to call twice. */
int wd_cgroup_destroy(struct wd_cgroup *cg);
/* Kill every task in it and wait (bounded) until it is empty; it stays. 0 or -errno. */
int wd_cgroup_drain(const struct wd_cgroup *cg);
/*
 * Ask the kernel to kill every task in it (cgroup.kill), without waiting; before 5.14, freeze
 * it and kill each task.
 */
int wd_cgroup_kill(const struct wd_cgroup *cg);
/* Whether the cgroup whose cgroup.events @events is open on has no task left (read afresh). */
bool wd_cgroup_events_empty(int events);
/* The cgroup id of a cgroup2 directory (its kernfs id, via name_to_handle_at). */
int wd_cgroup_id(const char *path, uint64_t *id);
/*
 * Whether the peer of the connected unix socket @sock is a task of a warden sandbox (any, in
 * warden's subtree): 1, 0, or -errno when that cannot be told (refuse it then). warden's
 * sockets (a run's holds socket, a keeper's) answer no such peer: a sandboxed root process
 * that can reach them must not decide its own holds.
 */
int wd_cgroup_peer_in_sandbox(int sock);

#endif
