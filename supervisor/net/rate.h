/* SPDX-License-Identifier: GPL-2.0 */
/*
 * net.egress_rate: the egress-rate program (bpf/wd_rate.bpf.c) loaded, attached to warden's
 * sandbox subtree and pinned with the host's program set (supervisor/bpf/pinset.c), and the
 * per-sandbox entries of its wd_rate map (docs/policy.md, "Egress rate").
 */
#ifndef WD_NET_RATE_H
#define WD_NET_RATE_H

#include <stdint.h>

#include "bpf/wd_abi.h"
#include "policy/compile.h"

/* The pin names in a set's directory. */
#define WD_RATE_MAP_PIN "wd_rate"
#define WD_RATE_LINK_PIN "prog_wd_rate_egress"

/* The least burst, whatever the rate: above the largest GSO segment (docs/policy.md). */
#define WD_RATE_MIN_BURST (256u << 10)
/* The burst as time at the rate: what a TCP sender stalled by a drop may catch up. */
#define WD_RATE_BURST_MS 250u

/* Bytes per second of @bytes per @per_ms; 0 when there is no limit. */
uint64_t wd_rate_bytes_per_s(uint64_t bytes, uint64_t per_ms);
/* The burst, in bytes, for @rate bytes per second. */
uint64_t wd_rate_burst_bytes(uint64_t rate);

/*
 * Load the program, attach it to <cgroup2>/warden and pin its link and map in @set_dir (a
 * directory on the BPF filesystem). The map's fd in @map. 0 or -errno (nothing left pinned).
 */
int wd_rate_load_pin(const char *set_dir, int *map);

/* @sandbox's entry for @rs's egress rate (none when it has none). @map -1: refused. 0 or -errno. */
int wd_rate_add(int map, uint64_t sandbox, const struct wd_ruleset *rs);
/* @sandbox's counters: 0, -ENOENT when it has no rate, or -errno. */
int wd_rate_read(int map, uint64_t sandbox, struct wd_rate *out);
/* @sandbox's entry gone (none is fine). */
void wd_rate_remove(int map, uint64_t sandbox);

#endif
