/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipc/: how warden's processes reach each other. This file: the run directory (/run/warden, or
 * $WARDEN_RUN_DIR) and the names of the sockets in it, written here once so the side that
 * listens and the side that connects can never disagree on a name.
 */
#ifndef WD_IPC_RUNDIR_H
#define WD_IPC_RUNDIR_H

#include <stdbool.h>
#include <stddef.h>

#define WD_RUN_DIR "/run/warden"

/*
 * Where runs put their sockets: $WARDEN_RUN_DIR, else /run/warden. Tests give each its own, so
 * suites running side by side on one machine never answer each other's holds.
 */
const char *wd_run_dir(void);
/*
 * Make @dir if missing; 0 if it is a directory only root may write (and, for @approvers, that
 * others may search), else -errno, said why.
 */
int wd_run_dir_check(const char *dir, bool approvers);
/*
 * Make the run directory if it is missing (root's alone, as a run would), so a watcher can wait
 * for sockets to appear in it; what it finds there is checked by whoever listens (above). 0, or
 * -errno (not said: an approver who is not root cannot make it, and need not).
 */
int wd_run_dir_make(void);

enum wd_run_sock {
	WD_SOCK_HOLDS, /* run-<sandbox>.sock: a run's holds socket */
	WD_SOCK_KEEPER, /* keep-<sandbox>.sock: a keeper waiting for a successor */
	WD_SOCK_DAEMON, /* control.sock: wardend's control socket (no sandbox) */
};

/*
 * The path of a socket of @kind for @sandbox in the run directory, into @buf. -ENAMETOOLONG
 * when it does not fit (a unix socket's path is at most 107 bytes), -EINVAL for a sandbox name
 * that is empty, starts with a dot or holds a slash (it must name a file in the directory).
 */
int wd_run_sock_path(char *buf, size_t size, enum wd_run_sock kind, const char *sandbox);
/* A glob(3) pattern for every socket of @kind in the run directory. */
int wd_run_sock_glob(char *buf, size_t size, enum wd_run_sock kind);
/*
 * Is @entry (a name in the run directory) a socket of @kind of a sandbox? Then its sandbox's
 * name goes to @name (of @size bytes) and true is returned.
 */
bool wd_run_sock_sandbox(const char *entry, enum wd_run_sock kind, char *name, size_t size);

#endif
