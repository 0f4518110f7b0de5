// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the audit formatter (`make fuzz-audit`): the input as a kernel record off
 * the ring buffer (every byte of it the kernel's, and of its strings the sandbox's), and as one
 * string from outside. Beyond "no crash, no undefined behaviour" it checks what must hold for
 * every input: a line is well-formed UTF-8, parses as JSON and holds no raw control byte; it is
 * the same line into a fixed buffer that fits, and a buffer one byte short takes nothing; a
 * string comes back exact, or as UTF-8 with its exact bytes in "_b64".
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "audit/jbuf.h"
#include "audit/jsonl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_line(const char *line, size_t n)
{
	cJSON *o;

	if (!wd_utf8_valid(line, n))
		abort();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)line[i] < 0x20)
			abort();
	o = cJSON_ParseWithLength(line, n);
	if (!o || !cJSON_IsObject(o))
		abort();
	cJSON_Delete(o);
}

static void check_record(const uint8_t *data, size_t size, bool fix_size)
{
	static char raw[WD_REC_FILE_SIZE + WD_PATH_MAX] __attribute__((aligned(8)));
	static char fixed[65536];
	struct wd_audit_ctx ctx = { .sandbox = "sb-1", .seq = 9 };
	struct wd_jbuf b;
	char *line;
	size_t n;

	if (size > sizeof(raw))
		size = sizeof(raw);
	memcpy(raw, data, size); /* the ring buffer hands records aligned */
	/* as the kernel sends it, its size field right, so the fuzzer reaches what comes after */
	if (fix_size && size >= sizeof(struct wd_rec_hdr))
		((struct wd_rec_hdr *)raw)->size = (__u16)size;
	line = wd_audit_event_line(&ctx, raw, size, NULL);
	if (!line) {
		if (ctx.seq != 9)
			abort(); /* refused, yet it used a number */
		return;
	}
	n = strlen(line);
	check_line(line, n);
	ctx.seq = 9;
	wd_jb_init_fixed(&b, fixed, n);
	if (wd_audit_event_put(&ctx, &b, raw, size, NULL) || b.len != n || memcmp(fixed, line, n))
		abort();
	ctx.seq = 9;
	wd_jb_init_fixed(&b, fixed, n - 1);
	if (wd_audit_event_put(&ctx, &b, raw, size, NULL) != -ENOSPC || b.len || ctx.seq != 9)
		abort();
	free(line);
}

static void check_string(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	size_t n = strnlen(s, size);
	struct wd_jbuf b;
	cJSON *o, *k, *k64;
	char *want;

	wd_jb_init_heap(&b);
	wd_jb_open(&b, '{');
	wd_jb_ext_field(&b, "k", s, n);
	wd_jb_close(&b, '}');
	if (b.full)
		abort();
	check_line(b.p, b.len);
	o = cJSON_ParseWithLength(b.p, b.len);
	k = cJSON_GetObjectItemCaseSensitive(o, "k");
	k64 = cJSON_GetObjectItemCaseSensitive(o, "k_b64");
	if (!cJSON_IsString(k))
		abort();
	if (wd_utf8_valid(s, n)) {
		if (k64 || strlen(k->valuestring) != n || memcmp(k->valuestring, s, n))
			abort();
	} else {
		/* the exact bytes (the unit tests decode base64 on their own) */
		want = wd_audit_base64(s, n);
		if (!cJSON_IsString(k64) || !want || strcmp(k64->valuestring, want) ||
		    !wd_utf8_valid(k->valuestring, strlen(k->valuestring)))
			abort();
		free(want);
	}
	cJSON_Delete(o);
	wd_jb_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_record(data, size, false);
	check_record(data, size, true);
	check_string(data, size);
	return 0;
}
