// SPDX-License-Identifier: GPL-2.0
/* The live status line's words (supervisor/run/status.c): what it says, and what it leaves out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "supervisor/run/status.h"

static void test_status_words(void **state)
{
	char buf[512];

	(void)state;
	wd_run_status_format(buf, sizeof(buf), 65.4, 48ull << 20, 1, 3, 1, 2, 1,
			     "delete /srv/app/data");
	assert_string_equal(buf, "warden: 1:05 elapsed, 48 MiB, 3 tasks, 2 denials, waiting for "
				 "an operator to answer: delete /srv/app/data");
	/* no controllers: no figures; nothing waits: nothing said of it */
	wd_run_status_format(buf, sizeof(buf), 1.9, 0, 0, 0, 0, 1, 0, "delete /x");
	assert_string_equal(buf, "warden: 0:01 elapsed, 1 denial");
	/* small memory in KiB, one task, several waiting */
	wd_run_status_format(buf, sizeof(buf), 0, 512 << 10, 1, 1, 1, 0, 3, NULL);
	assert_string_equal(buf, "warden: 0:00 elapsed, 512 KiB, 1 task, 0 denials, waiting for "
				 "an operator to answer: a held operation (and more)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
