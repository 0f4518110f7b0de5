// SPDX-License-Identifier: GPL-2.0
/*
 * supervisor/net/resolved.c against real LPM tries of the kernel's (root and BPF needed, else
 * skipped): a resolved address carries what its longest prefix carried plus the name's rule,
 * a host block stays closed, and at expiry the address goes back to what it was.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <cmocka.h>

#include "supervisor/net/resolved.h"

#define SB 0x1234567890ull

static int fds[2] = { -1, -1 };

static int setup(void **state)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_NO_PREALLOC);

	(void)state;
	fds[0] = bpf_map_create(BPF_MAP_TYPE_LPM_TRIE, "t4", sizeof(struct wd_net4_key),
				sizeof(struct wd_net_val), 64, &o);
	fds[1] = bpf_map_create(BPF_MAP_TYPE_LPM_TRIE, "t6", sizeof(struct wd_net6_key),
				sizeof(struct wd_net_val), 64, &o);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	close(fds[0]);
	close(fds[1]);
	fds[0] = fds[1] = -1;
	return 0;
}

static void need_maps(void)
{
	if (fds[0] < 0 || fds[1] < 0)
		skip();
}

static struct wd_net4_key key4(const char *a, unsigned int prefix)
{
	struct wd_net4_key k = { .prefixlen = 64 + prefix,
				 .sandbox = { (__u32)SB, (__u32)(SB >> 32) } };

	inet_pton(AF_INET, a, k.addr);
	return k;
}

/* What the kernel's lookup finds for @a: 0 and *@v, or -1 for nothing stored. */
static int lookup4(const char *a, struct wd_net_val *v)
{
	struct wd_net4_key k = key4(a, 32);

	return bpf_map_lookup_elem(fds[0], &k, v) ? -1 : 0;
}

static void put4(const char *a, unsigned int prefix, const struct wd_net_val *v)
{
	struct wd_net4_key k = key4(a, prefix);

	assert_int_equal(bpf_map_update_elem(fds[0], &k, v, BPF_ANY), 0);
}

static const struct wd_net_name api = {
	.name = "api.test", .proto = 1, .action = WD_ACTION_ALLOW, .port_lo = 443,
	.port_hi = 443, .id = 7,
};

static void test_opens_then_closes(void **state)
{
	struct wd_net_resolved s;
	struct wd_ruleset rs = { 0 };
	struct wd_net_val v;
	uint8_t a[4];

	(void)state;
	need_maps();
	wd_net_resolved_init(&s, fds, SB, &rs);
	inet_pton(AF_INET, "10.1.2.3", a);
	assert_int_equal(lookup4("10.1.2.3", &v), -1);
	assert_int_equal(wd_net_resolved_add(&s, AF_INET, a, &api, 1000), 0);
	assert_int_equal(lookup4("10.1.2.3", &v), 0);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.r[0].port_lo, 443);
	assert_int_equal(v.r[0].action, WD_NETA_ALLOW);
	assert_int_equal(v.r[0].rule, 7);
	/* the same answer again: one range, the later deadline */
	assert_int_equal(wd_net_resolved_add(&s, AF_INET, a, &api, 2000), 0);
	assert_int_equal(lookup4("10.1.2.3", &v), 0);
	assert_int_equal(v.n, 1);
	assert_int_equal(wd_net_resolved_timeout(&s, 500), 1500);
	wd_net_resolved_tick(&s, 1999);
	assert_int_equal(lookup4("10.1.2.3", &v), 0);
	wd_net_resolved_tick(&s, 2000);
	assert_int_equal(lookup4("10.1.2.3", &v), -1);
	assert_int_equal(wd_net_resolved_timeout(&s, 2000), -1);
	wd_net_resolved_free(&s);
}

static void test_covering_deny_kept_and_restored(void **state)
{
	struct wd_net_val deny = { .n = 1, .r = { { .port_lo = 0, .port_hi = 65535,
						    .action = WD_NETA_DENY, .rule = 3 } } };
	struct wd_net_resolved s;
	struct wd_ruleset rs = { 0 };
	struct wd_net_val v;
	uint8_t a[4];

	(void)state;
	need_maps();
	put4("10.9.0.0", 16, &deny);
	wd_net_resolved_init(&s, fds, SB, &rs);
	inet_pton(AF_INET, "10.9.1.1", a);
	assert_int_equal(wd_net_resolved_add(&s, AF_INET, a, &api, 10), 0);
	assert_int_equal(lookup4("10.9.1.1", &v), 0);
	assert_int_equal(v.n, 2); /* the deny of the block, then the name's allow */
	assert_int_equal(v.r[0].action, WD_NETA_DENY);
	assert_int_equal(v.r[1].rule, 7);
	wd_net_resolved_tick(&s, 10);
	assert_int_equal(lookup4("10.9.1.1", &v), 0);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.r[0].rule, 3);
	wd_net_resolved_free(&s);
}

static void test_host_block_stays_closed(void **state)
{
	struct wd_net_val host = { .flags = WD_NETV_HOST };
	struct wd_net_resolved s;
	struct wd_ruleset rs = { 0 };
	struct wd_net_val v;
	uint8_t a[4];

	(void)state;
	need_maps();
	put4("127.0.0.0", 8, &host);
	wd_net_resolved_init(&s, fds, SB, &rs);
	inet_pton(AF_INET, "127.0.0.1", a);
	assert_int_equal(wd_net_resolved_add(&s, AF_INET, a, &api, 10), 0);
	assert_int_equal(lookup4("127.0.0.1", &v), 0);
	assert_int_equal(v.n, 0);
	assert_true(v.flags & WD_NETV_HOST);
	assert_int_equal(s.n, 0);
	wd_net_resolved_free(&s);
}

static void test_ipv6(void **state)
{
	struct wd_net6_key k = { .prefixlen = 64 + 128,
				 .sandbox = { (__u32)SB, (__u32)(SB >> 32) } };
	struct wd_net_resolved s;
	struct wd_ruleset rs = { 0 };
	struct wd_net_val v;

	(void)state;
	need_maps();
	inet_pton(AF_INET6, "fd00::5", k.addr);
	wd_net_resolved_init(&s, fds, SB, &rs);
	assert_int_equal(wd_net_resolved_add(&s, AF_INET6, k.addr, &api, 10), 0);
	assert_int_equal(bpf_map_lookup_elem(fds[1], &k, &v), 0);
	assert_int_equal(v.n, 1);
	wd_net_resolved_tick(&s, 11);
	assert_int_not_equal(bpf_map_lookup_elem(fds[1], &k, &v), 0);
	wd_net_resolved_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_opens_then_closes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_covering_deny_kept_and_restored, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_host_block_stays_closed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ipv6, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
