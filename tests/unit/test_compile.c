// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "policy/compile.h"

static void compile(const char *json, struct wd_ruleset *rs)
{
	struct wd_policy p;
	struct wd_policy_error e;

	if (wd_policy_parse(json, strlen(json), &p, &e))
		fail_msg("parse: %s: %s", e.pointer, e.msg);
	if (wd_compile(&p, rs, &e))
		fail_msg("compile: %s: %s", e.pointer, e.msg);
	wd_policy_free(&p);
}

static const struct wd_rule_entry *lookup(const struct wd_ruleset *rs, const char *path)
{
	return wd_ruleset_lookup(rs, path);
}

static __u32 allowed(const struct wd_ruleset *rs, const char *path)
{
	const struct wd_rule_entry *e = lookup(rs, path);

	return e ? e->val.allow : 0;
}

static char *dump(const struct wd_ruleset *rs)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	wd_ruleset_dump(rs, f);
	fclose(f);
	return buf;
}

static void test_prefix_boundaries(void **state)
{
	struct wd_ruleset rs;

	(void)state;
	compile("{\"schema\":\"warden.policy/1\",\"fs\":{\"read\":[\"/etc\"]}}", &rs);
	assert_int_equal(allowed(&rs, "/etc/passwd"), WD_ACC_READ);
	assert_int_equal(allowed(&rs, "/etc"), WD_ACC_READ);
	assert_int_equal(allowed(&rs, "/etc/"), WD_ACC_READ);
	assert_int_equal(allowed(&rs, "/etcfoo"), 0);
	assert_int_equal(allowed(&rs, "/etcfoo/passwd"), 0);
	assert_int_equal(allowed(&rs, "/et"), 0);
	assert_int_equal(allowed(&rs, "/"), 0);
	wd_ruleset_free(&rs);
}

static void test_inheritance_and_rule_names(void **state)
{
	struct wd_ruleset rs;
	const struct wd_rule_entry *e;

	(void)state;
	compile("{\"schema\":\"warden.policy/1\",\"fs\":{\"read\":[\"/usr\",\"/usr/share\"],"
		"\"write\":[\"/tmp\"],\"exec\":[\"/usr/bin\"]}}",
		&rs);
	/* /usr/bin/ls: read from /usr, exec from /usr/bin, in one longest-prefix entry */
	e = lookup(&rs, "/usr/bin/ls");
	assert_non_null(e);
	assert_int_equal(e->val.allow, WD_ACC_READ | WD_ACC_EXEC);
	assert_string_equal(wd_ruleset_rule_name(&rs, e->val.rule[WD_ACC_IDX_READ]), "/fs/read/0");
	assert_string_equal(wd_ruleset_rule_name(&rs, e->val.rule[WD_ACC_IDX_EXEC]), "/fs/exec/0");
	/* the more specific read rule names the grant under it */
	e = lookup(&rs, "/usr/share/doc");
	assert_string_equal(wd_ruleset_rule_name(&rs, e->val.rule[WD_ACC_IDX_READ]), "/fs/read/1");
	/* write implies read */
	assert_int_equal(allowed(&rs, "/tmp/x"), WD_ACC_READ | WD_ACC_WRITE);
	e = lookup(&rs, "/tmp/x");
	assert_string_equal(wd_ruleset_rule_name(&rs, e->val.rule[WD_ACC_IDX_WRITE]), "/fs/write/0");
	assert_int_equal(allowed(&rs, "/var/log"), 0);
	assert_string_equal(wd_ruleset_rule_name(&rs, WD_RULE_DEFAULT), "default");
	assert_string_equal(wd_ruleset_rule_name(&rs, 999), "default");
	wd_ruleset_free(&rs);
}

static void test_root_rule(void **state)
{
	struct wd_ruleset rs;

	(void)state;
	compile("{\"schema\":\"warden.policy/1\",\"fs\":{\"read\":[\"/\"],\"exec\":[\"/bin\"]}}",
		&rs);
	assert_int_equal(allowed(&rs, "/"), WD_ACC_READ);
	assert_int_equal(allowed(&rs, "/anything/at/all"), WD_ACC_READ);
	assert_int_equal(allowed(&rs, "/bin/sh"), WD_ACC_READ | WD_ACC_EXEC);
	assert_int_equal(allowed(&rs, "/binx"), WD_ACC_READ);
	wd_ruleset_free(&rs);
}

static void test_long_looked_up_path(void **state)
{
	struct wd_ruleset rs;
	char path[600];

	(void)state;
	compile("{\"schema\":\"warden.policy/1\",\"fs\":{\"read\":[\"/data\"]}}", &rs);
	memset(path, 'x', sizeof(path));
	memcpy(path, "/data/", 6);
	path[sizeof(path) - 1] = 0;
	/* longer than the key: matched on its first bytes, which lie under /data */
	assert_int_equal(allowed(&rs, path), WD_ACC_READ);
	memcpy(path, "/datax", 6);
	assert_int_equal(allowed(&rs, path), 0);
	wd_ruleset_free(&rs);
}

static void test_dump_is_stable(void **state)
{
	const char *json = "{\"schema\":\"warden.policy/1\",\"mode\":\"audit\",\"fs\":{"
			   "\"exec\":[\"/usr/bin\"],\"read\":[\"/usr\",\"/etc/ld.so.cache\"],"
			   "\"write\":[\"/tmp\",\"/tmp\"]}}";
	struct wd_ruleset a, b;
	char *da, *db;

	(void)state;
	compile(json, &a);
	compile(json, &b);
	da = dump(&a);
	db = dump(&b);
	assert_string_equal(da, db);
	assert_string_equal(da, "flags audit\n"
				"/etc/ld.so.cache$ r-- read=/fs/read/1\n"
				"/etc/ld.so.cache/ r-- read=/fs/read/1\n"
				"/tmp$ rw- read=/fs/write/0 write=/fs/write/0\n"
				"/tmp/ rw- read=/fs/write/0 write=/fs/write/0\n"
				"/usr$ r-- read=/fs/read/0\n"
				"/usr/ r-- read=/fs/read/0\n"
				"/usr/bin$ r-x read=/fs/read/0 exec=/fs/exec/0\n"
				"/usr/bin/ r-x read=/fs/read/0 exec=/fs/exec/0\n");
	assert_int_equal(a.sandbox_flags, WD_SB_AUDIT_MODE);
	free(da);
	free(db);
	wd_ruleset_free(&a);
	wd_ruleset_free(&b);
}

static void test_key(void **state)
{
	struct wd_ruleset rs;
	struct wd_path_key key;

	(void)state;
	compile("{\"schema\":\"warden.policy/1\",\"fs\":{\"read\":[\"/usr\"]}}", &rs);
	assert_int_equal(rs.n_entries, 2);
	wd_rule_entry_key(&rs.entries[0], 0x1122334455667788ull, &key);
	assert_int_equal(key.prefixlen, 64 + 8 * 5); /* "/usr\0" */
	assert_int_equal(key.sandbox[0], 0x55667788u);
	assert_int_equal(key.sandbox[1], 0x11223344u);
	assert_memory_equal(key.path, "/usr\0", 5);
	assert_int_equal(key.path[5], 0);
	wd_ruleset_free(&rs);
}

static void test_empty_policy_denies_everything(void **state)
{
	struct wd_ruleset rs;

	(void)state;
	compile("{\"schema\":\"warden.policy/1\"}", &rs);
	assert_int_equal(rs.n_entries, 0);
	assert_int_equal(allowed(&rs, "/etc/passwd"), 0);
	assert_int_equal(rs.sandbox_flags, 0);
	wd_ruleset_free(&rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefix_boundaries),
		cmocka_unit_test(test_inheritance_and_rule_names),
		cmocka_unit_test(test_root_rule),
		cmocka_unit_test(test_long_looked_up_path),
		cmocka_unit_test(test_dump_is_stable),
		cmocka_unit_test(test_key),
		cmocka_unit_test(test_empty_policy_denies_everything),
	};

	return cmocka_run_group_tests_name("compile", tests, NULL, NULL);
}
