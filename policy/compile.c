// SPDX-License-Identifier: GPL-2.0
/*
 * Compiling a policy (policy/compile.h): LPM path entries and rule names, the other parts as
 * their enforcement loads them, and the text dump of a rule set.
 */
#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "policy/compile.h"
#include "policy/grow.h"
#include "policy/net.h"
#include "policy/path.h"
#include "policy/units.h"

struct src_rule {
	const char *path;
	__u32 access; /* WD_ACC_* */
	__u32 id;
};

static int entry_cmp(const void *a, const void *b)
{
	const struct wd_rule_entry *x = a, *y = b;
	__u32 n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->path, y->path, n);

	if (c)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

/* Does rule @r (a normalised path) cover the stored prefix @e ("/etc/..." or exactly "/etc\0")? */
static bool covers(const struct src_rule *r, const struct wd_rule_entry *e)
{
	return wd_path_within_n(e->path, e->len, r->path);
}

static int add_entry(struct wd_ruleset *rs, const char *path, size_t len)
{
	struct wd_rule_entry *e;

	for (size_t i = 0; i < rs->n_entries; i++)
		if (rs->entries[i].len == len && memcmp(rs->entries[i].path, path, len) == 0)
			return 0;
	if (WD_GROW(rs->entries, rs->n_entries))
		return -ENOMEM;
	e = &rs->entries[rs->n_entries++];
	memset(e, 0, sizeof(*e));
	memcpy(e->path, path, len);
	e->len = (__u32)len;
	return 0;
}

static void compile_error(struct wd_policy_error *err, const char *pointer, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void compile_error(struct wd_policy_error *err, const char *pointer, const char *fmt, ...)
{
	va_list ap;

	snprintf(err->pointer, sizeof(err->pointer), "%s", pointer);
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/* A new rule id named @pointer. */
static int add_rule_name(struct wd_ruleset *rs, const char *pointer, __u32 *id)
{
	if (WD_GROW(rs->rule_names, rs->n_rules))
		return -ENOMEM;
	rs->rule_names[rs->n_rules] = strdup(pointer);
	if (!rs->rule_names[rs->n_rules])
		return -ENOMEM;
	*id = (__u32)rs->n_rules++;
	return 0;
}

static int strv_add(char ***v, size_t *n, const char *s)
{
	char *d = strdup(s);

	if (!d || wd_grow((void **)v, *n, sizeof(**v))) {
		free(d);
		return -ENOMEM;
	}
	(*v)[(*n)++] = d;
	return 0;
}

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

/* A path the kernel side can take: expanded, and short enough for an LPM key. */
static int check_compiled_path(const char *path, const char *pointer, struct wd_policy_error *err)
{
	if (path[0] != '/') {
		compile_error(err, pointer,
			      "\"%s\" is not expanded: expand the policy's variables "
			      "before compiling it",
			      path);
		return -EINVAL;
	}
	if (strlen(path) + 1 >= WD_LPM_PATH_BYTES) {
		compile_error(err, pointer, "path is longer than %d bytes", WD_LPM_PATH_BYTES - 2);
		return -EINVAL;
	}
	return 0;
}

/* "/path/" and "/path\0" for a rule on @path (or "/" alone). */
static int add_path_entries(struct wd_ruleset *rs, const char *path)
{
	char buf[WD_LPM_PATH_BYTES] = { 0 };
	size_t n = strlen(path);
	int r;

	if (n == 1)
		return add_entry(rs, "/", 1);
	memcpy(buf, path, n);
	buf[n] = '/';
	r = add_entry(rs, buf, n + 1);
	buf[n] = 0;
	return r ?: add_entry(rs, buf, n + 1);
}

/* Does exec.deny rule @e decide by its path alone (no argv patterns)? */
static bool exec_by_path(const struct wd_exec_rule *e)
{
	return !e->has_argv;
}

static int add_exec_entries(const struct wd_policy *p, struct wd_ruleset *rs,
			    struct wd_policy_error *err)
{
	const struct {
		const struct wd_exec_list *l;
		const char *pointer;
	} lists[] = {
		{ &p->exec_deny, "/exec/deny" },
		{ &p->exec_allow, "/exec/allow" },
	};
	int r = 0;

	for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]) && !r; l++) {
		for (size_t i = 0; i < lists[l].l->n && !r; i++) {
			const struct wd_exec_rule *e = &lists[l].l->v[i];
			char name[64];

			if (!exec_by_path(e))
				continue;
			snprintf(name, sizeof(name), "%s/%zu", lists[l].pointer, i);
			r = check_compiled_path(e->path, name, err);
			r = r ?: add_path_entries(rs, e->path);
		}
	}
	return r;
}

static int compile_fs(const struct wd_policy *p, struct wd_ruleset *rs, struct wd_policy_error *err)
{
	const struct {
		const struct wd_path_list *list;
		__u32 access;
		const char *pointer;
	} sets[] = {
		{ &p->fs_read, WD_ACC_READ, "/fs/read" },
		/* Writing a tree implies reading it (an O_RDWR open needs both). */
		{ &p->fs_write, WD_ACC_READ | WD_ACC_WRITE, "/fs/write" },
		{ &p->fs_exec, WD_ACC_EXEC, "/fs/exec" },
	};
	struct src_rule *rules = NULL;
	size_t nrules = 0, total = 0;
	int r = 0;

	for (size_t s = 0; s < sizeof(sets) / sizeof(sets[0]); s++)
		total += sets[s].list->n;
	rules = calloc(total + 1, sizeof(*rules));
	rs->fs_rules = calloc(total + 1, sizeof(*rs->fs_rules));
	if (!rules || !rs->fs_rules) {
		r = -ENOMEM;
		goto out_free;
	}

	for (size_t s = 0; s < sizeof(sets) / sizeof(sets[0]); s++) {
		for (size_t i = 0; i < sets[s].list->n; i++) {
			const char *path = sets[s].list->paths[i];
			char name[64];
			__u32 id;

			snprintf(name, sizeof(name), "%s/%zu", sets[s].pointer, i);
			r = check_compiled_path(path, name, err);
			if (r)
				goto out_free;
			r = add_rule_name(rs, name, &id);
			if (r)
				goto out_free;
			rules[nrules].path = path;
			rules[nrules].access = sets[s].access;
			rules[nrules].id = id;
			nrules++;
			rs->fs_rules[rs->n_fs_rules].path = strdup(path);
			if (!rs->fs_rules[rs->n_fs_rules].path) {
				r = -ENOMEM;
				goto out_free;
			}
			rs->fs_rules[rs->n_fs_rules].access = sets[s].access;
			rs->fs_rules[rs->n_fs_rules].id = id;
			rs->n_fs_rules++;

			r = add_path_entries(rs, path);
			if (r)
				goto out_free;
		}
	}

	/*
	 * exec.deny paths get stored prefixes of their own (with what the fs
	 * rules above them grant, which changes no lookup), so that compile_exec_bits() can take
	 * exec away exactly there.
	 */
	r = add_exec_entries(p, rs, err);
	if (r)
		goto out_free;

	/* Each stored prefix gets what every rule covering it grants; the longest rule names it. */
	for (size_t e = 0; e < rs->n_entries; e++) {
		struct wd_rule_entry *ent = &rs->entries[e];
		size_t best[WD_ACC_IDX_NR] = { 0 };

		for (size_t i = 0; i < nrules; i++) {
			size_t n = strlen(rules[i].path);

			if (!covers(&rules[i], ent))
				continue;
			ent->val.allow |= rules[i].access;
			for (int idx = 0; idx < WD_ACC_IDX_NR; idx++) {
				if (!(rules[i].access & (1u << idx)))
					continue;
				if (!ent->val.rule[idx] || n > best[idx]) {
					ent->val.rule[idx] = rules[i].id;
					best[idx] = n;
				}
			}
		}
	}
	if (rs->n_entries)
		qsort(rs->entries, rs->n_entries, sizeof(*rs->entries), entry_cmp);
out_free:
	free(rules);
	return r;
}

static int compile_fs_deny_protect(const struct wd_policy *p, struct wd_ruleset *rs,
				   struct wd_policy_error *err)
{
	int r = 0;

	rs->fs_deny = calloc(p->fs_deny.n + 1, sizeof(*rs->fs_deny));
	rs->protect = calloc(p->n_fs_protect + 1, sizeof(*rs->protect));
	if (!rs->fs_deny || !rs->protect)
		return -ENOMEM;
	for (size_t i = 0; i < p->fs_deny.n; i++) {
		struct wd_rs_deny *d = &rs->fs_deny[rs->n_fs_deny];
		char name[64];

		snprintf(name, sizeof(name), "/fs/deny/%zu", i);
		r = check_compiled_path(p->fs_deny.paths[i], name, err);
		r = r ?: add_rule_name(rs, name, &d->id);
		if (r)
			return r;
		d->path = strdup(p->fs_deny.paths[i]);
		if (!d->path)
			return -ENOMEM;
		rs->n_fs_deny++;
	}
	for (size_t i = 0; i < p->n_fs_protect; i++) {
		struct wd_rs_protect *d = &rs->protect[rs->n_protect];
		char name[64];

		snprintf(name, sizeof(name), "/fs/protect/%zu", i);
		r = check_compiled_path(p->fs_protect[i].path, name, err);
		r = r ?: add_rule_name(rs, name, &d->id);
		if (r)
			return r;
		d->path = strdup(p->fs_protect[i].path);
		if (!d->path)
			return -ENOMEM;
		d->ops = p->fs_protect[i].ops;
		d->action = p->fs_protect[i].action;
		rs->n_protect++;
	}
	return 0;
}

static int compile_exec(const struct wd_policy *p, struct wd_ruleset *rs,
			struct wd_policy_error *err)
{
	const struct {
		const struct wd_exec_list *l;
		__u32 action;
		const char *pointer;
	} lists[] = {
		{ &p->exec_allow, WD_ACTION_ALLOW, "/exec/allow" },
		{ &p->exec_deny, WD_ACTION_DENY, "/exec/deny" },
		{ &p->exec_hold, WD_ACTION_HOLD, "/exec/hold" },
	};
	size_t total = p->exec_allow.n + p->exec_deny.n + p->exec_hold.n;
	int r;

	rs->exec = calloc(total + 1, sizeof(*rs->exec));
	if (!rs->exec)
		return -ENOMEM;
	for (size_t l = 0; l < 3; l++) {
		for (size_t i = 0; i < lists[l].l->n; i++) {
			const struct wd_exec_rule *src = &lists[l].l->v[i];
			struct wd_rs_exec *d = &rs->exec[rs->n_exec];
			char name[64];

			snprintf(name, sizeof(name), "%s/%zu", lists[l].pointer, i);
			if (lists[l].action == WD_ACTION_ALLOW && src->has_argv) {
				compile_error(err, name, "exec.allow names programs by path alone: "
					      "the kernel decides an execve without its arguments "
					      "(patterns are for exec.deny and exec.hold)%s", "");
				return -EINVAL;
			}
			r = check_compiled_path(src->path, name, err);
			r = r ?: add_rule_name(rs, name, &d->id);
			if (r)
				return r;
			rs->n_exec++;
			d->action = lists[l].action;
			d->has_argv = src->has_argv;
			d->path = strdup(src->path);
			if (!d->path)
				return -ENOMEM;
			if (!src->has_argv)
				continue;
			d->argv = calloc(src->argc + 1, sizeof(char *));
			if (!d->argv)
				return -ENOMEM;
			for (size_t a = 0; a < src->argc; a++, d->argc++) {
				d->argv[a] = strdup(src->argv[a]);
				if (!d->argv[a])
					return -ENOMEM;
			}
		}
	}
	return 0;
}

/*
 * exec in the stored prefixes: an exec.deny path without argument patterns takes exec away at
 * and under it whatever fs.exec allows, and names itself for the refusal (the longest such rule
 * where several cover a prefix). Since exec is one right for execve, the ELF interpreter and
 * executable mappings (bpf/wd_lsm.bpf.c), the denied file can neither be run nor be loaded by
 * `ld.so FILE`. Argument patterns are the waiting room's (advisory, supervisor/hold).
 */
static void compile_exec_bits(struct wd_ruleset *rs)
{
	for (size_t e = 0; e < rs->n_entries; e++) {
		struct wd_rule_entry *ent = &rs->entries[e];
		size_t best = 0, best_run = 0;

		/* exec.allow: the run right at and under each entry (the longest names it) */
		for (size_t i = 0; i < rs->n_exec; i++) {
			const struct wd_rs_exec *x = &rs->exec[i];
			size_t n = strlen(x->path);

			if (x->action != WD_ACTION_ALLOW || x->has_argv ||
			    !wd_path_within_n(ent->path, ent->len, x->path) || n <= best_run)
				continue;
			ent->val.allow |= WD_ACC_RUN;
			ent->val.rule[WD_ACC_IDX_RUN] = x->id;
			best_run = n;
		}

		for (size_t i = 0; i < rs->n_exec; i++) {
			const struct wd_rs_exec *x = &rs->exec[i];
			size_t n = strlen(x->path);

			if (x->action != WD_ACTION_DENY || x->has_argv ||
			    !wd_path_within_n(ent->path, ent->len, x->path) || n <= best)
				continue;
			ent->val.allow &= ~(__u32)WD_ACC_EXEC;
			ent->val.rule[WD_ACC_IDX_EXEC] = x->id;
			best = n;
		}
	}
}

static int add_net_entry(struct wd_ruleset *rs, const struct wd_net_rule *r, int family,
			 __u32 action, __u32 id)
{
	struct wd_net_entry *e;

	if (wd_grow((void **)&rs->net, rs->n_net, sizeof(*rs->net)))
		return -ENOMEM;
	e = &rs->net[rs->n_net++];
	memset(e, 0, sizeof(*e));
	e->family = (__u8)family;
	e->proto = (__u8)r->proto;
	e->action = (__u8)action;
	e->port_lo = (__u16)r->port_lo;
	e->port_hi = (__u16)r->port_hi;
	e->id = id;
	if (r->kind == WD_NET_HOST_ADDR) {
		e->prefix = (__u8)r->prefix;
		memcpy(e->addr, r->addr, sizeof(e->addr));
	}
	return 0;
}

static int compile_net(const struct wd_policy *p, struct wd_ruleset *rs)
{
	const struct {
		const struct wd_net_list *l;
		__u32 action;
		const char *pointer;
	} lists[] = {
		{ &p->net_allow, WD_ACTION_ALLOW, "/net/allow" },
		{ &p->net_deny, WD_ACTION_DENY, "/net/deny" },
	};
	int r = 0;

	rs->net_default = p->net_default;
	rs->net_on = (wd_policy_features(p) & WD_FEAT_NET) != 0;
	rs->net_ping = p->net_ping;
	for (size_t i = 0; i < p->net_listen.n; i++) {
		const struct wd_net_rule *src = &p->net_listen.v[i];
		struct wd_net_entry *e;
		char name[64];
		__u32 id;

		snprintf(name, sizeof(name), "/net/listen/%zu", i);
		r = add_rule_name(rs, name, &id);
		if (r)
			return r;
		if (wd_grow((void **)&rs->net_listen, rs->n_net_listen, sizeof(*rs->net_listen)))
			return -ENOMEM;
		e = &rs->net_listen[rs->n_net_listen++];
		memset(e, 0, sizeof(*e));
		e->proto = (__u8)src->proto;
		e->action = WD_ACTION_ALLOW;
		e->port_lo = (__u16)src->port_lo;
		e->port_hi = (__u16)src->port_hi;
		e->id = id;
		if (src->kind == WD_NET_HOST_ADDR) {
			e->family = (__u8)src->family;
			e->prefix = (__u8)src->prefix;
			memcpy(e->addr, src->addr, sizeof(e->addr));
		}
	}
	if (p->egress_rate_set.set) {
		rs->egress_bytes = p->egress_bytes;
		rs->egress_per_ms = p->egress_per_ms;
	}
	for (size_t l = 0; l < 2; l++) {
		for (size_t i = 0; i < lists[l].l->n; i++) {
			const struct wd_net_rule *src = &lists[l].l->v[i];
			char name[64];
			__u32 id;

			snprintf(name, sizeof(name), "%s/%zu", lists[l].pointer, i);
			r = add_rule_name(rs, name, &id);
			if (r)
				return r;
			if (src->kind == WD_NET_HOST_ANY) {
				r = add_net_entry(rs, src, AF_INET, lists[l].action, id);
				r = r ?: add_net_entry(rs, src, AF_INET6, lists[l].action, id);
			} else if (src->kind == WD_NET_HOST_ADDR) {
				r = add_net_entry(rs, src, src->family, lists[l].action, id);
			} else {
				struct wd_net_name *nm;

				if (wd_grow((void **)&rs->net_names, rs->n_net_names,
					 sizeof(*rs->net_names)))
					return -ENOMEM;
				nm = &rs->net_names[rs->n_net_names];
				memset(nm, 0, sizeof(*nm));
				nm->name = strdup(src->name);
				if (!nm->name)
					return -ENOMEM;
				rs->n_net_names++;
				nm->proto = (__u8)src->proto;
				nm->action = (__u8)lists[l].action;
				nm->port_lo = (__u16)src->port_lo;
				nm->port_hi = (__u16)src->port_hi;
				nm->id = id;
			}
			if (r)
				return r;
		}
	}
	return 0;
}

static int env_cmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t nx = strcspn(x, "="), ny = strcspn(y, "=");
	int c = memcmp(x, y, nx < ny ? nx : ny);

	return c ? c : (nx > ny) - (nx < ny);
}

/* "/tmp/..." (not /tmp itself): what a private /tmp hides. */
static bool under_tmp(const char *path)
{
	return strncmp(path, "/tmp/", 5) == 0 && path[5];
}

/*
 * With a private /tmp, a rule naming a path under the host's /tmp names something the sandbox
 * cannot see (its /tmp starts empty): refused, naming the rule, rather than left to fail later.
 */
static int check_not_under_tmp(const struct wd_policy *p, struct wd_policy_error *err)
{
	static const struct {
		size_t off;
		const char *name;
	} lists[] = {
		{ offsetof(struct wd_policy, fs_read), "/fs/read" },
		{ offsetof(struct wd_policy, fs_write), "/fs/write" },
		{ offsetof(struct wd_policy, fs_exec), "/fs/exec" },
		{ offsetof(struct wd_policy, fs_deny), "/fs/deny" },
		{ offsetof(struct wd_policy, ns_bind_ro), "/namespaces/bind_ro" },
	};
	char ptr[64];
	const char *bad = NULL;

	for (size_t l = 0; !bad && l < sizeof(lists) / sizeof(lists[0]); l++) {
		const struct wd_path_list *pl =
			(const struct wd_path_list *)((const char *)p + lists[l].off);

		for (size_t i = 0; !bad && i < pl->n; i++) {
			if (!under_tmp(pl->paths[i]))
				continue;
			bad = pl->paths[i];
			snprintf(ptr, sizeof(ptr), "%s/%zu", lists[l].name, i);
		}
	}
	for (size_t i = 0; !bad && i < p->n_fs_protect; i++) {
		if (!under_tmp(p->fs_protect[i].path))
			continue;
		bad = p->fs_protect[i].path;
		snprintf(ptr, sizeof(ptr), "/fs/protect/%zu/path", i);
	}
	for (size_t i = 0; !bad && i < p->exec_deny.n; i++) {
		if (!under_tmp(p->exec_deny.v[i].path))
			continue;
		bad = p->exec_deny.v[i].path;
		snprintf(ptr, sizeof(ptr), "/exec/deny/%zu", i);
	}
	if (!bad)
		return 0;
	compile_error(err, ptr,
		      "%s lies under /tmp, which /namespaces/tmp makes private and empty: the "
		      "sandbox could never see it (move it out of /tmp, or leave /tmp the host's)",
		      bad);
	return -EINVAL;
}

/* A private /tmp and read-only binds live in a private mount namespace: they imply one. */
static int compile_mounts(const struct wd_policy *p, struct wd_ruleset *rs,
			  struct wd_policy_error *err)
{
	bool tmp = p->ns_set[WD_NS_TMP].set && p->ns[WD_NS_TMP] == WD_NS_PRIVATE;
	int r = 0;

	if (!tmp && !p->ns_bind_ro.n)
		return 0;
	if (p->ns_set[WD_NS_MOUNT].set && p->ns[WD_NS_MOUNT] == WD_NS_HOST) {
		compile_error(err, "/namespaces/mount",
			      "\"host\" contradicts %s: a private /tmp and read-only binds need "
			      "a private mount namespace (leave \"mount\" out, or say \"private\")",
			      tmp ? "/namespaces/tmp" : "/namespaces/bind_ro");
		return -EINVAL;
	}
	rs->ns[WD_NS_MOUNT] = WD_NS_PRIVATE;
	if (tmp && check_not_under_tmp(p, err))
		return -EINVAL;
	for (size_t i = 0; !r && i < p->ns_bind_ro.n; i++) {
		char ptr[64];

		snprintf(ptr, sizeof(ptr), "/namespaces/bind_ro/%zu", i);
		r = check_compiled_path(p->ns_bind_ro.paths[i], ptr, err);
		r = r ?: strv_add(&rs->bind_ro, &rs->n_bind_ro, p->ns_bind_ro.paths[i]);
	}
	return r;
}

/* Devices a policy may write beside the private /tmp under limits.disk: none of them stores. */
static bool stores_nothing(const char *path)
{
	static const char *const devs[] = { "/dev/null", "/dev/zero", "/dev/full", "/dev/tty" };

	for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++)
		if (strcmp(path, devs[i]) == 0)
			return true;
	return false;
}

/*
 * limits.disk is the size of the private /tmp (a tmpfs mounted size=, nr_inodes=): it holds
 * only when the sandbox can write nowhere else. A host tree has no per-sandbox quota warden
 * could set (a filesystem quota setup is the host's), so a policy that writes one is refused.
 */
static int check_disk(const struct wd_policy *p, struct wd_policy_error *err)
{
	bool tmp = p->ns_set[WD_NS_TMP].set && p->ns[WD_NS_TMP] == WD_NS_PRIVATE;

	if (!p->limits[WD_LIMIT_DISK].s.set)
		return 0;
	if (!tmp) {
		compile_error(err, "/limits/disk",
			      "limits.disk is enforced only as the size of a private /tmp: set "
			      "/namespaces/tmp to \"private\" and write only under /tmp "
			      "(a host tree has no quota warden can set)");
		return -EINVAL;
	}
	for (size_t i = 0; i < p->fs_write.n; i++) {
		const char *w = p->fs_write.paths[i];

		if (wd_path_within(w, "/tmp") || stores_nothing(w))
			continue;
		compile_error(err, "/limits/disk",
			      "limits.disk cannot hold: /fs/write/%zu lets the sandbox write %s, "
			      "outside its private /tmp, where no quota applies (write only under "
			      "/tmp, or leave limits.disk out)", i, w);
		return -EINVAL;
	}
	return 0;
}

static int compile_rest(const struct wd_policy *p, struct wd_ruleset *rs)
{
	int r = 0;

	for (int i = 0; i < WD_LIMIT_NR; i++) {
		if (!p->limits[i].s.set)
			continue;
		rs->limits_set |= 1u << i;
		rs->limit[i] = p->limits[i].value;
		rs->limit_per_ms[i] = p->limits[i].per_ms;
	}
	rs->env_clean = p->env_pass.n || p->n_env_set;
	for (size_t i = 0; !r && i < p->env_pass.n; i++)
		r = strv_add(&rs->env_pass, &rs->n_env_pass, p->env_pass.paths[i]);
	for (size_t i = 0; !r && i < p->n_env_set; i++) {
		size_t n = strlen(p->env_set[i].name) + strlen(p->env_set[i].value) + 2;
		char *kv = malloc(n);

		if (!kv)
			return -ENOMEM;
		snprintf(kv, n, "%s=%s", p->env_set[i].name, p->env_set[i].value);
		r = strv_add(&rs->env_set, &rs->n_env_set, kv);
		free(kv);
	}
	if (r)
		return r;
	if (rs->n_env_set)
		qsort(rs->env_set, rs->n_env_set, sizeof(char *), env_cmp);
	rs->caps = wd_policy_caps_mask(p);
	if (p->user_set.set) {
		rs->user = strdup(p->user);
		if (!rs->user)
			return -ENOMEM;
		if (p->group) {
			rs->group = strdup(p->group);
			if (!rs->group)
				return -ENOMEM;
		}
	}
	for (int i = 0; i < WD_NS_NR; i++)
		rs->ns[i] = (__u8)(p->ns_set[i].set ? p->ns[i] : WD_NS_HOST);
	rs->hold_timeout_ms =
		p->hold_timeout_set.set ? p->hold_timeout_ms : WD_HOLD_TIMEOUT_DEFAULT_MS;
	rs->hold_on_timeout = p->hold_on_timeout_set.set ? p->hold_on_timeout : WD_ACTION_DENY;
	if (p->hold_burst_set.set) {
		rs->hold_burst_count = p->hold_burst_count;
		rs->hold_burst_ms = p->hold_burst_window_ms;
	}
	for (size_t i = 0; !r && i < p->hold_approvers.n; i++)
		r = strv_add(&rs->approvers, &rs->n_approvers, p->hold_approvers.paths[i]);
	return r;
}

int wd_compile(const struct wd_policy *p, struct wd_ruleset *rs, struct wd_policy_error *err)
{
	int r;

	memset(rs, 0, sizeof(*rs));
	memset(err, 0, sizeof(*err));
	rs->sandbox_flags = p->mode == WD_MODE_AUDIT ? WD_SB_AUDIT_MODE : 0;
	if (p->exec_allow.n)
		rs->sandbox_flags |= WD_SB_EXEC_ALLOW;
	rs->features = wd_policy_features(p);
	if (WD_GROW(rs->rule_names, 0)) {
		r = -ENOMEM;
		goto out;
	}
	rs->rule_names[0] = strdup("default");
	if (!rs->rule_names[0]) {
		r = -ENOMEM;
		goto out;
	}
	rs->n_rules = 1;
	r = compile_fs(p, rs, err);
	r = r ?: compile_fs_deny_protect(p, rs, err);
	r = r ?: compile_exec(p, rs, err);
	if (!r)
		compile_exec_bits(rs);
	r = r ?: compile_net(p, rs);
	r = r ?: compile_rest(p, rs);
	r = r ?: compile_mounts(p, rs, err);
	r = r ?: check_disk(p, err);
out:
	if (r == -ENOMEM && !err->msg[0])
		snprintf(err->msg, sizeof(err->msg), "out of memory");
	if (r)
		wd_ruleset_free(rs);
	return r;
}

void wd_ruleset_free(struct wd_ruleset *rs)
{
	strv_free(rs->rule_names, rs->n_rules);
	free(rs->entries);
	for (size_t i = 0; rs->fs_rules && i < rs->n_fs_rules; i++)
		free(rs->fs_rules[i].path);
	free(rs->fs_rules);
	for (size_t i = 0; rs->fs_deny && i < rs->n_fs_deny; i++)
		free(rs->fs_deny[i].path);
	free(rs->fs_deny);
	for (size_t i = 0; rs->protect && i < rs->n_protect; i++)
		free(rs->protect[i].path);
	free(rs->protect);
	for (size_t i = 0; rs->exec && i < rs->n_exec; i++) {
		free(rs->exec[i].path);
		strv_free(rs->exec[i].argv, rs->exec[i].argc);
	}
	free(rs->exec);
	free(rs->net);
	free(rs->net_listen);
	for (size_t i = 0; rs->net_names && i < rs->n_net_names; i++)
		free(rs->net_names[i].name);
	free(rs->net_names);
	strv_free(rs->env_pass, rs->n_env_pass);
	strv_free(rs->env_set, rs->n_env_set);
	free(rs->user);
	free(rs->group);
	strv_free(rs->approvers, rs->n_approvers);
	strv_free(rs->bind_ro, rs->n_bind_ro);
	memset(rs, 0, sizeof(*rs));
}

void wd_rule_entry_key(const struct wd_rule_entry *e, __u64 sandbox, struct wd_path_key *key)
{
	memset(key, 0, sizeof(*key));
	key->prefixlen = 64 + e->len * 8;
	key->sandbox[0] = (__u32)sandbox;
	key->sandbox[1] = (__u32)(sandbox >> 32);
	memcpy(key->path, e->path, e->len);
}

const char *wd_ruleset_rule_name(const struct wd_ruleset *rs, __u32 id)
{
	if (id == WD_RULE_DEFAULT || id >= rs->n_rules)
		return "default";
	return rs->rule_names[id];
}

const struct wd_rule_entry *wd_ruleset_lookup(const struct wd_ruleset *rs, const char *path)
{
	const struct wd_rule_entry *best = NULL;
	size_t n = strlen(path) + 1;

	if (n > WD_LPM_PATH_BYTES)
		n = WD_LPM_PATH_BYTES;
	for (size_t i = 0; i < rs->n_entries; i++) {
		const struct wd_rule_entry *e = &rs->entries[i];

		if (e->len <= n && memcmp(e->path, path, e->len) == 0 &&
		    (!best || e->len > best->len))
			best = e;
	}
	return best;
}

const char *wd_ruleset_exec_denied(const struct wd_ruleset *rs, const char *path)
{
	const struct wd_rule_entry *e = wd_ruleset_lookup(rs, path);

	if (!e || (e->val.allow & WD_ACC_EXEC) || !e->val.rule[WD_ACC_IDX_EXEC])
		return NULL;
	return wd_ruleset_rule_name(rs, e->val.rule[WD_ACC_IDX_EXEC]);
}

/* @s with backslash, quote and anything unprintable escaped, so one item stays on one line. */
static void put_escaped(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static const char *action_name(__u32 a)
{
	return a == WD_ACTION_ALLOW ? "allow" : a == WD_ACTION_HOLD ? "hold" : "deny";
}

static const char *proto_name(__u8 p)
{
	return p == WD_NET_PROTO_TCP ? "tcp" : p == WD_NET_PROTO_UDP ? "udp" : "any";
}

static void dump_ports(FILE *out, __u16 lo, __u16 hi)
{
	if (lo == 0 && hi == 65535)
		fprintf(out, " port *");
	else if (lo == hi)
		fprintf(out, " port %u", lo);
	else
		fprintf(out, " port %u-%u", lo, hi);
}

void wd_ruleset_dump(const struct wd_ruleset *rs, FILE *out)
{
	bool holds = rs->features & WD_FEAT_HOLD;

	fprintf(out, "flags %s%s\n", rs->sandbox_flags & WD_SB_AUDIT_MODE ? "audit" : "enforce",
		rs->sandbox_flags & WD_SB_EXEC_ALLOW ? " exec-allow" : "");
	for (size_t i = 0; i < rs->n_entries; i++) {
		const struct wd_rule_entry *e = &rs->entries[i];
		__u32 a = e->val.allow;

		/* The object-itself prefix ends in NUL, shown as "$". */
		fprintf(out, "%.*s%s %c%c%c", (int)(e->path[e->len - 1] ? e->len : e->len - 1),
			e->path, e->path[e->len - 1] ? "" : "$", a & WD_ACC_READ ? 'r' : '-',
			a & WD_ACC_WRITE ? 'w' : '-', a & WD_ACC_EXEC ? 'x' : '-');
		if (a & WD_ACC_READ)
			fprintf(out, " read=%s",
				wd_ruleset_rule_name(rs, e->val.rule[WD_ACC_IDX_READ]));
		if (a & WD_ACC_WRITE)
			fprintf(out, " write=%s",
				wd_ruleset_rule_name(rs, e->val.rule[WD_ACC_IDX_WRITE]));
		if (a & WD_ACC_EXEC)
			fprintf(out, " exec=%s",
				wd_ruleset_rule_name(rs, e->val.rule[WD_ACC_IDX_EXEC]));
		else if (e->val.rule[WD_ACC_IDX_EXEC])
			fprintf(out, " noexec=%s",
				wd_ruleset_rule_name(rs, e->val.rule[WD_ACC_IDX_EXEC]));
		if (a & WD_ACC_RUN)
			fprintf(out, " run=%s", wd_ruleset_rule_name(rs, e->val.rule[WD_ACC_IDX_RUN]));
		fputc('\n', out);
	}
	for (size_t i = 0; i < rs->n_fs_deny; i++)
		fprintf(out, "deny %s rule=%s\n", rs->fs_deny[i].path,
			wd_ruleset_rule_name(rs, rs->fs_deny[i].id));
	for (size_t i = 0; i < rs->n_protect; i++) {
		const struct wd_rs_protect *pr = &rs->protect[i];
		static const char *const ops[] = { "delete", "rename", "truncate" };
		bool first = true;

		fprintf(out, "protect %s ops=", pr->path);
		for (int o = 0; o < 3; o++) {
			if (!(pr->ops & (1u << o)))
				continue;
			fprintf(out, "%s%s", first ? "" : ",", ops[o]);
			first = false;
		}
		fprintf(out, " action=%s rule=%s\n", action_name(pr->action),
			wd_ruleset_rule_name(rs, pr->id));
		holds |= pr->action == WD_ACTION_HOLD;
	}
	for (size_t i = 0; i < rs->n_exec; i++) {
		const struct wd_rs_exec *e = &rs->exec[i];

		fprintf(out, "exec %s %s", action_name(e->action), e->path);
		if (e->has_argv) {
			fprintf(out, " argv=[");
			for (size_t a = 0; a < e->argc; a++) {
				if (a)
					fputc(',', out);
				put_escaped(out, e->argv[a]);
			}
			fputc(']', out);
		}
		fprintf(out, " rule=%s\n", wd_ruleset_rule_name(rs, e->id));
		holds |= e->action == WD_ACTION_HOLD;
	}
	if (rs->features & WD_FEAT_NET)
		fprintf(out, "net default %s\n", action_name(rs->net_default));
	for (size_t i = 0; i < rs->n_net; i++) {
		const struct wd_net_entry *e = &rs->net[i];
		char a[64];

		wd_net_addr_format(e->family, e->addr, e->prefix, a, sizeof(a));
		fprintf(out, "net %s %s %s", action_name(e->action), proto_name(e->proto), a);
		dump_ports(out, e->port_lo, e->port_hi);
		fprintf(out, " rule=%s\n", wd_ruleset_rule_name(rs, e->id));
	}
	for (size_t i = 0; i < rs->n_net_names; i++) {
		const struct wd_net_name *n = &rs->net_names[i];

		fprintf(out, "net %s %s name %s", action_name(n->action), proto_name(n->proto),
			n->name);
		dump_ports(out, n->port_lo, n->port_hi);
		fprintf(out, " rule=%s\n", wd_ruleset_rule_name(rs, n->id));
	}
	if (rs->egress_bytes)
		fprintf(out, "net egress %llu bytes per %llu ms\n",
			(unsigned long long)rs->egress_bytes,
			(unsigned long long)rs->egress_per_ms);
	for (size_t i = 0; i < rs->n_net_listen; i++) {
		const struct wd_net_entry *e = &rs->net_listen[i];
		char a[64] = "*";

		if (e->family)
			wd_net_addr_format(e->family, e->addr, e->prefix, a, sizeof(a));
		fprintf(out, "net listen %s %s", proto_name(e->proto), a);
		dump_ports(out, e->port_lo, e->port_hi);
		fprintf(out, " rule=%s\n", wd_ruleset_rule_name(rs, e->id));
	}
	if (rs->net_ping)
		fprintf(out, "net ping\n");
	for (int i = 0; i < WD_LIMIT_NR; i++) {
		static const char *const units[WD_LIMIT_NR] = {
			"ms", "ms", "bytes", "tasks", "forks", "bytes", "millicpus", "ms", "bytes",
		};

		if (!(rs->limits_set & (1u << i)))
			continue;
		fprintf(out, "limit %s %llu %s", wd_limit_name((enum wd_limit_kind)i),
			(unsigned long long)rs->limit[i], units[i]);
		if (rs->limit_per_ms[i])
			fprintf(out, " per %llu ms", (unsigned long long)rs->limit_per_ms[i]);
		fputc('\n', out);
	}
	if (rs->env_clean)
		fprintf(out, "env clean\n");
	for (size_t i = 0; i < rs->n_env_pass; i++)
		fprintf(out, "env pass %s\n", rs->env_pass[i]);
	for (size_t i = 0; i < rs->n_env_set; i++) {
		fprintf(out, "env set ");
		put_escaped(out, rs->env_set[i]);
		fputc('\n', out);
	}
	if (rs->user)
		fprintf(out, "user %s group %s\n", rs->user, rs->group ? rs->group : "-");
	if (rs->caps) {
		size_t n;
		const struct wd_cap_info *t = wd_cap_table(&n);

		for (size_t i = 0; i < n; i++)
			if (rs->caps & (1ULL << t[i].nr))
				fprintf(out, "caps %s\n", t[i].name);
	}
	for (int i = 0; i < WD_NS_NR; i++)
		if (rs->ns[i] != WD_NS_HOST)
			fprintf(out, "ns %s %s\n", wd_ns_name((enum wd_ns_kind)i),
				wd_ns_mode_name((enum wd_ns_mode)rs->ns[i]));
	for (size_t i = 0; i < rs->n_bind_ro; i++) {
		fprintf(out, "ns bind_ro ");
		put_escaped(out, rs->bind_ro[i]);
		fputc('\n', out);
	}
	if (holds)
		fprintf(out, "hold timeout %llu ms on_timeout %s\n",
			(unsigned long long)rs->hold_timeout_ms, action_name(rs->hold_on_timeout));
	if (rs->hold_burst_count)
		fprintf(out, "hold delete_burst %u in %llu ms\n", rs->hold_burst_count,
			(unsigned long long)rs->hold_burst_ms);
	for (size_t i = 0; i < rs->n_approvers; i++)
		fprintf(out, "hold approver %s\n", rs->approvers[i]);
}
