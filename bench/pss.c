// SPDX-License-Identifier: GPL-2.0
/*
 * pss: what processes cost in memory, for bench/rows/pss.sh. PSS (each shared page divided
 * among the processes that map it) from /proc/PID/smaps_rollup, summed over a process tree,
 * and a one-line client of wardend's control socket to start the sandboxes measured.
 *
 *   pss tree [-v] [-x COMM]... PID...  PID and every descendant, except the processes named
 *                                      COMM and what they started: "PSS_KB RSS_KB NPROCS";
 *                                      -v: one line per process on stderr
 *   pss wait N COMM PID                until N processes named COMM are descendants of PID
 *                                      and asleep (bounded: 120 s), then "ok"
 *   pss ctl SOCK LINE                  send the request LINE, print the reply line
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROCS 65536

struct proc {
	int pid, ppid;
	char state;
	char comm[17];
};

static struct proc procs[MAX_PROCS];
static int n_procs;

/* Every process now: pid, parent, state, name (from /proc/PID/stat). */
static void scan(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	n_procs = 0;
	while (d && (e = readdir(d)) && n_procs < MAX_PROCS) {
		char path[300], buf[512], *lp, *rp;
		struct proc *p = &procs[n_procs];
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (!fgets(buf, sizeof(buf), f)) {
			fclose(f);
			continue;
		}
		fclose(f);
		/* "pid (comm) state ppid": comm may hold spaces and parentheses */
		lp = strchr(buf, '(');
		rp = strrchr(buf, ')');
		if (!lp || !rp || rp < lp || rp - lp - 1 > 16)
			continue;
		p->pid = atoi(buf);
		memcpy(p->comm, lp + 1, (size_t)(rp - lp - 1));
		p->comm[rp - lp - 1] = 0;
		if (sscanf(rp + 1, " %c %d", &p->state, &p->ppid) != 2)
			continue;
		n_procs++;
	}
	if (d)
		closedir(d);
}

static int excluded(const struct proc *p, char **names, int n_names)
{
	for (int i = 0; i < n_names; i++)
		if (strcmp(p->comm, names[i]) == 0)
			return 1;
	return 0;
}

/* Mark @pid's descendants (not through excluded processes) in @in; @pid itself too. */
static void mark(int pid, char *in, char **names, int n_names)
{
	int changed = 1;

	for (int i = 0; i < n_procs; i++)
		in[i] = procs[i].pid == pid && !excluded(&procs[i], names, n_names);
	while (changed) {
		changed = 0;
		for (int i = 0; i < n_procs; i++) {
			if (in[i] || excluded(&procs[i], names, n_names))
				continue;
			for (int j = 0; j < n_procs; j++)
				if (in[j] && procs[j].pid == procs[i].ppid) {
					in[i] = 1;
					changed = 1;
					break;
				}
		}
	}
}

/* Pss and Rss of @pid in kB; -1 when it is gone. */
static int rollup(int pid, long *pss, long *rss)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	*pss = *rss = 0;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "Pss: %ld kB", pss);
		sscanf(line, "Rss: %ld kB", rss);
	}
	fclose(f);
	return 0;
}

static int cmd_tree(int argc, char **argv)
{
	char *names[64], *in = calloc(MAX_PROCS, 1);
	int n_names = 0, verbose = 0, n = 0, i;
	long pss = 0, rss = 0;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "-v") == 0)
			verbose = 1;
		else if (strcmp(argv[i], "-x") == 0 && i + 1 < argc && n_names < 64)
			names[n_names++] = argv[++i];
		else
			break;
	}
	if (!in || i == argc)
		return 2;
	scan();
	for (; i < argc; i++) {
		mark(atoi(argv[i]), in, names, n_names);
		for (int j = 0; j < n_procs; j++) {
			long p, r;

			if (!in[j] || rollup(procs[j].pid, &p, &r))
				continue;
			if (verbose)
				fprintf(stderr, "pss: %d %s: pss %ld kB, rss %ld kB\n", procs[j].pid,
					procs[j].comm, p, r);
			pss += p;
			rss += r;
			n++;
		}
	}
	printf("%ld %ld %d\n", pss, rss, n);
	free(in);
	return 0;
}

static int cmd_wait(int want, const char *comm, int pid)
{
	char *in = calloc(MAX_PROCS, 1);
	struct timespec tick = { .tv_nsec = 20 * 1000 * 1000 };
	int rc = 1;

	for (int round = 0; in && round < 6000 && rc; round++) {
		int n = 0;

		scan();
		mark(pid, in, NULL, 0);
		for (int j = 0; j < n_procs; j++)
			n += in[j] && procs[j].state == 'S' && strcmp(procs[j].comm, comm) == 0;
		if (n >= want)
			rc = 0;
		else
			nanosleep(&tick, NULL);
	}
	free(in);
	puts(rc ? "timeout" : "ok");
	return rc;
}

static int cmd_ctl(const char *path, const char *line)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char reply[65536];
	size_t len = 0;
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), rc = 1;
	ssize_t n;

	if (s < 0 || strlen(path) >= sizeof(sa.sun_path))
		return 1;
	strcpy(sa.sun_path, path);
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) || write(s, line, strlen(line)) < 0 ||
	    write(s, "\n", 1) != 1) {
		perror("pss: ctl");
		close(s);
		return 1;
	}
	while (len < sizeof(reply) - 1 && (n = read(s, reply + len, sizeof(reply) - 1 - len)) > 0) {
		len += (size_t)n;
		if (memchr(reply, '\n', len)) {
			rc = 0;
			break;
		}
	}
	reply[len] = 0;
	fputs(reply, stdout);
	close(s);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "tree") == 0)
		return cmd_tree(argc - 2, argv + 2);
	if (argc == 5 && strcmp(argv[1], "wait") == 0)
		return cmd_wait(atoi(argv[2]), argv[3], atoi(argv[4]));
	if (argc == 4 && strcmp(argv[1], "ctl") == 0)
		return cmd_ctl(argv[2], argv[3]);
	fprintf(stderr, "usage: pss tree [-v] [-x COMM]... PID... | wait N COMM PID | ctl SOCK LINE\n");
	return 2;
}
