// SPDX-License-Identifier: GPL-2.0
/*
 * ipc/: the one unix-socket layer (sock.h): listen by rename, bind a name that refuses, connect,
 * accept with the peer's credentials.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "supervisor/ipc/sock.h"
#include "supervisor/sandbox/cgroup.h"
#include "supervisor/util/log.h"

/* @path into @sa: -ENAMETOOLONG when it does not fit. */
static int sock_addr(struct sockaddr_un *sa, const char *path)
{
	size_t n = strlen(path);

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (!n || n >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	memcpy(sa->sun_path, path, n + 1);
	return 0;
}

/* The temporary name beside @path: the same directory, the name with a dot before it. */
static int temp_name(char *buf, size_t size, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t dir = base ? (size_t)(base - path) + 1 : 0;
	int n = snprintf(buf, size, "%.*s.%s", (int)dir, path, path + dir);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* A socket of @type bound at @path (what stood there replaced), mode @mode: fd, or -errno. */
static int bound_socket(const char *who, const char *path, int type, mode_t mode)
{
	struct sockaddr_un sa;
	int fd, err = sock_addr(&sa, path);

	if (err) {
		log_warnx("%s: %s is too long a name for a socket", who, path);
		return err;
	}
	fd = socket(AF_UNIX, type, 0);
	if (fd < 0) {
		err = -errno;
		log_warn("%s: cannot make a socket for %s", who, path);
		return err;
	}
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || chmod(path, mode)) {
		err = -errno;
		log_warn("%s: cannot bind %s", who, path);
		close(fd);
		unlink(path);
		return err;
	}
	return fd;
}

int wd_sock_listen(const char *who, const char *path, int type, mode_t mode, int backlog)
{
	char tmp[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int fd, err = temp_name(tmp, sizeof(tmp), path);

	if (err) {
		log_warnx("%s: %s is too long a name for a socket", who, path);
		return err;
	}
	fd = bound_socket(who, tmp, type, mode);
	if (fd < 0)
		return fd;
	if (listen(fd, backlog) || rename(tmp, path)) {
		err = -errno;
		log_warn("%s: cannot listen on %s", who, path);
		unlink(tmp);
		close(fd);
		return err;
	}
	return fd;
}

int wd_sock_bind_name(const char *who, const char *path, int type, mode_t mode)
{
	return bound_socket(who, path, type, mode);
}

int wd_sock_connect(const char *path, int type)
{
	struct sockaddr_un sa;
	int fd, err = sock_addr(&sa, path);

	if (err)
		return err;
	fd = socket(AF_UNIX, type, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

int wd_peer_read(int fd, struct wd_peer *p)
{
	struct ucred cred;
	socklen_t len = sizeof(cred), glen = sizeof(p->groups);
	int err = 0;

	/* until the kernel has said otherwise: nobody, in a sandbox */
	memset(p, 0, sizeof(*p));
	p->uid = (uid_t)-1;
	p->gid = (gid_t)-1;
	p->in_sandbox = true;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len)) {
		err = -errno;
		goto out;
	}
	if (len != sizeof(cred)) {
		err = -EPROTO;
		goto out;
	}
	/* more groups than we look at: only uid and primary group count */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, p->groups, &glen) ||
	    glen > sizeof(p->groups))
		glen = 0;
	p->n_groups = glen / sizeof(gid_t);
	p->pid = cred.pid;
	p->uid = cred.uid;
	p->gid = cred.gid;
	p->in_sandbox = wd_cgroup_peer_in_sandbox(fd) != 0;
out:
	return err;
}

bool wd_peer_is(const struct wd_peer *p, uid_t uid)
{
	return !p->in_sandbox && p->uid == uid && uid != (uid_t)-1;
}

bool wd_peer_has_group(const struct wd_peer *p, gid_t gid)
{
	if (p->in_sandbox || gid == (gid_t)-1)
		return false;
	if (p->gid == gid)
		return true;
	for (size_t i = 0; i < p->n_groups; i++)
		if (p->groups[i] == gid)
			return true;
	return false;
}

int wd_sock_accept(int lfd, int flags, struct wd_peer *p)
{
	int fd = accept4(lfd, NULL, NULL, flags), err;

	if (fd < 0)
		return -errno;
	err = wd_peer_read(fd, p);
	if (err) {
		close(fd);
		return -EPERM;
	}
	return fd;
}
