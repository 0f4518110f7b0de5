// SPDX-License-Identifier: GPL-2.0
/*
 * wd-try: one operation, one answer, for the integration tests. Prints "ok" and exits 0, or
 * prints the errno name (EPERM, ENOENT, ...) and exits 1; 2 for bad usage.
 *
 *   wd-try read PATH          open O_RDONLY and read a byte
 *   wd-try write PATH         open O_WRONLY|O_CREAT and write a byte
 *   wd-try exec PATH [ARG..]  execv PATH (prints nothing itself on success)
 *   wd-try fexec at|proc|link PATH ARGV0 [ARG..]  open PATH and execute the open file, by
 *                             execveat(fd, "", AT_EMPTY_PATH), by execv("/proc/self/fd/N"), or
 *                             through a symlink ./wd-fexec-link made to point there
 *   wd-try openat2 PATH trunc|read [in-root]  openat2 PATH (O_WRONLY|O_TRUNC, or O_RDONLY),
 *                             with RESOLVE_IN_ROOT from "/" if asked; "ok" or the errno
 *   wd-try gate READY GO      write "ready" into fifo READY, then wait for EOF on fifo GO
 *   wd-try exit N             exit with status N
 *   wd-try kill-self SIG      send itself signal SIG
 *   wd-try fork-locker FILE   fork a child that takes an exclusive lock on FILE and waits
 *                             forever; print "locked" once it holds it, exit 0
 *   wd-try trylock FILE       take the lock on FILE without waiting ("ok" or EWOULDBLOCK)
 *   wd-try memfd-exec SRC ARGV0 [ARG...]  copy SRC into a memfd and execute it (fexecve)
 *   wd-try bpf                create a BPF array map (bpf(2) works or not)
 *   wd-try pin-delete PIN KEY  bpf(BPF_OBJ_GET) the pinned map PIN and delete its entry of the
 *                             64-bit KEY (a sandbox's cgroup id); "ok" or the first errno
 *   wd-try flood N PATH       open PATH for reading N times; print how many failed
 *   wd-try wait-line FILE TEXT [PID]  wait (inotify, no polling) until a line of FILE holds
 *                             TEXT and print it; fail with ESRCH if process PID ends first
 *                             (FILE is made, empty, if it is not there yet)
 *   wd-try wait-exit PID      wait (pidfd, no polling) until process PID has ended; "gone"
 *   wd-try ids                print "UID GID GROUP,GROUP..." (real ids, supplementary groups)
 *   wd-try env                print the environment, one variable a line
 *   wd-try hostname           print the host name (uname)
 *   wd-try ifaces             print each network interface as "NAME up" or "NAME down"
 *   wd-try addrs              print each IPv4 and IPv6 address as "NAME ADDR/PREFIX"; then
 *                             the default routes' gateways as "via ADDR" (/proc/net/route)
 *                             and "via6 ADDR" (/proc/net/ipv6_route)
 *   wd-try connect ADDR PORT  TCP connect to an IPv4 address
 *   wd-try listen ADDR PORT   listen there (PORT 0: any), print "listening PORT", accept and
 *                             close until killed
 *   wd-try shm KEY create|find|remove  a System V shared memory segment by key
 *   wd-try unlink-signalled PATH  catch SIGINT and SIGTERM, unlink PATH and print the result,
 *                             then "caught SIGINT" / "caught SIGTERM" for each signal caught
 *   wd-try swap-unlink PATH LINK TARGET FILE TEXT  unlink PATH in one thread while a second
 *                             waits for TEXT in FILE, then atomically points symlink LINK at
 *                             TARGET and prints "swapped"; prints the unlink's result last
 *   wd-try unlinks PATH...    unlink each PATH in turn, printing "ok" or the errno for each
 *   wd-try replace-dir DIR rmdir|rename TARGET NAME  in one process, quickly: make and
 *                             unlink DIR/seed, take DIR away (rmdir, or rename to DIR.old),
 *                             make DIR a symlink to TARGET, and print unlink(DIR/NAME)'s result
 *   wd-try ctl SOCKET LINE [N]  send LINE to a unix stream socket, print the first N reply lines (1);
 *                               N until=TEXT: every line up to the first holding TEXT (or an
 *                               error reply, "ok":false)
 *                             as they come
 *   wd-try as UID GID GROUPS PROG [ARG...]  drop to UID and GID with the supplementary GROUPS
 *                             (comma-separated, or "-" for none) and execute PROG (busybox has
 *                             no setpriv --reuid)
 *   wd-try notify-recv SOCK OUT [CONNECT]  a service manager's end of sd_notify: bind a
 *                             datagram socket at SOCK (a path, or @abstract), write "bound" to
 *                             OUT, then each datagram's lines to OUT; on READY=1, first try to
 *                             connect to the unix stream socket CONNECT and write "connect ok"
 *                             or "connect failed: ERRNO"; end after STOPPING=1
 */
#include <errno.h>
#include <limits.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/file.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <arpa/inet.h>
#include <grp.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int fail(void)
{
	const char *name = strerrorname_np(errno);

	printf("%s\n", name ? name : "EUNKNOWN");
	return 1;
}

static int try_read(const char *path)
{
	char c;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return fail();
	if (read(fd, &c, 1) < 0 && errno != EISDIR) {
		close(fd);
		return fail();
	}
	close(fd);
	puts("ok");
	return 0;
}

static int try_write(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		return fail();
	if (write(fd, "x", 1) != 1) {
		close(fd);
		return fail();
	}
	close(fd);
	puts("ok");
	return 0;
}

static int gate(const char *ready, const char *go)
{
	char buf[64];
	int fd;

	fd = open(ready, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "ready\n", 6) != 6)
		return fail();
	close(fd);
	fd = open(go, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail();
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	puts("ok");
	return 0;
}

static int fork_locker(const char *file)
{
	int p[2], fd;
	char c;
	pid_t pid;

	if (pipe(p))
		return fail();
	pid = fork();
	if (pid < 0)
		return fail();
	if (pid == 0) {
		close(p[0]);
		fd = open(file, O_RDWR | O_CREAT, 0644);
		if (fd < 0 || flock(fd, LOCK_EX))
			_exit(1);
		if (write(p[1], "l", 1) != 1)
			_exit(1);
		close(p[1]);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1) {
		errno = ECHILD;
		return fail();
	}
	puts("locked");
	return 0;
}

static int trylock(const char *file)
{
	int fd = open(file, O_RDWR | O_CLOEXEC);

	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB))
		return fail();
	puts("ok");
	return 0;
}

static int open2(const char *path, const char *how, const char *scope)
{
	struct open_how oh = { .flags = O_CLOEXEC };
	int dirfd = AT_FDCWD, fd;

	oh.flags |= strcmp(how, "trunc") == 0 ? O_WRONLY | O_TRUNC : O_RDONLY;
	if (scope && strcmp(scope, "in-root") == 0) {
		dirfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		oh.resolve = RESOLVE_IN_ROOT;
	}
	fd = (int)syscall(SYS_openat2, dirfd, path, &oh, sizeof(oh));
	if (fd < 0)
		return fail();
	close(fd);
	puts("ok");
	return 0;
}

static int fexec(const char *how, char **argv)
{
	extern char **environ;
	char self[64];
	int fd = open(argv[0], O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return fail();
	if (strcmp(how, "at") == 0) {
		syscall(SYS_execveat, fd, "", argv + 1, environ, AT_EMPTY_PATH);
		return fail();
	}
	/* not close-on-exec: the kernel reads the file through this fd after the exec began */
	fd = dup(fd);
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	if (strcmp(how, "link") == 0) {
		if (symlink(self, "wd-fexec-link"))
			return fail();
		execv("wd-fexec-link", argv + 1);
		return fail();
	}
	execv(self, argv + 1);
	return fail();
}

static int memfd_exec(char **argv)
{
	struct stat st;
	int src, mfd;

	src = open(argv[0], O_RDONLY | O_CLOEXEC);
	if (src < 0 || fstat(src, &st))
		return fail();
	mfd = memfd_create("wd-try", MFD_CLOEXEC);
	if (mfd < 0)
		return fail();
	if (sendfile(mfd, src, NULL, (size_t)st.st_size) != st.st_size)
		return fail();
	fexecve(mfd, argv + 1, (char *[]){ NULL });
	return fail();
}

static int try_bpf(void)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	fd = (int)syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));
	if (fd < 0)
		return fail();
	close(fd);
	puts("ok");
	return 0;
}

static int pin_delete(const char *pin, const char *key)
{
	union bpf_attr attr;
	__u64 k = strtoull(key, NULL, 10);
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.pathname = (__u64)(unsigned long)pin;
	fd = (int)syscall(SYS_bpf, BPF_OBJ_GET, &attr, sizeof(attr));
	if (fd < 0)
		return fail();
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (__u32)fd;
	attr.key = (__u64)(unsigned long)&k;
	if (syscall(SYS_bpf, BPF_MAP_DELETE_ELEM, &attr, sizeof(attr))) {
		close(fd);
		return fail();
	}
	close(fd);
	puts("ok");
	return 0;
}

static int flood(long n, const char *path)
{
	long failed = 0;

	for (long i = 0; i < n; i++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			failed++;
		else
			close(fd);
	}
	printf("%ld\n", failed);
	return 0;
}

/* The first line of @path holding @text, into @line; false when there is none yet. */
static bool find_line(const char *path, const char *text, char *line, size_t sz)
{
	FILE *f = fopen(path, "r");
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, (int)sz, f))
		found = strstr(line, text) != NULL;
	fclose(f);
	return found;
}

static int wait_line(const char *path, const char *text, pid_t pid)
{
	static char line[65536];
	char ev[4096];
	int in = inotify_init1(IN_CLOEXEC);
	int pidfd = pid > 0 ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;

	if (in < 0 || (pid > 0 && pidfd < 0))
		return fail();
	/*
	 * watch first, then look: a line written in between is not missed. A file not there yet
	 * is made (empty, never truncated): its writer, started in the background just before,
	 * may not have opened it yet, and opens it with O_TRUNC over nothing written.
	 */
	if (inotify_add_watch(in, path, IN_MODIFY | IN_CLOSE_WRITE) < 0) {
		int fd = errno == ENOENT ? open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644) : -1;

		if (fd < 0)
			return fail();
		close(fd);
		if (inotify_add_watch(in, path, IN_MODIFY | IN_CLOSE_WRITE) < 0)
			return fail();
	}
	while (!find_line(path, text, line, sizeof(line))) {
		struct pollfd pfd[2] = { { .fd = in, .events = POLLIN },
					 { .fd = pidfd, .events = POLLIN } };

		if (poll(pfd, pidfd >= 0 ? 2 : 1, -1) < 0)
			return fail();
		if (pfd[0].revents && read(in, ev, sizeof(ev)) <= 0)
			return fail();
		if (pidfd >= 0 && pfd[1].revents && !find_line(path, text, line, sizeof(line))) {
			errno = ESRCH; /* the writer is gone: the line will never come */
			return fail();
		}
	}
	fputs(line, stdout);
	close(in);
	return 0;
}

/* wait-exit PID: block until process PID (not necessarily a child) has ended; print "gone". */
static int wait_exit(pid_t pid)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

	if (pidfd < 0 && errno == ESRCH)
		return puts("gone") < 0;
	if (pidfd < 0)
		return fail();
	while (poll(&pfd, 1, -1) < 0)
		if (errno != EINTR)
			return fail();
	return puts("gone") < 0;
}

static int ids(void)
{
	gid_t groups[256];
	int n = getgroups(256, groups);

	if (n < 0)
		return fail();
	printf("%u %u ", (unsigned int)getuid(), (unsigned int)getgid());
	for (int i = 0; i < n; i++)
		printf("%s%u", i ? "," : "", (unsigned int)groups[i]);
	printf("\n");
	return 0;
}

static int print_env(void)
{
	extern char **environ;

	for (char **e = environ; *e; e++)
		puts(*e);
	return 0;
}

static int print_hostname(void)
{
	struct utsname u;

	if (uname(&u))
		return fail();
	puts(u.nodename);
	return 0;
}

static int ifaces(void)
{
	struct if_nameindex *ifs = if_nameindex();
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (!ifs || fd < 0)
		return fail();
	for (struct if_nameindex *i = ifs; i->if_index; i++) {
		struct ifreq ifr = { 0 };

		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", i->if_name);
		if (ioctl(fd, SIOCGIFFLAGS, &ifr))
			return fail();
		printf("%s %s\n", i->if_name, ifr.ifr_flags & IFF_UP ? "up" : "down");
	}
	if_freenameindex(ifs);
	close(fd);
	return 0;
}

static int addrs(void)
{
	struct ifaddrs *ifa, *i;
	char line[256], ifn[IF_NAMESIZE + 1];
	unsigned int dst, gw;
	FILE *f;

	if (getifaddrs(&ifa))
		return 1;
	for (i = ifa; i; i = i->ifa_next) {
		char a[INET6_ADDRSTRLEN];
		uint32_t m;
		int bits = 0;

		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET6) {
			const unsigned char *mk =
				((struct sockaddr_in6 *)i->ifa_netmask)->sin6_addr.s6_addr;

			for (int k = 0; k < 16; k++)
				bits += __builtin_popcount(mk[k]);
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, a,
				  sizeof(a));
			printf("%s %s/%d\n", i->ifa_name, a, bits);
		}
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
			continue;
		inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, a, sizeof(a));
		m = ntohl(((struct sockaddr_in *)i->ifa_netmask)->sin_addr.s_addr);
		printf("%s %s/%d\n", i->ifa_name, a, __builtin_popcount(m));
	}
	freeifaddrs(ifa);
	f = fopen("/proc/net/route", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%16s %x %x", ifn, &dst, &gw) == 3 && dst == 0 && gw) {
			struct in_addr g = { gw };

			printf("via %s\n", inet_ntoa(g));
		}
	}
	if (f)
		fclose(f);
	/* dest plen src plen next-hop ...: the default route's next hop, in hex */
	f = fopen("/proc/net/ipv6_route", "r");
	while (f && fgets(line, sizeof(line), f)) {
		char d[33], s6[33], nh[33], a[INET6_ADDRSTRLEN];
		unsigned int dl, sl;
		struct in6_addr g;

		if (sscanf(line, "%32s %x %32s %x %32s", d, &dl, s6, &sl, nh) != 5 || dl ||
		    strspn(d, "0") != 32 || strspn(nh, "0") == 32)
			continue;
		for (int k = 0; k < 16; k++)
			sscanf(nh + 2 * k, "%2hhx", &g.s6_addr[k]);
		printf("via6 %s\n", inet_ntop(AF_INET6, &g, a, sizeof(a)));
	}
	if (f)
		fclose(f);
	return 0;
}

static int tcp_socket(const char *addr, const char *port, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)atoi(port));
	if (inet_pton(AF_INET, addr, &sa->sin_addr) != 1) {
		errno = EINVAL;
		return -1;
	}
	return socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

static int tcp_connect(const char *addr, const char *port)
{
	struct sockaddr_in sa;
	int fd = tcp_socket(addr, port, &sa);

	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return fail();
	close(fd);
	puts("ok");
	return 0;
}

static int tcp_listen(const char *addr, const char *port)
{
	struct sockaddr_in sa;
	int one = 1, fd = tcp_socket(addr, port, &sa);
	socklen_t len = sizeof(sa);

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 16) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len))
		return fail();
	printf("listening %u\n", ntohs(sa.sin_port));
	fflush(stdout);
	for (;;) {
		int c = accept(fd, NULL, NULL);

		if (c >= 0)
			close(c);
	}
}

static int shm(const char *key, const char *op)
{
	key_t k = (key_t)strtol(key, NULL, 0);
	int id = shmget(k, 4096, strcmp(op, "create") == 0 ? IPC_CREAT | 0600 : 0);

	if (id < 0)
		return fail();
	if (strcmp(op, "remove") == 0 && shmctl(id, IPC_RMID, NULL))
		return fail();
	puts("ok");
	return 0;
}

static volatile sig_atomic_t caught_int, caught_term;

static void on_signal(int sig)
{
	if (sig == SIGINT)
		caught_int = 1;
	else
		caught_term = 1;
}

/* A call held while a signal arrives: its result, then the signals caught (after it). */
static int unlink_signalled(const char *path)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int rc = 0;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
		return fail();
	if (unlink(path))
		rc = fail();
	else
		puts("ok");
	if (caught_int)
		puts("caught SIGINT");
	if (caught_term)
		puts("caught SIGTERM");
	return rc;
}

struct swap {
	const char *link, *target, *file, *text;
	int err;
};

static void *swapper(void *arg)
{
	struct swap *sw = arg;
	char tmp[4096];

	/* the other thread's call is held once its hold is on record */
	if (wait_line(sw->file, sw->text, 0)) {
		sw->err = EIO;
		return NULL;
	}
	snprintf(tmp, sizeof(tmp), "%s.swap", sw->link);
	unlink(tmp);
	if (symlink(sw->target, tmp) || rename(tmp, sw->link)) {
		sw->err = errno;
		return NULL;
	}
	puts("swapped");
	fflush(stdout);
	return NULL;
}

static int swap_unlink(char **argv)
{
	struct swap sw = { argv[1], argv[2], argv[3], argv[4], 0 };
	pthread_t t;
	int err;

	err = pthread_create(&t, NULL, swapper, &sw);
	if (err) {
		errno = err;
		return fail();
	}
	err = unlink(argv[0]) ? errno : 0;
	pthread_join(t, NULL);
	if (sw.err) {
		printf("swap: ");
		errno = sw.err;
		return fail();
	}
	errno = err;
	if (err)
		return fail();
	puts("ok");
	return 0;
}

static int unlinks(int n, char **paths)
{
	int rc = 0;

	for (int i = 0; i < n; i++) {
		if (unlink(paths[i])) {
			rc = fail();
			continue;
		}
		puts("ok");
	}
	return rc;
}

static int replace_dir(const char *dir, const char *how, const char *target, const char *name)
{
	char seed[PATH_MAX], old[PATH_MAX], victim[PATH_MAX];
	int fd;

	snprintf(seed, sizeof(seed), "%s/seed", dir);
	snprintf(old, sizeof(old), "%s.old", dir);
	snprintf(victim, sizeof(victim), "%s/%s", dir, name);
	fd = open(seed, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || close(fd) || unlink(seed))
		return fail();
	if (strcmp(how, "rmdir") == 0 ? rmdir(dir) : rename(dir, old))
		return fail();
	if (symlink(target, dir) || unlink(victim))
		return fail();
	puts("ok");
	return 0;
}

/*
 * Send @line on @path's stream socket; print the first @lines reply lines (or all until EOF),
 * or with @until, every line up to the first that holds it.
 */
static int ctl(const char *path, const char *line, int lines, const char *until)
{
	char cur[65536];
	size_t cur_len = 0;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[65536];
	ssize_t n;
	size_t got = 0;
	int seen = 0, fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return fail();
	if (write(fd, line, strlen(line)) != (ssize_t)strlen(line) || write(fd, "\n", 1) != 1)
		return fail();
	/* each line as it comes (a test may wait for a subscription's first), the first @lines */
	while (seen < lines && (n = read(fd, buf, sizeof(buf))) > 0) {
		got += (size_t)n;
		for (ssize_t i = 0; i < n && seen < lines; i++) {
			putchar(buf[i]);
			if (cur_len < sizeof(cur) - 1)
				cur[cur_len++] = buf[i];
			if (buf[i] != '\n')
				continue;
			cur[cur_len] = 0;
			cur_len = 0;
			/* an error reply is the last line too: no event follows it */
			if (!until || strstr(cur, until) || strstr(cur, "\"ok\":false"))
				seen++;
		}
		fflush(stdout);
	}
	close(fd);
	return got ? 0 : 1;
}

static int run_as(char **argv)
{
	gid_t groups[64];
	size_t n = 0;
	char *list = argv[2], *tok, *save = NULL;

	for (tok = strtok_r(list, ",", &save); tok && strcmp(tok, "-") && n < 64;
	     tok = strtok_r(NULL, ",", &save))
		groups[n++] = (gid_t)strtoul(tok, NULL, 10);
	if (setgroups(n, groups) || setgid((gid_t)strtoul(argv[1], NULL, 10)) ||
	    setuid((uid_t)strtoul(argv[0], NULL, 10)))
		return fail();
	execv(argv[3], argv + 3);
	return fail();
}

/* notify-recv SOCK OUT [CONNECT]: the receiving end of sd_notify (see the top). */
static int notify_recv(const char *sock, const char *out, const char *connect_to)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	size_t n = strlen(sock);
	bool stopping = false;
	char buf[4097];
	socklen_t len;
	FILE *f;
	int fd;

	if (n < 2 || n >= sizeof(a.sun_path))
		return fail();
	memcpy(a.sun_path, sock, n);
	if (sock[0] == '@')
		a.sun_path[0] = 0;
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (sock[0] == '@' ? 0 : 1));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	f = fopen(out, "a");
	if (fd < 0 || !f || bind(fd, (struct sockaddr *)&a, len))
		return fail();
	setvbuf(f, NULL, _IOLBF, 0);
	fprintf(f, "bound\n");
	while (!stopping) {
		ssize_t got = recv(fd, buf, sizeof(buf) - 1, 0);

		if (got < 0)
			return fail();
		buf[got] = 0;
		if (connect_to && (strstr(buf, "READY=1\n") == buf || strstr(buf, "\nREADY=1") ||
				   !strcmp(buf, "READY=1"))) {
			struct sockaddr_un c = { .sun_family = AF_UNIX };
			int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

			snprintf(c.sun_path, sizeof(c.sun_path), "%s", connect_to);
			if (s >= 0 && connect(s, (struct sockaddr *)&c, sizeof(c)) == 0)
				fprintf(f, "connect ok\n");
			else
				fprintf(f, "connect failed: %s\n", strerror(errno));
			if (s >= 0)
				close(s);
		}
		fprintf(f, "%s\n", buf);
		stopping = strstr(buf, "STOPPING=1") != NULL;
	}
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "exit") == 0)
		return atoi(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "kill-self") == 0) {
		kill(getpid(), atoi(argv[2]));
		return fail();
	}
	if (argc >= 3 && strcmp(argv[1], "fork-locker") == 0)
		return fork_locker(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "trylock") == 0)
		return trylock(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "memfd-exec") == 0)
		return memfd_exec(argv + 2);
	if (argc >= 4 && strcmp(argv[1], "pin-delete") == 0)
		return pin_delete(argv[2], argv[3]);
	if (argc >= 2 && strcmp(argv[1], "bpf") == 0)
		return try_bpf();
	if (argc >= 3 && strcmp(argv[1], "wait-exit") == 0)
		return wait_exit((pid_t)atoi(argv[2]));
	if (argc >= 4 && strcmp(argv[1], "wait-line") == 0)
		return wait_line(argv[2], argv[3], argc >= 5 ? (pid_t)atoi(argv[4]) : 0);
	if (argc >= 4 && strcmp(argv[1], "flood") == 0)
		return flood(atol(argv[2]), argv[3]);
	if (argc >= 3 && strcmp(argv[1], "read") == 0)
		return try_read(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "write") == 0)
		return try_write(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "exec") == 0) {
		execv(argv[2], argv + 2);
		return fail();
	}
	if (argc >= 4 && strcmp(argv[1], "openat2") == 0)
		return open2(argv[2], argv[3], argc >= 5 ? argv[4] : NULL);
	if (argc >= 5 && strcmp(argv[1], "fexec") == 0)
		return fexec(argv[2], argv + 3);
	if (argc >= 4 && strcmp(argv[1], "gate") == 0)
		return gate(argv[2], argv[3]);
	if (argc >= 2 && strcmp(argv[1], "ids") == 0)
		return ids();
	if (argc >= 2 && strcmp(argv[1], "env") == 0)
		return print_env();
	if (argc >= 2 && strcmp(argv[1], "hostname") == 0)
		return print_hostname();
	if (argc >= 2 && strcmp(argv[1], "ifaces") == 0)
		return ifaces();
	if (argc == 2 && strcmp(argv[1], "addrs") == 0)
		return addrs();
	if (argc >= 4 && strcmp(argv[1], "connect") == 0)
		return tcp_connect(argv[2], argv[3]);
	if (argc >= 4 && strcmp(argv[1], "listen") == 0)
		return tcp_listen(argv[2], argv[3]);
	if (argc >= 4 && strcmp(argv[1], "shm") == 0)
		return shm(argv[2], argv[3]);
	if (argc >= 3 && strcmp(argv[1], "unlink-signalled") == 0)
		return unlink_signalled(argv[2]);
	if (argc >= 7 && strcmp(argv[1], "swap-unlink") == 0)
		return swap_unlink(argv + 2);
	if (argc >= 3 && strcmp(argv[1], "unlinks") == 0)
		return unlinks(argc - 2, argv + 2);
	if (argc >= 6 && strcmp(argv[1], "replace-dir") == 0)
		return replace_dir(argv[2], argv[3], argv[4], argv[5]);
	if (argc >= 4 && strcmp(argv[1], "ctl") == 0)
		return argc >= 5 && !strncmp(argv[4], "until=", 6) ?
			       ctl(argv[2], argv[3], 1, argv[4] + 6) :
			       ctl(argv[2], argv[3], argc >= 5 ? atoi(argv[4]) : 1, NULL);
	if (argc >= 6 && strcmp(argv[1], "as") == 0)
		return run_as(argv + 2);
	if (argc >= 4 && strcmp(argv[1], "notify-recv") == 0)
		return notify_recv(argv[2], argv[3], argc >= 5 ? argv[4] : NULL);
	fprintf(stderr, "usage: wd-try read|write PATH | exec PATH [ARG...] | ctl SOCKET LINE [LINES] |\n"
			"              fexec at|proc|link PATH ARGV0 [ARG...] |\n"
			"              openat2 PATH trunc|read [in-root] | gate READY GO |\n"
			"              exit N | kill-self SIG | fork-locker FILE | trylock FILE |\n"
			"              memfd-exec SRC ARGV0 [ARG...] | bpf | flood N PATH |\n"
			"              wait-line FILE TEXT | wait-exit PID | ids | env |\n"
			"              hostname | ifaces | connect ADDR PORT |\n"
			"              listen ADDR PORT | shm KEY OP | unlink-signalled PATH |\n"
			"              swap-unlink PATH LINK TARGET FILE TEXT |\n"
			"              unlinks PATH... | replace-dir DIR rmdir|rename TARGET NAME |\n"
			"              ctl SOCKET LINE |\n"
			"              as UID GID GROUPS PROG [ARG...] |\n"
			"              notify-recv SOCK OUT [CONNECT]\n");
	return 2;
}
