/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Util room: warden's own helper programs (warden-init, warden-keeper) are found beside warden's
 * own binary, never through PATH or the environment, and opened once, O_PATH, to be execveat()'d.
 */
#ifndef WD_BESIDE_H
#define WD_BESIDE_H

/* @name in the directory of /proc/self/exe, opened O_PATH | O_CLOEXEC: the fd, or -errno. */
int wd_open_beside_self(const char *name);

#endif
