// SPDX-License-Identifier: GPL-2.0
/*
 * BPF-LSM side of warden: file, exec and self-protection rules for tasks in sandbox cgroups.
 *
 * Every program first returns the previous verdict, then returns allow at once for a task whose
 * cgroup is not a sandbox: these hooks run on every open, exec, mmap, unlink, signal ... on the
 * host.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "wd_abi.h"
#include "wd_syscalls.h"
#include "wd_devid.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define EPERM 1
#define EACCES 13
#define AT_FDCWD -100
#define AT_REMOVEDIR 0x200
#define CLONE_NEWUSER 0x10000000

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

/*
 * Argument index of the previous verdict of lsm/bpf: bpf_lsm_bpf gained a `bool kernel` argument
 * after 6.1. The loader counts the hook's arguments in the kernel's BTF and sets this before load,
 * so the verifier only ever sees the right branch.
 */
const volatile __u32 wd_bpf_ret_arg = 3;

/* Sized by the loader (bpf_map__set_max_entries) before load. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, struct wd_sandbox);
} wd_sandboxes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 65536);
	__type(key, struct wd_path_key);
	__type(value, struct wd_path_rule);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} wd_paths SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} wd_events SEC(".maps");

/* Records that found the ring buffer full, per CPU: turned into "lost" records, never silent. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} wd_lost SEC(".maps");

/* Protected existing objects by (dev, ino); filled by the loader (wd_progs_protect_inode). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct wd_inode_key);
	__type(value, struct wd_inode_rule);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} wd_inodes SEC(".maps");

/*
 * fs.protect trees by resolved path (filled by the loader from the compiled rule set): deletes,
 * renames and truncations under them are refused here whatever the seccomp waiting room answered,
 * so a path swapped after the supervisor looked, or a call that never reached it, meets the rule.
 * The supervisor performs approved operations itself, from outside every sandbox.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 16384);
	__type(key, struct wd_path_key);
	__type(value, struct wd_protect_val);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} wd_protect SEC(".maps");

/*
 * Where bpf_d_path is not allowed (on 6.1 only file_open, bprm_check_security and mmap_file of the
 * hooks here are on its list), the path is walked by hand as d_path does: dentry by dentry up to
 * the mount's root, across to the mount point, up to the task's root. Components are kept in
 * order leaf first, then written out root first.
 */
#define WD_WALK_DEPTH 64 /* components; a deeper path is not resolved (and so denied) */
#define WD_WALK_STEPS (WD_WALK_DEPTH + 16) /* components plus mounts crossed */
#define WD_NAME_MAX 255

struct wd_walk {
	__u64 name[WD_WALK_DEPTH]; /* const unsigned char * of each d_name */
	__u32 len[WD_WALK_DEPTH];
};

/* Per-CPU scratch: an event is too large for the 512-byte stack. */
struct wd_scratch {
	struct wd_event ev;
	struct wd_path_key key;
	struct wd_walk walk;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wd_scratch);
} wd_scratch_map SEC(".maps");

static __always_inline struct wd_sandbox *current_sandbox(__u64 *id)
{
	*id = bpf_get_current_cgroup_id();
	return bpf_map_lookup_elem(&wd_sandboxes, id);
}

/*
 * The prologue of every LSM program: NULL when an earlier LSM already refused (@ret) or the task
 * is outside every sandbox, and the program then returns @ret at once (the previous verdict, or
 * allow). The host's tasks pay one cgroup-id lookup per hook, nothing more.
 */
static __always_inline struct wd_sandbox *sandbox_of(int ret, __u64 *id)
{
	if (ret)
		return NULL;
	return current_sandbox(id);
}

static __always_inline struct wd_scratch *scratch(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&wd_scratch_map, &zero);
}

static __always_inline int access_idx(__u32 want)
{
	if (want & WD_ACC_EXEC)
		return WD_ACC_IDX_EXEC;
	if (want & WD_ACC_WRITE)
		return WD_ACC_IDX_WRITE;
	return WD_ACC_IDX_READ;
}

/*
 * Look the path up by longest prefix and fill in the verdict. The path in ev->path is
 * NUL-terminated with path_len bytes (NUL included), as bpf_d_path leaves it.
 */
static __always_inline void decide(struct wd_scratch *s, __u64 sandbox, __u32 flags, __u32 want)
{
	struct wd_event *ev = &s->ev;
	struct wd_path_key *key = &s->key;
	struct wd_path_rule *rule;
	__u32 len = ev->path_len;
	__u32 denied;

	if (len > WD_LPM_PATH_BYTES)
		len = WD_LPM_PATH_BYTES;
	key->prefixlen = 64 + len * 8;
	key->sandbox[0] = (__u32)sandbox;
	key->sandbox[1] = (__u32)(sandbox >> 32);
	__builtin_memcpy(key->path, ev->path, WD_LPM_PATH_BYTES);

	rule = bpf_map_lookup_elem(&wd_paths, key);
	denied = rule ? want & ~rule->allow : want;
	ev->access = want;
	if (!denied) {
		int i = access_idx(want);

		ev->verdict = WD_VERDICT_ALLOW;
		ev->rule = (rule && i < WD_ACC_IDX_NR) ? rule->rule[i] : WD_RULE_DEFAULT;
		return;
	}
	/* the rule that denied: an fs.deny entry names itself for every access, others none */
	ev->rule = WD_RULE_DEFAULT;
	if (rule) {
		int i = access_idx(want);

		if (i < WD_ACC_IDX_NR)
			ev->rule = rule->rule[i];
	}
	ev->verdict = (flags & WD_SB_AUDIT_MODE) ? WD_VERDICT_AUDIT : WD_VERDICT_DENY;
}

static __always_inline void fill_task(struct wd_event *ev, __u64 sandbox)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task_btf();
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	ev->ts_ns = bpf_ktime_get_boot_ns();
	ev->sandbox = sandbox;
	ev->pid = pid_tgid >> 32;
	ev->tid = (__u32)pid_tgid;
	ev->ppid = BPF_CORE_READ(task, real_parent, tgid);
	ev->uid = (__u32)bpf_get_current_uid_gid();
	ev->source = WD_SRC_LSM;
	ev->err = 0;
	ev->dirfd = 0;
	ev->sysno = 0;
	ev->flags = 0;
	ev->arg = 0;
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
}

static __always_inline void emit(struct wd_event *ev, struct wd_sandbox *sb)
{
	__u64 size = WD_EVENT_HDR_SIZE + (__u64)ev->path_len;
	__u32 zero = 0;
	__u64 *lost;

	if (size > sizeof(*ev))
		size = sizeof(*ev);
	if (bpf_ringbuf_output(&wd_events, ev, size, 0) == 0)
		return;
	lost = bpf_map_lookup_elem(&wd_lost, &zero);
	if (lost)
		*lost += 1;
	__sync_fetch_and_add(&sb->lost, 1);
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

/* Resolve @path into the scratch event; false when it cannot be resolved. */
static __always_inline bool resolve(struct wd_event *ev, const struct path *path)
{
	long n = bpf_d_path((struct path *)path, ev->path, sizeof(ev->path));

	if (n <= 0 || n > WD_PATH_MAX)
		return false;
	ev->path_len = n;
	return mnt_reachable(BPF_CORE_READ(path, mnt));
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
	s->ev.path_len = p.pos + 1;
	return true;
}

/* A path that cannot be resolved is denied in a sandbox: nothing is decided on a guess. */
static __always_inline void unresolved(struct wd_event *ev, __u32 flags, __u32 want)
{
	ev->path[0] = 0;
	ev->path_len = 1;
	ev->access = want;
	ev->rule = WD_RULE_DEFAULT;
	ev->verdict = (flags & WD_SB_AUDIT_MODE) ? WD_VERDICT_AUDIT : WD_VERDICT_DENY;
}

/*
 * warden's own defences (cgroupfs and bpffs writes, bpf(), mount, signals and ptrace across the
 * sandbox's edge) hold in audit mode too: a sandbox that could leave or blind its monitor would
 * make the audit itself worthless.
 */
static __always_inline void self_protect(struct wd_event *ev, __u32 want)
{
	ev->access = want;
	ev->rule = WD_RULE_SELF_PROTECT;
	ev->verdict = WD_VERDICT_DENY;
}

static __always_inline bool protected_fs(struct super_block *sb)
{
	unsigned long magic = BPF_CORE_READ(sb, s_magic);

	return magic == CGROUP2_SUPER_MAGIC || magic == CGROUP_SUPER_MAGIC || magic == BPF_FS_MAGIC;
}

/*
 * A protected inode (by dev and ino, whatever name reached it) overrides an allow: @want that the
 * entry denies, or with @any every access (link() to a protected inode).
 */
static __always_inline void check_inode(struct wd_scratch *s, __u64 sandbox, __u32 flags,
					struct inode *inode, __u32 want, bool any)
{
	struct wd_inode_key k = { 0 };
	struct wd_inode_rule *r;

	if (!inode || s->ev.verdict != WD_VERDICT_ALLOW)
		return;
	k.sandbox = sandbox;
	k.ino = BPF_CORE_READ(inode, i_ino);
	k.dev = wd_inode_dev(inode);
	r = bpf_map_lookup_elem(&wd_inodes, &k);
	if (!r || !(any ? r->deny : r->deny & want))
		return;
	s->ev.rule = r->rule;
	s->ev.verdict = (flags & WD_SB_AUDIT_MODE) ? WD_VERDICT_AUDIT : WD_VERDICT_DENY;
}

static __always_inline int protect_idx(__u32 prot)
{
	if (prot & WD_PROT_DELETE)
		return WD_PROT_IDX_DELETE;
	if (prot & WD_PROT_RENAME)
		return WD_PROT_IDX_RENAME;
	return WD_PROT_IDX_TRUNCATE;
}

/*
 * fs.protect: @prot (WD_PROT_*) of the object just resolved and allowed (s->key holds its path,
 * from decide()) is refused when a protected tree holds it, or when it is a protected root
 * object by (dev, ino), whatever name reached it. The record names the fs.protect rule.
 */
static __always_inline void check_protect(struct wd_scratch *s, __u64 sandbox, __u32 flags,
					  struct inode *inode, __u32 prot)
{
	struct wd_inode_key k = { 0 };
	struct wd_protect_val *p;
	struct wd_inode_rule *r;
	__u32 rule;
	int i;

	if (!prot || s->ev.verdict != WD_VERDICT_ALLOW)
		return;
	p = bpf_map_lookup_elem(&wd_protect, &s->key);
	if (p && (p->ops & prot)) {
		i = protect_idx(p->ops & prot);
		rule = i < WD_PROT_IDX_NR ? p->rule[i] : WD_RULE_DEFAULT;
	} else {
		if (!inode)
			return;
		k.sandbox = sandbox;
		k.ino = BPF_CORE_READ(inode, i_ino);
		k.dev = wd_inode_dev(inode);
		r = bpf_map_lookup_elem(&wd_inodes, &k);
		if (!r || !(r->protect & prot))
			return;
		rule = r->protect_rule;
	}
	s->ev.rule = rule;
	s->ev.verdict = (flags & WD_SB_AUDIT_MODE) ? WD_VERDICT_AUDIT : WD_VERDICT_DENY;
}

static __always_inline int verdict_errno(struct wd_event *ev, struct wd_sandbox *sb)
{
	if (ev->verdict == WD_VERDICT_ALLOW || ev->verdict == WD_VERDICT_AUDIT) {
		if (ev->verdict == WD_VERDICT_AUDIT)
			emit(ev, sb);
		return 0;
	}
	__sync_fetch_and_add(&sb->denials, 1);
	ev->err = EPERM;
	emit(ev, sb);
	return -EPERM;
}

SEC("lsm/file_open")
int BPF_PROG(wd_file_open, struct file *file, int ret)
{
	struct wd_sandbox *sb;
	struct wd_scratch *s;
	__u64 id;
	__u32 want = 0;
	unsigned int mode;

	sb = sandbox_of(ret, &id);
	if (!sb)
		return ret;

	mode = file->f_mode;
	/*
	 * The binary and its ELF interpreter are opened for execution: f_mode says so from 6.8,
	 * f_flags on every kernel, so ld.so needs fs.exec everywhere, as under Landlock.
	 */
	if ((mode & FMODE_EXEC) || (file->f_flags & __FMODE_EXEC)) {
		want = WD_ACC_EXEC;
	} else {
		if (mode & FMODE_READ)
			want |= WD_ACC_READ;
		if (mode & FMODE_WRITE)
			want |= WD_ACC_WRITE;
	}
	if (!want)
		return 0;

	s = scratch();
	if (!s)
		return -EPERM; /* fail closed: cannot happen for a 1-entry per-CPU array */
	fill_task(&s->ev, id);
	s->ev.type = WD_EV_FILE;
	s->ev.op = WD_OP_OPEN;
	if (!resolve(&s->ev, &file->f_path)) {
		unresolved(&s->ev, sb->flags, want);
	} else if ((want & WD_ACC_WRITE) && protected_fs(BPF_CORE_READ(file, f_inode, i_sb))) {
		self_protect(&s->ev, want);
	} else {
		struct inode *inode = BPF_CORE_READ(file, f_inode);

		decide(s, id, sb->flags, want);
		check_inode(s, id, sb->flags, inode, want, false);
		/*
		 * O_TRUNC of an existing regular file with something in it: the truncate hooks see
		 * it too (path_truncate on 6.1, file_truncate later), this refuses it at the open.
		 */
		if ((file->f_flags & O_TRUNC) &&
		    (BPF_CORE_READ(inode, i_mode) & S_IFMT) == S_IFREG &&
		    BPF_CORE_READ(inode, i_size) > 0) {
			check_protect(s, id, sb->flags, inode, WD_PROT_TRUNCATE);
			if (s->ev.verdict != WD_VERDICT_ALLOW)
				s->ev.op = WD_OP_TRUNCATE;
		}
	}
	if (s->ev.verdict != WD_VERDICT_ALLOW && want == WD_ACC_EXEC)
		s->ev.op = WD_OP_EXEC;
	return verdict_errno(&s->ev, sb);
}

SEC("lsm/bprm_check_security")
int BPF_PROG(wd_bprm_check, struct linux_binprm *bprm, int ret)
{
	struct wd_sandbox *sb;
	struct wd_scratch *s;
	__u64 id;

	sb = sandbox_of(ret, &id);
	if (!sb)
		return ret;

	s = scratch();
	if (!s)
		return -EPERM;
	fill_task(&s->ev, id);
	s->ev.type = WD_EV_EXEC;
	s->ev.op = WD_OP_EXEC;
	if (resolve(&s->ev, &bprm->file->f_path)) {
		decide(s, id, sb->flags, WD_ACC_EXEC);
		check_inode(s, id, sb->flags, BPF_CORE_READ(bprm, file, f_inode), WD_ACC_EXEC,
			    false);
	} else {
		unresolved(&s->ev, sb->flags, WD_ACC_EXEC);
	}
	/* Every exec is recorded, allowed or not. */
	if (s->ev.verdict == WD_VERDICT_ALLOW)
		emit(&s->ev, sb);
	return verdict_errno(&s->ev, sb);
}

/*
 * Executable file mappings need fs.exec on the mapped file: this is what closes `ld.so BINARY`
 * and hand-rolled loaders, which map a merely readable file themselves. Anonymous executable
 * memory (JITs) stays allowed; only denials are recorded (loaders map many libraries).
 */
static __always_inline int check_exec_map(struct wd_sandbox *sb, __u64 id, struct file *file,
					  bool walked)
{
	struct wd_scratch *s = scratch();
	bool ok;

	if (!s)
		return -EPERM;
	fill_task(&s->ev, id);
	s->ev.type = WD_EV_FILE;
	s->ev.op = WD_OP_EXEC;
	if (walked)
		ok = walk_path(s, BPF_CORE_READ(file, f_path.mnt),
			       BPF_CORE_READ(file, f_path.dentry));
	else
		ok = resolve(&s->ev, &file->f_path);
	if (ok) {
		decide(s, id, sb->flags, WD_ACC_EXEC);
		check_inode(s, id, sb->flags, BPF_CORE_READ(file, f_inode), WD_ACC_EXEC, false);
	} else {
		unresolved(&s->ev, sb->flags, WD_ACC_EXEC);
	}
	return verdict_errno(&s->ev, sb);
}

SEC("lsm/mmap_file")
int BPF_PROG(wd_mmap_file, struct file *file, unsigned long reqprot, unsigned long prot,
	     unsigned long flags, int ret)
{
	struct wd_sandbox *sb;
	__u64 id;

	sb = sandbox_of(ret, &id);
	if (!sb)
		return ret;
	if (!file || !(prot & PROT_EXEC))
		return 0;
	return check_exec_map(sb, id, file, false);
}

SEC("lsm/file_mprotect")
int BPF_PROG(wd_file_mprotect, struct vm_area_struct *vma, unsigned long reqprot,
	     unsigned long prot, int ret)
{
	struct wd_sandbox *sb;
	struct file *file;
	__u64 id;

	sb = sandbox_of(ret, &id);
	if (!sb)
		return ret;
	if (!(prot & PROT_EXEC))
		return 0;
	file = BPF_CORE_READ(vma, vm_file);
	if (!file)
		return 0;
	/* bpf_d_path is not allowed in file_mprotect: walk */
	return check_exec_map(sb, id, file, true);
}

/*
 * A change to the tree at @dentry (on @mnt) needs fs.write on its resolved path; @dentry may be
 * negative (a name about to be created). With @any, a protected inode denies whatever @want is
 * (the source of link()). @prot (WD_PROT_*) is what fs.protect may refuse on it.
 */
static __always_inline int check_write(struct wd_sandbox *sb, __u64 id, __u16 op,
				       struct vfsmount *mnt, struct dentry *dentry, bool any,
				       __u32 prot)
{
	struct wd_scratch *s = scratch();

	if (!s)
		return -EPERM;
	fill_task(&s->ev, id);
	s->ev.type = WD_EV_FILE;
	s->ev.op = op;
	if (!walk_path(s, mnt, dentry)) {
		unresolved(&s->ev, sb->flags, WD_ACC_WRITE);
	} else if (protected_fs(BPF_CORE_READ(dentry, d_sb))) {
		self_protect(&s->ev, WD_ACC_WRITE);
	} else {
		struct inode *inode = BPF_CORE_READ(dentry, d_inode);

		decide(s, id, sb->flags, WD_ACC_WRITE);
		check_inode(s, id, sb->flags, inode, WD_ACC_WRITE, any);
		check_protect(s, id, sb->flags, inode, prot);
	}
	return verdict_errno(&s->ev, sb);
}

/* The write-class hooks: the object is a directory's path plus a dentry in it, or a path. */
#define WD_DIR_HOOK(hook, prog, op, prot, ...)                                             \
	SEC("lsm/" #hook)                                                                   \
	int BPF_PROG(prog, const struct path *dir, struct dentry *dentry, ##__VA_ARGS__,   \
		     int ret)                                                               \
	{                                                                                   \
		struct wd_sandbox *sb;                                                      \
		__u64 id;                                                                   \
											    \
		sb = sandbox_of(ret, &id);                                                  \
		if (!sb)                                                                    \
			return ret;                                                         \
		return check_write(sb, id, op, BPF_CORE_READ(dir, mnt), dentry, false, prot); \
	}

/* O_CREAT of a new file comes through path_mknod too. */
WD_DIR_HOOK(path_mknod, wd_path_mknod, WD_OP_CREATE, 0, umode_t mode, unsigned int dev)
WD_DIR_HOOK(path_mkdir, wd_path_mkdir, WD_OP_MKDIR, 0, umode_t mode)
WD_DIR_HOOK(path_unlink, wd_path_unlink, WD_OP_UNLINK, WD_PROT_DELETE)
WD_DIR_HOOK(path_rmdir, wd_path_rmdir, WD_OP_RMDIR, WD_PROT_DELETE)
WD_DIR_HOOK(path_symlink, wd_path_symlink, WD_OP_SYMLINK, 0, const char *old_name)

#define WD_PATH_HOOK(hook, prog, op, prot, ...)                                            \
	SEC("lsm/" #hook)                                                                   \
	int BPF_PROG(prog, const struct path *path, ##__VA_ARGS__, int ret)                \
	{                                                                                   \
		struct wd_sandbox *sb;                                                      \
		__u64 id;                                                                   \
											    \
		sb = sandbox_of(ret, &id);                                                  \
		if (!sb)                                                                    \
			return ret;                                                         \
		return check_write(sb, id, op, BPF_CORE_READ(path, mnt),                    \
				   BPF_CORE_READ(path, dentry), false, prot);               \
	}

/* truncate(2); on 6.1 also ftruncate(2) and O_TRUNC, which later kernels send to file_truncate */
WD_PATH_HOOK(path_truncate, wd_path_truncate, WD_OP_TRUNCATE, WD_PROT_TRUNCATE)
WD_PATH_HOOK(path_chmod, wd_path_chmod, WD_OP_SETATTR, 0, umode_t mode)
WD_PATH_HOOK(path_chown, wd_path_chown, WD_OP_SETATTR, 0, __u32 uid, __u32 gid) /* kuid_t, kgid_t */

/* ftruncate(2) and O_TRUNC from 6.2; the loader leaves it out where the hook does not exist. */
SEC("lsm/file_truncate")
int BPF_PROG(wd_file_truncate, struct file *file, int ret)
{
	struct wd_sandbox *sb;
	__u64 id;

	sb = sandbox_of(ret, &id);
	if (!sb)
		return ret;
	return check_write(sb, id, WD_OP_TRUNCATE, BPF_CORE_READ(file, f_path.mnt),
			   BPF_CORE_READ(file, f_path.dentry), false, WD_PROT_TRUNCATE);
}

/*
 * Both ends of a rename change the tree: the name that goes and the name that comes (or is
 * replaced, or swapped with RENAME_EXCHANGE). fs.protect refuses either end under a protected
 * tree, and a source that is a directory above one (moving it would carry the tree away from
 * the paths its rule names).
 */
SEC("lsm/path_rename")
int BPF_PROG(wd_path_rename, const struct path *old_dir, struct dentry *old_dentry,
	     const struct path *new_dir, struct dentry *new_dentry, unsigned int flags, int ret)
{
	struct wd_sandbox *sb;
	__u64 id;
	int err;

	sb = sandbox_of(ret, &id);
	if (!sb)
		return ret;
	err = check_write(sb, id, WD_OP_RENAME, BPF_CORE_READ(old_dir, mnt), old_dentry, false,
			  WD_PROT_RENAME);
	if (err)
		return err;
	return check_write(sb, id, WD_OP_RENAME, BPF_CORE_READ(new_dir, mnt), new_dentry, false,
			   WD_PROT_RENAME);
}

/*
 * A hard link gives an inode a second name, which another rule may allow: the source needs
 * fs.write as well as the new name (so no file the sandbox may not change gets a name it may),
 * and a protected inode is never linked. link() cannot cross mounts: both are on new_dir's. A
 * file under a tree protected from truncation gets no second name outside it either.
 */
SEC("lsm/path_link")
int BPF_PROG(wd_path_link, struct dentry *old_dentry, const struct path *new_dir,
	     struct dentry *new_dentry, int ret)
{
	struct wd_sandbox *sb;
	__u64 id;
	int err;

	sb = sandbox_of(ret, &id);
	if (!sb)
		return ret;
	err = check_write(sb, id, WD_OP_LINK, BPF_CORE_READ(new_dir, mnt), old_dentry, true,
			  WD_PROT_TRUNCATE);
	if (err)
		return err;
	return check_write(sb, id, WD_OP_LINK, BPF_CORE_READ(new_dir, mnt), new_dentry, false, 0);
}

/*
 * Hooks that get a dentry and no mount (setattr, xattrs) find the mount themselves among the
 * mounts of the dentry's superblock that are in the task's namespace: the object is allowed when
 * one of the names it has there is (a name the sandbox may use anyway), and refused when it has
 * names there and none is. The list of a superblock's mounts changed shape after 6.1: a
 * list_head through mount.mnt_instance then, a chain through mount.mnt_next_for_sb now.
 */
struct super_block___old {
	struct list_head s_mounts;
} __attribute__((preserve_access_index));

struct mount___old {
	struct list_head mnt_instance;
} __attribute__((preserve_access_index));

#define WD_SB_MOUNTS 16 /* mounts of one superblock tried; more are not looked at (denied) */

struct mnt_ctx {
	__u64 node; /* the next mount (now) or its list_head (6.1); 0 or head at the end */
	__u64 head;
	__u64 dentry;
	__u64 sandbox;
	__u32 flags;
	int in_ns; /* a mount of the superblock is in the task's namespace */
	int resolved; /* a name was resolved (and decided) */
	int allowed;
	int ended; /* every mount of the superblock was looked at */
};

static long try_mount(__u32 i, void *data)
{
	struct mnt_ctx *c = data;
	struct wd_scratch *s;
	struct mount *m;

	if (!c->node || c->node == c->head) {
		c->ended = 1;
		return 1;
	}
	if (bpf_core_field_exists(struct mount, mnt_next_for_sb)) {
		m = (struct mount *)c->node;
		c->node = (__u64)BPF_CORE_READ(m, mnt_next_for_sb);
	} else {
		struct list_head *l = (struct list_head *)c->node;

		m = (struct mount *)((void *)l - bpf_core_field_offset(struct mount___old,
									mnt_instance));
		c->node = (__u64)BPF_CORE_READ(l, next);
	}
	if (!mnt_reachable(&m->mnt))
		return 0;
	c->in_ns = 1;
	s = scratch();
	if (!s)
		return 1;
	/* a mount whose root is not above the dentry does not resolve it */
	if (!walk_path(s, &m->mnt, (struct dentry *)c->dentry))
		return 0;
	c->resolved = 1;
	decide(s, c->sandbox, c->flags, WD_ACC_WRITE);
	if (s->ev.verdict == WD_VERDICT_ALLOW) {
		c->allowed = 1;
		return 1;
	}
	return 0;
}

/*
 * A change at @dentry that arrives with no mount: fs.write on a name of it, the inode rules, and
 * fs.protect (@prot). A superblock with no mount in the task's namespace (pipes, sockets,
 * memfds) holds nothing a policy names and nothing the task could reach by name: not decided
 * here. Overridden credentials are no sign of the kernel acting on its own (io_uring installs a
 * registered personality the same way overlayfs does for a copy-up), so they change nothing:
 * an overlayfs copy-up whose upper layer is mounted in the sandbox's namespace is checked on the
 * upper layer's name too.
 */
static __always_inline int check_dentry(struct wd_sandbox *sb, __u64 id, __u16 op,
					struct dentry *dentry, __u32 prot)
{
	struct super_block *sup = BPF_CORE_READ(dentry, d_sb);
	struct mnt_ctx c = {
		.dentry = (__u64)dentry,
		.sandbox = id,
		.flags = sb->flags,
	};
	struct wd_scratch *s;

	s = scratch();
	if (!s)
		return -EPERM;
	if (protected_fs(sup)) {
		fill_task(&s->ev, id);
		s->ev.type = WD_EV_FILE;
		s->ev.op = op;
		s->ev.path[0] = 0;
		s->ev.path_len = 1;
		self_protect(&s->ev, WD_ACC_WRITE);
		return verdict_errno(&s->ev, sb);
	}
	if (bpf_core_field_exists(struct mount, mnt_next_for_sb)) {
		c.node = (__u64)BPF_CORE_READ(sup, s_mounts);
	} else {
		struct super_block___old *old = (void *)sup;

		c.node = (__u64)BPF_CORE_READ(old, s_mounts.next);
		c.head = (__u64)sup + bpf_core_field_offset(struct super_block___old, s_mounts);
	}
	fill_task(&s->ev, id);
	s->ev.type = WD_EV_FILE;
	s->ev.op = op;
	s->ev.verdict = WD_VERDICT_ALLOW;
	bpf_loop(WD_SB_MOUNTS, try_mount, &c, 0);
	if (!c.in_ns && c.ended)
		return 0;
	/* the loop's callbacks used the scratch event too: fill the header again */
	fill_task(&s->ev, id);
	s->ev.type = WD_EV_FILE;
	s->ev.op = op;
	if (!c.resolved) {
		unresolved(&s->ev, sb->flags, WD_ACC_WRITE);
	} else if (c.allowed) {
		struct inode *inode = BPF_CORE_READ(dentry, d_inode);

		check_inode(s, id, sb->flags, inode, WD_ACC_WRITE, false);
		check_protect(s, id, sb->flags, inode, prot);
	}
	return verdict_errno(&s->ev, sb);
}

/* What a setattr changes that fs.write governs: times above all (chmod and chown also have path
 * hooks), and the size, which fs.protect's truncate covers. */
static __always_inline int check_setattr(struct dentry *dentry, struct iattr *attr, int ret)
{
	__u32 valid = BPF_CORE_READ(attr, ia_valid);
	struct wd_sandbox *sb;
	__u64 id;

	sb = sandbox_of(ret, &id);
	if (!sb)
		return ret;
	if (!(valid & (ATTR_MODE | ATTR_UID | ATTR_GID | ATTR_SIZE | ATTR_ATIME | ATTR_MTIME)))
		return 0;
	return check_dentry(sb, id, WD_OP_SETATTR, dentry,
			    (valid & ATTR_SIZE) ? WD_PROT_TRUNCATE : 0);
}

/* The hook gained an idmap argument after 6.1: the loader keeps the one the kernel has. */
SEC("lsm/inode_setattr")
int BPF_PROG(wd_inode_setattr, struct mnt_idmap *idmap, struct dentry *dentry, struct iattr *attr,
	     int ret)
{
	return check_setattr(dentry, attr, ret);
}

SEC("lsm/inode_setattr")
int BPF_PROG(wd_inode_setattr_61, struct dentry *dentry, struct iattr *attr, int ret)
{
	return check_setattr(dentry, attr, ret);
}

/* The first argument is a user namespace on 6.1 and an idmap later: never read here. */
SEC("lsm/inode_setxattr")
int BPF_PROG(wd_inode_setxattr, void *idmap, struct dentry *dentry, const char *name,
	     const void *value, size_t size, int flags, int ret)
{
	struct wd_sandbox *sb;
	__u64 id;

	sb = sandbox_of(ret, &id);
	if (!sb)
		return ret;
	return check_dentry(sb, id, WD_OP_XATTR, dentry, 0);
}

SEC("lsm/inode_removexattr")
int BPF_PROG(wd_inode_removexattr, void *idmap, struct dentry *dentry, const char *name, int ret)
{
	struct wd_sandbox *sb;
	__u64 id;

	sb = sandbox_of(ret, &id);
	if (!sb)
		return ret;
	return check_dentry(sb, id, WD_OP_XATTR, dentry, 0);
}

/* POSIX ACLs left the xattr hooks in 6.2; the loader leaves these out where they do not exist. */
SEC("lsm/inode_set_acl")
int BPF_PROG(wd_inode_set_acl, struct mnt_idmap *idmap, struct dentry *dentry,
	     const char *acl_name, struct posix_acl *kacl, int ret)
{
	struct wd_sandbox *sb;
	__u64 id;

	sb = sandbox_of(ret, &id);
	if (!sb)
		return ret;
	return check_dentry(sb, id, WD_OP_XATTR, dentry, 0);
}

SEC("lsm/inode_remove_acl")
int BPF_PROG(wd_inode_remove_acl, struct mnt_idmap *idmap, struct dentry *dentry,
	     const char *acl_name, int ret)
{
	struct wd_sandbox *sb;
	__u64 id;

	sb = sandbox_of(ret, &id);
	if (!sb)
		return ret;
	return check_dentry(sb, id, WD_OP_XATTR, dentry, 0);
}

/* Self-protection: a syscall refused whole; the record names it. */
static __always_inline int refuse(struct wd_sandbox *sb, __u64 id, const char *name, __u32 len)
{
	struct wd_scratch *s = scratch();

	if (!s)
		return -EPERM;
	fill_task(&s->ev, id);
	s->ev.type = WD_EV_SYSCALL;
	s->ev.op = WD_OP_SYSCALL;
	bpf_probe_read_kernel_str(s->ev.path, len, name);
	s->ev.path_len = len;
	self_protect(&s->ev, 0);
	return verdict_errno(&s->ev, sb);
}

#define REFUSE(sb, id, name) refuse(sb, id, name, sizeof(name))

/* bpf() from a sandbox could read or detach the very programs that confine it. */
SEC("lsm/bpf")
int wd_bpf(unsigned long long *ctx)
{
	struct wd_sandbox *sb;
	__u64 id;
	long ret;

	/*
	 * Constant offsets in asm: the verifier refuses a context load at a computed offset, which
	 * is what clang makes of ctx[wd_bpf_ret_arg == 4 ? 4 : 3].
	 */
	if (wd_bpf_ret_arg == 4)
		asm volatile("%0 = *(u64 *)(%1 + 32)" : "=r"(ret) : "r"(ctx));
	else
		asm volatile("%0 = *(u64 *)(%1 + 24)" : "=r"(ret) : "r"(ctx));
	sb = sandbox_of(ret, &id);
	if (!sb)
		return ret;
	return REFUSE(sb, id, "bpf");
}

static __always_inline __u64 task_cgroup(struct task_struct *task)
{
	return BPF_CORE_READ(task, cgroups, dfl_cgrp, kn, id);
}

/* ptrace, /proc/PID/mem, process_vm_readv, pidfd_getfd ... of a task outside the sandbox. */
SEC("lsm/ptrace_access_check")
int BPF_PROG(wd_ptrace_access_check, struct task_struct *child, unsigned int mode, int ret)
{
	struct wd_sandbox *sb;
	struct wd_scratch *s;
	__u64 id;

	sb = sandbox_of(ret, &id);
	if (!sb)
		return ret;
	if (task_cgroup(child) == id)
		return 0;
	if (!(mode & PTRACE_MODE_NOAUDIT))
		return REFUSE(sb, id, "ptrace");
	/* a quiet probe (what ps asks of /proc/PID/stat): denied without a record */
	s = scratch();
	if (s)
		__sync_fetch_and_add(&sb->denials, 1);
	return -EPERM;
}

/* Signals only inside the sandbox: never to warden or any other host process. */
SEC("lsm/task_kill")
int BPF_PROG(wd_task_kill, struct task_struct *p, struct kernel_siginfo *info, int sig,
	     const struct cred *cred, int ret)
{
	struct wd_sandbox *sb;
	__u64 id;

	sb = sandbox_of(ret, &id);
	if (!sb)
		return ret;
	if (task_cgroup(p) == id)
		return 0;
	return REFUSE(sb, id, "kill");
}

/* Mounts would put other objects under allowed paths; chroot and pivot_root move the root. */
SEC("lsm/sb_mount")
int BPF_PROG(wd_sb_mount, const char *dev_name, const struct path *path, const char *type,
	     unsigned long flags, void *data, int ret)
{
	struct wd_sandbox *sb;
	__u64 id;

	sb = sandbox_of(ret, &id);
	if (!sb)
		return ret;
	return REFUSE(sb, id, "mount");
}

SEC("lsm/move_mount")
int BPF_PROG(wd_move_mount, const struct path *from_path, const struct path *to_path, int ret)
{
	struct wd_sandbox *sb;
	__u64 id;

	sb = sandbox_of(ret, &id);
	if (!sb)
		return ret;
	return REFUSE(sb, id, "move_mount");
}

SEC("lsm/sb_umount")
int BPF_PROG(wd_sb_umount, struct vfsmount *mnt, int flags, int ret)
{
	struct wd_sandbox *sb;
	__u64 id;

	sb = sandbox_of(ret, &id);
	if (!sb)
		return ret;
	return REFUSE(sb, id, "umount2");
}

SEC("lsm/sb_pivotroot")
int BPF_PROG(wd_sb_pivotroot, const struct path *old_path, const struct path *new_path, int ret)
{
	struct wd_sandbox *sb;
	__u64 id;

	sb = sandbox_of(ret, &id);
	if (!sb)
		return ret;
	return REFUSE(sb, id, "pivot_root");
}

SEC("lsm/path_chroot")
int BPF_PROG(wd_path_chroot, const struct path *path, int ret)
{
	struct wd_sandbox *sb;
	__u64 id;

	sb = sandbox_of(ret, &id);
	if (!sb)
		return ret;
	return REFUSE(sb, id, "chroot");
}

/* A user namespace gives back every capability inside it: no policy key allows one yet. */
SEC("lsm/userns_create")
int BPF_PROG(wd_userns_create, const struct cred *cred, int ret)
{
	struct wd_sandbox *sb;
	__u64 id;

	sb = sandbox_of(ret, &id);
	if (!sb)
		return ret;
	return REFUSE(sb, id, "userns");
}

/* Typing into a terminal (root keeps CAP_SYS_ADMIN, which TIOCSTI honours on any tty). */
SEC("lsm/file_ioctl")
int BPF_PROG(wd_file_ioctl, struct file *file, unsigned int cmd, unsigned long arg, int ret)
{
	struct wd_sandbox *sb;
	__u64 id;

	/* the cheap test first: ioctls are frequent on the host */
	if (ret || (cmd != TIOCSTI && cmd != TIOCLINUX))
		return ret;
	sb = sandbox_of(ret, &id);
	if (!sb)
		return ret;
	return REFUSE(sb, id, "ioctl");
}

/*
 * The syscall-exit recorder, for the landlock backend: Landlock and seccomp decide where BPF cannot
 * see, so their denials are recorded from what the task got back. It costs the host one compare
 * per syscall (most return neither EACCES nor EPERM) before the sandbox lookup. The path is read
 * from the task's memory after the fact: it is evidence for the record, never a decision.
 */
struct wd_sys {
	__u16 type;
	__u16 op;
	__s8 path_arg; /* argument holding the path, or -1 */
	__s8 dirfd_arg; /* argument holding the dirfd, or -1 */
	__s8 flags_arg; /* argument holding open(2) flags, or -1 */
	__u8 self_protect; /* refused by warden's seccomp filter: WD_SYS_* */
};

enum {
	WD_SYS_SELF_PROTECT = 1, /* on the landlock backend */
	WD_SYS_PRIVILEGED = 2,	 /* on both */
};

/*
 * Set by the bpf-lsm backend: its LSM programs record their own denials, so the recorder only
 * records what its seccomp filter refuses (the privileged syscalls), where no hook sees it.
 */
const volatile bool wd_sys_exit_privileged_only = false;

#define O_ACCMODE 3
#define O_WRONLY 1
#define O_RDWR 2
#define O_CREAT 0100

#if defined(__TARGET_ARCH_x86)
static __always_inline bool classify(long nr, struct wd_sys *d)
{
	__builtin_memset(d, 0, sizeof(*d));
	d->type = WD_EV_FILE;
	d->path_arg = 0;
	d->dirfd_arg = -1;
	d->flags_arg = -1;
	switch (nr) {
	case 2: /* open */
		d->op = WD_OP_OPEN;
		d->flags_arg = 1;
		return true;
	case 257: /* openat */
		d->op = WD_OP_OPEN;
		d->path_arg = 1;
		d->dirfd_arg = 0;
		d->flags_arg = 2;
		return true;
	case 437: /* openat2: its flags are in memory */
		d->op = WD_OP_OPEN;
		d->path_arg = 1;
		d->dirfd_arg = 0;
		return true;
	case 85: /* creat */
		d->op = WD_OP_CREATE;
		return true;
	case 59: /* execve */
		d->type = WD_EV_EXEC;
		d->op = WD_OP_EXEC;
		return true;
	case 322: /* execveat */
		d->type = WD_EV_EXEC;
		d->op = WD_OP_EXEC;
		d->path_arg = 1;
		d->dirfd_arg = 0;
		return true;
	case 83: /* mkdir */
		d->op = WD_OP_MKDIR;
		return true;
	case 258: /* mkdirat */
		d->op = WD_OP_MKDIR;
		d->path_arg = 1;
		d->dirfd_arg = 0;
		return true;
	case 133: /* mknod */
		d->op = WD_OP_MKNOD;
		return true;
	case 259: /* mknodat */
		d->op = WD_OP_MKNOD;
		d->path_arg = 1;
		d->dirfd_arg = 0;
		return true;
	case 87: /* unlink */
		d->op = WD_OP_UNLINK;
		return true;
	case 84: /* rmdir */
		d->op = WD_OP_RMDIR;
		return true;
	case 263: /* unlinkat */
		d->op = WD_OP_UNLINK;
		d->path_arg = 1;
		d->dirfd_arg = 0;
		return true;
	case 82: /* rename */
		d->op = WD_OP_RENAME;
		return true;
	case 264: /* renameat */
	case 316: /* renameat2 */
		d->op = WD_OP_RENAME;
		d->path_arg = 1;
		d->dirfd_arg = 0;
		return true;
	case 86: /* link */
		d->op = WD_OP_LINK;
		d->path_arg = 1;
		return true;
	case 265: /* linkat */
		d->op = WD_OP_LINK;
		d->path_arg = 3;
		d->dirfd_arg = 2;
		return true;
	case 88: /* symlink */
		d->op = WD_OP_SYMLINK;
		d->path_arg = 1;
		return true;
	case 266: /* symlinkat */
		d->op = WD_OP_SYMLINK;
		d->path_arg = 2;
		d->dirfd_arg = 1;
		return true;
	case 76: /* truncate */
		d->op = WD_OP_TRUNCATE;
		return true;
	case 90: /* chmod */
	case 92: /* chown */
	case 94: /* lchown */
		d->op = WD_OP_SETATTR;
		return true;
	case 268: /* fchmodat */
	case 260: /* fchownat */
	case 280: /* utimensat */
		d->op = WD_OP_SETATTR;
		d->path_arg = 1;
		d->dirfd_arg = 0;
		return true;
	/* Refused by the seccomp filter (supervisor/backend/seccomp_guard.c), from the one list both read. */
#define CASE(nr, name) case nr:
	WD_SYSCALLS_PRIVILEGED(CASE)
	case WD_SYSCALL_PERSONALITY: /* an odd persona */
		d->type = WD_EV_SYSCALL;
		d->op = WD_OP_SYSCALL;
		d->path_arg = -1;
		d->self_protect = WD_SYS_PRIVILEGED;
		return true;
	/* landlock backend only: on bpf-lsm the LSM programs refuse and record these */
	WD_SYSCALLS_SELF_PROTECT(CASE)
#undef CASE
	case 425: /* io_uring_setup */
	case 319: /* memfd_create (refused where vm.memfd_noexec is missing) */
	case 272: /* unshare (of a user namespace) */
	case 56: /* clone (of a user namespace) */
	case 16: /* ioctl (TIOCSTI, TIOCLINUX) */
		d->type = WD_EV_SYSCALL;
		d->op = WD_OP_SYSCALL;
		d->path_arg = -1;
		d->self_protect = WD_SYS_SELF_PROTECT;
		return true;
	}
	return false;
}

static __always_inline unsigned long sys_arg(struct pt_regs *regs, int i)
{
	switch (i) {
	case 0:
		return BPF_CORE_READ(regs, di);
	case 1:
		return BPF_CORE_READ(regs, si);
	case 2:
		return BPF_CORE_READ(regs, dx);
	case 3:
		return BPF_CORE_READ(regs, r10);
	default:
		return BPF_CORE_READ(regs, r8);
	}
}

/* A direct (CO-RE) load, no helper call: this runs at every syscall exit on the host. */
static __always_inline long sys_nr(struct pt_regs *regs)
{
	return regs->orig_ax;
}
#else
#error "the syscall-exit recorder knows x86_64's syscall numbers only: port classify()"
#endif

/*
 * What a path syscall of a sandbox task started from, kept at sys_enter for the recorder at
 * sys_exit (the landlock backend). A relative path names a file only together with the cwd or
 * dirfd the call resolved it against, and another thread sharing the fs struct or the fd table
 * can chdir or dup2 before the record is made: so the base is taken at entry, and at exit it
 * counts only if it provably did not change in between (fs->seq, the seqcount every chdir and
 * chroot writes, is the same; the dirfd's slot still holds the same file). Kernel side only.
 */
struct wd_call {
	__u64 fs; /* struct fs_struct * */
	__u64 files; /* struct files_struct * */
	__u64 file; /* the dirfd's struct file *, or 0 for AT_FDCWD */
	__u64 base_dentry;
	__u64 base_mnt; /* struct vfsmount * */
	__u64 uname; /* the name's address in the task: with nr, which call this is */
	__u32 seq;
	__s32 nr; /* the syscall, or -1 once its exit was seen */
	__s32 dirfd;
	__u32 name_len; /* bytes of name, NUL included; 0 when it could not be read */
	char name[WD_PATH_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct wd_call);
} wd_calls SEC(".maps");

/* fs_struct as 6.1 has it: a spinlock and a seqcount; newer kernels have one seqlock_t. */
struct fs_struct___seqcount {
	spinlock_t lock;
	seqcount_spinlock_t seq;
} __attribute__((preserve_access_index));

static __always_inline __u32 fs_seq(struct fs_struct *fs)
{
	struct fs_struct___seqcount *old = (void *)fs;

	if (bpf_core_field_exists(old->lock))
		return BPF_CORE_READ(old, seq.seqcount.sequence);
	return BPF_CORE_READ(fs, seq.seqcount.seqcount.sequence);
}

/* The struct file * in slot @fd of @files, or 0. */
static __always_inline __u64 fd_file(struct files_struct *files, int fd)
{
	struct fdtable *fdt = BPF_CORE_READ(files, fdt);
	struct file **fds;
	struct file *f = NULL;

	if (fd < 0 || !fdt || (unsigned int)fd >= BPF_CORE_READ(fdt, max_fds))
		return 0;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]))
		return 0;
	return (__u64)f;
}

/*
 * Entry half of the recorder: only for the syscalls it records and only in a sandbox (every
 * syscall on the host runs this: a switch on the number, then one cgroup lookup for those).
 */
SEC("tp_btf/sys_enter")
int BPF_PROG(wd_sys_enter, struct pt_regs *regs, long id)
{
	struct task_struct *task;
	struct wd_call *c;
	struct fs_struct *fs;
	struct wd_sys d;
	__u64 cg;
	long n;

	if (!classify(id, &d) || d.path_arg < 0)
		return 0;
	if (!current_sandbox(&cg))
		return 0;
	task = (struct task_struct *)bpf_get_current_task_btf();
	c = bpf_task_storage_get(&wd_calls, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!c)
		return 0;
	c->nr = -1;
	c->uname = sys_arg(regs, d.path_arg);
	n = bpf_probe_read_user_str(c->name, sizeof(c->name), (const void *)c->uname);
	c->name_len = n > 0 && n < WD_PATH_MAX ? n : 0;
	fs = BPF_CORE_READ(task, fs);
	c->fs = (__u64)fs;
	c->seq = fs_seq(fs);
	c->files = (__u64)BPF_CORE_READ(task, files);
	c->dirfd = d.dirfd_arg >= 0 ? (__s32)sys_arg(regs, d.dirfd_arg) : AT_FDCWD;
	if (c->dirfd == AT_FDCWD) {
		c->file = 0;
		c->base_dentry = (__u64)BPF_CORE_READ(fs, pwd.dentry);
		c->base_mnt = (__u64)BPF_CORE_READ(fs, pwd.mnt);
	} else {
		struct file *f = (struct file *)fd_file(BPF_CORE_READ(task, files), c->dirfd);

		c->file = (__u64)f;
		c->base_dentry = (__u64)BPF_CORE_READ(f, f_path.dentry);
		c->base_mnt = (__u64)BPF_CORE_READ(f, f_path.mnt);
	}
	c->nr = (__s32)id;
	return 0;
}

/* Did the base @c took at the call's entry hold until now? Then the kernel resolved against it. */
static __always_inline bool base_held(struct wd_call *c)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task_btf();
	struct fs_struct *fs = BPF_CORE_READ(task, fs);
	struct files_struct *files;

	/* an odd count: a chdir was writing while the entry read, so what it read may be torn */
	if ((c->seq & 1) || (__u64)fs != c->fs || fs_seq(fs) != c->seq)
		return false;
	if (c->dirfd == AT_FDCWD)
		return (__u64)BPF_CORE_READ(fs, pwd.dentry) == c->base_dentry &&
		       (__u64)BPF_CORE_READ(fs, pwd.mnt) == c->base_mnt;
	files = BPF_CORE_READ(task, files);
	return c->file && (__u64)files == c->files && fd_file(files, c->dirfd) == c->file;
}

/*
 * The base @c took at entry, "/", then @name (kernel memory: the entry's copy, or the kernel's
 * own), into s->ev.path; false when it cannot be (the base is unreachable, or too long to join).
 */
static __always_inline bool join_base(struct wd_scratch *s, struct wd_call *c, const char *name)
{
	__u32 pos;
	long n;

	if (!walk_path(s, (struct vfsmount *)c->base_mnt, (struct dentry *)c->base_dentry))
		return false;
	pos = s->ev.path_len - 1;
	if (pos == 1)
		pos = 0; /* the base is "/" */
	if (pos > WD_PATH_MAX / 2 - 1)
		return false;
	/* hide the range from the compiler, so the mask the verifier needs stays */
	barrier_var(pos);
	pos &= WD_PATH_MAX / 2 - 1;
	s->ev.path[pos] = '/';
	n = bpf_probe_read_kernel_str(&s->ev.path[pos + 1], WD_PATH_MAX / 2, name);
	if (n <= 0 || n >= WD_PATH_MAX / 2)
		return false; /* a name that long may have been cut */
	s->ev.path_len = pos + 1 + n;
	return true;
}

/*
 * The path the denied call @nr named, into s->ev.path: absolute as the task passed it, or made
 * absolute against the base its entry saw when that base provably held for the whole call
 * (WD_EVF_AT_ENTRY). Otherwise the name as passed, flagged WD_EVF_BASE_CHANGED when the base
 * moved during the call (or cannot be joined), or read from user memory at exit (WD_EVF_LATE)
 * when the call's entry was never seen (seccomp refused it before the tracepoint).
 */
static __always_inline void exit_path(struct wd_scratch *s, struct wd_call *c, long nr,
				      const void *uname)
{
	long n;

	s->ev.path[0] = 0;
	s->ev.path_len = 1;
	if (!c || c->nr != nr || c->uname != (__u64)uname) {
		n = bpf_probe_read_user_str(s->ev.path, sizeof(s->ev.path), uname);
		if (n > 0 && n <= WD_PATH_MAX)
			s->ev.path_len = n;
		else
			s->ev.path[0] = 0;
		s->ev.flags |= WD_EVF_LATE;
		return;
	}
	if (c->name_len == 0 || c->name_len > WD_PATH_MAX)
		return;
	if (c->name[0] != '/' && base_held(c) && join_base(s, c, c->name)) {
		s->ev.flags |= WD_EVF_AT_ENTRY;
		return;
	}
	n = bpf_probe_read_kernel_str(s->ev.path, sizeof(s->ev.path), c->name);
	s->ev.path_len = n > 0 ? n : 1;
	if (n <= 0)
		s->ev.path[0] = 0;
	s->ev.flags |= c->name[0] == '/' ? WD_EVF_AT_ENTRY : WD_EVF_BASE_CHANGED;
}

#define WD_SOCKADDR_MAX 128 /* sizeof(struct sockaddr_storage) */

/*
 * Denials of socket calls the landlock backend cannot see elsewhere: connect and sendto refused
 * by Landlock's abstract-socket scope (ABI 6), bind of a unix socket where Landlock grants no
 * MAKE_SOCK, and whatever else refuses them with EACCES or EPERM (no capability for a low port).
 * The address is read from the task's memory at exit and decoded by the supervisor.
 */
static __always_inline int record_sock(struct pt_regs *regs, long nr, long ret)
{
	const void *addr = (const void *)sys_arg(regs, nr == 44 ? 4 : 1);
	__u32 len = (__u32)sys_arg(regs, nr == 44 ? 5 : 2);
	struct wd_sandbox *sb;
	struct wd_scratch *s;
	__u64 id;

	sb = current_sandbox(&id);
	if (!sb)
		return 0;
	s = scratch();
	if (!s)
		return 0;
	fill_task(&s->ev, id);
	s->ev.source = WD_SRC_SYSCALL_EXIT;
	s->ev.type = WD_EV_NET;
	s->ev.op = nr == 42 ? WD_OP_CONNECT : nr == 49 ? WD_OP_BIND : WD_OP_SENDTO;
	s->ev.verdict = WD_VERDICT_DENY;
	s->ev.rule = WD_RULE_DEFAULT;
	s->ev.access = 0;
	s->ev.err = (__s32)-ret;
	s->ev.sysno = (__u32)nr;
	s->ev.dirfd = (__s32)sys_arg(regs, 0); /* the socket */
	s->ev.flags = WD_EVF_LATE;
	s->ev.path[0] = 0;
	s->ev.path_len = 1;
	if (len > WD_SOCKADDR_MAX)
		len = WD_SOCKADDR_MAX;
	barrier_var(len);
	len &= WD_SOCKADDR_MAX * 2 - 1;
	if (addr && len > 0 && len <= WD_SOCKADDR_MAX &&
	    bpf_probe_read_user(s->ev.path, len, addr) == 0) {
		s->ev.path[len] = 0;
		s->ev.path_len = len + 1;
		s->ev.flags |= WD_EVF_SOCKADDR;
	}
	__sync_fetch_and_add(&sb->denials, 1);
	emit(&s->ev, sb);
	return 0;
}

/*
 * An ioctl Landlock refused on a device (IOCTL_DEV, ABI 5: EACCES): the device's path, read at
 * exit from the fd the call named, and the request.
 */
static __always_inline int record_ioctl(struct wd_sandbox *sb, __u64 id, struct pt_regs *regs,
					long ret)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task_btf();
	int fd = (int)sys_arg(regs, 0);
	struct wd_scratch *s;
	struct file *f;

	s = scratch();
	if (!s)
		return 0;
	fill_task(&s->ev, id);
	s->ev.source = WD_SRC_SYSCALL_EXIT;
	s->ev.type = WD_EV_FILE;
	s->ev.op = WD_OP_IOCTL;
	s->ev.verdict = WD_VERDICT_DENY;
	s->ev.rule = WD_RULE_DEFAULT;
	s->ev.access = 0;
	s->ev.err = (__s32)-ret;
	s->ev.sysno = 16;
	s->ev.dirfd = fd;
	s->ev.arg = sys_arg(regs, 1);
	s->ev.flags = WD_EVF_LATE;
	f = (struct file *)fd_file(BPF_CORE_READ(task, files), fd);
	if (!f || !walk_path(s, BPF_CORE_READ(f, f_path.mnt), BPF_CORE_READ(f, f_path.dentry))) {
		s->ev.path[0] = 0;
		s->ev.path_len = 1;
	}
	__sync_fetch_and_add(&sb->denials, 1);
	emit(&s->ev, sb);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(wd_sys_exit, struct pt_regs *regs, long ret)
{
	struct wd_call *c = NULL;
	struct wd_sandbox *sb;
	struct wd_scratch *s;
	struct wd_sys d;
	__u64 id;
	long nr;

	nr = sys_nr(regs);
	/* bpf-lsm's hooks record the rest: here only the refusals no hook sees */
	if (wd_sys_exit_privileged_only &&
	    (!classify(nr, &d) || d.self_protect != WD_SYS_PRIVILEGED))
		return 0;
	if (nr == 42 || nr == 44 || nr == 49) /* connect, sendto, bind */
		return ret == -EACCES || ret == -EPERM ? record_sock(regs, nr, ret) : 0;
	if (!classify(nr, &d))
		return 0;
	/* the entry's base belongs to this call only: forget it (host tasks have no storage) */
	if (d.path_arg >= 0) {
		c = bpf_task_storage_get(&wd_calls, bpf_get_current_task_btf(), 0, 0);
		if (c && c->nr != nr)
			c = NULL;
	}
	if (ret != -EACCES && ret != -EPERM) {
		if (c)
			c->nr = -1;
		return 0;
	}
	sb = current_sandbox(&id);
	if (!sb)
		return 0;
	/* unlinkat(AT_REMOVEDIR) is a rmdir; unshare and clone only count for a user namespace */
	if (nr == 263 && (sys_arg(regs, 2) & AT_REMOVEDIR))
		d.op = WD_OP_RMDIR;
	if ((nr == 272 || nr == 56) && !(sys_arg(regs, 0) & CLONE_NEWUSER))
		return 0;
	if (nr == 16 && sys_arg(regs, 1) != TIOCSTI && sys_arg(regs, 1) != TIOCLINUX)
		return ret == -EACCES ? record_ioctl(sb, id, regs, ret) : 0;
	if (d.self_protect && ret != -EPERM)
		return 0;

	s = scratch();
	if (!s)
		return 0;
	fill_task(&s->ev, id);
	s->ev.source = WD_SRC_SYSCALL_EXIT;
	s->ev.type = d.type;
	s->ev.op = d.op;
	s->ev.verdict = WD_VERDICT_DENY;
	s->ev.rule = d.self_protect ? WD_RULE_SELF_PROTECT : WD_RULE_DEFAULT;
	s->ev.access = d.type == WD_EV_EXEC ? WD_ACC_EXEC : 0;
	if (d.flags_arg >= 0) {
		unsigned long fl = sys_arg(regs, d.flags_arg);

		if ((fl & O_ACCMODE) != O_WRONLY)
			s->ev.access |= WD_ACC_READ;
		if ((fl & O_ACCMODE) == O_WRONLY || (fl & O_ACCMODE) == O_RDWR ||
		    (fl & (O_CREAT | O_TRUNC)))
			s->ev.access |= WD_ACC_WRITE;
	} else if (d.type == WD_EV_FILE && d.op != WD_OP_OPEN) {
		s->ev.access = WD_ACC_WRITE; /* every other path syscall here changes the tree */
	}
	s->ev.err = (__s32)-ret;
	s->ev.sysno = (__u32)nr;
	s->ev.dirfd = d.dirfd_arg >= 0 ? (__s32)sys_arg(regs, d.dirfd_arg) : AT_FDCWD;
	s->ev.path[0] = 0;
	s->ev.path_len = 1;
	if (d.path_arg >= 0) {
		exit_path(s, c, nr, (const void *)sys_arg(regs, d.path_arg));
		if (c)
			c->nr = -1;
	} else if (nr == 16) {
		/* not in the audit formatter's syscall table: name it here */
		__builtin_memcpy(s->ev.path, "ioctl", sizeof("ioctl"));
		s->ev.path_len = sizeof("ioctl");
	}
	__sync_fetch_and_add(&sb->denials, 1);
	emit(&s->ev, sb);
	return 0;
}

/*
 * Every exec that happened in a sandbox, for the landlock backend (on bpf-lsm, bprm_check records
 * them). The name is the one the task passed: the supervisor makes a relative one absolute.
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(wd_exec_done, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	const char *filename;
	struct wd_call *c;
	struct wd_sandbox *sb;
	struct wd_scratch *s;
	__u64 id;
	long n;

	sb = current_sandbox(&id);
	if (!sb)
		return 0;
	s = scratch();
	if (!s)
		return 0;
	fill_task(&s->ev, id);
	s->ev.source = WD_SRC_EXEC_TRACEPOINT;
	s->ev.type = WD_EV_EXEC;
	s->ev.op = WD_OP_EXEC;
	s->ev.verdict = WD_VERDICT_ALLOW;
	s->ev.rule = WD_RULE_DEFAULT;
	s->ev.access = WD_ACC_EXEC;
	s->ev.dirfd = AT_FDCWD;
	filename = BPF_CORE_READ(bprm, filename);
	n = bpf_probe_read_kernel_str(s->ev.path, sizeof(s->ev.path), filename);
	if (n > 0 && n <= WD_PATH_MAX) {
		s->ev.path_len = n;
	} else {
		s->ev.path[0] = 0;
		s->ev.path_len = 1;
	}
	/*
	 * A relative name is joined to the base the execve had at its entry, as a denial's is: the
	 * new program may chdir before the supervisor could read /proc/PID/cwd.
	 */
	c = bpf_task_storage_get(&wd_calls, bpf_get_current_task_btf(), 0, 0);
	if (n > 1 && s->ev.path[0] != '/' && c && (c->nr == 59 || c->nr == 322)) {
		s->ev.dirfd = c->dirfd;
		if (base_held(c) && join_base(s, c, filename)) {
			s->ev.flags |= WD_EVF_AT_ENTRY;
		} else {
			n = bpf_probe_read_kernel_str(s->ev.path, sizeof(s->ev.path), filename);
			s->ev.path_len = n > 0 ? n : 1;
			if (n <= 0)
				s->ev.path[0] = 0;
			s->ev.flags |= WD_EVF_BASE_CHANGED;
		}
	}
	emit(&s->ev, sb);
	return 0;
}
