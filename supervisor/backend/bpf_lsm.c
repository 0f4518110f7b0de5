// SPDX-License-Identifier: GPL-2.0
/*
 * Backend room: the bpf-lsm backend. BPF-LSM programs (bpf/wd_lsm.bpf.c, loaded by
 * supervisor/bpf/progs.c) decide every open and exec of a sandboxed task; a seccomp filter
 * refuses the privileged syscalls as on the landlock backend.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/backend/backend.h"
#include "supervisor/util/log.h"
#include "supervisor/backend/probe.h"
#include "supervisor/backend/seccomp_guard.h"

struct wd_backend {
	struct wd_backend_base base; /* first: the shared ops reach the programs through it */
	/* the privileged syscalls, refused as on the landlock backend (bpf/wd_syscalls.h) */
	struct wd_seccomp_plan sc;
};

static int bl_start(struct wd_backend **out, wd_record_fn fn, void *ctx)
{
	struct wd_backend *b = calloc(1, sizeof(*b));
	int err;

	if (!b)
		return -ENOMEM;
	err = wd_progs_start(&b->base.progs, WD_PROGS_LSM, fn, ctx);
	/* the programs are chosen: nothing reads the kernel's BTF after this */
	wd_vmlinux_btf_release();
	if (err) {
		free(b);
		return err;
	}
	*out = b;
	return 0;
}

static void bl_stop(struct wd_backend *b)
{
	if (!b)
		return;
	wd_progs_stop(b->base.progs);
	free(b);
}

static int bl_sandbox_add(struct wd_backend *b, uint64_t cgid, const struct wd_policy *p,
			  const struct wd_ruleset *rs)
{
	int err;

	(void)p;
	err = wd_seccomp_prepare(&b->sc, WD_SECCOMP_PRIVILEGED_ONLY);
	if (err) {
		log_warnx("bpf-lsm: the seccomp filter does not fit: %s", strerror(-err));
		return err;
	}
	return wd_progs_sandbox_add(b->base.progs, cgid, rs);
}

static uint64_t bl_clone_flags(const struct wd_backend *b)
{
	(void)b;
	return 0;
}

/* In the child (no_new_privs set): the same refusals as the landlock backend's second line. */
static int bl_child_setup(struct wd_backend *b)
{
	return wd_seccomp_install(&b->sc);
}

static const char *bl_detail(const struct wd_backend *b)
{
	(void)b;
	return "BPF-LSM programs: file_open, bprm_check_security, mmap_file, file_mprotect, "
	       "path hooks (fs.protect too), setattr and xattr hooks, self-protection; "
	       "seccomp: privileged syscalls";
}

const struct wd_backend_ops wd_backend_bpf_lsm = {
	.name = "bpf-lsm",
	.column = WD_COLUMN_BPF_LSM,
	.features = WD_BACKEND_FEATURES | WD_FEAT_FORK_RATE | WD_FEAT_EXEC_ALLOW,
	/* sb_mount and the rest refuse every mount from inside, warden's own set-up included */
	.refuses_mounts = true,
	/* the LSM hooks answer -EPERM */
	.deny_errno = EPERM,
	.supported = wd_bpf_lsm_supported,
	.start = bl_start,
	.stop = bl_stop,
	.sandbox_add = bl_sandbox_add,
	.clone_flags = bl_clone_flags,
	.child_setup = bl_child_setup,
	WD_BACKEND_BASE_OPS,
	.detail = bl_detail,
};
