// SPDX-License-Identifier: GPL-2.0
/* The one exit-status decoder (supervisor/sandbox/exit_status.h). */
#include <string.h>
#include <sys/wait.h>

#include "supervisor/sandbox/exit_status.h"

void wd_exit_siginfo_of_wait(int status, siginfo_t *si)
{
	if (WIFEXITED(status)) {
		si->si_code = CLD_EXITED;
		si->si_status = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		si->si_code = WCOREDUMP(status) ? CLD_DUMPED : CLD_KILLED;
		si->si_status = WTERMSIG(status);
	}
}

struct wd_exit_status wd_exit_status_of(const siginfo_t *si)
{
	if (si->si_code == CLD_EXITED)
		return (struct wd_exit_status){ .code = si->si_status, .signo = 0 };
	return (struct wd_exit_status){ .code = 128 + si->si_status, .signo = si->si_status };
}

int wd_exit_code_of_wait(int status)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	wd_exit_siginfo_of_wait(status, &si);
	return wd_exit_status_of(&si).code;
}
