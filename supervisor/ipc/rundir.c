// SPDX-License-Identifier: GPL-2.0
/*
 * ipc/: the run directory and the names of the sockets in it (rundir.h says why they are
 * written once).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "supervisor/ipc/rundir.h"
#include "supervisor/util/log.h"

static const struct {
	const char *prefix, *suffix;
} names[] = {
	[WD_SOCK_HOLDS] = { "run-", ".sock" },
	[WD_SOCK_KEEPER] = { "keep-", ".sock" },
	[WD_SOCK_DAEMON] = { "control.sock", "" },
};

const char *wd_run_dir(void)
{
	const char *d = getenv("WARDEN_RUN_DIR");

	return d && d[0] == '/' ? d : WD_RUN_DIR;
}

/*
 * The run directory holds the sockets the CLI finds by name: it must be a directory that only
 * root can write, or someone else could put a socket of their own where an approver looks. With
 * approvers it must also let them in (search and list, never write).
 */
int wd_run_dir_check(const char *dir, bool approvers)
{
	struct stat st;
	int err;

	if (mkdir(dir, approvers ? 0755 : 0700) && errno != EEXIST) {
		err = -errno;
		log_warn("ctl: cannot create %s", dir);
		return err;
	}
	if (lstat(dir, &st)) {
		err = -errno;
		log_warn("ctl: cannot look at %s", dir);
		return err;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		log_warnx("ctl: %s must be a directory owned by uid %u that no one else may write",
			  dir, (unsigned int)geteuid());
		return -EPERM;
	}
	if (approvers && (st.st_mode & 055) != 055) {
		if (chmod(dir, (st.st_mode & 07777) | 055)) {
			err = -errno;
			log_warn("ctl: cannot open %s to the approvers", dir);
			return err;
		}
		log_info("ctl: %s is now mode %04o, so the policy's approvers can reach its "
			 "sockets", dir, (unsigned int)((st.st_mode & 07777) | 055));
	}
	return 0;
}

int wd_run_dir_make(void)
{
	return mkdir(wd_run_dir(), 0700) && errno != EEXIST ? -errno : 0;
}

static bool sandbox_name_ok(const char *s)
{
	return s && s[0] && s[0] != '.' && !strchr(s, '/');
}

int wd_run_sock_path(char *buf, size_t size, enum wd_run_sock kind, const char *sandbox)
{
	int n;

	if (kind == WD_SOCK_DAEMON)
		sandbox = "";
	else if (!sandbox_name_ok(sandbox))
		return -EINVAL;
	n = snprintf(buf, size, "%s/%s%s%s", wd_run_dir(), names[kind].prefix, sandbox,
		     names[kind].suffix);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int wd_run_sock_glob(char *buf, size_t size, enum wd_run_sock kind)
{
	const char *star = kind == WD_SOCK_DAEMON ? "" : "*";
	int n = snprintf(buf, size, "%s/%s%s%s", wd_run_dir(), names[kind].prefix, star,
			 names[kind].suffix);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

bool wd_run_sock_sandbox(const char *entry, enum wd_run_sock kind, char *name, size_t size)
{
	size_t n = strlen(entry), lp, ls;

	if (kind == WD_SOCK_DAEMON)
		return false;
	lp = strlen(names[kind].prefix);
	ls = strlen(names[kind].suffix);
	if (n <= lp + ls || strncmp(entry, names[kind].prefix, lp) ||
	    strcmp(entry + n - ls, names[kind].suffix) || n - lp - ls >= size)
		return false;
	memcpy(name, entry + lp, n - lp - ls);
	name[n - lp - ls] = 0;
	return sandbox_name_ok(name);
}
