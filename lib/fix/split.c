/*
 * split.c — the split fix (a SPLIT request, model/fixreq.h): the threads
 * and loader workers a container should use, set where its source writes
 * them, through the edits of fixedit.c; CPU401's fix and compare --fix's
 * (run/keep.c).
 *
 * Owns nothing: edits are added to the finding handed in.
 */
#include "fix/fix_int.h"

#include <stdio.h>
#include <string.h>

#include "model/tinput.h"

/* Sets an env variable written as a number to t (nothing when it already
 * is t); false when it is written some other way. */
static bool
set_env_count(struct cpl_fixres *r, struct cpl_finding *fd,
	      const struct cpl_container *c, const char *name, long t)
{
	const struct cpl_env *e = cpl_container_env_effective(c, name);
	long v;

	if (e == NULL)
		return true;
	if (e->value == NULL || cpl_parse_long(&v, e->value) < 0)
		return false;
	return v == t || cpl_fixres_env_count(r, fd, &e->pos, v, t);
}

/* The Polyaxon input the count at pos reads, in the resolver's text. */
static bool
template_input(struct cpl_fixres *r, const struct cpl_pos *pos,
	       struct cpl_tinput *in)
{
	struct cpl_fixsrc *src = pos && pos->file ?
		cpl_fixres_src(r, pos->file) : NULL;
	const struct cpl_yedit *ed = src ? cpl_fixres_yedit(r, pos->file) :
				     NULL;

	if (ed == NULL)
		return false;
	(void)cpl_fixsrc_offset(src, 1, 1);	/* indexes its lines */
	return cpl_tinput_find(in, src->text, src->len, &src->lines, ed,
			       pos);
}

bool
cpl_fixres_split(struct cpl_fixres *r, struct cpl_finding *fd,
		 const struct cpl_fixreq *q)
{
	static const char *const names[] = { "OMP_NUM_THREADS",
					     "MKL_NUM_THREADS" };
	const struct cpl_container *c = q->c;
	const struct cpl_amount *th = &q->threads, *wk = &q->workers;
	const char *how = th->how;
	long t = q->from, w = q->to;
	size_t keep = fd->nedits;
	bool ok;
	char ts[24];
	struct cpl_tinput in;

	snprintf(ts, sizeof(ts), "%ld", t);
	if (th->state == CPL_AMT_KNOWN && th->n == t) {
		ok = true;	/* already t, however it is set */
	} else if (th->state != CPL_AMT_KNOWN) {
		/* As CPU201 adds them: equal edits apply once. */
		cpl_fixres_env(r, fd, c, names,
			cpl_container_env_effective(c, names[1]) ? 1 : 2, ts);
		ok = fd->nedits > keep;
	} else if ((strncmp(how, "OMP_NUM_THREADS=", 16) == 0 ||
		    strncmp(how, "MKL_NUM_THREADS=", 16) == 0) &&
		   strchr(how, '(') == NULL) {
		ok = set_env_count(r, fd, c, names[0], t) &&
		     set_env_count(r, fd, c, names[1], t);
	} else if (strncmp(how, "torch.set_num_threads(", 22) == 0) {
		ok = cpl_fixres_args(r, fd, &th->pos, ts);
	} else {
		ok = false;
	}
	/* A count a Polyaxon template reads ({{ workers }}) is set where
	 * the input's value is written. */
	if (ok && q->set_workers)
		ok = wk->state == CPL_AMT_KNOWN &&
		     (wk->n == w ||
		      cpl_fixres_count(r, fd, &wk->pos, wk->n, w) ||
		      (template_input(r, &wk->pos, &in) &&
		       in.value == wk->n &&
		       cpl_fixres_input(r, fd, &in, w)));
	if (!ok)
		cpl_finding_drop_edits(fd, keep);
	return ok;
}
