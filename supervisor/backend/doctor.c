// SPDX-License-Identifier: GPL-2.0
/*
 * Backend room: `warden doctor`. Asks every probe (probe.h) and the backend choice, then prints
 * each answer with its reason, as text or JSON. It decides nothing itself.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <cJSON.h>

#include "supervisor/backend/backend.h"
#include "supervisor/sandbox/cgroup.h"
#include "supervisor/sandbox/limits.h"
#include "supervisor/backend/doctor.h"
#include "supervisor/backend/probe.h"
#include "supervisor/backend/probe_cache.h"


struct findings {
	struct utsname u;
	char lsms[256], cg2[PATH_MAX], source[PATH_MAX + 128];
	char why_lsm[512], why_backend[1024], why_notify[256], why_killable[256], why_wake[256];
	bool btf, bpf_lsm, memfd_noexec, hybrid, notify, killable, wake, cached;
	int abi, lsm_err, cg_err;
	int hook_args[WD_PROBE_N_HOOKS]; /* -errno where the hook or the BTF is missing */
	const struct wd_backend_ops *chosen;
	struct wd_cg_layout_info layout;
};

static void find(struct findings *f)
{
	uname(&f->u);
	f->btf = wd_btf_supported(NULL, 0);
	f->lsm_err = wd_active_lsms(f->lsms, sizeof(f->lsms));
	f->bpf_lsm = wd_bpf_lsm_supported(f->why_lsm, sizeof(f->why_lsm));
	f->abi = wd_landlock_abi();
	f->memfd_noexec = wd_memfd_noexec_supported(NULL, 0);
	f->notify = wd_seccomp_notify_supported(f->why_notify, sizeof(f->why_notify));
	f->killable = wd_seccomp_wait_killable_supported(f->why_killable, sizeof(f->why_killable));
	f->wake = wd_seccomp_sync_wake_up_supported(f->why_wake, sizeof(f->why_wake));
	for (size_t i = 0; i < WD_PROBE_N_HOOKS; i++)
		f->hook_args[i] = wd_probe_hook_args(wd_probe_hooks[i]);
	wd_vmlinux_btf_release();
	f->cg_err = wd_cgroup2_mount(f->cg2, sizeof(f->cg2));
	f->hybrid = f->cg_err == 0 && strcmp(f->cg2, "/sys/fs/cgroup") != 0;
	/* as a run finds it: the controllers switched on in warden's own subtree */
	wd_cg_layout_find(&f->layout, true);
	f->chosen = wd_backend_choose("auto", f->why_backend, sizeof(f->why_backend));
	f->cached = wd_probe_cached(f->source, sizeof(f->source));
}

/* Where limits by controller @c are applied: v2, v1 (its mount) or an rlimit. */
static const char *ctrl_where(const struct wd_cg_layout_info *l, int c)
{
	static char buf[PATH_MAX + 32];

	if (l->v2_ctrl[c])
		return "cgroup v2 (warden's subtree)";
	if (l->v1[c][0]) {
		snprintf(buf, sizeof(buf), "cgroup v1 at %s", l->v1[c]);
		return buf;
	}
	return c == WD_CTRL_CPU ? "none: limits.cpu is refused" : "none: an rlimit instead";
}

/* "yes" or "no: why", as the BPF-LSM line has always said it. */
static void yes_or_why(FILE *out, const char *label, bool yes, const char *why)
{
	fprintf(out, "%-14s%s%s\n", label, yes ? "yes" : "no: ", yes ? "" : why);
}

static void print_text(FILE *out, const struct findings *f)
{
	fprintf(out, "kernel        %s %s\n", f->u.sysname, f->u.release);
	fprintf(out, "BTF           %s\n", f->btf ? "yes" : "no (/sys/kernel/btf/vmlinux missing)");
	fprintf(out, "active LSMs   %s\n",
		f->lsm_err ? "unknown (securityfs is not mounted)" : f->lsms);
	yes_or_why(out, "BPF-LSM", f->bpf_lsm, f->why_lsm);
	if (f->abi > 0)
		fprintf(out, "Landlock      ABI %d\n", f->abi);
	else
		fprintf(out, "Landlock      no (%s)\n", strerror(-f->abi));
	fprintf(out, "memfd_noexec  %s\n", f->memfd_noexec ? "yes (6.3+)" :
			"no: the landlock backend refuses memfd_create");
	yes_or_why(out, "user notify", f->notify, f->why_notify);
	yes_or_why(out, "wait-killable", f->killable, f->why_killable);
	yes_or_why(out, "sync wake-up", f->wake, f->why_wake);
	fprintf(out, "LSM hook args");
	for (size_t i = 0; i < WD_PROBE_N_HOOKS; i++) {
		if (f->hook_args[i] >= 0)
			fprintf(out, " %s %d", wd_probe_hooks[i], f->hook_args[i]);
		else
			fprintf(out, " %s (%s)", wd_probe_hooks[i], strerror(-f->hook_args[i]));
		fputc(i + 1 < WD_PROBE_N_HOOKS ? ',' : '\n', out);
	}
	if (f->cg_err)
		fprintf(out, "cgroup2       not mounted\n");
	else
		fprintf(out, "cgroup2       %s (%s)\n", f->cg2, f->hybrid ? "hybrid host" : "pure v2");
	fprintf(out, "cgroups       %s\n", wd_cg_layout_name(f->layout.layout));
	for (int c = 0; c <= WD_CTRL_CPU; c++)
		fprintf(out, "  %-12s%s\n", wd_ctrl_name((enum wd_ctrl)c), ctrl_where(&f->layout, c));
	fprintf(out, "  %-12s%s\n", "kill", f->layout.kill ? "cgroup.kill" :
		"no cgroup.kill: freeze, then kill each pid");
	if (f->chosen)
		fprintf(out, "backend       %s%s\n", f->chosen->name,
			f->bpf_lsm ? "" : " (bpf-lsm cannot run here, see above)");
	else
		fprintf(out, "backend       none: %s\n", f->why_backend);
	fprintf(out, "answers       %s\n", f->source);
	fprintf(out, "\n`warden doctor --table` prints what each backend guarantees.\n");
}

/* @key: @value where there is one, null where there is not. */
static void add_string_or_null(cJSON *o, const char *key, bool have, const char *value)
{
	if (have)
		cJSON_AddStringToObject(o, key, value);
	else
		cJSON_AddNullToObject(o, key);
}

/* @key: @yes, and @key_missing: @why when it is false. */
static void add_bool_why(cJSON *o, const char *key, bool yes, const char *why)
{
	char missing[64];

	cJSON_AddBoolToObject(o, key, yes);
	snprintf(missing, sizeof(missing), "%s_missing", key);
	if (!yes)
		cJSON_AddStringToObject(o, missing, why);
}

static void print_json(FILE *out, const struct findings *f)
{
	cJSON *o = cJSON_CreateObject(), *h;
	char *s;

	cJSON_AddStringToObject(o, "kernel", f->u.release);
	cJSON_AddBoolToObject(o, "btf", f->btf);
	add_string_or_null(o, "lsms", !f->lsm_err, f->lsms);
	add_bool_why(o, "bpf_lsm", f->bpf_lsm, f->why_lsm);
	cJSON_AddNumberToObject(o, "landlock_abi", f->abi > 0 ? f->abi : 0);
	cJSON_AddBoolToObject(o, "memfd_noexec", f->memfd_noexec);
	add_bool_why(o, "seccomp_notify", f->notify, f->why_notify);
	add_bool_why(o, "seccomp_wait_killable_recv", f->killable, f->why_killable);
	add_bool_why(o, "seccomp_sync_wake_up", f->wake, f->why_wake);
	h = cJSON_AddObjectToObject(o, "lsm_hook_args");
	for (size_t i = 0; i < WD_PROBE_N_HOOKS; i++) {
		if (f->hook_args[i] >= 0)
			cJSON_AddNumberToObject(h, wd_probe_hooks[i], f->hook_args[i]);
		else
			cJSON_AddNullToObject(h, wd_probe_hooks[i]);
	}
	add_string_or_null(o, "cgroup2", !f->cg_err, f->cg2);
	cJSON_AddBoolToObject(o, "hybrid_cgroups", f->hybrid);
	h = cJSON_AddObjectToObject(o, "cgroup_layout");
	cJSON_AddStringToObject(h, "layout", (const char *[]){ "v2", "hybrid", "neither" }
					     [f->layout.layout]);
	for (int c = 0; c <= WD_CTRL_CPU; c++)
		cJSON_AddStringToObject(h, wd_ctrl_name((enum wd_ctrl)c),
					f->layout.v2_ctrl[c] ? "v2" : f->layout.v1[c][0] ? "v1"
											 : "none");
	cJSON_AddBoolToObject(h, "cgroup_kill", f->layout.kill);
	add_string_or_null(o, "backend", f->chosen, f->chosen ? f->chosen->name : NULL);
	if (!f->chosen)
		cJSON_AddStringToObject(o, "backend_missing", f->why_backend);
	cJSON_AddBoolToObject(o, "cached", f->cached);
	cJSON_AddStringToObject(o, "answers", f->source);
	s = cJSON_Print(o);
	fprintf(out, "%s\n", s);
	free(s);
	cJSON_Delete(o);
}

int wd_doctor(FILE *out, bool json, bool refresh)
{
	struct findings f = { 0 };

	if (refresh)
		wd_probe_cache_ignore();
	find(&f);
	if (json)
		print_json(out, &f);
	else
		print_text(out, &f);
	return f.chosen ? 0 : 1;
}
