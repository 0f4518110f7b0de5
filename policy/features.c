// SPDX-License-Identifier: GPL-2.0
/*
 * What a policy asks for (WD_FEAT_* bits), where in it each ask is (a JSON pointer and the
 * document it came from), and the refusal when a backend does not enforce one of them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "policy/parse_internal.h"
#include "policy/policy.h"

/* ---- what is asked for, what is enforced ----------------------------------------------------- */

/* The index of the first DNS name in @l, or -1. */
static long net_name_at(const struct wd_net_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].kind == WD_NET_HOST_NAME)
			return (long)i;
	return -1;
}

/*
 * The limits a run enforces (supervisor/sandbox/limits.h): WD_FEAT_LIMITS stands for the others
 * only, each refused by its own key. limits.fork_rate has a bit of its own (WD_FEAT_FORK_RATE):
 * one backend enforces it, the other does not.
 */
static bool limit_enforced(int k)
{
	(void)k; /* every kind: fork_rate is decided by its own bit */
	return true;
}

unsigned int wd_policy_features(const struct wd_policy *p)
{
	unsigned int f = 0;

	if (p->fs_read.n || p->fs_write.n || p->fs_exec.n)
		f |= WD_FEAT_FS;
	if (p->mode_set.set)
		f |= WD_FEAT_MODE;
	if (p->fs_deny.n)
		f |= WD_FEAT_FS_DENY;
	if (p->n_fs_protect)
		f |= WD_FEAT_FS_PROTECT;
	if (p->exec_deny.n)
		f |= WD_FEAT_EXEC;
	if (p->exec_allow.n)
		f |= WD_FEAT_EXEC_ALLOW;
	if (p->exec_hold.n)
		f |= WD_FEAT_EXEC_HOLD;
	if (p->net_default_set.set || p->net_allow.n || p->net_deny.n ||
	    p->net_listen.n || p->net_ping_set.set)
		f |= WD_FEAT_NET;
	if (net_name_at(&p->net_allow) >= 0 || net_name_at(&p->net_deny) >= 0)
		f |= WD_FEAT_NET_NAMES;
	if (p->egress_rate_set.set)
		f |= WD_FEAT_NET_RATE;
	for (int i = 0; i < WD_LIMIT_NR; i++)
		if (p->limits[i].s.set && !limit_enforced(i))
			f |= WD_FEAT_LIMITS;
	if (p->limits[WD_LIMIT_FORK_RATE].s.set)
		f |= WD_FEAT_FORK_RATE;
	if (p->env_pass.n || p->n_env_set)
		f |= WD_FEAT_ENV;
	if (p->user_set.set)
		f |= WD_FEAT_USER;
	for (int i = 0; i < WD_NS_NR; i++)
		if (p->ns_set[i].set && p->ns[i] != WD_NS_HOST)
			f |= WD_FEAT_NAMESPACES;
	if (p->ns_bind_ro.n)
		f |= WD_FEAT_NAMESPACES;
	if (p->ns_set[WD_NS_NET].set && p->ns[WD_NS_NET] == WD_NS_VETH)
		f |= WD_FEAT_NET_VETH;
	if (p->hold_timeout_set.set || p->hold_on_timeout_set.set || p->hold_io_uring_set.set ||
	    p->hold_burst_set.set)
		f |= WD_FEAT_HOLD;
	if (p->hold_approvers.n)
		f |= WD_FEAT_HOLD_APPROVERS;
	return f;
}

/* Where a part of a policy is: its JSON pointer and the document it came from. */
struct where {
	char *ptr;
	size_t ptrsz;
	int *origin;
};

static bool at(const struct where *w, const char *ptr, int origin)
{
	snprintf(w->ptr, w->ptrsz, "%s", ptr);
	*w->origin = origin;
	return true;
}

/* At @ptr when setting @s is set. */
static bool at_set(const struct where *w, const struct wd_setting *s, const char *ptr)
{
	return s->set && at(w, ptr, s->origin);
}

/* At @ptr (the first entry) when list @l has entries. */
static bool at_exec(const struct where *w, const struct wd_exec_list *l, const char *ptr)
{
	return l->n && at(w, ptr, l->v[0].origin);
}

static bool at_net(const struct where *w, const struct wd_net_list *l, const char *ptr)
{
	return l->n && at(w, ptr, l->v[0].origin);
}

/* The first part of @p that asks for @feat: its pointer and where it came from. */
static void feature_where(const struct wd_policy *p, unsigned int feat, char *ptr, size_t ptrsz,
			  int *origin)
{
	const struct where w = { .ptr = ptr, .ptrsz = ptrsz, .origin = origin };

	at(&w, "/", 0);
	switch (feat) {
	case WD_FEAT_FS_DENY:
		at(&w, "/fs/deny/0", p->fs_deny.origin[0]);
		break;
	case WD_FEAT_FS_PROTECT:
		at(&w, "/fs/protect/0", p->fs_protect[0].origin);
		break;
	case WD_FEAT_EXEC_HOLD:
		at(&w, "/exec/hold/0", p->exec_hold.v[0].origin);
		break;
	case WD_FEAT_EXEC:
		at_exec(&w, &p->exec_deny, "/exec/deny/0");
		break;
	case WD_FEAT_EXEC_ALLOW:
		at_exec(&w, &p->exec_allow, "/exec/allow/0");
		break;
	case WD_FEAT_NET:
		(void)(at_set(&w, &p->net_default_set, "/net/default") ||
		       at_net(&w, &p->net_allow, "/net/allow/0") ||
		       at_net(&w, &p->net_deny, "/net/deny/0") ||
		       at_net(&w, &p->net_listen, "/net/listen/0") ||
		       at_set(&w, &p->net_ping_set, "/net/ping"));
		break;
	case WD_FEAT_NET_NAMES: {
		const struct wd_net_list *l = net_name_at(&p->net_allow) >= 0 ? &p->net_allow
									   : &p->net_deny;
		long i = net_name_at(l);

		snprintf(ptr, ptrsz, "/net/%s/%ld", l == &p->net_allow ? "allow" : "deny", i);
		*origin = l->v[i].origin;
		break;
	}
	case WD_FEAT_NET_RATE:
		at(&w, "/net/egress_rate", p->egress_rate_set.origin);
		break;
	case WD_FEAT_LIMITS:
		for (int i = 0; i < WD_LIMIT_NR; i++) {
			char lp[64];

			snprintf(lp, sizeof(lp), "/limits/%s",
				 wd_limit_name((enum wd_limit_kind)i));
			if (!limit_enforced(i) && at_set(&w, &p->limits[i].s, lp))
				break;
		}
		break;
	case WD_FEAT_FORK_RATE:
		at(&w, "/limits/fork_rate", p->limits[WD_LIMIT_FORK_RATE].s.origin);
		break;
	case WD_FEAT_ENV:
		if (p->env_pass.n) {
			at(&w, "/env/pass/0", p->env_pass.origin[0]);
		} else {
			wdp_pointer_join(ptr, ptrsz, "/env/set", p->env_set[0].name);
			*origin = p->env_set[0].origin;
		}
		break;
	case WD_FEAT_USER:
		at(&w, "/user", p->user_set.origin);
		break;
	case WD_FEAT_NET_VETH:
		at(&w, "/namespaces/net", p->ns_set[WD_NS_NET].origin);
		break;
	case WD_FEAT_NAMESPACES:
		if (p->ns_bind_ro.n)
			at(&w, "/namespaces/bind_ro/0", p->ns_bind_ro.origin[0]);
		for (int i = WD_NS_NR - 1; i >= 0; i--) {
			if (p->ns_set[i].set && p->ns[i] != WD_NS_HOST) {
				snprintf(ptr, ptrsz, "/namespaces/%s",
					 wd_ns_name((enum wd_ns_kind)i));
				*origin = p->ns_set[i].origin;
			}
		}
		break;
	case WD_FEAT_HOLD:
		(void)(at_set(&w, &p->hold_timeout_set, "/hold/timeout") ||
		       at_set(&w, &p->hold_on_timeout_set, "/hold/on_timeout") ||
		       at_set(&w, &p->hold_io_uring_set, "/hold/io_uring") ||
		       at(&w, "/hold/delete_burst", p->hold_burst_set.origin));
		break;
	case WD_FEAT_HOLD_APPROVERS:
		at(&w, "/hold/approvers/0", p->hold_approvers.origin[0]);
		break;
	}
}

static const struct {
	unsigned int feat;
	const char *what;
} feature_words[] = {
	{ WD_FEAT_FS_DENY, "fs.deny (carving paths out of allowed trees)" },
	{ WD_FEAT_FS_PROTECT, "fs.protect (delete, rename and truncate protection)" },
	{ WD_FEAT_EXEC, "exec.deny (programs that may not run)" },
	{ WD_FEAT_EXEC_ALLOW, "exec.allow (an allow set of programs; landlock's execute right also "
			      "covers the ELF interpreter, so it cannot tell a program from ld.so "
			      "running it, use --backend bpf-lsm)" },
	{ WD_FEAT_NET, "net (egress rules)" },
	{ WD_FEAT_LIMITS, "this limit" },
	{ WD_FEAT_ENV, "env (the sandbox's environment)" },
	{ WD_FEAT_USER, "user (running as another user)" },
	{ WD_FEAT_NAMESPACES, "namespaces other than the host's" },
	{ WD_FEAT_HOLD, "hold settings" },
	{ WD_FEAT_EXEC_HOLD, "exec.hold (programs run only when an operator approves)" },
	{ WD_FEAT_HOLD_APPROVERS, "hold.approvers (deciders other than root)" },
	{ WD_FEAT_NET_VETH, "namespaces.net \"veth\" (a veth pair to the host)" },
	{ WD_FEAT_NET_NAMES, "names in net rules (write the address or CIDR block, or \"*\")" },
	{ WD_FEAT_NET_RATE, "net.egress_rate (the sandbox's egress bandwidth)" },
	{ WD_FEAT_FORK_RATE, "limits.fork_rate (new processes per second; the landlock backend has "
			     "no sound hook that can count them, use --backend bpf-lsm)" },
};

const char *wd_feature_words(unsigned int feat)
{
	for (size_t i = 0; i < sizeof(feature_words) / sizeof(feature_words[0]); i++)
		if (feature_words[i].feat == feat)
			return feature_words[i].what;
	return NULL;
}

int wd_policy_feature_pointer(const struct wd_policy *p, unsigned int feat, char *ptr, size_t ptrsz)
{
	int origin;

	feature_where(p, feat, ptr, ptrsz, &origin);
	return origin;
}

int wd_policy_unenforced(const struct wd_policy *p, char *why, size_t whysz)
{
	return wd_policy_unenforced_mask(p, WD_FEAT_ENFORCED, why, whysz);
}

int wd_policy_unenforced_mask(const struct wd_policy *p, unsigned int enforced, char *why,
			      size_t whysz)
{
	unsigned int missing = wd_policy_features(p) & ~enforced;
	char ptr[PTR_MAX], from[300] = "";
	int origin;

	if (why && whysz)
		why[0] = 0;
	if (!missing)
		return 0;
	for (size_t i = 0; i < sizeof(feature_words) / sizeof(feature_words[0]); i++) {
		unsigned int feat = feature_words[i].feat;

		if (!(missing & feat))
			continue;
		feature_where(p, feat, ptr, sizeof(ptr), &origin);
		if (origin != p->top_origin && origin >= 0 && (size_t)origin < p->n_origins)
			snprintf(from, sizeof(from), " (it comes from %s)", p->origins[origin]);
		snprintf(why, whysz, "%s: %s %s not enforced by this warden yet%s", ptr,
			 feature_words[i].what,
			 feat == WD_FEAT_NAMESPACES || feat == WD_FEAT_HOLD ||
					 feat == WD_FEAT_NET_NAMES
				 ? "are"
				 : "is",
			 from);
		break;
	}
	return -EOPNOTSUPP;
}
