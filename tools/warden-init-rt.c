// SPDX-License-Identifier: GPL-2.0
/*
 * The whole C library warden-init links (tools/warden-init.c, and supervisor/sandbox/caps.c for
 * its capabilities): its entry point and the few system calls it makes, by the kernel's own
 * calling convention. A static glibc brings some 650 KiB of start-up code that every sandbox's
 * pid 1 would map and fault in; this is a few pages. Only what those two files call is here, with
 * the prototypes of the system headers they include.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv);
void wd_init_entry(long *sp) __attribute__((noreturn, used));
void *memset(void *s, int c, size_t n);
void *memcpy(void *restrict d, const void *restrict s, size_t n);

static int last_errno;

int *__errno_location(void)
{
	return &last_errno;
}

static long raw_syscall(long n, long a, long b, long c, long d, long e, long f)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;

	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
#else
#error "warden-init: no system call entry written for this architecture"
#endif
}

/* The kernel's -errno into errno and -1, as the library's wrappers do. */
static long wrap(long r)
{
	if (r < 0 && r > -4096) {
		last_errno = (int)-r;
		r = -1;
	}
	return r;
}

long syscall(long n, ...)
{
	long a[6];
	va_list ap;

	va_start(ap, n);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	return wrap(raw_syscall(n, a[0], a[1], a[2], a[3], a[4], a[5]));
}

int prctl(int option, ...)
{
	unsigned long a[4];
	va_list ap;

	va_start(ap, option);
	for (int i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	return (int)wrap(raw_syscall(SYS_prctl, option, (long)a[0], (long)a[1], (long)a[2],
				     (long)a[3], 0));
}

ssize_t write(int fd, const void *buf, size_t n)
{
	return wrap(raw_syscall(SYS_write, fd, (long)buf, (long)n, 0, 0, 0));
}

int close(int fd)
{
	return (int)wrap(raw_syscall(SYS_close, fd, 0, 0, 0, 0, 0));
}

pid_t waitpid(pid_t pid, int *status, int options)
{
	return (pid_t)wrap(raw_syscall(SYS_wait4, pid, (long)status, options, 0, 0, 0));
}

int sigfillset(sigset_t *set)
{
	memset(set, 0xff, sizeof(*set));
	return 0;
}

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	/* the kernel's sigset is 64 signals, 8 bytes */
	return (int)wrap(raw_syscall(SYS_rt_sigprocmask, how, (long)set, (long)old, 8, 0, 0));
}

/* Decimal only: the init's one argument is a pid. */
long strtol(const char *restrict s, char **restrict end, int base)
{
	unsigned long v = 0;
	const char *p = s, *digits;
	int neg = 0;

	if (base != 10) {
		last_errno = EINVAL;
		if (end)
			*end = (char *)s;
		return 0;
	}
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	digits = p;
	while (*p >= '0' && *p <= '9' && v < 0x7fffffffUL)
		v = v * 10 + (unsigned long)(*p++ - '0');
	/* no digits: nothing was read */
	if (end)
		*end = (char *)(p == digits ? s : p);
	return neg ? -(long)v : (long)v;
}

/* What the compiler may call for a struct's initialisation or copy. */
void *memset(void *s, int c, size_t n)
{
	volatile unsigned char *p = s;

	while (n--)
		*p++ = (unsigned char)c;
	return s;
}

void *memcpy(void *restrict d, const void *restrict s, size_t n)
{
	volatile unsigned char *q = d;
	const unsigned char *p = s;

	while (n--)
		*q++ = *p++;
	return d;
}

/* The kernel's initial stack: argc, then argv. */
void wd_init_entry(long *sp)
{
	int rc = main((int)sp[0], (char **)(sp + 1));

	for (;;)
		raw_syscall(SYS_exit_group, rc, 0, 0, 0, 0, 0);
}

#if defined(__x86_64__)
__asm__(".text\n.global _start\n.type _start,@function\n_start:\n"
	"\txor %ebp, %ebp\n\tmov %rsp, %rdi\n\tand $-16, %rsp\n\tcall wd_init_entry\n\thlt\n");
#elif defined(__aarch64__)
__asm__(".text\n.global _start\n.type _start,%function\n_start:\n"
	"\tmov x29, #0\n\tmov x0, sp\n\tbl wd_init_entry\n");
#endif
