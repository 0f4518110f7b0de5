// SPDX-License-Identifier: GPL-2.0
/*
 * wd-stream: a streamed run through wardend, as a harness drives it (t_daemon.sh). Sends
 * REQUEST (one JSON line) to the unix stream socket SOCKET and reads its lines until the exit
 * event: the first line (the reply) into DIR/reply, the exit event into DIR/exit, and the
 * bytes of every stdout and stderr event, decoded ("data", or "data_b64"), appended to
 * DIR/stdout and DIR/stderr; hold and decision events appended to DIR/holds. A request that
 * ends held ({"status":"held",...}, "holds":"return") ends it too: that line into DIR/held. Fails (exit 1, saying why) when a line is not JSON, an event
 * comes before the reply or after the exit, or carries another request's id; 0 once the exit
 * event came. With --read-after N it sleeps N ms after the reply before reading on (a client
 * slower than the command).
 *
 *   wd-stream [--read-after MS] SOCKET REQUEST DIR
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>
#include <openssl/evp.h>

static char dir[4096];

static int put(const char *name, const void *b, size_t n, const char *mode)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, mode);
	if (!f || fwrite(b, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "wd-stream: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The bytes an output event carries, appended to DIR/stdout or DIR/stderr. */
static int output(const cJSON *e, const char *name)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(e, "data");
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(e, "data_b64");
	unsigned char *raw;
	size_t len, pad = 0;
	int n, err;

	if (cJSON_IsString(t))
		return put(name, t->valuestring, strlen(t->valuestring), "a");
	if (!cJSON_IsString(b)) {
		fprintf(stderr, "wd-stream: an output event with neither data nor data_b64\n");
		return -1;
	}
	len = strlen(b->valuestring);
	raw = malloc(len / 4 * 3 + 3);
	n = raw ? EVP_DecodeBlock(raw, (const unsigned char *)b->valuestring, (int)len) : -1;
	if (n < 0) {
		fprintf(stderr, "wd-stream: data_b64 is not base64: %s\n", b->valuestring);
		free(raw);
		return -1;
	}
	/* EVP_DecodeBlock counts the padding's bytes too */
	while (pad < 2 && len > pad && b->valuestring[len - 1 - pad] == '=')
		pad++;
	err = put(name, raw, (size_t)n - pad, "a");
	free(raw);
	return err;
}

static int line(const char *l, const cJSON **id, bool *replied)
{
	cJSON *e = cJSON_Parse(l);
	const cJSON *ev = e ? cJSON_GetObjectItemCaseSensitive(e, "event") : NULL;
	int r = 0;

	if (!e) {
		fprintf(stderr, "wd-stream: not JSON: %s\n", l);
		return -1;
	}
	if (!cJSON_Compare(cJSON_GetObjectItemCaseSensitive(e, "id"), *id, true)) {
		fprintf(stderr, "wd-stream: another request's id: %s\n", l);
		r = -1;
	} else if (!*replied) {
		*replied = true;
		r = ev ? -1 : put("reply", l, strlen(l), "w");
		if (ev)
			fprintf(stderr, "wd-stream: an event before the reply: %s\n", l);
		else if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "ok")))
			r = 2; /* refused: the reply says why */
	} else if (cJSON_IsString(ev) && !strcmp(ev->valuestring, "exit")) {
		r = put("exit", l, strlen(l), "w") ?: 1;
	} else if (!ev && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "status"))) {
		r = put("held", l, strlen(l), "w") ?: 1;
	} else if (cJSON_IsString(ev) && (!strcmp(ev->valuestring, "hold") ||
					  !strcmp(ev->valuestring, "decision"))) {
		r = put("holds", l, strlen(l), "a") ?: put("holds", "\n", 1, "a");
	} else if (cJSON_IsString(ev) && (!strcmp(ev->valuestring, "stdout") ||
					  !strcmp(ev->valuestring, "stderr"))) {
		r = output(e, ev->valuestring);
	} else {
		fprintf(stderr, "wd-stream: an event it does not know: %s\n", l);
		r = -1;
	}
	cJSON_Delete(e);
	return r;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static char buf[1 << 22];
	size_t got = 0, len;
	long after = 0;
	bool replied = false;
	const cJSON *id;
	cJSON *req;
	ssize_t n;
	int fd;

	if (argc == 6 && !strcmp(argv[1], "--read-after")) {
		after = atol(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: wd-stream [--read-after MS] SOCKET REQUEST DIR\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s", argv[3]);
	req = cJSON_Parse(argv[2]);
	id = req ? cJSON_GetObjectItemCaseSensitive(req, "id") : NULL;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", argv[1]);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (!req || fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "wd-stream: %s: %s\n", argv[1], req ? strerror(errno) : "bad request");
		return 1;
	}
	len = strlen(argv[2]);
	if (write(fd, argv[2], len) != (ssize_t)len || write(fd, "\n", 1) != 1)
		return 1;
	while ((n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0) {
		char *nl, *p = buf;

		got += (size_t)n;
		buf[got] = 0;
		while ((nl = memchr(p, '\n', got - (size_t)(p - buf)))) {
			bool was = replied;
			int r;

			*nl = 0;
			r = line(p, &id, &replied);
			if (r)
				return r == 1 ? 0 : r == 2 ? 3 : 1;
			p = nl + 1;
			if (!was && replied && after) {
				struct timespec ts = { after / 1000, after % 1000 * 1000000 };

				nanosleep(&ts, NULL);
			}
		}
		got -= (size_t)(p - buf);
		memmove(buf, p, got);
	}
	fprintf(stderr, "wd-stream: the connection ended before the exit event\n");
	return 1;
}
