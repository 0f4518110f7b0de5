// SPDX-License-Identifier: GPL-2.0
/*
 * The audit formatter (audit/jsonl.c) and the record checks before it (audit/record.c): kernel
 * records of each type to schema warden.audit/1 lines, malformed ones refused, the supervisor's
 * own records, UTF-8 and base64 of bytes from outside.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>
#include <cmocka.h>

#include "audit/jsonl.h"
#include "supervisor/hold/engine.h"

/*
 * A kernel record as the tests write it: every field any record type has, and the variable part
 * (path, syscall name or socket address) in path. event_line() sends it as the kernel would, in
 * the struct of its type (bpf/wd_abi.h); @size counts TEST_HDR fixed bytes, then the path's.
 */
struct test_event {
	__u64 ts_ns;
	__u64 sandbox;
	__u32 pid, tid, ppid, uid;
	__u16 type, op;
	__u8 verdict, source, flags;
	__u32 access, rule, path_len, sysno;
	__s32 err, dirfd;
	char comm[WD_COMM_LEN];
	__u64 arg;
	char path[WD_PATH_MAX];
};

#define TEST_HDR WD_REC_FILE_SIZE

/* The fields every record type of @ev carries, into @r. */
#define TEST_VERDICT(r, ev)                                                                      \
	((r).op = (ev)->op, (r).verdict = (ev)->verdict, (r).source = (ev)->source,              \
	 (r).rule = (ev)->rule, (r).err = (ev)->err)

static char *event_line(struct wd_audit_ctx *ctx, const struct test_event *ev, size_t size,
			const struct wd_audit_extra *extra)
{
	static union {
		struct wd_rec_hdr h;
		struct wd_rec_file f;
		struct wd_rec_syscall s;
		struct wd_rec_sock k;
		char raw[WD_REC_FILE_SIZE + WD_PATH_MAX];
	} u;
	size_t fixed = ev->type == WD_EV_SYSCALL ? WD_REC_SYSCALL_SIZE :
		       ev->type == WD_EV_NET	 ? WD_REC_SOCK_SIZE :
						   WD_REC_FILE_SIZE;
	size_t var = size > TEST_HDR ? size - TEST_HDR : 0;
	size_t total = size >= TEST_HDR ? fixed + var : size + fixed - TEST_HDR;

	memset(&u, 0, sizeof(u));
	u.h.type = ev->type;
	u.h.pid = ev->pid;
	u.h.tid = ev->tid;
	u.h.ppid = ev->ppid;
	u.h.uid = ev->uid;
	u.h.ts_ns = ev->ts_ns;
	u.h.sandbox = ev->sandbox;
	memcpy(u.h.comm, ev->comm, WD_COMM_LEN);
	if (ev->type == WD_EV_SYSCALL) {
		TEST_VERDICT(u.s, ev);
		u.s.name_len = (__u16)ev->path_len;
		u.s.sysno = ev->sysno;
		memcpy(u.s.name, ev->path, var);
	} else if (ev->type == WD_EV_NET) {
		TEST_VERDICT(u.k, ev);
		u.k.flags = ev->flags;
		u.k.addr_len = ev->path_len ? (__u16)(ev->path_len - 1) : 0;
		u.k.sysno = ev->sysno;
		u.k.fd = ev->dirfd;
		memcpy(u.k.addr, ev->path, var ? var - 1 : 0);
		total = var ? total - 1 : total; /* the address has no NUL of its own */
	} else {
		TEST_VERDICT(u.f, ev);
		u.f.flags = ev->flags;
		u.f.path_len = (__u16)ev->path_len;
		u.f.access = ev->access;
		u.f.dirfd = ev->dirfd;
		u.f.arg = ev->arg;
		memcpy(u.f.path, ev->path, var);
	}
	u.h.size = (__u16)total;
	return wd_audit_event_line(ctx, &u, total, extra);
}

static void fill_event(struct test_event *ev, const char *path)
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
	struct test_event ev;
	const cJSON *acc;
	char *line;
	cJSON *o;

	(void)state;
	fill_event(&ev, "/etc/shadow");
	ev.err = 1;
	line = event_line(&ctx, &ev, TEST_HDR + ev.path_len,
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
	struct test_event ev;
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
	line = event_line(&ctx, &ev, TEST_HDR + ev.path_len, NULL);
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
	struct test_event ev;

	(void)state;
	fill_event(&ev, "/x");
	/* shorter than the header */
	assert_null(event_line(&ctx, &ev, TEST_HDR - 1, NULL));
	/* path_len past the record */
	assert_null(event_line(&ctx, &ev, TEST_HDR + 1, NULL));
	/* not NUL-terminated */
	ev.path[1] = 'y';
	ev.path_len = 2;
	assert_null(event_line(&ctx, &ev, TEST_HDR + 2, NULL));
	ev.path_len = 0;
	assert_null(event_line(&ctx, &ev, TEST_HDR, NULL));
	/* nothing consumed a sequence number */
	assert_int_equal(ctx.seq, 0);
}

/* The record's own size field and its type's fixed part are checked before anything is read. */
static void test_malformed_header(void **state)
{
	static union {
		struct wd_rec_hdr h;
		struct wd_rec_file f;
		struct wd_rec_syscall s;
		struct wd_rec_sock k;
		char raw[256];
	} u;
	struct wd_audit_ctx ctx = { 0 };
	char *line;

	(void)state;
	memset(&u, 0, sizeof(u));
	u.h.type = WD_EV_SYSCALL;
	u.s.op = WD_OP_SYSCALL;
	u.s.name_len = 4;
	memcpy(u.s.name, "bpf", 4);
	u.h.size = WD_REC_SYSCALL_SIZE + 4;
	line = wd_audit_event_line(&ctx, &u, WD_REC_SYSCALL_SIZE + 4, NULL);
	assert_non_null(line);
	free(line);
	/* the size field disagrees with what arrived, either way */
	assert_null(wd_audit_event_line(&ctx, &u, WD_REC_SYSCALL_SIZE + 8, NULL));
	u.h.size = WD_REC_SYSCALL_SIZE + 8;
	assert_null(wd_audit_event_line(&ctx, &u, WD_REC_SYSCALL_SIZE + 4, NULL));
	/* the name runs past the record */
	u.h.size = WD_REC_SYSCALL_SIZE + 2;
	assert_null(wd_audit_event_line(&ctx, &u, WD_REC_SYSCALL_SIZE + 2, NULL));
	/* a header, but shorter than its type's fixed part */
	u.h.size = WD_REC_HDR_SIZE;
	assert_null(wd_audit_event_line(&ctx, &u, WD_REC_HDR_SIZE, NULL));
	/* a socket address longer than any */
	u.h.type = WD_EV_NET;
	u.k.addr_len = WD_SOCKADDR_MAX + 1;
	u.h.size = WD_REC_SOCK_SIZE + WD_SOCKADDR_MAX + 1;
	assert_null(wd_audit_event_line(&ctx, &u, WD_REC_SOCK_SIZE + WD_SOCKADDR_MAX + 1, NULL));
	/* a type the kernel does not send */
	u.h.type = WD_EV_HOLD;
	u.h.size = WD_REC_FILE_SIZE + 1;
	assert_null(wd_audit_event_line(&ctx, &u, WD_REC_FILE_SIZE + 1, NULL));
	assert_int_equal(ctx.seq, 1);
}

static void test_unresolved_target_is_null(void **state)
{
	struct wd_audit_ctx ctx = { 0 };
	struct test_event ev;
	char *line;
	cJSON *o;

	(void)state;
	fill_event(&ev, "");
	line = event_line(&ctx, &ev, TEST_HDR + 1, NULL);
	o = cJSON_Parse(line);
	assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "target")));
	cJSON_Delete(o);
	free(line);
}

static void test_syscall_exit_records(void **state)
{
	struct wd_audit_ctx ctx = { 0 };
	struct test_event ev;
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
	line = event_line(&ctx, &ev, TEST_HDR + 1, NULL);
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
	line = event_line(&ctx, &ev, TEST_HDR + ev.path_len,
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

	line = wd_audit_egress_limit_line(&ctx, 0,
					  &(struct wd_audit_egress){ .rate = 2097152,
								     .bytes = 10485760,
								     .dropped_bytes = 4096,
								     .dropped_packets = 3 });
	o = cJSON_Parse(line);
	assert_string_equal(str(o, "type"), "limit");
	assert_string_equal(str(o, "op"), "egress_rate");
	assert_string_equal(str(o, "verdict"), "deny");
	assert_string_equal(str(o, "rule"), "/net/egress_rate");
	assert_int_equal((int)num(o, "rate"), 2097152);
	assert_int_equal((int)num(o, "egress_bytes"), 10485760);
	assert_int_equal((int)num(o, "dropped_bytes"), 4096);
	assert_int_equal((int)num(o, "dropped_packets"), 3);
	cJSON_Delete(o);
	free(line);

	line = wd_audit_output_limit_line(&ctx, 0,
					  &(struct wd_audit_output){ .limit = 1000, .passed = 1000,
								     .dropped = 5000, .cut = true });
	o = cJSON_Parse(line);
	assert_string_equal(str(o, "type"), "limit");
	assert_string_equal(str(o, "op"), "output");
	assert_string_equal(str(o, "rule"), "/limits/output");
	assert_int_equal((int)num(o, "limit_bytes"), 1000);
	assert_int_equal((int)num(o, "passed_bytes"), 1000);
	assert_int_equal((int)num(o, "dropped_bytes"), 5000);
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

/* A line a strict parser takes: well-formed UTF-8, and JSON. */
static cJSON *parse_strict(const char *line)
{
	cJSON *o;

	assert_non_null(line);
	assert_true(wd_audit_utf8_valid(line, strlen(line)));
	o = cJSON_Parse(line);
	assert_non_null(o);
	return o;
}

/* Decodes base64 (wd_audit_unbase64, itself tested on RFC 4648's vectors), NUL-terminated. */
static size_t unbase64(const char *in, char *out)
{
	long n = wd_audit_unbase64(in, (unsigned char *)out);

	assert_true(n >= 0);
	out[n] = 0;
	return (size_t)n;
}

/* RFC 4648 section 10's vectors both ways, and what is no base64 refused. */
static void test_base64_rfc4648_vectors(void **state)
{
	static const char *const plain[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
	static const char *const coded[] = { "", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=",
					     "Zm9vYmFy" };
	unsigned char out[16];

	(void)state;
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		char *b = wd_audit_base64(plain[i], strlen(plain[i]));

		assert_string_equal(b, coded[i]);
		free(b);
		assert_int_equal(wd_audit_unbase64(coded[i], out), (long)strlen(plain[i]));
		assert_memory_equal(out, plain[i], strlen(plain[i]));
	}
	assert_int_equal(wd_audit_unbase64("Zm9v!", out), -1);
	assert_int_equal(wd_audit_unbase64("Zg==Zg", out), -1);
	assert_int_equal(wd_audit_unbase64("Zm 9v", out), -1);
}

static void test_utf8_validator(void **state)
{
	static const struct {
		const char *s;
		bool ok;
	} cases[] = {
		{ "plain", true },
		{ "caf\xc3\xa9", true }, /* U+00E9 */
		{ "\xe2\x82\xac", true }, /* U+20AC */
		{ "\xf0\x9f\x98\x80", true }, /* U+1F600, four bytes */
		{ "\xf4\x8f\xbf\xbf", true }, /* U+10FFFF, the last */
		{ "\xef\xbf\xbd", true }, /* U+FFFD itself */
		{ "\xed\x9f\xbf", true }, /* U+D7FF, just below the surrogates */
		{ "\xff", false },
		{ "\xfe", false },
		{ "\x80", false }, /* a lone continuation */
		{ "\xc0\xaf", false }, /* overlong "/" */
		{ "\xc1\xbf", false }, /* overlong */
		{ "\xe0\x80\xaf", false }, /* overlong "/" in three */
		{ "\xe0\x9f\xbf", false }, /* overlong */
		{ "\xf0\x80\x80\xaf", false }, /* overlong "/" in four */
		{ "\xf0\x8f\xbf\xbf", false }, /* overlong */
		{ "\xed\xa0\x80", false }, /* U+D800, a high surrogate */
		{ "\xed\xbf\xbf", false }, /* U+DFFF, a low surrogate */
		{ "\xed\xa0\xbd\xed\xb8\x80", false }, /* a surrogate pair (CESU-8) */
		{ "\xf4\x90\x80\x80", false }, /* U+110000 */
		{ "\xf5\x80\x80\x80", false },
		{ "abc\xe2\x82", false }, /* cut short at the end */
		{ "abc\xf0\x9f\x98", false },
		{ "abc\xc3", false },
		{ "\xe2\x28\xa1", false }, /* bad continuation */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (wd_audit_utf8_valid(cases[i].s, strlen(cases[i].s)) != cases[i].ok)
			fail_msg("case %zu: want %s", i, cases[i].ok ? "valid" : "invalid");
	}
}

/*
 * A path with bytes that are no UTF-8: the line is still valid UTF-8 JSON, the target readable
 * with U+FFFD for each bad byte, and target_b64 gives back the exact bytes.
 */
static void test_invalid_bytes_escaped(void **state)
{
	static const char *const paths[] = {
		"/tmp/a\xff" "b", "/tmp/\xc0\xaf" "etc", "/tmp/\xed\xa0\x80x",
		"/tmp/cut\xf0\x9f\x98", "/tmp/\x80\x80\x80\x80", "/tmp/\xfe\xff",
	};
	static const char *const readable[] = {
		"/tmp/a\xef\xbf\xbd" "b", "/tmp/\xef\xbf\xbd\xef\xbf\xbd" "etc",
		"/tmp/\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdx",
		"/tmp/cut\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
		"/tmp/\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
		"/tmp/\xef\xbf\xbd\xef\xbf\xbd",
	};
	struct wd_audit_ctx ctx = { .sandbox = "sb-1" };
	struct test_event ev;
	char back[WD_PATH_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		char *line;
		cJSON *o;

		fill_event(&ev, paths[i]);
		memcpy(ev.comm, "c\xff\x01", 4);
		line = event_line(&ctx, &ev, TEST_HDR + ev.path_len, NULL);
		o = parse_strict(line);
		assert_string_equal(str(o, "target"), readable[i]);
		assert_int_equal(unbase64(str(o, "target_b64"), back), strlen(paths[i]));
		assert_string_equal(back, paths[i]);
		/* the command name is the task's to set, and gets the same */
		assert_string_equal(str(o, "comm"), "c\xef\xbf\xbd\x01");
		unbase64(str(o, "comm_b64"), back);
		assert_string_equal(back, "c\xff\x01");
		/* control characters are escaped, never raw */
		assert_null(strchr(line, '\x01'));
		assert_non_null(strstr(line, "\\u0001"));
		cJSON_Delete(o);
		free(line);
	}
}

/* Valid UTF-8 (four-byte characters, U+FFFD itself) goes through as it is, with no _b64. */
static void test_valid_utf8_unchanged(void **state)
{
	struct wd_audit_ctx ctx = { .sandbox = "sb-1" };
	struct test_event ev;
	char *line;
	cJSON *o;

	(void)state;
	fill_event(&ev, "/tmp/\xf0\x9f\x98\x80/caf\xc3\xa9/\xef\xbf\xbd\n\t");
	line = event_line(&ctx, &ev, TEST_HDR + ev.path_len, NULL);
	o = parse_strict(line);
	assert_string_equal(str(o, "target"), "/tmp/\xf0\x9f\x98\x80/caf\xc3\xa9/\xef\xbf\xbd\n\t");
	assert_null(cJSON_GetObjectItemCaseSensitive(o, "target_b64"));
	assert_null(cJSON_GetObjectItemCaseSensitive(o, "comm_b64"));
	assert_null(strchr(line, '\n'));
	cJSON_Delete(o);
	free(line);
}

/* A path the kernel cut at WD_PATH_MAX inside a character still gives a valid line. */
static void test_cut_at_path_max(void **state)
{
	struct wd_audit_ctx ctx = { .sandbox = "sb-1" };
	static struct test_event ev;
	char back[WD_PATH_MAX];
	char *line;
	cJSON *o;

	(void)state;
	fill_event(&ev, "/");
	memset(ev.path + 1, 'a', WD_PATH_MAX - 4);
	memcpy(ev.path + WD_PATH_MAX - 3, "\xe2\x82", 2); /* a euro sign cut after two bytes */
	ev.path[WD_PATH_MAX - 1] = 0;
	ev.path_len = WD_PATH_MAX;
	line = event_line(&ctx, &ev, sizeof(ev), NULL);
	o = parse_strict(line);
	assert_int_equal(unbase64(str(o, "target_b64"), back), WD_PATH_MAX - 1);
	assert_memory_equal(back, ev.path, WD_PATH_MAX);
	cJSON_Delete(o);
	free(line);
}

/* argv words and the fields of a hold: each word on its own, argv_b64 null where it was UTF-8. */
static void test_argv_and_hold_escaped(void **state)
{
	char *argv[] = { "rm", "/tmp/x\xff", "\xe2\x82\xac", NULL };
	struct wd_audit_ctx ctx = { .sandbox = "sb-\xc3" };
	struct wd_hold_view v = { .id = 1, .pid = 5, .comm = "rm", .op = "delete",
				  .target = "/w/\xed\xb0\x80", .target2 = "/w/ok",
				  .exec_argv = "a\xc0", .cmdline = "rm /w/\xed\xb0\x80",
				  .rule = "/fs/protect/0", .token = "t" };
	const cJSON *a, *b;
	char back[64];
	char *line;
	cJSON *o;

	(void)state;
	line = wd_audit_start_line(&ctx, 0, 1, argv);
	o = parse_strict(line);
	assert_string_equal(str(o, "sandbox"), "sb-\xef\xbf\xbd");
	a = cJSON_GetObjectItemCaseSensitive(o, "argv");
	b = cJSON_GetObjectItemCaseSensitive(o, "argv_b64");
	assert_int_equal(cJSON_GetArraySize(a), 3);
	assert_int_equal(cJSON_GetArraySize(b), 3);
	assert_string_equal(cJSON_GetArrayItem(a, 1)->valuestring, "/tmp/x\xef\xbf\xbd");
	assert_true(cJSON_IsNull(cJSON_GetArrayItem(b, 0)));
	unbase64(cJSON_GetArrayItem(b, 1)->valuestring, back);
	assert_string_equal(back, "/tmp/x\xff");
	assert_true(cJSON_IsNull(cJSON_GetArrayItem(b, 2)));
	assert_string_equal(cJSON_GetArrayItem(a, 2)->valuestring, "\xe2\x82\xac");
	cJSON_Delete(o);
	free(line);

	line = wd_audit_hold_line(&ctx, 0, &v);
	o = parse_strict(line);
	unbase64(str(o, "target_b64"), back);
	assert_string_equal(back, "/w/\xed\xb0\x80");
	unbase64(str(o, "cmdline_b64"), back);
	assert_string_equal(back, "rm /w/\xed\xb0\x80");
	unbase64(str(o, "exec_argv_b64"), back);
	assert_string_equal(back, "a\xc0");
	assert_string_equal(str(o, "target2"), "/w/ok");
	assert_null(cJSON_GetObjectItemCaseSensitive(o, "target2_b64"));
	cJSON_Delete(o);
	free(line);

	/* a hold refused before it had a target: left out, as before */
	v.target = NULL;
	v.rule = NULL;
	line = wd_audit_decision_line(&ctx, 0, &v, false, "rule", -1);
	o = parse_strict(line);
	assert_null(cJSON_GetObjectItemCaseSensitive(o, "target"));
	cJSON_Delete(o);
	free(line);
}

/* Socket addresses the recorder passes raw: decoded, abstract names with their NULs kept exact. */
static void test_sockaddr_records(void **state)
{
	struct wd_audit_ctx ctx = { .sandbox = "sb-1" };
	static const char abstract[] = "\x01\x00" "\0wd\0x"; /* AF_UNIX, "@wd@x" */
	static const char inet[] = "\x02\x00\x00\x50\x7f\x00\x00\x01" "\0\0\0\0\0\0\0\0";
	struct test_event ev;
	char back[64];
	char *line;
	cJSON *o;

	(void)state;
	fill_event(&ev, "");
	ev.source = WD_SRC_SYSCALL_EXIT;
	ev.type = WD_EV_NET;
	ev.op = WD_OP_CONNECT;
	ev.flags = WD_EVF_SOCKADDR;
	memcpy(ev.path, abstract, sizeof(abstract) - 1);
	ev.path[sizeof(abstract) - 1] = 0;
	ev.path_len = sizeof(abstract);
	line = event_line(&ctx, &ev, TEST_HDR + ev.path_len, NULL);
	o = parse_strict(line);
	assert_string_equal(str(o, "type"), "net");
	assert_string_equal(str(o, "op"), "connect");
	assert_string_equal(str(o, "family"), "unix");
	assert_string_equal(str(o, "target"), "@wd@x");
	assert_int_equal(unbase64(str(o, "target_b64"), back), 5);
	assert_memory_equal(back, "\0wd\0x", 5);
	cJSON_Delete(o);
	free(line);

	memcpy(ev.path, inet, sizeof(inet) - 1);
	ev.path[sizeof(inet) - 1] = 0;
	ev.path_len = sizeof(inet);
	ev.op = WD_OP_BIND;
	line = event_line(&ctx, &ev, TEST_HDR + ev.path_len, NULL);
	o = parse_strict(line);
	assert_string_equal(str(o, "target"), "127.0.0.1:80");
	assert_string_equal(str(o, "op"), "bind");
	cJSON_Delete(o);
	free(line);

	/* a device ioctl: the request, as the kernel gave it */
	fill_event(&ev, "/dev/null");
	ev.source = WD_SRC_SYSCALL_EXIT;
	ev.op = WD_OP_IOCTL;
	ev.arg = 0x5401;
	ev.dirfd = 3;
	line = event_line(&ctx, &ev, TEST_HDR + ev.path_len, NULL);
	o = parse_strict(line);
	assert_string_equal(str(o, "op"), "ioctl");
	assert_string_equal(str(o, "request"), "0x5401");
	assert_string_equal(str(o, "target"), "/dev/null");
	cJSON_Delete(o);
	free(line);
}

/* A relative name whose base moved during the call: no target, the name and why. */
static void test_base_changed_record(void **state)
{
	struct wd_audit_ctx ctx = { .sandbox = "sb-1" };
	struct test_event ev;
	char *line;
	cJSON *o;

	(void)state;
	fill_event(&ev, "secret");
	ev.source = WD_SRC_SYSCALL_EXIT;
	ev.flags = WD_EVF_BASE_CHANGED;
	ev.dirfd = -100;
	line = event_line(&ctx, &ev, TEST_HDR + ev.path_len, NULL);
	o = parse_strict(line);
	assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "target")));
	assert_string_equal(str(o, "name"), "secret");
	assert_string_equal(str(o, "base"), "cwd changed during the call");
	cJSON_Delete(o);
	free(line);
}

/* The writer escapes each byte as cJSON's printer does: one line reads the same from either. */
static void test_writer_escapes_as_cjson(void **state)
{
	char s[2], *want;
	struct wd_jbuf b;
	cJSON *item;

	(void)state;
	for (int c = 1; c < 256; c++) {
		s[0] = (char)c;
		s[1] = 0;
		item = cJSON_CreateString(s);
		want = cJSON_PrintUnformatted(item);
		wd_jb_init_heap(&b);
		wd_jb_str(&b, s, 1);
		wd_jb_raw(&b, "", 1);
		if (strcmp(b.p, want))
			fail_msg("byte 0x%02x: writer %s, cJSON %s", c, b.p, want);
		wd_jb_free(&b);
		free(want);
		cJSON_Delete(item);
	}
}

/* Quotes, backslashes and every control character a task can put in its names come back exact. */
static void test_hostile_names_round_trip(void **state)
{
	static const char comm[WD_COMM_LEN] = { '"', '\\', '\n', 0x1b, '[', '3', '1', 'm', '\\', 'u',
						'0', '0', '0', '0', '\t', '\'' };
	struct wd_audit_ctx ctx = { .sandbox = "sb-1" };
	struct test_event ev;
	char path[64], *line;
	const char *p;
	size_t n = 0;
	cJSON *o;

	(void)state;
	n += (size_t)snprintf(path, sizeof(path), "/w/\"q\\\\b\"");
	for (int c = 1; c < 0x20; c++)
		path[n++] = (char)c;
	path[n++] = 0x7f;
	path[n] = 0;
	fill_event(&ev, path);
	memcpy(ev.comm, comm, WD_COMM_LEN); /* all 16 bytes, no NUL */
	line = event_line(&ctx, &ev, TEST_HDR + ev.path_len, NULL);
	o = parse_strict(line);
	assert_string_equal(str(o, "target"), path);
	assert_null(cJSON_GetObjectItemCaseSensitive(o, "target_b64"));
	assert_memory_equal(str(o, "comm"), comm, WD_COMM_LEN);
	assert_int_equal(strlen(str(o, "comm")), 16); /* nothing read past the comm */
	for (p = line; *p; p++)
		if ((unsigned char)*p < 0x20)
			fail_msg("raw control byte 0x%02x in the line", *p);
	cJSON_Delete(o);
	free(line);
}

/* The longest path of the worst bytes: every one escaped six-fold, or replaced, and still exact. */
static void test_long_hostile_path(void **state)
{
	static const char bytes[] = { '\x01', '"', '\\', '\xff', '\xc3' };
	struct wd_audit_ctx ctx = { .sandbox = "sb-1" };
	static struct test_event ev;
	static char back[WD_PATH_MAX];
	char *line;
	cJSON *o;

	(void)state;
	for (size_t k = 0; k < sizeof(bytes); k++) {
		fill_event(&ev, "");
		memset(ev.path, bytes[k], WD_PATH_MAX - 1);
		ev.path[WD_PATH_MAX - 1] = 0;
		ev.path_len = WD_PATH_MAX;
		line = event_line(&ctx, &ev, sizeof(ev), NULL);
		o = parse_strict(line);
		if ((unsigned char)bytes[k] < 0x80) {
			assert_memory_equal(str(o, "target"), ev.path, WD_PATH_MAX);
			assert_null(cJSON_GetObjectItemCaseSensitive(o, "target_b64"));
		} else {
			/* each byte its own U+FFFD: 0xc3 before 0xc3 starts no sequence */
			assert_int_equal(strlen(str(o, "target")), 3 * (WD_PATH_MAX - 1));
			assert_int_equal(unbase64(str(o, "target_b64"), back), WD_PATH_MAX - 1);
			assert_memory_equal(back, ev.path, WD_PATH_MAX - 1);
		}
		cJSON_Delete(o);
		free(line);
	}
}

/*
 * Into a fixed buffer: a record that does not fit leaves nothing behind, writes nothing past the
 * buffer and uses up no seq; one that fits is the same line as on the heap.
 */
static void test_event_put_fixed(void **state)
{
	struct wd_audit_ctx ctx = { .sandbox = "sb-1", .seq = 3 };
	struct test_event ev;
	static char buf[4096 + 16];
	struct wd_jbuf b;
	char *line;
	size_t n, cap;
	union {
		struct wd_rec_file f;
		char raw[WD_REC_FILE_SIZE + 64];
	} u;

	(void)state;
	fill_event(&ev, "/etc/\xff\"x");
	line = event_line(&ctx, &ev, TEST_HDR + ev.path_len, NULL);
	assert_non_null(line);
	n = strlen(line);
	ctx.seq = 3;
	memset(&u, 0, sizeof(u));
	u.f.h.type = WD_EV_FILE;
	u.f.h.size = (__u16)(WD_REC_FILE_SIZE + ev.path_len);
	u.f.h.ts_ns = ev.ts_ns;
	u.f.h.pid = ev.pid;
	u.f.h.tid = ev.tid;
	u.f.h.ppid = ev.ppid;
	memcpy(u.f.h.comm, ev.comm, WD_COMM_LEN);
	u.f.op = ev.op;
	u.f.verdict = ev.verdict;
	u.f.rule = ev.rule;
	u.f.access = ev.access;
	u.f.path_len = (__u16)ev.path_len;
	memcpy(u.f.path, ev.path, ev.path_len);
	for (cap = 0; cap <= n; cap++) {
		memset(buf, '#', sizeof(buf));
		wd_jb_init_fixed(&b, buf + 2, cap);
		b.len = 0;
		if (cap < n) {
			assert_int_equal(wd_audit_event_put(&ctx, &b, &u, u.f.h.size, NULL), -ENOSPC);
			assert_int_equal(b.len, 0);
			assert_false(b.full);
			assert_int_equal(ctx.seq, 3);
		} else {
			assert_int_equal(wd_audit_event_put(&ctx, &b, &u, u.f.h.size, NULL), 0);
			assert_int_equal(b.len, n);
			assert_memory_equal(buf + 2, line, n);
			assert_int_equal(ctx.seq, 4);
		}
		assert_int_equal(buf[1], '#');
		assert_int_equal(buf[2 + cap], '#');
	}
	/* a malformed record leaves the buffer as it was */
	wd_jb_init_fixed(&b, buf, sizeof(buf));
	u.f.h.size = 3;
	assert_int_equal(wd_audit_event_put(&ctx, &b, &u, 3, NULL), -EINVAL);
	assert_int_equal(b.len, 0);
	free(line);
}

/* Numbers print as integers across their whole range, as cJSON printed them. */
static void test_numbers(void **state)
{
	struct wd_audit_ctx ctx = { .sandbox = "sb-1", .seq = 1ull << 40 };
	struct test_event ev;
	char *line;

	(void)state;
	fill_event(&ev, "x");
	ev.uid = 4294967295u;
	ev.pid = 4000000000u;
	ev.op = WD_OP_IOCTL;
	ev.dirfd = -2147483647 - 1;
	ev.arg = ~0ull;
	line = event_line(&ctx, &ev, TEST_HDR + ev.path_len, NULL);
	assert_non_null(strstr(line, "\"seq\":1099511627776,"));
	assert_non_null(strstr(line, "\"uid\":4294967295,"));
	assert_non_null(strstr(line, "\"pid\":4000000000,"));
	assert_non_null(strstr(line, "\"request\":\"0xffffffffffffffff\",\"fd\":-2147483648,"));
	free(line);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deny_record),
		cmocka_unit_test(test_rule_names_and_exec),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_malformed_header),
		cmocka_unit_test(test_unresolved_target_is_null),
		cmocka_unit_test(test_syscall_exit_records),
		cmocka_unit_test(test_supervisor_records),
		cmocka_unit_test(test_next_seq),
		cmocka_unit_test(test_utf8_validator),
		cmocka_unit_test(test_invalid_bytes_escaped),
		cmocka_unit_test(test_valid_utf8_unchanged),
		cmocka_unit_test(test_cut_at_path_max),
		cmocka_unit_test(test_argv_and_hold_escaped),
		cmocka_unit_test(test_sockaddr_records),
		cmocka_unit_test(test_base_changed_record),
		cmocka_unit_test(test_writer_escapes_as_cjson),
		cmocka_unit_test(test_hostile_names_round_trip),
		cmocka_unit_test(test_long_hostile_path),
		cmocka_unit_test(test_event_put_fixed),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_base64_rfc4648_vectors),
	};

	return cmocka_run_group_tests_name("audit_jsonl", tests, NULL, NULL);
}
