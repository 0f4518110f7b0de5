// SPDX-License-Identifier: GPL-2.0
/*
 * Who a held task is (supervisor/hold/): its name, program and command line for the operator,
 * and its file-system credentials, with which an approved operation is performed. Read from
 * /proc once the call is matched; best effort except for the credentials, which must be known.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "supervisor/hold/engine_internal.h"
#include "supervisor/hold/task.h"

#define WD_ARGV_MAX 4096 /* bytes of a process's command line shown to the operator */

/* The process's arguments from /proc, joined by spaces (best effort). */
static char *read_cmdline(uint32_t pid)
{
	char path[64], buf[WD_ARGV_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	for (ssize_t i = 0; i < n - 1; i++)
		if (!buf[i])
			buf[i] = ' ';
	buf[n] = 0;
	return strdup(buf);
}

/*
 * The held thread's file-system uid and gid and its groups, from /proc/TID/status. They cannot
 * change while it is held (the wait is killable only: no handler runs in it).
 */
static void read_creds(struct hold *h)
{
	char path[64], line[1024];
	bool uid = false, gid = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", h->pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned int r, eff, sv, fs;

		if (sscanf(line, "Uid: %u %u %u %u", &r, &eff, &sv, &fs) == 4) {
			h->fsuid = fs;
			uid = true;
		} else if (sscanf(line, "Gid: %u %u %u %u", &r, &eff, &sv, &fs) == 4) {
			h->fsgid = fs;
			gid = true;
		} else if (strncmp(line, "Groups:", 7) == 0) {
			char *p = line + 7, *end;

			h->n_groups = 0;
			for (;;) {
				unsigned long g = strtoul(p, &end, 10);

				if (end == p)
					break;
				if (h->n_groups == WD_HOLD_GROUPS_MAX) {
					fclose(f);
					return; /* more groups than we keep: unknown, so refused */
				}
				h->groups[h->n_groups++] = (gid_t)g;
				p = end;
			}
		}
	}
	fclose(f);
	h->creds_known = uid && gid;
}

void hold_fill_task(struct hold *h)
{
	char path[64], buf[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/comm", h->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, h->comm, sizeof(h->comm) - 1);
		if (n > 0 && h->comm[n - 1] == '\n')
			n--;
		h->comm[n > 0 ? n : 0] = 0;
		close(fd);
	}
	snprintf(path, sizeof(path), "/proc/%u/exe", h->pid);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = 0;
		h->exe = strdup(buf);
	}
	h->cmdline = read_cmdline(h->pid);
	read_creds(h);
}
