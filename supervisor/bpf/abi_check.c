// SPDX-License-Identifier: GPL-2.0
/*
 * Sizes and offsets of bpf/wd_abi.h as the user side sees them: the kernel side compiles the same
 * header for BPF, and a mismatch would misread every record, so it fails the build instead.
 */
#include <stddef.h>

#include "bpf/wd_abi.h"

_Static_assert(sizeof(struct wd_sandbox) == 32, "wd_sandbox size");
_Static_assert(sizeof(struct wd_path_key) == 4 + 8 + WD_LPM_PATH_BYTES, "wd_path_key size");
_Static_assert(sizeof(struct wd_path_key) - 4 <= 256, "LPM data is at most 256 bytes");
_Static_assert(offsetof(struct wd_path_key, sandbox) == 4, "wd_path_key data offset");
_Static_assert(sizeof(struct wd_path_rule) == 20, "wd_path_rule size");
_Static_assert(sizeof(struct wd_inode_rule) == 16, "wd_inode_rule size");
_Static_assert(sizeof(struct wd_protect_val) == 16, "wd_protect_val size");
_Static_assert(WD_PROT_DELETE == 1 << WD_PROT_IDX_DELETE &&
		       WD_PROT_RENAME == 1 << WD_PROT_IDX_RENAME &&
		       WD_PROT_TRUNCATE == 1 << WD_PROT_IDX_TRUNCATE,
	       "protect bits and rule indices agree");
/* The records: the same assertions the BPF side compiles (bpf/wd_common.bpf.h). */
WD_ABI_ASSERTS();
_Static_assert(offsetof(struct wd_rec_file, h) == 0 && offsetof(struct wd_rec_syscall, h) == 0 &&
		       offsetof(struct wd_rec_sock, h) == 0,
	       "every record starts with its header");
_Static_assert(WD_ACC_READ == 1 << WD_ACC_IDX_READ && WD_ACC_WRITE == 1 << WD_ACC_IDX_WRITE &&
		       WD_ACC_EXEC == 1 << WD_ACC_IDX_EXEC && WD_ACC_RUN == 1 << WD_ACC_IDX_RUN,
	       "access bits and rule indices agree");

/* The network maps (bpf/wd_net.bpf.c): fixed sizes, and values the policy side shares. */
_Static_assert(sizeof(struct wd_net_range) == 12, "wd_net_range size");
_Static_assert(sizeof(struct wd_net_val) == 8 + 12 * WD_NET_RANGES, "wd_net_val size");
_Static_assert(sizeof(struct wd_net4_key) == 16 && sizeof(struct wd_net6_key) == 28,
	       "net key sizes");
_Static_assert(sizeof(struct wd_net_listen) == 28, "wd_net_listen size");
_Static_assert(sizeof(struct wd_net_cfg) == 8 + 28 * WD_NET_LISTEN_MAX + 16, "wd_net_cfg size");
_Static_assert(WD_NET_LISTEN_MAX < 256, "n_listen is a byte");
_Static_assert(offsetof(struct wd_net4_key, sandbox) == offsetof(struct wd_path_key, sandbox) &&
		       offsetof(struct wd_net6_key, sandbox) == offsetof(struct wd_path_key, sandbox),
	       "net keys start as path keys do (the purge reads their sandbox so)");

/* Keeps this translation unit non-empty for -Wpedantic builds. */
int wd_abi_version(void);
int wd_abi_version(void)
{
	return 1;
}
