// SPDX-License-Identifier: GPL-2.0
/*
 * wd-schemack SCHEMA FILE: whether the JSON document FILE validates against the JSON Schema
 * SCHEMA (tests/schema_check.h): exit 0, or 1 saying where it does not; 2 on a bad schema or
 * file. The integration tests check real run reports against docs/report.schema.json with it.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cJSON.h>

#define fail_msg(...)                                                                            \
	do {                                                                                     \
		fprintf(stderr, "wd-schemack: " __VA_ARGS__);                                    \
		fputc('\n', stderr);                                                             \
		exit(2);                                                                         \
	} while (0)

static cJSON *schema;
static char why[1024];

#include "tests/schema_check.h"

static cJSON *read_json(const char *path)
{
	FILE *f = fopen(path, "re");
	char *text = NULL;
	size_t cap = 0;
	ssize_t n;
	cJSON *j;

	if (!f)
		fail_msg("cannot open %s", path);
	n = getdelim(&text, &cap, '\0', f);
	fclose(f);
	if (n < 0)
		fail_msg("cannot read %s", path);
	j = cJSON_ParseWithLength(text, (size_t)n);
	free(text);
	if (!j)
		fail_msg("%s is not JSON", path);
	return j;
}

int main(int argc, char **argv)
{
	cJSON *doc;
	bool ok;

	if (argc != 3) {
		fprintf(stderr, "usage: wd-schemack SCHEMA FILE\n");
		return 2;
	}
	schema = read_json(argv[1]);
	doc = read_json(argv[2]);
	ok = valid(doc, schema, "");
	if (!ok)
		fprintf(stderr, "%s: %s\n", argv[2], why);
	cJSON_Delete(doc);
	cJSON_Delete(schema);
	return ok ? 0 : 1;
}
