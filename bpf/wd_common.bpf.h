/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What both BPF objects share beside their maps (bpf/wd_maps.bpf.h): kernel constants that
 * vmlinux.h lacks, the sandbox lookup, record headers and their output to the ring buffer, and
 * the walk that names a dentry's path as d_path would. Included once by each object's .bpf.c;
 * everything here is static, so each object gets its own copy of the code, not of the maps.
 */
#ifndef WD_COMMON_BPF_H
#define WD_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "wd_abi.h"
#include "wd_syscalls.h"
#include "wd_maps.bpf.h"

/* The same record layout the user side asserts (supervisor/bpf/abi_check.c). */
WD_ABI_ASSERTS();
_Static_assert(__builtin_offsetof(struct wd_file_buf, path) == WD_REC_FILE_SIZE &&
		       __builtin_offsetof(struct wd_syscall_buf, name) == WD_REC_SYSCALL_SIZE &&
		       __builtin_offsetof(struct wd_sock_buf, addr) == WD_REC_SOCK_SIZE,
	       "a buffer's variable part is where its record's starts");

#define EPERM 1
#define EACCES 13
#define EAGAIN 11
#define AT_FDCWD -100
#define AT_REMOVEDIR 0x200
#define CLONE_NEWUSER 0x10000000
#define CLONE_THREAD 0x00010000

/* include/linux/fs.h: macros, so not in vmlinux.h; their values are ABI-stable. */
#define FMODE_READ 0x1
#define FMODE_WRITE 0x2
#define FMODE_EXEC 0x20
/* open flag of an open for execution (include/linux/fcntl.h); in f_flags on every kernel */
#define __FMODE_EXEC 0x20
#define PROT_EXEC 0x4
#define O_TRUNC 01000
#define S_IFMT 0170000
#define S_IFREG 0100000
/* include/linux/fs.h: iattr.ia_valid bits a sandbox may change only where fs.write allows */
#define ATTR_MODE (1 << 0)
#define ATTR_UID (1 << 1)
#define ATTR_GID (1 << 2)
#define ATTR_SIZE (1 << 3)
#define ATTR_ATIME (1 << 4)
#define ATTR_MTIME (1 << 5)
#define PTRACE_MODE_NOAUDIT 0x04
#define TIOCSTI 0x5412
#define TIOCLINUX 0x541c
/* include/uapi/linux/magic.h: filesystems a sandbox never writes to (it would leave or blind). */
#define CGROUP_SUPER_MAGIC 0x27e0eb
#define CGROUP2_SUPER_MAGIC 0x63677270
#define BPF_FS_MAGIC 0xcafe4a11
/* include/uapi/asm-generic/fcntl.h */
#define O_ACCMODE 3
#define O_WRONLY 1
#define O_RDWR 2
#define O_CREAT 0100

static __always_inline struct wd_sandbox *current_sandbox(__u64 *id)
{
	*id = bpf_get_current_cgroup_id();
	return bpf_map_lookup_elem(&wd_sandboxes, id);
}

static __always_inline struct wd_scratch *scratch(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&wd_scratch_map, &zero);
}

/* The common header of every record: who, where, when. @h's size is set when it is sent. */
static __always_inline void fill_hdr(struct wd_rec_hdr *h, __u16 type, __u64 sandbox)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task_btf();
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	h->type = type;
	h->size = 0;
	h->ts_ns = bpf_ktime_get_boot_ns();
	h->sandbox = sandbox;
	h->pid = pid_tgid >> 32;
	h->tid = (__u32)pid_tgid;
	h->ppid = BPF_CORE_READ(task, real_parent, tgid);
	h->uid = (__u32)bpf_get_current_uid_gid();
	h->__pad0 = 0;
	bpf_get_current_comm(h->comm, sizeof(h->comm));
}

/* A file record from an LSM hook, to be decided; the recorders set their own source. */
static __always_inline void fill_task(struct wd_file_buf *ev, __u64 sandbox)
{
	fill_hdr(&ev->r.h, WD_EV_FILE, sandbox);
	ev->r.source = WD_SRC_LSM;
	ev->r.err = 0;
	ev->r.dirfd = 0;
	ev->r.flags = 0;
	ev->r.__pad0 = 0;
	ev->r.arg = 0;
}

/*
 * Send the first @size bytes of @rec (at most @max, the buffer it was built in) to its sandbox's
 * ring (wd_rings) and count a record that found no ring or a full one, for the sandbox and in
 * total.
 */
static __always_inline void emit_rec(void *rec, __u64 size, __u64 max, struct wd_sandbox *sb)
{
	struct wd_rec_hdr *h = rec;
	__u32 zero = 0;
	__u64 *lost;
	void *ring;

	if (size > max)
		size = max;
	h->size = (__u16)size;
	ring = bpf_map_lookup_elem(&wd_rings, &sb->ring);
	if (ring && bpf_ringbuf_output(ring, rec, size, 0) == 0)
		return;
	lost = bpf_map_lookup_elem(&wd_lost, &zero);
	if (lost)
		*lost += 1;
	__sync_fetch_and_add(&sb->lost, 1);
}

static __always_inline void emit(struct wd_file_buf *ev, struct wd_sandbox *sb)
{
	emit_rec(ev, WD_REC_FILE_SIZE + (__u64)ev->r.path_len, sizeof(*ev), sb);
}

static __always_inline struct mount *real_mount(struct vfsmount *mnt)
{
	return (struct mount *)((void *)mnt - bpf_core_field_offset(struct mount, mnt));
}

/*
 * Is @mnt in the current task's mount namespace? A file reached through a mount outside it (a
 * detached copy from open_tree, a kernel-internal mount such as memfd's or pipefs) has no path
 * the policy can name: d_path would name it relative to a root the rules do not describe.
 */
static __always_inline bool mnt_reachable(struct vfsmount *mnt)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task_btf();
	struct mnt_namespace *ns = BPF_CORE_READ(task, nsproxy, mnt_ns);

	return ns && BPF_CORE_READ(real_mount(mnt), mnt_ns) == ns;
}


struct walk_ctx {
	__u64 dentry;
	__u64 mnt; /* struct mount * */
	__u64 root_dentry;
	__u64 root_mnt;
	__u32 n;
	int state; /* 0 walking, 1 reached the task's root, -1 cannot be resolved */
};

static long walk_up(__u32 i, void *data)
{
	struct walk_ctx *c = data;
	struct dentry *d = (struct dentry *)c->dentry;
	struct mount *m = (struct mount *)c->mnt;
	struct wd_scratch *s;
	struct dentry *parent;
	struct mount *mp;
	__u32 n = c->n;

	if (c->dentry == c->root_dentry && c->mnt == c->root_mnt) {
		c->state = 1;
		return 1;
	}
	if (d == BPF_CORE_READ(m, mnt.mnt_root)) {
		mp = BPF_CORE_READ(m, mnt_parent);
		if (mp == m) {
			/* the top of a tree that is not the task's root: detached or unreachable */
			c->state = -1;
			return 1;
		}
		c->dentry = (__u64)BPF_CORE_READ(m, mnt_mountpoint);
		c->mnt = (__u64)mp;
		return 0;
	}
	parent = BPF_CORE_READ(d, d_parent);
	s = scratch();
	if (!s || parent == d || n >= WD_WALK_DEPTH) {
		/* a disconnected dentry, or too deep */
		c->state = -1;
		return 1;
	}
	s->walk.name[n] = (__u64)BPF_CORE_READ(d, d_name.name);
	s->walk.len[n] = BPF_CORE_READ(d, d_name.len);
	c->n = n + 1;
	c->dentry = (__u64)parent;
	return 0;
}

struct put_ctx {
	__u32 n;
	__u32 pos;
	int failed;
};

static long put_name(__u32 k, void *data)
{
	struct put_ctx *c = data;
	struct wd_scratch *s = scratch();
	__u32 pos = c->pos, idx, len;

	if (k >= c->n)
		return 1;
	if (!s || pos > WD_PATH_MAX - WD_NAME_MAX - 2) {
		c->failed = 1;
		return 1;
	}
	idx = (c->n - 1 - k) & (WD_WALK_DEPTH - 1);
	len = s->walk.len[idx];
	if (len > WD_NAME_MAX) {
		c->failed = 1;
		return 1;
	}
	s->ev.path[pos] = '/';
	if (bpf_probe_read_kernel(&s->ev.path[pos + 1], len, (void *)s->walk.name[idx])) {
		c->failed = 1;
		return 1;
	}
	c->pos = pos + 1 + len;
	return 0;
}

/*
 * The path of @dentry on @vfsmnt as d_path would give it, into s->ev.path; false when it cannot
 * be resolved. @dentry may be negative (about to be created): its name and parent are set.
 */
static __always_inline bool walk_path(struct wd_scratch *s, struct vfsmount *vfsmnt,
				      struct dentry *dentry)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task_btf();
	struct walk_ctx w = {
		.dentry = (__u64)dentry,
		.mnt = (__u64)real_mount(vfsmnt),
		.root_dentry = (__u64)BPF_CORE_READ(task, fs, root.dentry),
		.root_mnt = (__u64)real_mount(BPF_CORE_READ(task, fs, root.mnt)),
	};
	struct put_ctx p = { 0 };

	if (!mnt_reachable(vfsmnt))
		return false;
	bpf_loop(WD_WALK_STEPS, walk_up, &w, 0);
	if (w.state != 1)
		return false;
	p.n = w.n;
	if (p.n == 0) {
		s->ev.path[0] = '/';
		p.pos = 1;
	} else {
		bpf_loop(WD_WALK_DEPTH, put_name, &p, 0);
	}
	if (p.failed || p.pos >= WD_PATH_MAX)
		return false;
	s->ev.path[p.pos] = 0;
	s->ev.r.path_len = p.pos + 1;
	return true;
}

#endif /* WD_COMMON_BPF_H */
