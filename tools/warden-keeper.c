// SPDX-License-Identifier: GPL-2.0
/*
 * warden-keeper: the process that ends a sandbox if its supervisor dies, or keeps it, held calls
 * held, for a successor (`warden adopt`) and hands it over (supervisor/run/keeper.h says why). warden
 * execs it (supervisor/run/keeper.c) from beside its own binary, with an empty environment,
 * nothing of warden's memory, and these fds:
 *
 *   0, 1  /dev/null
 *   2     warden's standard error, for the one message that matters
 *   3     the socket to the supervisor (SOCK_SEQPACKET, supervisor/run/keeper.h's messages):
 *         its EOF without a "done" says the supervisor died
 *   4     the sandbox's cgroup directory, which it kills and removes
 *   5     with SURVIVE > 0: the successors' socket, bound at SOCK_PATH and not listening while
 *         the supervisor lives (else /dev/null)
 *   6...  the backend's kernel objects (BPF links, programs and maps, perf events), held open
 *         and never used: enforcement stays attached for as long as the sandbox lives
 *
 * and, later, what it keeps for a successor, over fd 3 (enum wd_keep_fd). It makes itself
 * unreadable (not dumpable) first: what it holds is the sandbox's confinement.
 *
 *   warden-keeper LOG_LEVEL SANDBOX CGROUP_PATH CGROUP_ID SURVIVE SOCK_PATH
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "audit/jsonl.h"
#include "bpf/wd_abi.h"
#include "policy/grow.h"
#include "supervisor/ipc/sock.h"
#include "supervisor/run/keeper.h"
#include "supervisor/run/report.h"
#include "supervisor/sandbox/exit_status.h"
#include "supervisor/sandbox/limits.h"
#include "supervisor/sandbox/spawn.h"
#include "supervisor/util/log.h"

struct keep {
	int sock;
	struct wd_cgroup cg;
	unsigned int survive_s;
	int fds[WD_KEEP_NFDS];
	char *state;
	size_t state_len;
	struct wd_hold_call *calls;
	size_t n_calls;
	char path[108];
	int named; /* bound at path, not listening: refuses successors while a supervisor lives */
};

static void journal_add(struct keep *kp, const struct wd_hold_call *c)
{
	/* a successor journals again the calls it was handed */
	for (size_t i = 0; i < kp->n_calls; i++)
		if (kp->calls[i].notif_id == c->notif_id)
			return;
	if (WD_GROW(kp->calls, kp->n_calls)) {
		/* the successor would not know of this call: better no successor */
		log_warnx("keeper: out of memory for the journal; no successor will be let in");
		kp->survive_s = 0;
		return;
	}
	kp->calls[kp->n_calls++] = *c;
}

static void journal_remove(struct keep *kp, uint64_t id)
{
	for (size_t i = 0; i < kp->n_calls; i++)
		if (kp->calls[i].notif_id == id) {
			kp->calls[i] = kp->calls[--kp->n_calls];
			return;
		}
}

/*
 * The supervisor has died: listen for a successor until @survive_s have passed. Returns its
 * connection, or -1 when nobody came (or the sandbox emptied meanwhile: *gone).
 */
static int await_successor(struct keep *kp, bool *gone)
{
	struct timespec t0;
	int lsock, events, conn = -1;

	*gone = false;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/*
	 * The name stood, bound and not listening, for as long as the supervisor lived. A
	 * listening socket made under a temporary name replaces it in one rename, so a successor
	 * waiting for the name (inotify) can connect as soon as it sees it.
	 */
	lsock = wd_sock_listen("keeper", kp->path, SOCK_SEQPACKET | SOCK_CLOEXEC, 0600, 4);
	if (lsock < 0)
		return -1;
	if (kp->named >= 0)
		close(kp->named);
	kp->named = -1;
	log_warnx("keeper: the supervisor of sandbox %s ended; its %zu held call(s) stay held "
		  "and the sandbox waits up to %u s for `warden adopt %s`",
		  kp->cg.name, kp->n_calls, kp->survive_s, kp->cg.name);
	events = openat(kp->cg.fd, "cgroup.events", O_RDONLY | O_CLOEXEC);
	while (conn < 0) {
		struct pollfd pfd[2] = { { .fd = lsock, .events = POLLIN },
					 { .fd = events, .events = POLLPRI } };
		struct timespec now;
		long left;
		struct wd_peer cr;

		if (events >= 0 && wd_cgroup_events_empty(events)) {
			*gone = true;
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = (long)kp->survive_s * 1000 -
		       ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0)
			break;
		if (poll(pfd, events >= 0 ? 2 : 1, (int)left) < 0 && errno != EINTR)
			break;
		if (!(pfd[0].revents & POLLIN))
			continue;
		conn = wd_sock_accept(lsock, SOCK_CLOEXEC, &cr);
		if (conn < 0)
			continue;
		/*
		 * The socket is root's alone (mode 0600); the peer's credentials say so again, and
		 * a root process inside a sandbox (which may reach the name) is no successor.
		 */
		if (!wd_peer_is(&cr, geteuid())) {
			log_warnx("keeper: refused a successor for %s (pid %d: not root, or inside "
				  "a sandbox)", kp->cg.name, (int)cr.pid);
			close(conn);
			conn = -1;
		}
	}
	if (events >= 0)
		close(events);
	close(lsock);
	unlink(kp->path);
	if (conn < 0)
		return -1;
	/* bound, not listening, again: a second successor is refused while this one lives */
	kp->named = wd_sock_bind_name("keeper", kp->path, SOCK_SEQPACKET | SOCK_CLOEXEC, 0600);
	if (kp->named < 0)
		kp->named = -1;
	return conn;
}

/* Tell the successor everything; 0, or -1 if it went away meanwhile. */
static int hand_over(struct keep *kp, int conn)
{
	wd_keep_room_for_state(conn);
	if (wd_keep_send(conn, WD_KEEP_MSG_STATE, kp->state, kp->state_len, -1) < 0)
		return -1;
	for (unsigned char i = 0; i < WD_KEEP_NFDS; i++)
		if (kp->fds[i] >= 0 && wd_keep_send(conn, WD_KEEP_MSG_FD, &i, 1, kp->fds[i]) < 0)
			return -1;
	for (size_t i = 0; i < kp->n_calls; i++)
		if (wd_keep_send(conn, WD_KEEP_MSG_WAITS, &kp->calls[i], sizeof(kp->calls[i]), -1) < 0)
			return -1;
	if (wd_keep_send(conn, WD_KEEP_MSG_END, NULL, 0, -1) < 0)
		return -1;
	log_info("keeper: sandbox %s taken over with %zu held call(s)", kp->cg.name, kp->n_calls);
	return 0;
}

/* How the sandbox ended without a supervisor (@killed: by the keeper), from its init if it said. */
struct ending {
	const char *status;
	int code, signo;
};

static struct ending how_it_ended(struct keep *kp, cJSON *st, bool killed)
{
	cJSON *pid = cJSON_GetObjectItemCaseSensitive(st, "pid");
	struct ending e = { killed ? "killed" : "ended", killed ? 128 + SIGKILL : -1,
			    killed ? SIGKILL : 0 };
	siginfo_t si = { 0 };

	if (kp->fds[WD_KEEP_STATUS] >= 0 && cJSON_IsNumber(pid) &&
	    wd_child_read_status(kp->fds[WD_KEEP_STATUS], (pid_t)pid->valueint, &si) == 0) {
		struct wd_exit_status how = wd_exit_status_of(&si);

		e.status = how.signo ? "killed" : "completed";
		e.signo = how.signo;
		e.code = how.code;
	}
	return e;
}

/*
 * The run's audit stream still ends with an exit record, numbered on from the file. Written
 * to the stream warden opened before the command ran: no name is looked up again.
 */
static void write_exit(struct keep *kp, cJSON *st, const struct ending *e)
{
	cJSON *be = cJSON_GetObjectItemCaseSensitive(st, "backend");
	cJSON *pid = cJSON_GetObjectItemCaseSensitive(st, "pid");
	struct wd_audit_ctx actx = { .sandbox = kp->cg.name };
	struct timespec now;
	char *line;
	FILE *f = NULL;
	int fd;

	if (kp->fds[WD_KEEP_AUDIT] < 0 || !cJSON_IsNumber(pid))
		return; /* no state, or no stream to end */
	actx.backend = cJSON_IsString(be) ? be->valuestring : "";
	fd = fcntl(kp->fds[WD_KEEP_AUDIT], F_DUPFD_CLOEXEC, 3);
	if (fd >= 0) {
		f = fdopen(fd, "a+");
		if (!f)
			f = fdopen(fd, "a"); /* a stream, not a file: write only */
		if (!f)
			close(fd);
	}
	if (!f) {
		log_warn("keeper: cannot append the exit record of %s", kp->cg.name);
		return;
	}
	actx.seq = wd_audit_next_seq(f, kp->cg.name);
	clock_gettime(CLOCK_REALTIME, &now);
	line = wd_audit_exit_line(&actx, (uint64_t)now.tv_sec * 1000000000ull +
						 (uint64_t)now.tv_nsec,
				  pid->valueint, e->status, e->code, e->signo);
	if (line)
		fprintf(f, "%s\n", line);
	free(line);
	fclose(f);
}

/* The sandbox's kernel counters (denials, records lost), by the map's fd: no libbpf here. */
static int sandbox_counts(int map, uint64_t id, struct wd_sandbox *sb)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (uint32_t)map;
	attr.key = (uint64_t)(uintptr_t)&id;
	attr.value = (uint64_t)(uintptr_t)sb;
	return map < 0 ? -EBADF :
	       syscall(SYS_bpf, BPF_MAP_LOOKUP_ELEM, &attr, sizeof(attr)) ? -errno : 0;
}

/*
 * --report FILE: the report into the file warden made (WD_KEEP_REPORT, never its name looked
 * up), with what the keeper knows: how the command ended, the time since its start, the
 * cgroup's figures (@u), the kernel's counters; what it cannot know is named in "unknown".
 */
static void write_report(struct keep *kp, cJSON *st, const struct ending *e,
			 const struct wd_limit_usage *u, bool killed)
{
	struct wd_out_file f;
	struct wd_report r = { .writer = "keeper" };
	struct wd_sandbox sb;
	char reason[128], **argv = NULL;

	if (wd_report_kept_file(&f, st, kp->fds[WD_KEEP_REPORT], kp->fds[WD_KEEP_REPORT_DIR]))
		return;
	if (wd_report_from_kept(&r, st, &argv)) {
		f.tmp[0] = 0;
		wd_out_close(&f);
		return;
	}
	if (!killed)
		snprintf(reason, sizeof(reason), "the sandbox ended after its supervisor, before "
			 "anyone adopted it");
	else if (kp->survive_s)
		snprintf(reason, sizeof(reason), "not adopted within %u s", kp->survive_s);
	else
		snprintf(reason, sizeof(reason), "warden ended while the sandbox ran");
	r.reason = reason;
	r.status = strcmp(e->status, "ended") ? e->status : "completed";
	if (killed) {
		/* the keeper's kill, whatever the init said of it */
		r.status = "killed";
		r.signal = SIGKILL;
		r.exit_code = 128 + SIGKILL;
	} else {
		r.signal = e->signo;
		r.exit_code = e->code >= 0 && e->code <= 255 ? e->code : 0;
		/* no init to ask: how the command ended went with its supervisor */
		if (e->code < 0) {
			wd_report_unknown(&r, "status");
			wd_report_unknown(&r, "exit_code");
		}
	}
	wd_report_usage(&r, u);
	if (sandbox_counts(kp->fds[WD_KEEP_COUNTS], kp->cg.id, &sb) == 0) {
		r.denials = sb.denials;
		r.lost_records = sb.lost;
	} else {
		wd_report_unknown(&r, "denials");
		wd_report_unknown(&r, "lost_records");
	}
	/* the supervisors counted their holds; none of them is here to ask */
	wd_report_unknown(&r, "holds");
	if (wd_report_commit(&f, &r))
		log_warnx("keeper: cannot write the report of %s", kp->cg.name);
	free(argv);
}

/* The sandbox ended without a supervisor: the exit record and the report. */
static void end_run(struct keep *kp, bool killed, const struct wd_limit_usage *u)
{
	cJSON *st = kp->state ? cJSON_Parse(kp->state) : NULL;
	struct ending e;

	if (!st)
		return;
	e = how_it_ended(kp, st, killed);
	write_exit(kp, st, &e);
	write_report(kp, st, &e, u, killed);
	cJSON_Delete(st);
}

/* The keeper's whole life: hold on until told done; if the supervisor dies, hand over or end. */
static void __attribute__((noreturn)) keeper_main(struct keep *kp)
{
	static const int quiet[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP,
				     SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2 };
	char *buf = malloc(WD_KEEP_STATE_MAX + 1);
	struct wd_limit_usage usage;
	struct wd_limits lim = { 0 }; /* the v2 controllers' files, where the cgroup has them */
	bool gone = false;
	sigset_t none;

	/*
	 * Its own session from before its exec (keeper.c: a ^C or a hang-up at warden's terminal is
	 * not for it). Ignored first, then unblocked: a signal sent while warden had it blocked is
	 * pending, and would otherwise end the keeper as soon as it is let through.
	 */
	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
		signal(quiet[i], SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (!buf)
		kp->survive_s = 0;
	for (;;) {
		int fd;
		ssize_t n = buf ? wd_keep_recv(kp->sock, buf, WD_KEEP_STATE_MAX + 1, &fd) : 0;

		if (n > 0) {
			switch (buf[0]) {
			case WD_KEEP_MSG_DONE:
				if (kp->path[0])
					unlink(kp->path);
				_exit(0);
			case WD_KEEP_MSG_FD:
				if (fd >= 0 && n == 2 && (unsigned char)buf[1] < WD_KEEP_NFDS) {
					int *slot = &kp->fds[(unsigned char)buf[1]];

					if (*slot >= 0)
						close(*slot);
					*slot = fd;
				} else if (fd >= 0) {
					close(fd);
				}
				continue;
			case WD_KEEP_MSG_STATE:
				free(kp->state);
				kp->state_len = (size_t)n - 1;
				kp->state = malloc(kp->state_len + 1);
				if (kp->state) {
					memcpy(kp->state, buf + 1, kp->state_len);
					kp->state[kp->state_len] = 0;
				}
				continue;
			case WD_KEEP_MSG_WAITS:
				if ((size_t)n == 1 + sizeof(struct wd_hold_call)) {
					struct wd_hold_call c;

					memcpy(&c, buf + 1, sizeof(c));
					journal_add(kp, &c);
				}
				continue;
			case WD_KEEP_MSG_ANSWERED:
				if ((size_t)n == 1 + sizeof(uint64_t)) {
					uint64_t id;

					memcpy(&id, buf + 1, sizeof(id));
					journal_remove(kp, id);
				}
				continue;
			default:
				if (fd >= 0)
					close(fd);
				continue; /* nothing else is ever sent */
			}
		}
		/* EOF (or the socket broke): the supervisor is gone */
		if (kp->survive_s && kp->state) {
			int conn = await_successor(kp, &gone);

			if (conn >= 0 && hand_over(kp, conn) == 0) {
				close(kp->sock);
				kp->sock = conn;
				continue;
			}
			if (conn >= 0)
				close(conn);
		}
		break;
	}
	if (!gone)
		log_warnx("keeper: warden ended while sandbox %s ran; killing the sandbox",
			  kp->cg.name);
	if (kp->path[0])
		unlink(kp->path);
	/* Held calls stay held meanwhile (the listener is ours); the kill ends them. */
	wd_cgroup_drain(&kp->cg);
	/* emptied: the figures are the whole sandbox's, read before it goes */
	lim.v2_mem = faccessat(kp->cg.fd, "memory.current", F_OK, 0) == 0;
	lim.v2_pids = faccessat(kp->cg.fd, "pids.current", F_OK, 0) == 0;
	wd_limits_read(&lim, kp->cg.fd, &usage);
	wd_limits_remove_for(&kp->cg);
	wd_cgroup_destroy(&kp->cg);
	end_run(kp, !gone, &usage);
	_exit(0);
}


/* A decimal argument in [0, @max], or -1. */
static long long arg_number(const char *s, unsigned long long max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v > max)
		return -1;
	return (long long)v;
}

int main(int argc, char **argv)
{
	struct keep kp = { .sock = WD_KEEPER_SOCK_FD, .named = -1 };
	long long level, id, survive;

	/* First: from here on its memory and fds are no one's to read. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) || argc != 7)
		return 127;
	/* exec'd by fd, its name would be the fd's number */
	prctl(PR_SET_NAME, "warden-keeper");
	level = arg_number(argv[1], WD_LOG_DEBUG);
	id = arg_number(argv[4], UINT64_MAX >> 1);
	survive = arg_number(argv[5], UINT32_MAX);
	if (level < 0 || id < 0 || survive < 0 || strlen(argv[2]) >= sizeof(kp.cg.name) ||
	    strlen(argv[3]) >= sizeof(kp.cg.path) || strlen(argv[6]) >= sizeof(kp.path) ||
	    (survive && !argv[6][0]))
		return 127;
	log_init("warden", (int)level);
	strcpy(kp.cg.name, argv[2]);
	strcpy(kp.cg.path, argv[3]);
	kp.cg.id = (uint64_t)id;
	kp.cg.fd = WD_KEEPER_CGROUP_FD;
	kp.survive_s = (unsigned int)survive;
	for (int i = 0; i < WD_KEEP_NFDS; i++)
		kp.fds[i] = -1;
	if (survive) {
		strcpy(kp.path, argv[6]);
		kp.named = WD_KEEPER_NAMED_FD;
	} else {
		close(WD_KEEPER_NAMED_FD);
	}
	keeper_main(&kp);
}
