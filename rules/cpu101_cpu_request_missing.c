/*
 * CPU101 cpu-request-missing — a training container with neither a CPU
 * request nor a CPU limit.  With only a limit, admission sets the request
 * equal to it, so that case is fine here.  The fix sizes this container:
 * the ranks it starts (accelerate's total divided by its machines), not
 * the job's; with an unknown rank count it gives the size per rank.  A
 * Flyte task with no CPU gets the platform's task resource defaults, a
 * ZenML step its run configuration's (w->platform_cpu), which the file
 * does not show: a note there.
 */
#include "common.h"

#include <stdio.h>

static void
check(struct cpl_check *ck, const struct cpl_workload *w,
      const struct cpl_container *c)
{
	struct cpl_facts f;
	struct cpl_finding *fd;
	long need, t, wk;
	char cpus[24];

	/* A runtime alone is a template: each TrainJob brings resources. */
	if (!cpl_budget_training(w, c) || w->template_only ||
	    c->cpu_request != CPL_CPU_ABSENT ||
	    c->cpu_limit != CPL_CPU_ABSENT)
		return;
	cpl_facts_gather(&f, w, c);
	need = cpl_facts_needed(&f, &t, &wk);
	fd = cpl_check_report(ck, w, c, cpl_facts_where(w, c),
		"container \"%s\" has no CPU request or limit: the scheduler "
		"reserves no CPU for it and every thread pool sizes itself "
		"to the node%s", cpl_facts_cname(c), w->platform_cpu ?
		", unless the platform fills one in (Flyte's task resource "
		"defaults, a ZenML run configuration)" : "");
	/* Those defaults are the cluster's to see, not the file's. */
	if (w->platform_cpu && fd->severity > CPL_SEV_NOTE)
		fd->severity = CPL_SEV_NOTE;
	if (!f.ranks_known)
		cpl_finding_set_fix(fd,
			"add resources.requests.cpu and resources.limits.cpu "
			"of %ld CPU(s) per rank (%ld thread(s) + %ld loader "
			"worker(s)) times the ranks this container starts (%s, "
			"%s); a starting point to compare against",
			cpl_sat_add(t, wk), t, wk, f.ranks.how, f.ranks_why);
	else
		cpl_finding_set_fix(fd,
			"add resources.requests.cpu: \"%ld\" and "
			"resources.limits.cpu: \"%ld\" (%ld rank(s) x (%ld "
			"thread(s) + %ld loader worker(s)); a starting point "
			"to compare against)", need, need,
			f.ranks.n > 0 ? f.ranks.n : 1, t, wk);
	if (f.ranks_known) {
		snprintf(cpus, sizeof(cpus), "%ld", need);
		cpl_fix_cpu(fd, c, cpus, cpus);
		fd->fix_safety = CPL_FIX_UNSAFE;	/* what the job is given */
	}
}

const struct cpl_rule cpl_rule_cpu101 = {
	.id = "CPU101",
	.name = "cpu-request-missing",
	.severity = CPL_SEV_WARNING,
	.summary = "A training container has neither a CPU request nor a CPU "
		   "limit.",
	.precision = "very-high",
	.check_container = check,
};
