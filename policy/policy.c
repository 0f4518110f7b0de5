// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "bpf/wd_abi.h"
#include "policy/policy.h"

/* Parts of the schema that a later warden enforces: refused by name, never silently ignored. */
static const char *const not_yet[] = {
	"exec", "net", "limits", "env", "user", "namespaces", "hold", "extends",
};

static void set_error(struct wd_policy_error *err, const char *pointer, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_error(struct wd_policy_error *err, const char *pointer, const char *fmt, ...)
{
	va_list ap;

	snprintf(err->pointer, sizeof(err->pointer), "%s", pointer);
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/* @base + "/" + @key as a JSON pointer: "~" becomes "~0" and "/" becomes "~1" (RFC 6901). */
static void pointer_join(char *buf, size_t bufsz, const char *base, const char *key)
{
	size_t o = (size_t)snprintf(buf, bufsz, "%s/", base);

	for (; *key && o + 3 < bufsz; key++) {
		if (*key == '~' || *key == '/') {
			buf[o++] = '~';
			buf[o++] = *key == '~' ? '0' : '1';
		} else {
			buf[o++] = *key;
		}
	}
	buf[o < bufsz ? o : bufsz - 1] = 0;
}

static const char *json_type_name(const cJSON *v)
{
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsNumber(v))
		return "a number";
	if (cJSON_IsBool(v))
		return "a boolean";
	if (cJSON_IsNull(v))
		return "null";
	if (cJSON_IsArray(v))
		return "an array";
	if (cJSON_IsObject(v))
		return "an object";
	return "something else";
}

int wd_path_normalise(const char *in, char *out, size_t outsz, const char **why)
{
	size_t o = 0;
	const char *p = in;

	if (!in || in[0] != '/') {
		*why = "expected an absolute path (starting with \"/\")";
		return -EINVAL;
	}
	while (*p) {
		const char *seg;
		size_t n;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		seg = p;
		while (*p && *p != '/')
			p++;
		n = (size_t)(p - seg);
		if ((n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.')) {
			*why = "a path must not contain \".\" or \"..\" components";
			return -EINVAL;
		}
		if (o + 1 + n + 1 > outsz) {
			*why = "path is too long";
			return -EINVAL;
		}
		out[o++] = '/';
		memcpy(out + o, seg, n);
		o += n;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = 0;
	return 0;
}

static int parse_path_list(const cJSON *arr, const char *pointer, struct wd_path_list *list,
			   struct wd_policy_error *err)
{
	const cJSON *item;
	size_t i = 0;
	char ptr[256];

	if (!cJSON_IsArray(arr)) {
		set_error(err, pointer, "expected an array of absolute paths, got %s",
			  json_type_name(arr));
		return -EINVAL;
	}
	list->n = 0;
	list->paths = calloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(char *));
	if (!list->paths)
		return -ENOMEM;
	cJSON_ArrayForEach(item, arr) {
		char norm[WD_LPM_PATH_BYTES];
		const char *why = NULL;

		snprintf(ptr, sizeof(ptr), "%.200s/%zu", pointer, i++);
		if (!cJSON_IsString(item)) {
			set_error(err, ptr, "expected an absolute path string, got %s",
				  json_type_name(item));
			return -EINVAL;
		}
		if (wd_path_normalise(item->valuestring, norm, sizeof(norm), &why)) {
			if (strcmp(why, "path is too long") == 0)
				set_error(err, ptr, "path \"%.64s...\" is longer than %d bytes",
					  item->valuestring, WD_LPM_PATH_BYTES - 2);
			else
				set_error(err, ptr, "%s, got \"%s\"", why, item->valuestring);
			return -EINVAL;
		}
		list->paths[list->n] = strdup(norm);
		if (!list->paths[list->n])
			return -ENOMEM;
		list->n++;
	}
	return 0;
}

static int parse_fs(const cJSON *fs, struct wd_policy *out, struct wd_policy_error *err)
{
	const cJSON *item;
	char ptr[256];
	int r;

	if (!cJSON_IsObject(fs)) {
		set_error(err, "/fs", "expected an object with \"read\", \"write\", \"exec\", got %s",
			  json_type_name(fs));
		return -EINVAL;
	}
	cJSON_ArrayForEach(item, fs) {
		struct wd_path_list *list = NULL;

		pointer_join(ptr, sizeof(ptr), "/fs", item->string);
		if (strcmp(item->string, "read") == 0)
			list = &out->fs_read;
		else if (strcmp(item->string, "write") == 0)
			list = &out->fs_write;
		else if (strcmp(item->string, "exec") == 0)
			list = &out->fs_exec;
		if (!list && (strcmp(item->string, "deny") == 0 ||
			      strcmp(item->string, "protect") == 0)) {
			set_error(err, ptr, "\"%s\" is not enforced by this warden yet; remove it",
				  item->string);
			return -EINVAL;
		}
		if (!list) {
			set_error(err, ptr, "unknown key \"%s\" (expected \"read\", \"write\" or \"exec\")",
				  item->string);
			return -EINVAL;
		}
		if (list->paths) {
			set_error(err, ptr, "duplicate key \"%s\"", item->string);
			return -EINVAL;
		}
		r = parse_path_list(item, ptr, list, err);
		if (r)
			return r;
	}
	return 0;
}

static bool is_not_yet(const char *key)
{
	for (size_t i = 0; i < sizeof(not_yet) / sizeof(not_yet[0]); i++)
		if (strcmp(key, not_yet[i]) == 0)
			return true;
	return false;
}

/* Line and column (1-based) of byte @off in @text. */
static void locate(const char *text, size_t len, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && i < len; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

int wd_policy_parse(const char *text, size_t len, struct wd_policy *out,
		    struct wd_policy_error *err)
{
	const char *end = NULL;
	const cJSON *item;
	bool seen_schema = false;
	cJSON *doc;
	int r = 0;

	memset(out, 0, sizeof(*out));
	memset(err, 0, sizeof(*err));
	doc = cJSON_ParseWithLengthOpts(text, len, &end, false);
	if (doc && end) {
		/* Only white space may follow the document. */
		while ((size_t)(end - text) < len && strchr(" \t\r\n", *end) && *end)
			end++;
		if ((size_t)(end - text) < len) {
			cJSON_Delete(doc);
			doc = NULL;
		}
	}
	if (!doc) {
		size_t off = end ? (size_t)(end - text) : 0;

		if (!end && cJSON_GetErrorPtr())
			off = (size_t)(cJSON_GetErrorPtr() - text);
		locate(text, len, off, &err->line, &err->col);
		set_error(err, "", "not valid JSON (error near line %d, column %d)", err->line,
			  err->col);
		return -EINVAL;
	}
	if (!cJSON_IsObject(doc)) {
		set_error(err, "", "expected a JSON object, got %s", json_type_name(doc));
		r = -EINVAL;
		goto out_free_doc;
	}
	cJSON_ArrayForEach(item, doc) {
		char ptr[256];

		pointer_join(ptr, sizeof(ptr), "", item->string);
		if (strcmp(item->string, "schema") == 0) {
			if (!cJSON_IsString(item) || strcmp(item->valuestring, WD_POLICY_SCHEMA)) {
				set_error(err, ptr, "expected \"%s\"", WD_POLICY_SCHEMA);
				r = -EINVAL;
				goto out_free_doc;
			}
			seen_schema = true;
		} else if (strcmp(item->string, "mode") == 0) {
			if (cJSON_IsString(item) && strcmp(item->valuestring, "enforce") == 0) {
				out->mode = WD_MODE_ENFORCE;
			} else if (cJSON_IsString(item) && strcmp(item->valuestring, "audit") == 0) {
				out->mode = WD_MODE_AUDIT;
			} else {
				set_error(err, ptr, "expected \"enforce\" or \"audit\"");
				r = -EINVAL;
				goto out_free_doc;
			}
		} else if (strcmp(item->string, "fs") == 0) {
			r = parse_fs(item, out, err);
			if (r)
				goto out_free_doc;
		} else if (is_not_yet(item->string)) {
			set_error(err, ptr, "\"%s\" is not enforced by this warden yet; remove it",
				  item->string);
			r = -EINVAL;
			goto out_free_doc;
		} else {
			set_error(err, ptr, "unknown key \"%s\"", item->string);
			r = -EINVAL;
			goto out_free_doc;
		}
	}
	if (!seen_schema) {
		set_error(err, "/schema", "missing; expected \"%s\"", WD_POLICY_SCHEMA);
		r = -EINVAL;
	}
out_free_doc:
	cJSON_Delete(doc);
	if (r)
		wd_policy_free(out);
	return r;
}

int wd_policy_load_file(const char *path, struct wd_policy *out, struct wd_policy_error *err)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	FILE *f;
	int r = 0;

	memset(err, 0, sizeof(*err));
	memset(out, 0, sizeof(*out));
	f = fopen(path, "re");
	if (!f) {
		r = -errno;
		set_error(err, "", "cannot read: %s", strerror(-r));
		return r;
	}
	for (;;) {
		size_t n;

		if (len == cap) {
			char *nb;

			cap = cap ? cap * 2 : 4096;
			if (cap > (16u << 20)) {
				set_error(err, "", "larger than 16 MiB");
				r = -EFBIG;
				goto out_close;
			}
			nb = realloc(buf, cap);
			if (!nb) {
				r = -ENOMEM;
				goto out_close;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		r = -EIO;
		set_error(err, "", "read error");
		goto out_close;
	}
	r = wd_policy_parse(buf, len, out, err);
out_close:
	fclose(f);
	free(buf);
	return r;
}

static void free_list(struct wd_path_list *l)
{
	for (size_t i = 0; l->paths && i < l->n; i++)
		free(l->paths[i]);
	free(l->paths);
	l->paths = NULL;
	l->n = 0;
}

void wd_policy_free(struct wd_policy *p)
{
	free_list(&p->fs_read);
	free_list(&p->fs_write);
	free_list(&p->fs_exec);
}

void wd_policy_error_format(const struct wd_policy_error *err, const char *file, char *buf,
			    size_t bufsz)
{
	if (err->pointer[0])
		snprintf(buf, bufsz, "%s: %s: %s", file, err->pointer, err->msg);
	else
		snprintf(buf, bufsz, "%s: %s", file, err->msg);
}
