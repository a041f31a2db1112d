/*
 * CPU203 mkl-omp-mismatch — MKL_NUM_THREADS and OMP_NUM_THREADS are both
 * set and differ; MKL's own variable wins for MKL's kernels, so the
 * thread budget someone wrote for OpenMP is not the one MKL uses.
 */
#include "common.h"

#include <stdio.h>

static void
check(struct cpl_check *ck, const struct cpl_workload *w,
      const struct cpl_container *c)
{
	struct cpl_amount mkl, omp;
	struct cpl_facts f;
	struct cpl_finding *fd;
	char quoted[24];
	long want;

	if (!cpl_budget_training(w, c))
		return;
	cpl_budget_env_count(&mkl, c, "MKL_NUM_THREADS");
	cpl_budget_env_count(&omp, c, "OMP_NUM_THREADS");
	if (mkl.state != CPL_AMT_KNOWN || omp.state != CPL_AMT_KNOWN ||
	    mkl.n == omp.n)
		return;
	fd = cpl_check_report(ck, w, c, &mkl.pos,
		"MKL_NUM_THREADS=%ld and OMP_NUM_THREADS=%ld differ in "
		"container \"%s\": MKL uses %ld threads for its kernels, "
		"whatever OMP_NUM_THREADS says", mkl.n, omp.n,
		cpl_facts_cname(c), mkl.n);
	cpl_finding_add_related(fd, &omp.pos, "OMP_NUM_THREADS=%ld", omp.n);
	/* When OMP_NUM_THREADS is itself over the budget, point both at the
	 * budget's thread count so the fixes of CPU202 and CPU203 agree
	 * (with an unknown rank count CPU202 gives no number either). */
	cpl_facts_gather(&f, w, c);
	want = omp.n;
	if (f.cpu >= 1000 && f.ranks_known &&
	    omp.n * (f.ranks.n > 0 ? f.ranks.n : 1) * 1000 > f.cpu)
		want = f.t;
	if (want == omp.n)
		cpl_finding_set_fix(fd,
			"set MKL_NUM_THREADS to \"%ld\" (the same as "
			"OMP_NUM_THREADS), or remove it so MKL follows "
			"OMP_NUM_THREADS", want);
	else
		cpl_finding_set_fix(fd,
			"set MKL_NUM_THREADS and OMP_NUM_THREADS both to "
			"\"%ld\" (per-rank budget floor(%s / %ld) = %ld; a "
			"starting point to compare against)", want, f.cpus,
			f.ranks.n > 0 ? f.ranks.n : 1, f.per_rank);
	snprintf(quoted, sizeof(quoted), "\"%ld\"", want);
	cpl_fix_scalar(fd, &mkl.pos, quoted);
}

const struct cpl_rule cpl_rule_cpu203 = {
	.id = "CPU203",
	.name = "mkl-omp-mismatch",
	.severity = CPL_SEV_WARNING,
	.summary = "MKL_NUM_THREADS and OMP_NUM_THREADS are both set and "
		   "differ.",
	.precision = "very-high",
	.check_container = check,
};
