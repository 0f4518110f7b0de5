// SPDX-License-Identifier: GPL-2.0
/*
 * wardend: the long-lived supervisor (many sandboxes, control socket). Not built yet: until then
 * it says so and fails, rather than pretending to run. `warden run` embeds the same supervisor.
 */
#include <stdio.h>

#include "supervisor/log.h"

int main(void)
{
	log_init("wardend", WD_LOG_WARN);
	log_warnx("the daemon is not implemented yet; use `warden run` (embedded supervisor)");
	return 1;
}
