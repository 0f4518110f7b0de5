/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a run writes, opened and checked before the command runs: the report, the audit sink
 * (--audit FILE, or a file of the sandbox's own under the run directory) and the run directory
 * itself, each refused when the sandbox could change the directory it is in (docs/threat-model.md).
 */
#ifndef WD_RUN_SINK_H
#define WD_RUN_SINK_H

#include <stdio.h>

#include "policy/compile.h"
#include "supervisor/util/fsutil.h"

struct run_state;

/* --report FILE, made before anything runs. 0 or -errno (said why). */
int wd_run_open_report(struct wd_out_file *f, const struct wd_ruleset *rs, const char *path);
/* --audit FILE: opened (and checked) before the command runs, never after. */
int wd_run_open_audit(FILE **out, const struct wd_ruleset *rs, const char *path);
/*
 * Where the records go without --audit: a file of this sandbox's own under the run directory,
 * <run dir>/audit/SANDBOX.jsonl (made O_EXCL, mode 0600), said on warden's standard error.
 */
int wd_run_open_default_sink(struct run_state *st, const struct wd_ruleset *rs,
			     const char *sandbox);
/*
 * The run directory, when the run will use it (its sockets): a directory the sandbox cannot
 * change either. 0 or -errno; -EPERM when refused (said why).
 */
int wd_run_dir_usable(const struct wd_ruleset *rs);

#endif
