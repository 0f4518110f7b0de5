// SPDX-License-Identifier: GPL-2.0
/*
 * The egress-rate object: net.egress_rate as a per-sandbox schedule (struct wd_rate, bpf/wd_abi.h)
 * in cgroup_skb/egress, attached to warden's sandbox subtree (<cgroup2>/warden) by
 * supervisor/net/rate.c. Every packet of a socket made in a sandbox cgroup passes here; a
 * sandbox with no wd_rate entry passes at once, as do sockets outside warden's subtree, which
 * never reach the program at all. Loaded once per host with the rest of the set and pinned
 * beside it (supervisor/bpf/pinset.c).
 */
/*
 * Nothing here reads a kernel structure: __sk_buff is UAPI, rewritten by the verifier. Without
 * CO-RE relocations on it libbpf need not parse the kernel's BTF to load this object (about 35 ms
 * of every embedded run's start-up).
 */
#define BPF_NO_PRESERVE_ACCESS_INDEX
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "wd_abi.h"

/* weak: linked with the other objects of the host set (bpf/wd_maps.bpf.h), one kept */
char LICENSE[] SEC("license") __weak = "GPL";

/*
 * cgroup_skb/egress verdicts: bit 0 passes the packet, bit 1 asks for congestion notification
 * (TCP then enters CWR and, for a drop, sees a local drop it retries rather than a loss).
 */
#define WD_DROP 0
#define WD_PASS 1
#define WD_DROP_CN 2
#define WD_PASS_CN 3

/* Entries made and removed from user space; the program changes them in place. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, WD_MAX_SANDBOXES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct wd_rate);
} wd_rate SEC(".maps");

/*
 * The schedule may run at most burst_ns ahead of now: a packet is let through while it does not
 * yet, whatever its length, so a GSO segment larger than the burst still passes (and the next
 * ones wait until it is paid for). Over any long interval the bytes passed are the rate times
 * the interval plus at most one burst and one packet. Past half the burst, TCP is told to slow
 * down (CN) before it meets a drop.
 */
SEC("cgroup_skb/egress")
int wd_rate_egress(struct __sk_buff *skb)
{
	__u64 id = bpf_skb_cgroup_id(skb), now, tat, len = skb->len;
	struct wd_rate *r = bpf_map_lookup_elem(&wd_rate, &id);
	int verdict = WD_PASS;

	if (!r)
		return WD_PASS;
	now = bpf_ktime_get_ns();
	bpf_spin_lock(&r->lock);
	tat = r->tat_ns > now ? r->tat_ns : now;
	if (tat - now > r->burst_ns) {
		r->dropped_bytes += len;
		r->dropped_packets++;
		verdict = WD_DROP_CN;
	} else {
		if (r->rate)
			tat += len * 1000000000ull / r->rate;
		r->tat_ns = tat;
		r->bytes += len;
		if (tat - now > r->burst_ns / 2)
			verdict = WD_PASS_CN;
	}
	bpf_spin_unlock(&r->lock);
	return verdict;
}
