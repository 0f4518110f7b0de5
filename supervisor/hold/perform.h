/* SPDX-License-Identifier: GPL-2.0 */
/* Performing an approved call (internal to supervisor/hold/, see perform.c). */
#ifndef WD_HOLD_PERFORM_H
#define WD_HOLD_PERFORM_H

struct wd_hold_engine;
struct hold;

/*
 * Perform approved @h as its task (within the sandbox's file rules) and answer the task with the
 * result, which is returned: 0 or -errno.
 */
int hold_perform(struct wd_hold_engine *e, struct hold *h);

#endif
