/* SPDX-License-Identifier: GPL-2.0 */
/* Who a held task is, from /proc (internal to supervisor/hold/, see task.c). */
#ifndef WD_HOLD_TASK_H
#define WD_HOLD_TASK_H

struct hold;

/* @h's comm, exe, command line and file-system credentials (creds_known when all were read). */
void hold_fill_task(struct hold *h);

#endif
