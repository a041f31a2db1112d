/*
 * markdown.c — a Markdown report for a pull-request comment or
 * $GITHUB_STEP_SUMMARY (GitHub-flavoured tables):
 *
 *   ### kubectl-cpulint: 3 findings (2 errors, 1 warning, 0 notes)
 *
 *   #### [CPU202 thread-env-over-budget](…/rules/CPU202.md): 2
 *
 *   | severity | where | message | fix |
 *   | --- | --- | --- | --- |
 *   | error | [job.yaml:23:14](…/blob/SHA/job.yaml#L23) | OMP… | set … |
 *
 *   <details><summary>1 warning</summary>
 *   … the warnings' tables …
 *   </details>
 *
 * Most severe first: one table per rule and severity, the errors' tables
 * first (in the registry's order), then the warnings', then the notes';
 * every level below the most severe one present is folded in a
 * <details> block.  A finding's evidence (its related locations) follows
 * its message in the same cell.  With meta->link_base (the command sets
 * it from GITHUB_SERVER_URL, GITHUB_REPOSITORY and GITHUB_SHA) each place
 * links to its file at that commit.  The fix column is left out with
 * meta->quiet (-q).  Suppressed findings and those in the baseline are
 * counted in the heading, not listed; input errors are a list after the
 * tables.
 *
 * The whole report stays within CPL_REPORT_MARKDOWN_MAX bytes (GitHub
 * refuses a comment over 65,536 characters, and a character is at least
 * a byte): rows are added most severe first while they fit, and the rest
 * are counted in one line that says where the full list is.
 *
 * Invariant: every value from an input goes through the one escaper as a
 * table cell (escape.h, CPL_ESC_MARKDOWN: HTML's & < > as entities, the
 * inline syntax and '|' backslash-escaped, '@' as an entity so no one
 * is mentioned, no raw control character), so no value adds markup, a
 * link, an image, a column or a line; a link's target is percent-encoded
 * byte by byte.  The state owns the rows; out and meta are borrowed.
 */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/escape.h"
#include "report/fingerprint.h"
#include "report/render_int.h"
#include "report/wbuf.h"

/* Input errors listed at most; the rest are counted. */
#define MAX_ERRORS 50
/* Bytes kept for the closing lines (the count of what is not shown, the
 * end of a <details> block). */
#define TAIL 640

/* The rows of one rule's table at one severity. */
struct table {
	const struct cpl_rule *rule;	/* borrowed */
	enum cpl_severity sev;
	struct cpl_buf rows;
	size_t *ends;			/* where each row ends in rows */
	size_t n;
};

/* The reporter's state between begin and end. */
struct markdown {
	struct cpl_wbuf w;
	const struct cpl_report_meta *meta;	/* borrowed */
	struct table *tables;		/* in the order first met */
	size_t ntables;
	struct cpl_report_tally tally;
	char *cwd;			/* NULL: unknown */
	bool quiet;
	bool failed;
};

/* Appends s as (part of) a table cell. */
static void
add_cell(struct cpl_buf *b, const char *s)
{
	cpl_escape_str(b, s, CPL_ESC_MARKDOWN);
}

static void *
markdown_begin(FILE *out, const struct cpl_report_meta *meta)
{
	struct markdown *m = cpl_xcalloc(1, sizeof(*m));

	cpl_wbuf_init(&m->w, out);
	m->meta = meta;
	m->quiet = meta && meta->quiet;
	if (meta && meta->link_base)
		m->cwd = getcwd(NULL, 0);
	return m;
}

/* The table of rule r at severity sev (a new one when first met). */
static struct table *
table_of(struct markdown *m, const struct cpl_rule *r, enum cpl_severity sev)
{
	size_t i;

	for (i = 0; i < m->ntables; i++)
		if (m->tables[i].sev == sev &&
		    (m->tables[i].rule == r ||
		     strcmp(m->tables[i].rule->id, r->id) == 0))
			return &m->tables[i];
	m->tables = cpl_xrealloc(m->tables, (m->ntables + 1) *
				 sizeof(*m->tables));
	memset(&m->tables[m->ntables], 0, sizeof(*m->tables));
	m->tables[m->ntables].rule = r;
	m->tables[m->ntables].sev = sev;
	cpl_buf_init(&m->tables[m->ntables].rows, 0);
	return &m->tables[m->ntables++];
}

/* A place file:line:col, linked to the file at the commit when the
 * report has a link base and the file lies under its root. */
static void
add_place(const struct markdown *m, struct cpl_buf *b, const char *file,
	  int line, int column)
{
	const struct cpl_report_meta *meta = m->meta;
	char *rel = NULL;

	if (meta && meta->link_base && meta->srcroot &&
	    strcmp(file, CPL_REPORT_STDIN) != 0)
		rel = cpl_report_relpath(m->cwd, meta->srcroot, file);
	if (rel)
		cpl_buf_addc(b, '[');
	add_cell(b, file);
	if (line > 0)
		cpl_buf_addf(b, ":%d", line);
	if (line > 0 && column > 0)
		cpl_buf_addf(b, ":%d", column);
	if (rel == NULL)
		return;
	cpl_buf_adds(b, "](");
	cpl_buf_adds(b, meta->link_base);	/* checked by the command */
	/* percent-encoded but for "/": no byte can end the link or the cell */
	cpl_buf_add_pct(b, rel, "/");
	if (line > 0)
		cpl_buf_addf(b, "#L%d", line);
	cpl_buf_addc(b, ')');
	free(rel);
}

static void
markdown_emit(void *state, const struct cpl_finding *f)
{
	struct markdown *m = state;
	struct table *t;
	struct cpl_buf *b;
	size_t i;

	cpl_report_tally_add(&m->tally, f);
	if (f->suppressed || f->severity == CPL_SEV_OFF || f->rule == NULL)
		return;
	t = table_of(m, f->rule, f->severity);
	b = &t->rows;
	cpl_buf_addf(b, "| %s | ", cpl_severity_name(f->severity));
	if (f->file) {
		add_place(m, b, f->file, f->line, f->column);
	} else {
		add_cell(b, f->object ? f->object : "");
		if (f->container) {
			cpl_buf_adds(b, "\\[");
			add_cell(b, f->container);
			cpl_buf_adds(b, "\\]");
		}
	}
	cpl_buf_adds(b, " | ");
	add_cell(b, f->message ? f->message : "");
	/* The evidence: each related place and what it says. */
	for (i = 0; i < f->nrelated; i++) {
		const struct cpl_related *r = &f->related[i];

		cpl_buf_adds(b, "<br>note: ");
		if (r->file) {
			add_place(m, b, r->file, r->line, r->column);
			cpl_buf_adds(b, ": ");
		}
		add_cell(b, r->message ? r->message : "");
	}
	if (!m->quiet) {
		cpl_buf_adds(b, " | ");
		add_cell(b, f->fix ? f->fix : "");
	}
	cpl_buf_adds(b, " |\n");
	t->ends = cpl_xrealloc(t->ends, (t->n + 1) * sizeof(*t->ends));
	t->ends[t->n++] = b->len;
}

/* "2 errors" */
static void
add_count(struct cpl_buf *b, size_t n, const char *noun)
{
	cpl_buf_addf(b, "%zu %s%s", n, noun, n == 1 ? "" : "s");
}

/* "(2 errors, 1 warning, 0 notes)" */
static void
add_counts(struct cpl_buf *b, const size_t *by)
{
	cpl_buf_adds(b, "(");
	add_count(b, by[CPL_SEV_ERROR], "error");
	cpl_buf_adds(b, ", ");
	add_count(b, by[CPL_SEV_WARNING], "warning");
	cpl_buf_adds(b, ", ");
	add_count(b, by[CPL_SEV_NOTE], "note");
	cpl_buf_addc(b, ')');
}

/* The heading: totals, suppressed, in the baseline. */
static void
add_heading(struct cpl_buf *b, const struct markdown *m)
{
	const struct cpl_report_tally *c = &m->tally;
	size_t total = c->errors + c->warnings + c->notes;
	size_t by[CPL_SEV_ERROR + 1] = { 0 };

	by[CPL_SEV_ERROR] = c->errors;
	by[CPL_SEV_WARNING] = c->warnings;
	by[CPL_SEV_NOTE] = c->notes;
	cpl_buf_adds(b, "### kubectl-cpulint: ");
	if (total == 0) {
		cpl_buf_adds(b, "no findings");
	} else {
		add_count(b, total, "finding");
		cpl_buf_addc(b, ' ');
		add_counts(b, by);
	}
	if (c->suppressed)
		cpl_buf_addf(b, ", %zu suppressed", c->suppressed);
	if (m->meta && m->meta->baselined)
		cpl_buf_addf(b, ", %zu in the baseline", m->meta->baselined);
	cpl_buf_adds(b, "\n");
}

/* A table's heading and columns. */
static void
add_table_head(struct cpl_buf *b, const struct table *t, bool quiet)
{
	cpl_buf_adds(b, "\n#### [");
	add_cell(b, t->rule->id);
	cpl_buf_adds(b, " ");
	add_cell(b, t->rule->name);
	cpl_buf_adds(b, "](" CPL_REPORT_HELP_URI);
	add_cell(b, t->rule->id);
	cpl_buf_addf(b, ".md): %zu\n\n", t->n);
	cpl_buf_adds(b, quiet ? "| severity | where | message |\n"
			"| --- | --- | --- |\n" :
			"| severity | where | message | fix |\n"
			"| --- | --- | --- | --- |\n");
}

/* The input errors, one list item each, at most MAX_ERRORS. */
static void
add_errors(struct cpl_buf *b, const struct cpl_report_meta *meta)
{
	size_t i;

	if (meta == NULL || meta->nerrors == 0)
		return;
	cpl_buf_adds(b, "\n#### Input errors\n\n");
	for (i = 0; i < meta->nerrors && i < MAX_ERRORS; i++) {
		const struct cpl_error *e = &meta->errors[i];
		size_t at = b->len;

		cpl_buf_adds(b, "- ");
		if (e->path) {
			add_cell(b, e->path);
			if (e->line > 0)
				cpl_buf_addf(b, ":%d", e->line);
			if (e->line > 0 && e->column > 0)
				cpl_buf_addf(b, ":%d", e->column);
			cpl_buf_adds(b, ": ");
		}
		add_cell(b, e->message ? e->message : "unknown error");
		/* One error takes at most 400 bytes (a code point is not
		 * cut: continuation bytes go with it). */
		if (b->len - at > 400) {
			size_t cut = at + 396;

			while (cut > at && ((unsigned char)b->data[cut] &
					    0xC0) == 0x80)
				cut--;
			b->len = cut;
			cpl_buf_adds(b, " …");
		}
		cpl_buf_addc(b, '\n');
	}
	if (meta->nerrors > MAX_ERRORS)
		cpl_buf_addf(b, "- and %zu more (the job's log lists them)\n",
			     meta->nerrors - MAX_ERRORS);
}

static const char *const level_name[] = {
	[CPL_SEV_NOTE] = "note", [CPL_SEV_WARNING] = "warning",
	[CPL_SEV_ERROR] = "error",
};

/* The tables, most severe first, while they fit in limit bytes of b;
 * what did not fit is counted in left (by severity). */
static void
add_tables(struct cpl_buf *b, const struct markdown *m, size_t limit,
	   size_t *left)
{
	const struct cpl_rule *const *rules;
	size_t nrules, r, i, k, sum, shown, room;
	int sev;
	bool first = true, full = false, opened = false;
	struct cpl_buf head, open;

	rules = cpl_rules_all(&nrules);
	cpl_buf_init(&head, 0);
	cpl_buf_init(&open, 0);
	for (sev = CPL_SEV_ERROR; sev >= CPL_SEV_NOTE; sev--) {
		sum = 0;
		for (i = 0; i < m->ntables; i++)
			if ((int)m->tables[i].sev == sev)
				sum += m->tables[i].n;
		if (sum == 0)
			continue;
		if (full) {
			left[sev] += sum;
			continue;
		}
		/* Below the most severe level, a <details> block opened
		 * with its first row that fits. */
		cpl_buf_reset(&open);
		if (!first)
			cpl_buf_addf(&open, "\n<details><summary>%zu %s%s"
				     "</summary>\n", sum, level_name[sev],
				     sum == 1 ? "" : "s");
		/* Registry order, then rules outside it as met. */
		for (r = 0; r <= nrules; r++) {
			for (i = 0; i < m->ntables; i++) {
				const struct table *t = &m->tables[i];
				bool in = false;

				if ((int)t->sev != sev)
					continue;
				for (k = 0; k < nrules && !in; k++)
					in = strcmp(rules[k]->id,
						    t->rule->id) == 0;
				if (r < nrules ? strcmp(rules[r]->id,
							t->rule->id) != 0 :
						 in)
					continue;
				if (full) {
					left[sev] += t->n;
					continue;
				}
				cpl_buf_reset(&head);
				add_table_head(&head, t, m->quiet);
				room = limit > b->len + open.len ?
				       limit - b->len - open.len : 0;
				for (shown = 0; shown < t->n; shown++)
					if (head.len + t->ends[shown] > room)
						break;
				if (shown > 0) {
					cpl_buf_add(b, open.data, open.len);
					opened = opened || open.len > 0;
					cpl_buf_reset(&open);
					cpl_buf_add(b, head.data, head.len);
					cpl_buf_add(b, t->rows.data,
						    t->ends[shown - 1]);
				}
				if (shown < t->n) {
					left[sev] += t->n - shown;
					full = true;
				}
			}
		}
		if (opened)
			cpl_buf_adds(b, "\n</details>\n");
		opened = false;
		first = false;
	}
	cpl_buf_free(&head);
	cpl_buf_free(&open);
}

static int
markdown_end(void *state)
{
	struct markdown *m = state;
	struct cpl_buf b, errs;
	size_t left[CPL_SEV_ERROR + 1] = { 0 };
	size_t i, used, nleft;
	int rc;

	cpl_buf_init(&b, 0);
	cpl_buf_init(&errs, 0);
	add_heading(&b, m);
	add_errors(&errs, m->meta);
	used = b.len + errs.len + TAIL;
	add_tables(&b, m, CPL_REPORT_MARKDOWN_MAX > used ?
		   CPL_REPORT_MARKDOWN_MAX - used + b.len : b.len, left);
	nleft = left[CPL_SEV_ERROR] + left[CPL_SEV_WARNING] +
		left[CPL_SEV_NOTE];
	if (nleft > 0) {
		cpl_buf_adds(&b, "\n**");
		add_count(&b, nleft, "more finding");
		cpl_buf_adds(&b, " not shown** ");
		add_counts(&b, left);
		cpl_buf_addf(&b, ": a comment holds at most 65,536 "
			     "characters, so this one lists the most severe "
			     "first in %d bytes; the full list is in the "
			     "job's log and the SARIF report\n",
			     CPL_REPORT_MARKDOWN_MAX);
	}
	cpl_buf_add(&b, errs.data, errs.len);
	if (b.overflow || errs.overflow)
		m->failed = true;
	else
		cpl_wbuf_add(&m->w, b.data, b.len);
	cpl_buf_free(&b);
	cpl_buf_free(&errs);
	rc = cpl_wbuf_finish(&m->w) < 0 || m->failed ? -1 : 0;
	for (i = 0; i < m->ntables; i++) {
		cpl_buf_free(&m->tables[i].rows);
		free(m->tables[i].ends);
	}
	free(m->tables);
	free(m->cwd);
	free(m);
	return rc;
}

const struct cpl_reporter cpl_report_markdown = {
	.name = "markdown",
	.begin = markdown_begin,
	.emit = markdown_emit,
	.end = markdown_end,
};
