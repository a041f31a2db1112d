/*
 * engine.c — one lint run: sources → workloads → rules → findings.
 *
 * Invariants: each file is read once and parsed once, and its text is kept
 * (for inline suppressions and SARIF line hashes) until the engine is
 * freed.  Every rule runs once over every container (and, for code rules,
 * every Python file); findings are then filtered by configuration and
 * suppressions, and sorted by file, line, column, rule.  Input problems
 * never stop the run: they are recorded as errors.
 */
#include "engine.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "budget.h"
#include "config.h"
#include "link.h"
#include "load/loader.h"
#include "python/pyscan.h"
#include "git/repo.h"
#include "rule.h"
#include "suppress.h"
#include "text/yamldoc.h"

#define MAX_FILE_BYTES CPL_ENGINE_MAX_FILE_BYTES
#define MAX_WALK_DEPTH 64

enum file_kind {
	FILE_YAML,
	FILE_PYTHON,
};

/* One source file, read once. */
struct source {
	char *path;
	enum file_kind kind;
	char *text;
	size_t len;
	struct cpl_suppress *sup;	/* inline comments */
	bool linted;			/* a target (not only linked code) */
	struct cpl_pyfile *py;		/* Python: scanned once, lazily */
	bool scanned;
	size_t *line_at;		/* byte offset of each line, lazily */
	size_t nlines;
};

struct cpl_engine {
	struct source **files;		/* owned, in the order read */
	size_t nfiles;
	size_t files_cap;
	struct cpl_strmap by_path;	/* normalised path → struct source * */
	char **keys;			/* owned keys of by_path and absent */
	size_t nkeys;
	struct cpl_strmap absent;	/* paths the linker found missing */
	struct cpl_code **codes;	/* linked code, owned */
	size_t ncodes;
	struct cpl_strmap code_of;	/* pyfile path → a struct cpl_code */
	struct cpl_wlist workloads;
	struct cpl_finding *findings;
	size_t nfindings;
	size_t findings_cap;
	struct cpl_budget_entry *budgets;	/* every training container */
	size_t nbudgets;
	size_t budgets_cap;
	struct cpl_error *errors;
	size_t nerrors;
	size_t errors_cap;
	struct cpl_error *warnings;	/* problems that do not fail the run */
	size_t nwarnings;
	size_t warnings_cap;
	struct cpl_config *config;	/* owned */
	struct cpl_repo *repo;		/* borrowed; NULL outside git */
	bool staged;			/* read files from the index */
	bool diff;			/* keep only changed lines */
};

struct cpl_check {
	struct cpl_engine *e;
	const struct cpl_rule *rule;
};

struct cpl_engine *
cpl_engine_new(void)
{
	struct cpl_engine *e = cpl_xcalloc(1, sizeof(*e));

	e->config = cpl_config_new();
	return e;
}

void
cpl_engine_free(struct cpl_engine *e)
{
	size_t i;

	if (e == NULL)
		return;
	for (i = 0; i < e->ncodes; i++)
		cpl_pyscan_code_free(e->codes[i]);
	free(e->codes);
	cpl_strmap_free(&e->code_of);
	for (i = 0; i < e->nfiles; i++) {
		free(e->files[i]->path);
		free(e->files[i]->text);
		cpl_suppress_free(e->files[i]->sup);
		cpl_pyfile_free(e->files[i]->py);
		free(e->files[i]->line_at);
		free(e->files[i]);
	}
	free(e->files);
	cpl_strmap_free(&e->by_path);
	cpl_strmap_free(&e->absent);
	for (i = 0; i < e->nkeys; i++)
		free(e->keys[i]);
	free(e->keys);
	cpl_wlist_free(&e->workloads);
	for (i = 0; i < e->nfindings; i++)
		cpl_finding_free(&e->findings[i]);
	free(e->findings);
	for (i = 0; i < e->nbudgets; i++)
		cpl_finding_budget_free(&e->budgets[i]);
	free(e->budgets);
	for (i = 0; i < e->nerrors; i++)
		cpl_error_clear(&e->errors[i]);
	free(e->errors);
	for (i = 0; i < e->nwarnings; i++)
		cpl_error_clear(&e->warnings[i]);
	free(e->warnings);
	cpl_config_free(e->config);
	free(e);
}

/* Appends a copy of err to a list of errors or warnings. */
static void
push_error(struct cpl_error **v, size_t *n, size_t *cap,
	   const struct cpl_error *err)
{
	struct cpl_error *d;

	cpl_xgrow((void **)v, cap, *n + 1, sizeof(**v));
	d = &(*v)[(*n)++];
	memset(d, 0, sizeof(*d));
	d->path = cpl_xstrdup(err->path);
	d->line = err->line;
	d->column = err->column;
	d->message = cpl_xstrdup(err->message ? err->message : "error");
}

void
cpl_engine_add_error(struct cpl_engine *e, const struct cpl_error *err)
{
	push_error(&e->errors, &e->nerrors, &e->errors_cap, err);
}

void
cpl_engine_add_warning(struct cpl_engine *e, const struct cpl_error *w)
{
	push_error(&e->warnings, &e->nwarnings, &e->warnings_cap, w);
}

/* Keeps the warnings a parse left (duplicate keys). */
static void
add_stream_warnings(struct cpl_engine *e, const struct cpl_ystream *s,
		    const char *path)
{
	size_t i, n, dropped;
	const struct cpl_error *w = cpl_ystream_warnings(s, &n, &dropped);

	for (i = 0; i < n; i++)
		cpl_engine_add_warning(e, &w[i]);
	if (dropped > 0) {
		struct cpl_error more = { 0 };

		cpl_error_set(&more, path, 0, 0, "%zu more warnings not "
			      "shown", dropped);
		cpl_engine_add_warning(e, &more);
		cpl_error_clear(&more);
	}
}

static void
add_errorf(struct cpl_engine *e, const char *path, int line, int col,
	   const char *fmt, ...) CPL_PRINTF(5, 6);

static void
add_errorf(struct cpl_engine *e, const char *path, int line, int col,
	   const char *fmt, ...)
{
	struct cpl_error err = { 0 };
	va_list ap;

	err.path = cpl_xstrdup(path);
	err.line = line;
	err.column = col;
	va_start(ap, fmt);
	err.message = cpl_xvasprintf(fmt, ap);
	va_end(ap);
	cpl_engine_add_error(e, &err);
	cpl_error_clear(&err);
}

static const struct source *find_source(const struct cpl_engine *e,
				       const char *path);

/* Keeps a map key alive as long as the engine. */
static const char *
own_key(struct cpl_engine *e, char *key)
{
	e->keys = cpl_xrealloc(e->keys, (e->nkeys + 1) * sizeof(*e->keys));
	e->keys[e->nkeys++] = key;
	return key;
}

/* ---- sources ---------------------------------------------------------- */

static bool
is_yaml_name(const char *path)
{
	return cpl_str_ends(path, ".yaml") || cpl_str_ends(path, ".yml") ||
	       cpl_str_ends(path, ".json");
}

static struct source *
add_source(struct cpl_engine *e, const char *path, enum file_kind kind,
	   char *text, size_t len)
{
	struct source *src;

	cpl_xgrow((void **)&e->files, &e->files_cap, e->nfiles + 1,
		  sizeof(*e->files));
	src = cpl_xcalloc(1, sizeof(*src));
	e->files[e->nfiles++] = src;
	src->path = cpl_xstrdup(path);
	src->linted = true;
	cpl_strmap_put(&e->by_path, own_key(e, cpl_link_join(".", path)), src);
	src->kind = kind;
	src->text = text;
	src->len = len;
	src->sup = cpl_suppress_scan(text, len);
	return src;
}

/* Parses a YAML/JSON source and loads every document into workloads. */
static void
load_yaml(struct cpl_engine *e, const struct source *src, bool explicit)
{
	struct cpl_ystream *s = NULL;
	struct cpl_error err = { 0 };
	size_t i, n, workloads = 0;
	bool any = false;

	if (cpl_yaml_parse(&s, src->path, src->text, src->len, &err) < 0) {
		cpl_engine_add_error(e, &err);
		goto out;
	}
	add_stream_warnings(e, s, src->path);
	n = cpl_ystream_count(s);
	for (i = 0; i < n; i++) {
		const struct cpl_ynode *doc = cpl_ystream_doc(s, i);
		size_t before = e->workloads.count;
		int rc;

		if (doc == NULL)
			continue;
		if (cpl_manifest_detect(doc)) {
			rc = cpl_manifest_load(&e->workloads, s, doc,
					       src->path, &err);
		} else if (cpl_polyaxon_detect(doc)) {
			rc = cpl_polyaxon_load(&e->workloads, s, doc,
					       src->path, &err);
		} else {
			if (!cpl_ynode_is_null(doc))
				cpl_wlist_skip(&e->workloads, src->path,
					       doc->line, doc->column,
					       "neither a Polyaxonfile nor a "
					       "Kubernetes object",
					       "document %zu", i + 1);
			continue;
		}
		any = true;
		if (rc < 0) {
			cpl_engine_add_error(e, &err);
			cpl_error_clear(&err);
		}
		workloads += e->workloads.count - before;
	}
	if (!any && explicit) {
		const struct cpl_ynode *doc = cpl_ystream_doc(s, 0);

		add_errorf(e, src->path, doc ? doc->line : 1,
			   doc ? doc->column : 1,
			   "not a workload: neither a Polyaxonfile (version, "
			   "kind) nor a Kubernetes object (apiVersion, kind)");
	}
	(void)workloads;
out:
	cpl_error_clear(&err);
	cpl_ystream_free(s);
}

static void
add_text(struct cpl_engine *e, const char *path, char *text, size_t len,
	 bool explicit)
{
	struct source *src;

	if (cpl_str_ends(path, ".py")) {
		add_source(e, path, FILE_PYTHON, text, len);
		return;
	}
	src = add_source(e, path, FILE_YAML, text, len);
	load_yaml(e, src, explicit);
}

/* Reads path from the working tree, or from the index with --staged. */
static int
read_source(struct cpl_engine *e, const char *path, char **text,
	    size_t *len, struct cpl_error *err)
{
	char *rel = NULL;
	int rc;

	if (!e->staged)
		return cpl_read_file(text, len, path, MAX_FILE_BYTES, err);
	rc = cpl_repo_relpath(&rel, e->repo, path, err);
	if (rc == 1)
		cpl_error_set(err, path, 0, 0, "outside the repository, so "
			      "--staged has nothing to read");
	if (rc != 0)
		return -1;
	rc = cpl_repo_staged_blob(text, len, e->repo, rel, MAX_FILE_BYTES,
				  err);
	if (rc == 1)
		cpl_error_set(err, path, 0, 0, "not staged (--staged reads "
			      "the index; git add it first)");
	free(rel);
	return rc == 0 ? 0 : -1;
}

static void
add_file(struct cpl_engine *e, const char *path, bool explicit)
{
	struct cpl_error err = { 0 };
	char *text = NULL;
	size_t len;

	if (!explicit && cpl_config_excluded(e->config, path))
		return;
	if (find_source(e, path) != NULL)	/* named twice: read once */
		return;
	if (read_source(e, path, &text, &len, &err) < 0) {
		cpl_engine_add_error(e, &err);
		cpl_error_clear(&err);
		return;
	}
	add_text(e, path, text, len, explicit);
}

void
cpl_engine_add_buffer(struct cpl_engine *e, const char *path,
		      const char *buf, size_t len, bool explicit)
{
	if (find_source(e, path) != NULL)
		return;
	if (len > MAX_FILE_BYTES) {
		add_errorf(e, path, 0, 0, "file is too large (%zu bytes; "
			   "the limit is %zu)", len, MAX_FILE_BYTES);
		return;
	}
	if (memchr(buf, '\0', len < 8192 ? len : 8192) != NULL) {
		add_errorf(e, path, 0, 0,
			   "binary file (NUL byte in the first 8 KiB)");
		return;
	}
	add_text(e, path, cpl_xstrndup(buf, len), len, explicit);
}

static bool
skip_dir(const char *name)
{
	static const char *const skip[] = { "node_modules", "__pycache__",
					    "venv", "site-packages" };
	size_t i;

	if (name[0] == '.')	/* .git, .venv, .tox, .mypy_cache ... */
		return true;
	for (i = 0; i < CPL_ARRAY_LEN(skip); i++)
		if (strcmp(name, skip[i]) == 0)
			return true;
	return false;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Walks dir in sorted order so output does not depend on the file system. */
static void
walk(struct cpl_engine *e, const char *dir, int depth)
{
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0, i;

	if (depth > MAX_WALK_DEPTH) {
		add_errorf(e, dir, 0, 0, "directory nesting too deep; "
			   "not walked further");
		return;
	}
	d = opendir(dir);
	if (d == NULL) {
		add_errorf(e, dir, 0, 0, "cannot read directory: %s",
			   strerror(errno));
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		cpl_xgrow((void **)&names, &cap, n + 1, sizeof(*names));
		names[n++] = cpl_xstrdup(de->d_name);
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		char *p = strcmp(dir, ".") == 0 ?
			  cpl_xstrdup(names[i]) :
			  cpl_xasprintf("%s%s%s", dir,
					cpl_str_ends(dir, "/") ? "" : "/",
					names[i]);
		struct stat st;

		if (lstat(p, &st) == 0 && !S_ISLNK(st.st_mode)) {
			if (S_ISDIR(st.st_mode)) {
				if (!skip_dir(names[i]) && !cpl_config_excluded(e->config, p))
					walk(e, p, depth + 1);
			} else if (S_ISREG(st.st_mode) &&
				   (is_yaml_name(p) ||
				    cpl_str_ends(p, ".py"))) {
				add_file(e, p, false);
			}
		}
		free(p);
		free(names[i]);
	}
	free(names);
}

void
cpl_engine_set_repo(struct cpl_engine *e, struct cpl_repo *repo,
		    bool staged)
{
	e->repo = repo;
	e->staged = staged && repo != NULL;
}

int
cpl_engine_set_diff_base(struct cpl_engine *e, const char *ref,
			 struct cpl_error *err)
{
	if (e->repo == NULL) {
		cpl_error_set(err, NULL, 0, 0, "--diff-base needs a git "
			      "repository, and the targets are not in one");
		return -1;
	}
	if (cpl_repo_diff_base(e->repo, ref, e->staged, err) < 0)
		return -1;
	e->diff = true;
	return 0;
}

/* Lints what git lists under a directory (or the index, with --staged). */
static bool
walk_repo(struct cpl_engine *e, const char *dir)
{
	struct cpl_repo_files files = { 0 };
	struct cpl_error err = { 0 };
	size_t i;
	int rc;

	if (e->staged)
		rc = cpl_repo_staged_files(&files, e->repo, dir,
					   CPL_REPO_STAGED_ALL, &err);
	else
		rc = cpl_repo_walk(&files, e->repo, dir, &err);
	if (rc < 0) {
		cpl_engine_add_error(e, &err);
		cpl_error_clear(&err);
	}
	for (i = 0; rc == 0 && i < files.n; i++) {
		const char *p = files.v[i].path;
		const char *base = strrchr(files.v[i].rel, '/');
		struct stat st;

		if (!(is_yaml_name(p) || cpl_str_ends(p, ".py")))
			continue;
		/* Like the plain walk, never lint through a symlink: its
		 * target is linted under its own name. */
		if (!e->staged && lstat(p, &st) == 0 && S_ISLNK(st.st_mode))
			continue;
		/* git lists hidden and vendored files too; skip them as the
		 * plain walk does. */
		if ((base ? base[1] : files.v[i].rel[0]) == '.' ||
		    strstr(files.v[i].rel, "/.") != NULL ||
		    files.v[i].rel[0] == '.' ||
		    strstr(files.v[i].rel, "node_modules/") != NULL ||
		    strstr(files.v[i].rel, "site-packages/") != NULL)
			continue;
		add_file(e, p, false);
	}
	cpl_repo_files_free(&files);
	return rc != 1;
}

void
cpl_engine_add_path(struct cpl_engine *e, const char *path, bool explicit)
{
	struct stat st;

	if (stat(path, &st) < 0 && !e->staged) {
		add_errorf(e, path, 0, 0, "cannot read: %s", strerror(errno));
		return;
	}
	if (e->staged && (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))) {
		add_file(e, path, explicit);	/* a staged file */
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		if (e->repo == NULL || !walk_repo(e, path))
			walk(e, path, 0);
	} else {
		add_file(e, path, explicit);
	}
}

void
cpl_engine_add_workload(struct cpl_engine *e, struct cpl_workload *w)
{
	cpl_wlist_add(&e->workloads, w);
}

/* ---- checks ----------------------------------------------------------- */

static char *
object_name(const struct cpl_workload *w)
{
	if (w->object)
		return cpl_xstrdup(w->object);
	if (w->replica)
		return cpl_xasprintf("%s/%s[%s]", w->kind ? w->kind : "?",
				     w->name && *w->name ? w->name : "-",
				     w->replica);
	return cpl_xasprintf("%s/%s", w->kind ? w->kind : "?",
			     w->name && *w->name ? w->name : "-");
}

struct cpl_finding *
cpl_check_report(struct cpl_check *ck, const struct cpl_workload *w,
		 const struct cpl_container *c, const struct cpl_pos *pos,
		 const char *fmt, ...)
{
	struct cpl_engine *e = ck->e;
	struct cpl_finding *f;
	va_list ap;

	cpl_xgrow((void **)&e->findings, &e->findings_cap, e->nfindings + 1,
		  sizeof(*e->findings));
	f = &e->findings[e->nfindings++];
	memset(f, 0, sizeof(*f));
	f->rule = ck->rule;
	f->severity = ck->rule->severity;
	if (pos && pos->file) {
		f->file = cpl_xstrdup(pos->file);
		f->line = pos->line;
		f->column = pos->column;
	}
	if (w) {
		f->object = object_name(w);
		if (f->file == NULL && w->file) {
			f->file = cpl_xstrdup(w->file);
			f->line = w->pos.line;
			f->column = w->pos.column;
		}
	}
	if (c && c->name)
		f->container = cpl_xstrdup(c->name);
	f->origin = c;
	va_start(ap, fmt);
	f->message = cpl_xvasprintf(fmt, ap);
	va_end(ap);
	return f;
}

void
cpl_finding_set_fix(struct cpl_finding *f, const char *fmt, ...)
{
	va_list ap;

	free(f->fix);
	va_start(ap, fmt);
	f->fix = cpl_xvasprintf(fmt, ap);
	va_end(ap);
}

void
cpl_finding_add_related(struct cpl_finding *f, const struct cpl_pos *pos,
			const char *fmt, ...)
{
	struct cpl_related *r;
	va_list ap;

	if (pos == NULL || pos->file == NULL || pos->line <= 0)
		return;
	f->related = cpl_xrealloc(f->related,
				  (f->nrelated + 1) * sizeof(*f->related));
	r = &f->related[f->nrelated++];
	r->file = cpl_xstrdup(pos->file);
	r->line = pos->line;
	r->column = pos->column > 0 ? pos->column : 1;
	va_start(ap, fmt);
	r->message = cpl_xvasprintf(fmt, ap);
	va_end(ap);
}

void
cpl_finding_add_edit(struct cpl_finding *f, const struct cpl_pos *pos,
		     int end_line, int end_column, const char *text)
{
	struct cpl_edit *ed;

	if (pos == NULL || pos->file == NULL || pos->line <= 0)
		return;
	f->edits = cpl_xrealloc(f->edits, (f->nedits + 1) * sizeof(*f->edits));
	ed = &f->edits[f->nedits++];
	ed->file = cpl_xstrdup(pos->file);
	ed->line = pos->line;
	ed->column = pos->column;
	ed->end_line = end_line;
	ed->end_column = end_column;
	ed->text = cpl_xstrdup(text);
}

/*
 * Byte offset of 1-based line:column in a source, or -1.  The offsets of
 * its lines are indexed once, on the first question, so a file with
 * thousands of findings is not rescanned for each.
 */
static long
offset_of(const struct source *src_c, int line, int column)
{
	struct source *src = (struct source *)src_c;
	size_t at, cap = 0;
	const char *p, *end = src->text + src->len;

	if (src->line_at == NULL) {
		cpl_xgrow((void **)&src->line_at, &cap, 1, sizeof(size_t));
		src->line_at[src->nlines++] = 0;
		for (p = src->text; (p = memchr(p, '\n', (size_t)(end - p)));
		     p++) {
			cpl_xgrow((void **)&src->line_at, &cap,
				  src->nlines + 1, sizeof(size_t));
			src->line_at[src->nlines++] =
				(size_t)(p - src->text) + 1;
		}
	}
	if (line < 1 || column < 1 || (size_t)line > src->nlines)
		return -1;
	at = src->line_at[line - 1] + (size_t)(column - 1);
	return at > src->len ? -1 : (long)at;
}

void
cpl_check_replace_scalar(struct cpl_check *ck, struct cpl_finding *f,
			 const struct cpl_pos *pos, const char *text)
{
	const struct source *src = pos ? find_source(ck->e, pos->file) : NULL;
	const char *p, *end;
	long off;

	if (src == NULL || pos->line <= 0 || pos->column <= 0)
		return;
	off = offset_of(src, pos->line, pos->column);
	if (off < 0)
		return;
	p = src->text + off;
	end = src->text + src->len;
	if (*p == '"' || *p == '\'') {
		char q = *p++;

		while (p < end && *p != '\n') {
			if (q == '"' && *p == '\\' && p + 1 < end) {
				p += 2;
				continue;
			}
			if (*p == q) {
				if (q == '\'' && p + 1 < end && p[1] == '\'') {
					p += 2;
					continue;
				}
				break;
			}
			p++;
		}
		if (p >= end || *p != q)
			return;
		p++;
	} else {
		while (p < end && *p != '\n' && *p != ',' && *p != ']' &&
		       *p != '}' && !(*p == '#' && p[-1] == ' '))
			p++;
		while (p > src->text + off && (p[-1] == ' ' || p[-1] == '\t'))
			p--;
		if (p == src->text + off)
			return;
	}
	cpl_finding_add_edit(f, pos, pos->line,
			     pos->column + (int)(p - (src->text + off)), text);
}

double
cpl_check_throttle_threshold(const struct cpl_check *ck)
{
	return cpl_config_threshold(ck->e->config);
}

double
cpl_engine_throttle_threshold(const struct cpl_engine *e)
{
	return cpl_config_threshold(e->config);
}

/* The source at path, however the path is spelled ("./a/../b.py"). */
static const struct source *
find_source(const struct cpl_engine *e, const char *path)
{
	char *key;
	const struct source *src;

	if (path == NULL)
		return NULL;
	src = cpl_strmap_get(&e->by_path, path);
	if (src != NULL)
		return src;
	key = cpl_link_join(".", path);
	src = cpl_strmap_get(&e->by_path, key);
	free(key);
	return src;
}

static int
cmp_finding(const void *a, const void *b)
{
	const struct cpl_finding *x = a, *y = b;
	int c;

	if ((x->file == NULL) != (y->file == NULL))
		return x->file == NULL ? 1 : -1;
	if (x->file && (c = strcmp(x->file, y->file)) != 0)
		return c;
	if (x->object && y->object && x->file == NULL &&
	    (c = strcmp(x->object, y->object)) != 0)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->column != y->column)
		return x->column < y->column ? -1 : 1;
	if ((c = strcmp(x->rule->id, y->rule->id)) != 0)
		return c;
	if (x->container && y->container &&
	    (c = strcmp(x->container, y->container)) != 0)
		return c;
	if (x->file == NULL && x->object && y->object &&
	    (c = strcmp(x->object, y->object)) != 0)
		return c;
	if ((c = strcmp(x->message, y->message)) != 0)
		return c;
	if (x->object && y->object)
		return strcmp(x->object, y->object);
	return 0;
}

/* Same rule and place: one finding.  With the same message: a Deployment
 * and its ReplicaSet in one file, two replicas sharing an anchor.  For one
 * container text that several workloads share (legacy Polyaxon replicas,
 * a runtime merged into several TrainJobs) with messages that differ only
 * in each workload's numbers, the first stands for all: one fix there
 * fixes them all. */
static bool
same_finding(const struct cpl_finding *x, const struct cpl_finding *y)
{
	if (x->rule != y->rule || !cpl_str_eq(x->file, y->file) ||
	    x->line != y->line || x->column != y->column ||
	    !cpl_str_eq(x->container, y->container))
		return false;
	if (x->file == NULL && !cpl_str_eq(x->object, y->object))
		return false;
	if (strcmp(x->message, y->message) == 0)
		return true;
	return x->file != NULL && x->object && y->object &&
	       strcmp(x->object, y->object) != 0;
}

/* The scanned Python of a source, scanning it the first time; a
 * tokenizer error is an input error (the facts read so far are kept). */
static const struct cpl_pyfile *
python_of(struct cpl_engine *e, struct source *src)
{
	struct cpl_error err = { 0 };

	if (src->kind != FILE_PYTHON)
		return NULL;
	if (!src->scanned) {
		src->scanned = true;
		if (cpl_pyscan_file(&src->py, src->path, src->text, src->len,
				    &err) != 0 && src->linted)
			cpl_engine_add_error(e, &err);
		cpl_error_clear(&err);
	}
	return src->py;
}

/* The linker's loader: a Python file the engine has, or reads now (from
 * the working tree or, with --staged, the index).  Missing paths are
 * remembered, so each is looked up once. */
static const struct cpl_pyfile *
link_load(void *ctx, const char *path)
{
	struct cpl_engine *e = ctx;
	struct source *src = (struct source *)find_source(e, path);
	struct cpl_error err = { 0 };
	struct stat st;
	char *key, *text = NULL;
	size_t len;

	if (src != NULL)
		return python_of(e, src);
	key = cpl_link_join(".", path);
	if (cpl_strmap_get(&e->absent, key) != NULL) {
		free(key);
		return NULL;
	}
	if ((!e->staged && (stat(path, &st) < 0 || !S_ISREG(st.st_mode))) ||
	    cpl_config_excluded(e->config, path) ||
	    read_source(e, path, &text, &len, &err) < 0) {
		cpl_strmap_put(&e->absent, own_key(e, key), e);
		cpl_error_clear(&err);
		return NULL;
	}
	free(key);
	src = add_source(e, path, FILE_PYTHON, text, len);
	src->linted = false;	/* context for budget rules, not a target */
	return python_of(e, src);
}

/* Links every static container that runs a script to its code. */
static void
link_all(struct cpl_engine *e)
{
	struct cpl_linker lk = { .load = link_load, .ctx = e,
				 .root = e->repo ? cpl_repo_root(e->repo) :
				 NULL };
	size_t i, j, k;

	for (i = 0; i < e->workloads.count; i++) {
		struct cpl_workload *w = e->workloads.items[i];

		if (w->source == CPL_SRC_LIVE || w->merged)
			continue;
		for (j = 0; j < w->ncontainers; j++) {
			struct cpl_code *code;

			code = cpl_link_code(&lk, w, &w->containers[j]);
			if (code == NULL)
				continue;
			w->containers[j].code = code;
			e->codes = cpl_xrealloc(e->codes, (e->ncodes + 1) *
						sizeof(*e->codes));
			e->codes[e->ncodes++] = code;
			for (k = 0; k < code->nfiles; k++)
				if (cpl_strmap_get(&e->code_of,
						   code->files[k]->path) == NULL)
					cpl_strmap_put(&e->code_of,
						       code->files[k]->path,
						       code);
		}
	}
}

const struct cpl_code *
cpl_check_code_of(const struct cpl_check *ck, const struct cpl_pyfile *f)
{
	return cpl_strmap_get(&ck->e->code_of, f->path);
}

/* Whether a line of a file (as the finding names it) changed. */
static bool
line_changed(const struct cpl_engine *e, const char *file, int line)
{
	struct cpl_error err = { 0 };
	char *rel = NULL;
	bool yes;

	if (file == NULL)
		return true;	/* live findings are never filtered */
	if (cpl_repo_relpath(&rel, e->repo, file, &err) != 0) {
		cpl_error_clear(&err);
		return true;	/* outside the repository: keep */
	}
	yes = cpl_repo_line_changed(e->repo, rel, line);
	free(rel);
	return yes;
}

/* Whether a file (as the engine names it) changed at all. */
static bool
file_changed(const struct cpl_engine *e, const char *file)
{
	struct cpl_error err = { 0 };
	char *rel = NULL;
	bool yes;

	if (cpl_repo_relpath(&rel, e->repo, file, &err) != 0) {
		cpl_error_clear(&err);
		return false;
	}
	yes = cpl_repo_file_changed(e->repo, rel);
	free(rel);
	return yes;
}

/* --diff-base: the finding's line, a related line, or (for a finding
 * about a container) the code the container runs changed. */
static bool
changed(const struct cpl_engine *e, const struct cpl_finding *f)
{
	const struct cpl_code *code = f->origin ? f->origin->code : NULL;
	size_t i;

	if (line_changed(e, f->file, f->line))
		return true;
	for (i = 0; i < f->nrelated; i++)
		if (line_changed(e, f->related[i].file, f->related[i].line))
			return true;
	for (i = 0; code && i < code->nfiles; i++)
		if (file_changed(e, code->files[i]->path))
			return true;
	return false;
}

/* Budget entries sort by file (live objects first), line, object. */
static int
budget_cmp(const void *pa, const void *pb)
{
	const struct cpl_budget_entry *a = pa, *b = pb;
	int d = strcmp(a->file ? a->file : "", b->file ? b->file : "");

	if (d)
		return d;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	d = strcmp(a->object ? a->object : "", b->object ? b->object : "");
	if (d)
		return d;
	return strcmp(a->container ? a->container : "",
		      b->container ? b->container : "");
}

/* One budget entry per training container, clean or not. */
static void
budgets_all(struct cpl_engine *e)
{
	size_t i, j;

	for (i = 0; i < e->workloads.count; i++) {
		const struct cpl_workload *w = e->workloads.items[i];
		char *object;

		if (w->merged)
			continue;
		object = object_name(w);
		for (j = 0; j < w->ncontainers; j++) {
			const struct cpl_container *c = &w->containers[j];

			if (!cpl_budget_training(w, c))
				continue;
			cpl_xgrow((void **)&e->budgets, &e->budgets_cap,
				  e->nbudgets + 1, sizeof(*e->budgets));
			cpl_budget_entry(&e->budgets[e->nbudgets++], object,
					 w, c);
		}
		free(object);
	}
	if (e->nbudgets > 1)
		qsort(e->budgets, e->nbudgets, sizeof(*e->budgets),
		      budget_cmp);
}

void
cpl_engine_run(struct cpl_engine *e)
{
	const struct cpl_rule *const *rules;
	size_t nrules, r, i, j, out;
	struct cpl_check ck = { .e = e };

	rules = cpl_rules_all(&nrules);
	/* TrainJobs meet their runtimes, whichever files they came from. */
	cpl_trainer_join(&e->workloads);
	/* Scan every Python target once, then link code to workloads. */
	for (i = 0; i < e->nfiles; i++)
		if (e->files[i]->linted)
			python_of(e, e->files[i]);
	link_all(e);
	budgets_all(e);
	for (r = 0; r < nrules; r++) {
		size_t first = e->nfindings;

		if (cpl_config_severity(e->config, r) == CPL_SEV_OFF)
			continue;
		ck.rule = rules[r];
		if (rules[r]->check_code) {
			for (i = 0; i < e->nfiles; i++)
				if (e->files[i]->linted && e->files[i]->py)
					rules[r]->check_code(&ck,
							     e->files[i]->py);
		}
		if (rules[r]->check_container) {
			for (i = 0; i < e->workloads.count; i++) {
				const struct cpl_workload *w =
					e->workloads.items[i];

				if (w->merged)
					continue;
				for (j = 0; j < w->ncontainers; j++)
					rules[r]->check_container(&ck, w,
						&w->containers[j]);
			}
		}
		for (i = first; i < e->nfindings; i++)
			e->findings[i].severity =
				cpl_config_severity(e->config, r);
	}
	/* Inline suppressions. */
	for (i = 0; i < e->nfindings; i++) {
		struct cpl_finding *f = &e->findings[i];
		const struct source *src = find_source(e, f->file);
		int at;

		if (src == NULL)
			continue;
		at = cpl_suppress_match(src->sup, f->rule->id, f->line);
		if (at != 0) {
			f->suppressed = true;
			f->suppression = at < 0 ?
				cpl_xstrdup("cpulint: disable-file comment") :
				cpl_xasprintf("cpulint: disable comment at "
					      "line %d", at);
		}
	}
	if (e->nfindings > 1)
		qsort(e->findings, e->nfindings, sizeof(*e->findings),
		      cmp_finding);
	for (i = 0, out = 0; i < e->nfindings; i++) {
		if ((e->diff && !changed(e, &e->findings[i])) ||
		    (out > 0 && same_finding(&e->findings[out - 1],
					     &e->findings[i]))) {
			cpl_finding_free(&e->findings[i]);
			continue;
		}
		if (out != i)
			e->findings[out] = e->findings[i];
		out++;
	}
	e->nfindings = out;
}

const struct cpl_finding *
cpl_engine_findings(const struct cpl_engine *e, size_t *n)
{
	*n = e->nfindings;
	return e->findings;
}

const struct cpl_error *
cpl_engine_warnings(const struct cpl_engine *e, size_t *n)
{
	*n = e->nwarnings;
	return e->warnings;
}

const struct cpl_budget_entry *
cpl_engine_budgets(const struct cpl_engine *e, size_t *n)
{
	*n = e->nbudgets;
	return e->budgets;
}

const struct cpl_error *
cpl_engine_errors(const struct cpl_engine *e, size_t *n)
{
	*n = e->nerrors;
	return e->errors;
}

size_t
cpl_engine_ntargets(const struct cpl_engine *e)
{
	size_t i, n = 0;

	for (i = 0; i < e->nfiles; i++)
		n += e->files[i]->linted;
	return n;
}

const struct cpl_wlist *
cpl_engine_workloads(const struct cpl_engine *e)
{
	return &e->workloads;
}

const char *
cpl_engine_source_text(const struct cpl_engine *e, const char *path,
		       size_t *len)
{
	const struct source *src = find_source(e, path);

	if (src == NULL)
		return NULL;
	if (len)
		*len = src->len;
	return src->text;
}

int
cpl_engine_load_config(struct cpl_engine *e, const char *path,
		       struct cpl_error *err)
{
	return cpl_config_load(e->config, path, err);
}

int
cpl_engine_find_config(struct cpl_engine *e, const char *dir,
		       struct cpl_error *err)
{
	return cpl_config_find(e->config, dir, err);
}
