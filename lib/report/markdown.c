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
 *   | error | job.yaml:23:14 | OMP_NUM_THREADS=8 x 4 ranks … | set … |
 *
 * A table per rule, in the registry's order, with a link to the rule's
 * documentation; the fix column is left out with meta->quiet (-q).
 * Suppressed findings and those in the baseline are counted in the
 * heading, not listed; input errors are a list after the tables.
 * Findings come sorted by file, so each rule's rows are kept as text
 * until end.
 *
 * Invariant: every value from an input goes through the one escaper as a
 * table cell (escape.h, CPL_ESC_MARKDOWN: HTML's & < > as entities, the
 * inline syntax and '|' backslash-escaped, '@' as an entity so no one
 * is mentioned, no raw control character), so no value adds markup, a
 * link, an image, a column or a line.  The state owns the rows; out and
 * meta are borrowed.
 */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

#include "report/escape.h"
#include "report/render.h"
#include "report/wbuf.h"

/* The rows of one rule's table. */
struct table {
	const struct cpl_rule *rule;	/* borrowed */
	struct cpl_buf rows;
	size_t n;
};

/* The reporter's state between begin and end. */
struct markdown {
	struct cpl_wbuf w;
	const struct cpl_report_meta *meta;	/* borrowed */
	struct table *tables;		/* in registry order, then others */
	size_t ntables;
	struct cpl_report_tally tally;
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
	const struct cpl_rule *const *rules;
	size_t i, n;

	cpl_wbuf_init(&m->w, out);
	m->meta = meta;
	m->quiet = meta && meta->quiet;
	rules = cpl_rules_all(&n);
	m->tables = cpl_xcalloc(n, sizeof(*m->tables));
	for (i = 0; i < n; i++) {
		m->tables[i].rule = rules[i];
		cpl_buf_init(&m->tables[i].rows, 0);
	}
	m->ntables = n;
	return m;
}

/* The table of rule r (a new one for a rule outside the registry). */
static struct table *
table_of(struct markdown *m, const struct cpl_rule *r)
{
	size_t i;

	for (i = 0; i < m->ntables; i++)
		if (m->tables[i].rule == r ||
		    (r && strcmp(m->tables[i].rule->id, r->id) == 0))
			return &m->tables[i];
	m->tables = cpl_xrealloc(m->tables, (m->ntables + 1) *
				 sizeof(*m->tables));
	memset(&m->tables[m->ntables], 0, sizeof(*m->tables));
	m->tables[m->ntables].rule = r;
	cpl_buf_init(&m->tables[m->ntables].rows, 0);
	return &m->tables[m->ntables++];
}

static void
markdown_emit(void *state, const struct cpl_finding *f)
{
	struct markdown *m = state;
	struct table *t;
	struct cpl_buf *b;

	cpl_report_tally_add(&m->tally, f);
	if (f->suppressed || f->severity == CPL_SEV_OFF || f->rule == NULL)
		return;
	t = table_of(m, f->rule);
	b = &t->rows;
	t->n++;
	cpl_buf_addf(b, "| %s | ", cpl_severity_name(f->severity));
	if (f->file) {
		add_cell(b, f->file);
		if (f->line > 0)
			cpl_buf_addf(b, ":%d", f->line);
		if (f->line > 0 && f->column > 0)
			cpl_buf_addf(b, ":%d", f->column);
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
	if (!m->quiet) {
		cpl_buf_adds(b, " | ");
		add_cell(b, f->fix ? f->fix : "");
	}
	cpl_buf_adds(b, " |\n");
}

/* "2 errors" */
static void
add_count(struct cpl_buf *b, size_t n, const char *noun)
{
	cpl_buf_addf(b, "%zu %s%s", n, noun, n == 1 ? "" : "s");
}

/* The heading: totals, suppressed, in the baseline. */
static void
add_heading(struct cpl_buf *b, const struct markdown *m)
{
	const struct cpl_report_tally *c = &m->tally;
	size_t total = c->errors + c->warnings + c->notes;

	cpl_buf_adds(b, "### kubectl-cpulint: ");
	if (total == 0) {
		cpl_buf_adds(b, "no findings");
	} else {
		add_count(b, total, "finding");
		cpl_buf_adds(b, " (");
		add_count(b, c->errors, "error");
		cpl_buf_adds(b, ", ");
		add_count(b, c->warnings, "warning");
		cpl_buf_adds(b, ", ");
		add_count(b, c->notes, "note");
		cpl_buf_addc(b, ')');
	}
	if (c->suppressed)
		cpl_buf_addf(b, ", %zu suppressed", c->suppressed);
	if (m->meta && m->meta->baselined)
		cpl_buf_addf(b, ", %zu in the baseline", m->meta->baselined);
	cpl_buf_adds(b, "\n");
}

/* Writes a rule's table. */
static void
add_table(struct cpl_buf *b, const struct table *t, bool quiet)
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
	cpl_buf_add(b, t->rows.data, t->rows.len);
}

/* The input errors, one list item each. */
static void
add_errors(struct cpl_buf *b, const struct cpl_report_meta *meta)
{
	size_t i;

	if (meta == NULL || meta->nerrors == 0)
		return;
	cpl_buf_adds(b, "\n#### Input errors\n\n");
	for (i = 0; i < meta->nerrors; i++) {
		const struct cpl_error *e = &meta->errors[i];

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
		cpl_buf_addc(b, '\n');
	}
}

static int
markdown_end(void *state)
{
	struct markdown *m = state;
	struct cpl_buf b;
	size_t i;
	int rc;

	cpl_buf_init(&b, 0);
	add_heading(&b, m);
	for (i = 0; i < m->ntables; i++)
		if (m->tables[i].n > 0)
			add_table(&b, &m->tables[i], m->quiet);
	add_errors(&b, m->meta);
	if (b.overflow)
		m->failed = true;
	else
		cpl_wbuf_add(&m->w, b.data, b.len);
	cpl_buf_free(&b);
	rc = cpl_wbuf_finish(&m->w) < 0 || m->failed ? -1 : 0;
	for (i = 0; i < m->ntables; i++)
		cpl_buf_free(&m->tables[i].rows);
	free(m->tables);
	free(m);
	return rc;
}

const struct cpl_reporter cpl_report_markdown = {
	.name = "markdown",
	.begin = markdown_begin,
	.emit = markdown_emit,
	.end = markdown_end,
};
