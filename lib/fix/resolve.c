/*
 * resolve.c — a finding's requests made into edits (resolve.h): each
 * request handed to the edit of its kind (fixedit.c, fixcode.c,
 * split.c) against the texts the resolver holds (fixsrc.c).
 *
 * Invariant: a text is indexed and parsed for edits at most once while
 * the resolver holds it; nothing is cached anywhere else, so a run that
 * asks for no edit parses nothing for them.
 *
 * Ownership: the resolver owns its struct cpl_fixsrc's and what hangs
 * from them; the texts are the caller's.
 *
 * May include: model/, text/ and fix/.
 */
#include "fix/fix_int.h"

#include <stdlib.h>


/* Makes request q's edits on f; false when it could make none. */
static bool
resolve(struct cpl_fixres *r, struct cpl_finding *f,
	const struct cpl_fixreq *q)
{
	size_t had = f->nedits;

	switch (q->op) {
	case CPL_FIXOP_FAIL:
		return false;
	case CPL_FIXOP_SCALAR:
		cpl_fixres_scalar(r, f, &q->pos, q->text);
		break;
	case CPL_FIXOP_ENV:
		cpl_fixres_env(r, f, q->c, q->names, q->nnames, q->text);
		break;
	case CPL_FIXOP_SHM:
		cpl_fixres_shm(r, f, q->c, q->text);
		break;
	case CPL_FIXOP_CPU:
		cpl_fixres_cpu(r, f, q->c, q->text, q->text2);
		break;
	case CPL_FIXOP_LIMIT:
		cpl_fixres_limit(r, f, q->c, q->text);
		break;
	case CPL_FIXOP_COUNT:
		return cpl_fixres_count(r, f, &q->pos, q->from, q->to);
	case CPL_FIXOP_ENV_COUNT:
		return cpl_fixres_env_count(r, f, &q->pos, q->from, q->to);
	case CPL_FIXOP_ARGS:
		return cpl_fixres_args(r, f, &q->pos, q->text);
	case CPL_FIXOP_CPU_QUOTA:
		cpl_fixres_cpu_quota(r, f, &q->pos, &q->end);
		break;
	case CPL_FIXOP_SPLIT:
		return cpl_fixres_split(r, f, q);
	case CPL_FIXOP_ANNOTATION:
		cpl_fixres_annotation(r, f, q->w, q->text, q->text2,
				      q->pos.line > 0 ? &q->pos : NULL);
		break;
	}
	return f->nedits > had;
}

bool
cpl_fixres_finding(struct cpl_fixres *r, struct cpl_finding *f)
{
	struct cpl_fixreq *reqs = f->reqs;
	size_t n = f->nreqs, i;
	bool all = true, split = false, whole = true, ok;

	f->reqs = NULL;
	f->nreqs = 0;
	for (i = 0; i < n; i++) {
		const struct cpl_fixreq *q = &reqs[i];

		if (((q->flags & CPL_FIXREQ_IF_EDITS) && f->nedits == 0) ||
		    ((q->flags & CPL_FIXREQ_IF_SPLIT) && !split))
			continue;
		ok = resolve(r, f, q);
		if (q->op == CPL_FIXOP_SPLIT)
			split = ok;
		if (!ok && (q->flags & CPL_FIXREQ_WHOLE))
			whole = false;
		all = all && ok;
	}
	if (!whole)
		cpl_finding_drop_edits(f, 0);
	cpl_fixreq_free(reqs, n);
	return all && whole;
}
