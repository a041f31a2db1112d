/*
 * reach.c — a Python file named on its own is judged with the workloads
 * that run it (see engine_int.h).
 *
 * pre-commit passes only the changed files: when train.py changes alone,
 * the Polyaxonfiles and manifests that run it are elsewhere in the
 * repository.  So, for the Python files named: list the YAML files git
 * lists from the repository's root (by the walk's rule set, from the
 * index with --staged), read each once, skip at once those whose text
 * cannot name a script that reaches a named file (struct reach), load
 * the rest, link each workload, and keep as context the workloads whose
 * code includes a named file.  Their findings are then kept only when
 * they involve a named file, and reported there.
 *
 * Invariant: a context workload never adds an input error, a warning or
 * a finding that does not involve a named file: the run's outcome on a
 * commit depends on what the commit touched.  Files are matched by their
 * repository-relative path, however the caller spelled them.
 */
#include "run/engine_int.h"

#include <stdlib.h>
#include <string.h>

#include "git/repo.h"
#include "load/loader.h"
#include "run/walk_int.h"
#include "text/tmpl.h"
#include "text/yamldoc.h"

/* Whether path (as a finding or the linker spells it) is a named
 * Python file. */
static bool
is_seed(struct cpl_engine *e, const char *path)
{
	return cpl_engine_seed_of(e, path) != NULL;
}

/*
 * Where to list the repository from: "." when the process runs at its
 * root (pre-commit does: paths then read as the user's), else its
 * absolute path (the linker never looks above a relative "..").
 */
static const char *
root_path(const struct cpl_engine *e)
{
	char *rel = cpl_engine_rel_of(e, ".");
	bool at_root = rel != NULL && *rel == '\0';

	free(rel);
	return at_root ? "." : cpl_repo_root(e->set.repo);
}

/*
 * One search.  R is an over-approximation of the Python files that may
 * reach a named one: the named files, then every listed Python file whose
 * text names (as a word) the module of a file already in R, to a fixed
 * point.  Only a workload whose entry script is in R can reach a named
 * file, and its YAML must then spell that script's path (or module)
 * relative to the deepest directory the YAML and the script share.
 */
struct reach {
	struct cpl_engine *e;
	char **yaml;		/* candidate YAML files, walk spelling */
	size_t nyaml;
	size_t yaml_cap;
	char **py;		/* listed Python files, normalised */
	char **text;		/* their text while R is computed */
	bool *own;		/* text read here (else a source's) */
	size_t npy;
	size_t py_cap;
	struct cpl_strmap in_r;	/* normalised path → itself */
	char **r;		/* R, in the order found */
	size_t nr;
	size_t r_cap;
	struct cpl_strmap stems;	/* module names of R (keys owned by
					 * the engine) */
	const struct cpl_linker *full;	/* the engine's linker */
	struct cpl_strmap seed_base;	/* base names of the named files */
};

static void
candidate(void *ctx, const char *path)
{
	struct reach *rc = ctx;
	char *chart;

	if (cpl_str_ends(path, ".py")) {
		CPL_GROW(rc->py, rc->py_cap, rc->npy + 1);
		rc->py[rc->npy++] = cpl_link_join(".", path);
		return;
	}
	if (cpl_engine_find_source(rc->e, path) != NULL)
		return;
	if ((chart = cpl_walk_chart_of(path)) != NULL) {
		free(chart);	/* Helm templates: skipped, as in a walk */
		return;
	}
	CPL_GROW(rc->yaml, rc->yaml_cap, rc->nyaml + 1);
	rc->yaml[rc->nyaml++] = cpl_xstrdup(path);
}

static void
candidate_error(void *ctx, const struct cpl_error *err)
{
	(void)ctx;	/* not a target: its problems are not this run's */
	(void)err;
}

/* The module name a Python path is imported by: its stem, or for
 * pkg/__init__.py and pkg/__main__.py the package's; caller frees. */
static char *
module_stem(const char *path)
{
	const char *base = strrchr(path, '/');
	const char *end;

	base = base ? base + 1 : path;
	if ((strcmp(base, "__init__.py") == 0 ||
	     strcmp(base, "__main__.py") == 0) && base > path + 1) {
		end = base - 1;
		for (base = end; base > path && base[-1] != '/'; base--)
			;
		return cpl_xstrndup(base, (size_t)(end - base));
	}
	end = base + strlen(base) - 3;	/* ".py" */
	return cpl_xstrndup(base, (size_t)(end - base));
}

static bool
word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* Whether text names word as a whole word. */
static bool
names_word(const char *text, size_t len, const char *word)
{
	size_t n = strlen(word);
	const char *p = text, *end = text + len, *hit;

	while (n > 0 && (hit = memmem(p, (size_t)(end - p), word, n))) {
		if ((hit == text || !word_char(hit[-1])) &&
		    (hit + n == end || !word_char(hit[n])))
			return true;
		p = hit + 1;
	}
	return false;
}

/* Whether a named file has path's base name (before asking git). */
static bool
seed_named(const struct reach *rc, const char *path)
{
	const char *base = strrchr(path, '/');

	return cpl_strmap_get(&rc->seed_base, base ? base + 1 : path) != NULL;
}

/* Adds the nth listed Python file to R. */
static void
add_r(struct reach *rc, size_t i, const char ***fresh, size_t *nfresh,
      size_t *fresh_cap)
{
	char *stem = module_stem(rc->py[i]);

	cpl_strmap_put(&rc->in_r, rc->py[i], rc->py[i]);
	CPL_GROW(rc->r, rc->r_cap, rc->nr + 1);
	rc->r[rc->nr++] = rc->py[i];
	if (*stem == '\0' || cpl_strmap_get(&rc->stems, stem) != NULL) {
		free(stem);
		return;
	}
	*fresh = cpl_xgrow_to(*fresh, fresh_cap, *nfresh + 1,
			      sizeof(**fresh));
	(*fresh)[(*nfresh)++] = cpl_strmap_put(&rc->stems, stem, rc);
	free(stem);
}

/*
 * Computes R.  Texts are read once; those of R stay with the engine as
 * sources (the linker asks for them next), the others are dropped.
 */
static void
find_r(struct reach *rc)
{
	struct cpl_engine *e = rc->e;
	const char **fresh = NULL, **round = NULL;
	size_t nfresh = 0, fresh_cap = 0, nround, i, j;

	rc->text = cpl_xcalloc(rc->npy + 1, sizeof(*rc->text));
	rc->own = cpl_xcalloc(rc->npy + 1, sizeof(*rc->own));
	for (i = 0; i < rc->npy; i++) {
		const struct source *src = cpl_engine_find_source(e,
								  rc->py[i]);
		struct cpl_error err = { 0 };
		size_t len;

		if (seed_named(rc, rc->py[i]) && is_seed(e, rc->py[i])) {
			add_r(rc, i, &fresh, &nfresh, &fresh_cap);
		} else if (src != NULL) {
			rc->text[i] = src->text;
		} else if (cpl_engine_read_source(e, rc->py[i],
						  &rc->text[i], &len,
						  &err) == 0) {
			rc->own[i] = true;
		}
		cpl_error_clear(&err);
	}
	while (nfresh > 0) {
		round = fresh;
		nround = nfresh;
		fresh = NULL;
		nfresh = fresh_cap = 0;
		for (i = 0; i < rc->npy; i++) {
			if (rc->text[i] == NULL ||
			    cpl_strmap_get(&rc->in_r, rc->py[i]) != NULL)
				continue;
			for (j = 0; j < nround; j++) {
				if (names_word(rc->text[i],
					       strlen(rc->text[i]),
					       round[j])) {
					add_r(rc, i, &fresh, &nfresh,
					      &fresh_cap);
					break;
				}
			}
		}
		free(round);
	}
	free(fresh);
	for (i = 0; i < rc->npy; i++) {
		if (!rc->own[i])
			continue;
		if (cpl_strmap_get(&rc->in_r, rc->py[i]) != NULL) {
			struct source *src = cpl_engine_add_source(e,
				rc->py[i], FILE_PYTHON, rc->text[i],
				strlen(rc->text[i]));

			src->linted = false;	/* linked code */
		} else {
			free(rc->text[i]);
		}
	}
	free(rc->text);
	free(rc->own);
	rc->text = NULL;
	rc->own = NULL;
}

/*
 * Whether a YAML file's text spells a file of R the way a command must to
 * run it from the YAML's directory: its path (or dotted module) below the
 * deepest directory the two share.
 */
static bool
names_r(const struct reach *rc, const char *yaml, const char *text,
	size_t len)
{
	char *y = cpl_link_join(".", yaml);
	size_t i;
	bool yes = false;

	for (i = 0; i < rc->nr && !yes; i++) {
		const char *f = rc->r[i], *rest = f, *p, *q;
		char *mod, *m;

		if (cpl_str_ends(f, "/__init__.py") ||
		    strcmp(f, "__init__.py") == 0)
			continue;	/* imported, never run */
		/* Past the common directories of y and f. */
		for (p = y, q = f; *p && *p == *q; p++, q++)
			if (*p == '/')
				rest = q + 1;
		if (memmem(text, len, rest, strlen(rest)) != NULL) {
			yes = true;
			break;
		}
		mod = cpl_xstrndup(rest, strlen(rest) - 3);
		if (cpl_str_ends(mod, "/__main__"))
			mod[strlen(mod) - 9] = '\0';
		for (m = mod; *m; m++)
			if (*m == '/')
				*m = '.';
		yes = *mod && strcmp(mod, "__main__") != 0 &&
		      memmem(text, len, mod, strlen(mod)) != NULL;
		free(mod);
	}
	free(y);
	return yes;
}

/* The linker's loader while deciding reach: only files of R exist. */
static const struct cpl_pyfile *
r_load(void *ctx, const char *path)
{
	struct reach *rc = ctx;
	char *key = cpl_link_join(".", path);
	bool in = cpl_strmap_get(&rc->in_r, key) != NULL;

	free(key);
	return in ? cpl_engine_link_load(rc->e, path) : NULL;
}

/* The named file a linked process reaches, or NULL. */
static const char *
reaches(struct cpl_engine *e, const struct cpl_code *code)
{
	size_t k;

	for (k = 0; code && k < code->nfiles; k++)
		if (is_seed(e, code->files[k]->path))
			return code->files[k]->path;
	return NULL;
}

/*
 * Whether a container of w reaches a named file (linked over R alone,
 * which is cheap); then w is kept as context, each container linked in
 * full.  *seed: the named file reached.
 */
static bool
link_context(struct reach *rc, struct cpl_workload *w, const char **seed)
{
	struct cpl_linker lk = *rc->full;
	size_t j;

	lk.load = r_load;
	lk.ctx = rc;
	for (j = 0; j < w->ncontainers && *seed == NULL; j++) {
		struct cpl_code *code = cpl_link_code(&lk, w,
						      &w->containers[j]);

		*seed = reaches(rc->e, code);
		cpl_pyscan_code_free(code);
	}
	if (*seed == NULL)
		return false;
	for (j = 0; j < w->ncontainers; j++) {
		struct cpl_code *code = cpl_link_code(rc->full, w,
						      &w->containers[j]);

		if (code != NULL)
			cpl_engine_keep_code(rc->e, w, &w->containers[j], code);
	}
	w->context = true;
	return true;
}

/* Loads one candidate; keeps its workloads that run a named file. */
static void
load_candidate(struct reach *rc, const char *path)
{
	struct cpl_engine *e = rc->e;
	struct cpl_wlist wl = { 0 };
	struct cpl_ystream *s = NULL;
	struct cpl_error err = { 0 };
	char *text = NULL, *seed_path = NULL;
	size_t len, i;
	int line, col;

	if (cpl_engine_read_source(e, path, &text, &len, &err) < 0 ||
	    !names_r(rc, path, text, len))
		goto out;
	if (cpl_yaml_parse(&s, path, text, len, &err) < 0 ||
	    cpl_tmpl_in_stream(s, &line, &col))
		goto out;
	for (i = 0; i < cpl_ystream_count(s); i++) {
		const struct cpl_ynode *doc = cpl_ystream_doc(s, i);

		if (cpl_manifest_detect(doc))
			(void)cpl_manifest_load(&wl, s, doc, path, &err);
		else if (cpl_polyaxon_detect(doc))
			(void)cpl_polyaxon_load(&wl, s, doc, path, &err);
		cpl_error_clear(&err);
	}
	for (i = 0; i < wl.count; i++) {
		struct cpl_workload *w = wl.items[i];
		const char *seed = NULL;

		if (link_context(rc, w, &seed)) {
			cpl_wlist_add(&e->res.workloads, w);
			if (seed_path == NULL)
				seed_path = cpl_xstrdup(seed);
		} else {
			cpl_workload_free(w);
		}
	}
	if (seed_path != NULL) {
		struct source *src = cpl_engine_add_source(e, path, FILE_YAML,
							   text, len);

		src->linted = false;	/* context, not a target */
		text = NULL;
		cpl_engine_note(e, path, "read because it runs %s: its "
				"findings that involve the named files are "
				"reported", seed_path);
	}
out:
	free(seed_path);
	/* The workloads went to the engine; the rest of the list
	 * (skipped-document records) is freed here. */
	wl.count = 0;
	cpl_wlist_free(&wl);
	cpl_error_clear(&err);
	cpl_ystream_free(s);
	free(text);
}

void
cpl_engine_reach(struct cpl_engine *e)
{
	struct cpl_linker lk = { .load = cpl_engine_link_load, .ctx = e };
	struct reach rc = { .e = e, .full = &lk, .stems.own_keys = true };
	struct cpl_walker w = { 0 };
	size_t i;

	if (e->set.repo == NULL || e->load.nseeds == 0)
		return;
	for (i = 0; i < e->load.nseeds; i++) {
		char *rel = cpl_engine_rel_of(e, e->load.seeds[i]);

		const char *base = strrchr(e->load.seeds[i], '/');

		if (rel == NULL)
			continue;
		cpl_strmap_put(&e->load.seed_rel, rel, e->load.seeds[i]);
		free(rel);
		cpl_strmap_put(&rc.seed_base,
			       base ? base + 1 : e->load.seeds[i], e);
	}
	if (e->load.seed_rel.count == 0) {
		cpl_strmap_free(&rc.seed_base);
		return;
	}
	lk.root = cpl_repo_root(e->set.repo);
	w.config = e->set.config;
	w.repo = e->set.repo;
	w.staged = e->set.staged;
	w.file = candidate;
	w.error = candidate_error;
	w.ctx = &rc;
	cpl_walk_dir(&w, root_path(e));
	find_r(&rc);
	for (i = 0; i < rc.nyaml; i++) {
		if (rc.nr > 0)
			load_candidate(&rc, rc.yaml[i]);
		free(rc.yaml[i]);
	}
	for (i = 0; i < rc.npy; i++)
		free(rc.py[i]);
	free(rc.yaml);
	free(rc.py);
	free(rc.r);
	cpl_strmap_free(&rc.in_r);
	cpl_strmap_free(&rc.stems);
	cpl_strmap_free(&rc.seed_base);
}

/* Computes the lines changed since HEAD, once, when no diff base was
 * given, so a finding moves to the line the commit changed. */
static void
diff_head(struct cpl_engine *e, bool *done)
{
	struct cpl_error err = { 0 };

	if (*done || e->set.diff)
		return;
	*done = true;
	(void)cpl_repo_diff_base(e->set.repo, "HEAD", e->set.staged, &err);
	cpl_error_clear(&err);	/* no commit yet: every line is new */
}

/*
 * Whether a context finding involves a named file; when its own place is
 * elsewhere, moves it to the first related place in a named file on a
 * changed line (else the first in a named file), and keeps its own place
 * as a related one.  A named file that changed (since HEAD, or the diff
 * base) must have changed at one of those places: a commit that edits a
 * comment of train.py does not bring back the old findings of the jobs
 * that run it.  One that did not change (linted by hand) brings them all.
 */
static bool
place(struct cpl_engine *e, struct cpl_finding *f, bool *diffed)
{
	struct cpl_related *r;
	char *file;
	size_t k, n = 0;
	long best = -1;
	int line, col;

	if (is_seed(e, f->file))
		return true;
	for (k = 0; k < f->nrelated; k++)
		n += is_seed(e, f->related[k].file);
	if (n == 0)
		return false;
	diff_head(e, diffed);
	for (k = 0; k < f->nrelated; k++) {
		if (!is_seed(e, f->related[k].file))
			continue;
		if (cpl_engine_line_changed(e, f->related[k].file,
					    f->related[k].line)) {
			best = (long)k;
			break;
		}
		if (!cpl_engine_file_changed(e, f->related[k].file) &&
		    best < 0)
			best = (long)k;
	}
	if (best < 0)
		return false;	/* its named files changed elsewhere */
	r = &f->related[best];
	file = f->file;
	line = f->line;
	col = f->column;
	f->file = r->file;
	f->line = r->line;
	f->column = r->column;
	free(r->message);
	if (file != NULL && line > 0) {
		r->file = file;
		r->line = line;
		r->column = col > 0 ? col : 1;
		r->message = f->container ?
			cpl_xasprintf("runs this code: %s, container \"%s\"",
				      f->object ? f->object : "-",
				      f->container) :
			cpl_xasprintf("runs this code: %s",
				      f->object ? f->object : "-");
	} else {
		free(file);
		memmove(r, r + 1, (f->nrelated - (size_t)best - 1) *
			sizeof(*r));
		f->nrelated--;
	}
	if (!f->suppressed)
		cpl_engine_suppress(e, f);	/* a comment at the new place */
	return true;
}

void
cpl_engine_relocate(struct cpl_engine *e)
{
	bool diffed = false;
	size_t i, out;

	for (i = 0, out = 0; i < e->res.nfindings; i++) {
		struct cpl_finding *f = &e->res.findings[i];

		if (f->workload && f->workload->context &&
		    !place(e, f, &diffed)) {
			cpl_finding_free(f);
			continue;
		}
		if (out != i)
			e->res.findings[out] = *f;
		out++;
	}
	e->res.nfindings = out;
}

void
cpl_engine_reach_free(struct cpl_engine *e)
{
	size_t i;

	for (i = 0; i < e->load.nseeds; i++)
		free(e->load.seeds[i]);
	free(e->load.seeds);
	cpl_strmap_free(&e->load.seed_rel);
	cpl_strmap_free(&e->load.is_seed);
}
