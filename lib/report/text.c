/*
 * text.c — the human format: one compiler-style line per finding,
 * then its fix and related notes, then a one-line summary.
 *
 *   path:line:col: severity: message [ID name]
 *       fix: sentence
 *       note: path:line:col: message
 *   N findings (E errors, W warnings, N notes), S suppressed
 *
 * From BYRULE_FROM findings on, a "by rule:" table (count, id, name; the
 * most frequent first) comes before the summary; findings left out by
 * --baseline are counted in it ("B in the baseline").  With meta->quiet
 * (-q) only the finding lines are written: no fix, note, measured or
 * budget line, no summary.
 *
 * Live findings put OBJECT[container] where the path goes; a measured
 * live container gets "    measured (cadvisor, 30 s): 97 threads, 3.9
 * CPUs used, throttled 42% of periods" under its findings (its own
 * OBJECT[container]: line when it has none).  With meta->budget_table
 * (--budget) one row per training container follows the findings:
 * "FILE:LINE  CONTAINER  limit 4 (request 2)  4 ranks x (1 thread + 2
 * workers) = 12 busy  over by 8  suggest 1 + 0".  Suppressed
 * findings are counted, not shown.  Invariant: every line that does not
 * start a finding is indented, so `grep ': error:'` sees one line per
 * finding: every value (path, object, container, message, fix) is
 * escaped (escape.h: a newline is shown as \n, ESC as \x1b, a C1 code
 * point as \u009b), and the rendered lines are escaped once more as the
 * tool's own lines, so none starts with ':' or holds "##[" (commands to
 * a CI runner).  Colour (ANSI SGR) only when meta->color.  Output goes
 * through one buffered writer (wbuf.h): a finding is rendered into a
 * line buffer, then handed to the writer, which writes 64 KiB at a time.
 * The state owns the buffers; out is borrowed.
 */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

#include "report/escape.h"
#include "report/render_int.h"
#include "report/wbuf.h"

#define SGR_BOLD	"\033[1m"
#define SGR_RED		"\033[31m"
#define SGR_YELLOW	"\033[33m"
#define SGR_CYAN	"\033[36m"
#define SGR_RESET	"\033[0m"

/* From this many findings on, the summary counts them per rule too. */
#define BYRULE_FROM	10

/* Findings of one rule, for the summary's table. */
struct rulecount {
	const struct cpl_rule *rule;	/* borrowed from the registry */
	size_t n;
};

/* The reporter's state between begin and end. */
struct text {
	struct cpl_wbuf w;		/* the report's buffered writer */
	bool color;
	bool failed;			/* a write failed */
	struct cpl_report_tally tally;
	struct cpl_buf line;		/* the finding being rendered */
	struct cpl_buf shown;		/* line, escaped as output lines */
	const struct cpl_report_meta *meta;	/* borrowed */
	bool *said;			/* per budget: measured line shown */
	bool quiet;			/* -q: finding lines only */
	struct rulecount *byrule;	/* findings shown per rule */
	size_t nbyrule;
	size_t byrule_cap;
	size_t pending;			/* budget whose findings are being
					 * written (nbudgets: none) */
};

/* Appends the value s escaped (escape.h): it never breaks its line. */
static void
add_field(struct cpl_buf *b, const char *s)
{
	cpl_escape_str(b, s, 0);
}

/* Appends text wrapped in sgr when colour is on. */
static void
add_styled(struct text *t, const char *sgr, const char *text)
{
	if (t->color)
		cpl_buf_adds(&t->line, sgr);
	add_field(&t->line, text);
	if (t->color)
		cpl_buf_adds(&t->line, SGR_RESET);
}

/* Appends "path:line:col:" leaving out the parts that are unknown. */
static void
add_position(struct cpl_buf *b, const char *file, int line, int column)
{
	add_field(b, file);
	if (line > 0) {
		cpl_buf_addf(b, ":%d", line);
		if (column > 0)
			cpl_buf_addf(b, ":%d", column);
	}
	cpl_buf_addc(b, ':');
}

/* Appends the finding's location: its position or its live object. */
static void
add_location(struct text *t, const struct cpl_finding *f)
{
	struct cpl_buf loc;

	if (f->file == NULL && f->object == NULL)
		return;
	cpl_buf_init(&loc, 0);
	if (f->file) {
		add_position(&loc, f->file, f->line, f->column);
	} else {
		add_field(&loc, f->object);
		if (f->container) {
			cpl_buf_addc(&loc, '[');
			add_field(&loc, f->container);
			cpl_buf_addc(&loc, ']');
		}
		cpl_buf_addc(&loc, ':');
	}
	if (t->color)
		cpl_buf_adds(&t->line, SGR_BOLD);
	cpl_buf_add(&t->line, cpl_buf_str(&loc), loc.len);
	if (t->color)
		cpl_buf_adds(&t->line, SGR_RESET);
	cpl_buf_addc(&t->line, ' ');
	cpl_buf_free(&loc);
}

/* The colour of a severity word. */
static const char *
severity_sgr(enum cpl_severity s)
{
	switch (s) {
	case CPL_SEV_ERROR:
		return SGR_RED;
	case CPL_SEV_WARNING:
		return SGR_YELLOW;
	case CPL_SEV_NOTE:
	case CPL_SEV_OFF:
		break;
	}
	return SGR_CYAN;
}

/* Hands the rendered lines to the writer; remembers an overflow. */
static void
flush_line(struct text *t)
{
	if (t->line.overflow) {
		t->failed = true;
	} else {
		cpl_escape(&t->shown, t->line.data, t->line.len, CPL_ESC_NL |
			   CPL_ESC_RUNNER | (t->color ? CPL_ESC_SGR : 0));
		if (t->shown.overflow)
			t->failed = true;
		else
			cpl_wbuf_add(&t->w, t->shown.data, t->shown.len);
	}
	cpl_buf_reset(&t->line);
	cpl_buf_reset(&t->shown);
}

/* "97 threads, 3.9 CPUs used, throttled 42% of periods" of b. */
static void
add_measured(struct cpl_buf *out, const struct cpl_budget_entry *b)
{
	const char *sep = "";

	cpl_buf_adds(out, "measured (");
	add_field(out, b->source ? b->source : "?");
	cpl_buf_adds(out, ", ");
	if (b->window_clamped) {
		char run[32];

		cpl_format_duration(run, sizeof(run), b->window_s);
		cpl_buf_addf(out, "over the %s it has run): ", run);
	} else if (b->since_start || b->window_s <= 0) {
		cpl_buf_adds(out, "since start): ");
	} else {
		cpl_buf_addf(out, "%.0f s): ", b->window_s);
	}
	if (b->m_threads >= 0) {
		cpl_buf_addf(out, "%.0f thread%s", b->m_threads,
			     b->m_threads == 1 ? "" : "s");
		sep = ", ";
	}
	if (b->cpu_used >= 0) {
		cpl_buf_addf(out, "%s%.1f CPUs used", sep, b->cpu_used);
		sep = ", ";
	}
	if (b->throttled_pct >= 0)
		cpl_buf_addf(out, "%sthrottled %.0f%% of periods", sep,
			     b->throttled_pct);
	else if (*sep == '\0')
		cpl_buf_adds(out, "nothing");
	if (b->measured_pod) {
		cpl_buf_adds(out, " (");
		add_field(out, b->measured_pod);
		cpl_buf_addf(out, ", the most throttled of %lu Pods)", b->pods);
	}
}

/* The measured budget entry of a live finding's container, or nbudgets. */
static size_t
measured_of(const struct text *t, const char *object, const char *container)
{
	size_t i, n = t->meta ? t->meta->nbudgets : 0;

	for (i = 0; object && container && i < n; i++) {
		const struct cpl_budget_entry *b = &t->meta->budgets[i];

		if (b->measured && b->file == NULL && b->object &&
		    b->container && strcmp(b->object, object) == 0 &&
		    strcmp(b->container, container) == 0)
			return i;
	}
	return n;
}

/* Writes the measured line under the findings of the pending container. */
static void
flush_pending(struct text *t)
{
	size_t n = t->meta ? t->meta->nbudgets : 0;

	if (t->pending >= n)
		return;
	cpl_buf_adds(&t->line, "    ");
	add_measured(&t->line, &t->meta->budgets[t->pending]);
	cpl_buf_addc(&t->line, '\n');
	t->said[t->pending] = true;
	t->pending = n;
	flush_line(t);
}

/* "limit 4 (request 2)  4 ranks x (1 thread + 2 workers) = 12 busy  over
 * by 8  suggest 1 + 0" after the place of b. */
static void
add_budget_row(struct cpl_buf *out, const struct cpl_budget_entry *b)
{
	double c = b->cpu_limit >= 0 ? b->cpu_limit : b->cpu_request;

	if (b->file) {
		add_field(out, b->file);
		cpl_buf_addf(out, ":%d  ", b->line);
	} else {
		add_field(out, b->object ? b->object : "?");
		if (b->pods > 1)
			cpl_buf_addf(out, " (%lu Pods)", b->pods);
		cpl_buf_adds(out, "  ");
	}
	add_field(out, b->container ? b->container : "(unnamed)");
	if (b->cpu_limit >= 0 && b->cpu_request >= 0)
		cpl_buf_addf(out, "  limit %g (request %g)", b->cpu_limit,
			     b->cpu_request);
	else if (b->cpu_limit >= 0)
		cpl_buf_addf(out, "  limit %g", b->cpu_limit);
	else if (b->cpu_request >= 0)
		cpl_buf_addf(out, "  request %g (no limit)", b->cpu_request);
	else
		cpl_buf_adds(out, "  no CPU limit or request");
	if (b->ranks >= 0)
		cpl_buf_addf(out, "  %ld rank%s", b->ranks,
			     b->ranks == 1 ? "" : "s");
	else
		cpl_buf_adds(out, "  ? ranks");
	if (b->threads >= 0)
		cpl_buf_addf(out, " x (%ld thread%s", b->threads,
			     b->threads == 1 ? "" : "s");
	else
		cpl_buf_adds(out, " x (? threads");
	if (b->workers >= 0)
		cpl_buf_addf(out, " + %ld worker%s)", b->workers,
			     b->workers == 1 ? "" : "s");
	else
		cpl_buf_adds(out, " + ? workers)");
	if (b->busy >= 0) {
		cpl_buf_addf(out, " = %ld busy", b->busy);
		if (c >= 0 && (double)b->busy > c)
			cpl_buf_addf(out, "  over by %g", (double)b->busy - c);
		else if (c >= 0)
			cpl_buf_adds(out, "  within");
	}
	if (b->suggested_threads >= 0)
		cpl_buf_addf(out, "  suggest %ld + %ld", b->suggested_threads,
			     b->suggested_workers);
	cpl_buf_addc(out, '\n');
}

/* Counts a shown finding of rule r. */
static void
count_rule(struct text *t, const struct cpl_rule *r)
{
	size_t i;

	for (i = 0; i < t->nbyrule; i++)
		if (t->byrule[i].rule == r) {
			t->byrule[i].n++;
			return;
		}
	CPL_GROW(t->byrule, t->byrule_cap, t->nbyrule + 1);
	t->byrule[t->nbyrule].rule = r;
	t->byrule[t->nbyrule++].n = 1;
}

/* Most findings first, then by rule id. */
static int
rulecount_cmp(const void *a, const void *b)
{
	const struct rulecount *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->rule->id, y->rule->id);
}

/* "by rule:" and one indented line per rule: count, id, name. */
static void
add_byrule(struct text *t)
{
	size_t i;

	qsort(t->byrule, t->nbyrule, sizeof(*t->byrule), rulecount_cmp);
	cpl_buf_adds(&t->line, "by rule:\n");
	for (i = 0; i < t->nbyrule; i++) {
		cpl_buf_addf(&t->line, "  %6zu  ", t->byrule[i].n);
		add_field(&t->line, t->byrule[i].rule->id);
		cpl_buf_addc(&t->line, ' ');
		add_field(&t->line, t->byrule[i].rule->name);
		cpl_buf_addc(&t->line, '\n');
	}
	flush_line(t);
}

/* Starts a report: nothing is written until the first finding. */
static void *
text_begin(FILE *out, const struct cpl_report_meta *meta)
{
	struct text *t = cpl_xcalloc(1, sizeof(*t));

	cpl_wbuf_init(&t->w, out);
	t->color = meta && meta->color;
	t->quiet = meta && meta->quiet;
	t->meta = meta;
	if (meta && meta->nbudgets > 0)
		t->said = cpl_xcalloc(meta->nbudgets, sizeof(*t->said));
	t->pending = meta ? meta->nbudgets : 0;
	cpl_buf_init(&t->line, 0);
	cpl_buf_init(&t->shown, 0);
	return t;
}

/* Counts a finding and, unless suppressed, writes its lines. */
static void
text_emit(void *state, const struct cpl_finding *f)
{
	struct text *t = state;
	char *sev;
	size_t i, at;

	cpl_report_tally_add(&t->tally, f);
	if (f->suppressed || f->severity == CPL_SEV_OFF)
		return;
	at = f->file ? measured_of(t, NULL, NULL) :
	     measured_of(t, f->object, f->container);
	if (at != t->pending)
		flush_pending(t);
	t->pending = at;
	add_location(t, f);
	sev = cpl_xasprintf("%s:", cpl_severity_name(f->severity));
	add_styled(t, severity_sgr(f->severity), sev);
	free(sev);
	cpl_buf_addc(&t->line, ' ');
	add_field(&t->line, f->message ? f->message : "");
	if (f->rule)
		cpl_buf_addf(&t->line, " [%s %s]", f->rule->id,
			     f->rule->name);
	cpl_buf_addc(&t->line, '\n');
	if (f->rule && !t->quiet)
		count_rule(t, f->rule);
	if (t->quiet) {
		flush_line(t);
		return;
	}
	if (f->fix) {
		cpl_buf_adds(&t->line, "    fix: ");
		add_field(&t->line, f->fix);
		cpl_buf_addc(&t->line, '\n');
	}
	for (i = 0; i < f->nrelated; i++) {
		const struct cpl_related *r = &f->related[i];

		cpl_buf_adds(&t->line, "    ");
		add_styled(t, SGR_CYAN, "note:");
		cpl_buf_addc(&t->line, ' ');
		if (r->file) {
			add_position(&t->line, r->file, r->line, r->column);
			cpl_buf_addc(&t->line, ' ');
		}
		add_field(&t->line, r->message ? r->message : "");
		cpl_buf_addc(&t->line, '\n');
	}
	flush_line(t);
}

/* "1 error" or "2 errors". */
static void
add_count(struct cpl_buf *b, size_t n, const char *noun)
{
	cpl_buf_addf(b, "%zu %s%s", n, noun, n == 1 ? "" : "s");
}

/* Orders kind names (NULL last). */
static int
kind_cmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a;
	const char *y = *(const char *const *)b;

	if (x == NULL || y == NULL)
		return (x == NULL) - (y == NULL);
	return strcmp(x, y);
}

/* ", N documents with containers not judged (kinds: X, Y); -v lists
 * them": what was not read is not clean. */
static void
add_not_judged(struct cpl_buf *b, const struct cpl_report_meta *meta)
{
	size_t n = meta->nskipped, i, shown = 0;
	const char **kinds = cpl_xcalloc(n, sizeof(*kinds));

	for (i = 0; i < n; i++)
		kinds[i] = meta->skipped[i].kind;
	qsort(kinds, n, sizeof(*kinds), kind_cmp);
	cpl_buf_adds(b, ", ");
	add_count(b, n, "document");
	cpl_buf_adds(b, " with containers not judged (kinds: ");
	for (i = 0; i < n; i++) {
		if (kinds[i] == NULL ||
		    (i > 0 && cpl_str_eq(kinds[i], kinds[i - 1])))
			continue;
		if (shown++ > 0)
			cpl_buf_adds(b, ", ");
		add_field(b, kinds[i]);
	}
	if (shown == 0)
		cpl_buf_adds(b, "unknown");
	cpl_buf_adds(b, "); -v lists them");
	free(kinds);
}

/* Writes the summary line and frees the state. */
static int
text_end(void *state)
{
	struct text *t = state;
	const struct cpl_report_tally *c = &t->tally;
	size_t total = c->errors + c->warnings + c->notes;
	size_t i, n = t->meta ? t->meta->nbudgets : 0;
	int rc;

	if (t->quiet)
		goto done;
	flush_pending(t);
	/* Measured containers without findings: their own line. */
	for (i = 0; i < n; i++) {
		const struct cpl_budget_entry *b = &t->meta->budgets[i];

		if (!b->measured || t->said[i])
			continue;
		add_field(&t->line, b->object ? b->object : "?");
		cpl_buf_addc(&t->line, '[');
		add_field(&t->line, b->container ? b->container : "");
		cpl_buf_adds(&t->line, "]: ");
		add_measured(&t->line, b);
		cpl_buf_addc(&t->line, '\n');
		flush_line(t);
	}
	if (t->meta && t->meta->budget_table)
		for (i = 0; i < n; i++) {
			add_budget_row(&t->line, &t->meta->budgets[i]);
			flush_line(t);
		}
	if (total >= BYRULE_FROM)
		add_byrule(t);
	if (total == 0) {
		cpl_buf_adds(&t->line, "no findings");
	} else {
		add_count(&t->line, total, "finding");
		cpl_buf_adds(&t->line, " (");
		add_count(&t->line, c->errors, "error");
		cpl_buf_adds(&t->line, ", ");
		add_count(&t->line, c->warnings, "warning");
		cpl_buf_adds(&t->line, ", ");
		add_count(&t->line, c->notes, "note");
		cpl_buf_addc(&t->line, ')');
	}
	if (c->suppressed)
		cpl_buf_addf(&t->line, ", %zu suppressed", c->suppressed);
	if (t->meta && t->meta->baselined)
		cpl_buf_addf(&t->line, ", %zu in the baseline",
			     t->meta->baselined);
	if (t->meta && t->meta->nskipped > 0)
		add_not_judged(&t->line, t->meta);
	cpl_buf_addc(&t->line, '\n');
	flush_line(t);
done:
	rc = cpl_wbuf_finish(&t->w) < 0 || t->failed ? -1 : 0;
	free(t->byrule);
	cpl_buf_free(&t->line);
	cpl_buf_free(&t->shown);
	free(t->said);
	free(t);
	return rc;
}

const struct cpl_reporter cpl_report_text = {
	.name = "text",
	.begin = text_begin,
	.emit = text_emit,
	.end = text_end,
};
