// SPDX-License-Identifier: GPL-2.0
/*
 * wd-pty: a terminal for the terminal tests, with no timing assumptions. Runs CMD on a fresh
 * pseudo-terminal as its controlling terminal (CMD is a session leader, the pty its "caller's
 * terminal") and plays STEPs in order, reading CMD's output all the while:
 *
 *   wd-pty [-t SECONDS] [-s ROWSxCOLS] [-n] [-o] STEP... -- CMD [ARG...]
 *
 *   send=TEXT      type TEXT (escapes: \n \r \t \\ \xHH)
 *   expect=TEXT    wait until TEXT appears in the output after the last match
 *   resize=RxC     set the window size of the terminal (its foreground group gets SIGWINCH)
 *   kill=SIG       send SIG (TERM, INT, HUP, QUIT, KILL) to CMD
 *   modes          print "modes: ..." of the terminal (iflag oflag cflag lflag, hex)
 *   modes0         print "modes: ..." as they were before CMD started (it may change them
 *                  at once)
 *   size           print "size: RxC" of the terminal
 *   ctty           print "ctty: ours" while the terminal is still CMD's session's, else "other"
 *   alive          print "tty: alive", or "tty: hung up" once something hung the terminal up
 *   inq            print "inq: N", the bytes waiting in the terminal's input queue
 *   wait           wait for CMD to end; print "exit: N" or "signal: N"
 *   eof            close the driver's end too and read the output until EIO: all of it
 *   pipe=TEXT      (-o) TEXT is in what CMD wrote to its stdout pipe (read to its end)
 *   show           print all the output so far, carriage returns dropped
 *
 * -t: the overall time limit (default 120 s): the only clock, for a test that would hang.
 * -s: the initial window size. -n: CMD's stdin is /dev/null. -o: CMD's stdout is a pipe.
 * An argument "@TTY@" of CMD is replaced by the terminal's name (/dev/pts/N).
 * Exits 0 when every step passed, 1 (saying which and what was read) otherwise, 2 for usage.
 *
 *   wd-pty attack OP [ARG]   one attack on the terminal on fd 0, for inside and outside a
 *                            sandbox; prints "ok" or the errno name:
 *     sti TEXT     TIOCSTI each byte of TEXT, then a newline
 *     steal        in a new session (a child), TIOCSCTTY with force: take the terminal over
 *     hangup       steal, then vhangup()
 *     raw          tcsetattr: raw, no echo
 *     open PATH    open PATH (a terminal by name, read-only) and set it raw, no echo
 *   then, with a last argument "wait", prints "ready" and waits for a line on fd 0 (or EOF).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static int master = -1, slave = -1, pipefd = -1;
static pid_t child = -1, child_sid = -1;
static int pidfd = -1;
static bool child_done, master_eof, pipe_eof;
static int child_status;
static char *out, *pout;
static size_t out_len, out_cap, mark, pout_len, pout_cap;
static struct timespec deadline;
static struct termios modes0;

static const char *errname(int e)
{
	switch (e) {
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case EIO: return "EIO";
	case ENOTTY: return "ENOTTY";
	case EINVAL: return "EINVAL";
	case ENOENT: return "ENOENT";
	case ENOSYS: return "ENOSYS";
	case EBADF: return "EBADF";
	default: return strerror(e);
	}
}

static int ms_left(void)
{
	struct timespec now;
	long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (deadline.tv_sec - now.tv_sec) * 1000 + (deadline.tv_nsec - now.tv_nsec) / 1000000;
	return ms > 0 ? (int)ms : 0;
}

static void append(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*buf = realloc(*buf, *cap);
		if (!*buf) {
			perror("wd-pty");
			exit(1);
		}
	}
	memcpy(*buf + *len, data, n);
	*len += n;
	(*buf)[*len] = 0;
}

static void dump(const char *why)
{
	fprintf(stderr, "wd-pty: %s; output after the last match (%zu bytes):\n", why,
		out_len - mark);
	fwrite(out + mark, 1, out_len - mark, stderr);
	fprintf(stderr, "\nwd-pty: end of output\n");
}

/* Read what is there, waiting up to @ms for something (the child's end, output, the pipe). */
static void pump(int ms)
{
	struct pollfd pfd[3];
	int n = 0;
	char buf[8192];

	if (!master_eof)
		pfd[n++] = (struct pollfd){ .fd = master, .events = POLLIN };
	if (pipefd >= 0 && !pipe_eof)
		pfd[n++] = (struct pollfd){ .fd = pipefd, .events = POLLIN };
	if (!child_done)
		pfd[n++] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
	if (poll(pfd, (nfds_t)n, ms) <= 0)
		return;
	for (int i = 0; i < n; i++) {
		ssize_t r;

		if (!pfd[i].revents)
			continue;
		if (pfd[i].fd == pidfd) {
			if (waitpid(child, &child_status, WNOHANG) == child)
				child_done = true;
			continue;
		}
		r = read(pfd[i].fd, buf, sizeof(buf));
		if (pfd[i].fd == master) {
			if (r > 0)
				append(&out, &out_len, &out_cap, buf, (size_t)r);
			else if (r == 0 || (errno != EINTR && errno != EAGAIN))
				master_eof = true;
		} else {
			if (r > 0)
				append(&pout, &pout_len, &pout_cap, buf, (size_t)r);
			else if (r == 0 || (errno != EINTR && errno != EAGAIN))
				pipe_eof = true;
		}
	}
}

static void timed_out(const char *what)
{
	dump(what);
	if (!child_done) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	exit(1);
}

static size_t unescape(const char *s, char *buf)
{
	size_t n = 0;

	while (*s) {
		if (*s != '\\' || !s[1]) {
			buf[n++] = *s++;
			continue;
		}
		s++;
		switch (*s) {
		case 'n': buf[n++] = '\n'; s++; break;
		case 'r': buf[n++] = '\r'; s++; break;
		case 't': buf[n++] = '\t'; s++; break;
		case 'x': {
			char hex[3] = { s[1], s[1] ? s[2] : 0, 0 };

			buf[n++] = (char)strtol(hex, NULL, 16);
			s += 1 + strlen(hex);
			break;
		}
		default: buf[n++] = *s++; break;
		}
	}
	return n;
}

static int signum(const char *name)
{
	static const struct { const char *n; int s; } sigs[] = {
		{ "TERM", SIGTERM }, { "INT", SIGINT }, { "HUP", SIGHUP }, { "QUIT", SIGQUIT },
		{ "KILL", SIGKILL },
	};

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!strcmp(name, sigs[i].n))
			return sigs[i].s;
	return 0;
}

static bool step(const char *s)
{
	char buf[4096];

	if (!strncmp(s, "send=", 5)) {
		size_t n = unescape(s + 5, buf), off = 0;

		while (off < n) {
			ssize_t w = write(master, buf + off, n - off);

			if (w < 0 && errno != EAGAIN && errno != EINTR) {
				perror("wd-pty: send");
				return false;
			}
			if (w > 0)
				off += (size_t)w;
			else
				pump(ms_left());
		}
	} else if (!strncmp(s, "expect=", 7)) {
		size_t n = unescape(s + 7, buf);
		char *at;

		buf[n] = 0;
		while (!(at = memmem(out + mark, out_len - mark, buf, n))) {
			if (!ms_left())
				timed_out("time is up waiting for the expected text");
			if (master_eof) {
				fprintf(stderr, "wd-pty: expected '%s', the output ended\n", s + 7);
				dump("not found");
				return false;
			}
			/* CMD has ended: what it wrote is all there once the terminal is closed */
			if (child_done && slave >= 0) {
				close(slave);
				slave = -1;
			}
			pump(ms_left());
		}
		mark = (size_t)(at - out) + n;
	} else if (!strncmp(s, "resize=", 7)) {
		struct winsize ws = { 0 };
		unsigned int r, c;

		if (sscanf(s + 7, "%ux%u", &r, &c) != 2)
			return false;
		ws.ws_row = (unsigned short)r;
		ws.ws_col = (unsigned short)c;
		if (ioctl(master, TIOCSWINSZ, &ws)) {
			perror("wd-pty: resize");
			return false;
		}
	} else if (!strncmp(s, "kill=", 5)) {
		if (!signum(s + 5) || kill(child, signum(s + 5)))
			return false;
	} else if (!strcmp(s, "modes") || !strcmp(s, "modes0")) {
		struct termios t = modes0;

		if (!strcmp(s, "modes") && tcgetattr(slave, &t)) {
			printf("modes: %s\n", errname(errno));
		} else {
			printf("modes: %x %x %x %x", t.c_iflag, t.c_oflag, t.c_cflag, t.c_lflag);
			for (int i = 0; i < NCCS; i++)
				printf(" %x", t.c_cc[i]);
			printf("\n");
		}
	} else if (!strcmp(s, "size")) {
		struct winsize ws;

		if (ioctl(slave, TIOCGWINSZ, &ws))
			printf("size: %s\n", errname(errno));
		else
			printf("size: %ux%u\n", ws.ws_row, ws.ws_col);
	} else if (!strcmp(s, "ctty")) {
		pid_t sid = tcgetsid(master); /* on the slave only its own session may ask */

		printf("ctty: %s\n", sid == child_sid ? "ours" : "other");
	} else if (!strcmp(s, "alive")) {
		struct termios t;

		printf("tty: %s\n", tcgetattr(slave, &t) == 0 ? "alive" : "hung up");
	} else if (!strcmp(s, "inq")) {
		int n = 0;

		if (ioctl(slave, TIOCINQ, &n))
			printf("inq: %s\n", errname(errno));
		else
			printf("inq: %d\n", n);
	} else if (!strcmp(s, "wait")) {
		while (!child_done) {
			if (!ms_left())
				timed_out("time is up waiting for the command to end");
			pump(ms_left());
		}
		if (WIFEXITED(child_status))
			printf("exit: %d\n", WEXITSTATUS(child_status));
		else
			printf("signal: %d\n", WTERMSIG(child_status));
	} else if (!strcmp(s, "eof")) {
		if (slave >= 0)
			close(slave);
		slave = -1;
		while (!master_eof || (pipefd >= 0 && !pipe_eof)) {
			if (!ms_left())
				timed_out("time is up reading the output to its end");
			pump(ms_left());
		}
	} else if (!strcmp(s, "show")) {
		for (size_t i = 0; i < out_len; i++)
			if (out[i] != '\r')
				putchar(out[i]);
		putchar('\n');
	} else if (!strncmp(s, "pipe=", 5)) {
		size_t n = unescape(s + 5, buf);

		while (pipefd >= 0 && !pipe_eof) {
			if (!ms_left())
				timed_out("time is up reading the pipe");
			pump(ms_left());
		}
		if (!pout || !memmem(pout, pout_len, buf, n)) {
			fprintf(stderr, "wd-pty: '%s' is not in the pipe: '%s'\n", s + 5,
				pout ? pout : "");
			return false;
		}
	} else {
		fprintf(stderr, "wd-pty: unknown step %s\n", s);
		exit(2);
	}
	fflush(stdout);
	return true;
}

static int steal(bool hangup)
{
	int p[2], e = 0;
	pid_t pid;

	if (pipe(p))
		return errno;
	pid = fork();
	if (pid == 0) {
		/* a session of its own, as the sandbox's command is in */
		e = setsid() < 0 || ioctl(0, TIOCSCTTY, 1) ? errno : 0;
		if (!e && hangup && syscall(SYS_vhangup))
			e = errno;
		if (write(p[1], &e, sizeof(e)) < 0)
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &e, sizeof(e)) != sizeof(e))
		e = EIO;
	waitpid(pid, NULL, 0);
	return e;
}

static int make_raw(int fd)
{
	struct termios t;

	if (tcgetattr(fd, &t))
		return errno;
	cfmakeraw(&t);
	t.c_lflag &= ~(tcflag_t)ECHO;
	return tcsetattr(fd, TCSANOW, &t) ? errno : 0;
}

static int attack(int argc, char **argv)
{
	const char *op = argv[2];
	bool wait_after = !strcmp(argv[argc - 1], "wait");
	int e = 0;

	if (!strcmp(op, "sti") && argc >= 4) {
		/* with a line end: a canonical terminal counts only whole lines as waiting */
		for (const char *c = argv[3]; *c && !e; c++)
			if (ioctl(0, TIOCSTI, c))
				e = errno;
		if (!e && ioctl(0, TIOCSTI, "\n"))
			e = errno;
	} else if (!strcmp(op, "steal")) {
		e = steal(false);
	} else if (!strcmp(op, "hangup")) {
		e = steal(true);
	} else if (!strcmp(op, "raw")) {
		e = make_raw(0);
	} else if (!strcmp(op, "open") && argc >= 4) {
		int fd = open(argv[3], O_RDONLY | O_NOCTTY);

		e = fd < 0 ? errno : make_raw(fd);
	} else {
		fprintf(stderr, "wd-pty: unknown attack %s\n", op);
		return 2;
	}
	printf("%s\n", e ? errname(e) : "ok");
	if (wait_after) {
		char line[64];
		ssize_t n;

		printf("ready\n");
		fflush(stdout);
		do {
			n = read(0, line, sizeof(line));
		} while (n < 0 && errno == EINTR);
	}
	return e ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned int rows = 24, cols = 80;
	bool null_in = false, pipe_out = false;
	int timeout = 120, first, opt, cmd = -1, p[2] = { -1, -1 }, sync[2], rc = 0;
	char c;
	struct winsize ws;

	if (argc >= 3 && !strcmp(argv[1], "attack"))
		return attack(argc, argv);
	while ((opt = getopt(argc, argv, "+t:s:no")) != -1) {
		switch (opt) {
		case 't': timeout = atoi(optarg); break;
		case 's':
			if (sscanf(optarg, "%ux%u", &rows, &cols) != 2)
				return 2;
			break;
		case 'n': null_in = true; break;
		case 'o': pipe_out = true; break;
		default: return 2;
		}
	}
	first = optind;
	for (int i = first; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			cmd = i + 1;
			break;
		}
	if (cmd < 0 || cmd >= argc) {
		fprintf(stderr, "usage: wd-pty [-t S] [-s RxC] [-n] [-o] STEP... -- CMD...\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += timeout;
	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0 || grantpt(master) || unlockpt(master)) {
		perror("wd-pty: posix_openpt");
		return 1;
	}
	slave = open(ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
	ws = (struct winsize){ .ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols };
	if (slave < 0 || ioctl(master, TIOCSWINSZ, &ws) || tcgetattr(slave, &modes0)) {
		perror("wd-pty: slave");
		return 1;
	}
	/* closed by the child's exec: its terminal is set up by then */
	if (pipe2(sync, O_CLOEXEC)) {
		perror("wd-pty: pipe");
		return 1;
	}
	if (pipe_out && pipe2(p, O_CLOEXEC)) {
		perror("wd-pty: pipe");
		return 1;
	}
	child = fork();
	if (child == 0) {
		int tty;

		setsid();
		tty = open(ptsname(master), O_RDWR);
		if (tty < 0 || ioctl(tty, TIOCSCTTY, 0))
			_exit(126);
		dup2(tty, 0);
		dup2(tty, 1);
		dup2(tty, 2);
		if (null_in) {
			int nul = open("/dev/null", O_RDONLY);

			dup2(nul, 0);
		}
		if (pipe_out)
			dup2(p[1], 1);
		for (int i = cmd; i < argc; i++)
			if (!strcmp(argv[i], "@TTY@"))
				argv[i] = ptsname(master);
		execvp(argv[cmd], argv + cmd);
		_exit(127);
	}
	if (child < 0) {
		perror("wd-pty: fork");
		return 1;
	}
	child_sid = child;
	close(sync[1]);
	while (read(sync[0], &c, 1) < 0 && errno == EINTR)
		;
	close(sync[0]);
	if (pipe_out) {
		close(p[1]);
		pipefd = p[0];
	}
	pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	fcntl(master, F_SETFL, O_NONBLOCK);
	if (pidfd < 0) {
		perror("wd-pty: pidfd_open");
		return 1;
	}
	for (int i = first; i < cmd - 1 && !rc; i++)
		if (!step(argv[i])) {
			fprintf(stderr, "wd-pty: step %s failed\n", argv[i]);
			rc = 1;
		}
	if (!child_done) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	return rc;
}
