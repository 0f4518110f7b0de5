/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The network object (bpf/wd_net.bpf.c) loaded beside either program set and its cgroup
 * programs attached to warden's whole subtree (<cgroup2>/warden), in the net/ room. The set's
 * shared maps are handed to it by fd, so its records and sandboxes are the set's.
 */
#ifndef WD_NET_ATTACH_H
#define WD_NET_ATTACH_H

struct wd_net_bpf;

/* The fds the network object shares with its set. */
struct wd_net_shared {
	int sandboxes, rings, lost, marks;
};

/* Open, load and attach the network object with @sh's maps. 0 or -errno, a sentence logged. */
int wd_net_load(struct wd_net_bpf **out, const struct wd_net_shared *sh);
/*
 * Pin the object's links as "prog_<name>" and its maps by name under @dir (an absolute path).
 * 0 or -errno.
 */
int wd_net_pin(struct wd_net_bpf *net, const char *dir);
/* Its rule maps (wd_net4, wd_net6, wd_net_cfg), dup'ed into @fds. 0 or -errno. */
int wd_net_take_maps(struct wd_net_bpf *net, int fds[3]);
void wd_net_destroy(struct wd_net_bpf *net);

/* Names the maps are pinned as, in the order of wd_net_take_maps. */
extern const char *const wd_net_map_pins[3];

#endif
