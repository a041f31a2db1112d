/*
 * engine.c — one lint run: sources → workloads → rules → findings; the
 * public interface (engine.h) and the run's order.  The files a run read
 * are sources.c's, the rules' side of the run is checkrun.c's, and the
 * judging is group.c's: this file calls them, never the other way.
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
#include "run/engine_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "git/repo.h"
#include "load/kinds.h"
#include "model/link.h"
#include "model/rule.h"
#include "python/pyscan.h"
#include "run/config_int.h"
#include "run/suppress_int.h"
#include "run/walk_int.h"

struct cpl_engine *
cpl_engine_new(void)
{
	struct cpl_engine *e = cpl_xcalloc(1, sizeof(*e));

	e->set.config = cpl_config_new();
	e->load.by_path.own_keys = e->load.absent.own_keys = true;
	e->load.listed.own_keys = e->load.charts.own_keys = true;
	e->load.is_seed.own_keys = e->load.seed_rel.own_keys = true;
	e->check.code_changed.own_keys = true;
	e->load.tokcache = cpl_pytokcache_new(CPL_PYTOKCACHE_BUDGET);
	return e;
}

void
cpl_engine_free(struct cpl_engine *e)
{
	size_t i;

	if (e == NULL)
		return;
	cpl_engine_land(e);	/* its sources, before anything is freed */
	for (i = 0; i < e->check.ncodes; i++)
		cpl_pyscan_code_free(e->check.codes[i]);
	free(e->check.codes);
	for (i = 0; i < e->check.ninline; i++)
		cpl_pyfile_free(e->check.inline_py[i]);
	free(e->check.inline_py);
	for (i = 0; i < e->load.nroots; i++)
		free(e->load.roots[i]);
	free(e->load.roots);
	cpl_strmap_free(&e->check.code_of);
	for (i = 0; i < e->check.nrefs; i++) {
		free(e->check.refs[i]->v);
		free(e->check.refs[i]);
	}
	free(e->check.refs);
	for (i = 0; i < e->load.nfiles; i++) {
		free(e->load.files[i]->path);
		free(e->load.files[i]->text);
		cpl_suppress_free(e->load.files[i]->sup);
		cpl_pyfile_free(e->load.files[i]->py);
		cpl_error_clear(&e->load.files[i]->scan_err);
		free(e->load.files[i]);
	}
	free(e->load.files);
	free(e->load.aux);
	cpl_strmap_free(&e->load.by_path);
	cpl_strmap_free(&e->load.absent);
	cpl_strmap_free(&e->check.code_changed);
	cpl_strmap_free(&e->load.listed);
	for (i = 0; i < e->load.nlistings; i++) {
		cpl_strmap_free(e->load.listings[i]);
		free(e->load.listings[i]);
	}
	free(e->load.listings);
	for (i = 0; i < e->load.nkept; i++)
		free(e->load.kept[i]);
	free(e->load.kept);
	cpl_wlist_free(&e->res.workloads);
	for (i = 0; i < e->res.nfindings; i++)
		cpl_finding_free(&e->res.findings[i]);
	free(e->res.findings);
	for (i = 0; i < e->res.nbudgets; i++)
		cpl_finding_budget_free(&e->res.budgets[i]);
	free(e->res.budgets);
	for (i = 0; i < e->res.nerrors; i++)
		cpl_error_clear(&e->res.errors[i]);
	free(e->res.errors);
	for (i = 0; i < e->res.nwarnings; i++)
		cpl_error_clear(&e->res.warnings[i]);
	free(e->res.warnings);
	for (i = 0; i < e->res.nnotes; i++)
		cpl_error_clear(&e->res.notes[i]);
	free(e->res.notes);
	cpl_strmap_free(&e->load.charts);
	cpl_engine_helm_free(e);
	cpl_config_free(e->set.config);
	cpl_engine_reach_free(e);
	cpl_engine_overlay_free(e);
	cpl_engine_pipeline_free(e);
	cpl_pytokcache_free(e->load.tokcache);
	cpl_link_memo_free(e->load.memo);
	free(e);
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

/*
 * Whether path lies in a Helm chart's templates/: the chart is rendered
 * the first time one of its templates is met (helm.c), and the template
 * itself is never read as YAML.
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
	{
		char *root = cpl_engine_chart_root(chart);

		free(chart);
		chart = root;
	}
	if (cpl_strmap_get(&e->load.charts, chart) == NULL) {
		const char *key = cpl_strmap_put(&e->load.charts, chart, e);

		free(chart);
		cpl_engine_chart(e, key);
	} else {
		free(chart);
	}
	return true;
}

/* Queues a file met by a walk or named (pipeline.c reads it). */
static void
add_file(struct cpl_engine *e, const char *path, bool explicit)
{
	if (!explicit && (cpl_config_excluded(e->set.config, path) ||
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
		cpl_engine_add_errorf(e, path, 0, 0, "file is too large (%zu bytes; "
			   "the limit is %zu)", len, MAX_FILE_BYTES);
		return;
	}
	if (memchr(buf, '\0', len < 8192 ? len : 8192) != NULL) {
		cpl_engine_add_errorf(e, path, 0, 0,
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
	char *key;
	size_t i;

	m->own_keys = true;
	for (i = 0; i < n; i++) {
		unsigned char type = (unsigned char)names[i][strlen(names[i]) +
							     1];

		if (type == DT_REG && !cpl_str_ends(names[i], ".py"))
			continue;
		cpl_strmap_put(m, names[i], e);
	}
	CPL_GROW(e->load.listings, e->load.listings_cap, e->load.nlistings + 1);
	e->load.listings[e->load.nlistings++] = m;
	key = cpl_link_join(".", dir);
	cpl_strmap_put(&e->load.listed, key, m);
	free(key);
}

void
cpl_engine_set_repo(struct cpl_engine *e, struct cpl_repo *repo,
		    bool staged)
{
	e->set.repo = repo;
	e->set.staged = staged && repo != NULL;
}

int
cpl_engine_set_diff_base(struct cpl_engine *e, const char *ref,
			 struct cpl_error *err)
{
	if (e->set.repo == NULL) {
		cpl_error_set(err, NULL, 0, 0, "--diff-base needs a git "
			      "repository, and the targets are not in one");
		return -1;
	}
	if (cpl_repo_diff_base(e->set.repo, ref, e->set.staged, err) < 0)
		return -1;
	e->set.diff = true;
	return 0;
}

void
cpl_engine_add_path(struct cpl_engine *e, const char *path, bool explicit)
{
	struct stat st;

	if (stat(path, &st) < 0 && !e->set.staged) {
		cpl_engine_add_errorf(e, path, 0, 0, "cannot read: %s", strerror(errno));
		return;
	}
	if (cpl_str_ends(path, ".py") &&
	    (e->set.staged || !S_ISDIR(st.st_mode))) {
		/* A Python file named on its own: pre-commit's changed
		 * file, judged with the workloads that run it. */
		CPL_GROW(e->load.seeds, e->load.seeds_cap, e->load.nseeds + 1);
		e->load.seeds[e->load.nseeds++] = cpl_xstrdup(path);
	}
	if (e->set.staged && (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))) {
		add_file(e, path, explicit);	/* a staged file */
		cpl_engine_flush(e);
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		size_t n = strlen(path);

		while (n > 1 && path[n - 1] == '/')
			n--;
		CPL_GROW(e->load.roots, e->load.roots_cap, e->load.nroots + 1);
		e->load.roots[e->load.nroots++] = cpl_xstrndup(path, n);
	}
	if (S_ISDIR(st.st_mode)) {
		struct cpl_walker w = { .config = e->set.config,
					.repo = e->set.repo,
					.staged = e->set.staged,
					.file = walk_file,
					.error = walk_error,
					.listed = e->set.staged ? NULL :
						  dir_listed,
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
	cpl_wlist_add(&e->res.workloads, w);
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

void
cpl_engine_drop_texts(struct cpl_engine *e)
{
	e->set.drop_texts = true;
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
	cpl_strmap_put(seen, key, e);
	free(key);
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
	struct cpl_strmap seen = { .own_keys = true };
	size_t i, j, n;

	for (i = 0; i < e->load.nfiles; i++) {
		const struct cpl_suppress_unknown *u;

		if (!e->load.files[i]->linted)
			continue;
		u = cpl_suppress_unknowns(e->load.files[i]->sup, &n);
		for (j = 0; j < n; j++)
			warn_unknown(e, &seen, e->load.files[i]->path,
				     u[j].line, u[j].column,
				     cpl_xasprintf("unknown rule "
				     "\"%s\" in a cpulint: comment (see "
				     "--list-rules); it suppresses nothing",
				     u[j].word));
	}
	for (i = 0; i < e->res.workloads.count; i++) {
		const struct cpl_workload *w = e->res.workloads.items[i];

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
	/* Each kind's merge hook (kinds.h): TrainJobs meet their runtimes,
	 * whichever files they came from. */
	cpl_kinds_merge(&e->res.workloads);
	/* Every Python target scanned once (its error reported now),
	 * held unloaded; then judged group by group. */
	for (i = 0; i < e->load.nfiles; i++)
		if (e->load.files[i]->linted)
			cpl_engine_python(e, e->load.files[i], PY_SCANNED);
	cpl_engine_reach(e);
	cpl_engine_judge(e);
	for (i = 0; i < e->res.nfindings; i++)
		cpl_engine_suppress(e, &e->res.findings[i]);
	warn_unknown_rules(e);
	cpl_engine_chart_relocate(e);
	cpl_engine_relocate(e);
	if (e->res.nfindings > 1)
		qsort(e->res.findings, e->res.nfindings,
		      sizeof(*e->res.findings), cmp_finding);
	for (i = 0, out = 0; i < e->res.nfindings; i++) {
		if ((e->set.diff &&
		     !cpl_engine_finding_changed(e, &e->res.findings[i])) ||
		    (out > 0 && same_finding(&e->res.findings[out - 1],
					     &e->res.findings[i]))) {
			cpl_finding_free(&e->res.findings[i]);
			continue;
		}
		if (out != i)
			e->res.findings[out] = e->res.findings[i];
		out++;
	}
	e->res.nfindings = out;
}

const struct cpl_finding *
cpl_engine_findings(const struct cpl_engine *e, size_t *n)
{
	*n = e->res.nfindings;
	return e->res.findings;
}

const struct cpl_error *
cpl_engine_warnings(const struct cpl_engine *e, size_t *n)
{
	*n = e->res.nwarnings;
	return e->res.warnings;
}

const struct cpl_budget_entry *
cpl_engine_budgets(const struct cpl_engine *e, size_t *n)
{
	*n = e->res.nbudgets;
	return e->res.budgets;
}

const struct cpl_error *
cpl_engine_notes(const struct cpl_engine *e, size_t *n)
{
	*n = e->res.nnotes;
	return e->res.notes;
}

const struct cpl_error *
cpl_engine_errors(const struct cpl_engine *e, size_t *n)
{
	*n = e->res.nerrors;
	return e->res.errors;
}

size_t
cpl_engine_ntargets(const struct cpl_engine *e)
{
	size_t i, n = 0;

	for (i = 0; i < e->load.nfiles; i++)
		n += e->load.files[i]->linted;
	return n;
}

const struct cpl_wlist *
cpl_engine_workloads(const struct cpl_engine *e)
{
	return &e->res.workloads;
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
	const struct cpl_wlist *wl = &e->res.workloads;
	const char *base = base_name(path);
	struct stat sst;
	size_t i, j;

	if (cpl_engine_is_aux(e, st) || cpl_config_read_file(e->set.config, st))
		return true;
	for (i = 0; i < e->load.nfiles; i++) {
		const struct source *src = e->load.files[i];
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
	const struct cpl_error *w = cpl_config_warnings(e->set.config, &n);

	for (i = from; i < n; i++)
		cpl_engine_add_warning(e, &w[i]);
}

int
cpl_engine_load_config(struct cpl_engine *e, const char *path,
		       struct cpl_error *err)
{
	size_t n;
	int rc;

	cpl_config_warnings(e->set.config, &n);
	rc = cpl_config_load(e->set.config, path, err);
	config_warnings(e, n);
	return rc;
}

int
cpl_engine_find_config(struct cpl_engine *e, const char *dir,
		       struct cpl_error *err)
{
	size_t n;
	int rc;

	cpl_config_warnings(e->set.config, &n);
	rc = cpl_config_find(e->set.config, dir, err);
	config_warnings(e, n);
	return rc;
}
