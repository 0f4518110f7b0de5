// SPDX-License-Identifier: GPL-2.0
/*
 * run -> stream -> hold -> approve -> report through wardend (docs/control.md), in C with
 * cJSON: the same flow as harness.py. Each hold is answered with $APPROVE ("y" approves),
 * else asked on the terminal.
 *
 *   harness SOCKET POLICY.json -- COMMAND...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cJSON.h>
#include <openssl/evp.h>

/* Send @req on a new connection to @path; write the output events; return the last message. */
static cJSON *request(const char *path, cJSON *req)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char *text = cJSON_PrintUnformatted(req), *line = NULL;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	size_t cap = 0;
	FILE *in;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    dprintf(fd, "%s\n", text) < 0 || !(in = fdopen(fd, "r"))) {
		perror(path);
		exit(125);
	}
	free(text);
	cJSON_Delete(req);
	while (getline(&line, &cap, in) > 0) {
		cJSON *m = cJSON_Parse(line);
		const char *ev = cJSON_GetStringValue(cJSON_GetObjectItem(m, "event"));
		const char *data = cJSON_GetStringValue(cJSON_GetObjectItem(m, "data"));
		const char *b64 = cJSON_GetStringValue(cJSON_GetObjectItem(m, "data_b64"));

		if (cJSON_IsFalse(cJSON_GetObjectItem(m, "ok"))) {
			fprintf(stderr, "wardend: %s\n",
				cJSON_GetStringValue(cJSON_GetObjectItem(m, "error")));
			exit(125);
		}
		if (ev && (!strcmp(ev, "stdout") || !strcmp(ev, "stderr"))) {
			FILE *out = !strcmp(ev, "stdout") ? stdout : stderr;
			unsigned char raw[65536];
			int n = b64 ? EVP_DecodeBlock(raw, (const unsigned char *)b64, (int)strlen(b64)) : 0;
			size_t len = strlen(b64 ? b64 : "");

			/* EVP_DecodeBlock counts the padding too */
			n -= len > 0 && b64[len - 1] == '=' ? (len > 1 && b64[len - 2] == '=' ? 2 : 1) : 0;
			if (data)
				fputs(data, out);
			else if (n > 0)
				fwrite(raw, 1, (size_t)n, out);
			fflush(out);
		}
		if (cJSON_GetObjectItem(m, "status") || (ev && !strcmp(ev, "exit"))) {
			fclose(in);
			free(line);
			return m;
		}
		cJSON_Delete(m);
	}
	fprintf(stderr, "harness: wardend closed the connection\n");
	exit(125);
}

int main(int argc, char **argv)
{
	cJSON *req = cJSON_CreateObject(), *m, *args, *pol, *rep;
	char *text, answer[16] = "";
	FILE *f;
	long n;

	if (argc < 5 || strcmp(argv[3], "--") || !(f = fopen(argv[2], "r"))) {
		fprintf(stderr, "usage: harness SOCKET POLICY.json -- COMMAND...\n");
		return 2;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)n + 1);
	if (!text || fread(text, 1, (size_t)n, f) != (size_t)n || !(pol = cJSON_Parse(text))) {
		fprintf(stderr, "harness: %s is no JSON policy\n", argv[2]);
		return 2;
	}
	fclose(f);
	free(text);
	args = cJSON_AddArrayToObject(req, "argv");
	for (int i = 4; i < argc; i++)
		cJSON_AddItemToArray(args, cJSON_CreateString(argv[i]));
	cJSON_AddStringToObject(req, "op", "run");
	cJSON_AddBoolToObject(req, "stream", 1);
	cJSON_AddStringToObject(req, "holds", "return");
	cJSON_AddItemToObject(req, "policy", pol);
	m = request(argv[1], req);
	while (cJSON_GetObjectItem(m, "status")) {
		const cJSON *h = cJSON_GetObjectItem(m, "hold");
		const char *env = getenv("APPROVE");

		if (env) {
			snprintf(answer, sizeof(answer), "%s", env);
		} else {
			fprintf(stderr, "allow %s %s (%s)? [y/N] ",
				cJSON_GetStringValue(cJSON_GetObjectItem(h, "op")),
				cJSON_GetStringValue(cJSON_GetObjectItem(h, "target")),
				cJSON_GetStringValue(cJSON_GetObjectItem(h, "rule")));
			if (!fgets(answer, sizeof(answer), stdin))
				answer[0] = 0;
		}
		req = cJSON_CreateObject();
		cJSON_AddStringToObject(req, "op", "resume");
		cJSON_AddStringToObject(req, "token",
					cJSON_GetStringValue(cJSON_GetObjectItem(m, "token")));
		cJSON_AddStringToObject(req, "resolution",
					answer[0] == 'y' || answer[0] == 'Y' ? "approve" : "deny");
		cJSON_Delete(m);
		m = request(argv[1], req);
	}
	rep = cJSON_GetObjectItem(m, "report");
	n = (long)cJSON_GetNumberValue(cJSON_GetObjectItem(m, "code"));
	fprintf(stderr, "harness: %s, exit %ld, %.0f denied, %.0f held\n",
		cJSON_GetStringValue(cJSON_GetObjectItem(rep, "status")), n,
		cJSON_GetNumberValue(cJSON_GetObjectItem(rep, "denials")),
		cJSON_GetNumberValue(cJSON_GetObjectItem(rep, "holds")));
	cJSON_Delete(m);
	return (int)n;
}
