/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A persistent sandbox's commands (docs/control.md#persistent-sandboxes): its supervisor takes
 * each `exec` from wardend on a socket of their own, spawns it into the sandbox, tells wardend
 * when it started and how it ended, and ends the sandbox once it has been idle (no command of
 * an exec running) for its idle timeout.
 *
 * The socket is a SOCK_SEQPACKET pair made by wardend; one JSON object a message. wardend
 * sends {"op":"exec","argv":[...],"cwd":DIR,"env":{NAME:VALUE...},"timeout_ms":N} with the
 * command's stdin, stdout and stderr as three fds (or, for put and get, "transfer":"put"|"get",
 * "path":P,"mode":M and no argv: the exit code is then the copy's errno), or {"op":"inspect"};
 * the supervisor answers
 * {"op":"started","pid":N}, {"op":"failed","error":WORDS}, later {"op":"exit","status":S,
 * "code":N,"signal":N,"wall_ms":N}, and {"op":"inspect",...}. One exec runs at a time.
 */
#ifndef WD_RUN_EXECS_H
#define WD_RUN_EXECS_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include <cJSON.h>

#include "supervisor/sandbox/spawn.h"

/* put and get: a file copied by a confined process of the sandbox's, not a command (spawn.h). */
struct wd_exec_transfer {
	int kind; /* WD_TRANSFER_NONE, _PUT, _GET */
	const char *path;
	unsigned int mode;
};

struct wd_execs_ops {
	/*
	 * Spawn @argv with @envp (NULL: the policy's environment), in @cwd (NULL: the
	 * sandbox's), on @fds (stdin, stdout, stderr); or, with @t->kind, the copy @t says. 0
	 * (check setup_errno and exec_errno) or -errno.
	 */
	int (*spawn)(void *ctx, char *const argv[], char *const envp[], const char *cwd,
		     const int fds[3], const struct wd_exec_transfer *t, struct wd_child *out);
	/* What `inspect` says of the sandbox, added to @into. */
	void (*inspect)(void *ctx, cJSON *into);
	/* End the sandbox: @why is "idle" (its idle timeout ran out) or "destroyed" (a signal). */
	void (*end)(void *ctx, const char *why);
	void *ctx;
};

struct wd_execs {
	int sock; /* wardend's: -1 once it hung up */
	int idle_fd; /* a timerfd, armed while no exec runs */
	int timeout_fd; /* the running exec's timeout_ms, a timerfd */
	unsigned int idle_s; /* 0: never idle */
	struct wd_child run; /* the running exec (pid 0: none) */
	uint64_t started_ns;
	bool timed_out;
	uint64_t execs; /* started so far */
	const struct wd_execs_ops *ops;
};

/* Take the socket @sock (closed by wd_execs_close); the idle clock starts. 0 or -errno. */
int wd_execs_open(struct wd_execs *x, int sock, unsigned int idle_s,
		  const struct wd_execs_ops *ops);
/* What the run loop watches for it: at most @max entries of @pfd, how many. */
int wd_execs_poll_fds(const struct wd_execs *x, struct pollfd *pfd, int max);
/* One of them is ready. */
void wd_execs_on_ready(struct wd_execs *x, const struct pollfd *p);
/* Warden was told to stop (SIGTERM: wardend's destroy): the sandbox ends. */
void wd_execs_stop(struct wd_execs *x);
/* The sandbox ends: a running exec is killed and its end told. */
void wd_execs_close(struct wd_execs *x);

/*
 * SOCK_SEQPACKET messages with up to @n fds (at most WD_EXECS_FDS_MAX; recv never waits): -1
 * (errno) or what sendmsg/recvmsg returned.
 */
#define WD_EXECS_FDS_MAX 8
/*
 * A JSON array of strings as a NULL-ended vector pointing into it (free() the vector alone),
 * or NULL: not one, one with something else in it, empty when @nonempty, or over 4096.
 */
char **wd_execs_strings(const cJSON *a, bool nonempty);
ssize_t wd_execs_send(int sock, const char *text, const int *fds, int n);
ssize_t wd_execs_recv(int sock, char *buf, size_t bufsz, int *fds, int max, int *n);

#endif
