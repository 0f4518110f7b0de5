/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Backend room: `warden doctor`: the kernel features warden found, the backend it would choose,
 * and why.
 */
#ifndef WD_DOCTOR_H
#define WD_DOCTOR_H

#include <stdbool.h>
#include <stdio.h>

/*
 * Prints the findings (text or JSON). @refresh: probe everything again and rewrite the answers
 * kept for this boot. Returns 0 when some backend can run here, else 1.
 */
int wd_doctor(FILE *out, bool json, bool refresh);

#endif
