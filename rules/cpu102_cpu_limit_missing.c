/*
 * CPU102 cpu-limit-missing — a training container without a CPU limit:
 * thread pools then size to the node.  A note, since many teams run
 * without limits on purpose.
 */
#include "common.h"

static void
check(struct cpl_check *ck, const struct cpl_workload *w,
      const struct cpl_container *c)
{
	struct cpl_finding *fd;
	char req[16];

	if (!cpl_budget_training(w, c) || w->template_only ||
	    c->cpu_limit != CPL_CPU_ABSENT)
		return;
	if (c->cpu_request >= 0) {
		cpl_budget_cpus_str(req, sizeof(req), c->cpu_request);
		fd = cpl_check_report(ck, w, c, &c->request_pos,
			"container \"%s\" has a CPU request of %s but no "
			"limit: OpenMP and MKL thread pools size to the "
			"node's CPUs, not to the %s requested",
			cpl_facts_cname(c), req, req);
		cpl_finding_set_fix(fd,
			"add resources.limits.cpu: \"%s\" (equal to the "
			"request), or keep no limit and set OMP_NUM_THREADS "
			"and the loader workers from the request",
			req);
		cpl_fix_limit(fd, c, req);
		fd->fix_safety = CPL_FIX_UNSAFE;	/* what the job is given */
		return;
	}
	if (c->cpu_request == CPL_CPU_ABSENT)
		return;		/* CPU101 covers neither */
	fd = cpl_check_report(ck, w, c, cpl_facts_where(w, c),
		"container \"%s\" has no CPU limit", cpl_facts_cname(c));
	cpl_finding_set_fix(fd, "add resources.limits.cpu equal to the "
			    "request");
}

const struct cpl_rule cpl_rule_cpu102 = {
	.id = "CPU102",
	.name = "cpu-limit-missing",
	.severity = CPL_SEV_NOTE,
	.summary = "A training container has no CPU limit, so thread pools "
		   "size to the node.",
	.precision = "high",
	.check_container = check,
};
