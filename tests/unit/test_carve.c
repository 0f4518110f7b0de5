// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bpf/wd_abi.h"
#include "policy/policy.h"
#include "supervisor/backend/carve.h"

/* A made-up tree: every path, directories ending in "/". */
static const char *const tree[] = {
	"/w/", "/w/a.txt", "/w/.env", "/w/src/", "/w/src/main.c", "/w/src/keys/",
	"/w/src/keys/id", "/w/docs/", "/w/docs/x.md", "/other/", "/other/f", NULL,
};

static char fake_kind(void *ctx, const char *path)
{
	size_t n = strlen(path);

	(void)ctx;
	for (int i = 0; tree[i]; i++) {
		if (strncmp(tree[i], path, n) != 0)
			continue;
		if (tree[i][n] == 0)
			return 'f';
		if (tree[i][n] == '/' && tree[i][n + 1] == 0)
			return 'd';
	}
	return 0;
}

static int fake_list(void *ctx, const char *dir, int (*fn)(void *arg, const char *name),
		     void *arg)
{
	char prefix[256], name[256];
	int err;

	if (fake_kind(ctx, dir) != 'd')
		return fake_kind(ctx, dir) ? -ENOTDIR : -ENOENT;
	snprintf(prefix, sizeof(prefix), "%s/", dir);
	for (int i = 0; tree[i]; i++) {
		const char *rest;
		size_t n;

		if (strncmp(tree[i], prefix, strlen(prefix)) != 0)
			continue;
		rest = tree[i] + strlen(prefix);
		n = strcspn(rest, "/");
		if (n == 0 || (rest[n] == '/' && rest[n + 1] != 0))
			continue; /* the dir itself, or deeper */
		snprintf(name, sizeof(name), "%.*s", (int)n, rest);
		err = fn(arg, name);
		if (err)
			return err;
	}
	return 0;
}

static const struct wd_carve_fs fake = { .list = fake_list, .kind = fake_kind };

/* The rules as "path:access[:list]" lines, sorted, for comparison. */
static char *show(struct wd_carve_rule *r, size_t n)
{
	char *lines[64], *out = calloc(1, 4096);

	for (size_t i = 0; i < n; i++) {
		lines[i] = malloc(300);
		snprintf(lines[i], 300, "%s:%u%s\n", r[i].path, r[i].access,
			 r[i].list_only ? ":list" : "");
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (strcmp(lines[i], lines[j]) > 0) {
				char *t = lines[i];

				lines[i] = lines[j];
				lines[j] = t;
			}
	for (size_t i = 0; i < n; i++) {
		strcat(out, lines[i]);
		free(lines[i]);
	}
	return out;
}

static void carve_ok(const struct wd_carve_rule *allow, size_t n_allow, char *const *deny,
		     size_t n_deny, const char *want)
{
	struct wd_carve_rule *out;
	size_t n;
	char why[256];
	char *got;

	if (wd_carve(allow, n_allow, deny, n_deny, &fake, &out, &n, why, sizeof(why)))
		fail_msg("carve failed: %s", why);
	got = show(out, n);
	assert_string_equal(got, want);
	free(got);
	wd_carve_free(out, n);
}

static void test_no_deny_keeps_rules(void **state)
{
	struct wd_carve_rule allow[] = { { "/w", WD_ACC_READ, 0, 0 } };

	(void)state;
	carve_ok(allow, 1, NULL, 0, "/w:1\n");
}

static void test_file_denied_siblings_allowed(void **state)
{
	struct wd_carve_rule allow[] = { { "/w", WD_ACC_READ | WD_ACC_WRITE, 0, 0 } };
	char *deny[] = { "/w/.env" };

	(void)state;
	/* /w itself may only be listed (the name .env shows, its content does not) */
	carve_ok(allow, 1, deny, 1, "/w/a.txt:3\n/w/docs:3\n/w/src:3\n/w:3:list\n");
}

static void test_nested_directory_denied(void **state)
{
	struct wd_carve_rule allow[] = { { "/w", WD_ACC_READ, 0, 0 } };
	char *deny[] = { "/w/src/keys" };

	(void)state;
	/*
	 * Neither /w nor /w/src may be listed: Landlock's listing right on a directory covers every
	 * directory beneath it, keys/ included.
	 */
	carve_ok(allow, 1, deny, 1, "/w/.env:1\n/w/a.txt:1\n/w/docs:1\n/w/src/main.c:1\n");
}

static void test_deny_covering_allow_drops_it(void **state)
{
	struct wd_carve_rule allow[] = { { "/w/src", WD_ACC_READ, 0, 0 }, { "/other", WD_ACC_READ, 0, 0 } };
	char *deny[] = { "/w" };

	(void)state;
	carve_ok(allow, 2, deny, 1, "/other:1\n");
}

static void test_missing_deny_inside_allow_refused(void **state)
{
	struct wd_carve_rule allow[] = { { "/w", WD_ACC_READ, 0, 0 } };
	char *deny[] = { "/w/not-there" };
	struct wd_carve_rule *out;
	size_t n;
	char why[256];

	(void)state;
	assert_int_equal(wd_carve(allow, 1, deny, 1, &fake, &out, &n, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "/w/not-there does not exist"));
	/* outside every allowed tree it is harmless */
	deny[0] = "/elsewhere/nothing";
	assert_int_equal(wd_carve(allow, 1, deny, 1, &fake, &out, &n, why, sizeof(why)), 0);
	wd_carve_free(out, n);
}

/*
 * exec.deny's carve: a missing denied path is carved around all the same (the directory that
 * would hold it split into its entries, so nothing appearing there later gets the right).
 */
static void test_missing_deny_carved_when_allowed(void **state)
{
	struct wd_carve_rule allow[] = { { "/w/src", WD_ACC_EXEC, 0, 0 } };
	char *deny[] = { "/w/src/later", "/w/src/keys/id" };
	struct wd_carve_rule *out;
	size_t n;
	char why[256];
	char *got;

	(void)state;
	assert_int_equal(wd_carve_missing(allow, 1, deny, 2, true, &fake, &out, &n, why,
					  sizeof(why)),
			 0);
	got = show(out, n);
	/* exec has no listing right: the list-only rules carry nothing Landlock is given */
	assert_string_equal(got, "/w/src/keys:4:list\n/w/src/main.c:4\n/w/src:4:list\n");
	free(got);
	wd_carve_free(out, n);
	/* wd_carve() still refuses it (fs.deny) */
	assert_int_equal(wd_carve(allow, 1, deny, 1, &fake, &out, &n, why, sizeof(why)), -EINVAL);
}

/* A protected tree that is itself a writable root loses removal and truncation, nothing else. */
static void test_protect_carved_at_a_writable_root(void **state)
{
	struct wd_carve_rule rules[] = {
		{ .path = "/w", .access = WD_ACC_READ | WD_ACC_WRITE },
		{ .path = "/w/src/keys", .access = WD_ACC_READ | WD_ACC_WRITE },
		{ .path = "/other", .access = WD_ACC_READ | WD_ACC_WRITE },
		{ .path = "/", .access = WD_ACC_READ },
	};
	char *trees[] = { "/w" };
	unsigned int ops[] = { WD_PROTECT_ALL };

	(void)state;
	assert_int_equal(wd_carve_protect(rules, 4, trees, ops, 1), 1);
	assert_int_equal(rules[0].protect, WD_PROTECT_ALL);
	assert_int_equal(rules[1].protect, WD_PROTECT_ALL);
	assert_int_equal(rules[2].protect, 0);
	assert_int_equal(rules[3].protect, 0);
}

/*
 * Inside a writable tree the directories between would lose removal of their own entries: not
 * carved. Delete without rename cannot take Landlock's one removal right either.
 */
static void test_protect_inside_a_writable_tree_not_carved(void **state)
{
	struct wd_carve_rule rules[] = {
		{ .path = "/w", .access = WD_ACC_READ | WD_ACC_WRITE },
		{ .path = "/other", .access = WD_ACC_READ | WD_ACC_WRITE },
	};
	char *trees[] = { "/w/src", "/other" };
	unsigned int ops[] = { WD_PROTECT_ALL, WD_PROTECT_DELETE };

	(void)state;
	assert_int_equal(wd_carve_protect(rules, 2, trees, ops, 2), 0);
	assert_int_equal(rules[0].protect, 0);
	assert_int_equal(rules[1].protect, 0);
	ops[1] = WD_PROTECT_DELETE | WD_PROTECT_TRUNCATE;
	assert_int_equal(wd_carve_protect(rules, 2, trees, ops, 2), 1);
	assert_int_equal(rules[1].protect, WD_PROTECT_TRUNCATE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_deny_keeps_rules),
		cmocka_unit_test(test_file_denied_siblings_allowed),
		cmocka_unit_test(test_nested_directory_denied),
		cmocka_unit_test(test_deny_covering_allow_drops_it),
		cmocka_unit_test(test_missing_deny_inside_allow_refused),
		cmocka_unit_test(test_missing_deny_carved_when_allowed),
		cmocka_unit_test(test_protect_carved_at_a_writable_root),
		cmocka_unit_test(test_protect_inside_a_writable_tree_not_carved),
	};

	return cmocka_run_group_tests_name("carve", tests, NULL, NULL);
}
