/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommands of `warden` that live outside tools/warden.c, one file per concern. */
#ifndef WD_CMDS_H
#define WD_CMDS_H

#include <stdbool.h>
#include <stdio.h>

#include "supervisor/run/run.h"

/*
 * A command's usage text: on standard output when it was asked for (--help, exit status 0),
 * else on standard error (bad arguments, WD_EXIT_USAGE). Every tool answers so.
 */
static inline int wd_usage(const char *text, bool asked)
{
	fputs(text, asked ? stdout : stderr);
	return asked ? 0 : WD_EXIT_USAGE;
}

/* tools/cmd_hold.c */
int cmd_holds(int argc, char **argv);
int cmd_approve(int argc, char **argv);
int cmd_deny(int argc, char **argv);
int cmd_prompt(int argc, char **argv);

/* tools/cmd_sandbox.c */
int cmd_sandbox(int argc, char **argv);

#endif
