/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the network object (bpf/wd_net.bpf.c) shares with the recorder object
 * (bpf/wd_recorder.bpf.c): the marks by which a socket call the cgroup programs refused and
 * recorded is not recorded a second time at its syscall exit. The loader hands the recorder's
 * map to the network object (supervisor/net/attach.c).
 */
#ifndef WD_NET_BPF_H
#define WD_NET_BPF_H

#include "wd_abi.h"

/*
 * Threads (pid_tgid) whose current socket call a cgroup program refused and recorded: the
 * syscall-exit recorder skips that call's EPERM and forgets the mark. LRU, so a mark whose exit
 * was never seen (an io_uring connect has none) ages out instead of filling the map.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u32);
} wd_net_marks SEC(".maps") __weak;

#endif /* WD_NET_BPF_H */
