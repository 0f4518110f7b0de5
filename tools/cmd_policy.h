/* SPDX-License-Identifier: GPL-2.0 */
/* `warden policy init|check|explain`, and the derived-policy flags `warden run` shares. */
#ifndef WD_CMD_POLICY_H
#define WD_CMD_POLICY_H

#include <getopt.h>

#include "policy/effective.h"

/* getopt_long values of the derived-policy flags: WD_OPT_DERIVE + enum wd_derive_kind. */
#define WD_OPT_DERIVE 0x200

#define WD_DERIVE_LONG_OPTIONS                                                                     \
	{ "allow-host", required_argument, NULL, WD_OPT_DERIVE + WD_DERIVE_ALLOW_HOST },           \
		{ "deny-host", required_argument, NULL, WD_OPT_DERIVE + WD_DERIVE_DENY_HOST },     \
		{ "allow-read", required_argument, NULL, WD_OPT_DERIVE + WD_DERIVE_ALLOW_READ },   \
		{ "allow-write", required_argument, NULL, WD_OPT_DERIVE + WD_DERIVE_ALLOW_WRITE }, \
		{ "allow-exec", required_argument, NULL, WD_OPT_DERIVE + WD_DERIVE_ALLOW_EXEC },   \
		{ "mode", required_argument, NULL, WD_OPT_DERIVE + WD_DERIVE_MODE },               \
		{ "limit", required_argument, NULL, WD_OPT_DERIVE + WD_DERIVE_LIMIT },             \
	{                                                                                          \
		"env", required_argument, NULL, WD_OPT_DERIVE + WD_DERIVE_ENV                      \
	}

/* The lines of --help that describe them. */
extern const char wd_derive_usage[];

/*
 * When getopt_long's @c is a derived-policy flag, record it with @arg in @d: 1. Not one: 0.
 * Out of memory: -ENOMEM.
 */
int wd_derive_option(int c, const char *arg, struct wd_policy_derive *d);

int cmd_policy(int argc, char **argv);

#endif
