/*
 * engine.c — one lint run: sources → workloads → rules → findings.
 *
 * Invariants: each file is read once and its text kept (for inline
 * suppressions, edits and SARIF line hashes) until the engine is freed;
 * YAML is parsed once.  Python is scanned light when read (its imports),
 * then fully when its group is judged (group.c), and unloaded after:
 * memory follows a group, not the tree.  Every rule runs once over every
 * container (and, for code rules, every Python file); findings are then
 * filtered by configuration and suppressions, and sorted by file, line,
 * column, rule.  Input problems never stop the run: they are recorded as
 * errors.  Python files named on their own bring in the workloads that
 * run them (reach.c; the state both share is in engine_int.h).  Tokens
 * made again for a loaded file are bounded by one token cache, trimmed
 * only between evaluations: after each container linked, each workload's
 * budgets, each file and each container through the rules.
 */
#include "engine_int.h"

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
#include "text/tmpl.h"
#include "text/yamledit.h"
#include "text/yamldoc.h"
#include "walk.h"

struct cpl_engine *
cpl_engine_new(void)
{
	struct cpl_engine *e = cpl_xcalloc(1, sizeof(*e));

	e->config = cpl_config_new();
	e->tokcache = cpl_pytokcache_new(CPL_PYTOKCACHE_BUDGET);
	return e;
}

void
cpl_engine_free(struct cpl_engine *e)
{
	size_t i;

	if (e == NULL)
		return;
	cpl_engine_land(e);	/* its sources, before anything is freed */
	for (i = 0; i < e->ncodes; i++)
		cpl_pyscan_code_free(e->codes[i]);
	free(e->codes);
	for (i = 0; i < e->ninline; i++)
		cpl_pyfile_free(e->inline_py[i]);
	free(e->inline_py);
	cpl_strmap_free(&e->code_of);
	for (i = 0; i < e->nrefs; i++) {
		free(e->refs[i]->v);
		free(e->refs[i]);
	}
	free(e->refs);
	for (i = 0; i < e->nfiles; i++) {
		free(e->files[i]->path);
		free(e->files[i]->text);
		cpl_suppress_free(e->files[i]->sup);
		cpl_pyfile_free(e->files[i]->py);
		cpl_error_clear(&e->files[i]->scan_err);
		cpl_lines_free(&e->files[i]->lines);
		cpl_yedit_free(e->files[i]->yedit);
		free(e->files[i]);
	}
	free(e->files);
	cpl_strmap_free(&e->by_path);
	cpl_strmap_free(&e->absent);
	cpl_strmap_free(&e->code_changed);
	cpl_strmap_free(&e->listed);
	for (i = 0; i < e->nlistings; i++) {
		cpl_strmap_free(e->listings[i]);
		free(e->listings[i]);
	}
	free(e->listings);
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
	for (i = 0; i < e->nnotes; i++)
		cpl_error_clear(&e->notes[i]);
	free(e->notes);
	cpl_strmap_free(&e->charts);
	cpl_config_free(e->config);
	cpl_engine_reach_free(e);
	cpl_engine_overlay_free(e);
	cpl_engine_pipeline_free(e);
	cpl_pytokcache_free(e->tokcache);
	cpl_link_memo_free(e->memo);
	free(e->yedits);
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

void
cpl_engine_note(struct cpl_engine *e, const char *path, const char *fmt, ...)
{
	struct cpl_error *n;
	va_list ap;

	cpl_xgrow((void **)&e->notes, &e->notes_cap, e->nnotes + 1,
		  sizeof(*e->notes));
	n = &e->notes[e->nnotes++];
	memset(n, 0, sizeof(*n));
	n->path = cpl_xstrdup(path);
	va_start(ap, fmt);
	n->message = cpl_xvasprintf(fmt, ap);
	va_end(ap);
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

const char *
cpl_engine_own_key(struct cpl_engine *e, char *key)
{
	cpl_xgrow((void **)&e->keys, &e->keys_cap, e->nkeys + 1,
		  sizeof(*e->keys));
	e->keys[e->nkeys++] = key;
	return key;
}

/* ---- sources ---------------------------------------------------------- */

struct source *
cpl_engine_source_new(const char *path, enum file_kind kind, char *text,
		      size_t len)
{
	struct source *src = cpl_xcalloc(1, sizeof(*src));

	src->path = cpl_xstrdup(path);
	src->linted = true;
	src->kind = kind;
	src->text = text;
	src->len = len;
	src->sup = cpl_suppress_scan(text, len);
	return src;
}

void
cpl_engine_source_add(struct cpl_engine *e, struct source *src)
{
	cpl_xgrow((void **)&e->files, &e->files_cap, e->nfiles + 1,
		  sizeof(*e->files));
	src->index = e->nfiles;
	if (src->py != NULL)
		src->py->owner = src;
	e->files[e->nfiles++] = src;
	cpl_strmap_put(&e->by_path,
		       cpl_engine_own_key(e, cpl_link_join(".", src->path)),
		       src);
}

struct source *
cpl_engine_add_source(struct cpl_engine *e, const char *path,
		      enum file_kind kind, char *text, size_t len)
{
	struct source *src = cpl_engine_source_new(path, kind, text, len);

	cpl_engine_source_add(e, src);
	return src;
}

/*
 * A template (a {{ … }} action outside strings) is not YAML to lint: an
 * error when it was named, skipped with a note when a walk met it.
 */
static void
template_met(struct cpl_engine *e, const char *path, bool explicit,
	     int line, int col)
{
	if (explicit)
		add_errorf(e, path, line, col, "a template ({{ ... }} outside "
			   "a string), not YAML to lint: render it first and "
			   "pipe it in (helm template CHART | kubectl cpulint "
			   "-f -)");
	else
		cpl_engine_note(e, path, "skipped: a template ({{ ... }} "
				"outside a string at line %d); render it "
				"first and pipe it in (helm template CHART | "
				"kubectl cpulint -f -)", line);
}

/* Parses a YAML/JSON source and loads every document into workloads. */
void
cpl_engine_load_yaml(struct cpl_engine *e, const struct source *src,
		     bool explicit)
{
	struct cpl_ystream *s = NULL;
	struct cpl_error err = { 0 };
	size_t i, n, workloads = 0;
	bool any = false;
	int line, col;

	if (cpl_yaml_parse(&s, src->path, src->text, src->len, &err) < 0) {
		if (cpl_tmpl_in_text(src->text, src->len, &line, &col))
			template_met(e, src->path, explicit, line, col);
		else if (!explicit &&
			 !cpl_loader_looks_ours(src->text, src->len))
			/* Not ours (no apiVersion or version beside a
			 * kind): a tsconfig.json with comments, a broken
			 * docker-compose.yaml.  Ours that do not parse
			 * stay errors. */
			cpl_engine_note(e, src->path, "skipped: does not "
					"parse (%d:%d: %s) and names no kind "
					"with apiVersion or version, so it is "
					"neither a Kubernetes object nor a "
					"Polyaxonfile", err.line, err.column,
					err.message);
		else
			cpl_engine_add_error(e, &err);
		goto out;
	}
	if (cpl_tmpl_in_stream(s, &line, &col)) {
		template_met(e, src->path, explicit, line, col);
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
		} else if (cpl_kfp_detect(doc)) {
			rc = cpl_kfp_load(&e->workloads, s, doc, src->path,
					  &err);
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
		cpl_engine_add_source(e, path, FILE_PYTHON, text, len);
		return;
	}
	src = cpl_engine_add_source(e, path, FILE_YAML, text, len);
	cpl_engine_load_yaml(e, src, explicit);
}

/* Reads path from the working tree, or from the index with --staged. */
int
cpl_engine_read_source(struct cpl_engine *e, const char *path, char **text,
		       size_t *len, struct cpl_error *err)
{
	char *rel = NULL;
	int rc;

	if (cpl_engine_overlay_read(e, path, text, len) == 0)
		return 0;
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

/*
 * Whether path lies in a Helm chart's templates/ (skipped unless named:
 * one note per chart).
 */
static bool
helm_template(struct cpl_engine *e, const char *path)
{
	char *chart;

	if (!cpl_str_ends(path, ".yaml") && !cpl_str_ends(path, ".yml") &&
	    !cpl_str_ends(path, ".json"))
		return false;
	chart = cpl_walk_chart_of(path);
	if (chart == NULL)
		return false;
	if (cpl_strmap_get(&e->charts, chart) == NULL) {
		char *dir;

		cpl_engine_flush(e);	/* the note after earlier files' */
		dir = cpl_xasprintf("%s%stemplates",
				    strcmp(chart, ".") == 0 ? "" : chart,
				    strcmp(chart, ".") == 0 ? "" :
				    cpl_str_ends(chart, "/") ? "" : "/");

		cpl_engine_note(e, dir, "skipped: Helm templates: render "
				"with helm template %s | kubectl cpulint -f -",
				chart);
		free(dir);
		cpl_strmap_put(&e->charts, cpl_engine_own_key(e, chart), e);
	} else {
		free(chart);
	}
	return true;
}

/* Queues a file met by a walk or named (pipeline.c reads it). */
static void
add_file(struct cpl_engine *e, const char *path, bool explicit)
{
	if (!explicit && (cpl_config_excluded(e->config, path) ||
			  helm_template(e, path)))
		return;
	if (cpl_engine_known(e, path))	/* read once */
		return;
	cpl_engine_queue(e, path, explicit);
}

void
cpl_engine_add_buffer(struct cpl_engine *e, const char *path,
		      const char *buf, size_t len, bool explicit)
{
	cpl_engine_flush(e);
	if (cpl_engine_find_source(e, path) != NULL)
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

/* The walker's callbacks. */
static void
walk_file(void *ctx, const char *path)
{
	add_file(ctx, path, false);
}

static void
walk_error(void *ctx, const struct cpl_error *err)
{
	cpl_engine_flush(ctx);	/* after the errors of earlier files */
	cpl_engine_add_error(ctx, err);
}

/*
 * The walker's listing of a directory, kept so that the linker need not
 * stat paths that are not there (most of its look-ups: `import torch`
 * tries torch.py and torch/__init__.py next to every script).  Only the
 * names the linker may ask for are kept: every entry but plain files
 * whose name does not end in ".py" (directories, links and entries of
 * an unknown type may lead to a module).
 */
static void
dir_listed(void *ctx, const char *dir, char *const *names, size_t n)
{
	struct cpl_engine *e = ctx;
	struct cpl_strmap *m = cpl_xcalloc(1, sizeof(*m));
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char type = (unsigned char)names[i][strlen(names[i]) +
							     1];

		if (type == DT_REG && !cpl_str_ends(names[i], ".py"))
			continue;
		cpl_strmap_put(m, cpl_engine_own_key(e, cpl_xstrdup(names[i])),
			       e);
	}
	cpl_xgrow((void **)&e->listings, &e->listings_cap, e->nlistings + 1,
		  sizeof(*e->listings));
	e->listings[e->nlistings++] = m;
	cpl_strmap_put(&e->listed, cpl_engine_own_key(e, cpl_link_join(".",
								      dir)),
		       m);
}

/* Whether key (a normalised path) is known not to be there: the
 * nearest of its directories that a walk listed lacks the next component
 * on its way (an absent file, or an absent directory above it). */
static bool
listed_absent(const struct cpl_engine *e, const char *key)
{
	char stack[512], *dir, *slash;
	size_t n = strlen(key) + 1;
	bool absent = false;

	if (e->listed.count == 0 || strchr(key, '/') == NULL)
		return false;
	dir = n <= sizeof(stack) ? stack : cpl_xmalloc(n);
	memcpy(dir, key, n);
	while ((slash = strrchr(dir, '/')) != NULL && slash > dir) {
		const struct cpl_strmap *m;

		*slash = '\0';
		m = cpl_strmap_get(&e->listed, dir);
		if (m != NULL) {
			absent = cpl_strmap_get(m, slash + 1) == NULL;
			break;
		}
	}
	if (dir != stack)
		free(dir);
	return absent;
}

/* What listed_absent() finds for every path below dir/name, for each of
 * names, when a walk listed dir itself (and dir is a path below the top:
 * listed_absent() never answers for one there); false otherwise.  The
 * loader asks its maps first, but a file they hold in a listed directory
 * is in its listing, so the answer is the loader's.  The listings' keys
 * are normalised: a dir spelt otherwise is none of them, and unknown. */
bool
cpl_engine_link_missing(void *ctx, const char *dir, const char *const *names,
			size_t n)
{
	struct cpl_engine *e = ctx;
	const struct cpl_strmap *m;
	size_t i, len;

	if (e->staged || e->listed.count == 0 || *dir == '\0' ||
	    strcmp(dir, ".") == 0 || strcmp(dir, "/") == 0)
		return false;
	if (e->missing_count == e->listed.count &&
	    strcmp(dir, e->missing_dir) == 0) {
		m = e->missing_listing;
	} else {
		m = cpl_strmap_get(&e->listed, dir);
		len = strlen(dir);
		if (len < sizeof(e->missing_dir)) {
			memcpy(e->missing_dir, dir, len + 1);
			e->missing_listing = m;
			e->missing_count = e->listed.count;
		}
	}
	if (m == NULL)
		return false;
	for (i = 0; i < n; i++)
		if (cpl_strmap_get(m, names[i]) != NULL)
			return false;
	return true;
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

void
cpl_engine_add_path(struct cpl_engine *e, const char *path, bool explicit)
{
	struct stat st;

	if (stat(path, &st) < 0 && !e->staged) {
		add_errorf(e, path, 0, 0, "cannot read: %s", strerror(errno));
		return;
	}
	if (cpl_str_ends(path, ".py") &&
	    (e->staged || !S_ISDIR(st.st_mode))) {
		/* A Python file named on its own: pre-commit's changed
		 * file, judged with the workloads that run it. */
		cpl_xgrow((void **)&e->seeds, &e->seeds_cap, e->nseeds + 1,
			  sizeof(*e->seeds));
		e->seeds[e->nseeds++] = cpl_xstrdup(path);
	}
	if (e->staged && (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))) {
		add_file(e, path, explicit);	/* a staged file */
		cpl_engine_flush(e);
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		struct cpl_walker w = { .config = e->config,
					.repo = e->repo, .staged = e->staged,
					.file = walk_file,
					.error = walk_error,
					.listed = e->staged ? NULL : dir_listed,
					.ctx = e };

		cpl_walk_dir(&w, path);
	} else {
		add_file(e, path, explicit);
	}
	cpl_engine_flush(e);
}

void
cpl_engine_add_workload(struct cpl_engine *e, struct cpl_workload *w)
{
	cpl_engine_flush(e);
	cpl_wlist_add(&e->workloads, w);
}

/* ---- checks ----------------------------------------------------------- */

char *
cpl_engine_object_name(const struct cpl_workload *w)
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
	f->severity = cpl_config_severity(e->config, ck->index);
	f->order = e->order++;	/* group.c keys each part of the run */
	if (pos && pos->file) {
		f->file = cpl_xstrdup(pos->file);
		f->line = pos->line;
		f->column = pos->column;
	}
	if (w) {
		f->object = cpl_engine_object_name(w);
		if (f->file == NULL && w->file) {
			f->file = cpl_xstrdup(w->file);
			f->line = w->pos.line;
			f->column = w->pos.column;
		}
	}
	if (c && c->name)
		f->container = cpl_xstrdup(c->name);
	f->origin = c;
	f->workload = w;
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

double
cpl_check_throttle_threshold(const struct cpl_check *ck)
{
	return cpl_config_threshold(ck->e->config);
}

void
cpl_check_note(struct cpl_check *ck, const struct cpl_workload *w,
	       const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = cpl_xvasprintf(fmt, ap);
	va_end(ap);
	cpl_engine_note(ck->e, w && w->file ? w->file : "-", "%s: %s",
			ck->rule->id, msg);
	free(msg);
}

bool
cpl_check_rule_on(const struct cpl_check *ck, const char *id)
{
	const struct cpl_rule *const *rules;
	size_t n, i;

	rules = cpl_rules_all(&n);
	for (i = 0; i < n; i++)
		if (strcmp(rules[i]->id, id) == 0)
			return cpl_config_severity(ck->e->config, i) !=
			       CPL_SEV_OFF;
	return false;
}

double
cpl_engine_throttle_threshold(const struct cpl_engine *e)
{
	return cpl_config_threshold(e->config);
}

/* The source at path, however the path is spelled ("./a/../b.py"). */
const struct source *
cpl_engine_find_source(const struct cpl_engine *e, const char *path)
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
	if (x->object && y->object &&
	    (c = strcmp(x->object, y->object)) != 0)
		return c;
	/* A total order: the order reported (run_rules() keeps one rule's
	 * findings in the order they always came in). */
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
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

const struct cpl_pyfile *
cpl_engine_python(struct cpl_engine *e, struct source *src)
{
	struct cpl_error err = { 0 };

	if (src->kind != FILE_PYTHON)
		return NULL;
	if (src->scan_err.message != NULL) {	/* scanned on a worker */
		if (src->linted)
			cpl_engine_add_error(e, &src->scan_err);
		cpl_error_clear(&src->scan_err);
	}
	if (!src->scanned) {
		src->scanned = true;
		/* The source keeps its text as long as its scan. */
		if ((e->light ? cpl_pyscan_file_light :
			       cpl_pyscan_file_borrowed)(&src->py, src->path,
							 src->text, src->len,
							 &err) != 0 &&
		    src->linted)
			cpl_engine_add_error(e, &err);
		cpl_error_clear(&err);
		src->py->owner = src;
	} else if (!e->light) {
		/* Another thread may be loading it: nothing of it is read
		 * before that thread is done. */
		if (src->inflight)
			cpl_engine_crew_wait(e);
		if (!cpl_pyfile_loaded(src->py)) {
			/* A file of a group judged before (a dynamic
			 * import): its text may have been let go. */
			cpl_engine_text_back(e, src);
			cpl_pyfile_reload(src->py, true);
		}
	}
	/* Its tokens, made again when read, count against the bound. */
	if (cpl_pyfile_loaded(src->py))
		cpl_pytokcache_attach(e->tokcache, src->py);
	return src->py;
}

/* The linker's ready hook: an unloaded file loaded again. */
static void
link_ready(void *ctx, const struct cpl_pyfile *f)
{
	if (f->owner != NULL)
		(void)cpl_engine_python(ctx, f->owner);
}

void
cpl_engine_linker(struct cpl_engine *e, struct cpl_linker *lk)
{
	memset(lk, 0, sizeof(*lk));
	lk->load = cpl_engine_link_load;
	lk->ctx = e;
	lk->root = e->repo ? cpl_repo_root(e->repo) : NULL;
	if (e->memo == NULL)
		e->memo = cpl_link_memo_new();
	lk->memo = e->memo;
	lk->ready = link_ready;
	lk->missing = cpl_engine_link_missing;
}

/* The linker's loader: a Python file the engine has, or reads now (from
 * the working tree or, with --staged, the index).  Missing paths are
 * remembered, so each is looked up once. */
const struct cpl_pyfile *
cpl_engine_link_load(void *ctx, const char *path)
{
	struct cpl_engine *e = ctx;
	struct source *src;
	struct cpl_error err = { 0 };
	struct stat st;
	/* The linker's paths are joined already (most are). */
	char *key = cpl_link_is_joined(path) ? cpl_xstrdup(path) :
		    cpl_link_join(".", path), *text = NULL;
	size_t len;

	/* by_path's keys are normalised, and so is key: this is
	 * cpl_engine_find_source() with one join. */
	src = cpl_strmap_get(&e->by_path, key);
	if (src != NULL) {
		free(key);
		return cpl_engine_python(e, src);
	}
	if (cpl_strmap_get(&e->absent, key) != NULL) {
		free(key);
		return NULL;
	}
	/* What a listing shows missing is not remembered: asking the
	 * listing again is as cheap, and the run's memory stays with
	 * its files, not with every module every directory looked for. */
	if (!e->staged && listed_absent(e, key)) {
		free(key);
		return NULL;
	}
	if ((!e->staged && (stat(path, &st) < 0 || !S_ISREG(st.st_mode))) ||
	    cpl_config_excluded(e->config, path)) {
		cpl_strmap_put(&e->absent, cpl_engine_own_key(e, key), e);
		return NULL;
	}
	/* A named file spelt another way ("/repo/src/x.py" for "x.py"):
	 * the same source, read and scanned once. */
	src = cpl_engine_seed_source(e, path);
	if (src != NULL) {
		free(key);
		return cpl_engine_python(e, src);
	}
	if (cpl_engine_read_source(e, path, &text, &len, &err) < 0) {
		cpl_strmap_put(&e->absent, cpl_engine_own_key(e, key), e);
		cpl_error_clear(&err);
		return NULL;
	}
	free(key);
	src = cpl_engine_add_source(e, path, FILE_PYTHON, text, len);
	src->linted = false;	/* context for budget rules, not a target */
	return cpl_engine_python(e, src);
}

/* Keeps a linked process: the engine owns it, each of its files knows it
 * runs in it, and container c (NULL for a script linted on its own) runs
 * it. */
void
cpl_engine_keep_code(struct cpl_engine *e, const struct cpl_workload *w,
		     struct cpl_container *c, struct cpl_code *code)
{
	size_t k;

	if (c != NULL)
		c->code = code;

	cpl_xgrow((void **)&e->codes, &e->codes_cap, e->ncodes + 1,
		  sizeof(*e->codes));
	e->codes[e->ncodes++] = code;
	for (k = 0; k < code->nfiles; k++) {
		const char *path = code->files[k]->path;
		struct coderefs *r = cpl_strmap_get(&e->code_of, path);

		if (r == NULL) {
			r = cpl_xcalloc(1, sizeof(*r));
			cpl_xgrow((void **)&e->refs, &e->refs_cap,
				  e->nrefs + 1, sizeof(*e->refs));
			e->refs[e->nrefs++] = r;
			cpl_strmap_put(&e->code_of, path, r);
		}
		cpl_xgrow((void **)&r->v, &r->cap, r->n + 1, sizeof(*r->v));
		r->v[r->n].code = code;
		r->v[r->n].w = c != NULL ? w : NULL;
		r->v[r->n].c = c;
		r->v[r->n++].file = k;
	}
}

/* ---- launcher config files --------------------------------------------- */

/* A launcher's config file at path: a source the engine has, or read now
 * (not a target: it is context for the budget).  NULL when absent; each
 * missing path is looked up once. */
static const struct source *
aux_source(struct cpl_engine *e, const char *path)
{
	const struct source *src = cpl_engine_find_source(e, path);
	struct cpl_error err = { 0 };
	struct stat st;
	char *key, *text = NULL;
	size_t len;
	struct source *added;

	if (src != NULL)
		return src->kind == FILE_YAML ? src : NULL;
	key = cpl_link_join(".", path);
	if (cpl_strmap_get(&e->absent, key) != NULL) {
		free(key);
		return NULL;
	}
	if ((!e->staged && (stat(path, &st) < 0 || !S_ISREG(st.st_mode))) ||
	    cpl_config_excluded(e->config, path) ||
	    cpl_engine_read_source(e, path, &text, &len, &err) < 0) {
		cpl_strmap_put(&e->absent, cpl_engine_own_key(e, key), e);
		cpl_error_clear(&err);
		return NULL;
	}
	free(key);
	added = cpl_engine_add_source(e, path, FILE_YAML, text, len);
	added->linted = false;
	return added;
}

/* aux_source() as a cpl_link_find_up() attempt. */
static const void *
try_aux(void *ctx, const char *path)
{
	return aux_source(ctx, path);
}

/* Finds rel next to the workload file or above it (up to the repository
 * root, else 4 parents), as scripts are found, trying each suffix of an
 * absolute image path ("/app/configs/x.yaml") from the longest. */
static const struct source *
find_config(struct cpl_engine *e, const char *wfile, const char *rel)
{
	const char *root = e->repo ? cpl_repo_root(e->repo) : NULL;
	const char *wslash = strrchr(wfile, '/'), *next;
	const struct source *src = NULL;
	char *dir = wslash ? cpl_xstrndup(wfile, (size_t)(wslash - wfile)) :
		    cpl_xstrdup(".");

	if (strstr(rel, "}}") != NULL)
		rel = strstr(rel, "}}") + 2;
	while (*rel == '/')
		rel++;
	for (; src == NULL && *rel; rel = next + 1) {
		src = cpl_link_find_up(dir, rel, root, try_aux, e);
		if ((next = strchr(rel, '/')) == NULL)
			break;
	}
	free(dir);
	return src;
}

void
cpl_engine_launch_configs(struct cpl_engine *e, struct cpl_workload *w)
{
	size_t j;

	if (w->source == CPL_SRC_LIVE || w->file == NULL)
		return;
	for (j = 0; j < w->ncontainers; j++) {
		struct cpl_launch *l = &w->containers[j].launch;
		const char *rel = l->opt[CPL_LOPT_CONFIG].text;
		const struct source *src;

		if (l->launcher != CPL_LAUNCH_ACCELERATE || rel == NULL ||
		    strchr(rel, '$') != NULL ||
		    !(cpl_walk_wanted(rel) && !cpl_str_ends(rel, ".py")))
			continue;
		src = find_config(e, w->file, rel);
		if (src == NULL)
			continue;
		cpl_engine_text_back(e, (struct source *)src);
		(void)cpl_launch_read_config(l, src->path, src->text,
					     src->len);
	}
}

const struct cpl_code_ref *
cpl_engine_codes_of(const struct cpl_engine *e, const char *path, size_t *n)
{
	const struct coderefs *r = cpl_strmap_get(&e->code_of, path);

	*n = r ? r->n : 0;
	return r ? r->v : NULL;
}

void
cpl_engine_drop_texts(struct cpl_engine *e)
{
	e->drop_texts = true;
}

void
cpl_engine_let_text_go(struct cpl_engine *e, struct source *src)
{
	if (!e->drop_texts || !src->reread || src->text == NULL ||
	    cpl_pyfile_loaded(src->py))
		return;
	cpl_engine_free_yedit(src);
	cpl_lines_free(&src->lines);
	free(src->text);
	src->text = NULL;
	src->text_gone = true;
	if (src->py != NULL)
		src->py->text = NULL;
}

void
cpl_engine_text_back(struct cpl_engine *e, struct source *src)
{
	struct cpl_error err = { 0 };
	size_t len = 0;

	if (!src->text_gone)
		return;
	src->text_gone = false;
	if (cpl_engine_read_source(e, src->path, &src->text, &len,
				   &err) == 0 && len != src->len) {
		/* Not the text linted: positions would point elsewhere. */
		free(src->text);
		cpl_error_set(&err, src->path, 0, 0, "changed while being "
			      "linted (%zu bytes, then %zu); lint it again",
			      src->len, len);
	}
	if (err.message != NULL) {
		cpl_engine_add_error(e, &err);
		cpl_error_clear(&err);
		src->text = cpl_xstrdup("");
		len = 0;
	}
	src->len = len;
	if (src->py != NULL) {
		src->py->text = src->text;
		src->py->len = src->len;
	}
}

struct source *
cpl_engine_text_source(struct cpl_engine *e, const char *path)
{
	struct source *src = (struct source *)cpl_engine_find_source(e, path);

	if (src != NULL)
		cpl_engine_text_back(e, src);
	return src;
}

void
cpl_engine_free_yedit(struct source *src)
{
	cpl_yedit_free(src->yedit);
	src->yedit = NULL;
	src->yedit_tried = false;
}

void
cpl_engine_free_yedits(struct cpl_engine *e)
{
	size_t i;

	for (i = 0; i < e->nyedits; i++)
		cpl_engine_free_yedit(e->yedits[i]);
	e->nyedits = 0;
}

size_t
cpl_check_codes_of(const struct cpl_check *ck, const struct cpl_pyfile *f,
		   const struct cpl_code_ref **out)
{
	size_t n;

	*out = cpl_engine_codes_of(ck->e, f->path, &n);
	return n;
}

/*
 * Marks a finding suppressed by, in order: an inline comment at its place,
 * an ignore-check annotation of its workload, a configured ignore that
 * matches its workload.
 */
void
cpl_engine_suppress(struct cpl_engine *e, struct cpl_finding *f)
{
	const struct source *src = cpl_engine_find_source(e, f->file);
	const struct cpl_workload *w = f->workload;
	const char *why = NULL, *reason = NULL;
	size_t i;
	int at;

	at = src ? cpl_suppress_match_why(src->sup, f->rule->id, f->line,
					  &reason) : 0;
	if (at != 0) {
		f->suppressed = true;
		f->suppression = reason ? cpl_xstrdup(reason) : at < 0 ?
			cpl_xstrdup("cpulint: disable-file comment") :
			cpl_xasprintf("cpulint: disable comment at line %d",
				      at);
		return;
	}
	if (w == NULL)
		return;
	for (i = 0; i < w->nignores; i++) {
		const struct cpl_wignore *ig = &w->ignores[i];

		if (cpl_rule_find(ig->rule) != f->rule)
			continue;
		f->suppressed = true;
		f->suppression = *ig->reason ? cpl_xstrdup(ig->reason) :
				 cpl_xasprintf("annotation %s%s",
					       CPL_IGNORE_ANNOTATION,
					       ig->rule);
		return;
	}
	if (cpl_config_ignored(e->config, f->rule->id, w->kind, w->name,
			       w->namespace, &why)) {
		f->suppressed = true;
		f->suppressed_external = true;
		f->suppression = cpl_xstrdup(why);
	}
}

/* Warns once per place about a suppression naming no rule; takes msg. */
static void
warn_unknown(struct cpl_engine *e, struct cpl_strmap *seen, const char *path,
	     int line, int column, char *msg)
{
	struct cpl_error w = { 0 };
	char *key = cpl_xasprintf("%s:%d:%d:%s", path ? path : "", line,
				  column, msg);

	if (cpl_strmap_get(seen, key) != NULL) {
		free(key);
		free(msg);
		return;
	}
	cpl_strmap_put(seen, cpl_engine_own_key(e, key), e);
	w.path = cpl_xstrdup(path);
	w.line = line;
	w.column = column;
	w.message = msg;
	cpl_engine_add_warning(e, &w);
	cpl_error_clear(&w);
}

/* Unknown rules in the comments of linted files and in annotations. */
static void
warn_unknown_rules(struct cpl_engine *e)
{
	struct cpl_strmap seen = { 0 };
	size_t i, j, n;

	for (i = 0; i < e->nfiles; i++) {
		const struct cpl_suppress_unknown *u;

		if (!e->files[i]->linted)
			continue;
		u = cpl_suppress_unknowns(e->files[i]->sup, &n);
		for (j = 0; j < n; j++)
			warn_unknown(e, &seen, e->files[i]->path, u[j].line,
				     u[j].column, cpl_xasprintf("unknown rule "
				     "\"%s\" in a cpulint: comment (see "
				     "--list-rules); it suppresses nothing",
				     u[j].word));
	}
	for (i = 0; i < e->workloads.count; i++) {
		const struct cpl_workload *w = e->workloads.items[i];

		for (j = 0; j < w->nignores && !w->context; j++) {
			const struct cpl_wignore *ig = &w->ignores[j];

			if (cpl_rule_find(ig->rule) != NULL)
				continue;
			/* A live object has no file: name it, no line. */
			warn_unknown(e, &seen, ig->pos.file ? ig->pos.file :
				     w->object, ig->pos.file ? ig->pos.line : 0,
				     ig->pos.file ? ig->pos.column : 0,
				     cpl_xasprintf("unknown rule \"%s\" in "
				     "annotation %s%s (see --list-rules); it "
				     "silences nothing", ig->rule,
				     CPL_IGNORE_ANNOTATION, ig->rule));
		}
	}
	cpl_strmap_free(&seen);
}

void
cpl_engine_run(struct cpl_engine *e)
{
	size_t i, out;

	cpl_engine_flush(e);
	/* TrainJobs meet their runtimes, whichever files they came from. */
	cpl_trainer_join(&e->workloads);
	/* Every Python target scanned once (its error reported now),
	 * held unloaded; then judged group by group. */
	e->light = true;
	for (i = 0; i < e->nfiles; i++)
		if (e->files[i]->linted)
			cpl_engine_python(e, e->files[i]);
	e->light = false;
	cpl_engine_reach(e);
	cpl_engine_judge(e);
	for (i = 0; i < e->nfindings; i++)
		cpl_engine_suppress(e, &e->findings[i]);
	warn_unknown_rules(e);
	cpl_engine_relocate(e);
	if (e->nfindings > 1)
		qsort(e->findings, e->nfindings, sizeof(*e->findings),
		      cmp_finding);
	for (i = 0, out = 0; i < e->nfindings; i++) {
		if ((e->diff &&
		     !cpl_engine_finding_changed(e, &e->findings[i])) ||
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
cpl_engine_notes(const struct cpl_engine *e, size_t *n)
{
	*n = e->nnotes;
	return e->notes;
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
	const struct source *src = cpl_engine_find_source(e, path);

	if (src == NULL)
		return NULL;
	if (len)
		*len = src->len;
	return src->text;
}

/* The part of a path after its last '/'. */
static const char *
base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

bool
cpl_engine_judged_file(const struct cpl_engine *e, const char *path,
		       const struct stat *st)
{
	const struct cpl_wlist *wl = &e->workloads;
	const char *base = base_name(path);
	struct stat sst;
	size_t i, j;

	for (i = 0; i < e->nfiles; i++) {
		const struct source *src = e->files[i];
		bool judged = src->kind == FILE_PYTHON;

		if (strcmp(base_name(src->path), base) != 0 ||
		    stat(src->path, &sst) < 0 || sst.st_dev != st->st_dev ||
		    sst.st_ino != st->st_ino)
			continue;
		for (j = 0; j < wl->count && !judged; j++)
			judged = cpl_str_eq(wl->items[j]->file, src->path);
		if (judged)
			return true;
	}
	return false;
}

bool
cpl_engine_source_is_yaml(const struct cpl_engine *e, const char *path)
{
	const struct source *src = cpl_engine_find_source(e, path);

	return src != NULL && src->kind == FILE_YAML;
}

/* Keeps the configuration's new warnings (from the nth on). */
static void
config_warnings(struct cpl_engine *e, size_t from)
{
	size_t i, n;
	const struct cpl_error *w = cpl_config_warnings(e->config, &n);

	for (i = from; i < n; i++)
		cpl_engine_add_warning(e, &w[i]);
}

int
cpl_engine_load_config(struct cpl_engine *e, const char *path,
		       struct cpl_error *err)
{
	size_t n;
	int rc;

	cpl_config_warnings(e->config, &n);
	rc = cpl_config_load(e->config, path, err);
	config_warnings(e, n);
	return rc;
}

int
cpl_engine_find_config(struct cpl_engine *e, const char *dir,
		       struct cpl_error *err)
{
	size_t n;
	int rc;

	cpl_config_warnings(e->config, &n);
	rc = cpl_config_find(e->config, dir, err);
	config_warnings(e, n);
	return rc;
}
