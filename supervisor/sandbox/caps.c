// SPDX-License-Identifier: GPL-2.0
/*
 * The sandbox room: the command's capabilities. As bubblewrap and nsjail do, the command starts
 * with an empty bounding set and no ambient, inheritable, permitted or effective capabilities,
 * even as uid 0: root inside keeps its uid (files it owns stay its own) but none of the kernel's
 * privileged checks pass. A policy may keep a few named ones (policy "caps").
 */
#include <errno.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "supervisor/sandbox/caps.h"

/* Past any capability the kernel may know: PR_CAPBSET_READ says EINVAL beyond its last. */
#define WD_CAP_SCAN 64

const struct wd_caps_plan wd_caps_none = { .keep = 0, .ambient = false };

static bool kept(const struct wd_caps_plan *p, int cap)
{
	return p && cap < 64 && (p->keep & (1ULL << cap));
}

int wd_caps_bound(const struct wd_caps_plan *p)
{
	int r;

	for (int cap = 0; cap < WD_CAP_SCAN; cap++) {
		r = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
		if (r < 0 && errno == EINVAL)
			break; /* beyond the kernel's last capability */
		if (r < 0)
			return -errno;
		if (r == 1 && !kept(p, cap) && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0))
			return -errno;
	}
	/* What the kernel says now: a capability left in the bounding set fails the start. */
	for (int cap = 0; cap < WD_CAP_SCAN; cap++) {
		r = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
		if (r < 0 && errno == EINVAL)
			break;
		if (r < 0)
			return -errno;
		if (r == 1 && !kept(p, cap))
			return -EPERM;
	}
	/* setuid to a user other than root would clear the permitted set: keep it for step two */
	if (p && p->ambient && p->keep && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return -errno;
	return 0;
}

int wd_caps_drop(const struct wd_caps_plan *p)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = { { 0 } };
	uint64_t keep = p ? p->keep : 0, inh = p && p->ambient ? keep : 0;
	uint64_t eff, prm, inh_now;
	int r;

	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0))
		return -errno;
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
		data[i].effective = (uint32_t)(keep >> (32 * i));
		data[i].permitted = (uint32_t)(keep >> (32 * i));
		data[i].inheritable = (uint32_t)(inh >> (32 * i));
	}
	if (syscall(SYS_capset, &hdr, data))
		return -errno;
	/* A user other than root keeps them across execve only as ambient capabilities. */
	for (int cap = 0; inh && cap < 64; cap++)
		if ((inh & (1ULL << cap)) &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0))
			return -errno;
	if (p && p->ambient && p->keep && prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0))
		return -errno;

	/* What the kernel says now, not what was asked: a capability left over fails the start. */
	hdr = (struct __user_cap_header_struct){ .version = _LINUX_CAPABILITY_VERSION_3 };
	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	eff = data[0].effective | (uint64_t)data[1].effective << 32;
	prm = data[0].permitted | (uint64_t)data[1].permitted << 32;
	inh_now = data[0].inheritable | (uint64_t)data[1].inheritable << 32;
	if (eff != keep || prm != keep || inh_now != inh)
		return -EPERM;
	for (int cap = 0; cap < WD_CAP_SCAN; cap++) {
		r = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0);
		if (r < 0 && errno == EINVAL)
			break;
		if (r < 0)
			return -errno;
		if ((r == 1) != ((inh & (1ULL << cap)) != 0))
			return -EPERM;
	}
	return 0;
}
