// SPDX-License-Identifier: GPL-2.0
/* policy/json_locate.c: JSON pointers to positions, and the strict checks on JSON text. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "policy/json_locate.h"

static const char doc[] = "{\n"
			  "  \"a\": {\"b\": [10, {\"c\": true}, \"x\"]},\n"
			  "  \"d/e\": 1, \"f~g\": null,\n"
			  "  \"h\": 1, \"h\": 2,\n"
			  "  \"\\u00e9t\\u00e9\": \"\xc3\xa9\", \"k\": []\n"
			  "}";

/* Where @pointer lands: "line:col" and whether it was found itself. */
static void at(const char *pointer, bool key, unsigned int nth, int want_r, int line, int col)
{
	size_t off;
	int l, c, r = wd_json_locate(doc, strlen(doc), pointer, key, nth, &off);

	wd_json_line_col(doc, strlen(doc), off, &l, &c);
	if (r != want_r || l != line || c != col)
		fail_msg("%s%s: got %d at %d:%d, want %d at %d:%d", pointer, key ? " (key)" : "", r,
			 l, c, want_r, line, col);
}

static void test_locate(void **state)
{
	(void)state;
	at("", false, 0, 0, 1, 1);
	at("/a", false, 0, 0, 2, 8);
	at("/a", true, 0, 0, 2, 3);
	at("/a/b", false, 0, 0, 2, 14);
	at("/a/b/0", false, 0, 0, 2, 15);
	at("/a/b/1", false, 0, 0, 2, 19);
	at("/a/b/1/c", false, 0, 0, 2, 25);
	at("/a/b/2", false, 0, 0, 2, 32);
	at("/d~1e", false, 0, 0, 3, 10);
	at("/f~0g", true, 0, 0, 3, 13);
	/* the second of two members of one name */
	at("/h", true, 0, 0, 4, 3);
	at("/h", true, 1, 0, 4, 11);
	/* names with escapes are matched decoded; columns count characters */
	at("/\xc3\xa9t\xc3\xa9", false, 0, 0, 5, 20);
	at("/k", false, 0, 0, 5, 30);
	/* missing: the deepest ancestor that is there */
	at("/a/b/7", false, 0, 1, 2, 14);
	at("/a/zz/1", false, 0, 1, 2, 8);
	at("/nope", false, 0, 1, 1, 1);
	at("/k/0", false, 0, 1, 5, 30);
	at("/a/b/x", false, 0, 1, 2, 14);
	at("/a/b/1/c/d", false, 0, 1, 2, 25);
}

static void test_not_json(void **state)
{
	size_t off;

	(void)state;
	assert_int_equal(wd_json_locate("", 0, "/a", false, 0, &off), -EINVAL);
	assert_int_equal(wd_json_locate("{\"a\" 1}", 7, "/a", false, 0, &off), -EINVAL);
	assert_int_equal(wd_json_locate("{\"a\":[1,", 8, "/a/5", false, 0, &off), -EINVAL);
	/* bounded by the length given, not by a NUL */
	assert_int_equal(wd_json_locate("{\"a\":1}", 3, "/a", false, 0, &off), -EINVAL);
}

static void check_bad(const char *text, size_t len, const char *pointer, const char *words,
		      int col)
{
	char ptr[64];
	const char *why = NULL;
	size_t off;
	int l, c;

	assert_int_equal(wd_json_check(text, len, ptr, sizeof(ptr), &off, &why), -EINVAL);
	assert_string_equal(ptr, pointer);
	if (!strstr(why, words))
		fail_msg("\"%s\" lacks \"%s\"", why, words);
	wd_json_line_col(text, len, off, &l, &c);
	if (c != col)
		fail_msg("%s: column %d, want %d", why, c, col);
}

static void test_check(void **state)
{
	char ptr[64];
	const char *why = NULL;
	size_t off;

	(void)state;
	assert_int_equal(wd_json_check(doc, strlen(doc), ptr, sizeof(ptr), &off, &why), 0);
	assert_null(why);
	{
		const char *t = "[1, -0.5e+3, 0, true, false, null, \"\\ud83d\\ude00\", {}, []]";

		assert_int_equal(wd_json_check(t, strlen(t), ptr, sizeof(ptr), &off, &why), 0);
	}
	check_bad("{\"a\":[\"x\",\"y\\u0000\"]}", 20, "/a/1", "\\u0000", 11);
	check_bad("{\"a\":\"\\udc00\"}", 14, "/a", "surrogate", 6);
	check_bad("{\"a\\/b\":{\"k\xff\":1}}", 18, "/a~1b/k?", "UTF-8", 10);
	check_bad("{\"a\":\"\xc0\xaf\"}", 10, "/a", "UTF-8", 6);
	check_bad("{\"a\":\"\xed\xa0\x80\"}", 11, "/a", "UTF-8", 6);
	check_bad("{\"a\":\"\xf4\x90\x80\x80\"}", 12, "/a", "UTF-8", 6);
	check_bad("{\"a\":\"x\ty\"}", 11, "/a", "control character", 6);
	/* syntax cJSON lets through */
	check_bad("{\"a\":+1}", 8, "", "not valid JSON", 6);
	check_bad("{\"a\":01}", 8, "", "not valid JSON", 7);
	check_bad("{\"a\":1.}", 8, "", "not valid JSON", 8);
	check_bad("{\"a\":1e}", 8, "", "not valid JSON", 8);
	check_bad("{\x01\"a\":1}", 8, "", "not valid JSON", 2);
	check_bad("{\"a\":1} x", 9, "", "not valid JSON", 9);
	check_bad("{\"a\":tru}", 9, "", "not valid JSON", 6);
	check_bad("{\"a\":\"\\x\"}", 10, "", "not valid JSON", 9);
}

static void test_deep(void **state)
{
	char text[5000];
	char ptr[64];
	const char *why = NULL;
	size_t off;

	(void)state;
	/* nesting deeper than any policy: refused, never a stack overflow */
	memset(text, '[', 2400);
	memset(text + 2400, ']', 2400);
	assert_int_equal(wd_json_check(text, 4800, ptr, sizeof(ptr), &off, &why), -EINVAL);
	assert_int_equal(wd_json_locate(text, 4800, "/0/0/0/0", false, 0, &off), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_locate),
		cmocka_unit_test(test_not_json),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_deep),
	};

	return cmocka_run_group_tests_name("json_locate", tests, NULL, NULL);
}
