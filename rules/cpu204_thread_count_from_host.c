/*
 * CPU204 thread-count-from-host — a thread, worker or rank count computed
 * from nproc, getconf _NPROCESSORS_ONLN or similar in the command: they
 * report the node's CPUs (nproc reads the CFS quota only from coreutils
 * 9.8; most images are older).
 *
 * A command that sizes a pool from the host is its own evidence: the main
 * container of any workload with a CPU budget is judged, a server or an
 * inference Job included, when what the count sizes names a pool of
 * threads or workers.  Without a budget (no request, no limit) such a
 * container may use the node, and only training containers are judged.
 */
#include "common.h"

#include <string.h>

/*
 * Whether what a host count sizes is a count that matters: a flag, or a
 * variable whose name says threads, workers, processes or jobs.  A plain
 * shell variable (N=$(nproc)) is judged where it is used, which shscan
 * reports as a host count of its own.
 */
static bool
sizes_count(const char *sizes)
{
	static const char *const words[] = { "THREAD", "WORKER", "PROC",
					     "JOBS", "CPU", "RANK" };
	size_t i;

	if (sizes[0] == '-')
		return true;
	for (i = 0; i < CPL_ARRAY_LEN(words); i++)
		if (strcasestr(sizes, words[i]) != NULL)
			return true;
	return false;
}

/* Whether what a host count sizes is a pool of threads or workers
 * (OMP_NUM_THREADS, --num-workers, --concurrency, --processes, or a
 * program's own pool flag such as gunicorn's -w): a pool the command
 * itself says it starts, whether or not the container shows that it
 * trains. */
static bool
sizes_pool(const struct cpl_hostcount *h)
{
	return h->pool || strcasestr(h->sizes, "THREAD") != NULL ||
	       strcasestr(h->sizes, "WORKER") != NULL ||
	       strcasestr(h->sizes, "CONCURREN") != NULL ||
	       strcasestr(h->sizes, "PROCESSES") != NULL;
}

static void
check(struct cpl_check *ck, const struct cpl_workload *w,
      const struct cpl_container *c)
{
	struct cpl_facts f;
	bool training = cpl_budget_training(w, c);
	size_t i;

	/* A container that trains, or the main container of any other
	 * workload that sizes a pool from the node in its command. */
	if (c->launch.nhostcounts == 0 ||
	    (!training && (c->role != CPL_CROLE_MAIN || c->not_training)))
		return;
	cpl_facts_gather(&f, w, c);
	if (!training && f.cpu < 0)
		return;
	for (i = 0; i < c->launch.nhostcounts; i++) {
		const struct cpl_hostcount *h = &c->launch.hostcounts[i];
		struct cpl_finding *fd;

		if (h->sizes == NULL || !sizes_count(h->sizes) ||
		    (!training && !sizes_pool(h)))
			continue;
		fd = cpl_check_report(ck, w, c, &h->expr.pos,
			"%s is sized from %s, which counts the node's CPUs, "
			"not the container's %s%s", h->sizes, h->expr.text,
			f.cpu >= 0 ? f.budget : "CPU budget", "");
		if (!training && f.cpu >= 1000)
			cpl_finding_set_fix(fd,
				"write the count from the budget instead: %s "
				"%ld (the container's CPU %s), or read the "
				"quota from /sys/fs/cgroup/cpu.max", h->sizes,
				f.cpu / 1000, c->cpu_limit > 0 ? "limit" :
				"request");
		else if (f.cpu >= 1000 && f.ranks_known)
			cpl_finding_set_fix(fd,
				"write the count from the budget instead: %s "
				"%ld (per-rank budget floor(%s / %ld) = %ld: "
				"%ld thread(s) + %ld loader worker(s)), or "
				"read the quota from /sys/fs/cgroup/cpu.max",
				h->sizes, strstr(h->sizes, "THREADS") ? f.t :
				f.w > 0 ? f.w : 1, f.cpus,
				f.ranks.n > 0 ? f.ranks.n : 1, f.per_rank,
				f.t, f.w);
		else
			cpl_finding_set_fix(fd,
				"write an explicit count, or compute it from "
				"the CFS quota in /sys/fs/cgroup/cpu.max "
				"(quota / period), not from the node");
	}
}

const struct cpl_rule cpl_rule_cpu204 = {
	.id = "CPU204",
	.name = "thread-count-from-host",
	.severity = CPL_SEV_WARNING,
	.summary = "A thread or worker count is computed from nproc or getconf "
		   "in the command, which report the node's CPUs.",
	.precision = "high",
	.check_container = check,
};
