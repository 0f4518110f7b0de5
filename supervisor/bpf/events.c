// SPDX-License-Identifier: GPL-2.0
/* Reading a handed-over audit ring buffer and counters map (supervisor/bpf/events.h). */
#include <errno.h>
#include <stdlib.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "supervisor/bpf/events.h"

struct wd_events {
	struct ring_buffer *rb;
};

int wd_events_open(struct wd_events **out, int ringbuf_fd, wd_record_fn fn, void *ctx)
{
	struct wd_events *ev = calloc(1, sizeof(*ev));
	int err = 0;

	*out = NULL;
	if (!ev)
		return -ENOMEM;
	ev->rb = ring_buffer__new(ringbuf_fd, fn, ctx, NULL);
	if (!ev->rb) {
		err = errno ? -errno : -EINVAL;
		free(ev);
	} else {
		*out = ev;
	}
	return err;
}

int wd_events_fd(const struct wd_events *ev)
{
	return ring_buffer__epoll_fd(ev->rb);
}

int wd_events_consume(struct wd_events *ev)
{
	return ring_buffer__consume(ev->rb);
}

void wd_events_free(struct wd_events *ev)
{
	if (!ev)
		return;
	ring_buffer__free(ev->rb);
	free(ev);
}

int wd_events_sandbox_counts(int counts_fd, uint64_t sandbox, struct wd_sandbox *out)
{
	uint64_t id = sandbox;

	if (counts_fd < 0)
		return -EBADF;
	if (bpf_map_lookup_elem(counts_fd, &id, out))
		return -errno;
	return 0;
}
