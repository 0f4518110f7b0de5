// SPDX-License-Identifier: GPL-2.0
/* policy/units.c: durations, sizes, rates, their canonical text, and "did you mean". */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "policy/units.h"

static void duration_ok(const char *s, uint64_t want, const char *canon)
{
	char why[256], buf[64];
	uint64_t v;

	if (wd_parse_duration(s, &v, why, sizeof(why)))
		fail_msg("\"%s\": %s", s, why);
	assert_int_equal(v, want);
	wd_format_duration(v, buf, sizeof(buf));
	assert_string_equal(buf, canon);
}

static void duration_bad(const char *s, const char *words)
{
	char why[256];
	uint64_t v = 1;

	assert_int_equal(wd_parse_duration(s, &v, why, sizeof(why)), -EINVAL);
	assert_int_equal(v, 0);
	if (!strstr(why, words))
		fail_msg("\"%s\": \"%s\" lacks \"%s\"", s, why, words);
}

static void test_durations(void **state)
{
	(void)state;
	duration_ok("30s", 30000, "30s");
	duration_ok("500ms", 500, "500ms");
	duration_ok("1500ms", 1500, "1500ms");
	duration_ok("2000ms", 2000, "2s");
	duration_ok("90s", 90000, "1m30s");
	duration_ok("1h30m", 5400000, "1h30m");
	duration_ok("2d", 172800000, "2d");
	duration_ok("1d1h1m1s1ms", 90061001, "90061001ms");
	duration_ok("0s", 0, "0s");
	duration_bad("", "duration such as");
	duration_bad("30", "has no unit");
	duration_bad("s", "duration such as");
	duration_bad("1.5h", "whole units");
	duration_bad("3y", "unknown unit \"y\"");
	duration_bad("1s1h", "largest first");
	duration_bad("1m1m", "largest first");
	duration_bad("5m30", "duration such as");
	duration_bad("30 s", "duration such as");
	duration_bad("-1s", "duration such as");
	duration_bad("9999999999999999999s", "too long");
	duration_bad("99999999999999999d", "too long");
}

static void size_ok(const char *s, uint64_t want, const char *canon)
{
	char why[256], buf[64];
	uint64_t v;

	if (wd_parse_size(s, &v, why, sizeof(why)))
		fail_msg("\"%s\": %s", s, why);
	assert_int_equal(v, want);
	wd_format_size(v, buf, sizeof(buf));
	assert_string_equal(buf, canon);
}

static void size_bad(const char *s, const char *words)
{
	char why[256];
	uint64_t v = 1;

	assert_int_equal(wd_parse_size(s, &v, why, sizeof(why)), -EINVAL);
	assert_int_equal(v, 0);
	if (!strstr(why, words))
		fail_msg("\"%s\": \"%s\" lacks \"%s\"", s, why, words);
}

static void test_sizes(void **state)
{
	(void)state;
	size_ok("256MiB", 256u << 20, "256MiB");
	size_ok("1.5GiB", 3u << 29, "1536MiB");
	size_ok("1GB", 1000000000, "1GB");
	size_ok("1000KB", 1000000, "1MB");
	size_ok("1024KiB", 1 << 20, "1MiB");
	size_ok("512B", 512, "512B");
	size_ok("0B", 0, "0B");
	size_ok("0.5KB", 500, "500B");
	size_ok("2TiB", (uint64_t)2 << 40, "2TiB");
	size_ok("3TB", 3000000000000ull, "3TB");
	size_bad("256", "has no unit");
	size_bad("256mib", "did you mean \"MiB\"?");
	size_bad("256M", "did you mean");
	size_bad("256Q", "units: B, KB");
	size_bad("1.1KiB", "whole number of bytes");
	size_bad("1.0000000001GB", "size such as");
	size_bad("MiB", "size such as");
	size_bad("1 MiB", "size such as");
	size_bad("1.MiB", "size such as");
	size_bad("99999999999TiB", "too large");
	size_bad("9999999999999999999B", "too large");
}

static void test_rates(void **state)
{
	uint64_t n, per;
	char why[256], buf[64];

	(void)state;
	assert_int_equal(wd_parse_rate("50/s", false, &n, &per, why, sizeof(why)), 0);
	assert_int_equal(n, 50);
	assert_int_equal(per, 1000);
	wd_format_rate(n, per, false, buf, sizeof(buf));
	assert_string_equal(buf, "50/s");
	assert_int_equal(wd_parse_rate("600/m", false, &n, &per, why, sizeof(why)), 0);
	assert_int_equal(per, 60000);
	wd_format_rate(n, per, false, buf, sizeof(buf));
	assert_string_equal(buf, "600/m");
	assert_int_equal(wd_parse_rate("10/h", false, &n, &per, why, sizeof(why)), 0);
	assert_int_equal(per, 3600000);
	assert_int_equal(wd_parse_rate("1MiB/s", true, &n, &per, why, sizeof(why)), 0);
	assert_int_equal(n, 1 << 20);
	wd_format_rate(n, per, true, buf, sizeof(buf));
	assert_string_equal(buf, "1MiB/s");
	assert_int_equal(wd_parse_rate("50", false, &n, &per, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "\"50/s\""));
	assert_int_equal(wd_parse_rate("50/d", false, &n, &per, why, sizeof(why)), -EINVAL);
	assert_int_equal(wd_parse_rate("x/s", false, &n, &per, why, sizeof(why)), -EINVAL);
	assert_int_equal(wd_parse_rate("5.5/s", false, &n, &per, why, sizeof(why)), -EINVAL);
	assert_int_equal(wd_parse_rate("1MiB", true, &n, &per, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "1MiB/s"));
	assert_int_equal(wd_parse_rate("1Mb/s", true, &n, &per, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "unknown unit"));
	assert_int_equal(wd_parse_rate("9999999999999999999/s", false, &n, &per, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "too large"));
}

static void test_suggest(void **state)
{
	static const char *const keys[] = { "read", "write", "exec", "deny", "protect", NULL };
	static const char *const vars[] = { "WORKDIR", "HOME", "TMPDIR", NULL };

	(void)state;
	assert_string_equal(wd_suggest("raed", keys), "read");
	assert_string_equal(wd_suggest("READ", keys), "read");
	assert_string_equal(wd_suggest("wrte", keys), "write");
	assert_string_equal(wd_suggest("protetc", keys), "protect");
	assert_string_equal(wd_suggest("WORKIDR", vars), "WORKDIR");
	assert_string_equal(wd_suggest("TMP_DIR", vars), "TMPDIR");
	assert_null(wd_suggest("xyzzy", keys));
	assert_null(wd_suggest("r", keys));
	assert_null(wd_suggest("rd", keys));
	assert_null(wd_suggest("", keys));
	assert_null(wd_suggest("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", keys));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_suggest),
	};

	return cmocka_run_group_tests_name("units", tests, NULL, NULL);
}
