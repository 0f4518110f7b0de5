// SPDX-License-Identifier: GPL-2.0
/*
 * The audit consumer's own capacity (bench/rows/audit.sh): kernel records of the flood's shape (a
 * denied open, as the landlock recorder sends it) handed to the run's record callback
 * (supervisor/run/records.c) from memory, written to FILE with a flush every DRAIN records, as
 * the run loop does after each ring-buffer drain. No kernel producer limits it, so this is the
 * rate the supervisor's one thread can format and write. Prints "RECORDS CPU_NS BYTES".
 *
 *   audit_replay FILE N DRAIN
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "supervisor/run/records.h"

static unsigned long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static void drained(struct run_state *st)
{
#ifdef WD_AUDIT_BATCH
	wd_run_audit_flush(st);
#else
	fflush(st->audit); /* the formatter before batching: the stream, flushed per drain */
#endif
}

int main(int argc, char **argv)
{
	static union {
		struct wd_rec_file f;
		char raw[WD_REC_FILE_SIZE + 64];
	} u;
	static struct run_state st;
	static const char path[] = "/tmp/wd-bench/denied/f";
	unsigned long long n, drain, t0, t1;
	size_t size = WD_REC_FILE_SIZE + sizeof(path);
	long bytes;

	if (argc != 4) {
		fprintf(stderr, "usage: audit_replay FILE N DRAIN\n");
		return 2;
	}
	n = strtoull(argv[2], NULL, 10);
	drain = strtoull(argv[3], NULL, 10);
	st.audit = fopen(argv[1], "w");
	if (!st.audit || !drain)
		return 1;
	st.actx = (struct wd_audit_ctx){ .sandbox = "sb-0badc0de", .backend = "landlock",
					 .boot_to_real_ns = 1700000000000000000ll };
	u.f.h = (struct wd_rec_hdr){ .type = WD_EV_FILE, .size = (__u16)size, .pid = 4242,
				     .tid = 4242, .ppid = 4241, .uid = 0 };
	memcpy(u.f.h.comm, "audit_flood", 12);
	u.f.op = WD_OP_OPEN;
	u.f.verdict = WD_VERDICT_DENY;
	u.f.source = WD_SRC_SYSCALL_EXIT;
	u.f.rule = WD_RULE_DEFAULT;
	u.f.err = 13;
	u.f.access = WD_ACC_READ;
	u.f.dirfd = -100;
	u.f.path_len = sizeof(path);
	memcpy(u.f.path, path, sizeof(path));
	/* the flood's exec record named its program: the exe comes from the cache, as in a run */
	wd_exe_cache_set(&st.exes, 4242, "/tmp/wd-bench/bin/audit_flood");
	t0 = cpu_ns();
	for (unsigned long long i = 0; i < n; i++) {
		u.f.h.ts_ns = 5000000000ull + i * 1000;
		wd_run_on_record(&st, &u, size);
		if ((i + 1) % drain == 0)
			drained(&st);
	}
	drained(&st);
	t1 = cpu_ns();
	bytes = ftell(st.audit);
	fseek(st.audit, 0, SEEK_END);
	bytes = ftell(st.audit);
	printf("%llu %llu %ld\n", n, t1 - t0, bytes);
	fclose(st.audit);
	wd_exe_cache_free(&st.exes);
	return st.malformed ? 1 : 0;
}
