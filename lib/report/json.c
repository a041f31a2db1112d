/*
 * json.c — the machine format: one JSON document for the whole run.
 *
 *   {"version":1,"findings":[...],"budgets":[...],"summary":{...},
 *    "errors":[...]}
 *
 * Each finding carries rule, name, severity, file, line, column, object,
 * container, message, fix, related and edits, in that order, then
 * "applicability" ("safe" or "unsafe", when there are edits) and "pods"
 * (a live finding shared by that many Pods of one owner, when more than
 * one); absent
 * strings are null, unknown lines and columns 0.  Suppressed findings are
 * left out of "findings" and counted in summary.suppressed.
 * "budgets" holds one entry per training container (render.h).  Invariant:
 * the document is built only through jansson and written once, at end.
 * The state owns the document; out and meta are borrowed.
 */
#include "report/report.h"

#include <stdlib.h>

#include "report/render.h"

/* The reporter's state between begin and end. */
struct jsonrep {
	FILE *out;
	const struct cpl_report_meta *meta;
	json_t *findings;
	struct cpl_report_tally tally;
};

/* {"file","line","column","message"} of a related location. */
static json_t *
related_json(const struct cpl_related *r)
{
	json_t *o = cpl_report_jobject();

	cpl_report_jset(o, "file", cpl_report_jstr(r->file));
	cpl_report_jset(o, "line", cpl_report_jint(r->line));
	cpl_report_jset(o, "column", cpl_report_jint(r->column));
	cpl_report_jset(o, "message", cpl_report_jstr(r->message));
	return o;
}

/* {"file","line","column","end_line","end_column","text"} of an edit. */
static json_t *
edit_json(const struct cpl_edit *e)
{
	json_t *o = cpl_report_jobject();

	cpl_report_jset(o, "file", cpl_report_jstr(e->file));
	cpl_report_jset(o, "line", cpl_report_jint(e->line));
	cpl_report_jset(o, "column", cpl_report_jint(e->column));
	cpl_report_jset(o, "end_line", cpl_report_jint(e->end_line));
	cpl_report_jset(o, "end_column", cpl_report_jint(e->end_column));
	cpl_report_jset(o, "text", cpl_report_jstr(e->text ? e->text : ""));
	return o;
}

/* The finding as one object of "findings". */
static json_t *
finding_json(const struct cpl_finding *f)
{
	json_t *o = cpl_report_jobject();
	json_t *related = cpl_report_jarray();
	json_t *edits = cpl_report_jarray();
	size_t i;

	cpl_report_jset(o, "rule", cpl_report_jstr(f->rule ? f->rule->id :
						     NULL));
	cpl_report_jset(o, "name", cpl_report_jstr(f->rule ? f->rule->name :
						     NULL));
	cpl_report_jset(o, "severity",
			cpl_report_jstr(cpl_severity_name(f->severity)));
	cpl_report_jset(o, "file", cpl_report_jstr(f->file));
	cpl_report_jset(o, "line", cpl_report_jint(f->line));
	cpl_report_jset(o, "column", cpl_report_jint(f->column));
	cpl_report_jset(o, "object", cpl_report_jstr(f->object));
	cpl_report_jset(o, "container", cpl_report_jstr(f->container));
	cpl_report_jset(o, "message", cpl_report_jstr(f->message ?
						       f->message : ""));
	cpl_report_jset(o, "fix", cpl_report_jstr(f->fix));
	for (i = 0; i < f->nrelated; i++)
		cpl_report_jpush(related, related_json(&f->related[i]));
	cpl_report_jset(o, "related", related);
	for (i = 0; i < f->nedits; i++)
		cpl_report_jpush(edits, edit_json(&f->edits[i]));
	cpl_report_jset(o, "edits", edits);
	if (f->nedits)
		cpl_report_jset(o, "applicability", cpl_report_jstr(
				cpl_fix_safety_name(f->fix_safety)));
	if (f->pods > 1)
		cpl_report_jset(o, "pods", cpl_report_jint((long long)f->pods));
	return o;
}

/* Starts an empty findings array; nothing is written yet. */
static void *
json_begin(FILE *out, const struct cpl_report_meta *meta)
{
	struct jsonrep *j = cpl_xcalloc(1, sizeof(*j));

	j->out = out;
	j->meta = meta;
	j->findings = cpl_report_jarray();
	return j;
}

/* Counts a finding and, unless suppressed, adds it to the array. */
static void
json_emit(void *state, const struct cpl_finding *f)
{
	struct jsonrep *j = state;

	cpl_report_tally_add(&j->tally, f);
	if (f->suppressed || f->severity == CPL_SEV_OFF)
		return;
	cpl_report_jpush(j->findings, finding_json(f));
}

/* The "errors" array: one object per input problem in meta. */
static json_t *
errors_json(const struct cpl_report_meta *meta)
{
	json_t *a = cpl_report_jarray();
	size_t i;

	for (i = 0; meta && i < meta->nerrors; i++) {
		const struct cpl_error *e = &meta->errors[i];
		const char *msg = e->message ? e->message : "unknown error";
		json_t *o = cpl_report_jobject();

		cpl_report_jset(o, "file", cpl_report_jstr(e->path));
		cpl_report_jset(o, "line", cpl_report_jint(e->line));
		cpl_report_jset(o, "column", cpl_report_jint(e->column));
		cpl_report_jset(o, "message", cpl_report_jstr(msg));
		cpl_report_jpush(a, o);
	}
	return a;
}

/* Writes the whole document and frees the state. */
static int
json_end(void *state)
{
	struct jsonrep *j = state;
	json_t *root = cpl_report_jobject();
	json_t *summary = cpl_report_jobject();
	int rc;

	cpl_report_jset(summary, "errors", cpl_report_jint(j->tally.errors));
	cpl_report_jset(summary, "warnings",
			cpl_report_jint(j->tally.warnings));
	cpl_report_jset(summary, "notes", cpl_report_jint(j->tally.notes));
	cpl_report_jset(summary, "suppressed",
			cpl_report_jint(j->tally.suppressed));
	cpl_report_jset(root, "version", cpl_report_jint(1));
	cpl_report_jset(root, "findings", j->findings);
	cpl_report_jset(root, "budgets", cpl_report_budgets(
		j->meta ? j->meta->budgets : NULL,
		j->meta ? j->meta->nbudgets : 0));
	cpl_report_jset(root, "summary", summary);
	cpl_report_jset(root, "errors", errors_json(j->meta));
	rc = cpl_report_jdump(j->out, root);
	json_decref(root);
	free(j);
	return rc;
}

const struct cpl_reporter cpl_report_json = {
	.name = "json",
	.begin = json_begin,
	.emit = json_emit,
	.end = json_end,
};
