// SPDX-License-Identifier: GPL-2.0
/* Where a run writes, opened and checked before the command runs (supervisor/run/sink.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/path.h"
#include "supervisor/hold/holds_socket.h"
#include "supervisor/run/records.h"
#include "supervisor/run/report.h"
#include "supervisor/run/sink.h"
#include "supervisor/util/log.h"

/* What a path warden will write is checked against: the run's rules. */
struct reach {
	const struct wd_ruleset *rs;
	const char *what; /* "report", "audit", "run directory" */
	const char *path; /* as the caller named it */
};

/*
 * A directory warden looks a name up in, or makes a file in, must be one the sandbox cannot
 * change: where it may create, remove or rename names (fs.write, at or above the directory), a
 * file warden writes as root could be swapped, linked elsewhere or forged after the fact. So it
 * is refused up front, naming the path and the rule (docs/threat-model.md).
 */
static int sandbox_cannot_change(void *arg, const char *dir)
{
	const struct reach *r = arg;
	const struct wd_rule_entry *e;

	/* a private /tmp hides the host's /tmp, and all under it, from the sandbox */
	if (r->rs->ns[WD_NS_TMP] == WD_NS_PRIVATE && wd_path_within(dir, "/tmp"))
		return 0;
	e = wd_ruleset_lookup(r->rs, dir);
	if (!e || !(e->val.allow & WD_ACC_WRITE))
		return 0;
	log_warnx("%s: %s is refused: the sandbox may write %s (policy rule %s), so it could replace "
		  "or redirect what warden writes there; name a path outside the trees the policy "
		  "lets it write", r->what, r->path, dir,
		  wd_ruleset_rule_name(r->rs, e->val.rule[WD_ACC_IDX_WRITE]));
	return -EPERM;
}

int wd_run_open_report(struct wd_out_file *f, const struct wd_ruleset *rs, const char *path)
{
	struct reach r = { .rs = rs, .what = "report", .path = path };

	return wd_report_open(f, path, sandbox_cannot_change, &r);
}

/* The run directory, when the run will use it: a directory the sandbox cannot change either. */
static int check_run_dir(const struct wd_ruleset *rs, int *fd)
{
	struct reach r = { .rs = rs, .what = "run directory", .path = wd_run_dir() };
	char real[PATH_MAX];
	int err = wd_run_dir_check(wd_run_dir(), false);

	if (!err)
		err = wd_dir_open_checked(wd_run_dir(), sandbox_cannot_change, &r, fd, real);
	if (err && err != -EPERM)
		log_warnx("run: cannot open the run directory %s: %s", wd_run_dir(),
			  strerror(-err));
	return err;
}

int wd_run_dir_usable(const struct wd_ruleset *rs)
{
	int dir = -1, err = check_run_dir(rs, &dir);

	if (dir >= 0)
		close(dir);
	return err;
}

int wd_run_open_default_sink(struct run_state *st, const struct wd_ruleset *rs,
			     const char *sandbox)
{
	struct wd_out_file f = WD_OUT_FILE_INIT;
	struct reach r = { .rs = rs, .what = "audit" };
	char path[PATH_MAX];
	struct stat sb;
	int dir = -1, err;

	err = check_run_dir(rs, &dir);
	if (err)
		return err;
	if (mkdirat(dir, "audit", 0700) && errno != EEXIST) {
		err = -errno;
		goto out;
	}
	if (fstatat(dir, "audit", &sb, AT_SYMLINK_NOFOLLOW)) {
		err = -errno;
		goto out;
	}
	if (!S_ISDIR(sb.st_mode) || sb.st_uid != geteuid() || (sb.st_mode & 022)) {
		log_warnx("audit: %s/audit must be a directory owned by uid %u that no one else may "
			  "write", wd_run_dir(), (unsigned int)geteuid());
		err = -EPERM;
		goto out;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/audit/%s.jsonl", wd_run_dir(), sandbox) >=
	    sizeof(path)) {
		err = -ENAMETOOLONG;
		goto out;
	}
	r.path = path;
	err = wd_out_append_open(&f, "audit", path, sandbox_cannot_change, &r);
	if (!err) {
		st->audit = fdopen(f.fd, "a+");
		if (st->audit)
			f.fd = -1;
		else
			err = -errno;
	}
	if (!err)
		fprintf(log_stream(), "warden: audit records of sandbox %s go to %s\n", sandbox, path);
	wd_out_close(&f);
out:
	if (err && err != -EPERM)
		log_warnx("audit: cannot make %s/audit/%s.jsonl: %s", wd_run_dir(), sandbox,
			  strerror(-err));
	close(dir);
	return err;
}

int wd_run_open_audit(FILE **out, const struct wd_ruleset *rs, const char *path)
{
	struct wd_out_file f = WD_OUT_FILE_INIT;
	struct reach r = { .rs = rs, .what = "audit", .path = path };
	int err = wd_out_append_open(&f, "audit", path, sandbox_cannot_change, &r);

	if (!err) {
		*out = fdopen(f.fd, "a+");
		if (!*out)
			*out = fdopen(f.fd, "a"); /* /dev/null */
		if (*out)
			f.fd = -1;
		else
			err = -errno;
	}
	wd_out_close(&f);
	return err;
}
