/*
 * CPU301 cpu-count-sizing — os.cpu_count() and its kin size workers,
 * pools or threads: they count the node's CPUs (or the cpuset), never the
 * CFS quota.  Printing or logging a CPU count is fine, and
 * torch.multiprocessing is not the stdlib (pyscan tells them apart).  A
 * count bounded by a setting (min(8, os.cpu_count())) is that setting on
 * any node big enough, so not this rule's (CPU401 weighs the setting
 * against the budget); a count passed into another module of the same
 * process that sizes a pool there is.
 */
#include "common.h"

#include <stdlib.h>
#include <string.h>

#include "python/pyscan.h"
#include "python/pyvalue.h"

/* Reports CPU count cc of f, which sizes what at sink. */
static void
report(struct cpl_check *ck, const struct cpl_pyfile *f,
       const struct cpl_pycpucount *cc, const char *what_sized,
       const struct cpl_pos *sink)
{
	const struct cpl_pycall *call = &f->calls[cc->call];
	struct cpl_finding *fd;
	const char *what = call->callee;

	/* len(os.sched_getaffinity(0)) is reported at the len call. */
	if (cpl_str_eq(what, "len"))
		what = "len(os.sched_getaffinity(...))";
	fd = cpl_check_report(ck, NULL, NULL, &cc->pos,
		"%s%s sizes %s: it counts the node's CPUs, not the "
		"container's CPU limit (a CFS quota), so the pool "
		"grows with the node and is throttled",
		what, cpl_str_eq(what, call->callee) ? "()" : "",
		what_sized ? what_sized : "a pool");
	if (sink->line > 0 && (sink->line != cc->pos.line ||
			       sink->column != cc->pos.column ||
			       !cpl_str_eq(sink->file, cc->pos.file)))
		cpl_finding_add_related(fd, sink, "sized here: %s",
					what_sized ? what_sized : "pool");
	cpl_finding_set_fix(fd,
		"size it from the quota or a setting instead: "
		"replace %s%s with cpu_quota() defined as "
		"`q, p = open(\"/sys/fs/cgroup/cpu.max\").read().split()"
		"; return max(1, int(q) // int(p)) if q != \"max\" "
		"else os.cpu_count()`, or pass the count explicitly "
		"(e.g. --workers) from the job's CPU budget",
		what, cpl_str_eq(what, call->callee) ? "()" : "");
	if (cpl_str_eq(call->target, "os.cpu_count") ||
	    cpl_str_eq(call->target, "multiprocessing.cpu_count"))
		cpl_check_cpu_quota_fix(ck, fd, &call->pos, &call->end);
}

/*
 * Whether the value cc reaches its first sink with is bounded by a
 * setting: min(8, os.cpu_count()), min(args.workers, os.cpu_count()).
 * The pool is then the setting's size on any node big enough; whether
 * that fits the budget is CPU401's question.
 */
static bool
capped(const struct cpl_pyfile *f, const struct cpl_pycpucount *cc)
{
	static const char *const wrap[] = {
		"min", "max", "int", "round", "math.floor", "math.ceil",
	};
	struct cpl_pyval v;
	struct cpl_pyexpr e;
	int c = cc->call, p;
	size_t i;

	/* Where it is written: min(8, os.cpu_count()) and what wraps it. */
	while ((p = f->calls[c].parent) >= 0) {
		for (i = 0; i < sizeof(wrap) / sizeof(wrap[0]); i++)
			if (strcmp(f->calls[p].target, wrap[i]) == 0)
				break;
		if (i == sizeof(wrap) / sizeof(wrap[0]))
			break;
		c = p;
	}
	if (c != cc->call) {
		e.first = f->calls[c].first;
		e.last = f->calls[c].close + 1;
		e.scope = f->calls[c].scope;
		e.block = -1;
		e.pos = f->calls[c].pos;
		cpl_pyvalue_expr(&v, f, &e, NULL, NULL);
		if (v.kind == CPL_PYVAL_HOST && v.capped)
			return true;
	}
	/* Where it goes: the first place it sizes. */
	if (cc->sink_index < 0 || (size_t)cc->sink_index >= f->nsinks)
		return false;
	cpl_pyvalue_expr(&v, f, &f->sinks[cc->sink_index].value, NULL, NULL);
	return v.kind == CPL_PYVAL_HOST && v.capped;
}

static void
check(struct cpl_check *ck, const struct cpl_pyfile *f)
{
	const struct cpl_code_ref *refs;
	size_t nrefs = cpl_check_codes_of(ck, f, &refs), i, j;
	bool *done;

	if (f->ncpucounts == 0)
		return;
	done = cpl_xcalloc(f->ncpucounts, sizeof(*done));
	for (i = 0; i < f->ncpucounts; i++) {
		const struct cpl_pycpucount *cc = &f->cpucounts[i];

		if (cc->use != CPL_PYUSE_SIZING || capped(f, cc))
			continue;
		report(ck, f, cc, cc->sink, &cc->sink_pos);
		done[i] = true;
	}
	/* Counts that size a pool in another file of a process. */
	for (i = 0; i < nrefs; i++) {
		const struct cpl_code *code = refs[i].code;

		for (j = code->count_at[refs[i].file];
		     j < code->count_at[refs[i].file + 1]; j++) {
			const struct cpl_code_count *cc = &code->counts[j];

			if (cc->file != f || done[cc->index])
				continue;
			done[cc->index] = true;
			report(ck, f, &f->cpucounts[cc->index], cc->what,
			       &cc->sink);
		}
	}
	free(done);
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
