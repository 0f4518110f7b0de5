// SPDX-License-Identifier: GPL-2.0
/* The path-prefix predicate (policy/path.h). */
#include <string.h>

#include "policy/path.h"

bool wd_path_within_n(const char *path, size_t len, const char *tree)
{
	size_t n = strlen(tree);

	if (!len || path[0] != '/')
		return false;
	if (n == 1 && tree[0] == '/')
		return true;
	if (len < n || memcmp(path, tree, n) != 0)
		return false;
	return len == n || path[n] == '/' || path[n] == 0;
}

bool wd_path_within(const char *path, const char *tree)
{
	return wd_path_within_n(path, strlen(path), tree);
}

bool wd_path_strictly_within(const char *path, const char *tree)
{
	size_t n = strlen(tree);

	if (!wd_path_within(path, tree))
		return false;
	return n == 1 ? path[1] != 0 : path[n] == '/';
}
