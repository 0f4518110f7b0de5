/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How a command ended, decoded once: a wait(2) status (what the sandbox's init reports, what
 * waitpid returns) as waitid's siginfo says it, and a siginfo as warden's exit code (the command's
 * own, or 128 + the signal that ended it, as a shell says it). For warden, its keeper, a successor
 * and wardend alike.
 */
#ifndef WD_SANDBOX_EXIT_STATUS_H
#define WD_SANDBOX_EXIT_STATUS_H

#include <signal.h>

struct wd_exit_status {
	int code; /* the command's exit status, or 128 + signo */
	int signo; /* the signal that ended it, or 0 when it exited */
};

/* @status as waitid would have said it in @si; @si is left alone when it says no end. */
void wd_exit_siginfo_of_wait(int status, siginfo_t *si);
struct wd_exit_status wd_exit_status_of(const siginfo_t *si);
/* The exit code of a wait(2) @status (wd_exit_status_of its siginfo). */
int wd_exit_code_of_wait(int status);

#endif
