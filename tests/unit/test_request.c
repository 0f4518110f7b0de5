// SPDX-License-Identifier: GPL-2.0
/* supervisor/daemon/request.c: the control protocol's envelope, its ops and their keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "supervisor/daemon/request.h"

/* The reply to @line as text ("" when it is served), and @q for a look. */
static char *reply(const char *line, struct wd_request *q)
{
	cJSON *r = wd_request_parse(line, strlen(line), q);
	char *text = r ? cJSON_PrintUnformatted(r) : strdup("");

	cJSON_Delete(r);
	return text;
}

static void expect(const char *line, const char *want)
{
	struct wd_request q;
	char *got = reply(line, &q);

	assert_string_equal(got, want);
	free(got);
	wd_request_free(&q);
}

static void test_a_served_request_is_read_whole(void **state)
{
	struct wd_request q;
	char *got;

	(void)state;
	got = reply("{\"v\":1,\"op\":\"resume\",\"id\":\"r\",\"token\":\"ab\","
		    "\"resolution\":\"approve\"}  \r\n", &q);
	assert_string_equal(got, "");
	assert_string_equal(q.op, "resume");
	assert_string_equal(q.id->valuestring, "r");
	free(got);
	wd_request_free(&q);
}

static void test_what_is_no_request_is_refused(void **state)
{
	(void)state;
	expect("", "{\"ok\":false,\"error\":\"a request is one JSON object a line\",\"code\":\"bad_request\"}");
	expect("[1]", "{\"ok\":false,\"error\":\"a request is one JSON object a line\",\"code\":\"bad_request\"}");
	/* nothing after the object but white space: two requests on a line are not one */
	expect("{\"op\":\"list\"} {\"op\":\"kill\"}",
	       "{\"ok\":false,\"error\":\"a request is one JSON object a line\",\"code\":\"bad_request\"}");
	expect("{\"op\":\"list\",\"v\":1.5}",
	       "{\"ok\":false,\"error\":\"unsupported protocol version (this wardend speaks 1)\",\"code\":\"bad_request\"}");
	expect("{\"op\":\"list\",\"id\":[1]}",
	       "{\"ok\":false,\"error\":\"\\\"id\\\" must be a number or a string of at most 128 bytes\",\"code\":\"bad_request\"}");
	expect("{\"op\":7}",
	       "{\"ok\":false,\"error\":\"\\\"op\\\" is required: run, resume, attach, stdin, create, exec, put, get, inspect, destroy, list, kill, status, holds, subscribe, approve or deny\",\"code\":\"bad_request\"}");
	expect("{\"op\":\"explode\"}",
	       "{\"ok\":false,\"error\":\"unknown op explode (run, resume, attach, stdin, create, exec, put, get, inspect, destroy, list, kill, status, holds, subscribe, approve, deny)\",\"code\":\"bad_request\"}");
}

static void test_a_line_cut_at_its_length_is_read_no_further(void **state)
{
	const char line[] = "{\"op\":\"list\"}{\"op\":\"kill\"}";
	struct wd_request q;
	cJSON *r;

	(void)state;
	/* the bytes after the given length are not the request's, even without a NUL */
	r = wd_request_parse(line, 13, &q);
	assert_null(r);
	assert_string_equal(q.op, "list");
	wd_request_free(&q);
}

static void test_each_op_takes_its_own_keys_only(void **state)
{
	(void)state;
	expect("{\"op\":\"list\",\"sandbox\":\"sb-1\"}",
	       "{\"ok\":false,\"error\":\"list: unknown key \\\"sandbox\\\"\",\"code\":\"unknown_key\",\"key\":\"sandbox\"}");
	/* create takes no argv (its commands come by exec), run no idle timeout */
	expect("{\"op\":\"create\",\"policy\":\"cli\",\"argv\":[\"x\"]}",
	       "{\"ok\":false,\"error\":\"create: unknown key \\\"argv\\\"\",\"code\":\"unknown_key\",\"key\":\"argv\"}");
	expect("{\"op\":\"run\",\"idle_timeout_s\":3}",
	       "{\"ok\":false,\"error\":\"run: unknown key \\\"idle_timeout_s\\\"\",\"code\":\"unknown_key\",\"key\":\"idle_timeout_s\"}");
	expect("{\"op\":\"approve\",\"sandbox\":\"s\",\"hold\":1,\"token\":\"t\",\"count\":2}", "");
	assert_null(wd_request_keys("explode"));
	assert_non_null(wd_request_keys("deny"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_served_request_is_read_whole),
		cmocka_unit_test(test_what_is_no_request_is_refused),
		cmocka_unit_test(test_a_line_cut_at_its_length_is_read_no_further),
		cmocka_unit_test(test_each_op_takes_its_own_keys_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
