// SPDX-License-Identifier: GPL-2.0
/*
 * The LSM object (bpf-lsm backend): file, exec and self-protection rules for tasks in sandbox
 * cgroups, decided in the hooks and recorded from them. The recorder object
 * (bpf/wd_recorder.bpf.c) runs beside it for the refusals no hook sees; both share their maps
 * (bpf/wd_maps.bpf.h) and helpers (bpf/wd_common.bpf.h).
 *
 * Every program first returns the previous verdict, then returns allow at once for a task whose
 * cgroup is not a sandbox (WD_PROLOGUE): these hooks run on every open, exec, mmap, unlink,
 * signal ... on the host.
 */
#include "wd_common.bpf.h"
#include "wd_devid.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * Argument index of the previous verdict of lsm/bpf: bpf_lsm_bpf gained a `bool kernel` argument
 * after 6.1. The loader counts the hook's arguments in the kernel's BTF and sets this before load,
 * so the verifier only ever sees the right branch.
 */
const volatile __u32 wd_bpf_ret_arg = 3;

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, WD_MAX_PATHS);
	__type(key, struct wd_path_key);
	__type(value, struct wd_path_rule);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} wd_paths SEC(".maps");

/* Protected existing objects by (dev, ino); filled by the loader (wd_progs_protect_inode). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, WD_MAX_INODES);
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
	__uint(max_entries, WD_MAX_PROTECTS);
	__type(key, struct wd_path_key);
	__type(value, struct wd_protect_val);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} wd_protect SEC(".maps");

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

/* sandbox_of() as a program's first statement: declares sb and id for the rest of it. */
#define WD_PROLOGUE(ret)                                                                        \
	__u64 id;                                                                               \
	struct wd_sandbox *sb = sandbox_of((ret), &id);                                         \
	if (!sb)                                                                                \
		return (ret)

static __always_inline int access_idx(__u32 want)
{
	if (want & WD_ACC_RUN)
		return WD_ACC_IDX_RUN;
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
	struct wd_file_buf *ev = &s->ev;
	struct wd_path_key *key = &s->key;
	struct wd_path_rule *rule;
	__u32 len = ev->r.path_len;
	__u32 denied;

	if (len > WD_LPM_PATH_BYTES)
		len = WD_LPM_PATH_BYTES;
	key->prefixlen = 64 + len * 8;
	key->sandbox[0] = (__u32)sandbox;
	key->sandbox[1] = (__u32)(sandbox >> 32);
	__builtin_memcpy(key->path, ev->path, WD_LPM_PATH_BYTES);

	rule = bpf_map_lookup_elem(&wd_paths, key);
	denied = rule ? want & ~rule->allow : want;
	ev->r.access = want;
	if (!denied) {
		int i = access_idx(want);

		ev->r.verdict = WD_VERDICT_ALLOW;
		ev->r.rule = (rule && i < WD_ACC_IDX_NR) ? rule->rule[i] : WD_RULE_DEFAULT;
		return;
	}
	/* the rule that denied: an fs.deny entry names itself for every access, others none */
	ev->r.rule = WD_RULE_DEFAULT;
	if (rule) {
		int i = access_idx(want);

		if (i < WD_ACC_IDX_NR)
			ev->r.rule = rule->rule[i];
	}
	ev->r.verdict = (flags & WD_SB_AUDIT_MODE) ? WD_VERDICT_AUDIT : WD_VERDICT_DENY;
}

static __always_inline bool resolve(struct wd_file_buf *ev, const struct path *path)
{
	long n = bpf_d_path((struct path *)path, ev->path, sizeof(ev->path));

	if (n <= 0 || n > WD_PATH_MAX)
		return false;
	ev->r.path_len = n;
	return mnt_reachable(BPF_CORE_READ(path, mnt));
}

static __always_inline void unresolved(struct wd_file_buf *ev, __u32 flags, __u32 want)
{
	ev->path[0] = 0;
	ev->r.path_len = 1;
	ev->r.access = want;
	ev->r.rule = WD_RULE_DEFAULT;
	ev->r.verdict = (flags & WD_SB_AUDIT_MODE) ? WD_VERDICT_AUDIT : WD_VERDICT_DENY;
}

/*
 * warden's own defences (cgroupfs and bpffs writes, bpf(), mount, signals and ptrace across the
 * sandbox's edge) hold in audit mode too: a sandbox that could leave or blind its monitor would
 * make the audit itself worthless.
 */
static __always_inline void self_protect(struct wd_file_buf *ev, __u32 want)
{
	ev->r.access = want;
	ev->r.rule = WD_RULE_SELF_PROTECT;
	ev->r.verdict = WD_VERDICT_DENY;
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

	if (!inode || s->ev.r.verdict != WD_VERDICT_ALLOW)
		return;
	k.sandbox = sandbox;
	k.ino = BPF_CORE_READ(inode, i_ino);
	k.dev = wd_inode_dev(inode);
	r = bpf_map_lookup_elem(&wd_inodes, &k);
	if (!r || !(any ? r->deny : r->deny & want))
		return;
	s->ev.r.rule = r->rule;
	s->ev.r.verdict = (flags & WD_SB_AUDIT_MODE) ? WD_VERDICT_AUDIT : WD_VERDICT_DENY;
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

	if (!prot || s->ev.r.verdict != WD_VERDICT_ALLOW)
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
	s->ev.r.rule = rule;
	s->ev.r.verdict = (flags & WD_SB_AUDIT_MODE) ? WD_VERDICT_AUDIT : WD_VERDICT_DENY;
}

static __always_inline int verdict_errno(struct wd_file_buf *ev, struct wd_sandbox *sb)
{
	if (ev->r.verdict == WD_VERDICT_ALLOW || ev->r.verdict == WD_VERDICT_AUDIT) {
		if (ev->r.verdict == WD_VERDICT_AUDIT)
			emit(ev, sb);
		return 0;
	}
	__sync_fetch_and_add(&sb->denials, 1);
	ev->r.err = EPERM;
	emit(ev, sb);
	return -EPERM;
}
SEC("lsm/file_open")
int BPF_PROG(wd_file_open, struct file *file, int ret)
{
	struct wd_scratch *s;
	__u32 want = 0;
	unsigned int mode;

	WD_PROLOGUE(ret);

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
	s->ev.r.h.type = WD_EV_FILE;
	s->ev.r.op = WD_OP_OPEN;
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
			if (s->ev.r.verdict != WD_VERDICT_ALLOW)
				s->ev.r.op = WD_OP_TRUNCATE;
		}
	}
	if (s->ev.r.verdict != WD_VERDICT_ALLOW && want == WD_ACC_EXEC)
		s->ev.r.op = WD_OP_EXEC;
	return verdict_errno(&s->ev, sb);
}

SEC("lsm/bprm_check_security")
int BPF_PROG(wd_bprm_check, struct linux_binprm *bprm, int ret)
{
	struct wd_scratch *s;

	WD_PROLOGUE(ret);

	s = scratch();
	if (!s)
		return -EPERM;
	fill_task(&s->ev, id);
	s->ev.r.h.type = WD_EV_EXEC;
	s->ev.r.op = WD_OP_EXEC;
	if (resolve(&s->ev, &bprm->file->f_path)) {
		decide(s, id, sb->flags, WD_ACC_EXEC);
		/*
		 * exec.allow: the program run (this stage's file: the script, then its
		 * interpreter; never the ELF interpreter the kernel maps for it, which fs.exec
		 * alone decides) must be one of its entries; `ld.so PROGRAM` runs ld.so.
		 */
		if (s->ev.r.verdict == WD_VERDICT_ALLOW && (sb->flags & WD_SB_EXEC_ALLOW)) {
			decide(s, id, sb->flags, WD_ACC_RUN);
			s->ev.r.access = WD_ACC_EXEC;
		}
		check_inode(s, id, sb->flags, BPF_CORE_READ(bprm, file, f_inode), WD_ACC_EXEC,
			    false);
	} else {
		unresolved(&s->ev, sb->flags, WD_ACC_EXEC);
	}
	/* Every exec is recorded, allowed or not. */
	if (s->ev.r.verdict == WD_VERDICT_ALLOW)
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
	s->ev.r.h.type = WD_EV_FILE;
	s->ev.r.op = WD_OP_EXEC;
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
	WD_PROLOGUE(ret);
	if (!file || !(prot & PROT_EXEC))
		return 0;
	return check_exec_map(sb, id, file, false);
}

SEC("lsm/file_mprotect")
int BPF_PROG(wd_file_mprotect, struct vm_area_struct *vma, unsigned long reqprot,
	     unsigned long prot, int ret)
{
	struct file *file;

	WD_PROLOGUE(ret);
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
	s->ev.r.h.type = WD_EV_FILE;
	s->ev.r.op = op;
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
		WD_PROLOGUE(ret);                                                           \
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
		WD_PROLOGUE(ret);                                                           \
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
	WD_PROLOGUE(ret);
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
	int err;

	WD_PROLOGUE(ret);
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
	int err;

	WD_PROLOGUE(ret);
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
	if (s->ev.r.verdict == WD_VERDICT_ALLOW) {
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
		s->ev.r.h.type = WD_EV_FILE;
		s->ev.r.op = op;
		s->ev.path[0] = 0;
		s->ev.r.path_len = 1;
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
	s->ev.r.h.type = WD_EV_FILE;
	s->ev.r.op = op;
	s->ev.r.verdict = WD_VERDICT_ALLOW;
	bpf_loop(WD_SB_MOUNTS, try_mount, &c, 0);
	if (!c.in_ns && c.ended)
		return 0;
	/* the loop's callbacks used the scratch event too: fill the header again */
	fill_task(&s->ev, id);
	s->ev.r.h.type = WD_EV_FILE;
	s->ev.r.op = op;
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
	WD_PROLOGUE(ret);
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

/* The hooks that get a dentry and no mount: xattrs and ACLs, decided by check_dentry(). */
#define WD_DENTRY_HOOK(hook, prog, ...)                                                        \
	SEC("lsm/" #hook)                                                                       \
	int BPF_PROG(prog, void *idmap, struct dentry *dentry, ##__VA_ARGS__, int ret)         \
	{                                                                                       \
		WD_PROLOGUE(ret);                                                               \
		return check_dentry(sb, id, WD_OP_XATTR, dentry, 0);                            \
	}

/* The first argument is a user namespace on 6.1 and an idmap later: never read here. */
WD_DENTRY_HOOK(inode_setxattr, wd_inode_setxattr, const char *name, const void *value,
	       size_t size, int flags)
WD_DENTRY_HOOK(inode_removexattr, wd_inode_removexattr, const char *name)
/* POSIX ACLs left the xattr hooks in 6.2; the loader leaves these out where they do not exist. */
WD_DENTRY_HOOK(inode_set_acl, wd_inode_set_acl, const char *acl_name, struct posix_acl *kacl)
WD_DENTRY_HOOK(inode_remove_acl, wd_inode_remove_acl, const char *acl_name)

/* Self-protection: a syscall refused whole; the record names it (@len bytes, NUL included). */
static __always_inline int refuse(struct wd_sandbox *sb, __u64 id, const char *name, __u32 len)
{
	struct wd_scratch *s = scratch();
	struct wd_syscall_buf *b;

	if (!s)
		return -EPERM;
	b = &s->sys;
	fill_hdr(&b->r.h, WD_EV_SYSCALL, id);
	b->r.op = WD_OP_SYSCALL;
	b->r.verdict = WD_VERDICT_DENY;
	b->r.source = WD_SRC_LSM;
	b->r.__pad0 = 0;
	b->r.__pad1 = 0;
	b->r.rule = WD_RULE_SELF_PROTECT;
	b->r.err = EPERM;
	b->r.sysno = 0;
	if (len > WD_SYSCALL_NAME_MAX)
		len = WD_SYSCALL_NAME_MAX;
	bpf_probe_read_kernel_str(b->name, len, name);
	b->r.name_len = len;
	__sync_fetch_and_add(&sb->denials, 1);
	emit_rec(b, WD_REC_SYSCALL_SIZE + (__u64)len, sizeof(*b), sb);
	return -EPERM;
}

#define REFUSE(sb, id, name) refuse(sb, id, name, sizeof(name))

/* bpf() from a sandbox could read or detach the very programs that confine it. */
SEC("lsm/bpf")
int wd_bpf(unsigned long long *ctx)
{
	long ret;

	/*
	 * Constant offsets in asm: the verifier refuses a context load at a computed offset, which
	 * is what clang makes of ctx[wd_bpf_ret_arg == 4 ? 4 : 3].
	 */
	if (wd_bpf_ret_arg == 4)
		asm volatile("%0 = *(u64 *)(%1 + 32)" : "=r"(ret) : "r"(ctx));
	else
		asm volatile("%0 = *(u64 *)(%1 + 24)" : "=r"(ret) : "r"(ctx));
	WD_PROLOGUE(ret);
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
	struct wd_scratch *s;

	WD_PROLOGUE(ret);
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
	WD_PROLOGUE(ret);
	if (task_cgroup(p) == id)
		return 0;
	return REFUSE(sb, id, "kill");
}

/* limits.fork_rate of each sandbox that has one (struct wd_fork); filled by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, WD_MAX_SANDBOXES);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* entries made from user space only */
	__type(key, __u64);
	__type(value, struct wd_fork);
} wd_fork SEC(".maps");

/*
 * A new task: current is its parent, so a sandbox's tasks are held to its fork_rate and every
 * other task passes after one lookup. Over the rate the fork, vfork or clone fails EAGAIN (as
 * at RLIMIT_NPROC), counted in the entry and read at the sandbox's end: no record per refusal,
 * a fork loop would flood the ring.
 */
SEC("lsm/task_alloc")
int BPF_PROG(wd_task_alloc, struct task_struct *task, unsigned long clone_flags, int ret)
{
	struct wd_fork *f;
	__u64 now, tat;
	int verdict = 0;

	WD_PROLOGUE(ret);
	if (clone_flags & CLONE_THREAD)
		return 0;
	f = bpf_map_lookup_elem(&wd_fork, &id);
	if (!f)
		return 0;
	now = bpf_ktime_get_ns();
	bpf_spin_lock(&f->lock);
	tat = f->tat_ns > now ? f->tat_ns : now;
	if (tat - now + f->interval_ns > f->burst_ns) {
		f->refused++;
		verdict = -EAGAIN;
	} else {
		f->tat_ns = tat + f->interval_ns;
		f->allowed++;
	}
	bpf_spin_unlock(&f->lock);
	return verdict;
}

/* Hooks that refuse whatever their arguments: @name is what the record names. */
#define WD_REFUSE_HOOK(hook, prog, name, ...)                                                  \
	SEC("lsm/" #hook)                                                                       \
	int BPF_PROG(prog, ##__VA_ARGS__, int ret)                                              \
	{                                                                                       \
		WD_PROLOGUE(ret);                                                               \
		return REFUSE(sb, id, name);                                                    \
	}

/* Mounts would put other objects under allowed paths; chroot and pivot_root move the root. */
WD_REFUSE_HOOK(sb_mount, wd_sb_mount, "mount", const char *dev_name, const struct path *path,
	       const char *type, unsigned long flags, void *data)
WD_REFUSE_HOOK(move_mount, wd_move_mount, "move_mount", const struct path *from_path,
	       const struct path *to_path)
WD_REFUSE_HOOK(sb_umount, wd_sb_umount, "umount2", struct vfsmount *mnt, int flags)
WD_REFUSE_HOOK(sb_pivotroot, wd_sb_pivotroot, "pivot_root", const struct path *old_path,
	       const struct path *new_path)
WD_REFUSE_HOOK(path_chroot, wd_path_chroot, "chroot", const struct path *path)
/* A user namespace gives back every capability inside it: no policy key allows one yet. */
WD_REFUSE_HOOK(userns_create, wd_userns_create, "userns", const struct cred *cred)

/* Typing into a terminal (root keeps CAP_SYS_ADMIN, which TIOCSTI honours on any tty). */
SEC("lsm/file_ioctl")
int BPF_PROG(wd_file_ioctl, struct file *file, unsigned int cmd, unsigned long arg, int ret)
{
	/* the cheap test first: ioctls are frequent on the host */
	if (ret || (cmd != TIOCSTI && cmd != TIOCLINUX))
		return ret;
	WD_PROLOGUE(ret);
	return REFUSE(sb, id, "ioctl");
}