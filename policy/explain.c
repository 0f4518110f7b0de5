// SPDX-License-Identifier: GPL-2.0
/* A policy explained (policy/explain.h): canonical JSON, and plain-word lines per section. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "policy/compile.h"
#include "policy/explain.h"
#include "policy/grow.h"
#include "policy/net.h"
#include "policy/units.h"

/* ---- canonical JSON -------------------------------------------------------------------------- */

static const char *action_word(enum wd_action a)
{
	return a == WD_ACTION_ALLOW ? "allow" : a == WD_ACTION_HOLD ? "hold" : "deny";
}

/*
 * The array @key of @obj with @n items, item @i made by @make from @list (NULL when out of
 * memory). No member when there are no items.
 */
static bool add_array(cJSON *obj, const char *key, const void *list, size_t n,
		      cJSON *(*make)(const void *list, size_t i))
{
	cJSON *arr;

	if (!n)
		return true;
	arr = cJSON_AddArrayToObject(obj, key);
	if (!arr)
		return false;
	for (size_t i = 0; i < n; i++) {
		cJSON *item = make(list, i);

		if (!item)
			return false;
		cJSON_AddItemToArray(arr, item);
	}
	return true;
}

static cJSON *string_item(const void *list, size_t i)
{
	return cJSON_CreateString(((const struct wd_path_list *)list)->paths[i]);
}

static bool add_strings(cJSON *obj, const char *key, const struct wd_path_list *l)
{
	return add_array(obj, key, l, l->n, string_item);
}

/* An object member that is only added when it gets content. */
static cJSON *section(cJSON *parent, const char *key, bool want)
{
	return want ? cJSON_AddObjectToObject(parent, key) : NULL;
}

/* A program's path, or an object with its path and argv. */
static cJSON *exec_item(const void *list, size_t i)
{
	const struct wd_exec_rule *r = &((const struct wd_exec_list *)list)->v[i];
	cJSON *item, *argv;

	if (!r->has_argv)
		return cJSON_CreateString(r->path);
	item = cJSON_CreateObject();
	if (item && (!cJSON_AddStringToObject(item, "path", r->path) ||
		     !(argv = cJSON_AddArrayToObject(item, "argv")))) {
		cJSON_Delete(item);
		return NULL;
	}
	for (size_t a = 0; item && a < r->argc; a++)
		cJSON_AddItemToArray(argv, cJSON_CreateString(r->argv[a]));
	if (item && cJSON_GetArraySize(argv) != (int)r->argc) {
		cJSON_Delete(item);
		return NULL;
	}
	return item;
}

static bool add_exec_list(cJSON *obj, const char *key, const struct wd_exec_list *l)
{
	return add_array(obj, key, l, l->n, exec_item);
}

static cJSON *net_item(const void *list, size_t i)
{
	char buf[320];

	wd_net_rule_format(&((const struct wd_net_list *)list)->v[i], buf, sizeof(buf));
	return cJSON_CreateString(buf);
}

static bool add_net_list(cJSON *obj, const char *key, const struct wd_net_list *l)
{
	return add_array(obj, key, l, l->n, net_item);
}

static void limit_text(const struct wd_limit *l, enum wd_limit_kind k, char *buf, size_t bufsz)
{
	switch (k) {
	case WD_LIMIT_WALL_TIME:
	case WD_LIMIT_CPU_TIME:
	case WD_LIMIT_KILL_GRACE:
		wd_format_duration(l->value, buf, bufsz);
		break;
	case WD_LIMIT_MEMORY:
	case WD_LIMIT_OUTPUT:
	case WD_LIMIT_DISK:
		wd_format_size(l->value, buf, bufsz);
		break;
	case WD_LIMIT_FORK_RATE:
		wd_format_rate(l->value, l->per_ms, false, buf, bufsz);
		break;
	case WD_LIMIT_CPU:
		snprintf(buf, bufsz, "%g", (double)l->value / 1000);
		break;
	default:
		snprintf(buf, bufsz, "%llu", (unsigned long long)l->value);
		break;
	}
}

static bool to_json(const struct wd_policy *p, cJSON *doc)
{
	static const char *const ops[] = { "delete", "rename", "truncate" };
	cJSON *fs, *exec, *net, *limits, *env, *ns, *hold, *arr;
	char buf[320];
	bool ok = true;

	ok = ok && cJSON_AddStringToObject(doc, "schema", WD_POLICY_SCHEMA);
	if (ok && p->extends.n == 1)
		ok = cJSON_AddStringToObject(doc, "extends", p->extends.paths[0]);
	else if (ok && p->extends.n)
		ok = add_strings(doc, "extends", &p->extends);
	if (ok && p->mode_set.set)
		ok = cJSON_AddStringToObject(doc, "mode",
					     p->mode == WD_MODE_AUDIT ? "audit" : "enforce");

	fs = section(doc, "fs",
		     ok && (p->fs_read.n || p->fs_write.n || p->fs_exec.n || p->fs_deny.n ||
			    p->n_fs_protect));
	if (fs) {
		ok = add_strings(fs, "read", &p->fs_read) &&
		     add_strings(fs, "write", &p->fs_write) &&
		     add_strings(fs, "exec", &p->fs_exec) && add_strings(fs, "deny", &p->fs_deny);
		arr = ok && p->n_fs_protect ? cJSON_AddArrayToObject(fs, "protect") : NULL;
		for (size_t i = 0; arr && ok && i < p->n_fs_protect; i++) {
			cJSON *item = cJSON_CreateObject(), *o;

			ok = item && cJSON_AddStringToObject(item, "path", p->fs_protect[i].path) &&
			     (o = cJSON_AddArrayToObject(item, "ops")) &&
			     cJSON_AddStringToObject(item, "action",
						     action_word(p->fs_protect[i].action));
			for (int b = 0; ok && b < 3; b++)
				if (p->fs_protect[i].ops & (1u << b))
					cJSON_AddItemToArray(o, cJSON_CreateString(ops[b]));
			if (item)
				cJSON_AddItemToArray(arr, item);
		}
	}
	exec = section(doc, "exec", ok && (p->exec_allow.n || p->exec_deny.n || p->exec_hold.n));
	if (exec)
		ok = add_exec_list(exec, "allow", &p->exec_allow) &&
		     add_exec_list(exec, "deny", &p->exec_deny) &&
		     add_exec_list(exec, "hold", &p->exec_hold);
	net = section(doc, "net",
		      ok && (p->net_default_set.set || p->net_allow.n || p->net_deny.n ||
			     p->egress_rate_set.set));
	if (net) {
		if (p->net_default_set.set)
			ok = cJSON_AddStringToObject(net, "default", action_word(p->net_default));
		ok = ok && add_net_list(net, "allow", &p->net_allow) &&
		     add_net_list(net, "deny", &p->net_deny);
		if (ok && p->egress_rate_set.set) {
			wd_format_rate(p->egress_bytes, p->egress_per_ms, true, buf, sizeof(buf));
			ok = cJSON_AddStringToObject(net, "egress_rate", buf);
		}
	}
	limits = NULL;
	for (int i = 0; ok && i < WD_LIMIT_NR; i++) {
		if (!p->limits[i].s.set)
			continue;
		if (!limits)
			limits = cJSON_AddObjectToObject(doc, "limits");
		if (!limits) {
			ok = false;
			break;
		}
		if (i == WD_LIMIT_PIDS) {
			ok = cJSON_AddNumberToObject(limits, "pids", (double)p->limits[i].value);
		} else if (i == WD_LIMIT_CPU) {
			ok = cJSON_AddNumberToObject(limits, "cpu",
						     (double)p->limits[i].value / 1000);
		} else {
			limit_text(&p->limits[i], (enum wd_limit_kind)i, buf, sizeof(buf));
			ok = cJSON_AddStringToObject(limits, wd_limit_name((enum wd_limit_kind)i),
						     buf);
		}
	}
	env = section(doc, "env", ok && (p->env_pass.n || p->n_env_set));
	if (env) {
		cJSON *set;

		ok = add_strings(env, "pass", &p->env_pass);
		set = ok && p->n_env_set ? cJSON_AddObjectToObject(env, "set") : NULL;
		for (size_t i = 0; set && ok && i < p->n_env_set; i++)
			ok = cJSON_AddStringToObject(set, p->env_set[i].name, p->env_set[i].value);
	}
	if (ok && p->user_set.set) {
		snprintf(buf, sizeof(buf), "%s%s%s", p->user, p->group ? ":" : "",
			 p->group ? p->group : "");
		ok = cJSON_AddStringToObject(doc, "user", buf);
	}
	ok = ok && add_strings(doc, "caps", &p->caps);
	ns = NULL;
	for (int i = 0; ok && i < WD_NS_NR; i++) {
		if (!p->ns_set[i].set)
			continue;
		if (!ns)
			ns = cJSON_AddObjectToObject(doc, "namespaces");
		ok = ns && cJSON_AddStringToObject(ns, wd_ns_name((enum wd_ns_kind)i),
						   wd_ns_mode_name(p->ns[i]));
	}
	if (ok && p->ns_bind_ro.n && !ns)
		ns = cJSON_AddObjectToObject(doc, "namespaces");
	ok = ok && (!p->ns_bind_ro.n || (ns && add_strings(ns, "bind_ro", &p->ns_bind_ro)));
	hold = section(doc, "hold",
		       ok && (p->hold_timeout_set.set || p->hold_on_timeout_set.set ||
			      p->hold_approvers.n || p->hold_io_uring_set.set ||
			      p->hold_burst_set.set));
	if (hold) {
		if (p->hold_timeout_set.set) {
			wd_format_duration(p->hold_timeout_ms, buf, sizeof(buf));
			ok = cJSON_AddStringToObject(hold, "timeout", buf);
		}
		if (ok && p->hold_on_timeout_set.set)
			ok = cJSON_AddStringToObject(hold, "on_timeout",
						     action_word(p->hold_on_timeout));
		ok = ok && add_strings(hold, "approvers", &p->hold_approvers);
		if (ok && p->hold_io_uring_set.set)
			ok = cJSON_AddStringToObject(hold, "io_uring",
						     p->hold_io_uring ? "allow" : "refuse");
		if (ok && p->hold_burst_set.set) {
			cJSON *b = cJSON_AddObjectToObject(hold, "delete_burst");

			wd_format_duration(p->hold_burst_window_ms, buf, sizeof(buf));
			ok = b && cJSON_AddNumberToObject(b, "count", p->hold_burst_count) &&
			     cJSON_AddStringToObject(b, "window", buf);
		}
	}
	return ok;
}

cJSON *wd_policy_to_json(const struct wd_policy *p)
{
	cJSON *doc = cJSON_CreateObject();

	if (doc && !to_json(p, doc)) {
		cJSON_Delete(doc);
		doc = NULL;
	}
	return doc;
}

/* ---- plain words ----------------------------------------------------------------------------- */

enum section {
	S_FILES,
	S_PROGRAMS,
	S_NETWORK,
	S_LIMITS,
	S_ENV,
	S_USER,
	S_NAMESPACES,
	S_HOLDS,
	S_NR,
};

static const char *const section_names[S_NR] = {
	"files", "programs", "network", "limits", "environment", "user", "namespaces", "holds",
};

struct line {
	enum section sec;
	char *text;
	int origin; /* -1: the policy as a whole */
	char pointer[96];
};

struct lines {
	struct line *v;
	size_t n;
	bool nomem;
};

static void say(struct lines *ls, enum section sec, int origin, const char *pointer,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void say(struct lines *ls, enum section sec, int origin, const char *pointer,
		const char *fmt, ...)
{
	struct line *v;
	va_list ap;
	char *text = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0 || WD_GROW(ls->v, ls->n)) {
		if (n >= 0)
			free(text);
		ls->nomem = true;
		return;
	}
	v = ls->v;
	v[ls->n].sec = sec;
	v[ls->n].text = text;
	v[ls->n].origin = origin;
	snprintf(v[ls->n].pointer, sizeof(v[ls->n].pointer), "%s", pointer ? pointer : "");
	ls->n++;
}

static void lines_free(struct lines *ls)
{
	for (size_t i = 0; i < ls->n; i++)
		free(ls->v[i].text);
	free(ls->v);
}

/* "a", "a and b", "a, b and c" (with @conj "and") */
static void join_words(char *buf, size_t bufsz, const char *const *w, size_t n, const char *conj)
{
	size_t o = 0;

	buf[0] = 0;
	for (size_t i = 0; i < n && o < bufsz; i++) {
		const char *sep = "";

		if (i && i + 1 == n)
			sep = " ";
		else if (i)
			sep = ", ";
		o += (size_t)snprintf(buf + o, bufsz - o, "%s%s%s%s", sep,
				      i && i + 1 == n ? conj : "", i && i + 1 == n ? " " : "",
				      w[i]);
	}
}

static void explain_files(const struct wd_policy *p, struct lines *ls)
{
	const struct wd_path_list *lists[3] = { &p->fs_read, &p->fs_write, &p->fs_exec };
	static const char *const list_names[3] = { "read", "write", "exec" };

	/* One line per path, saying everything it may do, in the order paths first appear. */
	for (int l = 0; l < 3; l++) {
		for (size_t i = 0; i < lists[l]->n; i++) {
			const char *path = lists[l]->paths[i];
			unsigned int acc = 0;
			const char *w[3];
			size_t nw = 0;
			char words[64], ptr[64];
			bool seen = false;

			for (int k = 0; k < l && !seen; k++)
				seen = wd_path_list_has(lists[k], path);
			for (size_t j = 0; j < i && !seen; j++)
				seen = strcmp(lists[l]->paths[j], path) == 0;
			if (seen)
				continue;
			for (int k = l; k < 3; k++)
				if (wd_path_list_has(lists[k], path))
					acc |= 1u << k;
			if (acc & 3)
				w[nw++] = "read";
			if (acc & 2)
				w[nw++] = "write";
			if (acc & 4)
				w[nw++] = "execute";
			join_words(words, sizeof(words), w, nw, "and");
			snprintf(ptr, sizeof(ptr), "/fs/%s/%zu", list_names[l], i);
			say(ls, S_FILES, lists[l]->origin[i], ptr, "may %s under %s", words, path);
		}
	}
	for (size_t i = 0; i < p->fs_deny.n; i++) {
		char ptr[64];

		snprintf(ptr, sizeof(ptr), "/fs/deny/%zu", i);
		say(ls, S_FILES, p->fs_deny.origin[i], ptr,
		    "may not read, write or execute anything under %s (deny wins)",
		    p->fs_deny.paths[i]);
	}
	for (size_t i = 0; i < p->n_fs_protect; i++) {
		static const char *const ops[] = { "delete", "rename", "truncate" };
		const struct wd_protect *pr = &p->fs_protect[i];
		const char *w[3];
		size_t nw = 0;
		char words[64], ptr[64];

		for (int b = 0; b < 3; b++)
			if (pr->ops & (1u << b))
				w[nw++] = ops[b];
		join_words(words, sizeof(words), w, nw, "or");
		snprintf(ptr, sizeof(ptr), "/fs/protect/%zu", i);
		if (pr->action == WD_ACTION_HOLD)
			say(ls, S_FILES, pr->origin, ptr,
			    "may %s under %s only when an operator "
			    "approves (the call waits)",
			    words, pr->path);
		else
			say(ls, S_FILES, pr->origin, ptr, "may not %s under %s", words, pr->path);
	}
	say(ls, S_FILES, -1, NULL,
	    p->fs_read.n || p->fs_write.n || p->fs_exec.n
		    ? "everything else: denied"
		    : "nothing: every open and exec is denied");
}

static void argv_words(const struct wd_exec_rule *r, char *buf, size_t bufsz)
{
	size_t o = 0;

	if (!r->has_argv) {
		buf[0] = 0;
		return;
	}
	if (r->argc == 0) {
		snprintf(buf, bufsz, " with no arguments");
		return;
	}
	o = (size_t)snprintf(buf, bufsz, " with arguments");
	for (size_t i = 0; i < r->argc && o < bufsz; i++)
		o += (size_t)snprintf(buf + o, bufsz - o, " %s",
				      strcmp(r->argv[i], "**") == 0 ? "(any more)" : r->argv[i]);
}

static void explain_programs(const struct wd_policy *p, struct lines *ls)
{
	const struct {
		const struct wd_exec_list *l;
		const char *key, *fmt;
	} lists[] = {
		{ &p->exec_allow, "allow", "may run %s%s" },
		{ &p->exec_deny, "deny", "may not run %s%s" },
		{ &p->exec_hold, "hold",
		  "may run %s%s only when an operator approves (the exec "
		  "waits)" },
	};

	if (!p->exec_allow.n)
		say(ls, S_PROGRAMS, -1, NULL, "may run any program the file rules let it execute%s",
		    p->exec_deny.n || p->exec_hold.n ? ", except:" : "");
	else
		say(ls, S_PROGRAMS, -1, NULL,
		    "may run only the programs listed, and only where "
		    "the file rules let it execute them:");
	for (int l = 0; l < 3; l++) {
		for (size_t i = 0; i < lists[l].l->n; i++) {
			const struct wd_exec_rule *r = &lists[l].l->v[i];
			char args[400], ptr[64];

			argv_words(r, args, sizeof(args));
			snprintf(ptr, sizeof(ptr), "/exec/%s/%zu", lists[l].key, i);
			say(ls, S_PROGRAMS, r->origin, ptr, lists[l].fmt, r->path, args);
		}
	}
}

static void net_rule_words(const struct wd_net_rule *r, char *buf, size_t bufsz)
{
	char host[300], ports[48], addr[64];

	if (r->kind == WD_NET_HOST_ANY) {
		snprintf(host, sizeof(host), "any host");
	} else if (r->kind == WD_NET_HOST_NAME) {
		if (r->name[0] == '*')
			snprintf(host, sizeof(host), "any name under %s", r->name + 2);
		else
			snprintf(host, sizeof(host), "%s", r->name);
	} else {
		wd_net_addr_format(r->family, r->addr, r->prefix, addr, sizeof(addr));
		snprintf(host, sizeof(host), "%s", addr);
	}
	wd_net_ports_format(r, true, ports, sizeof(ports));
	snprintf(buf, bufsz, "%s, %s %s", host,
		 r->proto == WD_NET_PROTO_TCP	? "tcp"
		 : r->proto == WD_NET_PROTO_UDP ? "udp"
						: "tcp and udp",
		 ports);
}

/* "200 processes a second", "10MiB a second" */
static void rate_words(uint64_t count, uint64_t per_ms, bool size, const char *noun, char *buf,
		       size_t bufsz)
{
	const char *per = per_ms == 3600000 ? "an hour" : per_ms == 60000 ? "a minute" : "a second";
	char n[48];

	if (size)
		wd_format_size(count, n, sizeof(n));
	else
		snprintf(n, sizeof(n), "%llu", (unsigned long long)count);
	if (noun)
		snprintf(buf, bufsz, "%s %s%s %s", n, noun, count == 1 ? "" : "es", per);
	else
		snprintf(buf, bufsz, "%s %s", n, per);
}

static void explain_egress_rate(const struct wd_policy *p, struct lines *ls)
{
	char buf[400];

	if (!p->egress_rate_set.set)
		return;
	rate_words(p->egress_bytes, p->egress_per_ms, true, NULL, buf, sizeof(buf));
	say(ls, S_NETWORK, p->egress_rate_set.origin, "/net/egress_rate", "may send at most %s",
	    buf);
}

static void explain_network(const struct wd_policy *p, struct lines *ls)
{
	char buf[400];

	if (!(wd_policy_features(p) & WD_FEAT_NET)) {
		say(ls, S_NETWORK, -1, NULL,
		    "not stated, so the network is not ruled: the sandbox has the host's "
		    "network as warden does (state net to rule it)");
		explain_egress_rate(p, ls);
		return;
	}
	say(ls, S_NETWORK, p->net_default_set.set ? p->net_default_set.origin : -1,
	    p->net_default_set.set ? "/net/default" : NULL, "%s",
	    p->net_default == WD_ACTION_ALLOW
		    ? (p->net_deny.n ? "may connect anywhere not denied below (default allow)"
				     : "may connect anywhere (default allow)")
		    : (p->net_allow.n
			       ? "may connect only where allowed below (default deny, "
				 "loopback included)"
			       : "may not connect anywhere, loopback included (default deny)"));
	for (size_t i = 0; i < p->net_allow.n; i++) {
		char ptr[64];

		net_rule_words(&p->net_allow.v[i], buf, sizeof(buf));
		snprintf(ptr, sizeof(ptr), "/net/allow/%zu", i);
		say(ls, S_NETWORK, p->net_allow.v[i].origin, ptr, "may connect to %s", buf);
	}
	for (size_t i = 0; i < p->net_deny.n; i++) {
		char ptr[64];

		net_rule_words(&p->net_deny.v[i], buf, sizeof(buf));
		snprintf(ptr, sizeof(ptr), "/net/deny/%zu", i);
		say(ls, S_NETWORK, p->net_deny.v[i].origin, ptr, "may not connect to %s", buf);
	}
	for (size_t i = 0; i < p->net_listen.n; i++) {
		char ptr[64];

		net_rule_words(&p->net_listen.v[i], buf, sizeof(buf));
		snprintf(ptr, sizeof(ptr), "/net/listen/%zu", i);
		say(ls, S_NETWORK, p->net_listen.v[i].origin, ptr, "may listen on %s", buf);
	}
	if (p->net_ping_set.set)
		say(ls, S_NETWORK, p->net_ping_set.origin, "/net/ping", "%s",
		    p->net_ping ? "may make ICMP echo (ping) sockets"
				: "may not make ICMP echo (ping) sockets");
	explain_egress_rate(p, ls);
}

static void explain_limits(const struct wd_policy *p, struct lines *ls)
{
	static const char *const fmt[WD_LIMIT_NR] = {
		[WD_LIMIT_WALL_TIME] = "is killed after %s of wall-clock time",
		[WD_LIMIT_CPU_TIME] = "is killed after %s of CPU time",
		[WD_LIMIT_MEMORY] = "may use at most %s of memory",
		[WD_LIMIT_PIDS] = "may have at most %s processes and threads at once",
		[WD_LIMIT_FORK_RATE] = "may start at most %s",
		[WD_LIMIT_OUTPUT] = "keeps at most %s of standard output and error",
		[WD_LIMIT_CPU] = "may use at most %s CPUs' worth of time",
		[WD_LIMIT_KILL_GRACE] = "is killed %s after a signal warden passed on to it",
		[WD_LIMIT_DISK] = "may write at most %s (the size of its private /tmp)",
	};
	bool any = false;

	for (int i = 0; i < WD_LIMIT_NR; i++) {
		char v[128], ptr[64];

		if (!p->limits[i].s.set)
			continue;
		if (i == WD_LIMIT_FORK_RATE)
			rate_words(p->limits[i].value, p->limits[i].per_ms, false, "process", v,
				   sizeof(v));
		else
			limit_text(&p->limits[i], (enum wd_limit_kind)i, v, sizeof(v));
		snprintf(ptr, sizeof(ptr), "/limits/%s", wd_limit_name((enum wd_limit_kind)i));
		say(ls, S_LIMITS, p->limits[i].s.origin, ptr, fmt[i], v);
		any = true;
	}
	if (!any)
		say(ls, S_LIMITS, -1, NULL, "none");
}

static void explain_env(const struct wd_policy *p, struct lines *ls)
{
	/* A clean environment whatever the policy says: warden's own never passes (issue #12). */
	say(ls, S_ENV, -1, NULL,
	    "a clean one, not warden's: PATH (a fixed safe one), HOME, USER and LOGNAME of the "
	    "user it runs as, and TERM, LANG, LANGUAGE, LC_ALL and the other LC_ categories and "
	    "TZ from warden's environment where set");
	if (!p->env_pass.n && !p->n_env_set) {
		say(ls, S_ENV, -1, NULL,
		    "nothing else of warden's environment: a secret in it stays out unless "
		    "env.pass names it (this is a change: warden once passed its own)");
		return;
	}
	say(ls, S_ENV, -1, NULL, "and only these variables besides:");
	for (size_t i = 0; i < p->env_pass.n; i++) {
		char ptr[64];

		snprintf(ptr, sizeof(ptr), "/env/pass/%zu", i);
		if (strchr(p->env_pass.paths[i], '*'))
			say(ls, S_ENV, p->env_pass.origin[i], ptr,
			    "any variable matching %s from "
			    "warden's environment",
			    p->env_pass.paths[i]);
		else
			say(ls, S_ENV, p->env_pass.origin[i], ptr, "%s from warden's environment",
			    p->env_pass.paths[i]);
	}
	for (size_t i = 0; i < p->n_env_set; i++) {
		char ptr[160];

		snprintf(ptr, sizeof(ptr), "/env/set/%.100s", p->env_set[i].name);
		say(ls, S_ENV, p->env_set[i].origin, ptr, "%s set to \"%s\" (over any of the above)",
		    p->env_set[i].name, p->env_set[i].value);
	}
}

/* What the command keeps of root's powers: nothing, unless "caps" names some. */
static void explain_caps(const struct wd_policy *p, struct lines *ls)
{
	const struct wd_cap_info *ci;
	char ptr[64];

	if (!p->caps.n)
		say(ls, S_USER, -1, NULL,
		    "keeps no capabilities, even as root (empty bounding set, no_new_privs)");
	for (size_t i = 0; i < p->caps.n; i++) {
		ci = wd_cap_find(p->caps.paths[i]);
		snprintf(ptr, sizeof(ptr), "/caps/%zu", i);
		say(ls, S_USER, p->caps.origin[i], ptr, "keeps %s: may %s", p->caps.paths[i],
		    ci ? ci->risk : "(unknown)");
	}
}

static void explain_rest(const struct wd_policy *p, struct lines *ls)
{
	bool any = false, holds = p->exec_hold.n > 0;
	char buf[128];

	if (p->user_set.set) {
		if (p->group)
			say(ls, S_USER, p->user_set.origin, "/user", "runs as user %s, group %s",
			    p->user, p->group);
		else
			say(ls, S_USER, p->user_set.origin, "/user",
			    "runs as user %s (and its "
			    "groups)",
			    p->user);
	} else {
		say(ls, S_USER, -1, NULL, "runs as the user warden runs as");
	}
	explain_caps(p, ls);
	for (int i = 0; i < WD_NS_NR; i++) {
		static const char *const words[] = {
			[WD_NS_HOST] = "the host's",
			[WD_NS_PRIVATE] = "its own",
			[WD_NS_NONE] = "its own, with loopback only",
			[WD_NS_VETH] = "its own, with a veth pair to the host",
		};
		char ptr[64];

		if (!p->ns_set[i].set)
			continue;
		snprintf(ptr, sizeof(ptr), "/namespaces/%s", wd_ns_name((enum wd_ns_kind)i));
		if (i == WD_NS_TMP)
			say(ls, S_NAMESPACES, p->ns_set[i].origin, ptr, "/tmp: %s",
			    p->ns[i] == WD_NS_PRIVATE ? "its own, empty, gone when it ends"
						      : "the host's");
		else
			say(ls, S_NAMESPACES, p->ns_set[i].origin, ptr, "%s namespace: %s",
			    wd_ns_name((enum wd_ns_kind)i), words[p->ns[i]]);
		any = true;
	}
	for (size_t i = 0; i < p->ns_bind_ro.n; i++) {
		char ptr[64];

		snprintf(ptr, sizeof(ptr), "/namespaces/bind_ro/%zu", i);
		say(ls, S_NAMESPACES, p->ns_bind_ro.origin[i], ptr, "%s: read-only (a bind mount)",
		    p->ns_bind_ro.paths[i]);
		any = true;
	}
	if (!any)
		say(ls, S_NAMESPACES, -1, NULL, "the host's");
	for (size_t i = 0; i < p->n_fs_protect; i++)
		holds |= p->fs_protect[i].action == WD_ACTION_HOLD;
	if (!holds && !(wd_policy_features(p) & WD_FEAT_HOLD)) {
		say(ls, S_HOLDS, -1, NULL, "none: nothing waits for an operator");
		return;
	}
	wd_format_duration(p->hold_timeout_set.set ? p->hold_timeout_ms
						   : WD_HOLD_TIMEOUT_DEFAULT_MS,
			   buf, sizeof(buf));
	say(ls, S_HOLDS, p->hold_timeout_set.set ? p->hold_timeout_set.origin : -1,
	    p->hold_timeout_set.set ? "/hold/timeout" : NULL,
	    "a held call waits at most %s for a decision, then is %s", buf,
	    p->hold_on_timeout == WD_ACTION_ALLOW ? "allowed" : "denied");
	if (p->hold_burst_set.set) {
		wd_format_duration(p->hold_burst_window_ms, buf, sizeof(buf));
		say(ls, S_HOLDS, p->hold_burst_set.origin, "/hold/delete_burst",
		    "more than %u deletes within %s, anywhere: the next one waits for an operator",
		    p->hold_burst_count, buf);
	}
	if (!p->hold_approvers.n)
		say(ls, S_HOLDS, -1, NULL, "root may approve or deny");
	for (size_t i = 0; i < p->hold_approvers.n; i++) {
		const char *a = p->hold_approvers.paths[i];
		char ptr[64];

		snprintf(ptr, sizeof(ptr), "/hold/approvers/%zu", i);
		say(ls, S_HOLDS, p->hold_approvers.origin[i], ptr, "%s %s may approve or deny",
		    strncmp(a, "user:", 5) == 0 ? "user" : "members of group", strchr(a, ':') + 1);
	}
	say(ls, S_HOLDS, p->hold_io_uring_set.set ? p->hold_io_uring_set.origin : -1,
	    p->hold_io_uring_set.set ? "/hold/io_uring" : NULL, "%s",
	    p->hold_io_uring ? "io_uring allowed: its operations are never held (the kernel's rules "
			       "still apply)"
			     : "io_uring refused (its operations would not pass the waiting room)");
}

static void build_lines(const struct wd_policy *p, struct lines *ls)
{
	explain_files(p, ls);
	explain_programs(p, ls);
	explain_network(p, ls);
	explain_limits(p, ls);
	explain_env(p, ls);
	explain_rest(p, ls);
}

/* The variables the policy's paths use. */
static unsigned int vars_used(const struct wd_policy *p)
{
	static const char *const names[] = { "$WORKDIR", "$HOME", "$TMPDIR" };
	const struct wd_path_list *lists[] = { &p->fs_read, &p->fs_write, &p->fs_exec,
					       &p->fs_deny };
	const struct wd_exec_list *el[] = { &p->exec_allow, &p->exec_deny, &p->exec_hold };
	unsigned int used = 0;

	for (int v = 0; v < 3; v++) {
		size_t n = strlen(names[v]);
		bool hit = false;

		for (int l = 0; l < 4; l++)
			for (size_t i = 0; i < lists[l]->n; i++)
				hit |= strncmp(lists[l]->paths[i], names[v], n) == 0 &&
				       (lists[l]->paths[i][n] == '/' || !lists[l]->paths[i][n]);
		for (size_t i = 0; i < p->n_fs_protect; i++)
			hit |= strncmp(p->fs_protect[i].path, names[v], n) == 0 &&
			       (p->fs_protect[i].path[n] == '/' || !p->fs_protect[i].path[n]);
		for (int l = 0; l < 3; l++)
			for (size_t i = 0; i < el[l]->n; i++)
				hit |= strncmp(el[l]->v[i].path, names[v], n) == 0 &&
				       (el[l]->v[i].path[n] == '/' || !el[l]->v[i].path[n]);
		if (hit)
			used |= 1u << v;
	}
	return used;
}

static const char *origin_name(const struct wd_policy *p, int origin)
{
	if (origin < 0 || (size_t)origin >= p->n_origins)
		return NULL;
	return p->origins[origin];
}

void wd_policy_explain(const struct wd_policy *p, const char *name,
		       const struct wd_policy_vars *vars, FILE *out)
{
	struct lines ls = { 0 };
	unsigned int used = vars_used(p);
	char why[1024];
	int last = -1;

	fprintf(out, "policy %s\n", name);
	if (p->n_origins > 1) {
		fprintf(out, "  made of:");
		for (size_t i = 0; i < p->n_origins; i++)
			fprintf(out, " %s%s", p->origins[i], i + 1 < p->n_origins ? "," : "");
		fprintf(out, " (each on top of those before it)\n");
	}
	fprintf(out, "mode: %s%s\n",
		p->mode == WD_MODE_AUDIT
			? "audit: what the rules would deny is allowed, and recorded as \"audit\""
			: "enforce: what the rules do not allow is denied, and recorded",
		p->mode_set.set ? "" : " (the default)");
	build_lines(p, &ls);
	for (size_t i = 0; i < ls.n; i++) {
		const char *from = p->n_origins > 1 ? origin_name(p, ls.v[i].origin) : NULL;
		int width;

		if ((int)ls.v[i].sec != last) {
			fprintf(out, "\n%s%s:\n", section_names[ls.v[i].sec],
				ls.v[i].sec == S_FILES
					? " (a rule covers the path and everything under it)"
					: "");
			last = (int)ls.v[i].sec;
		}
		width = (int)strlen(ls.v[i].text);
		fprintf(out, "  %s", ls.v[i].text);
		if (from && from[0])
			fprintf(out, "%*s(%s)", width < 60 ? 62 - width : 2, "", from);
		fputc('\n', out);
	}
	if (used) {
		fprintf(out, "\nvariables (expanded when warden run starts):\n");
		if (used & 1)
			fprintf(out, "  $WORKDIR: the directory warden run starts in%s%s\n",
				vars && vars->workdir[0] ? ", here " : "",
				vars ? vars->workdir : "");
		if (used & 2)
			fprintf(out, "  $HOME: warden's $HOME%s%s\n",
				vars && vars->home[0] ? ", here " : "", vars ? vars->home : "");
		if (used & 4)
			fprintf(out, "  $TMPDIR: warden's $TMPDIR, else /tmp%s%s\n",
				vars && vars->tmpdir[0] ? ", here " : "", vars ? vars->tmpdir : "");
	}
	fprintf(out, "\nenforcement:\n");
	if (wd_policy_unenforced(p, why, sizeof(why)))
		fprintf(out, "  warden run refuses this policy today: %s\n", why);
	else
		fprintf(out, "  warden run enforces all of it\n");
	if (ls.nomem)
		fprintf(out, "(out of memory: the explanation is incomplete)\n");
	lines_free(&ls);
}

/* Short names of enum wd_feature's bits, for "asks". */
static const char *const feat_names[] = {
	"fs", "mode", "fs.deny", "fs.protect", "exec.deny", "net",
	"limits", "env", "user", "namespaces", "hold", "exec.hold",
	"hold.approvers", "namespaces.net.veth", "net.names", "net.egress_rate", "exec.allow",
	"limits.fork_rate",
};

/* The short name of feature bit @b, else its words: a bit added later is never left out. */
static const char *feature_name(unsigned int b)
{
	const char *w = wd_feature_words(1u << b);

	if (b < sizeof(feat_names) / sizeof(feat_names[0]))
		return feat_names[b];
	return w ? w : "unnamed part";
}

cJSON *wd_policy_explain_json(const struct wd_policy *p, const char *name,
			      const struct wd_policy_vars *vars)
{
	cJSON *doc = cJSON_CreateObject(), *arr, *obj;
	unsigned int feats = wd_policy_features(p), used = vars_used(p);
	struct lines ls = { 0 };
	char why[1024];
	bool ok;

	if (!doc)
		return NULL;
	ok = cJSON_AddStringToObject(doc, "schema", "warden.explain/1") &&
	     cJSON_AddStringToObject(doc, "policy", name);
	arr = ok ? cJSON_AddArrayToObject(doc, "sources") : NULL;
	for (size_t i = 0; arr && i < p->n_origins; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(p->origins[i]));
	obj = ok ? wd_policy_to_json(p) : NULL;
	ok = obj != NULL;
	if (ok)
		cJSON_AddItemToObject(doc, "effective", obj);
	arr = ok ? cJSON_AddArrayToObject(doc, "asks") : NULL;
	for (unsigned int b = 0; arr && b < 32; b++)
		if (feats & (1u << b))
			cJSON_AddItemToArray(arr, cJSON_CreateString(feature_name(b)));
	arr = ok ? cJSON_AddArrayToObject(doc, "unenforced") : NULL;
	for (unsigned int b = 0; arr && b < 32; b++) {
		unsigned int f = 1u << b;
		char ptr[512];
		cJSON *u;
		int origin;

		if (!(feats & f & ~(unsigned int)WD_FEAT_ENFORCED))
			continue;
		origin = wd_policy_feature_pointer(p, f, ptr, sizeof(ptr));
		u = cJSON_CreateObject();
		if (!u)
			break;
		cJSON_AddStringToObject(u, "pointer", ptr);
		cJSON_AddStringToObject(u, "part",
					wd_feature_words(f) ? wd_feature_words(f) : feature_name(b));
		if (origin_name(p, origin))
			cJSON_AddStringToObject(u, "from", origin_name(p, origin));
		cJSON_AddItemToArray(arr, u);
	}
	ok = ok &&
	     cJSON_AddBoolToObject(doc, "runnable", !wd_policy_unenforced(p, why, sizeof(why)));
	obj = ok && used ? cJSON_AddObjectToObject(doc, "variables") : NULL;
	if (obj && vars) {
		if (used & 1)
			cJSON_AddStringToObject(obj, "WORKDIR", vars->workdir);
		if (used & 2)
			cJSON_AddStringToObject(obj, "HOME", vars->home);
		if (used & 4)
			cJSON_AddStringToObject(obj, "TMPDIR", vars->tmpdir);
	}
	build_lines(p, &ls);
	arr = ok ? cJSON_AddArrayToObject(doc, "explanation") : NULL;
	for (size_t i = 0; arr && i < ls.n; i++) {
		cJSON *l = cJSON_CreateObject();

		if (!l)
			break;
		cJSON_AddStringToObject(l, "section", section_names[ls.v[i].sec]);
		cJSON_AddStringToObject(l, "text", ls.v[i].text);
		if (ls.v[i].pointer[0])
			cJSON_AddStringToObject(l, "pointer", ls.v[i].pointer);
		if (origin_name(p, ls.v[i].origin))
			cJSON_AddStringToObject(l, "from", origin_name(p, ls.v[i].origin));
		cJSON_AddItemToArray(arr, l);
	}
	if (!ok || ls.nomem) {
		cJSON_Delete(doc);
		doc = NULL;
	}
	lines_free(&ls);
	return doc;
}
