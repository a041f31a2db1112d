/*
 * CPU202 thread-env-over-budget — OMP_NUM_THREADS or MKL_NUM_THREADS
 * times the ranks exceeds the CPU limit.  An unknown rank count counts as
 * its lower bound, 1.  OMP_NUM_THREADS is not judged when the launcher
 * overrides it (accelerate --num_cpu_threads_per_process, deepspeed
 * --bind_cores_to_rank).
 */
#include "common.h"

#include <stdio.h>

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

static void
check(struct cpl_check *ck, const struct cpl_workload *w,
      const struct cpl_container *c)
{
	struct cpl_facts f;
	struct cpl_amount lt;
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
