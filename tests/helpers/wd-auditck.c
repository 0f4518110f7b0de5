// SPDX-License-Identifier: GPL-2.0
/*
 * wd-auditck: checks of the audit stream and the attacks on it, for tests/escape/t_audit.sh.
 * The VM has no python: the checker is built on cJSON, with a UTF-8 decoder of its own (cJSON
 * takes any bytes, and this must not share its code with audit/jsonl.c, which it checks).
 *
 *   wd-auditck lines FILE     every line of FILE is well-formed UTF-8 and one JSON value; prints
 *                             "N lines", or "line K: WHY" and exits 1
 *   wd-auditck race-cwd DIR OTHER NAME COUNT  chdir to DIR; one thread opens NAME (relative)
 *                             until COUNT opens were refused (at most 10000 * COUNT tries) while
 *                             a second moves the shared cwd between OTHER and DIR as fast as it
 *                             can; prints "denied D other O" (opens refused with EACCES or
 *                             EPERM, and anything else)
 *   wd-auditck unix-listen NAME  listen on unix stream socket NAME ("@x": abstract), print
 *                             "listening", accept and close until killed
 *   wd-auditck unix-connect NAME  connect there: "ok" or the errno name
 *   wd-auditck unix-bind NAME  bind a unix socket there: "ok" or the errno name
 *   wd-auditck ioctl PATH REQ  open PATH read-only and ioctl(REQ) on it: "ok" or the errno name
 *   wd-auditck chdir-exec DIR PROG [ARG...]  chdir to DIR at once (before a supervisor could
 *                             look at the cwd it was started in), then execute PROG
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cJSON.h>

/*
 * Well-formed UTF-8 by decoding: each sequence's code point must need exactly its length, lie
 * outside the surrogates and at most at U+10FFFF.
 */
static bool utf8_ok(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint32_t cp, min;
		size_t len;

		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if ((s[i] & 0xe0) == 0xc0) {
			len = 2, cp = s[i] & 0x1f, min = 0x80;
		} else if ((s[i] & 0xf0) == 0xe0) {
			len = 3, cp = s[i] & 0x0f, min = 0x800;
		} else if ((s[i] & 0xf8) == 0xf0) {
			len = 4, cp = s[i] & 0x07, min = 0x10000;
		} else {
			return false;
		}
		if (i + len > n)
			return false;
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += len;
	}
	return true;
}

static int cmd_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, nr = 0;
	ssize_t n;
	int rc = 0;

	if (!f) {
		printf("%s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		cJSON *o;

		nr++;
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = 0;
		if (memchr(line, 0, (size_t)n)) {
			printf("line %zu: holds a NUL byte\n", nr);
			rc = 1;
			break;
		}
		if (!utf8_ok((const unsigned char *)line, (size_t)n)) {
			printf("line %zu: not UTF-8\n", nr);
			rc = 1;
			break;
		}
		o = cJSON_ParseWithOpts(line, NULL, 1);
		if (!cJSON_IsObject(o)) {
			printf("line %zu: not one JSON object\n", nr);
			cJSON_Delete(o);
			rc = 1;
			break;
		}
		cJSON_Delete(o);
	}
	if (!rc)
		printf("%zu lines\n", nr);
	free(line);
	fclose(f);
	return rc;
}

struct mover {
	int dir, other;
	atomic_bool stop;
};

static void *move_cwd(void *arg)
{
	struct mover *m = arg;

	while (!atomic_load(&m->stop)) {
		if (fchdir(m->other) || fchdir(m->dir))
			break;
		/* as long in DIR as a chdir takes, so the opens meet both */
		for (volatile int k = 0; k < 500; k++)
			;
	}
	return NULL;
}

static int cmd_race_cwd(const char *dir, const char *other, const char *name, long count)
{
	struct mover m = { .dir = open(dir, O_PATH | O_DIRECTORY),
			   .other = open(other, O_PATH | O_DIRECTORY) };
	long denied = 0, rest = 0;
	pthread_t t;

	if (m.dir < 0 || m.other < 0 || fchdir(m.dir)) {
		printf("%s\n", strerrorname_np(errno));
		return 1;
	}
	atomic_init(&m.stop, false);
	if (pthread_create(&t, NULL, move_cwd, &m)) {
		printf("pthread_create\n");
		return 1;
	}
	/* until COUNT denials, however the threads are scheduled (bounded all the same) */
	for (long i = 0; denied < count && i < 10000 * count; i++) {
		int fd = open(name, O_RDONLY);

		if (fd >= 0)
			close(fd);
		if (fd < 0 && (errno == EACCES || errno == EPERM))
			denied++;
		else
			rest++;
	}
	atomic_store(&m.stop, true);
	pthread_join(t, NULL);
	printf("denied %ld other %ld\n", denied, rest);
	return 0;
}

/* NAME as a unix address: "@x" is abstract (no trailing NUL), anything else a path. */
static socklen_t unix_addr(const char *name, struct sockaddr_un *a)
{
	size_t n = strlen(name);

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (n >= sizeof(a->sun_path))
		n = sizeof(a->sun_path) - 1;
	memcpy(a->sun_path, name, n);
	if (name[0] == '@') {
		a->sun_path[0] = 0;
		return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	}
	return (socklen_t)sizeof(*a);
}

static int answer(int r)
{
	if (r) {
		printf("%s\n", strerrorname_np(errno));
		return 1;
	}
	printf("ok\n");
	return 0;
}

static int cmd_unix(const char *what, const char *name)
{
	struct sockaddr_un a;
	socklen_t len = unix_addr(name, &a);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), c;

	if (fd < 0)
		return answer(-1);
	if (strcmp(what, "connect") == 0)
		return answer(connect(fd, (struct sockaddr *)&a, len));
	if (strcmp(what, "bind") == 0)
		return answer(bind(fd, (struct sockaddr *)&a, len));
	if (bind(fd, (struct sockaddr *)&a, len) || listen(fd, 16))
		return answer(-1);
	printf("listening\n");
	fflush(stdout);
	while ((c = accept(fd, NULL, NULL)) >= 0 || errno == EINTR)
		if (c >= 0)
			close(c);
	return 1;
}

static int cmd_ioctl(const char *path, const char *req)
{
	char buf[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return answer(-1);
	return answer(ioctl(fd, strtoul(req, NULL, 0), buf) < 0 ? -1 : 0);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "lines") == 0)
		return cmd_lines(argv[2]);
	if (argc == 6 && strcmp(argv[1], "race-cwd") == 0)
		return cmd_race_cwd(argv[2], argv[3], argv[4], atol(argv[5]));
	if (argc == 3 && strncmp(argv[1], "unix-", 5) == 0)
		return cmd_unix(argv[1] + 5, argv[2]);
	if (argc >= 4 && strcmp(argv[1], "chdir-exec") == 0) {
		if (chdir(argv[2]) == 0)
			execv(argv[3], argv + 3);
		return answer(-1);
	}
	if (argc == 4 && strcmp(argv[1], "ioctl") == 0)
		return cmd_ioctl(argv[2], argv[3]);
	fprintf(stderr, "usage: wd-auditck lines FILE | race-cwd DIR OTHER NAME COUNT | "
		"unix-listen|unix-connect|unix-bind NAME | ioctl PATH REQ\n");
	return 2;
}
