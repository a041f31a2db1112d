/*
 * finding.c — severity names and freeing the members of a finding and of
 * a budget entry.
 */
#include "finding.h"

#include <stdlib.h>
#include <string.h>

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
	memset(b, 0, sizeof(*b));
}
