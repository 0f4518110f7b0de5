/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A parsed, expanded policy to the plain rule set that goes into the kernel's maps: LPM entries
 * for paths, sandbox flags, and the table that names each rule id for the audit stream; plus
 * every other part of the policy in the form its enforcement will load (network entries by
 * address and by name, limits in base units, ...), carried now so that a policy compiles the same
 * before and after each part is enforced. Pure C and deterministic: the same policy always gives
 * the same rule set and the same text dump.
 */
#ifndef WD_COMPILE_H
#define WD_COMPILE_H

#include <stdbool.h>
#include <stdio.h>

#include "bpf/wd_abi.h"
#include "policy/policy.h"

struct wd_rule_entry {
	/*
	 * Stored prefix: a rule "/etc" becomes "/etc/" (everything under it) and "/etc\0" (the
	 * object itself), so "/etcfoo" matches neither. "/" is stored as "/" alone.
	 */
	char path[WD_LPM_PATH_BYTES];
	__u32 len; /* bytes of path that are part of the prefix, terminator included */
	struct wd_path_rule val;
};

/* A file rule as written (for backends that take rules by path, such as Landlock). */
struct wd_fs_rule {
	char *path;
	__u32 access; /* WD_ACC_*; write implies read */
	__u32 id;
};

/* fs.deny: nothing under the path, whatever else allows it. */
struct wd_rs_deny {
	char *path;
	__u32 id;
};

struct wd_rs_protect {
	char *path;
	__u32 ops;    /* WD_PROTECT_* */
	__u32 action; /* WD_ACTION_DENY or WD_ACTION_HOLD */
	__u32 id;
};

struct wd_rs_exec {
	char *path;
	__u32 action; /* WD_ACTION_ALLOW, _DENY or _HOLD */
	__u32 id;
	bool has_argv;
	char **argv;
	size_t argc;
};

/* A network rule by address: the key and value of the LPM tries to come. */
struct wd_net_entry {
	__u8 family; /* AF_INET or AF_INET6 */
	__u8 prefix;
	__u8 proto;  /* WD_NET_PROTO_* */
	__u8 action; /* WD_ACTION_ALLOW or WD_ACTION_DENY */
	__u16 port_lo;
	__u16 port_hi;
	__u8 addr[16];
	__u32 id;
};

/* A network rule by DNS name: resolved by warden, its answers added as address entries. */
struct wd_net_name {
	char *name; /* "*.example.com" for any name under example.com */
	__u8 proto;
	__u8 action;
	__u16 port_lo;
	__u16 port_hi;
	__u32 id;
};

struct wd_ruleset {
	__u32 sandbox_flags; /* WD_SB_* */
	struct wd_rule_entry *entries;
	size_t n_entries;
	char **rule_names; /* [id]: JSON pointer of the rule; [0] is the default */
	size_t n_rules;
	unsigned int features; /* WD_FEAT_* the policy asks for */

	struct wd_fs_rule *fs_rules;
	size_t n_fs_rules;
	struct wd_rs_deny *fs_deny;
	size_t n_fs_deny;
	struct wd_rs_protect *protect;
	size_t n_protect;
	struct wd_rs_exec *exec;
	size_t n_exec;

	__u32 net_default; /* WD_ACTION_DENY (default) or WD_ACTION_ALLOW */
	struct wd_net_entry *net;
	size_t n_net;
	struct wd_net_name *net_names;
	size_t n_net_names;
	/*
	 * The sandbox's DNS forwarder, set by the supervisor that runs one (supervisor/run/dns.c)
	 * before the sandbox is added: network byte order, dns_port 0 for none.
	 */
	__u32 dns4, dns_peer4;
	__u16 dns_port;
	bool net_on; /* the policy states net: the network programs rule this sandbox */
	bool net_ping; /* net.ping */
	struct wd_net_entry *net_listen; /* net.listen, action allow; prefix 0 family 0 for "*" */
	size_t n_net_listen;
	__u64 egress_bytes; /* per egress_per_ms; 0: no limit */
	__u64 egress_per_ms;

	unsigned int limits_set;	 /* 1 << WD_LIMIT_* */
	__u64 limit[WD_LIMIT_NR];	 /* ms, bytes or counts, as enum wd_limit_kind says */
	__u64 limit_per_ms[WD_LIMIT_NR]; /* rates */

	bool env_clean; /* env stated: only env_pass and env_set reach the command */
	char **env_pass;
	size_t n_env_pass;
	char **env_set; /* "NAME=value", sorted by name */
	size_t n_env_set;

	__u64 caps; /* 1 << CAP_*: what the command keeps (policy "caps"); 0: nothing */
	char *user; /* NULL: the user warden runs as */
	char *group;
	/* enum wd_ns_mode; mount is private when tmp is or bind_ro has entries */
	__u8 ns[WD_NS_NR];
	char **bind_ro; /* paths bound onto themselves read-only */
	size_t n_bind_ro;

	__u64 hold_timeout_ms;
	__u32 hold_on_timeout; /* WD_ACTION_DENY or WD_ACTION_ALLOW */
	__u32 hold_burst_count; /* more deletes than this within hold_burst_ms: hold; 0 off */
	__u64 hold_burst_ms;
	char **approvers;
	size_t n_approvers;
};

/* How long a hold waits when the policy does not say. */
#define WD_HOLD_TIMEOUT_DEFAULT_MS (5 * 60 * 1000)

/*
 * Returns 0 or -errno (with @err filled in for a policy that cannot be expressed, or whose
 * variables were not expanded: see wd_policy_expand()).
 */
int wd_compile(const struct wd_policy *p, struct wd_ruleset *rs, struct wd_policy_error *err);
void wd_ruleset_free(struct wd_ruleset *rs);

/* The LPM key of @e for @sandbox. */
void wd_rule_entry_key(const struct wd_rule_entry *e, __u64 sandbox, struct wd_path_key *key);

/* Name of rule @id ("default" for WD_RULE_DEFAULT or an unknown id). */
const char *wd_ruleset_rule_name(const struct wd_ruleset *rs, __u32 id);

/*
 * What the kernel's LPM lookup answers for @path (NUL-terminated, matched on at most
 * WD_LPM_PATH_BYTES bytes): the stored prefix with the most bytes equal to the path's first
 * bytes, or NULL. For records whose verdict was made where no rule id could be read, and tests.
 */
const struct wd_rule_entry *wd_ruleset_lookup(const struct wd_ruleset *rs, const char *path);

/*
 * The exec.deny rule that takes exec away from @path (resolved) in the stored prefixes, or NULL:
 * for naming an exec refusal made where no rule id could be read (Landlock, a noexec mount).
 */
const char *wd_ruleset_exec_denied(const struct wd_ruleset *rs, const char *path);

/* Stable text form, one entry a line, for tests and `policy explain`. */
void wd_ruleset_dump(const struct wd_ruleset *rs, FILE *out);

#endif
