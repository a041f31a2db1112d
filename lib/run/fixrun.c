/*
 * fixrun.c — the edits of the run's fixes, made when they are asked
 * for: each finding's requests (model/fixreq.h) handed to fix/resolve.h
 * with the texts the run read, so that a file is parsed for edits once.
 * Asked for before the run (cpl_engine_want_edits()), they are made
 * group by group while the texts are held (group.c lets the resolver's
 * copy of a file go with the run's); asked for after, file after file
 * of the sorted findings.
 *
 * Ownership: the edits are the findings', which the engine owns.
 */
#include "run/engine_int.h"

#include <stdlib.h>
#include <string.h>

#include "fix/resolve.h"

/* The text fix/ edits: the source at path, read again if let go. */
static const char *
fix_text(void *arg, const char *path, size_t *len, bool *yaml)
{
	const struct source *src = cpl_engine_text_source(arg, path);

	*len = src ? src->len : 0;
	*yaml = src && src->kind == FILE_YAML;
	return src ? src->text : NULL;
}

struct cpl_fixres *
cpl_engine_fixres(struct cpl_engine *e)
{
	const struct cpl_fixtext t = { fix_text, e };

	return cpl_fixres_new(&t);
}

bool
cpl_engine_fix_finding(struct cpl_engine *e, struct cpl_fixres *r,
		       struct cpl_finding *f)
{
	bool ok = cpl_fixres_finding(r, f);
	size_t j;

	/* A rendered chart's text is no file to edit (helm.c). */
	for (j = 0; j < f->nedits; j++)
		if (f->edits[j].file != NULL &&
		    cpl_engine_chart_rendered(e, f->edits[j].file))
			break;
	if (j < f->nedits) {
		while (f->nedits > 0) {
			f->nedits--;
			free(f->edits[f->nedits].file);
			free(f->edits[f->nedits].text);
		}
		ok = false;
	}
	return ok;
}

void
cpl_engine_want_edits(struct cpl_engine *e)
{
	e->set.want_edits = true;
}

void
cpl_engine_fix_range(struct cpl_engine *e, struct cpl_fixres *r,
		     size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to && i < e->res.nfindings; i++)
		if (e->res.findings[i].nreqs > 0)
			(void)cpl_engine_fix_finding(e, r, &e->res.findings[i]);
}

void
cpl_engine_resolve_fixes(struct cpl_engine *e)
{
	struct cpl_fixres *r = cpl_engine_fixres(e);
	const char *file = NULL;
	size_t i;

	/* The findings are sorted by file: one file's parse serves them
	 * all, and goes before the next file's is made. */
	for (i = 0; i < e->res.nfindings; i++) {
		struct cpl_finding *f = &e->res.findings[i];

		if (f->nreqs == 0)
			continue;
		if (file == NULL || f->file == NULL ||
		    strcmp(file, f->file) != 0)
			cpl_fixres_forget(r);
		file = f->file;
		(void)cpl_engine_fix_finding(e, r, f);
	}
	cpl_fixres_free(r);
}
