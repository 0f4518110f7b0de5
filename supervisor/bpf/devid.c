// SPDX-License-Identifier: GPL-2.0
/*
 * Device numbers of an inode for the BPF side's inode map. The BPF side keys a protected inode
 * by the device stat(2) would report (bpf/wd_devid.bpf.h computes it from the inode); where it
 * cannot read a filesystem's own inode type it falls back to the super block's s_dev. Userspace
 * gives both numbers, so an entry matches whichever the kernel side computes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "supervisor/bpf/devid.h"
#include "supervisor/util/log.h"

#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif

int wd_devid_mount_dev(FILE *mountinfo, uint64_t mnt_id, uint32_t *dev)
{
	char *line = NULL;
	size_t cap = 0;
	int err = -ENOENT;

	while (getline(&line, &cap, mountinfo) > 0) {
		uint64_t id, parent;
		unsigned int major, minor;

		if (sscanf(line, "%" SCNu64 " %" SCNu64 " %u:%u ", &id, &parent, &major, &minor) !=
		    4)
			continue;
		if (id == mnt_id) {
			*dev = wd_kdev(major, minor);
			err = 0;
			break;
		}
	}
	free(line);
	return err;
}

int wd_devid_of(const char *path, struct wd_devid *out)
{
	struct statx stx;
	FILE *mi = NULL;
	int err = 0;

	if (statx(AT_FDCWD, path, 0, STATX_INO | STATX_MNT_ID, &stx)) {
		err = -errno;
		goto out;
	}
	/* without the mount there is no s_dev to give: refuse rather than key on a guess */
	if (!(stx.stx_mask & STATX_MNT_ID) || !(stx.stx_mask & STATX_INO)) {
		err = -EOPNOTSUPP;
		log_warnx("devid: the kernel does not tell the mount of %s (statx needs Linux 5.8)",
			  path);
		goto out;
	}
	out->ino = stx.stx_ino;
	out->stat_dev = wd_kdev(stx.stx_dev_major, stx.stx_dev_minor);
	mi = fopen("/proc/self/mountinfo", "re");
	if (!mi) {
		err = -errno;
		log_warn("devid: cannot read /proc/self/mountinfo");
		goto out;
	}
	err = wd_devid_mount_dev(mi, stx.stx_mnt_id, &out->sb_dev);
	if (err)
		log_warnx("devid: mount %" PRIu64 " of %s is not in /proc/self/mountinfo",
			  (uint64_t)stx.stx_mnt_id, path);
	fclose(mi);
out:
	return err;
}
