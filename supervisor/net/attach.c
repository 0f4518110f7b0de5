// SPDX-License-Identifier: GPL-2.0
/*
 * The network object's loader (supervisor/net/attach.h), in the net/ room: the one place the
 * generated wd_net.skel.h is included.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "supervisor/net/attach.h"
#include "supervisor/sandbox/cgroup.h"
#include "supervisor/util/log.h"
#include "wd_net.skel.h"

const char *const wd_net_map_pins[3] = { "wd_net4", "wd_net6", "wd_net_cfg" };

static int reuse(struct bpf_map *m, int fd)
{
	int err = bpf_map__reuse_fd(m, fd);

	if (err)
		log_warnx("net: cannot share the map %s: %s", bpf_map__name(m), strerror(-err));
	return err;
}

/* Every cgroup program of the object on warden's subtree, so every sandbox meets them. */
static int attach_all(struct wd_net_bpf *skel)
{
	struct {
		struct bpf_program *prog;
		struct bpf_link **link;
	} p[] = {
		{ skel->progs.wd_net_connect4, &skel->links.wd_net_connect4 },
		{ skel->progs.wd_net_connect6, &skel->links.wd_net_connect6 },
		{ skel->progs.wd_net_sendmsg4, &skel->links.wd_net_sendmsg4 },
		{ skel->progs.wd_net_sendmsg6, &skel->links.wd_net_sendmsg6 },
		{ skel->progs.wd_net_recvmsg4, &skel->links.wd_net_recvmsg4 },
		{ skel->progs.wd_net_bind4, &skel->links.wd_net_bind4 },
		{ skel->progs.wd_net_bind6, &skel->links.wd_net_bind6 },
		{ skel->progs.wd_net_sock_create, &skel->links.wd_net_sock_create },
	};
	int cg, err = 0;

	cg = wd_cgroup_subtree_open();
	if (cg < 0)
		return cg;
	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]) && !err; i++) {
		*p[i].link = bpf_program__attach_cgroup(p[i].prog, cg);
		if (!*p[i].link) {
			err = -errno;
			log_warnx("net: cannot attach %s to warden's cgroup subtree: %s",
				  bpf_program__name(p[i].prog), strerror(-err));
		}
	}
	close(cg);
	return err;
}

int wd_net_load(struct wd_net_bpf **out, const struct wd_net_shared *sh)
{
	struct wd_net_bpf *skel;
	int err;

	*out = NULL;
	skel = wd_net_bpf__open();
	if (!skel) {
		err = -errno;
		log_warnx("net: cannot open the network object: %s", strerror(-err));
		return err;
	}
	err = reuse(skel->maps.wd_sandboxes, sh->sandboxes);
	err = err ?: reuse(skel->maps.wd_rings, sh->rings);
	err = err ?: reuse(skel->maps.wd_lost, sh->lost);
	err = err ?: reuse(skel->maps.wd_net_marks, sh->marks);
	if (!err) {
		err = wd_net_bpf__load(skel);
		if (err)
			log_warnx("net: cannot load the network programs: %s", strerror(-err));
	}
	err = err ?: attach_all(skel);
	if (err) {
		wd_net_bpf__destroy(skel);
		return err;
	}
	*out = skel;
	return 0;
}

int wd_net_pin(struct wd_net_bpf *net, const char *dir)
{
	const struct bpf_object_skeleton *s = net->skeleton;
	struct bpf_map *m[3] = { net->maps.wd_net4, net->maps.wd_net6, net->maps.wd_net_cfg };
	char path[PATH_MAX];
	int err = 0;

	for (int i = 0; i < 3 && !err; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, wd_net_map_pins[i]);
		err = bpf_map__pin(m[i], path);
	}
	for (int i = 0; i < s->prog_cnt && !err; i++) {
		const struct bpf_prog_skeleton *p =
			(const void *)((const char *)s->progs + i * s->prog_skel_sz);

		if (!*p->link)
			continue;
		snprintf(path, sizeof(path), "%s/prog_%s", dir, p->name);
		err = bpf_link__pin(*p->link, path);
	}
	if (err)
		log_warnx("net: cannot pin %s: %s", path, strerror(-err));
	return err;
}

int wd_net_take_maps(struct wd_net_bpf *net, int fds[3])
{
	struct bpf_map *m[3] = { net->maps.wd_net4, net->maps.wd_net6, net->maps.wd_net_cfg };

	for (int i = 0; i < 3; i++) {
		fds[i] = fcntl(bpf_map__fd(m[i]), F_DUPFD_CLOEXEC, 3);
		if (fds[i] < 0)
			return -errno;
	}
	return 0;
}

void wd_net_destroy(struct wd_net_bpf *net)
{
	wd_net_bpf__destroy(net);
}
