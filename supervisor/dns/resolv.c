// SPDX-License-Identifier: GPL-2.0
/*
 * DNS room: the host's upstream servers, the "nameserver" lines of a resolv.conf as ldns reads
 * them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ldns/ldns.h>

#include "supervisor/dns/forwarder.h"
#include "supervisor/util/log.h"

int wd_dns_upstreams_read(const char *path, struct sockaddr_storage *out, size_t max, size_t *n)
{
	ldns_resolver *res = NULL;
	ldns_rdf **ns;
	size_t count;
	ldns_status st;

	*n = 0;
	st = ldns_resolver_new_frm_file(&res, path);
	if (st != LDNS_STATUS_OK) {
		log_warnx("dns: %s: %s", path, ldns_get_errorstr_by_id(st));
		return st == LDNS_STATUS_FILE_ERR ? -ENOENT : -EINVAL;
	}
	ns = ldns_resolver_nameservers(res);
	count = ldns_resolver_nameserver_count(res);
	for (size_t i = 0; i < count && *n < max; i++) {
		size_t sz = 0;
		struct sockaddr_storage *ss = ldns_rdf2native_sockaddr_storage(ns[i], 53, &sz);

		if (!ss)
			continue;
		if (sz <= sizeof(out[*n])) {
			memset(&out[*n], 0, sizeof(out[*n]));
			memcpy(&out[*n], ss, sz);
			(*n)++;
		}
		free(ss);
	}
	ldns_resolver_deep_free(res);
	if (!*n) {
		log_warnx("dns: %s names no nameserver", path);
		return -ENOENT;
	}
	return 0;
}
