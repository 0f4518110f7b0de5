// SPDX-License-Identifier: GPL-2.0
/*
 * The command's own pseudo-terminal and its relay to the caller's terminal (see pty.h and the
 * "terminal" section of docs/threat-model.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <termios.h>
#include <unistd.h>

#include "supervisor/util/log.h"
#include "supervisor/run/output.h"
#include "supervisor/run/pty.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

#define WD_PTY_DRAIN_MS 2000 /* only a task that escaped the sandbox could hold a slave on */

/* For the atexit handler: a fatal() anywhere in warden still gives the caller its modes back. */
static struct wd_pty *active;
static pid_t active_pid;

static void restore_modes(struct wd_pty *p)
{
	if (!p->raw)
		return;
	if (tcsetattr(p->tty, TCSANOW, &p->saved))
		log_warn("pty: cannot restore the modes of the terminal");
	p->raw = false;
}

static void restore_at_exit(void)
{
	if (active && getpid() == active_pid)
		restore_modes(active);
}

static void set_raw(struct wd_pty *p)
{
	struct termios raw = p->saved;

	if (p->raw || p->in < 0)
		return;
	/* Every key goes to the command's terminal, whose own modes say what it means. */
	cfmakeraw(&raw);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	p->raw = true;
	if (tcsetattr(p->tty, TCSANOW, &raw)) {
		log_warn("pty: cannot put the terminal in raw mode");
		p->raw = false;
	}
}

/* Is @fd's terminal ours to read, i.e. is warden in its foreground process group? */
static bool in_foreground(int fd)
{
	pid_t fg = tcgetpgrp(fd);

	return fg > 0 && fg == getpgrp();
}

/* The caller's terminal on fd @fd, opened again for warden's own non-blocking writes. */
static int reopen_out(int fd, bool *own)
{
	char path[32];
	int out;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	out = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	*own = out >= 0;
	/* else writes may block a moment: never O_NONBLOCK on the shell's own description */
	return out >= 0 ? out : fd;
}

static void copy_size(struct wd_pty *p)
{
	struct winsize ws;

	if (p->tty >= 0 && !ioctl(p->tty, TIOCGWINSZ, &ws) && ioctl(p->master, TIOCSWINSZ, &ws))
		log_warn("pty: cannot set the window size");
}

/* What of fds 0-2 is the caller's terminal, and how to read and write it; false: none. */
static bool caller_side(struct wd_pty *p)
{
	memset(p, 0, sizeof(*p));
	p->master = p->slave = p->in = p->out = p->tty = p->winch = -1;
	for (int fd = 2; fd >= 0; fd--)
		if (isatty(fd)) {
			p->slave_fds |= 1u << fd;
			p->tty = fd;
		}
	if (!p->slave_fds)
		return false;
	/* Input only in the foreground: a background run would stop at its first read. */
	if ((p->slave_fds & 1) && in_foreground(0)) {
		p->in = 0;
		p->tty = 0;
	}
	for (int i = 0; i < 3; i++) {
		int o = i == 2 ? 0 : i + 1; /* stdout, stderr, then stdin's terminal */

		if (p->slave_fds & (1u << o)) {
			p->out = reopen_out(o, &p->own_out);
			break;
		}
	}
	return true;
}

/* The master is set: follow the window size, restore at exit whatever ends warden. */
static void follow(struct wd_pty *p)
{
	static bool registered;
	sigset_t winch, old;

	sigemptyset(&winch);
	sigaddset(&winch, SIGWINCH);
	sigprocmask(SIG_BLOCK, &winch, &old);
	p->unblock_winch = sigismember(&old, SIGWINCH) == 0;
	p->winch = signalfd(-1, &winch, SFD_CLOEXEC | SFD_NONBLOCK);
	if (p->winch < 0)
		log_warn("pty: the window size will not follow");
	active = p;
	active_pid = getpid();
	if (!registered && atexit(restore_at_exit) == 0)
		registered = true;
}

int wd_pty_open(struct wd_pty *p)
{
	int err = 0, fd;

	if (!caller_side(p))
		return 0;
	if (tcgetattr(p->tty, &p->saved)) {
		err = -errno;
		log_warn("pty: cannot read the modes of the terminal");
		goto fail;
	}
	/* In warden's mount namespace: the sandbox's mounts (a private /dev) do not matter. */
	p->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (p->master < 0 || grantpt(p->master) || unlockpt(p->master)) {
		err = -errno;
		log_warn("pty: cannot open a pseudo-terminal for the command");
		goto fail;
	}
	/* From the master itself: no path the sandbox (or anyone) could swap meanwhile. */
	p->slave = ioctl(p->master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (p->slave < 0) {
		const char *name = ptsname(p->master);

		p->slave = name ? open(name, O_RDWR | O_NOCTTY | O_CLOEXEC) : -1;
	}
	if (p->slave >= 0 && p->slave < 3) {
		/* the child puts it on 0-2: it must not be one of them already */
		fd = fcntl(p->slave, F_DUPFD_CLOEXEC, 3);
		close(p->slave);
		p->slave = fd;
	}
	if (p->slave < 0) {
		err = -errno;
		log_warn("pty: cannot open the command's end of its pseudo-terminal");
		goto fail;
	}
	/* The command's terminal starts as the caller's: its erase key, its size. */
	if (tcsetattr(p->slave, TCSANOW, &p->saved))
		log_warn("pty: cannot give the command's terminal the caller's modes");
	copy_size(p);
	if (fcntl(p->master, F_SETFL, O_NONBLOCK)) {
		err = -errno;
		goto fail;
	}
	follow(p);
	return 0;
fail:
	wd_pty_close(p);
	return err ? err : -EIO;
}

int wd_pty_attach(struct wd_pty *p, int master)
{
	bool tty = caller_side(p);
	int err = 0;

	if (tty && tcgetattr(p->tty, &p->saved)) {
		log_warn("pty: cannot read the modes of the terminal");
		p->in = -1; /* relayed, but never raw */
	}
	if (!tty)
		p->out = STDOUT_FILENO; /* what the command shows goes on, to wherever that is */
	p->master = fcntl(master, F_DUPFD_CLOEXEC, 3);
	if (p->master < 0 || fcntl(p->master, F_SETFL, O_NONBLOCK)) {
		err = -errno;
		log_warn("pty: cannot take the command's terminal over");
		wd_pty_close(p);
		return err;
	}
	if (tty)
		copy_size(p);
	follow(p);
	wd_pty_started(p);
	return 0;
}

/* The command has its copies of the slave: warden's own would keep EIO (hang-up) away. */
static void drop_slave(struct wd_pty *p)
{
	if (p->slave >= 0)
		close(p->slave);
	p->slave = -1;
}

void wd_pty_started(struct wd_pty *p)
{
	if (p->master < 0)
		return;
	drop_slave(p);
	p->relaying = true;
	if (!p->paused)
		set_raw(p);
}

void wd_pty_pause(struct wd_pty *p, bool pause)
{
	if (pause)
		wd_pty_status_clear(p);
	if (p->master < 0 || p->paused == pause)
		return;
	p->paused = pause;
	if (pause)
		restore_modes(p);
	else if (p->relaying)
		set_raw(p);
}

int wd_pty_poll_fds(struct wd_pty *p, struct pollfd *pfd, int max)
{
	int n = 0;

	if (p->master < 0 || !p->relaying || max < WD_PTY_POLL_MAX)
		return 0;
	if (p->winch >= 0)
		pfd[n++] = (struct pollfd){ .fd = p->winch, .events = POLLIN };
	if (p->paused)
		return n;
	if (p->in >= 0 && !p->in_eof && !p->ilen)
		pfd[n++] = (struct pollfd){ .fd = p->in, .events = POLLIN };
	if (p->olen) {
		pfd[n++] = (struct pollfd){ .fd = p->out, .events = POLLOUT };
		if (p->ilen)
			pfd[n++] = (struct pollfd){ .fd = p->master, .events = POLLOUT };
	} else {
		pfd[n++] = (struct pollfd){ .fd = p->master,
					    .events = POLLIN | (p->ilen ? POLLOUT : 0) };
	}
	return n;
}

/* Best effort, on the caller's terminal: a status line is never worth blocking for. */
static void put_status(struct wd_pty *p, const char *s, size_t len)
{
	while (len) {
		ssize_t n = write(p->out, s, len);

		if (n <= 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

void wd_pty_status_clear(struct wd_pty *p)
{
	if (!p->status_drawn || p->out < 0)
		return;
	/* back to the line's start and wipe it: the cursor is where the command left it */
	put_status(p, "\r\033[K", 4);
	p->status_drawn = false;
}

void wd_pty_status(struct wd_pty *p, const char *line)
{
	struct winsize ws;
	size_t cols = 80, len = strlen(line);

	if (p->master < 0 || p->out < 0 || !p->relaying || p->paused || p->olen || p->mid_line ||
	    p->alt_screen)
		return;
	if (p->tty >= 0 && ioctl(p->tty, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
		cols = ws.ws_col;
	/* one line, never wrapped: a wrapped line could not be wiped by \r */
	if (len > cols - 1)
		len = cols - 1;
	put_status(p, "\r\033[K", 4);
	put_status(p, line, len);
	p->status_drawn = true;
}

/* What the command's output says of the terminal, for the status line: its last byte, screens. */
static void watch_out(struct wd_pty *p, const char *buf, size_t len)
{
	static const char *const on[] = { "\033[?1049h", "\033[?1047h", "\033[?47h" };
	static const char *const off[] = { "\033[?1049l", "\033[?1047l", "\033[?47l" };

	if (!len)
		return;
	p->mid_line = buf[len - 1] != '\n';
	for (size_t i = 0; i < sizeof(on) / sizeof(on[0]); i++) {
		if (memmem(buf, len, on[i], strlen(on[i])))
			p->alt_screen = true;
		if (memmem(buf, len, off[i], strlen(off[i])))
			p->alt_screen = false;
	}
}

/* Write what is buffered to the caller; false while it must wait for room. */
static bool flush_out(struct wd_pty *p)
{
	if (p->ooff < p->olen) {
		wd_pty_status_clear(p);
		watch_out(p, p->obuf + p->ooff, p->olen - p->ooff);
	}
	while (p->ooff < p->olen) {
		ssize_t n = p->out >= 0 ? write(p->out, p->obuf + p->ooff, p->olen - p->ooff) : -1;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return false;
		if (n <= 0) {
			/* no terminal to show it on (hung up, or none): it is dropped */
			if (p->cap) {
				p->cap->dropped += p->olen - p->ooff;
				p->cap->dropped_blocked += p->olen - p->ooff;
			}
			p->ooff = p->olen;
			break;
		}
		p->ooff += (size_t)n;
		if (p->cap)
			p->cap->passed += (uint64_t)n;
	}
	p->olen = p->ooff = 0;
	return true;
}

static void flush_in(struct wd_pty *p)
{
	while (p->ioff < p->ilen) {
		ssize_t n = write(p->master, p->ibuf + p->ioff, p->ilen - p->ioff);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			p->ioff = p->ilen;
			break;
		}
		p->ioff += (size_t)n;
	}
	p->ilen = p->ioff = 0;
}

/* One read of the command's output; -errno (-EIO once every slave has closed) or bytes. */
static ssize_t read_master(struct wd_pty *p)
{
	ssize_t n;

	do {
		n = read(p->master, p->obuf, sizeof(p->obuf));
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	/* limits.output: what is over the cap is read, counted and dropped */
	p->olen = p->cap ? wd_output_admit(p->cap, (size_t)n) : (size_t)n;
	p->ooff = 0;
	return n ? n : -EIO;
}

void wd_pty_on_ready(struct wd_pty *p, const struct pollfd *pfd)
{
	if (pfd->fd == p->winch) {
		struct signalfd_siginfo ssi;

		while (read(p->winch, &ssi, sizeof(ssi)) == sizeof(ssi))
			;
		copy_size(p);
	} else if (pfd->fd == p->in && !p->ilen && (pfd->revents & (POLLIN | POLLHUP | POLLERR))) {
		ssize_t n = read(p->in, p->ibuf, sizeof(p->ibuf));

		if (n > 0) {
			p->ilen = (size_t)n;
			p->ioff = 0;
			flush_in(p);
		} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
			p->in_eof = true; /* the caller's terminal hung up */
		}
	} else if (pfd->fd == p->out && p->olen) {
		flush_out(p);
	} else if (pfd->fd == p->master) {
		if (p->ilen && (pfd->revents & POLLOUT))
			flush_in(p);
		if (!p->olen && (pfd->revents & (POLLIN | POLLHUP | POLLERR))) {
			/*
			 * EIO: no slave is open (the command closed its terminal and runs on, or
			 * is ending): nothing to read until the drain at its end.
			 */
			if (read_master(p) == -EIO)
				p->relaying = false;
			else
				flush_out(p);
		}
	}
}

void wd_pty_drain(struct wd_pty *p)
{
	if (p->master < 0)
		return;
	/* never started: warden's own copy of the slave would keep EIO away */
	drop_slave(p);
	for (;;) {
		struct pollfd pfd = { .fd = p->master, .events = POLLIN };
		ssize_t n;

		if (p->olen) {
			if (flush_out(p))
				continue;
			pfd = (struct pollfd){ .fd = p->out, .events = POLLOUT };
			if (poll(&pfd, 1, WD_PTY_DRAIN_MS) <= 0)
				break;
			continue;
		}
		n = read_master(p);
		if (n == -EAGAIN && poll(&pfd, 1, WD_PTY_DRAIN_MS) > 0)
			continue;
		if (n < 0)
			break;
	}
	if (p->cap) {
		/* the caller's terminal took no more in time */
		p->cap->dropped += p->olen - p->ooff;
		p->cap->dropped_blocked += p->olen - p->ooff;
	}
	p->olen = p->ooff = 0;
}

void wd_pty_close(struct wd_pty *p)
{
	wd_pty_status_clear(p);
	restore_modes(p);
	if (active == p)
		active = NULL;
	if (p->winch >= 0)
		close(p->winch);
	if (p->unblock_winch) {
		sigset_t winch;

		sigemptyset(&winch);
		sigaddset(&winch, SIGWINCH);
		sigprocmask(SIG_UNBLOCK, &winch, NULL);
		p->unblock_winch = false;
	}
	if (p->own_out && p->out >= 0)
		close(p->out);
	if (p->slave >= 0)
		close(p->slave);
	if (p->master >= 0)
		close(p->master);
	p->master = p->slave = p->out = p->winch = p->in = -1;
	p->own_out = false;
	p->relaying = false;
}
