// SPDX-License-Identifier: GPL-2.0
/* The argv matcher (policy/argv.h). */
#include <fnmatch.h>
#include <string.h>

#include "policy/argv.h"

bool wd_argv_match(char *const *pat, size_t npat, char *const *argv, size_t argc)
{
	for (size_t i = 0; i < npat; i++) {
		if (i + 1 == npat && strcmp(pat[i], "**") == 0)
			return true;
		if (i >= argc || fnmatch(pat[i], argv[i], 0) != 0)
			return false;
	}
	return npat == argc;
}
