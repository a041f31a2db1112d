/*
 * CPU202 thread-env-over-budget — OMP_NUM_THREADS or MKL_NUM_THREADS
 * times the ranks exceeds the CPU limit.  An unknown rank count counts as
 * its lower bound, 1.  OMP_NUM_THREADS is not judged when the launcher
 * overrides it (accelerate --num_cpu_threads_per_process, deepspeed
 * --bind_cores_to_rank).  The variable of another native pool the
 * process uses (OPENBLAS_NUM_THREADS, NUMEXPR_NUM_THREADS,
 * RAYON_NUM_THREADS, TF_NUM_INTRAOP_THREADS: model/pools.h) is judged
 * the same way, times the processes that run the pool (each loader
 * worker when it runs in the data pipeline), and its safe edit writes
 * the share the budget gives each of them.
 */
#include "common.h"

#include <stdio.h>

#include "model/pools.h"

static void
check_var(struct cpl_check *ck, const struct cpl_workload *w,
	  const struct cpl_container *c, const struct cpl_facts *f,
	  const char *var)
{
	struct cpl_amount a;
	struct cpl_finding *fd;
	long r = f->ranks.n > 0 ? f->ranks.n : 1;
	char quoted[24], unknown[400];

	cpl_budget_env_count(&a, c, var);
	/* At 1 thread per rank there is nothing to lower: too many ranks
	 * for the budget is CPU401's finding. */
	if (a.state != CPL_AMT_KNOWN || a.n <= 1 ||
	    cpl_sat_mul(cpl_sat_mul(a.n, r), 1000) <= f->cpu)
		return;
	fd = cpl_check_report(ck, w, c, &a.pos,
		"%s=%ld x %s = %s%ld threads on a %s (container \"%s\")",
		var, a.n, f->rank_phrase, f->ranks_known ? "" : "at least ",
		cpl_sat_mul(a.n, r), f->budget, cpl_facts_cname(c));
	cpl_finding_add_related(fd, &f->cpu_pos, "the CPU budget: %s",
				f->cpus);
	if (f->ranks.pos.line > 0 && (r > 1 || !f->ranks_known))
		cpl_finding_add_related(fd, &f->ranks.pos, "%s: %s%s%s%s",
					f->ranks_known ? f->rank_phrase :
					"ranks", f->ranks.how,
					f->ranks_known ? "" : " (",
					f->ranks_known ? "" : f->ranks_why,
					f->ranks_known ? "" : ")");
	/* A setting kept from a measurement on this budget: a note. */
	if (f->threads.state == CPL_AMT_KNOWN && f->threads.n == a.n &&
	    cpl_facts_measured(fd, w, f))
		return;
	if (!f->ranks_known) {
		/* No number to write without the rank count: no edit. */
		cpl_facts_ranks_unknown_fix(unknown, sizeof(unknown), f, var);
		cpl_finding_set_fix(fd, "%s", unknown);
		return;
	}
	cpl_finding_set_fix(fd,
		"set %s to \"%ld\" (per-rank budget floor(%s / %ld) = %ld, "
		"%s; a starting point to compare against)", var, f->t,
		f->cpus, r, f->per_rank, f->share);
	snprintf(quoted, sizeof(quoted), "\"%ld\"", f->t);
	cpl_fix_scalar(fd, &a.pos, quoted);
}

/*
 * A pool's variable over the budget: OPENBLAS_NUM_THREADS=16 in each of
 * 2 loader workers on 1 CPU is 32 OpenBLAS threads.  Set to the share
 * the budget gives each process that runs the pool (a worker's share
 * when it runs in the loader workers), so CPU401's count fits with the
 * threads and workers as they are.
 */
static void
check_pool(struct cpl_check *ck, const struct cpl_workload *w,
	   const struct cpl_container *c, const struct cpl_facts *f,
	   const struct cpl_pools *ps, enum cpl_pool_kind k)
{
	const struct cpl_pool *p = &ps->p[k];
	struct cpl_amount a;
	struct cpl_finding *fd;
	long r = f->ranks.n > 0 ? f->ranks.n : 1;
	long wk = cpl_facts_workers(f), procs, share, t;
	bool in_w;
	char per[96] = "";

	if (!cpl_pools_env_over(&a, ps, k, c, r, wk, f->cpu))
		return;
	in_w = p->in_workers && wk > 0;
	procs = in_w ? cpl_sat_mul(r, wk) : r;
	if (in_w)
		snprintf(per, sizeof(per), " x %ld loader %s", wk,
			 cpl_plural(wk, "worker", "workers"));
	fd = cpl_check_report(ck, w, c, &a.pos,
		"%s=%ld%s x %s = %s%ld %s threads on a %s (container \"%s\")",
		p->env, a.n, per, f->rank_phrase,
		f->ranks_known ? "" : "at least ", cpl_sat_mul(a.n, procs),
		p->name, f->budget, cpl_facts_cname(c));
	cpl_finding_add_related(fd, &f->cpu_pos, "the CPU budget: %s",
				f->cpus);
	if (p->use.file != NULL && p->use_how != NULL)
		cpl_finding_add_related(fd, &p->use, "%s runs here%s (%s)",
					p->name, in_w ?
					", in each loader worker" : "",
					p->use_how);
	if (in_w && f->workers.pos.line > 0)
		cpl_finding_add_related(fd, &f->workers.pos,
					"loader workers: %s", f->workers.how);
	share = cpl_facts_pool_share(&t, f, ps, k);
	if (!f->ranks_known || f->workers.state != CPL_AMT_KNOWN)
		cpl_finding_set_fix(fd, "set %s to \"1\": with the %s not "
				    "known the share of each process that "
				    "runs %s is not either, and one thread "
				    "(the calling one) always fits", p->env,
				    f->ranks_known ? "loader workers" :
				    "ranks", p->name);
	else if (f->per_rank < 1)
		cpl_finding_set_fix(fd, "set %s to \"1\": under one CPU a "
				    "rank each process that runs %s gets "
				    "one thread, the calling one", p->env,
				    p->name);
	else if (in_w)
		cpl_finding_set_fix(fd, "set %s to \"%ld\": each of the %ld "
				    "loader %s runs its own %s pool, and the "
				    "per-rank budget floor(%s / %ld) = %ld "
				    "less %ld intra-op %s leaves each worker's "
				    "pool %ld %s, the calling one included (a "
				    "starting point to compare against)",
				    p->env, share, wk,
				    cpl_plural(wk, "worker", "workers"),
				    p->name, f->cpus, r, f->per_rank, t,
				    cpl_plural(t, "thread", "threads"), share,
				    cpl_plural(share, "thread", "threads"));
	else
		cpl_finding_set_fix(fd, "set %s to \"%ld\": the rank runs "
				    "its %s pool, and the per-rank budget "
				    "floor(%s / %ld) = %ld leaves it %ld "
				    "%s beside %ld intra-op %s and %ld "
				    "loader %s, the calling thread included "
				    "(a starting point to compare against)",
				    p->env, share, p->name, f->cpus, r,
				    f->per_rank, share,
				    cpl_plural(share, "thread", "threads"), t,
				    cpl_plural(t, "thread", "threads"), wk,
				    cpl_plural(wk, "worker", "workers"));
	cpl_fix_env_count(fd, &a.pos, a.n, share, 0);
}

static void
check(struct cpl_check *ck, const struct cpl_workload *w,
      const struct cpl_container *c)
{
	struct cpl_facts f;
	struct cpl_amount lt;
	struct cpl_pools ps;
	size_t k;
	bool forced;

	if (!cpl_budget_training(w, c))
		return;
	cpl_facts_gather(&f, w, c);
	if (f.cpu < 0)
		return;
	cpl_budget_launcher_threads(&lt, &forced, w, c);
	if (!forced)
		check_var(ck, w, c, &f, "OMP_NUM_THREADS");
	check_var(ck, w, c, &f, "MKL_NUM_THREADS");
	cpl_budget_pools(&ps, w, c);
	for (k = 0; k < CPL_POOL_NKINDS; k++)
		check_pool(ck, w, c, &f, &ps, (enum cpl_pool_kind)k);
}

const struct cpl_rule cpl_rule_cpu202 = {
	.id = "CPU202",
	.name = "thread-env-over-budget",
	.severity = CPL_SEV_ERROR,
	.summary = "OMP_NUM_THREADS or MKL_NUM_THREADS times the ranks "
		   "exceeds the CPU limit.",
	.precision = "very-high",
	.check_container = check,
};
