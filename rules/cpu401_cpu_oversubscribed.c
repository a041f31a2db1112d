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
 * Every other pool counts too (model/pools.h): a native pool the process
 * uses and sizes to n > 1 (OPENBLAS_NUM_THREADS=8, an ONNX Runtime
 * session's intra_op_num_threads, torch.set_num_interop_threads) adds
 * n - 1 threads to its rank, or to each loader worker it runs in; the
 * message names each such pool, a note points at the line that sizes
 * it, and the fix sets it to 1 (the calling thread does its work).
 */
#include "common.h"
#include "model/pools.h"
#include "model/tinput.h"

#include <stdio.h>
#include <stdlib.h>
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
limit_edit(struct cpl_finding *fd,
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
	cpl_fix_scalar(fd, &c->limit_pos, q);
	/* A request equal to the limit (Guaranteed) goes up with it, or
	 * the raise would open a request-limit gap (CPU103). */
	if (c->cpu_request == c->cpu_limit && c->request_pos.line > 0)
		cpl_fix_scalar(fd, &c->request_pos, q);
	fd->fix_safety = CPL_FIX_UNSAFE;	/* what the job is given */
}

/* The message's terms for the pools that add threads: " + 7 OpenBLAS
 * threads", " + 2 workers x 3 tokenizers (Rayon) threads". */
static void
pool_terms(char *out, size_t size, const struct cpl_pools *ps, long wk)
{
	size_t k, len = 0;

	out[0] = '\0';
	for (k = 0; k < CPL_POOL_NKINDS && len < size; k++) {
		const struct cpl_pool *p = &ps->p[k];
		long n = cpl_pool_extra(p);

		if (n == 0)
			continue;
		/* With no workers the pipeline runs in the rank. */
		if (p->in_workers && wk > 0)
			cpl_format(out + len, size - len,
				   " + %ld %s x %ld %s %s", wk,
				   cpl_plural(wk, "worker", "workers"), n,
				   p->name, cpl_plural(n, "thread", "threads"));
		else
			cpl_format(out + len, size - len, " + %ld %s %s", n,
				   p->name, cpl_plural(n, "thread", "threads"));
		len = strlen(out);
	}
}

/* The notes on the pools that add threads, and their part of the fix:
 * each set to 1, by an edit of its env variable where the manifest
 * writes it as a number (edits only when the split's are made). */
static void
pool_fix(struct cpl_finding *fd, const struct cpl_pools *ps, long wk,
	 bool edits)
{
	char text[400];
	size_t k, len = 0;

	text[0] = '\0';
	for (k = 0; k < CPL_POOL_NKINDS; k++) {
		const struct cpl_pool *p = &ps->p[k];
		long n = cpl_pool_extra(p);
		bool env;

		if (n == 0)
			continue;
		cpl_finding_add_related(fd, &p->size.pos, "%s pool: %s (%ld "
					"threads, %ld beyond the calling "
					"thread%s)", p->name, p->size.how,
					p->size.n, n, p->in_workers && wk > 0 ?
					", in each loader worker" : "");
		if (p->use.file != NULL && p->use_how != NULL)
			cpl_finding_add_related(fd, &p->use, "%s used here "
						"(%s)", p->name, p->use_how);
		env = p->env != NULL &&
		      strncmp(p->size.how, p->env, strlen(p->env)) == 0 &&
		      p->size.how[strlen(p->env)] == '=';
		if (len < sizeof(text))
			cpl_format(text + len, sizeof(text) - len,
				   "%s%s%s", len ? ", " : "",
				   env ? p->env : p->setter,
				   env ? "=\"1\"" : " to 1");
		len = strlen(text);
		/* A fix applies whole or not at all: a pool set in code
		 * (or by a variable no edit reaches) takes the split's
		 * edits with it. */
		if (edits && env)
			cpl_fix_env_count(fd, &p->size.pos, p->size.n, 1,
					  CPL_FIXREQ_IF_SPLIT |
					  CPL_FIXREQ_WHOLE);
		else if (edits)
			cpl_fix_add(fd, CPL_FIXOP_FAIL, CPL_FIXREQ_IF_SPLIT |
				    CPL_FIXREQ_WHOLE);
	}
	if (len > 0 && fd->fix != NULL) {
		char *fix = cpl_xstrdup(fd->fix);

		cpl_finding_set_fix(fd, "%s; and set the other pools to 1 "
				    "thread each (the calling thread does "
				    "their work): %s", fix, text);
		free(fix);
	}
}

/* The busy threads of one rank counted against the budget: threads t,
 * the rank's pools, and the workers beyond the allowance with theirs
 * (with no workers the pipeline's pools run in the rank). */
static long
counted(const struct cpl_pools *ps, long t, long wk, long allow)
{
	long xr, xw;

	if (wk == 0)
		return cpl_pools_busy(ps, t, 0);
	cpl_pools_extra(&xr, &xw, ps);
	return cpl_sat_add(cpl_sat_add(t, xr),
			   cpl_sat_mul(wk > allow ? wk - allow : 0,
				       cpl_sat_add(1, xw)));
}

/*
 * One problem, one finding: whether CPU202's fixes (the thread variable
 * to the split's T, each pool's variable to its share) settle it, with
 * at least one pool among them.  Then CPU202 reports the pools and
 * this rule stays silent.
 */
static bool
pools_rule_settles(struct cpl_check *ck, const struct cpl_facts *f,
		   const struct cpl_container *c, const struct cpl_pools *ps,
		   long r, long t, long wk, long allow)
{
	struct cpl_pools after = *ps;
	struct cpl_amount a;
	bool any = false;
	size_t k;

	if (!cpl_check_rule_on(ck, "CPU202") || !f->ranks_known ||
	    cpl_sat_mul(r, 1000) > f->cpu)
		return false;
	for (k = 0; k < CPL_POOL_NKINDS; k++) {
		if (cpl_pool_extra(&ps->p[k]) == 0 ||
		    !cpl_pools_env_over(&a, ps, (enum cpl_pool_kind)k, c, r,
					wk, f->cpu))
			continue;
		after.p[k].size.n = cpl_facts_pool_share(NULL, f, ps,
						(enum cpl_pool_kind)k);
		any = true;
	}
	if (!any)
		return false;
	/* The threads go to the split's T only where CPU202 or CPU305
	 * reports them (over the budget on their own). */
	if (thread_rule_reports(ck, &f->threads) &&
	    cpl_sat_mul(cpl_sat_mul(t, r), 1000) > f->cpu)
		t = f->t;
	return cpl_sat_mul(cpl_sat_mul(r, counted(&after, t, wk, allow)),
			   1000) <= f->cpu;
}

/* The fix's other way, raising the limit to need ("at least" when
 * least): into out, or, where the namespace's LimitRange caps the limit
 * below need, that admission would reject the raise. */
static void
raise_or(char *out, size_t size, const struct cpl_container *c, long need,
	 bool least)
{
	char m[16];

	if (c->limits != NULL && c->limits->max >= 0 &&
	    cpl_sat_mul(need, 1000) > c->limits->max) {
		cpl_budget_cpus_str(m, sizeof(m), c->limits->max);
		snprintf(out, size, "; LimitRange \"%s\" caps the limit at "
			 "%s, so a larger one is rejected at admission",
			 c->limits->name ? c->limits->name : "", m);
		return;
	}
	snprintf(out, size, ", or raise resources.limits.cpu to %s\"%ld\"",
		 least ? "at least " : "", need);
}

static void
check(struct cpl_check *ck, const struct cpl_workload *w,
      const struct cpl_container *c)
{
	struct cpl_facts f;
	struct cpl_finding *fd;
	long r, t, wk, total, need, allow, xr, xw, busy;
	const char *var, *least;
	char unknown[400], set[80], from[100] = "", terms[300], raise[400];
	char least_w[96] = "";
	struct cpl_tinput in;
	struct cpl_pools ps;
	bool split = false;

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
	/* Every other pool: n - 1 threads per rank, or per worker. */
	cpl_budget_pools(&ps, w, c);
	cpl_pools_extra(&xr, &xw, &ps);
	busy = cpl_pools_busy(&ps, t, wk);
	total = cpl_sat_mul(r, busy);
	/* A loader that decodes takes turns with the main process: its
	 * workers count only beyond the split's allowance. */
	allow = cpl_budget_worker_allowance(f.per_rank, f.loader);
	/* Nor do the workers a DataLoader's arguments need (w_min). */
	allow = cpl_sat_add(allow, f.w_raised);
	if (cpl_sat_mul(cpl_sat_mul(r, counted(&ps, t, wk, allow)), 1000) <=
	    f.cpu)
		return;
	/* The thread rule's fix (T = B per rank) settles it unless the
	 * ranks alone are more than the CPUs, or other pools add. */
	if (wk == 0 && xr == 0 && xw == 0 && cpl_sat_mul(r, 1000) <= f.cpu &&
	    thread_rule_reports(ck, &f.threads))
		return;
	/* CPU202's fixes of the pools' variables (and of the threads)
	 * settle it. */
	if (pools_rule_settles(ck, &f, c, &ps, r, t, wk, allow))
		return;
	least = f.ranks_known ? "" : "at least ";
	/* A raised limit lets capped workers grow to their cap. */
	need = f.workers.state == CPL_AMT_HOST && f.workers.cap > wk ?
	       cpl_sat_mul(r, cpl_sat_add(cpl_sat_add(t, xr),
			cpl_sat_mul(f.workers.cap, cpl_sat_add(1, xw)))) :
	       total;
	pool_terms(terms, sizeof(terms), &ps, wk);
	fd = cpl_check_report(ck, w, c, &f.cpu_pos,
		"%s x (%ld intra-op %s + %ld loader %s%s) = %s%ld busy "
		"%s on a %s (container \"%s\")", f.rank_phrase, t,
		cpl_plural(t, "thread", "threads"), wk,
		cpl_plural(wk, "worker", "workers"), terms, least, total,
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
	/* Workers the code cannot go below (torch refuses
	 * persistent_workers=True with none): the split keeps one, and
	 * says why where that changed it. */
	if (f.w_raised > 0 && f.w_min_pos.file != NULL)
		cpl_finding_add_related(fd, &f.w_min_pos, "loader workers: "
					"at least %ld, as the DataLoader is "
					"given %s (torch refuses it with "
					"num_workers=0)", f.w_min,
					f.w_min_how);
	if (f.w_raised > 0)
		snprintf(least_w, sizeof(least_w), ", the least its "
			 "DataLoader's %s takes", f.w_min_how);
	/* Threads already at the split are not asked for again. */
	if (f.threads.state == CPL_AMT_KNOWN && f.threads.n == f.t)
		snprintf(set, sizeof(set), "keep %s at", var);
	else
		snprintf(set, sizeof(set), "set %s to", var);
	if (!f.ranks_known) {
		cpl_facts_ranks_unknown_fix(unknown, sizeof(unknown), &f, var);
		raise_or(raise, sizeof(raise), c, total, true);
		cpl_finding_set_fix(fd, "%s%s", unknown, raise);
	} else if (cpl_facts_measured(fd, w, &f)) {
		/* kept from a measurement: a note, no edit */
	} else if (f.per_rank >= 1 && f.no_workers) {
		raise_or(raise, sizeof(raise), c, total, false);
		cpl_finding_set_fix(fd,
			"per-rank budget floor(%s / %ld) = %ld, all of it for "
			"threads as no loader workers run: set %s to \"%ld\" "
			"(a starting point to compare against)%s", f.cpus, r,
			f.per_rank, var, f.t, raise);
		cpl_fix_split(fd, c, &f, f.t, f.w, false);
		split = true;
	} else if (cpl_budget_loader_busy(f.loader, f.per_rank)) {
		raise_or(raise, sizeof(raise), c, need, false);
		cpl_finding_set_fix(fd,
			"per-rank budget floor(%s / %ld) = %ld, the larger "
			"share to the workers as the loader %s (%s), %s: "
			"%s \"%ld\" and use %ld loader worker(s) per "
			"rank%s (a starting point to compare against)%s",
			f.cpus, r, f.per_rank,
			cpl_budget_loader_phrase(f.loader), f.decodes,
			f.loader == CPL_LOADER_DECODE ?
			"which wait while compute runs" :
			"while the rank mostly waits for batches", set, f.t,
			f.w, from, raise);
		cpl_fix_split(fd, c, &f, f.t, f.w, true);
		split = true;
	} else if (f.per_rank >= 1) {
		raise_or(raise, sizeof(raise), c, need, false);
		cpl_finding_set_fix(fd,
			"per-rank budget floor(%s / %ld) = %ld: %s "
			"\"%ld\" and use %ld loader worker(s) per rank%s%s "
			"(a starting point to compare against)%s", f.cpus, r,
			f.per_rank, set, f.t, f.w, from, least_w, raise);
		cpl_fix_split(fd, c, &f, f.t, f.w, true);
		split = true;
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
		limit_edit(fd, c, &f, need);
	} else if (t == 1 && wk <= f.w_min) {
		/* One thread and no workers (or the one its DataLoader
		 * needs) on a budget under one CPU: the budget is the
		 * problem, not the threads; a note. */
		if (fd->severity > CPL_SEV_NOTE)
			fd->severity = CPL_SEV_NOTE;
		cpl_finding_set_fix(fd,
			"one rank with one thread keeps a whole CPU busy: "
			"raise resources.limits.cpu to \"%ld\", or accept "
			"that it is throttled to %s CPU", need, f.cpus);
		limit_edit(fd, c, &f, need);
	} else {
		/* Under one CPU a rank runs least: one thread and no
		 * workers (or the one its DataLoader needs), as on one
		 * CPU; the edit sets that, a larger limit is the text's
		 * other way (the other branches' order). */
		raise_or(raise, sizeof(raise), c, need, false);
		if (f.no_workers)
			cpl_finding_set_fix(fd,
				"one rank keeps %ld CPUs busy on %s CPU: %s "
				"\"1\", as no loader workers run (a starting "
				"point to compare against)%s", total, f.cpus,
				set, raise);
		else
			cpl_finding_set_fix(fd,
				"one rank keeps %ld CPUs busy on %s CPU: %s "
				"\"1\" and use %ld loader worker(s)%s%s (a "
				"starting point to compare against)%s", total,
				f.cpus, set, f.w, from, least_w, raise);
		cpl_fix_split(fd, c, &f, 1, f.w, !f.no_workers);
		split = true;
	}
	pool_fix(fd, &ps, wk, split);
}

const struct cpl_rule cpl_rule_cpu401 = {
	.id = "CPU401",
	.name = "cpu-oversubscribed",
	.severity = CPL_SEV_ERROR,
	.summary = "Ranks x (intra-op threads + loader workers + other "
		   "native pools) exceeds the CPU budget.",
	.precision = "high",
	.check_container = check,
};
