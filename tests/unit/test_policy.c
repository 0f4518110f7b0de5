// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "policy/policy.h"

static int parse(const char *json, struct wd_policy *p, struct wd_policy_error *e)
{
	return wd_policy_parse(json, strlen(json), p, e);
}

/* The policy must be refused with exactly this pointer, and a message containing @words. */
static void refused(const char *json, const char *pointer, const char *words)
{
	struct wd_policy p;
	struct wd_policy_error e;

	assert_int_equal(parse(json, &p, &e), -EINVAL);
	assert_string_equal(e.pointer, pointer);
	if (!strstr(e.msg, words))
		fail_msg("message \"%s\" lacks \"%s\"", e.msg, words);
}

static void test_minimal(void **state)
{
	struct wd_policy p;
	struct wd_policy_error e;

	(void)state;
	assert_int_equal(parse("{\"schema\":\"warden.policy/1\"}", &p, &e), 0);
	assert_int_equal(p.mode, WD_MODE_ENFORCE);
	assert_int_equal(p.fs_read.n, 0);
	wd_policy_free(&p);
}

static void test_full_fs(void **state)
{
	struct wd_policy p;
	struct wd_policy_error e;

	(void)state;
	assert_int_equal(parse("{\"schema\":\"warden.policy/1\",\"mode\":\"audit\",\"fs\":{"
			       "\"read\":[\"/usr\",\"//etc//ssl/\"],\"write\":[\"/tmp/\"],"
			       "\"exec\":[\"/\"]}}\n\n",
			       &p, &e),
			 0);
	assert_int_equal(p.mode, WD_MODE_AUDIT);
	assert_int_equal(p.fs_read.n, 2);
	assert_string_equal(p.fs_read.paths[0], "/usr");
	assert_string_equal(p.fs_read.paths[1], "/etc/ssl");
	assert_int_equal(p.fs_write.n, 1);
	assert_string_equal(p.fs_write.paths[0], "/tmp");
	assert_int_equal(p.fs_exec.n, 1);
	assert_string_equal(p.fs_exec.paths[0], "/");
	wd_policy_free(&p);
}

static void test_normalise(void **state)
{
	char out[64];
	const char *why = NULL;

	(void)state;
	assert_int_equal(wd_path_normalise("/a//b///c/", out, sizeof(out), &why), 0);
	assert_string_equal(out, "/a/b/c");
	assert_int_equal(wd_path_normalise("////", out, sizeof(out), &why), 0);
	assert_string_equal(out, "/");
	assert_int_equal(wd_path_normalise("/a/../b", out, sizeof(out), &why), -EINVAL);
	assert_non_null(strstr(why, ".."));
	assert_int_equal(wd_path_normalise("/a/./b", out, sizeof(out), &why), -EINVAL);
	assert_int_equal(wd_path_normalise("a/b", out, sizeof(out), &why), -EINVAL);
	assert_non_null(strstr(why, "absolute"));
	/* "..." is a name, not a component to refuse */
	assert_int_equal(wd_path_normalise("/a/.../b..", out, sizeof(out), &why), 0);
	assert_string_equal(out, "/a/.../b..");
	assert_int_equal(wd_path_normalise("/abcdefgh", out, 8, &why), -EINVAL);
}

static void test_errors(void **state)
{
	(void)state;
	refused("{\"fs\":{}}", "/schema", "missing");
	refused("{\"schema\":\"warden.policy/2\"}", "/schema", "warden.policy/1");
	refused("{\"schema\":1}", "/schema", "warden.policy/1");
	refused("[]", "", "expected a JSON object");
	refused("{\"schema\":\"warden.policy/1\",\"mode\":\"lax\"}", "/mode", "\"enforce\" or");
	refused("{\"schema\":\"warden.policy/1\",\"nope\":1}", "/nope", "unknown key");
	refused("{\"schema\":\"warden.policy/1\",\"a/b~c\":1}", "/a~1b~0c", "unknown key");
	refused("{\"schema\":\"warden.policy/1\",\"fs\":[]}", "/fs", "expected an object");
	refused("{\"schema\":\"warden.policy/1\",\"fs\":{\"raed\":[]}}", "/fs/raed",
		"unknown key");
	refused("{\"schema\":\"warden.policy/1\",\"fs\":{\"read\":\"/usr\"}}", "/fs/read",
		"expected an array");
	refused("{\"schema\":\"warden.policy/1\",\"fs\":{\"read\":[\"/usr\",3]}}", "/fs/read/1",
		"got a number");
	refused("{\"schema\":\"warden.policy/1\",\"fs\":{\"write\":[\"tmp\"]}}", "/fs/write/0",
		"absolute");
	refused("{\"schema\":\"warden.policy/1\",\"fs\":{\"exec\":[\"/usr/../bin\"]}}",
		"/fs/exec/0", "..");
	refused("{\"schema\":\"warden.policy/1\",\"fs\":{\"read\":[],\"read\":[]}}", "/fs/read",
		"duplicate");
}

static void test_not_yet_enforced(void **state)
{
	(void)state;
	refused("{\"schema\":\"warden.policy/1\",\"net\":{}}", "/net", "not enforced");
	refused("{\"schema\":\"warden.policy/1\",\"limits\":{}}", "/limits", "not enforced");
	refused("{\"schema\":\"warden.policy/1\",\"fs\":{\"deny\":[\"/x\"]}}", "/fs/deny",
		"not enforced");
}

static void test_long_path(void **state)
{
	char json[1024], path[400];

	(void)state;
	memset(path, 'a', sizeof(path));
	path[0] = '/';
	path[sizeof(path) - 1] = 0;
	snprintf(json, sizeof(json), "{\"schema\":\"warden.policy/1\",\"fs\":{\"read\":[\"%s\"]}}",
		 path);
	refused(json, "/fs/read/0", "longer than");
}

static void test_syntax_error_position(void **state)
{
	struct wd_policy p;
	struct wd_policy_error e;

	(void)state;
	assert_int_equal(parse("{\n  \"schema\": \"warden.policy/1\",\n  \"fs\": {,}\n}", &p, &e),
			 -EINVAL);
	assert_string_equal(e.pointer, "");
	assert_int_equal(e.line, 3);
	/* cJSON reports the offending byte or the one after it: "near" */
	assert_in_range(e.col, 10, 11);
	assert_non_null(strstr(e.msg, "line 3"));
	/* trailing garbage after the document */
	assert_int_equal(parse("{\"schema\":\"warden.policy/1\"} x", &p, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "not valid JSON"));
}

static void test_load_file(void **state)
{
	struct wd_policy p;
	struct wd_policy_error e;
	char buf[512];
	char path[] = "/tmp/wd-test-policy-XXXXXX";
	int fd;
	FILE *f;

	(void)state;
	assert_int_equal(wd_policy_load_file("/nonexistent/policy.json", &p, &e), -ENOENT);
	wd_policy_error_format(&e, "/nonexistent/policy.json", buf, sizeof(buf));
	assert_string_equal(buf, "/nonexistent/policy.json: cannot read: No such file or directory");

	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs("{\"schema\":\"warden.policy/1\",\"fs\":{\"read\":[\"/usr\", 7]}}", f);
	fclose(f);
	assert_int_equal(wd_policy_load_file(path, &p, &e), -EINVAL);
	wd_policy_error_format(&e, "p.json", buf, sizeof(buf));
	assert_string_equal(buf, "p.json: /fs/read/1: expected an absolute path string, got a number");
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_full_fs),
		cmocka_unit_test(test_normalise),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_not_yet_enforced),
		cmocka_unit_test(test_long_path),
		cmocka_unit_test(test_syntax_error_position),
		cmocka_unit_test(test_load_file),
	};

	return cmocka_run_group_tests_name("policy", tests, NULL, NULL);
}
