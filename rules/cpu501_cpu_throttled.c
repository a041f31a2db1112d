/*
 * CPU501 cpu-throttled — live: the share of CFS periods in which the
 * container was throttled is above the threshold (default 10%); the
 * message names the source (cAdvisor, Prometheus) and the window.
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
	const char *source;
	char window[48];

	if (pct < 0 || pct <= limit)
		return;
	cpl_facts_gather(&f, w, c);
	cpl_facts_window(window, sizeof(window), &source, c);
	if (c->periods > 0)
		fd = cpl_check_report(ck, w, c, &f.cpu_pos,
			"throttled in %.1f%% of CFS periods %s (%llu of %llu "
			"periods, from %s; threshold %.0f%%)", pct, window,
			(unsigned long long)c->throttled_periods,
			(unsigned long long)c->periods, source, limit);
	else
		fd = cpl_check_report(ck, w, c, &f.cpu_pos,
			"throttled in %.1f%% of CFS periods %s (from %s; "
			"threshold %.0f%%)", pct, window, source, limit);
	if (f.cpu >= 1000)
		cpl_finding_set_fix(fd,
			"bring the busy threads within the %s: "
			"per rank OMP_NUM_THREADS=\"%ld\" and %ld loader "
			"worker(s) (per-rank budget %ld), or raise "
			"resources.limits.cpu", f.budget, f.t, f.w, f.per_rank);
	else
		cpl_finding_set_fix(fd,
			"lower the threads and workers the job starts, or "
			"raise resources.limits.cpu");
}

const struct cpl_rule cpl_rule_cpu501 = {
	.id = "CPU501",
	.name = "cpu-throttled",
	.severity = CPL_SEV_WARNING,
	.summary = "Live: the container is throttled in more CFS periods than "
		   "the threshold (default 10%).",
	.precision = "very-high",
	.live_only = true,
	.check_container = check,
};
