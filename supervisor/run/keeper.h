/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The keeper: a small program of its own (tools/warden-keeper.c), exec'd by `warden run` with
 * nothing of warden's memory, that outlives it only to end the sandbox, or to hand it over. It holds copies of what keeps the sandbox confined and held (the backend's
 * BPF links and maps, the waiting room's listener), so if warden dies, however it dies,
 * enforcement stays attached and held calls stay held (never failed with ENOSYS).
 *
 * Then, by default (embedded mode), it kills every task of the sandbox and removes its cgroup:
 * the sandbox dies with warden and never runs free. A run started to survive its supervisor
 * (`warden run --survive SECS`) is instead kept, held calls held and new ones waiting, for up to
 * SECS for another supervisor (`warden adopt`) to take it over through the keeper's socket,
 * <run dir>/keep-<sandbox>.sock; only then, or when nobody came, is it killed.
 *
 * The kernel hands each notified call to one receiver only, so the keeper also keeps the
 * journal of the calls warden has received and not yet answered: they are what the next
 * supervisor must ask about again.
 */
#ifndef WD_KEEPER_H
#define WD_KEEPER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "supervisor/sandbox/cgroup.h"
#include "supervisor/hold/engine.h"

struct wd_keeper {
	pid_t pid; /* -1 when adopted: the keeper is not our child */
	int sock; /* our end: closing it without saying "done" means the supervisor died */
};

/*
 * Start the keeper: warden-keeper, found beside warden's own binary. Call after the backend holds the sandbox's rules (so the keeper holds them
 * too) and before anything the keeper must not hold (the control socket) is opened. With
 * @survive_s > 0 it listens for a successor (see above) for that long after warden dies.
 */
int wd_keeper_start(struct wd_keeper *k, const struct wd_cgroup *cg, unsigned int survive_s);
/* What the keeper holds a copy of, for itself and a successor. */
enum wd_keep_fd {
	WD_KEEP_LISTENER, /* the waiting room's listener */
	WD_KEEP_STATUS, /* where the sandbox's init reports the command's wait status */
	WD_KEEP_EVENTS, /* the kernel's audit ring buffer (a BPF map) */
	WD_KEEP_COUNTS, /* the per-sandbox counters (denials, records lost; a BPF map) */
	/*
	 * The audit stream, as warden opened it before the command ran: the keeper appends the
	 * exit record to it and a successor writes on in it, neither reopening a path.
	 */
	WD_KEEP_AUDIT,
	WD_KEEP_TERMINAL, /* run --survive on a terminal: the command's pty master (no hang-up) */
	/* the memfd page the waiting room's calls are received into (wd_hold_set_receive_page) */
	WD_KEEP_RECEIVED,
	/*
	 * --report FILE: the unnamed file warden made before the command ran, and the directory
	 * it was pinned in (O_PATH); the state names it there. Whoever ends the run (warden, a
	 * successor, the keeper) writes the report into it: no path is looked up again.
	 */
	WD_KEEP_REPORT,
	WD_KEEP_REPORT_DIR,
	/* the key of the waiting room's hold tokens (wd_hold_key_fd): a successor signs with it */
	WD_KEEP_HOLD_KEY,
	/*
	 * wardend's streamed run: the read ends of the command's stdout and stderr pipes, so
	 * output outlives a wardend that dies (the next one reads on from them, wd_adopt_opts).
	 */
	WD_KEEP_STDOUT,
	WD_KEEP_STDERR,
	WD_KEEP_NFDS,
};

int wd_keeper_give(struct wd_keeper *k, enum wd_keep_fd what, int fd);
/* What a successor needs to take the sandbox on (a JSON object, see run.c tell_keeper()). */
int wd_keeper_state(struct wd_keeper *k, const char *state);
/* Journal: @c waits for a decision, or no longer does. */
int wd_keeper_journal(struct wd_keeper *k, const struct wd_hold_call *c, bool waiting);
/* The sandbox has ended: the keeper exits without touching anything. Safe to call twice. */
void wd_keeper_stop(struct wd_keeper *k);

/* What a successor gets from the keeper of a sandbox whose supervisor died. */
struct wd_adoption {
	char *state;
	int fds[WD_KEEP_NFDS]; /* -1 where the run had none to give (no holds, no pid namespace) */
	struct wd_hold_call *calls;
	size_t n_calls;
};

/*
 * Take the sandbox @name over from its keeper; @k then speaks to that keeper as the supervisor
 * did. -ENOENT: no such keeper; -ECONNREFUSED: its supervisor still lives (or another took it).
 */
int wd_keeper_adopt(const char *name, struct wd_keeper *k, struct wd_adoption *a);
void wd_adoption_free(struct wd_adoption *a);

/*
 * Between the two sides (this file's and tools/warden-keeper.c's), one message per SOCK_SEQPACKET
 * datagram, a type byte first:
 *   supervisor -> keeper: F (+ an fd, its enum wd_keep_fd next), S state, W call waits,
 *                         A call answered, D done
 *   keeper -> successor:  S state, F for each fd, W for each waiting call, E end
 */
enum {
	WD_KEEP_MSG_FD = 'F',
	WD_KEEP_MSG_STATE = 'S',
	WD_KEEP_MSG_WAITS = 'W',
	WD_KEEP_MSG_ANSWERED = 'A',
	WD_KEEP_MSG_DONE = 'D',
	WD_KEEP_MSG_END = 'E',
};

/* The largest state (a policy and a few fields): a datagram must hold it whole. */
#define WD_KEEP_STATE_MAX (1u << 20)

/* One message of @type (@data, @len, and @fd passed along unless -1); what sendmsg returns. */
ssize_t wd_keep_send(int sock, char type, const void *data, size_t len, int fd);
/* One message into @buf (its type is buf[0]); *fd gets a passed fd or -1. 0 on EOF. */
ssize_t wd_keep_recv(int sock, char *buf, size_t bufsz, int *fd);
/* A send buffer on @sock with room for the largest state. */
void wd_keep_room_for_state(int sock);

/*
 * warden-keeper's fds across its exec (tools/warden-keeper.c says what it does with them);
 * every fd from WD_KEEPER_HELD_FD up is a kernel object of the backend's it only holds open.
 */
#define WD_KEEPER_SOCK_FD 3
#define WD_KEEPER_CGROUP_FD 4
#define WD_KEEPER_NAMED_FD 5
#define WD_KEEPER_HELD_FD 6

#endif
