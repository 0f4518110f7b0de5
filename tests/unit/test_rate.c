// SPDX-License-Identifier: GPL-2.0
/* supervisor/net/rate.c: a policy's egress rate as bytes per second, and the burst it gets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "policy/units.h"
#include "supervisor/net/rate.h"

static uint64_t rate_of(const char *s)
{
	uint64_t bytes, per_ms;
	char why[256];

	if (wd_parse_rate(s, true, &bytes, &per_ms, why, sizeof(why)))
		fail_msg("\"%s\": %s", s, why);
	return wd_rate_bytes_per_s(bytes, per_ms);
}

static void test_bytes_per_s(void **state)
{
	(void)state;
	assert_int_equal(rate_of("2MiB/s"), 2 << 20);
	assert_int_equal(rate_of("60MiB/m"), 1 << 20);
	assert_int_equal(rate_of("36KB/h"), 10);
	/* never 0 (no limit) for a rate the policy accepted as above zero */
	assert_int_equal(rate_of("1B/h"), 1);
	assert_int_equal(wd_rate_bytes_per_s(0, 1000), 0);
	/* no overflow on the largest sizes */
	assert_true(wd_rate_bytes_per_s(UINT64_MAX / 10, 1000) == UINT64_MAX / 10 / 1000 * 1000);
}

static void test_burst(void **state)
{
	(void)state;
	/* never below the floor, above the largest GSO segment */
	assert_int_equal(wd_rate_burst_bytes(1), WD_RATE_MIN_BURST);
	assert_int_equal(wd_rate_burst_bytes(512 << 10), WD_RATE_MIN_BURST);
	/* above it, a quarter second at the rate: what a stalled TCP sender catches up */
	assert_int_equal(wd_rate_burst_bytes(10 << 20), (10 << 20) / 1000 * WD_RATE_BURST_MS);
	assert_true(wd_rate_burst_bytes(2 << 20) > WD_RATE_MIN_BURST);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes_per_s),
		cmocka_unit_test(test_burst),
	};

	return cmocka_run_group_tests_name("rate", tests, NULL, NULL);
}
