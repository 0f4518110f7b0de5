// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "supervisor/log.h"
#include "supervisor/sandbox_bpf.h"
#include "wd_sandbox.skel.h"

_Static_assert(sizeof(struct wd_inode_key) == 24, "wd_inode_key size");
_Static_assert(sizeof(struct wd_inode_rule) == 8, "wd_inode_rule size");

struct wd_progs {
	struct wd_sandbox_bpf *skel;
	struct ring_buffer *rb;
	wd_record_fn fn;
	void *ctx;
	/* wd_inodes entries added, removed with their sandbox */
	struct wd_inode_key *inodes;
	size_t n_inodes;
};

/*
 * Index of the previous verdict among lsm/bpf's context arguments: the hook's own arguments come
 * first, and bpf_lsm_bpf has 3 on 6.1 and 4 (a `bool kernel`) on newer kernels.
 */
static int bpf_hook_ret_arg(__u32 *idx)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	const struct btf_type *t;
	int id, err = 0;

	if (!vmlinux)
		return -errno;
	id = btf__find_by_name_kind(vmlinux, "bpf_lsm_bpf", BTF_KIND_FUNC);
	t = id > 0 ? btf__type_by_id(vmlinux, btf__type_by_id(vmlinux, id)->type) : NULL;
	if (!t || !btf_is_func_proto(t)) {
		err = -ENOENT;
		log_warnx("bpf: the kernel's BTF has no bpf_lsm_bpf prototype");
	} else {
		*idx = btf_vlen(t);
	}
	btf__free(vmlinux);
	return err;
}

/* Load the LSM programs (set LSM) or the recorders (set SYSCALL_EXIT), never both. */
static void choose_programs(struct bpf_object *obj, enum wd_progs_set set)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj) {
		bool lsm = strncmp(bpf_program__section_name(prog), "lsm/", 4) == 0;

		bpf_program__set_autoload(prog, lsm == (set == WD_PROGS_LSM));
	}
}

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
	choose_programs(progs->skel->obj, set);
	if (set == WD_PROGS_LSM) {
		err = bpf_hook_ret_arg(&progs->skel->rodata->wd_bpf_ret_arg);
		if (err) {
			log_warnx("bpf: cannot tell the lsm/bpf hook's arguments: %s", strerror(-err));
			goto out_destroy_skel;
		}
	}
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
	free(progs->inodes);
	free(progs);
}

int wd_progs_protect_inode(struct wd_progs *progs, uint64_t sandbox, const char *path,
			   uint32_t deny, uint32_t rule)
{
	struct wd_inode_rule val = { .deny = deny, .rule = rule };
	struct wd_inode_key key = { .sandbox = sandbox };
	struct wd_inode_key *grown;
	struct stat st;
	int err;

	if (stat(path, &st)) {
		err = -errno;
		log_warn("bpf: cannot protect %s", path);
		return err;
	}
	key.ino = st.st_ino;
	/* the kernel's own dev_t, as super_block.s_dev holds it */
	key.dev = (uint32_t)(major(st.st_dev) << 20 | minor(st.st_dev));
	grown = realloc(progs->inodes, (progs->n_inodes + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	progs->inodes = grown;
	err = bpf_map_update_elem(bpf_map__fd(progs->skel->maps.wd_inodes), &key, &val, BPF_ANY);
	if (err) {
		log_warnx("bpf: cannot protect %s: %s", path, strerror(-err));
		return err;
	}
	progs->inodes[progs->n_inodes++] = key;
	return 0;
}

static void inodes_remove(struct wd_progs *progs, uint64_t sandbox)
{
	int fd = bpf_map__fd(progs->skel->maps.wd_inodes);
	size_t kept = 0;

	for (size_t i = 0; i < progs->n_inodes; i++) {
		if (progs->inodes[i].sandbox == sandbox)
			bpf_map_delete_elem(fd, &progs->inodes[i]);
		else
			progs->inodes[kept++] = progs->inodes[i];
	}
	progs->n_inodes = kept;
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
	inodes_remove(progs, sandbox);
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
	inodes_remove(progs, sandbox);
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
