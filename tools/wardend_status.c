// SPDX-License-Identifier: GPL-2.0
/*
 * wardend: the status request: versions, uptime, backend and held set, the configuration,
 * the cgroup layout, sandboxes, pool, and the audit rings' use and loss (docs/control.md).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cJSON.h>

#include "bpf/wd_abi.h"
#include "supervisor/bpf/progs.h"
#include "supervisor/sandbox/limits.h"
#include "tools/version.h"
#include "tools/wardend.h"

/* The sum of the held set's per-sandbox counters (wd_sandboxes): records lost, denials. */
static void set_counters(uint64_t *lost, uint64_t *denials, int *sandboxes)
{
	uint64_t key, next, *prev = NULL;
	struct wd_sandbox v;
	int events = -1, counts = -1;

	*lost = *denials = 0;
	*sandboxes = 0;
	if (d.progs)
		wd_progs_audit_maps(d.progs, &events, &counts);
	if (counts < 0)
		return;
	while (bpf_map_get_next_key(counts, prev, &next) == 0) {
		if (bpf_map_lookup_elem(counts, &next, &v) == 0) {
			*lost += v.lost;
			*denials += v.denials;
			++*sandboxes;
		}
		key = next;
		prev = &key;
	}
}

/* How full a ring is: bytes written and not yet read (its producer's and consumer's positions). */
static long ring_used(int fd)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long *cons, *prod;
	long used = -1;

	cons = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, fd, 0);
	if (cons == MAP_FAILED)
		return -1;
	prod = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, fd, page);
	if (prod != MAP_FAILED) {
		used = (long)(__atomic_load_n(prod, __ATOMIC_ACQUIRE) -
			      __atomic_load_n(cons, __ATOMIC_ACQUIRE));
		munmap(prod, (size_t)page);
	}
	munmap(cons, (size_t)page);
	return used;
}

static cJSON *status_rings(void)
{
	cJSON *o = cJSON_CreateObject(), *arr;
	uint64_t lost, denials;
	int n = 0, lent = 0, counted;

	for (int i = 0; i < MAX_SANDBOXES; i++) {
		n += d.rings[i].fd >= 0;
		lent += d.rings[i].fd >= 0 && d.rings[i].user;
	}
	cJSON_AddNumberToObject(o, "made", n);
	cJSON_AddNumberToObject(o, "lent", lent);
	cJSON_AddNumberToObject(o, "bytes_each", WD_PROGS_RING_BYTES_DAEMON);
	arr = cJSON_AddArrayToObject(o, "used_bytes");
	for (int i = 0; i < MAX_SANDBOXES; i++)
		if (d.rings[i].fd >= 0)
			cJSON_AddItemToArray(arr, cJSON_CreateNumber(ring_used(d.rings[i].fd)));
	/* the set's counters cover every sandbox it holds entries for, ours or an embedded run's */
	set_counters(&lost, &denials, &counted);
	cJSON_AddNumberToObject(o, "lost", (double)lost);
	cJSON_AddNumberToObject(o, "denials", (double)denials);
	cJSON_AddNumberToObject(o, "counted_sandboxes", counted);
	return o;
}

static cJSON *status_cgroups(void)
{
	struct wd_cg_layout_info *l = calloc(1, sizeof(*l));
	cJSON *o = cJSON_CreateObject(), *ctl;

	if (!l || wd_cg_layout_find(l, false)) {
		cJSON_AddStringToObject(o, "layout", l ? wd_cg_layout_name(l->layout) : "unknown");
		free(l);
		return o;
	}
	cJSON_AddStringToObject(o, "layout", wd_cg_layout_name(l->layout));
	cJSON_AddStringToObject(o, "cgroup2", l->v2);
	ctl = cJSON_AddObjectToObject(o, "controllers");
	for (int c = 0; c < WD_CTRL_NR; c++)
		cJSON_AddStringToObject(ctl, wd_ctrl_name(c),
					l->v2_ctrl[c] ? "v2" : l->v1[c][0] ? "v1" : "none");
	cJSON_AddBoolToObject(o, "kill", l->kill);
	free(l);
	return o;
}

cJSON *op_status(void)
{
	cJSON *r = cJSON_CreateObject(), *o, *arr;
	struct timespec now;
	struct utsname u;
	int n = 0;

	for (int i = 0; i < MAX_SANDBOXES; i++)
		n += d.sups[i].pid > 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	cJSON_AddBoolToObject(r, "ok", true);
	cJSON_AddStringToObject(r, "version", WARDEN_VERSION);
	cJSON_AddNumberToObject(r, "protocol", WD_DAEMON_PROTO);
	cJSON_AddStringToObject(r, "libbpf", libbpf_version_string());
	cJSON_AddStringToObject(r, "kernel", uname(&u) ? "unknown" : u.release);
	cJSON_AddNumberToObject(r, "uptime_s", (double)(now.tv_sec - d.started.tv_sec));
	cJSON_AddNumberToObject(r, "pid", getpid());
	cJSON_AddStringToObject(r, "backend", d.backend);
	cJSON_AddStringToObject(r, "auto_backend", d.auto_choice ? d.auto_choice : "none");
	if (d.progs)
		cJSON_AddStringToObject(r, "held_set", d.held_backend);
	else
		cJSON_AddNullToObject(r, "held_set");
	o = cJSON_AddObjectToObject(r, "config");
	cJSON_AddStringToObject(o, "file", d.config_read ? d.config_path : "");
	cJSON_AddNumberToObject(o, "survive_s", d.cfg.survive_s);
	cJSON_AddNumberToObject(o, "pool", d.cfg.pool);
	cJSON_AddNumberToObject(o, "spares", d.cfg.spares);
	if (d.cfg.approver_group[0])
		cJSON_AddStringToObject(o, "approver_group", d.cfg.approver_group);
	else
		cJSON_AddNullToObject(o, "approver_group");
	cJSON_AddStringToObject(o, "on_stop", wd_on_stop_name(d.cfg.on_stop));
	cJSON_AddItemToObject(r, "cgroups", status_cgroups());
	cJSON_AddNumberToObject(r, "supervisors", n);
	cJSON_AddNumberToObject(r, "survive_s", d.cfg.survive_s);
	o = cJSON_AddObjectToObject(r, "sandboxes");
	arr = cJSON_AddArrayToObject(o, "names");
	n = 0;
	for (int i = 0; i < MAX_SANDBOXES; i++)
		if (d.sups[i].pid > 0 && d.sups[i].name[0]) {
			cJSON_AddItemToArray(arr, cJSON_CreateString(d.sups[i].name));
			n++;
		}
	cJSON_AddNumberToObject(o, "count", n);
	o = cJSON_AddObjectToObject(r, "pool");
	cJSON_AddNumberToObject(o, "ready", d.pool.n);
	cJSON_AddNumberToObject(o, "want", d.pool.want);
	/* runs made ahead (wardend_spare.c): those ready to be claimed, and all */
	o = cJSON_AddObjectToObject(r, "spares");
	cJSON_AddNumberToObject(o, "ready", spares_count(true));
	cJSON_AddNumberToObject(o, "live", spares_count(false));
	cJSON_AddItemToObject(r, "rings", status_rings());
	return r;
}

