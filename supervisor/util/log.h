/* SPDX-License-Identifier: GPL-2.0 */
/* One small logging module: every message starts with its subsystem ("lsm: ..."). */
#ifndef WD_LOG_H
#define WD_LOG_H

#include <stdbool.h>

enum wd_log_level {
	WD_LOG_QUIET = 0,
	WD_LOG_WARN = 1,
	WD_LOG_INFO = 2,
	WD_LOG_DEBUG = 3,
};

void log_init(const char *progname, int level);
int log_level(void);
/* log_warn appends ": strerror(errno)"; log_warnx does not. */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void fatalx(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
