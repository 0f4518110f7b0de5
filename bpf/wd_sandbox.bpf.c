// SPDX-License-Identifier: GPL-2.0
/*
 * BPF-LSM side of warden: file and exec rules for tasks in sandbox cgroups.
 *
 * Every program first returns the previous verdict, then returns allow at once for a task whose
 * cgroup is not a sandbox: these hooks run on every open and exec on the host.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "wd_abi.h"

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

/* Per-CPU scratch: an event is too large for the 512-byte stack. */
struct wd_scratch {
	struct wd_event ev;
	struct wd_path_key key;
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
	ev->rule = WD_RULE_DEFAULT;
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

/* Resolve @path into the scratch event; false when it cannot be resolved. */
static __always_inline bool resolve(struct wd_event *ev, const struct path *path)
{
	long n = bpf_d_path((struct path *)path, ev->path, sizeof(ev->path));

	if (n <= 0 || n > WD_PATH_MAX)
		return false;
	ev->path_len = n;
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

	if (ret)
		return ret;
	sb = current_sandbox(&id);
	if (!sb)
		return 0;

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
	if (resolve(&s->ev, &file->f_path))
		decide(s, id, sb->flags, want);
	else
		unresolved(&s->ev, sb->flags, want);
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

	if (ret)
		return ret;
	sb = current_sandbox(&id);
	if (!sb)
		return 0;

	s = scratch();
	if (!s)
		return -EPERM;
	fill_task(&s->ev, id);
	s->ev.type = WD_EV_EXEC;
	s->ev.op = WD_OP_EXEC;
	if (resolve(&s->ev, &bprm->file->f_path))
		decide(s, id, sb->flags, WD_ACC_EXEC);
	else
		unresolved(&s->ev, sb->flags, WD_ACC_EXEC);
	/* Every exec is recorded, allowed or not. */
	if (s->ev.verdict == WD_VERDICT_ALLOW)
		emit(&s->ev, sb);
	return verdict_errno(&s->ev, sb);
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
	__u8 self_protect; /* refused whole by warden's seccomp filter */
};

#define O_ACCMODE 3
#define O_WRONLY 1
#define O_RDWR 2
#define O_CREAT 0100
#define O_TRUNC 01000

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
	/* Refused whole by the landlock backend's seccomp filter (supervisor/seccomp.c). */
	case 321: /* bpf */
	case 101: /* ptrace */
	case 165: /* mount */
	case 166: /* umount2 */
	case 155: /* pivot_root */
	case 161: /* chroot */
	case 250: /* keyctl */
	case 248: /* add_key */
	case 249: /* request_key */
	case 298: /* perf_event_open */
	case 425: /* io_uring_setup */
	case 304: /* open_by_handle_at */
	case 308: /* setns */
	case 428: /* open_tree */
	case 429: /* move_mount */
	case 430: /* fsopen */
	case 431: /* fsconfig */
	case 432: /* fsmount */
	case 433: /* fspick */
	case 442: /* mount_setattr */
	case 246: /* kexec_load */
	case 320: /* kexec_file_load */
	case 175: /* init_module */
	case 313: /* finit_module */
	case 176: /* delete_module */
	case 310: /* process_vm_readv */
	case 311: /* process_vm_writev */
	case 319: /* memfd_create (refused where vm.memfd_noexec is missing) */
	case 272: /* unshare (of a user namespace) */
	case 56: /* clone (of a user namespace) */
		d->type = WD_EV_SYSCALL;
		d->op = WD_OP_SYSCALL;
		d->path_arg = -1;
		d->self_protect = 1;
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

static __always_inline long sys_nr(struct pt_regs *regs)
{
	return BPF_CORE_READ(regs, orig_ax);
}
#else
#error "the syscall-exit recorder knows x86_64's syscall numbers only: port classify()"
#endif

SEC("tp_btf/sys_exit")
int BPF_PROG(wd_sys_exit, struct pt_regs *regs, long ret)
{
	struct wd_sandbox *sb;
	struct wd_scratch *s;
	struct wd_sys d;
	__u64 id;
	long nr, n;

	if (ret != -EACCES && ret != -EPERM)
		return 0;
	sb = current_sandbox(&id);
	if (!sb)
		return 0;
	nr = sys_nr(regs);
	if (!classify(nr, &d))
		return 0;
	/* unlinkat(AT_REMOVEDIR) is a rmdir; unshare and clone only count for a user namespace */
	if (nr == 263 && (sys_arg(regs, 2) & AT_REMOVEDIR))
		d.op = WD_OP_RMDIR;
	if ((nr == 272 || nr == 56) && !(sys_arg(regs, 0) & CLONE_NEWUSER))
		return 0;
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
		n = bpf_probe_read_user_str(s->ev.path, sizeof(s->ev.path),
					    (const void *)sys_arg(regs, d.path_arg));
		if (n > 0 && n <= WD_PATH_MAX)
			s->ev.path_len = n;
		else
			s->ev.path[0] = 0;
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
	n = bpf_probe_read_kernel_str(s->ev.path, sizeof(s->ev.path), BPF_CORE_READ(bprm, filename));
	if (n > 0 && n <= WD_PATH_MAX) {
		s->ev.path_len = n;
	} else {
		s->ev.path[0] = 0;
		s->ev.path_len = 1;
	}
	emit(&s->ev, sb);
	return 0;
}
