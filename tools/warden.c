// SPDX-License-Identifier: GPL-2.0
/* warden: the command-line front door. One table of subcommands, each with its own --help. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "supervisor/backend/guarantees.h"
#include "supervisor/backend/doctor.h"
#include "supervisor/util/log.h"
#include "supervisor/backend/probe.h"
#include "supervisor/bpf/progs.h"
#include "supervisor/run/run.h"
#include "tools/cmds.h"
#include "tools/cmd_policy.h"

#include "tools/version.h"

static int verbosity = WD_LOG_WARN;

/* A day: a sandbox nobody took over is not kept for longer. */
#define WD_SURVIVE_MAX 86400u

static int parse_seconds(const char *s, unsigned int *out)
{
	char *end;
	unsigned long v;

	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > WD_SURVIVE_MAX)
		return -EINVAL;
	*out = (unsigned int)v;
	return 0;
}

static const char run_usage[] =
	"usage: warden run --policy POLICY [--report FILE] [--audit FILE] [--backend NAME]\n"
	"                  [DERIVED...] -- COMMAND [ARG...]\n"
	"\n"
	"Run COMMAND in a new sandbox whose file and exec rules the kernel enforces, wait for it,\n"
	"and remove the sandbox (and anything the command left running in it).\n"
	"\n"
	"  -p, --policy POLICY the policy: a file (JSON, schema warden.policy/1; see\n"
	"                      warden-policy(5)) or a template name (`warden policy init --list`)\n"
	"  -r, --report FILE   write a JSON run report (schema warden.report/2) to FILE,\n"
	"                      mode 0600\n"
	"  -a, --audit FILE    append audit records (JSON lines, warden.audit/1) to FILE,\n"
	"                      mode 0600 (an existing FILE: a plain file of root's, no link);\n"
	"                      default: RUN_DIR/audit/SANDBOX.jsonl, named on standard error\n"
	"      --prompt        ask about this run's holds on the terminal too (as warden\n"
	"                      prompt --sandbox does); others may still answer them\n"
	"  -q, --quiet         no live status line on the terminal (elapsed time, memory,\n"
	"                      tasks, denials, a held operation waiting for an operator)\n"
	"      --survive SECS  if warden dies, keep the sandbox (held calls held, new ones\n"
	"                      waiting) for up to SECS seconds for `warden adopt` to take it\n"
	"                      over; then it is killed. Default 0: it dies with warden\n"
	"  -b, --backend NAME  enforcement backend: auto (default: bpf-lsm where BPF-LSM\n"
	"                      programs load, else landlock), bpf-lsm or landlock; a named\n"
	"                      backend that cannot run here is an error, never a fallback\n"
	"  -h, --help          this text\n"
	"\n"
	"Exit status: the command's own, or 128+N when signal N ended it; 2 for bad arguments\n"
	"or a bad policy; 125 when the sandbox could not be set up; 126 when the command could\n"
	"not be executed (for example denied by the policy); 127 when it was not found.\n"
	"Nothing is run when the policy is invalid or the backend is unavailable, nor when\n"
	"FILE of --report or --audit is where the sandbox may write (exit 2) or cannot be\n"
	"made (exit 125): both are opened before the command runs.\n";

static int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "report", required_argument, NULL, 'r' },
		{ "audit", required_argument, NULL, 'a' },
		{ "backend", required_argument, NULL, 'b' },
		{ "prompt", no_argument, NULL, 'P' },
		{ "survive", required_argument, NULL, 'S' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		WD_DERIVE_LONG_OPTIONS,
		{ 0 },
	};
	struct wd_policy_derive derive = { 0 };
	struct wd_run_opts o = { .backend = "auto", .derive = &derive };
	int c, r, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+p:r:a:b:qh", opts, NULL)) != -1) {
		r = wd_derive_option(c, optarg, &derive);
		if (r < 0) {
			log_warnx("run: out of memory");
			rc = WD_EXIT_INTERNAL;
			goto out_free_derive;
		}
		if (r)
			continue;
		switch (c) {
		case 'p':
			o.policy_path = optarg;
			break;
		case 'r':
			o.report_path = optarg;
			break;
		case 'P':
			o.prompt = true;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'S':
			if (parse_seconds(optarg, &o.survive_s)) {
				log_warnx("run: --survive wants whole seconds (0 to %u), not '%s'",
					  WD_SURVIVE_MAX, optarg);
				rc = WD_EXIT_USAGE;
				goto out_free_derive;
			}
			break;
		case 'a':
			o.audit_path = optarg;
			break;
		case 'b':
			o.backend = optarg;
			break;
		case 'h':
			rc = wd_usage(run_usage, true);
			fputs(wd_derive_usage, stdout);
			goto out_free_derive;
		default:
			rc = wd_usage(run_usage, false);
			goto out_free_derive;
		}
	}
	rc = WD_EXIT_USAGE;
	if (!o.policy_path) {
		log_warnx("run: --policy POLICY is required");
		goto out_free_derive;
	}
	if (optind >= argc) {
		log_warnx("run: no command given (put it after --)");
		goto out_free_derive;
	}
	if (geteuid() != 0) {
		log_warnx("run: must be run as root (loads BPF programs and makes cgroups)");
		rc = WD_EXIT_INTERNAL;
		goto out_free_derive;
	}
	o.argv = argv + optind;
	rc = wd_run(&o);
out_free_derive:
	wd_policy_derive_free(&derive);
	return rc;
}

static const char adopt_usage[] =
	"usage: warden adopt [--audit FILE] [--prompt] [--wait SECS] SANDBOX\n"
	"\n"
	"Take over SANDBOX (sb-...), run with `warden run --survive` (or by wardend), whose\n"
	"supervisor has died: ask again about the operations it held (they stayed held, never ran\n"
	"and never failed), answer new ones, serve its holds to `warden holds | approve | deny |\n"
	"prompt`, follow the kernel's records, and when its last process has ended remove it and\n"
	"write the exit record: how the command ended where the sandbox has an init (a pid\n"
	"namespace, as on landlock), else \"ended\" with a null exit_code.\n"
	"\n"
	"  -a, --audit FILE    append audit records to FILE; default: the run's own audit\n"
	"                      stream (the descriptor its keeper holds)\n"
	"      --prompt        ask about the holds on this terminal too\n"
	"      --wait SECS     wait up to SECS (default 5) for the keeper to let a successor\n"
	"                      in, while the old supervisor is still ending\n"
	"  -h, --help          this text\n"
	"\n"
	"Grants the old supervisor made are gone: the next operation they covered is held again.\n"
	"Exit status: 0 when the sandbox was supervised to its end, 1 when it could not be taken\n"
	"over (it stays with its keeper), 2 for bad arguments.\n";

static int cmd_adopt(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "audit", required_argument, NULL, 'a' },
		{ "prompt", no_argument, NULL, 'P' },
		{ "wait", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct wd_adopt_opts o = { .wait_ms = 5000 };
	unsigned int secs;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+a:h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			o.audit_path = optarg;
			break;
		case 'P':
			o.prompt = true;
			break;
		case 'w':
			if (parse_seconds(optarg, &secs)) {
				log_warnx("adopt: --wait wants whole seconds, not '%s'", optarg);
				return WD_EXIT_USAGE;
			}
			o.wait_ms = secs * 1000;
			break;
		default:
			return wd_usage(adopt_usage, c == 'h');
		}
	}
	if (optind != argc - 1) {
		log_warnx("adopt: name one sandbox (sb-...)");
		return wd_usage(adopt_usage, false);
	}
	if (geteuid() != 0) {
		log_warnx("adopt: must be run as root");
		return 1;
	}
	o.sandbox = argv[optind];
	return wd_adopt(&o);
}

static const char doctor_usage[] =
	"usage: warden doctor [--json | --table] [--refresh]\n"
	"\n"
	"Say what this kernel offers warden (BTF, active LSMs, whether BPF-LSM programs load,\n"
	"the Landlock ABI, vm.memfd_noexec, the cgroup2 layout) and which backend `warden run`\n"
	"would choose, and why. Loading the BPF-LSM probe needs root.\n"
	"\n"
	"The answers are probed once per boot and kept in the run directory (probe.cache, root's\n"
	"alone, for this boot id, kernel and warden build); the \"answers\" line says whether\n"
	"they came from there.\n"
	"\n"
	"  --json    the findings as one JSON object\n"
	"  --table   what each backend guarantees, rule by rule and bypass class by bypass\n"
	"            class (Markdown; docs/backends.md is made from it)\n"
	"  --refresh probe everything again and rewrite the kept answers\n"
	"\n"
	"Exit status: 0 when a backend can run here, 1 when none can, 2 for bad arguments.\n";

static int cmd_doctor(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "table", no_argument, NULL, 't' },
		{ "refresh", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool json = false, table = false, refresh = false;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "jtrh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 't':
			table = true;
			break;
		case 'r':
			refresh = true;
			break;
		default:
			return wd_usage(doctor_usage, c == 'h');
		}
	}
	if (table) {
		wd_capabilities_markdown(stdout);
		return 0;
	}
	return wd_doctor(stdout, json, refresh);
}

static const char unload_usage[] =
	"usage: warden unload\n"
	"\n"
	"Remove the program sets warden keeps pinned under /sys/fs/bpf/warden while they are idle.\n"
	"\n"
	"With the landlock backend, the last run to leave a set detaches every one of its programs\n"
	"(nothing of warden's then runs on the host: no tracepoint, no cgroup hook) but leaves them\n"
	"loaded and pinned, so the next run attaches them again in a few milliseconds instead of\n"
	"loading and verifying them anew (about 20 ms here). An idle set holds kernel memory only,\n"
	"about 1.5 MB. `warden unload` removes every idle set, of this build or any other, and any a\n"
	"loader that died left half-made; a set in use (a run, wardend, or a sandbox a keeper holds)\n"
	"is kept and named. The sets go at reboot in any case. Needs root.\n"
	"\n"
	"Exit status: 0, also when there was nothing to remove; 1 if the pins cannot be reached.\n";

static int cmd_unload(int argc, char **argv)
{
	int n;

	if (argc > 1)
		return wd_usage(unload_usage, !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
	n = wd_progs_unload(stdout);
	if (n < 0) {
		fprintf(stderr, "warden: unload: cannot lock /sys/fs/bpf/warden: %s\n", strerror(-n));
		return 1;
	}
	return 0;
}

static int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("warden %s\n", WARDEN_VERSION);
	return 0;
}

static int cmd_help(int argc, char **argv);

static const struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} cmds[] = {
	{ "run", cmd_run, "run a command in a new sandbox" },
	{ "adopt", cmd_adopt, "take over a sandbox whose warden died (run --survive)" },
	{ "doctor", cmd_doctor, "what this kernel offers, and the backend warden would use" },
	{ "holds", cmd_holds, "list the operations sandboxes wait on" },
	{ "approve", cmd_approve, "let a held operation go on" },
	{ "deny", cmd_deny, "refuse a held operation" },
	{ "prompt", cmd_prompt, "answer holds as they come, at a terminal" },
	{ "sandbox", cmd_sandbox, "persistent sandboxes of wardend: create, exec, list, inspect, destroy" },
	{ "policy", cmd_policy, "start, check and explain policies" },
	{ "unload", cmd_unload, "remove the idle program sets kept between runs" },
	{ "version", cmd_version, "print warden's version" },
	{ "help", cmd_help, "this list; `warden CMD --help` for one command" },
	{ 0 },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: warden [-v...] COMMAND [ARGS...]\n\n"
		     "A kernel-enforced sandbox supervisor. Commands:\n");
	for (const struct cmd *c = cmds; c->name; c++)
		fprintf(out, "  %-10s %s\n", c->name, c->summary);
	fprintf(out, "\n  -v  more messages (-vv: debugging, libbpf's own included)\n");
}

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	int i = 1;

	while (i < argc && argv[i][0] == '-' && argv[i][1] == 'v') {
		for (const char *p = argv[i] + 1; *p == 'v'; p++)
			verbosity++;
		i++;
	}
	if (i < argc && (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)) {
		usage(stdout);
		return 0;
	}
	log_init("warden", verbosity);
	wd_libbpf_log_init();
	if (i >= argc) {
		usage(stderr);
		return WD_EXIT_USAGE;
	}
	for (const struct cmd *c = cmds; c->name; c++)
		if (strcmp(argv[i], c->name) == 0)
			return c->fn(argc - i, argv + i);
	log_warnx("unknown command \"%s\"; `warden help` lists them", argv[i]);
	return WD_EXIT_USAGE;
}
