/*
 * CPU401 cpu-oversubscribed — ranks × (intra-op threads + loader workers)
 * exceeds C, the CPU limit (the request when there is no limit).  An
 * unknown thread count counts as at least 1, unknown workers as 0, an
 * unknown rank count as at least 1: every term is a lower bound, so the
 * rule fires only when oversubscription is certain.  Workers the code
 * sizes from the CPU count under a bound (min(8, os.cpu_count())) count
 * as what they are at least on a node with the CPUs requested: min(8,
 * request), at most 8.
 */
#include "common.h"

#include <string.h>

static void
check(struct cpl_check *ck, const struct cpl_workload *w,
      const struct cpl_container *c)
{
	struct cpl_facts f;
	struct cpl_finding *fd;
	long r, t, wk, total, need;
	const char *var;

	if (!cpl_budget_training(w, c))
		return;
	cpl_facts_gather(&f, w, c);
	if (f.cpu < 0)
		return;
	r = f.ranks.n > 0 ? f.ranks.n : 1;
	t = f.threads.state == CPL_AMT_KNOWN && f.threads.n > 0 ?
	    f.threads.n : 1;
	/* Host-sized workers count as their lower bound (at least 1). */
	wk = f.workers.state == CPL_AMT_KNOWN ||
	     f.workers.state == CPL_AMT_HOST ? f.workers.n : 0;
	total = cpl_sat_mul(r, cpl_sat_add(t, wk));
	if (cpl_sat_mul(total, 1000) <= f.cpu)
		return;
	/* A raised limit lets capped workers grow to their cap. */
	need = f.workers.state == CPL_AMT_HOST && f.workers.cap > wk ?
	       cpl_sat_mul(r, cpl_sat_add(t, f.workers.cap)) : total;
	fd = cpl_check_report(ck, w, c, &f.cpu_pos,
		"%ld %s x (%ld intra-op %s + %ld loader %s) = %ld busy "
		"%s on a %s (container \"%s\")", r,
		cpl_plural(r, "rank", "ranks"), t,
		cpl_plural(t, "thread", "threads"), wk,
		cpl_plural(wk, "worker", "workers"), total,
		cpl_plural(total, "thread", "threads"), f.budget,
		cpl_facts_cname(c));
	/* Name what actually sets the threads. */
	var = strncmp(f.threads.how, "MKL_NUM_THREADS", 15) == 0 ?
	      "MKL_NUM_THREADS and OMP_NUM_THREADS" :
	      strncmp(f.threads.how, "torch.set_num_threads", 21) == 0 ?
	      "the torch.set_num_threads argument" : "OMP_NUM_THREADS";
	if (r > 1 || f.ranks.state != CPL_AMT_KNOWN)
		cpl_finding_add_related(fd, &f.ranks.pos, "ranks: %s",
					f.ranks.how);
	if (f.threads.state == CPL_AMT_KNOWN)
		cpl_finding_add_related(fd, &f.threads.pos,
					"intra-op threads: %s", f.threads.how);
	if (f.workers.state == CPL_AMT_HOST && f.workers.cap > 0)
		cpl_finding_add_related(fd, &f.workers.pos,
					"loader workers: %s (counted as %ld: "
					"the node has at least the CPUs "
					"requested)", f.workers.how, wk);
	else if (f.workers.state == CPL_AMT_KNOWN ||
		 f.workers.state == CPL_AMT_HOST)
		cpl_finding_add_related(fd, &f.workers.pos,
					"loader workers: %s%s", f.workers.how,
					f.workers.state == CPL_AMT_HOST ?
					" (counted as its lower bound)" : "");
	if (f.per_rank >= 1)
		cpl_finding_set_fix(fd,
			"per-rank budget floor(%s / %ld) = %ld: set %s to "
			"\"%ld\" and use %ld loader worker(s) per rank (a "
			"starting point to compare against), or raise "
			"resources.limits.cpu to \"%ld\"", f.cpus, r,
			f.per_rank, var, f.t, f.w, need);
	else if (r > 1)
		cpl_finding_set_fix(fd,
			"%ld ranks need at least %ld CPUs: raise "
			"resources.limits.cpu to \"%ld\" or start fewer ranks",
			r, r, need);
	else
		cpl_finding_set_fix(fd,
			"one rank with one thread keeps a whole CPU busy: "
			"raise resources.limits.cpu to \"%ld\", or accept "
			"that it is throttled to %s CPU", need, f.cpus);
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
