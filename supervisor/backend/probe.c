// SPDX-License-Identifier: GPL-2.0
/*
 * Backend room: the probes (probe.h). Each answer is computed once per process and kept with
 * the kernel's errno; the sentence saying what is missing is written only when someone asks
 * for it, so that computing an answer stays one syscall, safe in a child before execve.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "supervisor/ipc/rundir.h"
#include "supervisor/util/log.h"
#include "supervisor/backend/probe.h"
#include "supervisor/backend/probe_cache.h"
#include "wd_probe.skel.h"

#define WD_VMLINUX_BTF "/sys/kernel/btf/vmlinux"

/* Newer than Debian 12's linux-libc-dev (6.1). */
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#define WD_USER_NOTIF_FD_SYNC_WAKE_UP 1ULL

/*
 * One probe: @fn returns 0 (yes) or -errno (no) and runs the first time only; its answer and
 * errno are kept. @missing says what is missing, with one %s for the errno's text.
 */
struct probe {
	int (*fn)(void);
	const char *missing;
	signed char state; /* -1 not asked, 0 no, 1 yes */
	int err;
};

#define PROBE(fn, missing) { fn, missing, -1, 0 }

static void say(char *why, size_t whysz, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void cache_load(void);

static bool ask(struct probe *p)
{
	cache_load();
	if (p->state < 0) {
		int err = p->fn();

		p->err = -err;
		p->state = err == 0;
	}
	return p->state == 1;
}

/* The answer; on no, @why (may be NULL) says why. */
static bool answer(struct probe *p, char *why, size_t whysz)
{
	if (ask(p))
		return true;
	if (why && whysz)
		snprintf(why, whysz, p->missing, strerror(p->err));
	return false;
}

static void say(char *why, size_t whysz, const char *fmt, ...)
{
	va_list ap;

	if (!why || !whysz)
		return;
	va_start(ap, fmt);
	vsnprintf(why, whysz, fmt, ap);
	va_end(ap);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/*
	 * libbpf's own hints ("try raising ulimit -l") mislead where the kernel itself refuses a
	 * program, so its text is shown only with -v (warnings) or -vv (everything); warden says
	 * what failed in its own words.
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

/* ---- BTF ---- */

static int probe_btf(void)
{
	return access(WD_VMLINUX_BTF, R_OK) ? -errno : 0;
}

static struct probe btf_present = PROBE(probe_btf,
					"the kernel has no BTF (" WD_VMLINUX_BTF ": %s)");

bool wd_btf_supported(char *why, size_t whysz)
{
	return answer(&btf_present, why, whysz);
}

static struct btf *vmlinux;
static int vmlinux_err; /* a load that failed is not tried again */
static unsigned int vmlinux_loads;

const struct btf *wd_vmlinux_btf(void)
{
	if (!vmlinux && !vmlinux_err) {
		vmlinux_loads++;
		vmlinux = btf__load_vmlinux_btf();
		if (vmlinux) {
			log_debug("probe: the kernel's BTF loaded (load %u)", vmlinux_loads);
		} else {
			vmlinux_err = errno ? errno : ENOENT;
			log_debug("probe: cannot load the kernel's BTF: %s", strerror(vmlinux_err));
		}
	}
	if (!vmlinux)
		errno = vmlinux_err;
	return vmlinux;
}

void wd_vmlinux_btf_release(void)
{
	btf__free(vmlinux);
	vmlinux = NULL;
}

unsigned int wd_vmlinux_btf_loads(void)
{
	return vmlinux_loads;
}

int wd_lsm_hook_args(const struct btf *btf, const char *hook)
{
	const struct btf_type *t;
	char name[128];
	int id;

	snprintf(name, sizeof(name), "bpf_lsm_%s", hook);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
	if (id <= 0)
		return -1;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	return t && btf_is_func_proto(t) ? (int)btf_vlen(t) : -1;
}

/* The hooks asked about so far; a hook past the last slot is answered, just not remembered. */
static struct {
	char hook[48];
	int args;
} hook_args[32];
static size_t n_hook_args;

int wd_probe_hook_args(const char *hook)
{
	const struct btf *btf;
	int n;

	cache_load();
	for (size_t i = 0; i < n_hook_args; i++)
		if (strcmp(hook_args[i].hook, hook) == 0)
			return hook_args[i].args;
	btf = wd_vmlinux_btf();
	if (!btf)
		return -errno;
	n = wd_lsm_hook_args(btf, hook);
	if (n < 0)
		n = -ENOENT;
	if (n_hook_args < sizeof(hook_args) / sizeof(hook_args[0]) &&
	    strlen(hook) < sizeof(hook_args[0].hook)) {
		snprintf(hook_args[n_hook_args].hook, sizeof(hook_args[0].hook), "%s", hook);
		hook_args[n_hook_args++].args = n;
	}
	return n;
}

/* ---- BPF-LSM ---- */

static bool probe_bpf_lsm(char *why, size_t whysz)
{
	struct wd_probe_bpf *skel = NULL;
	char lsms[256], btf_why[256];
	bool ok = false;
	int err;

	if (!wd_btf_supported(btf_why, sizeof(btf_why))) {
		snprintf(why, whysz, "%s: BPF-LSM needs CONFIG_DEBUG_INFO_BTF", btf_why);
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

static int bpf_lsm_cached = -1;
static char bpf_lsm_reason[512];
static void cache_save(void);

bool wd_bpf_lsm_supported(char *why, size_t whysz)
{
	cache_load();
	if (bpf_lsm_cached < 0) {
		bpf_lsm_cached = probe_bpf_lsm(bpf_lsm_reason, sizeof(bpf_lsm_reason));
		if (bpf_lsm_cached)
			log_debug("probe: BPF-LSM programs load and attach");
		else
			log_debug("probe: %s", bpf_lsm_reason);
		cache_save();
	}
	if (!bpf_lsm_cached)
		say(why, whysz, "%s", bpf_lsm_reason);
	return bpf_lsm_cached;
}

/* ---- Landlock, memfd_noexec ---- */

static int landlock_abi;

static int probe_landlock(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	if (abi < 0)
		return -errno;
	landlock_abi = (int)abi;
	return abi >= 1 ? 0 : -ENOSYS;
}

static struct probe landlock = PROBE(probe_landlock, "Landlock is not available (%s): it needs "
				      "CONFIG_SECURITY_LANDLOCK and \"landlock\" in the lsm= boot parameter");

int wd_landlock_abi(void)
{
	return ask(&landlock) ? landlock_abi : -landlock.err;
}

bool wd_landlock_supported(char *why, size_t whysz)
{
	return answer(&landlock, why, whysz);
}

static int probe_memfd_noexec(void)
{
	return access(WD_MEMFD_NOEXEC_SYSCTL, F_OK) ? -errno : 0;
}

static struct probe memfd_noexec = PROBE(probe_memfd_noexec,
					 "the kernel has no vm.memfd_noexec (6.3+): %s");

bool wd_memfd_noexec_supported(char *why, size_t whysz)
{
	return answer(&memfd_noexec, why, whysz);
}

/* ---- seccomp user notification ---- */

static struct seccomp_notif_sizes notif_sizes;

static int probe_notify(void)
{
	return syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &notif_sizes) ? -errno : 0;
}

static struct probe notify = PROBE(probe_notify,
				   "the kernel has no seccomp user notification (5.0+): %s");

bool wd_seccomp_notify_supported(char *why, size_t whysz)
{
	return answer(&notify, why, whysz);
}

int wd_seccomp_notif_sizes(struct seccomp_notif_sizes *out)
{
	if (!ask(&notify))
		return -notify.err;
	*out = notif_sizes;
	return 0;
}

/*
 * The kernel checks the flags before it reads the filter: with no filter at all, a known flag
 * fails with EFAULT, an unknown one with EINVAL, and nothing is installed.
 */
static int probe_wait_killable(void)
{
	long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			 SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, NULL);

	return r < 0 && errno == EFAULT ? 0 : r < 0 ? -errno : -EPROTO;
}

static struct probe wait_killable = PROBE(probe_wait_killable, "the kernel does not know "
					  "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (5.19+): %s");

bool wd_seccomp_wait_killable_supported(char *why, size_t whysz)
{
	return answer(&wait_killable, why, whysz);
}

/*
 * A listener is needed to ask: a child installs an allow-everything filter on itself, asks,
 * and exits with the errno (255: no listener at all). The parent is untouched.
 */
static int probe_sync_wake_up(void)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = 1, .filter = &allow };
	int status, err = -ECHILD;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		long fd = -1;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)
			fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				     SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
		if (fd < 0)
			_exit(255);
		_exit(ioctl((int)fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, WD_USER_NOTIF_FD_SYNC_WAKE_UP) ?
			      errno & 0x7f : 0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		err = 0;
	else if (WIFEXITED(status) && WEXITSTATUS(status) != 255)
		err = -WEXITSTATUS(status);
	else if (WIFEXITED(status))
		err = -EOPNOTSUPP;
	return err;
}

static struct probe sync_wake_up = PROBE(probe_sync_wake_up, "the kernel does not know "
					 "SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (6.6+): %s");

bool wd_seccomp_sync_wake_up_supported(char *why, size_t whysz)
{
	return answer(&sync_wake_up, why, whysz);
}

int wd_seccomp_set_sync_wake_up(int listener)
{
	int err = 0;

	if (sync_wake_up.state == 0)
		return -sync_wake_up.err;
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, WD_USER_NOTIF_FD_SYNC_WAKE_UP))
		err = -errno;
	/* EINVAL is the kernel not knowing the flag; anything else says nothing about it */
	if (!err || err == -EINVAL) {
		sync_wake_up.state = !err;
		sync_wake_up.err = -err;
	}
	return err;
}

/* ---- the answers kept across runs (probe_cache.h) ---- */

static int cache_state = -1; /* -1 not looked at, 0 not used, 1 the answers came from it */
static int cache_err = -ENOENT; /* why not used, or the write's result when saved */
static bool cache_saved;
static char cache_dir[256];

static void set_probe(struct probe *p, int err)
{
	p->state = err == 0;
	p->err = err;
}

static void cache_apply(const struct wd_probe_answers *a)
{
	set_probe(&btf_present, a->btf);
	bpf_lsm_cached = a->bpf_lsm;
	snprintf(bpf_lsm_reason, sizeof(bpf_lsm_reason), "%s", a->bpf_lsm_why);
	set_probe(&landlock, a->landlock);
	landlock_abi = a->landlock_abi;
	set_probe(&memfd_noexec, a->memfd_noexec);
	set_probe(&notify, a->notify);
	notif_sizes.seccomp_notif = a->notif_sizes[0];
	notif_sizes.seccomp_notif_resp = a->notif_sizes[1];
	notif_sizes.seccomp_data = a->notif_sizes[2];
	set_probe(&wait_killable, a->wait_killable);
	set_probe(&sync_wake_up, a->sync_wake_up);
	for (size_t i = 0; i < WD_PROBE_N_HOOKS; i++) {
		snprintf(hook_args[i].hook, sizeof(hook_args[0].hook), "%s", wd_probe_hooks[i]);
		hook_args[i].args = a->hook_args[i];
	}
	n_hook_args = WD_PROBE_N_HOOKS;
}

/*
 * Once per process, before the first answer: take every answer from the cache file if it is
 * this boot's, kernel's and build's and root's alone. Only root reads it (only root wrote it).
 */
static void cache_load(void)
{
	struct wd_probe_answers a;
	struct wd_probe_key key;

	if (cache_state >= 0)
		return;
	cache_state = 0;
	snprintf(cache_dir, sizeof(cache_dir), "%s", wd_run_dir());
	if (geteuid() != 0) {
		cache_err = -EPERM;
		return;
	}
	cache_err = wd_probe_key_get(&key);
	if (!cache_err)
		cache_err = wd_probe_cache_read(cache_dir, &key, &a);
	if (cache_err)
		return;
	cache_apply(&a);
	cache_state = 1;
	log_debug("probe: the answers are this boot's, from %s/%s", cache_dir,
		  WD_PROBE_CACHE_NAME);
}

/*
 * The BPF-LSM probe has just run (the cache was not used): ask every other probe too, so the
 * file holds every answer, and write it. The kernel's BTF read here for the hook arguments is
 * the process's one load of it, freed at once unless someone else had it loaded.
 */
static void cache_save(void)
{
	struct wd_probe_answers a = { 0 };
	struct wd_probe_key key;
	bool had_btf = vmlinux != NULL;

	if (cache_state != 0 || geteuid() != 0)
		return;
	a.btf = ask(&btf_present) ? 0 : btf_present.err;
	a.bpf_lsm = bpf_lsm_cached == 1;
	snprintf(a.bpf_lsm_why, sizeof(a.bpf_lsm_why), "%s", bpf_lsm_reason);
	a.landlock = ask(&landlock) ? 0 : landlock.err;
	a.landlock_abi = a.landlock ? 0 : landlock_abi;
	a.memfd_noexec = ask(&memfd_noexec) ? 0 : memfd_noexec.err;
	a.notify = ask(&notify) ? 0 : notify.err;
	a.notif_sizes[0] = notif_sizes.seccomp_notif;
	a.notif_sizes[1] = notif_sizes.seccomp_notif_resp;
	a.notif_sizes[2] = notif_sizes.seccomp_data;
	a.wait_killable = ask(&wait_killable) ? 0 : wait_killable.err;
	a.sync_wake_up = ask(&sync_wake_up) ? 0 : sync_wake_up.err;
	for (size_t i = 0; i < WD_PROBE_N_HOOKS; i++)
		a.hook_args[i] = wd_probe_hook_args(wd_probe_hooks[i]);
	if (!had_btf)
		wd_vmlinux_btf_release();
	cache_err = wd_probe_key_get(&key);
	if (!cache_err)
		cache_err = wd_probe_cache_write(cache_dir, &key, &a);
	cache_saved = true;
}

void wd_probe_cache_ignore(void)
{
	if (cache_state < 0) {
		cache_state = 0;
		cache_err = -ECANCELED;
		snprintf(cache_dir, sizeof(cache_dir), "%s", wd_run_dir());
	}
}

bool wd_probe_cached(char *how, size_t howsz)
{
	const char *what;

	cache_load();
	if (cache_state == 1)
		what = "this boot's, from %s/%s";
	else if (cache_saved && !cache_err)
		what = "probed now, cached in %s/%s";
	else
		what = "probed now, not cached in %s/%s";
	say(how, howsz, what, cache_dir, WD_PROBE_CACHE_NAME);
	if (cache_state != 1 && cache_err && how && strlen(how) + 3 < howsz)
		snprintf(how + strlen(how), howsz - strlen(how), ": %s", strerror(-cache_err));
	return cache_state == 1;
}
