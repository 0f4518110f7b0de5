/* SPDX-License-Identifier: GPL-2.0 */
/* Decoding a held call (internal to supervisor/hold/, see decode.c). */
#ifndef WD_HOLD_DECODE_H
#define WD_HOLD_DECODE_H

struct hold;
struct resolver;

/*
 * Read what the held syscall names. 0, or -errno (the call then goes on as the kernel decides;
 * -EXDEV: through a magic link, refused). Unless @r->pin, a target may be left unpinned
 * (h->dirfd -1): enough to match it.
 */
int hold_decode(struct hold *h, const struct resolver *r);
/* Forget what hold_decode() found, to decode it again. */
void hold_undecode(struct hold *h);

#endif
