// SPDX-License-Identifier: GPL-2.0
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cJSON.h>

#include "supervisor/backend/backend.h"
#include "supervisor/sandbox/cgroup.h"
#include "supervisor/backend/doctor.h"
#include "supervisor/backend/landlock_ruleset.h"
#include "supervisor/backend/probe.h"

int wd_doctor(FILE *out, bool json)
{
	char lsms[256], why_lsm[512], why_backend[1024], cg2[PATH_MAX];
	const struct wd_backend_ops *chosen;
	struct utsname u;
	bool btf, bpf_lsm, memfd_noexec, hybrid;
	int abi, lsm_err, cg_err;
	cJSON *o;
	char *s;

	uname(&u);
	btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	lsm_err = wd_active_lsms(lsms, sizeof(lsms));
	bpf_lsm = wd_bpf_lsm_supported(why_lsm, sizeof(why_lsm));
	abi = wd_landlock_abi();
	memfd_noexec = access("/proc/sys/vm/memfd_noexec", F_OK) == 0;
	cg_err = wd_cgroup2_mount(cg2, sizeof(cg2));
	hybrid = cg_err == 0 && strcmp(cg2, "/sys/fs/cgroup") != 0;
	chosen = wd_backend_choose("auto", why_backend, sizeof(why_backend));

	if (!json) {
		fprintf(out, "kernel        %s %s\n", u.sysname, u.release);
		fprintf(out, "BTF           %s\n", btf ? "yes" : "no (/sys/kernel/btf/vmlinux missing)");
		fprintf(out, "active LSMs   %s\n",
			lsm_err ? "unknown (securityfs is not mounted)" : lsms);
		fprintf(out, "BPF-LSM       %s%s\n", bpf_lsm ? "yes" : "no: ", bpf_lsm ? "" : why_lsm);
		if (abi > 0)
			fprintf(out, "Landlock      ABI %d\n", abi);
		else
			fprintf(out, "Landlock      no (%s)\n", strerror(-abi));
		fprintf(out, "memfd_noexec  %s\n", memfd_noexec ? "yes (6.3+)" :
				"no: the landlock backend refuses memfd_create");
		if (cg_err)
			fprintf(out, "cgroup2       not mounted\n");
		else
			fprintf(out, "cgroup2       %s (%s)\n", cg2, hybrid ? "hybrid host" : "pure v2");
		if (chosen)
			fprintf(out, "backend       %s%s\n", chosen->name,
				bpf_lsm ? "" : " (bpf-lsm cannot run here, see above)");
		else
			fprintf(out, "backend       none: %s\n", why_backend);
		fprintf(out, "\n`warden doctor --table` prints what each backend guarantees.\n");
		return chosen ? 0 : 1;
	}

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "kernel", u.release);
	cJSON_AddBoolToObject(o, "btf", btf);
	if (lsm_err)
		cJSON_AddNullToObject(o, "lsms");
	else
		cJSON_AddStringToObject(o, "lsms", lsms);
	cJSON_AddBoolToObject(o, "bpf_lsm", bpf_lsm);
	if (!bpf_lsm)
		cJSON_AddStringToObject(o, "bpf_lsm_missing", why_lsm);
	cJSON_AddNumberToObject(o, "landlock_abi", abi > 0 ? abi : 0);
	cJSON_AddBoolToObject(o, "memfd_noexec", memfd_noexec);
	if (cg_err)
		cJSON_AddNullToObject(o, "cgroup2");
	else
		cJSON_AddStringToObject(o, "cgroup2", cg2);
	cJSON_AddBoolToObject(o, "hybrid_cgroups", hybrid);
	if (chosen) {
		cJSON_AddStringToObject(o, "backend", chosen->name);
	} else {
		cJSON_AddNullToObject(o, "backend");
		cJSON_AddStringToObject(o, "backend_missing", why_backend);
	}
	s = cJSON_Print(o);
	fprintf(out, "%s\n", s);
	free(s);
	cJSON_Delete(o);
	return chosen ? 0 : 1;
}
