/*
 * common.c — gathers the budget facts rules share, and whether a thread
 * setting runs in a worker_init_fn of some process (see common.h).
 */
#include "common.h"

#include <stdio.h>
#include <string.h>

#include "python/pyscan.h"

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

void
cpl_facts_window(char *out, size_t size, const char **source,
		 const struct cpl_container *c)
{
	double w = c->window_seconds > 0 ? c->window_seconds :
		   c->measure_window;
	long s = (long)(w + 0.5);

	*source = c->measure_source &&
		  strcmp(c->measure_source, "prometheus") == 0 ?
		  "Prometheus" : "cAdvisor";
	if (c->window_clamped) {
		char run[32];

		cpl_format_duration(run, sizeof(run), w);
		snprintf(out, size, "over the %s it has run", run);
	} else if (c->since_start || c->window_seconds <= 0)
		snprintf(out, size, "since it started");
	else if (s >= 3600 && s % 3600 == 0)
		snprintf(out, size, "over the last %ldh", s / 3600);
	else if (s >= 60 && s % 60 == 0)
		snprintf(out, size, "over the last %ldm", s / 60);
	else
		snprintf(out, size, "over the last %lds", s);
}

double
cpl_facts_throttled(const struct cpl_container *c)
{
	if (c->throttle != CPL_THROTTLE_MEASURED)
		return -1;
	if (c->throttled_pct >= 0)
		return c->throttled_pct;
	if (c->periods > 0)
		return 100.0 * (double)c->throttled_periods /
		       (double)c->periods;
	return -1;
}

bool
cpl_facts_measured(struct cpl_finding *fd, const struct cpl_workload *w,
		   const struct cpl_facts *f)
{
	long wk = f->workers.state == CPL_AMT_KNOWN ? f->workers.n : -1;

	if (w->measured == NULL || f->threads.state != CPL_AMT_KNOWN ||
	    f->cpu < 0)
		return false;
	/* "tT" is a setting of threads alone: a job with no workers. */
	if (!cpl_workload_measured(w, f->threads.n, wk, f->cpu) &&
	    !(wk <= 0 && cpl_workload_measured(w, f->threads.n, -1, f->cpu)))
		return false;
	if (fd->severity > CPL_SEV_NOTE)
		fd->severity = CPL_SEV_NOTE;
	cpl_finding_add_related(fd, &w->measured_pos, "measured: %s",
				w->measured);
	cpl_finding_set_fix(fd, "none: this setting measured best on this "
		"budget (the record below, kept by compare --fix), and a "
		"measurement beats the static model; plan and compare again "
		"when the job or its budget changes");
	return true;
}

long
cpl_facts_workers(const struct cpl_facts *f)
{
	return f->workers.state == CPL_AMT_KNOWN ||
	       f->workers.state == CPL_AMT_HOST ? f->workers.n : 0;
}

long
cpl_facts_pool_share(long *threads, const struct cpl_facts *f,
		     const struct cpl_pools *ps, enum cpl_pool_kind k)
{
	long r = f->ranks.n > 0 ? f->ranks.n : 1;
	long t = f->t > 0 ? f->t : 1;

	/* Threads within the budget stay as they are. */
	if (f->threads.state == CPL_AMT_KNOWN && f->threads.n > 0 &&
	    cpl_sat_mul(cpl_sat_mul(f->threads.n, r), 1000) <= f->cpu)
		t = f->threads.n;
	if (threads != NULL)
		*threads = t;
	if (!f->ranks_known || f->workers.state != CPL_AMT_KNOWN)
		return 1;
	return cpl_pools_share(ps, k, f->per_rank, t, f->workers.n);
}
