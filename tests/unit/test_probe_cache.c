// SPDX-License-Identifier: GPL-2.0
/*
 * supervisor/backend/probe_cache.c: the answers' text both ways, every way a file can be of
 * another key or corrupt, which files are trusted, and (as root) reading planted files.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "supervisor/backend/probe.h"
#include "supervisor/backend/probe_cache.h"

static const struct wd_probe_key key = {
	"237e9f94-7581-42fd-aa79-0baee0585164", "6.1.0-27-amd64", "0123456789abcdef",
};

static struct wd_probe_answers sample(void)
{
	struct wd_probe_answers a = {
		.btf = 0, .landlock = 0, .landlock_abi = 3, .memfd_noexec = ENOENT, .notify = 0,
		.notif_sizes = { 80, 24, 64 }, .wait_killable = 0, .sync_wake_up = EINVAL,
		.hook_args = { 3, -ENOENT, 2, -ENOENT, -ENOENT },
	};

	snprintf(a.bpf_lsm_why, sizeof(a.bpf_lsm_why), "BPF LSM is not active: add \"bpf\"");
	return a;
}

static int text_of(char *buf, size_t size, const struct wd_probe_answers *a)
{
	int n = wd_probe_cache_format(buf, size, &key, a);

	assert_true(n > 0);
	return n;
}

/* What is written reads back as it was, for a no and a yes. */
static void test_round_trip(void **state)
{
	struct wd_probe_answers a = sample(), b;
	char buf[WD_PROBE_CACHE_MAX];
	int n;

	(void)state;
	n = text_of(buf, sizeof(buf), &a);
	memset(&b, 0x55, sizeof(b));
	assert_int_equal(wd_probe_cache_parse(buf, n, &key, &b), 0);
	assert_false(b.bpf_lsm);
	assert_string_equal(b.bpf_lsm_why, a.bpf_lsm_why);
	assert_int_equal(b.landlock_abi, 3);
	assert_int_equal(b.memfd_noexec, ENOENT);
	assert_int_equal(b.sync_wake_up, EINVAL);
	assert_int_equal(b.notif_sizes[2], 64);
	assert_memory_equal(b.hook_args, a.hook_args, sizeof(a.hook_args));
	a.bpf_lsm = true;
	n = text_of(buf, sizeof(buf), &a);
	assert_non_null(strstr(buf, "\nbpf_lsm 1\n"));
	assert_int_equal(wd_probe_cache_parse(buf, n, &key, &b), 0);
	assert_true(b.bpf_lsm);
}

/* A reason with a newline in it stays one line: it cannot add a line of its own. */
static void test_why_one_line(void **state)
{
	struct wd_probe_answers a = sample(), b;
	char buf[WD_PROBE_CACHE_MAX];
	int n;

	(void)state;
	snprintf(a.bpf_lsm_why, sizeof(a.bpf_lsm_why), "no\nbpf_lsm 1");
	n = text_of(buf, sizeof(buf), &a);
	assert_int_equal(wd_probe_cache_parse(buf, n, &key, &b), 0);
	assert_false(b.bpf_lsm);
	assert_string_equal(b.bpf_lsm_why, "no bpf_lsm 1");
}

/* Another boot, kernel or build: -ESTALE, and nothing is taken from it. */
static void test_other_key(void **state)
{
	struct wd_probe_answers a = sample(), b = { 0 };
	char buf[WD_PROBE_CACHE_MAX];

	(void)state;
	a.bpf_lsm = true;
	for (size_t i = 0; i < 3; i++) {
		struct wd_probe_key other = key;
		int n;

		if (i == 0)
			other.boot[0] = 'f';
		else if (i == 1)
			snprintf(other.kernel, sizeof(other.kernel), "6.1.0-28-amd64");
		else
			other.build[0] = 'f';
		n = wd_probe_cache_format(buf, sizeof(buf), &other, &a);
		assert_true(n > 0);
		assert_int_equal(wd_probe_cache_parse(buf, n, &key, &b), -ESTALE);
		assert_false(b.bpf_lsm);
	}
}

/* Every shorter prefix is corrupt (a write cut short is never half believed). */
static void test_truncated(void **state)
{
	struct wd_probe_answers a = sample(), b;
	char buf[WD_PROBE_CACHE_MAX];
	int n;

	(void)state;
	a.bpf_lsm = true;
	n = text_of(buf, sizeof(buf), &a);
	for (int len = 0; len < n; len++)
		assert_int_equal(wd_probe_cache_parse(buf, len, &key, &b), -EINVAL);
}

/* Replace the first @from in the good text with @to and parse it. */
static int parse_edited(const char *from, const char *to)
{
	struct wd_probe_answers a = sample(), b;
	char buf[WD_PROBE_CACHE_MAX], out[WD_PROBE_CACHE_MAX + 64];
	const char *at;
	int n;

	n = text_of(buf, sizeof(buf), &a);
	at = strstr(buf, from);
	assert_non_null(at);
	n = snprintf(out, sizeof(out), "%.*s%s%s", (int)(at - buf), buf, to, at + strlen(from));
	return wd_probe_cache_parse(out, n, &key, &b);
}

static void test_corrupt(void **state)
{
	static const struct {
		const char *from, *to;
	} edits[] = {
		{ "warden-probe-cache 1", "warden-probe-cache 2" },
		{ "bpf_lsm 0 ", "bpf_lsm 2 " },
		{ "bpf_lsm 0 BPF LSM is not active: add \"bpf\"", "bpf_lsm 0 " },
		{ "bpf_lsm 0 BPF", "bpf_lsm 0 \x01" },
		{ "bpf_lsm 0 BPF LSM is not active: add \"bpf\"", "bpf_lsm 1 yes" },
		{ "btf 0", "btf -1" },
		{ "btf 0", "btf 0 0" },
		{ "btf 0", "btf x" },
		{ "btf 0", "btf 99999" },
		{ "landlock 0 3", "landlock 0 0" },
		{ "landlock 0 3", "landlock 0" },
		{ "memfd_noexec 2", "memfd_noexec 2 " },
		{ "seccomp_notify 0 80 24 64", "seccomp_notify 0 80 24 70000" },
		{ "hook bpf 3", "hook bpf 65" },
		{ "hook bpf 3", "hook lpf 3" },
		{ "hook file_truncate -2\n", "" },
		{ "seccomp_wait_killable 0\n", "" },
		{ "end\n", "end\nend\n" },
		{ "end\n", "end" },
		{ "end\n", "end\nbpf_lsm 1\n" },
		{ "kernel 6.1.0-27-amd64", "kernel 6.1.0-27-amd64 x" },
		{ "boot ", "boot  " },
		{ "\n", "\r\n" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		int err = parse_edited(edits[i].from, edits[i].to);

		if (err != -EINVAL)
			fail_msg("edit %zu (%s -> %s) parsed: %d", i, edits[i].from, edits[i].to, err);
	}
}

/* A NUL inside, or garbage of any kind, is corrupt. */
static void test_garbage(void **state)
{
	struct wd_probe_answers a = sample(), b;
	char buf[WD_PROBE_CACHE_MAX];
	int n;

	(void)state;
	n = text_of(buf, sizeof(buf), &a);
	buf[30] = 0;
	assert_int_equal(wd_probe_cache_parse(buf, n, &key, &b), -EINVAL);
	assert_int_equal(wd_probe_cache_parse("bpf_lsm 1\n", 10, &key, &b), -EINVAL);
	assert_int_equal(wd_probe_cache_parse("\xff\xfe\n\n", 4, &key, &b), -EINVAL);
	assert_int_equal(wd_probe_cache_parse("", 0, &key, &b), -EINVAL);
}

/* Only a regular file of root's, 0600, one link, small, in a directory root alone writes. */
static void test_untrusted(void **state)
{
	struct stat dir = { .st_mode = S_IFDIR | 0700, .st_uid = 0 };
	struct stat good = { .st_mode = S_IFREG | 0600, .st_uid = 0, .st_nlink = 1, .st_size = 400 };
	struct stat st;

	(void)state;
	assert_null(wd_probe_cache_untrusted(&dir, &good));
	st = good;
	st.st_uid = 1000;
	assert_non_null(wd_probe_cache_untrusted(&dir, &st));
	st = good;
	st.st_mode = S_IFREG | 0644;
	assert_non_null(wd_probe_cache_untrusted(&dir, &st));
	st.st_mode = S_IFREG | 0400;
	assert_non_null(wd_probe_cache_untrusted(&dir, &st));
	st.st_mode = S_IFREG | 04600;
	assert_non_null(wd_probe_cache_untrusted(&dir, &st));
	st.st_mode = S_IFLNK | 0600;
	assert_non_null(wd_probe_cache_untrusted(&dir, &st));
	st.st_mode = S_IFIFO | 0600;
	assert_non_null(wd_probe_cache_untrusted(&dir, &st));
	st = good;
	st.st_nlink = 2;
	assert_non_null(wd_probe_cache_untrusted(&dir, &st));
	st = good;
	st.st_size = WD_PROBE_CACHE_MAX + 1;
	assert_non_null(wd_probe_cache_untrusted(&dir, &st));
	st = dir;
	st.st_mode = S_IFDIR | 0730;
	assert_non_null(wd_probe_cache_untrusted(&st, &good));
	st.st_mode = S_IFDIR | 0702;
	assert_non_null(wd_probe_cache_untrusted(&st, &good));
	st.st_mode = S_IFDIR | 0700;
	st.st_uid = 1000;
	assert_non_null(wd_probe_cache_untrusted(&st, &good));
}

static char dir[] = "/tmp/wd-probe-cache-XXXXXX";

static void path_of(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
}

/* As root: a written file reads back; planted copies of it that are not trusted do not. */
static void test_files(void **state)
{
	struct wd_probe_answers a = sample(), b;
	char file[256], other[256];
	struct stat st;

	(void)state;
	if (geteuid() != 0)
		skip(); /* the owner check needs files of root's */
	assert_non_null(mkdtemp(dir));
	path_of(file, sizeof(file), WD_PROBE_CACHE_NAME);
	path_of(other, sizeof(other), "elsewhere");
	a.bpf_lsm = true;
	assert_int_equal(wd_probe_cache_read(dir, &key, &b), -ENOENT);
	assert_int_equal(wd_probe_cache_write(dir, &key, &a), 0);
	assert_int_equal(lstat(file, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(wd_probe_cache_read(dir, &key, &b), 0);
	assert_true(b.bpf_lsm);
	/* mode, owner, a second link */
	assert_int_equal(chmod(file, 0644), 0);
	assert_int_equal(wd_probe_cache_read(dir, &key, &b), -EPERM);
	assert_int_equal(chmod(file, 0600), 0);
	assert_int_equal(chown(file, 1000, 0), 0);
	assert_int_equal(wd_probe_cache_read(dir, &key, &b), -EPERM);
	assert_int_equal(chown(file, 0, 0), 0);
	assert_int_equal(link(file, other), 0);
	assert_int_equal(wd_probe_cache_read(dir, &key, &b), -EPERM);
	/* a symlink to a good file is not followed */
	assert_int_equal(unlink(file), 0);
	assert_int_equal(symlink(other, file), 0);
	assert_int_equal(wd_probe_cache_read(dir, &key, &b), -ELOOP);
	/* the write replaces the link, never writes through it */
	a.bpf_lsm = false;
	assert_int_equal(wd_probe_cache_write(dir, &key, &a), 0);
	assert_int_equal(lstat(file, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(wd_probe_cache_read(dir, &key, &b), 0);
	assert_false(b.bpf_lsm);
	assert_int_equal(wd_probe_cache_read(dir, &key, &b), 0);
	/* a directory others may write is not trusted, for reading or writing */
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(wd_probe_cache_read(dir, &key, &b), -EPERM);
	assert_int_equal(wd_probe_cache_write(dir, &key, &a), -EPERM);
	assert_int_equal(chmod(dir, 0700), 0);
	/* a fifo does not hang the read */
	assert_int_equal(unlink(file), 0);
	assert_int_equal(mkfifo(file, 0600), 0);
	assert_int_equal(wd_probe_cache_read(dir, &key, &b), -EPERM);
	assert_int_equal(unlink(file), 0);
	assert_int_equal(unlink(other), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* This host's key has every field, with no space in any. */
static void test_key(void **state)
{
	struct wd_probe_key k;

	(void)state;
	assert_int_equal(wd_probe_key_get(&k), 0);
	assert_int_equal(strlen(k.boot), 36);
	assert_true(k.kernel[0] && k.build[0]);
	assert_null(strchr(k.kernel, ' '));
}

/*
 * As root, the probes take every answer from a trusted file of this key and compute none: the
 * file's (false) answers come back, no BTF is loaded, no BPF-LSM program is tried. Runs once
 * per process (the probes keep their first answers), so it is this binary's last test.
 */
static void test_probes_answer_from_file(void **state)
{
	struct wd_probe_answers a = sample();
	char run[] = "/tmp/wd-probe-run-XXXXXX", how[512], file[300];
	struct wd_probe_key k;

	(void)state;
	if (geteuid() != 0)
		skip(); /* only root's runs read the file */
	assert_non_null(mkdtemp(run));
	setenv("WARDEN_RUN_DIR", run, 1);
	assert_int_equal(wd_probe_key_get(&k), 0);
	a.bpf_lsm = true;
	a.landlock_abi = 42;
	a.hook_args[0] = 7;
	assert_int_equal(wd_probe_cache_write(run, &k, &a), 0);
	assert_true(wd_bpf_lsm_supported(NULL, 0));
	assert_int_equal(wd_landlock_abi(), 42);
	assert_int_equal(wd_probe_hook_args("bpf"), 7);
	assert_int_equal(wd_probe_hook_args("inode_setattr"), 2);
	assert_false(wd_memfd_noexec_supported(NULL, 0));
	assert_int_equal(wd_vmlinux_btf_loads(), 0);
	assert_true(wd_probe_cached(how, sizeof(how)));
	assert_non_null(strstr(how, run));
	snprintf(file, sizeof(file), "%s/%s", run, WD_PROBE_CACHE_NAME);
	assert_int_equal(unlink(file), 0);
	assert_int_equal(rmdir(run), 0);
	unsetenv("WARDEN_RUN_DIR");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_why_one_line),
		cmocka_unit_test(test_other_key),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_untrusted),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_key),
		cmocka_unit_test(test_probes_answer_from_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
