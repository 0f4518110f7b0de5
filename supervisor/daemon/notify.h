/* SPDX-License-Identifier: GPL-2.0 */
/*
 * daemon/: telling a service manager how wardend is (the sd_notify protocol: datagrams of
 * "KEY=VALUE" lines to $NOTIFY_SOCKET, a path or an abstract "@name"), without libsystemd.
 */
#ifndef WD_DAEMON_NOTIFY_H
#define WD_DAEMON_NOTIFY_H

/*
 * Take $NOTIFY_SOCKET out of the environment (no supervisor nor sandbox of ours inherits it)
 * and keep it for wd_notify. Without it, wd_notify does nothing.
 */
void wd_notify_init(void);
/* Send @state ("READY=1\nSTATUS=..."): 0, or -errno (nothing to tell: 0). */
int wd_notify(const char *state);
/* As wd_notify, with a printf format. */
int wd_notifyf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
