// SPDX-License-Identifier: GPL-2.0
/*
 * docs/policy.schema.json kept in step with the parser: every template (and every policy of
 * tests/policy/valid) validates against the schema, checked by a small JSON Schema validator
 * here built on the project's own JSON parser; and the schema and the parser know the same keys.
 */
#include <dirent.h>
#include <errno.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cJSON.h>

#include "policy/policy.h"
#include "policy/templates.h"

#define SCHEMA WD_SRCDIR "/docs/policy.schema.json"

static cJSON *schema;
static char why[1024];

/* the validator (resolve, valid): shared with tests/helpers/wd-schemack */
#include "tests/schema_check.h"

static cJSON *read_json(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	cJSON *j;

	if (wd_policy_read_file(path, &text, &len))
		fail_msg("cannot read %s", path);
	j = cJSON_ParseWithLength(text, len);
	free(text);
	if (!j)
		fail_msg("%s is not JSON", path);
	return j;
}

static int setup(void **state)
{
	(void)state;
	schema = read_json(SCHEMA);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	cJSON_Delete(schema);
	return 0;
}

static void validate_text(const char *name, const char *text, size_t len, bool want)
{
	cJSON *doc = cJSON_ParseWithLength(text, len);

	assert_non_null(doc);
	why[0] = 0;
	if (valid(doc, schema, "") != want)
		fail_msg("%s %s the schema%s%s", name, want ? "fails" : "passes",
			 why[0] ? ": " : "", why);
	cJSON_Delete(doc);
}

static void test_templates_validate(void **state)
{
	(void)state;
	for (const struct wd_template *t = wd_templates; t->name; t++)
		validate_text(t->name, t->text, t->len, true);
}

static void test_valid_corpus_validates(void **state)
{
	DIR *d = opendir(WD_SRCDIR "/tests/policy/valid");
	struct dirent *e;
	int n = 0;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[4096], *text;
		size_t len;

		if (!strstr(e->d_name, ".json"))
			continue;
		snprintf(path, sizeof(path), WD_SRCDIR "/tests/policy/valid/%s", e->d_name);
		assert_int_equal(wd_policy_read_file(path, &text, &len), 0);
		validate_text(e->d_name, text, len, true);
		free(text);
		n++;
	}
	closedir(d);
	assert_true(n > 0);
}

static void test_schema_refuses(void **state)
{
	static const char *const bad[] = {
		"{}",
		"{\"schema\":\"warden.policy/2\"}",
		"{\"schema\":\"warden.policy/1\",\"nope\":1}",
		"{\"schema\":\"warden.policy/1\",\"mode\":\"lax\"}",
		"{\"schema\":\"warden.policy/1\",\"fs\":{\"read\":[\"relative\"]}}",
		"{\"schema\":\"warden.policy/1\",\"fs\":{\"raed\":[]}}",
		"{\"schema\":\"warden.policy/1\",\"fs\":{\"protect\":[{\"ops\":[\"delete\"]}]}}",
		"{\"schema\":\"warden.policy/1\",\"exec\":{\"deny\":[{\"path\":\"/x\",\"args\":"
		"[]}]}}",
		"{\"schema\":\"warden.policy/1\",\"net\":{\"allow\":[\"example.com\"]}}",
		"{\"schema\":\"warden.policy/1\",\"limits\":{\"memory\":\"256\"}}",
		"{\"schema\":\"warden.policy/1\",\"limits\":{\"pids\":1.5}}",
		"{\"schema\":\"warden.policy/1\",\"limits\":{\"wall_time\":\"1.5h\"}}",
		"{\"schema\":\"warden.policy/1\",\"env\":{\"set\":{\"A\":1}}}",
		"{\"schema\":\"warden.policy/1\",\"env\":{\"set\":{\"1A\":\"x\"}}}",
		"{\"schema\":\"warden.policy/1\",\"namespaces\":{\"pid\":\"none\"}}",
		"{\"schema\":\"warden.policy/1\",\"hold\":{\"approvers\":[\"root\"]}}",
		"{\"schema\":\"warden.policy/1\",\"extends\":[\"cli\",\"cli\"]}",
		"{\"schema\":\"warden.policy/1\",\"user\":-1}",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		validate_text(bad[i], bad[i], strlen(bad[i]), false);
}

struct keyset {
	char *v[256];
	size_t n;
};

static void add_key(struct keyset *ks, const char *k)
{
	for (size_t i = 0; i < ks->n; i++)
		if (strcmp(ks->v[i], k) == 0)
			return;
	assert_true(ks->n < 256);
	ks->v[ks->n++] = strdup(k);
}

static void parser_key(const char *pointer, void *arg)
{
	add_key(arg, pointer);
}

/* Every key path the schema describes: "properties" name keys, "items" add "*". */
static void schema_keys(const cJSON *s, const char *at, struct keyset *ks, int depth)
{
	const cJSON *props, *m;

	assert_true(depth < 20);
	s = resolve(s);
	props = cJSON_GetObjectItemCaseSensitive(s, "properties");
	cJSON_ArrayForEach(m, props) {
		char sub[512];

		snprintf(sub, sizeof(sub), "%s/%s", at, m->string);
		add_key(ks, sub);
		schema_keys(m, sub, ks, depth + 1);
	}
	if (cJSON_GetObjectItemCaseSensitive(s, "items")) {
		char sub[512];

		snprintf(sub, sizeof(sub), "%s/*", at);
		schema_keys(cJSON_GetObjectItemCaseSensitive(s, "items"), sub, ks, depth + 1);
	}
	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(s, "oneOf"))
		schema_keys(m, at, ks, depth + 1);
	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(s, "anyOf"))
		schema_keys(m, at, ks, depth + 1);
}

static void test_same_keys(void **state)
{
	struct keyset a = { 0 }, b = { 0 };

	(void)state;
	wd_policy_keys(parser_key, &a);
	schema_keys(schema, "", &b, 0);
	for (size_t i = 0; i < a.n; i++) {
		bool hit = false;

		for (size_t j = 0; j < b.n; j++)
			hit |= strcmp(a.v[i], b.v[j]) == 0;
		if (!hit)
			fail_msg("the parser knows %s, the schema does not", a.v[i]);
	}
	for (size_t j = 0; j < b.n; j++) {
		bool hit = false;

		for (size_t i = 0; i < a.n; i++)
			hit |= strcmp(a.v[i], b.v[j]) == 0;
		if (!hit)
			fail_msg("the schema knows %s, the parser does not", b.v[j]);
	}
	assert_int_equal(a.n, b.n);
	assert_true(a.n > 40);
	for (size_t i = 0; i < a.n; i++)
		free(a.v[i]);
	for (size_t j = 0; j < b.n; j++)
		free(b.v[j]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_templates_validate),
		cmocka_unit_test(test_valid_corpus_validates),
		cmocka_unit_test(test_schema_refuses),
		cmocka_unit_test(test_same_keys),
	};

	return cmocka_run_group_tests_name("policy_schema", tests, setup, teardown);
}
