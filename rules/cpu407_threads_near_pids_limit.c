/*
 * CPU407 threads-near-pids-limit — live: a training container's thread
 * pools, counted process by process, reach the pids limit of its cgroup
 * or its Pod's (pids.max, which counts threads; cAdvisor reports it as
 * container_threads_max), or the threads measured are within 10% of it.
 *
 * Counted as a lower bound, with CPU502's helper allowances: each rank
 * runs its intra-op pool (the node's CPUs when nothing sizes it: an
 * unset OMP_NUM_THREADS on a node cAdvisor says the size of) plus
 * HELPERS_PER_RANK runtime threads, each loader worker 1 torch thread
 * plus its queue feeder, and the container HELPERS_PER_CONTAINER for the
 * launcher.  A Kubernetes manifest states no pids limit (the kubelet's
 * podPidsLimit is node configuration), so the rule is live only: see
 * rules/CPU407.md.
 */
#include "common.h"

/* As CPU502 counts them (rules/CPU502.md). */
#define HELPERS_PER_RANK 8
#define HELPERS_PER_WORKER 1
#define HELPERS_PER_CONTAINER 8

static void
check(struct cpl_check *ck, const struct cpl_workload *w,
      const struct cpl_container *c)
{
	struct cpl_facts f;
	struct cpl_finding *fd;
	long r, t, wk, each, expected, limit;
	bool host;
	char measured[64] = "";

	if (c->pids_max < 1 || !cpl_budget_training(w, c))
		return;
	cpl_facts_gather(&f, w, c);
	r = f.ranks.n > 0 ? f.ranks.n : 1;
	host = (f.threads.state == CPL_AMT_UNSET ||
		f.threads.state == CPL_AMT_HOST) && c->node_cpus >= 1;
	t = host ? (long)c->node_cpus :
	    f.threads.n > 0 ? f.threads.n : 1;
	wk = f.workers.state == CPL_AMT_KNOWN ? f.workers.n : 0;
	each = cpl_sat_add(t, HELPERS_PER_RANK);
	expected = cpl_sat_add(cpl_sat_add(cpl_sat_mul(r, each),
		cpl_sat_mul(cpl_sat_mul(r, wk), 1 + HELPERS_PER_WORKER)),
		HELPERS_PER_CONTAINER);
	limit = (long)c->pids_max;
	if (expected < limit &&
	    !(c->threads_now >= 0 && c->threads_now >= 0.9 * c->pids_max))
		return;
	if (c->threads_now >= 0)
		cpl_format(measured, sizeof(measured), "; %.0f measured now",
			   c->threads_now);
	fd = cpl_check_report(ck, w, c, cpl_facts_where(w, c),
		"%ld process%s (%ld rank%s + %ld loader worker%s) start at "
		"least %ld threads: %ld x (%ld intra-op%s + %d helpers) + "
		"%ld x %d + %d, against a pids limit of %ld threads (%s, "
		"cAdvisor container_threads_max)%s; at the limit thread "
		"creation fails and the job dies", r + r * wk,
		r + r * wk == 1 ? "" : "es", r, cpl_plural(r, "", "s"),
		r * wk, cpl_plural(r * wk, "", "s"), expected, r, t,
		host ? ", the node's CPUs" : "", HELPERS_PER_RANK, r * wk,
		1 + HELPERS_PER_WORKER, HELPERS_PER_CONTAINER, limit,
		c->pids_pod ? "the Pod's cgroup: the kubelet's podPidsLimit" :
		"the container's cgroup", measured);
	if (f.cpu >= 1000 && f.ranks_known)
		cpl_finding_set_fix(fd,
			"size the pools from the %s, not the node: per rank "
			"OMP_NUM_THREADS=\"%ld\" and %ld loader worker(s) "
			"(a starting point to compare against), or raise "
			"the pids limit", f.budget, f.t, f.w);
	else
		cpl_finding_set_fix(fd,
			"set OMP_NUM_THREADS and MKL_NUM_THREADS from the "
			"container's CPU budget instead of the node, or raise "
			"the pids limit");
}

const struct cpl_rule cpl_rule_cpu407 = {
	.id = "CPU407",
	.name = "threads-near-pids-limit",
	.severity = CPL_SEV_NOTE,
	.summary = "Live: the container's thread pools, counted per process, "
		   "reach the pids limit of its cgroup or its Pod's.",
	.precision = "high",
	.live_only = true,
	.check_container = check,
};
