/*
 * CPU401 cpu-oversubscribed — ranks × (intra-op threads + loader workers)
 * exceeds C, the CPU limit (the request when there is no limit).  An
 * unknown thread count counts as at least 1, unknown workers as 0, an
 * unknown rank count as at least 1: every term is a lower bound, so the
 * rule fires only when oversubscription is certain.
 */
#include "common.h"

static void
check(struct cpl_check *ck, const struct cpl_workload *w,
      const struct cpl_container *c)
{
	struct cpl_facts f;
	struct cpl_finding *fd;
	long r, t, wk, total;

	if (!cpl_budget_training(w, c))
		return;
	cpl_facts_gather(&f, w, c);
	if (f.cpu < 0)
		return;
	r = f.ranks.n > 0 ? f.ranks.n : 1;
	t = f.threads.state == CPL_AMT_KNOWN && f.threads.n > 0 ?
	    f.threads.n : 1;
	wk = f.workers.state == CPL_AMT_KNOWN ? f.workers.n : 0;
	total = r * (t + wk);
	if ((int64_t)total * 1000 <= f.cpu)
		return;
	fd = cpl_check_report(ck, w, c, &f.cpu_pos,
		"%ld rank(s) x (%ld intra-op thread(s) + %ld loader "
		"worker(s)) = %ld busy threads on a %s-CPU budget "
		"(container \"%s\")", r, t, wk, total, f.cpus,
		cpl_facts_cname(c));
	if (r > 1 || f.ranks.state != CPL_AMT_KNOWN)
		cpl_finding_add_related(fd, &f.ranks.pos, "ranks: %s",
					f.ranks.how);
	if (f.threads.state == CPL_AMT_KNOWN)
		cpl_finding_add_related(fd, &f.threads.pos,
					"intra-op threads: %s", f.threads.how);
	if (f.workers.state == CPL_AMT_KNOWN)
		cpl_finding_add_related(fd, &f.workers.pos,
					"loader workers: %s", f.workers.how);
	if (f.per_rank >= 1)
		cpl_finding_set_fix(fd,
			"per-rank budget floor(%s / %ld) = %ld: set "
			"OMP_NUM_THREADS=\"%ld\" and %ld loader worker(s) per "
			"rank (a starting point to compare against), or raise "
			"resources.limits.cpu to \"%ld\"", f.cpus, r,
			f.per_rank, f.t, f.w, total);
	else
		cpl_finding_set_fix(fd,
			"%ld rank(s) need at least %ld CPU(s): raise "
			"resources.limits.cpu to \"%ld\" or start fewer ranks",
			r, r, total);
}

const struct cpl_rule cpl_rule_cpu401 = {
	.id = "CPU401",
	.name = "cpu-oversubscribed",
	.severity = CPL_SEV_ERROR,
	.summary = "Ranks x (intra-op threads + loader workers) exceeds the "
		   "CPU budget.",
	.precision = "high",
	.check_container = check,
};
