// SPDX-License-Identifier: GPL-2.0
/* Which program each sandboxed pid runs, from the exec records (supervisor/run/exe_cache.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/run/exe_cache.h"

const char *wd_exe_cache_get(const struct wd_exe_cache *c, uint32_t pid)
{
	for (int i = 0; i < WD_EXE_CACHE_SLOTS; i++)
		if (c->slot[i].stamp && c->slot[i].pid == pid)
			return c->slot[i].exe;
	return NULL;
}

int wd_exe_cache_set(struct wd_exe_cache *c, uint32_t pid, const char *exe)
{
	int victim = 0;
	char *copy = strdup(exe);

	if (!copy)
		return -ENOMEM;
	for (int i = 0; i < WD_EXE_CACHE_SLOTS; i++) {
		if (c->slot[i].stamp && c->slot[i].pid == pid) {
			victim = i;
			break;
		}
		if (c->slot[i].stamp < c->slot[victim].stamp)
			victim = i;
	}
	free(c->slot[victim].exe);
	c->slot[victim].pid = pid;
	c->slot[victim].exe = copy;
	c->slot[victim].stamp = ++c->clock;
	return 0;
}

void wd_exe_cache_free(struct wd_exe_cache *c)
{
	for (int i = 0; i < WD_EXE_CACHE_SLOTS; i++)
		free(c->slot[i].exe);
	memset(c, 0, sizeof(*c));
}
