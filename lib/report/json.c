/*
 * json.c — the machine format: one JSON document for the whole run.
 *
 *   {"version":1,"findings":[...],"budgets":[...],"summary":{...},
 *    "skipped":[...],"errors":[...]}
 *
 * Each finding carries rule, name, severity, file, line, column, object,
 * container, message, fix, related and edits, in that order, then
 * "applicability" ("safe" or "unsafe", when there are edits) and "pods"
 * (a live finding shared by that many Pods of one owner, when more than
 * one); absent strings are null, unknown lines and columns 0.
 * Suppressed findings are left out of "findings" and counted in
 * summary.suppressed; summary.helm says how Helm charts were rendered
 * when the run met any.  "budgets" holds one entry per training container
 * (render_int.h).  "skipped" lists each document that holds containers and
 * was not judged: file, line, kind, object, reason.
 *
 * Invariant: the document is streamed (jsonw.h): the head at begin, each
 * finding as it is emitted, the rest at end, so memory does not grow
 * with the number of findings (with meta->jobs above 1, "budgets" is
 * rendered into memory on a second thread meanwhile: a part of the
 * report, about 1 KB an entry); the bytes are those jansson would print
 * for the same document (JSON_INDENT(2) | JSON_PRESERVE_ORDER, then a
 * newline).  The state owns its writer; out and meta are borrowed.
 */
#include "report/report.h"

#include <pthread.h>
#include <stdlib.h>

#include "report/jsonw.h"
#include "report/render_int.h"
#include "report/wbuf.h"

/* Budget entries from which "budgets" is rendered on a thread of its own
 * (meta->jobs > 1) while the findings are written, then copied in: fewer
 * take less time than starting the thread. */
#define BUDGETS_THREAD_MIN 256
/* About the text of one budget entry, with its indentation. */
#define BUDGET_BYTES 1100

/* "budgets" rendered apart: its text, as the document's writer would
 * write it after the key (a writer at the same depth). */
struct budgets_text {
	const struct cpl_budget_entry *b;
	size_t n;
	struct cpl_wbuf w;		/* in memory */
	pthread_t tid;
	bool started;
};

/* The reporter's state between begin and end. */
struct jsonrep {
	struct cpl_wbuf w;
	struct cpl_jsonw j;		/* the document, inside "findings" */
	const struct cpl_report_meta *meta;
	struct cpl_report_tally tally;
	struct budgets_text bt;
};

static void *
render_budgets(void *arg)
{
	struct budgets_text *bt = arg;
	struct cpl_jsonw j;

	/* Room for the whole text at once (an entry is about 1 KB): the
	 * buffer is not grown by doubling, which would touch up to twice
	 * the text's memory. */
	(void)cpl_wbuf_reserve(&bt->w, bt->n * BUDGET_BYTES);
	cpl_jsonw_init(&j, &bt->w, 1);
	cpl_report_budgets(&j, bt->b, bt->n);
	return NULL;
}

/* {"file","line","column","message"} of a related location. */
static void
related_json(struct cpl_jsonw *j, const struct cpl_related *r)
{
	cpl_jsonw_object(j);
	cpl_jsonw_key(j, "file");
	cpl_jsonw_str(j, r->file);
	cpl_jsonw_key(j, "line");
	cpl_jsonw_int(j, r->line);
	cpl_jsonw_key(j, "column");
	cpl_jsonw_int(j, r->column);
	cpl_jsonw_key(j, "message");
	cpl_jsonw_str(j, r->message);
	cpl_jsonw_close(j);
}

/* {"file","line","column","end_line","end_column","text"} of an edit. */
static void
edit_json(struct cpl_jsonw *j, const struct cpl_edit *e)
{
	cpl_jsonw_object(j);
	cpl_jsonw_key(j, "file");
	cpl_jsonw_str(j, e->file);
	cpl_jsonw_key(j, "line");
	cpl_jsonw_int(j, e->line);
	cpl_jsonw_key(j, "column");
	cpl_jsonw_int(j, e->column);
	cpl_jsonw_key(j, "end_line");
	cpl_jsonw_int(j, e->end_line);
	cpl_jsonw_key(j, "end_column");
	cpl_jsonw_int(j, e->end_column);
	cpl_jsonw_key(j, "text");
	cpl_jsonw_str(j, e->text ? e->text : "");
	cpl_jsonw_close(j);
}

/* The finding as the next object of "findings". */
static void
finding_json(struct cpl_jsonw *j, const struct cpl_finding *f)
{
	size_t i;

	cpl_jsonw_object(j);
	cpl_jsonw_key(j, "rule");
	cpl_jsonw_str(j, f->rule ? f->rule->id : NULL);
	cpl_jsonw_key(j, "name");
	cpl_jsonw_str(j, f->rule ? f->rule->name : NULL);
	cpl_jsonw_key(j, "severity");
	cpl_jsonw_str(j, cpl_severity_name(f->severity));
	cpl_jsonw_key(j, "file");
	cpl_jsonw_str(j, f->file);
	cpl_jsonw_key(j, "line");
	cpl_jsonw_int(j, f->line);
	cpl_jsonw_key(j, "column");
	cpl_jsonw_int(j, f->column);
	cpl_jsonw_key(j, "object");
	cpl_jsonw_str(j, f->object);
	cpl_jsonw_key(j, "container");
	cpl_jsonw_str(j, f->container);
	cpl_jsonw_key(j, "message");
	cpl_jsonw_str(j, f->message ? f->message : "");
	cpl_jsonw_key(j, "fix");
	cpl_jsonw_str(j, f->fix);
	cpl_jsonw_key(j, "related");
	cpl_jsonw_array(j);
	for (i = 0; i < f->nrelated; i++)
		related_json(j, &f->related[i]);
	cpl_jsonw_close(j);
	cpl_jsonw_key(j, "edits");
	cpl_jsonw_array(j);
	for (i = 0; i < f->nedits; i++)
		edit_json(j, &f->edits[i]);
	cpl_jsonw_close(j);
	if (f->nedits) {
		cpl_jsonw_key(j, "applicability");
		cpl_jsonw_str(j, cpl_fix_safety_name(f->fix_safety));
	}
	if (f->pods > 1) {
		cpl_jsonw_key(j, "pods");
		cpl_jsonw_int(j, (long long)f->pods);
	}
	cpl_jsonw_close(j);
}

/* Writes the head of the document, up to the open "findings" array. */
static void *
json_begin(FILE *out, const struct cpl_report_meta *meta)
{
	struct jsonrep *r = cpl_xcalloc(1, sizeof(*r));

	cpl_wbuf_init(&r->w, out);
	cpl_jsonw_init(&r->j, &r->w, 0);
	r->meta = meta;
	if (meta != NULL && meta->jobs > 1 &&
	    meta->nbudgets >= BUDGETS_THREAD_MIN) {
		r->bt.b = meta->budgets;
		r->bt.n = meta->nbudgets;
		cpl_wbuf_init(&r->bt.w, NULL);
		r->bt.started = pthread_create(&r->bt.tid, NULL,
					       render_budgets, &r->bt) == 0;
	}
	cpl_jsonw_object(&r->j);
	cpl_jsonw_key(&r->j, "version");
	cpl_jsonw_int(&r->j, 1);
	cpl_jsonw_key(&r->j, "findings");
	cpl_jsonw_array(&r->j);
	return r;
}

/* Counts a finding and, unless suppressed, writes it. */
static void
json_emit(void *state, const struct cpl_finding *f)
{
	struct jsonrep *r = state;

	cpl_report_tally_add(&r->tally, f);
	if (f->suppressed || f->severity == CPL_SEV_OFF)
		return;
	finding_json(&r->j, f);
}

/* The "errors" array: one object per input problem in meta. */
static void
errors_json(struct cpl_jsonw *j, const struct cpl_report_meta *meta)
{
	size_t i;

	cpl_jsonw_array(j);
	for (i = 0; meta && i < meta->nerrors; i++) {
		const struct cpl_error *e = &meta->errors[i];

		cpl_jsonw_object(j);
		cpl_jsonw_key(j, "file");
		cpl_jsonw_str(j, e->path);
		cpl_jsonw_key(j, "line");
		cpl_jsonw_int(j, e->line);
		cpl_jsonw_key(j, "column");
		cpl_jsonw_int(j, e->column);
		cpl_jsonw_key(j, "message");
		cpl_jsonw_str(j, e->message ? e->message : "unknown error");
		cpl_jsonw_close(j);
	}
	cpl_jsonw_close(j);
}

/* "skipped": the documents holding containers that were not judged. */
static void
skipped_json(struct cpl_jsonw *j, const struct cpl_report_meta *meta)
{
	size_t i;

	cpl_jsonw_array(j);
	for (i = 0; meta && i < meta->nskipped; i++) {
		const struct cpl_report_skip *k = &meta->skipped[i];

		cpl_jsonw_object(j);
		cpl_jsonw_key(j, "file");
		if (k->file)
			cpl_jsonw_str(j, k->file);
		else
			cpl_jsonw_null(j);
		cpl_jsonw_key(j, "line");
		cpl_jsonw_int(j, k->line);
		cpl_jsonw_key(j, "kind");
		if (k->kind)
			cpl_jsonw_str(j, k->kind);
		else
			cpl_jsonw_null(j);
		cpl_jsonw_key(j, "object");
		cpl_jsonw_str(j, k->what ? k->what : "");
		cpl_jsonw_key(j, "reason");
		cpl_jsonw_str(j, k->reason ? k->reason : "");
		cpl_jsonw_close(j);
	}
	cpl_jsonw_close(j);
}

/* Writes the rest of the document and frees the state. */
static int
json_end(void *state)
{
	struct jsonrep *r = state;
	struct cpl_jsonw *j = &r->j;
	const struct cpl_report_meta *meta = r->meta;
	int rc;

	cpl_jsonw_close(j);			/* findings */
	cpl_jsonw_key(j, "budgets");
	if (r->bt.started) {
		pthread_join(r->bt.tid, NULL);
		cpl_jsonw_raw(j, r->bt.w.data, r->bt.w.len);
		cpl_wbuf_free(&r->bt.w);
	} else {
		cpl_report_budgets(j, meta ? meta->budgets : NULL,
				   meta ? meta->nbudgets : 0);
	}
	cpl_jsonw_key(j, "summary");
	cpl_jsonw_object(j);
	cpl_jsonw_key(j, "errors");
	cpl_jsonw_int(j, (long long)r->tally.errors);
	cpl_jsonw_key(j, "warnings");
	cpl_jsonw_int(j, (long long)r->tally.warnings);
	cpl_jsonw_key(j, "notes");
	cpl_jsonw_int(j, (long long)r->tally.notes);
	cpl_jsonw_key(j, "suppressed");
	cpl_jsonw_int(j, (long long)r->tally.suppressed);
	if (meta && meta->helm != NULL) {	/* charts met in walks */
		cpl_jsonw_key(j, "helm");
		cpl_jsonw_str(j, meta->helm);
	}
	if (meta && meta->baselined > 0) {	/* --baseline left them out */
		cpl_jsonw_key(j, "baselined");
		cpl_jsonw_int(j, (long long)meta->baselined);
	}
	cpl_jsonw_close(j);
	cpl_jsonw_key(j, "skipped");
	skipped_json(j, meta);
	cpl_jsonw_key(j, "errors");
	errors_json(j, meta);
	cpl_jsonw_close(j);			/* the document */
	cpl_wbuf_addc(&r->w, '\n');
	rc = cpl_wbuf_finish(&r->w);
	free(r);
	return rc;
}

const struct cpl_reporter cpl_report_json = {
	.name = "json",
	.begin = json_begin,
	.emit = json_emit,
	.end = json_end,
};
