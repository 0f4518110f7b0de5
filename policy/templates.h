/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The policy templates shipped in policy/templates/, built into the binary (the build turns each
 * NAME.json and its line in policy/templates/index into an entry), so `--policy cli` and
 * `"extends": "cli"` work wherever warden is installed.
 */
#ifndef WD_TEMPLATES_H
#define WD_TEMPLATES_H

#include <stdbool.h>
#include <stddef.h>

struct wd_template {
	const char *name;
	const char *summary; /* one line: what it is for */
	const char *text;    /* the JSON body, NUL-terminated */
	size_t len;
};

/* Sorted by name, ended by an entry whose name is NULL. Generated: build/policy/templates_data.c */
extern const struct wd_template wd_templates[];

/* The template called @name, or NULL. */
const struct wd_template *wd_template_find(const char *name);

/*
 * Does @s name a template rather than a file? Template names are lower-case letters, digits and
 * "-"; anything with a "/" or a "." (p.json, ./cli) is a file.
 */
bool wd_is_template_name(const char *s);

#endif
