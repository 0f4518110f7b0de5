// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "supervisor/backend/backend.h"
#include "supervisor/util/log.h"

/* Strongest first. */
static const struct wd_backend_ops *const backends[] = {
	&wd_backend_bpf_lsm,
	&wd_backend_landlock,
};

const struct wd_backend_ops *wd_backend_choose(const char *want, char *why, size_t whysz)
{
	char reasons[2][512];
	size_t n = sizeof(backends) / sizeof(backends[0]);

	if (strcmp(want, "auto") != 0) {
		for (size_t i = 0; i < n; i++) {
			if (strcmp(want, backends[i]->name) != 0)
				continue;
			if (backends[i]->supported(why, whysz))
				return backends[i];
			return NULL;
		}
		snprintf(why, whysz, "unknown backend \"%s\" (known: %s, %s)", want,
			 backends[0]->name, backends[1]->name);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		if (backends[i]->supported(reasons[i], sizeof(reasons[i]))) {
			for (size_t j = 0; j < i; j++)
				log_info("backend: not %s: %s", backends[j]->name, reasons[j]);
			return backends[i];
		}
	}
	snprintf(why, whysz, "no backend can run: %s: %s; %s: %s", backends[0]->name, reasons[0],
		 backends[1]->name, reasons[1]);
	return NULL;
}
