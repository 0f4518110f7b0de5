// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for control-socket requests (`make fuzz-request`): the input is one request
 * line as a client (any client: these are the bytes a hostile peer controls) sends it to
 * wardend. Beyond "no crash, no undefined behaviour, no leak" it checks what must hold for
 * every input: a line is either refused with a reply a program can act on ({"ok":false} with an
 * error and a code, and for an unknown key the key), or it is an object whose op is known and
 * whose every key that op takes; an id echoed is a number or a string of at most 128 bytes; and
 * the reply prints as JSON that parses again.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "supervisor/daemon/request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_refusal(const cJSON *r)
{
	const cJSON *ok = cJSON_GetObjectItemCaseSensitive(r, "ok");
	const cJSON *err = cJSON_GetObjectItemCaseSensitive(r, "error");
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(r, "code");
	char *text = cJSON_PrintUnformatted(r);
	cJSON *again = text ? cJSON_Parse(text) : NULL;

	if (!cJSON_IsFalse(ok) || !cJSON_IsString(err) || !cJSON_IsString(code) || !again)
		abort();
	if (!strcmp(code->valuestring, "unknown_key") &&
	    !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(r, "key")))
		abort();
	cJSON_Delete(again);
	free(text);
}

static void check_request(const struct wd_request *q)
{
	const char *const *keys = wd_request_keys(q->op);
	const cJSON *k;

	if (!q->req || !cJSON_IsObject(q->req) || !q->op || !keys)
		abort();
	cJSON_ArrayForEach(k, q->req) {
		bool known = false;

		for (int i = 0; keys[i] && !known; i++)
			known = !strcmp(keys[i], k->string);
		if (!known)
			abort();
	}
	if (q->id && !cJSON_IsNumber(q->id) &&
	    !(cJSON_IsString(q->id) && strlen(q->id->valuestring) <= 128))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wd_request q;
	cJSON *r = wd_request_parse((const char *)data, size, &q);

	if (r)
		check_refusal(r);
	else
		check_request(&q);
	cJSON_Delete(r);
	wd_request_free(&q);
	return 0;
}
