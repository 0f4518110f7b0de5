/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loader of warden's BPF objects, bpf/wd_lsm.bpf.c and bpf/wd_recorder.bpf.c: their programs,
 * loaded once per host and pinned under /sys/fs/bpf/warden (supervisor/bpf/pinset.c,
 * docs/design.md "One program set per host"), the per-sandbox map entries, the audit ring.
 */
#ifndef WD_SANDBOX_BPF_H
#define WD_SANDBOX_BPF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bpf/wd_abi.h"
#include "policy/compile.h"

struct bpf_object;
struct wd_progs;

/* Called for each record off the ring buffer (@size bytes at @rec). */
typedef int (*wd_record_fn)(void *ctx, void *rec, size_t size);

/* Which programs of the object a backend runs. */
enum wd_progs_set {
	WD_PROGS_LSM, /* the LSM hooks decide and record (bpf-lsm backend) */
	WD_PROGS_SYSCALL_EXIT, /* only the recorders: syscall exit and exec (landlock backend) */
};

/* The set a backend runs, by the backend's name ("bpf-lsm": LSM; otherwise the recorders). */
enum wd_progs_set wd_progs_set_of(const char *backend);

/* An embedded run's ring: 4 MiB, as each run had before the set was shared. */
#define WD_PROGS_RING_BYTES (4u << 20)
/*
 * A ring of each of wardend's supervisors: its pages are the most of what a sandbox costs there
 * (a consumer that keeps up with 1 M records/s drains it long before it fills; a flood that
 * outruns it is counted lost, never silent).
 */
#define WD_PROGS_RING_BYTES_DAEMON (256u << 10)
/* The ring size of every later wd_progs_start in this process and the children it forks. */
void wd_progs_ring_default(size_t ring_bytes);
/*
 * wardend's rings: made once, each put in the set's wd_rings under a key of its own (top bit
 * set: never a sandbox's id, which an embedded run's ring is keyed by), and reused run after
 * run, so that a run changes no map of maps (each change waits for an RCU grace period).
 * wd_progs_ring_make: a ring of @bytes in @progs's (held) set; its fd and key. 0 or -errno.
 * wd_progs_ring_unmake: out of wd_rings again, and closed.
 * wd_progs_ring_give: in a supervisor forked by wardend, the next wd_progs_start reads this ring
 * (its fd taken over) and keys its sandboxes' records to it instead of making its own.
 */
int wd_progs_ring_make(struct wd_progs *progs, size_t bytes, int *fd, uint64_t *key);
void wd_progs_ring_unmake(struct wd_progs *progs, int fd, uint64_t key);
void wd_progs_ring_give(int fd, uint64_t key);

/*
 * Use @set: this build's set pinned on the host, or loaded and pinned now if there is none. The
 * records of the sandboxes this run adds go to a ring of its own of @ring_bytes (a power of two
 * of pages; 0: no ring, their records are counted lost) and from it to @fn. One ring serves every
 * sandbox added through the same struct wd_progs (wardend may run many on one).
 */
int wd_progs_start_ring(struct wd_progs **out, enum wd_progs_set set, wd_record_fn fn, void *ctx,
			size_t ring_bytes);
/* wd_progs_start_ring with the process's ring size (WD_PROGS_RING_BYTES unless set below). */
int wd_progs_start(struct wd_progs **out, enum wd_progs_set set, wd_record_fn fn, void *ctx);
/*
 * Hold @set for as long as this process lives (wardend): loaded and pinned if need be, and never
 * unpinned while held, even with no sandbox running. Release with wd_progs_stop (the last user
 * out unpins).
 */
int wd_progs_hold(struct wd_progs **out, enum wd_progs_set set);
/*
 * In a child forked after wd_progs_hold: close the fds it inherited of @progs (may be NULL),
 * leaving the hold to the parent, and free it. Takes no lock and unpins nothing.
 */
void wd_progs_forsake(struct wd_progs *progs);
/*
 * The end of a sandbox whose supervisor is gone (`warden adopt`): its entries leave @set's
 * pinned maps, and the set is unpinned if nobody else uses it. 0, or -errno.
 */
int wd_progs_forget(enum wd_progs_set set, uint64_t sandbox);
/*
 * The maps of @sandbox in @set's pinned set, for a successor that the keeper gave none: its ring
 * through wd_rings (-1 if it has none) and the counters (wd_sandboxes). 0, or -errno.
 */
int wd_progs_find_maps(enum wd_progs_set set, uint64_t sandbox, int *ring, int *counts);
/*
 * `warden unload`: remove every idle set under /sys/fs/bpf/warden (no program attached, no
 * holder), of this build or any other, and what a loader that died left half-made. Each set
 * removed, and each left because it is in use, is told to @out. The number removed, or -errno.
 */
int wd_progs_unload(FILE *out);
/*
 * wd_progs_start's first half, loading nothing: open the object and choose @set's programs for
 * this kernel (each program's autoload flag, and for LSM lsm/bpf's wd_bpf_ret_arg in .rodata).
 * For checking that choice against the kernel's BTF where LSM programs cannot be loaded
 * (tests/helpers/wd-lsm-check.c). Free with wd_progs_stop.
 */
int wd_progs_open(struct wd_progs **out, enum wd_progs_set set);
struct bpf_object *wd_progs_object(const struct wd_progs *progs);
void wd_progs_stop(struct wd_progs *progs);

/* Rules first, then the sandbox entry that turns them on: a task never sees half a policy. */
int wd_progs_sandbox_add(struct wd_progs *progs, uint64_t sandbox, const struct wd_ruleset *rs);
/* The network tries (wd_net4, wd_net6), -1 where none; still @progs's. */
void wd_progs_net_maps(const struct wd_progs *progs, int fds[2]);
/*
 * Protect the existing object at @path in @sandbox by its (dev, ino), whatever name reaches it:
 * @deny (WD_ACC_*) is denied on it, and link() to it, with @rule named in the record. Call before
 * wd_progs_sandbox_add; entries go with wd_progs_sandbox_remove. 0 or -errno.
 */
int wd_progs_protect_inode(struct wd_progs *progs, uint64_t sandbox, const char *path,
			   uint32_t deny, uint32_t rule);
/* The reverse order; also reads the sandbox's final counters into @final (may be NULL). */
int wd_progs_sandbox_remove(struct wd_progs *progs, uint64_t sandbox, const struct wd_ruleset *rs,
			  struct wd_sandbox *final);
/*
 * @sandbox's net.egress_rate counters (struct wd_rate), read before wd_progs_sandbox_remove:
 * 0, -ENOENT when it has no egress rate, or -errno.
 */
int wd_progs_rate(const struct wd_progs *progs, uint64_t sandbox, struct wd_rate *out);
/* @sandbox's limits.fork_rate counters (struct wd_fork), the same way: 0, -ENOENT or -errno. */
int wd_progs_fork(const struct wd_progs *progs, uint64_t sandbox, struct wd_fork *out);

/* An fd that polls readable when records wait (-1: no ring); then call wd_progs_consume. */
int wd_progs_event_fd(const struct wd_progs *progs);
int wd_progs_consume(struct wd_progs *progs);
/*
 * The maps a successor supervisor needs (`warden adopt`): this run's audit ring (-1: none) and
 * the per-sandbox counters (struct wd_sandbox by cgroup id).
 */
void wd_progs_audit_maps(const struct wd_progs *progs, int *events, int *counts);

#endif
