// SPDX-License-Identifier: GPL-2.0
/*
 * The shipped templates: built in as they are in policy/templates/, valid, complete after their
 * extends, compiled, canonical JSON that reads back the same, and documented.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "policy/compile.h"
#include "policy/effective.h"
#include "policy/explain.h"
#include "policy/templates.h"

static char *read_src(const char *rel)
{
	char path[1024], *text = NULL;
	size_t len = 0;

	snprintf(path, sizeof(path), WD_SRCDIR "/%s", rel);
	if (wd_policy_read_file(path, &text, &len))
		fail_msg("cannot read %s", path);
	return text;
}

static void test_built_in_as_shipped(void **state)
{
	const char *want[] = { "cli", "fs-tool", "http-client", "postgres-client", "sqlite-app",
			       "web-service", "worker", "worker-parallel" };
	size_t n = 0;

	(void)state;
	for (const struct wd_template *t = wd_templates; t->name; t++, n++) {
		char rel[256], *text;

		assert_true(n < sizeof(want) / sizeof(want[0]));
		assert_string_equal(t->name, want[n]); /* sorted, all there */
		assert_true(wd_is_template_name(t->name));
		assert_ptr_equal(wd_template_find(t->name), t);
		assert_true(strlen(t->summary) > 20);
		snprintf(rel, sizeof(rel), "policy/templates/%s.json", t->name);
		text = read_src(rel);
		assert_int_equal(strlen(text), t->len);
		assert_string_equal(text, t->text);
		free(text);
		/* comment-free JSON: nothing a strict parser would not take */
		assert_null(strstr(t->text, "//"));
		assert_null(strstr(t->text, "/*"));
	}
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	assert_null(wd_template_find("nope"));
	assert_false(wd_is_template_name("./cli"));
	assert_false(wd_is_template_name("cli.json"));
	assert_false(wd_is_template_name("Cli"));
	assert_false(wd_is_template_name(""));
}

static void test_each_is_valid(void **state)
{
	const struct wd_policy_vars vars = { .workdir = "/w/p", .home = "/home/u", .tmpdir = "/t" };

	(void)state;
	for (const struct wd_template *t = wd_templates; t->name; t++) {
		struct wd_policy_errors errs = { 0 };
		struct wd_policy_error e;
		struct wd_ruleset rs;
		struct wd_policy doc, p, q;
		char *a, *b;
		cJSON *j;

		/* the document alone, strictly */
		if (wd_policy_parse_all(t->text, t->len, &doc, &errs))
			fail_msg("%s: %s: %s", t->name, errs.v[0].pointer, errs.v[0].msg);
		wd_policy_free(&doc);
		/* with what it extends */
		if (wd_policy_load(t->name, NULL, &p, &errs))
			fail_msg("%s: %s", t->name, errs.n ? errs.v[0].msg : "?");
		assert_true(p.fs_read.n > 0);
		/* canonical JSON reads back the same */
		j = wd_policy_to_json(&p);
		a = cJSON_PrintUnformatted(j);
		cJSON_Delete(j);
		assert_int_equal(wd_policy_parse_all(a, strlen(a), &q, &errs), 0);
		j = wd_policy_to_json(&q);
		b = cJSON_PrintUnformatted(j);
		cJSON_Delete(j);
		assert_string_equal(a, b);
		free(a);
		free(b);
		wd_policy_free(&q);
		/* and it compiles */
		if (wd_policy_expand(&p, &vars, &errs))
			fail_msg("%s: %s: %s", t->name, errs.v[0].pointer, errs.v[0].msg);
		if (wd_compile(&p, &rs, &e))
			fail_msg("%s: %s: %s", t->name, e.pointer, e.msg);
		assert_true(rs.n_entries > 0);
		wd_ruleset_free(&rs);
		wd_policy_free(&p);
		wd_policy_errors_free(&errs);
	}
}

/* What `warden run --policy cli` can do today, and what the others are waiting for. */
static void test_enforced_today(void **state)
{
	(void)state;
	for (const struct wd_template *t = wd_templates; t->name; t++) {
		struct wd_policy_errors errs = { 0 };
		struct wd_policy p;
		char why[1024];
		int r;

		assert_int_equal(wd_policy_load(t->name, NULL, &p, &errs), 0);
		r = wd_policy_unenforced(&p, why, sizeof(why));
		/*
		 * Every template is enforced on some backend since #15 and #16 (sqlite-app,
		 * worker and worker-parallel ask for limits.fork_rate: bpf-lsm only).
		 */
		assert_int_equal(r, 0);
		wd_policy_free(&p);
	}
}

static void test_documented(void **state)
{
	char *doc = read_src("docs/policy.md"), *man = read_src("docs/man/warden-policy.5");

	(void)state;
	for (const struct wd_template *t = wd_templates; t->name; t++) {
		char heading[128], manref[128];

		snprintf(heading, sizeof(heading), "\n### `%s`\n", t->name);
		if (!strstr(doc, heading))
			fail_msg("docs/policy.md has no \"### `%s`\" section", t->name);
		snprintf(manref, sizeof(manref), "\n.It Cm %s\n", t->name);
		if (!strstr(man, manref))
			fail_msg("warden-policy(5) has no \".It Cm %s\" entry", t->name);
	}
	free(doc);
	free(man);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_built_in_as_shipped),
		cmocka_unit_test(test_each_is_valid),
		cmocka_unit_test(test_enforced_today),
		cmocka_unit_test(test_documented),
	};

	return cmocka_run_group_tests_name("templates", tests, NULL, NULL);
}
