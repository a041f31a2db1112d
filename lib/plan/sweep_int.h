/*
 * sweep_int.h — the settings a plan compares: one knob at a time around the
 * budget's suggestion (budget.h's split of the per-rank budget B into T
 * intra-op threads and W loader workers), and the job's current setting.
 *
 *   threads  T' over 1, 2, 4, ... up to max(T, B - W), with the workers
 *            at W: the threads below the suggestion are there for when
 *            throttling rises;
 *   workers  W' over 0, 1, 2, 4, ... (from 1 when the code's DataLoader
 *            needs workers: torch refuses persistent_workers=True with
 *            none) with the threads at T: up to B - T
 *            without a loader, and past the budget with one, up to
 *            max(W, B - T) + max(2, B / 2) (a loader waits while compute
 *            runs: the lab's 1-CPU image job was fastest with 1 thread
 *            and 2 workers);
 *   current  the job's own setting as written, when its threads (and
 *            workers, when the plan sets them) are known numbers and it
 *            is none of the above and within --max: its id ends in
 *            "-current", so compare can say what the winner gains over
 *            it;
 *
 * each list also holds its bound and the suggestion, so the suggested
 * setting (T, W) is in both (and listed once); the threads keep the
 * workers' share even when the plan cannot set the workers (the code
 * runs some).  The threads never pass the budget (the linter finds no
 * new CPU202 in any setting); --max caps each knob further.  When the
 * workers cannot be set from the spec (the code fixes them), only the
 * threads vary.  Pure arithmetic: nothing is allocated.
 */
#ifndef CPL_PLAN_SWEEP_H
#define CPL_PLAN_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

/* The most settings a sweep holds (two knobs of at most 64 values
 * each, powers of two and the bounds). */
#define CPL_SWEEP_MAX 32

/* Which knob a setting varies. */
enum cpl_sweep_knob {
	CPL_SWEEP_BASE,		/* the suggestion itself */
	CPL_SWEEP_THREADS,	/* threads vary, workers at the suggestion */
	CPL_SWEEP_WORKERS,	/* workers vary, threads at the suggestion */
	CPL_SWEEP_CURRENT,	/* the job's setting as written */
};

/* The suffix of the current setting's id ("t2-w4-current"). */
#define CPL_SWEEP_CURRENT_SUFFIX "-current"

/* The most pool variables a setting sets (CPL_BUDGET_POOL_VARS). */
#define CPL_SWEEP_POOLS 4

struct cpl_sweep_setting {
	long threads;
	long workers;		/* -1: not set by the plan */
	long pools[CPL_SWEEP_POOLS];	/* the plan's pool variables
					 * (struct cpl_plan), in its order;
					 * filled by planrun, not sweep */
	enum cpl_sweep_knob knob;
	char id[32];		/* "t2-w1", "t4": label value and name part */
};

/* What the sweep is made from. */
struct cpl_sweep_in {
	long per_rank;		/* B >= 1 */
	long threads;		/* the suggested T */
	long workers;		/* the suggested W */
	long max;		/* --max: each knob at most this; 0: none */
	bool set_workers;	/* the plan can set the workers */
	bool loader;		/* the job runs a loader: workers may pass B */
	long min_workers;	/* the least workers its code takes (1 with
				 * persistent_workers=True): none below */
	long cur_threads;	/* the job's threads as written; < 1 unknown */
	long cur_workers;	/* its workers; < 0 unknown */
};

/*
 * Fills out (CPL_SWEEP_MAX entries) and returns how many: the suggestion
 * first, then the thread settings ascending, then the worker settings
 * ascending, then the current setting.  0 when the budget is below one
 * CPU (planrun.c plans a budget under one CPU per rank as one).
 */
size_t cpl_sweep_make(struct cpl_sweep_setting *out,
		      const struct cpl_sweep_in *in);

#endif
