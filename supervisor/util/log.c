// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/util/log.h"

static const char *prog = "warden";
static int verbosity = WD_LOG_WARN;

void log_init(const char *progname, int level)
{
	prog = progname;
	verbosity = level;
}

int log_level(void)
{
	return verbosity;
}

static void vlog(int level, int errnum, const char *fmt, va_list ap)
{
	if (level > verbosity)
		return;
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	if (errnum)
		fprintf(stderr, ": %s", strerror(errnum));
	fputc('\n', stderr);
}

void log_warn(const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	va_start(ap, fmt);
	vlog(WD_LOG_WARN, e, fmt, ap);
	va_end(ap);
	errno = e;
}

void log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(WD_LOG_WARN, 0, fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(WD_LOG_INFO, 0, fmt, ap);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(WD_LOG_DEBUG, 0, fmt, ap);
	va_end(ap);
}

void fatal(const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	va_start(ap, fmt);
	vlog(WD_LOG_QUIET, e, fmt, ap);
	va_end(ap);
	exit(1);
}

void fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(WD_LOG_QUIET, 0, fmt, ap);
	va_end(ap);
	exit(1);
}
