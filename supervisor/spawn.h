/* SPDX-License-Identifier: GPL-2.0 */
/* Start a command straight inside a sandbox cgroup (clone3 with CLONE_INTO_CGROUP). */
#ifndef WD_SPAWN_H
#define WD_SPAWN_H

#include <sys/types.h>

struct wd_child {
	pid_t pid;
	int pidfd;
	int exec_errno; /* 0 when the command started, else why execve failed */
};

/*
 * Spawn @argv in the cgroup open at @cgroup_fd and wait until it has exec'd (or failed to).
 * The child gets a new session, no_new_privs, default signal handling, only fds 0-2, and dies
 * with its parent. Returns 0 (check exec_errno) or -errno when no child could be made.
 */
int wd_spawn(int cgroup_fd, char *const argv[], struct wd_child *child);

#endif
