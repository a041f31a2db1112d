/*
 * CPU502 threads-over-budget — live: the container runs more threads than
 * its spec accounts for (ranks x (threads + workers) plus the runtime's
 * helper threads, see rules/CPU502.md) and it is throttled above the
 * threshold: runnable-thread pressure is visible.
 */
#include "common.h"

/* Helper threads PyTorch starts per rank beyond its intra-op pool and
 * loader workers (main-thread helpers: autograd device thread, CUDA
 * runtime threads, process-group watchdog and heartbeat, inter-op pool
 * thread, pin-memory thread), plus a loader worker's own second thread
 * (its queue feeder), and per container for the launcher (torchrun's
 * agent process and its store server).  See rules/CPU502.md. */
#define HELPERS_PER_RANK 8
#define HELPERS_PER_WORKER 1
#define HELPERS_PER_CONTAINER 8

static void
check(struct cpl_check *ck, const struct cpl_workload *w,
      const struct cpl_container *c)
{
	struct cpl_facts f;
	struct cpl_finding *fd;
	double pct = cpl_facts_throttled(c);
	double limit = cpl_check_throttle_threshold(ck);
	long r, t, wk, busy, allow, expected;
	const char *source;
	char window[48];

	if (c->threads_now < 0 || pct < 0 || pct <= limit ||
	    !cpl_budget_training(w, c))
		return;
	cpl_facts_gather(&f, w, c);
	r = f.ranks.n > 0 ? f.ranks.n : 1;
	busy = cpl_facts_needed(&f, &t, &wk);
	allow = cpl_sat_add(cpl_sat_mul(r, HELPERS_PER_RANK +
					cpl_sat_mul(wk, HELPERS_PER_WORKER)),
			    HELPERS_PER_CONTAINER);
	expected = cpl_sat_add(busy, allow);
	if (c->threads_now <= (double)expected)
		return;
	cpl_facts_window(window, sizeof(window), &source, c);
	fd = cpl_check_report(ck, w, c, cpl_facts_where(w, c),
		"%.0f threads measured (%s, %s) where the spec accounts for "
		"%ld: %ld rank%s x (%ld thread%s + %ld worker%s) = %ld busy "
		"plus %ld runtime helper threads; throttled in %.1f%% of "
		"periods (threshold %.0f%%)", c->threads_now, source, window,
		expected, r, cpl_plural(r, "", "s"), t, cpl_plural(t, "", "s"),
		wk, cpl_plural(wk, "", "s"), busy, allow, pct, limit);
	if (f.cpu >= 1000)
		cpl_finding_set_fix(fd,
			"the extra threads are likely intra-op pools sized to "
			"the node (torch.set_num_threads, OMP_NUM_THREADS or "
			"MKL_NUM_THREADS unset or large in each rank), "
			"inter-op pools (torch.set_num_interop_threads), or "
			"loader workers' own pools (set the thread variables "
			"in worker_init_fn): per rank OMP_NUM_THREADS=\"%ld\" "
			"and %ld loader worker(s) fit the %s", f.t, f.w,
			f.budget);
	else
		cpl_finding_set_fix(fd,
			"the extra threads are likely intra-op pools sized to "
			"the node, inter-op pools or loader workers' own "
			"pools: set OMP_NUM_THREADS and MKL_NUM_THREADS in "
			"the container and give it a CPU limit");
}

const struct cpl_rule cpl_rule_cpu502 = {
	.id = "CPU502",
	.name = "threads-over-budget",
	.severity = CPL_SEV_WARNING,
	.summary = "Live: the container runs more threads than its ranks, "
		   "threads and workers account for, and is throttled.",
	.precision = "high",
	.live_only = true,
	.check_container = check,
};
