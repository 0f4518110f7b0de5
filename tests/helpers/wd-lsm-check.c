// SPDX-License-Identifier: GPL-2.0
/*
 * wd-lsm-check: the bpf-lsm loader's choice of LSM programs, checked against the running
 * kernel's BTF, loading and attaching nothing. Where the kernel refuses LSM programs at
 * BPF_PROG_LOAD (the development host), the verifier never sees them; this checks what it
 * would check first: that each program reads its hook's arguments and the previous verdict
 * where the kernel's hook has them.
 *
 * The choice is the loader's own (wd_progs_open: choose_programs and the lsm/bpf ret index).
 * What a program was written for is read from its instructions: the previous verdict is the
 * last context slot it reads, ctx[N] for a hook of N arguments (every LSM program starts
 * "if (ret) return ret"). lsm/bpf reads it at the index the loader put in .rodata. For every
 * program of an lsm/HOOK section:
 *   - the kernel's BTF has bpf_lsm_HOOK (a hook renamed or removed fails here), unless the
 *     loader left the program out: a hook this kernel does not have yet (6.1's file_truncate,
 *     inode_set_acl) is covered by another one there;
 *   - a program chosen reads the verdict at ctx[N], N the kernel's argument count, and a program
 *     left out does not (it would have fit);
 *   - each hook the kernel has gets exactly one program (variants: exactly one matches), a hook
 *     it does not have none.
 *
 *   wd-lsm-check [-v] [--flip PROG]... [--reads PROG=N]...
 *
 * Prints "ok ..." or "FAIL ..." for each program and hook; exits 0 when all hold, 1 when one
 * fails or the loader refuses to choose, 2 for bad usage. --flip PROG inverts the loader's
 * choice for PROG and --reads PROG=N pretends PROG was written for N arguments: both make it
 * fail on purpose, to show that the checks can.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "supervisor/util/log.h"
#include "supervisor/backend/probe.h"
#include "supervisor/bpf/progs.h"

#define CTX_SLOTS 64 /* context slots tracked: far more than any LSM hook has arguments */
#define STACK_SLOTS (512 / 8)

/* What may hold the context pointer before an instruction: registers and 8-byte stack slots. */
struct ctx_state {
	uint16_t regs;
	uint64_t stack;
	bool seen;
};

static void clear_reg(struct ctx_state *s, int reg)
{
	s->regs &= (uint16_t)~(1u << reg);
}

static int stack_slot(int16_t off)
{
	return off < 0 && off >= -512 ? (512 + off) / 8 : -1;
}

/* @s after @in; context slots read go into @reads. */
static void ctx_step(const struct bpf_insn *in, struct ctx_state *s, uint64_t *reads)
{
	int slot = stack_slot(in->off);
	bool src_ctx = s->regs & (1u << in->src_reg);

	switch (BPF_CLASS(in->code)) {
	case BPF_LDX:
		if (src_ctx && BPF_MODE(in->code) == BPF_MEM) {
			if (in->off >= 0 && in->off % 8 == 0 && in->off / 8 < CTX_SLOTS)
				*reads |= 1ull << (in->off / 8);
			clear_reg(s, in->dst_reg);
		} else if (in->src_reg == BPF_REG_10 && BPF_SIZE(in->code) == BPF_DW &&
			   slot >= 0 && (s->stack & (1ull << slot))) {
			s->regs |= 1u << in->dst_reg; /* the context pointer, reloaded */
		} else {
			clear_reg(s, in->dst_reg);
		}
		break;
	case BPF_ST:
	case BPF_STX:
		if (BPF_MODE(in->code) == BPF_ATOMIC) {
			clear_reg(s, in->src_reg);
			clear_reg(s, BPF_REG_0);
		}
		if (in->dst_reg != BPF_REG_10 || slot < 0)
			break;
		if (BPF_CLASS(in->code) == BPF_STX && BPF_MODE(in->code) == BPF_MEM &&
		    BPF_SIZE(in->code) == BPF_DW && src_ctx && in->off % 8 == 0)
			s->stack |= 1ull << slot; /* the context pointer, spilled */
		else
			s->stack &= ~(1ull << slot);
		break;
	case BPF_ALU64:
		if (BPF_OP(in->code) == BPF_MOV && BPF_SRC(in->code) == BPF_X && in->off == 0 &&
		    src_ctx) {
			s->regs |= 1u << in->dst_reg;
			break;
		}
		clear_reg(s, in->dst_reg);
		break;
	case BPF_ALU:
	case BPF_LD:
		clear_reg(s, in->dst_reg);
		break;
	case BPF_JMP:
	case BPF_JMP32:
		if (BPF_OP(in->code) == BPF_CALL)
			for (int r = BPF_REG_0; r <= BPF_REG_5; r++)
				clear_reg(s, r);
		break;
	}
}

/* Instructions that may follow @i: 0, 1 or 2 of them in @next. */
static int ctx_successors(const struct bpf_insn *insn, size_t n, size_t i, size_t next[2])
{
	const struct bpf_insn *in = &insn[i];
	int cls = BPF_CLASS(in->code), k = 0;
	long target;

	if (cls == BPF_JMP || cls == BPF_JMP32) {
		switch (BPF_OP(in->code)) {
		case BPF_EXIT:
			return 0;
		case BPF_CALL:
			break;
		case BPF_JA:
			target = (long)i + 1 + (cls == BPF_JMP32 ? in->imm : in->off);
			if (target >= 0 && (size_t)target < n)
				next[k++] = (size_t)target;
			return k;
		default:
			target = (long)i + 1 + in->off;
			if (target >= 0 && (size_t)target < n)
				next[k++] = (size_t)target;
			break;
		}
	}
	/* a 64-bit immediate load takes two instruction slots */
	i += in->code == (BPF_LD | BPF_IMM | BPF_DW) ? 2 : 1;
	if (i < n)
		next[k++] = i;
	return k;
}

/*
 * Context slots @prog may read (bit k: ctx[k]): what may hold the context pointer, followed along
 * every path of the program to a fixed point (r1 on entry, copies, stack spills).
 */
static int ctx_reads(const struct bpf_program *prog, uint64_t *reads)
{
	const struct bpf_insn *insn = bpf_program__insns(prog);
	size_t n = bpf_program__insn_cnt(prog);
	struct ctx_state *in;
	bool changed = true;

	*reads = 0;
	in = calloc(n ? n : 1, sizeof(*in));
	if (!in)
		return -ENOMEM;
	if (n)
		in[0] = (struct ctx_state){ .regs = 1u << BPF_REG_1, .seen = true };
	while (changed) {
		changed = false;
		for (size_t i = 0; i < n; i++) {
			struct ctx_state out;
			size_t next[2];
			int k;

			if (!in[i].seen)
				continue;
			out = in[i];
			ctx_step(&insn[i], &out, reads);
			k = ctx_successors(insn, n, i, next);
			for (int j = 0; j < k; j++) {
				struct ctx_state *t = &in[next[j]];
				uint16_t regs = t->regs | out.regs;
				uint64_t stack = t->stack | out.stack;

				if (t->seen && regs == t->regs && stack == t->stack)
					continue;
				*t = (struct ctx_state){ .regs = regs, .stack = stack, .seen = true };
				changed = true;
			}
		}
	}
	free(in);
	return 0;
}

/* The value the loader put in the .rodata variable @var (a __u32), or -1. */
static long rodata_u32(struct bpf_object *obj, const char *var)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec;
	struct bpf_map *map;
	const char *data = NULL;
	size_t size = 0;
	int id;

	bpf_object__for_each_map(map, obj) {
		const char *name = bpf_map__name(map);
		size_t len = strlen(name);

		if (bpf_map__is_internal(map) && len >= 7 && !strcmp(name + len - 7, ".rodata"))
			data = bpf_map__initial_value(map, &size);
	}
	id = btf ? btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC) : -1;
	if (!data || id <= 0)
		return -1;
	sec = btf__type_by_id(btf, id);
	vs = btf_var_secinfos(sec);
	for (int i = 0; i < btf_vlen(sec); i++, vs++) {
		const char *name = btf__name_by_offset(btf, btf__type_by_id(btf, vs->type)->name_off);
		uint32_t v;

		if (strcmp(name, var) || vs->size != sizeof(v) || vs->offset + sizeof(v) > size)
			continue;
		memcpy(&v, data + vs->offset, sizeof(v));
		return v;
	}
	return -1;
}

/* The last context slot set in @reads, or -1. */
static int last_slot(uint64_t reads)
{
	return reads ? 63 - __builtin_clzll(reads) : -1;
}

static bool named(char **list, int n, const char *name, const char **value)
{
	for (int i = 0; i < n; i++) {
		size_t len = strlen(name);

		if (!strncmp(list[i], name, len) && (list[i][len] == 0 || list[i][len] == '=')) {
			if (value)
				*value = list[i][len] ? list[i] + len + 1 : NULL;
			return true;
		}
	}
	return false;
}

/* One line per program; 0 when every program fits this kernel. */
static int check_programs(struct bpf_object *obj, const struct btf *vmlinux, long bpf_ret_arg,
			  char **flip, int n_flip, char **reads_as, int n_reads_as)
{
	struct bpf_program *prog;
	int failed = 0;

	bpf_object__for_each_program(prog, obj) {
		const char *sec = bpf_program__section_name(prog), *name = bpf_program__name(prog);
		const char *hook = sec + 4, *forced;
		bool chosen = bpf_program__autoload(prog);
		int kernel, written;
		uint64_t reads;

		if (strncmp(sec, "lsm/", 4))
			continue;
		if (named(flip, n_flip, name, NULL))
			chosen = !chosen;
		if (ctx_reads(prog, &reads))
			return -ENOMEM;
		written = last_slot(reads);
		/* lsm/bpf reads the verdict at the loader's index: both offsets are in its code */
		if (!strcmp(hook, "bpf")) {
			bool read = bpf_ret_arg >= 0 && bpf_ret_arg < CTX_SLOTS &&
				    (reads & (1ull << bpf_ret_arg));

			written = read ? (int)bpf_ret_arg : -1;
		}
		if (named(reads_as, n_reads_as, name, &forced) && forced)
			written = atoi(forced);
		kernel = wd_lsm_hook_args(vmlinux, hook);
		if (kernel < 0 && !chosen) {
			printf("ok %s %s: left out, the kernel has no bpf_lsm_%s\n", name, sec, hook);
		} else if (kernel < 0) {
			printf("FAIL %s %s: the kernel's BTF has no bpf_lsm_%s (renamed or removed?)\n",
			       name, sec, hook);
			failed = 1;
		} else if (written < 0) {
			printf("FAIL %s %s: reads no previous verdict%s\n", name, sec,
			       strcmp(hook, "bpf") ? "" : " at the loader's ret index");
			failed = 1;
		} else if (chosen && written != kernel) {
			printf("FAIL %s %s: chosen, but reads the verdict at ctx[%d] and the kernel's "
			       "hook has %d arguments\n", name, sec, written, kernel);
			failed = 1;
		} else if (!chosen && written == kernel) {
			printf("FAIL %s %s: left out, though written for the kernel's %d arguments\n",
			       name, sec, kernel);
			failed = 1;
		} else {
			printf("ok %s %s: reads the verdict at ctx[%d], the kernel's hook has %d "
			       "arguments: %s\n", name, sec, written, kernel,
			       chosen ? "chosen" : "left out");
		}
	}
	return failed;
}

/* One line per hook: each the kernel has gets exactly one program, each it lacks none. */
static int check_hooks(struct bpf_object *obj, const struct btf *vmlinux, char **flip,
		       int n_flip)
{
	struct bpf_program *prog, *other;
	int failed = 0;

	bpf_object__for_each_program(prog, obj) {
		const char *sec = bpf_program__section_name(prog);
		bool earlier = false;
		int chosen = 0, n = 0;

		if (strncmp(sec, "lsm/", 4))
			continue;
		/* each hook is said once, with its first program */
		for (other = bpf_object__next_program(obj, NULL); other != prog;
		     other = bpf_object__next_program(obj, other))
			earlier = earlier || !strcmp(bpf_program__section_name(other), sec);
		if (earlier)
			continue;
		bpf_object__for_each_program(other, obj) {
			bool on = bpf_program__autoload(other);

			if (strcmp(bpf_program__section_name(other), sec))
				continue;
			n++;
			if (named(flip, n_flip, bpf_program__name(other), NULL))
				on = !on;
			chosen += on;
		}
		if (chosen == 0 && wd_lsm_hook_args(vmlinux, sec + 4) < 0) {
			printf("ok %s: none of %d chosen, the kernel has no such hook\n", sec, n);
		} else if (chosen == 1) {
			printf("ok %s: one program of %d chosen\n", sec, n);
		} else {
			printf("FAIL %s: %d programs of %d chosen, want one\n", sec, chosen, n);
			failed = 1;
		}
	}
	return failed;
}

int main(int argc, char **argv)
{
	char **flip = calloc((size_t)argc, sizeof(*flip));
	char **reads_as = calloc((size_t)argc, sizeof(*reads_as));
	int n_flip = 0, n_reads_as = 0, level = WD_LOG_WARN, rc = 2;
	struct wd_progs *progs = NULL;
	struct btf *vmlinux = NULL;
	struct bpf_object *obj;
	long bpf_ret_arg;

	if (!flip || !reads_as)
		goto out_free;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v")) {
			level = WD_LOG_DEBUG;
		} else if (!strcmp(argv[i], "--flip") && i + 1 < argc) {
			flip[n_flip++] = argv[++i];
		} else if (!strcmp(argv[i], "--reads") && i + 1 < argc && strchr(argv[i + 1], '=')) {
			reads_as[n_reads_as++] = argv[++i];
		} else {
			fprintf(stderr, "usage: wd-lsm-check [-v] [--flip PROG]... "
					"[--reads PROG=N]...\n");
			goto out_free;
		}
	}
	log_init("wd-lsm-check", level);
	wd_libbpf_log_init();
	rc = 1;
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		printf("FAIL cannot read the kernel's BTF: %s\n", strerror(errno));
		goto out_free;
	}
	/* the loader's own choice for this kernel; nothing is loaded, nothing attached */
	if (wd_progs_open(&progs, WD_PROGS_LSM)) {
		printf("FAIL the loader cannot choose the LSM programs for this kernel\n");
		goto out_free;
	}
	obj = wd_progs_object(progs);
	bpf_ret_arg = rodata_u32(obj, "wd_bpf_ret_arg");
	printf("# lsm/bpf: the loader reads the verdict at ctx[%ld]\n", bpf_ret_arg);
	rc = check_programs(obj, vmlinux, bpf_ret_arg, flip, n_flip, reads_as, n_reads_as);
	if (rc >= 0)
		rc |= check_hooks(obj, vmlinux, flip, n_flip);
	else
		rc = 1;
	wd_progs_stop(progs);
out_free:
	btf__free(vmlinux);
	free(flip);
	free(reads_as);
	return rc;
}
