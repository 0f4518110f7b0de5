// SPDX-License-Identifier: GPL-2.0
/*
 * wd-hold: the calls the hold tests make on a protected file's content through an open file, one
 * at a time. Prints "ok" and exits 0, or the errno name (EPERM, EINVAL, ...) and exits 1; 2 for
 * bad usage.
 *
 *   wd-hold ftruncate ro|path|rw FILE  open FILE read-only, O_PATH or read-write (never O_TRUNC)
 *                                      and ftruncate it to 0
 *   wd-hold fallocate MODE FILE        open FILE read-write and fallocate(MODE) its second 4 KiB
 *                                      block; MODE: punch, collapse, zero, insert, alloc, keep
 *   wd-hold fallocate-ro MODE FILE     the same on FILE opened read-only
 *   wd-hold rename SRC DST             rename(2) SRC to DST (replacing what is there)
 *   wd-hold copy-into SRC DST          copy_file_range all of SRC to DST's start; then "size N"
 *   wd-hold splice-into SRC DST        splice all of SRC through a pipe to DST's start; then
 *                                      "size N"
 *   wd-hold unlink-swap A B GO ACK     a thread unlinks A, from a buffer; once a line comes on
 *                                      the FIFO GO, the buffer is made to say B (same length),
 *                                      "swapped" goes to the FIFO ACK; then the unlink's result
 *                                      (what a supervisor reading the call again would see)
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(void)
{
	const char *name = strerrorname_np(errno);

	printf("%s\n", name ? name : "EUNKNOWN");
	return 1;
}

static int try_ftruncate(const char *how, const char *path)
{
	int flags = strcmp(how, "ro") == 0 ? O_RDONLY : strcmp(how, "path") == 0 ? O_PATH : O_RDWR;
	int fd = open(path, flags | O_CLOEXEC);

	if (fd < 0 || ftruncate(fd, 0))
		return fail();
	puts("ok");
	return 0;
}

static int try_fallocate(const char *mode, const char *path, int oflags)
{
	static const struct {
		const char *name;
		int mode;
	} modes[] = {
		{ "punch", FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE },
		{ "collapse", FALLOC_FL_COLLAPSE_RANGE },
		{ "zero", FALLOC_FL_ZERO_RANGE },
		{ "insert", FALLOC_FL_INSERT_RANGE },
		{ "alloc", 0 },
		{ "keep", FALLOC_FL_KEEP_SIZE },
	};
	int fd, m = -1;

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strcmp(mode, modes[i].name) == 0)
			m = modes[i].mode;
	if (m < 0)
		return 2;
	fd = open(path, oflags | O_CLOEXEC);
	if (fd < 0 || fallocate(fd, m, 4096, 4096))
		return fail();
	puts("ok");
	return 0;
}

static int into(const char *src, const char *dst, bool use_splice)
{
	int in = open(src, O_RDONLY | O_CLOEXEC), out = open(dst, O_WRONLY | O_CLOEXEC), p[2];
	struct stat st;
	loff_t off = 0;
	ssize_t n;

	if (in < 0 || out < 0 || fstat(in, &st))
		return fail();
	if (!use_splice) {
		n = copy_file_range(in, NULL, out, &off, (size_t)st.st_size, 0);
	} else {
		if (pipe(p))
			return fail();
		n = splice(in, NULL, p[1], NULL, (size_t)st.st_size, 0);
		if (n >= 0)
			n = splice(p[0], NULL, out, &off, (size_t)n, 0);
	}
	if (n < 0)
		return fail();
	if (fstat(out, &st))
		return fail();
	printf("ok\nsize %lld\n", (long long)st.st_size);
	return 0;
}

static char swap_buf[4096];

static void *unlink_thread(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)(unlink(swap_buf) ? errno : 0);
}

/* The held unlink's path rewritten under it: what a successor asks about is what it reads. */
static int unlink_swap(const char *a, const char *b, const char *go, const char *ack)
{
	pthread_t t;
	char line[16];
	void *res;
	FILE *g, *k;

	if (strlen(a) != strlen(b) || strlen(a) >= sizeof(swap_buf))
		return 2;
	strcpy(swap_buf, a);
	if (pthread_create(&t, NULL, unlink_thread, NULL))
		return fail();
	g = fopen(go, "r");
	if (!g || !fgets(line, sizeof(line), g))
		return fail();
	memcpy(swap_buf, b, strlen(b));
	k = fopen(ack, "w");
	if (!k || fputs("swapped\n", k) < 0 || fclose(k))
		return fail();
	pthread_join(t, &res);
	errno = (int)(intptr_t)res;
	if (errno)
		return fail();
	puts("ok");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 6 && strcmp(argv[1], "unlink-swap") == 0)
		return unlink_swap(argv[2], argv[3], argv[4], argv[5]);
	if (argc == 4 && strcmp(argv[1], "ftruncate") == 0)
		return try_ftruncate(argv[2], argv[3]);
	if (argc == 4 && strcmp(argv[1], "fallocate") == 0)
		return try_fallocate(argv[2], argv[3], O_RDWR);
	if (argc == 4 && strcmp(argv[1], "fallocate-ro") == 0)
		return try_fallocate(argv[2], argv[3], O_RDONLY);
	if (argc == 4 && strcmp(argv[1], "rename") == 0) {
		if (rename(argv[2], argv[3]))
			return fail();
		puts("ok");
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "copy-into") == 0)
		return into(argv[2], argv[3], false);
	if (argc == 4 && strcmp(argv[1], "splice-into") == 0)
		return into(argv[2], argv[3], true);
	fputs("usage: wd-hold ftruncate ro|path|rw FILE | fallocate[-ro] MODE FILE | rename SRC DST |\n"
	      "               copy-into SRC DST | splice-into SRC DST | unlink-swap A B GO ACK\n",
	      stderr);
	return 2;
}
