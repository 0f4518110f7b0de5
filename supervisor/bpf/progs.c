// SPDX-License-Identifier: GPL-2.0
/*
 * The loader of warden's BPF objects (supervisor/bpf/progs.h): the LSM object (bpf/wd_lsm.bpf.c)
 * for the bpf-lsm backend and the recorder object (bpf/wd_recorder.bpf.c) for both, each with
 * the programs its backend runs on this kernel; the maps they share created once; this run's
 * audit ring. Loaded once per host and pinned (supervisor/bpf/pinset.c); the per-sandbox map
 * entries are supervisor/bpf/maps.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "supervisor/backend/probe.h"
#include "supervisor/bpf/progs_int.h"
#include "supervisor/util/log.h"

/*
 * Index of the previous verdict among lsm/bpf's context arguments: the hook's own arguments come
 * first, and bpf_lsm_bpf has 3 on 6.1 and 4 (a `bool kernel`) on newer kernels.
 */
static int bpf_hook_ret_arg(__u32 *idx)
{
	int n = wd_probe_hook_args("bpf");

	if (n == -ENOENT)
		log_warnx("bpf: the kernel's BTF has no bpf_lsm_bpf prototype");
	if (n >= 0)
		*idx = n;
	return n < 0 ? n : 0;
}

/*
 * Programs for hooks that only some supported kernels have, or whose arguments changed: each
 * loads only where the kernel's hook has the arguments it was written for. A hook that is
 * missing is covered by another on that kernel (6.1 sends ftruncate and O_TRUNC to
 * path_truncate, and ACLs to the xattr hooks).
 */
static const struct {
	const char *prog;
	const char *hook;
	int args;
} wd_hook_variants[] = {
	{ "wd_file_truncate", "file_truncate", 1 },
	{ "wd_inode_set_acl", "inode_set_acl", 4 },
	{ "wd_inode_remove_acl", "inode_remove_acl", 3 },
	{ "wd_inode_setattr", "inode_setattr", 3 },
	{ "wd_inode_setattr_61", "inode_setattr", 2 },
};

uint64_t wd_progs_choice_hash(uint64_t h)
{
	for (size_t i = 0; i < sizeof(wd_hook_variants) / sizeof(wd_hook_variants[0]); i++) {
		const char *s[2] = { wd_hook_variants[i].prog, wd_hook_variants[i].hook };

		for (int k = 0; k < 2; k++)
			for (const char *c = s[k]; *c; c++)
				h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
		h = (h ^ (uint64_t)wd_hook_variants[i].args) * 0x100000001b3ull;
	}
	return h;
}

/*
 * The recorder object's programs for @set: all of them for the landlock backend; beside the LSM
 * object only sys_exit, in privileged-only mode (the seccomp filter's refusals of the privileged
 * syscalls, supervisor/backend/seccomp_guard.c, which no LSM hook sees).
 */
static void choose_recorders(struct wd_recorder_bpf *rec, enum wd_progs_set set)
{
	if (set != WD_PROGS_LSM)
		return;
	bpf_program__set_autoload(rec->progs.wd_sys_enter, false);
	bpf_program__set_autoload(rec->progs.wd_exec_done, false);
	rec->rodata->wd_sys_exit_privileged_only = true;
}

/* The LSM object's programs that fit this kernel's hooks (wd_hook_variants). */
static int choose_programs(struct bpf_object *obj)
{
	struct bpf_program *prog;
	int n_setattr, err = 0;

	/* the hook answers are the probe's (kept per boot): no BTF is parsed here on a warm cache */
	n_setattr = wd_probe_hook_args("inode_setattr");
	if (n_setattr < 0 && n_setattr != -ENOENT)
		return n_setattr;
	for (size_t i = 0; i < sizeof(wd_hook_variants) / sizeof(wd_hook_variants[0]); i++) {
		int n = wd_probe_hook_args(wd_hook_variants[i].hook);

		prog = bpf_object__find_program_by_name(obj, wd_hook_variants[i].prog);
		if (prog && n != wd_hook_variants[i].args)
			bpf_program__set_autoload(prog, false);
		if (prog && n >= 0 && n != wd_hook_variants[i].args)
			log_debug("bpf: %s has %d arguments here: %s stays unloaded",
				  wd_hook_variants[i].hook, n, wd_hook_variants[i].prog);
	}
	/* times are checked nowhere else: a setattr this build cannot read is no reason to guess */
	n_setattr = wd_probe_hook_args("inode_setattr");
	if (n_setattr != 2 && n_setattr != 3) {
		log_warnx("bpf: the kernel's inode_setattr hook has %d arguments, which this build "
			  "does not know: timestamps would go unchecked", n_setattr);
		err = -EOPNOTSUPP;
	}
	return err;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct wd_progs *progs = ctx;

	return progs->fn(progs->ctx, data, size);
}

/* The LSM object, its programs chosen for this kernel and lsm/bpf's verdict index set. */
static int open_lsm(struct wd_progs *progs)
{
	int err;

	progs->lsm = wd_lsm_bpf__open();
	if (!progs->lsm) {
		err = -errno;
		log_warnx("bpf: cannot open the LSM object: %s", strerror(-err));
		return err;
	}
	err = choose_programs(progs->lsm->obj);
	if (err) {
		log_warnx("bpf: cannot choose the LSM programs for this kernel: %s", strerror(-err));
		return err;
	}
	err = bpf_hook_ret_arg(&progs->lsm->rodata->wd_bpf_ret_arg);
	if (err)
		log_warnx("bpf: cannot tell the lsm/bpf hook's arguments: %s", strerror(-err));
	return err;
}

int wd_progs_open_objects(struct wd_progs *progs)
{
	int err = 0;

	if (progs->set == WD_PROGS_LSM)
		err = open_lsm(progs);
	if (!err) {
		progs->rec = wd_recorder_bpf__open();
		if (!progs->rec) {
			err = -errno;
			log_warnx("bpf: cannot open the recorder object: %s", strerror(-err));
		}
	}
	if (!err)
		choose_recorders(progs->rec, progs->set);
	return err;
}

static struct wd_progs *progs_new(enum wd_progs_set set)
{
	struct wd_progs *progs = calloc(1, sizeof(*progs));

	if (!progs)
		return NULL;
	progs->set = set;
	progs->set_dir = -1;
	progs->ring = -1;
	for (int i = 0; i < WD_MAP_NR; i++)
		progs->maps[i] = -1;
	return progs;
}

int wd_progs_open(struct wd_progs **out, enum wd_progs_set set)
{
	struct wd_progs *progs = progs_new(set);
	int err;

	*out = NULL;
	if (!progs)
		return -ENOMEM;
	err = wd_progs_open_objects(progs);
	if (err) {
		wd_progs_stop(progs);
		return err;
	}
	*out = progs;
	return 0;
}

struct bpf_object *wd_progs_object(const struct wd_progs *progs)
{
	return progs->lsm ? progs->lsm->obj : progs->rec->obj;
}

/*
 * The maps both objects declare (bpf/wd_maps.bpf.h) are the LSM object's, created when it
 * loaded: the recorder object takes their fds before it loads, so one sandbox table, one table
 * of rings and one lost counter serve both.
 */
static int share_maps(struct wd_progs *progs)
{
	struct {
		struct bpf_map *from, *to;
	} shared[] = {
		{ progs->lsm->maps.wd_sandboxes, progs->rec->maps.wd_sandboxes },
		{ progs->lsm->maps.wd_rings, progs->rec->maps.wd_rings },
		{ progs->lsm->maps.wd_lost, progs->rec->maps.wd_lost },
	};
	int err = 0;

	for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]) && !err; i++) {
		err = bpf_map__reuse_fd(shared[i].to, bpf_map__fd(shared[i].from));
		if (err)
			log_warnx("bpf: cannot share the map %s: %s", bpf_map__name(shared[i].to),
				  strerror(-err));
	}
	return err;
}

int wd_progs_load_attach(struct wd_progs *progs)
{
	int err = 0;

	if (progs->lsm) {
		err = wd_lsm_bpf__load(progs->lsm);
		if (err)
			log_warnx("bpf: cannot load the LSM programs: %s", strerror(-err));
		err = err ?: share_maps(progs);
	}
	if (!err) {
		err = wd_recorder_bpf__load(progs->rec);
		if (err)
			log_warnx("bpf: cannot load the recorder programs: %s", strerror(-err));
	}
	if (!err && progs->lsm) {
		err = wd_lsm_bpf__attach(progs->lsm);
		if (err)
			log_warnx("bpf: cannot attach the LSM programs: %s", strerror(-err));
	}
	if (!err) {
		err = wd_recorder_bpf__attach(progs->rec);
		if (err)
			log_warnx("bpf: cannot attach the recorder programs: %s", strerror(-err));
	}
	if (!err) {
		struct wd_net_shared sh = {
			.sandboxes = bpf_map__fd(progs->rec->maps.wd_sandboxes),
			.rings = bpf_map__fd(progs->rec->maps.wd_rings),
			.lost = bpf_map__fd(progs->rec->maps.wd_lost),
			.marks = bpf_map__fd(progs->rec->maps.wd_net_marks),
		};

		err = wd_net_load(&progs->net, &sh);
	}
	return err;
}

int wd_progs_take_maps(struct wd_progs *progs)
{
	struct bpf_map *m[WD_MAP_NR] = {
		[WD_MAP_SANDBOXES] = progs->rec->maps.wd_sandboxes,
		[WD_MAP_RINGS] = progs->rec->maps.wd_rings,
	};
	int err = 0;

	if (progs->lsm) {
		m[WD_MAP_PATHS] = progs->lsm->maps.wd_paths;
		m[WD_MAP_INODES] = progs->lsm->maps.wd_inodes;
		m[WD_MAP_PROTECT] = progs->lsm->maps.wd_protect;
		m[WD_MAP_FORK] = progs->lsm->maps.wd_fork;
	}
	if (progs->net)
		err = wd_net_take_maps(progs->net, &progs->maps[WD_MAP_NET4]);
	for (int i = 0; i < WD_MAP_NET4 && !err; i++) {
		if (!m[i])
			continue;
		progs->maps[i] = fcntl(bpf_map__fd(m[i]), F_DUPFD_CLOEXEC, 3);
		if (progs->maps[i] < 0)
			err = -errno;
	}
	return err;
}

void wd_progs_close_objects(struct wd_progs *progs)
{
	wd_net_destroy(progs->net);
	wd_recorder_bpf__destroy(progs->rec);
	wd_lsm_bpf__destroy(progs->lsm);
	progs->net = NULL;
	progs->rec = NULL;
	progs->lsm = NULL;
}

/* A set of this run's own, not pinned: where there is no BPF filesystem to pin in. */
static int load_private(struct wd_progs *progs)
{
	int err = wd_progs_open_objects(progs);

	err = err ?: wd_progs_load_attach(progs);
	return err ?: wd_progs_take_maps(progs);
}

static struct {
	int fd;
	uint64_t key;
} ring_given = { .fd = -1 };

void wd_progs_ring_give(int fd, uint64_t key)
{
	ring_given.fd = fd;
	ring_given.key = key;
}

int wd_progs_ring_make(struct wd_progs *progs, size_t bytes, int *fd, uint64_t *key)
{
	__u32 inner;
	int err;

	*fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "wd_ring", 0, 0, (__u32)bytes, NULL);
	if (*fd < 0) {
		log_warnx("bpf: cannot make an audit ring of %zu bytes: %s", bytes, strerror(-*fd));
		return *fd;
	}
	if (getrandom(key, sizeof(*key), 0) != sizeof(*key)) {
		err = -errno;
		goto fail;
	}
	*key |= 1ull << 63;
	inner = (__u32)*fd;
	err = bpf_map_update_elem(progs->maps[WD_MAP_RINGS], key, &inner, BPF_NOEXIST);
	if (!err)
		return 0;
fail:
	log_warnx("bpf: cannot put a ring in wd_rings: %s", strerror(-err));
	close(*fd);
	*fd = -1;
	return err;
}

void wd_progs_ring_unmake(struct wd_progs *progs, int fd, uint64_t key)
{
	if (progs && progs->maps[WD_MAP_RINGS] >= 0)
		bpf_map_delete_elem(progs->maps[WD_MAP_RINGS], &key);
	close(fd);
}

/* This run's ring, read into @fn: the set's programs find it through wd_rings. */
static int make_ring(struct wd_progs *progs, size_t bytes)
{
	int err;

	if (ring_given.fd >= 0) {
		/* wardend's, in wd_rings already: taken over, once */
		progs->ring = ring_given.fd;
		progs->ring_key = ring_given.key;
		ring_given.fd = -1;
	} else {
		progs->ring = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "wd_ring", 0, 0, (__u32)bytes,
					     NULL);
	}
	if (progs->ring < 0) {
		err = progs->ring;
		log_warnx("bpf: cannot make an audit ring of %zu bytes: %s", bytes, strerror(-err));
		return err;
	}
	progs->rb = ring_buffer__new(progs->ring, on_record, progs, NULL);
	if (!progs->rb) {
		err = -errno;
		log_warnx("bpf: cannot open the audit ring buffer: %s", strerror(-err));
		return err;
	}
	return 0;
}

int wd_progs_start_ring(struct wd_progs **out, enum wd_progs_set set, wd_record_fn fn, void *ctx,
			size_t ring_bytes)
{
	struct wd_progs *progs = progs_new(set);
	int err;

	*out = NULL;
	if (!progs)
		return -ENOMEM;
	progs->fn = fn;
	progs->ctx = ctx;
	err = wd_pinset_enter(progs);
	if (err == -ENOTSUP) {
		log_info("bpf: no BPF filesystem to pin in: this run loads a set of its own");
		err = load_private(progs);
	}
	if (!err && ring_bytes)
		err = make_ring(progs, ring_bytes);
	if (err) {
		wd_progs_stop(progs);
		return err;
	}
	*out = progs;
	return 0;
}

static size_t ring_default = WD_PROGS_RING_BYTES;

void wd_progs_ring_default(size_t ring_bytes)
{
	ring_default = ring_bytes;
}

int wd_progs_start(struct wd_progs **out, enum wd_progs_set set, wd_record_fn fn, void *ctx)
{
	return wd_progs_start_ring(out, set, fn, ctx, ring_default);
}

enum wd_progs_set wd_progs_set_of(const char *backend)
{
	return strcmp(backend, "bpf-lsm") == 0 ? WD_PROGS_LSM : WD_PROGS_SYSCALL_EXIT;
}

int wd_progs_hold(struct wd_progs **out, enum wd_progs_set set)
{
	int err = wd_progs_start_ring(out, set, NULL, NULL, 0);

	if (!err)
		(*out)->holding = true;
	return err;
}

/*
 * Detaching an LSM program costs the kernel a trampoline update each, which on the test VM's
 * emulated CPUs took 3.5 s for the whole set. A child holding copies of the link fds releases
 * them after warden has gone, so a command's end is not held up by it; until then the programs
 * return at once for every task, since no sandbox entry is left. The child holds warden's other
 * fds too until it exits, but not its standard streams (so no reader of warden's output waits
 * for it); if there is no child the release happens here.
 */
static int release_in_background(void)
{
	int gone[2], nul;
	char c;
	pid_t pid;

	if (pipe2(gone, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(gone[0]);
		close(gone[1]);
		return -1;
	}
	if (pid > 0) {
		close(gone[0]);
		return gone[1];
	}
	close(gone[1]);
	nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (nul >= 0) {
		dup2(nul, 0);
		dup2(nul, 1);
		dup2(nul, 2);
	}
	/* the last copies of the fds must be ours: wait until warden has closed its own */
	while (read(gone[0], &c, 1) < 0 && errno == EINTR)
		;
	/* exiting closes the inherited program and link fds: the slow part happens here */
	_exit(0);
}

void wd_progs_release_links(int *links, size_t n)
{
	int gone = n ? release_in_background() : -1;

	for (size_t i = 0; i < n; i++)
		close(links[i]);
	if (gone >= 0)
		close(gone);
}

void wd_progs_stop(struct wd_progs *progs)
{
	int gone = -1;

	if (!progs)
		return;
	ring_buffer__free(progs->rb);
	if (progs->ring >= 0)
		close(progs->ring);
	if (progs->pinned)
		wd_pinset_leave(progs);
	/* a private set that was loaded holds attached programs; one only opened, none */
	if (progs->set == WD_PROGS_LSM && progs->maps[WD_MAP_SANDBOXES] >= 0 && progs->lsm)
		gone = release_in_background();
	wd_progs_close_objects(progs);
	for (int i = 0; i < WD_MAP_NR; i++)
		if (progs->maps[i] >= 0)
			close(progs->maps[i]);
	if (gone >= 0)
		close(gone);
	free(progs->ring_ids);
	free(progs->inodes);
	free(progs->denies);
	free(progs->protects);
	free(progs);
}

void wd_progs_forsake(struct wd_progs *progs)
{
	if (!progs)
		return;
	/* closing a copy of the directory's fd leaves the parent's flock in place */
	if (progs->set_dir >= 0)
		close(progs->set_dir);
	progs->set_dir = -1;
	progs->pinned = false;
	wd_progs_stop(progs);
}

int wd_progs_event_fd(const struct wd_progs *progs)
{
	return progs->rb ? ring_buffer__epoll_fd(progs->rb) : -1;
}

void wd_progs_audit_maps(const struct wd_progs *progs, int *events, int *counts)
{
	*events = progs->ring;
	*counts = progs->maps[WD_MAP_SANDBOXES];
}

int wd_progs_consume(struct wd_progs *progs)
{
	int n = progs->rb ? ring_buffer__consume(progs->rb) : 0;

	return n < 0 ? n : 0;
}
