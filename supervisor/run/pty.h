/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command's own terminal (`warden run` on a terminal): a pseudo-terminal whose master
 * warden relays to and from the caller's terminal, as script(1) and `docker run -t` do, so the
 * caller's terminal is never in the sandbox (no TIOCSTI, TIOCSCTTY, vhangup or mode changes).
 */
#ifndef WD_PTY_H
#define WD_PTY_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <termios.h>

struct wd_output;

struct wd_pty {
	int master; /* -1: no terminal among fds 0-2, the command inherits them as they are */
	int slave; /* the command's end until it is spawned (fd 3 or above), else -1 */
	unsigned int slave_fds; /* bit N: the command's fd N is the slave (fd N is a terminal) */
	int in; /* the caller's terminal as input (fd 0), or -1 */
	int out; /* where the command's output goes: the caller's terminal, or -1 */
	bool own_out; /* out is warden's own non-blocking open of it, closed at the end */
	int tty; /* the caller's terminal whose modes and size are followed */
	int winch; /* signalfd for SIGWINCH, or -1 */
	bool unblock_winch; /* SIGWINCH was blocked here: unblocked at the end */
	bool raw; /* the caller's terminal is in raw mode: saved holds its modes */
	bool relaying; /* the command runs: relay (unless paused) */
	bool paused; /* the prompt owns the terminal: no relay, the caller's modes */
	bool in_eof; /* the caller's terminal gave end of input (hung up) */
	struct wd_output *cap; /* limits.output: what the command writes is counted there; or NULL */
	/*
	 * The status line (supervisor/run/status.h): drawn on the caller's terminal only where
	 * the command's output left the cursor at the start of a line, and wiped before any more
	 * of it is relayed; none while the command shows its alternate screen.
	 */
	bool status_drawn;
	bool mid_line; /* the last byte relayed was not a newline */
	bool alt_screen; /* the command switched to the alternate screen (a full-screen program) */
	struct termios saved;
	char obuf[4096]; /* master -> caller */
	size_t olen, ooff;
	char ibuf[1024]; /* caller -> master */
	size_t ilen, ioff;
};

#define WD_PTY_POLL_MAX 4

/*
 * Look at fds 0-2; when any is a terminal, open a pty in warden's mount namespace (its slave
 * taking the caller's modes and window size) and say which fds the command gets it on.
 * Returns 0 (p->master < 0 when there is no terminal) or -errno (said why).
 */
int wd_pty_open(struct wd_pty *p);
/*
 * `warden adopt`: relay the command's terminal (@master, from the keeper; it is copied) to
 * this process's terminal, or its output to stdout when there is none. 0 or -errno.
 */
int wd_pty_attach(struct wd_pty *p, int master);
/* The command has its slave: close warden's copy, put the caller's terminal in raw mode. */
void wd_pty_started(struct wd_pty *p);
/* While the prompt asks on the terminal: no relay, the caller's own modes (and back). */
void wd_pty_pause(struct wd_pty *p, bool pause);
/* The fds to poll now, into @pfd (at most WD_PTY_POLL_MAX); how many. */
int wd_pty_poll_fds(struct wd_pty *p, struct pollfd *pfd, int max);
/* @pfd (one of those) is ready. */
void wd_pty_on_ready(struct wd_pty *p, const struct pollfd *pfd);
/* Everything the command wrote, until the master says EIO (every slave closed). */
void wd_pty_drain(struct wd_pty *p);
/* The status line @line, drawn now if the terminal's cursor is at a line start (see above). */
void wd_pty_status(struct wd_pty *p, const char *line);
/* The status line wiped, if drawn (before warden's own messages and at the end). */
void wd_pty_status_clear(struct wd_pty *p);
/* Restore the caller's modes, close everything; safe to call twice. */
void wd_pty_close(struct wd_pty *p);

#endif
