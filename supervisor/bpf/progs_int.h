/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the loader: what supervisor/bpf/progs.c (loading, attaching, the ring buffer) and
 * supervisor/bpf/maps.c (the per-sandbox map entries) both hold of a loaded pair of objects.
 */
#ifndef WD_BPF_PROGS_INT_H
#define WD_BPF_PROGS_INT_H

#include "supervisor/bpf/progs.h"
#include "wd_lsm.skel.h"
#include "wd_recorder.skel.h"

struct wd_progs {
	struct wd_lsm_bpf *lsm; /* NULL for the recorders alone */
	struct wd_recorder_bpf *rec;
	struct ring_buffer *rb;
	wd_record_fn fn;
	void *ctx;
	enum wd_progs_set set;
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

#endif
