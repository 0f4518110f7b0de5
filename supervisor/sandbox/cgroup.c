// SPDX-License-Identifier: GPL-2.0
/* Sandbox cgroups under warden's own cgroup v2 subtree (supervisor/sandbox/cgroup.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "supervisor/sandbox/cgroup.h"
#include "supervisor/util/fsutil.h"
#include "supervisor/util/log.h"

/* How long a killed sandbox may take to empty before we give up removing it. */
#define WD_CGROUP_DRAIN_MS 10000

int wd_cgroup2_mount(char *buf, size_t bufsz)
{
	char *line = NULL;
	size_t cap = 0;
	int err = -ENOENT;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	/* "36 35 0:30 / /sys/fs/cgroup/unified rw,... - cgroup2 cgroup2 rw" */
	while (getline(&line, &cap, f) > 0) {
		char mnt[PATH_MAX], fstype[64];
		char *sep = strstr(line, " - ");

		if (!sep || sscanf(sep, " - %63s", fstype) != 1 || strcmp(fstype, "cgroup2"))
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
			continue;
		if ((size_t)snprintf(buf, bufsz, "%s", mnt) >= bufsz) {
			err = -ENAMETOOLONG;
			break;
		}
		err = 0;
		break;
	}
	free(line);
	fclose(f);
	return err;
}

/*
 * $WARDEN_CGROUP_GROUP (one name, no "/"): a group of sandboxes inside warden's subtree. Test
 * suites give themselves one, so what one suite cleans up is only ever its own.
 */
static int group_dir(char *buf, size_t bufsz)
{
	const char *g = getenv("WARDEN_CGROUP_GROUP");
	size_t n = strlen(buf);

	if (!g || !*g)
		return 0;
	if (strchr(g, '/') || g[0] == '.' || strncmp(g, "sb-", 3) == 0) {
		log_warnx("cgroup: WARDEN_CGROUP_GROUP must be one name, not a path or sb-*");
		return -EINVAL;
	}
	if ((size_t)snprintf(buf + n, bufsz - n, "/%s", g) >= bufsz - n)
		return -ENAMETOOLONG;
	if (mkdir(buf, 0755) && errno != EEXIST) {
		log_warn("cgroup: cannot create %s", buf);
		return -errno;
	}
	return 0;
}

int wd_cgroup_root(char *buf, size_t bufsz)
{
	char mnt[PATH_MAX];
	int err;

	err = wd_cgroup2_mount(mnt, sizeof(mnt));
	if (err) {
		log_warnx("cgroup: no cgroup2 hierarchy is mounted: %s", strerror(-err));
		return err;
	}
	if ((size_t)snprintf(buf, bufsz, "%s/%s", mnt, WD_CGROUP_SUBTREE) >= bufsz)
		return -ENAMETOOLONG;
	if (mkdir(buf, 0755) && errno != EEXIST) {
		err = -errno;
		log_warn("cgroup: cannot create %s", buf);
		return err;
	}
	return group_dir(buf, bufsz);
}

int wd_cgroup_subtree_open(void)
{
	char mnt[PATH_MAX], path[PATH_MAX + sizeof(WD_CGROUP_SUBTREE) + 1];
	int err, fd;

	err = wd_cgroup2_mount(mnt, sizeof(mnt));
	if (err) {
		log_warnx("cgroup: no cgroup2 hierarchy to attach warden's programs to: %s",
			  strerror(-err));
		return err;
	}
	snprintf(path, sizeof(path), "%s/%s", mnt, WD_CGROUP_SUBTREE);
	if (mkdir(path, 0755) && errno != EEXIST) {
		err = -errno;
		log_warn("cgroup: cannot create %s", path);
		return err;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		log_warn("cgroup: cannot open %s", path);
		return err;
	}
	return fd;
}

int wd_cgroup_id(const char *path, uint64_t *id)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	int mount_id;

	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0))
		return -errno;
	if (h.fh.handle_bytes != sizeof(uint64_t))
		return -EOPNOTSUPP;
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return 0;
}

/* A cgroup handed down by a daemon (wd_cgroup_use_next), for this process's next sandbox. */
static struct wd_cgroup next_cg = { .fd = -1 };

void wd_cgroup_use_next(const struct wd_cgroup *cg)
{
	next_cg = *cg;
}

int wd_cgroup_create(struct wd_cgroup *cg)
{
	char root[PATH_MAX];
	uint32_t rnd;
	int err;

	if (next_cg.fd >= 0) {
		*cg = next_cg;
		next_cg = (struct wd_cgroup){ .fd = -1 };
		return 0;
	}
	memset(cg, 0, sizeof(*cg));
	cg->fd = -1;
	err = wd_cgroup_root(root, sizeof(root));
	if (err)
		return err;
	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		return -errno;
	snprintf(cg->name, sizeof(cg->name), "sb-%08x", rnd);
	if ((size_t)snprintf(cg->path, sizeof(cg->path), "%s/%s", root, cg->name) >=
	    sizeof(cg->path))
		return -ENAMETOOLONG;
	if (mkdir(cg->path, 0755)) {
		err = -errno;
		log_warn("cgroup: cannot create %s", cg->path);
		cg->path[0] = 0;
		return err;
	}
	cg->fd = open(cg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->fd < 0) {
		err = -errno;
		log_warn("cgroup: cannot open %s", cg->path);
		goto out_rmdir;
	}
	err = wd_cgroup_id(cg->path, &cg->id);
	if (err) {
		log_warnx("cgroup: cannot read the id of %s: %s", cg->path, strerror(-err));
		goto out_close;
	}
	return 0;

out_close:
	close(cg->fd);
	cg->fd = -1;
out_rmdir:
	rmdir(cg->path);
	cg->path[0] = 0;
	return err;
}

/*
 * Before cgroup.kill (5.14): frozen, so nothing forks meanwhile, each task killed, thawed so the
 * kills are delivered. Every task of it is a sandbox's.
 */
static int freeze_and_kill(const struct wd_cgroup *cg)
{
	char line[32];
	int fd, err;
	FILE *f;

	err = wd_write_at(cg->fd, "cgroup.freeze", "1");
	if (err)
		return err;
	fd = openat(cg->fd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		err = -errno;
		if (fd >= 0)
			close(fd);
	}
	while (f && fgets(line, sizeof(line), f)) {
		long pid = strtol(line, NULL, 10);

		if (pid > 0)
			kill((pid_t)pid, SIGKILL);
	}
	if (f)
		fclose(f);
	wd_write_at(cg->fd, "cgroup.freeze", "0");
	return err;
}

int wd_cgroup_kill(const struct wd_cgroup *cg)
{
	int err;

	if (cg->fd < 0)
		return -EBADF;
	err = wd_write_at(cg->fd, "cgroup.kill", "1");
	if (err == -ENOENT)
		err = freeze_and_kill(cg);
	if (err)
		log_warnx("cgroup: cannot kill %s: %s", cg->name, strerror(-err));
	return err;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Wait for "populated 0" in cgroup.events; the kernel signals each change with POLLPRI. */
bool wd_cgroup_events_empty(int events)
{
	char buf[256];
	ssize_t n = pread(events, buf, sizeof(buf) - 1, 0);

	if (n < 0)
		return false;
	buf[n] = 0;
	return strstr(buf, "populated 0") != NULL;
}

static int wait_empty(const struct wd_cgroup *cg, int timeout_ms)
{
	uint64_t deadline = now_ms() + (uint64_t)timeout_ms;
	int fd, err = -ETIMEDOUT;

	fd = openat(cg->fd, "cgroup.events", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLPRI };
		uint64_t now;

		if (wd_cgroup_events_empty(fd)) {
			err = 0;
			break;
		}
		now = now_ms();
		if (now >= deadline)
			break;
		if (poll(&pfd, 1, (int)(deadline - now)) < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
	}
	close(fd);
	return err;
}

int wd_cgroup_drain(const struct wd_cgroup *cg)
{
	if (cg->fd < 0)
		return -EBADF;
	wd_cgroup_kill(cg);
	return wait_empty(cg, WD_CGROUP_DRAIN_MS);
}

int wd_cgroup_destroy(struct wd_cgroup *cg)
{
	int err = 0;

	if (!cg->path[0])
		return 0;
	if (cg->fd >= 0) {
		wd_cgroup_kill(cg);
		err = wait_empty(cg, WD_CGROUP_DRAIN_MS);
		if (err)
			log_warnx("cgroup: %s did not empty: %s", cg->name, strerror(-err));
	}
	if (rmdir(cg->path) == 0 || errno == ENOENT) {
		err = 0;
	} else {
		err = -errno;
		log_warn("cgroup: cannot remove %s", cg->path);
	}
	if (cg->fd >= 0)
		close(cg->fd);
	cg->fd = -1;
	cg->path[0] = 0;
	return err;
}

/* Is the cgroup2 path @path (as /proc/PID/cgroup gives it) a sandbox's or below one? */
static bool sandbox_path(const char *path)
{
	const char *sub = "/" WD_CGROUP_SUBTREE "/";
	const char *p;

	if (strncmp(path, sub, strlen(sub)))
		return false;
	for (p = path + strlen(sub) - 1; p; p = strchr(p + 1, '/'))
		if (strncmp(p + 1, "sb-", 3) == 0)
			return true;
	return false;
}

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

int wd_cgroup_peer_in_sandbox(int sock)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	char path[64], *line = NULL;
	size_t cap = 0;
	int pidfd = -1, err = -ENOENT;
	FILE *f;

	if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cr, &len))
		return -errno;
	if (cr.pid <= 0)
		return -ESRCH;
	/* 6.5+: the peer itself, so a pid reused since the connect cannot stand in for it */
	len = sizeof(pidfd);
	if (getsockopt(sock, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len))
		pidfd = -1;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)cr.pid);
	f = fopen(path, "re");
	if (!f) {
		err = -errno;
		goto out;
	}
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = 0;
		err = sandbox_path(line + 3) ? 1 : 0;
		break;
	}
	fclose(f);
	free(line);
	/* what was read is the peer's only if the peer still lives (its pid not reused) */
	if (err >= 0 && pidfd >= 0 && syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0))
		err = -ESRCH;
out:
	if (pidfd >= 0)
		close(pidfd);
	return err;
}
