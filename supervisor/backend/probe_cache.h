/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Backend room: the probes' answers kept across runs, in one file of the run directory
 * (probe.cache), so that a run after the first of a boot neither loads the BPF-LSM test program
 * nor parses the kernel's BTF. The file is keyed by boot id, kernel release and this build's
 * probe key (the probe code and every BPF object, hashed by the Makefile); it is trusted only as
 * a regular file of root's, mode 0600, one link, in a run directory only root may write, and
 * only when every line parses. Anything else is a miss: the probes run and the file is rewritten.
 *
 * The format (text, one answer a line, in this order; errnos positive, 0 for yes):
 *   warden-probe-cache 1 / boot UUID / kernel RELEASE / build KEY / btf E /
 *   bpf_lsm 1 | bpf_lsm 0 WHY / landlock E ABI / memfd_noexec E / seccomp_notify E N R D /
 *   seccomp_wait_killable E / seccomp_sync_wake_up E / hook NAME ARGS (each of wd_probe_hooks) /
 *   end
 */
#ifndef WD_PROBE_CACHE_H
#define WD_PROBE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#define WD_PROBE_CACHE_NAME "probe.cache"
/* No answer file is longer: a bigger one is not read. */
#define WD_PROBE_CACHE_MAX 4096

/* The LSM hooks whose arguments the loader reads (supervisor/bpf/progs.c), in file order. */
#define WD_PROBE_N_HOOKS 5
extern const char *const wd_probe_hooks[WD_PROBE_N_HOOKS];

struct wd_probe_key {
	char boot[40];   /* /proc/sys/kernel/random/boot_id */
	char kernel[65]; /* uname -r */
	char build[40];  /* WD_PROBE_BUILD */
};

/* Every answer: errnos positive, 0 meaning yes. */
struct wd_probe_answers {
	int btf, landlock, memfd_noexec, notify, wait_killable, sync_wake_up;
	bool bpf_lsm;
	char bpf_lsm_why[512]; /* the sentence when !bpf_lsm */
	int landlock_abi;
	unsigned int notif_sizes[3]; /* struct seccomp_notif_sizes: notif, resp, data */
	int hook_args[WD_PROBE_N_HOOKS]; /* >= 0, or -errno (-ENOENT: no such hook) */
};

/* This boot's, this kernel's and this build's key: 0 or -errno. */
int wd_probe_key_get(struct wd_probe_key *key);

/* @a as the file's text into @buf: its length, or -ENOSPC. */
int wd_probe_cache_format(char *buf, size_t size, const struct wd_probe_key *key,
			  const struct wd_probe_answers *a);
/*
 * The file's @text (@len bytes, no NUL needed) into @out: 0, -ESTALE when it is well formed
 * but of another key, -EINVAL when anything in it is not as wd_probe_cache_format writes it.
 */
int wd_probe_cache_parse(const char *text, size_t len, const struct wd_probe_key *key,
			 struct wd_probe_answers *out);
/*
 * May a file that fstat() describes as @st be trusted? NULL if so, else what is wrong with it.
 * @dir: the directory holding it (owned by root, no one else may write).
 */
const char *wd_probe_cache_untrusted(const struct stat *dir, const struct stat *st);

/*
 * Read the answers for @key from @dir's cache file: 0, or -errno (-ENOENT none, -EPERM not
 * trusted, -ESTALE another key, -EINVAL corrupt), said at debug level.
 */
int wd_probe_cache_read(const char *dir, const struct wd_probe_key *key,
			struct wd_probe_answers *out);
/* Write them atomically (a temporary file renamed over the old one): 0 or -errno. */
int wd_probe_cache_write(const char *dir, const struct wd_probe_key *key,
			 const struct wd_probe_answers *a);

#endif
