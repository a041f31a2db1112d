/*
 * common.c — gathers the budget facts rules share, and whether a thread
 * setting runs in a worker_init_fn of some process (see common.h).
 */
#include "common.h"

#include <stdio.h>
#include <string.h>

#include "python/pyscan.h"

void
cpl_facts_gather(struct cpl_facts *f, const struct cpl_workload *w,
		 const struct cpl_container *c)
{
	memset(f, 0, sizeof(*f));
	f->cpu = cpl_budget_cpu(c, &f->cpu_pos);
	if (f->cpu >= 0) {
		cpl_budget_cpus_str(f->cpus, sizeof(f->cpus), f->cpu);
		snprintf(f->budget, sizeof(f->budget), "budget of %s CPU%s",
			 f->cpus, f->cpu > 1000 ? "s" : "");
	}
	cpl_budget_ranks(&f->ranks, w, c);
	cpl_budget_threads(&f->threads, w, c);
	cpl_budget_workers(&f->workers, w, c);
	if (f->cpu >= 0)
		cpl_budget_split(&f->per_rank, &f->t, &f->w, f->cpu,
				 f->ranks.n > 0 ? f->ranks.n : 1);
}

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

bool
cpl_facts_in_worker_init(const struct cpl_check *ck,
			 const struct cpl_pyfile *f, size_t i)
{
	const struct cpl_pythreads *t = &f->threads[i];
	const struct cpl_code_ref *refs;
	int scope = f->calls[t->call].scope;
	size_t n, k;

	if (t->in_worker_init)
		return true;
	n = cpl_check_codes_of(ck, f, &refs);
	for (k = 0; k < n; k++)
		if (refs[k].code->roles[refs[k].file][scope] &
		    CPL_PYROLE_WORKER_INIT)
			return true;
	return false;
}
