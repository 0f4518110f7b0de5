/* SPDX-License-Identifier: GPL-2.0 */
/* What this kernel can do, found by trying it, cached, and said in one sentence when missing. */
#ifndef WD_PROBE_H
#define WD_PROBE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Can BPF-LSM programs be loaded and attached here? Loads and attaches a program that changes
 * nothing, then removes it. On false, @why (may be NULL) says what is missing.
 */
bool wd_bpf_lsm_supported(char *why, size_t whysz);

/* The active LSMs (/sys/kernel/security/lsm) into @buf; -errno when securityfs is not there. */
int wd_active_lsms(char *buf, size_t bufsz);

/* Route libbpf's messages through the log module (debug level; warnings at -v). */
void wd_libbpf_log_init(void);

#endif
