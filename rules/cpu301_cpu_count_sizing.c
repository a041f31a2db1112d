/*
 * CPU301 cpu-count-sizing — os.cpu_count() and its kin size workers,
 * pools or threads: they count the node's CPUs (or the cpuset), never the
 * CFS quota.  Printing or logging a CPU count is fine, and
 * torch.multiprocessing is not the stdlib (pyscan tells them apart).  A
 * count passed into another module of the same process that sizes a pool
 * there, or returned or imported from a helper module to size one in the
 * entry script, is this rule's too; capped, it is judged against the
 * budgets of the containers that run it, and left alone when none does.
 *
 * A cap is not a budget: min(8, os.cpu_count()) is the node's CPU count on
 * any node smaller than 8 and 8 on the rest, whatever the container's
 * limit.  It is left alone only when the cap is known to fit the per-rank
 * budget of every container that runs the file (CPU401 and CPU305 then
 * weigh the whole split); a script no manifest runs has no known budget,
 * so it is reported.  A cap the text does not fix (min(args.workers,
 * os.cpu_count()) with no value known for args.workers) is the user's
 * setting: no guess, no finding.  A workers-named variable that its def
 * returns only under a cap (return min(8, suggested_workers)) has that
 * cap.
 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "python/pyscan.h"
#include "python/pyvalue.h"

/* The helper both fixes name: the CPUs the cgroup's quota allows. */
#define CPU_QUOTA "cpu_quota() defined as `q, p = " \
	"open(\"/sys/fs/cgroup/cpu.max\").read().split(); return max(1, " \
	"int(q) // int(p)) if q != \"max\" else os.cpu_count()`"

/* Said in the fix where the image's Python is 3.13 or newer. */
#define PY313 "; in this Python 3.13 image os.process_cpu_count() " \
	"follows the CPU affinity, not the CFS quota, and PYTHON_CPU_COUNT " \
	"is a fixed number that does not follow the limit: neither is the fix"

/*
 * Whether image names Python 3.13 or newer by its tag: "python:3.13",
 * "python:3.14-slim", "docker.io/library/python:3.13.1-bookworm".
 */
static bool
python313(const char *image)
{
	const char *name, *colon, *t;
	char *end;
	long major, minor;

	if (image == NULL)
		return false;
	name = strrchr(image, '/');
	name = name ? name + 1 : image;
	colon = strchr(name, ':');
	if (colon == NULL || (size_t)(colon - name) != 6 ||
	    strncmp(name, "python", 6) != 0)
		return false;
	t = colon + 1;
	major = strtol(t, &end, 10);
	if (end == t || *end != '.')
		return major > 3 && end != t;
	t = end + 1;
	minor = strtol(t, &end, 10);
	return end != t && (major > 3 || (major == 3 && minor >= 13));
}

/* Whether a container that runs the file has a Python 3.13+ image: its
 * own, or the FROM of the Dockerfile that gives its command. */
static bool
runs_py313(const struct cpl_code_ref *refs, size_t nrefs)
{
	size_t i;

	for (i = 0; i < nrefs; i++)
		if (refs[i].c != NULL && (python313(refs[i].c->image) ||
					  python313(refs[i].c->base_image)))
			return true;
	return false;
}

/* A capped count's finding: the cap (N) and why it is not known to fit
 * (a sentence), with where the budget is written. */
struct cap {
	long n;			/* 0: not capped */
	char why[200];
	struct cpl_pos budget;	/* the CPU limit that N exceeds, or none */
};

/* Reports CPU count cc of f, which sizes what_sized at sink; capped by
 * cap (NULL: not capped); py313: the image's Python is 3.13 or newer. */
static void
report(struct cpl_check *ck, const struct cpl_pyfile *f,
       const struct cpl_pycpucount *cc, const char *what_sized,
       const struct cpl_pos *sink, const struct cap *cap, bool py313)
{
	const struct cpl_pycall *call = &f->calls[cc->call];
	struct cpl_finding *fd;
	const char *what = call->callee;

	/* len(os.sched_getaffinity(0)) is reported at the len call. */
	if (cpl_str_eq(what, "len"))
		what = "len(os.sched_getaffinity(...))";
	if (cap != NULL && cap->n > 0)
		fd = cpl_check_report(ck, NULL, NULL, &cc->pos,
			"%s%s sizes %s up to a cap of %ld, and a cap is not "
			"a budget: %s; on a node with fewer than %ld CPUs "
			"the pool follows the node's CPU count, not the "
			"container's CPU limit (a CFS quota)",
			what, cpl_str_eq(what, call->callee) ? "()" : "",
			what_sized ? what_sized : "a pool", cap->n, cap->why,
			cap->n);
	else
		fd = cpl_check_report(ck, NULL, NULL, &cc->pos,
			"%s%s sizes %s: it counts the node's CPUs, not the "
			"container's CPU limit (a CFS quota), so the pool "
			"grows with the node and is throttled",
			what, cpl_str_eq(what, call->callee) ? "()" : "",
			what_sized ? what_sized : "a pool");
	if (cap != NULL && cap->budget.line > 0)
		cpl_finding_add_related(fd, &cap->budget, "the CPU limit");
	if (sink->line > 0 && (sink->line != cc->pos.line ||
			       sink->column != cc->pos.column ||
			       !cpl_str_eq(sink->file, cc->pos.file)))
		cpl_finding_add_related(fd, sink, "sized here: %s",
					what_sized ? what_sized : "pool");
	cpl_finding_set_fix(fd,
		"size it from the quota or a setting instead: "
		"replace %s%s with " CPU_QUOTA ", or pass the count "
		"explicitly (e.g. --workers) from the job's CPU budget%s",
		what, cpl_str_eq(what, call->callee) ? "()" : "",
		py313 ? PY313 : "");
	/* A capped count's value goes into the budget rules' edits too
	 * (CPU305 replaces min(8, os.cpu_count()) whole): no edit of its
	 * own, so the edits of all findings still apply together. */
	if ((cap == NULL || cap->n <= 0) &&
	    (cpl_str_eq(call->target, "os.cpu_count") ||
	     cpl_str_eq(call->target, "multiprocessing.cpu_count")))
		cpl_fix_cpu_quota(fd, &call->pos, &call->end);
}

/* Expression e of f reads name (a NAME token, not an attribute). */
static bool
reads(const struct cpl_pyfile *f, const struct cpl_pyexpr *e,
      const char *name)
{
	const struct cpl_pytoken *t = cpl_pyfile_toks(f);
	size_t k, n = strlen(name);

	for (k = e->first; k < e->last; k++)
		if (t[k].kind == CPL_PYTOK_NAME && t[k].len == n &&
		    memcmp(f->text + t[k].off, name, n) == 0 &&
		    !(k > e->first && t[k - 1].kind == CPL_PYTOK_OP &&
		      f->text[t[k - 1].off] == '.'))
			return true;
	return false;
}

/*
 * A variable that says it holds workers (sink sk, an assignment in a
 * def) which the def only returns under a cap, `return min(8,
 * suggested_workers)`, and no other sink of the def reads: the cap (as
 * capped() returns it), else 0.
 */
static long
returned_cap(const struct cpl_pyfile *f, const struct cpl_pysink *sk)
{
	int d = sk->value.scope, a;
	long cap = 0;
	size_t j;
	bool assigned = false;

	while (d > 0 && f->scopes[d].kind != CPL_PYSCOPE_FUNC)
		d = f->scopes[d].parent;
	if (d <= 0)
		return 0;
	for (a = cpl_pyscan_assign_last(f, d, sk->what); a >= 0;
	     a = f->assigns[a].prev)
		assigned |= f->assigns[a].value.first == sk->value.first;
	if (!assigned)
		return 0;
	for (j = 0; j < f->nsinks; j++) {
		const struct cpl_pysink *o = &f->sinks[j];

		if (o->value.first >= f->scopes[d].body_first &&
		    o->value.last <= f->scopes[d].body_last &&
		    strcmp(o->what, sk->what) != 0 && reads(f, &o->value,
							    sk->what))
			return 0;
	}
	for (a = cpl_pyscan_assign_last(f, d, "return"); a >= 0;
	     a = f->assigns[a].prev) {
		struct cpl_pyval v;

		if (!reads(f, &f->assigns[a].value, sk->what))
			continue;
		cpl_pyvalue_expr(&v, f, &f->assigns[a].value, NULL, NULL);
		if (v.kind != CPL_PYVAL_HOST || !v.capped)
			return 0;
		if (v.cap <= 0)
			cap = -1;
		else if (cap >= 0 && v.cap > cap)
			cap = v.cap;
	}
	return cap;
}

/*
 * Whether the value cc reaches its first sink with is bounded by a
 * setting: min(8, os.cpu_count()), min(args.workers, os.cpu_count()).
 * Returns 0 when it is not, the bound when the text fixes it, else -1.
 */
static long
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
			return v.cap > 0 ? v.cap : -1;
	}
	/* Where it goes: the first place it sizes. */
	if (cc->sink_index < 0 || (size_t)cc->sink_index >= f->nsinks)
		return 0;
	cpl_pyvalue_expr(&v, f, &f->sinks[cc->sink_index].value, NULL, NULL);
	if (v.kind != CPL_PYVAL_HOST || !v.capped)
		return returned_cap(f, &f->sinks[cc->sink_index]);
	return v.cap > 0 ? v.cap : -1;
}

/*
 * Whether cap n is known to fit the per-rank budget of every container
 * that runs f (refs, nrefs); when it is not, cap->why says why and
 * cap->budget is the limit it exceeds.
 */
static bool
cap_fits(struct cap *cap, const struct cpl_code_ref *refs, size_t nrefs)
{
	bool any = false;
	size_t i;

	for (i = 0; i < nrefs; i++) {
		const struct cpl_code_ref *r = &refs[i];
		struct cpl_facts fa;

		if (r->c == NULL)
			continue;
		any = true;
		cpl_facts_gather(&fa, r->w, r->c);
		if (fa.cpu < 0) {
			snprintf(cap->why, sizeof(cap->why),
				 "container \"%s\" has no CPU limit, so no "
				 "budget bounds it",
				 cpl_facts_cname(r->c));
			cap->budget = *cpl_facts_where(r->w, r->c);
			return false;
		}
		if (!fa.ranks_known) {
			snprintf(cap->why, sizeof(cap->why),
				 "the rank count of container \"%s\" is %s, "
				 "so its per-rank "
				 "budget of %s CPUs is not known",
				 cpl_facts_cname(r->c), fa.ranks_why,
				 fa.cpus);
			cap->budget = fa.cpu_pos;
			return false;
		}
		if (cap->n > fa.per_rank) {
			snprintf(cap->why, sizeof(cap->why),
				 "%ld is over the per-rank budget of %ld "
				 "(container \"%s\": %s CPUs, %s)", cap->n,
				 fa.per_rank,
				 cpl_facts_cname(r->c), fa.cpus,
				 fa.rank_phrase);
			cap->budget = fa.cpu_pos;
			return false;
		}
	}
	if (!any)
		snprintf(cap->why, sizeof(cap->why),
			 "no manifest in this run runs this file, so no CPU "
			 "budget is known");
	return any;
}

/* Whether a container of the run runs the file (refs, nrefs). */
static bool
run_by_container(const struct cpl_code_ref *refs, size_t nrefs)
{
	size_t i;

	for (i = 0; i < nrefs; i++)
		if (refs[i].c != NULL)
			return true;
	return false;
}

/*
 * A pool made without its size: multiprocessing's Pool and ThreadPool
 * (processes=None) and ProcessPoolExecutor (max_workers=None) start one
 * worker per CPU the node has (os.cpu_count()), whatever the container's
 * limit.  ThreadPoolExecutor's default is capped (min(32, CPUs + 4)) and
 * its threads mostly wait on I/O: left alone.
 */
static void
default_pool(struct cpl_check *ck, const struct cpl_pyfile *f,
	     const struct cpl_pypool *p, bool py313)
{
	const struct cpl_pycall *call = &f->calls[p->call];
	const char *arg = p->kind == CPL_PYPOOL_MP ? "processes" :
			  "max_workers";
	struct cpl_finding *fd;

	fd = cpl_check_report(ck, NULL, NULL, &p->pos,
		"%s() leaves %s at its default, one worker per CPU of the "
		"node (os.cpu_count()), not per CPU of the container's limit "
		"(a CFS quota), so the pool grows with the node and is "
		"throttled", call->callee, arg);
	cpl_finding_set_fix(fd,
		"pass %s= sized from the quota or a setting: " CPU_QUOTA
		", or a count from the job's CPU budget (e.g. --workers)%s",
		arg, py313 ? PY313 : "");
}

static void
check(struct cpl_check *ck, const struct cpl_pyfile *f)
{
	const struct cpl_code_ref *refs;
	size_t nrefs = cpl_check_codes_of(ck, f, &refs), i, j;
	bool *done, py313 = runs_py313(refs, nrefs);

	for (i = 0; i < f->npools; i++)
		if (!f->pools[i].has_size &&
		    f->pools[i].kind != CPL_PYPOOL_THREAD)
			default_pool(ck, f, &f->pools[i], py313);
	if (f->ncpucounts == 0)
		return;
	done = cpl_xcalloc(f->ncpucounts, sizeof(*done));
	for (i = 0; i < f->ncpucounts; i++) {
		const struct cpl_pycpucount *cc = &f->cpucounts[i];
		struct cap cap = { 0 };

		if (cc->use != CPL_PYUSE_SIZING)
			continue;
		cap.n = capped(f, cc);
		if (cap.n < 0 || (cap.n > 0 && cap_fits(&cap, refs, nrefs)))
			continue;
		report(ck, f, cc, cc->sink, &cc->sink_pos, &cap, py313);
		done[i] = true;
	}
	/* Counts that size a pool in another file of a process. */
	for (i = 0; i < nrefs; i++) {
		const struct cpl_code *code = refs[i].code;

		for (j = code->count_at[refs[i].file];
		     j < code->count_at[refs[i].file + 1]; j++) {
			const struct cpl_code_count *cc = &code->counts[j];
			struct cap cap = { 0 };

			if (cc->file != f || done[cc->index])
				continue;
			done[cc->index] = true;
			/* Capped across modules: judged against the
			 * containers that run it; none (a script linted
			 * alone) is no finding here. */
			cap.n = cc->cap;
			if (cap.n > 0 && (!run_by_container(refs, nrefs) ||
					  cap_fits(&cap, refs, nrefs)))
				continue;
			report(ck, f, &f->cpucounts[cc->index], cc->what,
			       &cc->sink, &cap, py313);
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
