// SPDX-License-Identifier: GPL-2.0
/* policy/net.c: network rule entries and their canonical text. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "policy/net.h"

/* @s parses, and prints back as @canon (which parses to the same rule). */
static void good(const char *s, const char *canon)
{
	struct wd_net_rule r = { 0 }, r2 = { 0 };
	char why[400], buf[400];

	if (wd_net_rule_parse(s, &r, why, sizeof(why)))
		fail_msg("\"%s\": %s", s, why);
	wd_net_rule_format(&r, buf, sizeof(buf));
	if (strcmp(buf, canon))
		fail_msg("\"%s\" prints as \"%s\", want \"%s\"", s, buf, canon);
	assert_int_equal(wd_net_rule_parse(buf, &r2, why, sizeof(why)), 0);
	assert_int_equal(wd_net_rule_cmp(&r, &r2), 0);
	free(r.name);
	free(r2.name);
}

static void bad(const char *s, const char *words)
{
	struct wd_net_rule r = { 0 };
	char why[400];

	assert_int_equal(wd_net_rule_parse(s, &r, why, sizeof(why)), -EINVAL);
	assert_null(r.name);
	if (!strstr(why, words))
		fail_msg("\"%s\": \"%s\" lacks \"%s\"", s, why, words);
}

static void test_forms(void **state)
{
	struct wd_net_rule r = { .origin = 7 };
	char why[200];

	(void)state;
	good("example.com:443", "example.com:443");
	good("tcp:API.Example.com.:443", "tcp:api.example.com:443");
	good("udp:*.example.com:53", "udp:*.example.com:53");
	good("localhost:8080", "localhost:8080");
	good("10.0.0.0/8:80-90", "10.0.0.0/8:80-90");
	good("10.1.2.3:1-65535", "10.1.2.3:1-65535");
	good("10.1.2.3/32:*", "10.1.2.3:*");
	good("0.0.0.0/0:22", "0.0.0.0/0:22");
	good("[::1]:8080", "[::1]:8080");
	good("[2001:db8::/32]:443", "[2001:db8::/32]:443");
	good("[2001:db8::]/32:443", "[2001:db8::/32]:443");
	good("[::ffff:10.0.0.1]:80", "10.0.0.1:80");
	good("[::ffff:10.0.0.0/104]:80", "10.0.0.0/8:80");
	good("[::ffff:0:0/96]:80", "0.0.0.0/0:80");
	good("*:*", "*:*");
	good("tcp:*:443", "tcp:*:443");
	good("3com.example:1", "3com.example:1");
	good("a-b.c:1", "a-b.c:1");

	assert_int_equal(wd_net_rule_parse("udp:[fe80::/10]:5353", &r, why, sizeof(why)), 0);
	assert_int_equal(r.origin, 7);
	assert_int_equal(r.proto, WD_NET_PROTO_UDP);
	assert_int_equal(r.kind, WD_NET_HOST_ADDR);
	assert_int_equal(r.family, AF_INET6);
	assert_int_equal(r.prefix, 10);
	assert_int_equal(r.addr[0], 0xfe);
	assert_int_equal(r.addr[1], 0x80);
	assert_int_equal(r.port_lo, 5353);
}

static void test_errors(void **state)
{
	(void)state;
	bad("example.com", "missing port");
	bad("[::1]", "missing port");
	bad("[::1]443", "missing port");
	bad("::1:443", "in brackets");
	bad("[::1:443", "without \"]\"");
	bad("icmp:host:1", "unknown protocol \"icmp\"");
	bad("TCP:host:1", "unknown protocol \"TCP\"");
	bad("host:0", "out of range");
	bad("host:65536", "out of range");
	bad("host:90-80", "runs backwards");
	bad("host:http", "expected a port");
	bad("host:80-", "expected a port");
	bad("host:", "expected a port");
	bad("10.0.0.1/8:1", "did you mean \"10.0.0.0/8\"?");
	bad("[2001:db8::1/32]:1", "did you mean \"[2001:db8::/32]\"?");
	bad("10.0.0.0/33:1", "0-32");
	bad("10.0.0.0/08:1", "0-32");
	bad("10.0.0.0/:1", "0-32");
	bad("[::/129]:1", "0-128");
	bad("1.2.3:1", "not a valid IPv4 address");
	bad("256.1.1.1:1", "not a valid IPv4 address");
	bad("01.2.3.4:1", "not a valid IPv4 address");
	bad("[1.2.3.4]:1", "not a valid IPv6 address");
	bad("123:1", "not a valid IPv4 address");
	bad("*example.com:1", "\"*.example.com\"");
	bad("a.*.com:1", "whole first label");
	bad("a..b:1", "not a host name");
	bad(".a:1", "not a host name");
	bad("-a.b:1", "not starting with");
	bad("a-.b:1", "not a host name");
	bad("a_b.c:1", "'_' is not allowed");
	bad("example.com/24:1", "goes with an address");
	bad("*/8:1", "goes with an address");
	bad(":80", "not a host name");
	bad("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.b:1", "1-63");
}

static void test_long_names(void **state)
{
	char s[600];

	(void)state;
	/* 253 characters is the most a DNS name has */
	memset(s, 0, sizeof(s));
	for (int i = 0; i < 4; i++)
		strcat(s, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.");
	strcat(s, "abcd:1");
	good(s, s);
	memmove(s + 2, s, strlen(s) + 1);
	s[0] = s[1] = 'b';
	bad(s, "1-253");
	memset(s, 'a', 500);
	s[500] = 0;
	strcat(s, ":1");
	bad(s, "longer than 253");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_long_names),
	};

	return cmocka_run_group_tests_name("net", tests, NULL, NULL);
}
