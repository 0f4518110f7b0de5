// SPDX-License-Identifier: GPL-2.0
/*
 * What the command starts as: the "env" section (variables passed through by name or pattern,
 * variables set) and "user" (the user and group it runs as).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/parse_internal.h"
#include "policy/policy.h"

static void env_pass_item(struct pctx *c, const cJSON *item, const char *ip)
{
	if (!wdp_check_string(c, item, ip, "a variable name"))
		return;
	if (!wdp_env_name_ok(item->valuestring, true)) {
		perr(c, ip,
		     "\"%s\" is not a variable name (letters, digits and \"_\", not "
		     "starting with a digit; \"*\" for any run of them)",
		     item->valuestring);
		return;
	}
	wdp_list_add_once(c, &c->p->env_pass, item->valuestring);
}

static void parse_env_set(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	const cJSON *item;

	(void)name;
	if (!cJSON_IsObject(v)) {
		perr(c, ptr, "expected an object of variables and their values, got %s",
		     wdp_json_type(v));
		return;
	}
	cJSON_ArrayForEach(item, v)
	{
		char ip[PTR_MAX];

		wdp_pointer_join(ip, sizeof(ip), ptr, item->string);
		if (wdp_repeated(c, v, item, ip))
			continue;
		if (!wdp_env_name_ok(item->string, false)) {
			wdp_perr_at(c, ip, true, 0,
				"\"%s\" is not a variable name (letters, digits and "
				"\"_\", not starting with a digit)",
				item->string);
			continue;
		}
		if (!cJSON_IsString(item)) {
			if (cJSON_IsNumber(item))
				perr(c, ip, "expected a string, got a number (write \"%g\")",
				     item->valuedouble);
			else
				perr(c, ip, "expected a string, got %s", wdp_json_type(item));
			continue;
		}
		if (wd_env_set_put(c->p, item->string, item->valuestring, 0))
			oom(c);
	}
}

const struct key wdp_env_keys[] = {
	{ .name = "pass", .item = env_pass_item, .what = "variable names (\"PATH\", \"LC_*\")" },
	{ .name = "set", .parse = parse_env_set },
	{ 0 },
};

void wdp_parse_user(struct pctx *c, const cJSON *v, const char *ptr, const char *name)
{
	char user[2 * NAME_MAX_LEN + 2], orig[sizeof(user)], *colon;
	uint64_t uid;

	(void)name;
	if (cJSON_IsNumber(v)) {
		if (!wdp_check_uint(c, v, ptr, 0, 4294967294.0, "a uid", &uid))
			return;
		snprintf(user, sizeof(user), "%llu", (unsigned long long)uid);
	} else if (cJSON_IsString(v)) {
		if (strlen(v->valuestring) >= sizeof(user)) {
			perr(c, ptr, "a user or group name has at most %d characters",
			     NAME_MAX_LEN);
			return;
		}
		snprintf(user, sizeof(user), "%s", v->valuestring);
	} else {
		perr(c, ptr, "expected a user name or uid, optionally with \":GROUP\", got %s",
		     wdp_json_type(v));
		return;
	}
	snprintf(orig, sizeof(orig), "%s", user);
	colon = strchr(user, ':');
	if (colon)
		*colon = 0;
	if (strlen(user) > NAME_MAX_LEN || (colon && strlen(colon + 1) > NAME_MAX_LEN)) {
		perr(c, ptr, "a user or group name has at most %d characters", NAME_MAX_LEN);
		return;
	}
	if (!wdp_name_ok(user) || (colon && !wdp_name_ok(colon + 1))) {
		perr(c, ptr,
		     "expected a user name or uid, optionally with \":GROUP\" (\"nobody\", "
		     "\"www-data:www-data\", \"1000:1000\"), got \"%s\"",
		     orig);
		return;
	}
	free(c->p->user);
	free(c->p->group);
	c->p->user = strdup(user);
	c->p->group = colon ? strdup(colon + 1) : NULL;
	if (!c->p->user || (colon && !c->p->group))
		oom(c);
	c->p->user_set.set = true;
}
