/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one ABI between warden's BPF programs and its user side: records (a common header, one
 * struct per type), map keys and values, op codes. Fixed-width types, named padding, numbered
 * enum values that are never reused (an audit consumer may have stored them). Both sides assert
 * every size (WD_ABI_ASSERTS here, supervisor/bpf/abi_check.c); the audit schema (docs/audit.md)
 * is derived from these.
 */
#ifndef WD_ABI_H
#define WD_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#include <linux/bpf.h> /* struct bpf_spin_lock (wd_rate) */
#endif

/* Bytes of a path kept in an audit record (d_path's own limit is PATH_MAX). */
#define WD_PATH_MAX 4096
/*
 * Path bytes in an LPM key. The kernel caps an LPM trie's data at 256 bytes; 8 of them carry the
 * sandbox id, so rules are at most WD_LPM_PATH_BYTES - 1 bytes long (the compiler refuses longer
 * ones) and a longer looked-up path is matched on its first 248 bytes, which can only match a
 * directory rule that it lies under.
 */
#define WD_LPM_PATH_BYTES 248
#define WD_COMM_LEN 16

/* Access bits a path rule grants (wd_path_rule.allow) or a request asks for. */
enum wd_access {
	WD_ACC_READ = 1 << 0,
	WD_ACC_WRITE = 1 << 1,
	WD_ACC_EXEC = 1 << 2,
	/* exec.allow: to be run by execve (each stage: a script, then its interpreter) */
	WD_ACC_RUN = 1 << 3,
};

/* Index into wd_path_rule.rule[] for the rule that grants each access. */
enum wd_access_idx {
	WD_ACC_IDX_READ = 0,
	WD_ACC_IDX_WRITE = 1,
	WD_ACC_IDX_EXEC = 2,
	WD_ACC_IDX_RUN = 3,
	WD_ACC_IDX_NR = 4,
};

/* Record types; numbers are stable. */
enum wd_event_type {
	WD_EV_EXEC = 1,
	WD_EV_FILE = 2,
	WD_EV_NET = 3,
	WD_EV_HOLD = 4,
	WD_EV_DECISION = 5,
	WD_EV_LIMIT = 6,
	WD_EV_LOST = 7,
	WD_EV_START = 8,
	WD_EV_EXIT = 9,
	WD_EV_SYSCALL = 10, /* a syscall refused whole (self-protection) */
};

/* Operations; numbers are stable. */
enum wd_op {
	WD_OP_OPEN = 1,
	WD_OP_EXEC = 2,
	WD_OP_CREATE = 3,
	WD_OP_MKDIR = 4,
	WD_OP_UNLINK = 5,
	WD_OP_RMDIR = 6,
	WD_OP_RENAME = 7,
	WD_OP_LINK = 8,
	WD_OP_SYMLINK = 9,
	WD_OP_TRUNCATE = 10,
	WD_OP_SETATTR = 11,
	WD_OP_MKNOD = 12,
	WD_OP_SYSCALL = 13, /* target is the syscall's name */
	WD_OP_XATTR = 14, /* setxattr, removexattr (and ACLs) */
	WD_OP_IOCTL = 15, /* an ioctl on a device (Landlock IOCTL_DEV); arg is the request */
	WD_OP_CONNECT = 16, /* connect(2); path holds the address (WD_EVF_SOCKADDR) */
	WD_OP_BIND = 17, /* bind(2) */
	WD_OP_SENDTO = 18, /* sendto(2) with an address */
	WD_OP_SOCKET = 19, /* socket(2): a raw, packet or ping socket refused at creation */
	WD_OP_SENDMSG = 20, /* sendmsg(2), sendmmsg(2) with an address: unconnected UDP */
};

enum wd_verdict {
	WD_VERDICT_ALLOW = 0,
	WD_VERDICT_DENY = 1,
	WD_VERDICT_AUDIT = 2, /* would have been denied; mode is audit */
	WD_VERDICT_HOLD = 3,
};

/* Rule id 0 means no rule matched: the default (deny) decided. */
#define WD_RULE_DEFAULT 0
/* warden's own self-protection (not a policy rule) decided. */
#define WD_RULE_SELF_PROTECT 0xffffff01u
/* Loopback or one of the host's own addresses, which only a rule naming it opens. */
#define WD_RULE_NET_HOST 0xffffff02u
/* A socket kind no policy opens (raw, packet), or a ping socket without net.ping. */
#define WD_RULE_NET_SOCKET 0xffffff03u

enum wd_sandbox_flags {
	WD_SB_AUDIT_MODE = 1 << 0, /* log would-deny, allow */
	WD_SB_EXEC_ALLOW = 1 << 1, /* exec.allow: an execve needs WD_ACC_RUN too */
};

/*
 * Capacities of the maps, fixed host-wide when the one program set is loaded (docs/design.md,
 * "One program set per host"): a full map refuses the sandbox that would overflow it, by name.
 * Part of the set's version hash, so a build that changes one loads a set of its own.
 */
#define WD_MAX_SANDBOXES 16384
#define WD_MAX_PATHS (1 << 20) /* compiled path rules, all sandboxes together */
#define WD_MAX_INODES (1 << 18)
#define WD_MAX_PROTECTS (1 << 18)
#define WD_MAX_NET_KEYS (1 << 16) /* network prefixes, per family, all sandboxes together */

/*
 * Network rules (bpf/wd_net.bpf.c, supervisor/net/). Addresses are matched by longest prefix in
 * one LPM trie per family keyed {prefix bits, sandbox id, address}; the value of a stored prefix
 * carries every rule whose block covers it (so the longest match alone decides), each a
 * protocol, a port range and an action; a deny that matches beats any allow.
 */
#define WD_NET_RANGES 16 /* rules covering one prefix; the compiler refuses more */
#define WD_NET_LISTEN_MAX 16 /* net.listen entries of one sandbox */

enum wd_net_proto_bits {
	WD_NETP_ANY = 0,
	WD_NETP_TCP = 1,
	WD_NETP_UDP = 2,
};

enum wd_net_action {
	WD_NETA_DENY = 0,
	WD_NETA_ALLOW = 2, /* as enum wd_action */
};

struct wd_net_range {
	__u16 port_lo; /* host byte order, inclusive */
	__u16 port_hi;
	__u8 proto; /* WD_NETP_* */
	__u8 action; /* WD_NETA_* */
	__u16 __pad0;
	__u32 rule;
};

enum wd_net_val_flags {
	/* loopback, 0.0.0.0, or the host's own address: what no broad rule (nor the default) opens */
	WD_NETV_HOST = 1 << 0,
};

/* Value of wd_net4 and wd_net6. */
struct wd_net_val {
	__u32 n; /* ranges used */
	__u32 flags; /* WD_NETV_* */
	struct wd_net_range r[WD_NET_RANGES];
};

struct wd_net4_key {
	__u32 prefixlen; /* 64 (the sandbox) + the block's bits */
	__u32 sandbox[2]; /* cgroup id, low word first (host byte order) */
	__u8 addr[4]; /* network byte order */
};

struct wd_net6_key {
	__u32 prefixlen;
	__u32 sandbox[2];
	__u8 addr[16];
};

/* A net.listen entry: a bind(2) to a port in the range (and the address, when given) is allowed. */
struct wd_net_listen {
	__u16 port_lo;
	__u16 port_hi;
	__u8 proto; /* WD_NETP_* */
	__u8 family; /* 0: any address of either family; else AF_INET or AF_INET6 */
	__u8 prefix; /* bits of addr that must match */
	__u8 __pad0;
	__u32 rule;
	__u8 addr[16];
};

enum wd_net_cfg_flags {
	WD_NETC_ON = 1 << 0, /* the sandbox's network is ruled (its policy states net) */
	WD_NETC_PING = 1 << 1, /* net.ping: ICMP echo sockets may be made */
	WD_NETC_OWN_NETNS = 1 << 2, /* its own network namespace: its loopback is its own */
};

/* Value of wd_net_cfg, keyed by the sandbox's cgroup id. */
struct wd_net_cfg {
	__u32 flags; /* WD_NETC_* */
	__u8 def; /* WD_NETA_*: what no rule decides */
	__u8 n_listen;
	__u16 __pad0;
	struct wd_net_listen listen[WD_NET_LISTEN_MAX];
	/*
	 * The sandbox's DNS forwarder (docs/network.md, "Names"): TCP and UDP to port 53 of any
	 * IPv4 address go to dns4:dns_port instead, and a UDP reply from there reads as from
	 * dns_peer4:53. Network byte order; dns_port 0: no forwarder.
	 */
	__u32 dns4;
	__u32 dns_peer4;
	__u16 dns_port;
	__u16 __pad1;
	__u32 __pad2;
};

/* Value of wd_sandboxes, keyed by the sandbox's cgroup id. Counters are updated atomically. */
struct wd_sandbox {
	__u32 flags;
	__u32 __pad0;
	__u64 denials;
	__u64 lost; /* records of this sandbox that found no ring, or its ring full */
	/*
	 * Its consumer's ring: the key in wd_rings. An embedded run keys its ring by the
	 * sandbox's own id; wardend keys each of its reusable rings apart (top bit set, never a
	 * cgroup id), so a run through it changes no map of maps, each change of which costs an
	 * RCU grace period (bpf/wd_maps.bpf.h).
	 */
	__u64 ring;
};

/* Key of wd_paths: an LPM trie keyed {prefix bits, sandbox id, path bytes}. */
struct wd_path_key {
	__u32 prefixlen; /* bits of sandbox + path that must match */
	__u32 sandbox[2]; /* cgroup id, low word first (host byte order) */
	char path[WD_LPM_PATH_BYTES];
};

/*
 * Value of wd_paths. A stored prefix carries the union of what every rule above it grants, so the
 * longest match alone decides; rule[] names, per access, the rule that granted it.
 */
struct wd_path_rule {
	__u32 allow; /* WD_ACC_* */
	__u32 rule[WD_ACC_IDX_NR];
};

/*
 * Key of wd_inodes: protected existing objects by (dev, ino), so that a hard link made before the
 * sandbox started, or any other name of the same inode, does not alias around a rule. dev is the
 * kernel's own encoding (major << 20 | minor), as in super_block.s_dev.
 */
struct wd_inode_key {
	__u64 sandbox;
	__u64 ino;
	__u32 dev;
	__u32 __pad0;
};

/* Value of wd_inodes: what is denied on that inode, whatever its path. */
struct wd_inode_rule {
	__u32 deny; /* WD_ACC_*; any bit also denies link() to the inode */
	__u32 rule; /* the policy rule that protects it */
	__u32 protect; /* WD_PROT_*: fs.protect of the object itself */
	__u32 protect_rule;
};

/*
 * What fs.protect keeps a sandbox from doing under a tree, decided in the LSM hooks whatever the
 * seccomp waiting room answered: the same bits as the policy's ops.
 */
enum wd_protect_bits {
	WD_PROT_DELETE = 1 << 0, /* unlink, rmdir */
	WD_PROT_RENAME = 1 << 1, /* either end of a rename; renaming a directory that holds a tree */
	WD_PROT_TRUNCATE = 1 << 2, /* truncate, ftruncate, O_TRUNC, a size change */
};

enum wd_protect_idx {
	WD_PROT_IDX_DELETE = 0,
	WD_PROT_IDX_RENAME = 1,
	WD_PROT_IDX_TRUNCATE = 2,
	WD_PROT_IDX_NR = 3,
};

/*
 * Value of wd_protect (struct wd_protect_val), an LPM trie keyed like wd_paths ("tree/" for what lies under a tree,
 * "tree\0" for its root, and "dir\0" with WD_PROT_RENAME for each directory above a tree). A
 * stored prefix carries the union of every fs.protect entry covering it; rule[] names the one
 * that decided each bit.
 */
struct wd_protect_val {
	__u32 ops; /* WD_PROT_* */
	__u32 rule[WD_PROT_IDX_NR];
};

/*
 * Where a record's verdict was seen: the LSM hook that decided, or a syscall's return on a backend
 * (landlock) whose decisions are made where BPF cannot see them.
 */
enum wd_source {
	WD_SRC_LSM = 0,
	WD_SRC_SYSCALL_EXIT = 1,
	WD_SRC_EXEC_TRACEPOINT = 2, /* sched_process_exec: an exec that happened */
	WD_SRC_CGROUP = 3, /* a cgroup socket program (bpf/wd_net.bpf.c) decided, on both backends */
};

/*
 * How the recorder at syscall exit found a record's path (wd_rec_file.flags, wd_rec_sock.flags; 0
 * on LSM records, whose path the hook resolved from the object itself).
 */
enum wd_event_flags {
	/* the path is absolute as passed, or was made absolute against the cwd or dirfd the call
	 * had at its entry, which provably held until its exit */
	WD_EVF_AT_ENTRY = 1 << 0,
	/* relative, and its base changed during the call (another thread chdir'd, or replaced the
	 * dirfd): what the kernel resolved it against is not known */
	WD_EVF_BASE_CHANGED = 1 << 1,
	/* the call's entry was not seen (seccomp refused it first): the name was read from the
	 * task's memory at exit, and the supervisor made a relative one absolute after it */
	WD_EVF_LATE = 1 << 2,
	/* a wd_rec_sock carries addr_len bytes of a struct sockaddr as the task passed it */
	WD_EVF_SOCKADDR = 1 << 3,
};

/*
 * Records off the ring buffer. Each starts with this header; @type says which struct follows and
 * @size how many bytes the whole record has (a variable-length path or address included), so a
 * record costs what it carries and a reader can step over a type it does not know. The kernel
 * sends exactly @size bytes; the user side (audit/record.c) checks @size against what it got and
 * against the type's fixed part before it reads anything else.
 */
struct wd_rec_hdr {
	__u16 type; /* enum wd_event_type */
	__u16 size; /* of the whole record, this header included */
	__u32 pid;
	__u32 tid;
	__u32 ppid;
	__u64 ts_ns; /* CLOCK_BOOTTIME */
	__u64 sandbox; /* the sandbox's cgroup id */
	__u32 uid;
	__u32 __pad0;
	char comm[WD_COMM_LEN];
};

/* WD_EV_FILE and WD_EV_EXEC: an access decision on a path. */
struct wd_rec_file {
	struct wd_rec_hdr h;
	__u16 op; /* enum wd_op */
	__u8 verdict; /* enum wd_verdict */
	__u8 source; /* enum wd_source */
	__u8 flags; /* WD_EVF_*: how a syscall-exit record's path was found */
	__u8 __pad0;
	__u16 path_len; /* bytes of path, NUL included (1 when it could not be resolved) */
	__u32 access; /* WD_ACC_* asked for */
	__u32 rule;
	__s32 err; /* errno the task got (0 when allowed) */
	__s32 dirfd; /* for a relative path from a syscall: the dirfd it was relative to */
	__u64 arg; /* WD_OP_IOCTL: the request */
	/* The object's path (for WD_SRC_SYSCALL_EXIT, as the task passed it, read after the fact). */
	char path[];
};

/* WD_EV_SYSCALL: a syscall refused whole (self-protection, the privileged set). */
struct wd_rec_syscall {
	struct wd_rec_hdr h;
	__u16 op; /* WD_OP_SYSCALL */
	__u8 verdict;
	__u8 source;
	__u16 name_len; /* bytes of name, NUL included */
	__u16 __pad0;
	__u32 rule;
	__s32 err;
	__u32 sysno; /* for WD_SRC_SYSCALL_EXIT: the syscall */
	__u32 __pad1;
	/* what an LSM hook refused ("ptrace", "mount" ...), or "" where sysno names it */
	char name[];
};

/* WD_EV_NET: a socket call refused, seen at its exit (connect, bind, sendto). */
struct wd_rec_sock {
	struct wd_rec_hdr h;
	__u16 op; /* WD_OP_CONNECT, WD_OP_BIND, WD_OP_SENDTO */
	__u8 verdict;
	__u8 source;
	__u8 flags; /* WD_EVF_LATE, and WD_EVF_SOCKADDR when addr could be read */
	__u8 proto; /* WD_SRC_CGROUP: IPPROTO_TCP, IPPROTO_UDP, ... (0 where not known) */
	__u16 addr_len; /* bytes of addr */
	__u32 rule;
	__s32 err;
	__u32 sysno;
	__s32 fd; /* the socket */
	/* the struct sockaddr as the task passed it, at most WD_SOCKADDR_MAX bytes */
	__u8 addr[];
};

#define WD_SOCKADDR_MAX 128 /* sizeof(struct sockaddr_storage) */

/* Sizes of the fixed parts, asserted on both sides (supervisor/bpf/abi_check.c, bpf/wd_common.bpf.h). */
#define WD_REC_HDR_SIZE 56
#define WD_REC_FILE_SIZE 88 /* offsetof(struct wd_rec_file, path) */
#define WD_REC_SYSCALL_SIZE 80 /* offsetof(struct wd_rec_syscall, name) */
#define WD_REC_SOCK_SIZE 80 /* offsetof(struct wd_rec_sock, addr) */

/*
 * Value of wd_rate (bpf/wd_rate.bpf.c), by sandbox cgroup id: net.egress_rate as a virtual
 * schedule (GCRA, the token bucket's equivalent): a packet passes while the schedule of the
 * bytes passed so far (tat_ns) runs at most burst_ns ahead of now, and pushes it on by its
 * length at the rate; otherwise it is dropped. The counters are read at the sandbox's end.
 */
struct wd_rate {
	struct bpf_spin_lock lock;
	__u32 __pad0;
	__u64 rate; /* bytes per second, above zero */
	__u64 burst_ns; /* how far ahead of now the schedule may run: the burst at the rate */
	__u64 tat_ns; /* when the bytes passed so far are paid for (bpf_ktime_get_ns) */
	__u64 bytes; /* passed */
	__u64 dropped_bytes;
	__u64 dropped_packets;
};

/*
 * Value of wd_fork (bpf/wd_lsm.bpf.c, lsm/task_alloc), by sandbox cgroup id: limits.fork_rate as
 * the same virtual schedule: a new process is let through while the schedule of those let through
 * so far (tat_ns), pushed on by one interval, runs at most burst_ns ahead of now; otherwise its
 * fork or clone fails EAGAIN and is counted. Threads (CLONE_THREAD) are not processes and pass.
 */
struct wd_fork {
	struct bpf_spin_lock lock;
	__u32 __pad0;
	__u64 interval_ns; /* one process's share of the rate, above zero */
	__u64 burst_ns; /* the burst (one second's worth, at least one) times the interval */
	__u64 tat_ns;
	__u64 allowed;
	__u64 refused;
};

/*
 * Both sides compile these: a field moved on one side only would misread every record, so it
 * fails the build instead. Each fixed part ends aligned, so a struct of it and a byte array
 * (the BPF side's buffers) puts the array where the record's own one starts.
 */
#define WD_ABI_ASSERTS()                                                                         \
	_Static_assert(sizeof(struct wd_rec_hdr) == WD_REC_HDR_SIZE, "wd_rec_hdr size");        \
	_Static_assert(__builtin_offsetof(struct wd_rec_hdr, ts_ns) == 16, "wd_rec_hdr ts");     \
	_Static_assert(__builtin_offsetof(struct wd_rec_hdr, comm) == 40, "wd_rec_hdr comm");    \
	_Static_assert(__builtin_offsetof(struct wd_rec_file, path) == WD_REC_FILE_SIZE,         \
		       "wd_rec_file size");                                                      \
	_Static_assert(__builtin_offsetof(struct wd_rec_file, flags) == 60, "wd_rec_file flags"); \
	_Static_assert(__builtin_offsetof(struct wd_rec_file, arg) == 80, "wd_rec_file arg");    \
	_Static_assert(__builtin_offsetof(struct wd_rec_syscall, name) == WD_REC_SYSCALL_SIZE,   \
		       "wd_rec_syscall size");                                                   \
	_Static_assert(__builtin_offsetof(struct wd_rec_sock, addr) == WD_REC_SOCK_SIZE,         \
		       "wd_rec_sock size");                                                      \
	_Static_assert(sizeof(struct wd_rec_file) == WD_REC_FILE_SIZE &&                        \
			       sizeof(struct wd_rec_syscall) == WD_REC_SYSCALL_SIZE &&           \
			       sizeof(struct wd_rec_sock) == WD_REC_SOCK_SIZE,                   \
		       "fixed parts end aligned");                                               \
	_Static_assert(WD_REC_FILE_SIZE + WD_PATH_MAX <= 0xffff, "a record's size fits its field")

#endif /* WD_ABI_H */
