/*
 * walk.c — the directory walks and their one rule set (see walk_int.h).
 *
 * Invariant: the plain walk and the git walk ask the same questions
 * (cpl_walk_skip_name for every component below the walked directory,
 * cpl_walk_wanted for the file, the configuration's excludes), so they
 * differ only in what git itself leaves out (ignored files, submodules).
 * Both hand out files in bytewise order of their paths.
 */
#include "run/walk_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_WALK_DEPTH 64

bool
cpl_walk_skip_name(const char *name, bool dir)
{
	static const char *const vendored[] = { "node_modules", "__pycache__",
						"venv", "site-packages" };
	size_t i;

	if (name[0] == '.')	/* .git, .venv, .tox, .hidden.yaml ... */
		return true;
	for (i = 0; dir && i < CPL_ARRAY_LEN(vendored); i++)
		if (strcmp(name, vendored[i]) == 0)
			return true;
	return false;
}

bool
cpl_walk_skip_path(const char *rest)
{
	const char *p = rest;

	while (*p) {
		size_t n = strcspn(p, "/");
		char *name = cpl_xstrndup(p, n);
		bool skip = cpl_walk_skip_name(name, p[n] == '/');

		free(name);
		if (skip)
			return true;
		p += n;
		while (*p == '/')
			p++;
	}
	return false;
}

bool
cpl_walk_wanted(const char *path)
{
	return cpl_str_ends(path, ".yaml") || cpl_str_ends(path, ".yml") ||
	       cpl_str_ends(path, ".json") || cpl_str_ends(path, ".py");
}

char *
cpl_walk_chart_of(const char *path)
{
	const char *end = strrchr(path, '/');

	/* Each directory on the path, innermost first. */
	while (end != NULL) {
		const char *start = end;
		char *chart, *file;
		bool yes;

		while (start > path && start[-1] != '/')
			start--;
		if ((size_t)(end - start) != 9 ||
		    strncmp(start, "templates", 9) != 0) {
			end = start > path ? start - 1 : NULL;
			continue;
		}
		chart = start > path ? cpl_xstrndup(path, (size_t)(start - path
								 - 1))
				     : cpl_xstrdup(".");
		if (*chart == '\0') {	/* "/templates/..." */
			free(chart);
			chart = cpl_xstrdup("/");
		}
		file = cpl_xasprintf("%s/Chart.yaml", chart);
		yes = access(file, F_OK) == 0;
		free(file);
		if (yes)
			return chart;
		free(chart);
		end = start > path ? start - 1 : NULL;
	}
	return NULL;
}

/* Reports a problem with a directory through the walker. */
static void
walk_error(const struct cpl_walker *w, const char *dir, const char *msg)
{
	struct cpl_error err = { 0 };

	cpl_error_set(&err, dir, 0, 0, "%s", msg);
	w->error(w->ctx, &err);
	cpl_error_clear(&err);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Walks dir in sorted order so output does not depend on the file system. */
static void
walk_plain(const struct cpl_walker *w, const char *dir, int depth)
{
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0, i;

	if (depth > MAX_WALK_DEPTH) {
		walk_error(w, dir, "directory nesting too deep; not walked "
			   "further");
		return;
	}
	d = opendir(dir);
	if (d == NULL) {
		char *msg = cpl_xasprintf("cannot read directory: %s",
					  strerror(errno));

		walk_error(w, dir, msg);
		free(msg);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		size_t len;

		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		/* The entry's type (DT_*) rides after its name's NUL, so
		 * most entries need no lstat (DT_UNKNOWN: some file
		 * systems do not say). */
		len = strlen(de->d_name);
		CPL_GROW(names, cap, n + 1);
		names[n] = cpl_xmalloc(len + 2);
		memcpy(names[n], de->d_name, len + 1);
		names[n][len + 1] = (char)de->d_type;
		n++;
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_str);
	if (w->listed)
		w->listed(w->ctx, dir, names, n);
	for (i = 0; i < n; i++) {
		char *p = strcmp(dir, ".") == 0 ?
			  cpl_xstrdup(names[i]) :
			  cpl_xasprintf("%s%s%s", dir,
					cpl_str_ends(dir, "/") ? "" : "/",
					names[i]);
		unsigned char type = (unsigned char)names[i][strlen(names[i]) +
							     1];
		struct stat st;
		bool isdir, isreg;

		if (type == DT_UNKNOWN) {
			if (lstat(p, &st) != 0 || S_ISLNK(st.st_mode))
				type = DT_LNK;	/* not walked */
			else
				type = S_ISDIR(st.st_mode) ? DT_DIR :
				       S_ISREG(st.st_mode) ? DT_REG : DT_FIFO;
		}
		isdir = type == DT_DIR;
		isreg = type == DT_REG;
		if (type == DT_LNK || (!isdir && !isreg) ||
		    cpl_walk_skip_name(names[i], isdir) ||
		    (w->config && cpl_config_excluded(w->config, p))) {
			/* a link, a device, or skipped by the rule set */
		} else if (isdir) {
			walk_plain(w, p, depth + 1);
		} else if (cpl_walk_wanted(p)) {
			w->file(w->ctx, p);
		}
		free(p);
		free(names[i]);
	}
	free(names);
}

/* The part of a listed file's rel path below the walked prefix. */
static const char *
below(const char *rel, const char *prefix)
{
	size_t n = strlen(prefix);

	if (n == 0)
		return rel;
	if (strncmp(rel, prefix, n) == 0 && rel[n] == '/')
		return rel + n + 1;
	return strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
}

/*
 * Whether a listed file is skipped: a component of rest (the part below
 * the walked directory, a suffix of path) that the rule set skips, or
 * the file or one of those directories excluded, as the plain walk would
 * have pruned it.
 */
static bool
git_skip(const struct cpl_walker *w, const char *path, const char *rest)
{
	size_t off = strlen(path) - strlen(rest);
	const char *slash;
	bool skip = false;

	if (cpl_walk_skip_path(rest))
		return true;
	if (w->config == NULL)
		return false;
	for (slash = strchr(rest, '/'); slash && !skip;
	     slash = strchr(slash + 1, '/')) {
		char *d = cpl_xstrndup(path, off + (size_t)(slash - rest));

		skip = cpl_config_excluded(w->config, d);
		free(d);
	}
	return skip || cpl_config_excluded(w->config, path);
}

/* Walks what git lists under dir (or the index); false when dir lies
 * outside the repository. */
static bool
walk_git(const struct cpl_walker *w, const char *dir)
{
	struct cpl_repo_files files = { 0 };
	struct cpl_error err = { 0 };
	char *prefix = NULL;
	size_t i;
	int rc;

	if (cpl_repo_relpath(&prefix, w->repo, dir, &err) != 0) {
		cpl_error_clear(&err);
		return false;
	}
	if (w->staged)
		rc = cpl_repo_staged_files(&files, w->repo, dir,
					   CPL_REPO_STAGED_ALL, &err);
	else
		rc = cpl_repo_walk(&files, w->repo, dir, &err);
	if (rc < 0)
		w->error(w->ctx, &err);
	cpl_error_clear(&err);
	for (i = 0; rc == 0 && i < files.n; i++) {
		const char *p = files.v[i].path;
		struct stat st;

		if (!cpl_walk_wanted(p) ||
		    git_skip(w, p, below(files.v[i].rel, prefix)))
			continue;
		/* Like the plain walk, never lint through a symlink: its
		 * target is linted under its own name. */
		if (!w->staged && lstat(p, &st) == 0 && S_ISLNK(st.st_mode))
			continue;
		w->file(w->ctx, p);
	}
	cpl_repo_files_free(&files);
	free(prefix);
	return rc != 1;
}

void
cpl_walk_dir(const struct cpl_walker *w, const char *dir)
{
	if (w->repo == NULL || !walk_git(w, dir))
		walk_plain(w, dir, 0);
}
