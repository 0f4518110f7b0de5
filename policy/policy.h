/* SPDX-License-Identifier: GPL-2.0 */
/*
 * warden.policy/1: JSON text to plain structs. Pure C (cJSON only): no libbpf, no syscalls but
 * reading the file, so it is unit-tested without root. Nothing is applied unless the whole policy
 * is valid; an error names the JSON pointer of the bad field and what was expected.
 */
#ifndef WD_POLICY_H
#define WD_POLICY_H

#include <stddef.h>

#define WD_POLICY_SCHEMA "warden.policy/1"

enum wd_mode {
	WD_MODE_ENFORCE = 0,
	WD_MODE_AUDIT = 1,
};

struct wd_path_list {
	char **paths; /* normalised: absolute, no "." or "..", no trailing or double slash */
	size_t n;
};

struct wd_policy {
	enum wd_mode mode;
	struct wd_path_list fs_read;
	struct wd_path_list fs_write;
	struct wd_path_list fs_exec;
};

struct wd_policy_error {
	char pointer[256]; /* JSON pointer of the bad field; "" for the document itself */
	char msg[512];
	int line; /* 1-based; 0 when unknown */
	int col;
};

/* Parse @len bytes of JSON. Returns 0, or -EINVAL with @err filled in. */
int wd_policy_parse(const char *text, size_t len, struct wd_policy *out,
		    struct wd_policy_error *err);
/* Read and parse a file; -errno (with @err saying why) when it cannot be read. */
int wd_policy_load_file(const char *path, struct wd_policy *out, struct wd_policy_error *err);
void wd_policy_free(struct wd_policy *p);

/*
 * Normalise an absolute path into @out (size @outsz): collapse "//", drop a trailing "/", refuse
 * "." and ".." components. Returns 0 or -EINVAL with a reason in @why.
 */
int wd_path_normalise(const char *in, char *out, size_t outsz, const char **why);

/* "file: /fs/read/1: expected ..." into @buf. */
void wd_policy_error_format(const struct wd_policy_error *err, const char *file, char *buf,
			    size_t bufsz);

#endif
