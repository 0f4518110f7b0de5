// SPDX-License-Identifier: GPL-2.0
/* warden policy: start a policy from a template, check policies, explain one in plain words. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "policy/compile.h"
#include "policy/effective.h"
#include "supervisor/backend/backend.h"
#include "policy/explain.h"
#include "policy/templates.h"
#include "supervisor/util/log.h"
#include "supervisor/run/run.h"
#include "tools/cmd_policy.h"

/* Exit statuses of `warden policy`, as docs/cli.md lists them. */
enum {
	EXIT_OK = 0,
	EXIT_WRITE = 1,	  /* could not write the output */
	EXIT_INVALID = 2, /* bad arguments, or a policy with errors */
};

const char wd_derive_usage[] =
	"Derived policy: applied on top of the policy, in the order given\n"
	"      --allow-host HOST:PORT  add a net.allow entry (\"api.example.com:443\")\n"
	"      --deny-host HOST:PORT   add a net.deny entry\n"
	"      --allow-read PATH       add an fs.read path\n"
	"      --allow-write PATH      add an fs.write path\n"
	"      --allow-exec PATH       add an fs.exec path\n"
	"      --mode audit|enforce    set mode\n"
	"      --limit KEY=VALUE       set a limit (\"wall_time=30s\", \"memory=256MiB\")\n"
	"      --env NAME=VALUE        set a variable of the command's environment (env.set)\n";

int wd_derive_option(int c, const char *arg, struct wd_policy_derive *d)
{
	if (c < WD_OPT_DERIVE || c >= WD_OPT_DERIVE + WD_DERIVE_NR)
		return 0;
	if (wd_policy_derive_add(d, (enum wd_derive_kind)(c - WD_OPT_DERIVE), arg))
		return -ENOMEM;
	return 1;
}

static const char policy_usage[] =
	"usage: warden policy init --template NAME [-o FILE] [--force]\n"
	"       warden policy init --list\n"
	"       warden policy check [--json] POLICY...\n"
	"       warden policy explain [--json] [DERIVED...] POLICY\n"
	"\n"
	"POLICY is a file, or the name of a shipped template (a name without \"/\" or \".\").\n"
	"\n"
	"  init     write a template's policy to standard output or FILE, to start from\n"
	"  check    validate each POLICY (what it extends included); list every error with\n"
	"           its JSON pointer, line and column\n"
	"  explain  the effective policy (after extends and DERIVED flags) in plain words\n"
	"\n"
	"Exit status: 0 when all is well; 2 for bad arguments or a policy with errors;\n"
	"1 when the output could not be written.\n"
	"See warden-policy(5) for the policy format.\n";

/* --help (@asked: the usage and @extra, to standard output) or a bad option (to standard error). */
static int usage(bool asked, const char *extra)
{
	fputs(policy_usage, asked ? stdout : stderr);
	if (asked && extra)
		fputs(extra, stdout);
	return asked ? EXIT_OK : EXIT_INVALID;
}

/* @doc (NULL when out of memory) pretty-printed to standard output, then freed. */
static int print_json(cJSON *doc)
{
	char *s = doc ? cJSON_Print(doc) : NULL;
	int rc = !s || printf("%s\n", s) < 0 ? EXIT_WRITE : EXIT_OK;

	free(s);
	cJSON_Delete(doc);
	return rc;
}

static void list_templates(FILE *out)
{
	for (const struct wd_template *t = wd_templates; t->name; t++)
		fprintf(out, "  %-16s %s\n", t->name, t->summary);
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int policy_init(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "template", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *name = NULL, *file = NULL;
	const struct wd_template *t;
	int c, fd, err, rc = EXIT_OK;
	bool force = false;

	optind = 1;
	while ((c = getopt_long(argc, argv, "t:o:flh", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			name = optarg;
			break;
		case 'o':
			file = optarg;
			break;
		case 'f':
			force = true;
			break;
		case 'l':
			list_templates(stdout);
			return EXIT_OK;
		default:
			return usage(c == 'h', NULL);
		}
	}
	if (!name || optind < argc) {
		log_warnx("policy init: %s; the templates are:",
			  name ? "unexpected argument" : "--template NAME is required");
		list_templates(stderr);
		return EXIT_INVALID;
	}
	t = wd_template_find(name);
	if (!t) {
		log_warnx("policy init: no template \"%s\"; the templates are:", name);
		list_templates(stderr);
		return EXIT_INVALID;
	}
	if (!file)
		return write_all(STDOUT_FILENO, t->text, t->len) ? EXIT_WRITE : EXIT_OK;
	fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL), 0644);
	if (fd < 0) {
		log_warn("policy init: %s%s", file,
			 errno == EEXIST ? " (--force replaces it)" : "");
		return errno == EEXIST ? EXIT_INVALID : EXIT_WRITE;
	}
	err = write_all(fd, t->text, t->len);
	if (close(fd) && !err)
		err = -errno;
	if (err) {
		log_warnx("policy init: writing %s: %s", file, strerror(-err));
		rc = EXIT_WRITE;
	}
	return rc;
}

static void print_errors(const struct wd_policy_errors *errs, const char *display, FILE *out)
{
	char buf[2048];

	for (size_t i = 0; i < errs->n; i++) {
		wd_policy_error_format(&errs->v[i], display, buf, sizeof(buf));
		fprintf(out, "%s\n", buf);
	}
	if (errs->dropped)
		fprintf(out, "%s: %zu more errors not shown\n", display, errs->dropped);
}

static cJSON *errors_json(const struct wd_policy_errors *errs, const char *display)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; arr && i < errs->n; i++) {
		const struct wd_policy_error *e = &errs->v[i];
		cJSON *o = cJSON_CreateObject();

		if (!o)
			break;
		cJSON_AddStringToObject(o, "source", e->source[0] ? e->source : display);
		cJSON_AddStringToObject(o, "pointer", e->pointer);
		if (e->line) {
			cJSON_AddNumberToObject(o, "line", e->line);
			cJSON_AddNumberToObject(o, "column", e->col);
		}
		cJSON_AddStringToObject(o, "message", e->msg);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

/*
 * Load, expand and compile @name as `warden run` would, collecting errors. Variables take
 * stand-in values: a policy's validity does not depend on where it is checked.
 */
static int check_one(const char *name, const struct wd_policy_derive *d, struct wd_policy *p,
		     struct wd_policy_errors *errs)
{
	struct wd_load_opts o = { .derive = d };
	struct wd_policy_vars vars = { .workdir = "/WORKDIR",
				       .home = "/HOME",
				       .tmpdir = "/TMPDIR" };
	struct wd_policy_error e;
	struct wd_policy expanded = { 0 };
	struct wd_ruleset rs;
	int err;

	err = wd_policy_load(name, &o, p, errs);
	if (err)
		return err;
	err = wd_policy_merge(&expanded, p);
	err = err ?: wd_policy_expand(&expanded, &vars, errs);
	if (!err) {
		err = wd_compile(&expanded, &rs, &e);
		if (err && err != -ENOMEM)
			wd_policy_errors_add(errs, &e);
		if (!err)
			wd_ruleset_free(&rs);
	}
	wd_policy_free(&expanded);
	if (err)
		wd_policy_free(p);
	return err;
}

static int policy_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	cJSON *out = NULL, *files = NULL;
	bool json = false;
	int c, rc = EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		default:
			return usage(c == 'h', NULL);
		}
	}
	if (optind >= argc) {
		log_warnx("policy check: no policy given");
		return EXIT_INVALID;
	}
	if (json) {
		out = cJSON_CreateObject();
		files = out ? cJSON_AddArrayToObject(out, "policies") : NULL;
		if (!files) {
			cJSON_Delete(out);
			log_warnx("policy check: out of memory");
			return EXIT_WRITE;
		}
	}
	for (int i = optind; i < argc; i++) {
		struct wd_policy_errors errs = { 0 };
		struct wd_policy p;
		/* why warden run refuses it anywhere, and why each backend does */
		char display[4200], why[1024] = "", bwhy[4][1024] = { "" };
		int err;

		wd_policy_source_name(argv[i], display, sizeof(display));
		err = check_one(argv[i], NULL, &p, &errs);
		if (err == -ENOMEM) {
			log_warnx("policy check: out of memory");
			rc = EXIT_WRITE;
		} else if (err) {
			rc = EXIT_INVALID;
		} else {
			wd_policy_unenforced(&p, why, sizeof(why));
			for (int b = 0; wd_backends[b] && b < 4; b++)
				wd_policy_unenforced_mask(&p, wd_backends[b]->features, bwhy[b],
							  sizeof(bwhy[b]));
			wd_policy_free(&p);
		}
		if (json) {
			cJSON *f = cJSON_CreateObject();

			if (f) {
				cJSON_AddStringToObject(f, "policy", display);
				cJSON_AddBoolToObject(f, "valid", !err);
				cJSON_AddItemToObject(f, "errors", errors_json(&errs, display));
				if (why[0])
					cJSON_AddStringToObject(f, "refused_by_run", why);
				for (int b = 0; wd_backends[b] && b < 4; b++) {
					cJSON *by = cJSON_GetObjectItem(f, "refused_by_backend");

					if (!bwhy[b][0])
						continue;
					if (!by)
						by = cJSON_AddObjectToObject(f, "refused_by_backend");
					cJSON_AddStringToObject(by, wd_backends[b]->name, bwhy[b]);
				}
				cJSON_AddItemToArray(files, f);
			}
		} else if (err) {
			print_errors(&errs, display, stdout);
		} else {
			printf("%s: ok\n", display);
			if (why[0])
				printf("%s: note: warden run refuses it today: %s\n", display, why);
			for (int b = 0; !why[0] && wd_backends[b] && b < 4; b++)
				if (bwhy[b][0])
					printf("%s: note: the %s backend refuses it: %s\n", display,
					       wd_backends[b]->name, bwhy[b]);
		}
		wd_policy_errors_free(&errs);
	}
	if (json && print_json(out))
		rc = EXIT_WRITE;
	if (fflush(stdout))
		rc = EXIT_WRITE;
	return rc;
}

static int policy_explain(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		WD_DERIVE_LONG_OPTIONS,
		{ 0 },
	};
	struct wd_policy_derive d = { 0 };
	struct wd_policy_errors errs = { 0 };
	struct wd_policy_vars vars;
	struct wd_policy p;
	char display[4200];
	bool json = false;
	int c, r, rc = EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		r = wd_derive_option(c, optarg, &d);
		if (r < 0) {
			log_warnx("policy explain: out of memory");
			rc = EXIT_WRITE;
			goto out_free_derive;
		}
		if (r)
			continue;
		switch (c) {
		case 'j':
			json = true;
			break;
		default:
			rc = usage(c == 'h', wd_derive_usage);
			goto out_free_derive;
		}
	}
	if (optind + 1 != argc) {
		log_warnx("policy explain: expected one policy");
		rc = EXIT_INVALID;
		goto out_free_derive;
	}
	wd_policy_source_name(argv[optind], display, sizeof(display));
	r = check_one(argv[optind], &d, &p, &errs);
	if (r) {
		print_errors(&errs, display, stderr);
		rc = r == -ENOMEM ? EXIT_WRITE : EXIT_INVALID;
		goto out_free_errors;
	}
	wd_policy_vars_from_env(&vars);
	if (json)
		rc = print_json(wd_policy_explain_json(&p, display, &vars));
	else
		wd_policy_explain(&p, display, &vars, stdout);
	/* the enforcement section, last, goes on with what each backend refuses of it */
	for (int b = 0; !json && !wd_policy_unenforced(&p, NULL, 0) && wd_backends[b]; b++) {
		char why[1024];

		if (wd_policy_unenforced_mask(&p, wd_backends[b]->features, why, sizeof(why)))
			printf("  the %s backend refuses it: %s\n", wd_backends[b]->name, why);
	}
	if (fflush(stdout))
		rc = EXIT_WRITE;
	wd_policy_free(&p);
out_free_errors:
	wd_policy_errors_free(&errs);
out_free_derive:
	wd_policy_derive_free(&d);
	return rc;
}

int cmd_policy(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} subs[] = {
		{ "init", policy_init },
		{ "check", policy_check },
		{ "explain", policy_explain },
	};

	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(policy_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_INVALID : EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		if (strcmp(argv[1], subs[i].name) == 0)
			return subs[i].fn(argc - 1, argv + 1);
	log_warnx("policy: unknown command \"%s\" (init, check or explain)", argv[1]);
	return EXIT_INVALID;
}
