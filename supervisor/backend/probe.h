/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Backend room: what this kernel can do, found by trying it. Each *_supported() probe runs once
 * per process (systemd's pattern) and remembers its answer and, when the answer is no, the
 * reason in one sentence; `warden doctor` prints them all. The LSM hook argument counts are read
 * from one vmlinux BTF load shared by every reader in the process.
 *
 * Not thread-safe: the probes run in the main thread before any other starts. The cheap probes
 * (BTF, Landlock, memfd_noexec, seccomp flags) compute with one syscall and no allocation, so a
 * child between clone and execve may ask them (the parent has usually asked first).
 */
#ifndef WD_PROBE_H
#define WD_PROBE_H

#include <stdbool.h>
#include <stddef.h>

struct btf;
struct seccomp_notif_sizes;

/* The kernel's sysctl that makes memfds non-executable per pid namespace (6.3+). */
#define WD_MEMFD_NOEXEC_SYSCTL "/proc/sys/vm/memfd_noexec"

/*
 * On false, @why (may be NULL) gets the reason: one sentence saying what is missing.
 */
/* Is the kernel's BTF there (/sys/kernel/btf/vmlinux)? */
bool wd_btf_supported(char *why, size_t whysz);
/*
 * Can BPF-LSM programs be loaded and attached here? Loads and attaches a program that changes
 * nothing (bpf/wd_probe.bpf.c), then removes it.
 */
bool wd_bpf_lsm_supported(char *why, size_t whysz);
/* Is Landlock usable (ABI 1 or later)? */
bool wd_landlock_supported(char *why, size_t whysz);
/* The kernel's Landlock ABI version, or -errno when Landlock is unavailable. */
int wd_landlock_abi(void);
/* Is there vm.memfd_noexec (6.3+), which the landlock backend sets in the sandbox's pid ns? */
bool wd_memfd_noexec_supported(char *why, size_t whysz);

/* Seccomp user notification (5.0+): SECCOMP_GET_NOTIF_SIZES answers. */
bool wd_seccomp_notify_supported(char *why, size_t whysz);
/* The kernel's notification sizes into @out: 0 or -errno (cached). */
int wd_seccomp_notif_sizes(struct seccomp_notif_sizes *out);
/* SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (5.19+): signals do not re-send a held call. */
bool wd_seccomp_wait_killable_supported(char *why, size_t whysz);
/*
 * SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (6.6+): the supervisor is woken on the task's CPU. Probed
 * in a short-lived child with a throwaway listener, unless wd_seccomp_set_sync_wake_up has
 * already learnt the answer on a real one.
 */
bool wd_seccomp_sync_wake_up_supported(char *why, size_t whysz);
/* Set SYNC_WAKE_UP on @listener where the kernel has it: 0 or -errno (remembered as the probe). */
int wd_seccomp_set_sync_wake_up(int listener);

/*
 * The kernel's vmlinux BTF, loaded at most once while it is held: NULL (errno set) when it
 * cannot be read. The pointer stays valid until wd_vmlinux_btf_release.
 */
const struct btf *wd_vmlinux_btf(void);
/* No reader needs the BTF any more: free it (the answers read from it stay). */
void wd_vmlinux_btf_release(void);
/* How many times this process has loaded the vmlinux BTF (for tests: once). */
unsigned int wd_vmlinux_btf_loads(void);
/* Arguments of LSM hook @hook ("bpf" for bpf_lsm_bpf) in @vmlinux; -1 when it has no such hook. */
int wd_lsm_hook_args(const struct btf *vmlinux, const char *hook);
/*
 * Arguments of LSM hook @hook on this kernel, from the shared BTF and remembered: -ENOENT when
 * the kernel has no such hook, another -errno when its BTF cannot be read.
 */
int wd_probe_hook_args(const char *hook);

/* The active LSMs (/sys/kernel/security/lsm) into @buf; -errno when securityfs is not there. */
int wd_active_lsms(char *buf, size_t bufsz);

/*
 * The answers are kept per boot, kernel and build in the run directory (probe_cache.h): read
 * before the first probe runs, written after a BPF-LSM probe that ran. wd_probe_cache_ignore,
 * before any probe, makes this process probe everything and rewrite the file (doctor
 * --refresh). wd_probe_cached: did the answers come from the file? @how (may be NULL) says
 * where they came from, and why not from the file.
 */
void wd_probe_cache_ignore(void);
bool wd_probe_cached(char *how, size_t howsz);

/* Route libbpf's messages through the log module (debug level; warnings at -v). */
void wd_libbpf_log_init(void);

#endif
