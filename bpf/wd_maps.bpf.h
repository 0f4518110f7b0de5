/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The maps both BPF objects use (bpf/wd_lsm.bpf.c, bpf/wd_recorder.bpf.c), and the per-CPU
 * scratch each builds its records in. The loader (supervisor/bpf/progs.c) creates the shared ones
 * once, with the first object it loads, and hands their fds to the second (bpf_map__reuse_fd):
 * one sandbox table, one table of rings and one lost counter, whichever program writes. One set
 * of these serves every sandbox on the host (supervisor/bpf/pinset.c): capacities are host-wide.
 *
 * The shared maps are __weak: the landlock backend's set is the recorder, network and rate
 * objects statically linked into one (bpf/wd_hostset.bpf.o, `bpftool gen object`), where each
 * object's identical definition of a map folds into one map.
 */
#ifndef WD_MAPS_BPF_H
#define WD_MAPS_BPF_H

#include "wd_abi.h"

/*
 * The live sandboxes by cgroup id, host-wide. Looked up on every syscall of every task (a lookup
 * never allocates, preallocated or not); written from user space only, once per sandbox. Not
 * preallocated: filling the per-CPU free lists of 16384 elements was ~3 ms of every load of the
 * set, which an embedded run pays. Shared.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, WD_MAX_SANDBOXES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct wd_sandbox);
} wd_sandboxes SEC(".maps") __weak;

/*
 * The inner map of wd_rings: only its type counts (a ring buffer's size is not part of the
 * kernel's check of an inner map), so each consumer makes its ring the size it wants.
 */
struct wd_ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
};

/*
 * The audit records (bpf/wd_abi.h, struct wd_rec_*) go to the ring of their sandbox's consumer:
 * one ring per consumer (an embedded run, or each of wardend's supervisors), not per loaded set,
 * keyed by the sandbox entry's ring field. No ring for a sandbox: the record is counted lost.
 * Shared. Each update or delete of a map of maps from user space waits for an RCU grace period
 * (10-15 ms on the 2-core host): wardend makes its rings once and reuses them.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__uint(max_entries, WD_MAX_SANDBOXES);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* as wd_sandboxes: written from user space only */
	__type(key, __u64);
	__array(values, struct wd_ring);
} wd_rings SEC(".maps") __weak;

/* Records that found the ring buffer full, per CPU: turned into "lost" records, never silent. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} wd_lost SEC(".maps") __weak;

/*
 * Where bpf_d_path is not allowed (on 6.1 only file_open, bprm_check_security and mmap_file of the
 * hooks here are on its list), the path is walked by hand as d_path does: dentry by dentry up to
 * the mount's root, across to the mount point, up to the task's root. Components are kept in
 * order leaf first, then written out root first.
 */
#define WD_WALK_DEPTH 64 /* components; a deeper path is not resolved (and so denied) */
#define WD_WALK_STEPS (WD_WALK_DEPTH + 16) /* components plus mounts crossed */
#define WD_NAME_MAX 255

struct wd_walk {
	__u64 name[WD_WALK_DEPTH]; /* const unsigned char * of each d_name */
	__u32 len[WD_WALK_DEPTH];
};

/*
 * A record being built: its fixed part (bpf/wd_abi.h) with room behind it for the longest
 * variable part. The fixed parts end aligned (WD_ABI_ASSERTS), so path, name and addr here are
 * where the record's own ones start; a record is sent with only the bytes it fills. (A struct
 * ending in a flexible array inside another is a GNU extension clang knows, and warns of.)
 */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wgnu-variable-sized-type-not-at-end"
struct wd_file_buf {
	struct wd_rec_file r;
	char path[WD_PATH_MAX];
};

#define WD_SYSCALL_NAME_MAX 16 /* the names an LSM hook refuses ("pivot_root" ...) */

struct wd_syscall_buf {
	struct wd_rec_syscall r;
	char name[WD_SYSCALL_NAME_MAX];
};

struct wd_sock_buf {
	struct wd_rec_sock r;
	__u8 addr[WD_SOCKADDR_MAX];
};

/* Per-CPU scratch: a file record is too large for the 512-byte stack. One per object. */
struct wd_scratch {
	struct wd_file_buf ev;
	struct wd_path_key key;
	struct wd_walk walk;
	struct wd_syscall_buf sys;
	struct wd_sock_buf sock;
};
#pragma clang diagnostic pop

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wd_scratch);
} wd_scratch_map SEC(".maps") __weak;

#endif /* WD_MAPS_BPF_H */
