/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the policy parser: the parse state of one document, the key tables that walk it, and the
 * helpers every section file (fs.c, exec.c, net.c, limits.c, env.c, namespaces.c, hold.c,
 * caps.c) shares to check values and record errors. Not an interface: only policy/ includes it;
 * other rooms use policy/policy.h. Names start with wdp_ as they are visible to the linker.
 */
#ifndef WD_PARSE_INTERNAL_H
#define WD_PARSE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "policy/policy.h"

#define PTR_MAX 512
/* Longest path a variable may expand into, and longest user or group name. */
#define VAR_PATH_MAX 4096
#define NAME_MAX_LEN 32

/* Parse state of one document. */
struct pctx {
	const char *text;
	size_t len;
	struct wd_policy *p;
	struct wd_policy_errors *errs;
	bool nomem;
	/* The protect or exec entry whose members are being parsed. */
	struct wd_protect *protect;
	struct wd_exec_rule *exec;
	/* The key whose value is being parsed (its @off says where the value goes). */
	const struct key *key;
};

/*
 * One key of an object, parsed by @parse; or, without it, an array whose each item @item parses,
 * or else an object of the keys @sub. @what says what the array or object holds, for the message
 * when the value is not one.
 */
struct key {
	const char *name;
	void (*parse)(struct pctx *c, const cJSON *v, const char *ptr, const char *name);
	void (*item)(struct pctx *c, const cJSON *v, const char *ptr);
	const struct key *sub; /* keys of the object (or, with items, of each array item) */
	bool items;
	const char *what;
	size_t off; /* offset of the list the key fills in struct wd_policy, for shared parsers */
};

/* The field of the policy the current key fills, as a @type. */
#define KEY_FIELD(c, type) ((type *)(void *)((char *)(c)->p + (c)->key->off))

/* The sections of a policy (top_keys in parse.c). */
extern const struct key wdp_fs_keys[], wdp_exec_keys[], wdp_net_keys[], wdp_limit_keys[],
	wdp_env_keys[], wdp_ns_keys[], wdp_hold_keys[];
void wdp_parse_user(struct pctx *c, const cJSON *v, const char *ptr, const char *name);
void wdp_cap_item(struct pctx *c, const cJSON *v, const char *ptr);

/* An error at @ptr (@key: at the member's name, its @nth repetition) with its line and column. */
void wdp_perr_at(struct pctx *c, const char *ptr, bool key, unsigned int nth, const char *fmt,
		 ...) __attribute__((format(printf, 5, 6)));
#define perr(c, ptr, ...) wdp_perr_at(c, ptr, false, 0, __VA_ARGS__)

static inline void oom(struct pctx *c)
{
	c->nomem = true;
}

/* JSON pointers: @base + "/" + @key escaped as RFC 6901 asks, and @base + "/" + @i. */
void wdp_pointer_join(char *buf, size_t bufsz, const char *base, const char *key);
void wdp_pointer_index(char *buf, size_t bufsz, const char *base, size_t i);

/* The item at index @i of array @arr is @v; its pointer into @buf. */
#define for_each_item(arr, v, i, ptr, buf)                                                         \
	for ((i) = 0, (v) = (arr)->child; (v); (v) = (v)->next, (i)++)                             \
		if (wdp_pointer_index(buf, sizeof(buf), ptr, i), 1)

/* "a string", "an array", ... for messages. */
const char *wdp_json_type(const cJSON *v);
/* A list of names for messages: "\"a\", \"b\" or \"c\"". */
void wdp_name_list(char *buf, size_t bufsz, const char *const *names);
/* The index of @v among NULL-terminated @names, or -1 with an error. */
int wdp_pick(struct pctx *c, const cJSON *v, const char *ptr, const char *const *names);
/* Each member of object @obj through the table @keys; unknown and repeated names are errors. */
void wdp_parse_members(struct pctx *c, const cJSON *obj, const char *ptr, const struct key *keys,
		       const char *what);
bool wdp_check_array(struct pctx *c, const cJSON *v, const char *ptr, const char *what);
/* Does member @item of @obj repeat an earlier name? Then the error is recorded at @ptr. */
bool wdp_repeated(struct pctx *c, const cJSON *obj, const cJSON *item, const char *ptr);
/* wdp_pick, and on success marks @s set. */
int wdp_pick_set(struct pctx *c, const cJSON *v, const char *ptr, const char *const *names,
		 struct wd_setting *s);
/* "deny" or "allow" into @out, marking @s set. */
void wdp_deny_allow(struct pctx *c, const cJSON *v, const char *ptr, enum wd_action *out,
		    struct wd_setting *s);
/*
 * An entry that is a path or an object of @keys with a "path" member (which the keys' parsers
 * store): a string's checked path into *@path. False when an object lacks "path". @expected says
 * what the entry may be, for the message.
 */
bool wdp_path_or_object(struct pctx *c, const cJSON *v, const char *ptr, const struct key *keys,
			const char *expected, char **path);
/* A path into the wd_path_list the current key names (fs.read, namespaces.bind_ro). */
void wdp_path_item(struct pctx *c, const cJSON *v, const char *ptr);
/* Adds @s to @l unless it is there already. */
void wdp_list_add_once(struct pctx *c, struct wd_path_list *l, const char *s);

/* Values (validate.c). */
char *wdp_check_path(struct pctx *c, const cJSON *v, const char *ptr);
bool wdp_check_uint(struct pctx *c, const cJSON *v, const char *ptr, double min, double max,
		    const char *what, uint64_t *out);
bool wdp_check_string(struct pctx *c, const cJSON *v, const char *ptr, const char *what);
/* A duration string (@what says which, "a duration such as \"5m\"") into *@ms. */
bool wdp_check_duration(struct pctx *c, const cJSON *v, const char *ptr, const char *what,
			uint64_t *ms);
bool wdp_name_ok(const char *s);
bool wdp_env_name_ok(const char *s, bool pattern);
bool wdp_pattern_ok(const char *s);

/* Append @s (taken over, freed on failure) to @l (policy.c). */
int wdp_list_take(struct wd_path_list *l, char *s, int origin);

#endif
