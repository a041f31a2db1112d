/*
 * junit.c — JUnit XML (Jenkins, GitLab, Azure Pipelines test reports):
 *
 *   <testsuites name="kubectl-cpulint" tests= failures= errors= skipped=>
 *     <testsuite name="CPU202 thread-env-over-budget" tests= ...>
 *       <testcase name="job.yaml:23:14" classname="CPU202 ...">
 *         <failure type="error" message="MESSAGE">MESSAGE
 *   fix: FIX
 *   note: PATH:L:C: NOTE</failure>
 *       </testcase>
 *
 * One testsuite per rule of the registry, in its order (a rule outside
 * it gets a suite after them): a finding is a failing testcase (its
 * type the severity), a suppressed one a skipped testcase (the reason as
 * message), and a rule without findings one passing testcase, so that
 * the report shows what was checked.  Input errors are testcases with an
 * <error> in a first suite, "kubectl-cpulint".  Findings come sorted by
 * file, so each suite's testcases are kept as text until end.  Live
 * findings name OBJECT[container] instead of a place.  No file or line
 * attribute: the xUnit plugin's current junit-10 schema has none (its
 * 2018 version had), so the place is the testcase's name.
 *
 * Invariant: every value is XML-escaped by the one escaper (escape.h,
 * CPL_ESC_XML: no raw control character, & < > " ' as entities), so the
 * document is well-formed whatever the input holds; tests/e2e/ci.sh
 * checks it against the Jenkins xUnit plugin's JUnit schema.  The state
 * owns the suites' texts; out and meta are borrowed until end.
 */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

#include "report/escape.h"
#include "report/render.h"
#include "report/wbuf.h"

/* The testcases of one suite, and its counts. */
struct suite {
	struct cpl_buf cases;
	size_t tests;
	size_t failures;
	size_t skipped;
};

/* The reporter's state between begin and end. */
struct junit {
	struct cpl_wbuf w;
	const struct cpl_report_meta *meta;	/* borrowed */
	const struct cpl_rule *const *rules;	/* the registry */
	size_t nrules;
	struct suite *suites;		/* nrules + 1: the last for rules
					 * outside the registry */
	const struct cpl_rule **extra;	/* their rules (borrowed) */
	size_t nextra;
	bool failed;
};

/* Appends s XML-escaped (NULL: nothing). */
static void
add_xml(struct cpl_buf *b, const char *s)
{
	cpl_escape_str(b, s, CPL_ESC_XML);
}

/* "path:line:col" (the parts known), or OBJECT[container]. */
static void
add_place(struct cpl_buf *b, const char *file, int line, int column,
	  const char *object, const char *container)
{
	if (file) {
		add_xml(b, file);
		if (line > 0)
			cpl_buf_addf(b, ":%d", line);
		if (line > 0 && column > 0)
			cpl_buf_addf(b, ":%d", column);
	} else {
		/* Escaped whole, so that no "##[" forms at the '['. */
		char *name = container ? cpl_xasprintf("%s[%s]", object ?
						      object : "", container) :
			     cpl_xstrdup(object ? object : "(unknown)");

		add_xml(b, name);
		free(name);
	}
}

/* The suite of rule r (registry order; others share the last slot). */
static struct suite *
suite_of(struct junit *u, const struct cpl_rule *r)
{
	size_t i;

	for (i = 0; r && i < u->nrules; i++)
		if (u->rules[i] == r || strcmp(u->rules[i]->id, r->id) == 0)
			return &u->suites[i];
	for (i = 0; i < u->nextra && r; i++)
		if (u->extra[i] == r)
			return &u->suites[u->nrules];
	if (r) {
		u->extra = cpl_xrealloc(u->extra, (u->nextra + 1) *
					sizeof(*u->extra));
		u->extra[u->nextra++] = r;
	}
	return &u->suites[u->nrules];
}

static void *
junit_begin(FILE *out, const struct cpl_report_meta *meta)
{
	struct junit *u = cpl_xcalloc(1, sizeof(*u));
	size_t i;

	cpl_wbuf_init(&u->w, out);
	u->meta = meta;
	u->rules = cpl_rules_all(&u->nrules);
	u->suites = cpl_xcalloc(u->nrules + 1, sizeof(*u->suites));
	for (i = 0; i <= u->nrules; i++)
		cpl_buf_init(&u->suites[i].cases, 0);
	return u;
}

/* A testcase per finding: failing, or skipped when suppressed. */
static void
junit_emit(void *state, const struct cpl_finding *f)
{
	struct junit *u = state;
	struct suite *s;
	struct cpl_buf *b;
	size_t i;

	if (f->severity == CPL_SEV_OFF)
		return;
	s = suite_of(u, f->rule);
	b = &s->cases;
	s->tests++;
	cpl_buf_adds(b, "    <testcase name=\"");
	add_place(b, f->file, f->line, f->column, f->object, f->container);
	cpl_buf_adds(b, "\" classname=\"");
	if (f->rule) {
		add_xml(b, f->rule->id);
		cpl_buf_addc(b, ' ');
		add_xml(b, f->rule->name);
	}
	cpl_buf_adds(b, "\">\n");
	if (f->suppressed) {
		s->skipped++;
		cpl_buf_adds(b, "      <skipped message=\"suppressed: ");
		add_xml(b, f->suppression ? f->suppression : "");
		cpl_buf_adds(b, "\"/>\n    </testcase>\n");
		return;
	}
	s->failures++;
	cpl_buf_adds(b, "      <failure type=\"");
	add_xml(b, cpl_severity_name(f->severity));
	cpl_buf_adds(b, "\" message=\"");
	add_xml(b, f->message ? f->message : "");
	cpl_buf_adds(b, "\">");
	add_xml(b, f->message ? f->message : "");
	if (f->fix && !(u->meta && u->meta->quiet)) {
		cpl_buf_adds(b, "\nfix: ");
		add_xml(b, f->fix);
	}
	for (i = 0; i < f->nrelated && !(u->meta && u->meta->quiet); i++) {
		const struct cpl_related *r = &f->related[i];

		cpl_buf_adds(b, "\nnote: ");
		if (r->file) {
			add_place(b, r->file, r->line, r->column, NULL, NULL);
			cpl_buf_adds(b, ": ");
		}
		add_xml(b, r->message ? r->message : "");
	}
	cpl_buf_adds(b, "</failure>\n    </testcase>\n");
}

/* Writes one suite: its head, its testcases (or one passing). */
static void
write_suite(struct junit *u, const char *id, const char *name,
	    struct suite *s)
{
	struct cpl_buf head;

	cpl_buf_init(&head, 0);
	cpl_buf_adds(&head, "  <testsuite name=\"");
	add_xml(&head, id);
	if (name) {
		cpl_buf_addc(&head, ' ');
		add_xml(&head, name);
	}
	cpl_buf_addf(&head, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
		     "skipped=\"%zu\">\n", s->tests ? s->tests : 1, s->failures,
		     s->skipped);
	if (s->tests == 0) {
		cpl_buf_adds(&head, "    <testcase name=\"no findings\" "
			     "classname=\"");
		add_xml(&head, id);
		if (name) {
			cpl_buf_addc(&head, ' ');
			add_xml(&head, name);
		}
		cpl_buf_adds(&head, "\"/>\n");
	}
	if (head.overflow || s->cases.overflow)
		u->failed = true;
	cpl_wbuf_add(&u->w, head.data, head.len);
	if (s->cases.len)
		cpl_wbuf_add(&u->w, s->cases.data, s->cases.len);
	cpl_wbuf_adds(&u->w, "  </testsuite>\n");
	cpl_buf_free(&head);
}

/* Writes the input errors' suite (when there are any). */
static void
write_errors(struct junit *u)
{
	const struct cpl_report_meta *m = u->meta;
	struct cpl_buf b;
	size_t i;

	if (m == NULL || m->nerrors == 0)
		return;
	cpl_buf_init(&b, 0);
	cpl_buf_addf(&b, "  <testsuite name=\"kubectl-cpulint\" tests=\"%zu\" "
		     "failures=\"0\" errors=\"%zu\" skipped=\"0\">\n",
		     m->nerrors, m->nerrors);
	for (i = 0; i < m->nerrors; i++) {
		const struct cpl_error *e = &m->errors[i];

		cpl_buf_adds(&b, "    <testcase name=\"");
		if (e->path)
			add_place(&b, e->path, e->line, e->column, NULL, NULL);
		else
			cpl_buf_adds(&b, "input");
		cpl_buf_adds(&b, "\" classname=\"kubectl-cpulint\">\n"
			     "      <error type=\"input\" message=\"");
		add_xml(&b, e->message ? e->message : "unknown error");
		cpl_buf_adds(&b, "\"/>\n    </testcase>\n");
	}
	cpl_buf_adds(&b, "  </testsuite>\n");
	if (b.overflow)
		u->failed = true;
	else
		cpl_wbuf_add(&u->w, b.data, b.len);
	cpl_buf_free(&b);
}

static int
junit_end(void *state)
{
	struct junit *u = state;
	size_t i, tests = 0, failures = 0;
	size_t nerrors = u->meta ? u->meta->nerrors : 0;
	int rc;

	for (i = 0; i <= u->nrules; i++) {
		tests += u->suites[i].tests ? u->suites[i].tests :
			 i < u->nrules;
		failures += u->suites[i].failures;
	}
	cpl_wbuf_adds(&u->w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	cpl_wbuf_addf(&u->w, "<testsuites name=\"kubectl-cpulint\" tests="
		      "\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
		      tests + nerrors, failures, nerrors);
	write_errors(u);
	for (i = 0; i < u->nrules; i++)
		write_suite(u, u->rules[i]->id, u->rules[i]->name,
			    &u->suites[i]);
	if (u->suites[u->nrules].tests)
		write_suite(u, "other rules", NULL, &u->suites[u->nrules]);
	cpl_wbuf_adds(&u->w, "</testsuites>\n");
	rc = cpl_wbuf_finish(&u->w) < 0 || u->failed ? -1 : 0;
	for (i = 0; i <= u->nrules; i++)
		cpl_buf_free(&u->suites[i].cases);
	free(u->suites);
	free(u->extra);
	free(u);
	return rc;
}

const struct cpl_reporter cpl_report_junit = {
	.name = "junit",
	.begin = junit_begin,
	.emit = junit_emit,
	.end = junit_end,
};
