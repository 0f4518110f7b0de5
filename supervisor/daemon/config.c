// SPDX-License-Identifier: GPL-2.0
/*
 * daemon/: wardend's configuration file (config.h): a JSON object of survive, pool, spares,
 * backend, approver_group and on_stop. A key it does not know is refused naming it and the file, as the
 * policy parser refuses one: a misspelt "aprover_group" must not leave a daemon without its
 * approvers and nobody the wiser.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "supervisor/daemon/config.h"
#include "supervisor/sandbox/cgroup.h"

/* A configuration file is small: a larger one is a mistake, refused rather than half read. */
#define CONFIG_MAX 65536

void wd_daemon_config_defaults(struct wd_daemon_config *c)
{
	*c = (struct wd_daemon_config){
		.survive_s = 300,
		.pool = 4,
		.spares = 1,
		.backend = "auto",
		.approver_gid = (gid_t)-1,
		.on_stop = WD_ON_STOP_KEEP,
	};
}

const char *wd_on_stop_name(enum wd_on_stop s)
{
	return s == WD_ON_STOP_END ? "end" : "keep";
}

bool wd_daemon_backend_ok(const char *name)
{
	return !strcmp(name, "auto") || !strcmp(name, "bpf-lsm") || !strcmp(name, "landlock");
}

int wd_daemon_group_resolve(const char *name, gid_t *gid)
{
	struct group gr, *res = NULL;
	char buf[16384], *end;
	unsigned long n;

	if (!name[0] || strlen(name) >= 64 || strchr(name, ':') || strchr(name, '\n'))
		return -EINVAL;
	if (getgrnam_r(name, &gr, buf, sizeof(buf), &res) == 0 && res) {
		*gid = res->gr_gid;
		return 0;
	}
	/* a number names a group by its id, as chown(1) takes one */
	errno = 0;
	n = strtoul(name, &end, 10);
	if (!errno && !*end && name[0] != '-' && n < (gid_t)-1) {
		*gid = (gid_t)n;
		return 0;
	}
	return -ENOENT;
}

static int bad(char *msg, size_t size, const char *path, const char *what, const char *arg)
{
	char text[512];

	snprintf(text, sizeof(text), what, arg);
	snprintf(msg, size, "%s: %s", path, text);
	return -EINVAL;
}

static int parse_field(const char *path, const cJSON *k, struct wd_daemon_config *c, char *msg,
		       size_t size)
{
	const char *key = k->string;

	if (!strcmp(key, "survive")) {
		if (!cJSON_IsNumber(k) || k->valuedouble != (double)k->valueint || k->valueint < 1 ||
		    k->valueint > 86400)
			return bad(msg, size, path, "survive: wants 1 to 86400 seconds%s", "");
		c->survive_s = (unsigned int)k->valueint;
		c->set |= WD_CFG_SURVIVE;
	} else if (!strcmp(key, "pool")) {
		if (!cJSON_IsNumber(k) || k->valuedouble != (double)k->valueint || k->valueint < 0 ||
		    k->valueint > WD_CGROUP_POOL_MAX)
			return bad(msg, size, path, "pool: wants 0 to 8 cgroups%s", "");
		c->pool = k->valueint;
		c->set |= WD_CFG_POOL;
	} else if (!strcmp(key, "spares")) {
		if (!cJSON_IsNumber(k) || k->valuedouble != (double)k->valueint || k->valueint < 0 ||
		    k->valueint > WD_SPARES_MAX)
			return bad(msg, size, path, "spares: wants 0 to 4 runs made ahead%s", "");
		c->spares = k->valueint;
		c->set |= WD_CFG_SPARES;
	} else if (!strcmp(key, "backend")) {
		if (!cJSON_IsString(k) || !wd_daemon_backend_ok(k->valuestring))
			return bad(msg, size, path, "backend: wants auto, bpf-lsm or landlock%s", "");
		snprintf(c->backend, sizeof(c->backend), "%s", k->valuestring);
		c->set |= WD_CFG_BACKEND;
	} else if (!strcmp(key, "approver_group")) {
		if (cJSON_IsNull(k)) {
			c->approver_group[0] = 0;
			c->approver_gid = (gid_t)-1;
		} else if (!cJSON_IsString(k)) {
			return bad(msg, size, path, "approver_group: wants a group's name, or null%s",
				   "");
		} else if (wd_daemon_group_resolve(k->valuestring, &c->approver_gid)) {
			return bad(msg, size, path, "approver_group: no group \"%.64s\" here",
				   k->valuestring);
		} else if (c->approver_gid == 0) {
			/* root's group would let its members run sandboxes' approvals as root's */
			return bad(msg, size, path, "approver_group: not group 0 (root's own)%s", "");
		} else {
			snprintf(c->approver_group, sizeof(c->approver_group), "%s",
				 k->valuestring);
		}
		c->set |= WD_CFG_APPROVERS;
	} else if (!strcmp(key, "on_stop")) {
		if (!cJSON_IsString(k) ||
		    (strcmp(k->valuestring, "keep") && strcmp(k->valuestring, "end")))
			return bad(msg, size, path, "on_stop: wants \"keep\" or \"end\"%s", "");
		c->on_stop = strcmp(k->valuestring, "end") ? WD_ON_STOP_KEEP : WD_ON_STOP_END;
		c->set |= WD_CFG_ON_STOP;
	} else {
		return bad(msg, size, path,
			   "unknown key \"%.200s\" (expected survive, pool, spares, backend, "
			   "approver_group, on_stop)", key);
	}
	return 0;
}

int wd_daemon_config_parse(const char *path, const char *json, struct wd_daemon_config *c,
			   char *msg, size_t size)
{
	cJSON *root = cJSON_Parse(json);
	struct wd_daemon_config n = *c;
	const cJSON *k;
	int err = 0;

	n.set = 0;
	if (!cJSON_IsObject(root)) {
		err = bad(msg, size, path, "not a JSON object%s", "");
		goto out;
	}
	cJSON_ArrayForEach(k, root) {
		err = parse_field(path, k, &n, msg, size);
		if (err)
			goto out;
	}
	/* all or nothing: a bad file leaves @c as it was */
	*c = n;
out:
	cJSON_Delete(root);
	return err;
}

int wd_daemon_config_read(const char *path, bool may_be_missing, struct wd_daemon_config *c,
			  char *msg, size_t size)
{
	char *buf = NULL;
	ssize_t n = 0, got = 0;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		if (err == -ENOENT && may_be_missing)
			return err;
		snprintf(msg, size, "%s: %s", path, strerror(-err));
		return err;
	}
	buf = malloc(CONFIG_MAX + 1);
	if (!buf) {
		err = -ENOMEM;
		snprintf(msg, size, "%s: %s", path, strerror(ENOMEM));
		goto out;
	}
	while (n <= CONFIG_MAX && (got = read(fd, buf + n, CONFIG_MAX + 1 - (size_t)n)) > 0)
		n += got;
	if (got < 0) {
		err = -errno;
		snprintf(msg, size, "%s: %s", path, strerror(-err));
		goto out;
	}
	if (n > CONFIG_MAX) {
		err = bad(msg, size, path, "larger than 64 KiB%s", "");
		goto out;
	}
	buf[n] = 0;
	err = wd_daemon_config_parse(path, buf, c, msg, size);
out:
	free(buf);
	close(fd);
	return err;
}

void wd_daemon_config_overlay(struct wd_daemon_config *c, const struct wd_daemon_config *over)
{
	if (over->set & WD_CFG_SURVIVE)
		c->survive_s = over->survive_s;
	if (over->set & WD_CFG_POOL)
		c->pool = over->pool;
	if (over->set & WD_CFG_SPARES)
		c->spares = over->spares;
	if (over->set & WD_CFG_BACKEND)
		memcpy(c->backend, over->backend, sizeof(c->backend));
	if (over->set & WD_CFG_APPROVERS) {
		memcpy(c->approver_group, over->approver_group, sizeof(c->approver_group));
		c->approver_gid = over->approver_gid;
	}
	if (over->set & WD_CFG_ON_STOP)
		c->on_stop = over->on_stop;
	c->set |= over->set;
}
