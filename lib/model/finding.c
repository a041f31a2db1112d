/*
 * finding.c — severity names, what a rule adds to a finding it reported
 * (the fix line, related places, edits), and freeing the members of a
 * finding and of a budget entry.
 *
 * Ownership: every string added is copied into the finding.
 */
#include "model/finding.h"
#include "model/fixreq.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *const sev_names[] = { "off", "note", "warning", "error" };

const char *
cpl_severity_name(enum cpl_severity s)
{
	return (unsigned)s < 4 ? sev_names[s] : "?";
}

int
cpl_severity_parse(enum cpl_severity *out, const char *name)
{
	unsigned i;

	if (name == NULL)
		return -1;
	if (strcmp(name, "none") == 0) {
		*out = CPL_SEV_OFF;
		return 0;
	}
	for (i = 0; i < 4; i++)
		if (strcmp(name, sev_names[i]) == 0) {
			*out = (enum cpl_severity)i;
			return 0;
		}
	return -1;
}

const char *
cpl_fix_safety_name(enum cpl_fix_safety s)
{
	return s == CPL_FIX_UNSAFE ? "unsafe" : "safe";
}

void
cpl_finding_free(struct cpl_finding *f)
{
	size_t i;

	if (f == NULL)
		return;
	free(f->file);
	free(f->object);
	free(f->container);
	free(f->message);
	free(f->fix);
	for (i = 0; i < f->nrelated; i++) {
		free(f->related[i].file);
		free(f->related[i].message);
	}
	free(f->related);
	for (i = 0; i < f->nedits; i++) {
		free(f->edits[i].file);
		free(f->edits[i].text);
	}
	free(f->edits);
	cpl_fixreq_free(f->reqs, f->nreqs);
	free(f->suppression);
	memset(f, 0, sizeof(*f));
}

static void
how_free(struct cpl_budget_how *h)
{
	free(h->text);
	free(h->file);
}

void
cpl_finding_budget_free(struct cpl_budget_entry *b)
{
	size_t i;

	if (b == NULL)
		return;
	free(b->object);
	free(b->container);
	free(b->file);
	how_free(&b->how_cpu);
	how_free(&b->how_ranks);
	how_free(&b->how_threads);
	how_free(&b->how_workers);
	free(b->measured_pod);
	free(b->measure_notes);
	for (i = 0; i < b->npools; i++) {
		free(b->pools[i].name);
		how_free(&b->pools[i].how);
		how_free(&b->pools[i].use);
	}
	free(b->pools);
	memset(b, 0, sizeof(*b));
}

void
cpl_finding_set_fix(struct cpl_finding *f, const char *fmt, ...)
{
	va_list ap;

	free(f->fix);
	va_start(ap, fmt);
	f->fix = cpl_xvasprintf(fmt, ap);
	va_end(ap);
}

void
cpl_finding_add_related(struct cpl_finding *f, const struct cpl_pos *pos,
			const char *fmt, ...)
{
	struct cpl_related *r;
	va_list ap;

	if (pos == NULL || pos->file == NULL || pos->line <= 0)
		return;
	f->related = cpl_xrealloc(f->related,
				  (f->nrelated + 1) * sizeof(*f->related));
	r = &f->related[f->nrelated++];
	r->file = cpl_xstrdup(pos->file);
	r->line = pos->line;
	r->column = pos->column > 0 ? pos->column : 1;
	va_start(ap, fmt);
	r->message = cpl_xvasprintf(fmt, ap);
	va_end(ap);
}

void
cpl_finding_add_edit(struct cpl_finding *f, const struct cpl_pos *pos,
		     int end_line, int end_column, const char *text)
{
	struct cpl_edit *ed;

	if (pos == NULL || pos->file == NULL || pos->line <= 0)
		return;
	f->edits = cpl_xrealloc(f->edits, (f->nedits + 1) * sizeof(*f->edits));
	ed = &f->edits[f->nedits++];
	ed->file = cpl_xstrdup(pos->file);
	ed->line = pos->line;
	ed->column = pos->column;
	ed->end_line = end_line;
	ed->end_column = end_column;
	ed->text = cpl_xstrdup(text);
}
