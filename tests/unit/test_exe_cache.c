// SPDX-License-Identifier: GPL-2.0
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "supervisor/run/exe_cache.h"

static void test_set_get_replace(void **state)
{
	struct wd_exe_cache c = { 0 };

	(void)state;
	assert_null(wd_exe_cache_get(&c, 10));
	assert_int_equal(wd_exe_cache_set(&c, 10, "/bin/sh"), 0);
	assert_string_equal(wd_exe_cache_get(&c, 10), "/bin/sh");
	/* a second exec of the same pid replaces, not adds */
	assert_int_equal(wd_exe_cache_set(&c, 10, "/usr/bin/cat"), 0);
	assert_string_equal(wd_exe_cache_get(&c, 10), "/usr/bin/cat");
	assert_null(wd_exe_cache_get(&c, 11));
	wd_exe_cache_free(&c);
}

static void test_oldest_makes_room(void **state)
{
	struct wd_exe_cache c = { 0 };
	char exe[32];

	(void)state;
	for (uint32_t pid = 1; pid <= WD_EXE_CACHE_SLOTS + 1; pid++) {
		snprintf(exe, sizeof(exe), "/bin/p%u", pid);
		assert_int_equal(wd_exe_cache_set(&c, pid, exe), 0);
	}
	assert_null(wd_exe_cache_get(&c, 1)); /* the oldest went */
	assert_string_equal(wd_exe_cache_get(&c, 2), "/bin/p2");
	snprintf(exe, sizeof(exe), "/bin/p%u", WD_EXE_CACHE_SLOTS + 1);
	assert_string_equal(wd_exe_cache_get(&c, WD_EXE_CACHE_SLOTS + 1), exe);
	wd_exe_cache_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_get_replace),
		cmocka_unit_test(test_oldest_makes_room),
	};

	return cmocka_run_group_tests_name("exe_cache", tests, NULL, NULL);
}
