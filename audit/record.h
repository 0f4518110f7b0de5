/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel records (bpf/wd_abi.h: a struct wd_rec_hdr, then one struct per type) checked and read
 * into one view, for the audit formatter (audit/jsonl.c) and the supervisor's record path
 * (supervisor/run/records.c). Pure C. The ring buffer is kernel-written, but a record is read
 * only after its size was checked against what arrived and against its type's fixed part.
 */
#ifndef WD_AUDIT_RECORD_H
#define WD_AUDIT_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/wd_abi.h"

/* What any kernel record says, whatever its type; fields a type does not have are 0. */
struct wd_rec_view {
	const struct wd_rec_hdr *h;
	unsigned int type; /* enum wd_event_type */
	unsigned int op; /* enum wd_op */
	unsigned int verdict;
	unsigned int source;
	unsigned int flags; /* WD_EVF_* */
	unsigned int access;
	uint32_t rule;
	int32_t err;
	int32_t dirfd; /* a file record's dirfd, a socket record's socket */
	uint32_t sysno;
	unsigned int proto; /* a socket record's protocol (IPPROTO_*), where the kernel knew it */
	uint64_t arg;
	/* a file record's path or a syscall record's name, NUL-terminated; "" for none */
	const char *path;
	/* a socket record's address (addr_len bytes), else NULL */
	const uint8_t *addr;
	size_t addr_len;
};

/*
 * Check the @size bytes at @rec as one kernel record and fill @v (pointing into @rec). 0, or
 * -EINVAL when the record is malformed: shorter than a header or than its type's fixed part, a
 * size field that is not @size, a variable part that does not fit or a path without its NUL, or
 * a type the kernel does not send.
 */
int wd_rec_decode(const void *rec, size_t size, struct wd_rec_view *v);

#endif
