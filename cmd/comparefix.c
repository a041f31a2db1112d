/*
 * comparefix.c — `compare --fix FILE` and `compare --diff FILE`: the
 * verdict's best setting (T threads, W workers) written into the file it
 * was planned from, by the linter's own edits (lib/run/keep.h: CPU401's
 * split fix), proved by the re-parse check (fixcheck.h) and written
 * whole or not at all (atomic.h).  One YAML comment at the end of the
 * first value's line that takes one says which comparison chose it, and
 * the workload's annotation cpulint.io/measured what it measured (the
 * linter honours it: keep.h); when
 * no place takes a comment (every value inside a flow collection, a JSON
 * file), or the re-parse refuses it, the values go alone.  A worker count
 * on a line of its own after its flag (a block sequence, a multi-line
 * JSON array) is edited there (keep.c).
 *
 * Ownership: everything made here is freed here; the comparison and the
 * verdict are the caller's.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "fix/fixcheck.h"
#include "plan/compare.h"
#include "plan/verdict.h"
#include "run/engine.h"
#include "run/keep.h"
#include "text/atomic.h"
#include "text/patch.h"

/* Keeps what may stand in a YAML comment from the cluster's strings
 * (the plan id, the setting): no line breaks, no control bytes. */
static void
add_clean(struct cpl_buf *b, const char *s)
{
	for (; s && *s; s++)
		cpl_buf_addc(b, (*s >= 0x20 && *s < 0x7f) ? *s : '?');
}

/* " # cpulint compare ID: best tT-wW, N examples/s; kept by compare
 * --fix" (no newline). */
static char *
comment(const struct cpl_compare *c, const struct cpl_verdict *v)
{
	const struct cpl_compare_row *r = &c->rows[v->best];
	struct cpl_buf b;

	cpl_buf_init(&b, 0);
	cpl_buf_adds(&b, "  # cpulint compare");
	if (c->plan) {
		cpl_buf_addc(&b, ' ');
		add_clean(&b, c->plan);
	}
	cpl_buf_adds(&b, ": best ");
	add_clean(&b, r->setting);
	if (v->by_throughput && r->r.throughput >= 0)
		cpl_buf_addf(&b, ", %.4g examples/s", r->r.throughput);
	else
		cpl_buf_addf(&b, ", ranked by throttling (%.0f%%)",
			     r->r.throttled);
	cpl_buf_adds(&b, "; kept by compare --fix");
	return cpl_buf_detach(&b);
}

/*
 * What the comparison measured, for the workload's cpulint.io/measured
 * annotation (keep.h): "412 examples/s, 1.04x t1-w0; plan ID,
 * 2026-12-07", the ratio to the next best setting; "ranked by
 * throttling (3%)" without a throughput.  No quote or backslash.
 */
static char *
measured(const struct cpl_compare *c, const struct cpl_verdict *v)
{
	const struct cpl_compare_row *r = &c->rows[v->best], *next = NULL;
	struct cpl_buf b;
	char day[16] = "";
	time_t now = time(NULL);
	struct tm tm;
	size_t i;
	char *s;

	cpl_buf_init(&b, 0);
	if (v->by_throughput && r->r.throughput >= 0) {
		cpl_buf_addf(&b, "%.0f examples/s", r->r.throughput);
		for (i = 0; i < c->nrows; i++)
			if ((long)i != v->best && c->rows[i].r.throughput > 0 &&
			    (next == NULL || c->rows[i].r.throughput >
					     next->r.throughput))
				next = &c->rows[i];
		if (next != NULL) {
			cpl_buf_addf(&b, ", %.2fx ", r->r.throughput /
				     next->r.throughput);
			add_clean(&b, next->setting);
		}
	} else {
		cpl_buf_addf(&b, "ranked by throttling (%.0f%%)",
			     r->r.throttled);
	}
	if (c->plan) {
		cpl_buf_adds(&b, "; plan ");
		add_clean(&b, c->plan);
	}
	if (gmtime_r(&now, &tm) != NULL &&
	    strftime(day, sizeof(day), "%Y-%m-%d", &tm) > 0)
		cpl_buf_addf(&b, "%s %s", c->plan ? "," : ";", day);
	s = cpl_buf_detach(&b);
	for (i = 0; s[i]; i++)
		if (s[i] == '"' || s[i] == '\\')
			s[i] = '?';
	return s;
}

/* The byte offset of line:column in text, or (size_t)-1. */
static size_t
offset_of(const char *text, size_t len, int line, int column)
{
	size_t i = 0;
	int l = 1;

	while (l < line && i < len) {
		if (text[i++] == '\n')
			l++;
	}
	if (l != line || column < 1 || i + (size_t)(column - 1) > len)
		return (size_t)-1;
	return i + (size_t)(column - 1);
}

/* Whether only blanks follow off on its line. */
static bool
line_ends(const char *text, size_t len, size_t off)
{
	while (off < len && (text[off] == ' ' || text[off] == '\t' ||
			     text[off] == '\r'))
		off++;
	return off >= len || text[off] == '\n';
}

/*
 * Edit x with the comment at the end of its line, as the edit of one
 * YAML value the re-parse check accepts: an insertion of whole lines at
 * a line's start gets it on its last line; another edit that adds no line
 * and ends its line gets it after its text.  Not inside a flow
 * collection: the check takes a replacement only as one value, and
 * `{name: X, value: "4"}  # ...` is not one.  The new text and its range
 * (*e); NULL: no place.
 */
static char *
with_comment(const struct cpl_edit *x, const char *text, size_t len,
	     const char *note, struct cpl_patch_edit *e)
{
	size_t from = offset_of(text, len, x->line, x->column);
	size_t to = offset_of(text, len, x->end_line, x->end_column);
	size_t tl = strlen(x->text);

	e->line = x->line;
	e->column = x->column;
	e->end_line = x->end_line;
	e->end_column = x->end_column;
	if (from == (size_t)-1 || to == (size_t)-1)
		return NULL;
	if (x->column == 1 && from == to && tl > 0 && x->text[tl - 1] == '\n')
		return cpl_xasprintf("%.*s%s\n", (int)(tl - 1), x->text, note);
	if (strchr(x->text, '\n') != NULL || x->line != x->end_line)
		return NULL;
	if (line_ends(text, len, to))
		return cpl_xasprintf("%s%s", x->text, note);
	return NULL;
}

/* Whether text is one flow collection ('{' or '[' first): JSON. */
static bool
flow_doc(const char *text, size_t len)
{
	size_t i = 0;

	while (i < len && (text[i] == ' ' || text[i] == '\t' ||
			   text[i] == '\r' || text[i] == '\n'))
		i++;
	return i < len && (text[i] == '{' || text[i] == '[');
}

/*
 * Applies the keep's edits to text, the comment on edit with (or none:
 * (size_t)-1).  True when every edit was applied and proved; *why then
 * NULL, else the first refusal's reason (the caller frees).
 */
static bool
apply(struct cpl_patch *p, const struct cpl_keep_result *k, const char *text,
      size_t len, size_t with, const char *note, char **why)
{
	struct cpl_patch_edit *pe = cpl_xcalloc(k->nedits, sizeof(*pe));
	struct cpl_fixcheck refused = { 0 };
	char *ctext = NULL;
	size_t i;
	bool ok = true;

	*why = NULL;
	for (i = 0; i < k->nedits; i++) {
		pe[i].line = k->edits[i].line;
		pe[i].column = k->edits[i].column;
		pe[i].end_line = k->edits[i].end_line;
		pe[i].end_column = k->edits[i].end_column;
		pe[i].text = k->edits[i].text;
		if (i == with) {
			ctext = with_comment(&k->edits[i], text, len, note,
					     &pe[i]);
			pe[i].text = ctext;
		}
	}
	cpl_fixcheck_apply(p, &refused, text, len, CPL_FIXCHECK_YAML, pe,
			   k->nedits);
	if (refused.n > 0) {
		*why = cpl_xstrdup(refused.v[0].why);
		ok = false;
	}
	for (i = 0; i < k->nedits && ok; i++)
		ok = pe[i].state == CPL_PATCH_APPLIED ||
		     pe[i].state == CPL_PATCH_DUPLICATE;
	if (!ok && *why == NULL)
		*why = cpl_xstrdup("an edit overlaps another");
	cpl_fixcheck_free(&refused);
	free(ctext);
	free(pe);
	return ok;
}

/* Lints file and asks for the keep's edits; false (said) on trouble. */
static struct cpl_engine *
lint(const char *file)
{
	struct cpl_engine *e = cpl_engine_new();
	struct cpl_error err = { 0 };
	char *copy = cpl_xstrdup(file);
	size_t nerr;

	if (cpl_engine_find_config(e, dirname(copy), &err) < 0)
		cpl_engine_add_error(e, &err);
	cpl_error_clear(&err);
	free(copy);
	cpl_engine_add_path(e, file, true);
	cpl_engine_run(e);
	cpl_engine_errors(e, &nerr);
	if (nerr > 0) {
		cpl_cli_print_errors(e);
		cpl_engine_free(e);
		return NULL;
	}
	return e;
}

/* Writes or prints p; the exit status. */
static int
finish(const char *path, const char *text, size_t len,
       const struct cpl_patch *p, bool diff, const char *setting,
       size_t ncontainers)
{
	struct cpl_error err = { 0 };
	struct cpl_buf b;
	int rc;

	if (diff) {
		cpl_buf_init(&b, 0);
		rc = cpl_patch_diff(&b, path, text, len, p->text, p->len,
				    p->regions, p->nregions, &err);
		if (rc == 0)
			fwrite(b.data ? b.data : "", 1, b.len, stdout);
		cpl_buf_free(&b);
		if (rc < 0 || fflush(stdout) != 0) {
			cpl_cli_say("kubectl-cpulint compare: %s: %s", path,
				    rc < 0 ? err.message :
				    "cannot write the diff");
			cpl_error_clear(&err);
			return EXIT_TROUBLE;
		}
		return EXIT_FINDINGS;
	}
	rc = cpl_atomic_replace(path, text, len, p->text, p->len, 0, &err);
	if (rc != 0) {
		cpl_cli_say("kubectl-cpulint compare: %s: %s%s", path,
			    rc > 0 ? "" : "cannot write it: ", err.message);
		cpl_error_clear(&err);
		return EXIT_TROUBLE;
	}
	cpl_cli_say("kubectl-cpulint compare: %s: kept %s in %zu training "
		    "container(s)", path, setting, ncontainers);
	return EXIT_CLEAN;
}

int
cpl_cli_compare_keep(const char *file, bool diff,
		     const struct cpl_compare *c, const struct cpl_verdict *v)
{
	const struct cpl_compare_row *r;
	struct cpl_keep_result k = { 0 };
	struct cpl_patch p = { 0 };
	struct cpl_engine *e = NULL;
	const char *text, *path;
	char *note = NULL, *why = NULL, *setting, *record = NULL;
	size_t len, i;
	int status = EXIT_TROUBLE;
	bool ok = false;

	if (v->best < 0) {
		cpl_cli_say("kubectl-cpulint compare: %s: no best setting to "
			    "keep", file);
		return status;
	}
	r = &c->rows[v->best];
	/* A setting of threads alone (a job with no loader, tT) keeps its
	 * threads and leaves the worker count as it is. */
	setting = r->r.workers < 0 ?
		cpl_xasprintf("t%ld", r->r.threads) :
		cpl_xasprintf("t%ld-w%ld", r->r.threads, r->r.workers);
	if (r->r.threads < 0) {
		cpl_cli_say("kubectl-cpulint compare: %s: the best setting "
			    "has no thread count to keep", file);
		goto out;
	}
	e = lint(file);
	if (e == NULL)
		goto out;
	record = measured(c, v);
	cpl_engine_keep(e, file, r->r.threads, r->r.workers, r->pools, record,
			&k);
	if (k.why) {
		cpl_cli_say("kubectl-cpulint compare: %s", k.why);
		goto out;
	}
	if (k.nedits == 0) {
		cpl_cli_say("kubectl-cpulint compare: %s already holds %s",
			    file, setting);
		status = EXIT_CLEAN;
		goto out;
	}
	path = k.edits[0].file;
	text = cpl_engine_source_text(e, path, &len);
	if (text == NULL) {
		cpl_cli_say("kubectl-cpulint compare: %s: cannot read it "
			    "again", file);
		goto out;
	}
	note = comment(c, v);
	/* The comment at the end of the first value's line that takes
	 * one; else none.  A document written as one flow collection (a
	 * JSON file, even across many lines) takes none: a comment would
	 * make it YAML. */
	for (i = 0; i < k.nedits && !ok && !flow_doc(text, len); i++) {
		struct cpl_patch_edit at;
		char *t;

		/* The annotation says it already; the comment goes on a
		 * value that the comparison set. */
		if (strstr(k.edits[i].text, CPL_MEASURED_ANNOTATION))
			continue;
		t = with_comment(&k.edits[i], text, len, note, &at);
		if (t == NULL)
			continue;
		free(t);
		cpl_patch_free(&p);
		free(why);
		ok = apply(&p, &k, text, len, i, note, &why);
	}
	if (!ok) {
		cpl_patch_free(&p);
		free(why);
		ok = apply(&p, &k, text, len, (size_t)-1, note, &why);
	}
	if (!ok) {
		cpl_cli_say("kubectl-cpulint compare: %s: %s not kept: %s",
			    file, setting, why);
		goto out;
	}
	status = finish(path, text, len, &p, diff, setting, k.ncontainers);
	if (k.unrecorded && status != EXIT_TROUBLE)
		cpl_cli_say("kubectl-cpulint compare: %s: no place for the "
			    "annotation " CPL_MEASURED_ANNOTATION ": the lint "
			    "will judge %s by the static model", file, setting);
out:
	cpl_patch_free(&p);
	free(why);
	free(note);
	free(record);
	free(setting);
	cpl_keep_free(&k);
	cpl_engine_free(e);
	return status;
}
