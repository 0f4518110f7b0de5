// SPDX-License-Identifier: GPL-2.0
/*
 * wardend_run SOCKET POLICY CMD...: one run through wardend, start to end, for the bench's
 * timer (bench/spawn_time): asks the wardend on SOCKET to run CMD under POLICY, its output
 * into a pipe of this process's (named by /proc/self/fd, which the daemon opens), and returns
 * once every end of that pipe has closed: the command, its init and its supervisor have all
 * ended. Exits 0 when wardend ran it, 1 otherwise (its reply on stderr).
 *
 * wardend_run --exec SOCKET SANDBOX CMD...: one exec of CMD in the persistent sandbox SANDBOX
 * (docs/control.md#persistent-sandboxes), from the request to its exit event.
 *
 * wardend_run --settle SOCKET: returns once the wardend on SOCKET has a spare ready (its
 * status's "spares":{"ready":N}), or has none configured; fails after 10 s. For spawn_time's
 * SPAWN_SETTLE, untimed: no command's clock runs while wardend makes its spare.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* Append @s to @buf as a JSON string; the bench's arguments are plain (no control characters). */
static size_t json_str(char *buf, size_t len, size_t cap, const char *s)
{
	len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "\"");
	for (; *s && len + 3 < cap; s++) {
		if (*s == '"' || *s == '\\')
			buf[len++] = '\\';
		buf[len++] = *s;
	}
	return len + (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "\"");
}

/* --exec: the request, then every line up to the exit event (or an error reply). */
static int exec_one(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char req[8192], buf[65536];
	size_t len, have = 0;
	int fd;
	ssize_t n;

	if (argc < 5 || strlen(argv[2]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: wardend_run --exec SOCKET SANDBOX CMD...\n");
		return 2;
	}
	len = (size_t)snprintf(req, sizeof(req), "{\"op\":\"exec\",\"sandbox\":");
	len = json_str(req, len, sizeof(req), argv[3]);
	len += (size_t)snprintf(req + len, sizeof(req) - len, ",\"argv\":[");
	for (int i = 4; i < argc; i++) {
		if (i > 4)
			req[len++] = ',';
		len = json_str(req, len, sizeof(req), argv[i]);
	}
	len += (size_t)snprintf(req + len, sizeof(req) - len, "]}\n");
	if (len >= sizeof(req))
		return 2;
	strcpy(sa.sun_path, argv[2]);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    write(fd, req, len) != (ssize_t)len) {
		perror("wardend_run: the control socket");
		return 1;
	}
	while (have < sizeof(buf) - 1 && (n = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0) {
		have += (size_t)n;
		buf[have] = 0;
		if (strstr(buf, "\"ok\":false")) {
			fprintf(stderr, "wardend_run: %s", buf);
			return 1;
		}
		if (strstr(buf, "\"event\":\"exit\""))
			return 0;
	}
	fprintf(stderr, "wardend_run: no exit event\n");
	return 1;
}

/* One status request's reply on a fresh connection to @path, into @buf. 0 or -1. */
static int status_of(const char *path, char *buf, size_t size)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static const char req[] = "{\"op\":\"status\"}\n";
	size_t have = 0;
	ssize_t n;
	int fd;

	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    write(fd, req, sizeof(req) - 1) != (ssize_t)sizeof(req) - 1) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while (have < size - 1 && (n = read(fd, buf + have, size - 1 - have)) > 0) {
		have += (size_t)n;
		buf[have] = 0;
		if (memchr(buf, '\n', have))
			break;
	}
	close(fd);
	return have ? 0 : -1;
}

/* --settle: a spare ready, or none configured. */
static int settle(int argc, char **argv)
{
	static char buf[1 << 20];
	const struct timespec tick = { 0, 5000000 };

	if (argc != 3 || strlen(argv[2]) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		fprintf(stderr, "usage: wardend_run --settle SOCKET\n");
		return 2;
	}
	for (int i = 0; i < 2000; i++) {
		const char *sp;

		if (status_of(argv[2], buf, sizeof(buf)))
			break;
		if (strstr(buf, "\"spares\":0,") || strstr(buf, "\"spares\":0}"))
			return 0;
		sp = strstr(buf, "\"spares\":{\"ready\":");
		if (sp && atoi(sp + strlen("\"spares\":{\"ready\":")) > 0)
			return 0;
		nanosleep(&tick, NULL);
	}
	fprintf(stderr, "wardend_run: no spare ready on %s\n", argv[2]);
	return 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char req[8192], reply[4096], out[64], sink[4096];
	int pfd[2], fd, rc = 1;
	size_t len;
	ssize_t n;

	if (argc > 1 && !strcmp(argv[1], "--exec"))
		return exec_one(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "--settle"))
		return settle(argc, argv);
	if (argc < 4 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: wardend_run SOCKET POLICY CMD...\n");
		return 2;
	}
	if (pipe(pfd)) {
		perror("wardend_run: pipe");
		return 1;
	}
	snprintf(out, sizeof(out), "/proc/%d/fd/%d", (int)getpid(), pfd[1]);
	len = (size_t)snprintf(req, sizeof(req), "{\"op\":\"run\",\"policy\":");
	len = json_str(req, len, sizeof(req), argv[2]);
	len += (size_t)snprintf(req + len, sizeof(req) - len, ",\"stdout\":");
	len = json_str(req, len, sizeof(req), out);
	len += (size_t)snprintf(req + len, sizeof(req) - len, ",\"argv\":[");
	for (int i = 3; i < argc; i++) {
		if (i > 3)
			req[len++] = ',';
		len = json_str(req, len, sizeof(req), argv[i]);
	}
	len += (size_t)snprintf(req + len, sizeof(req) - len, "]}\n");
	if (len >= sizeof(req)) {
		fprintf(stderr, "wardend_run: the request is too long\n");
		return 2;
	}
	strcpy(sa.sun_path, argv[1]);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    write(fd, req, len) != (ssize_t)len) {
		perror("wardend_run: the control socket");
		return 1;
	}
	/* the reply comes once the command runs (the daemon has opened the pipe by then) */
	n = read(fd, reply, sizeof(reply) - 1);
	close(pfd[1]);
	if (n > 0) {
		reply[n] = 0;
		if (strstr(reply, "\"ok\":true"))
			rc = 0;
		else
			fprintf(stderr, "wardend_run: %s", reply);
	}
	/* EOF once the last of the run's processes is gone */
	while ((n = read(pfd[0], sink, sizeof(sink))) > 0)
		;
	close(fd);
	return rc;
}
