/*
 * text.c — the human format: one compiler-style line per finding,
 * then its fix and related notes, then a one-line summary.
 *
 *   path:line:col: severity: message [ID name]
 *       fix: sentence
 *       note: path:line:col: message
 *   N findings (E errors, W warnings, N notes), S suppressed
 *
 * Live findings put OBJECT[container] where the path goes.  Suppressed
 * findings are counted, not shown.  Invariant: every line that does not
 * start a finding is indented, so `grep ': error:'` sees one line per
 * finding: an embedded newline continues the field on a new line indented
 * four columns past the field's own line, and other control characters
 * are shown as \xHH so a file name cannot drive the terminal.  Colour
 * (ANSI SGR) only when meta->color.  The state owns its buffer; out is
 * borrowed.
 */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

#include "report/render.h"

#define SGR_BOLD	"\033[1m"
#define SGR_RED		"\033[31m"
#define SGR_YELLOW	"\033[33m"
#define SGR_CYAN	"\033[36m"
#define SGR_RESET	"\033[0m"

/* The reporter's state between begin and end. */
struct text {
	FILE *out;
	bool color;
	bool failed;			/* a write failed */
	struct cpl_report_tally tally;
	struct cpl_buf line;		/* the finding being rendered */
};

/* Appends s, continuing embedded lines at indent and escaping controls. */
static void
add_field(struct cpl_buf *b, const char *s, int indent)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\n')
			cpl_buf_addf(b, "\n%*s", indent + 4, "");
		else if ((c < 0x20 && c != '\t') || c == 0x7f)
			cpl_buf_addf(b, "\\x%02x", c);
		else
			cpl_buf_addc(b, (char)c);
	}
}

/* Appends text wrapped in sgr when colour is on. */
static void
add_styled(struct text *t, const char *sgr, const char *text, int indent)
{
	if (t->color)
		cpl_buf_adds(&t->line, sgr);
	add_field(&t->line, text, indent);
	if (t->color)
		cpl_buf_adds(&t->line, SGR_RESET);
}

/* Appends "path:line:col:" leaving out the parts that are unknown. */
static void
add_position(struct cpl_buf *b, const char *file, int line, int column,
	     int indent)
{
	add_field(b, file, indent);
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
		add_position(&loc, f->file, f->line, f->column, 0);
	} else {
		add_field(&loc, f->object, 0);
		if (f->container) {
			cpl_buf_addc(&loc, '[');
			add_field(&loc, f->container, 0);
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

/* Writes the rendered finding; remembers a failed write. */
static void
flush_line(struct text *t)
{
	if (t->line.overflow ||
	    fwrite(cpl_buf_str(&t->line), 1, t->line.len, t->out) !=
	    t->line.len)
		t->failed = true;
	cpl_buf_reset(&t->line);
}

/* Starts a report: nothing is written until the first finding. */
static void *
text_begin(FILE *out, const struct cpl_report_meta *meta)
{
	struct text *t = cpl_xcalloc(1, sizeof(*t));

	t->out = out;
	t->color = meta && meta->color;
	cpl_buf_init(&t->line, 0);
	return t;
}

/* Counts a finding and, unless suppressed, writes its lines. */
static void
text_emit(void *state, const struct cpl_finding *f)
{
	struct text *t = state;
	char *sev;
	size_t i;

	cpl_report_tally_add(&t->tally, f);
	if (f->suppressed || f->severity == CPL_SEV_OFF)
		return;
	add_location(t, f);
	sev = cpl_xasprintf("%s:", cpl_severity_name(f->severity));
	add_styled(t, severity_sgr(f->severity), sev, 0);
	free(sev);
	cpl_buf_addc(&t->line, ' ');
	add_field(&t->line, f->message ? f->message : "", 0);
	if (f->rule)
		cpl_buf_addf(&t->line, " [%s %s]", f->rule->id,
			     f->rule->name);
	cpl_buf_addc(&t->line, '\n');
	if (f->fix) {
		cpl_buf_adds(&t->line, "    fix: ");
		add_field(&t->line, f->fix, 4);
		cpl_buf_addc(&t->line, '\n');
	}
	for (i = 0; i < f->nrelated; i++) {
		const struct cpl_related *r = &f->related[i];

		cpl_buf_adds(&t->line, "    ");
		add_styled(t, SGR_CYAN, "note:", 4);
		cpl_buf_addc(&t->line, ' ');
		if (r->file) {
			add_position(&t->line, r->file, r->line, r->column, 4);
			cpl_buf_addc(&t->line, ' ');
		}
		add_field(&t->line, r->message ? r->message : "", 4);
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

/* Writes the summary line and frees the state. */
static int
text_end(void *state)
{
	struct text *t = state;
	const struct cpl_report_tally *c = &t->tally;
	size_t total = c->errors + c->warnings + c->notes;
	int rc;

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
	cpl_buf_addc(&t->line, '\n');
	flush_line(t);
	rc = t->failed || fflush(t->out) != 0 || ferror(t->out) ? -1 : 0;
	cpl_buf_free(&t->line);
	free(t);
	return rc;
}

const struct cpl_reporter cpl_report_text = {
	.name = "text",
	.begin = text_begin,
	.emit = text_emit,
	.end = text_end,
};
