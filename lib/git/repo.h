/*
 * repo.h — git awareness (libgit2): the repository around the targets,
 * the files git would list, staged contents, and the lines changed since a
 * merge base.
 *
 * Two path forms are used and never mixed up:
 *   - a caller path: what the caller holds, relative to the process's cwd
 *     or absolute ("sub/dir", "./x.yaml", "/abs/y.py");
 *   - a rel path: repository-relative, '/'-separated, no leading "./",
 *     exactly as git stores it ("sub/dir/x.yaml"; "" is the root).
 * Lists give both; the staged and diff queries take rel paths.
 *
 * Environment honoured as git does: GIT_CEILING_DIRECTORIES (discovery
 * stops there) and GIT_INDEX_FILE (the index that --staged reads; git sets
 * it for pre-commit hooks of "git commit -a" and "git commit PATH").
 * GIT_DIR and GIT_WORK_TREE are not: the repository is found from the
 * targets.
 *
 * Ownership: cpl_repo_open() hands the caller a handle, freed with
 * cpl_repo_free(); every const char * it returns is borrowed until then.
 * Lists (struct cpl_repo_files) and blobs are the caller's.  A handle
 * initialises libgit2 only when a question needs it (opening finds the
 * working tree without it), then holds one reference on libgit2's global
 * state (git_libgit2_init, released by cpl_repo_free), so handles may be
 * opened and freed freely.
 */
#ifndef CPL_REPO_H
#define CPL_REPO_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

struct cpl_repo;

/* One file of a walk or a staged listing; both strings owned by the list. */
struct cpl_repo_file {
	char *path;	/* caller form: the path passed in + the rest */
	char *rel;	/* repository-relative */
};

/*
 * A list of files sorted bytewise by rel (git's order).  Zero-initialise;
 * the list functions append.  Caller frees with cpl_repo_files_free().
 */
struct cpl_repo_files {
	struct cpl_repo_file *v;
	size_t n;
	size_t cap;
};

void cpl_repo_files_free(struct cpl_repo_files *f);	/* NULL-safe */

/*
 * Finds the repository whose working tree holds path (a file or a
 * directory; a path that does not exist yet is looked up from its nearest
 * existing parent).  0 with *out set; 1 with *out NULL when path is not in
 * a working tree (a plain directory, or a bare repository), err untouched;
 * -1 with err set when the working tree cannot be resolved.  libgit2 opens
 * the repository only when a question needs it: a repository it cannot
 * open (corrupt, not owned by the current user) is that question's error.
 */
int cpl_repo_open(struct cpl_repo **out, const char *path,
		  struct cpl_error *err);
void cpl_repo_free(struct cpl_repo *repo);	/* NULL-safe */

/* Absolute, symlink-free path of the working tree, no trailing '/'. */
const char *cpl_repo_root(const struct cpl_repo *repo);

/* HEAD names a branch with no commits yet (a fresh "git init"). */
bool cpl_repo_head_unborn(struct cpl_repo *repo);

/*
 * The rel path of a caller path (which need not exist; a symlink as the
 * last component is kept, not resolved, unless it points at a directory).
 * 0 with *out set (caller frees; "" for the root); 1 when path lies
 * outside the working tree (*out NULL).
 */
int cpl_repo_relpath(char **out, const struct cpl_repo *repo,
		     const char *path, struct cpl_error *err);

/*
 * Lists the files under path (a directory, or one file) that git would
 * show: tracked files present in the working tree plus untracked files
 * that no .gitignore, .git/info/exclude or core.excludesFile ignores.
 * Submodule contents and nested repositories are skipped; a symlink is
 * listed only when it resolves to a regular file inside the working tree.
 * Caller form: path "." gives "x.yaml", "sub" gives "sub/x.yaml", "./sub/"
 * gives "./sub/x.yaml", an absolute path gives absolute paths.  Appends to
 * *out; 0, 1 when path is outside the working tree, -1 with err.
 */
int cpl_repo_walk(struct cpl_repo_files *out, struct cpl_repo *repo,
		  const char *path, struct cpl_error *err);

/* Which staged files cpl_repo_staged_files() lists. */
enum cpl_repo_staged {
	CPL_REPO_STAGED_CHANGED,	/* added or modified vs HEAD */
	CPL_REPO_STAGED_ALL,		/* every file in the index */
};

/*
 * Lists the files under path that are staged, in the same caller form as
 * cpl_repo_walk().  Only regular files (or symlinks resolving, within the
 * index, to one) at stage 0 count: conflicted, intent-to-add ("git add
 * -N"), deleted and submodule entries do not.  With an unborn HEAD every
 * file in the index is changed.  Appends to *out; 0, 1 when path is
 * outside the working tree, -1 with err.
 */
int cpl_repo_staged_files(struct cpl_repo_files *out, struct cpl_repo *repo,
			  const char *path, enum cpl_repo_staged which,
			  struct cpl_error *err);

/*
 * Copies out the staged content of rel (following an in-index symlink to
 * the file it names), NUL-terminated; caller frees *out.  0; 1 when rel is
 * not staged as a file (untracked, deleted, conflicted, intent-to-add);
 * -1 with err (path rel) when it is larger than max bytes, holds a NUL in
 * its first 8 KiB (binary, as cpl_read_file() judges), or git fails.
 */
int cpl_repo_staged_blob(char **out, size_t *len, struct cpl_repo *repo,
			 const char *rel, size_t max, struct cpl_error *err);

/*
 * Computes the changed-lines set: the merge base of HEAD and ref against
 * the working tree including untracked-not-ignored files (staged false), or
 * against the index (staged true).  Renames are followed, so a moved file
 * counts only its edited lines.  With an unborn HEAD everything is new.
 * Replaces any earlier set.  -1 with err when ref does not resolve to a
 * commit or HEAD and ref share no history.
 */
int cpl_repo_diff_base(struct cpl_repo *repo, const char *ref, bool staged,
		       struct cpl_error *err);

/*
 * The content rel had at the merge base, when the changed set holds it as
 * edited (or renamed, or copied, from a file there); caller frees *out.
 * 0; 1 when there is none (new, unchanged, no set, larger than max).
 */
int cpl_repo_base_text(char **out, size_t *len, struct cpl_repo *repo,
		       const char *rel, size_t max);

/*
 * rel differs from the merge base (new, untracked, or edited, including
 * pure deletions; not a rename without edits).  O(1).  true for every file
 * until cpl_repo_diff_base() has succeeded.
 */
bool cpl_repo_file_changed(const struct cpl_repo *repo, const char *rel);

/*
 * Line (1-based) of rel is new or edited since the merge base.  O(log n)
 * in the file's changed hunks.  true for every line until
 * cpl_repo_diff_base() has succeeded.
 */
bool cpl_repo_line_changed(const struct cpl_repo *repo, const char *rel,
			   int line);

#endif
