// SPDX-License-Identifier: GPL-2.0
/* The bpf-lsm backend: BPF-LSM programs decide every open and exec of a sandboxed task. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/backend/backend.h"
#include "supervisor/util/log.h"
#include "supervisor/backend/probe.h"
#include "supervisor/backend/seccomp_guard.h"

struct wd_backend {
	struct wd_progs *progs;
	/* the privileged syscalls, refused as on the landlock backend (bpf/wd_syscalls.h) */
	struct wd_seccomp_plan sc;
};

static int bl_start(struct wd_backend **out, wd_record_fn fn, void *ctx)
{
	struct wd_backend *b = calloc(1, sizeof(*b));
	int err;

	if (!b)
		return -ENOMEM;
	err = wd_progs_start(&b->progs, WD_PROGS_LSM, fn, ctx);
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
	wd_progs_stop(b->progs);
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
	return wd_progs_sandbox_add(b->progs, cgid, rs);
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

static int bl_sandbox_remove(struct wd_backend *b, uint64_t cgid, const struct wd_ruleset *rs,
			     struct wd_sandbox *final)
{
	return wd_progs_sandbox_remove(b->progs, cgid, rs, final);
}

static int bl_event_fd(const struct wd_backend *b)
{
	return wd_progs_event_fd(b->progs);
}

static void bl_audit_maps(const struct wd_backend *b, int *events, int *counts)
{
	wd_progs_audit_maps(b->progs, events, counts);
}

static int bl_consume(struct wd_backend *b)
{
	return wd_progs_consume(b->progs);
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
	/* holds: the waiting room (supervisor/hold/engine.c) works under either backend */
	.features = WD_FEAT_FS | WD_FEAT_MODE | WD_FEAT_FS_DENY | WD_FEAT_FS_PROTECT |
		    WD_FEAT_HOLD | WD_FEAT_EXEC_HOLD | WD_FEAT_ENV | WD_FEAT_USER |
		    WD_FEAT_NAMESPACES | WD_FEAT_HOLD_APPROVERS,
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
	.sandbox_remove = bl_sandbox_remove,
	.event_fd = bl_event_fd,
	.audit_maps = bl_audit_maps,
	.consume = bl_consume,
	.detail = bl_detail,
};
