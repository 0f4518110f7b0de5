// SPDX-License-Identifier: GPL-2.0
/* The "namespaces" section: host or private per namespace kind, and read-only bind mounts. */
#include <stddef.h>
#include <string.h>

#include "policy/parse_internal.h"
#include "policy/policy.h"

static const char *const ns_names[WD_NS_NR] = { "mount", "pid", "ipc", "uts", "net", "tmp" };
static const char *const ns_mode_names[] = { "host", "private", "none", "veth" };

const char *wd_ns_name(enum wd_ns_kind k)
{
	return (unsigned int)k < WD_NS_NR ? ns_names[k] : NULL;
}

const char *wd_ns_mode_name(enum wd_ns_mode m)
{
	return (unsigned int)m <= WD_NS_VETH ? ns_mode_names[m] : NULL;
}

static void parse_ns(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	static const char *const modes4[] = { "host", "private", NULL };
	static const char *const modes_net[] = { "host", "none", "veth", NULL };
	enum wd_ns_kind k = WD_NS_MOUNT;
	int i;

	for (int j = 0; j < WD_NS_NR; j++)
		if (strcmp(ns_names[j], name) == 0)
			k = (enum wd_ns_kind)j;
	if (k == WD_NS_NET) {
		if (cJSON_IsString(v) && strcmp(v->valuestring, "private") == 0) {
			perr(c, ptr,
			     "expected \"host\", \"none\" or \"veth\", got \"private\" (a "
			     "private network namespace is \"none\": loopback only, or \"veth\")");
			return;
		}
		i = wdp_pick(c, v, ptr, modes_net);
		if (i < 0)
			return;
		c->p->ns[k] = i == 0 ? WD_NS_HOST : i == 1 ? WD_NS_NONE : WD_NS_VETH;
	} else {
		if (cJSON_IsString(v) &&
		    (strcmp(v->valuestring, "none") == 0 || strcmp(v->valuestring, "veth") == 0)) {
			perr(c, ptr,
			     "expected \"host\" or \"private\", got \"%s\" (\"none\" and "
			     "\"veth\" are for \"net\")",
			     v->valuestring);
			return;
		}
		i = wdp_pick(c, v, ptr, modes4);
		if (i < 0)
			return;
		c->p->ns[k] = i == 0 ? WD_NS_HOST : WD_NS_PRIVATE;
	}
	c->p->ns_set[k].set = true;
}

const struct key wdp_ns_keys[] = {
	{ .name = "mount", .parse = parse_ns }, { .name = "pid", .parse = parse_ns },
	{ .name = "ipc", .parse = parse_ns },	{ .name = "uts", .parse = parse_ns },
	{ .name = "net", .parse = parse_ns },	{ .name = "tmp", .parse = parse_ns },
	{ .name = "bind_ro",
	  .item = wdp_path_item,
	  .what = "absolute paths",
	  .off = offsetof(struct wd_policy, ns_bind_ro) },
	{ 0 },
};
