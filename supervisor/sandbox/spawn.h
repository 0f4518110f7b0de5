/* SPDX-License-Identifier: GPL-2.0 */
/* Start a command straight inside a sandbox cgroup (clone3 with CLONE_INTO_CGROUP). */
#ifndef WD_SPAWN_H
#define WD_SPAWN_H

#include <stdint.h>
#include <signal.h>
#include <sys/types.h>

#include "supervisor/hold/waiting_room.h"
#include "supervisor/sandbox/setup.h"

struct wd_child {
	pid_t pid;
	int pidfd;
	int status_fd; /* in a new pid namespace: the socket its init reports the command's status on */
	int notify_fd; /* the waiting room's listener, when opts->notify was given */
	int setup_errno; /* the sandbox could not be entered (the backend's set-up failed) */
	int exec_errno; /* 0 when the command started, else why execve failed */
};

/*
 * Run in the child after the common set-up, just before execve; returns 0 or -errno. It must be
 * async-signal-safe (no allocation): what it needs is prepared in the parent.
 */
typedef int (*wd_child_setup_fn)(void *ctx);

struct wd_spawn_opts {
	int cgroup_fd;
	uint64_t clone_flags; /* namespaces (CLONE_NEW*) the child starts in */
	/* What the policy sets up (environment, user, mounts, network); NULL for nothing. */
	const struct wd_setup *plan;
	/*
	 * Start outside the cgroup and join it once the namespaces are set up (mounts first): for
	 * a backend whose kernel programs refuse mounts to the sandbox's tasks.
	 */
	bool join_after_setup;
	/* Do not die with warden: its keeper ends the sandbox or hands it over (run --survive). */
	bool survive;
	/*
	 * The command's own terminal (supervisor/run/pty.h): each fd N with bit N of tty_fds set is
	 * the pty slave @tty, which becomes the controlling terminal of the new session. No bit
	 * set: fds 0-2 are inherited as they are.
	 */
	int tty;
	unsigned int tty_fds;
	/*
	 * limits.output (supervisor/run/output.h): each fd N with bit N of out_fds set is @out[N],
	 * the write end of a pipe the supervisor reads (after the terminal, so it wins).
	 */
	int out[3];
	unsigned int out_fds;
	wd_child_setup_fn setup; /* may be NULL */
	void *setup_ctx;
	/*
	 * Run in the command's process as soon as it is in the cgroup, before @setup: what else it
	 * joins and the rlimits it gets (supervisor/sandbox/limits.h). May be NULL.
	 */
	wd_child_setup_fn join;
	void *join_ctx;
	/* The holds' waiting room, installed last; NULL when the policy holds nothing. */
	const struct wd_notify_plan *notify;
	/*
	 * The command's own exec may be held: while waiting for it, the listener is handed to
	 * notify_attach as soon as it arrives, and notify_service answers what it brings.
	 */
	void (*notify_attach)(void *ctx, int listener);
	/* The fds to watch meanwhile (listener, timer, operators' sockets): how many. */
	int (*notify_fds)(void *ctx, int *fds, int max);
	void (*notify_service)(void *ctx);
	void *notify_ctx;
	/*
	 * Called once the child is cloned (its pid and the init's status channel in the
	 * wd_child) and before it may exec: its first instruction of the command comes after
	 * this returns (run: the keeper has what it needs before the command runs). May be NULL.
	 */
	void (*before_exec)(void *ctx);
	void *before_exec_ctx;
	/*
	 * A persistent sandbox (with CLONE_NEWPID): the child is its init alone, with no command;
	 * its commands come later, each by wd_spawn_enter.
	 */
	bool persistent;
	/*
	 * wd_spawn_enter: the sandbox's init (a pidfd), the namespaces of it to join besides its
	 * pid namespace (CLONE_NEW*), the command's working directory there (NULL: /), and its
	 * standard input (-1: the supervisor's).
	 */
	int enter_pidfd;
	uint64_t enter_ns;
	const char *enter_cwd;
	int in_fd;
	/*
	 * wd_spawn_enter with no command: the confined process copies a file itself (put: fd 0
	 * into @transfer_path, made with @transfer_mode if new; get: @transfer_path onto fd 1),
	 * as a command would, with the sandbox's rules, then exits 0 or with the errno.
	 */
	enum { WD_TRANSFER_NONE, WD_TRANSFER_PUT, WD_TRANSFER_GET } transfer;
	const char *transfer_path;
	unsigned int transfer_mode;
};

/*
 * Spawn @argv in the cgroup @o->cgroup_fd and wait until it has exec'd (or failed to). The child
 * gets a new session, no_new_privs, default signal handling, only fds 0-2, dies with its parent
 * (unless @o->survive);
 * then, in this order: the plan's namespaces and mounts; in a new pid namespace, the fork of the
 * command's process from pid 1, which execs warden-init (found beside warden's own binary) and
 * never joins the cgroup; the cgroup (joined by the command's process when there is an init or
 * @o->join_after_setup, else from clone3); @o->setup (the backend), the waiting room, the
 * bounding set (supervisor/sandbox/caps.h), the plan's user and environment, the other
 * capability sets, execve. Returns 0 (check setup_errno and exec_errno) or -errno when no child could be made.
 */
int wd_spawn(const struct wd_spawn_opts *o, char *const argv[], struct wd_child *child);

/*
 * wd_spawn in two halves, for a sandbox made before its command is known (a wardend spare,
 * supervisor/run/spare.h). wd_spawn_begin does all of wd_spawn up to the command's exec with
 * @argv NULL: the child, namespaces, init, cgroup, backend, waiting room, capabilities and user
 * in place, waits for its command (@o->before_exec must be set). wd_spawn_finish calls
 * before_exec, then gives the child @argv and its fds 0-2 (@fds: received on its side as the
 * go word, SCM_RIGHTS), and waits until it has exec'd. A @pending whose finish never comes is
 * closed by wd_spawn_abandon (the child then fails: EOF instead of the word, no exec).
 */
struct wd_spawn_pending {
	int err_r; /* the child's error pipe */
	int go_w; /* the go word's socket */
};

int wd_spawn_begin(const struct wd_spawn_opts *o, struct wd_child *child,
		   struct wd_spawn_pending *pending);
int wd_spawn_finish(const struct wd_spawn_opts *o, struct wd_child *child,
		    struct wd_spawn_pending *pending, char *const argv[], const int fds[3]);
void wd_spawn_abandon(struct wd_spawn_pending *pending);

/* Most bytes of a command's arguments, NULs included, and most arguments, a go word carries. */
#define WD_SPAWN_ARGV_MAX (64 * 1024)
#define WD_SPAWN_ARGC_MAX 4096
/*
 * Spawn @argv into a persistent sandbox whose init is @o->enter_pidfd, and wait until it has
 * exec'd (or failed to): born in the init's pid namespace (the
 * caller's child, which it waits for: the init reaps only what the command leaves), it joins
 * the init's other namespaces @o->enter_ns, changes to @o->enter_cwd, joins the cgroup
 * @o->cgroup_fd (after setns: bpf-lsm refuses a sandbox's task its privilege), then goes on as
 * wd_spawn's command does (the join, the backend, the capabilities, the plan's user and
 * environment, execve). No waiting room (-EOPNOTSUPP). 0 (check setup_errno and exec_errno)
 * or -errno.
 */
int wd_spawn_enter(const struct wd_spawn_opts *o, char *const argv[], struct wd_child *child);

/*
 * Open the sandbox's init program (warden-init beside this binary) once, for every later
 * wd_spawn of this process and of the supervisors it forks (wardend): O_PATH and close-on-exec,
 * so no command ever holds it. 0 or -errno.
 */
int wd_spawn_preload(void);

/*
 * Wait for the child to end and say how the command ended. In a new pid namespace the child is
 * warden-init (pid 1 there, since init cannot be killed from inside and a command that signals
 * itself must see normal signal rules), which runs the command as pid 2 and reports its status
 * over @child->status_fd (wd_child_read_status); otherwise the child is the command and its
 * status is the kernel's, from waitid.
 */
int wd_child_wait(struct wd_child *child, siginfo_t *si);
/*
 * Read what the sandbox's init reported into @si (as waitid would have said it of the command):
 * 0, or -ENODATA when it reported nothing (it was killed first). Only a message the kernel
 * attests was sent by @init (SCM_CREDENTIALS, pids as the caller sees them) counts. The one
 * reader of the init's status channel, for warden, its keeper and a successor.
 */
int wd_child_read_status(int status_fd, pid_t init, siginfo_t *si);
/* No child yet: no pid, every fd -1. */
void wd_child_init(struct wd_child *child);
void wd_child_close(struct wd_child *child);

#endif
