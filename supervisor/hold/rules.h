/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which held operation a rule catches, and which grants answer it without asking again. Pure C:
 * the waiting room (supervisor/hold/engine.c) hands in resolved targets and gets a decision.
 */
#ifndef WD_HOLD_RULES_H
#define WD_HOLD_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "supervisor/hold/waiting_room.h"

/* Ordered by strength: where rules overlap, the strongest wins. */
enum wd_hold_action {
	WD_HOLD_ACT_NONE = 0, /* no rule: the call goes on */
	WD_HOLD_ACT_HOLD = 1,
	WD_HOLD_ACT_DENY = 2,
};

struct wd_protect_rule {
	const char *path; /* resolved tree */
	unsigned int classes; /* WD_HOLD_DELETE | WD_HOLD_RENAME | WD_HOLD_TRUNCATE */
	enum wd_hold_action action;
	const char *name; /* JSON pointer, for records */
};

struct wd_exec_hold_rule {
	const char *path; /* resolved program, or a tree of programs */
	bool has_argv; /* false: any arguments */
	char *const *argv; /* fnmatch(3) patterns for argv[1..]; a last "**" matches any rest */
	size_t argc;
	const char *name;
	/*
	 * WD_HOLD_ACT_HOLD (exec.hold), or WD_HOLD_ACT_DENY (exec.deny with argument patterns:
	 * refused here at once, as advisory as a hold; exec.deny by path is the kernel's)
	 */
	enum wd_hold_action action;
};

/*
 * A file under a tree protected from truncation that has another name as well (a hard link made
 * before the run): truncating it through that name is caught by its inode.
 */
struct wd_linked_file {
	dev_t dev;
	ino_t ino;
	size_t rule; /* its tree's rule, in protect[] */
};

struct wd_hold_rules {
	const struct wd_protect_rule *protect;
	size_t n_protect;
	const struct wd_linked_file *linked;
	size_t n_linked;
	const struct wd_exec_hold_rule *exec;
	size_t n_exec;
	unsigned int burst_count; /* more deletes than this in burst_ms anywhere: hold; 0 off */
	unsigned int burst_ms;
	uint64_t timeout_ms;
	bool timeout_allows; /* on_timeout: allow (default: deny) */
	/* hold.approvers, resolved when the run starts; none: root alone decides */
	const uid_t *approver_uids;
	size_t n_approver_uids;
	const gid_t *approver_gids;
	size_t n_approver_gids;
};

/* Are approvers besides root listed (so the control socket must let them connect)? */
bool wd_hold_rules_have_approvers(const struct wd_hold_rules *r);

/*
 * May a peer with these credentials (its uid, its primary gid and its supplementary @groups)
 * list and decide holds? Root may; a listed user may; a member of a listed group may.
 */
bool wd_approver_may(const struct wd_hold_rules *r, uid_t uid, gid_t gid, const gid_t *groups,
		     size_t ngroups);

/* One operation in the waiting room, its paths resolved. */
struct wd_held_op {
	unsigned int class; /* one WD_HOLD_* */
	const char *target; /* the object the call acts on */
	const char *target2; /* rename: where it goes; NULL otherwise */
	char *const *argv; /* exec: argv[1..] */
	size_t argc;
	bool burst; /* held as part of a delete burst, not by a rule about its target */
};

/*
 * The action for @op, the rule that chose it (*rule; NULL for none) and that rule's path (*tree:
 * the protected tree or the held program).
 */
enum wd_hold_action wd_hold_match(const struct wd_hold_rules *r, const struct wd_held_op *op,
				  const char **rule, const char **tree);

/*
 * The action for truncating the file (@dev, @ino) when it is one of the rules' linked files
 * (whatever name reaches it), with its rule and tree as wd_hold_match() gives them.
 */
enum wd_hold_action wd_hold_match_inode(const struct wd_hold_rules *r, dev_t dev, ino_t ino,
					const char **rule, const char **tree);

/* Is @path @tree itself or under it? */

enum wd_grant_scope {
	WD_GRANT_ONCE = 0, /* this operation only */
	WD_GRANT_PROCESS, /* this process's operations like it */
	WD_GRANT_SANDBOX, /* every process of the sandbox */
};

struct wd_grant {
	enum wd_grant_scope scope;
	bool allow; /* false: "deny all like this" */
	uint32_t pid; /* for WD_GRANT_PROCESS */
	unsigned int classes;
	char *subtree; /* NULL: anywhere the rule catches */
	uint64_t budget; /* operations left; 0 = unlimited */
	uint64_t expires_ms; /* CLOCK_MONOTONIC ms; 0 = never */
	/*
	 * Made by a decision on a burst hold: it answers burst holds only, so "let this sandbox
	 * delete freely" never answers a delete under a protected tree (and the reverse).
	 */
	bool burst;
};

struct wd_grants {
	struct wd_grant *g;
	size_t n; /* room for more: policy/grow.h */
};

/*
 * Does a standing grant answer @op of @pid at @now_ms? Returns 1 (allow) or -1 (deny), taking one
 * from the grant's budget, or 0 when the operator must be asked.
 */
int wd_grants_answer(struct wd_grants *gs, const struct wd_held_op *op, uint32_t pid,
		     uint64_t now_ms);
/* Add a grant (copied). 0 or -ENOMEM. Once-scoped grants are not stored. */
int wd_grants_add(struct wd_grants *gs, const struct wd_grant *g);
void wd_grants_free(struct wd_grants *gs);

#endif
