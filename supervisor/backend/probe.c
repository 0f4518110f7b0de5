// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "supervisor/util/log.h"
#include "supervisor/backend/probe.h"
#include "wd_probe.skel.h"

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/*
	 * libbpf's own hints ("try raising ulimit -l") mislead where the kernel itself refuses a
	 * program, so its text is shown only with -v (warnings) or -vv (everything); warden says what failed in its own words.
	 */
	if (level == LIBBPF_DEBUG ? log_level() < WD_LOG_DEBUG : log_level() < WD_LOG_INFO)
		return 0;
	fprintf(stderr, "warden: ");
	return vfprintf(stderr, fmt, ap);
}

void wd_libbpf_log_init(void)
{
	libbpf_set_print(libbpf_print);
}

int wd_active_lsms(char *buf, size_t bufsz)
{
	ssize_t n;
	int fd;

	fd = open("/sys/kernel/security/lsm", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, bufsz - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	return 0;
}

static bool lsm_listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len == n && strncmp(p, name, n) == 0)
			return true;
		p = comma ? comma + 1 : NULL;
	}
	return false;
}

static bool probe(char *why, size_t whysz)
{
	struct wd_probe_bpf *skel = NULL;
	char lsms[256];
	bool ok = false;
	int err;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(why, whysz, "the kernel has no BTF (/sys/kernel/btf/vmlinux): "
			 "BPF-LSM needs CONFIG_DEBUG_INFO_BTF");
		return false;
	}
	/* Where securityfs is mounted, it says for certain whether BPF-LSM is active. */
	if (wd_active_lsms(lsms, sizeof(lsms)) == 0 && !lsm_listed(lsms, "bpf")) {
		snprintf(why, whysz, "BPF LSM is not active: add \"bpf\" to the lsm= boot parameter "
			 "(active: %s)", lsms);
		return false;
	}
	skel = wd_probe_bpf__open();
	if (!skel) {
		snprintf(why, whysz, "cannot open the BPF-LSM probe program: %s", strerror(errno));
		return false;
	}
	err = wd_probe_bpf__load(skel);
	if (err) {
		snprintf(why, whysz, "the kernel refuses BPF-LSM programs: loading a test LSM "
			 "program failed: %s", strerror(-err));
		goto out_destroy_skel;
	}
	err = wd_probe_bpf__attach(skel);
	if (err) {
		snprintf(why, whysz, "the kernel refuses BPF-LSM programs: attaching a test LSM "
			 "program failed: %s", strerror(-err));
		goto out_destroy_skel;
	}
	ok = true;
out_destroy_skel:
	wd_probe_bpf__destroy(skel);
	return ok;
}

bool wd_bpf_lsm_supported(char *why, size_t whysz)
{
	static int cached = -1;
	static char reason[512];

	if (cached < 0) {
		cached = probe(reason, sizeof(reason));
		if (cached)
			log_debug("probe: BPF-LSM programs load and attach");
		else
			log_debug("probe: %s", reason);
	}
	if (!cached && why)
		snprintf(why, whysz, "%s", reason);
	return cached;
}
