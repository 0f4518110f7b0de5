// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "supervisor/log.h"
#include "supervisor/sandbox_bpf.h"
#include "wd_sandbox.skel.h"

struct wd_progs {
	struct wd_sandbox_bpf *skel;
	struct ring_buffer *rb;
	wd_record_fn fn;
	void *ctx;
};

static int on_record(void *ctx, void *data, size_t size)
{
	struct wd_progs *progs = ctx;

	return progs->fn(progs->ctx, data, size);
}

int wd_progs_start(struct wd_progs **out, enum wd_progs_set set, wd_record_fn fn, void *ctx)
{
	struct wd_progs *progs;
	int err;

	*out = NULL;
	progs = calloc(1, sizeof(*progs));
	if (!progs)
		return -ENOMEM;
	progs->fn = fn;
	progs->ctx = ctx;

	progs->skel = wd_sandbox_bpf__open();
	if (!progs->skel) {
		err = -errno;
		log_warnx("bpf: cannot open the BPF object: %s", strerror(-err));
		goto out_free;
	}
	bpf_program__set_autoload(progs->skel->progs.wd_file_open, set == WD_PROGS_LSM);
	bpf_program__set_autoload(progs->skel->progs.wd_bprm_check, set == WD_PROGS_LSM);
	bpf_program__set_autoload(progs->skel->progs.wd_sys_exit, set == WD_PROGS_SYSCALL_EXIT);
	bpf_program__set_autoload(progs->skel->progs.wd_exec_done, set == WD_PROGS_SYSCALL_EXIT);
	err = wd_sandbox_bpf__load(progs->skel);
	if (err) {
		log_warnx("bpf: cannot load the BPF programs: %s", strerror(-err));
		goto out_destroy_skel;
	}
	err = wd_sandbox_bpf__attach(progs->skel);
	if (err) {
		log_warnx("bpf: cannot attach the BPF programs: %s", strerror(-err));
		goto out_destroy_skel;
	}
	progs->rb = ring_buffer__new(bpf_map__fd(progs->skel->maps.wd_events), on_record, progs, NULL);
	if (!progs->rb) {
		err = -errno;
		log_warnx("bpf: cannot open the audit ring buffer: %s", strerror(-err));
		goto out_destroy_skel;
	}
	*out = progs;
	return 0;

out_destroy_skel:
	wd_sandbox_bpf__destroy(progs->skel);
out_free:
	free(progs);
	return err;
}

void wd_progs_stop(struct wd_progs *progs)
{
	if (!progs)
		return;
	ring_buffer__free(progs->rb);
	wd_sandbox_bpf__destroy(progs->skel);
	free(progs);
}

static int paths_update(struct wd_progs *progs, uint64_t sandbox, const struct wd_ruleset *rs,
			bool add)
{
	int fd = bpf_map__fd(progs->skel->maps.wd_paths);
	int err = 0;

	for (size_t i = 0; i < rs->n_entries; i++) {
		struct wd_path_key key;
		int r;

		wd_rule_entry_key(&rs->entries[i], sandbox, &key);
		if (add)
			r = bpf_map_update_elem(fd, &key, &rs->entries[i].val, BPF_NOEXIST);
		else
			r = bpf_map_delete_elem(fd, &key);
		if (r && !(r == -ENOENT && !add)) {
			err = r;
			log_warnx("bpf: cannot %s the path rule for %.*s: %s",
				  add ? "add" : "remove", (int)rs->entries[i].len,
				  rs->entries[i].path, strerror(-r));
			if (add)
				break;
		}
	}
	return err;
}

int wd_progs_sandbox_add(struct wd_progs *progs, uint64_t sandbox, const struct wd_ruleset *rs)
{
	struct wd_sandbox sb = { .flags = rs->sandbox_flags };
	int err;

	err = paths_update(progs, sandbox, rs, true);
	if (err)
		goto out_remove_paths;
	err = bpf_map_update_elem(bpf_map__fd(progs->skel->maps.wd_sandboxes), &sandbox, &sb,
				  BPF_NOEXIST);
	if (err) {
		log_warnx("bpf: cannot add sandbox %llu: %s", (unsigned long long)sandbox,
			  strerror(-err));
		goto out_remove_paths;
	}
	return 0;

out_remove_paths:
	paths_update(progs, sandbox, rs, false);
	return err;
}

int wd_progs_sandbox_remove(struct wd_progs *progs, uint64_t sandbox, const struct wd_ruleset *rs,
			  struct wd_sandbox *final)
{
	int fd = bpf_map__fd(progs->skel->maps.wd_sandboxes);
	int err = 0;

	if (final && bpf_map_lookup_elem(fd, &sandbox, final))
		memset(final, 0, sizeof(*final));
	if (bpf_map_delete_elem(fd, &sandbox) && errno != ENOENT) {
		err = -errno;
		log_warn("bpf: cannot remove sandbox %llu", (unsigned long long)sandbox);
	}
	if (paths_update(progs, sandbox, rs, false) && !err)
		err = -EIO;
	return err;
}

int wd_progs_event_fd(const struct wd_progs *progs)
{
	return ring_buffer__epoll_fd(progs->rb);
}

int wd_progs_consume(struct wd_progs *progs)
{
	int n = ring_buffer__consume(progs->rb);

	return n < 0 ? n : 0;
}
