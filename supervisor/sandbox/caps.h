/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What capabilities the command keeps: none, unless the policy's "caps" names some (from the
 * short list policy/caps.c accepts). In the child, in two steps: the bounding set while
 * CAP_SETPCAP is still held (before the user switch), then the rest right before execve. Raw
 * system calls only (prctl, capset): async-signal-safe, no libcap.
 */
#ifndef WD_CAPS_H
#define WD_CAPS_H

#include <stdbool.h>
#include <stdint.h>

struct wd_caps_plan {
	uint64_t keep; /* 1 << CAP_*: what the command keeps; 0 for nothing */
	/*
	 * The command runs as a user other than root: what it keeps must survive setuid
	 * (PR_SET_KEEPCAPS) and then execve, which only ambient capabilities do for a program
	 * without file capabilities.
	 */
	bool ambient;
};

/* Keep nothing: what the sandbox's init ends with. */
extern const struct wd_caps_plan wd_caps_none;

/*
 * Step one, while every privilege is still there (after the mounts, the cgroup and the backend's
 * set-up, before the user switch): empty the bounding set but for @p->keep, and when @p->ambient
 * keep the permitted set across the coming setuid. NULL @p keeps nothing. Checks what the kernel
 * then says. 0 or -errno.
 */
int wd_caps_bound(const struct wd_caps_plan *p);

/*
 * Step two, last before execve (or the init's loop): no ambient capabilities but @p->keep when
 * @p->ambient, no inheritable ones but those, and effective and permitted cut down to @p->keep.
 * NULL @p keeps nothing. Checks what the kernel then says. 0 or -errno.
 */
int wd_caps_drop(const struct wd_caps_plan *p);

#endif
