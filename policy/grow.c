// SPDX-License-Identifier: GPL-2.0
/* The growable-array helper (policy/grow.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "policy/grow.h"

int wd_grow(void **v, size_t n, size_t elsz)
{
	size_t cap;
	void *nv;

	if (n != 0 && (n < 4 || (n & (n - 1))))
		return 0; /* not at a power of two: the room is there */
	cap = n ? n * 2 : 4;
	if (cap < n || (elsz && cap > SIZE_MAX / elsz))
		return -ENOMEM;
	nv = realloc(*v, cap * elsz);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	return 0;
}
