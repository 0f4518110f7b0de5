/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The audit ring buffer and per-sandbox counters of a BPF object this process did not load: what a
 * successor supervisor (`warden adopt`) reads from the map fds a keeper hands it. The one place
 * outside the loader (supervisor/bpf/progs.c) that calls libbpf, so the run room never does.
 */
#ifndef WD_BPF_EVENTS_H
#define WD_BPF_EVENTS_H

#include <stdint.h>

#include "bpf/wd_abi.h"
#include "supervisor/bpf/progs.h"

struct wd_events;

/* Read the ring buffer map @ringbuf_fd: each record goes to @fn(@ctx, ...). 0 or -errno. */
int wd_events_open(struct wd_events **out, int ringbuf_fd, wd_record_fn fn, void *ctx);
/* An fd that polls readable when records wait; then call wd_events_consume. */
int wd_events_fd(const struct wd_events *ev);
/* Hand every waiting record to the callback: how many, or -errno. */
int wd_events_consume(struct wd_events *ev);
void wd_events_free(struct wd_events *ev);

/* Sandbox @sandbox's kernel counters from the wd_sandboxes map @counts_fd. 0 or -errno. */
int wd_events_sandbox_counts(int counts_fd, uint64_t sandbox, struct wd_sandbox *out);

#endif
