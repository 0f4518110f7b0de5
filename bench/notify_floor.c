// SPDX-License-Identifier: GPL-2.0
/*
 * notify_floor DIR N: what seccomp user notification itself costs, with nothing of warden's in
 * the way. A child sends unlink(2) to a listener and unlinks N files in DIR, timing each call;
 * the parent, blocked in SECCOMP_IOCTL_NOTIF_RECV with the synchronous wake-up set where the
 * kernel has it (6.6+), answers every call CONTINUE at once. The same unlinks are timed first
 * without the filter. Prints "median_ns p90_ns bare_median_ns bare_p90_ns".
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif

static int cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static int make_files(const char *dir, long n)
{
	char path[4096];

	for (long i = 0; i < n; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/f%ld", dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			return -1;
		close(fd);
	}
	return 0;
}

/* Unlink the N files, timing each call into @ns, sorted. */
static int time_unlinks(const char *dir, long n, long *ns)
{
	char path[4096];

	for (long i = 0; i < n; i++) {
		long a;

		snprintf(path, sizeof(path), "%s/f%ld", dir, i);
		a = now_ns();
		if (unlink(path))
			return -1;
		ns[i] = now_ns() - a;
	}
	qsort(ns, (size_t)n, sizeof(*ns), cmp);
	return 0;
}

/* The child: time N unlinks bare, then install the filter, hand the listener over, and again. */
static int child(int sock, const char *dir, long n)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_unlink, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, go;
	struct iovec iov = { .iov_base = "l", .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	long *ns = calloc((size_t)n, sizeof(*ns));
	int fd;

	long base_med, base_p90;

	if (!ns || make_files(dir, n))
		return 1;
	/* the same unlinks without the filter first: what the mechanism adds is the difference */
	if (time_unlinks(dir, n, ns))
		return 1;
	base_med = ns[n / 2];
	base_p90 = ns[n * 9 / 10];
	if (make_files(dir, n) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return 1;
	fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			  &prog);
	if (fd < 0)
		return 1;
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(sock, &msg, 0) != 1 || read(sock, &go, 1) != 1)
		return 1;
	close(fd);
	if (time_unlinks(dir, n, ns))
		return 1;
	printf("%ld %ld %ld %ld\n", ns[n / 2], ns[n * 9 / 10], base_med, base_p90);
	return fflush(stdout) ? 1 : 0; /* the caller ends with _exit */
}

int main(int argc, char **argv)
{
	char cbuf[CMSG_SPACE(sizeof(int))], x;
	struct iovec iov = { .iov_base = &x, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	int sv[2], listener, status;
	long n;
	pid_t pid;

	if (argc != 3 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: notify_floor DIR N\n");
		return 2;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(sv[0]);
		_exit(child(sv[1], argv[1], n));
	}
	close(sv[1]);
	if (recvmsg(sv[0], &msg, 0) != 1 || !CMSG_FIRSTHDR(&msg))
		return 1;
	memcpy(&listener, CMSG_DATA(CMSG_FIRSTHDR(&msg)), sizeof(int));
	/* where the kernel has it; without it the floor is what it is */
	ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, 1ULL);
	if (write(sv[0], "g", 1) != 1)
		return 1;
	/* exactly n calls come (nothing else the child does is sent): answer them, then wait */
	for (long i = 0; i < n;) {
		memset(&req, 0, sizeof(req));
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req)) {
			if (errno == EINTR)
				continue;
			break;
		}
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
		i++;
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
