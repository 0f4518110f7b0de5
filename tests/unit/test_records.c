// SPDX-License-Identifier: GPL-2.0
/*
 * The run's record path (supervisor/run/records.c) as the audit file sees it: kernel records are
 * held only until their drain ends (one write per drain), a flood is written in writes of at
 * most 64 KiB that each end a line, and the supervisor's own lines keep their place after them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cJSON.h>
#include <cmocka.h>

#include "supervisor/run/records.h"

static union {
	struct wd_rec_file f;
	char raw[WD_REC_FILE_SIZE + WD_PATH_MAX];
} u;

/* A denied open of @path (with @fill repeated @n times after it), as the landlock recorder sends. */
static size_t record(const char *path, char fill, size_t n)
{
	size_t len = strlen(path);

	memset(&u, 0, sizeof(u));
	u.f = (struct wd_rec_file){ .h = { .type = WD_EV_FILE, .pid = 77, .tid = 77,
					   .comm = "flood" },
				    .op = WD_OP_OPEN, .verdict = WD_VERDICT_DENY,
				    .source = WD_SRC_SYSCALL_EXIT, .rule = WD_RULE_DEFAULT,
				    .err = 13, .dirfd = -100 };
	memcpy(u.f.path, path, len);
	memset(u.f.path + len, fill, n);
	u.f.path_len = (__u16)(len + n + 1);
	u.f.h.size = (__u16)(WD_REC_FILE_SIZE + u.f.path_len);
	return u.f.h.size;
}

static long file_size(FILE *f)
{
	struct stat sb;

	assert_int_equal(fstat(fileno(f), &sb), 0);
	return (long)sb.st_size;
}

/* The file's bytes, NUL-terminated, malloc'd. */
static char *contents(FILE *f)
{
	long n = file_size(f);
	char *s = malloc((size_t)n + 1);

	assert_non_null(s);
	assert_int_equal(pread(fileno(f), s, (size_t)n, 0), n);
	s[n] = 0;
	return s;
}

static void state_init(struct run_state *st)
{
	memset(st, 0, sizeof(*st));
	st->audit = tmpfile();
	assert_non_null(st->audit);
	st->actx.sandbox = "sb-1";
	/* the exe from the cache, as after the sandbox's exec record: no /proc read */
	assert_int_equal(wd_exe_cache_set(&st->exes, 77, "/bin/flood"), 0);
}

static void state_free(struct run_state *st)
{
	fclose(st->audit);
	wd_exe_cache_free(&st->exes);
}

/* Nothing is written in the drain; at its end, all of it in one write, line by line. */
static void test_one_write_per_drain(void **state)
{
	static struct run_state st;
	char *s, *line;
	int n = 0;

	(void)state;
	state_init(&st);
	for (int i = 0; i < 50; i++) {
		size_t size = record("/denied/f", 'x', (size_t)i);

		assert_int_equal(wd_run_on_record(&st, &u, size), 0);
	}
	assert_int_equal(file_size(st.audit), 0);
	wd_run_audit_flush(&st);
	assert_int_equal(st.batch_writes, 1);
	s = contents(st.audit);
	for (line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
		cJSON *o = cJSON_Parse(line);

		assert_non_null(o);
		assert_int_equal(cJSON_GetObjectItemCaseSensitive(o, "seq")->valuedouble, n++);
		cJSON_Delete(o);
	}
	assert_int_equal(n, 50);
	/* an empty drain writes nothing */
	wd_run_audit_flush(&st);
	assert_int_equal(st.batch_writes, 1);
	free(s);
	state_free(&st);
}

/*
 * A drain that never ends (a flood): writes go out as the batch fills, each at most 64 KiB and
 * ending a line, so a reader tailing the file never waits for the flood to stop. Records of
 * escaped paths (six bytes a byte) come in between.
 */
static void test_flood_writes_whole_lines(void **state)
{
	static struct run_state st;
	long before = 0, now;
	uint64_t writes = 0;
	char last;

	(void)state;
	state_init(&st);
	for (int i = 0; i < 3000; i++) {
		size_t size = i % 100 == 99 ? record("/denied/", '\x01', WD_PATH_MAX - 10) :
					      record("/denied/f", 'y', (size_t)(i % 300));

		assert_int_equal(wd_run_on_record(&st, &u, size), 0);
		now = file_size(st.audit);
		if (now == before)
			continue;
		writes++;
		assert_true(now - before <= WD_AUDIT_BATCH);
		assert_int_equal(pread(fileno(st.audit), &last, 1, now - 1), 1);
		assert_int_equal(last, '\n');
		before = now;
	}
	assert_true(writes > 5);
	assert_int_equal(st.batch_writes, writes);
	assert_int_equal(st.malformed, 0);
	state_free(&st);
}

/* A line of the supervisor's own comes after the records before it, and is written at once. */
static void test_own_lines_keep_order(void **state)
{
	static struct run_state st;
	char *s, *second;

	(void)state;
	state_init(&st);
	assert_int_equal(wd_run_on_record(&st, &u, record("/denied/f", 'z', 3)), 0);
	wd_run_audit_write(&st, wd_audit_lost_line(&st.actx, 0, 5));
	s = contents(st.audit);
	second = strchr(s, '\n');
	assert_non_null(second);
	assert_non_null(strstr(s, "\"type\":\"file\""));
	assert_true(strstr(s, "\"type\":\"file\"") < second);
	assert_non_null(strstr(second, "\"type\":\"lost\",\"count\":5}\n"));
	assert_int_equal(st.batch_len, 0);
	free(s);
	/* a malformed record: counted, nothing written and no seq used */
	record("/x", 'a', 0);
	u.f.path_len = 9;
	assert_int_equal(wd_run_on_record(&st, &u, u.f.h.size), 0);
	assert_int_equal(st.malformed, 1);
	assert_int_equal(st.batch_len, 0);
	assert_int_equal(st.actx.seq, 2);
	state_free(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_write_per_drain),
		cmocka_unit_test(test_flood_writes_whole_lines),
		cmocka_unit_test(test_own_lines_keep_order),
	};

	return cmocka_run_group_tests_name("run_records", tests, NULL, NULL);
}
