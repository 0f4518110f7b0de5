// SPDX-License-Identifier: GPL-2.0
/* The "fs" section: read, write, exec and deny path lists, and "protect" entries. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "policy/parse_internal.h"
#include "policy/policy.h"

void wdp_path_item(struct pctx *c, const cJSON *item, const char *ip)
{
	struct wd_path_list *l = KEY_FIELD(c, struct wd_path_list);
	char *path = wdp_check_path(c, item, ip);

	if (path && wdp_list_take(l, path, 0))
		oom(c);
}

static void protect_path(struct pctx *c, const cJSON *v, const char *ptr, const char *name);
static void protect_ops(struct pctx *c, const cJSON *v, const char *ptr, const char *name);
static void protect_action(struct pctx *c, const cJSON *v, const char *ptr, const char *name);

static const struct key protect_keys[] = {
	{ .name = "path", .parse = protect_path },
	{ .name = "ops", .parse = protect_ops },
	{ .name = "action", .parse = protect_action },
	{ 0 },
};

static void protect_path(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	(void)name;
	c->protect->path = wdp_check_path(c, v, ptr);
	if (!c->protect->path)
		c->protect->origin = -1; /* marks the entry bad */
}

static void protect_ops(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	static const char *const ops[] = { "delete", "rename", "truncate", NULL };
	const cJSON *item;
	char ip[PTR_MAX];
	size_t i;

	(void)name;
	c->protect->ops = 0;
	if (!wdp_check_array(c, v, ptr, "operations (\"delete\", \"rename\", \"truncate\")")) {
		c->protect->origin = -1;
		return;
	}
	if (!cJSON_GetArraySize(v)) {
		perr(c, ptr,
		     "expected at least one of \"delete\", \"rename\", \"truncate\" (leave "
		     "\"ops\" out for all three)");
		c->protect->origin = -1;
		return;
	}
	for_each_item(v, item, i, ptr, ip)
	{
		int op = wdp_pick(c, item, ip, ops);

		if (op < 0) {
			c->protect->origin = -1;
		} else if (c->protect->ops & (1u << op)) {
			perr(c, ip, "\"%s\" is listed twice", ops[op]);
			c->protect->origin = -1;
		} else {
			c->protect->ops |= 1u << op;
		}
	}
}

static void protect_action(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	static const char *const actions[] = { "deny", "hold", NULL };
	int i = wdp_pick(c, v, ptr, actions);

	(void)name;
	if (i < 0)
		c->protect->origin = -1;
	else
		c->protect->action = i == 0 ? WD_ACTION_DENY : WD_ACTION_HOLD;
}

static void protect_item(struct pctx *c, const cJSON *item, const char *ip)
{
	struct wd_protect pr = { .ops = WD_PROTECT_ALL, .action = WD_ACTION_DENY };

	c->protect = &pr;
	if (!wdp_path_or_object(c, item, ip, protect_keys,
				"a path, or an object with \"path\", \"ops\" and "
				"\"action\"",
				&pr.path))
		pr.origin = -1;
	c->protect = NULL;
	if (pr.path && pr.origin == 0 && wd_protect_add(c->p, &pr))
		oom(c);
	free(pr.path);
}

const struct key wdp_fs_keys[] = {
#define PATHS(n) { .name = #n, .item = wdp_path_item, .what = "absolute paths", \
		    .off = offsetof(struct wd_policy, fs_##n) }
	PATHS(read),
	PATHS(write),
	PATHS(exec),
	PATHS(deny),
#undef PATHS
	{ .name = "protect",
	  .item = protect_item,
	  .what = "protected paths",
	  .sub = protect_keys,
	  .items = true },
	{ 0 },
};
