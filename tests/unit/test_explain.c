// SPDX-License-Identifier: GPL-2.0
/* policy/explain.c: plain words for every template, explain --json, canonical JSON. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "policy/explain.h"
#include "policy/templates.h"

static const struct wd_policy_vars vars = {
	.workdir = "/w/proj", .home = "/home/u", .tmpdir = "/tmp",
};

static void load(const char *name, const struct wd_policy_derive *d, struct wd_policy *p)
{
	struct wd_load_opts o = { .derive = d };
	struct wd_policy_errors errs = { 0 };

	if (wd_policy_load(name, &o, p, &errs))
		fail_msg("%s: %s", name, errs.n ? errs.v[0].msg : "?");
	wd_policy_errors_free(&errs);
}

static char *explain(const char *name, const struct wd_policy_derive *d)
{
	struct wd_policy p;
	char *buf = NULL, display[64];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	load(name, d, &p);
	wd_policy_source_name(name, display, sizeof(display));
	wd_policy_explain(&p, display, &vars, f);
	fclose(f);
	wd_policy_free(&p);
	return buf;
}

static void test_cli_in_full(void **state)
{
	char *text = explain("cli", NULL);

	(void)state;
	assert_string_equal(
		text,
		"policy template cli\n"
		"mode: enforce: what the rules do not allow is denied, and recorded (the default)\n"
		"\n"
		"files (a rule covers the path and everything under it):\n"
		"  may read under /usr\n"
		"  may read and execute under /lib\n"
		"  may read and execute under /lib64\n"
		"  may read and execute under /bin\n"
		"  may read under /sbin\n"
		"  may read under /etc/ld.so.cache\n"
		"  may read under /etc/localtime\n"
		"  may read under /etc/passwd\n"
		"  may read under /etc/group\n"
		"  may read under /etc/nsswitch.conf\n"
		"  may read under /dev/zero\n"
		"  may read under /dev/urandom\n"
		"  may read and write under $WORKDIR\n"
		"  may read and write under $TMPDIR\n"
		"  may read and write under /dev/null\n"
		"  may execute under /usr/bin\n"
		"  may execute under /usr/local/bin\n"
		"  may execute under /usr/lib\n"
		"  everything else: denied\n"
		"\n"
		"programs:\n"
		"  may run any program the file rules let it execute\n"
		"\n"
		"network:\n"
		"  not stated, so the network is not ruled: the sandbox has the host's network as "
		"warden does (state net to rule it)\n"
		"\n"
		"limits:\n"
		"  none\n"
		"\n"
		"environment:\n"
		"  a clean one, not warden's: PATH (a fixed safe one), HOME, USER and LOGNAME of the "
		"user it runs as, and TERM, LANG, LANGUAGE, LC_ALL and the other LC_ categories and "
		"TZ from warden's environment where set\n"
		"  nothing else of warden's environment: a secret in it stays out unless env.pass "
		"names it (this is a change: warden once passed its own)\n"
		"\n"
		"user:\n"
		"  runs as the user warden runs as\n"
		"  keeps no capabilities, even as root (empty bounding set, no_new_privs)\n"
		"\n"
		"namespaces:\n"
		"  the host's\n"
		"\n"
		"holds:\n"
		"  none: nothing waits for an operator\n"
		"\n"
		"variables (expanded when warden run starts):\n"
		"  $WORKDIR: the directory warden run starts in, here /w/proj\n"
		"  $TMPDIR: warden's $TMPDIR, else /tmp, here /tmp\n"
		"\n"
		"enforcement:\n"
		"  warden run enforces all of it\n");
	free(text);
}

/* Lines each template's explanation must hold, in words an operator reads. */
static const struct {
	const char *name;
	const char *lines[8];
} expected[] = {
	{ "cli", { "may read and write under $WORKDIR\n", "  the host's\n",
		   "warden run enforces all of it" } },
	{ "fs-tool",
	  { "made of: template cli, template fs-tool",
	    "may not read, write or execute anything under $WORKDIR/.git/hooks (deny wins)",
	    "may delete, rename or truncate under $WORKDIR/.git only when an operator approves",
	    "is killed after 30m of wall-clock time", "may have at most 64 processes",
	    "a held call waits at most 5m for a decision, then is denied",
	    "root may approve or deny", "warden run enforces all of it" } },
	{ "http-client",
	  { "may read under /etc/ssl ", "(template http-client)",
	    "may connect only where allowed below (default deny, loopback included)",
	    "may connect to any host, tcp port 443", "may send at most 10MiB a second",
	    "may use at most 1GiB of memory", "keeps at most 64MiB of standard output and error",
	    "warden run enforces all of it" } },
	{ "postgres-client",
	  { "may read under $HOME/.pgpass", "may connect to 127.0.0.1, tcp port 5432",
	    "may connect to ::1, tcp port 5432", "and only these variables besides:",
	    "any variable matching PG* from warden's environment",
	    "$HOME: warden's $HOME, here /home/u" } },
	{ "sqlite-app",
	  { "may read under $WORKDIR\n", "may read and write under $WORKDIR/data\n",
	    "may read and write under /var/tmp", "may start at most 10 processes a second",
	    "keeps at most 16MiB of standard output and error",
	    "warden run enforces all of it" } },
	{ "web-service",
	  { "may read under $WORKDIR\n", "may read and write under $WORKDIR/data",
	    "may not connect anywhere, loopback included (default deny)",
	    "PORT from warden's environment", "runs as user www-data (and its groups)",
	    "pid namespace: its own", "ipc namespace: its own" } },
	{ "worker",
	  { "may read and write under $WORKDIR/out", "may not run /usr/bin/sudo",
	    "may not run /usr/bin/git with arguments push (any more)",
	    "is killed after 30m of CPU time", "may start at most 20 processes a second",
	    "LANG set to \"C.UTF-8\"", "net namespace: its own, with loopback only",
	    "warden run enforces all of it" } },
	{ "worker-parallel",
	  { "made of: template worker, template worker-parallel",
	    "may have at most 1024 processes and threads at once           (template "
	    "worker-parallel)",
	    "is killed after 1h of wall-clock time                         (template worker)",
	    "may use at most 8GiB of memory",
	    "warden run enforces all of it" } },
};

static void test_every_template(void **state)
{
	size_t n = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
		char *text = explain(expected[i].name, NULL);

		for (size_t j = 0; j < 8 && expected[i].lines[j]; j++)
			if (!strstr(text, expected[i].lines[j]))
				fail_msg("%s: no \"%s\" in:\n%s", expected[i].name,
					 expected[i].lines[j], text);
		/* every section is there, in order */
		assert_non_null(strstr(text, "\nfiles (a rule covers"));
		assert_true(strstr(text, "\nprograms:\n") < strstr(text, "\nnetwork:\n"));
		assert_true(strstr(text, "\nlimits:\n") < strstr(text, "\nholds:\n"));
		assert_non_null(strstr(text, "\nenforcement:\n"));
		free(text);
	}
	for (const struct wd_template *t = wd_templates; t->name; t++)
		n++;
	assert_int_equal(n, sizeof(expected) / sizeof(expected[0]));
}

static void test_derived_shown(void **state)
{
	struct wd_policy_derive d = { 0 };
	char *text;

	(void)state;
	wd_policy_derive_add(&d, WD_DERIVE_ALLOW_READ, "/srv/data");
	wd_policy_derive_add(&d, WD_DERIVE_ALLOW_HOST, "udp:*.example.com:53");
	wd_policy_derive_add(&d, WD_DERIVE_DENY_HOST, "10.0.0.0/8:*");
	wd_policy_derive_add(&d, WD_DERIVE_MODE, "audit");
	wd_policy_derive_add(&d, WD_DERIVE_LIMIT, "wall_time=90s");
	wd_policy_derive_add(&d, WD_DERIVE_ALLOW_EXEC, "/opt/tool/bin");
	wd_policy_derive_add(&d, WD_DERIVE_ALLOW_WRITE, "/srv/out");
	text = explain("cli", &d);
	assert_non_null(strstr(text, "made of: template cli, --allow-read, --allow-host, "
				     "--deny-host, --mode, --limit, --allow-exec, --allow-write"));
	assert_non_null(strstr(text, "mode: audit: what the rules would deny is allowed, and "
				     "recorded as \"audit\"\n"));
	assert_non_null(strstr(text, "  may read under /srv/data"));
	assert_non_null(strstr(text, "(--allow-read)\n"));
	assert_non_null(strstr(text, "  may connect only where allowed below"));
	assert_non_null(strstr(text, "  may connect to any name under example.com, udp port 53"));
	assert_non_null(strstr(text, "  may not connect to 10.0.0.0/8, tcp and udp any port"));
	assert_non_null(strstr(text, "  is killed after 1m30s of wall-clock time"));
	assert_non_null(strstr(text, "  may execute under /opt/tool/bin"));
	assert_non_null(strstr(text, "  may read and write under /srv/out"));
	/* the first part refused is named with the flag it came from */
	/* names (the DNS forwarder) and wall_time are enforced: nothing of it is refused */
	assert_non_null(strstr(text, "warden run enforces all of it"));
	free(text);
	wd_policy_derive_free(&d);
}

static void test_more_words(void **state)
{
	const char *json =
		"{\"schema\":\"warden.policy/1\",\"fs\":{\"protect\":[{\"path\":\"/d\","
		"\"ops\":[\"rename\"]}]},\"exec\":{\"allow\":[\"/usr/bin/make\"],\"hold\":"
		"[{\"path\":"
		"\"/bin/rm\",\"argv\":[]}]},\"net\":{\"default\":\"allow\",\"deny\":[\"*:25\"]},"
		"\"env\":{\"set\":{\"A\":\"1\"}},\"user\":\"a:b\",\"namespaces\":{\"net\":"
		"\"veth\"},"
		"\"hold\":{\"on_timeout\":\"allow\",\"approvers\":[\"group:ops\",\"user:amy\"]},"
		"\"caps\":[\"CAP_NET_BIND_SERVICE\"]}";
	struct wd_load_opts o = { 0 };
	struct wd_policy_errors errs = { 0 };
	struct wd_policy p;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(wd_policy_load_text(json, strlen(json), "p.json", &o, &p, &errs), 0);
	wd_policy_explain(&p, "p.json", NULL, f);
	fclose(f);
	assert_non_null(strstr(buf, "nothing: every open and exec is denied"));
	assert_non_null(strstr(buf, "may not rename under /d"));
	assert_non_null(strstr(buf, "may run only the programs listed"));
	assert_non_null(strstr(buf, "may run /usr/bin/make\n"));
	assert_non_null(strstr(buf, "may run /bin/rm with no arguments only when an operator"));
	assert_non_null(strstr(buf, "may connect anywhere not denied below (default allow)"));
	assert_non_null(strstr(buf, "may not connect to any host, tcp and udp port 25"));
	assert_non_null(strstr(buf, "A set to \"1\""));
	assert_non_null(strstr(buf, "runs as user a, group b"));
	assert_non_null(strstr(buf, "keeps CAP_NET_BIND_SERVICE: may bind TCP and UDP ports below "
				    "1024"));
	assert_null(strstr(buf, "keeps no capabilities"));
	assert_non_null(strstr(buf, "net namespace: its own, with a veth pair to the host"));
	assert_non_null(strstr(buf, "waits at most 5m for a decision, then is allowed"));
	assert_non_null(strstr(buf, "members of group ops may approve or deny"));
	assert_non_null(strstr(buf, "user amy may approve or deny"));
	assert_null(strstr(buf, "\nvariables ("));
	free(buf);
	wd_policy_free(&p);
}

static void test_json(void **state)
{
	struct wd_policy p;
	cJSON *doc, *eff, *item;
	char *s;

	(void)state;
	load("worker-parallel", NULL, &p);
	doc = wd_policy_explain_json(&p, "template worker-parallel", &vars);
	assert_non_null(doc);
	assert_string_equal(cJSON_GetObjectItem(doc, "schema")->valuestring, "warden.explain/1");
	assert_string_equal(cJSON_GetObjectItem(doc, "policy")->valuestring,
			    "template worker-parallel");
	item = cJSON_GetObjectItem(doc, "sources");
	assert_int_equal(cJSON_GetArraySize(item), 2);
	assert_string_equal(cJSON_GetArrayItem(item, 0)->valuestring, "template worker");
	/* runnable on some backend (fork_rate on bpf-lsm only: the guarantee table says so) */
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(doc, "runnable")));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "unenforced")), 0);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "variables"),
						"WORKDIR")->valuestring,
			    "/w/proj");
	eff = cJSON_GetObjectItem(doc, "effective");
	assert_null(cJSON_GetObjectItem(eff, "extends"));
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(eff, "limits"),
					     "pids")->valueint,
			 1024);
	item = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "explanation"), 0);
	assert_string_equal(cJSON_GetObjectItem(item, "section")->valuestring, "files");
	assert_string_equal(cJSON_GetObjectItem(item, "text")->valuestring, "may read under /usr");
	assert_string_equal(cJSON_GetObjectItem(item, "pointer")->valuestring, "/fs/read/0");
	assert_string_equal(cJSON_GetObjectItem(item, "from")->valuestring,
			    "template worker");
	s = cJSON_PrintUnformatted(eff);
	assert_string_equal(
		s,
		"{\"schema\":\"warden.policy/1\",\"fs\":{\"read\":[\"/usr\",\"/lib\",\"/lib64\","
		"\"/bin\",\"/etc/ld.so.cache\",\"/etc/localtime\",\"/etc/passwd\",\"/etc/group\","
		"\"/dev/zero\",\"/dev/urandom\",\"$WORKDIR\"],\"write\":[\"$WORKDIR/out\","
		"\"$TMPDIR\",\"/dev/null\"],\"exec\":[\"/usr/bin\",\"/bin\",\"/usr/local/bin\","
		"\"/usr/lib\",\"/lib\",\"/lib64\"]},"
		"\"exec\":{\"deny\":[\"/usr/bin/sudo\",\"/usr/bin/su\",{\"path\":\"/usr/bin/git\","
		"\"argv\":[\"push\",\"**\"]}]},\"limits\":{\"wall_time\":\"1h\",\"cpu_time\":"
		"\"4h\","
		"\"memory\":\"8GiB\",\"pids\":1024,\"fork_rate\":\"200/s\",\"output\":\"64MiB\"},"
		"\"env\":{\"pass\":[\"PATH\",\"TZ\"],\"set\":{\"LANG\":\"C.UTF-8\","
		"\"LC_ALL\":\"C.UTF-8\"}},\"namespaces\":{\"pid\":\"private\",\"ipc\":\"private\","
		"\"net\":\"none\"}}");
	free(s);
	cJSON_Delete(doc);
	wd_policy_free(&p);
}

/* Every part of the schema prints canonically and reads back the same. */
static void test_canonical_round_trip(void **state)
{
	const char *json =
		"{\"schema\":\"warden.policy/1\",\"extends\":[\"cli\",\"./x.json\"],\"mode\":"
		"\"audit\","
		"\"fs\":{\"read\":[\"/a\"],\"write\":[\"$HOME\"],\"exec\":[\"/b\"],\"deny\":"
		"[\"/c\"],"
		"\"protect\":[\"/d\",{\"path\":\"/e\",\"ops\":[\"truncate\"],\"action\":"
		"\"hold\"}]},"
		"\"exec\":{\"allow\":[\"/f\"],\"deny\":[{\"path\":\"/g\",\"argv\":[]}],\"hold\":"
		"[{\"path\":\"/h\",\"argv\":[\"-x\",\"**\"]}]},\"net\":{\"default\":\"allow\","
		"\"allow\":[\"TCP.example:1\",\"[::ffff:1.2.3.4]:5-6\"],\"deny\":[\"*:*\"],"
		"\"egress_rate\":\"1024KiB/s\"},\"limits\":{\"wall_time\":\"90s\",\"cpu_time\":"
		"\"1000ms\","
		"\"memory\":\"1024MiB\",\"pids\":5,\"fork_rate\":\"60/m\",\"output\":\"1000B\"},"
		"\"env\":{\"pass\":[\"A*\"],\"set\":{\"B\":\"\\\"\\n\"}},\"user\":7,"
		"\"namespaces\":{\"mount\":\"private\",\"net\":\"host\"},\"hold\":{\"timeout\":"
		"\"60s\","
		"\"on_timeout\":\"deny\",\"approvers\":[\"group:g\"]}}";
	const char *want =
		"{\"schema\":\"warden.policy/1\",\"extends\":[\"cli\",\"./x.json\"],\"mode\":"
		"\"audit\","
		"\"fs\":{\"read\":[\"/a\"],\"write\":[\"$HOME\"],\"exec\":[\"/b\"],\"deny\":"
		"[\"/c\"],"
		"\"protect\":[{\"path\":\"/d\",\"ops\":[\"delete\",\"rename\",\"truncate\"],"
		"\"action\":\"deny\"},{\"path\":\"/e\",\"ops\":[\"truncate\"],\"action\":"
		"\"hold\"}]},"
		"\"exec\":{\"allow\":[\"/f\"],\"deny\":[{\"path\":\"/g\",\"argv\":[]}],\"hold\":"
		"[{\"path\":\"/h\",\"argv\":[\"-x\",\"**\"]}]},\"net\":{\"default\":\"allow\","
		"\"allow\":[\"tcp.example:1\",\"1.2.3.4:5-6\"],\"deny\":[\"*:*\"],"
		"\"egress_rate\":\"1MiB/s\"},\"limits\":{\"wall_time\":\"1m30s\",\"cpu_time\":"
		"\"1s\","
		"\"memory\":\"1GiB\",\"pids\":5,\"fork_rate\":\"60/m\",\"output\":\"1KB\"},"
		"\"env\":{\"pass\":[\"A*\"],\"set\":{\"B\":\"\\\"\\n\"}},\"user\":\"7\","
		"\"namespaces\":{\"mount\":\"private\",\"net\":\"host\"},\"hold\":{\"timeout\":"
		"\"1m\","
		"\"on_timeout\":\"deny\",\"approvers\":[\"group:g\"]}}";
	struct wd_policy p, q;
	struct wd_policy_error e;
	cJSON *j;
	char *s, *s2;

	(void)state;
	assert_int_equal(wd_policy_parse(json, strlen(json), &p, &e), 0);
	j = wd_policy_to_json(&p);
	s = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	assert_string_equal(s, want);
	assert_int_equal(wd_policy_parse(s, strlen(s), &q, &e), 0);
	j = wd_policy_to_json(&q);
	s2 = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	assert_string_equal(s, s2);
	free(s);
	free(s2);
	wd_policy_free(&p);
	wd_policy_free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli_in_full),
		cmocka_unit_test(test_every_template),
		cmocka_unit_test(test_derived_shown),
		cmocka_unit_test(test_more_words),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_canonical_round_trip),
	};

	return cmocka_run_group_tests_name("explain", tests, NULL, NULL);
}
