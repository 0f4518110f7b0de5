// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/hold_policy.h"

static unsigned int classes_of(unsigned int ops)
{
	return ((ops & WD_PROTECT_DELETE) ? WD_HOLD_DELETE : 0) |
	       ((ops & WD_PROTECT_RENAME) ? WD_HOLD_RENAME : 0) |
	       ((ops & WD_PROTECT_TRUNCATE) ? WD_HOLD_TRUNCATE : 0);
}

int wd_hold_rules_build(const struct wd_policy *p, struct wd_hold_rules *r)
{
	struct wd_protect_rule *protect = NULL;
	struct wd_exec_hold_rule *exec = NULL;

	memset(r, 0, sizeof(*r));
	protect = calloc(p->n_fs_protect + 1, sizeof(*protect));
	exec = calloc(p->exec_hold.n + 1, sizeof(*exec));
	if (!protect || !exec)
		goto out_nomem;
	for (size_t i = 0; i < p->n_fs_protect; i++) {
		char *name;

		if (asprintf(&name, "/fs/protect/%zu", i) < 0)
			goto out_nomem;
		protect[i] = (struct wd_protect_rule){
			.path = p->fs_protect[i].path,
			.classes = classes_of(p->fs_protect[i].ops),
			.action = p->fs_protect[i].action == WD_ACTION_HOLD ? WD_HOLD_ACT_HOLD :
									      WD_HOLD_ACT_DENY,
			.name = name,
		};
		r->n_protect++;
	}
	for (size_t i = 0; i < p->exec_hold.n; i++) {
		const struct wd_exec_rule *e = &p->exec_hold.v[i];
		char *name;

		if (asprintf(&name, "/exec/hold/%zu", i) < 0)
			goto out_nomem;
		exec[i] = (struct wd_exec_hold_rule){ .path = e->path, .has_argv = e->has_argv,
						      .argv = e->argv, .argc = e->argc,
						      .name = name };
		r->n_exec++;
	}
	r->protect = protect;
	r->exec = exec;
	/* nobody answering must not hold a sandbox forever: 5 minutes unless the policy says */
	r->timeout_ms = p->hold_timeout_set.set ? p->hold_timeout_ms : WD_HOLD_DEFAULT_TIMEOUT_MS;
	r->timeout_allows = p->hold_on_timeout == WD_ACTION_ALLOW;
	return 0;

out_nomem:
	r->protect = protect;
	r->exec = exec;
	wd_hold_rules_free(r);
	return -ENOMEM;
}

void wd_hold_rules_free(struct wd_hold_rules *r)
{
	for (size_t i = 0; r->protect && i < r->n_protect; i++)
		free((char *)r->protect[i].name);
	for (size_t i = 0; r->exec && i < r->n_exec; i++)
		free((char *)r->exec[i].name);
	free((void *)r->protect);
	free((void *)r->exec);
	memset(r, 0, sizeof(*r));
}

unsigned int wd_hold_rules_classes(const struct wd_hold_rules *r)
{
	unsigned int c = 0;

	for (size_t i = 0; i < r->n_protect; i++)
		c |= r->protect[i].classes;
	if (r->n_exec)
		c |= WD_HOLD_EXEC;
	if (r->burst_count)
		c |= WD_HOLD_DELETE;
	return c;
}
