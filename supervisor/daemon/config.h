/* SPDX-License-Identifier: GPL-2.0 */
/*
 * daemon/: what wardend is as a service. This file: its configuration file
 * (/etc/warden/wardend.json, or --config FILE; docs/control.md#configuration), parsed into a
 * plain struct with no libbpf call, command-line options laid over it.
 */
#ifndef WD_DAEMON_CONFIG_H
#define WD_DAEMON_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define WD_DAEMON_CONFIG "/etc/warden/wardend.json"

enum wd_on_stop {
	WD_ON_STOP_KEEP = 0, /* sandboxes wait for the next wardend (--survive) */
	WD_ON_STOP_END = 1, /* sandboxes are killed, each with its exit record */
};

/* Which fields a layer (the file, or the command line) set. */
enum {
	WD_CFG_SURVIVE = 1 << 0,
	WD_CFG_POOL = 1 << 1,
	WD_CFG_BACKEND = 1 << 2,
	WD_CFG_APPROVERS = 1 << 3,
	WD_CFG_ON_STOP = 1 << 4,
	WD_CFG_SPARES = 1 << 5,
};

/* Most spares (supervisor/run/spare.h) a wardend keeps. */
#define WD_SPARES_MAX 4

struct wd_daemon_config {
	unsigned int set; /* WD_CFG_* */
	unsigned int survive_s;
	int pool;
	char backend[16]; /* auto, bpf-lsm or landlock */
	char approver_group[64]; /* "" for none */
	gid_t approver_gid; /* resolved when read; (gid_t)-1 for none */
	enum wd_on_stop on_stop;
	int spares; /* runs made ahead, each for the policy of a recent run (0: none) */
};

/*
 * The defaults: survive 300 s, pool 4, backend auto, no approver group, on_stop keep,
 * spares 1.
 */
void wd_daemon_config_defaults(struct wd_daemon_config *c);
/*
 * Read @path over @c (the fields it names). A missing file is no error when @may_be_missing
 * (-ENOENT, @c untouched). 0, or -errno with @msg saying what is wrong ("FILE: unknown key
 * \"x\"", "FILE: pool: ...").
 */
int wd_daemon_config_read(const char *path, bool may_be_missing, struct wd_daemon_config *c,
			  char *msg, size_t size);
/* Parse the text @json (named @path in messages) over @c: as above. */
int wd_daemon_config_parse(const char *path, const char *json, struct wd_daemon_config *c,
			   char *msg, size_t size);
/* Lay the fields @over set over @c. */
void wd_daemon_config_overlay(struct wd_daemon_config *c, const struct wd_daemon_config *over);
/*
 * Resolve an approver group name (or number) to @gid. 0, or -ENOENT (no such group) /
 * -EINVAL (a name no group could have).
 */
int wd_daemon_group_resolve(const char *name, gid_t *gid);
/* "keep" or "end". */
const char *wd_on_stop_name(enum wd_on_stop s);
bool wd_daemon_backend_ok(const char *name);

#endif
