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
#include <sys/stat.h>

#include "supervisor/util/log.h"

static const char *prog = "warden";
static int verbosity = WD_LOG_WARN;
static bool journal;

void log_journal_detect(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	journal = js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 && !fstat(2, &st) &&
		  (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void log_journal_set(bool on)
{
	journal = on;
}

void log_init(const char *progname, int level)
{
	prog = progname;
	verbosity = level;
}

int log_level(void)
{
	return verbosity;
}

static FILE *stream;

void log_to(FILE *f)
{
	stream = f;
}

FILE *log_stream(void)
{
	return stream ? stream : stderr;
}

static void vlog(int level, int errnum, const char *fmt, va_list ap)
{
	FILE *out = log_stream();

	/* syslog's err, warning, info, debug */
	static const int prio[] = { 3, 4, 6, 7 };

	if (level > verbosity)
		return;
	if (journal)
		fprintf(out, "<%d>", prio[level < 0 ? 0 : level > 3 ? 3 : level]);
	fprintf(out, "%s: ", prog);
	vfprintf(out, fmt, ap);
	if (errnum)
		fprintf(out, ": %s", strerror(errnum));
	fputc('\n', out);
	if (out != stderr)
		fflush(out);
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
