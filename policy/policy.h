/* SPDX-License-Identifier: GPL-2.0 */
/*
 * warden.policy/1: JSON text to plain structs. Pure C (cJSON only): no libbpf, no syscalls but
 * reading files, so it is unit-tested without root. Nothing is applied unless the whole policy is
 * valid; every error names the JSON pointer of the bad field, its line and column, and what was
 * expected. One document is parsed here; policy/effective.h puts documents together (extends,
 * command-line additions, variables).
 */
#ifndef WD_POLICY_H
#define WD_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WD_POLICY_SCHEMA "warden.policy/1"
/* Errors kept per document; the rest are counted in wd_policy_errors.dropped. */
#define WD_POLICY_MAX_ERRORS 100
/* hold.delete_burst bounds: the supervisor keeps the time of count + 1 deletes */
#define WD_HOLD_BURST_COUNT_MAX 100000
#define WD_HOLD_BURST_WINDOW_MAX_MS (60 * 60 * 1000)

enum wd_mode {
	WD_MODE_ENFORCE = 0,
	WD_MODE_AUDIT = 1,
};

/*
 * A list of strings. origin[i] indexes wd_policy.origins: the document (or command-line flag) that
 * added v[i]. Paths are normalised: absolute or starting with a variable ("$WORKDIR/src"), no "."
 * or ".." components, no trailing or double slash.
 */
struct wd_path_list {
	char **paths;
	size_t n;
	int *origin;
};

enum wd_protect_op {
	WD_PROTECT_DELETE = 1 << 0,
	WD_PROTECT_RENAME = 1 << 1, /* renaming over, or renaming away, a protected object */
	WD_PROTECT_TRUNCATE = 1 << 2,
	WD_PROTECT_ALL = 7,
};

enum wd_action {
	WD_ACTION_DENY = 0,
	WD_ACTION_HOLD = 1,
	WD_ACTION_ALLOW = 2, /* exec.allow, net.allow, hold.on_timeout */
};

struct wd_protect {
	char *path;
	unsigned int ops;      /* WD_PROTECT_* */
	enum wd_action action; /* deny or hold */
	int origin;
};

/* An exec rule: a program (a path covers itself and what lies under it) and argument patterns. */
struct wd_exec_rule {
	char *path;
	bool has_argv; /* false: any arguments */
	char **argv;   /* fnmatch(3) patterns for argv[1..]; a last "**" matches any rest */
	size_t argc;
	int origin;
};

struct wd_exec_list {
	struct wd_exec_rule *v;
	size_t n;
};

enum wd_net_proto {
	WD_NET_PROTO_ANY = 0,
	WD_NET_PROTO_TCP = 1,
	WD_NET_PROTO_UDP = 2,
};

enum wd_net_host {
	WD_NET_HOST_ANY = 0,  /* "*": every address of both families */
	WD_NET_HOST_ADDR = 1, /* an address or CIDR block; IPv4-mapped IPv6 folded to IPv4 */
	WD_NET_HOST_NAME = 2, /* a DNS name, "*.example.com" for any name under example.com */
};

struct wd_net_rule {
	enum wd_net_proto proto;
	enum wd_net_host kind;
	int family;		       /* AF_INET or AF_INET6 for WD_NET_HOST_ADDR, else 0 */
	unsigned int prefix;	       /* bits */
	unsigned char addr[16];	       /* network byte order; host bits are zero */
	char *name;		       /* WD_NET_HOST_NAME: lower case, no trailing dot */
	unsigned int port_lo, port_hi; /* 0-65535 for any port */
	int origin;
};

struct wd_net_list {
	struct wd_net_rule *v;
	size_t n;
};

/* A setting that a document may leave unset; origin is meaningful when set. */
struct wd_setting {
	bool set;
	int origin;
};

enum wd_limit_kind {
	WD_LIMIT_WALL_TIME = 0, /* value: milliseconds */
	WD_LIMIT_CPU_TIME = 1,	/* value: milliseconds */
	WD_LIMIT_MEMORY = 2,	/* value: bytes */
	WD_LIMIT_PIDS = 3,	/* value: tasks */
	WD_LIMIT_FORK_RATE = 4, /* value: forks per per_ms milliseconds */
	WD_LIMIT_OUTPUT = 5,	/* value: bytes of standard output and error kept */
	WD_LIMIT_CPU = 6,	/* value: thousandths of a CPU (a quota per period) */
	WD_LIMIT_KILL_GRACE = 7, /* value: milliseconds between a forwarded signal and the kill */
	WD_LIMIT_DISK = 8,	/* value: bytes the sandbox may write (its private /tmp's size) */
	WD_LIMIT_NR = 9,
};

struct wd_limit {
	struct wd_setting s;
	uint64_t value;
	uint64_t per_ms; /* rates only */
};

enum wd_ns_kind {
	WD_NS_MOUNT = 0,
	WD_NS_PID = 1,
	WD_NS_IPC = 2,
	WD_NS_UTS = 3,
	WD_NS_NET = 4,
	WD_NS_TMP = 5, /* not a kernel namespace: a private, empty /tmp in the mount namespace */
	WD_NS_NR = 6,
};

enum wd_ns_mode {
	WD_NS_HOST = 0,	   /* share the host's (what an unset namespace means) */
	WD_NS_PRIVATE = 1, /* a new one of its own (mount, pid, ipc, uts) */
	WD_NS_NONE = 2,	   /* net: a new one with loopback only */
	WD_NS_VETH = 3,	   /* net: a new one with a veth pair to the host */
};

struct wd_env_set {
	char *name;
	char *value;
	int origin;
};

struct wd_policy {
	struct wd_setting mode_set;
	enum wd_mode mode;
	struct wd_path_list fs_read;
	struct wd_path_list fs_write;
	struct wd_path_list fs_exec;
	struct wd_path_list fs_deny;
	struct wd_protect *fs_protect;
	size_t n_fs_protect;

	struct wd_exec_list exec_allow;
	struct wd_exec_list exec_deny;
	struct wd_exec_list exec_hold;

	struct wd_setting net_default_set;
	enum wd_action net_default; /* deny (default) or allow */
	struct wd_net_list net_allow;
	struct wd_net_list net_deny;
	struct wd_net_list net_listen; /* addresses (or "*") and ports a bind(2) may name */
	struct wd_setting net_ping_set;
	bool net_ping; /* ICMP echo ("ping") sockets may be made */
	struct wd_setting egress_rate_set;
	uint64_t egress_bytes; /* per egress_per_ms */
	uint64_t egress_per_ms;

	struct wd_limit limits[WD_LIMIT_NR];

	struct wd_path_list env_pass; /* names, or patterns with "*" */
	struct wd_env_set *env_set;
	size_t n_env_set;

	struct wd_setting user_set;
	char *user;  /* a name or a decimal uid */
	char *group; /* NULL: the user's primary group */

	struct wd_setting ns_set[WD_NS_NR];
	enum wd_ns_mode ns[WD_NS_NR];
	/* namespaces.bind_ro: paths bound onto themselves read-only in a private mount namespace */
	struct wd_path_list ns_bind_ro;

	struct wd_setting hold_timeout_set;
	uint64_t hold_timeout_ms;
	struct wd_setting hold_on_timeout_set;
	enum wd_action hold_on_timeout;	    /* deny (default) or allow */
	struct wd_path_list hold_approvers; /* "user:NAME", "group:NAME" */
	struct wd_setting hold_io_uring_set;
	bool hold_io_uring; /* io_uring allowed where the policy holds anything (bypasses holds) */
	/* hold.delete_burst: more than count deletes within window_ms, anywhere: hold the next */
	struct wd_setting hold_burst_set;
	uint32_t hold_burst_count;
	uint64_t hold_burst_window_ms;

	/* caps: names of the capabilities the command keeps (from wd_cap_table), none by default */
	struct wd_path_list caps;

	/* What this document extends, as written; resolved by policy/effective.c. */
	struct wd_path_list extends;

	/*
	 * Where the parts came from, lowest layer first: what a document extends comes before it,
	 * command-line additions after. top_origin is the document asked for.
	 */
	char **origins;
	size_t n_origins;
	int top_origin;
};

struct wd_policy_error {
	char source[256];  /* the file or template holding the error; "" for the one asked for */
	char pointer[512]; /* JSON pointer of the bad field; "" for the document itself */
	char msg[512];
	int line; /* 1-based; 0 when unknown */
	int col;  /* 1-based, in characters */
};

struct wd_policy_errors {
	struct wd_policy_error *v; /* grown by wd_grow: its capacity follows from n */
	size_t n;
	size_t dropped;
};

/* Parse @len bytes of JSON. Returns 0, or -EINVAL with @err holding the first error. */
int wd_policy_parse(const char *text, size_t len, struct wd_policy *out,
		    struct wd_policy_error *err);
/* The same, listing every error (at most WD_POLICY_MAX_ERRORS) in @errs. */
int wd_policy_parse_all(const char *text, size_t len, struct wd_policy *out,
			struct wd_policy_errors *errs);
/* Read and parse one file (its extends left unresolved). */
int wd_policy_load_file(const char *path, struct wd_policy *out, struct wd_policy_error *err);
/* Read a whole file of at most 16 MiB into a NUL-terminated buffer. */
int wd_policy_read_file(const char *path, char **text, size_t *len);
void wd_policy_free(struct wd_policy *p);

/* Add an error; -ENOMEM aside, always succeeds (counting it as dropped past the limit). */
int wd_policy_errors_add(struct wd_policy_errors *errs, const struct wd_policy_error *e);
void wd_policy_errors_free(struct wd_policy_errors *errs);

/* Building blocks for putting policies together (policy/effective.c); each copies its input. */
int wd_path_list_add(struct wd_path_list *l, const char *s, int origin);
bool wd_path_list_has(const struct wd_path_list *l, const char *s);
int wd_exec_list_add(struct wd_exec_list *l, const struct wd_exec_rule *r);
int wd_net_list_add(struct wd_net_list *l, const struct wd_net_rule *r);
int wd_protect_add(struct wd_policy *p, const struct wd_protect *pr);
/* Set (or replace) env.set @name. */
int wd_env_set_put(struct wd_policy *p, const char *name, const char *value, int origin);
void wd_exec_rule_free(struct wd_exec_rule *r);

/*
 * Normalise an absolute path into @out (size @outsz): collapse "//", drop a trailing "/", refuse
 * "." and ".." components. Returns 0 or -EINVAL with a reason in @why.
 */
int wd_path_normalise(const char *in, char *out, size_t outsz, const char **why);

/* "file: /fs/read/1: expected ... (line 3, column 12)" into @buf; @file when err->source is "". */
void wd_policy_error_format(const struct wd_policy_error *err, const char *file, char *buf,
			    size_t bufsz);

/*
 * Every capability the kernel knows, by name: whether a policy's "caps" may keep it, and what
 * keeping it risks (or why it is refused). The one list the parser, explain and docs/policy.md
 * follow.
 */
struct wd_cap_info {
	const char *name; /* "CAP_CHOWN" */
	int nr;		  /* CAP_CHOWN */
	bool allowed;
	const char *risk; /* allowed: what it lets the command do; refused: why */
};

/* The entry named @name (exactly, "CAP_..."), or NULL. */
const struct wd_cap_info *wd_cap_find(const char *name);
/* The whole table: its entries in capability number order, how many in *@n. */
const struct wd_cap_info *wd_cap_table(size_t *n);
/* The policy's "caps" as a mask of 1 << CAP_*. */
uint64_t wd_policy_caps_mask(const struct wd_policy *p);

/* Names used by the parser, the dump and explain; NULL for an out-of-range value. */
const char *wd_limit_name(enum wd_limit_kind k);
const char *wd_ns_name(enum wd_ns_kind k);
const char *wd_ns_mode_name(enum wd_ns_mode m);

/*
 * Every key the parser knows, as a JSON pointer in which "*" stands for the items of an array
 * ("/fs/protect/" "*" "/path"), one call each, in a stable order. For the schema test.
 */
void wd_policy_keys(void (*fn)(const char *pointer, void *arg), void *arg);

/*
 * Does @args (argv[1..], @n of them) match the patterns of @r? fnmatch(3) per argument; a last
 * pattern "**" matches any number of further arguments (none included).
 */
bool wd_exec_rule_matches(const struct wd_exec_rule *r, char *const *args, size_t n);

/* Parts of the schema; wd_policy_features() says which a policy asks for. */
enum wd_feature {
	WD_FEAT_FS = 1 << 0, /* fs.read, fs.write, fs.exec */
	WD_FEAT_MODE = 1 << 1,
	WD_FEAT_FS_DENY = 1 << 2,
	WD_FEAT_FS_PROTECT = 1 << 3,
	WD_FEAT_EXEC = 1 << 4,
	WD_FEAT_NET = 1 << 5,
	WD_FEAT_LIMITS = 1 << 6,
	WD_FEAT_ENV = 1 << 7,
	WD_FEAT_USER = 1 << 8,
	WD_FEAT_NAMESPACES = 1 << 9,
	WD_FEAT_HOLD = 1 << 10, /* hold.timeout, hold.on_timeout, hold.delete_burst */
	WD_FEAT_EXEC_HOLD = 1 << 11, /* exec.hold (WD_FEAT_EXEC is exec.deny) */
	WD_FEAT_HOLD_APPROVERS = 1 << 12, /* hold.approvers */
	WD_FEAT_NET_VETH = 1 << 13, /* namespaces.net "veth" (WD_FEAT_NAMESPACES is the rest) */
	WD_FEAT_NET_NAMES = 1 << 14, /* a DNS name in net.allow or net.deny (WD_FEAT_NET too) */
	WD_FEAT_NET_RATE = 1 << 15, /* net.egress_rate (not WD_FEAT_NET: a rate alone rules no address) */
	WD_FEAT_EXEC_ALLOW = 1 << 16, /* exec.allow (WD_FEAT_EXEC is exec.deny) */
	WD_FEAT_FORK_RATE = 1 << 17, /* limits.fork_rate (WD_FEAT_LIMITS is the other limits) */
};

/*
 * What this warden enforces today on some backend; `warden run` refuses a policy that asks for
 * more, and what the chosen backend does not enforce (each backend lists its own).
 */
#define WD_FEAT_ENFORCED                                                                         \
	(WD_FEAT_FS | WD_FEAT_MODE | WD_FEAT_FS_DENY | WD_FEAT_FS_PROTECT | WD_FEAT_HOLD |        \
	 WD_FEAT_EXEC | WD_FEAT_EXEC_HOLD | WD_FEAT_ENV | WD_FEAT_USER | WD_FEAT_NAMESPACES |     \
	 WD_FEAT_HOLD_APPROVERS | WD_FEAT_NET | WD_FEAT_NET_RATE | WD_FEAT_NET_NAMES |        \
	 WD_FEAT_FORK_RATE | WD_FEAT_NET_VETH | WD_FEAT_EXEC_ALLOW)

/*
 * The parts @p states: a non-empty list, a set scalar, a namespace other than "host". An unset
 * part asks for nothing (a policy without "net" today leaves the network as it is; see
 * docs/policy.md).
 */
unsigned int wd_policy_features(const struct wd_policy *p);

/*
 * 0 when this warden enforces everything @p asks for; else -EOPNOTSUPP with @why holding
 * "POINTER: what is not enforced" for the first such part (and where it came from, when the
 * policy was put together from several documents).
 */
int wd_policy_unenforced(const struct wd_policy *p, char *why, size_t whysz);
/* The same against @enforced (WD_FEAT_*), for a backend that enforces more (or less). */
int wd_policy_unenforced_mask(const struct wd_policy *p, unsigned int enforced, char *why,
			      size_t whysz);

/* A few words naming feature @feat ("net (egress rules)"), or NULL. */
const char *wd_feature_words(unsigned int feat);
/* The JSON pointer of the first part of @p asking for @feat; returns its origin. */
int wd_policy_feature_pointer(const struct wd_policy *p, unsigned int feat, char *ptr,
			      size_t ptrsz);

#endif
