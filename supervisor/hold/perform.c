// SPDX-License-Identifier: GPL-2.0
/*
 * Performing an approved call (supervisor/hold/): the supervisor itself does what the task asked,
 * on the parent directory pinned when the call was decided and only on the object seen then, with
 * the task's own file-system credentials and within its sandbox's file rules, and answers the
 * task with the result. What the task could not do itself, an approval does not do for it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "supervisor/hold/engine_internal.h"
#include "supervisor/hold/perform.h"
#include "supervisor/hold/waiting_room.h"
#include "supervisor/util/log.h"

/*
 * Delete the object that was checked, or none: a name another process swapped while the call
 * waited is not deleted in its place (ESTALE, on record). Linux cannot unlink by inode, so what
 * the name holds is first moved aside to a name of warden's own in the same directory (atomic:
 * whatever is there then), looked at there, and only then removed; anything else goes back.
 */
static int delete_checked(struct hold *h)
{
	char aside[64];
	int r;

	snprintf(aside, sizeof(aside), ".warden-held-%016llx", (unsigned long long)h->notif_id);
	if (syscall(SYS_renameat2, h->dirfd, h->name, h->dirfd, aside, RENAME_NOREPLACE))
		return -errno; /* ENOENT, EBUSY (a mount point), EACCES: what unlink would say */
	if (!hold_still(h->dirfd, aside, &h->seen)) {
		r = -ESTALE;
		goto put_back;
	}
	r = unlinkat(h->dirfd, aside, h->rmdir ? AT_REMOVEDIR : 0) ? -errno : 0;
	if (!r)
		return 0;
put_back:
	/* not deleted (ESTALE, ENOTEMPTY, ENOTDIR, ...): it goes back where it was */
	if (syscall(SYS_renameat2, h->dirfd, aside, h->dirfd, h->name, RENAME_NOREPLACE))
		log_warn("holds: %s could not go back to %s: it is %s beside it", h->target,
			 h->name, aside);
	return r;
}

/*
 * Perform the approved operation on the pinned parent directory, and answer the task with its
 * result. The supervisor acts, so a path swapped after the check changes nothing.
 */
static int perform_op(struct hold *h)
{
	int r = 0, fd, flags;

	switch (h->op.class) {
	case WD_HOLD_EXEC:
		/* exec holds are advisory: the exec allowlist stays the authority */
		return hold_respond(h, 0, 0, true) ? -ESRCH : 0;
	case WD_HOLD_DELETE:
		r = delete_checked(h);
		break;
	case WD_HOLD_RENAME:
		flags = h->nr == WD_NR_renameat2 ? (int)h->args[4] : 0;
		/* an exchange acts on the destination too, even one that was not there */
		if (!hold_still(h->dirfd, h->name, &h->seen) ||
		    ((h->seen2.exists || (flags & RENAME_EXCHANGE)) &&
		     !hold_still(h->dirfd2, h->name2, &h->seen2))) {
			r = -ESTALE;
			break;
		}
		/* nothing was there to replace when it was shown: nothing may be replaced now */
		if (!h->seen2.exists && !(flags & RENAME_EXCHANGE))
			flags |= RENAME_NOREPLACE;
		r = (int)syscall(SYS_renameat2, h->dirfd, h->name, h->dirfd2, h->name2,
				 (unsigned int)flags);
		r = r ? -errno : 0;
		if (r == -EEXIST && !h->seen2.exists && !(h->nr == WD_NR_renameat2 &&
							  (h->args[4] & RENAME_NOREPLACE)))
			r = -ESTALE; /* a destination appeared while it waited */
		break;
	case WD_HOLD_TRUNCATE:
		if (h->nr == WD_NR_ftruncate) {
			r = ftruncate(h->dirfd, (off_t)h->args[1]) ? -errno : 0;
			break;
		}
		if (h->nr == WD_NR_fallocate) {
			r = fallocate(h->dirfd, (int)h->args[1], (off_t)h->args[2],
				      (off_t)h->args[3]) ? -errno : 0;
			break;
		}
		if (h->nr == WD_NR_truncate) {
			fd = openat(h->dirfd, h->name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
			r = fd < 0 ? -errno : (ftruncate(fd, (off_t)h->args[1]) ? -errno : 0);
			if (fd >= 0)
				close(fd);
			break;
		}
		/*
		 * An open with O_TRUNC: open it here, and hand the task the file as the result.
		 * The name is the one checked (any link was followed then), so no link now.
		 */
		flags = h->oflags;
		fd = openat(h->dirfd, h->name, flags | O_NOFOLLOW | O_CLOEXEC, h->omode);
		if (fd < 0) {
			r = -errno;
			break;
		} else {
			struct seccomp_notif_addfd add = {
				.id = h->notif_id,
				.flags = SECCOMP_ADDFD_FLAG_SEND,
				.srcfd = (uint32_t)fd,
				.newfd_flags = (flags & O_CLOEXEC) ? O_CLOEXEC : 0,
			};
			int got = ioctl(h->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);

			r = got < 0 ? -errno : 0;
			close(fd);
			return r;
		}
	default:
		r = -ENOSYS;
	}
	hold_respond(h, r, 0, false);
	return r;
}

/*
 * Switch this thread's file-system credentials to @h's task's (raw syscalls: glibc would make
 * every thread of warden switch). An approval lifts the hold, nothing else: what the task could
 * not do itself, the supervisor does not do for it.
 */
static int become_task(const struct hold *h)
{
	if (syscall(SYS_setgroups, (size_t)h->n_groups, h->groups))
		return -errno;
	syscall(SYS_setfsgid, h->fsgid);
	syscall(SYS_setfsuid, h->fsuid);
	/* setfs[ug]id say the previous id, never an error: check what stuck */
	if ((uid_t)syscall(SYS_setfsuid, -1) != h->fsuid ||
	    (gid_t)syscall(SYS_setfsgid, -1) != h->fsgid)
		return -EPERM;
	return 0;
}

/* Back to warden's own (fsuid 0 gives back the capabilities a non-zero fsuid took away). */
static int become_self(const gid_t *groups, int n_groups)
{
	syscall(SYS_setfsuid, 0);
	syscall(SYS_setfsgid, 0);
	return syscall(SYS_setgroups, (size_t)n_groups, groups) ? -errno : 0;
}

/* The sandbox's own file rules for what @h changes: 0, or the errno the kernel would give. */
static int may_write(struct wd_hold_engine *e, const struct hold *h)
{
	int r = 0;

	if (!e->ev.may_write || h->op.class == WD_HOLD_EXEC || h->fd_target)
		return 0; /* an open file was checked when it was opened */
	if (h->target)
		r = e->ev.may_write(e->ev.ctx, h->target);
	if (!r && h->target2)
		r = e->ev.may_write(e->ev.ctx, h->target2);
	return r;
}

int hold_perform(struct wd_hold_engine *e, struct hold *h)
{
	gid_t groups[WD_HOLD_GROUPS_MAX];
	int n_groups, r;

	if (h->op.class == WD_HOLD_EXEC)
		return perform_op(h);
	r = may_write(e, h);
	if (!r && !h->creds_known)
		r = -EPERM; /* whose rights to act with cannot be known: refused */
	if (r) {
		hold_respond(h, r, 0, false);
		return r;
	}
	n_groups = (int)syscall(SYS_getgroups, WD_HOLD_GROUPS_MAX, groups);
	if (n_groups < 0) {
		r = -errno;
		hold_respond(h, r, 0, false);
		return r;
	}
	r = become_task(h);
	if (r) {
		become_self(groups, n_groups);
		hold_respond(h, -EPERM, 0, false);
		return r;
	}
	r = perform_op(h);
	if (become_self(groups, n_groups))
		log_warn("holds: cannot return to warden's own groups");
	return r;
}
