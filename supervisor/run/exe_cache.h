/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which program each sandboxed pid is running, learned from the kernel's own exec records, so an
 * audit record can name its exe even after the process has gone (/proc is only a fallback).
 * Fixed size; the oldest entry makes room. Pure C.
 */
#ifndef WD_EXE_CACHE_H
#define WD_EXE_CACHE_H

#include <stdint.h>

#define WD_EXE_CACHE_SLOTS 256

struct wd_exe_cache {
	struct {
		uint32_t pid;
		uint64_t stamp; /* insertion order; 0 = empty */
		char *exe;
	} slot[WD_EXE_CACHE_SLOTS];
	uint64_t clock;
};

/* The exe of @pid, or NULL when unknown. */
const char *wd_exe_cache_get(const struct wd_exe_cache *c, uint32_t pid);
/* @pid now runs @exe (copied). 0 or -ENOMEM. */
int wd_exe_cache_set(struct wd_exe_cache *c, uint32_t pid, const char *exe);
void wd_exe_cache_free(struct wd_exe_cache *c);

#endif
