/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wardend's state and what its files share: tools/wardend.c (the daemon: runs, supervisors,
 * the socket, signals), wardend_service.c (options, configuration, reload), wardend_relay.c (requests passed to a sandbox's holds socket),
 * wardend_status.c (status).
 */
#ifndef WD_WARDEND_H
#define WD_WARDEND_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <cJSON.h>

#include "supervisor/daemon/config.h"
#include "supervisor/daemon/request.h"
#include "supervisor/ipc/line.h"
#include "supervisor/sandbox/cgroup.h"

#define MAX_CLIENTS 16
#define MAX_SANDBOXES 256
#define REQ_MAX 65536
#define POOL_DEFAULT 4
/*
 * Output events of a streamed run wait for a slow client up to this much of its queue; what
 * comes beyond is counted lost, never waited for. A queue of replies beyond OUTQ_MAX (a client
 * that sends requests and reads nothing) drops the client.
 */
#define OUTQ_STREAM_MAX (1u << 20)
#define OUTQ_MAX (8u << 20)
#define STREAM_CHUNK 16384

struct client {
	int fd;
	struct wd_lines in;
	struct wd_outq out; /* what waits for it to read, in order */
	bool dead; /* dropped at the loop's next turn (its fd shut down) */
	char who[64]; /* "uid 1000 (alice)", from its credentials */
	int role; /* enum role, as it connected (each request asks again) */
};

/* A supervisor process of ours: a run we started, or a take-over. */
struct sup {
	pid_t pid;
	char name[32]; /* empty until a run's supervisor says it */
	bool adopted;
	bool from_spare; /* a run that claimed a spare (wardend_spare.c): its reply says so */
	char *shape; /* a run a spare could serve: its shape (spare_key), for the next like it */
	int ready; /* a run's pipe: its supervisor writes the sandbox's name there */
	int client; /* the client waiting for the run's reply, or -1 */
	char *argv0;
	char *cgroup; /* a run's cgroup from the pool: removed if its supervisor left it empty */
	int waiter; /* the client that asked "wait": told of the run's end, or -1 */
	/* a streamed run: the read ends of its command's stdout and stderr pipes, or -1 */
	int out[2];
	uint64_t out_bytes[2], out_lost[2]; /* passed on as events, and lost (no room, or no client) */
	char out_keep[2][4]; /* a UTF-8 sequence cut by the read, for the next chunk */
	size_t out_kept[2];
	bool streamed; /* asked "stream": its exit event says what went and what was lost */
	bool pty; /* asked "pty": out[0] is the terminal's master, in_w a copy of it */
	/*
	 * A successor's stdout (read end; -1: none): where it relays the command's terminal once
	 * it takes a "pty" run over, so out[0] after on_hand; never the daemon's own log.
	 */
	int term;
	/*
	 * Its holds, through its supervisor's holds socket (run-SANDBOX.sock), subscribed: the
	 * link's fd (-1: none yet, or its policy holds nothing), what it has read, the holds now
	 * pending there (HOLD objects, for resume to find a token's), and a resume waiting for the
	 * supervisor's answer to its decide.
	 */
	int hl;
	struct wd_lines hl_in;
	cJSON *held;
	/*
	 * A take-over's: where its supervisor hands over what the run's wardend left with the
	 * keeper (wd_adopt_opts.hand_fd), until it has (-1 then).
	 */
	int hand;
	bool hl_listed; /* the link's listing of what was held before it came */
	bool holds_events; /* asked "holds": its waiter gets hold and decision events */
	bool holds_return; /* asked "holds":"return": the first hold ends the request */
	int resumer; /* the client whose resume waits for the decide's answer, or -1 */
	cJSON *resume_id;
	char *resume_token; /* the token it presented */
	bool resume_attach; /* that client waits for the run's end (nobody else does) */
	cJSON *id; /* the request's id, echoed in its reply and events (may be NULL) */
	char *report; /* the report file: the request's, or one of ours (own_report) */
	bool own_report; /* ours, under <run dir>/reports: removed once sent */
	char *policy_file; /* an inline policy, written for its supervisor: removed at its end */
	/*
	 * A persistent sandbox (create): its supervisor takes execs on @exec (execs.h's socket);
	 * its name and labels as created; the client whose exec waits for "started" (its
	 * output waits too), the one whose destroy waits for the end, the one whose inspect waits
	 * for the supervisor's answer, with their request ids.
	 */
	bool persistent;
	int exec;
	char *label_name;
	cJSON *labels;
	unsigned int idle_s;
	int exec_client, destroyer, inspector;
	cJSON *destroy_id, *inspect_id;
	bool exec_running;
	/*
	 * A streamed run's output while no client waits for it (the client went): kept for one that
	 * attaches, at most MISSED_MAX bytes in all, beyond that counted lost. With kill_on_drop
	 * (run's "on_disconnect":"kill") the waiter's going ends the run instead.
	 */
	char *missed[2];
	size_t missed_len[2];
	bool kill_on_drop;
	/* a put or get running (1, 2; 0 none): its path, its bytes (put: sent; get: read) */
	int transfer;
	char *xfer_path;
	char *got;
	size_t got_len;
	bool got_over;
	/*
	 * "stdin_stream": the write end of the command's stdin (non-blocking), what waits to go
	 * into it (at most STDIN_MAX), and whether an eof closes it once that is gone.
	 */
	int in_w;
	struct wd_outq in_q;
	bool in_eof;
};
#define STDIN_MAX (1u << 20)
/* What a get brings back at most. */
#define GET_MAX (8u << 20)
#define MISSED_MAX (1u << 20)

/*
 * An audit ring of ours, in the held set's wd_rings under a key of its own: lent to one
 * supervisor at a time and taken back when its run ended in order. A run adds and removes no
 * ring, and each change of a map of maps costs an RCU grace period (10-15 ms here), which was
 * most of a run's start-up and end.
 */
struct ring {
	int fd; /* -1: a free slot */
	uint64_t key;
	pid_t user; /* the supervisor it is lent to, or 0 */
};

/* The daemon: what it runs with, serves and holds. */
struct wardend {
	const char *dir;
	char path[108];
	/* what it runs with: the defaults, the file over them, the command line over both */
	struct wd_daemon_config cfg;
	struct wd_daemon_config cli; /* the command line's, laid over every reload */
	const char *config_path; /* --config, or the default */
	bool config_given; /* --config: a missing file is an error */
	bool config_read; /* the file was there */
	struct timespec started; /* CLOCK_MONOTONIC */
	int listen_fd;
	struct wd_cgroup_pool pool; /* sandbox cgroups made ahead */
	bool pool_failed; /* said once: runs make their own */
	struct client clients[MAX_CLIENTS];
	struct sup sups[MAX_SANDBOXES];
	struct wd_progs *progs; /* the host's program set, held (pinset) */
	const char *held_backend; /* the backend whose set that is */
	char backend[16]; /* runs that name none get this one: cfg.backend as wardend started */
	const char *auto_choice; /* what auto is on this host (the probe's choice), or NULL */
	bool rings_failed; /* said once: runs make their own */
	struct ring rings[MAX_SANDBOXES];
	/*
	 * Resumes that came while a take-over was still handing its sandbox over (after a
	 * restart): asked again once it has, then answered not_found if still nothing holds the
	 * token. The request (a copy) and its client.
	 */
	struct {
		int client;
		cJSON *req;
	} later[MAX_CLIENTS];
};

extern struct wardend d;

/* Who the peer of a request is to control.sock (docs/control.md#who-may-do-what-on-controlsock). */
enum role { ROLE_SANDBOXED, ROLE_NONE, ROLE_APPROVER, ROLE_ROOT };

/* Reply @r (taken) on @fd, with the request's @id and "v". */
void send_reply_id(int fd, cJSON *r, const cJSON *id);
const char *str_field(const cJSON *req, const char *key);
/* The supervisor of the sandbox named @name (its id, or a persistent sandbox's name), or NULL. */
struct sup *sup_find(const char *name);
/* A sup's streamed output: what is left in its pipes, then they close. */
void stream_drain(struct sup *s);
/* Each hold pending in @s, as a "hold" event to its waiter if it asked "holds". */
void tell_held(struct sup *s);
/* The report file @path as JSON, or NULL. */
cJSON *read_report(const char *path);
/*
 * Persistent sandboxes (wardend_sandbox.c): exec, inspect and destroy, and what a supervisor
 * says on its exec socket. Each returns the reply, or NULL when it comes later.
 */
cJSON *op_exec(const cJSON *req, int client, const cJSON *id);
cJSON *op_inspect(const cJSON *req, int client, const cJSON *id);
cJSON *op_destroy(const cJSON *req, int client, const cJSON *id);
cJSON *op_put(const cJSON *req, int client, const cJSON *id);
/* stdin: bytes for a command's streamed stdin (wardend.c); stdin_flush on its POLLOUT. */
cJSON *op_stdin(const cJSON *req);
void stdin_flush(struct sup *s);
cJSON *op_get(const cJSON *req, int client, const cJSON *id);
/* A get's bytes from its pipe, kept for its reply (stream_emit's, while s->transfer). */
void transfer_take(struct sup *s, const char *b, size_t n);
/* attach: a client takes a run's stream and end over, with what it missed (wardend.c). */
cJSON *op_attach(const cJSON *req, int client, const cJSON *id);
/* One message of @s's exec socket read and acted on: false when there was none (or it closed). */
bool exec_read(struct sup *s);
/* The persistent fields of @s let go; a destroy waiting is answered with @report. */
void sandbox_ended(struct sup *s, cJSON *report);
/* The supervisor of sandbox @name, or NULL. */
struct sup *sup_by_name(const char *name);

/* tools/wardend_relay.c: a request to a sandbox's holds socket, answered when it answers. */
#define MAX_RELAYS 32
struct relay {
	int up; /* to run-SANDBOX.sock; -1: a free slot */
	int client; /* the control.sock client it answers */
	bool stream; /* subscribe: events until either end goes */
	char sandbox[32];
	cJSON *id;
	struct wd_lines in;
};
extern struct relay relays[MAX_RELAYS];
void relay_init(void);
/* Client @fd went: its relays go too. */
void relay_drop_client(int fd);
/* @r's socket is readable. */
void on_relay(struct relay *r);
/* holds, subscribe, approve or deny of @req from @c: NULL (answered later), or an error. */
cJSON *op_relay(const struct client *c, const cJSON *req, const char *op, const cJSON *id);

/* tools/wardend_spare.c: runs made ahead (supervisor/run/spare.h) */
struct spare {
	pid_t pid; /* 0: a free slot */
	int sock; /* its claim's socket */
	char *key; /* the request shape it was made for (spare_key) */
	char hash[65]; /* its effective policy's hash, once it said it is ready ("" till then) */
	bool ending; /* told to end: its slot is free once it is reaped */
	unsigned long long made; /* the order they were made in */
	char *cgroup; /* from the pool: removed if it left it */
	char *policy_file; /* an inline policy written for it */
};
extern struct spare spares[WD_SPARES_MAX];
void spares_init(void);
/* The shape of run request @req for backend @backend started in @cwd (a real path): malloc'd. */
char *spare_key(const cJSON *req, const char *backend, const char *cwd);
/*
 * A ready spare made for @key whose policy hashes @hash and whose working directory is @cwd
 * now, or NULL. A spare of that shape that no longer fits is ended.
 */
struct spare *spare_match(const char *key, const char *hash, const char *cwd);
/* A run of shape @key was asked: a spare for the next like it is made when nothing is asked. */
void spare_want(const char *key);
bool spares_wanted(void);
void spares_make(void);
/* @sp's socket is readable: its "ready" message. */
void spare_read(struct spare *sp);
/* Supervisor @pid ended: if it was an unclaimed spare, its slot is freed (true). */
bool spare_reaped(pid_t pid, int status);
/*
 * Send the claim @claim (its "fds" added: @names of the @n @fds) to @sp: the spare's pid, its
 * cgroup and policy file now the caller's; -1 when it could not be sent (the spare is ended).
 */
pid_t spare_claim(struct spare *sp, cJSON *claim, const int *fds, const char *const *names,
		  int n, char **cgroup, char **policy_file);
/* In a child of wardend: the spares' sockets closed. */
void spares_close_in_child(void);
/* Live spares (ready ones only, with @ready). */
int spares_count(bool ready);
/* wardend stops: every spare told to end; spares_running() counts those not reaped yet. */
void spares_stop(void);
int spares_running(void);

/* wardend.c's, for its other files */
void child_common(int keep_ring);
struct ring *ring_take(const char *backend);
void ring_return(pid_t pid, const char *sandbox, bool crashed);
char *write_inline_policy(const cJSON *pol, const char *sub);
struct wd_policy_derive;
cJSON *run_derive(const cJSON *req, struct wd_policy_derive *derive);

/* tools/wardend_service.c */
/* Parse the command line into d.cli: -1 to go on, else the exit status. */
int parse_args(int argc, char **argv, bool *check, int *verbosity);
/* The defaults, the file over them, the command line over both: 0, or -1 (@msg says why). */
int config_load(struct wd_daemon_config *c, bool *read_it, char *msg, size_t size);
/* What -n prints. */
void config_print(FILE *out, const struct wd_daemon_config *c, bool read_it);
/* control.sock's mode and group as approver_group says: 0, or -1 (said why). */
int socket_access(void);
/* SIGHUP. */
void reload(void);

/* tools/wardend_status.c */
cJSON *op_status(void);

#endif
