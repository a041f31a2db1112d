/*
 * CPU503 cpu-limit-bound — live: the CPU the container used is within 5%
 * of its limit while it is throttled above the threshold: the limit, not
 * the work, sets its pace.
 */
#include "common.h"

static void
check(struct cpl_check *ck, const struct cpl_workload *w,
      const struct cpl_container *c)
{
	struct cpl_facts f;
	struct cpl_finding *fd;
	double pct = cpl_facts_throttled(c);
	double limit = cpl_check_throttle_threshold(ck);
	double cpus;
	long busy, t, wk, r;
	const char *source;
	char window[48], lim[16];

	if (c->cpu_used < 0 || c->cpu_limit <= 0 || pct < 0 || pct <= limit)
		return;
	cpus = (double)c->cpu_limit / 1000.0;
	if (c->cpu_used < 0.95 * cpus)
		return;
	cpl_facts_gather(&f, w, c);
	cpl_facts_window(window, sizeof(window), &source, c);
	cpl_budget_cpus_str(lim, sizeof(lim), c->cpu_limit);
	fd = cpl_check_report(ck, w, c, c->limit_pos.line > 0 ?
		&c->limit_pos : cpl_facts_where(w, c),
		"used %.2f CPUs of its %s-CPU limit (%.0f%%) %s and was "
		"throttled in %.1f%% of periods (from %s; threshold %.0f%%): "
		"it is bound by its CPU limit", c->cpu_used, lim,
		100.0 * c->cpu_used / cpus, window, pct, source, limit);
	r = f.ranks.n > 0 ? f.ranks.n : 1;
	busy = cpl_facts_needed(&f, &t, &wk);
	if (f.cpu >= 1000 && cpl_budget_training(w, c) &&
	    (double)busy > cpus)
		cpl_finding_set_fix(fd,
			"either raise resources.limits.cpu to \"%ld\" so the "
			"%ld busy threads the spec starts (%ld rank(s) x "
			"(%ld thread(s) + %ld worker(s))) can all run, or "
			"keep %s CPUs and reduce concurrency to per rank "
			"OMP_NUM_THREADS=\"%ld\" and %ld loader worker(s) "
			"(%ld busy threads); measure the step time of both",
			busy, busy, r, t, wk, lim, f.t, f.w,
			cpl_sat_mul(r, f.t + f.w));
	else
		cpl_finding_set_fix(fd,
			"either raise resources.limits.cpu above %s (it used "
			"%.2f), or reduce the threads and workers the job "
			"starts so it fits %s CPUs; measure the step time of "
			"both", lim, c->cpu_used, lim);
}

const struct cpl_rule cpl_rule_cpu503 = {
	.id = "CPU503",
	.name = "cpu-limit-bound",
	.severity = CPL_SEV_WARNING,
	.summary = "Live: the container uses its whole CPU limit (within 5%) "
		   "and is throttled.",
	.precision = "high",
	.live_only = true,
	.check_container = check,
};
