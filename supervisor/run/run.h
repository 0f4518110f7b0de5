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
	bool quiet; /* no live status line on the terminal (supervisor/run/status.h) */
	/*
	 * 0: the sandbox dies with warden (embedded mode). Otherwise, if warden dies, the keeper
	 * keeps the sandbox, held calls held, for this many seconds for `warden adopt`.
	 */
	unsigned int survive_s;
	/*
	 * Where to write the sandbox's name and a newline once its command runs (wardend reads it
	 * to answer a run request), then close; unused when below 1.
	 */
	int ready_fd;
	/*
	 * The command's fds 1 and 2: where out_fd[N] is above 2 (wardend's pipes of a streamed
	 * run), that fd instead of warden's own fd N. limits.output then passes on into it.
	 */
	int out_fd[3];
	/*
	 * wardend's read ends of those pipes (above 2, else none), and what it needs to carry the
	 * run on (a JSON object's text, NULL: nothing): with @survive_s the keeper keeps both, and
	 * a successor hands them to the next wardend (wd_adopt_opts.hand_fd).
	 */
	int keep_out[2];
	const char *daemon_state;
	char *const *argv;
	/*
	 * A persistent sandbox (wardend's create, docs/control.md#persistent-sandboxes): no
	 * command of its own (@argv empty), its commands taken from wardend on @exec_fd
	 * (supervisor/run/execs.h), ended by a stop signal (destroy) or after @idle_s without one
	 * running (0: never).
	 */
	bool persistent;
	int exec_fd;
	unsigned int idle_s;
	/*
	 * A spare (supervisor/run/spare.h), above 0: the sandbox is made up to its command's exec
	 * before any request names it; @argv, the sinks, @ready_fd, the command's fds and
	 * @daemon_state come with the claim read here. Unclaimed (a stop signal, or the socket's
	 * end), it ends with nothing written.
	 */
	int spare_fd;
};

/* Runs the command; returns what warden should exit with. */
int wd_run(const struct wd_run_opts *o);

struct wd_adopt_opts {
	const char *sandbox; /* "sb-..." */
	const char *audit_path; /* NULL: where the run wrote its audit, else stderr */
	bool prompt;
	unsigned int wait_ms; /* for a supervisor still ending (its keeper not yet listening) */
	/*
	 * wardend's (above 2, else none): a SOCK_SEQPACKET socket where, once it supervises, the
	 * successor sends {"daemon":OBJ,"fds":["stdout","stderr"]} with the fds those name: what
	 * the run's wd_run_opts.daemon_state and keep_out gave the keeper. Then it is closed.
	 */
	int hand_fd;
};

/*
 * Take over a sandbox whose supervisor died (`warden run --survive`): ask again about the calls
 * it held, answer new ones, serve its holds socket, and when its last task has gone remove it.
 * Returns 0 when it was supervised to its end, 1 otherwise (said why).
 */
int wd_adopt(const struct wd_adopt_opts *o);

#endif
