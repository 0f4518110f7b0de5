// SPDX-License-Identifier: GPL-2.0
/*
 * daemon/: the sd_notify protocol (notify.h), written here rather than linked: one datagram
 * per state change to a unix socket the service manager names. libsystemd is not among
 * warden's dependencies, and this is all of it wardend needs.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "supervisor/daemon/notify.h"
#include "supervisor/util/log.h"

static struct sockaddr_un addr;
static socklen_t addr_len; /* 0: no service manager to tell */

void wd_notify_init(void)
{
	const char *s = getenv("NOTIFY_SOCKET");
	size_t n = s ? strlen(s) : 0;

	addr_len = 0;
	if (n >= 2 && n < sizeof(addr.sun_path) && (s[0] == '/' || s[0] == '@')) {
		memset(&addr, 0, sizeof(addr));
		addr.sun_family = AF_UNIX;
		memcpy(addr.sun_path, s, n);
		/* "@name": an abstract socket, its name after a NUL byte and not NUL-ended */
		if (s[0] == '@')
			addr.sun_path[0] = 0;
		addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n +
				       (s[0] == '/' ? 1 : 0));
	} else if (s) {
		log_warnx("notify: NOTIFY_SOCKET=%s is no socket address: not telling", s);
	}
	unsetenv("NOTIFY_SOCKET");
}

int wd_notify(const char *state)
{
	int fd, err = 0;

	if (!addr_len)
		return 0;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&addr,
		   addr_len) < 0) {
		err = -errno;
		log_debug("notify: cannot send to the service manager: %s", strerror(-err));
	}
	close(fd);
	return err;
}

int wd_notifyf(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return wd_notify(buf);
}
