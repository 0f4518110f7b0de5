// SPDX-License-Identifier: GPL-2.0
/*
 * policy/net_keys.c: net rules compiled into LPM prefixes and the sandbox's settings. The
 * kernel's lookup (bpf/wd_net.bpf.c: the longest stored prefix, then its ranges) is modelled
 * here to check what an address gets.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "policy/compile.h"
#include "policy/net_keys.h"

static void compile(const char *net, struct wd_ruleset *rs)
{
	char json[2048];
	struct wd_policy p;
	struct wd_policy_error e;

	snprintf(json, sizeof(json), "{\"schema\":\"warden.policy/1\",\"net\":%s}", net);
	if (wd_policy_parse(json, strlen(json), &p, &e))
		fail_msg("parse: %s: %s", e.pointer, e.msg);
	if (wd_compile(&p, rs, &e))
		fail_msg("compile: %s: %s", e.pointer, e.msg);
	wd_policy_free(&p);
}

static struct wd_net_block block(const char *a)
{
	struct wd_net_block b = { 0 };

	if (strchr(a, ':')) {
		b.family = AF_INET6;
		b.prefix = 128;
		assert_int_equal(inet_pton(AF_INET6, a, b.addr), 1);
	} else {
		b.family = AF_INET;
		b.prefix = 32;
		assert_int_equal(inet_pton(AF_INET, a, b.addr), 1);
	}
	return b;
}

/* The kernel's answer for @a: "allow NAME" or "deny NAME" (NAME the rule). */
static const char *decide(const struct wd_ruleset *rs, const struct wd_net_node *v, size_t n,
			  const char *a, __u8 proto, __u16 port)
{
	static char out[128];
	struct wd_net_block at = block(a);
	const struct wd_net_node *best = NULL;
	bool allow = rs->net_default == WD_ACTION_ALLOW, allowed = false;
	__u32 rule = WD_RULE_DEFAULT, arule = 0;

	for (size_t i = 0; i < n; i++)
		if (wd_net_block_covers(&v[i].at, &at) && (!best || v[i].at.prefix > best->at.prefix))
			best = &v[i];
	if (best && (best->val.flags & WD_NETV_HOST)) {
		allow = false;
		rule = WD_RULE_NET_HOST;
	}
	for (size_t i = 0; best && i < best->val.n; i++) {
		const struct wd_net_range *r = &best->val.r[i];

		if ((r->proto && r->proto != proto) || port < r->port_lo || port > r->port_hi)
			continue;
		if (r->action == WD_NETA_DENY) {
			snprintf(out, sizeof(out), "deny %s", wd_ruleset_rule_name(rs, r->rule));
			return out;
		}
		if (!allowed) {
			allowed = true;
			arule = r->rule;
		}
	}
	if (allowed) {
		allow = true;
		rule = arule;
	}
	snprintf(out, sizeof(out), "%s %s", allow ? "allow" : "deny",
		 rule == WD_RULE_NET_HOST ? "host" : wd_ruleset_rule_name(rs, rule));
	return out;
}

static void test_longest_prefix_carries_the_rules_above(void **state)
{
	struct wd_ruleset rs;
	struct wd_net_node *v;
	size_t n;
	char why[256];

	(void)state;
	compile("{\"allow\":[\"tcp:10.0.0.0/8:443\",\"*:80\",\"udp:[2001:db8::/32]:53\"],"
		"\"deny\":[\"10.1.0.0/16:*\"]}",
		&rs);
	assert_int_equal(wd_net_nodes(&rs, NULL, 0, &v, &n, why, sizeof(why)), 0);
	/* 10/8, 10.1/16, 0/0 and ::/0 for "*", 2001:db8::/32 */
	assert_int_equal(n, 5);
	assert_string_equal(decide(&rs, v, n, "10.2.3.4", WD_NETP_TCP, 443), "allow /net/allow/0");
	assert_string_equal(decide(&rs, v, n, "10.2.3.4", WD_NETP_UDP, 443), "deny default");
	assert_string_equal(decide(&rs, v, n, "10.2.3.4", WD_NETP_TCP, 444), "deny default");
	/* the deny of 10.1/16 beats both allows that cover it */
	assert_string_equal(decide(&rs, v, n, "10.1.0.9", WD_NETP_TCP, 443), "deny /net/deny/0");
	assert_string_equal(decide(&rs, v, n, "10.1.0.9", WD_NETP_TCP, 80), "deny /net/deny/0");
	/* "*" inside 10/8's prefix still applies there */
	assert_string_equal(decide(&rs, v, n, "10.2.3.4", WD_NETP_UDP, 80), "allow /net/allow/1");
	assert_string_equal(decide(&rs, v, n, "192.0.2.1", WD_NETP_TCP, 80), "allow /net/allow/1");
	assert_string_equal(decide(&rs, v, n, "2001:db8::1", WD_NETP_UDP, 53),
			    "allow /net/allow/2");
	assert_string_equal(decide(&rs, v, n, "2001:db8::1", WD_NETP_TCP, 53), "deny default");
	assert_string_equal(decide(&rs, v, n, "2001:db9::1", WD_NETP_TCP, 80),
			    "allow /net/allow/1");
	free(v);
	wd_ruleset_free(&rs);
}

static void test_host_addresses_need_a_rule_naming_them(void **state)
{
	struct wd_net_block host[8];
	struct wd_ruleset rs;
	struct wd_net_node *v;
	size_t n, nh;
	char why[256];

	(void)state;
	nh = wd_net_loopback_blocks(host, 8);
	host[nh++] = block("192.168.7.5");
	compile("{\"default\":\"allow\",\"allow\":[\"*:*\",\"192.168.0.0/16:22\","
		"\"tcp:127.0.0.1:5432\"],\"deny\":[\"*:25\"]}",
		&rs);
	assert_int_equal(wd_net_nodes(&rs, host, nh, &v, &n, why, sizeof(why)), 0);
	/* neither "*" nor the default nor a block around it opens a host address */
	assert_string_equal(decide(&rs, v, n, "127.0.0.1", WD_NETP_TCP, 80), "deny host");
	assert_string_equal(decide(&rs, v, n, "127.3.4.5", WD_NETP_TCP, 80), "deny host");
	assert_string_equal(decide(&rs, v, n, "0.0.0.0", WD_NETP_TCP, 80), "deny host");
	assert_string_equal(decide(&rs, v, n, "::1", WD_NETP_TCP, 80), "deny host");
	assert_string_equal(decide(&rs, v, n, "::", WD_NETP_TCP, 80), "deny host");
	assert_string_equal(decide(&rs, v, n, "192.168.7.5", WD_NETP_TCP, 22), "deny host");
	/* a rule naming it does */
	assert_string_equal(decide(&rs, v, n, "127.0.0.1", WD_NETP_TCP, 5432),
			    "allow /net/allow/2");
	assert_string_equal(decide(&rs, v, n, "127.0.0.1", WD_NETP_UDP, 5432), "deny host");
	/* a deny reaches into host blocks as anywhere */
	assert_string_equal(decide(&rs, v, n, "127.0.0.1", WD_NETP_TCP, 25), "deny /net/deny/0");
	/* the neighbours are not host addresses */
	assert_string_equal(decide(&rs, v, n, "192.168.7.6", WD_NETP_TCP, 22),
			    "allow /net/allow/0");
	assert_string_equal(decide(&rs, v, n, "128.0.0.1", WD_NETP_TCP, 80), "allow /net/allow/0");
	free(v);
	wd_ruleset_free(&rs);
}

static void test_too_many_rules_on_one_prefix(void **state)
{
	char net[2048], *p = net;
	struct wd_ruleset rs;
	struct wd_net_node *v;
	size_t n;
	char why[256] = "";

	(void)state;
	p += sprintf(p, "{\"allow\":[");
	for (int i = 0; i <= WD_NET_RANGES; i++)
		p += sprintf(p, "%s\"10.0.0.0/8:%d\"", i ? "," : "", 1000 + i);
	sprintf(p, "]}");
	compile(net, &rs);
	assert_int_equal(wd_net_nodes(&rs, NULL, 0, &v, &n, why, sizeof(why)), -E2BIG);
	assert_non_null(strstr(why, "10.0.0.0/8"));
	assert_non_null(strstr(why, "/net/allow/16"));
	wd_ruleset_free(&rs);
}

static void test_settings_and_listen(void **state)
{
	struct wd_ruleset rs;
	struct wd_net_cfg cfg;
	char why[256];

	(void)state;
	compile("{\"ping\":true,\"listen\":[\"tcp:8080\",\"udp:127.0.0.1:5000-5009\",\"*\"]}", &rs);
	assert_int_equal(wd_net_cfg_of(&rs, &cfg, why, sizeof(why)), 0);
	assert_int_equal(cfg.flags, WD_NETC_ON | WD_NETC_PING);
	assert_int_equal(cfg.def, WD_NETA_DENY);
	assert_int_equal(cfg.n_listen, 3);
	assert_int_equal(cfg.listen[0].proto, WD_NETP_TCP);
	assert_int_equal(cfg.listen[0].port_lo, 8080);
	assert_int_equal(cfg.listen[0].port_hi, 8080);
	assert_int_equal(cfg.listen[0].family, 0);
	assert_int_equal(cfg.listen[1].proto, WD_NETP_UDP);
	assert_int_equal(cfg.listen[1].family, AF_INET);
	assert_int_equal(cfg.listen[1].prefix, 32);
	assert_int_equal(cfg.listen[1].port_hi, 5009);
	assert_int_equal(cfg.listen[2].proto, WD_NETP_ANY);
	assert_int_equal(cfg.listen[2].port_lo, 0);
	assert_int_equal(cfg.listen[2].port_hi, 65535);
	assert_string_equal(wd_ruleset_rule_name(&rs, cfg.listen[1].rule), "/net/listen/1");
	wd_ruleset_free(&rs);
}

static void test_no_net_rules_nothing(void **state)
{
	struct wd_ruleset rs;
	struct wd_policy p;
	struct wd_policy_error e;
	struct wd_net_cfg cfg;
	const char *json = "{\"schema\":\"warden.policy/1\",\"fs\":{\"read\":[\"/usr\"]}}";
	char why[256];

	(void)state;
	assert_int_equal(wd_policy_parse(json, strlen(json), &p, &e), 0);
	assert_int_equal(wd_compile(&p, &rs, &e), 0);
	assert_false(rs.net_on);
	assert_int_equal(wd_net_cfg_of(&rs, &cfg, why, sizeof(why)), 0);
	assert_int_equal(cfg.flags, 0);
	wd_policy_free(&p);
	wd_ruleset_free(&rs);
}

static void test_listen_names_refused(void **state)
{
	const char *json = "{\"schema\":\"warden.policy/1\",\"net\":{\"listen\":"
			   "[\"tcp:example.com:80\"]}}";
	struct wd_policy p;
	struct wd_policy_error e;

	(void)state;
	assert_int_equal(wd_policy_parse(json, strlen(json), &p, &e), -EINVAL);
	assert_string_equal(e.pointer, "/net/listen/0");
	assert_non_null(strstr(e.msg, "not a name"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_longest_prefix_carries_the_rules_above),
		cmocka_unit_test(test_host_addresses_need_a_rule_naming_them),
		cmocka_unit_test(test_too_many_rules_on_one_prefix),
		cmocka_unit_test(test_settings_and_listen),
		cmocka_unit_test(test_no_net_rules_nothing),
		cmocka_unit_test(test_listen_names_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
