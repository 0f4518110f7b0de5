// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder set's light-skeleton loader (supervisor/bpf/lite.h), in the bpf/ room: the
 * generated wd_recorder.lskel.h is included here and nowhere else.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "supervisor/bpf/lite.h"
#include "supervisor/util/log.h"
/* generated code: its pointer arithmetic on void * is GNU C, which it is built as */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpointer-arith"
#include "wd_recorder.lskel.h"
#pragma GCC diagnostic pop

#define LITE_LINKS 3

struct wd_lite {
	struct wd_recorder_lbpf *skel;
	struct wd_lite_link links[LITE_LINKS];
};

int wd_lite_load(struct wd_lite **out)
{
	struct wd_lite *lite;
	int err;

	*out = NULL;
	lite = calloc(1, sizeof(*lite));
	if (!lite)
		return -ENOMEM;
	lite->skel = wd_recorder_lbpf__open();
	if (!lite->skel) {
		err = -errno ?: -ENOMEM;
		goto fail;
	}
	/* the recorder set runs every program with .rodata as compiled (not privileged-only) */
	err = wd_recorder_lbpf__load(lite->skel);
	if (err) {
		log_debug("bpf: the light loader cannot load the recorders: %s", strerror(-err));
		goto fail;
	}
	err = wd_recorder_lbpf__attach(lite->skel);
	if (err) {
		log_debug("bpf: the light loader cannot attach the recorders: %s", strerror(-err));
		goto fail;
	}
	lite->links[0] = (struct wd_lite_link){ "prog_wd_sys_enter", lite->skel->links.wd_sys_enter_fd };
	lite->links[1] = (struct wd_lite_link){ "prog_wd_sys_exit", lite->skel->links.wd_sys_exit_fd };
	lite->links[2] = (struct wd_lite_link){ "prog_wd_exec_done", lite->skel->links.wd_exec_done_fd };
	*out = lite;
	return 0;

fail:
	wd_lite_destroy(lite);
	return err < 0 ? err : -EINVAL;
}

int wd_lite_sandboxes(const struct wd_lite *lite)
{
	return lite->skel->maps.wd_sandboxes.map_fd;
}

int wd_lite_lost(const struct wd_lite *lite)
{
	return lite->skel->maps.wd_lost.map_fd;
}

int wd_lite_marks(const struct wd_lite *lite)
{
	return lite->skel->maps.wd_net_marks.map_fd;
}

int wd_lite_rings(const struct wd_lite *lite)
{
	return lite->skel->maps.wd_rings.map_fd;
}

const struct wd_lite_link *wd_lite_links(const struct wd_lite *lite, size_t *n)
{
	*n = LITE_LINKS;
	return lite->links;
}

void wd_lite_destroy(struct wd_lite *lite)
{
	if (!lite)
		return;
	if (lite->skel)
		wd_recorder_lbpf__destroy(lite->skel);
	free(lite);
}
