// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder object: denials seen where a syscall returns, and every exec that happened, for the
 * landlock backend (Landlock and seccomp decide where BPF cannot see). On bpf-lsm hosts only its
 * sys_exit program is loaded, privileged-only, beside the LSM object (bpf/wd_lsm.bpf.c), for the
 * refusals of the seccomp filter that no hook sees. Maps and helpers shared with the LSM object:
 * bpf/wd_maps.bpf.h, bpf/wd_common.bpf.h; the syscalls it knows: bpf/wd_syscalls.h.
 */
#include "wd_common.bpf.h"
#include "wd_net.bpf.h"

/* weak: linked with the other objects of the host set (bpf/wd_maps.bpf.h), one kept */
char LICENSE[] SEC("license") __weak = "GPL";

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

#if defined(__TARGET_ARCH_x86)
/* What the recorder knows of syscall @nr, from bpf/wd_syscalls.h's lists; false for the rest. */
static __always_inline bool classify(long nr, struct wd_sys *d)
{
	__builtin_memset(d, 0, sizeof(*d));
	d->path_arg = -1;
	d->dirfd_arg = -1;
	d->flags_arg = -1;
	d->type = WD_EV_SYSCALL;
	d->op = WD_OP_SYSCALL;
	switch (nr) {
#define PATH_CASE(nr_, name, type_, op_, path_, dirfd_, flags_)                                  \
	case nr_:                                                                                \
		d->type = WD_EV_##type_;                                                         \
		d->op = WD_OP_##op_;                                                             \
		d->path_arg = path_;                                                             \
		d->dirfd_arg = dirfd_;                                                           \
		d->flags_arg = flags_;                                                           \
		return true;
	WD_SYSCALLS_PATH(PATH_CASE)
#undef PATH_CASE
#define CASE(nr_, name) case nr_:
	/* refused by the seccomp filter (supervisor/backend/seccomp_guard.c) on both backends */
	WD_SYSCALLS_PRIVILEGED(CASE)
	case WD_SYSCALL_PERSONALITY: /* an odd persona */
		d->self_protect = WD_SYS_PRIVILEGED;
		return true;
	/* landlock backend only: on bpf-lsm the LSM programs refuse and record these */
	WD_SYSCALLS_SELF_PROTECT(CASE)
	WD_SYSCALLS_BY_ARG(CASE)
#undef CASE
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
	pos = s->ev.r.path_len - 1;
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
	s->ev.r.path_len = pos + 1 + n;
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
	s->ev.r.path_len = 1;
	if (!c || c->nr != nr || c->uname != (__u64)uname) {
		n = bpf_probe_read_user_str(s->ev.path, sizeof(s->ev.path), uname);
		if (n > 0 && n <= WD_PATH_MAX)
			s->ev.r.path_len = n;
		else
			s->ev.path[0] = 0;
		s->ev.r.flags |= WD_EVF_LATE;
		return;
	}
	if (c->name_len == 0 || c->name_len > WD_PATH_MAX)
		return;
	if (c->name[0] != '/' && base_held(c) && join_base(s, c, c->name)) {
		s->ev.r.flags |= WD_EVF_AT_ENTRY;
		return;
	}
	n = bpf_probe_read_kernel_str(s->ev.path, sizeof(s->ev.path), c->name);
	s->ev.r.path_len = n > 0 ? n : 1;
	if (n <= 0)
		s->ev.path[0] = 0;
	s->ev.r.flags |= c->name[0] == '/' ? WD_EVF_AT_ENTRY : WD_EVF_BASE_CHANGED;
}

/* The sandbox of the current task and the scratch to build its record in; NULL outside. */
static __always_inline struct wd_scratch *sandbox_scratch(struct wd_sandbox **sb, __u64 *id)
{
	*sb = current_sandbox(id);
	return *sb ? scratch() : NULL;
}

/* The fixed part of a refusal seen at syscall exit, source and verdict included. */
#define WD_EXIT_VERDICT(r, op_, rule_, ret, nr)                                                \
	do {                                                                                    \
		(r)->op = (op_);                                                                \
		(r)->verdict = WD_VERDICT_DENY;                                                 \
		(r)->source = WD_SRC_SYSCALL_EXIT;                                              \
		(r)->rule = (rule_);                                                            \
		(r)->err = (__s32)-(ret);                                                       \
		(r)->sysno = (__u32)(nr);                                                       \
	} while (0)

/*
 * Denials of socket calls the landlock backend cannot see elsewhere: connect and sendto refused
 * by Landlock's abstract-socket scope (ABI 6), bind of a unix socket where Landlock grants no
 * MAKE_SOCK, and whatever else refuses them with EACCES or EPERM (no capability for a low port).
 * The address is read from the task's memory at exit and decoded by the supervisor.
 */
static __always_inline int record_sock(struct pt_regs *regs, long nr, long ret)
{
	int addr_arg = 1, len_arg = 2;
	__u16 op = WD_OP_CONNECT;
	struct wd_sandbox *sb;
	struct wd_scratch *s;
	struct wd_sock_buf *b;
	const void *addr;
	__u64 id;
	__u32 len;

	switch (nr) {
#define SOCK_CASE(nr_, name, op_, addr_, len_)                                                   \
	case nr_:                                                                                \
		op = WD_OP_##op_;                                                                \
		addr_arg = addr_;                                                                \
		len_arg = len_;                                                                  \
		break;
	WD_SYSCALLS_SOCK(SOCK_CASE)
#undef SOCK_CASE
	}
	s = sandbox_scratch(&sb, &id);
	if (!s)
		return 0;
	addr = (const void *)sys_arg(regs, addr_arg);
	len = (__u32)sys_arg(regs, len_arg);
	b = &s->sock;
	fill_hdr(&b->r.h, WD_EV_NET, id);
	WD_EXIT_VERDICT(&b->r, op, WD_RULE_DEFAULT, ret, nr);
	b->r.fd = (__s32)sys_arg(regs, 0); /* the socket */
	b->r.flags = WD_EVF_LATE;
	b->r.proto = 0;
	b->r.addr_len = 0;
	if (len > WD_SOCKADDR_MAX)
		len = WD_SOCKADDR_MAX;
	barrier_var(len);
	len &= WD_SOCKADDR_MAX * 2 - 1;
	if (addr && len > 0 && len <= WD_SOCKADDR_MAX && bpf_probe_read_user(b->addr, len, addr) == 0) {
		b->r.addr_len = len;
		b->r.flags |= WD_EVF_SOCKADDR;
	}
	__sync_fetch_and_add(&sb->denials, 1);
	emit_rec(b, WD_REC_SOCK_SIZE + (__u64)b->r.addr_len, sizeof(*b), sb);
	return 0;
}

/* A file record of a refusal at syscall exit, its path still to be filled. */
static __always_inline struct wd_file_buf *exit_file(struct wd_scratch *s, __u64 id, __u16 type,
						     __u16 op, __u32 rule, long ret)
{
	fill_task(&s->ev, id);
	s->ev.r.h.type = type;
	s->ev.r.source = WD_SRC_SYSCALL_EXIT;
	s->ev.r.op = op;
	s->ev.r.verdict = WD_VERDICT_DENY;
	s->ev.r.rule = rule;
	s->ev.r.access = 0;
	s->ev.r.err = (__s32)-ret;
	s->ev.path[0] = 0;
	s->ev.r.path_len = 1;
	return &s->ev;
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
	exit_file(s, id, WD_EV_FILE, WD_OP_IOCTL, WD_RULE_DEFAULT, ret);
	s->ev.r.dirfd = fd;
	s->ev.r.arg = sys_arg(regs, 1);
	s->ev.r.flags = WD_EVF_LATE;
	f = (struct file *)fd_file(BPF_CORE_READ(task, files), fd);
	if (!f || !walk_path(s, BPF_CORE_READ(f, f_path.mnt), BPF_CORE_READ(f, f_path.dentry))) {
		s->ev.path[0] = 0;
		s->ev.r.path_len = 1;
	}
	__sync_fetch_and_add(&sb->denials, 1);
	emit(&s->ev, sb);
	return 0;
}

/* A syscall refused whole (by warden's seccomp filter): the record names it by number. */
static __always_inline int record_syscall(struct wd_sandbox *sb, __u64 id, long nr, long ret)
{
	struct wd_scratch *s = scratch();
	struct wd_syscall_buf *b;

	if (!s)
		return 0;
	b = &s->sys;
	fill_hdr(&b->r.h, WD_EV_SYSCALL, id);
	WD_EXIT_VERDICT(&b->r, WD_OP_SYSCALL, WD_RULE_SELF_PROTECT, ret, nr);
	b->r.__pad0 = 0;
	b->r.__pad1 = 0;
	b->name[0] = 0;
	b->r.name_len = 1;
	__sync_fetch_and_add(&sb->denials, 1);
	emit_rec(b, WD_REC_SYSCALL_SIZE + 1, sizeof(*b), sb);
	return 0;
}

/* What an open(2)-like call with @fl asked for, or a path call that changes the tree. */
static __always_inline __u32 exit_access(struct pt_regs *regs, struct wd_sys *d)
{
	unsigned long fl;
	__u32 acc = d->type == WD_EV_EXEC ? WD_ACC_EXEC : 0;

	if (d->flags_arg < 0)
		return d->type == WD_EV_FILE && d->op != WD_OP_OPEN ? WD_ACC_WRITE : acc;
	fl = sys_arg(regs, d->flags_arg);
	if ((fl & O_ACCMODE) != O_WRONLY)
		acc |= WD_ACC_READ;
	if ((fl & O_ACCMODE) == O_WRONLY || (fl & O_ACCMODE) == O_RDWR || (fl & (O_CREAT | O_TRUNC)))
		acc |= WD_ACC_WRITE;
	return acc;
}

/* x86_64 numbers of socket calls the recorder only needs to tell apart (not in its lists) */
#define WD_NR_X_SOCKET 41
#define WD_NR_X_SENDMSG 46
#define WD_NR_X_SENDMMSG 307

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
	if (nr == WD_NR_connect || nr == WD_NR_sendto || nr == WD_NR_bind || nr == WD_NR_X_SENDMSG ||
	    nr == WD_NR_X_SENDMMSG || nr == WD_NR_X_SOCKET) {
		__u64 pid_tgid = bpf_get_current_pid_tgid();

		/* a cgroup program (bpf/wd_net.bpf.c) refused and recorded this one already */
		if (ret == -EPERM && bpf_map_lookup_elem(&wd_net_marks, &pid_tgid)) {
			bpf_map_delete_elem(&wd_net_marks, &pid_tgid);
			return 0;
		}
		if (nr != WD_NR_connect && nr != WD_NR_sendto && nr != WD_NR_bind)
			return 0;
		return ret == -EACCES || ret == -EPERM ? record_sock(regs, nr, ret) : 0;
	}
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
	if (nr == WD_NR_unlinkat && (sys_arg(regs, 2) & AT_REMOVEDIR))
		d.op = WD_OP_RMDIR;
	if ((nr == WD_NR_unshare || nr == WD_NR_clone) && !(sys_arg(regs, 0) & CLONE_NEWUSER))
		return 0;
	if (nr == WD_NR_ioctl && sys_arg(regs, 1) != TIOCSTI && sys_arg(regs, 1) != TIOCLINUX)
		return ret == -EACCES ? record_ioctl(sb, id, regs, ret) : 0;
	if (d.self_protect && ret != -EPERM)
		return 0;
	if (d.type == WD_EV_SYSCALL)
		return record_syscall(sb, id, nr, ret);

	s = scratch();
	if (!s)
		return 0;
	exit_file(s, id, d.type, d.op, WD_RULE_DEFAULT, ret);
	s->ev.r.access = exit_access(regs, &d);
	s->ev.r.dirfd = d.dirfd_arg >= 0 ? (__s32)sys_arg(regs, d.dirfd_arg) : AT_FDCWD;
	if (d.path_arg >= 0) {
		exit_path(s, c, nr, (const void *)sys_arg(regs, d.path_arg));
		if (c)
			c->nr = -1;
	}
	__sync_fetch_and_add(&sb->denials, 1);
	emit(&s->ev, sb);
	return 0;
}

/*
 * Every exec that happened in a sandbox, for the landlock backend (on bpf-lsm, bprm_check records
 * them). The name is the file executed, resolved as Landlock resolved it to decide (so the rule
 * the supervisor names is the one that allowed it: /bin/true runs /usr/bin/true); for a script,
 * whose file here is its interpreter, it is the name the task passed, made absolute.
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

	s = sandbox_scratch(&sb, &id);
	if (!s)
		return 0;
	fill_task(&s->ev, id);
	s->ev.r.source = WD_SRC_EXEC_TRACEPOINT;
	s->ev.r.h.type = WD_EV_EXEC;
	s->ev.r.op = WD_OP_EXEC;
	s->ev.r.verdict = WD_VERDICT_ALLOW;
	s->ev.r.rule = WD_RULE_DEFAULT;
	s->ev.r.access = WD_ACC_EXEC;
	s->ev.r.dirfd = AT_FDCWD;
	filename = BPF_CORE_READ(bprm, filename);
	if (BPF_CORE_READ(bprm, interp) == filename &&
	    walk_path(s, BPF_CORE_READ(bprm, file, f_path.mnt),
		      BPF_CORE_READ(bprm, file, f_path.dentry))) {
		emit(&s->ev, sb);
		return 0;
	}
	n = bpf_probe_read_kernel_str(s->ev.path, sizeof(s->ev.path), filename);
	if (n > 0 && n <= WD_PATH_MAX) {
		s->ev.r.path_len = n;
	} else {
		s->ev.path[0] = 0;
		s->ev.r.path_len = 1;
	}
	/*
	 * A relative name is joined to the base the execve had at its entry, as a denial's is: the
	 * new program may chdir before the supervisor could read /proc/PID/cwd.
	 */
	c = bpf_task_storage_get(&wd_calls, bpf_get_current_task_btf(), 0, 0);
	if (n > 1 && s->ev.path[0] != '/' && c && (c->nr == WD_NR_execve || c->nr == WD_NR_execveat)) {
		s->ev.r.dirfd = c->dirfd;
		if (base_held(c) && join_base(s, c, filename)) {
			s->ev.r.flags |= WD_EVF_AT_ENTRY;
		} else {
			n = bpf_probe_read_kernel_str(s->ev.path, sizeof(s->ev.path), filename);
			s->ev.r.path_len = n > 0 ? n : 1;
			if (n <= 0)
				s->ev.path[0] = 0;
			s->ev.r.flags |= WD_EVF_BASE_CHANGED;
		}
	}
	emit(&s->ev, sb);
	return 0;
}
