/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON Schema validator on cJSON, the keywords warden's schemas use (draft 2020-12
 * subset): docs/policy.schema.json (tests/unit/test_policy_schema.c) and docs/report.schema.json
 * (tests/helpers/wd-schemack). Test code only: the includer defines `static cJSON *schema` (the
 * schema whose $defs a $ref names), `static char why[1024]` (why a document fails) and
 * fail_msg(), then includes this.
 */
#ifndef WD_TESTS_SCHEMA_CHECK_H
#define WD_TESTS_SCHEMA_CHECK_H

#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <cJSON.h>

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

#endif
