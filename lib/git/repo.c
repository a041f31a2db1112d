/*
 * repo.c — git awareness over libgit2: discovery, the files git lists,
 * staged blobs, and the changed-lines set behind --diff-base.
 *
 * Invariant: nothing here writes to the repository (no index refresh is
 * written back, no lock is taken); every libgit2 return is checked and
 * turned into a struct cpl_error.  Rel paths are compared bytewise, as git
 * stores them.  The changed-lines set is an open-addressing hash of rel
 * paths, each with its new-side line spans sorted, so a file query is O(1)
 * and a line query a binary search.
 *
 * Start-up: libgit2 is not touched until a question needs it (a walk,
 * the index, a diff).  Opening only finds the working tree, by the rules
 * libgit2 discovers it with (the nearest directory holding a .git
 * directory or file, not above GIT_CEILING_DIRECTORIES, not across file
 * systems; a bare repository is none), so a run that needs only the root
 * (pre-commit naming one YAML file) never pays for git_libgit2_init(),
 * which loads the system's CA certificates (milliseconds).  A repository
 * libgit2 then cannot open is an error of the question that needed it.
 *
 * Ownership: struct cpl_repo owns the libgit2 repository, its index, the
 * root string and the changed set; it holds one git_libgit2_init()
 * reference from the first question until cpl_repo_free().  Lists and
 * blobs handed out are the caller's.
 */
#include "git/repo.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>
#include <git2/sys/repository.h>

#define MAX_LINK_HOPS 8		/* symlink chains followed inside the index */
#define BINARY_PROBE 8192	/* bytes searched for NUL, as cpl_read_file */

/* Lines [start, end) of a file's new side that are new or edited. */
struct repo_span {
	int start;
	int end;
};

/* One file of the changed set: whole when every line is new. */
struct changed {
	char *rel;
	bool whole;
	bool has_old;		/* old: its content at the merge base */
	git_oid old;
	struct repo_span *v;
	size_t n;
	size_t cap;
};

/* An open repository with a working tree, and its last changed set. */
struct cpl_repo {
	git_repository *git;	/* opened on first need (need_git) */
	bool inited;		/* holds a git_libgit2_init() reference */
	git_index *index;	/* loaded on first use (GIT_INDEX_FILE) */
	char *root;		/* realpath of the working tree */
	bool diffed;		/* the changed set below is valid */
	struct changed **slots;	/* hash table of nslots (a power of two) */
	size_t nslots;
	size_t nchanged;
};

/* ---- errors and paths ------------------------------------------------- */

/* Fills err with what, then libgit2's last message. */
static void
git_fail(struct cpl_error *err, const char *path, const char *what)
{
	const git_error *e = git_error_last();

	cpl_error_set(err, path, 0, 0, "%s: %s", what,
		      e && e->message ? e->message : "unknown libgit2 error");
}

/* path without its trailing slashes ("/" stays "/"); caller frees. */
static char *
strip_slashes(const char *path)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	return cpl_xstrndup(path, n);
}

/*
 * The absolute form of abs with every existing directory resolved through
 * symlinks; a last component that is missing, or a symlink to anything but
 * a directory, is kept as written.  Never fails; caller frees.
 */
static char *
canon_abs(const char *abs)
{
	struct stat st;
	char *real, *parent, *pc, *out;
	const char *slash, *base;

	if (lstat(abs, &st) == 0 &&
	    (!S_ISLNK(st.st_mode) ||
	     (stat(abs, &st) == 0 && S_ISDIR(st.st_mode)))) {
		real = realpath(abs, NULL);
		if (real != NULL) {
			out = cpl_xstrdup(real);
			free(real);
			return out;
		}
	}
	slash = strrchr(abs, '/');
	if (slash == NULL || strcmp(abs, "/") == 0)
		return cpl_xstrdup(abs);
	base = slash + 1;
	parent = slash == abs ? cpl_xstrdup("/") :
				cpl_xstrndup(abs, (size_t)(slash - abs));
	pc = canon_abs(parent);
	free(parent);
	if (*base == '\0' || strcmp(base, ".") == 0)
		return pc;
	if (strcmp(base, "..") == 0) {
		char *up = strrchr(pc, '/');

		if (up != NULL && up != pc)
			*up = '\0';
		else
			pc[1] = '\0';
		return pc;
	}
	out = cpl_xasprintf("%s%s%s", pc, cpl_str_ends(pc, "/") ? "" : "/",
			    base);
	free(pc);
	return out;
}

/* canon_abs() of a caller path, made absolute against the cwd first. */
static char *
canon(const char *path)
{
	char *abs, *cwd, *out;

	if (path[0] == '/') {
		abs = strip_slashes(path);
	} else {
		cwd = getcwd(NULL, 0);
		abs = cpl_xasprintf("%s/%s", cwd ? cwd : ".", path);
		free(cwd);
		cwd = abs;
		abs = strip_slashes(cwd);
		free(cwd);
	}
	out = canon_abs(abs);
	free(abs);
	return out;
}

/* The part of abs below root, or NULL when abs is not inside root. */
static const char *
rel_in(const char *root, const char *abs)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return abs[0] == '/' ? abs + 1 : NULL;
	if (strncmp(abs, root, n) != 0)
		return NULL;
	if (abs[n] == '\0')
		return abs + n;
	return abs[n] == '/' ? abs + n + 1 : NULL;
}

/* rel lies at or below prefix ("" is the root and holds everything). */
static bool
under(const char *prefix, const char *rel)
{
	size_t n = strlen(prefix);

	return n == 0 || (strncmp(rel, prefix, n) == 0 &&
			  (rel[n] == '\0' || rel[n] == '/'));
}

/* The nearest existing directory at or above abs; caller frees. */
static char *
existing_dir(const char *abs)
{
	struct stat st;
	char *d = cpl_xstrdup(abs);
	char *slash;

	while (stat(d, &st) != 0 || !S_ISDIR(st.st_mode)) {
		slash = strrchr(d, '/');
		if (slash == NULL || slash == d) {
			d[0] = '/';
			d[1] = '\0';
			break;
		}
		*slash = '\0';
	}
	return d;
}

/*
 * rel in the caller's form, given the caller's path and its rel prefix:
 * "." and "" are dropped, the caller's spelling is kept otherwise.
 */
static char *
caller_form(const char *path, const char *prefix, const char *rel)
{
	const char *rest;

	if (*prefix == '\0')
		rest = rel;
	else if (strcmp(rel, prefix) == 0)
		return cpl_xstrdup(path);
	else
		rest = rel + strlen(prefix) + 1;
	if (*path == '\0' || strcmp(path, ".") == 0)
		return cpl_xstrdup(rest);
	return cpl_xasprintf("%s%s%s", path,
			     cpl_str_ends(path, "/") ? "" : "/", rest);
}

/* ---- lists ------------------------------------------------------------ */

/* A list entry and where it was appended, for a stable sort. */
struct ranked {
	struct cpl_repo_file f;
	size_t pos;
};

/* Orders by rel, then by position. */
static int
cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	int c = strcmp(x->f.rel, y->f.rel);

	if (c != 0)
		return c;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Sorts the list by rel and drops later duplicates of a rel. */
static void
files_sort(struct cpl_repo_files *f)
{
	struct ranked *r;
	size_t i, n = 0;

	if (f->n < 2)
		return;
	r = cpl_xmalloc(f->n * sizeof(*r));
	for (i = 0; i < f->n; i++) {
		r[i].f = f->v[i];
		r[i].pos = i;
	}
	qsort(r, f->n, sizeof(*r), cmp_ranked);
	for (i = 0; i < f->n; i++) {
		if (n > 0 && strcmp(f->v[n - 1].rel, r[i].f.rel) == 0) {
			free(r[i].f.path);
			free(r[i].f.rel);
			continue;
		}
		f->v[n++] = r[i].f;
	}
	f->n = n;
	free(r);
}

/* Appends rel, with its caller form, to the list. */
static void
files_add(struct cpl_repo_files *f, const char *path, const char *prefix,
	  const char *rel)
{
	CPL_GROW(f->v, f->cap, f->n + 1);
	f->v[f->n].path = caller_form(path, prefix, rel);
	f->v[f->n].rel = cpl_xstrdup(rel);
	f->n++;
}

void
cpl_repo_files_free(struct cpl_repo_files *f)
{
	size_t i;

	if (f == NULL)
		return;
	for (i = 0; i < f->n; i++) {
		free(f->v[i].path);
		free(f->v[i].rel);
	}
	free(f->v);
	memset(f, 0, sizeof(*f));
}

/* ---- open, free, index ------------------------------------------------ */

/* The same directory, judged by realpath (false when either is missing). */
static bool
same_dir(const char *a, const char *b)
{
	char *ra = realpath(a, NULL);
	char *rb = realpath(b, NULL);
	bool same = ra && rb && strcmp(ra, rb) == 0;

	free(ra);
	free(rb);
	return same;
}

/* Whether dir/name exists as a directory (dir true) or regular file. */
static bool
has(const char *dir, const char *name, bool want_dir)
{
	struct stat st;
	char *p = cpl_xasprintf("%s/%s", dir, name);
	bool yes = stat(p, &st) == 0 &&
		   (want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));

	free(p);
	return yes;
}

/* Whether dir looks like a git directory (libgit2's test: HEAD, objects/
 * and refs/). */
static bool
is_gitdir(const char *dir)
{
	return has(dir, "HEAD", false) && has(dir, "objects", true) &&
	       has(dir, "refs", true);
}

/* How far up from path GIT_CEILING_DIRECTORIES lets discovery go: the
 * length of the longest ceiling that is a proper parent of path, 0 when
 * none. */
static size_t
ceiling_len(const char *path)
{
	const char *list = getenv("GIT_CEILING_DIRECTORIES");
	size_t best = 0;

	while (list != NULL && *list) {
		size_t n = strcspn(list, ":");
		char *c = cpl_xstrndup(list, n);
		char *real = *c == '/' ? realpath(c, NULL) : NULL;
		const char *use = real ? real : c;
		size_t m = strlen(use);

		while (m > 1 && use[m - 1] == '/')
			m--;
		if (*use == '/' && m < strlen(path) &&
		    strncmp(path, use, m) == 0 &&
		    (m == 1 || path[m] == '/') && m > best)
			best = m;
		free(real);
		free(c);
		list += n;
		if (*list == ':')
			list++;
	}
	return best;
}

/*
 * The working tree holding dir (absolute), as libgit2 discovers it: dir
 * and then each parent, while above the ceiling and on dir's file system;
 * the first with a .git directory (a git directory) or a .git file (a
 * linked worktree or submodule) wins.  A level that is itself a git
 * directory ends the search: a bare repository (NULL), or the .git of a
 * working tree (its parent).  NULL when none; caller frees.
 */
static char *
find_workdir(const char *dir)
{
	char *d = strip_slashes(dir), *found = NULL;
	size_t ceil = ceiling_len(d);
	struct stat st;
	dev_t dev = 0;
	bool first;

	for (first = true;; first = false) {
		size_t n = strlen(d);
		char *slash;

		if ((!first && n <= ceil) || stat(d, &st) != 0)
			break;
		if (first)
			dev = st.st_dev;
		else if (st.st_dev != dev)
			break;
		if (has(d, ".git", false)) {		/* a gitfile */
			found = cpl_xstrdup(d);
			break;
		}
		if (has(d, ".git", true)) {
			char *g = cpl_xasprintf("%s/.git", d);
			bool ok = is_gitdir(g);

			free(g);
			if (ok) {
				found = cpl_xstrdup(d);
				break;
			}
		}
		if (is_gitdir(d)) {	/* bare, or inside a .git */
			slash = strrchr(d, '/');
			if (slash != NULL && strcmp(slash, "/.git") == 0) {
				*slash = '\0';
				found = cpl_xstrdup(*d ? d : "/");
			}
			break;
		}
		if (n == 1)
			break;
		slash = strrchr(d, '/');
		if (slash == NULL)
			break;
		if (slash == d)
			d[1] = '\0';
		else
			*slash = '\0';
	}
	free(d);
	return found;
}

int
cpl_repo_open(struct cpl_repo **out, const char *path, struct cpl_error *err)
{
	struct cpl_repo *r;
	char *abs, *dir, *work, *root;

	*out = NULL;
	abs = canon(*path ? path : ".");
	dir = existing_dir(abs);
	work = find_workdir(dir);
	free(dir);
	free(abs);
	if (work == NULL)
		return 1;
	root = realpath(work, NULL);
	if (root == NULL) {
		cpl_error_set(err, work, 0, 0,
			      "cannot resolve the working tree: %s",
			      strerror(errno));
		free(work);
		return -1;
	}
	free(work);
	r = cpl_xcalloc(1, sizeof(*r));
	r->root = root;
	*out = r;
	return 0;
}

/* Opens the repository with libgit2, the first time it is needed. */
static int
need_git(struct cpl_repo *r, struct cpl_error *err)
{
	if (r->git != NULL)
		return 0;
	if (!r->inited) {
		if (git_libgit2_init() < 0) {
			git_fail(err, r->root, "cannot initialise libgit2");
			return -1;
		}
		r->inited = true;
	}
	if (git_repository_open_ext(&r->git, r->root,
				    GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL) < 0) {
		r->git = NULL;
		git_fail(err, r->root, "cannot open the git repository");
		return -1;
	}
	if (git_repository_is_bare(r->git) ||
	    git_repository_workdir(r->git) == NULL) {
		git_repository_free(r->git);
		r->git = NULL;
		cpl_error_set(err, r->root, 0, 0, "cannot open the git "
			      "repository: it has no working tree");
		return -1;
	}
	return 0;
}

/* Empties the changed set; every file counts as changed again. */
static void
changed_clear(struct cpl_repo *r)
{
	size_t i;

	for (i = 0; i < r->nslots; i++) {
		if (r->slots[i] == NULL)
			continue;
		free(r->slots[i]->rel);
		free(r->slots[i]->v);
		free(r->slots[i]);
	}
	free(r->slots);
	r->slots = NULL;
	r->nslots = 0;
	r->nchanged = 0;
	r->diffed = false;
}

void
cpl_repo_free(struct cpl_repo *repo)
{
	if (repo == NULL)
		return;
	changed_clear(repo);
	git_index_free(repo->index);
	git_repository_free(repo->git);
	free(repo->root);
	if (repo->inited)
		git_libgit2_shutdown();
	free(repo);
}

const char *
cpl_repo_root(const struct cpl_repo *repo)
{
	return repo->root;
}

bool
cpl_repo_head_unborn(struct cpl_repo *repo)
{
	struct cpl_error err = { 0 };

	if (need_git(repo, &err) < 0) {
		cpl_error_clear(&err);
		return false;
	}
	return git_repository_head_unborn(repo->git) == 1;
}

/*
 * The index --staged reads: GIT_INDEX_FILE when set (and GIT_DIR, if also
 * set, is this repository), else the repository's.  Borrowed from repo.
 */
static int
repo_index(git_index **out, struct cpl_repo *r, struct cpl_error *err)
{
	const char *file = getenv("GIT_INDEX_FILE");
	const char *gitdir = getenv("GIT_DIR");
	git_index *idx = NULL;

	*out = NULL;
	if (r->index != NULL) {
		*out = r->index;
		return 0;
	}
	if (need_git(r, err) < 0)
		return -1;
	if (file != NULL && *file != '\0' &&
	    (gitdir == NULL || same_dir(gitdir, git_repository_path(r->git)))) {
		if (git_index_open(&idx, file) < 0) {
			git_fail(err, file, "cannot read the index");
			return -1;
		}
		if (git_repository_set_index(r->git, idx) < 0) {
			git_fail(err, file, "cannot use the index");
			git_index_free(idx);
			return -1;
		}
	} else if (git_repository_index(&idx, r->git) < 0) {
		git_fail(err, r->root, "cannot read the index");
		return -1;
	}
	r->index = idx;
	*out = idx;
	return 0;
}

int
cpl_repo_relpath(char **out, const struct cpl_repo *repo, const char *path,
		 struct cpl_error *err)
{
	char *abs = canon(*path ? path : ".");
	const char *rel = rel_in(repo->root, abs);

	(void)err;
	*out = rel ? cpl_xstrdup(rel) : NULL;
	free(abs);
	return rel ? 0 : 1;
}

/* ---- walking the working tree ----------------------------------------- */

/*
 * rel is a regular file in the working tree, or a symlink that resolves
 * to one inside the working tree (and outside .git).
 */
static bool
worktree_file(const struct cpl_repo *r, const char *rel)
{
	struct stat st;
	char *full = cpl_xasprintf("%s/%s", r->root, rel);
	char *real = NULL;
	const char *in;
	bool ok = false;

	if (lstat(full, &st) != 0)
		goto out;
	if (S_ISREG(st.st_mode)) {
		ok = true;
		goto out;
	}
	if (!S_ISLNK(st.st_mode) || stat(full, &st) != 0 ||
	    !S_ISREG(st.st_mode))
		goto out;
	real = realpath(full, NULL);
	in = real ? rel_in(r->root, real) : NULL;
	ok = in != NULL && *in != '\0' && !under(".git", in);
out:
	free(real);
	free(full);
	return ok;
}

int
cpl_repo_walk(struct cpl_repo_files *out, struct cpl_repo *repo,
	      const char *path, struct cpl_error *err)
{
	git_status_options opts;
	git_status_list *list = NULL;
	git_index *idx;
	char *prefix = NULL;
	size_t i, n;
	int rc;

	rc = cpl_repo_relpath(&prefix, repo, path, err);
	if (rc != 0)
		return rc;
	rc = -1;
	if (repo_index(&idx, repo, err) < 0)
		goto out;
	if (git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION) < 0) {
		git_fail(err, path, "cannot list the working tree");
		goto out;
	}
	opts.show = GIT_STATUS_SHOW_WORKDIR_ONLY;
	opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED |
		     GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
		     GIT_STATUS_OPT_INCLUDE_UNMODIFIED |
		     GIT_STATUS_OPT_EXCLUDE_SUBMODULES |
		     GIT_STATUS_OPT_DISABLE_PATHSPEC_MATCH;
	if (*prefix != '\0') {
		opts.pathspec.strings = &prefix;
		opts.pathspec.count = 1;
	}
	if (git_status_list_new(&list, repo->git, &opts) < 0) {
		git_fail(err, path, "cannot list the working tree");
		goto out;
	}
	n = git_status_list_entrycount(list);
	for (i = 0; i < n; i++) {
		const git_status_entry *e = git_status_byindex(list, i);
		const char *rel;

		if (e == NULL || e->index_to_workdir == NULL ||
		    (e->status & (GIT_STATUS_WT_DELETED |
				  GIT_STATUS_IGNORED)) != 0)
			continue;
		rel = e->index_to_workdir->new_file.path;
		if (rel == NULL || cpl_str_ends(rel, "/") ||
		    !under(prefix, rel) || !worktree_file(repo, rel))
			continue;
		files_add(out, path, prefix, rel);
	}
	files_sort(out);
	rc = 0;
out:
	git_status_list_free(list);
	free(prefix);
	return rc;
}

/* ---- the index -------------------------------------------------------- */

/*
 * Where a symlink at rel pointing at target (len bytes) leads, as a rel
 * path, or NULL when it leaves the working tree; caller frees.
 */
static char *
link_target(const struct cpl_repo *r, const char *rel, const char *target,
	    size_t len)
{
	struct cpl_buf in, outb;
	const char *p, *slash, *start;
	char *res = NULL;

	cpl_buf_init(&in, 0);
	cpl_buf_init(&outb, 0);
	if (len == 0 || memchr(target, '\0', len) != NULL)
		goto out;
	if (target[0] == '/') {
		char *t = cpl_xstrndup(target, len);
		const char *inside = rel_in(r->root, t);

		if (inside != NULL)
			cpl_buf_adds(&in, inside);
		free(t);
		if (inside == NULL)
			goto out;
	} else {
		slash = strrchr(rel, '/');
		if (slash != NULL) {
			cpl_buf_add(&in, rel, (size_t)(slash - rel));
			cpl_buf_addc(&in, '/');
		}
		cpl_buf_add(&in, target, len);
	}
	for (p = cpl_buf_str(&in); *p != '\0'; p = *slash ? slash + 1 : slash) {
		size_t n;

		start = p;
		slash = strchr(start, '/');
		if (slash == NULL)
			slash = start + strlen(start);
		n = (size_t)(slash - start);
		if (n == 0 || (n == 1 && start[0] == '.'))
			continue;
		if (n == 2 && start[0] == '.' && start[1] == '.') {
			char *last;

			if (outb.len == 0)
				goto out;
			last = strrchr(outb.data, '/');
			outb.len = last ? (size_t)(last - outb.data) : 0;
			outb.data[outb.len] = '\0';
			continue;
		}
		if (outb.len > 0)
			cpl_buf_addc(&outb, '/');
		cpl_buf_add(&outb, start, n);
	}
	if (outb.len > 0 && !outb.overflow)
		res = cpl_buf_detach(&outb);
out:
	cpl_buf_free(&in);
	cpl_buf_free(&outb);
	return res;
}

/*
 * The stage-0 index entry holding rel's content: rel itself when it is a
 * regular file, else the file an in-index symlink chain names.  0 with
 * *out set (borrowed from idx), 1 when there is none, -1 with err.
 */
static int
index_file(const git_index_entry **out, struct cpl_repo *r, git_index *idx,
	   const char *rel, struct cpl_error *err)
{
	const git_index_entry *e;
	git_blob *blob = NULL;
	char *cur = cpl_xstrdup(rel), *next;
	int hops, rc = 1;

	*out = NULL;
	for (hops = 0; hops <= MAX_LINK_HOPS; hops++) {
		e = git_index_get_bypath(idx, cur, 0);
		if (e == NULL ||
		    (e->flags_extended & GIT_INDEX_ENTRY_INTENT_TO_ADD) != 0)
			break;
		if (e->mode == GIT_FILEMODE_BLOB ||
		    e->mode == GIT_FILEMODE_BLOB_EXECUTABLE) {
			*out = e;
			rc = 0;
			break;
		}
		if (e->mode != GIT_FILEMODE_LINK)
			break;
		if (git_blob_lookup(&blob, r->git, &e->id) < 0) {
			git_fail(err, rel, "cannot read the staged symlink");
			rc = -1;
			break;
		}
		next = link_target(r, cur, git_blob_rawcontent(blob),
				   (size_t)git_blob_rawsize(blob));
		git_blob_free(blob);
		blob = NULL;
		free(cur);
		cur = next;
		if (cur == NULL)
			break;
	}
	free(cur);
	return rc;
}

/* Appends the stage-0 files of idx under prefix. */
static int
staged_all(struct cpl_repo_files *out, struct cpl_repo *r, git_index *idx,
	   const char *path, const char *prefix, struct cpl_error *err)
{
	const git_index_entry *e, *file;
	size_t i, n = git_index_entrycount(idx);
	int rc;

	for (i = 0; i < n; i++) {
		e = git_index_get_byindex(idx, i);
		if (e == NULL || git_index_entry_stage(e) != 0 ||
		    !under(prefix, e->path))
			continue;
		rc = index_file(&file, r, idx, e->path, err);
		if (rc < 0)
			return -1;
		if (rc == 0)
			files_add(out, path, prefix, e->path);
	}
	return 0;
}

/* The tree of HEAD's commit in *out, NULL when HEAD is unborn. */
static int
head_tree(git_tree **out, struct cpl_repo *r, struct cpl_error *err)
{
	git_object *obj = NULL;
	int rc;

	*out = NULL;
	rc = git_repository_head_unborn(r->git);
	if (rc == 1)
		return 0;
	if (rc < 0 || git_revparse_single(&obj, r->git, "HEAD^{tree}") < 0) {
		git_fail(err, r->root, "cannot read HEAD");
		return -1;
	}
	*out = (git_tree *)obj;
	return 0;
}

/* Appends the files under prefix that the index adds or changes vs HEAD. */
static int
staged_changed(struct cpl_repo_files *out, struct cpl_repo *r,
	       git_index *idx, const char *path, char *prefix,
	       struct cpl_error *err)
{
	git_diff_options opts;
	git_diff *diff = NULL;
	git_tree *tree = NULL;
	const git_index_entry *file;
	size_t i, n;
	int rc = -1, frc;

	if (head_tree(&tree, r, err) < 0)
		goto out;
	if (git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION) < 0) {
		git_fail(err, path, "cannot compare the index with HEAD");
		goto out;
	}
	opts.flags = GIT_DIFF_IGNORE_SUBMODULES |
		     GIT_DIFF_DISABLE_PATHSPEC_MATCH |
		     GIT_DIFF_INCLUDE_TYPECHANGE;
	if (*prefix != '\0') {
		opts.pathspec.strings = &prefix;
		opts.pathspec.count = 1;
	}
	if (git_diff_tree_to_index(&diff, r->git, tree, idx, &opts) < 0) {
		git_fail(err, path, "cannot compare the index with HEAD");
		goto out;
	}
	n = git_diff_num_deltas(diff);
	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		if (d == NULL || (d->status != GIT_DELTA_ADDED &&
				  d->status != GIT_DELTA_MODIFIED &&
				  d->status != GIT_DELTA_RENAMED &&
				  d->status != GIT_DELTA_COPIED &&
				  d->status != GIT_DELTA_TYPECHANGE) ||
		    !under(prefix, d->new_file.path))
			continue;
		frc = index_file(&file, r, idx, d->new_file.path, err);
		if (frc < 0)
			goto out;
		if (frc == 0)
			files_add(out, path, prefix, d->new_file.path);
	}
	rc = 0;
out:
	git_diff_free(diff);
	git_tree_free(tree);
	return rc;
}

int
cpl_repo_staged_files(struct cpl_repo_files *out, struct cpl_repo *repo,
		      const char *path, enum cpl_repo_staged which,
		      struct cpl_error *err)
{
	git_index *idx;
	char *prefix = NULL;
	int rc;

	rc = cpl_repo_relpath(&prefix, repo, path, err);
	if (rc != 0)
		return rc;
	rc = repo_index(&idx, repo, err);
	if (rc == 0 && which == CPL_REPO_STAGED_ALL)
		rc = staged_all(out, repo, idx, path, prefix, err);
	else if (rc == 0)
		rc = staged_changed(out, repo, idx, path, prefix, err);
	files_sort(out);
	free(prefix);
	return rc;
}

int
cpl_repo_staged_blob(char **out, size_t *len, struct cpl_repo *repo,
		     const char *rel, size_t max, struct cpl_error *err)
{
	const git_index_entry *e;
	git_index *idx;
	git_blob *blob = NULL;
	const char *data;
	git_object_size_t size;
	int rc;

	*out = NULL;
	*len = 0;
	if (repo_index(&idx, repo, err) < 0)
		return -1;
	rc = index_file(&e, repo, idx, rel, err);
	if (rc != 0)
		return rc;
	rc = -1;
	if (git_blob_lookup(&blob, repo->git, &e->id) < 0) {
		git_fail(err, rel, "cannot read the staged content");
		goto out;
	}
	size = git_blob_rawsize(blob);
	data = git_blob_rawcontent(blob);
	if (size > max) {
		cpl_error_set(err, rel, 0, 0,
			      "file is too large (%ju bytes; the limit is %zu)",
			      (uintmax_t)size, max);
		goto out;
	}
	if (memchr(data, '\0', size < BINARY_PROBE ? size : BINARY_PROBE)) {
		cpl_error_set(err, rel, 0, 0,
			      "binary file (NUL byte in the first 8 KiB)");
		goto out;
	}
	*out = cpl_xstrndup(data, (size_t)size);
	*len = (size_t)size;
	rc = 0;
out:
	git_blob_free(blob);
	return rc;
}

/* ---- the changed-lines set -------------------------------------------- */

/* The slot that holds rel, or the empty slot where it would go. */
static struct changed **
changed_slot(struct changed **slots, size_t nslots, const char *rel)
{
	size_t i = (size_t)cpl_hash_str(rel) & (nslots - 1);

	while (slots[i] != NULL && strcmp(slots[i]->rel, rel) != 0)
		i = (i + 1) & (nslots - 1);
	return &slots[i];
}

/* rel's record, created when missing; the table stays at most half full. */
static struct changed *
changed_get(struct cpl_repo *r, const char *rel)
{
	struct changed **slot;
	size_t i;

	if (2 * (r->nchanged + 1) > r->nslots) {
		size_t n = r->nslots ? 2 * r->nslots : 64;
		struct changed **s = cpl_xcalloc(n, sizeof(*s));

		for (i = 0; i < r->nslots; i++)
			if (r->slots[i] != NULL)
				*changed_slot(s, n, r->slots[i]->rel) =
					r->slots[i];
		free(r->slots);
		r->slots = s;
		r->nslots = n;
	}
	slot = changed_slot(r->slots, r->nslots, rel);
	if (*slot == NULL) {
		*slot = cpl_xcalloc(1, sizeof(**slot));
		(*slot)->rel = cpl_xstrdup(rel);
		r->nchanged++;
	}
	return *slot;
}

/* rel's record or NULL. */
static const struct changed *
changed_find(const struct cpl_repo *r, const char *rel)
{
	if (r->nslots == 0)
		return NULL;
	return *changed_slot(r->slots, r->nslots, rel);
}

/* Records a file: new ones are whole, pure renames are not changes. */
static int
on_file(const git_diff_delta *d, float progress, void *payload)
{
	struct cpl_repo *r = payload;

	(void)progress;
	switch (d->status) {
	case GIT_DELTA_ADDED:
	case GIT_DELTA_UNTRACKED:
	case GIT_DELTA_TYPECHANGE:
		changed_get(r, d->new_file.path)->whole = true;
		break;
	case GIT_DELTA_MODIFIED:
	case GIT_DELTA_COPIED:
	case GIT_DELTA_RENAMED:
		if (d->flags & GIT_DIFF_FLAG_BINARY)
			changed_get(r, d->new_file.path)->whole = true;
		break;
	default:
		break;
	}
	return 0;
}

/* Records a hunk's new-side lines (none for a pure deletion). */
static int
on_hunk(const git_diff_delta *d, const git_diff_hunk *h, void *payload)
{
	struct cpl_repo *r = payload;
	struct changed *c;

	if (d->status == GIT_DELTA_DELETED)
		return 0;
	c = changed_get(r, d->new_file.path);
	if (d->status == GIT_DELTA_MODIFIED || d->status == GIT_DELTA_RENAMED ||
	    d->status == GIT_DELTA_COPIED) {
		c->old = d->old_file.id;	/* its content at the base */
		c->has_old = true;
	}
	if (c->whole || h->new_lines <= 0)
		return 0;
	CPL_GROW(c->v, c->cap, c->n + 1);
	c->v[c->n].start = h->new_start;
	c->v[c->n].end = h->new_start + h->new_lines;
	c->n++;
	return 0;
}

/* Orders spans by first line. */
static int
cmp_span(const void *a, const void *b)
{
	const struct repo_span *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* The tree to compare with: the merge base of HEAD and ref (NULL: none). */
static int
base_tree(git_tree **out, struct cpl_repo *r, const char *ref,
	  struct cpl_error *err)
{
	git_object *obj = NULL, *refc = NULL, *head = NULL;
	git_commit *base = NULL;
	git_oid oid;
	int rc = -1, grc;

	*out = NULL;
	grc = git_revparse_single(&obj, r->git, ref);
	if (grc == GIT_ENOTFOUND || grc == GIT_EINVALIDSPEC) {
		cpl_error_set(err, NULL, 0, 0,
			      "'%s' does not name a commit in %s", ref,
			      r->root);
		goto out;
	}
	if (grc < 0 || git_object_peel(&refc, obj, GIT_OBJECT_COMMIT) < 0) {
		const git_error *e = git_error_last();

		cpl_error_set(err, NULL, 0, 0,
			      "cannot resolve '%s' to a commit: %s", ref,
			      e && e->message ? e->message : "unknown error");
		goto out;
	}
	grc = git_repository_head_unborn(r->git);
	if (grc == 1) {
		rc = 0;
		goto out;
	}
	if (grc < 0 ||
	    git_revparse_single(&head, r->git, "HEAD^{commit}") < 0) {
		git_fail(err, r->root, "cannot read HEAD");
		goto out;
	}
	grc = git_merge_base(&oid, r->git, git_object_id(head),
			     git_object_id(refc));
	if (grc == GIT_ENOTFOUND) {
		cpl_error_set(err, NULL, 0, 0,
			      "HEAD and '%s' have no common ancestor", ref);
		goto out;
	}
	if (grc < 0 || git_commit_lookup(&base, r->git, &oid) < 0 ||
	    git_commit_tree(out, base) < 0) {
		git_fail(err, NULL, "cannot find the merge base");
		goto out;
	}
	rc = 0;
out:
	git_commit_free(base);
	git_object_free(head);
	git_object_free(refc);
	git_object_free(obj);
	return rc;
}

int
cpl_repo_diff_base(struct cpl_repo *repo, const char *ref, bool staged,
		   struct cpl_error *err)
{
	git_diff_options opts;
	git_diff_find_options find;
	git_diff *diff = NULL;
	git_tree *tree = NULL;
	git_index *idx;
	size_t i;
	int rc = -1;

	changed_clear(repo);
	if (repo_index(&idx, repo, err) < 0 ||
	    base_tree(&tree, repo, ref, err) < 0)
		goto out;
	if (git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION) < 0 ||
	    git_diff_find_options_init(&find,
				       GIT_DIFF_FIND_OPTIONS_VERSION) < 0) {
		git_fail(err, NULL, "cannot compare with the merge base");
		goto out;
	}
	opts.context_lines = 0;
	opts.interhunk_lines = 0;
	opts.flags = GIT_DIFF_IGNORE_SUBMODULES | GIT_DIFF_INCLUDE_TYPECHANGE;
	if (staged) {
		rc = git_diff_tree_to_index(&diff, repo->git, tree, idx, &opts);
	} else {
		opts.flags |= GIT_DIFF_INCLUDE_UNTRACKED |
			      GIT_DIFF_RECURSE_UNTRACKED_DIRS;
		rc = git_diff_tree_to_workdir_with_index(&diff, repo->git,
							 tree, &opts);
	}
	if (rc < 0) {
		git_fail(err, NULL, "cannot compare with the merge base");
		goto out;
	}
	rc = -1;
	find.flags = GIT_DIFF_FIND_RENAMES | GIT_DIFF_FIND_FOR_UNTRACKED;
	if (git_diff_find_similar(diff, &find) < 0 ||
	    git_diff_foreach(diff, on_file, NULL, on_hunk, NULL, repo) < 0) {
		git_fail(err, NULL, "cannot compare with the merge base");
		changed_clear(repo);
		goto out;
	}
	for (i = 0; i < repo->nslots; i++)
		if (repo->slots[i] != NULL && repo->slots[i]->n > 1)
			qsort(repo->slots[i]->v, repo->slots[i]->n,
			      sizeof(struct repo_span), cmp_span);
	repo->diffed = true;
	rc = 0;
out:
	git_diff_free(diff);
	git_tree_free(tree);
	return rc;
}

int
cpl_repo_base_text(char **out, size_t *len, struct cpl_repo *repo,
		   const char *rel, size_t max)
{
	const struct changed *c = repo->diffed ? changed_find(repo, rel) :
				  NULL;
	git_blob *blob = NULL;
	git_object_size_t size;
	int rc = 1;

	*out = NULL;
	*len = 0;
	if (c == NULL || !c->has_old ||
	    git_blob_lookup(&blob, repo->git, &c->old) < 0)
		return 1;
	size = git_blob_rawsize(blob);
	if (size <= max) {
		*out = cpl_xstrndup(git_blob_rawcontent(blob), (size_t)size);
		*len = (size_t)size;
		rc = 0;
	}
	git_blob_free(blob);
	return rc;
}

bool
cpl_repo_file_changed(const struct cpl_repo *repo, const char *rel)
{
	return !repo->diffed || changed_find(repo, rel) != NULL;
}

bool
cpl_repo_line_changed(const struct cpl_repo *repo, const char *rel,
		      int line)
{
	const struct changed *c;
	size_t lo = 0, hi;

	if (!repo->diffed)
		return true;
	c = changed_find(repo, rel);
	if (c == NULL)
		return false;
	if (c->whole)
		return true;
	hi = c->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (line < c->v[mid].start)
			hi = mid;
		else if (line >= c->v[mid].end)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}
