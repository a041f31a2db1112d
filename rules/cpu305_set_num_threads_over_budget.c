/*
 * CPU305 set-num-threads-over-budget — torch.set_num_threads(N) in the
 * code a container runs, times its ranks, exceeds the CPU budget.  A
 * budget finding: reported at the CPU limit, with the call as a related
 * location.  N capped by the code (min(8, os.cpu_count()), which CPU301
 * leaves alone) counts as its least on a node with the CPUs requested; an
 * unknown rank count counts as its lower bound, 1.
 */
#include "common.h"

#include <stdio.h>
#include "python/pyscan.h"

static void
check(struct cpl_check *ck, const struct cpl_workload *w,
      const struct cpl_container *c)
{
	struct cpl_facts f;
	size_t i;
	long r;
	char unknown[400], arg[24];

	if (c->code == NULL || !cpl_budget_training(w, c))
		return;
	cpl_facts_gather(&f, w, c);
	if (f.cpu < 0)
		return;
	r = f.ranks.n > 0 ? f.ranks.n : 1;
	for (i = 0; i < c->code->nthreads; i++) {
		const struct cpl_code_size *t = &c->code->threads[i];
		struct cpl_finding *fd;
		bool capped = t->value.kind == CPL_PYVAL_HOST &&
			      t->value.capped && t->value.cap > 0;
		/* A count capped by the code, min(8, os.cpu_count()), is
		 * at least its value on a node with the CPUs requested. */
		long n = capped ? (t->value.lo < t->value.cap ? t->value.lo :
				   t->value.cap) : t->value.value;

		if ((t->value.kind != CPL_PYVAL_KNOWN && !capped) || n <= 1 ||
		    cpl_sat_mul(cpl_sat_mul(n, r), 1000) <= f.cpu)
			continue;
		if (capped)
			fd = cpl_check_report(ck, w, c, &f.cpu_pos,
				"torch.set_num_threads(min(%ld, CPU count)) x "
				"%s = at least %ld threads on a %s (container "
				"\"%s\"; the node has at least the CPUs "
				"requested)", t->value.cap, f.rank_phrase,
				cpl_sat_mul(n, r), f.budget,
				cpl_facts_cname(c));
		else
			fd = cpl_check_report(ck, w, c, &f.cpu_pos,
				"torch.set_num_threads(%ld) x %s = %s%ld "
				"threads on a %s (container \"%s\")", n,
				f.rank_phrase, f.ranks_known ? "" :
				"at least ", cpl_sat_mul(n, r), f.budget,
				cpl_facts_cname(c));
		cpl_finding_add_related(fd, &t->pos, "torch.set_num_threads");
		if (capped)
			cpl_finding_add_related(fd, &t->value.host,
						"the CPU count");
		else if (t->value.pos.line > 0 &&
			 (t->value.pos.line != t->pos.line ||
			  t->value.pos.file != t->pos.file))
			cpl_finding_add_related(fd, &t->value.pos,
						"its value: %ld",
						t->value.value);
		if (r > 1 || !f.ranks_known)
			cpl_finding_add_related(fd, &f.ranks.pos,
						"ranks: %s%s%s%s", f.ranks.how,
						f.ranks_known ? "" : " (",
						f.ranks_known ? "" : f.ranks_why,
						f.ranks_known ? "" : ")");
		/* A setting kept from a measurement on this budget. */
		if (f.threads.state == CPL_AMT_KNOWN && f.threads.n == n &&
		    cpl_facts_measured(fd, w, &f))
			continue;
		if (!f.ranks_known) {
			cpl_facts_ranks_unknown_fix(unknown, sizeof(unknown),
				&f, "the torch.set_num_threads argument");
			cpl_finding_set_fix(fd, "%s", unknown);
			continue;
		}
		cpl_finding_set_fix(fd,
			"call torch.set_num_threads(%ld) (per-rank budget "
			"floor(%s / %ld) = %ld, %s; a starting point to "
			"compare against)", f.t, f.cpus, r, f.per_rank,
			f.share);
		snprintf(arg, sizeof(arg), "%ld", f.t);
		cpl_fix_args(fd, &t->pos, arg);
		fd->fix_safety = CPL_FIX_UNSAFE;	/* changes the code */
	}
}

const struct cpl_rule cpl_rule_cpu305 = {
	.id = "CPU305",
	.name = "set-num-threads-over-budget",
	.severity = CPL_SEV_ERROR,
	.summary = "torch.set_num_threads(N) times the ranks exceeds the CPU "
		   "limit.",
	.precision = "high",
	.check_container = check,
};
