// SPDX-License-Identifier: GPL-2.0
/* The "exec" section: allow, deny and hold lists of programs with optional argv patterns. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "policy/grow.h"
#include "policy/parse_internal.h"
#include "policy/policy.h"

static void exec_path(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	(void)name;
	c->exec->path = wdp_check_path(c, v, ptr);
	if (!c->exec->path)
		c->exec->origin = -1;
}


static void exec_argv(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	const cJSON *item;
	char ip[PTR_MAX];
	size_t i, n;

	(void)name;
	if (!wdp_check_array(c, v, ptr, "argument patterns")) {
		c->exec->origin = -1;
		return;
	}
	n = (size_t)cJSON_GetArraySize(v);
	c->exec->has_argv = true;
	c->exec->argv = calloc(n + 1, sizeof(char *));
	if (!c->exec->argv) {
		oom(c);
		c->exec->origin = -1;
		return;
	}
	for_each_item(v, item, i, ptr, ip)
	{
		if (!wdp_check_string(c, item, ip, "an argument pattern (a string)")) {
			c->exec->origin = -1;
			continue;
		}
		if (strcmp(item->valuestring, "**") == 0 && i + 1 != n) {
			perr(c, ip, "\"**\" (any further arguments) may only be the last pattern");
			c->exec->origin = -1;
			continue;
		}
		if (!wdp_pattern_ok(item->valuestring)) {
			perr(c, ip, "pattern \"%s\" has a \"[\" without \"]\" or ends in \"\\\"",
			     item->valuestring);
			c->exec->origin = -1;
			continue;
		}
		c->exec->argv[c->exec->argc] = strdup(item->valuestring);
		if (!c->exec->argv[c->exec->argc]) {
			oom(c);
			c->exec->origin = -1;
			return;
		}
		c->exec->argc++;
	}
}

static const struct key exec_rule_keys[] = {
	{ .name = "path", .parse = exec_path },
	{ .name = "argv", .parse = exec_argv },
	{ 0 },
};

static void exec_item(struct pctx *c, const cJSON *item, const char *ip)
{
	struct wd_exec_list *l = KEY_FIELD(c, struct wd_exec_list);
	struct wd_exec_rule r = { 0 };

	c->exec = &r;
	if (!wdp_path_or_object(c, item, ip, exec_rule_keys,
				"a program path, or an object with \"path\" and \"argv\"",
				&r.path))
		r.origin = -1;
	c->exec = NULL;
	if (r.path && r.origin == 0) {
		if (wd_grow((void **)&l->v, l->n, sizeof(*l->v))) {
			oom(c);
		} else {
			l->v[l->n++] = r;
			return;
		}
	}
	wd_exec_rule_free(&r);
}

const struct key wdp_exec_keys[] = {
#define PROGRAMS(n) { .name = #n, .item = exec_item, .sub = exec_rule_keys, .items = true, \
		      .what = "programs (paths, or objects with \"path\" and \"argv\")", \
		      .off = offsetof(struct wd_policy, exec_##n) }
	PROGRAMS(allow),
	PROGRAMS(deny),
	PROGRAMS(hold),
#undef PROGRAMS
	{ 0 },
};
