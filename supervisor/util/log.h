/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Util room: the one small logging module: every message starts with its subsystem
 * ("lsm: ...").
 */
#ifndef WD_LOG_H
#define WD_LOG_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

enum wd_log_level {
	WD_LOG_QUIET = 0,
	WD_LOG_WARN = 1,
	WD_LOG_INFO = 2,
	WD_LOG_DEBUG = 3,
};

void log_init(const char *progname, int level);
int log_level(void);
/*
 * Whether standard error is the journal's stream (systemd says so in $JOURNAL_STREAM): then each
 * line starts with its syslog priority ("<4>"), which the journal takes for the message's.
 * log_journal_detect looks; log_journal_set(false) stops it (a child whose stderr is a file).
 */
void log_journal_detect(void);
void log_journal_set(bool on);
/*
 * Messages to @f instead of standard error (NULL: standard error again): for a supervisor whose
 * fds 0-2 are its command's terminal (wardend's "pty"), whose messages are not the command's.
 */
void log_to(FILE *f);
FILE *log_stream(void);
/*
 * One function writes every message: log_warn and fatal append ": strerror(errno)" (errno as it
 * was when called, and left as it was); log_warnx, log_info, log_debug and fatalx do not. fatal
 * and fatalx exit(1) after.
 */
void wd_log(int level, bool with_errno, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define log_warn(...) wd_log(WD_LOG_WARN, true, __VA_ARGS__)
#define log_warnx(...) wd_log(WD_LOG_WARN, false, __VA_ARGS__)
#define log_info(...) wd_log(WD_LOG_INFO, false, __VA_ARGS__)
#define log_debug(...) wd_log(WD_LOG_DEBUG, false, __VA_ARGS__)
#define fatal(...) (wd_log(WD_LOG_QUIET, true, __VA_ARGS__), exit(1))
#define fatalx(...) (wd_log(WD_LOG_QUIET, false, __VA_ARGS__), exit(1))

#endif
