/*
 * walk_int.h — which files a directory walk lints: one rule set for the plain
 * walk (readdir) and the git walk (what git lists), so a repository and a
 * plain copy of it give the same files.
 *
 * The rule set, applied to the part of each path below the directory
 * walked (a directory named on the command line is walked even when its
 * own name is hidden):
 *   - only names ending in .yaml, .yml, .json or .py;
 *   - no component starting with '.' (hidden files and directories: .git,
 *     .venv, .tox, .hidden.yaml);
 *   - no directory named node_modules, __pycache__, venv or site-packages;
 *   - nothing the configuration excludes;
 *   - never through a symbolic link (its target is linted under its own
 *     name), and a plain walk stops 64 directories deep.
 * A git walk also leaves out what git ignores; --staged walks the index.
 *
 * Ownership: the walker borrows its configuration and repository; paths
 * handed to the callbacks are borrowed for the call.
 */
#ifndef CPL_WALK_H
#define CPL_WALK_H

#include <stdbool.h>

#include "git/repo.h"
#include "run/config_int.h"
#include "util.h"

struct cpl_walker {
	const struct cpl_config *config;	/* excludes; may be NULL */
	struct cpl_repo *repo;	/* NULL: a plain walk */
	bool staged;		/* list the index instead of the tree */
	/* Called for each file to lint, in sorted order. */
	void (*file)(void *ctx, const char *path);
	/* Called for a directory that cannot be read, or one too deep. */
	void (*error)(void *ctx, const struct cpl_error *err);
	/* NULL, or called for each directory a plain walk lists (not a
	 * git walk's), before its entries are walked: dir as walked and
	 * every name in it (files of any kind, directories, links; not "."
	 * or ".."), sorted. */
	void (*listed)(void *ctx, const char *dir, char *const *names,
		       size_t n);
	void *ctx;
};

/*
 * Walks dir, calling w->file for each file the rule set keeps.  With a
 * repository the walk is git's (tracked plus untracked-not-ignored, or
 * the index); when dir lies outside that repository, a plain walk.
 */
void cpl_walk_dir(const struct cpl_walker *w, const char *dir);

/* Whether one name below a walked directory is skipped (hidden, or a
 * vendored directory when dir is true). */
bool cpl_walk_skip_name(const char *name, bool dir);

/* Whether a '/'-separated path below a walked directory has a component
 * the rule set skips (the last one is a file). */
bool cpl_walk_skip_path(const char *rest);

/* Whether a file name is one a walk lints (YAML, JSON, Python). */
bool cpl_walk_wanted(const char *path);

/*
 * The Helm chart whose templates path lies in: the directory holding
 * Chart.yaml beside a `templates` directory on path (lexically, from the
 * path as given; "." for a path that starts in templates/).  NULL when
 * path is not a chart's template; caller frees.
 */
char *cpl_walk_chart_of(const char *path);

#endif
