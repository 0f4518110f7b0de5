/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommands of `warden` that live outside tools/warden.c, one file per concern. */
#ifndef WD_CMDS_H
#define WD_CMDS_H

/* tools/cmd_hold.c */
int cmd_holds(int argc, char **argv);
int cmd_approve(int argc, char **argv);
int cmd_deny(int argc, char **argv);
int cmd_prompt(int argc, char **argv);

#endif
