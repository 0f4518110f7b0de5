/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The addresses a sandbox's allowed names resolved to, in its LPM tries (wd_net4, wd_net6) as
 * full-length prefixes until the record's TTL plus a grace lapses, in the net/ room. Each such
 * prefix carries what the longest stored prefix of that address carried (so covering deny rules
 * and the host's blocks still decide) plus the ranges of the name's rule; at expiry the
 * prefix goes again (or gets back what it carried before).
 */
#ifndef WD_NET_RESOLVED_H
#define WD_NET_RESOLVED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/wd_abi.h"
#include "policy/compile.h"

#define WD_NET_RESOLVED_GRACE_MS 30000
#define WD_NET_RESOLVED_MAX 4096 /* addresses of one sandbox at once */

struct wd_net_resolved_ent {
	int family;
	uint8_t addr[16];
	uint64_t deadline_ms;
	bool had;		/* a shorter prefix held the address: its value goes back */
	struct wd_net_val orig;
};

struct wd_net_resolved {
	int fds[2]; /* wd_net4, wd_net6 (not owned) */
	uint64_t sandbox;
	const struct wd_ruleset *rs;
	struct wd_net_resolved_ent *v;
	size_t n;
};

void wd_net_resolved_init(struct wd_net_resolved *s, const int fds[2], uint64_t sandbox,
			  const struct wd_ruleset *rs);
/*
 * Open @addr (@family's bytes) for the name rule @nm until @deadline_ms (wd_dns_now_ms's
 * clock). An address of the host (loopback, its own) stays closed. 0 or -errno.
 */
int wd_net_resolved_add(struct wd_net_resolved *s, int family, const uint8_t *addr,
			const struct wd_net_name *nm, uint64_t deadline_ms);
/* Close what lapsed by @now_ms. */
void wd_net_resolved_tick(struct wd_net_resolved *s, uint64_t now_ms);
/* Milliseconds to the next lapse, -1 for none. */
int wd_net_resolved_timeout(const struct wd_net_resolved *s, uint64_t now_ms);
/* Forget every entry (the sandbox's keys go with wd_net_entries_remove). */
void wd_net_resolved_free(struct wd_net_resolved *s);

#endif
