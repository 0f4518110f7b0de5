// SPDX-License-Identifier: GPL-2.0
/*
 * net.egress_rate (supervisor/net/rate.h): the cgroup_skb/egress program of bpf/wd_rate.bpf.c,
 * attached once per host to <cgroup2>/warden and pinned beside the rest of the program set, and
 * each sandbox's schedule in its wd_rate map, added before the sandbox's first task runs and
 * read at its end for the run report.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "supervisor/net/rate.h"
#include "supervisor/sandbox/cgroup.h"
#include "supervisor/util/log.h"
#include "wd_rate.skel.h"

uint64_t wd_rate_bytes_per_s(uint64_t bytes, uint64_t per_ms)
{
	if (!bytes || !per_ms)
		return 0;
	if (bytes > UINT64_MAX / 1000)
		return bytes / per_ms * 1000;
	return bytes * 1000 / per_ms ?: 1;
}

uint64_t wd_rate_burst_bytes(uint64_t rate)
{
	uint64_t b = rate / 1000 * WD_RATE_BURST_MS;

	return b > WD_RATE_MIN_BURST ? b : WD_RATE_MIN_BURST;
}

static int pin_at(const char *set_dir, const char *name, int (*pin)(void *, const char *),
		  void *obj)
{
	char path[PATH_MAX];
	int err;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", set_dir, name) >= sizeof(path))
		return -ENAMETOOLONG;
	err = pin(obj, path);
	if (err)
		log_warnx("rate: cannot pin %s: %s", path, strerror(-err));
	return err;
}

static int pin_link(void *link, const char *path)
{
	return bpf_link__pin(link, path);
}

static int pin_map(void *map, const char *path)
{
	return bpf_map__pin(map, path);
}

int wd_rate_load_pin(const char *set_dir, int *map)
{
	struct bpf_link *link = NULL;
	struct wd_rate_bpf *skel;
	int cg, err;

	*map = -1;
	skel = wd_rate_bpf__open_and_load();
	if (!skel) {
		err = -errno;
		log_warnx("rate: cannot load the egress-rate program: %s", strerror(-err));
		return err;
	}
	cg = wd_cgroup_subtree_open();
	if (cg < 0) {
		err = cg;
		goto out_destroy_skel;
	}
	link = bpf_program__attach_cgroup(skel->progs.wd_rate_egress, cg);
	close(cg);
	if (!link) {
		err = -errno;
		log_warnx("rate: cannot attach cgroup_skb/egress to warden's subtree: %s",
			  strerror(-err));
		goto out_destroy_skel;
	}
	err = pin_at(set_dir, WD_RATE_MAP_PIN, pin_map, skel->maps.wd_rate);
	err = err ?: pin_at(set_dir, WD_RATE_LINK_PIN, pin_link, link);
	if (!err) {
		*map = fcntl(bpf_map__fd(skel->maps.wd_rate), F_DUPFD_CLOEXEC, 3);
		if (*map < 0)
			err = -errno;
	}
	if (err) {
		bpf_link__unpin(link);
		bpf_map__unpin(skel->maps.wd_rate, NULL);
	}
	/* pinned, the link stays attached when its fd closes; unpinned, it detaches now */
	bpf_link__destroy(link);
out_destroy_skel:
	wd_rate_bpf__destroy(skel);
	return err;
}

int wd_rate_add(int map, uint64_t sandbox, const struct wd_ruleset *rs)
{
	uint64_t rate = wd_rate_bytes_per_s(rs->egress_bytes, rs->egress_per_ms);
	struct wd_rate r = { .rate = rate };
	int err;

	if (!rate)
		return 0;
	if (map < 0) {
		log_warnx("rate: net.egress_rate needs the egress-rate program, which this program "
			  "set lacks (no BPF filesystem to pin it in)");
		return -EOPNOTSUPP;
	}
	r.burst_ns = wd_rate_burst_bytes(rate) * 1000000000ull / rate;
	err = bpf_map_update_elem(map, &sandbox, &r, BPF_NOEXIST);
	if (err) {
		err = -errno;
		log_warnx("rate: cannot add sandbox %llu's egress rate: %s",
			  (unsigned long long)sandbox, strerror(-err));
	}
	return err;
}

int wd_rate_read(int map, uint64_t sandbox, struct wd_rate *out)
{
	memset(out, 0, sizeof(*out));
	if (map < 0)
		return -ENOENT;
	return bpf_map_lookup_elem(map, &sandbox, out) ? -errno : 0;
}

void wd_rate_remove(int map, uint64_t sandbox)
{
	if (map >= 0 && bpf_map_delete_elem(map, &sandbox) && errno != ENOENT)
		log_warn("rate: cannot remove sandbox %llu's egress rate",
			 (unsigned long long)sandbox);
}
