// SPDX-License-Identifier: GPL-2.0
/*
 * Backend room: the list of backends, the choice among them (by name for --backend, else the
 * strongest whose probe says it can run), and the ops both share (backend.h).
 */
#include <stdio.h>
#include <string.h>

#include "supervisor/backend/backend.h"
#include "supervisor/util/log.h"

/* Strongest first. */
const struct wd_backend_ops *const wd_backends[] = {
	&wd_backend_bpf_lsm,
	&wd_backend_landlock,
	NULL,
};

#define N_BACKENDS (sizeof(wd_backends) / sizeof(wd_backends[0]) - 1)

const struct wd_backend_ops *wd_backend_named(const char *name)
{
	for (size_t i = 0; i < N_BACKENDS; i++)
		if (strcmp(name, wd_backends[i]->name) == 0)
			return wd_backends[i];
	return NULL;
}

const struct wd_backend_ops *wd_backend_choose(const char *want, char *why, size_t whysz)
{
	char reasons[N_BACKENDS][512];
	const struct wd_backend_ops *ops;

	if (strcmp(want, "auto") != 0) {
		ops = wd_backend_named(want);
		if (ops)
			return ops->supported(why, whysz) ? ops : NULL;
		snprintf(why, whysz, "unknown backend \"%s\" (known: %s, %s)", want,
			 wd_backends[0]->name, wd_backends[1]->name);
		return NULL;
	}
	for (size_t i = 0; i < N_BACKENDS; i++) {
		if (wd_backends[i]->supported(reasons[i], sizeof(reasons[i]))) {
			for (size_t j = 0; j < i; j++)
				log_info("backend: not %s: %s", wd_backends[j]->name, reasons[j]);
			return wd_backends[i];
		}
	}
	snprintf(why, whysz, "no backend can run: %s: %s; %s: %s", wd_backends[0]->name,
		 reasons[0], wd_backends[1]->name, reasons[1]);
	return NULL;
}

/* Every struct wd_backend begins with its struct wd_backend_base (backend.h). */
static struct wd_backend_base *base(struct wd_backend *b)
{
	return (struct wd_backend_base *)b;
}

static const struct wd_backend_base *base_c(const struct wd_backend *b)
{
	return (const struct wd_backend_base *)b;
}

int wd_backend_base_sandbox_remove(struct wd_backend *b, uint64_t cgid,
				   const struct wd_ruleset *rs, struct wd_sandbox *final)
{
	return wd_progs_sandbox_remove(base(b)->progs, cgid, rs, final);
}

int wd_backend_rate(const struct wd_backend *b, uint64_t cgid, struct wd_rate *out)
{
	return wd_progs_rate(base_c(b)->progs, cgid, out);
}

int wd_backend_fork(const struct wd_backend *b, uint64_t cgid, struct wd_fork *out)
{
	return wd_progs_fork(base_c(b)->progs, cgid, out);
}

int wd_backend_base_event_fd(const struct wd_backend *b)
{
	return wd_progs_event_fd(base_c(b)->progs);
}

void wd_backend_base_audit_maps(const struct wd_backend *b, int *events, int *counts)
{
	wd_progs_audit_maps(base_c(b)->progs, events, counts);
}

int wd_backend_base_consume(struct wd_backend *b)
{
	return wd_progs_consume(base(b)->progs);
}
