/*
 * CPU103 cpu-request-limit-gap — request below limit: only the request is
 * assured under contention, so threads and workers sized to the limit may
 * be throttled on a busy node.
 */
#include "common.h"

#include <stdio.h>

static void
check(struct cpl_check *ck, const struct cpl_workload *w,
      const struct cpl_container *c)
{
	struct cpl_finding *fd;
	char req[16], lim[16], quoted[24];
	long b, t, wk;
	struct cpl_amount ranks;
	bool none, lr;
	enum cpl_loader loader;

	if (!cpl_budget_training(w, c) || w->template_only ||
	    c->cpu_request < 0 || c->cpu_limit < 0 ||
	    c->cpu_request >= c->cpu_limit)
		return;
	cpl_budget_cpus_str(req, sizeof(req), c->cpu_request);
	cpl_budget_cpus_str(lim, sizeof(lim), c->cpu_limit);
	cpl_budget_ranks(&ranks, w, c);
	loader = cpl_budget_loader(NULL, NULL, w, c);
	none = loader == CPL_LOADER_NONE;
	cpl_budget_split(&b, &t, &wk, c->cpu_request,
			 ranks.n > 0 ? ranks.n : 1, loader);
	/* Where both come from a LimitRange, the message names it. */
	lr = c->cpu_from_limitrange && c->cpu_note != NULL;
	fd = cpl_check_report(ck, w, c, &c->request_pos,
		"container \"%s\" requests %s CPU but may use up to %s%s%s%s: "
		"only %s is assured when the node is busy, so threads and "
		"workers sized to %s can be throttled", cpl_facts_cname(c),
		req, lim, lr ? " (" : "", lr ? c->cpu_note : "", lr ? ")" : "",
		req, lim);
	if (ranks.state != CPL_AMT_KNOWN)
		cpl_finding_set_fix(fd,
			"set resources.requests.cpu to \"%s\" (equal to the "
			"limit), or size the job to the request: floor(%s / "
			"ranks) CPUs per rank (ranks: %s, %s)", lim, req,
			ranks.how, ranks.state == CPL_AMT_HOST ?
			"sized from the node" : "not known here");
	else if (none)
		cpl_finding_set_fix(fd,
			"set resources.requests.cpu to \"%s\" (equal to the "
			"limit), or size the job to the request: "
			"OMP_NUM_THREADS=%ld per rank, as no loader workers "
			"run", lim, t);
	else
		cpl_finding_set_fix(fd,
			"set resources.requests.cpu to \"%s\" (equal to the "
			"limit), or size the job to the request: "
			"OMP_NUM_THREADS=%ld and %ld loader worker(s) per rank",
			lim, t, wk);
	/* A LimitRange's default is the namespace's: no edit there. */
	if (c->cpu_from_limitrange)
		return;
	snprintf(quoted, sizeof(quoted), "\"%s\"", lim);
	cpl_fix_scalar(fd, &c->request_pos, quoted);
	fd->fix_safety = CPL_FIX_UNSAFE;	/* changes what the job is given */
}

const struct cpl_rule cpl_rule_cpu103 = {
	.id = "CPU103",
	.name = "cpu-request-limit-gap",
	.severity = CPL_SEV_NOTE,
	.summary = "The CPU request is below the limit, so only part of the "
		   "budget is assured under contention.",
	.precision = "high",
	.check_container = check,
};
