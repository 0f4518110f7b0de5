// SPDX-License-Identifier: GPL-2.0
/*
 * Backend room: the landlock backend, for hosts where BPF-LSM programs cannot load. In the child,
 * before exec: a private mount namespace whose writable trees are mounted noexec (so ld.so and
 * mmap loaders cannot run what the sandbox wrote), a new pid namespace with its own /proc and
 * vm.memfd_noexec=2 (so memfds cannot be executed), then a Landlock ruleset from fs.read / write /
 * exec and a seccomp filter for self-protection. Denials are recorded by the syscall-exit
 * program of bpf/wd_recorder.bpf.c, since Landlock decides where BPF cannot look.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bpf/wd_abi.h"
#include "policy/path.h"
#include "supervisor/backend/backend.h"
#include "supervisor/backend/carve.h"
#include "supervisor/util/fsutil.h"
#include "supervisor/backend/landlock_ruleset.h"
#include "supervisor/util/log.h"
#include "supervisor/backend/probe.h"
#include "supervisor/backend/seccomp_guard.h"
#include "supervisor/sandbox/setup.h"

struct wd_backend {
	struct wd_backend_base base; /* first: the shared ops reach the programs through it */
	/* The Landlock rules: the policy's allow sets with fs.deny carved out. */
	struct wd_carve_rule *rules;
	size_t n_rules;
	struct wd_landlock_plan ll;
	struct wd_seccomp_plan sc;
	bool memfd_noexec;
	/* Writable trees, remounted noexec; exec trees inside them, remounted exec again. */
	const char **noexec;
	size_t n_noexec;
	const char **exec;
	size_t n_exec;
	/* exec.deny objects, bound onto themselves noexec (the ruleset's strings) */
	const char **exec_deny;
	size_t n_exec_deny;
	char detail[160];
};

static bool ll_supported(char *why, size_t whysz)
{
	char btf_why[256];

	if (!wd_landlock_supported(why, whysz))
		return false;
	if (!wd_btf_supported(btf_why, sizeof(btf_why))) {
		snprintf(why, whysz, "%s: the audit recorder needs CONFIG_DEBUG_INFO_BTF", btf_why);
		return false;
	}
	return true;
}

static int ll_start(struct wd_backend **out, wd_record_fn fn, void *ctx)
{
	struct wd_backend *b = calloc(1, sizeof(*b));
	int err;

	if (!b)
		return -ENOMEM;
	b->ll.ruleset_fd = -1;
	err = wd_progs_start(&b->base.progs, WD_PROGS_SYSCALL_EXIT, fn, ctx);
	if (err) {
		free(b);
		return err;
	}
	b->memfd_noexec = wd_memfd_noexec_supported(NULL, 0);
	*out = b;
	return 0;
}

static void ll_stop(struct wd_backend *b)
{
	if (!b)
		return;
	wd_progs_stop(b->base.progs);
	wd_landlock_release(&b->ll);
	wd_carve_free(b->rules, b->n_rules);
	free(b->noexec);
	free(b->exec);
	free(b->exec_deny);
	free(b);
}

/* fs.protect taken out of the rules where Landlock can say it exactly (carve.h). */
static int protect_rules(struct wd_backend *b, const struct wd_policy *p)
{
	char **trees = calloc(p->n_fs_protect + 1, sizeof(*trees));
	unsigned int *ops = calloc(p->n_fs_protect + 1, sizeof(*ops));
	size_t carved;

	if (!trees || !ops) {
		free(trees);
		free(ops);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->n_fs_protect; i++) {
		trees[i] = p->fs_protect[i].path;
		ops[i] = p->fs_protect[i].ops;
	}
	carved = wd_carve_protect(b->rules, b->n_rules, trees, ops, p->n_fs_protect);
	if (carved < p->n_fs_protect)
		log_debug("landlock: %zu of %zu fs.protect trees lie inside a writable tree: only "
			  "the waiting room decides there", p->n_fs_protect - carved,
			  p->n_fs_protect);
	free(trees);
	free(ops);
	return 0;
}

/* @n rules of @rules appended to the backend's (taken over: @rules is freed). */
static int rules_append(struct wd_backend *b, struct wd_carve_rule *rules, size_t n)
{
	struct wd_carve_rule *all = realloc(b->rules, (b->n_rules + n + 1) * sizeof(*all));

	if (!all) {
		wd_carve_free(rules, n);
		return -ENOMEM;
	}
	memcpy(all + b->n_rules, rules, n * sizeof(*rules));
	free(rules);
	b->rules = all;
	b->n_rules += n;
	return 0;
}

/* The exec.deny paths that decide by path alone (argument patterns are the waiting room's). */
static char **exec_deny_paths(const struct wd_ruleset *rs, const struct wd_policy *p, size_t *n)
{
	char **v = calloc(p->fs_deny.n + rs->n_exec + 1, sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < p->fs_deny.n; i++)
		v[(*n)++] = p->fs_deny.paths[i];
	for (size_t i = 0; i < rs->n_exec; i++)
		if (rs->exec[i].action == WD_ACTION_DENY && !rs->exec[i].has_argv)
			v[(*n)++] = rs->exec[i].path;
	return v;
}

/*
 * The allow sets as rules, with what fs.deny takes away carved out of them, and what exec.deny
 * takes away carved out of fs.exec's EXECUTE: the read and write sets and the exec set are
 * carved apart (Landlock adds the rights of every rule on a path), so a denied program stays
 * readable where fs.read says so.
 */
static int plan_rules(struct wd_backend *b, const struct wd_policy *p, const struct wd_ruleset *rs)
{
	const struct {
		const struct wd_path_list *list;
		uint32_t access;
	} sets[] = {
		{ &p->fs_read, WD_ACC_READ },
		{ &p->fs_write, WD_ACC_READ | WD_ACC_WRITE },
		{ &p->fs_exec, WD_ACC_EXEC },
	};
	struct wd_carve_rule *allow, *out = NULL;
	char **deny = NULL;
	size_t n = 0, n_rw, n_deny = 0, n_out = 0, total = 0;
	char why[512];
	int err;

	for (size_t s = 0; s < sizeof(sets) / sizeof(sets[0]); s++)
		total += sets[s].list->n;
	allow = calloc(total + 1, sizeof(*allow));
	if (!allow)
		return -ENOMEM;
	n_rw = p->fs_read.n + p->fs_write.n;
	for (size_t s = 0; s < sizeof(sets) / sizeof(sets[0]); s++) {
		for (size_t i = 0; i < sets[s].list->n; i++) {
			bool again = false;

			/* resolved, /bin and /usr/bin are one tree: carve it once */
			for (size_t k = n_rw; n >= n_rw && k < n && !again; k++)
				again = strcmp(allow[k].path, sets[s].list->paths[i]) == 0;
			if (again)
				continue;
			allow[n].path = sets[s].list->paths[i];
			allow[n].access = sets[s].access;
			n++;
		}
	}
	err = wd_carve(allow, n_rw, p->fs_deny.paths, p->fs_deny.n, &wd_carve_real_fs, &out,
		       &n_out, why, sizeof(why));
	if (err == -EINVAL)
		log_warnx("landlock: fs.deny cannot be expressed with Landlock: %s", why);
	err = err ?: rules_append(b, out, n_out);
	deny = err ? NULL : exec_deny_paths(rs, p, &n_deny);
	if (!err && !deny)
		err = -ENOMEM;
	/* a denied program that is not there is carved around too: what appears later stays
	 * unexecutable */
	if (!err)
		err = wd_carve_missing(allow + n_rw, n - n_rw, deny, n_deny, true,
				       &wd_carve_real_fs, &out, &n_out, why, sizeof(why));
	if (err == -EINVAL)
		log_warnx("landlock: fs.deny and exec.deny cannot be expressed in fs.exec with "
			  "Landlock: %s", why);
	if (!err && deny)
		err = rules_append(b, out, n_out);
	free(deny);
	free(allow);
	if (!err)
		err = protect_rules(b, p);
	return err;
}

/*
 * exec.deny objects that exist are also bound onto themselves noexec in the sandbox's mount
 * namespace: Landlock's EXECUTE is asked for at execve and for the ELF interpreter, never for an
 * executable mapping, so `ld.so PROGRAM` would load a readable denied program; a noexec mount
 * refuses the mapping (EPERM) as well as the exec (EACCES).
 */
static int plan_exec_denies(struct wd_backend *b, const struct wd_ruleset *rs)
{
	b->exec_deny = calloc(rs->n_exec + 1, sizeof(char *));
	if (!b->exec_deny)
		return -ENOMEM;
	for (size_t i = 0; i < rs->n_exec; i++) {
		const struct wd_rs_exec *x = &rs->exec[i];

		if (x->action == WD_ACTION_DENY && !x->has_argv && access(x->path, F_OK) == 0)
			b->exec_deny[b->n_exec_deny++] = x->path;
	}
	return 0;
}

static int ll_sandbox_add(struct wd_backend *b, uint64_t cgid, const struct wd_policy *p,
			  const struct wd_ruleset *rs)
{
	unsigned int flags = 0;
	int err;

	if (rs->sandbox_flags & WD_SB_AUDIT_MODE) {
		/* Landlock can only deny: "allow but record" would be a silent fail-open. */
		log_warnx("landlock: audit mode needs the bpf-lsm backend (Landlock cannot allow and "
			  "record what it would deny)");
		return -EOPNOTSUPP;
	}
	err = plan_rules(b, p, rs);
	err = err ?: plan_exec_denies(b, rs);
	if (err)
		return err;
	b->noexec = calloc(p->fs_write.n + 1, sizeof(char *));
	b->exec = calloc(p->fs_exec.n + 1, sizeof(char *));
	if (!b->noexec || !b->exec)
		return -ENOMEM;
	for (size_t i = 0; i < p->fs_write.n; i++)
		if (access(p->fs_write.paths[i], F_OK) == 0)
			b->noexec[b->n_noexec++] = p->fs_write.paths[i];
	for (size_t i = 0; i < p->fs_exec.n; i++) {
		for (size_t w = 0; w < b->n_noexec; w++) {
			if (wd_path_within(p->fs_exec.paths[i], b->noexec[w]) &&
			    access(p->fs_exec.paths[i], F_OK) == 0) {
				b->exec[b->n_exec++] = p->fs_exec.paths[i];
				break;
			}
		}
	}
	if (!b->memfd_noexec)
		flags |= WD_SECCOMP_DENY_MEMFD;
	err = wd_seccomp_prepare(&b->sc, flags);
	if (err) {
		log_warnx("landlock: the seccomp filter does not fit: %s", strerror(-err));
		return err;
	}
	snprintf(b->detail, sizeof(b->detail), "Landlock ABI %d, %s, seccomp self-protection",
		 wd_landlock_abi(), b->memfd_noexec ? "vm.memfd_noexec=2" : "memfd_create refused");
	return wd_progs_sandbox_add(b->base.progs, cgid, rs);
}

static uint64_t ll_clone_flags(const struct wd_backend *b)
{
	(void)b;
	return CLONE_NEWNS | CLONE_NEWPID;
}

/*
 * In the child: async-signal-safe calls only. The mount and pid namespaces are already set up
 * (supervisor/sandbox/setup.c: propagation private, the policy's binds and /tmp, its own /proc).
 */
static int ll_child_setup(struct wd_backend *b)
{
	int err;

	/* set once in the sandbox's mount namespace: never again through paths it has changed */
	for (size_t i = 0; !wd_landlock_paths_are_strict() && i < b->n_noexec; i++) {
		/*
		 * Not nodev: a writable /dev/null must still open, and Landlock never lets the
		 * sandbox make a device node (MAKE_CHAR and MAKE_BLOCK are in no allow set).
		 */
		err = wd_mount_attr(b->noexec[i], MOUNT_ATTR_NOEXEC | MOUNT_ATTR_NOSUID, 0);
		if (err)
			return err;
	}
	for (size_t i = 0; !wd_landlock_paths_are_strict() && i < b->n_exec; i++) {
		err = wd_mount_attr(b->exec[i], 0, MOUNT_ATTR_NOEXEC);
		if (err)
			return err;
	}
	/* after the exec trees: a denied program inside one stays noexec */
	for (size_t i = 0; !wd_landlock_paths_are_strict() && i < b->n_exec_deny; i++) {
		err = wd_mount_attr(b->exec_deny[i], MOUNT_ATTR_NOEXEC | MOUNT_ATTR_NOSUID, 0);
		if (err)
			return err;
	}
	if (b->memfd_noexec) {
		/* Per pid namespace: the host's own setting is untouched. */
		err = wd_write_at(AT_FDCWD, WD_MEMFD_NOEXEC_SYSCTL, "2");
		if (err)
			return err;
	}
	err = wd_landlock_build(b->rules, b->n_rules, &b->ll);
	if (err)
		return err;
	err = wd_landlock_enforce(&b->ll);
	if (err)
		return err;
	return wd_seccomp_install(&b->sc);
}

static const char *ll_detail(const struct wd_backend *b)
{
	return b->detail;
}

const struct wd_backend_ops wd_backend_landlock = {
	.name = "landlock",
	.column = WD_COLUMN_LANDLOCK,
	.features = WD_BACKEND_FEATURES,
	/* Landlock answers a denied access EACCES */
	.deny_errno = EACCES,
	.supported = ll_supported,
	.start = ll_start,
	.stop = ll_stop,
	.sandbox_add = ll_sandbox_add,
	.clone_flags = ll_clone_flags,
	.child_setup = ll_child_setup,
	WD_BACKEND_BASE_OPS,
	.detail = ll_detail,
};
