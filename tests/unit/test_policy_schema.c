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

static const cJSON *resolve(const cJSON *s)
{
	const cJSON *ref = cJSON_GetObjectItemCaseSensitive(s, "$ref");

	if (!ref)
		return s;
	if (strncmp(ref->valuestring, "#/$defs/", 8))
		fail_msg("unsupported $ref %s", ref->valuestring);
	s = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(schema, "$defs"),
					     ref->valuestring + 8);
	if (!s)
		fail_msg("dangling $ref %s", ref->valuestring);
	return s;
}

static bool fail_at(const char *at, const char *what)
{
	snprintf(why, sizeof(why), "%s: %s", at[0] ? at : "(document)", what);
	return false;
}

static bool type_is(const cJSON *v, const char *t)
{
	if (strcmp(t, "object") == 0)
		return cJSON_IsObject(v);
	if (strcmp(t, "array") == 0)
		return cJSON_IsArray(v);
	if (strcmp(t, "string") == 0)
		return cJSON_IsString(v);
	if (strcmp(t, "boolean") == 0)
		return cJSON_IsBool(v);
	if (strcmp(t, "null") == 0)
		return cJSON_IsNull(v);
	if (strcmp(t, "number") == 0)
		return cJSON_IsNumber(v);
	if (strcmp(t, "integer") == 0)
		return cJSON_IsNumber(v) && v->valuedouble == (double)(long long)v->valuedouble;
	fail_msg("unsupported type %s", t);
	return false;
}

static bool matches(const char *pattern, const char *s)
{
	regex_t re;
	bool ok;

	if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB))
		fail_msg("pattern %s does not compile as POSIX ERE", pattern);
	ok = regexec(&re, s, 0, NULL, 0) == 0;
	regfree(&re);
	return ok;
}

static bool valid(const cJSON *v, const cJSON *s, const char *at);

static bool valid_one_of(const cJSON *v, const cJSON *alts, const char *at, bool exactly_one)
{
	const cJSON *alt;
	int n = 0;

	cJSON_ArrayForEach(alt, alts)
		n += valid(v, alt, at);
	if (exactly_one ? n != 1 : n < 1)
		return fail_at(at, exactly_one ? "not exactly one of oneOf" : "none of anyOf");
	return true;
}

static bool valid(const cJSON *v, const cJSON *s, const char *at)
{
	const cJSON *k;

	s = resolve(s);
	cJSON_ArrayForEach(k, s) {
		const char *kw = k->string;
		char sub[512];

		if (!strcmp(kw, "$schema") || !strcmp(kw, "$id") || !strcmp(kw, "title") ||
		    !strcmp(kw, "description") || !strcmp(kw, "$defs") || !strcmp(kw, "$ref")) {
			continue;
		} else if (!strcmp(kw, "type")) {
			if (!type_is(v, k->valuestring))
				return fail_at(at, "wrong type");
		} else if (!strcmp(kw, "const")) {
			if (!cJSON_Compare(v, k, true))
				return fail_at(at, "not the constant");
		} else if (!strcmp(kw, "enum")) {
			const cJSON *e;
			bool hit = false;

			cJSON_ArrayForEach(e, k)
				hit |= cJSON_Compare(v, e, true);
			if (!hit)
				return fail_at(at, "not in enum");
		} else if (!strcmp(kw, "pattern")) {
			if (cJSON_IsString(v) && !matches(k->valuestring, v->valuestring))
				return fail_at(at, "does not match pattern");
		} else if (!strcmp(kw, "minLength")) {
			if (cJSON_IsString(v) && strlen(v->valuestring) < (size_t)k->valueint)
				return fail_at(at, "too short");
		} else if (!strcmp(kw, "minimum")) {
			if (cJSON_IsNumber(v) && v->valuedouble < k->valuedouble)
				return fail_at(at, "below minimum");
		} else if (!strcmp(kw, "maximum")) {
			if (cJSON_IsNumber(v) && v->valuedouble > k->valuedouble)
				return fail_at(at, "above maximum");
		} else if (!strcmp(kw, "required")) {
			const cJSON *r;

			cJSON_ArrayForEach(r, k)
				if (cJSON_IsObject(v) &&
				    !cJSON_GetObjectItemCaseSensitive(v, r->valuestring))
					return fail_at(at, "a required member is missing");
		} else if (!strcmp(kw, "properties") || !strcmp(kw, "additionalProperties") ||
			   !strcmp(kw, "propertyNames")) {
			const cJSON *m, *props, *add, *names;

			props = cJSON_GetObjectItemCaseSensitive(s, "properties");
			add = cJSON_GetObjectItemCaseSensitive(s, "additionalProperties");
			names = cJSON_GetObjectItemCaseSensitive(s, "propertyNames");

			/* all three are checked together, once */
			if (!cJSON_IsObject(v) || (strcmp(kw, "properties") && props) ||
			    (!strcmp(kw, "propertyNames") && add))
				continue;
			cJSON_ArrayForEach(m, v) {
				const cJSON *ps = NULL;
				cJSON *name = cJSON_CreateString(m->string);
				bool ok = true;

				if (props)
					ps = cJSON_GetObjectItemCaseSensitive(props, m->string);
				snprintf(sub, sizeof(sub), "%s/%s", at, m->string);
				if (names)
					ok = valid(name, names, sub);
				cJSON_Delete(name);
				if (!ok)
					return false;
				if (ps) {
					if (!valid(m, ps, sub))
						return false;
				} else if (cJSON_IsFalse(add)) {
					return fail_at(sub, "not allowed here");
				} else if (cJSON_IsObject(add) && !valid(m, add, sub)) {
					return false;
				}
			}
		} else if (!strcmp(kw, "items")) {
			const cJSON *e;
			int i = 0;

			cJSON_ArrayForEach(e, v) {
				snprintf(sub, sizeof(sub), "%s/%d", at, i++);
				if (!valid(e, k, sub))
					return false;
			}
		} else if (!strcmp(kw, "minItems")) {
			if (cJSON_IsArray(v) && cJSON_GetArraySize(v) < k->valueint)
				return fail_at(at, "too few items");
		} else if (!strcmp(kw, "maxItems")) {
			if (cJSON_IsArray(v) && cJSON_GetArraySize(v) > k->valueint)
				return fail_at(at, "too many items");
		} else if (!strcmp(kw, "uniqueItems")) {
			const cJSON *a, *b;

			if (!cJSON_IsArray(v))
				continue;
			cJSON_ArrayForEach(a, v)
				for (b = a->next; b; b = b->next)
					if (cJSON_Compare(a, b, true))
						return fail_at(at, "items repeat");
		} else if (!strcmp(kw, "oneOf") || !strcmp(kw, "anyOf")) {
			if (!valid_one_of(v, k, at, !strcmp(kw, "oneOf")))
				return false;
		} else {
			fail_msg("schema keyword %s is not understood by this test", kw);
		}
	}
	return true;
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
