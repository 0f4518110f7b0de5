/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Process set-up from the policy: the command's environment (env), who it runs as (user) and what
 * it sees (namespaces: a private mount namespace with a private /tmp and read-only binds, its own
 * pid namespace and /proc, ipc, uts named after the sandbox, a network with loopback only or
 * with a veth pair to the host).
 * Everything that allocates, looks a name up or talks netlink happens in the parent
 * (wd_setup_prepare); the child, between clone3 and execve, only makes system calls.
 */
#ifndef WD_SETUP_H
#define WD_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "policy/compile.h"
#include "supervisor/sandbox/caps.h"
#include "supervisor/sandbox/veth.h"

struct wd_setup {
	char **envp; /* the command's environment, always built (never warden's own) */
	size_t n_env;
	bool drop_user; /* policy "user": become uid/gid with groups[] before exec */
	uid_t uid;
	gid_t gid;
	gid_t *groups;
	size_t n_groups;
	uint64_t clone_flags; /* CLONE_NEW* the policy asks for (net is joined, see netns_fd) */
	bool tmp;	      /* a private, empty /tmp */
	char tmp_opts[96];    /* its tmpfs options: mode, and limits.disk's size and nr_inodes */
	char *const *bind_ro; /* borrowed from the rule set */
	size_t n_bind_ro;
	char hostname[64]; /* for a private uts namespace */
	int netns_fd;	   /* a network with loopback up, made by warden; -1: the host's */
	struct wd_veth veth; /* namespaces.net "veth": its pair to the host (host_if "": none) */
	struct wd_caps_plan caps; /* policy "caps": what the command keeps (nothing by default) */
};

/*
 * Prepare what @rs asks for. -EINVAL when the policy names what this host does not have (a user,
 * a group, a path to bind), with @why saying so by JSON pointer; -EOPNOTSUPP for what is not
 * built yet; other -errno on failure. wd_setup_release() in every case.
 */
int wd_setup_prepare(struct wd_setup *s, const struct wd_ruleset *rs, char *why, size_t whysz);
/* The host name a private uts namespace gets: the sandbox's name. */
void wd_setup_name(struct wd_setup *s, const char *sandbox);
void wd_setup_release(struct wd_setup *s);

/*
 * In the child, first, while it still has every privilege: the mounts (propagation private, the
 * read-only binds, the private /tmp; /proc when @clone_flags has CLONE_NEWPID), the host name and
 * the network namespace. @s may be NULL (only what @clone_flags needs). 0 or -errno.
 */
int wd_setup_child_ns(const struct wd_setup *s, uint64_t clone_flags);
/*
 * In the child, last before exec: drop to the policy's user (groups, gid, uid) and check that the
 * drop cannot be undone; make the policy's environment the one execve passes. 0 or -errno.
 */
int wd_setup_child_user(const struct wd_setup *s);

/* Bind @path onto itself (with what is mounted under it) and set / clear MOUNT_ATTR_* on it. */
int wd_mount_attr(const char *path, uint64_t set, uint64_t clr);

/* limits.disk's inode cap for a private /tmp of @size bytes: one per KiB, at least 1024. */
static inline unsigned long long wd_disk_inodes(unsigned long long size)
{
	return size / 1024 > 1024 ? size / 1024 : 1024;
}

#endif
