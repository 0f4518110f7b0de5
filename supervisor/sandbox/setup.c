// SPDX-License-Identifier: GPL-2.0
/*
 * Process set-up from the policy (supervisor/sandbox/setup.h): prepared in the parent, applied
 * by the child with system calls only.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <grp.h>
#include <limits.h>
#include <linux/mount.h>
#include <net/if.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "supervisor/util/log.h"
#include "supervisor/sandbox/setup.h"

extern char **environ;

/* ---- env ------------------------------------------------------------------------------------- */

/*
 * What every command gets, policy or not, as systemd gives a service: a fixed PATH (never the
 * caller's, which may name a directory the caller can write), the run user's HOME, USER and
 * LOGNAME, and from the caller only what says how to talk to a person: the terminal type, the
 * locale (the POSIX categories by name, not "LC_*": ssh and others carry arbitrary LC_ variables)
 * and the time zone. Everything else of warden's environment, secrets included, stays out unless
 * env.pass names it; env.set overrides all of it.
 */
#define WD_ENV_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

static const char *const env_from_caller[] = {
	"TERM", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_NUMERIC", "LC_TIME", "LC_COLLATE",
	"LC_MONETARY", "LC_MESSAGES", "LC_PAPER", "LC_NAME", "LC_ADDRESS", "LC_TELEPHONE",
	"LC_MEASUREMENT", "LC_IDENTIFICATION", "TZ",
};

static bool env_passes(const struct wd_ruleset *rs, const char *kv)
{
	char name[256];
	size_t n = strcspn(kv, "=");

	if (!kv[n] || n >= sizeof(name))
		return false;
	memcpy(name, kv, n);
	name[n] = 0;
	for (size_t i = 0; i < sizeof(env_from_caller) / sizeof(env_from_caller[0]); i++)
		if (strcmp(env_from_caller[i], name) == 0)
			return true;
	for (size_t i = 0; i < rs->n_env_pass; i++)
		if (fnmatch(rs->env_pass[i], name, 0) == 0)
			return true;
	return false;
}

static bool same_name(const char *a, const char *b)
{
	size_t n = strcspn(a, "=");

	return strncmp(a, b, n) == 0 && b[n] == '=';
}

/* Set NAME=value (@kv, or @name and @value joined) in the command's environment, over any. */
static int env_put(struct wd_setup *s, const char *kv, const char *name, const char *value)
{
	char *v;
	size_t j;

	if (kv) {
		v = strdup(kv);
	} else if (asprintf(&v, "%s=%s", name, value) < 0) {
		v = NULL;
	}
	if (!v)
		return -ENOMEM;
	for (j = 0; j < s->n_env && !same_name(v, s->envp[j]); j++)
		;
	if (j < s->n_env)
		free(s->envp[j]);
	else
		s->n_env++;
	s->envp[j] = v;
	return 0;
}

/*
 * The fixed base (PATH, and the run user's HOME, USER, LOGNAME: the policy's user, else the one
 * warden runs as), then what passes from warden's environment (the base list above and env.pass),
 * then env.set over them.
 */
static int build_env(struct wd_setup *s, const struct wd_ruleset *rs)
{
	size_t cap = rs->n_env_set + 5;
	struct passwd *pw;
	int err;

	for (char **e = environ; e && *e; e++)
		cap++;
	s->envp = calloc(cap, sizeof(char *));
	if (!s->envp)
		return -ENOMEM;
	err = env_put(s, NULL, "PATH", WD_ENV_PATH);
	pw = getpwuid(s->drop_user ? s->uid : getuid());
	if (!err)
		err = env_put(s, NULL, "HOME", pw && pw->pw_dir[0] ? pw->pw_dir : "/");
	if (!err && pw)
		err = env_put(s, NULL, "USER", pw->pw_name);
	if (!err && pw)
		err = env_put(s, NULL, "LOGNAME", pw->pw_name);
	for (char **e = environ; !err && e && *e; e++)
		if (env_passes(rs, *e))
			err = env_put(s, *e, NULL, NULL);
	for (size_t i = 0; !err && i < rs->n_env_set; i++)
		err = env_put(s, rs->env_set[i], NULL, NULL);
	return err;
}

/* ---- user ------------------------------------------------------------------------------------ */

static bool numeric_id(const char *s, unsigned long *id)
{
	char *end;

	if (!*s || strspn(s, "0123456789") != strlen(s))
		return false;
	errno = 0;
	*id = strtoul(s, &end, 10);
	return !errno && *id < UINT32_MAX;
}

/* "name", "uid", "name:group", "uid:gid", looked up here, before anything is spawned. */
static int resolve_user(struct wd_setup *s, const struct wd_ruleset *rs, char *why, size_t whysz)
{
	struct passwd *pw;
	unsigned long id;
	int n = 0;

	errno = 0;
	if (numeric_id(rs->user, &id))
		pw = getpwuid((uid_t)id);
	else
		pw = getpwnam(rs->user);
	if (!pw && !numeric_id(rs->user, &id)) {
		snprintf(why, whysz, "/user: no user \"%s\" on this host%s%s", rs->user,
			 errno ? ": " : "", errno ? strerror(errno) : "");
		return -EINVAL;
	}
	s->uid = pw ? pw->pw_uid : (uid_t)id;
	if (rs->group) {
		struct group *gr;

		errno = 0;
		gr = numeric_id(rs->group, &id) ? NULL : getgrnam(rs->group);
		if (!gr && !numeric_id(rs->group, &id)) {
			snprintf(why, whysz, "/user: no group \"%s\" on this host", rs->group);
			return -EINVAL;
		}
		s->gid = gr ? gr->gr_gid : (gid_t)id;
		/* A group named in the policy is the only one. */
		s->groups = malloc(sizeof(gid_t));
		if (!s->groups)
			return -ENOMEM;
		s->groups[0] = s->gid;
		s->n_groups = 1;
		s->drop_user = true;
		return 0;
	}
	if (!pw) {
		snprintf(why, whysz,
			 "/user: uid %s has no entry in the user database, so its group "
			 "is unknown: name it (\"%s:GID\")",
			 rs->user, rs->user);
		return -EINVAL;
	}
	s->gid = pw->pw_gid;
	/* The user's own groups, as a login would have them. */
	getgrouplist(pw->pw_name, s->gid, NULL, &n);
	if (n < 1)
		n = 1;
	s->groups = calloc((size_t)n, sizeof(gid_t));
	if (!s->groups)
		return -ENOMEM;
	if (getgrouplist(pw->pw_name, s->gid, s->groups, &n) < 0)
		return -EIO;
	s->n_groups = (size_t)n;
	s->drop_user = true;
	return 0;
}

/* ---- net ------------------------------------------------------------------------------------- */

/* Bring loopback up in the network namespace warden is in. */
static int loopback_up(void)
{
	struct rtnl_link *lo = NULL, *change = NULL;
	struct nl_sock *sk = nl_socket_alloc();
	int err = -ENOMEM, r;

	if (!sk)
		goto out;
	r = nl_connect(sk, NETLINK_ROUTE);
	if (!r)
		r = rtnl_link_get_kernel(sk, 0, "lo", &lo);
	change = r ? NULL : rtnl_link_alloc();
	if (!r && change) {
		rtnl_link_set_flags(change, IFF_UP);
		r = rtnl_link_change(sk, lo, change, 0);
	}
	if (r) {
		log_warnx("setup: cannot bring loopback up: %s", nl_geterror(r));
		err = -EIO;
	} else if (change) {
		err = 0;
	}
out:
	rtnl_link_put(change);
	rtnl_link_put(lo);
	nl_socket_free(sk);
	return err;
}

/*
 * A new network namespace with loopback up, made by warden itself (unshare, then back) so that
 * netlink runs here in the parent; the child only joins it. Its fd keeps it alive until then.
 */
static int make_netns(int *out)
{
	int host, err = 0;

	host = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (host < 0)
		return -errno;
	if (unshare(CLONE_NEWNET)) {
		err = -errno;
		log_warn("setup: cannot make a network namespace");
		goto out_close;
	}
	*out = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (*out < 0)
		err = -errno;
	if (!err)
		err = loopback_up();
	/* warden itself must not stay in it: nothing would reach it any more */
	if (setns(host, CLONE_NEWNET))
		fatal("setup: cannot return to the host's network namespace");
out_close:
	close(host);
	return err;
}

/* ---- prepare --------------------------------------------------------------------------------- */

int wd_setup_prepare(struct wd_setup *s, const struct wd_ruleset *rs, char *why, size_t whysz)
{
	static const int flags[] = {
		[WD_NS_MOUNT] = CLONE_NEWNS,
		[WD_NS_PID] = CLONE_NEWPID,
		[WD_NS_IPC] = CLONE_NEWIPC,
		[WD_NS_UTS] = CLONE_NEWUTS,
	};
	int err;

	memset(s, 0, sizeof(*s));
	s->netns_fd = -1;
	snprintf(why, whysz, "out of memory");
	snprintf(s->hostname, sizeof(s->hostname), "warden");
	if (rs->user) {
		err = resolve_user(s, rs, why, whysz);
		if (err)
			return err;
	}
	/* a user other than root keeps what the policy names only as ambient capabilities */
	s->caps.keep = rs->caps;
	s->caps.ambient = s->drop_user && s->uid != 0;
	/* After the user: HOME and USER are the run user's. */
	err = build_env(s, rs);
	if (err)
		return err;
	for (int i = WD_NS_MOUNT; i <= WD_NS_UTS; i++)
		if (rs->ns[i] == WD_NS_PRIVATE)
			s->clone_flags |= (uint64_t)flags[i];
	/* its own /proc is mounted in a mount namespace of its own, never over the host's */
	if (s->clone_flags & CLONE_NEWPID)
		s->clone_flags |= CLONE_NEWNS;
	s->tmp = rs->ns[WD_NS_TMP] == WD_NS_PRIVATE;
	/* limits.disk: the tmpfs's size, and an inode for each KiB of it (at least 1024) */
	if (rs->limits_set & (1u << WD_LIMIT_DISK))
		snprintf(s->tmp_opts, sizeof(s->tmp_opts), "mode=1777,size=%llu,nr_inodes=%llu",
			 (unsigned long long)rs->limit[WD_LIMIT_DISK],
			 (unsigned long long)wd_disk_inodes(rs->limit[WD_LIMIT_DISK]));
	else
		snprintf(s->tmp_opts, sizeof(s->tmp_opts), "mode=1777");
	s->bind_ro = rs->bind_ro;
	s->n_bind_ro = rs->n_bind_ro;
	for (size_t i = 0; i < rs->n_bind_ro; i++) {
		struct stat st;

		if (stat(rs->bind_ro[i], &st)) {
			snprintf(why, whysz, "/namespaces/bind_ro/%zu: cannot bind %s: %s", i,
				 rs->bind_ro[i], strerror(errno));
			return -EINVAL;
		}
	}
	if (rs->ns[WD_NS_NET] == WD_NS_NONE || rs->ns[WD_NS_NET] == WD_NS_VETH) {
		err = make_netns(&s->netns_fd);
		if (err) {
			snprintf(why, whysz,
				 "/namespaces/net: cannot make a network namespace with "
				 "loopback: %s",
				 strerror(-err));
			return err;
		}
	}
	if (rs->ns[WD_NS_NET] == WD_NS_VETH) {
		/* the supervisor's pid: unique among the supervisors running now */
		err = wd_veth_make(&s->veth, s->netns_fd, (uint32_t)getpid());
		if (err) {
			snprintf(why, whysz, "/namespaces/net: cannot make the veth pair: %s",
				 strerror(-err));
			return err;
		}
	}
	why[0] = 0;
	return 0;
}

void wd_setup_name(struct wd_setup *s, const char *sandbox)
{
	snprintf(s->hostname, sizeof(s->hostname), "%s", sandbox);
}

void wd_setup_release(struct wd_setup *s)
{
	for (size_t i = 0; s->envp && i < s->n_env; i++)
		free(s->envp[i]);
	free(s->envp);
	free(s->groups);
	wd_veth_remove(&s->veth);
	if (s->netns_fd >= 0)
		close(s->netns_fd);
	memset(s, 0, sizeof(*s));
	s->netns_fd = -1;
}

/* ---- in the child: system calls only --------------------------------------------------------- */

int wd_mount_attr(const char *path, uint64_t set, uint64_t clr)
{
	struct mount_attr attr = { .attr_set = set, .attr_clr = clr };

	if (mount(path, path, NULL, MS_BIND | MS_REC, NULL))
		return -errno;
	if (syscall(SYS_mount_setattr, AT_FDCWD, path, AT_RECURSIVE, &attr, sizeof(attr)))
		return -errno;
	return 0;
}

int wd_setup_child_ns(const struct wd_setup *s, uint64_t clone_flags)
{
	int err;

	if (clone_flags & CLONE_NEWNS) {
		/* Nothing mounted here propagates back to the host. */
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			return -errno;
		for (size_t i = 0; s && i < s->n_bind_ro; i++) {
			err = wd_mount_attr(s->bind_ro[i], MOUNT_ATTR_RDONLY, 0);
			if (err)
				return err;
		}
		/* After the binds: a private /tmp covers whatever was bound under it. */
		if (s && s->tmp &&
		    mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, s->tmp_opts))
			return -errno;
	}
	/* The sandbox's own pid namespace gets its own /proc: host processes are not in it. */
	if ((clone_flags & CLONE_NEWPID) &&
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		return -errno;
	if (s && (clone_flags & CLONE_NEWUTS) && sethostname(s->hostname, strlen(s->hostname)))
		return -errno;
	if (s && s->netns_fd >= 0 && setns(s->netns_fd, CLONE_NEWNET))
		return -errno;
	return 0;
}

int wd_setup_child_user(const struct wd_setup *s)
{
	static char *empty_env[] = { NULL };
	uid_t ruid, euid, suid;
	gid_t rgid, egid, sgid;

	if (!s)
		return 0;
	if (s->drop_user) {
		/* Raw system calls: this thread alone, none of libc's cross-thread signalling. */
		if (syscall(SYS_setgroups, s->n_groups, s->groups) ||
		    syscall(SYS_setresgid, s->gid, s->gid, s->gid) ||
		    syscall(SYS_setresuid, s->uid, s->uid, s->uid))
			return -errno;
		if (syscall(SYS_getresuid, &ruid, &euid, &suid) ||
		    syscall(SYS_getresgid, &rgid, &egid, &sgid))
			return -errno;
		if (ruid != s->uid || euid != s->uid || suid != s->uid || rgid != s->gid ||
		    egid != s->gid || sgid != s->gid)
			return -EPERM;
		/* Dropped for good: with root gone, so is the way back. */
		if (s->uid != 0 && syscall(SYS_setresuid, 0, 0, 0) != -1)
			return -EPERM;
	}
	/* Never warden's own: an empty one if none was built. */
	environ = s->envp ? s->envp : empty_env;
	return 0;
}
