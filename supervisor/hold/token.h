/* SPDX-License-Identifier: GPL-2.0 */
/* Hold tokens (internal to supervisor/hold/, see token.c). */
#ifndef WD_HOLD_TOKEN_H
#define WD_HOLD_TOKEN_H

#include <stdbool.h>

struct wd_hold_engine;
struct hold;

/* A fresh signing key for @e. 0 or -EIO. */
int hold_token_key(struct wd_hold_engine *e);
/* Sign @h: its token names its notified call, task, operation and targets. */
void hold_token_sign(const struct wd_hold_engine *e, struct hold *h);
/* Is @token (may be NULL) @h's? */
bool hold_token_matches(const struct hold *h, const char *token);

#endif
