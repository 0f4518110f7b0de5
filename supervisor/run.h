/* SPDX-License-Identifier: GPL-2.0 */
/* One sandboxed command, start to finish, in-process (`warden run`). */
#ifndef WD_RUN_H
#define WD_RUN_H

#include <stdbool.h>

/* Exit statuses of warden itself, as docs/cli.md lists them. */
enum wd_exit {
	WD_EXIT_USAGE = 2, /* bad arguments or a bad policy: nothing was run */
	WD_EXIT_INTERNAL = 125, /* warden could not set the sandbox up: nothing was run */
	WD_EXIT_CANNOT_EXEC = 126, /* the command exists but could not be executed */
	WD_EXIT_NOT_FOUND = 127, /* the command was not found */
};

struct wd_policy_derive;

struct wd_run_opts {
	const char *policy_path; /* a file or a template name */
	const struct wd_policy_derive *derive; /* command-line additions; may be NULL */
	const char *report_path; /* NULL: no report */
	const char *audit_path; /* NULL: stderr */
	const char *backend; /* "auto" or a backend name */
	bool prompt; /* ask about holds on the caller's terminal too */
	char *const *argv;
};

/* Runs the command; returns what warden should exit with. */
int wd_run(const struct wd_run_opts *o);

#endif
