// SPDX-License-Identifier: GPL-2.0
/*
 * wardend as a service: its options and configuration file (laid over each other, checked by
 * -n, read again on SIGHUP), and control.sock's mode and group, which follow approver_group
 * (docs/control.md#wardend-as-a-service).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "supervisor/daemon/config.h"
#include "supervisor/daemon/notify.h"
#include "supervisor/ipc/rundir.h"
#include "supervisor/util/log.h"
#include "tools/cmds.h"
#include "tools/wardend.h"

static const char usage[] =
	"usage: wardend [-n] [--config FILE] [--survive SECS] [--pool N] [--spares N]\n"
	"               [--backend NAME] [--approver-group GROUP] [--on-stop keep|end] [-v...]\n"
	"\n"
	"The warden daemon: runs sandboxes asked for on its control socket, <run dir>/control.sock\n"
	"(run dir: $WARDEN_RUN_DIR, else /run/warden; JSON lines, see docs/control.md), each under\n"
	"a supervisor of its own, and at start takes over every sandbox whose supervisor died\n"
	"(`warden run --survive`, or a wardend before this one). Its supervisors end with it; their\n"
	"sandboxes wait, held calls held, for the next wardend.\n"
	"\n"
	"  --survive SECS  how long a sandbox of this daemon waits for the next one when this one\n"
	"                  dies (default 300); then its keeper kills it\n"
	"  --pool N        sandbox cgroups kept made ahead, 0 to 8 (default 4)\n"
	"  --spares N      runs made ahead, 0 to 4 (default 1): after a run, the sandbox for the\n"
	"                  next run like it (same policy, backend, directory, env and timeout) is\n"
	"                  made up to its command's exec, and that run claims it\n"
	"  --backend NAME  the backend of runs that name none: auto (the probe's choice, the\n"
	"                  default), bpf-lsm or landlock; its program set is loaded (if need be)\n"
	"                  and held while wardend lives, so such runs load nothing\n"
	"  --approver-group GROUP  who besides root may list and status on control.sock\n"
	"                  (it is then mode 0660, that group's)\n"
	"  --on-stop keep|end  on SIGTERM: sandboxes wait for the next wardend (keep, the\n"
	"                  default), or are ended, each with its exit record (end)\n"
	"  --config FILE   the configuration file (default " WD_DAEMON_CONFIG ", which may be\n"
	"                  missing); command-line options override it; SIGHUP reads it again\n"
	"  -n, --check     check the configuration, print what would be used, and exit\n"
	"  -v              say more (twice: debug)\n"
	"  -h, --help      this text\n";

/*
 * control.sock's mode and group: 0600 root's, or 0660 group approver_group. Narrowed first, so
 * a change of group never leaves it open to the old group and the new at once.
 */
int socket_access(void)
{
	gid_t g = d.cfg.approver_gid;

	if (chmod(d.path, 0600) || chown(d.path, 0, g == (gid_t)-1 ? 0 : g) ||
	    (g != (gid_t)-1 && chmod(d.path, 0660))) {
		log_warn("cannot give %s its mode", d.path);
		return -1;
	}
	/* the approvers must reach the socket: the run directory searchable, never writable */
	if (g != (gid_t)-1 && wd_run_dir_check(d.dir, true))
		return -1;
	return 0;
}

/* The configuration: defaults, the file over them, the command line over both. 0 or -1. */
int config_load(struct wd_daemon_config *c, bool *read_it, char *msg, size_t size)
{
	int err;

	wd_daemon_config_defaults(c);
	err = wd_daemon_config_read(d.config_path, !d.config_given, c, msg, size);
	*read_it = err == 0;
	/* only the default file may be missing */
	if (err && (err != -ENOENT || d.config_given))
		return -1;
	wd_daemon_config_overlay(c, &d.cli);
	return 0;
}

void config_print(FILE *out, const struct wd_daemon_config *c, bool read_it)
{
	fprintf(out, "config          %s\n", read_it ? d.config_path : "(none: the defaults)");
	fprintf(out, "survive         %u s%s\n", c->survive_s,
		d.cli.set & WD_CFG_SURVIVE ? " (command line)" : "");
	fprintf(out, "pool            %d%s\n", c->pool, d.cli.set & WD_CFG_POOL ? " (command line)" : "");
	fprintf(out, "spares          %d%s\n", c->spares,
		d.cli.set & WD_CFG_SPARES ? " (command line)" : "");
	fprintf(out, "backend         %s%s\n", c->backend,
		d.cli.set & WD_CFG_BACKEND ? " (command line)" : "");
	if (c->approver_group[0])
		fprintf(out, "approver_group  %s (gid %u)\n", c->approver_group,
			(unsigned int)c->approver_gid);
	else
		fprintf(out, "approver_group  none (root only)\n");
	fprintf(out, "on_stop         %s\n", wd_on_stop_name(c->on_stop));
}

/* The pool to @want: grown by refill(), shrunk here. */
static void pool_resize(int want)
{
	struct wd_cgroup cg;

	d.pool.want = want;
	d.pool_failed = false;
	while (d.pool.n > want && wd_cgroup_pool_take(&d.pool, &cg) == 0)
		wd_cgroup_destroy(&cg);
}

/*
 * SIGHUP: the file read again. approver_group, pool, survive (for runs from now) and on_stop
 * change at once; backend needs a restart (the held set is the one it started with), said so.
 * A bad file changes nothing.
 */
void reload(void)
{
	struct wd_daemon_config n;
	char msg[1024];
	bool read_it;

	wd_notifyf("RELOADING=1\nSTATUS=reloading %s", d.config_path);
	if (config_load(&n, &read_it, msg, sizeof(msg))) {
		log_warnx("reload: %s: keeping the configuration as it was", msg);
		goto out;
	}
	if (strcmp(n.backend, d.cfg.backend))
		log_warnx("reload: backend %s needs a restart (runs that name none still get %s)",
			  n.backend, d.cfg.backend);
	memcpy(n.backend, d.cfg.backend, sizeof(n.backend));
	if (n.approver_gid != d.cfg.approver_gid || strcmp(n.approver_group, d.cfg.approver_group))
		log_info("reload: approver_group %s (was %s)",
			 n.approver_group[0] ? n.approver_group : "none",
			 d.cfg.approver_group[0] ? d.cfg.approver_group : "none");
	if (n.pool != d.cfg.pool)
		log_info("reload: pool %d (was %d)", n.pool, d.cfg.pool);
	if (n.spares != d.cfg.spares)
		log_info("reload: spares %d (was %d)", n.spares, d.cfg.spares);
	if (n.survive_s != d.cfg.survive_s)
		log_info("reload: survive %u s for runs from now (was %u)", n.survive_s,
			 d.cfg.survive_s);
	if (n.on_stop != d.cfg.on_stop)
		log_info("reload: on_stop %s", wd_on_stop_name(n.on_stop));
	d.cfg = n;
	d.config_read = read_it;
	socket_access();
	pool_resize(n.pool);
	/* fewer spares: the extra ones end now */
	spares_make();
	log_info("reloaded %s", read_it ? d.config_path : "(no file: the defaults)");
out:
	wd_notify("READY=1\nSTATUS=serving");
}

int parse_args(int argc, char **argv, bool *check, int *verbosity)
{
	static const struct option opts[] = {
		{ "survive", required_argument, NULL, 's' },
		{ "pool", required_argument, NULL, 'p' },
		{ "spares", required_argument, NULL, 'S' },
		{ "backend", required_argument, NULL, 'b' },
		{ "approver-group", required_argument, NULL, 'g' },
		{ "on-stop", required_argument, NULL, 'o' },
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct wd_daemon_config *c = &d.cli;
	char *end;
	int o;

	while ((o = getopt_long(argc, argv, "nvh", opts, NULL)) != -1) {
		switch (o) {
		case 's':
			errno = 0;
			c->survive_s = (unsigned int)strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || *optarg == '-' || c->survive_s < 1 ||
			    c->survive_s > 86400) {
				fprintf(stderr, "wardend: --survive wants 1 to 86400 seconds, not '%s'\n",
					optarg);
				return 2;
			}
			c->set |= WD_CFG_SURVIVE;
			break;
		case 'p':
			errno = 0;
			c->pool = (int)strtol(optarg, &end, 10);
			if (errno || *end || !*optarg || c->pool < 0 || c->pool > WD_CGROUP_POOL_MAX) {
				fprintf(stderr, "wardend: --pool wants 0 to %d, not '%s'\n",
					WD_CGROUP_POOL_MAX, optarg);
				return 2;
			}
			c->set |= WD_CFG_POOL;
			break;
		case 'S':
			errno = 0;
			c->spares = (int)strtol(optarg, &end, 10);
			if (errno || *end || !*optarg || c->spares < 0 || c->spares > WD_SPARES_MAX) {
				fprintf(stderr, "wardend: --spares wants 0 to %d, not '%s'\n",
					WD_SPARES_MAX, optarg);
				return 2;
			}
			c->set |= WD_CFG_SPARES;
			break;
		case 'b':
			if (!wd_daemon_backend_ok(optarg)) {
				fprintf(stderr, "wardend: --backend wants auto, bpf-lsm or landlock, "
					"not '%s'\n", optarg);
				return 2;
			}
			snprintf(c->backend, sizeof(c->backend), "%s", optarg);
			c->set |= WD_CFG_BACKEND;
			break;
		case 'g':
			if (wd_daemon_group_resolve(optarg, &c->approver_gid) || !c->approver_gid) {
				fprintf(stderr, "wardend: --approver-group: no group '%s' here (nor "
					"group 0)\n", optarg);
				return 2;
			}
			snprintf(c->approver_group, sizeof(c->approver_group), "%s", optarg);
			c->set |= WD_CFG_APPROVERS;
			break;
		case 'o':
			if (strcmp(optarg, "keep") && strcmp(optarg, "end")) {
				fprintf(stderr, "wardend: --on-stop wants keep or end, not '%s'\n",
					optarg);
				return 2;
			}
			c->on_stop = strcmp(optarg, "end") ? WD_ON_STOP_KEEP : WD_ON_STOP_END;
			c->set |= WD_CFG_ON_STOP;
			break;
		case 'c':
			d.config_path = optarg;
			d.config_given = true;
			break;
		case 'n':
			*check = true;
			break;
		case 'v':
			++*verbosity;
			break;
		default:
			return wd_usage(usage, o == 'h');
		}
	}
	if (optind != argc)
		return wd_usage(usage, false);
	return -1;
}

