// SPDX-License-Identifier: GPL-2.0
/*
 * Util room: the one logging module (log.h): a program name, a verbosity, and messages to
 * stderr that start with their subsystem.
 */
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

void wd_log(int level, bool with_errno, const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	va_start(ap, fmt);
	vlog(level, with_errno ? e : 0, fmt, ap);
	va_end(ap);
	errno = e;
}
