/*
 * sources.c — the run's files and what they hold (see engine_int.h):
 * each file read once (from the working tree, the index with --staged,
 * or a text given for it), its YAML loaded into workloads, its Python
 * scanned on demand, and its text let go once judged and read again if
 * asked for; the run's errors, warnings and notes; the linker's loader
 * and hooks over those files, the linked processes, and the named Python
 * files under whatever spelling.
 *
 * Below the rest of the run: the files that order a run (engine.c,
 * group.c, pipeline.c, reach.c) call these; the one call back up is the
 * wait on a loading thread (group.c's cpl_engine_crew_wait).
 *
 * Ownership: the engine owns every source, text, key and linked process
 * (cpl_engine_free).
 */
#include "run/engine_int.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "git/repo.h"
#include "load/loader.h"
#include "model/link.h"
#include "python/pyscan.h"
#include "run/config_int.h"
#include "run/suppress_int.h"
#include "run/walk_int.h"
#include "text/tmpl.h"
#include "text/yamldoc.h"


/* Appends a copy of err to a list of errors or warnings. */
static void
push_error(struct cpl_error **v, size_t *n, size_t *cap,
	   const struct cpl_error *err)
{
	struct cpl_error *d;

	*v = cpl_xgrow_to(*v, cap, *n + 1, sizeof(**v));
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
	push_error(&e->res.errors, &e->res.nerrors, &e->res.errors_cap, err);
}

void
cpl_engine_add_warning(struct cpl_engine *e, const struct cpl_error *w)
{
	push_error(&e->res.warnings, &e->res.nwarnings, &e->res.warnings_cap,
		   w);
}

void
cpl_engine_note(struct cpl_engine *e, const char *path, const char *fmt, ...)
{
	struct cpl_error *n;
	va_list ap;

	CPL_GROW(e->res.notes, e->res.notes_cap, e->res.nnotes + 1);
	n = &e->res.notes[e->res.nnotes++];
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

void
cpl_engine_add_errorf(struct cpl_engine *e, const char *path, int line, int col,
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
cpl_engine_keep_str(struct cpl_engine *e, char *key)
{
	CPL_GROW(e->load.kept, e->load.kept_cap, e->load.nkept + 1);
	e->load.kept[e->load.nkept++] = key;
	return key;
}

void
cpl_engine_read_aux(struct cpl_engine *e, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0 || cpl_engine_is_aux(e, &st))
		return;
	CPL_GROW(e->load.aux, e->load.aux_cap, e->load.naux + 1);
	e->load.aux[e->load.naux].dev = (unsigned long long)st.st_dev;
	e->load.aux[e->load.naux++].ino = (unsigned long long)st.st_ino;
}

bool
cpl_engine_is_aux(const struct cpl_engine *e, const struct stat *st)
{
	size_t i;

	for (i = 0; i < e->load.naux; i++)
		if (e->load.aux[i].dev == (unsigned long long)st->st_dev &&
		    e->load.aux[i].ino == (unsigned long long)st->st_ino)
			return true;
	return false;
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
	char *key;

	CPL_GROW(e->load.files, e->load.files_cap, e->load.nfiles + 1);
	src->index = e->load.nfiles;
	if (src->py != NULL)
		src->py->owner = src;
	e->load.files[e->load.nfiles++] = src;
	key = cpl_link_join(".", src->path);
	cpl_strmap_put(&e->load.by_path, key, src);
	free(key);
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
		cpl_engine_add_errorf(e, path, line, col, "a template ({{ ... }} outside "
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
		size_t before = e->res.workloads.count;
		int rc;

		if (doc == NULL)
			continue;
		if (cpl_manifest_detect(doc)) {
			rc = cpl_manifest_load(&e->res.workloads, s, doc,
					       src->path, &err);
		} else if (cpl_polyaxon_detect(doc)) {
			rc = cpl_polyaxon_load(&e->res.workloads, s, doc,
					       src->path, &err);
		} else if (cpl_kfp_detect(doc)) {
			rc = cpl_kfp_load(&e->res.workloads, s, doc, src->path,
					  &err);
		} else {
			if (!cpl_ynode_is_null(doc))
				cpl_wlist_skip(&e->res.workloads, src->path,
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
		workloads += e->res.workloads.count - before;
	}
	if (!any && explicit) {
		const struct cpl_ynode *doc = cpl_ystream_doc(s, 0);

		cpl_engine_add_errorf(e, src->path, doc ? doc->line : 1,
			   doc ? doc->column : 1,
			   "not a workload: neither a Polyaxonfile (version, "
			   "kind) nor a Kubernetes object (apiVersion, kind)");
	}
	(void)workloads;
out:
	cpl_error_clear(&err);
	cpl_ystream_free(s);
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
	if (!e->set.staged)
		return cpl_read_file(text, len, path, MAX_FILE_BYTES, err);
	rc = cpl_repo_relpath(&rel, e->set.repo, path, err);
	if (rc == 1)
		cpl_error_set(err, path, 0, 0, "outside the repository, so "
			      "--staged has nothing to read");
	if (rc != 0)
		return -1;
	rc = cpl_repo_staged_blob(text, len, e->set.repo, rel, MAX_FILE_BYTES,
				  err);
	if (rc == 1)
		cpl_error_set(err, path, 0, 0, "not staged (--staged reads "
			      "the index; git add it first)");
	free(rel);
	return rc == 0 ? 0 : -1;
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

	if (e->load.listed.count == 0 || strchr(key, '/') == NULL)
		return false;
	dir = n <= sizeof(stack) ? stack : cpl_xmalloc(n);
	memcpy(dir, key, n);
	while ((slash = strrchr(dir, '/')) != NULL && slash > dir) {
		const struct cpl_strmap *m;

		*slash = '\0';
		m = cpl_strmap_get(&e->load.listed, dir);
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

	if (e->set.staged || e->load.listed.count == 0 || *dir == '\0' ||
	    strcmp(dir, ".") == 0 || strcmp(dir, "/") == 0)
		return false;
	if (e->load.missing_count == e->load.listed.count &&
	    strcmp(dir, e->load.missing_dir) == 0) {
		m = e->load.missing_listing;
	} else {
		m = cpl_strmap_get(&e->load.listed, dir);
		len = strlen(dir);
		if (len < sizeof(e->load.missing_dir)) {
			memcpy(e->load.missing_dir, dir, len + 1);
			e->load.missing_listing = m;
			e->load.missing_count = e->load.listed.count;
		}
	}
	if (m == NULL)
		return false;
	for (i = 0; i < n; i++)
		if (cpl_strmap_get(m, names[i]) != NULL)
			return false;
	return true;
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

/* The source at path in by_path, however the path is spelled
 * ("./a/../b.py"). */
static struct source *
lookup(const struct cpl_strmap *by_path, const char *path)
{
	char *key;
	struct source *src;

	if (path == NULL)
		return NULL;
	src = cpl_strmap_get(by_path, path);
	if (src != NULL)
		return src;
	key = cpl_link_join(".", path);
	src = cpl_strmap_get(by_path, key);
	free(key);
	return src;
}

const struct source *
cpl_engine_find_source(const struct cpl_engine *e, const char *path)
{
	return lookup(&e->load.by_path, path);
}

struct source *
cpl_engine_source_of(struct cpl_engine *e, const char *path)
{
	return lookup(&e->load.by_path, path);
}

const struct cpl_pyfile *
cpl_engine_python(struct cpl_engine *e, struct source *src,
		  enum py_need need)
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
		if ((need == PY_SCANNED ? cpl_pyscan_file_light :
			       cpl_pyscan_file_borrowed)(&src->py, src->path,
							 src->text, src->len,
							 &err) != 0 &&
		    src->linted)
			cpl_engine_add_error(e, &err);
		cpl_error_clear(&err);
		src->py->owner = src;
	} else if (need == PY_LOADED) {
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
		cpl_pytokcache_attach(e->load.tokcache, src->py);
	return src->py;
}

static const struct cpl_pyfile *link_load_scanned(void *ctx,
						  const char *path);

/* The linker's ready hook: an unloaded file loaded again. */
static void
link_ready(void *ctx, const struct cpl_pyfile *f)
{
	if (f->owner != NULL)
		(void)cpl_engine_python(ctx, f->owner, PY_LOADED);
}

void
cpl_engine_linker(struct cpl_engine *e, struct cpl_linker *lk,
		  enum py_need need)
{
	memset(lk, 0, sizeof(*lk));
	lk->load = need == PY_LOADED ? cpl_engine_link_load : link_load_scanned;
	lk->ctx = e;
	lk->root = e->set.repo ? cpl_repo_root(e->set.repo) : NULL;
	if (e->load.memo == NULL)
		e->load.memo = cpl_link_memo_new();
	lk->memo = e->load.memo;
	lk->ready = need == PY_LOADED ? link_ready : NULL;
	lk->missing = cpl_engine_link_missing;
}

/* The linker's loader: a Python file the engine has, or reads now (from
 * the working tree or, with --staged, the index).  Missing paths are
 * remembered, so each is looked up once. */
static const struct cpl_pyfile *
link_load(struct cpl_engine *e, const char *path, enum py_need need)
{
	struct source *src;
	struct cpl_error err = { 0 };
	struct stat st;
	/* The linker's paths are joined already (most are). */
	char *key = cpl_link_is_joined(path) ? cpl_xstrdup(path) :
		    cpl_link_join(".", path), *text = NULL;
	size_t len;

	/* by_path's keys are normalised, and so is key: this is
	 * cpl_engine_find_source() with one join. */
	src = cpl_strmap_get(&e->load.by_path, key);
	if (src != NULL) {
		free(key);
		return cpl_engine_python(e, src, need);
	}
	if (cpl_strmap_get(&e->load.absent, key) != NULL) {
		free(key);
		return NULL;
	}
	/* What a listing shows missing is not remembered: asking the
	 * listing again is as cheap, and the run's memory stays with
	 * its files, not with every module every directory looked for. */
	if (!e->set.staged && listed_absent(e, key)) {
		free(key);
		return NULL;
	}
	if ((!e->set.staged && (stat(path, &st) < 0 || !S_ISREG(st.st_mode))) ||
	    cpl_config_excluded(e->set.config, path)) {
		cpl_strmap_put(&e->load.absent, key, e);
		free(key);
		return NULL;
	}
	/* A named file spelt another way ("/repo/src/x.py" for "x.py"):
	 * the same source, read and scanned once. */
	src = cpl_engine_seed_source(e, path);
	if (src != NULL) {
		free(key);
		return cpl_engine_python(e, src, need);
	}
	if (cpl_engine_read_source(e, path, &text, &len, &err) < 0) {
		cpl_strmap_put(&e->load.absent, key, e);
		free(key);
		cpl_error_clear(&err);
		return NULL;
	}
	free(key);
	src = cpl_engine_add_source(e, path, FILE_PYTHON, text, len);
	src->linted = false;	/* context for budget rules, not a target */
	return cpl_engine_python(e, src, need);
}

const struct cpl_pyfile *
cpl_engine_link_load(void *ctx, const char *path)
{
	return link_load(ctx, path, PY_LOADED);
}

/* The loader of cpl_engine_linker()'s PY_SCANNED linker. */
static const struct cpl_pyfile *
link_load_scanned(void *ctx, const char *path)
{
	return link_load(ctx, path, PY_SCANNED);
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

	CPL_GROW(e->check.codes, e->check.codes_cap, e->check.ncodes + 1);
	e->check.codes[e->check.ncodes++] = code;
	for (k = 0; k < code->nfiles; k++) {
		const char *path = code->files[k]->path;
		struct coderefs *r = cpl_strmap_get(&e->check.code_of, path);

		if (r == NULL) {
			r = cpl_xcalloc(1, sizeof(*r));
			CPL_GROW(e->check.refs, e->check.refs_cap,
				 e->check.nrefs + 1);
			e->check.refs[e->check.nrefs++] = r;
			cpl_strmap_put(&e->check.code_of, path, r);
		}
		CPL_GROW(r->v, r->cap, r->n + 1);
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
	if (cpl_strmap_get(&e->load.absent, key) != NULL) {
		free(key);
		return NULL;
	}
	if ((!e->set.staged && (stat(path, &st) < 0 || !S_ISREG(st.st_mode))) ||
	    cpl_config_excluded(e->set.config, path) ||
	    cpl_engine_read_source(e, path, &text, &len, &err) < 0) {
		cpl_strmap_put(&e->load.absent, key, e);
		free(key);
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
	const char *root = e->set.repo ? cpl_repo_root(e->set.repo) : NULL;
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
		cpl_engine_text_back(e, cpl_engine_source_of(e, src->path));
		(void)cpl_launch_read_config(l, src->path, src->text,
					     src->len);
	}
}

const struct cpl_code_ref *
cpl_engine_codes_of(const struct cpl_engine *e, const char *path, size_t *n)
{
	const struct coderefs *r = cpl_strmap_get(&e->check.code_of, path);

	*n = r ? r->n : 0;
	return r ? r->v : NULL;
}

void
cpl_engine_let_text_go(struct cpl_engine *e, struct source *src)
{
	if (!e->set.drop_texts || !src->reread || src->text == NULL ||
	    cpl_pyfile_loaded(src->py))
		return;
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
	struct source *src = cpl_engine_source_of(e, path);

	if (src != NULL)
		cpl_engine_text_back(e, src);
	return src;
}

static char no_mark;	/* the is_seed memo's "not a named file" */

/* The rel path of a caller path; NULL outside the repository. */
char *
cpl_engine_rel_of(const struct cpl_engine *e, const char *path)
{
	struct cpl_error err = { 0 };
	char *rel = NULL;

	if (cpl_repo_relpath(&rel, e->set.repo, path, &err) != 0)
		rel = NULL;
	cpl_error_clear(&err);
	return rel;
}

/* The named Python file path is (as a finding or the linker spells
 * it), as the caller named it; NULL when it is none.  Answered once per
 * spelling. */
const char *
cpl_engine_seed_of(struct cpl_engine *e, const char *path)
{
	void *v;
	char *rel;
	const char *seed;

	if (path == NULL || e->load.seed_rel.count == 0)
		return NULL;
	v = cpl_strmap_get(&e->load.is_seed, path);
	if (v != NULL)
		return v == &no_mark ? NULL : v;
	rel = cpl_engine_rel_of(e, path);
	seed = rel ? cpl_strmap_get(&e->load.seed_rel, rel) : NULL;
	free(rel);
	cpl_strmap_put(&e->load.is_seed, path, seed ? (void *)seed : &no_mark);
	return seed;
}

struct source *
cpl_engine_seed_source(struct cpl_engine *e, const char *path)
{
	const char *seed = cpl_engine_seed_of(e, path);

	return seed ? cpl_engine_source_of(e, seed) : NULL;
}
