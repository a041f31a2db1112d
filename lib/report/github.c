/*
 * github.c — GitHub Actions workflow commands, one per finding, so
 * findings show up as annotations on the pull request:
 *
 *   ::error file=PATH,line=L,col=C,title=ID name::MESSAGE%0Afix: FIX
 *
 * warning → ::warning, note → ::notice.  Paths are relative to
 * meta->srcroot (the repository root, or GITHUB_WORKSPACE: the command
 * chooses), where GitHub looks for them whatever the step's directory.
 * GitHub shows at most 10 annotations of each level per step (and 50
 * per job): past 10 of a level, findings are plain log lines instead,
 * written after the commands; a last plain line sums the run up
 * ("kubectl-cpulint: N findings (...); K not annotated ...").  Live
 * findings have no file, line
 * or col and name their object in the title; findings on standard input
 * (no file of the repository) have none either, and their message starts
 * with "<stdin>:LINE:COL: ".  Input errors from meta come
 * first as ::error commands.  Suppressed findings are not shown.
 *
 * Invariant: every value is escaped the way the runner unescapes it: data
 * (after "::") maps % CR LF to %25 %0D %0A; property values also map
 * : and , to %3A and %2C; every other control character, DEL, C1 code
 * point or stray byte is shown as an escape (escape.h), so each command
 * is one line and holds no terminal escape.  Commands go out through one
 * buffered writer (wbuf.h).  The state is freed by end; out is borrowed.
 */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/escape.h"
#include "report/fingerprint.h"
#include "report/render_int.h"
#include "report/wbuf.h"

/* Annotations of one level GitHub shows per step (its documented
 * limit: 10 errors, 10 warnings and 10 notices per step, 50 per job). */
#define PER_LEVEL 10

/* The levels, as counted: notice, warning, error. */
enum { LV_NOTICE, LV_WARNING, LV_ERROR, NLEVELS };

/* The reporter's state between begin and end. */
struct github {
	struct cpl_wbuf w;		/* the report's buffered writer */
	bool failed;			/* a write failed */
	struct cpl_buf cmd;		/* the command being built */
	struct cpl_buf plain;		/* past the limit: plain lines */
	const struct cpl_report_meta *meta;	/* borrowed */
	char *cwd;			/* NULL: unknown */
	size_t shown[NLEVELS];		/* annotations made, per level */
	size_t unshown;			/* findings past the limit */
	struct cpl_report_tally tally;
};

/* Appends s escaped as command data, or as a property value when prop
 * (escape.h: GitHub's escapes, every other control shown as \xHH). */
static void
add_escaped(struct cpl_buf *b, const char *s, bool prop)
{
	cpl_escape_str(b, s, CPL_ESC_GITHUB | (prop ? CPL_ESC_GITHUB_PROP : 0));
}

/* The level a severity is counted in. */
static int
level_of(enum cpl_severity s)
{
	return s == CPL_SEV_ERROR ? LV_ERROR : s == CPL_SEV_WARNING ?
	       LV_WARNING : LV_NOTICE;
}

/* The command for a severity. */
static const char *
command_name(enum cpl_severity s)
{
	switch (s) {
	case CPL_SEV_ERROR:
		return "error";
	case CPL_SEV_WARNING:
		return "warning";
	case CPL_SEV_NOTE:
	case CPL_SEV_OFF:
		break;
	}
	return "notice";
}

/*
 * Appends the file, line and col properties (when known) and returns the
 * separator the next property needs.
 */
static const char *
add_position(const struct github *g, struct cpl_buf *b, const char *file,
	     int line, int column)
{
	char *rel;

	if (file == NULL || strcmp(file, CPL_REPORT_STDIN) == 0)
		return " ";
	/* From the repository root (the workspace in an Action), where
	 * GitHub looks for the file, whatever the step's directory. */
	rel = g->meta && g->meta->srcroot ?
	      cpl_report_relpath(g->cwd, g->meta->srcroot, file) : NULL;
	cpl_buf_adds(b, " file=");
	add_escaped(b, rel ? rel : file, true);
	free(rel);
	if (line > 0) {
		cpl_buf_addf(b, ",line=%d", line);
		if (column > 0)
			cpl_buf_addf(b, ",col=%d", column);
	}
	return ",";
}

/* Hands the command built so far plus a newline to the writer. */
static void
flush_command(struct github *g)
{
	cpl_buf_addc(&g->cmd, '\n');
	if (g->cmd.overflow)
		g->failed = true;
	else
		cpl_wbuf_add(&g->w, g->cmd.data, g->cmd.len);
	cpl_buf_reset(&g->cmd);
}

/* Writes one ::error command per input error in meta. */
static void *
github_begin(FILE *out, const struct cpl_report_meta *meta)
{
	struct github *g = cpl_xcalloc(1, sizeof(*g));
	size_t i;

	cpl_wbuf_init(&g->w, out);
	cpl_buf_init(&g->cmd, 0);
	cpl_buf_init(&g->plain, 0);
	g->meta = meta;
	g->cwd = getcwd(NULL, 0);
	for (i = 0; meta && i < meta->nerrors; i++) {
		const struct cpl_error *e = &meta->errors[i];

		g->shown[LV_ERROR]++;
		cpl_buf_adds(&g->cmd, "::error");
		add_position(g, &g->cmd, e->path, e->line, e->column);
		cpl_buf_adds(&g->cmd, "::");
		if (e->path && strcmp(e->path, CPL_REPORT_STDIN) == 0) {
			char *pos = cpl_xasprintf("%s:%d: ", e->path, e->line);

			add_escaped(&g->cmd, pos, false);
			free(pos);
		}
		add_escaped(&g->cmd, e->message ? e->message : "unknown error",
			    false);
		flush_command(g);
	}
	return g;
}

/*
 * A finding past the annotation limit: a plain log line kept for end,
 * "path:line:col: severity: message [ID name]", escaped as the tool's
 * own lines (no line a runner obeys).
 */
static void
plain_line(struct github *g, const struct cpl_finding *f)
{
	struct cpl_buf b;

	g->unshown++;
	cpl_buf_init(&b, 0);
	if (f->file) {
		cpl_escape_str(&b, f->file, 0);
		if (f->line > 0)
			cpl_buf_addf(&b, ":%d", f->line);
		if (f->line > 0 && f->column > 0)
			cpl_buf_addf(&b, ":%d", f->column);
	} else {
		cpl_escape_str(&b, f->object ? f->object : "", 0);
		if (f->container) {
			cpl_buf_addc(&b, '[');
			cpl_escape_str(&b, f->container, 0);
			cpl_buf_addc(&b, ']');
		}
	}
	cpl_buf_addf(&b, ": %s: ", cpl_severity_name(f->severity));
	cpl_escape_str(&b, f->message ? f->message : "", 0);
	if (f->rule)
		cpl_buf_addf(&b, " [%s %s]", f->rule->id, f->rule->name);
	cpl_buf_addc(&b, '\n');
	cpl_escape(&g->plain, b.data, b.len, CPL_ESC_NL | CPL_ESC_RUNNER);
	cpl_buf_free(&b);
}

/* Writes the command for a finding unless it is suppressed. */
static void
github_emit(void *state, const struct cpl_finding *f)
{
	struct github *g = state;
	struct cpl_buf title;
	const char *sep;
	size_t i;

	cpl_report_tally_add(&g->tally, f);
	if (f->suppressed || f->severity == CPL_SEV_OFF)
		return;
	if (g->shown[level_of(f->severity)] >= PER_LEVEL) {
		plain_line(g, f);
		return;
	}
	g->shown[level_of(f->severity)]++;
	cpl_buf_init(&title, 0);
	if (f->rule)
		cpl_buf_addf(&title, "%s %s", f->rule->id, f->rule->name);
	if (f->file == NULL && f->object) {
		cpl_buf_adds(&title, title.len ? " (" : "(");
		cpl_buf_adds(&title, f->object);
		if (f->container)
			cpl_buf_addf(&title, "[%s]", f->container);
		cpl_buf_addc(&title, ')');
	}
	cpl_buf_addf(&g->cmd, "::%s", command_name(f->severity));
	sep = add_position(g, &g->cmd, f->file, f->line, f->column);
	if (title.len) {
		cpl_buf_adds(&g->cmd, sep);
		cpl_buf_adds(&g->cmd, "title=");
		add_escaped(&g->cmd, cpl_buf_str(&title), true);
	}
	cpl_buf_adds(&g->cmd, "::");
	if (f->file && strcmp(f->file, CPL_REPORT_STDIN) == 0) {
		char *pos = cpl_xasprintf("%s:%d:%d: ", f->file, f->line,
					  f->column);

		add_escaped(&g->cmd, pos, false);
		free(pos);
	}
	add_escaped(&g->cmd, f->message ? f->message : "", false);
	if (f->fix) {
		add_escaped(&g->cmd, "\nfix: ", false);
		add_escaped(&g->cmd, f->fix, false);
	}
	for (i = 0; i < f->nrelated; i++) {
		const struct cpl_related *r = &f->related[i];

		add_escaped(&g->cmd, "\nnote: ", false);
		if (r->file) {
			char *pos = r->line > 0 && r->column > 0 ?
				cpl_xasprintf("%s:%d:%d: ", r->file, r->line,
					      r->column) :
				r->line > 0 ?
				cpl_xasprintf("%s:%d: ", r->file, r->line) :
				cpl_xasprintf("%s: ", r->file);

			add_escaped(&g->cmd, pos, false);
			free(pos);
		}
		add_escaped(&g->cmd, r->message ? r->message : "", false);
	}
	flush_command(g);
	cpl_buf_free(&title);
}

/* "2 errors" */
static void
add_count(struct cpl_buf *b, size_t n, const char *noun)
{
	cpl_buf_addf(b, "%zu %s%s", n, noun, n == 1 ? "" : "s");
}

/* Writes the findings past the limit and the summary line (plain log
 * lines, no command), flushes and frees the state. */
static int
github_end(void *state)
{
	struct github *g = state;
	const struct cpl_report_tally *c = &g->tally;
	size_t total = c->errors + c->warnings + c->notes;
	int rc;

	if (g->plain.overflow)
		g->failed = true;
	else if (g->plain.len)
		cpl_wbuf_add(&g->w, g->plain.data, g->plain.len);
	cpl_buf_adds(&g->cmd, "kubectl-cpulint: ");
	if (total == 0) {
		cpl_buf_adds(&g->cmd, "no findings");
	} else {
		add_count(&g->cmd, total, "finding");
		cpl_buf_adds(&g->cmd, " (");
		add_count(&g->cmd, c->errors, "error");
		cpl_buf_adds(&g->cmd, ", ");
		add_count(&g->cmd, c->warnings, "warning");
		cpl_buf_adds(&g->cmd, ", ");
		add_count(&g->cmd, c->notes, "note");
		cpl_buf_addc(&g->cmd, ')');
	}
	if (c->suppressed)
		cpl_buf_addf(&g->cmd, ", %zu suppressed", c->suppressed);
	if (g->meta && g->meta->baselined)
		cpl_buf_addf(&g->cmd, ", %zu in the baseline",
			     g->meta->baselined);
	if (g->unshown)
		cpl_buf_addf(&g->cmd, "; %zu not annotated (GitHub shows %d "
			     "annotations of each level per step): listed "
			     "above", g->unshown, PER_LEVEL);
	flush_command(g);
	rc = cpl_wbuf_finish(&g->w) < 0 || g->failed ? -1 : 0;
	cpl_buf_free(&g->cmd);
	cpl_buf_free(&g->plain);
	free(g->cwd);
	free(g);
	return rc;
}

const struct cpl_reporter cpl_report_github = {
	.name = "github",
	.begin = github_begin,
	.emit = github_emit,
	.end = github_end,
};
