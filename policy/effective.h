/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The effective policy: a document with what it extends underneath (templates by name, files by
 * path relative to the extending file) and the command line's additions on top, then the run-time
 * variables ($WORKDIR, $HOME, $TMPDIR) expanded. This is what `warden run` enforces and what
 * `warden policy explain` describes.
 *
 * Putting documents together: lists are joined (an entry already present is not repeated),
 * settings of the upper document replace those below, env.set replaces name by name.
 */
#ifndef WD_EFFECTIVE_H
#define WD_EFFECTIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/compile.h"
#include "policy/policy.h"

/* Command-line additions (`warden run --allow-read P ...`), applied in the order given. */
enum wd_derive_kind {
	WD_DERIVE_ALLOW_HOST = 0,
	WD_DERIVE_DENY_HOST = 1,
	WD_DERIVE_ALLOW_READ = 2,
	WD_DERIVE_ALLOW_WRITE = 3,
	WD_DERIVE_ALLOW_EXEC = 4,
	WD_DERIVE_MODE = 5,
	WD_DERIVE_LIMIT = 6, /* "KEY=VALUE" */
	WD_DERIVE_ENV = 7,   /* "NAME=VALUE": env.set */
	WD_DERIVE_NR = 8,
};

struct wd_derive_item {
	enum wd_derive_kind kind;
	char *value;
};

struct wd_policy_derive {
	struct wd_derive_item *v;
	size_t n;
};

int wd_policy_derive_add(struct wd_policy_derive *d, enum wd_derive_kind kind, const char *value);
void wd_policy_derive_free(struct wd_policy_derive *d);
/* "--allow-read" for WD_DERIVE_ALLOW_READ; NULL for an unknown kind. */
const char *wd_derive_flag(enum wd_derive_kind kind);

/* Values of the variables; "" for one that is not set. */
struct wd_policy_vars {
	char workdir[4096];
	char home[4096];
	char tmpdir[4096];
};

/*
 * What `warden run` would use: the current directory, $HOME (else the user's home from the
 * password database) and $TMPDIR (else /tmp).
 */
void wd_policy_vars_from_env(struct wd_policy_vars *v);

struct wd_load_opts {
	const struct wd_policy_derive *derive; /* may be NULL */
	bool templates_only;		       /* extends may not read files (fuzzing) */
};

/*
 * Load @name (a template name, or a file: see wd_is_template_name()), what it extends, and the
 * additions. Variables are left as written. Returns 0, -ENOMEM, or -EINVAL with every error found
 * in @errs (each naming the document that holds it in its source field).
 */
int wd_policy_load(const char *name, const struct wd_load_opts *o, struct wd_policy *out,
		   struct wd_policy_errors *errs);
/* The same for a document already in memory; @source names it (relative extends start there). */
int wd_policy_load_text(const char *text, size_t len, const char *source,
			const struct wd_load_opts *o, struct wd_policy *out,
			struct wd_policy_errors *errs);

/* How @name is shown in messages: "template cli" or the file name as given. */
void wd_policy_source_name(const char *name, char *buf, size_t bufsz);

/* Expand the variables of every path in @p. 0, -ENOMEM, or -EINVAL with errors in @errs. */
int wd_policy_expand(struct wd_policy *p, const struct wd_policy_vars *v,
		     struct wd_policy_errors *errs);

/*
 * For `warden run`: @name (see wd_policy_load()) with @d on top, its variables expanded with
 * wd_policy_vars_from_env(). Returns 0, or -EINVAL (a bad policy) or -ENOMEM with @out zeroed
 * and one line in @msg: "FILE: /pointer: what is wrong (line L, column C)", and how many more
 * errors `warden policy check` would list.
 */
int wd_policy_load_effective(const char *name, const struct wd_policy_derive *d,
			     struct wd_policy *out, char *msg, size_t msgsz);
/* The same with $WORKDIR @workdir (NULL: the working directory), as a run started there sees. */
int wd_policy_load_effective_at(const char *name, const struct wd_policy_derive *d,
				const char *workdir, struct wd_policy *out, char *msg,
				size_t msgsz);

/*
 * 0 when @p asks only for parts in @enforced (WD_FEAT_*), else -EOPNOTSUPP with one line in @msg
 * naming the first part that is not: refused, never ignored.
 */
int wd_policy_refuse_unenforced(const struct wd_policy *p, const char *name, unsigned int enforced,
				char *msg, size_t msgsz);

/* All of the above and wd_compile(), for tests and tools: 0, or -errno with one line in @msg. */
int wd_policy_prepare(const char *name, const struct wd_policy_derive *d, struct wd_ruleset *rs,
		      char *msg, size_t msgsz);

/* Merge @src on top of @dst (see above). */
int wd_policy_merge(struct wd_policy *dst, const struct wd_policy *src);

#endif
