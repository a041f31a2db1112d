/*
 * CPU301 cpu-count-sizing — os.cpu_count() and its kin size workers,
 * pools or threads: they count the node's CPUs (or the cpuset), never the
 * CFS quota.  Printing or logging a CPU count is fine, and
 * torch.multiprocessing is not the stdlib (pyscan tells them apart).
 */
#include "common.h"
#include "python/pyscan.h"

static void
check(struct cpl_check *ck, const struct cpl_pyfile *f)
{
	size_t i;

	for (i = 0; i < f->ncpucounts; i++) {
		const struct cpl_pycpucount *cc = &f->cpucounts[i];
		const struct cpl_pycall *call = &f->calls[cc->call];
		struct cpl_finding *fd;
		const char *what = call->callee;

		if (cc->use != CPL_PYUSE_SIZING)
			continue;
		/* len(os.sched_getaffinity(0)) is reported at the len call. */
		if (cpl_str_eq(what, "len"))
			what = "len(os.sched_getaffinity(...))";
		fd = cpl_check_report(ck, NULL, NULL, &cc->pos,
			"%s%s sizes %s: it counts the node's CPUs, not the "
			"container's CPU limit (a CFS quota), so the pool "
			"grows with the node and is throttled",
			what, cpl_str_eq(what, call->callee) ? "()" : "",
			cc->sink ? cc->sink : "a pool");
		if (cc->sink_pos.line > 0 &&
		    (cc->sink_pos.line != cc->pos.line ||
		     cc->sink_pos.column != cc->pos.column))
			cpl_finding_add_related(fd, &cc->sink_pos, "sized here: "
						"%s", cc->sink ? cc->sink :
						"pool");
		cpl_finding_set_fix(fd,
			"size it from the quota or a setting instead: "
			"replace %s%s with cpu_quota() defined as "
			"`q, p = open(\"/sys/fs/cgroup/cpu.max\").read().split()"
			"; return max(1, int(q) // int(p)) if q != \"max\" "
			"else os.cpu_count()`, or pass the count explicitly "
			"(e.g. --workers) from the job's CPU budget",
			what, cpl_str_eq(what, call->callee) ? "()" : "");
	}
}

const struct cpl_rule cpl_rule_cpu301 = {
	.id = "CPU301",
	.name = "cpu-count-sizing",
	.severity = CPL_SEV_WARNING,
	.summary = "os.cpu_count() or a similar call sizes workers, pools or "
		   "threads.",
	.precision = "high",
	.check_code = check,
};
