/*
 * junit.c — JUnit XML (Jenkins, GitLab, Azure Pipelines test reports):
 *
 *   <testsuites>
 *     <testsuite name="CPU202 thread-env-over-budget" package=
 *                "kubectl-cpulint" id="1" timestamp= hostname= tests=
 *                failures= errors= skipped= time="0">
 *       <properties/>
 *       <testcase name="job.yaml:23:14" classname="CPU202 ..." time="0">
 *         <failure type="error" message="MESSAGE">MESSAGE
 *   fix: FIX
 *   note: PATH:L:C: NOTE</failure>
 *       </testcase>
 *       <system-out>warning: job.yaml:9:3: MESSAGE …</system-out>
 *       <system-err/>
 *     </testsuite>
 *
 * One testsuite per rule of the registry, in its order (a rule outside
 * it gets a suite after them).  A finding that fails the gate (at or
 * above --fail-on: meta->gated and meta->fail_on) is a failing testcase
 * (its type the severity); one below it is a passing testcase, its
 * message, fix and notes listed in the suite's system-out, so a job that
 * passed shows no failed test; a suppressed one is a skipped testcase
 * (the reason as message); a rule without findings has one passing
 * testcase, so that the report shows what was checked.  Input errors are
 * testcases with an <error> in a first suite, "kubectl-cpulint".
 * Findings come sorted by file, so each suite's testcases are kept as
 * text until end.  Live findings name OBJECT[container] instead of a
 * place.
 *
 * Two schemas hold it, both checked by tests/e2e/ci.sh with xmllint: the
 * Jenkins xUnit plugin's junit-10.xsd and Apache Ant's strict JUnit.xsd
 * (testsuites without attributes; every testsuite with package, id,
 * timestamp, hostname and time, then properties, testcases, system-out
 * and system-err; every testcase with a time).  A file= attribute on
 * each testcase (GitLab links it) is in neither, so it is written only
 * with meta->junit_file (the command sets it under GitLab CI).
 *
 * Invariant: every value is XML-escaped by the one escaper (escape.h,
 * CPL_ESC_XML: no raw control character, & < > " ' as entities), so the
 * document is well-formed whatever the input holds.  The state owns the
 * suites' texts; out and meta are borrowed until end.
 */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report/escape.h"
#include "report/fingerprint.h"
#include "report/wbuf.h"

/* The testcases of one suite, and its counts. */
struct suite {
	struct cpl_buf cases;
	struct cpl_buf out;		/* system-out: what passed the gate */
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
	char stamp[24];			/* the run's time, ISO 8601 in UTC */
	char *cwd;			/* for file=; NULL: unknown */
	size_t id;			/* the next suite's id */
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
	for (i = 0; i <= u->nrules; i++) {
		cpl_buf_init(&u->suites[i].cases, 0);
		cpl_buf_init(&u->suites[i].out, 0);
	}
	{
		time_t now = time(NULL);
		struct tm tm;

		if (gmtime_r(&now, &tm) == NULL ||
		    strftime(u->stamp, sizeof(u->stamp), "%Y-%m-%dT%H:%M:%S",
			     &tm) == 0)
			snprintf(u->stamp, sizeof(u->stamp),
				 "1970-01-01T00:00:00");
	}
	if (meta && meta->junit_file)
		u->cwd = getcwd(NULL, 0);
	return u;
}

/* Whether f fails the gate (below it, a passing testcase). */
static bool
fails(const struct junit *u, const struct cpl_finding *f)
{
	if (u->meta == NULL || !u->meta->gated)
		return true;
	return u->meta->fail_on != CPL_SEV_OFF &&
	       f->severity >= u->meta->fail_on;
}

/* The message, fix and notes of f (as the text output has them). */
static void
add_details(const struct junit *u, struct cpl_buf *b,
	    const struct cpl_finding *f)
{
	size_t i;

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
}

/* file="PATH" from the repository root, under GitLab CI. */
static void
add_file(const struct junit *u, struct cpl_buf *b, const char *file)
{
	char *rel;

	if (!u->meta || !u->meta->junit_file || file == NULL ||
	    strcmp(file, CPL_REPORT_STDIN) == 0)
		return;
	rel = u->meta->srcroot ?
	      cpl_report_relpath(u->cwd, u->meta->srcroot, file) : NULL;
	cpl_buf_adds(b, "\" file=\"");
	add_xml(b, rel ? rel : file);
	free(rel);
}

/* A testcase per finding: failing, passing below the gate, or skipped
 * when suppressed. */
static void
junit_emit(void *state, const struct cpl_finding *f)
{
	struct junit *u = state;
	struct suite *s;
	struct cpl_buf *b;

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
	add_file(u, b, f->file);
	cpl_buf_adds(b, "\" time=\"0\"");
	if (f->suppressed) {
		s->skipped++;
		cpl_buf_adds(b, ">\n      <skipped message=\"suppressed: ");
		add_xml(b, f->suppression ? f->suppression : "");
		cpl_buf_adds(b, "\"/>\n    </testcase>\n");
		return;
	}
	if (!fails(u, f)) {
		cpl_buf_adds(b, "/>\n");
		cpl_buf_addf(&s->out, "%s: ", cpl_severity_name(f->severity));
		add_place(&s->out, f->file, f->line, f->column, f->object,
			  f->container);
		cpl_buf_adds(&s->out, ": ");
		add_details(u, &s->out, f);
		cpl_buf_addc(&s->out, '\n');
		return;
	}
	s->failures++;
	cpl_buf_adds(b, ">\n      <failure type=\"");
	add_xml(b, cpl_severity_name(f->severity));
	cpl_buf_adds(b, "\" message=\"");
	add_xml(b, f->message ? f->message : "");
	cpl_buf_adds(b, "\">");
	add_details(u, b, f);
	cpl_buf_adds(b, "</failure>\n    </testcase>\n");
}

/* A suite's opening tag up to its counts, and its empty properties. */
static void
add_suite_head(struct junit *u, struct cpl_buf *b, const char *id,
	       const char *name, size_t tests, size_t failures,
	       size_t errors, size_t skipped)
{
	cpl_buf_adds(b, "  <testsuite name=\"");
	add_xml(b, id);
	if (name) {
		cpl_buf_addc(b, ' ');
		add_xml(b, name);
	}
	cpl_buf_addf(b, "\" package=\"kubectl-cpulint\" id=\"%zu\" "
		     "timestamp=\"%s\" hostname=\"localhost\" tests=\"%zu\" "
		     "failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
		     "time=\"0\">\n    <properties/>\n", u->id++, u->stamp,
		     tests, failures, errors, skipped);
}

/* Writes one suite: its head, its testcases (or one passing), the
 * findings below the gate as its system-out. */
static void
write_suite(struct junit *u, const char *id, const char *name,
	    struct suite *s)
{
	struct cpl_buf head;

	cpl_buf_init(&head, 0);
	add_suite_head(u, &head, id, name, s->tests ? s->tests : 1,
		       s->failures, 0, s->skipped);
	if (s->tests == 0) {
		cpl_buf_adds(&head, "    <testcase name=\"no findings\" "
			     "classname=\"");
		add_xml(&head, id);
		if (name) {
			cpl_buf_addc(&head, ' ');
			add_xml(&head, name);
		}
		cpl_buf_adds(&head, "\" time=\"0\"/>\n");
	}
	if (head.overflow || s->cases.overflow || s->out.overflow)
		u->failed = true;
	cpl_wbuf_add(&u->w, head.data, head.len);
	if (s->cases.len)
		cpl_wbuf_add(&u->w, s->cases.data, s->cases.len);
	if (s->out.len) {
		cpl_wbuf_adds(&u->w, "    <system-out>");
		cpl_wbuf_add(&u->w, s->out.data, s->out.len);
		cpl_wbuf_adds(&u->w, "</system-out>\n");
	} else {
		cpl_wbuf_adds(&u->w, "    <system-out/>\n");
	}
	cpl_wbuf_adds(&u->w, "    <system-err/>\n  </testsuite>\n");
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
	add_suite_head(u, &b, "kubectl-cpulint", NULL, m->nerrors, 0,
		       m->nerrors, 0);
	for (i = 0; i < m->nerrors; i++) {
		const struct cpl_error *e = &m->errors[i];

		cpl_buf_adds(&b, "    <testcase name=\"");
		if (e->path)
			add_place(&b, e->path, e->line, e->column, NULL, NULL);
		else
			cpl_buf_adds(&b, "input");
		cpl_buf_adds(&b, "\" classname=\"kubectl-cpulint");
		add_file(u, &b, e->path);
		cpl_buf_adds(&b, "\" time=\"0\">\n"
			     "      <error type=\"input\" message=\"");
		add_xml(&b, e->message ? e->message : "unknown error");
		cpl_buf_adds(&b, "\"/>\n    </testcase>\n");
	}
	cpl_buf_adds(&b, "    <system-out/>\n    <system-err/>\n"
		     "  </testsuite>\n");
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
	size_t i;
	int rc;

	/* Totals are the suites' own: Ant's schema allows no attribute on
	 * testsuites. */
	cpl_wbuf_adds(&u->w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		      "<testsuites>\n");
	write_errors(u);
	for (i = 0; i < u->nrules; i++)
		write_suite(u, u->rules[i]->id, u->rules[i]->name,
			    &u->suites[i]);
	if (u->suites[u->nrules].tests)
		write_suite(u, "other rules", NULL, &u->suites[u->nrules]);
	cpl_wbuf_adds(&u->w, "</testsuites>\n");
	rc = cpl_wbuf_finish(&u->w) < 0 || u->failed ? -1 : 0;
	for (i = 0; i <= u->nrules; i++) {
		cpl_buf_free(&u->suites[i].cases);
		cpl_buf_free(&u->suites[i].out);
	}
	free(u->suites);
	free(u->extra);
	free(u->cwd);
	free(u);
	return rc;
}

const struct cpl_reporter cpl_report_junit = {
	.name = "junit",
	.begin = junit_begin,
	.emit = junit_emit,
	.end = junit_end,
};
