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

/* include/linux/fs.h: macros, so not in vmlinux.h; their values are ABI-stable. */
#define FMODE_READ 0x1
#define FMODE_WRITE 0x2
#define FMODE_EXEC 0x20

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
	if (mode & FMODE_EXEC) {
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
