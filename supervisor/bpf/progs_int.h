/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the loader: what supervisor/bpf/progs.c (loading, attaching, the ring buffer),
 * supervisor/bpf/pinset.c (the one pinned set per host) and supervisor/bpf/maps.c (the
 * per-sandbox map entries) hold of a program set.
 */
#ifndef WD_BPF_PROGS_INT_H
#define WD_BPF_PROGS_INT_H

#include <stdbool.h>

#include "supervisor/bpf/progs.h"
#include "wd_lsm.skel.h"
#include "wd_recorder.skel.h"
#include "supervisor/net/attach.h"


/* The maps user space touches, by fd: pinned by the loading run, opened from the pins by others. */
enum wd_set_map {
	WD_MAP_SANDBOXES,
	WD_MAP_RINGS,
	WD_MAP_RATE, /* net.egress_rate (supervisor/net/rate.c); -1 in a private set */
	WD_MAP_PATHS, /* this and below: the LSM set only */
	WD_MAP_INODES,
	WD_MAP_PROTECT,
	WD_MAP_FORK, /* limits.fork_rate (lsm/task_alloc) */
	WD_MAP_NET4, /* this and below: the network object's, in both sets */
	WD_MAP_NET6,
	WD_MAP_NETCFG,
	WD_MAP_NR,
};

/* Is map @i part of @set? (The LSM set has all; the recorders' set no path maps.) */
static inline bool wd_set_has_map(enum wd_progs_set set, int i)
{
	return set == WD_PROGS_LSM || i < WD_MAP_PATHS || i >= WD_MAP_NET4;
}

struct wd_progs {
	/* the objects, only while this run loads them (or wd_progs_open), or for a private set */
	struct wd_lsm_bpf *lsm;
	struct wd_recorder_bpf *rec;
	struct wd_net_bpf *net; /* the cgroup socket programs (supervisor/net/attach.c) */
	enum wd_progs_set set;
	int maps[WD_MAP_NR]; /* -1 where the set has none */
	bool pinned; /* false: a private set (no BPF filesystem), unpinned, gone with this run */
	bool holding; /* wd_progs_hold: a holder for life, not only until its first sandbox */
	/*
	 * The pinned set's directory, LOCK_SH: this run is a user of the set until its first
	 * sandbox is in wd_sandboxes (which then counts), closed before the keeper is forked so
	 * no child of this run holds the set.
	 */
	int set_dir;
	char set_name[32]; /* "lsm-<hash>" or "rec-<hash>" */
	/*
	 * this run's own ring (-1: none), and the sandboxes it was put in wd_rings for; or, with
	 * ring_key set, a ring given by wardend (wd_progs_ring_give), already in wd_rings under
	 * that key, which this run neither adds nor removes
	 */
	int ring;
	uint64_t ring_key;
	uint64_t *ring_ids;
	size_t n_ring_ids;
	struct ring_buffer *rb;
	wd_record_fn fn;
	void *ctx;
	/* wd_inodes entries added, removed with their sandbox */
	struct wd_inode_key *inodes;
	size_t n_inodes;
	/* wd_paths entries of fs.deny paths, removed with their sandbox */
	struct wd_path_key *denies;
	size_t n_denies;
	/* wd_protect entries, removed with their sandbox */
	struct wd_path_key *protects;
	size_t n_protects;
};

/* progs.c: open both objects and choose @progs->set's programs for this kernel (no load). */
int wd_progs_open_objects(struct wd_progs *progs);
/* progs.c: @h (FNV-1a) extended by the table that chooses programs for a kernel. */
uint64_t wd_progs_choice_hash(uint64_t h);
/* progs.c: load and attach the opened objects (the maps both use shared). 0 or -errno. */
int wd_progs_load_attach(struct wd_progs *progs);
/* progs.c: the objects' maps as fds in @progs->maps (dup'ed: they outlive the objects). */
int wd_progs_take_maps(struct wd_progs *progs);
void wd_progs_close_objects(struct wd_progs *progs);
/* progs.c: hand @n link fds to a child that closes them after this process has (slow detach). */
void wd_progs_release_links(int *links, size_t n);

/*
 * pinset.c: find this build's set for @progs->set pinned on the host, or load and pin it; this
 * run is then one of its users. 0, or -errno; -ENOTSUP where there is no BPF filesystem to pin
 * in (the caller loads a private set).
 */
int wd_pinset_enter(struct wd_progs *progs);
/*
 * maps.c: the entries this run put in wd_rings (keyed by its sandboxes), deleted: when it
 * leaves a set that stays pinned (wd_pinset_leave).
 */
void wd_progs_rings_remove(struct wd_progs *progs);
/* pinset.c: a run's sandbox is in: it stops being a holder (wd_progs_hold's never do). */
void wd_pinset_drop_hold(struct wd_progs *progs);
/* pinset.c: this run is no longer a user; the last one out unpins the set. */
void wd_pinset_leave(struct wd_progs *progs);
/* pinset.c: delete every entry of @sandbox from the set's maps (wd_sandboxes last). */
void wd_pinset_purge(const int *maps, uint64_t sandbox);

#endif
