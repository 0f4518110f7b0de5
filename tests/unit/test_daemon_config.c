// SPDX-License-Identifier: GPL-2.0
/* supervisor/daemon/config.c: wardend's configuration file, its layers and its refusals. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "supervisor/daemon/config.h"

static char msg[1024];

static int parse(const char *json, struct wd_daemon_config *c)
{
	msg[0] = 0;
	return wd_daemon_config_parse("/etc/warden/wardend.json", json, c, msg, sizeof(msg));
}

static void test_defaults(void **state)
{
	struct wd_daemon_config c;

	(void)state;
	wd_daemon_config_defaults(&c);
	assert_int_equal(c.survive_s, 300);
	assert_int_equal(c.pool, 4);
	assert_int_equal(c.spares, 1);
	assert_string_equal(c.backend, "auto");
	assert_string_equal(c.approver_group, "");
	assert_true(c.approver_gid == (gid_t)-1);
	assert_int_equal(c.on_stop, WD_ON_STOP_KEEP);
	assert_int_equal(c.set, 0);
}

static void test_every_field(void **state)
{
	struct wd_daemon_config c;

	(void)state;
	wd_daemon_config_defaults(&c);
	assert_int_equal(parse("{\"survive\":60,\"pool\":0,\"spares\":3,\"backend\":\"landlock\","
			       "\"approver_group\":\"4242\",\"on_stop\":\"end\"}", &c), 0);
	assert_int_equal(c.survive_s, 60);
	assert_int_equal(c.pool, 0);
	assert_int_equal(c.spares, 3);
	assert_string_equal(c.backend, "landlock");
	assert_string_equal(c.approver_group, "4242");
	assert_int_equal(c.approver_gid, 4242);
	assert_int_equal(c.on_stop, WD_ON_STOP_END);
	assert_int_equal(c.set, WD_CFG_SURVIVE | WD_CFG_POOL | WD_CFG_SPARES | WD_CFG_BACKEND |
				     WD_CFG_APPROVERS | WD_CFG_ON_STOP);
}

/* An unknown key is refused by name, with the file's name, and nothing of the file is taken. */
static void test_unknown_key_refused_whole(void **state)
{
	struct wd_daemon_config c;

	(void)state;
	wd_daemon_config_defaults(&c);
	assert_int_equal(parse("{\"pool\":2,\"aprover_group\":\"4242\"}", &c), -EINVAL);
	assert_non_null(strstr(msg, "/etc/warden/wardend.json: unknown key \"aprover_group\""));
	assert_int_equal(c.pool, 4);
	assert_int_equal(c.set, 0);
}

static void test_bad_values(void **state)
{
	static const struct {
		const char *json, *says;
	} bad[] = {
		{ "{\"pool\":9}", "pool: wants 0 to 8" },
		{ "{\"pool\":1.5}", "pool: wants 0 to 8" },
		{ "{\"pool\":\"2\"}", "pool: wants 0 to 8" },
		{ "{\"spares\":5}", "spares: wants 0 to 4" },
		{ "{\"spares\":-1}", "spares: wants 0 to 4" },
		{ "{\"spares\":true}", "spares: wants 0 to 4" },
		{ "{\"survive\":0}", "survive: wants 1 to 86400" },
		{ "{\"survive\":86401}", "survive: wants 1 to 86400" },
		{ "{\"backend\":\"lsm\"}", "backend: wants auto, bpf-lsm or landlock" },
		{ "{\"on_stop\":\"kill\"}", "on_stop: wants \"keep\" or \"end\"" },
		{ "{\"approver_group\":\"0\"}", "approver_group: not group 0" },
		{ "{\"approver_group\":\"root\"}", "approver_group: not group 0" },
		{ "{\"approver_group\":\"no-such-group-here\"}", "approver_group: no group" },
		{ "{\"approver_group\":5}", "approver_group: wants a group's name" },
		{ "[1]", "not a JSON object" },
		{ "{\"pool\":", "not a JSON object" },
	};
	struct wd_daemon_config c;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		wd_daemon_config_defaults(&c);
		assert_int_equal(parse(bad[i].json, &c), -EINVAL);
		if (!strstr(msg, bad[i].says))
			fail_msg("%s: said \"%s\", not \"%s\"", bad[i].json, msg, bad[i].says);
	}
}

/* null takes an approver group away (a reload to root's alone). */
static void test_null_group(void **state)
{
	struct wd_daemon_config c;

	(void)state;
	wd_daemon_config_defaults(&c);
	assert_int_equal(parse("{\"approver_group\":\"4242\"}", &c), 0);
	assert_int_equal(parse("{\"approver_group\":null}", &c), 0);
	assert_string_equal(c.approver_group, "");
	assert_true(c.approver_gid == (gid_t)-1);
}

/* The command line over the file: only what it set. */
static void test_overlay(void **state)
{
	struct wd_daemon_config c, cli = { 0 };

	(void)state;
	wd_daemon_config_defaults(&c);
	assert_int_equal(parse("{\"pool\":2,\"survive\":60}", &c), 0);
	cli.pool = 1;
	cli.spares = 0;
	cli.set = WD_CFG_POOL | WD_CFG_SPARES;
	wd_daemon_config_overlay(&c, &cli);
	assert_int_equal(c.pool, 1);
	assert_int_equal(c.spares, 0);
	assert_int_equal(c.survive_s, 60);
	assert_string_equal(c.backend, "auto");
}

static void test_read_missing_and_large(void **state)
{
	char path[] = "/tmp/wd-daemon-config-XXXXXX";
	struct wd_daemon_config c;
	int fd;
	char *big;

	(void)state;
	wd_daemon_config_defaults(&c);
	assert_int_equal(wd_daemon_config_read("/nonexistent/wardend.json", true, &c, msg,
					       sizeof(msg)), -ENOENT);
	assert_int_equal(wd_daemon_config_read("/nonexistent/wardend.json", false, &c, msg,
					       sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "/nonexistent/wardend.json: "));
	fd = mkstemp(path);
	assert_true(fd >= 0);
	big = malloc(70000);
	assert_non_null(big);
	memset(big, ' ', 70000);
	big[0] = '{';
	big[69999] = '}';
	assert_int_equal(write(fd, big, 70000), 70000);
	close(fd);
	assert_int_equal(wd_daemon_config_read(path, false, &c, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "larger than 64 KiB"));
	unlink(path);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_every_field),
		cmocka_unit_test(test_unknown_key_refused_whole),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_null_group),
		cmocka_unit_test(test_overlay),
		cmocka_unit_test(test_read_missing_and_large),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
