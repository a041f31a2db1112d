/*
 * fix.c — --fix and --diff, ruff's way.  Lint; take the edits of the
 * unsuppressed findings whose fixes are allowed (safe ones, unsafe ones
 * too with --unsafe-fixes); apply them file by file (text/patch.h: a
 * fix overlapping another waits for the next pass); lint the fixed text
 * again, in memory, up to MAX_PASSES times while something changed.
 * Then --diff prints the unified diff of every changed file and writes
 * nothing; --fix replaces each changed file, only while it still holds
 * the bytes first linted (atomic.h), lints again from the files and
 * reports what is left.  Standard input's fixed text goes to stdout and
 * the report to stderr.
 *
 * Ownership: a run owns the fixed texts (struct cli_fixfile: path,
 * original and fixed text, changed regions) until its end; findings and
 * edits stay the engine's, borrowed for one pass.
 *
 * Invariant: nothing is written before every pass is done, and a file
 * that changed since it was read is never overwritten.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fix/fixcheck.h"
#include "git/repo.h"
#include "run/engine.h"
#include "text/atomic.h"
#include "text/patch.h"
#include "util.h"

enum { MAX_PASSES = 10 };

/* The files changed so far. */
struct fixrun {
	struct cli_fixfile *files;
	size_t n, cap;
	struct cpl_strmap at;	/* path (files[i].path) → i + 1 */
	size_t *nfixed;		/* findings fixed, per file */
	size_t nfixed_cap;
	/* Fixes a re-parse refused: "file:line:col: ID not fixed: why",
	 * each finding once, as first met (a later pass meets it again,
	 * at the lines of the text fixed so far). */
	struct cpl_strmap refused_at;
	char **refused;			/* keys of refused_at, in order */
	size_t nrefused, refused_cap;
};

/* Keeps the note that finding f's fix was refused, and why. */
static void
note_refusal(struct fixrun *r, const struct cpl_finding *f, const char *why)
{
	char *key = cpl_xasprintf("%s\n%s\n%s\n%s\n%s", f->rule->id, f->file,
				  f->object ? f->object : "",
				  f->container ? f->container : "",
				  f->message ? f->message : "");

	if (cpl_strmap_get(&r->refused_at, key) != NULL) {
		free(key);
		return;
	}
	CPL_GROW(r->refused, r->refused_cap, r->nrefused + 1);
	r->refused[r->nrefused++] = key;
	cpl_strmap_put(&r->refused_at, key,
		       cpl_xasprintf("%s:%d:%d: %s not fixed: %s", f->file,
				     f->line, f->column, f->rule->id, why));
}

/* Whether f's edits may be applied. */
static bool
allowed(const struct options *o, const struct cpl_finding *f)
{
	return !f->suppressed && f->file != NULL && f->nedits > 0 &&
	       (f->fix_safety == CPL_FIX_SAFE || o->unsafe_fixes);
}

static struct cli_fixfile *
fixfile(struct fixrun *r, const char *path, const char *text, size_t len,
	size_t *index)
{
	size_t i = (size_t)(uintptr_t)cpl_strmap_get(&r->at, path);

	if (i-- > 0)
		goto out;
	i = r->n;
	CPL_GROW(r->files, r->cap, r->n + 1);
	CPL_GROW(r->nfixed, r->nfixed_cap, r->n + 1);
	memset(&r->files[i], 0, sizeof(r->files[i]));
	r->files[i].path = cpl_xstrdup(path);
	r->files[i].orig = cpl_xstrndup(text, len);
	r->files[i].olen = len;
	r->nfixed[i] = 0;
	r->n++;
	cpl_strmap_put(&r->at, r->files[i].path, (void *)(uintptr_t)r->n);
out:
	*index = i;
	return &r->files[i];
}

/*
 * Applies edits ed (the allowed edits that name file, in finding order)
 * to its text in e.  bad[i] is set for each finding an edit of which was
 * not applied (or changed nothing).  True when the text changed.
 */
static bool
fix_file(struct fixrun *r, const struct cpl_engine *e, const char *file,
	 struct cpl_patch_edit *ed, size_t ne, bool *bad, size_t *home)
{
	size_t i, idx, nf;
	struct cpl_patch p;
	struct cpl_fixcheck refused = { 0 };
	struct cli_fixfile *ff;
	const struct cpl_finding *f = cpl_engine_findings(e, &nf);
	const char *text;
	size_t len;
	bool changed;

	text = cpl_engine_source_text(e, file, &len);
	if (text == NULL)
		return false;
	cpl_fixcheck_apply(&p, &refused, text, len,
			   cpl_engine_source_is_yaml(e, file) ?
			   CPL_FIXCHECK_YAML : CPL_FIXCHECK_PYTHON, ed, ne);
	for (i = 0; i < refused.n; i++)
		note_refusal(r, &f[refused.v[i].group], refused.v[i].why);
	cpl_fixcheck_free(&refused);
	changed = p.len != len || memcmp(p.text, text, len) != 0;
	for (i = 0; i < ne; i++)
		if (!changed || ed[i].state == CPL_PATCH_SKIPPED ||
		    ed[i].state == CPL_PATCH_INVALID ||
		    ed[i].state == CPL_PATCH_REFUSED)
			bad[ed[i].group] = true;
	if (changed) {
		ff = fixfile(r, file, text, len, &idx);
		free(ff->text);
		free(ff->regions);
		ff->text = p.text;
		ff->len = p.len;
		ff->regions = p.regions;
		ff->nregions = p.nregions;
		ff->passes++;
		for (i = 0; i < ne; i++)
			if (home[ed[i].group] == (size_t)-1)
				home[ed[i].group] = idx;
		p.text = NULL;
		p.regions = NULL;
	}
	cpl_patch_free(&p);
	return changed;
}

/* The allowed edits of one file, in finding order. */
struct fileedits {
	const char *file;
	struct cpl_patch_edit *ed;
	size_t n, cap;
};

/* One pass over e's findings; true when a file changed.  The edits are
 * grouped by file in one walk over the findings (a map from file to its
 * group), and the files fixed in the order first met. */
static bool
fix_pass(struct fixrun *r, const struct options *o,
	 const struct cpl_engine *e)
{
	size_t n, i, j, k, nf = 0, cap = 0;
	const struct cpl_finding *f = cpl_engine_findings(e, &n);
	struct fileedits *g = NULL;
	struct cpl_strmap at = { 0 };
	bool *bad = cpl_xcalloc(n ? n : 1, sizeof(*bad));
	size_t *home = cpl_xcalloc(n ? n : 1, sizeof(*home));
	bool changed = false;

	for (i = 0; i < n; i++) {
		home[i] = (size_t)-1;
		if (!allowed(o, &f[i]))
			continue;
		for (j = 0; j < f[i].nedits; j++) {
			const struct cpl_edit *x = &f[i].edits[j];
			struct fileedits *fe;
			struct cpl_patch_edit *pe;

			if (x->file == NULL)
				continue;
			k = (size_t)(uintptr_t)cpl_strmap_get(&at, x->file);
			if (k == 0) {
				CPL_GROW(g, cap, nf + 1);
				memset(&g[nf], 0, sizeof(g[nf]));
				g[nf].file = x->file;
				k = ++nf;
				cpl_strmap_put(&at, x->file,
					       (void *)(uintptr_t)k);
			}
			fe = &g[k - 1];
			CPL_GROW(fe->ed, fe->cap, fe->n + 1);
			pe = &fe->ed[fe->n++];
			memset(pe, 0, sizeof(*pe));
			pe->line = x->line;
			pe->column = x->column;
			pe->end_line = x->end_line;
			pe->end_column = x->end_column;
			pe->text = x->text;
			pe->group = i;
		}
	}
	for (k = 0; k < nf; k++) {
		changed |= fix_file(r, e, g[k].file, g[k].ed, g[k].n, bad,
				    home);
		free(g[k].ed);
	}
	for (i = 0; i < n; i++)
		if (home[i] != (size_t)-1 && !bad[i])
			r->nfixed[home[i]]++;
	cpl_strmap_free(&at);
	free(g);
	free(bad);
	free(home);
	return changed;
}

static int
file_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cli_fixfile *)a)->path,
		      ((const struct cli_fixfile *)b)->path);
}

/* Counts the allowed fixes of e: safe ones, and unsafe ones. */
static void
count_fixes(const struct cpl_engine *e, size_t *safe, size_t *unsafe)
{
	size_t n, i;
	const struct cpl_finding *f = cpl_engine_findings(e, &n);

	*safe = *unsafe = 0;
	for (i = 0; i < n; i++) {
		if (f[i].suppressed || f[i].file == NULL || f[i].nedits == 0)
			continue;
		if (f[i].fix_safety == CPL_FIX_SAFE)
			(*safe)++;
		else
			(*unsafe)++;
	}
}

void
cpl_cli_fix_hint(const struct cpl_engine *e)
{
	size_t safe, unsafe;

	count_fixes(e, &safe, &unsafe);
	cpl_cli_say("kubectl-cpulint: %zu fix(es) available with --fix, %zu "
		    "more with --fix --unsafe-fixes", safe, unsafe);
}

/* "kubectl-cpulint: VERB N finding(s) in M file(s)", and the unsafe
 * fixes --unsafe-fixes would add (unsafe of them). */
static void
say_summary(const char *verb, size_t nfixed, size_t nfiles, size_t unsafe)
{
	char more[80] = "";

	if (unsafe > 0)
		snprintf(more, sizeof(more), "; %zu more fix(es) with "
			 "--unsafe-fixes", unsafe);
	cpl_cli_say("kubectl-cpulint: %s %zu finding(s) in %zu file(s)%s",
		    verb, nfixed, nfiles, more);
}

/* --diff: the diff of every changed file; exit 1 when there is one, 2
 * when a file could not be named in it (said on stderr; the others are
 * still printed). */
static int
print_diff(const struct fixrun *r)
{
	struct cpl_buf b;
	struct cpl_patch_region whole;
	struct cpl_error err = { 0 };
	size_t i;
	int status = EXIT_CLEAN, rc = 0;
	bool refused = false;

	cpl_buf_init(&b, 0);
	for (i = 0; i < r->n; i++) {
		const struct cli_fixfile *ff = &r->files[i];

		if (ff->len == ff->olen &&
		    memcmp(ff->text, ff->orig, ff->len) == 0)
			continue;
		status = EXIT_FINDINGS;
		/* One pass: its regions say which lines changed; several:
		 * one region over everything between the first and the
		 * last line that differ. */
		if (ff->passes == 1)
			rc = cpl_patch_diff(&b, ff->path, ff->orig, ff->olen,
					    ff->text, ff->len, ff->regions,
					    ff->nregions, &err);
		else if (cpl_patch_span(&whole, ff->orig, ff->olen, ff->text,
					ff->len))
			rc = cpl_patch_diff(&b, ff->path, ff->orig, ff->olen,
					    ff->text, ff->len, &whole, 1,
					    &err);
		if (rc < 0) {
			cpl_cli_say("%s: error: %s", err.path, err.message);
			cpl_error_clear(&err);
			refused = true;
			rc = 0;
		}
	}
	if (fwrite(b.data ? b.data : "", 1, b.len, stdout) != b.len ||
	    fflush(stdout) != 0) {
		cpl_cli_say("kubectl-cpulint: cannot write the diff");
		status = EXIT_TROUBLE;
	}
	if (refused)
		status = EXIT_TROUBLE;
	cpl_buf_free(&b);
	return status;
}

/* Writes every changed file (not standard input); false on trouble. */
static bool
write_files(struct fixrun *r, bool force, size_t *nfiles, size_t *nfixed)
{
	struct cpl_error err = { 0 };
	bool ok = true;
	size_t i;
	int rc;

	*nfiles = *nfixed = 0;
	for (i = 0; i < r->n; i++) {
		const struct cli_fixfile *ff = &r->files[i];

		if (ff->len == ff->olen &&
		    memcmp(ff->text, ff->orig, ff->len) == 0)
			continue;
		if (strcmp(ff->path, CLI_STDIN_NAME) == 0) {
			(*nfiles)++;
			*nfixed += r->nfixed[i];
			continue;
		}
		rc = cpl_atomic_replace(ff->path, ff->orig, ff->olen,
					ff->text, ff->len,
					force ? CPL_ATOMIC_FORCE : 0, &err);
		if (rc == 0) {
			(*nfiles)++;
			*nfixed += r->nfixed[i];
			continue;
		}
		ok = false;
		cpl_cli_say("kubectl-cpulint: %s: %s%s", ff->path,
			    rc > 0 ? "" : "cannot write the fixes: ",
			    err.message);
		cpl_error_clear(&err);
	}
	return ok;
}

static void
fixrun_free(struct fixrun *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->files[i].path);
		free(r->files[i].orig);
		free(r->files[i].text);
		free(r->files[i].regions);
	}
	free(r->files);
	cpl_strmap_free(&r->at);
	free(r->nfixed);
	for (i = 0; i < r->nrefused; i++) {
		free(cpl_strmap_get(&r->refused_at, r->refused[i]));
		free(r->refused[i]);
	}
	free(r->refused);
	cpl_strmap_free(&r->refused_at);
}

/* Says which fixes were refused, and why. */
static void
print_refused(const struct fixrun *r)
{
	size_t i;

	for (i = 0; i < r->nrefused; i++)
		cpl_cli_say("kubectl-cpulint: %s",
			    (const char *)cpl_strmap_get(&r->refused_at,
							 r->refused[i]));
}

int
cpl_cli_run_fix(struct cli_static *st)
{
	const struct options *o = st->o;
	struct fixrun r = { 0 };
	struct cpl_engine *e = NULL;
	const struct cli_fixfile *in = NULL;
	size_t pass, i, nfiles = 0, nfixed = 0, safe, unsafe, nerr;
	int status;
	bool ok;

	for (pass = 0; pass < MAX_PASSES; pass++) {
		e = cpl_cli_lint(st, r.files, r.n);
		if (!fix_pass(&r, o, e))
			break;
		cpl_engine_free(e);
		e = NULL;
	}
	if (o->diff) {
		if (e == NULL)	/* MAX_PASSES passes all changed something */
			e = cpl_cli_lint(st, r.files, r.n);
		count_fixes(e, &safe, &unsafe);
		cpl_engine_errors(e, &nerr);
		cpl_cli_print_errors(e);
		for (i = 0; i < r.n; i++) {
			nfiles += r.files[i].len != r.files[i].olen ||
				  memcmp(r.files[i].text, r.files[i].orig,
					 r.files[i].len) != 0;
			nfixed += r.nfixed[i];
		}
		/* Sorted only now: r.nfixed follows the order found. */
		if (r.n > 1)
			qsort(r.files, r.n, sizeof(*r.files), file_cmp);
		status = print_diff(&r);
		print_refused(&r);
		say_summary("would fix", nfixed, nfiles,
			    o->unsafe_fixes ? 0 : unsafe);
		if (nerr > 0)
			status = EXIT_TROUBLE;
		goto out;
	}
	cpl_engine_free(e);
	ok = write_files(&r, o->force, &nfiles, &nfixed);
	for (i = 0; i < r.n; i++)
		if (strcmp(r.files[i].path, CLI_STDIN_NAME) == 0)
			in = &r.files[i];
	/* Lint again from the files as they are now. */
	e = cpl_cli_lint(st, in, in ? 1 : 0);
	if (o->verbose)
		cpl_cli_verbose(e);
	if (st->stdin_text) {
		const char *t = in ? in->text : st->stdin_text;
		size_t len = in ? in->len : st->stdin_len;

		if (fwrite(t, 1, len, stdout) != len || fflush(stdout)) {
			cpl_cli_say("kubectl-cpulint: cannot write the fixed "
				    "standard input");
			ok = false;
		}
	}
	status = cpl_cli_report(o, e, st->repo ? cpl_repo_root(st->repo) :
				NULL, st->argc, st->argv,
				st->stdin_text ? stderr : stdout);
	count_fixes(e, &safe, &unsafe);
	print_refused(&r);
	say_summary("fixed", nfixed, nfiles, o->unsafe_fixes ? 0 : unsafe);
	cpl_cli_no_files(e);
	if (!ok)
		status = EXIT_TROUBLE;
out:
	cpl_engine_free(e);
	fixrun_free(&r);
	return status;
}
