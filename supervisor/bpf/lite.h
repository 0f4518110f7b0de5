/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recorder set (WD_PROGS_SYSCALL_EXIT, the landlock backend's) loaded through a light
 * skeleton (bpftool gen skeleton -L): the kernel applies the CO-RE relocations and finds the
 * attach targets itself, so the loading run parses none of the kernel's BTF (5.5 MB on the
 * development host: ~50 ms of libbpf's time, the most of a run's start-up). Used by pinset.c to
 * load the set it then pins; the full skeleton stays the loader where this one cannot run.
 */
#ifndef WD_BPF_LITE_H
#define WD_BPF_LITE_H

#include <stddef.h>

struct wd_lite;

/* A program's link, attached, and the name it is pinned by ("prog_<program>"). */
struct wd_lite_link {
	const char *pin;
	int fd;
};

/* Load and attach the recorder's programs. 0 or -errno (nothing left behind on an error). */
int wd_lite_load(struct wd_lite **out);
/* The fds of its sandbox table and its table of rings (owned by @lite). */
int wd_lite_sandboxes(const struct wd_lite *lite);
int wd_lite_rings(const struct wd_lite *lite);
/* Its lost counter and its net marks (bpf/wd_net.bpf.h), for the network object. */
int wd_lite_lost(const struct wd_lite *lite);
int wd_lite_marks(const struct wd_lite *lite);
/* Its links; @n set to how many (owned by @lite). */
const struct wd_lite_link *wd_lite_links(const struct wd_lite *lite, size_t *n);
/* Close every fd: links stay attached only where they were pinned. */
void wd_lite_destroy(struct wd_lite *lite);

#endif
