// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the policy parser and compiler (`make fuzz`). Input starting with a byte
 * below 8 is a command-line addition (the byte picks which) applied on top of the cli template;
 * anything else is a policy document. Beyond "no crash, no leak, no undefined behaviour" it
 * checks what must hold for every input: every error has a message and a sane position; a valid
 * policy prints as canonical JSON that parses back and prints the same; it expands, compiles,
 * dumps and explains.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "policy/compile.h"
#include "policy/effective.h"
#include "policy/explain.h"
#include "policy/json_locate.h"
#include "policy/net.h"
#include "policy/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_errors(const struct wd_policy_errors *errs, int err)
{
	if (err == -EINVAL && errs->n == 0 && errs->dropped == 0)
		abort(); /* refused without saying why */
	for (size_t i = 0; i < errs->n; i++) {
		const struct wd_policy_error *e = &errs->v[i];

		if (!e->msg[0] || e->line < 0 || e->col < 0 || (e->line && !e->col))
			abort();
	}
}

static char *print(const struct wd_policy *p)
{
	cJSON *j = wd_policy_to_json(p);
	char *s = j ? cJSON_PrintUnformatted(j) : NULL;

	cJSON_Delete(j);
	return s;
}

/* Parse the canonical form back: it must be valid and print the same. */
static void round_trip(const struct wd_policy *p)
{
	struct wd_policy_errors errs = { 0 };
	struct wd_policy q;
	char *a = print(p), *b;

	if (!a)
		return;
	if (wd_policy_parse_all(a, strlen(a), &q, &errs)) {
		fprintf(stderr, "canonical form does not parse: %s\n%s: %s\n", a,
			errs.n ? errs.v[0].pointer : "", errs.n ? errs.v[0].msg : "");
		abort();
	}
	b = print(&q);
	if (b && strcmp(a, b)) {
		fprintf(stderr, "canonical form changes:\n%s\n%s\n", a, b);
		abort();
	}
	free(b);
	free(a);
	wd_policy_free(&q);
	wd_policy_errors_free(&errs);
}

static void use(const struct wd_policy *p)
{
	struct wd_policy_vars vars = { .workdir = "/work", .home = "/home/u", .tmpdir = "/tmp" };
	struct wd_policy_errors errs = { 0 };
	struct wd_policy x = { 0 };
	struct wd_policy_error e;
	struct wd_ruleset rs;
	char why[1024], *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cJSON *j;

	round_trip(p);
	wd_policy_unenforced(p, why, sizeof(why));
	if (f) {
		wd_policy_explain(p, "fuzz", &vars, f);
		fclose(f);
		free(buf);
	}
	j = wd_policy_explain_json(p, "fuzz", &vars);
	cJSON_Delete(j);
	if (wd_policy_merge(&x, p) == 0 && wd_policy_expand(&x, &vars, &errs) == 0 &&
	    wd_compile(&x, &rs, &e) == 0) {
		buf = NULL;
		f = open_memstream(&buf, &len);
		if (f) {
			wd_ruleset_dump(&rs, f);
			fclose(f);
			free(buf);
		}
		for (size_t i = 0; i < rs.n_rules; i++)
			if (!rs.rule_names[i])
				abort();
		wd_ruleset_free(&rs);
	}
	wd_policy_free(&x);
	wd_policy_errors_free(&errs);
}

/* The small parsers straight, on the input as one string. */
static void parse_units(const char *s)
{
	struct wd_net_rule r = { 0 };
	uint64_t v, per;
	char why[400], buf[400];

	if (wd_net_rule_parse(s, &r, why, sizeof(why)) == 0) {
		struct wd_net_rule r2 = { 0 };

		wd_net_rule_format(&r, buf, sizeof(buf));
		if (wd_net_rule_parse(buf, &r2, why, sizeof(why)) || wd_net_rule_cmp(&r, &r2))
			abort();
		free(r2.name);
	}
	free(r.name);
	if (wd_parse_duration(s, &v, why, sizeof(why)) == 0) {
		uint64_t w;

		wd_format_duration(v, buf, sizeof(buf));
		if (wd_parse_duration(buf, &w, why, sizeof(why)) || w != v)
			abort();
	}
	if (wd_parse_size(s, &v, why, sizeof(why)) == 0) {
		uint64_t w;

		wd_format_size(v, buf, sizeof(buf));
		if (wd_parse_size(buf, &w, why, sizeof(why)) || w != v)
			abort();
	}
	if (wd_parse_rate(s, true, &v, &per, why, sizeof(why)) == 0) {
		uint64_t w, wper;

		wd_format_rate(v, per, true, buf, sizeof(buf));
		if (wd_parse_rate(buf, true, &w, &wper, why, sizeof(why)) || w != v || wper != per)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wd_policy_errors errs = { 0 };
	struct wd_load_opts o = { .templates_only = true };
	struct wd_policy_derive d = { 0 };
	struct wd_policy p;
	char *s;
	int err;

	if (size > 65536)
		return 0;
	if (size && data[0] < 8) {
		s = strndup((const char *)data + 1, size - 1);
		if (!s)
			return 0;
		if (wd_policy_derive_add(&d, (enum wd_derive_kind)(data[0] % WD_DERIVE_NR), s) ==
		    0) {
			o.derive = &d;
			err = wd_policy_load("cli", &o, &p, &errs);
			check_errors(&errs, err);
			if (!err) {
				use(&p);
				wd_policy_free(&p);
			}
		}
		if (strlen(s) < 512)
			parse_units(s);
		wd_policy_derive_free(&d);
		wd_policy_errors_free(&errs);
		free(s);
		return 0;
	}
	err = wd_policy_load_text((const char *)data, size, "fuzz.json", &o, &p, &errs);
	check_errors(&errs, err);
	if (!err) {
		use(&p);
		wd_policy_free(&p);
	}
	wd_policy_errors_free(&errs);
	return 0;
}
