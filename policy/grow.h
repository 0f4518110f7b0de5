/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one growable-array helper of the tree (pure C, so every layer may use it). An array's
 * capacity follows from its length: room for 4, then doubling, so no separate capacity field can
 * drift.
 */
#ifndef WD_POLICY_GROW_H
#define WD_POLICY_GROW_H

#include <stddef.h>

/* Room for element @n of *@v, which holds @n elements of @elsz bytes. 0 or -ENOMEM (*@v kept). */
int wd_grow(void **v, size_t n, size_t elsz);

/* WD_GROW(arr, n): room for arr[n], arr holding n elements. */
#define WD_GROW(arr, n) wd_grow((void **)&(arr), (n), sizeof(*(arr)))

#endif
