// SPDX-License-Identifier: GPL-2.0
/*
 * Backend room: the landlock backend's ruleset (landlock_ruleset.h): the rights each Landlock
 * ABI knows, rules added in the child, then the ruleset enforced on it.
 */
#include <errno.h>
#include <linux/openat2.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bpf/wd_abi.h"
#include "policy/policy.h"
#include "supervisor/backend/landlock_ruleset.h"
#include "supervisor/backend/probe.h"

#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13) /* ABI 2 */
#endif
#define WD_LL_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#define WD_LL_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define WD_LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define WD_LL_SCOPE_SIGNAL (1ULL << 1) /* ABI 6 */
#define WD_LL_RESTRICT_SELF_LOG_NEW_EXEC_ON (1U << 1) /* ABI 7 */

/* struct landlock_ruleset_attr as of ABI 6; older kernels accept it while the tail is zero. */
struct wd_ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

#define LL_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
/* Device nodes are never made: MAKE_CHAR and MAKE_BLOCK are not in any allow set. */
#define LL_WRITE                                                                              \
	(LL_READ | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |            \
	 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_DIR |                       \
	 LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |                         \
	 LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REFER | \
	 WD_LL_FS_TRUNCATE | WD_LL_FS_IOCTL_DEV)
#define LL_EXEC LANDLOCK_ACCESS_FS_EXECUTE
/* Rights that make sense on a file that is not a directory. */
#define LL_FILE_RIGHTS                                                                         \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |                          \
	 LANDLOCK_ACCESS_FS_READ_FILE | WD_LL_FS_TRUNCATE | WD_LL_FS_IOCTL_DEV)

static uint64_t handled_for_abi(int abi)
{
	uint64_t fs = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
		      LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
		      LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
		      LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
		      LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
		      LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		      LANDLOCK_ACCESS_FS_MAKE_SYM;

	if (abi >= 2)
		fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		fs |= WD_LL_FS_TRUNCATE;
	if (abi >= 5)
		fs |= WD_LL_FS_IOCTL_DEV;
	return fs;
}

static bool paths_strict;

void wd_landlock_paths_strict(void)
{
	paths_strict = true;
}

bool wd_landlock_paths_are_strict(void)
{
	return paths_strict;
}

static int add_rule(struct wd_landlock_plan *plan, const char *path, uint64_t access)
{
	struct landlock_path_beneath_attr pb = { 0 };
	struct stat st;
	int fd, err = 0;

	/*
	 * Never follow a symlink: policy paths are resolved already, and a carved-out sibling that
	 * is a symlink must not allow wherever it points.
	 */
	if (paths_strict) {
		/* no symlink anywhere: policy paths are resolved, so one there was put there */
		struct open_how how = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
					.resolve = RESOLVE_NO_SYMLINKS };

		fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
		if (fd < 0 && errno == ELOOP) {
			plan->failed_path = path;
			return -ELOOP;
		}
	} else {
		fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		err = -errno;
		if (err == -ENOENT) {
			/* Nothing there to allow; if it appears later, it stays denied. */
			plan->n_missing++;
			return 0;
		}
		plan->failed_path = path;
		return err;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		goto out_close;
	}
	if (!S_ISDIR(st.st_mode))
		access &= LL_FILE_RIGHTS;
	pb.allowed_access = access & plan->handled_fs;
	pb.parent_fd = fd;
	if (!pb.allowed_access)
		goto out_close;
	if (syscall(SYS_landlock_add_rule, plan->ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0)) {
		err = -errno;
		plan->failed_path = path;
		goto out_close;
	}
	plan->n_rules++;
out_close:
	close(fd);
	return err;
}

/* Landlock rights for warden's access bits. */
static uint64_t ll_access(const struct wd_carve_rule *r)
{
	uint64_t a = 0;

	if (r->list_only)
		return (r->access & WD_ACC_READ) ? LANDLOCK_ACCESS_FS_READ_DIR : 0;
	if (r->access & WD_ACC_READ)
		a |= LL_READ;
	if (r->access & WD_ACC_WRITE)
		a |= LL_WRITE;
	if (r->access & WD_ACC_EXEC)
		a |= LL_EXEC;
	/* fs.protect carved here (wd_carve_protect): Landlock has one removal right for both */
	if (r->protect & (WD_PROTECT_DELETE | WD_PROTECT_RENAME))
		a &= ~(uint64_t)(LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR);
	if (r->protect & WD_PROTECT_TRUNCATE)
		a &= ~(uint64_t)WD_LL_FS_TRUNCATE;
	return a;
}

int wd_landlock_build(const struct wd_carve_rule *rules, size_t n, struct wd_landlock_plan *plan)
{
	struct wd_ll_ruleset_attr attr = { 0 };
	int err = 0;

	memset(plan, 0, sizeof(*plan));
	plan->ruleset_fd = -1;
	plan->abi = wd_landlock_abi();
	if (plan->abi < 1)
		return plan->abi < 0 ? plan->abi : -EOPNOTSUPP;
	plan->handled_fs = handled_for_abi(plan->abi);
	attr.handled_access_fs = plan->handled_fs;
	/* Signals and abstract unix sockets stay inside the sandbox where the kernel can say so. */
	if (plan->abi >= 6)
		attr.scoped = WD_LL_SCOPE_ABSTRACT_UNIX_SOCKET | WD_LL_SCOPE_SIGNAL;
	/* Log denials of the command (after exec) where the kernel's audit can log them. */
	if (plan->abi >= 7)
		plan->restrict_flags = WD_LL_RESTRICT_SELF_LOG_NEW_EXEC_ON;

	plan->ruleset_fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (plan->ruleset_fd < 0)
		return -errno;
	for (size_t i = 0; i < n; i++) {
		err = add_rule(plan, rules[i].path, ll_access(&rules[i]));
		if (err)
			goto out_release;
	}
	return 0;

out_release:
	wd_landlock_release(plan);
	return err;
}

int wd_landlock_enforce(const struct wd_landlock_plan *plan)
{
	if (syscall(SYS_landlock_restrict_self, plan->ruleset_fd, plan->restrict_flags))
		return -errno;
	return 0;
}

void wd_landlock_release(struct wd_landlock_plan *plan)
{
	if (plan->ruleset_fd >= 0)
		close(plan->ruleset_fd);
	plan->ruleset_fd = -1;
}
