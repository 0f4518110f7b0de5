/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run's holds wired to the rest of the run (shared by run and adopt): the waiting room's events
 * become audit lines, refusals the record path names, publications on the holds socket and
 * journal entries at the keeper; the prompt on the caller's terminal (`--prompt`).
 */
#ifndef WD_RUN_HOLDS_H
#define WD_RUN_HOLDS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "supervisor/hold/engine.h"
#include "supervisor/hold/holds_socket.h"
#include "supervisor/hold/rules.h"
#include "supervisor/hold/waiting_room.h"

struct run_state;
struct wd_keeper;
struct wd_spawn_opts;

/* The holds of this run, where its policy holds anything. */
struct run_holds {
	struct wd_hold_rules rules;
	struct wd_notify_plan plan;
	struct wd_hold_engine *engine;
	struct wd_ctl *ctl;
	struct run_state *st;
	struct wd_keeper *keeper; /* gets a copy of the listener */
	void *recv_page; /* where the waiting room's calls are received; NULL until attached */
	int recv_fd; /* its memfd, when recv_page is set */
	int deny_errno; /* what the backend's kernel side answers a denied change */
	uint64_t held, decided;
	char waiting_on[256]; /* the last operation held, in words, for the status line */
	bool prompting; /* `run --prompt` asks on the caller's terminal: the relay pauses */
};

#define WD_RECV_PAGE 4096

/*
 * The page the engine receives calls into (h->recv_page): a new memfd (@fd < 0, the run) or the
 * one the keeper kept (adopt). 0, or -errno when there is none (the engine then receives into
 * its own memory, and a crash in the window is not covered).
 */
int wd_run_holds_receive_page(struct run_holds *h, int fd);

/*
 * The engine (and with @serve its socket) exist before the child: its own exec may be held.
 * 0 or -errno.
 */
int wd_run_holds_start(struct run_holds *h, const char *sandbox, bool allow_io_uring, bool serve);
/*
 * The holds socket (run-SANDBOX.sock) opened, once the engine is: a spare's only once it is
 * claimed, since nothing answers it before (an operator's `warden holds` would wait on it).
 * 0 or -errno.
 */
int wd_run_holds_serve(struct run_holds *h, const char *sandbox);
/* The waiting room in @o, answered while the command's exec waits. */
void wd_run_holds_spawn_opts(struct run_holds *h, struct wd_spawn_opts *o);
/* The same for an exec of a persistent sandbox: a waiting room of its own, one of several. */
void wd_run_holds_exec_opts(struct run_holds *h, struct wd_spawn_opts *o);
/* The engine and its socket go (the rules stay, freed with wd_hold_rules_free). */
void wd_run_holds_close(struct run_holds *h);

/*
 * `--prompt`: `warden prompt --sandbox NAME` on the caller's terminal, so the one who started
 * the run can answer its holds there. Returns its pid, or -1 (said why).
 */
pid_t wd_run_prompt_start(const char *sandbox);
/* Held calls of a sandbox that has gone have nobody left to answer. */
void wd_run_prompt_stop(pid_t prompter);

#endif
