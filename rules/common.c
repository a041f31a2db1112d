/*
 * common.c — gathers the budget facts rules share (see common.h).
 */
#include "common.h"

const char *
cpl_facts_cname(const struct cpl_container *c)
{
	return c->name && *c->name ? c->name : "(unnamed)";
}

const struct cpl_pos *
cpl_facts_where(const struct cpl_workload *w, const struct cpl_container *c)
{
	if (c->resources_pos.line > 0)
		return &c->resources_pos;
	if (c->pos.line > 0)
		return &c->pos;
	return &w->pos;
}

long
cpl_facts_needed(const struct cpl_facts *f, long *t, long *w)
{
	long r = f->ranks.n > 0 ? f->ranks.n : 1;

	*t = f->threads.state == CPL_AMT_KNOWN && f->threads.n > 0 ?
	     f->threads.n : 1;
	/* Unknown workers count as one; a known 0 stays 0. */
	*w = f->workers.state == CPL_AMT_KNOWN ? f->workers.n : 1;
	return cpl_sat_mul(r, cpl_sat_add(*t, *w));
}

const char *
cpl_plural(long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}
