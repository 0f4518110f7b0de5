// SPDX-License-Identifier: GPL-2.0
/*
 * The pure helpers every layer shares: policy/path.c (the one path-prefix predicate),
 * policy/grow.c (the one grow-array helper) and policy/argv.c (the one argv matcher).
 */
#include <errno.h>
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "policy/argv.h"
#include "policy/grow.h"
#include "policy/path.h"

static void test_within(void **state)
{
	(void)state;
	assert_true(wd_path_within("/etc", "/etc"));
	assert_true(wd_path_within("/etc/passwd", "/etc"));
	assert_true(wd_path_within("/etc/ssh/sshd_config", "/etc"));
	/* A name that starts like the tree is not in it. */
	assert_false(wd_path_within("/etcfoo", "/etc"));
	assert_false(wd_path_within("/etcfoo/passwd", "/etc"));
	assert_false(wd_path_within("/et", "/etc"));
	assert_false(wd_path_within("/etc", "/etc/passwd"));
	/* "/" holds every absolute path, and nothing relative. */
	assert_true(wd_path_within("/", "/"));
	assert_true(wd_path_within("/etc", "/"));
	assert_true(wd_path_within("/usr/bin/env", "/"));
	assert_false(wd_path_within("etc", "/"));
	assert_false(wd_path_within("etc/passwd", "/etc"));
	assert_false(wd_path_within("", "/"));
	assert_false(wd_path_within("/", "/etc"));
}

static void test_within_n(void **state)
{
	/* Stored LPM prefixes count their terminator: "/etc/" and "/etc\0" are five bytes. */
	static const char slash[] = "/etc/", nul[] = "/etc\0", root[] = "/",
			  foo[] = "/etcfoo/", root_nul[] = "/\0";

	(void)state;
	assert_true(wd_path_within_n(slash, 5, "/etc"));
	assert_true(wd_path_within_n(nul, 5, "/etc"));
	assert_true(wd_path_within_n(slash, 5, "/"));
	assert_true(wd_path_within_n(nul, 5, "/"));
	assert_false(wd_path_within_n(slash, 5, "/et"));
	assert_false(wd_path_within_n(nul, 5, "/et"));
	assert_false(wd_path_within_n(nul, 5, "/etc/passwd"));
	assert_false(wd_path_within_n(foo, 8, "/etc"));
	/* The root prefix, with or without its NUL, is under "/" only. */
	assert_true(wd_path_within_n(root, 1, "/"));
	assert_true(wd_path_within_n(root_nul, 2, "/"));
	assert_false(wd_path_within_n(root, 1, "/etc"));
	assert_false(wd_path_within_n(root_nul, 2, "/etc"));
	/* Only @len bytes count: the path need not be NUL-terminated. */
	assert_true(wd_path_within_n("/etc/passwdXYZ", 11, "/etc/passwd"));
	assert_false(wd_path_within_n("/etc/passwdXYZ", 14, "/etc/passwd"));
	assert_false(wd_path_within_n("/etc/passwd", 3, "/etc"));
	assert_false(wd_path_within_n("/etc", 0, "/"));
	assert_false(wd_path_within_n("etc/", 4, "/"));
}

static void test_strictly_within(void **state)
{
	(void)state;
	assert_true(wd_path_strictly_within("/etc/passwd", "/etc"));
	assert_true(wd_path_strictly_within("/etc/ssh/sshd_config", "/etc"));
	assert_false(wd_path_strictly_within("/etc", "/etc"));
	assert_false(wd_path_strictly_within("/etcfoo", "/etc"));
	assert_false(wd_path_strictly_within("/etcfoo/x", "/etc"));
	assert_false(wd_path_strictly_within("/usr", "/etc"));
	/* Under "/" is every path but "/" itself. */
	assert_true(wd_path_strictly_within("/a", "/"));
	assert_true(wd_path_strictly_within("/etc/passwd", "/"));
	assert_false(wd_path_strictly_within("/", "/"));
	assert_false(wd_path_strictly_within("a", "/"));
}

/* Room for 4, then doubling: the array moves only when its length reaches 4, 8, 16, ... */
static void test_grow(void **state)
{
	uint64_t *v = NULL, *before;
	size_t n;

	(void)state;
	for (n = 0; n < 100; n++) {
		before = v;
		assert_int_equal(WD_GROW(v, n), 0);
		assert_non_null(v);
		if (n == 0 || n == 4 || n == 8 || n == 16)
			assert_true(malloc_usable_size(v) >= (n ? 2 * n : 4) * sizeof(*v));
		else if (n != 32 && n != 64)
			assert_ptr_equal(v, before); /* the room was there: no realloc */
		v[n] = n * 3 + 1;
	}
	/* What was stored survives every move. */
	for (n = 0; n < 100; n++)
		assert_int_equal(v[n], n * 3 + 1);
	free(v);
}

/* A capacity whose size in bytes would overflow is refused, and the array kept. */
static void test_grow_overflow(void **state)
{
	char *v = malloc(8), *keep = v;

	(void)state;
	assert_non_null(v);
	/* 2^62 elements of 8 bytes: doubling to 2^63 elements is 2^66 bytes. */
	assert_int_equal(wd_grow((void **)&v, (size_t)1 << 62, 8), -ENOMEM);
	assert_ptr_equal(v, keep);
	/* 2^63 elements: doubling the count itself wraps to 0. */
	assert_int_equal(wd_grow((void **)&v, (size_t)1 << 63, 1), -ENOMEM);
	assert_ptr_equal(v, keep);
	/* 2^63 elements of 4 bytes. */
	assert_int_equal(wd_grow((void **)&v, ((size_t)1 << 62), 4), -ENOMEM);
	assert_ptr_equal(v, keep);
	free(v);
}

static void test_argv(void **state)
{
	char *any[] = { "**" };
	char *dash_c[] = { "-c", "**" };
	char *two[] = { "-v", "*.txt" };
	char *mid[] = { "**", "x" };
	char *none[] = { NULL };
	char *a[] = { "-c", "echo hi", "extra" };
	char *b[] = { "-v", "notes.txt" };
	char *c[] = { "-v", "notes.txt", "more.txt" };
	char *d[] = { "a", "x" };
	char *e[] = { "a", "b", "x" };

	(void)state;
	/* A last "**" takes any further arguments, none included. */
	assert_true(wd_argv_match(any, 1, none, 0));
	assert_true(wd_argv_match(any, 1, a, 3));
	assert_true(wd_argv_match(dash_c, 2, a, 1));
	assert_true(wd_argv_match(dash_c, 2, a, 3));
	assert_false(wd_argv_match(dash_c, 2, b, 2));
	assert_false(wd_argv_match(dash_c, 2, none, 0));
	/* "**" not last is an ordinary pattern: one argument, not a run of them. */
	assert_true(wd_argv_match(mid, 2, d, 2));
	assert_false(wd_argv_match(mid, 2, e, 3));
	/* No patterns: only an empty argv. */
	assert_true(wd_argv_match(none, 0, none, 0));
	assert_false(wd_argv_match(none, 0, b, 1));
	/* One pattern per argument: too few or too many arguments do not match. */
	assert_true(wd_argv_match(two, 2, b, 2));
	assert_false(wd_argv_match(two, 2, b, 1));
	assert_false(wd_argv_match(two, 2, c, 3));
	assert_false(wd_argv_match(two, 2, none, 0));
	assert_false(wd_argv_match(two, 2, a, 2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_within),	      cmocka_unit_test(test_within_n),
		cmocka_unit_test(test_strictly_within), cmocka_unit_test(test_grow),
		cmocka_unit_test(test_grow_overflow), cmocka_unit_test(test_argv),
	};

	return cmocka_run_group_tests_name("path, grow, argv", tests, NULL, NULL);
}
