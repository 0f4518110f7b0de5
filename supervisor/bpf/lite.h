/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The landlock backend's whole set (WD_PROGS_SYSCALL_EXIT) loaded through one light skeleton
 * (bpftool gen skeleton -L of bpf/wd_hostset.bpf.o: the recorder, network and egress-rate objects
 * statically linked): the kernel applies the CO-RE relocations and finds the attach targets
 * itself, so the loading run parses none of the kernel's BTF (5.5 MB on the development host,
 * ~35 ms of libbpf's time for each object that needs it), and the maps the objects share are
 * made once, by the one loader. Used by pinset.c to load the set it then pins; the full
 * skeletons stay the loader where this one cannot run.
 */
#ifndef WD_BPF_LITE_H
#define WD_BPF_LITE_H

#include <stddef.h>

struct wd_lite;

/* A link or map and the name it is pinned by in the set's directory. */
struct wd_lite_pin {
	const char *pin;
	int fd;
};

/*
 * Load every program and attach it: the recorders to their tracepoints, the network and rate
 * programs to warden's cgroup subtree. 0 or -errno (nothing left behind on an error).
 */
int wd_lite_load(struct wd_lite **out);
/* The fd of the map pinned as @pin ("wd_sandboxes", "wd_net4", ...), owned by @lite; or -1. */
int wd_lite_map(const struct wd_lite *lite, const char *pin);
/* Its links and the maps user space touches; @n set to how many (owned by @lite). */
const struct wd_lite_pin *wd_lite_links(const struct wd_lite *lite, size_t *n);
const struct wd_lite_pin *wd_lite_maps(const struct wd_lite *lite, size_t *n);
/*
 * Attach the host set's program @name (its name in the object, "wd_sys_exit") of fd @prog where
 * it belongs: its tracepoint, or @cgroup (warden's subtree) for a cgroup program. Used to wake an
 * idle set (supervisor/bpf/pinset.c). A link fd, or -errno (-ENOENT: no such program).
 */
int wd_lite_attach(const char *name, int prog, int cgroup);
/* Close every fd: links stay attached only where they were pinned. */
void wd_lite_destroy(struct wd_lite *lite);

#endif
