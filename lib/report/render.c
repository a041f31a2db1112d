/*
 * render.c — tallies, UTF-8 decoding and the "budgets" array shared by
 * the reporters (see render_int.h).  Nothing here prints.
 */
#include "report/render_int.h"

#include <math.h>
#include <string.h>

#include "report/jsonw.h"

void
cpl_report_tally_add(struct cpl_report_tally *t, const struct cpl_finding *f)
{
	if (f->suppressed) {
		t->suppressed++;
		return;
	}
	switch (f->severity) {
	case CPL_SEV_ERROR:
		t->errors++;
		break;
	case CPL_SEV_WARNING:
		t->warnings++;
		break;
	case CPL_SEV_NOTE:
		t->notes++;
		break;
	case CPL_SEV_OFF:
		break;
	}
}

/* A count, or null when unknown (< 0). */
static void
jcount(struct cpl_jsonw *j, long v)
{
	if (v >= 0)
		cpl_jsonw_int(j, v);
	else
		cpl_jsonw_null(j);
}

/*
 * A number of CPUs, threads or percent rounded to 3 decimals; null when
 * negative or not finite.
 */
static void
jnum(struct cpl_jsonw *j, double v)
{
	if (v < 0 || !isfinite(v)) {
		cpl_jsonw_null(j);
		return;
	}
	/* Past 2^53 / 1000 no double has decimals left to round. */
	if (v >= 9e15) {
		cpl_jsonw_real(j, v);
		return;
	}
	/* Whole numbers stay integers ("cpu_limit": 4). */
	if (v == (double)(long long)v && v < 1e15)
		cpl_jsonw_int(j, (long long)v);
	else
		cpl_jsonw_real(j, (double)(long long)(v * 1000.0 + 0.5) /
			       1000.0);
}

/* {"from", "file", "line", "column"} or null. */
static void
how_json(struct cpl_jsonw *j, const char *key, const struct cpl_budget_how *h)
{
	cpl_jsonw_key(j, key);
	if (h->text == NULL) {
		cpl_jsonw_null(j);
		return;
	}
	cpl_jsonw_object(j);
	cpl_jsonw_key(j, "from");
	cpl_jsonw_str(j, h->text);
	cpl_jsonw_key(j, "file");
	cpl_jsonw_str(j, h->file);
	cpl_jsonw_key(j, "line");
	cpl_jsonw_int(j, h->line);
	cpl_jsonw_key(j, "column");
	cpl_jsonw_int(j, h->column);
	cpl_jsonw_close(j);
}

/* One entry of "budgets". */
static void
budget_json(struct cpl_jsonw *j, const struct cpl_budget_entry *b)
{
	cpl_jsonw_object(j);
	cpl_jsonw_key(j, "object");
	cpl_jsonw_str(j, b->object);
	cpl_jsonw_key(j, "container");
	cpl_jsonw_str(j, b->container);
	cpl_jsonw_key(j, "file");
	cpl_jsonw_str(j, b->file);
	cpl_jsonw_key(j, "line");
	cpl_jsonw_int(j, b->line);
	cpl_jsonw_key(j, "cpu_request");
	jnum(j, b->cpu_request);
	cpl_jsonw_key(j, "cpu_limit");
	jnum(j, b->cpu_limit);
	cpl_jsonw_key(j, "ranks");
	jcount(j, b->ranks);
	cpl_jsonw_key(j, "threads");
	jcount(j, b->threads);
	cpl_jsonw_key(j, "workers");
	jcount(j, b->workers);
	cpl_jsonw_key(j, "busy");
	jcount(j, b->busy);
	cpl_jsonw_key(j, "per_rank");
	jcount(j, b->per_rank);
	cpl_jsonw_key(j, "suggested_threads");
	jcount(j, b->suggested_threads);
	cpl_jsonw_key(j, "suggested_workers");
	jcount(j, b->suggested_workers);
	cpl_jsonw_key(j, "how");
	cpl_jsonw_object(j);
	how_json(j, "cpu", &b->how_cpu);
	how_json(j, "ranks", &b->how_ranks);
	how_json(j, "threads", &b->how_threads);
	how_json(j, "workers", &b->how_workers);
	cpl_jsonw_close(j);
	if (b->measured) {
		cpl_jsonw_key(j, "measured");
		cpl_jsonw_object(j);
		cpl_jsonw_key(j, "source");
		cpl_jsonw_str(j, b->source);
		cpl_jsonw_key(j, "window_s");
		jnum(j, b->window_s);
		cpl_jsonw_key(j, "threads");
		jnum(j, b->m_threads);
		cpl_jsonw_key(j, "cpu_used");
		jnum(j, b->cpu_used);
		cpl_jsonw_key(j, "throttled_pct");
		jnum(j, b->throttled_pct);
		if (b->measured_pod) {	/* whose figures, of several Pods */
			cpl_jsonw_key(j, "pod");
			cpl_jsonw_str(j, b->measured_pod);
		}
		if (b->measure_notes) {	/* unknowns and why; a clamp */
			const char *p = b->measure_notes, *nl;

			cpl_jsonw_key(j, "notes");
			cpl_jsonw_array(j);
			for (;; p = nl + 1) {
				nl = strchr(p, '\n');
				cpl_jsonw_strn(j, p, nl ? (size_t)(nl - p) :
					       strlen(p));
				if (nl == NULL)
					break;
			}
			cpl_jsonw_close(j);
		}
		cpl_jsonw_close(j);
	}
	if (b->npools > 0) {	/* native pools beside the intra-op threads */
		size_t i;

		cpl_jsonw_key(j, "pools");
		cpl_jsonw_array(j);
		for (i = 0; i < b->npools; i++) {
			const struct cpl_budget_pool *p = &b->pools[i];

			cpl_jsonw_object(j);
			cpl_jsonw_key(j, "pool");
			cpl_jsonw_str(j, p->name);
			cpl_jsonw_key(j, "threads");
			jcount(j, p->threads);
			cpl_jsonw_key(j, "counted");
			cpl_jsonw_int(j, p->counted);
			cpl_jsonw_key(j, "in_workers");
			cpl_jsonw_bool(j, p->in_workers);
			cpl_jsonw_key(j, "node_default");
			cpl_jsonw_bool(j, p->node_default);
			cpl_jsonw_key(j, "unread");
			cpl_jsonw_bool(j, p->unread);
			how_json(j, "how", &p->how);
			how_json(j, "use", &p->use);
			cpl_jsonw_close(j);
		}
		cpl_jsonw_close(j);
	}
	if (b->pods > 1) {	/* live: the Pods of one owner it stands for */
		cpl_jsonw_key(j, "pods");
		cpl_jsonw_int(j, (long long)b->pods);
	}
	cpl_jsonw_close(j);
}

void
cpl_report_budgets(struct cpl_jsonw *j, const struct cpl_budget_entry *b,
		   size_t n)
{
	size_t i;

	cpl_jsonw_array(j);
	for (i = 0; i < n; i++)
		budget_json(j, &b[i]);
	cpl_jsonw_close(j);
}
