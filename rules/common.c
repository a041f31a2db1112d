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
	f->ranks_known = f->ranks.state == CPL_AMT_KNOWN;
	f->ranks_why = f->ranks.state == CPL_AMT_HOST ?
		       "sized from the node" : "not known here";
	f->no_workers = cpl_budget_no_workers(&f->workers);
	if (f->ranks_known)
		snprintf(f->rank_phrase, sizeof(f->rank_phrase), "%ld %s",
			 f->ranks.n, cpl_plural(f->ranks.n, "rank", "ranks"));
	else
		snprintf(f->rank_phrase, sizeof(f->rank_phrase),
			 "at least 1 rank");
	if (f->cpu >= 0)
		cpl_budget_split(&f->per_rank, &f->t, &f->w, f->cpu,
				 f->ranks.n > 0 ? f->ranks.n : 1,
				 f->no_workers);
	if (f->no_workers)
		snprintf(f->share, sizeof(f->share), "all of it for %ld "
			 "intra-op thread(s), as no loader workers run", f->t);
	else
		snprintf(f->share, sizeof(f->share), "split into %ld "
			 "thread(s) and %ld loader worker(s)", f->t, f->w);
}

void
cpl_facts_ranks_unknown_fix(char *out, size_t size, const struct cpl_facts *f,
			    const char *var)
{
	if (f->no_workers)
		snprintf(out, size, "the rank count (%s) is %s: with R "
			 "ranks the per-rank budget is B = floor(%s / R); set "
			 "%s to B, as no loader workers run (a starting point "
			 "to compare against)", f->ranks.how, f->ranks_why,
			 f->cpus, var);
	else
		snprintf(out, size, "the rank count (%s) is %s: with R "
			 "ranks the per-rank budget is B = floor(%s / R); set "
			 "%s to max(1, floor(B / 2)) and use the rest of B as "
			 "loader workers (a starting point to compare against)",
			 f->ranks.how, f->ranks_why, f->cpus, var);
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
