// SPDX-License-Identifier: GPL-2.0
/* A sandbox's resource limits and the figures read back (supervisor/sandbox/limits.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "policy/compile.h"
#include "policy/policy.h"
#include "supervisor/sandbox/limits.h"
#include "supervisor/util/fsutil.h"
#include "supervisor/util/log.h"

/* The v2 quota period, and v1's cfs_period_us: 100 ms. */
#define CPU_PERIOD_US 100000

static const char *const ctrl_names[WD_CTRL_NR] = { "memory", "pids", "cpu", "cpuacct" };

const char *wd_ctrl_name(enum wd_ctrl c)
{
	return (unsigned int)c < WD_CTRL_NR ? ctrl_names[c] : "?";
}

const char *wd_cg_layout_name(enum wd_cg_layout l)
{
	switch (l) {
	case WD_CG_PURE_V2:
		return "pure cgroup v2";
	case WD_CG_HYBRID:
		return "hybrid (cgroup v1 controllers, cgroup2 for BPF)";
	default:
		return "neither (no cgroup controller for warden: rlimits only)";
	}
}

/* Whether the space-separated list @list has the word @w. */
static bool has_word(const char *list, const char *w, char sep)
{
	size_t n = strlen(w);

	for (const char *p = list; (p = strstr(p, w)); p += n)
		if ((p == list || p[-1] == sep) && (!p[n] || p[n] == sep || p[n] == '\n'))
			return true;
	return false;
}

/* The v1 hierarchies' mount points, by controller, from /proc/self/mountinfo. */
static void find_v1(struct wd_cg_layout_info *info)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return;
	/* "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu" */
	while (getline(&line, &cap, f) > 0) {
		char mnt[PATH_MAX], fstype[64], opts[512];
		char *sep = strstr(line, " - ");

		if (!sep || sscanf(sep, " - %63s %*s %511s", fstype, opts) != 2 ||
		    strcmp(fstype, "cgroup"))
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
			continue;
		for (int c = 0; c < WD_CTRL_NR; c++)
			if (!info->v1[c][0] && has_word(opts, ctrl_names[c], ','))
				snprintf(info->v1[c], sizeof(info->v1[c]), "%s", mnt);
	}
	free(line);
	fclose(f);
}

static int read_at(int dirfd, const char *name, char *buf, size_t bufsz)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, bufsz - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

static int read_path(const char *dir, const char *name, char *buf, size_t bufsz)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err;

	if (dfd < 0)
		return -errno;
	err = read_at(dfd, name, buf, bufsz);
	close(dfd);
	return err;
}

/* Switch each of memory, pids, cpu on in @dir's subtree_control where @dir has it. */
static void enable_level(const char *dir, bool enable)
{
	char have[512] = "", on[512] = "";
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0)
		return;
	read_at(dfd, "cgroup.controllers", have, sizeof(have));
	read_at(dfd, "cgroup.subtree_control", on, sizeof(on));
	for (int c = 0; enable && c <= WD_CTRL_CPU; c++) {
		char w[32];
		int err;

		if (!has_word(have, ctrl_names[c], ' ') || has_word(on, ctrl_names[c], ' '))
			continue;
		snprintf(w, sizeof(w), "+%s", ctrl_names[c]);
		err = wd_write_at(dfd, "cgroup.subtree_control", w);
		if (err)
			log_warnx("cgroup: cannot enable %s in %s: %s", ctrl_names[c], dir,
				  strerror(-err));
	}
	close(dfd);
}

int wd_cg_layout_find(struct wd_cg_layout_info *info, bool enable)
{
	char root[PATH_MAX], on[512] = "", dir[PATH_MAX + 16], *p;
	bool any_v1 = false, any_v2 = false;
	int err;

	memset(info, 0, sizeof(*info));
	info->layout = WD_CG_NEITHER;
	find_v1(info);
	err = wd_cgroup2_mount(info->v2, sizeof(info->v2));
	if (err) {
		info->v2[0] = 0;
		goto out;
	}
	err = wd_cgroup_root(root, sizeof(root));
	if (err)
		goto out;
	/* each level from <cgroup2>/warden down to the group's directory */
	snprintf(dir, sizeof(dir), "%s", root);
	p = dir + strlen(info->v2) + strlen("/warden");
	for (;;) {
		char c = *p;

		*p = 0;
		enable_level(dir, enable);
		*p = c;
		if (!c)
			break;
		p = strchr(p + 1, '/');
		if (!p)
			p = dir + strlen(dir);
	}
	read_path(root, "cgroup.subtree_control", on, sizeof(on));
	for (int c = 0; c <= WD_CTRL_CPU; c++) {
		info->v2_ctrl[c] = has_word(on, ctrl_names[c], ' ');
		any_v2 |= info->v2_ctrl[c];
	}
	snprintf(dir, sizeof(dir), "%s/cgroup.kill", root);
	info->kill = access(dir, F_OK) == 0;
out:
	for (int c = 0; c <= WD_CTRL_CPU; c++)
		any_v1 |= info->v1[c][0] != 0;
	info->layout = any_v2 ? WD_CG_PURE_V2 : any_v1 ? WD_CG_HYBRID : WD_CG_NEITHER;
	return err;
}

void wd_limits_init(struct wd_limits *l)
{
	memset(l, 0, sizeof(*l));
	for (int c = 0; c < WD_CTRL_NR; c++)
		l->v1_procs[c] = -1;
}

static int write_u64_at(int dfd, const char *name, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return wd_write_at(dfd, name, buf);
}

/* $WARDEN_CGROUP_GROUP, when it is one name (cgroup.c refuses the rest). */
static const char *group_name(void)
{
	const char *g = getenv("WARDEN_CGROUP_GROUP");

	if (!g || !*g || strchr(g, '/') || g[0] == '.' || strncmp(g, "sb-", 3) == 0)
		return NULL;
	return g;
}

/* <mount>/warden[/<group>]/<name> for a v1 hierarchy, its parents made: 0 or -errno. */
static int v1_dir(const char *mount, const char *name, bool make, char *buf, size_t bufsz)
{
	const char *g = group_name();

	if ((size_t)snprintf(buf, bufsz, "%s/warden", mount) >= bufsz)
		return -ENAMETOOLONG;
	if (make && mkdir(buf, 0755) && errno != EEXIST)
		return -errno;
	if (g) {
		size_t n = strlen(buf);

		if ((size_t)snprintf(buf + n, bufsz - n, "/%s", g) >= bufsz - n)
			return -ENAMETOOLONG;
		if (make && mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
	}
	if (strlen(buf) + 1 + strlen(name) >= bufsz)
		return -ENAMETOOLONG;
	strcat(buf, "/");
	strcat(buf, name);
	return 0;
}

/* The sandbox's own cgroup in the v1 hierarchy of @c, made, its cgroup.procs open. */
static int v1_make(struct wd_limits *l, const struct wd_cg_layout_info *info, enum wd_ctrl c,
		   const char *name, int *dfd)
{
	int err;

	*dfd = -1;
	/* a hierarchy with several controllers (cpu,cpuacct) holds one directory for them */
	for (int o = 0; o < WD_CTRL_NR; o++) {
		if (o != (int)c && l->v1[o][0] && strcmp(info->v1[o], info->v1[c]) == 0) {
			memcpy(l->v1[c], l->v1[o], sizeof(l->v1[c]));
			*dfd = open(l->v1[c], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			return *dfd < 0 ? -errno : 0;
		}
	}
	err = v1_dir(info->v1[c], name, true, l->v1[c], sizeof(l->v1[c]));
	if (!err && mkdir(l->v1[c], 0755))
		err = -errno;
	if (err) {
		l->v1[c][0] = 0;
		return err;
	}
	*dfd = open(l->v1[c], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*dfd < 0)
		return -errno;
	l->v1_procs[c] = openat(*dfd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
	return l->v1_procs[c] < 0 ? -errno : 0;
}

static int apply_memory(struct wd_limits *l, const struct wd_cg_layout_info *info,
			const struct wd_cgroup *cg, uint64_t bytes)
{
	int dfd, err;

	if (info->v2_ctrl[WD_CTRL_MEMORY]) {
		err = write_u64_at(cg->fd, "memory.max", bytes);
		if (err)
			return err;
		/* no swap: the limit is the memory it has. Absent without swap accounting. */
		err = wd_write_at(cg->fd, "memory.swap.max", "0");
		/* an OOM kill ends the whole sandbox, not one process of it */
		wd_write_at(cg->fd, "memory.oom.group", "1");
		l->mech[WD_LIMIT_MEMORY] = err ? "cgroup v2 memory.max (no swap accounting here)"
					       : "cgroup v2 memory.max, memory.swap.max 0";
		return 0;
	}
	if (info->v1[WD_CTRL_MEMORY][0]) {
		err = v1_make(l, info, WD_CTRL_MEMORY, cg->name, &dfd);
		if (!err)
			err = write_u64_at(dfd, "memory.limit_in_bytes", bytes);
		/* memory and swap together no more than memory alone: no swap */
		if (!err && write_u64_at(dfd, "memory.memsw.limit_in_bytes", bytes) == 0)
			l->mech[WD_LIMIT_MEMORY] = "cgroup v1 memory.limit_in_bytes, "
						   "memory.memsw.limit_in_bytes";
		else if (!err)
			l->mech[WD_LIMIT_MEMORY] = "cgroup v1 memory.limit_in_bytes (no swap "
						   "accounting here)";
		if (dfd >= 0)
			close(dfd);
		return err;
	}
	l->rl_as = bytes;
	l->mech[WD_LIMIT_MEMORY] = "RLIMIT_AS (address space per process, not the sandbox's "
				   "total: no memory controller here)";
	return 0;
}

static int apply_pids(struct wd_limits *l, const struct wd_cg_layout_info *info,
		      const struct wd_cgroup *cg, uint64_t n)
{
	int dfd, err;

	if (info->v2_ctrl[WD_CTRL_PIDS]) {
		l->mech[WD_LIMIT_PIDS] = "cgroup v2 pids.max";
		return write_u64_at(cg->fd, "pids.max", n);
	}
	if (info->v1[WD_CTRL_PIDS][0]) {
		err = v1_make(l, info, WD_CTRL_PIDS, cg->name, &dfd);
		if (!err)
			err = write_u64_at(dfd, "pids.max", n);
		if (dfd >= 0)
			close(dfd);
		l->mech[WD_LIMIT_PIDS] = "cgroup v1 pids.max";
		return err;
	}
	l->rl_nproc = n;
	l->mech[WD_LIMIT_PIDS] = "RLIMIT_NPROC (counts every process of the run user, not the "
				 "sandbox's: no pids controller here)";
	return 0;
}

static int apply_cpu(struct wd_limits *l, const struct wd_cg_layout_info *info,
		     const struct wd_cgroup *cg, uint64_t millicpus)
{
	uint64_t quota = millicpus * CPU_PERIOD_US / 1000;
	char buf[64];
	int dfd, err;

	if (info->v2_ctrl[WD_CTRL_CPU]) {
		snprintf(buf, sizeof(buf), "%" PRIu64 " %d", quota, CPU_PERIOD_US);
		l->mech[WD_LIMIT_CPU] = "cgroup v2 cpu.max";
		return wd_write_at(cg->fd, "cpu.max", buf);
	}
	if (info->v1[WD_CTRL_CPU][0]) {
		err = v1_make(l, info, WD_CTRL_CPU, cg->name, &dfd);
		if (!err)
			err = write_u64_at(dfd, "cpu.cfs_period_us", CPU_PERIOD_US);
		if (!err)
			err = write_u64_at(dfd, "cpu.cfs_quota_us", quota);
		if (dfd >= 0)
			close(dfd);
		l->mech[WD_LIMIT_CPU] = "cgroup v1 cpu.cfs_quota_us";
		return err;
	}
	return -EOPNOTSUPP;
}

int wd_limits_apply(struct wd_limits *l, const struct wd_cg_layout_info *info,
		    const struct wd_cgroup *cg, const struct wd_ruleset *rs, char *msg,
		    size_t msgsz)
{
	static const int order[] = { WD_LIMIT_MEMORY, WD_LIMIT_PIDS, WD_LIMIT_CPU };
	int err = 0;

	l->v2_mem = info->v2_ctrl[WD_CTRL_MEMORY];
	l->v2_pids = info->v2_ctrl[WD_CTRL_PIDS];
	for (size_t i = 0; !err && i < sizeof(order) / sizeof(order[0]); i++) {
		int k = order[i];

		if (!(rs->limits_set & (1u << k)))
			continue;
		if (k == WD_LIMIT_MEMORY)
			err = apply_memory(l, info, cg, rs->limit[k]);
		else if (k == WD_LIMIT_PIDS)
			err = apply_pids(l, info, cg, rs->limit[k]);
		else
			err = apply_cpu(l, info, cg, rs->limit[k]);
		if (err)
			snprintf(msg, msgsz, "/limits/%s: cannot apply it (%s): %s",
				 wd_limit_name((enum wd_limit_kind)k),
				 l->mech[k] ? l->mech[k] : "no cpu controller here",
				 strerror(-err));
	}
	if (rs->limits_set & (1u << WD_LIMIT_WALL_TIME))
		l->mech[WD_LIMIT_WALL_TIME] = info->kill ? "timerfd, then cgroup.kill"
							 : "timerfd, then freeze and kill each pid";
	if (rs->limits_set & (1u << WD_LIMIT_CPU_TIME))
		l->mech[WD_LIMIT_CPU_TIME] = "cgroup v2 cpu.stat usage_usec, read every 100 ms";
	if (rs->limits_set & (1u << WD_LIMIT_KILL_GRACE))
		l->mech[WD_LIMIT_KILL_GRACE] = "timerfd after the forwarded signal";
	if (rs->limits_set & (1u << WD_LIMIT_OUTPUT))
		l->mech[WD_LIMIT_OUTPUT] = "pipes (or the terminal) read by warden, the rest "
					   "drained and counted";
	if (rs->limits_set & (1u << WD_LIMIT_DISK))
		l->mech[WD_LIMIT_DISK] = "tmpfs size= and nr_inodes= of the private /tmp, the "
					 "only place the policy lets it write";
	return err;
}

int wd_limits_child_join(const struct wd_limits *l)
{
	struct rlimit rl;

	for (int c = 0; c < WD_CTRL_NR; c++)
		if (l->v1_procs[c] >= 0 && write(l->v1_procs[c], "0", 1) != 1)
			return -errno;
	if (l->rl_as) {
		rl = (struct rlimit){ .rlim_cur = l->rl_as, .rlim_max = l->rl_as };
		if (setrlimit(RLIMIT_AS, &rl))
			return -errno;
	}
	if (l->rl_nproc) {
		rl = (struct rlimit){ .rlim_cur = l->rl_nproc, .rlim_max = l->rl_nproc };
		if (setrlimit(RLIMIT_NPROC, &rl))
			return -errno;
	}
	return 0;
}

/* The number after "@key " in a flat keyed file ("usage_usec 123\n..."), or 0. */
static uint64_t keyed(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, key, n) == 0 && p[n] == ' ')
			return strtoull(p + n + 1, NULL, 10);
	return 0;
}

static bool read_u64(int dfd, const char *name, uint64_t *v)
{
	char buf[64];

	if (dfd < 0 || read_at(dfd, name, buf, sizeof(buf)))
		return false;
	*v = strtoull(buf, NULL, 10);
	return true;
}

static int v1_open(const struct wd_limits *l, enum wd_ctrl c)
{
	return l->v1[c][0] ? open(l->v1[c], O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
}

uint64_t wd_limits_cpu_usec(const struct wd_limits *l, int cg_fd)
{
	char buf[1024];
	uint64_t ns;
	int dfd;

	if (read_at(cg_fd, "cpu.stat", buf, sizeof(buf)) == 0)
		return keyed(buf, "usage_usec");
	dfd = v1_open(l, WD_CTRL_CPUACCT);
	ns = 0;
	read_u64(dfd, "cpuacct.usage", &ns);
	if (dfd >= 0)
		close(dfd);
	return ns / 1000;
}

static void read_memory(const struct wd_limits *l, int cg_fd, struct wd_limit_usage *u)
{
	char buf[1024];
	int dfd;

	if (l->v2_mem) {
		u->have_mem = read_u64(cg_fd, "memory.current", &u->mem_current);
		if (!read_u64(cg_fd, "memory.peak", &u->mem_peak))
			u->mem_peak = 0;
		if (read_at(cg_fd, "memory.events", buf, sizeof(buf)) == 0) {
			u->oom_kills = keyed(buf, "oom_kill");
			u->mem_failcnt = keyed(buf, "max");
		}
		return;
	}
	dfd = v1_open(l, WD_CTRL_MEMORY);
	if (dfd < 0)
		return;
	u->have_mem = read_u64(dfd, "memory.usage_in_bytes", &u->mem_current);
	read_u64(dfd, "memory.max_usage_in_bytes", &u->mem_peak);
	read_u64(dfd, "memory.failcnt", &u->mem_failcnt);
	if (read_at(dfd, "memory.oom_control", buf, sizeof(buf)) == 0)
		u->oom_kills = keyed(buf, "oom_kill");
	close(dfd);
}

static void read_pids(const struct wd_limits *l, int cg_fd, struct wd_limit_usage *u)
{
	char buf[256];
	int dfd = l->v2_pids ? cg_fd : v1_open(l, WD_CTRL_PIDS);

	if (dfd < 0)
		return;
	u->have_pids = read_u64(dfd, "pids.current", &u->pids_current);
	/* 6.13+; before it the run loop's samples of pids.current stand */
	read_u64(dfd, "pids.peak", &u->pids_peak);
	if (read_at(dfd, "pids.events", buf, sizeof(buf)) == 0)
		u->pids_max_hits = keyed(buf, "max");
	if (dfd != cg_fd)
		close(dfd);
}

/* nr_throttled of the cgroup the quota is on: the v2 one (with the cpu controller) or v1's. */
static void read_throttled(const struct wd_limits *l, int cg_fd, struct wd_limit_usage *u)
{
	char buf[1024];
	int dfd = l->v1[WD_CTRL_CPU][0] ? v1_open(l, WD_CTRL_CPU) : cg_fd;

	if (dfd >= 0 && read_at(dfd, "cpu.stat", buf, sizeof(buf)) == 0)
		u->cpu_throttled = keyed(buf, "nr_throttled");
	if (dfd >= 0 && dfd != cg_fd)
		close(dfd);
}

void wd_limits_read(const struct wd_limits *l, int cg_fd, struct wd_limit_usage *u)
{
	char buf[1024];

	memset(u, 0, sizeof(*u));
	if (cg_fd >= 0 && read_at(cg_fd, "cpu.stat", buf, sizeof(buf)) == 0) {
		u->have_cpu = true;
		u->cpu_usec = keyed(buf, "usage_usec");
		u->user_usec = keyed(buf, "user_usec");
		u->system_usec = keyed(buf, "system_usec");
	}
	read_memory(l, cg_fd, u);
	read_pids(l, cg_fd, u);
	if (l->mech[WD_LIMIT_CPU])
		read_throttled(l, cg_fd, u);
}

/*
 * Kill what is left in the v1 cgroup @dir (only the sandbox's tasks are ever there: the
 * command joined it itself, everything else was born in it) and wait for each to go.
 */
static void v1_empty(const char *dir)
{
	char path[PATH_MAX + 16], *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "re");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		pid_t pid = (pid_t)strtol(line, NULL, 10);
		int pfd = pid > 0 ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
		struct pollfd p = { .fd = pfd, .events = POLLIN };

		if (pfd < 0)
			continue;
		syscall(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, 0);
		/* bounded: a task in D state must not hang warden's ending */
		poll(&p, 1, 2000);
		close(pfd);
	}
	free(line);
	fclose(f);
}

static int v1_rmdir(const char *dir)
{
	if (rmdir(dir) == 0 || errno == ENOENT)
		return 0;
	v1_empty(dir);
	if (rmdir(dir) == 0 || errno == ENOENT)
		return 0;
	log_warn("cgroup: cannot remove %s", dir);
	return -errno;
}

void wd_limits_remove(struct wd_limits *l)
{
	for (int c = 0; c < WD_CTRL_NR; c++) {
		if (l->v1_procs[c] >= 0)
			close(l->v1_procs[c]);
		l->v1_procs[c] = -1;
	}
	for (int c = 0; c < WD_CTRL_NR; c++) {
		bool seen = false;

		if (!l->v1[c][0])
			continue;
		for (int o = c + 1; o < WD_CTRL_NR; o++)
			seen |= strcmp(l->v1[o], l->v1[c]) == 0;
		if (!seen)
			v1_rmdir(l->v1[c]);
		l->v1[c][0] = 0;
	}
}

int wd_limits_remove_for(const struct wd_cgroup *cg)
{
	struct wd_cg_layout_info info;
	char mnt[PATH_MAX], dir[2 * PATH_MAX];
	const char *rel;
	int n = 0;

	/* <cgroup2>/warden[/<group>]/sb-*: the same relative path under each v1 hierarchy */
	if (wd_cgroup2_mount(mnt, sizeof(mnt)) || strncmp(cg->path, mnt, strlen(mnt)))
		return 0;
	rel = cg->path + strlen(mnt);
	if (strncmp(rel, "/warden/", 8) || strstr(rel, "/.") || strncmp(cg->name, "sb-", 3))
		return 0;
	memset(&info, 0, sizeof(info));
	find_v1(&info);
	for (int c = 0; c < WD_CTRL_NR; c++) {
		if (!info.v1[c][0])
			continue;
		snprintf(dir, sizeof(dir), "%s%s", info.v1[c], rel);
		if (access(dir, F_OK) == 0 && v1_rmdir(dir) == 0)
			n++;
	}
	return n;
}
