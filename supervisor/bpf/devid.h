/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device numbers the kernel knows an inode by, for keys of the BPF side's inode map
 * (wd_inodes). stat(2) reports what the filesystem's getattr says: on btrfs that is the
 * subvolume's anonymous device, not the super block's s_dev. See docs/design.md, "In the kernel".
 */
#ifndef WD_DEVID_H
#define WD_DEVID_H

#include <stdint.h>
#include <stdio.h>

struct wd_devid {
	uint64_t ino;
	uint32_t stat_dev; /* what stat(2) reports, in the kernel's encoding */
	uint32_t sb_dev; /* the super block's s_dev, from the mount's line in mountinfo */
};

/* The kernel's encoding of a device number (MAJOR << 20 | MINOR), as dev_t is inside it. */
static inline uint32_t wd_kdev(unsigned int major, unsigned int minor)
{
	return (uint32_t)major << 20 | (minor & 0xfffff);
}

/* @path's inode (symlinks followed) and both device numbers. 0 or -errno. */
int wd_devid_of(const char *path, struct wd_devid *out);

/* The s_dev (field 3) of mount @mnt_id in @mountinfo (/proc/PID/mountinfo format). 0 or -errno. */
int wd_devid_mount_dev(FILE *mountinfo, uint64_t mnt_id, uint32_t *dev);

#endif
