// SPDX-License-Identifier: GPL-2.0
/*
 * tp_floor: attaches bench/bpf/tp_floor.bpf.c's empty programs to the syscall tracepoints the
 * recorder uses, says "ready" on stdout, and holds them until its standard input ends (then
 * they go with the process). Exit 1 where they do not load or attach.
 */
#include <stdio.h>
#include <unistd.h>

#include "tp_floor.skel.h"

int main(void)
{
	struct tp_floor_bpf *skel = tp_floor_bpf__open_and_load();
	char c;

	if (!skel || tp_floor_bpf__attach(skel)) {
		fprintf(stderr, "tp_floor: cannot load or attach the floor programs\n");
		tp_floor_bpf__destroy(skel);
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	tp_floor_bpf__destroy(skel);
	return 0;
}
