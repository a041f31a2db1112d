/*
 * CPU401 cpu-oversubscribed — ranks × (intra-op threads + loader workers)
 * exceeds C, the CPU limit (the request when there is no limit).  An
 * unknown thread count counts as at least 1, unknown workers as 0, an
 * unknown rank count as at least 1: every term is a lower bound, so the
 * rule fires only when oversubscription is certain.  Workers the code
 * sizes from the CPU count under a bound (min(8, os.cpu_count())) count
 * as what they are at least on a node with the CPUs requested: min(8,
 * request), at most 8.  One problem, one finding: when no loader workers
 * add to the threads, the thread count comes from an environment variable
 * or torch.set_num_threads and the ranks alone fit the CPUs, CPU202 or
 * CPU305 reports the same total (and its fix settles it) and this rule
 * stays silent.  A loader whose code decodes images takes turns with
 * the main process (the lab's 1-CPU image job ran fastest with 1 thread
 * and 2 workers): its workers count only beyond the split's allowance
 * (cpl_budget_worker_allowance), so the rule's own fix lints clean.
 * One rank of one thread and no workers on a budget under one CPU is a
 * note: nothing runs in parallel, the budget is the problem; so are
 * ranks of one thread and no workers whose share is under one CPU each
 * (the budget that fits is one CPU per rank).  A setting compare --fix
 * kept from a measurement on this budget (cpulint.io/measured, still
 * the container's threads, workers and budget) is a note citing it: a
 * measurement beats the static model.
 */
#include "common.h"
#include "fix/split.h"

#include <stdio.h>
#include <string.h>

/* Whether the thread rule that reports threads set this way runs: CPU202
 * for MKL_NUM_THREADS / OMP_NUM_THREADS, CPU305 for set_num_threads. */
static bool
thread_rule_reports(struct cpl_check *ck, const struct cpl_amount *t)
{
	if (t->state != CPL_AMT_KNOWN || t->n <= 1)
		return false;
	/* From the env the text is "OMP_NUM_THREADS=8"; what a launcher
	 * sets says so in parentheses, and CPU202 does not judge it. */
	if (strncmp(t->how, "MKL_NUM_THREADS=", 16) == 0 ||
	    strncmp(t->how, "OMP_NUM_THREADS=", 16) == 0)
		return strchr(t->how, '(') == NULL &&
		       cpl_check_rule_on(ck, "CPU202");
	if (strncmp(t->how, "torch.set_num_threads(", 22) == 0)
		return cpl_check_rule_on(ck, "CPU305");
	return false;
}

/* The edit of "raise resources.limits.cpu to need": the limit scalar (and
 * a request equal to it), when the budget is that limit and it is not a
 * Polyaxon range. */
static void
limit_edit(struct cpl_check *ck, struct cpl_finding *fd,
	   const struct cpl_container *c, const struct cpl_facts *f,
	   long need)
{
	char q[32];

	/* A LimitRange's default is the namespace's, not this job's. */
	if (c->cpu_from_limitrange ||
	    c->limit_pos.line <= 0 || c->limit_pos.line != f->cpu_pos.line ||
	    c->limit_pos.column != f->cpu_pos.column ||
	    (c->request_pos.line == c->limit_pos.line &&
	     c->request_pos.column == c->limit_pos.column))
		return;
	snprintf(q, sizeof(q), "\"%ld\"", need);
	cpl_check_replace_scalar(ck, fd, &c->limit_pos, q);
	/* A request equal to the limit (Guaranteed) goes up with it, or
	 * the raise would open a request-limit gap (CPU103). */
	if (c->cpu_request == c->cpu_limit && c->request_pos.line > 0)
		cpl_check_replace_scalar(ck, fd, &c->request_pos, q);
	fd->fix_safety = CPL_FIX_UNSAFE;	/* what the job is given */
}

static void
check(struct cpl_check *ck, const struct cpl_workload *w,
      const struct cpl_container *c)
{
	struct cpl_facts f;
	struct cpl_finding *fd;
	long r, t, wk, total, need, allow;
	const char *var, *least;
	char unknown[400], set[80], from[100] = "";
	struct cpl_tinput in;

	if (!cpl_budget_training(w, c))
		return;
	cpl_facts_gather(&f, w, c);
	if (f.cpu < 0)
		return;
	r = f.ranks.n > 0 ? f.ranks.n : 1;
	t = f.threads.state == CPL_AMT_KNOWN && f.threads.n > 0 ?
	    f.threads.n : 1;
	/* Host-sized workers count as their lower bound (at least 1). */
	wk = f.workers.state == CPL_AMT_KNOWN ||
	     f.workers.state == CPL_AMT_HOST ? f.workers.n : 0;
	total = cpl_sat_mul(r, cpl_sat_add(t, wk));
	/* A loader that decodes takes turns with the main process: its
	 * workers count only beyond the split's allowance. */
	allow = cpl_budget_worker_allowance(f.per_rank, f.loader);
	if (cpl_sat_mul(cpl_sat_mul(r, cpl_sat_add(t, wk > allow ?
			wk - allow : 0)), 1000) <= f.cpu)
		return;
	/* The thread rule's fix (T = B per rank) settles it unless the
	 * ranks alone are more than the CPUs. */
	if (wk == 0 && cpl_sat_mul(r, 1000) <= f.cpu &&
	    thread_rule_reports(ck, &f.threads))
		return;
	least = f.ranks_known ? "" : "at least ";
	/* A raised limit lets capped workers grow to their cap. */
	need = f.workers.state == CPL_AMT_HOST && f.workers.cap > wk ?
	       cpl_sat_mul(r, cpl_sat_add(t, f.workers.cap)) : total;
	fd = cpl_check_report(ck, w, c, &f.cpu_pos,
		"%s x (%ld intra-op %s + %ld loader %s) = %s%ld busy "
		"%s on a %s (container \"%s\")", f.rank_phrase, t,
		cpl_plural(t, "thread", "threads"), wk,
		cpl_plural(wk, "worker", "workers"), least, total,
		cpl_plural(total, "thread", "threads"), f.budget,
		cpl_facts_cname(c));
	/* Name what actually sets the threads. */
	var = strncmp(f.threads.how, "MKL_NUM_THREADS", 15) == 0 ?
	      "MKL_NUM_THREADS and OMP_NUM_THREADS" :
	      strncmp(f.threads.how, "torch.set_num_threads", 21) == 0 ?
	      "the torch.set_num_threads argument" :
	      strncmp(f.threads.how, "accelerate --num_cpu", 20) == 0 ?
	      "--num_cpu_threads_per_process" :
	      strstr(f.threads.how, "(deepspeed --bind") != NULL ?
	      "the --bind_core_list cores per rank" : "OMP_NUM_THREADS";
	if (r > 1 || !f.ranks_known)
		cpl_finding_add_related(fd, &f.ranks.pos, "ranks: %s%s%s%s",
					f.ranks.how, f.ranks_known ? "" : " (",
					f.ranks_known ? "" : f.ranks_why,
					f.ranks_known ? "" : ": counted as 1)");
	if (f.threads.state == CPL_AMT_KNOWN)
		cpl_finding_add_related(fd, &f.threads.pos,
					"intra-op threads: %s", f.threads.how);
	if (f.workers.state == CPL_AMT_HOST && f.workers.cap > 0)
		cpl_finding_add_related(fd, &f.workers.pos,
					"loader workers: %s (counted as %ld: "
					"the node has at least the CPUs "
					"requested)", f.workers.how, wk);
	else if (f.workers.state == CPL_AMT_KNOWN ||
		 f.workers.state == CPL_AMT_HOST)
		cpl_finding_add_related(fd, &f.workers.pos,
					"loader workers: %s%s", f.workers.how,
					f.workers.state == CPL_AMT_HOST ?
					" (counted as its lower bound)" : "");
	/* A count a Polyaxon template reads is named where it is set. */
	if (f.workers.state == CPL_AMT_KNOWN &&
	    cpl_check_template_input(ck, &f.workers.pos, &in) &&
	    in.value == f.workers.n) {
		cpl_finding_add_related(fd, &in.at, "loader workers: the "
					"Polyaxon input \"%s\" (value %ld)",
					in.name, in.value);
		snprintf(from, sizeof(from), " through the Polyaxon input \"%s\"",
			 in.name);
	}
	/* Threads already at the split are not asked for again. */
	if (f.threads.state == CPL_AMT_KNOWN && f.threads.n == f.t)
		snprintf(set, sizeof(set), "keep %s at", var);
	else
		snprintf(set, sizeof(set), "set %s to", var);
	if (!f.ranks_known) {
		cpl_facts_ranks_unknown_fix(unknown, sizeof(unknown), &f, var);
		cpl_finding_set_fix(fd, "%s, or raise resources.limits.cpu to "
				    "at least \"%ld\"", unknown, total);
	} else if (cpl_facts_measured(fd, w, &f)) {
		/* kept from a measurement: a note, no edit */
	} else if (f.per_rank >= 1 && f.no_workers) {
		cpl_finding_set_fix(fd,
			"per-rank budget floor(%s / %ld) = %ld, all of it for "
			"threads as no loader workers run: set %s to \"%ld\" "
			"(a starting point to compare against), "
			"or raise resources.limits.cpu to \"%ld\"", f.cpus, r,
			f.per_rank, var, f.t, total);
		cpl_keep_split(ck, fd, c, &f, f.t, f.w, false);
	} else if (f.per_rank >= 1 && f.loader == CPL_LOADER_DECODE) {
		cpl_finding_set_fix(fd,
			"per-rank budget floor(%s / %ld) = %ld, the larger "
			"share to the workers as the loader decodes images "
			"(%s), which wait while compute runs: %s \"%ld\" "
			"and use %ld loader worker(s) per rank%s (a "
			"starting point to compare against), or raise "
			"resources.limits.cpu to \"%ld\"", f.cpus, r,
			f.per_rank, f.decodes, set, f.t, f.w, from, need);
		cpl_keep_split(ck, fd, c, &f, f.t, f.w, true);
	} else if (f.per_rank >= 1) {
		cpl_finding_set_fix(fd,
			"per-rank budget floor(%s / %ld) = %ld: %s "
			"\"%ld\" and use %ld loader worker(s) per rank%s (a "
			"starting point to compare against), or raise "
			"resources.limits.cpu to \"%ld\"", f.cpus, r,
			f.per_rank, set, f.t, f.w, from, need);
		cpl_keep_split(ck, fd, c, &f, f.t, f.w, true);
	} else if (r > 1) {
		/* Ranks of one thread and no workers, each with less than
		 * a CPU: nothing to lower, the budget is the problem. */
		if (t == 1 && wk == 0) {
			if (fd->severity > CPL_SEV_NOTE)
				fd->severity = CPL_SEV_NOTE;
			cpl_finding_set_fix(fd,
				"one thread per rank is the least: the budget "
				"that fits is %ld CPUs, one per rank; raise "
				"resources.limits.cpu to \"%ld\", start fewer "
				"ranks, or accept the throttling of a %s", r,
				need, f.budget);
		} else
			cpl_finding_set_fix(fd,
				"%ld ranks need at least %ld CPUs: raise "
				"resources.limits.cpu to \"%ld\" or start "
				"fewer ranks", r, r, need);
		limit_edit(ck, fd, c, &f, need);
	} else {
		/* One thread and no workers on a budget under one CPU: the
		 * budget is the problem, not the threads; a note. */
		if (t == 1 && wk == 0 && fd->severity > CPL_SEV_NOTE)
			fd->severity = CPL_SEV_NOTE;
		if (t == 1 && wk == 0)
			cpl_finding_set_fix(fd,
				"one rank with one thread keeps a whole CPU "
				"busy: raise resources.limits.cpu to \"%ld\", "
				"or accept that it is throttled to %s CPU",
				need, f.cpus);
		else
			cpl_finding_set_fix(fd,
				"one rank keeps %ld CPUs busy: raise "
				"resources.limits.cpu to \"%ld\", or run 1 "
				"thread and no loader workers on %s CPU",
				total, need, f.cpus);
		limit_edit(ck, fd, c, &f, need);
	}
}

const struct cpl_rule cpl_rule_cpu401 = {
	.id = "CPU401",
	.name = "cpu-oversubscribed",
	.severity = CPL_SEV_ERROR,
	.summary = "Ranks x (intra-op threads + loader workers) exceeds the "
		   "CPU budget.",
	.precision = "high",
	.check_container = check,
};
