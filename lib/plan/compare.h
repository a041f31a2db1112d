/*
 * compare.h — `kubectl cpulint compare`: the runs of a plan (the Pods
 * labelled cpulint.io/plan=ID, the Pods of named jobs, or the trials of a
 * Katib experiment), each run's settings read from its spec (threads:
 * MKL_NUM_THREADS, else OMP_NUM_THREADS; workers: the script's --workers
 * style flag) and its measurements from Prometheus over the run's own
 * lifetime (from its container's start to its end, or now): CPU used,
 * throttled share, threads, and the user's throughput and loader-wait
 * PromQL with $pod, $namespace and $window ("123s") substituted.  The
 * Pods of one run (a job's ranks) are one figure: throughput summed over
 * them, wait and CPU used averaged, throttling its worst.  The runs of
 * one setting (one, or one per cpulint.io/repeat value: plan --repeat)
 * make one row: the median of their figures, the most threads seen.
 *
 * Ownership: the result owns its strings (cpl_compare_free).
 */
#ifndef CPL_COMPARE_H
#define CPL_COMPARE_H

#include <stddef.h>

#include "model/finding.h"
#include "plan/verdict.h"
#include "util.h"

struct cpl_compare_opts {
	const struct cpl_live_opts *lo;	/* cluster, -l, -n, --prometheus */
	const char *throughput;		/* --throughput EXPR, or NULL */
	const char *wait;		/* --wait EXPR, or NULL */
	double now;			/* epoch seconds */
};

/* One setting: its figures for the verdict and what else is shown. */
struct cpl_compare_row {
	struct cpl_verdict_row r;	/* r.setting points to setting */
	char *setting;
	size_t pods;
	double window;			/* the longest lifetime measured, s */
	double threads_seen;		/* most threads; < 0 unknown */
	long pools[CPL_BUDGET_POOL_VARS];	/* the pool variables its
					 * spec sets, cpl_pools_vars()'s
					 * order; -1: not a count or unset */
};

struct cpl_compare {
	char *plan;			/* the plan id, when one label says */
	struct cpl_compare_row *rows;	/* in order of threads, workers */
	size_t nrows;
	struct cpl_buf notes;		/* for the user, one per line */
};

/* Reads and measures targets (n; none with -l).  0, or -1 with err. */
int cpl_compare_run(struct cpl_compare *c, const char *const *targets,
		    size_t n, const struct cpl_compare_opts *o,
		    struct cpl_error *err);
void cpl_compare_free(struct cpl_compare *c);

#endif
