// SPDX-License-Identifier: GPL-2.0
/* supervisor/util/fsutil.c: files warden writes as root, made through checked, pinned directories. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "supervisor/util/fsutil.h"

static char base[256];

/* What the walk showed the check, and the one directory it refuses. */
struct seen {
	char dirs[16][PATH_MAX];
	int n;
	char refuse[PATH_MAX];
};

static int record(void *arg, const char *dir)
{
	struct seen *s = arg;

	if (s->n < 16)
		snprintf(s->dirs[s->n++], PATH_MAX, "%s", dir);
	return s->refuse[0] && strcmp(dir, s->refuse) == 0 ? -EPERM : 0;
}

static bool seen_dir(const struct seen *s, const char *dir)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->dirs[i], dir) == 0)
			return true;
	return false;
}

static void at(char *buf, const char *rel)
{
	snprintf(buf, PATH_MAX, "%s/%s", base, rel);
}

static int setup(void **state)
{
	char p[PATH_MAX], q[PATH_MAX];

	(void)state;
	snprintf(base, sizeof(base), "/tmp/wd-fsutil.XXXXXX");
	if (!mkdtemp(base) || !realpath(base, p) || strlen(p) >= sizeof(base))
		return -1;
	memcpy(base, p, strlen(p) + 1);
	at(p, "out");
	mkdir(p, 0755);
	at(p, "rw");
	mkdir(p, 0755);
	at(p, "rw/sub");
	mkdir(p, 0755);
	/* a link planted in a parent, leading into "rw" */
	at(p, "rw/sub");
	at(q, "hop");
	return symlink(p, q);
}

static int teardown(void **state)
{
	char cmd[sizeof(base) + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_walk_checks_every_directory_a_link_passes(void **state)
{
	struct seen s = {.n = 0};
	char p[PATH_MAX], real[PATH_MAX], rw[PATH_MAX], sub[PATH_MAX];
	int fd;

	(void)state;
	at(p, "hop/../sub");
	at(rw, "rw");
	at(sub, "rw/sub");
	assert_int_equal(wd_dir_open_checked(p, record, &s, &fd, real), 0);
	/* the link's target was walked: rw was looked in, twice */
	assert_true(seen_dir(&s, rw));
	assert_true(seen_dir(&s, base));
	assert_string_equal(real, sub);
	close(fd);
	snprintf(s.refuse, sizeof(s.refuse), "%s", rw);
	at(p, "hop");
	assert_int_equal(wd_dir_open_checked(p, record, &s, &fd, real), -EPERM);
	assert_int_equal(fd, -1);
}

static void test_append_makes_0600_and_refuses_links(void **state)
{
	struct wd_out_file f = WD_OUT_FILE_INIT;
	struct seen s = {.n = 0};
	char p[PATH_MAX], q[PATH_MAX];
	struct stat st;

	(void)state;
	at(p, "out/a.jsonl");
	assert_int_equal(wd_out_append_open(&f, "audit", p, record, &s), 0);
	assert_int_equal(fstat(f.fd, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(write(f.fd, "x\n", 2), 2);
	wd_out_close(&f);
	/* an existing one is appended to, and made 0600 */
	chmod(p, 0644);
	assert_int_equal(wd_out_append_open(&f, "audit", p, record, &s), 0);
	assert_int_equal(fstat(f.fd, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_size, 2);
	wd_out_close(&f);
	/* a second name, and a link, are refused */
	at(q, "out/b.jsonl");
	assert_int_equal(link(p, q), 0);
	assert_int_equal(wd_out_append_open(&f, "audit", q, record, &s), -EPERM);
	unlink(q);
	assert_int_equal(symlink(p, q), 0);
	assert_int_equal(wd_out_append_open(&f, "audit", q, record, &s), -EPERM);
	assert_int_equal(f.fd, -1);
	unlink(q);
}

static void test_replace_renames_over_and_refuses_links(void **state)
{
	struct wd_out_file f = WD_OUT_FILE_INIT;
	struct seen s = {.n = 0};
	char p[PATH_MAX], victim[PATH_MAX], buf[32] = {0};
	struct stat st;
	int fd;

	(void)state;
	at(p, "out/r.json");
	assert_int_equal(wd_out_replace_open(&f, "report", p, record, &s), 0);
	/* nothing is at the name until the end */
	assert_int_equal(lstat(p, &st), -1);
	assert_int_equal(wd_out_replace_commit(&f, "{}\n", 3), 0);
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	/* an existing regular file is replaced */
	assert_int_equal(wd_out_replace_open(&f, "report", p, record, &s), 0);
	assert_int_equal(wd_out_replace_commit(&f, "{\"a\":1}\n", 8), 0);
	fd = open(p, O_RDONLY);
	assert_int_equal(read(fd, buf, sizeof(buf) - 1), 8);
	close(fd);
	assert_string_equal(buf, "{\"a\":1}\n");
	/* a link at the name is refused, its target untouched */
	unlink(p);
	at(victim, "out/victim");
	close(open(victim, O_CREAT | O_WRONLY, 0644));
	assert_int_equal(symlink(victim, p), 0);
	assert_int_equal(wd_out_replace_open(&f, "report", p, record, &s), -EPERM);
	assert_int_equal(stat(victim, &st), 0);
	assert_int_equal(st.st_size, 0);
	/* a name that is a directory is no file */
	at(p, "out/");
	assert_int_equal(wd_out_replace_open(&f, "report", p, record, &s), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_checks_every_directory_a_link_passes),
		cmocka_unit_test(test_append_makes_0600_and_refuses_links),
		cmocka_unit_test(test_replace_renames_over_and_refuses_links),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
