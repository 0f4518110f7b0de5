// SPDX-License-Identifier: GPL-2.0
/*
 * The run report (supervisor/run/report.c) against docs/report.schema.json: each status, with
 * and without the figures a host may lack, and what the schema must refuse.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cJSON.h>

#include "policy/policy.h"
#include "supervisor/run/report.h"

#define SCHEMA WD_SRCDIR "/docs/report.schema.json"

static cJSON *schema;
static char why[1024];

#include "tests/schema_check.h"

static int setup(void **state)
{
	char *text = NULL;
	size_t len = 0;

	(void)state;
	if (wd_policy_read_file(SCHEMA, &text, &len))
		fail_msg("cannot read %s", SCHEMA);
	schema = cJSON_ParseWithLength(text, len);
	free(text);
	return schema ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	cJSON_Delete(schema);
	return 0;
}

static char *const argv[] = { "wd-hog", "alloc", NULL };

/* @r serialised and checked: valid or not as @want says. */
static void check(const struct wd_report *r, bool want)
{
	char *s = wd_report_json(r);
	cJSON *doc;

	assert_non_null(s);
	doc = cJSON_Parse(s);
	assert_non_null(doc);
	why[0] = 0;
	if (valid(doc, schema, "") != want)
		fail_msg("%s the schema%s%s:\n%s", want ? "fails" : "passes", why[0] ? ": " : "",
			 why, s);
	cJSON_Delete(doc);
	free(s);
}

static void test_every_status_validates(void **state)
{
	static const char *const statuses[] = { "completed", "killed", "timeout", "oom",
						"signal", "failed_to_start", "denied_to_start",
						"idle", "destroyed" };
	struct wd_report r = { .backend = "landlock", .sandbox = "sb-0123abcd", .argv = argv };

	(void)state;
	for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++) {
		r.status = statuses[i];
		r.exit_code = i ? 137 : 0;
		r.signal = i ? 9 : 0;
		r.error = i >= 5 ? "Permission denied" : NULL;
		check(&r, true);
	}
}

static void test_figures_and_limits_validate(void **state)
{
	struct wd_report r = {
		.backend = "bpf-lsm", .sandbox = "sb-0123abcd", .status = "oom", .exit_code = 137,
		.signal = 9, .wall_time_s = 0.5, .have_cpu = true, .cpu_time_s = 0.25,
		.user_time_s = 0.2, .system_time_s = 0.05, .have_mem = true,
		.peak_memory = 32 << 20, .have_pids = true, .max_pids = 3, .oom_kills = 1,
		.argv = argv,
	};

	(void)state;
	r.limits[r.n_limits++] = (struct wd_report_limit){
		.name = "memory", .value = 32 << 20, .unit = "bytes",
		.mechanism = "cgroup v2 memory.max", .hit = true, .have_figure = true,
		.figure = 1, .figure_unit = "oom_kills" };
	r.limits[r.n_limits++] = (struct wd_report_limit){
		.name = "wall_time", .value = 2000, .unit = "ms", .mechanism = "timerfd" };
	r.limits[r.n_limits++] = (struct wd_report_limit){
		.name = "cpu", .value = 500, .unit = "millicpus", .mechanism = "cgroup v2 cpu.max" };
	check(&r, true);
	/* a host without the figures: null, still valid */
	r.have_cpu = r.have_mem = r.have_pids = false;
	check(&r, true);
	/* limits.output cut, and net.egress_rate's figures */
	r.limits[r.n_limits++] = (struct wd_report_limit){
		.name = "output", .value = 1000, .unit = "bytes", .mechanism = "pipes",
		.hit = true, .have_figure = true, .figure = 5000, .figure_unit = "dropped_bytes" };
	r.has_output = true;
	r.output = (struct wd_audit_output){ .limit = 1000, .passed = 1000, .dropped = 5000,
					     .cut = true };
	r.has_egress = true;
	r.egress = (struct wd_audit_egress){ .rate = 1 << 20, .bytes = 4096 };
	check(&r, true);
}

static void test_schema_refuses(void **state)
{
	struct wd_report r = { .backend = "landlock", .sandbox = "sb-0123abcd",
			       .status = "completed", .argv = argv };

	(void)state;
	r.status = "finished";
	check(&r, false);
	r.status = "completed";
	r.limits[r.n_limits++] = (struct wd_report_limit){
		.name = "fork_rate", .value = 1, .unit = "forks", .mechanism = "x" };
	check(&r, false);
	r.limits[0] = (struct wd_report_limit){ .name = "pids", .value = 4, .unit = "tasks",
						.mechanism = "" };
	check(&r, false);
}

/*
 * The report of a run its warden did not see to its end, as the keeper writes it: from the
 * state warden gave the keeper (run.c tell_keeper()), with what it cannot know named.
 */
static void test_kept_report_validates(void **state)
{
	static const char kept[] =
		"{\"schema\":\"warden.keep/1\",\"sandbox\":\"sb-0123abcd\","
		"\"backend\":\"landlock\",\"pid\":42,\"started_ns\":1,"
		"\"argv\":[\"sh\",\"-c\",\"x\"],"
		"\"limits\":[{\"name\":\"memory\",\"value\":1048576,\"unit\":\"bytes\","
		"\"mechanism\":\"cgroup v2 memory.max\"},{\"name\":\"pids\",\"value\":8,"
		"\"unit\":\"tasks\",\"mechanism\":\"\"}],"
		"\"report\":{\"name\":\"r.json\",\"tmp\":\"\",\"path\":\"/tmp/r.json\"}}";
	struct wd_report r = { .writer = "keeper", .reason = "not adopted within 1 s",
			       .status = "killed", .exit_code = 137, .signal = 9 };
	struct wd_out_file f;
	cJSON *st = cJSON_Parse(kept), *bad;
	char **av = NULL;

	(void)state;
	assert_non_null(st);
	assert_int_equal(wd_report_from_kept(&r, st, &av), 0);
	assert_string_equal(r.sandbox, "sb-0123abcd");
	assert_string_equal(r.argv[2], "x");
	assert_null(r.argv[3]);
	assert_int_equal(r.n_limits, 2);
	assert_string_equal(r.limits[1].mechanism, "unknown");
	assert_true(r.wall_time_s > 0);
	assert_int_equal(r.n_unknown, 1);
	assert_string_equal(r.unknown[0], "limits.hit");
	wd_report_unknown(&r, "holds");
	wd_report_unknown(&r, "holds");
	assert_int_equal(r.n_unknown, 2);
	check(&r, true);
	/* a name the schema does not know among the unknown: refused */
	r.unknown[r.n_unknown++] = "usage";
	check(&r, false);
	r.n_unknown--;
	/* no such writer */
	r.writer = "wardend";
	check(&r, false);
	free(av);
	/* no fd: no report; a name with a slash in the state: refused, never looked up */
	assert_int_equal(wd_report_kept_file(&f, st, -1, -1), -ENOENT);
	bad = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(st, "report"),
					      "name");
	cJSON_SetValuestring(bad, "../x");
	assert_int_equal(wd_report_kept_file(&f, st, 0, 0), -EINVAL);
	cJSON_Delete(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_status_validates),
		cmocka_unit_test(test_figures_and_limits_validate),
		cmocka_unit_test(test_schema_refuses),
		cmocka_unit_test(test_kept_report_validates),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
