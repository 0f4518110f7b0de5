// SPDX-License-Identifier: GPL-2.0
/*
 * One program set per host (docs/design.md, "One program set per host"): the loader's programs
 * loaded once, pinned under /sys/fs/bpf/warden/<set>-<hash>, and found there by every later run
 * of the same build, which then loads nothing. A set's users are the sandboxes in its
 * wd_sandboxes map and the processes holding a shared flock on its directory (a run until its
 * sandbox is in, wardend while it lives); the last one out unpins the LSM set, and detaches the
 * recorder set (the landlock backend's) but leaves it pinned, idle: its programs verified, none
 * attached, so the next run wakes it (attaches) instead of loading it again. `warden unload`
 * removes idle sets. One exclusive flock on /sys/fs/bpf/warden serialises finding, loading,
 * pinning, waking, idling and unpinning across the host.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "supervisor/bpf/lite.h"
#include "wd_set_key.h"
#include "supervisor/bpf/progs_int.h"
#include "supervisor/net/rate.h"
#include "supervisor/sandbox/cgroup.h"
#include "supervisor/util/log.h"

#define BPFFS "/sys/fs/bpf"
#define PIN_ROOT BPFFS "/warden"
#define BPFFS_MAGIC 0xcafe4a11
#define FILEID_KERNFS 0xfe
/* Bump when the loader's use of the pins changes while the objects do not. */
/* 2: the network object's maps and links beside the set; 3: programs pinned (p_*), idle sets */
#define WD_PINSET_LAYOUT 3

static const char *const map_pin[WD_MAP_NR] = {
	[WD_MAP_SANDBOXES] = "wd_sandboxes", [WD_MAP_RINGS] = "wd_rings",
	[WD_MAP_RATE] = WD_RATE_MAP_PIN,
	[WD_MAP_PATHS] = "wd_paths",	     [WD_MAP_INODES] = "wd_inodes",
	[WD_MAP_PROTECT] = "wd_protect",     [WD_MAP_FORK] = "wd_fork",
	[WD_MAP_NET4] = "wd_net4",
	[WD_MAP_NET6] = "wd_net6",	     [WD_MAP_NETCFG] = "wd_net_cfg",
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/*
 * The set's version: both objects' bytes (hashed at build time), the programs' choice for a
 * kernel (progs.c), the capacities and the layouts user space writes. Which programs load and lsm/bpf's argument
 * index depend on the kernel too, but the kernel cannot change under a BPF filesystem (it goes
 * with the boot), so a reusing run never reads the kernel's BTF to compute them.
 */
static uint64_t set_hash(enum wd_progs_set set)
{
	const uint32_t abi[] = {
		WD_PINSET_LAYOUT,	       (uint32_t)set,
		WD_MAX_SANDBOXES,	       WD_MAX_PATHS,
		WD_MAX_INODES,		       WD_MAX_PROTECTS,
		sizeof(struct wd_sandbox),     sizeof(struct wd_path_key),
		sizeof(struct wd_path_rule),   sizeof(struct wd_inode_key),
		sizeof(struct wd_inode_rule),  sizeof(struct wd_protect_val),
		WD_REC_HDR_SIZE,	       WD_REC_FILE_SIZE,
		WD_REC_SYSCALL_SIZE,	       WD_REC_SOCK_SIZE,
		WD_MAX_NET_KEYS,	       WD_NET_RANGES,
		WD_NET_LISTEN_MAX,	       sizeof(struct wd_net4_key),
		sizeof(struct wd_net6_key),    sizeof(struct wd_net_val),
		sizeof(struct wd_net_cfg),
		sizeof(struct wd_rate),	       sizeof(struct wd_fork),
	};
	/* the objects' bytes, hashed by the build (Makefile: wd_set_key.h) */
	uint64_t h = WD_SET_OBJECTS;

	h = wd_progs_choice_hash(h);
	return fnv(h, abi, sizeof(abi));
}

static bool is_bpffs(const char *path)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 && (unsigned long)sf.f_type == BPFFS_MAGIC;
}

/*
 * A BPF filesystem on /sys/fs/bpf, mounted if it is not there yet (as systemd does at boot).
 * Racing mounters lock the directory under it, so one mounts and the others find it.
 */
static int ensure_bpffs(void)
{
	int fd, err = 0;

	if (is_bpffs(BPFFS))
		return 0;
	fd = open(BPFFS, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_EX)) {
		err = -ENOTSUP;
		goto out;
	}
	if (!is_bpffs(BPFFS) && mount("bpf", BPFFS, "bpf", MS_NOSUID | MS_NODEV | MS_NOEXEC,
				      "mode=0700")) {
		log_debug("bpf: cannot mount a BPF filesystem on %s: %s", BPFFS, strerror(errno));
		err = -ENOTSUP;
	}
out:
	if (fd >= 0)
		close(fd);
	return err;
}

/* /sys/fs/bpf/warden, root's alone, locked: -1 with errno where it cannot be had. */
static int lock_root(void)
{
	int fd;

	if (ensure_bpffs()) {
		errno = ENOTSUP;
		return -1;
	}
	if (mkdir(PIN_ROOT, 0700) && errno != EEXIST)
		return -1;
	fd = open(PIN_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	if (fchmod(fd, 0700) || flock(fd, LOCK_EX)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Remove the directory @name under @root and the pins in it; link fds kept in @links if given. */
static void remove_set(int root, const char *name, int **links, size_t *n_links)
{
	int fd = openat(root, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	struct dirent *e;
	DIR *dir;

	if (fd < 0)
		return;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return;
	}
	while ((e = readdir(dir))) {
		int *more;

		if (e->d_name[0] == '.')
			continue;
		/* a link whose last reference this drops would detach inside unlink: hold it */
		if (links && strncmp(e->d_name, "prog_", 5) == 0) {
			char path[512];
			int l;

			snprintf(path, sizeof(path), "%s/%s/%s", PIN_ROOT, name, e->d_name);
			l = bpf_obj_get(path);
			more = l >= 0 ? realloc(*links, (*n_links + 1) * sizeof(int)) : NULL;
			if (more) {
				*links = more;
				more[(*n_links)++] = l;
			} else if (l >= 0) {
				close(l);
			}
		}
		if (unlinkat(dirfd(dir), e->d_name, 0))
			log_warn("bpf: cannot unpin %s/%s/%s", PIN_ROOT, name, e->d_name);
	}
	closedir(dir);
	if (unlinkat(root, name, AT_REMOVEDIR))
		log_warn("bpf: cannot remove %s/%s", PIN_ROOT, name);
}

static int pin_path(char *buf, size_t size, const char *dir, const char *obj)
{
	int n = snprintf(buf, size, "%s/%s/%s", PIN_ROOT, dir, obj);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/*
 * The recorder set idles between runs rather than going: its link pins ("prog_<name>") are
 * unpinned, which detaches every program (nothing of warden's runs on the host, on any syscall
 * or socket), while its programs stay pinned ("p_<name>") with its maps, verified. Waking it is
 * one attach per program (~2 ms here) where loading it again was ~20 ms of the verifier's.
 */
#define IDLE_PROG "p_"
#define LINK_PIN "prog_"

/*
 * The names in @dir (under PIN_ROOT) that start with @prefix, into a new array (@n of them,
 * NULL if none). -errno when the directory cannot be read: then nothing is known of it.
 */
static int names_with(const char *dir, const char *prefix, char ***out, size_t *n)
{
	char path[512], **names = NULL, **more;
	struct dirent *e;
	DIR *d;

	*out = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "%s/%s", PIN_ROOT, dir);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		more = realloc(names, (*n + 1) * sizeof(*names));
		if (!more)
			break;
		names = more;
		names[*n] = strdup(e->d_name);
		if (names[*n])
			(*n)++;
	}
	closedir(d);
	*out = names;
	return 0;
}

static void names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/*
 * Is the pinned set @dir idle: no link pinned, so none of its programs attached? A directory
 * that cannot be read is not: a live set is never taken for an idle one (and woken, or
 * removed) on a failed read.
 */
static bool is_idle(const char *dir)
{
	char **links;
	size_t n;

	if (names_with(dir, LINK_PIN, &links, &n))
		return false;
	names_free(links, n);
	return n == 0;
}

/* Pin the program of each of @dir's link pins as p_<name>, so an idle set can be woken. */
static int pin_programs(const char *dir)
{
	char **links, path[512];
	size_t n;
	int err = names_with(dir, LINK_PIN, &links, &n) ?: (n ? 0 : -ENOENT);

	for (size_t i = 0; i < n && !err; i++) {
		struct bpf_link_info info = { 0 };
		__u32 len = sizeof(info);
		int link, prog = -1;

		err = pin_path(path, sizeof(path), dir, links[i]);
		link = err ? -1 : bpf_obj_get(path);
		if (!err && link < 0)
			err = link;
		if (!err && bpf_obj_get_info_by_fd(link, &info, &len))
			err = -errno;
		if (!err) {
			prog = bpf_prog_get_fd_by_id(info.prog_id);
			err = prog < 0 ? prog : 0;
		}
		if (!err) {
			snprintf(path, sizeof(path), "%s/%s/%s%s", PIN_ROOT, dir, IDLE_PROG,
				 links[i] + strlen(LINK_PIN));
			err = bpf_obj_pin(prog, path);
		}
		if (prog >= 0)
			close(prog);
		if (link >= 0)
			close(link);
	}
	if (err)
		log_warnx("bpf: cannot pin the programs of %s/%s: %s", PIN_ROOT, dir,
			  strerror(-err));
	names_free(links, n);
	return err;
}

/*
 * With the root locked: idle the set @dir. Its link pins go; the links go with them once the
 * kernel releases them, after a grace period (wait_unlinked: a run that wakes the set must not
 * find its programs attached twice).
 */
static void idle_set(const char *dir)
{
	char **links, path[512];
	size_t n;

	names_with(dir, LINK_PIN, &links, &n);

	for (size_t i = 0; i < n; i++)
		if (!pin_path(path, sizeof(path), dir, links[i]) && unlink(path))
			log_warn("bpf: cannot unpin %s", path);
	names_free(links, n);
}

/* Is any link on the host, live or on its way out, a link of one of the @n programs @ids? */
static bool linked(const __u32 *ids, size_t n)
{
	__u32 id = 0;

	while (!bpf_link_get_next_id(id, &id)) {
		struct bpf_link_info info = { 0 };
		__u32 len = sizeof(info);
		int fd = bpf_link_get_fd_by_id(id);

		/* an id whose link cannot be had (ENOENT) is one being freed: maybe ours */
		if (fd < 0 && errno == ENOENT)
			return true;
		if (fd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0)
			for (size_t i = 0; i < n; i++)
				if (info.prog_id == ids[i]) {
					close(fd);
					return true;
				}
		close(fd);
	}
	return false;
}

/*
 * Wait until none of the programs pinned in @dir is attached. The links an idled set unpinned
 * are released after an RCU grace period, by a kernel worker (a pin's last reference goes when
 * its inode is freed; a raw tracepoint link cannot be detached before); attached again before
 * that, a program would run twice for a while, and make each record twice. -ETIMEDOUT after 2 s.
 */
static int wait_unlinked(const char *dir, char **progs, size_t n)
{
	__u32 ids[32];
	char path[512];
	size_t m = 0;

	for (size_t i = 0; i < n && m < sizeof(ids) / sizeof(ids[0]); i++) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);
		int fd;

		if (pin_path(path, sizeof(path), dir, progs[i]))
			return -ENAMETOOLONG;
		fd = bpf_obj_get(path);
		if (fd < 0)
			return fd;
		if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0)
			ids[m++] = info.id;
		close(fd);
	}
	for (int t = 0; t < 2000; t++) {
		if (!linked(ids, m))
			return 0;
		usleep(1000);
	}
	return -ETIMEDOUT;
}

/* With the root locked: attach every program of the idle set @dir again, and pin the links. */
static int wake_set(const char *dir)
{
	char **progs, path[512];
	size_t n;
	int err = names_with(dir, IDLE_PROG, &progs, &n) ?: (n ? 0 : -ENOENT);
	int cg = err ? -1 : wd_cgroup_subtree_open();

	if (!err && cg < 0)
		err = cg;
	if (!err)
		err = wait_unlinked(dir, progs, n);
	for (size_t i = 0; i < n && !err; i++) {
		const char *name = progs[i] + strlen(IDLE_PROG);
		int prog, link = -1;

		err = pin_path(path, sizeof(path), dir, progs[i]);
		prog = err ? -1 : bpf_obj_get(path);
		if (!err && prog < 0)
			err = prog;
		if (!err) {
			link = wd_lite_attach(name, prog, cg);
			err = link < 0 ? link : 0;
		}
		if (!err) {
			snprintf(path, sizeof(path), "%s/%s/%s%s", PIN_ROOT, dir, LINK_PIN, name);
			err = bpf_obj_pin(link, path);
		}
		if (err)
			log_info("bpf: cannot attach %s of the idle set %s: %s", name, dir,
				 strerror(-err));
		if (link >= 0)
			close(link);
		if (prog >= 0)
			close(prog);
	}
	if (cg >= 0)
		close(cg);
	if (err)
		idle_set(dir);
	names_free(progs, n);
	return err;
}

/* Pin the loaded objects' links and the maps user space touches into @dir. */
static int pin_objects(struct wd_progs *progs, const char *dir)
{
	const struct bpf_object_skeleton *skel[2] = { progs->rec->skeleton,
						      progs->lsm ? progs->lsm->skeleton : NULL };
	/* (wd_rate is pinned by its own loader, supervisor/net/rate.c) */
	struct bpf_map *m[WD_MAP_NR] = {
		[WD_MAP_SANDBOXES] = progs->rec->maps.wd_sandboxes,
		[WD_MAP_RINGS] = progs->rec->maps.wd_rings,
		[WD_MAP_PATHS] = progs->lsm ? progs->lsm->maps.wd_paths : NULL,
		[WD_MAP_INODES] = progs->lsm ? progs->lsm->maps.wd_inodes : NULL,
		[WD_MAP_PROTECT] = progs->lsm ? progs->lsm->maps.wd_protect : NULL,
		[WD_MAP_FORK] = progs->lsm ? progs->lsm->maps.wd_fork : NULL,
	};
	char path[512], name[128];
	int err = 0;

	for (int i = 0; i < WD_MAP_NET4 && !err; i++) {
		if (!wd_set_has_map(progs->set, i) || !m[i])
			continue;
		err = pin_path(path, sizeof(path), dir, map_pin[i]);
		err = err ?: bpf_map__pin(m[i], path);
	}
	if (!err) {
		err = pin_path(path, sizeof(path), dir, "");
		err = err ?: wd_net_pin(progs->net, path);
	}
	for (int s = 0; s < 2 && !err; s++) {
		for (int i = 0; skel[s] && i < skel[s]->prog_cnt && !err; i++) {
			const struct bpf_prog_skeleton *p =
				(const void *)((const char *)skel[s]->progs + i * skel[s]->prog_skel_sz);

			if (!*p->link)
				continue;
			snprintf(name, sizeof(name), "prog_%s", p->name);
			err = pin_path(path, sizeof(path), dir, name);
			err = err ?: bpf_link__pin(*p->link, path);
		}
	}
	if (err)
		log_warnx("bpf: cannot pin %s: %s", path, strerror(-err));
	return err;
}

/*
 * The landlock backend's set through its light skeleton (supervisor/bpf/lite.h: no BTF parsed
 * here, every object of the set in one load), its maps and links pinned into @dir under @root
 * and its maps taken into @progs. Any failure leaves nothing behind and the caller loads with
 * the full skeletons (a kernel without kernel-side CO-RE, say). 0 or -errno.
 */
static int load_lite(struct wd_progs *progs, int root, const char *dir)
{
	const struct wd_lite_pin *pins[2];
	struct wd_lite *lite;
	char path[512];
	size_t n[2];
	int err;

	err = wd_lite_load(&lite);
	if (err)
		return err;
	if (mkdirat(root, dir, 0700))
		err = -errno;
	pins[0] = wd_lite_maps(lite, &n[0]);
	pins[1] = wd_lite_links(lite, &n[1]);
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < n[k] && !err; i++) {
			err = pin_path(path, sizeof(path), dir, pins[k][i].pin);
			err = err ?: bpf_obj_pin(pins[k][i].fd, path);
		}
	}
	for (int i = 0; i < WD_MAP_NR && !err; i++) {
		int fd;

		if (!wd_set_has_map(progs->set, i))
			continue;
		fd = wd_lite_map(lite, map_pin[i]);
		progs->maps[i] = fd < 0 ? -ENOENT : fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (progs->maps[i] < 0)
			err = fd < 0 ? -ENOENT : -errno;
	}
	if (err) {
		log_debug("bpf: the light loader's set cannot be pinned: %s", strerror(-err));
		for (int i = 0; i < WD_MAP_NR; i++) {
			if (progs->maps[i] >= 0)
				close(progs->maps[i]);
			progs->maps[i] = -1;
		}
		remove_set(root, dir, NULL, NULL);
	}
	/* pinned, the links stay attached when the skeleton's fds close */
	wd_lite_destroy(lite);
	return err;
}

/* Both objects through their full skeletons (libbpf reads the kernel's BTF), pinned into @dir. */
static int load_full(struct wd_progs *progs, int root, const char *dir)
{
	int err;

	err = wd_progs_open_objects(progs);
	err = err ?: wd_progs_load_attach(progs);
	if (!err && mkdirat(root, dir, 0700)) {
		err = -errno;
		log_warn("bpf: cannot make %s/%s", PIN_ROOT, dir);
	}
	err = err ?: pin_objects(progs, dir);
	return err ?: wd_progs_take_maps(progs);
}

/* The egress-rate program (supervisor/net/rate.c), attached and pinned into @dir with the rest. */
static int load_rate(struct wd_progs *progs, const char *dir)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", PIN_ROOT, dir);
	return wd_rate_load_pin(path, &progs->maps[WD_MAP_RATE]);
}

/*
 * Load the set and pin it as @name: into a directory of its own first, renamed into place
 * when complete, so a set directory found is always whole.
 */
static int load_and_pin(struct wd_progs *progs, int root, const char *name)
{
	char tmp[64];
	int err;

	/* (the BPF filesystem refuses names with a dot) */
	snprintf(tmp, sizeof(tmp), "%s_new", name);
	/* what a loader that died half-way left (under this lock, nobody is loading it now) */
	remove_set(root, tmp, NULL, NULL);
	/* the landlock set loads lightly, rate program and all; the LSM set in full */
	err = progs->set == WD_PROGS_SYSCALL_EXIT ? load_lite(progs, root, tmp) : -ENOTSUP;
	if (err) {
		err = load_full(progs, root, tmp);
		err = err ?: load_rate(progs, tmp);
	}
	/* the recorder set idles between runs: its programs pinned to be attached again */
	if (!err && progs->set == WD_PROGS_SYSCALL_EXIT)
		err = pin_programs(tmp);
	if (!err && renameat(root, tmp, root, name)) {
		err = -errno;
		log_warn("bpf: cannot rename %s/%s to %s", PIN_ROOT, tmp, name);
	}
	if (err)
		remove_set(root, tmp, NULL, NULL);
	/* pinned, the links stay attached when the objects' fds close */
	wd_progs_close_objects(progs);
	if (!err)
		log_info("bpf: loaded and pinned %s/%s", PIN_ROOT, name);
	return err;
}

static int open_pins(int *maps, enum wd_progs_set set, const char *name)
{
	char path[512];
	int err = 0;

	for (int i = 0; i < WD_MAP_NR && !err; i++) {
		if (!wd_set_has_map(set, i))
			continue;
		err = pin_path(path, sizeof(path), name, map_pin[i]);
		if (!err) {
			maps[i] = bpf_obj_get(path);
			err = maps[i] < 0 ? maps[i] : 0;
		}
		if (err)
			log_warnx("bpf: the pinned set %s/%s lacks %s: %s", PIN_ROOT, name,
				  map_pin[i], strerror(-err));
	}
	return err;
}

static void set_name(char *buf, size_t size, enum wd_progs_set set)
{
	snprintf(buf, size, "%s-%016" PRIx64, set == WD_PROGS_LSM ? "lsm" : "rec", set_hash(set));
}

int wd_pinset_enter(struct wd_progs *progs)
{
	int root, fd, err = 0;

	set_name(progs->set_name, sizeof(progs->set_name), progs->set);
	root = lock_root();
	if (root < 0)
		return errno == ENOTSUP ? -ENOTSUP : -errno;
	fd = openat(root, progs->set_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0 && is_idle(progs->set_name)) {
		/* nothing attached: a set only the recorder's loader leaves so (unpin_if_last) */
		err = progs->set == WD_PROGS_SYSCALL_EXIT ? wake_set(progs->set_name) : -EINVAL;
		if (err) {
			log_info("bpf: the idle set %s/%s cannot be woken: loading it afresh",
				 PIN_ROOT, progs->set_name);
			close(fd);
			fd = -1;
			remove_set(root, progs->set_name, NULL, NULL);
			err = 0;
		} else {
			log_debug("bpf: woke the idle set %s/%s", PIN_ROOT, progs->set_name);
		}
	}
	if (fd >= 0) {
		err = open_pins(progs->maps, progs->set, progs->set_name);
		if (!err)
			log_debug("bpf: using the pinned set %s/%s", PIN_ROOT, progs->set_name);
	} else {
		err = load_and_pin(progs, root, progs->set_name);
		fd = err ? -1
			 : openat(root, progs->set_name,
				  O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (!err && fd < 0)
			err = -errno;
	}
	/* a user while this lock is held: nobody can find the set unused in between */
	if (!err && flock(fd, LOCK_SH))
		err = -errno;
	if (err && fd >= 0)
		close(fd);
	if (!err) {
		progs->set_dir = fd;
		progs->pinned = true;
	}
	close(root);
	return err;
}

/*
 * Does the cgroup of id @id still exist? Asked of the cgroup2 mount by file handle (a cgroup's
 * id is its kernfs handle). Anything but a clear "gone" answers yes: never sweep on a guess.
 */
static bool cgroup_alive(int mnt, uint64_t id)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh = { .handle_bytes = sizeof(uint64_t), .handle_type = FILEID_KERNFS } };
	int fd;

	if (mnt < 0)
		return true;
	memcpy(h.fh.f_handle, &id, sizeof(id));
	fd = open_by_handle_at(mnt, &h.fh, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return true;
	}
	return errno != ESTALE && errno != ENOENT;
}

/* Every key of the map @fd (@ksz bytes each) for which @pick says yes, into a new array. */
static void *keys_of(int fd, size_t ksz, bool (*pick)(const void *key, uint64_t sandbox),
		     uint64_t sandbox, size_t *n)
{
	char *keys = NULL, *more, prev[sizeof(struct wd_path_key)], next[sizeof(prev)];
	bool first = true;

	*n = 0;
	while (ksz <= sizeof(prev) && !bpf_map_get_next_key(fd, first ? NULL : prev, next)) {
		first = false;
		memcpy(prev, next, ksz);
		if (!pick(next, sandbox))
			continue;
		more = realloc(keys, (*n + 1) * ksz);
		if (!more)
			break;
		keys = more;
		memcpy(keys + (*n)++ * ksz, next, ksz);
	}
	return keys;
}

static bool path_key_of(const void *key, uint64_t sandbox)
{
	const struct wd_path_key *k = key;

	return k->sandbox[0] == (uint32_t)sandbox && k->sandbox[1] == (uint32_t)(sandbox >> 32);
}

/* wd_net4 and wd_net6 keys start as wd_path_key does: prefix bits, then the sandbox. */
static bool net_key_of(const void *key, uint64_t sandbox)
{
	const struct wd_net4_key *k = key;

	return k->sandbox[0] == (uint32_t)sandbox && k->sandbox[1] == (uint32_t)(sandbox >> 32);
}

static bool inode_key_of(const void *key, uint64_t sandbox)
{
	return ((const struct wd_inode_key *)key)->sandbox == sandbox;
}

static void delete_keys(int fd, size_t ksz, bool (*pick)(const void *key, uint64_t sandbox),
			uint64_t sandbox)
{
	size_t n;
	char *keys = fd >= 0 ? keys_of(fd, ksz, pick, sandbox, &n) : NULL;

	for (size_t i = 0; keys && i < n; i++)
		bpf_map_delete_elem(fd, keys + i * ksz);
	free(keys);
}

void wd_pinset_purge(const int *maps, uint64_t sandbox)
{
	struct wd_sandbox sb;

	/*
	 * A ring of wardend's (top bit set) that a sandbox purged here used goes too: its
	 * supervisor died, so its wardend retired the ring (it reuses only a ring whose run
	 * ended in order), and the sandbox was its last reader.
	 */
	if (bpf_map_lookup_elem(maps[WD_MAP_SANDBOXES], &sandbox, &sb) == 0 &&
	    sb.ring != sandbox && (sb.ring >> 63))
		bpf_map_delete_elem(maps[WD_MAP_RINGS], &sb.ring);
	/* the entry that turns the programs on first, then what it turned on */
	bpf_map_delete_elem(maps[WD_MAP_SANDBOXES], &sandbox);
	bpf_map_delete_elem(maps[WD_MAP_RINGS], &sandbox);
	bpf_map_delete_elem(maps[WD_MAP_NETCFG], &sandbox);
	delete_keys(maps[WD_MAP_NET4], sizeof(struct wd_net4_key), net_key_of, sandbox);
	delete_keys(maps[WD_MAP_NET6], sizeof(struct wd_net6_key), net_key_of, sandbox);
	wd_rate_remove(maps[WD_MAP_RATE], sandbox);
	bpf_map_delete_elem(maps[WD_MAP_FORK], &sandbox);
	delete_keys(maps[WD_MAP_PATHS], sizeof(struct wd_path_key), path_key_of, sandbox);
	delete_keys(maps[WD_MAP_PROTECT], sizeof(struct wd_path_key), path_key_of, sandbox);
	delete_keys(maps[WD_MAP_INODES], sizeof(struct wd_inode_key), inode_key_of, sandbox);
}

static bool any_key(const void *key, uint64_t sandbox)
{
	(void)key;
	(void)sandbox;
	return true;
}

/*
 * With the root locked: is the set @name unused? Nobody holds it, and every sandbox left in it
 * is gone (its supervisor died with no keeper): those are swept. A sandbox whose cgroup lives
 * (a keeper holds it for `warden adopt`) keeps the set.
 */
static bool last_out(int root, const char *name, const int *maps)
{
	int fd = openat(root, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW), mnt = -1;
	char cg[4096];
	uint64_t *ids = NULL;
	size_t n = 0;
	bool alive = false;

	if (fd < 0)
		return false;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		return false;
	}
	if (wd_cgroup2_mount(cg, sizeof(cg)) == 0)
		mnt = open(cg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ids = keys_of(maps[WD_MAP_SANDBOXES], sizeof(uint64_t), any_key, 0, &n);
	for (size_t i = 0; i < n; i++) {
		if (cgroup_alive(mnt, ids[i])) {
			alive = true;
		} else {
			log_info("bpf: sandbox %" PRIu64 " is gone with no supervisor: its "
				 "entries are swept", ids[i]);
			wd_pinset_purge(maps, ids[i]);
		}
	}
	free(ids);
	if (mnt >= 0)
		close(mnt);
	close(fd);
	return !alive;
}

/*
 * An idled set's rings out of wd_rings, in a child of its own: every entry left when the set
 * went idle (this run's, and any a wardend killed by SIGKILL left), read here under the lock so
 * that a run waking the set next keeps its own. Each delete from a map of maps waits for an RCU
 * grace period (10-15 ms), and no record reaches these rings (the programs find a ring only
 * through a sandbox entry, and none is left). The child exits when done.
 */
static void rings_empty_in_background(int rings)
{
	size_t n;
	uint64_t *keys = keys_of(rings, sizeof(uint64_t), any_key, 0, &n);
	pid_t pid;

	if (!n) {
		free(keys);
		return;
	}
	pid = fork();
	if (pid == 0) {
		/*
		 * Nothing of the run's but the map: no reader of warden's output or terminal waits
		 * for this child (as release_in_background's in progs.c).
		 */
		int nul = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (nul >= 0 && dup2(nul, 0) == 0 && dup2(nul, 1) == 1 && dup2(nul, 2) == 2 &&
		    dup2(rings, 3) == 3 && !syscall(SYS_close_range, 4, ~0u, 0))
			rings = 3;
		for (size_t i = 0; i < n; i++)
			bpf_map_delete_elem(rings, &keys[i]);
		_exit(0);
	}
	if (pid < 0)
		for (size_t i = 0; i < n; i++)
			bpf_map_delete_elem(rings, &keys[i]);
	free(keys);
}

/*
 * With the root locked: if @name is unused, unpin it (the LSM set: the links' fds are taken
 * first, into @links, @n of them, so that their release, slow for LSM programs, happens
 * outside the lock), or idle it (the recorder set: detached here, programs kept).
 */
static bool unpin_if_last(int root, enum wd_progs_set set, const char *name, const int *maps,
			  int **links, size_t *n)
{
	if (!last_out(root, name, maps))
		return false;
	if (set == WD_PROGS_SYSCALL_EXIT) {
		idle_set(name);
		rings_empty_in_background(maps[WD_MAP_RINGS]);
		log_info("bpf: the last user of %s/%s is out: detached, idle", PIN_ROOT, name);
		return true;
	}
	remove_set(root, name, links, n);
	log_info("bpf: the last user of %s/%s is out: unpinned", PIN_ROOT, name);
	return true;
}

/* Release what unpin_if_last took, after the root is unlocked (nobody waits for a detach). */
static void release_links(enum wd_progs_set set, int *links, size_t n)
{
	if (set == WD_PROGS_LSM) {
		wd_progs_release_links(links, n);
	} else {
		for (size_t i = 0; i < n; i++)
			close(links[i]);
	}
	free(links);
}

void wd_pinset_drop_hold(struct wd_progs *progs)
{
	if (progs->set_dir >= 0 && !progs->holding)
		close(progs->set_dir);
	if (!progs->holding)
		progs->set_dir = -1;
}

void wd_pinset_leave(struct wd_progs *progs)
{
	int root = lock_root(), *links = NULL;
	size_t n = 0;

	/* no longer a holder: from here this run counts only by the sandboxes it left behind */
	if (progs->set_dir >= 0)
		close(progs->set_dir);
	progs->set_dir = -1;
	if (root < 0) {
		log_warn("bpf: cannot lock %s: the set stays pinned", PIN_ROOT);
		return;
	}
	/*
	 * This run's rings leave wd_rings here, not with their sandboxes: a set that goes takes
	 * them along, and each delete from a map of maps waits for an RCU grace period (10-15
	 * ms), the most of what an embedded run's end cost. No record reaches them meanwhile: the
	 * programs find a ring only through a sandbox entry, and this run's are gone.
	 */
	if (!unpin_if_last(root, progs->set, progs->set_name, progs->maps, &links, &n))
		wd_progs_rings_remove(progs);
	else
		progs->n_ring_ids = 0;
	close(root);
	release_links(progs->set, links, n);
}

int wd_progs_forget(enum wd_progs_set set, uint64_t sandbox)
{
	int maps[WD_MAP_NR], root, fd, err = 0, *links = NULL;
	char name[32];
	size_t n = 0;

	for (int i = 0; i < WD_MAP_NR; i++)
		maps[i] = -1;
	set_name(name, sizeof(name), set);
	root = lock_root();
	if (root < 0)
		return errno == ENOTSUP ? 0 : -errno;
	fd = openat(root, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0) {
		close(fd);
		err = open_pins(maps, set, name);
		if (!err) {
			wd_pinset_purge(maps, sandbox);
			unpin_if_last(root, set, name, maps, &links, &n);
		}
	}
	for (int i = 0; i < WD_MAP_NR; i++)
		if (maps[i] >= 0)
			close(maps[i]);
	close(root);
	release_links(set, links, n);
	return err;
}

int wd_progs_find_maps(enum wd_progs_set set, uint64_t sandbox, int *ring, int *counts)
{
	struct wd_sandbox sb;
	int maps[WD_MAP_NR], err;
	char name[32];
	__u32 id;

	*ring = -1;
	*counts = -1;
	for (int i = 0; i < WD_MAP_NR; i++)
		maps[i] = -1;
	set_name(name, sizeof(name), set);
	err = open_pins(maps, set, name);
	/* a user-space lookup of a map in a map gives the inner map's id */
	if (!err && bpf_map_lookup_elem(maps[WD_MAP_SANDBOXES], &sandbox, &sb) == 0 &&
	    bpf_map_lookup_elem(maps[WD_MAP_RINGS], &sb.ring, &id) == 0) {
		*ring = bpf_map_get_fd_by_id(id);
		if (*ring < 0)
			err = *ring;
	}
	if (!err) {
		*counts = maps[WD_MAP_SANDBOXES];
		maps[WD_MAP_SANDBOXES] = -1;
	}
	for (int i = 0; i < WD_MAP_NR; i++)
		if (maps[i] >= 0)
			close(maps[i]);
	return err;
}

int wd_progs_unload(FILE *out)
{
	int root = lock_root(), removed = 0;
	struct dirent *e;
	char **names = NULL, **more;
	size_t n = 0;
	DIR *dir;

	if (root < 0)
		return errno == ENOTSUP ? 0 : -errno;
	dir = opendir(PIN_ROOT);
	while (dir && (e = readdir(dir))) {
		if (e->d_name[0] == '.' || !(more = realloc(names, (n + 1) * sizeof(*names))))
			continue;
		names = more;
		names[n] = strdup(e->d_name);
		if (names[n])
			n++;
	}
	if (dir)
		closedir(dir);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);
		bool half = len > 4 && strcmp(names[i] + len - 4, "_new") == 0;
		int fd = openat(root, names[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);

		if (fd < 0)
			continue;
		/* a holder (a run, wardend) has it shared; attached programs: sandboxes may live */
		if (!half && (flock(fd, LOCK_EX | LOCK_NB) || !is_idle(names[i]))) {
			fprintf(out, "warden: %s/%s is in use: kept\n", PIN_ROOT, names[i]);
			close(fd);
			continue;
		}
		close(fd);
		remove_set(root, names[i], NULL, NULL);
		fprintf(out, "warden: unloaded %s/%s\n", PIN_ROOT, names[i]);
		removed++;
	}
	names_free(names, n);
	close(root);
	return removed;
}
