// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

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
	enum wd_progs_set set;
	/* wd_inodes entries added, removed with their sandbox */
	struct wd_inode_key *inodes;
	size_t n_inodes;
	/* wd_paths entries of fs.deny paths, removed with their sandbox */
	struct wd_path_key *denies;
	size_t n_denies;
};

/* Multiply-linked files under one fs.deny tree that are protected by inode, at most. */
#define WD_DENY_LINKED_MAX 4096

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
	progs->set = set;

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
			log_warnx("bpf: cannot tell the lsm/bpf hook's arguments: %s",
				  strerror(-err));
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

/*
 * Detaching an LSM program costs the kernel a trampoline update each, which on the test VM's
 * emulated CPUs took 3.5 s for the whole set at every run's end. A child holding copies of the
 * fds releases them after warden has gone, so a command's end is not held up by it; until then
 * the programs return at once for every task, since this run's sandbox entries are gone. The
 * child holds warden's other fds too until it exits, but not its standard streams (so no reader
 * of warden's output waits for it); if there is no child the release happens here.
 */
static int release_in_background(void)
{
	int gone[2], nul;
	char c;
	pid_t pid;

	if (pipe2(gone, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(gone[0]);
		close(gone[1]);
		return -1;
	}
	if (pid > 0) {
		close(gone[0]);
		return gone[1];
	}
	close(gone[1]);
	nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (nul >= 0) {
		dup2(nul, 0);
		dup2(nul, 1);
		dup2(nul, 2);
	}
	/* the last copies of the fds must be ours: wait until warden has closed its own */
	while (read(gone[0], &c, 1) < 0 && errno == EINTR)
		;
	/* exiting closes the inherited program and link fds: the slow part happens here */
	_exit(0);
}

void wd_progs_stop(struct wd_progs *progs)
{
	int gone = -1;

	if (!progs)
		return;
	ring_buffer__free(progs->rb);
	if (progs->set == WD_PROGS_LSM)
		gone = release_in_background();
	wd_sandbox_bpf__destroy(progs->skel);
	if (gone >= 0)
		close(gone);
	free(progs->inodes);
	free(progs->denies);
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

/* Is the stored prefix @e at or under the (resolved) fs.deny path @deny? */
static bool deny_covers(const char *deny, const struct wd_rule_entry *e)
{
	size_t n = strlen(deny);

	if (n == 1)
		return true;
	return e->len > n && memcmp(e->path, deny, n) == 0 && (e->path[n] == '/' || !e->path[n]);
}

/* Every access denied, the fs.deny rule @id named for each. */
static void deny_rule(struct wd_path_rule *val, uint32_t id)
{
	val->allow = 0;
	for (int i = 0; i < WD_ACC_IDX_NR; i++)
		val->rule[i] = id;
}

static void deny_paths_free(char **paths, size_t n)
{
	for (size_t i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
}

/* fs.deny paths as the kernel will name them: symlinks in them followed where they exist. */
static char **deny_paths(const struct wd_ruleset *rs)
{
	char **out = calloc(rs->n_fs_deny + 1, sizeof(*out));

	for (size_t i = 0; out && i < rs->n_fs_deny; i++) {
		out[i] = realpath(rs->fs_deny[i].path, NULL);
		if (!out[i])
			out[i] = strdup(rs->fs_deny[i].path);
		if (!out[i]) {
			deny_paths_free(out, i);
			out = NULL;
		}
	}
	return out;
}

/*
 * fs.deny wins over every allow: each compiled prefix at or under a denied path is stored with
 * nothing allowed, and the denied path itself is stored as "path/" and "path\0" the same way.
 */
static int denies_add(struct wd_progs *progs, uint64_t sandbox, const struct wd_ruleset *rs,
		      char **deny)
{
	size_t n = rs->n_fs_deny;
	int fd = bpf_map__fd(progs->skel->maps.wd_paths);
	struct wd_path_key *grown;
	int err = 0;

	grown = realloc(progs->denies, (progs->n_denies + 2 * n) * sizeof(*grown));
	if (!grown && n)
		return -ENOMEM;
	progs->denies = grown;
	for (size_t i = 0; i < n && !err; i++) {
		size_t len = strlen(deny[i]);
		struct wd_rule_entry e = { 0 };

		for (int form = 0; form < (len == 1 ? 1 : 2) && !err; form++) {
			struct wd_path_key *key = &progs->denies[progs->n_denies];

			if (len + 1 >= sizeof(e.path))
				return -ENAMETOOLONG;
			memcpy(e.path, deny[i], len);
			e.path[len] = form == 0 && len > 1 ? '/' : 0;
			e.len = len == 1 ? 1 : (uint32_t)len + 1;
			deny_rule(&e.val, rs->fs_deny[i].id);
			wd_rule_entry_key(&e, sandbox, key);
			err = bpf_map_update_elem(fd, key, &e.val, BPF_ANY);
			if (err)
				log_warnx("bpf: cannot add the fs.deny rule for %s: %s", deny[i],
					  strerror(-err));
			else
				progs->n_denies++;
		}
	}
	return err;
}

static void denies_remove(struct wd_progs *progs, uint64_t sandbox)
{
	int fd = bpf_map__fd(progs->skel->maps.wd_paths);
	size_t kept = 0;

	for (size_t i = 0; i < progs->n_denies; i++) {
		struct wd_path_key *k = &progs->denies[i];

		if (k->sandbox[0] == (__u32)sandbox && k->sandbox[1] == (__u32)(sandbox >> 32))
			bpf_map_delete_elem(fd, k);
		else
			progs->denies[kept++] = *k;
	}
	progs->n_denies = kept;
}

/* The nftw walk of one fs.deny tree has no context argument: this is it. */
static struct {
	struct wd_progs *progs;
	uint64_t sandbox;
	uint32_t rule;
	size_t linked;
	int err;
} deny_walk;

static int deny_walk_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)type;
	(void)ftw;
	/* a file with one name has no other to alias it; link() of it from inside is denied */
	if (!S_ISREG(st->st_mode) || st->st_nlink < 2)
		return 0;
	if (++deny_walk.linked > WD_DENY_LINKED_MAX) {
		log_warnx("bpf: more than %d multiply-linked files under an fs.deny path",
			  WD_DENY_LINKED_MAX);
		deny_walk.err = -E2BIG;
		return 1;
	}
	deny_walk.err = wd_progs_protect_inode(deny_walk.progs, deny_walk.sandbox, path,
					       WD_ACC_READ | WD_ACC_WRITE | WD_ACC_EXEC,
					       deny_walk.rule);
	return deny_walk.err ? 1 : 0;
}

/*
 * An fs.deny object is also protected by inode, as are the files under it that have another
 * name (a hard link made before the sandbox started): no name reaches them.
 */
static int denies_protect(struct wd_progs *progs, uint64_t sandbox, const struct wd_ruleset *rs,
			  char **deny)
{
	size_t n = rs->n_fs_deny;
	struct stat st;
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		if (lstat(deny[i], &st))
			continue; /* nothing there yet: the path rule covers what appears */
		err = wd_progs_protect_inode(progs, sandbox, deny[i],
					     WD_ACC_READ | WD_ACC_WRITE | WD_ACC_EXEC,
					     rs->fs_deny[i].id);
		if (err || !S_ISDIR(st.st_mode))
			continue;
		deny_walk.progs = progs;
		deny_walk.sandbox = sandbox;
		deny_walk.rule = rs->fs_deny[i].id;
		deny_walk.linked = 0;
		deny_walk.err = 0;
		if (nftw(deny[i], deny_walk_one, 32, FTW_PHYS | FTW_MOUNT) < 0 && !deny_walk.err)
			log_warn("bpf: cannot walk the fs.deny tree %s", deny[i]);
		err = deny_walk.err;
	}
	return err;
}

static int paths_update(struct wd_progs *progs, uint64_t sandbox, const struct wd_ruleset *rs,
			char **deny, bool add)
{
	int fd = bpf_map__fd(progs->skel->maps.wd_paths);
	int err = 0;

	for (size_t i = 0; i < rs->n_entries; i++) {
		struct wd_path_rule val = rs->entries[i].val;
		struct wd_path_key key;
		int r;

		for (size_t d = 0; add && deny && d < rs->n_fs_deny; d++)
			if (deny_covers(deny[d], &rs->entries[i]))
				deny_rule(&val, rs->fs_deny[d].id);
		wd_rule_entry_key(&rs->entries[i], sandbox, &key);
		if (add)
			r = bpf_map_update_elem(fd, &key, &val, BPF_NOEXIST);
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
	char **deny = NULL;
	int err;

	/* fs.deny is the LSM programs' to enforce; the recorders only name rules */
	if (progs->set == WD_PROGS_LSM && rs->n_fs_deny) {
		deny = deny_paths(rs);
		if (!deny)
			return -ENOMEM;
	}
	err = paths_update(progs, sandbox, rs, deny, true);
	if (!err && deny)
		err = denies_add(progs, sandbox, rs, deny);
	if (!err && deny)
		err = denies_protect(progs, sandbox, rs, deny);
	deny_paths_free(deny, rs->n_fs_deny);
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
	paths_update(progs, sandbox, rs, NULL, false);
	denies_remove(progs, sandbox);
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
	if (paths_update(progs, sandbox, rs, NULL, false) && !err)
		err = -EIO;
	denies_remove(progs, sandbox);
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
