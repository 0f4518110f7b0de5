// SPDX-License-Identifier: GPL-2.0
/* Policy paths resolved as the kernel will see them (supervisor/sandbox/resolve.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/util/log.h"
#include "supervisor/sandbox/resolve.h"

int wd_resolve_paths(struct wd_path_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		char *real = realpath(l->paths[i], NULL);

		if (!real) {
			if (errno == ENOMEM)
				return -ENOMEM;
			continue;
		}
		if (strcmp(real, l->paths[i]) == 0) {
			free(real);
			continue;
		}
		log_debug("policy: %s resolves to %s", l->paths[i], real);
		free(l->paths[i]);
		l->paths[i] = real;
	}
	return 0;
}

/*
 * exec rules are on the file the kernel executes: /bin/true names /usr/bin/true where /bin is a
 * link to /usr/bin, and a rule on a link to a multicall binary names that binary, all of it.
 */
static int resolve_exec(struct wd_exec_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		char *real = realpath(l->v[i].path, NULL);

		if (!real) {
			if (errno == ENOMEM)
				return -ENOMEM;
			continue;
		}
		free(l->v[i].path);
		l->v[i].path = real;
	}
	return 0;
}

int wd_resolve_policy(struct wd_policy *p)
{
	int err = wd_resolve_paths(&p->fs_read);

	if (!err)
		err = wd_resolve_paths(&p->fs_write);
	if (!err)
		err = wd_resolve_paths(&p->fs_exec);
	if (!err)
		err = wd_resolve_paths(&p->fs_deny);
	for (size_t i = 0; !err && i < p->n_fs_protect; i++) {
		char *real = realpath(p->fs_protect[i].path, NULL);

		if (real) {
			free(p->fs_protect[i].path);
			p->fs_protect[i].path = real;
		} else if (errno == ENOMEM) {
			err = -ENOMEM;
		}
	}
	if (!err)
		err = resolve_exec(&p->exec_deny);
	if (!err)
		err = resolve_exec(&p->exec_hold);
	return err;
}
