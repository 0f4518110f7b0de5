// SPDX-License-Identifier: GPL-2.0
/*
 * struct wd_policy as a value: adding to its lists (paths, exec and net rules, protected paths,
 * environment variables), freeing it, finding templates, and matching an exec rule's argv.
 * The JSON that fills it is read by parse.c and the section files.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "policy/argv.h"
#include "policy/grow.h"
#include "policy/parse_internal.h"
#include "policy/policy.h"
#include "policy/templates.h"

/* ---- lists ----------------------------------------------------------------------------------- */

/* Append @s (taken over, freed on failure) to @l. */
int wdp_list_take(struct wd_path_list *l, char *s, int origin)
{
	if (wd_grow((void **)&l->paths, l->n, sizeof(*l->paths)) ||
	    wd_grow((void **)&l->origin, l->n, sizeof(*l->origin))) {
		free(s);
		return -ENOMEM;
	}
	l->paths[l->n] = s;
	l->origin[l->n] = origin;
	l->n++;
	return 0;
}

int wd_path_list_add(struct wd_path_list *l, const char *s, int origin)
{
	char *d = strdup(s);

	return d ? wdp_list_take(l, d, origin) : -ENOMEM;
}

bool wd_path_list_has(const struct wd_path_list *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->paths[i], s) == 0)
			return true;
	return false;
}

int wd_exec_list_add(struct wd_exec_list *l, const struct wd_exec_rule *r)
{
	struct wd_exec_rule d = { .has_argv = r->has_argv, .argc = r->argc, .origin = r->origin };

	d.path = strdup(r->path);
	if (!d.path)
		goto out_nomem;
	if (r->has_argv) {
		d.argv = calloc(r->argc + 1, sizeof(char *));
		if (!d.argv)
			goto out_nomem;
		for (size_t i = 0; i < r->argc; i++) {
			d.argv[i] = strdup(r->argv[i]);
			if (!d.argv[i])
				goto out_nomem;
		}
	}
	if (wd_grow((void **)&l->v, l->n, sizeof(*l->v)))
		goto out_nomem;
	l->v[l->n++] = d;
	return 0;
out_nomem:
	wd_exec_rule_free(&d);
	return -ENOMEM;
}

int wd_net_list_add(struct wd_net_list *l, const struct wd_net_rule *r)
{
	struct wd_net_rule d = *r;

	d.name = NULL;
	if (r->name) {
		d.name = strdup(r->name);
		if (!d.name)
			return -ENOMEM;
	}
	if (wd_grow((void **)&l->v, l->n, sizeof(*l->v))) {
		free(d.name);
		return -ENOMEM;
	}
	l->v[l->n++] = d;
	return 0;
}

int wd_protect_add(struct wd_policy *p, const struct wd_protect *pr)
{
	struct wd_protect d = *pr;

	d.path = strdup(pr->path);
	if (!d.path)
		return -ENOMEM;
	if (wd_grow((void **)&p->fs_protect, p->n_fs_protect, sizeof(*p->fs_protect))) {
		free(d.path);
		return -ENOMEM;
	}
	p->fs_protect[p->n_fs_protect++] = d;
	return 0;
}

int wd_env_set_put(struct wd_policy *p, const char *name, const char *value, int origin)
{
	char *v = strdup(value), *n = NULL;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_env_set; i++) {
		if (strcmp(p->env_set[i].name, name) == 0) {
			free(p->env_set[i].value);
			p->env_set[i].value = v;
			p->env_set[i].origin = origin;
			return 0;
		}
	}
	n = strdup(name);
	if (!n || wd_grow((void **)&p->env_set, p->n_env_set, sizeof(*p->env_set))) {
		free(n);
		free(v);
		return -ENOMEM;
	}
	p->env_set[p->n_env_set].name = n;
	p->env_set[p->n_env_set].value = v;
	p->env_set[p->n_env_set].origin = origin;
	p->n_env_set++;
	return 0;
}
void wd_exec_rule_free(struct wd_exec_rule *r)
{
	free(r->path);
	for (size_t i = 0; r->argv && i < r->argc; i++)
		free(r->argv[i]);
	free(r->argv);
	memset(r, 0, sizeof(*r));
}
static void free_list(struct wd_path_list *l)
{
	for (size_t i = 0; l->paths && i < l->n; i++)
		free(l->paths[i]);
	free(l->paths);
	free(l->origin);
	memset(l, 0, sizeof(*l));
}

static void free_exec_list(struct wd_exec_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		wd_exec_rule_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static void free_net_list(struct wd_net_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void wd_policy_free(struct wd_policy *p)
{
	free_list(&p->fs_read);
	free_list(&p->fs_write);
	free_list(&p->fs_exec);
	free_list(&p->fs_deny);
	for (size_t i = 0; i < p->n_fs_protect; i++)
		free(p->fs_protect[i].path);
	free(p->fs_protect);
	free_exec_list(&p->exec_allow);
	free_exec_list(&p->exec_deny);
	free_exec_list(&p->exec_hold);
	free_net_list(&p->net_allow);
	free_net_list(&p->net_deny);
	free_net_list(&p->net_listen);
	free_list(&p->env_pass);
	free_list(&p->ns_bind_ro);
	for (size_t i = 0; i < p->n_env_set; i++) {
		free(p->env_set[i].name);
		free(p->env_set[i].value);
	}
	free(p->env_set);
	free(p->user);
	free(p->group);
	free_list(&p->hold_approvers);
	free_list(&p->caps);
	free_list(&p->extends);
	for (size_t i = 0; i < p->n_origins; i++)
		free(p->origins[i]);
	free(p->origins);
	memset(p, 0, sizeof(*p));
}
/* ---- templates ------------------------------------------------------------------------------- */

const struct wd_template *wd_template_find(const char *name)
{
	for (const struct wd_template *t = wd_templates; t->name; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

bool wd_is_template_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return false;
	return true;
}

/* ---- exec matching --------------------------------------------------------------------------- */

bool wd_exec_rule_matches(const struct wd_exec_rule *r, char *const *args, size_t n)
{
	return !r->has_argv || wd_argv_match(r->argv, r->argc, args, n);
}
