/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The keeper: a small process forked by `warden run` that outlives it only to end the sandbox.
 * It holds copies of what keeps the sandbox confined and held (the backend's BPF links and maps,
 * the waiting room's listener), so if warden dies, however it dies, enforcement stays attached
 * and held calls stay held (never failed with ENOSYS) until the keeper has killed every task of
 * the sandbox and removed its cgroup. Then it exits and the kernel drops what it held.
 * In embedded mode the sandbox therefore dies with warden and never runs free.
 */
#ifndef WD_KEEPER_H
#define WD_KEEPER_H

#include <sys/types.h>

#include "supervisor/cgroup.h"

struct wd_keeper {
	pid_t pid;
	int sock; /* warden's end: closing it without saying "done" means warden died */
};

/*
 * Fork the keeper. Call after the backend holds the sandbox's rules (so the keeper holds them
 * too) and before anything the keeper must not hold (the control socket) is opened.
 */
int wd_keeper_start(struct wd_keeper *k, const struct wd_cgroup *cg);
/* Give the keeper a copy of the waiting room's listener. */
int wd_keeper_give(struct wd_keeper *k, int listener);
/* The sandbox has ended: the keeper exits without touching anything. Safe to call twice. */
void wd_keeper_stop(struct wd_keeper *k);

#endif
