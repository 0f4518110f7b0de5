// SPDX-License-Identifier: GPL-2.0
/*
 * The loader of warden's BPF objects (supervisor/bpf/progs.h): the LSM object (bpf/wd_lsm.bpf.c)
 * for the bpf-lsm backend and the recorder object (bpf/wd_recorder.bpf.c) for both, each with
 * the programs its backend runs on this kernel; the maps they share created once; the audit ring
 * buffer. The per-sandbox map entries are supervisor/bpf/maps.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
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

int wd_progs_open(struct wd_progs **out, enum wd_progs_set set)
{
	struct wd_progs *progs;
	int err = 0;

	*out = NULL;
	progs = calloc(1, sizeof(*progs));
	if (!progs)
		return -ENOMEM;
	progs->set = set;
	if (set == WD_PROGS_LSM)
		err = open_lsm(progs);
	if (!err) {
		progs->rec = wd_recorder_bpf__open();
		if (!progs->rec) {
			err = -errno;
			log_warnx("bpf: cannot open the recorder object: %s", strerror(-err));
		}
	}
	if (err) {
		wd_progs_stop(progs);
		return err;
	}
	choose_recorders(progs->rec, set);
	*out = progs;
	return 0;
}

struct bpf_object *wd_progs_object(const struct wd_progs *progs)
{
	return progs->lsm ? progs->lsm->obj : progs->rec->obj;
}

/*
 * The maps both objects declare (bpf/wd_maps.bpf.h) are the LSM object's, created when it
 * loaded: the recorder object takes their fds before it loads, so one sandbox table, one ring
 * buffer and one lost counter serve both.
 */
static int share_maps(struct wd_progs *progs)
{
	struct {
		struct bpf_map *from, *to;
	} shared[] = {
		{ progs->lsm->maps.wd_sandboxes, progs->rec->maps.wd_sandboxes },
		{ progs->lsm->maps.wd_events, progs->rec->maps.wd_events },
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

/* Load and attach the LSM object (if any), then the recorder object on its maps. */
static int load_attach(struct wd_progs *progs)
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
	return err;
}

int wd_progs_start(struct wd_progs **out, enum wd_progs_set set, wd_record_fn fn, void *ctx)
{
	struct wd_progs *progs;
	int err;

	*out = NULL;
	err = wd_progs_open(&progs, set);
	if (err)
		return err;
	progs->fn = fn;
	progs->ctx = ctx;
	err = load_attach(progs);
	if (err)
		goto out_stop;
	progs->rb = ring_buffer__new(bpf_map__fd(progs->rec->maps.wd_events), on_record, progs, NULL);
	if (!progs->rb) {
		err = -errno;
		log_warnx("bpf: cannot open the audit ring buffer: %s", strerror(-err));
		goto out_stop;
	}
	*out = progs;
	return 0;

out_stop:
	wd_progs_stop(progs);
	return err;
}

/*
 * Detaching an LSM program costs the kernel a trampoline update each, which on the test VM's
 * emulated CPUs took 3.5 s for the whole set at every run's end. A child holding copies of the
 * fds releases them after warden has gone, so a command's end is not held up by it; until then
 * the programs return at once for every task, since this run's sandbox entries are gone. The
 * child holds warden's other fds too until it exits, but not its standard streams (so no reader
 * of warden's output waits for it); if there is no child the release happens here.
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

void wd_progs_stop(struct wd_progs *progs)
{
	bool started;
	int gone = -1;

	if (!progs)
		return;
	/* a run that started (it has a ring buffer) holds attached programs; one only opened, none */
	started = progs->rb != NULL;
	ring_buffer__free(progs->rb);
	if (progs->set == WD_PROGS_LSM && started)
		gone = release_in_background();
	wd_recorder_bpf__destroy(progs->rec);
	wd_lsm_bpf__destroy(progs->lsm);
	if (gone >= 0)
		close(gone);
	free(progs->inodes);
	free(progs->denies);
	free(progs->protects);
	free(progs);
}

int wd_progs_event_fd(const struct wd_progs *progs)
{
	return ring_buffer__epoll_fd(progs->rb);
}

void wd_progs_audit_maps(const struct wd_progs *progs, int *events, int *counts)
{
	*events = bpf_map__fd(progs->rec->maps.wd_events);
	*counts = bpf_map__fd(progs->rec->maps.wd_sandboxes);
}

int wd_progs_consume(struct wd_progs *progs)
{
	int n = ring_buffer__consume(progs->rb);

	return n < 0 ? n : 0;
}
