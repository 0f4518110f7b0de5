// SPDX-License-Identifier: GPL-2.0
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>
#include <cmocka.h>

#include "audit/jsonl.h"

static void fill_event(struct wd_event *ev, const char *path)
{
	memset(ev, 0, sizeof(*ev));
	ev->ts_ns = 5000000000ull; /* 5 s after boot */
	ev->sandbox = 42;
	ev->pid = 100;
	ev->tid = 101;
	ev->ppid = 1;
	ev->uid = 0;
	ev->type = WD_EV_FILE;
	ev->op = WD_OP_OPEN;
	ev->verdict = WD_VERDICT_DENY;
	ev->access = WD_ACC_READ | WD_ACC_WRITE;
	ev->rule = WD_RULE_DEFAULT;
	memcpy(ev->comm, "cat", 4);
	strcpy(ev->path, path);
	ev->path_len = (__u32)strlen(path) + 1;
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	assert_non_null(v);
	assert_true(cJSON_IsString(v));
	return v->valuestring;
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	assert_non_null(v);
	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

static void test_deny_record(void **state)
{
	struct wd_audit_ctx ctx = { .sandbox = "sb-0000002a", .seq = 7,
				    .boot_to_real_ns = 1700000000000000000ll };
	struct wd_event ev;
	const cJSON *acc;
	char *line;
	cJSON *o;

	(void)state;
	fill_event(&ev, "/etc/shadow");
	ev.err = 1;
	line = wd_audit_event_line(&ctx, &ev, WD_EVENT_HDR_SIZE + ev.path_len,
				   &(struct wd_audit_extra){ .exe = "/usr/bin/cat" });
	assert_non_null(line);
	assert_null(strchr(line, '\n'));
	o = cJSON_Parse(line);
	assert_non_null(o);
	assert_string_equal(str(o, "schema"), "warden.audit/1");
	assert_string_equal(str(o, "ts"), "2023-11-14T22:13:25.000000000Z");
	assert_int_equal((int)num(o, "seq"), 7);
	assert_int_equal(ctx.seq, 8);
	assert_string_equal(str(o, "sandbox"), "sb-0000002a");
	assert_int_equal((int)num(o, "pid"), 100);
	assert_int_equal((int)num(o, "tid"), 101);
	assert_int_equal((int)num(o, "ppid"), 1);
	assert_int_equal((int)num(o, "uid"), 0);
	assert_string_equal(str(o, "comm"), "cat");
	assert_string_equal(str(o, "exe"), "/usr/bin/cat");
	assert_string_equal(str(o, "type"), "file");
	assert_string_equal(str(o, "op"), "open");
	assert_string_equal(str(o, "target"), "/etc/shadow");
	assert_string_equal(str(o, "verdict"), "deny");
	assert_string_equal(str(o, "rule"), "default");
	acc = cJSON_GetObjectItemCaseSensitive(o, "access");
	assert_int_equal(cJSON_GetArraySize(acc), 2);
	assert_string_equal(cJSON_GetArrayItem(acc, 0)->valuestring, "read");
	assert_string_equal(cJSON_GetArrayItem(acc, 1)->valuestring, "write");
	assert_string_equal(str(o, "errno"), "EPERM");
	assert_string_equal(str(o, "source"), "lsm");
	cJSON_Delete(o);
	free(line);
}

static void test_rule_names_and_exec(void **state)
{
	const char *json = "{\"schema\":\"warden.policy/1\",\"fs\":{\"exec\":[\"/bin\"]}}";
	struct wd_policy p;
	struct wd_policy_error e;
	struct wd_ruleset rs;
	struct wd_audit_ctx ctx = { .sandbox = "sb-1" };
	struct wd_event ev;
	char *line;
	cJSON *o;

	(void)state;
	assert_int_equal(wd_policy_parse(json, strlen(json), &p, &e), 0);
	assert_int_equal(wd_compile(&p, &rs, &e), 0);
	ctx.rules = &rs;
	fill_event(&ev, "/bin/ls");
	ev.type = WD_EV_EXEC;
	ev.op = WD_OP_EXEC;
	ev.verdict = WD_VERDICT_ALLOW;
	ev.access = WD_ACC_EXEC;
	ev.rule = 1;
	line = wd_audit_event_line(&ctx, &ev, WD_EVENT_HDR_SIZE + ev.path_len, NULL);
	o = cJSON_Parse(line);
	assert_string_equal(str(o, "type"), "exec");
	assert_string_equal(str(o, "verdict"), "allow");
	assert_string_equal(str(o, "rule"), "/fs/exec/0");
	assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "exe")));
	cJSON_Delete(o);
	free(line);
	wd_ruleset_free(&rs);
	wd_policy_free(&p);
}

static void test_malformed(void **state)
{
	struct wd_audit_ctx ctx = { 0 };
	struct wd_event ev;

	(void)state;
	fill_event(&ev, "/x");
	/* shorter than the header */
	assert_null(wd_audit_event_line(&ctx, &ev, WD_EVENT_HDR_SIZE - 1, NULL));
	/* path_len past the record */
	assert_null(wd_audit_event_line(&ctx, &ev, WD_EVENT_HDR_SIZE + 1, NULL));
	/* not NUL-terminated */
	ev.path[1] = 'y';
	ev.path_len = 2;
	assert_null(wd_audit_event_line(&ctx, &ev, WD_EVENT_HDR_SIZE + 2, NULL));
	ev.path_len = 0;
	assert_null(wd_audit_event_line(&ctx, &ev, WD_EVENT_HDR_SIZE, NULL));
	/* nothing consumed a sequence number */
	assert_int_equal(ctx.seq, 0);
}

static void test_unresolved_target_is_null(void **state)
{
	struct wd_audit_ctx ctx = { 0 };
	struct wd_event ev;
	char *line;
	cJSON *o;

	(void)state;
	fill_event(&ev, "");
	line = wd_audit_event_line(&ctx, &ev, WD_EVENT_HDR_SIZE + 1, NULL);
	o = cJSON_Parse(line);
	assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "target")));
	cJSON_Delete(o);
	free(line);
}

static void test_syscall_exit_records(void **state)
{
	struct wd_audit_ctx ctx = { 0 };
	struct wd_event ev;
	char *line;
	cJSON *o;

	(void)state;
	/* a syscall refused whole: the target is its name */
	fill_event(&ev, "");
	ev.type = WD_EV_SYSCALL;
	ev.op = WD_OP_SYSCALL;
	ev.source = WD_SRC_SYSCALL_EXIT;
	ev.sysno = 321;
	ev.err = 1;
	ev.access = 0;
	ev.rule = WD_RULE_SELF_PROTECT;
	line = wd_audit_event_line(&ctx, &ev, WD_EVENT_HDR_SIZE + 1, NULL);
	o = cJSON_Parse(line);
	assert_string_equal(str(o, "type"), "syscall");
	assert_string_equal(str(o, "op"), "syscall");
	assert_string_equal(str(o, "target"), "bpf");
	assert_string_equal(str(o, "rule"), "self-protection");
	assert_string_equal(str(o, "source"), "syscall-exit");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "access")), 0);
	cJSON_Delete(o);
	free(line);

	/* a relative path the supervisor made absolute */
	fill_event(&ev, "secret");
	ev.source = WD_SRC_SYSCALL_EXIT;
	ev.err = 13;
	line = wd_audit_event_line(&ctx, &ev, WD_EVENT_HDR_SIZE + ev.path_len,
				   &(struct wd_audit_extra){ .target = "/work/secret" });
	o = cJSON_Parse(line);
	assert_string_equal(str(o, "target"), "/work/secret");
	assert_string_equal(str(o, "errno"), "EACCES");
	cJSON_Delete(o);
	free(line);
	assert_string_equal(wd_audit_syscall_name(257), "openat");
	assert_null(wd_audit_syscall_name(0));
}

static void test_supervisor_records(void **state)
{
	struct wd_audit_ctx ctx = { .sandbox = "sb-9", .backend = "bpf-lsm" };
	char *argv[] = { "cat", "/etc/passwd", NULL };
	char *line;
	cJSON *o;

	(void)state;
	line = wd_audit_start_line(&ctx, 1000000001ull, 55, argv);
	o = cJSON_Parse(line);
	assert_string_equal(str(o, "type"), "start");
	assert_string_equal(str(o, "backend"), "bpf-lsm");
	assert_string_equal(str(o, "ts"), "1970-01-01T00:00:01.000000001Z");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "argv")), 2);
	assert_int_equal((int)num(o, "seq"), 0);
	cJSON_Delete(o);
	free(line);

	line = wd_audit_exit_line(&ctx, 0, 55, "killed", 137, 9);
	o = cJSON_Parse(line);
	assert_string_equal(str(o, "type"), "exit");
	assert_string_equal(str(o, "status"), "killed");
	assert_int_equal((int)num(o, "exit_code"), 137);
	assert_int_equal((int)num(o, "signal"), 9);
	assert_int_equal((int)num(o, "seq"), 1);
	cJSON_Delete(o);
	free(line);

	line = wd_audit_lost_line(&ctx, 0, 12);
	o = cJSON_Parse(line);
	assert_string_equal(str(o, "type"), "lost");
	assert_int_equal((int)num(o, "count"), 12);
	cJSON_Delete(o);
	free(line);
}

/* A file of @text, open for reading and appending as warden adopt opens the audit file. */
static FILE *audit_file(const char *text)
{
	FILE *f = tmpfile();

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	fflush(f);
	return f;
}

/* A successor numbers on from the last whole record of its sandbox, whatever else is there. */
static void test_next_seq(void **state)
{
	FILE *f;

	(void)state;
	f = audit_file("");
	assert_int_equal(wd_audit_next_seq(f, "sb-00000001"), 0);
	fclose(f);

	f = audit_file("{\"seq\":0,\"sandbox\":\"sb-00000001\",\"type\":\"start\"}\n"
		       "{\"seq\":7,\"sandbox\":\"sb-00000002\",\"type\":\"start\"}\n"
		       "{\"seq\":1,\"sandbox\":\"sb-00000001\",\"type\":\"hold\"}\n"
		       "{\"seq\":8,\"sandbox\":\"sb-00000002\",\"type\":\"exit\"}\n");
	assert_int_equal(wd_audit_next_seq(f, "sb-00000001"), 2);
	assert_int_equal(wd_audit_next_seq(f, "sb-00000002"), 9);
	assert_int_equal(wd_audit_next_seq(f, "sb-00000003"), 0);
	/* what is written next goes at the end */
	fputs("{\"seq\":2,\"sandbox\":\"sb-00000001\",\"type\":\"adopt\"}\n", f);
	fflush(f);
	assert_int_equal(wd_audit_next_seq(f, "sb-00000001"), 3);
	fclose(f);

	/* a line the dead supervisor left half written does not count */
	f = audit_file("{\"seq\":4,\"sandbox\":\"sb-00000001\",\"type\":\"hold\"}\n"
		       "{\"seq\":5,\"sandbox\":\"sb-000");
	assert_int_equal(wd_audit_next_seq(f, "sb-00000001"), 5);
	/* and is ended: the next record starts a line of its own */
	fputs("{\"seq\":5,\"sandbox\":\"sb-00000001\",\"type\":\"adopt\"}\n", f);
	fflush(f);
	assert_int_equal(wd_audit_next_seq(f, "sb-00000001"), 6);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deny_record),
		cmocka_unit_test(test_rule_names_and_exec),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_unresolved_target_is_null),
		cmocka_unit_test(test_syscall_exit_records),
		cmocka_unit_test(test_supervisor_records),
		cmocka_unit_test(test_next_seq),
	};

	return cmocka_run_group_tests_name("audit_jsonl", tests, NULL, NULL);
}
