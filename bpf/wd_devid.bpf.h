/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device number of an inode as stat(2) reports it, for keys of wd_inodes: the loader fills
 * those from userspace, where stat is what it sees (supervisor/bpf/devid.c).
 *
 * On most filesystems that is the super block's s_dev. btrfs reports the anonymous device of the
 * inode's subvolume (btrfs_getattr), which is also what tells its subvolumes apart: their inode
 * numbers repeat. Its types live in the btrfs module's BTF, so they are read through local
 * "flavour" types that CO-RE matches to btrfs_inode and btrfs_root at load time. Where there is
 * no such BTF (btrfs not loaded when warden started, or no module BTF) the s_dev is used; the
 * loader also stores an entry under the mount's s_dev, so that fallback still matches and errs
 * towards denying same-numbered inodes in other subvolumes, never towards allowing.
 */
#ifndef WD_DEVID_BPF_H
#define WD_DEVID_BPF_H

/* include/uapi/linux/magic.h */
#define WD_BTRFS_SUPER_MAGIC 0x9123683EUL

/* fs/btrfs/ctree.h: the fields read here, nothing more */
struct btrfs_root___wd {
	dev_t anon_dev;
} __attribute__((preserve_access_index));

/* fs/btrfs/btrfs_inode.h: the VFS inode is embedded in btrfs's own */
struct btrfs_inode___wd {
	struct btrfs_root___wd *root;
	struct inode vfs_inode;
} __attribute__((preserve_access_index));

static __always_inline __u32 wd_inode_dev(struct inode *inode)
{
	struct super_block *sb = BPF_CORE_READ(inode, i_sb);
	struct btrfs_inode___wd *bi;
	unsigned long off;

	if (bpf_core_type_exists(struct btrfs_inode___wd) &&
	    bpf_core_field_exists(struct btrfs_inode___wd, root) &&
	    bpf_core_field_exists(struct btrfs_inode___wd, vfs_inode) &&
	    bpf_core_field_exists(struct btrfs_root___wd, anon_dev) &&
	    BPF_CORE_READ(sb, s_magic) == WD_BTRFS_SUPER_MAGIC) {
		off = bpf_core_field_offset(struct btrfs_inode___wd, vfs_inode);
		bi = (struct btrfs_inode___wd *)((unsigned long)inode - off);
		return BPF_CORE_READ(bi, root, anon_dev);
	}
	return BPF_CORE_READ(sb, s_dev);
}

#endif
