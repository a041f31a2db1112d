/*
 * sweep.h — the settings a plan compares: one knob at a time around the
 * budget's suggestion (DESIGN.md's split of the per-rank budget B into T
 * intra-op threads and W loader workers).
 *
 *   threads  T' over 1, 2, 4, ... up to B - W, with the workers at W;
 *   workers  W' over 0, 1, 2, 4, ... up to B - T, with the threads at T;
 *
 * each list also holds its bound and the suggestion, so the suggested
 * setting (T, W) is in both (and listed once); the threads stop at B - W
 * even when the plan cannot set the workers (the code runs some).  Every setting stays
 * inside the budget (T' + W' <= B per rank), so the linter finds nothing
 * new in any of them; --max caps each knob further.  When the workers
 * cannot be set from the spec (the code fixes them), only the threads
 * vary.  Pure arithmetic: nothing is allocated.
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
};

struct cpl_sweep_setting {
	long threads;
	long workers;		/* -1: not set by the plan */
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
};

/*
 * Fills out (CPL_SWEEP_MAX entries) and returns how many: the suggestion
 * first, then the thread settings ascending, then the worker settings
 * ascending.  0 when the budget is below one CPU.
 */
size_t cpl_sweep_make(struct cpl_sweep_setting *out,
		      const struct cpl_sweep_in *in);

#endif
