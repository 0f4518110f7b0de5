/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipc/: the one unix-socket layer: listening by rename, connecting, and the peer check every
 * warden socket makes (who may connect is the kernel's word on the peer, never the request's).
 */
#ifndef WD_IPC_SOCK_H
#define WD_IPC_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Listen at @path with a socket of @type (SOCK_STREAM or SOCK_SEQPACKET, with SOCK_CLOEXEC or
 * SOCK_NONBLOCK as wanted): bound under a temporary name beside it (".<name>"), given @mode,
 * listening, and only then renamed into place, so whoever sees the name (inotify) can connect
 * at once and never finds a socket of a wider mode. A socket already at @path is replaced in
 * that one rename. Returns the fd, or -errno (said why, under @who).
 */
int wd_sock_listen(const char *who, const char *path, int type, mode_t mode, int backlog);
/*
 * Bind a socket of @type at @path (mode @mode) and do not listen: the name stands and refuses
 * connections (ECONNREFUSED) until a listener is renamed over it. The fd, or -errno.
 */
int wd_sock_bind_name(const char *who, const char *path, int type, mode_t mode);
/* Connect a socket of @type to @path; the fd, or -errno (not said: callers know what is normal). */
int wd_sock_connect(const char *path, int type);

/* Supplementary groups of a peer looked at (NGROUPS_MAX is 65536). */
#define WD_PEER_GROUPS 1024

/* What the kernel says of the other end of a connected unix socket. */
struct wd_peer {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	/* its supplementary groups as of its connect; none when it has more than we look at */
	gid_t groups[WD_PEER_GROUPS];
	size_t n_groups;
	/*
	 * A task of a warden sandbox (or one whose cgroup could not be read: failing closed). A
	 * sandboxed root process must not answer its own holds nor take over a sandbox.
	 */
	bool in_sandbox;
};

/* Fill @p from the peer of @fd: 0, or -errno (then @p says a sandboxed nobody). */
int wd_peer_read(int fd, struct wd_peer *p);
/* Is @p the user @uid, outside every sandbox? The check of sockets that are one user's alone. */
bool wd_peer_is(const struct wd_peer *p, uid_t uid);
/* Has @p @gid as its primary or a supplementary group (as of its connect), outside every sandbox? */
bool wd_peer_has_group(const struct wd_peer *p, gid_t gid);

/*
 * Accept a connection on @lfd (@flags as accept4's) and read its peer into @p. The fd, or
 * -errno: -EAGAIN when none waits, -EPERM (the connection closed) when its peer cannot be read.
 */
int wd_sock_accept(int lfd, int flags, struct wd_peer *p);

#endif
