/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Backend room: the guarantee table (guarantees.c). What each backend guarantees, rule by rule and
 * bypass class by bypass class: the one list that `warden doctor` prints, docs/backends.md is
 * generated from (a unit test keeps them equal), and the escape tests assert against.
 */
#ifndef WD_GUARANTEES_H
#define WD_GUARANTEES_H

#include <stdio.h>

enum wd_cover {
	WD_COVER_YES, /* enforced */
	WD_COVER_PARTIAL, /* enforced in part; the note says which */
	WD_COVER_NO, /* not enforced; the note says why or when */
};

struct wd_cover_cell {
	enum wd_cover cover;
	const char *note;
};

/* A backend's column of the table: each backend names its own (struct wd_backend_ops.column). */
enum wd_guarantee_column {
	WD_COLUMN_BPF_LSM,
	WD_COLUMN_LANDLOCK,
};

struct wd_capability {
	const char *id; /* stable, for tests: "fs.read", "escape.memfd-exec", ... */
	const char *what;
	struct wd_cover_cell bpf_lsm;
	struct wd_cover_cell landlock;
};

/* The list, ended by an entry with id NULL. */
extern const struct wd_capability wd_capabilities[];

const struct wd_capability *wd_capability_find(const char *id);
/* The cell in column @col. */
const struct wd_cover_cell *wd_guarantee_cell(const struct wd_capability *c,
					      enum wd_guarantee_column col);
/* The cell of the backend called @name ("bpf-lsm" or "landlock"); NULL for an unknown one. */
const struct wd_cover_cell *wd_capability_cell(const struct wd_capability *c, const char *name);
/* The table as Markdown, as docs/backends.md carries it between its markers. */
void wd_capabilities_markdown(FILE *out);

#endif
