// SPDX-License-Identifier: GPL-2.0
/*
 * wd-privs: the privileged calls a sandboxed root must not make, one a run, for
 * tests/escape/t_privs.sh. Each is built so that outside a sandbox the kernel's permission check
 * passes and the call then fails harmlessly (or changes only what the test made itself): nothing
 * host-wide changes. Prints "ok", or the errno name (EPERM, EINVAL, ...) and exits 1; 2 for bad
 * usage.
 *
 *   wd-privs caps               print "inh prm eff bnd amb" of this process, in hex
 *   wd-privs caps-of PID        the same of process PID, from /proc/PID/status
 *   wd-privs nnp                print its no_new_privs bit (0 or 1)
 *   wd-privs swapon FILE        swapon a file that is no swap area (EINVAL after the check)
 *   wd-privs sethostname NAME   set the host name (run it in a uts namespace of the test's own)
 *   wd-privs adjtimex           a setting adjtimex with a tick out of range (EINVAL after the
 *                               check: the clock is untouched)
 *   wd-privs syslog-read        klogctl(SYSLOG_ACTION_READ_ALL) into a buffer
 *   wd-privs syslog-level       klogctl(SYSLOG_ACTION_CONSOLE_LEVEL, 0): level 0 is out of range
 *                               (EINVAL after the check)
 *   wd-privs fifo               SCHED_FIFO priority 1 on itself, then back to SCHED_OTHER
 *   wd-privs mtu IFACE MTU      SIOCSIFMTU on IFACE (in a network namespace of the test's own)
 *   wd-privs fanotify FILE      fanotify_init(FAN_CLASS_CONTENT) and an open-permission mark on
 *                               FILE; both closed at once
 *   wd-privs personality        add ADDR_NO_RANDOMIZE to its own personality, then take it away
 *   wd-privs mknod PATH         make a character device (1, 3) at PATH, then remove it
 *   wd-privs bind-low PORT      bind a TCP socket to 127.0.0.1:PORT (below 1024)
 *   wd-privs chown PATH UID     chown PATH to UID
 *   wd-privs nocaps PROG [ARG...]  empty the bounding set and execute PROG (as root: with no
 *                               capabilities at all)
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/timex.h>
#include <unistd.h>

static int answer(int r)
{
	const char *name;

	if (r == 0) {
		puts("ok");
		return 0;
	}
	name = strerrorname_np(errno);
	puts(name ? name : "EUNKNOWN");
	return 1;
}

static int caps(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { { 0 } };
	uint64_t bnd = 0, amb = 0;

	if (syscall(SYS_capget, &hdr, d))
		return answer(-1);
	for (int c = 0; c < 64; c++) {
		int b = prctl(PR_CAPBSET_READ, c, 0, 0, 0);

		if (b < 0)
			break;
		if (b)
			bnd |= 1ULL << c;
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, c, 0, 0) == 1)
			amb |= 1ULL << c;
	}
	printf("%llx %llx %llx %llx %llx\n",
	       (unsigned long long)(d[0].inheritable | (uint64_t)d[1].inheritable << 32),
	       (unsigned long long)(d[0].permitted | (uint64_t)d[1].permitted << 32),
	       (unsigned long long)(d[0].effective | (uint64_t)d[1].effective << 32),
	       (unsigned long long)bnd, (unsigned long long)amb);
	return 0;
}

static int caps_of(const char *pid)
{
	static const char *const keys[] = { "CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:" };
	unsigned long long v[5] = { 0 };
	char path[64], line[256];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	f = fopen(path, "re");
	if (!f)
		return answer(-1);
	while (fgets(line, sizeof(line), f)) {
		for (int i = 0; i < 5; i++) {
			if (strncmp(line, keys[i], strlen(keys[i])))
				continue;
			v[i] = strtoull(line + strlen(keys[i]), NULL, 16);
			found++;
		}
	}
	fclose(f);
	if (found != 5) {
		errno = ENODATA;
		return answer(-1);
	}
	printf("%llx %llx %llx %llx %llx\n", v[0], v[1], v[2], v[3], v[4]);
	return 0;
}

static int persona(void)
{
	int old = personality(0xffffffff);

	if (old < 0 || personality((unsigned long)old | ADDR_NO_RANDOMIZE) < 0)
		return answer(-1);
	return answer(personality((unsigned long)old) < 0 ? -1 : 0);
}

static int fifo(void)
{
	struct sched_param sp = { .sched_priority = 1 }, zero = { .sched_priority = 0 };

	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		return answer(-1);
	/* back at once: the test process itself was the only one changed */
	return answer(sched_setscheduler(0, SCHED_OTHER, &zero));
}

static int mtu(const char *iface, const char *value)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r;

	if (fd < 0)
		return answer(-1);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	ifr.ifr_mtu = atoi(value);
	r = ioctl(fd, SIOCSIFMTU, &ifr);
	return answer(r);
}

static int fanotify(const char *file)
{
	int fd = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY), r;

	if (fd < 0)
		return answer(-1);
	r = fanotify_mark(fd, FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD, file);
	close(fd);
	return answer(r);
}

static int mknod_dev(const char *path)
{
	if (mknod(path, S_IFCHR | 0600, makedev(1, 3)))
		return answer(-1);
	return answer(unlink(path));
}

static int bind_low(const char *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port)),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return answer(-1);
	return answer(bind(fd, (struct sockaddr *)&a, sizeof(a)));
}

static int nocaps(char **argv)
{
	for (int c = 0; c < 64; c++) {
		if (prctl(PR_CAPBSET_READ, c, 0, 0, 0) < 0)
			break;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0))
			return answer(-1);
	}
	execvp(argv[0], argv);
	return answer(-1);
}

int main(int argc, char **argv)
{
	char buf[4096];

	if (argc < 2)
		goto usage;
	if (!strcmp(argv[1], "caps"))
		return caps();
	if (!strcmp(argv[1], "caps-of") && argc == 3)
		return caps_of(argv[2]);
	if (!strcmp(argv[1], "nnp")) {
		int r = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);

		if (r < 0)
			return answer(-1);
		printf("%d\n", r);
		return 0;
	}
	if (!strcmp(argv[1], "personality"))
		return persona();
	if (!strcmp(argv[1], "swapon") && argc == 3)
		return answer(swapon(argv[2], 0));
	if (!strcmp(argv[1], "sethostname") && argc == 3)
		return answer(sethostname(argv[2], strlen(argv[2])));
	if (!strcmp(argv[1], "adjtimex")) {
		struct timex t = { .modes = ADJ_TICK, .tick = 0 };

		/* the syscall itself: glibc's adjtimex() is clock_adjtime(CLOCK_REALTIME) */
		return answer(syscall(SYS_adjtimex, &t) < 0 ? -1 : 0);
	}
	if (!strcmp(argv[1], "syslog-read"))
		return answer(klogctl(3, buf, sizeof(buf)) < 0 ? -1 : 0);
	if (!strcmp(argv[1], "syslog-level"))
		return answer(klogctl(8, NULL, 0) < 0 ? -1 : 0);
	if (!strcmp(argv[1], "fifo"))
		return fifo();
	if (!strcmp(argv[1], "mtu") && argc == 4)
		return mtu(argv[2], argv[3]);
	if (!strcmp(argv[1], "fanotify") && argc == 3)
		return fanotify(argv[2]);
	if (!strcmp(argv[1], "mknod") && argc == 3)
		return mknod_dev(argv[2]);
	if (!strcmp(argv[1], "bind-low") && argc == 3)
		return bind_low(argv[2]);
	if (!strcmp(argv[1], "chown") && argc == 4)
		return answer(chown(argv[2], (uid_t)atoi(argv[3]), (gid_t)-1));
	if (!strcmp(argv[1], "nocaps") && argc >= 3)
		return nocaps(argv + 2);
usage:
	fprintf(stderr, "usage: wd-privs caps|caps-of|nnp|personality|swapon|sethostname|"
			"adjtimex|syslog-read|syslog-level|fifo|mtu|fanotify|mknod|bind-low|chown|"
			"nocaps ...\n");
	return 2;
}
