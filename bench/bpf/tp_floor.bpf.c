// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's floor under warden's recorder: programs on the two syscall tracepoints that the
 * recorder uses (tp_btf sys_enter and sys_exit), doing nothing. What a process outside any
 * sandbox pays with these attached is what any syscall-tracepoint recorder costs it, however
 * little its programs do (bench/rows/openclose.sh, row openclose/floor).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/sys_enter")
int BPF_PROG(floor_enter, struct pt_regs *regs, long id)
{
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_exit, struct pt_regs *regs, long ret)
{
	return 0;
}
