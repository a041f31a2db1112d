/*
 * split.c — CPU401's split fix (split.h): the threads and loader workers
 * a container should use, set where its source writes them, through the
 * edits of fixedit.h.
 *
 * Owns nothing: edits are added to the finding handed in.
 */
#include "fix/split.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fix/fixedit.h"

/* Sets an env variable written as a number to t (nothing when it already
 * is t); false when it is written some other way. */
static bool
set_env_count(struct cpl_check *ck, struct cpl_finding *fd,
	      const struct cpl_container *c, const char *name, long t)
{
	const struct cpl_env *e = cpl_container_env_effective(c, name);
	long v;

	if (e == NULL)
		return true;
	if (e->value == NULL || cpl_parse_long(&v, e->value) < 0)
		return false;
	return v == t ||
	       cpl_check_replace_env_count(ck, fd, &e->pos, v, t);
}

bool
cpl_keep_split(struct cpl_check *ck, struct cpl_finding *fd,
	       const struct cpl_container *c, const struct cpl_facts *f,
	       long t, long w, bool workers)
{
	static const char *const names[] = { "OMP_NUM_THREADS",
					     "MKL_NUM_THREADS" };
	const char *how = f->threads.how;
	size_t keep = fd->nedits;
	bool ok;
	char ts[24];
	struct cpl_tinput in;

	snprintf(ts, sizeof(ts), "%ld", t);
	if (f->threads.state == CPL_AMT_KNOWN && f->threads.n == t) {
		ok = true;	/* already t, however it is set */
	} else if (f->threads.state != CPL_AMT_KNOWN) {
		/* As CPU201 adds them: equal edits apply once. */
		cpl_check_insert_env(ck, fd, c, names,
			cpl_container_env_effective(c, names[1]) ? 1 : 2, ts);
		ok = fd->nedits > keep;
	} else if ((strncmp(how, "OMP_NUM_THREADS=", 16) == 0 ||
		    strncmp(how, "MKL_NUM_THREADS=", 16) == 0) &&
		   strchr(how, '(') == NULL) {
		ok = set_env_count(ck, fd, c, names[0], t) &&
		     set_env_count(ck, fd, c, names[1], t);
	} else if (strncmp(how, "torch.set_num_threads(", 22) == 0) {
		ok = cpl_check_replace_args(ck, fd, &f->threads.pos, ts);
	} else {
		ok = false;
	}
	/* A count a Polyaxon template reads ({{ workers }}) is set where
	 * the input's value is written. */
	if (ok && workers)
		ok = f->workers.state == CPL_AMT_KNOWN &&
		     (f->workers.n == w ||
		      cpl_check_replace_count(ck, fd, &f->workers.pos,
					      f->workers.n, w) ||
		      (cpl_check_template_input(ck, &f->workers.pos, &in) &&
		       in.value == f->workers.n &&
		       cpl_check_replace_input(ck, fd, &in, w)));
	if (!ok)
		cpl_finding_drop_edits(fd, keep);
	fd->fix_safety = CPL_FIX_UNSAFE;	/* changes what the job runs */
	return ok;
}
