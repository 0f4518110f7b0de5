// SPDX-License-Identifier: GPL-2.0
/*
 * The smallest LSM program: loading and attaching it is the only honest test that this kernel
 * runs BPF-LSM programs ("bpf" in /sys/kernel/security/lsm is not enough: a kernel can list it
 * and still refuse trampoline programs). It returns the previous verdict, so it changes nothing.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

/* sb_statfs: a rarely called hook whose signature has not changed since BPF-LSM began. */
SEC("lsm/sb_statfs")
int BPF_PROG(wd_probe_lsm, struct dentry *dentry, int ret)
{
	return ret;
}
