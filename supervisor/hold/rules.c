// SPDX-License-Identifier: GPL-2.0
/*
 * The hold rules' matching (supervisor/hold/): which protect or exec-hold rule catches a held
 * operation, and the operator's standing grants that answer one without asking again. Pure C.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "policy/argv.h"
#include "policy/grow.h"
#include "policy/path.h"
#include "supervisor/hold/rules.h"

enum wd_hold_action wd_hold_match_inode(const struct wd_hold_rules *r, dev_t dev, ino_t ino,
					const char **rule, const char **tree)
{
	for (size_t i = 0; i < r->n_linked; i++) {
		const struct wd_protect_rule *p = &r->protect[r->linked[i].rule];

		if (r->linked[i].dev != dev || r->linked[i].ino != ino)
			continue;
		*rule = p->name;
		*tree = p->path;
		return p->action;
	}
	*rule = *tree = NULL;
	return WD_HOLD_ACT_NONE;
}

enum wd_hold_action wd_hold_match(const struct wd_hold_rules *r, const struct wd_held_op *op,
				  const char **rule, const char **tree)
{
	enum wd_hold_action best = WD_HOLD_ACT_NONE;

	*rule = NULL;
	*tree = NULL;
	if (op->class == WD_HOLD_EXEC) {
		/* deny wins over hold; the first rule of the strongest action names it */
		for (size_t i = 0; i < r->n_exec; i++) {
			const struct wd_exec_hold_rule *e = &r->exec[i];

			if (e->action <= best || !wd_path_within(op->target, e->path))
				continue;
			if (e->has_argv && !wd_argv_match(e->argv, e->argc, op->argv, op->argc))
				continue;
			best = e->action;
			*rule = e->name;
			*tree = e->path;
		}
		return best;
	}
	/* deny wins over hold when rules overlap */
	for (size_t i = 0; i < r->n_protect; i++) {
		const struct wd_protect_rule *p = &r->protect[i];
		bool hit;

		if (!(p->classes & op->class))
			continue;
		hit = wd_path_within(op->target, p->path) ||
		      (op->target2 && wd_path_within(op->target2, p->path));
		/* renaming a directory above the tree would carry the tree away from its rule */
		if (op->class == WD_HOLD_RENAME)
			hit = hit || wd_path_within(p->path, op->target) ||
			      (op->target2 && wd_path_within(p->path, op->target2));
		if (!hit || p->action <= best)
			continue;
		best = p->action;
		*rule = p->name;
		*tree = p->path;
	}
	return best;
}

bool wd_hold_rules_have_approvers(const struct wd_hold_rules *r)
{
	return r->n_approver_uids || r->n_approver_gids;
}

bool wd_approver_may(const struct wd_hold_rules *r, uid_t uid, gid_t gid, const gid_t *groups,
		     size_t ngroups)
{
	if (uid == 0)
		return true;
	for (size_t i = 0; i < r->n_approver_uids; i++)
		if (r->approver_uids[i] == uid)
			return true;
	for (size_t i = 0; i < r->n_approver_gids; i++) {
		if (r->approver_gids[i] == gid)
			return true;
		for (size_t j = 0; j < ngroups; j++)
			if (r->approver_gids[i] == groups[j])
				return true;
	}
	return false;
}

static bool grant_covers(const struct wd_grant *g, const struct wd_held_op *op, uint32_t pid)
{
	if (!(g->classes & op->class) || g->burst != op->burst)
		return false;
	if (g->scope == WD_GRANT_PROCESS && g->pid != pid)
		return false;
	if (g->subtree && !wd_path_within(op->target, g->subtree))
		return false;
	if (g->subtree && op->target2 && !wd_path_within(op->target2, g->subtree))
		return false;
	return true;
}

int wd_grants_answer(struct wd_grants *gs, const struct wd_held_op *op, uint32_t pid,
		     uint64_t now_ms)
{
	/* Newest first: a later decision overrides an earlier one. */
	for (size_t i = gs->n; i-- > 0;) {
		struct wd_grant *g = &gs->g[i];

		if ((g->expires_ms && now_ms >= g->expires_ms) || !grant_covers(g, op, pid))
			continue;
		if (g->budget) {
			if (--g->budget == 0) {
				/* spent: this use is its last */
				int answer = g->allow ? 1 : -1;

				free(g->subtree);
				memmove(g, g + 1, (gs->n - i - 1) * sizeof(*g));
				gs->n--;
				return answer;
			}
		}
		return g->allow ? 1 : -1;
	}
	return 0;
}

int wd_grants_add(struct wd_grants *gs, const struct wd_grant *g)
{
	struct wd_grant *slot;

	if (g->scope == WD_GRANT_ONCE)
		return 0;
	if (WD_GROW(gs->g, gs->n))
		return -ENOMEM;
	slot = &gs->g[gs->n];
	*slot = *g;
	slot->subtree = NULL;
	if (g->subtree) {
		slot->subtree = strdup(g->subtree);
		if (!slot->subtree)
			return -ENOMEM;
	}
	gs->n++;
	return 0;
}

void wd_grants_free(struct wd_grants *gs)
{
	for (size_t i = 0; i < gs->n; i++)
		free(gs->g[i].subtree);
	free(gs->g);
	memset(gs, 0, sizeof(*gs));
}
