// SPDX-License-Identifier: GPL-2.0
/*
 * The host set's light-skeleton loader (supervisor/bpf/lite.h), in the bpf/ room: the generated
 * wd_hostset.lskel.h is included here and nowhere else.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "supervisor/bpf/lite.h"
#include "supervisor/sandbox/cgroup.h"
#include "supervisor/util/log.h"
/* generated code: its pointer arithmetic on void * is GNU C, which it is built as */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpointer-arith"
#include "wd_hostset.lskel.h"
#pragma GCC diagnostic pop

#define LITE_TP_LINKS 3
#define LITE_CG_LINKS 9
#define LITE_LINKS (LITE_TP_LINKS + LITE_CG_LINKS)
#define LITE_MAPS 6

struct wd_lite {
	struct wd_hostset_lbpf *skel;
	struct wd_lite_pin links[LITE_LINKS];
	struct wd_lite_pin maps[LITE_MAPS];
	size_t n_links;
};

/* The set's programs and where each attaches: a tracepoint (by its BTF), or warden's subtree. */
static const struct {
	const char *name;
	enum bpf_attach_type type; /* cgroup programs; 0 for the tracepoints */
	bool cgroup;
} programs[] = {
	{ "wd_sys_enter", 0, false },
	{ "wd_sys_exit", 0, false },
	{ "wd_exec_done", 0, false },
	{ "wd_net_connect4", BPF_CGROUP_INET4_CONNECT, true },
	{ "wd_net_connect6", BPF_CGROUP_INET6_CONNECT, true },
	{ "wd_net_sendmsg4", BPF_CGROUP_UDP4_SENDMSG, true },
	{ "wd_net_sendmsg6", BPF_CGROUP_UDP6_SENDMSG, true },
	{ "wd_net_recvmsg4", BPF_CGROUP_UDP4_RECVMSG, true },
	{ "wd_net_bind4", BPF_CGROUP_INET4_BIND, true },
	{ "wd_net_bind6", BPF_CGROUP_INET6_BIND, true },
	{ "wd_net_sock_create", BPF_CGROUP_INET_SOCK_CREATE, true },
	{ "wd_rate_egress", BPF_CGROUP_INET_EGRESS, true },
};

int wd_lite_attach(const char *name, int prog, int cgroup)
{
	for (size_t i = 0; i < sizeof(programs) / sizeof(programs[0]); i++) {
		int fd;

		if (strcmp(programs[i].name, name))
			continue;
		if (programs[i].cgroup)
			fd = bpf_link_create(prog, cgroup, programs[i].type, NULL);
		else
			fd = bpf_raw_tracepoint_open(NULL, prog);
		return fd < 0 ? -errno : fd;
	}
	return -ENOENT;
}

/*
 * The cgroup programs on warden's subtree; the pin names are those the full skeletons' loaders
 * use (supervisor/net/attach.c, supervisor/net/rate.c).
 */
static int attach_cgroup(struct wd_lite *lite)
{
	struct wd_hostset_lbpf *s = lite->skel;
	const struct {
		const char *pin;
		int prog;
		int *link; /* the skeleton's slot: it closes the link with the rest */
	} cg[LITE_CG_LINKS] = {
#define CG(name) { "prog_" #name, s->progs.name.prog_fd, &s->links.name##_fd }
		CG(wd_net_connect4),	CG(wd_net_connect6), CG(wd_net_sendmsg4),
		CG(wd_net_sendmsg6),	CG(wd_net_recvmsg4), CG(wd_net_bind4),
		CG(wd_net_bind6),	CG(wd_net_sock_create), CG(wd_rate_egress),
#undef CG
	};
	int fd, err = 0;

	fd = wd_cgroup_subtree_open();
	if (fd < 0)
		return fd;
	for (size_t i = 0; i < LITE_CG_LINKS; i++) {
		int link = wd_lite_attach(cg[i].pin + 5, cg[i].prog, fd);

		if (link < 0) {
			err = link;
			log_debug("bpf: the light loader cannot attach %s: %s", cg[i].pin + 5,
				  strerror(-err));
			break;
		}
		*cg[i].link = link;
		lite->links[lite->n_links++] = (struct wd_lite_pin){ cg[i].pin, link };
	}
	close(fd);
	return err;
}

int wd_lite_load(struct wd_lite **out)
{
	struct wd_hostset_lbpf *s;
	struct wd_lite *lite;
	int err;

	*out = NULL;
	lite = calloc(1, sizeof(*lite));
	if (!lite)
		return -ENOMEM;
	lite->skel = s = wd_hostset_lbpf__open();
	if (!s) {
		err = -errno ?: -ENOMEM;
		goto fail;
	}
	/* the recorder set runs every program with .rodata as compiled (not privileged-only) */
	err = wd_hostset_lbpf__load(s);
	if (err) {
		log_debug("bpf: the light loader cannot load the host set: %s", strerror(-err));
		goto fail;
	}
	/* the tracepoint programs (the cgroup ones have no automatic attachment: below) */
	err = wd_hostset_lbpf__attach(s);
	if (err) {
		log_debug("bpf: the light loader cannot attach the recorders: %s", strerror(-err));
		goto fail;
	}
	lite->links[0] = (struct wd_lite_pin){ "prog_wd_sys_enter", s->links.wd_sys_enter_fd };
	lite->links[1] = (struct wd_lite_pin){ "prog_wd_sys_exit", s->links.wd_sys_exit_fd };
	lite->links[2] = (struct wd_lite_pin){ "prog_wd_exec_done", s->links.wd_exec_done_fd };
	lite->n_links = LITE_TP_LINKS;
	err = attach_cgroup(lite);
	if (err)
		goto fail;
	lite->maps[0] = (struct wd_lite_pin){ "wd_sandboxes", s->maps.wd_sandboxes.map_fd };
	lite->maps[1] = (struct wd_lite_pin){ "wd_rings", s->maps.wd_rings.map_fd };
	lite->maps[2] = (struct wd_lite_pin){ "wd_net4", s->maps.wd_net4.map_fd };
	lite->maps[3] = (struct wd_lite_pin){ "wd_net6", s->maps.wd_net6.map_fd };
	lite->maps[4] = (struct wd_lite_pin){ "wd_net_cfg", s->maps.wd_net_cfg.map_fd };
	lite->maps[5] = (struct wd_lite_pin){ "wd_rate", s->maps.wd_rate.map_fd };
	*out = lite;
	return 0;

fail:
	wd_lite_destroy(lite);
	return err < 0 ? err : -EINVAL;
}

int wd_lite_map(const struct wd_lite *lite, const char *pin)
{
	for (size_t i = 0; i < LITE_MAPS; i++)
		if (!strcmp(lite->maps[i].pin, pin))
			return lite->maps[i].fd;
	return -1;
}

const struct wd_lite_pin *wd_lite_links(const struct wd_lite *lite, size_t *n)
{
	*n = lite->n_links;
	return lite->links;
}

const struct wd_lite_pin *wd_lite_maps(const struct wd_lite *lite, size_t *n)
{
	*n = LITE_MAPS;
	return lite->maps;
}

void wd_lite_destroy(struct wd_lite *lite)
{
	if (!lite)
		return;
	if (lite->skel)
		wd_hostset_lbpf__destroy(lite->skel);
	free(lite);
}
