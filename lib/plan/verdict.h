/*
 * verdict.h — what a comparison's figures say, by the guidance's rules
 * applied literally:
 *
 *   best     the setting with the most examples per second; settings
 *            within 2% of it tie, and a tie goes to fewer threads, then
 *            fewer workers (a setting run several times: the median of
 *            its runs, said with their range).  Without a throughput figure: the settings
 *            throttled below the threshold, the one that used the most
 *            CPU (else the least throttled), and the verdict says so;
 *   gain     what the best gains over the job as written, the row the
 *            plan ran as its current setting ("t2-w4-current"): "t1-w2:
 *            2.06x your t2-w4"; or, when that row is the best, keep it;
 *   workers  among settings with the same threads, when more workers
 *            raised the throttled share (by more than 1 point) without
 *            raising throughput (by more than 2%): keep the fewer;
 *   storage  a setting that used less than half its CPU budget while the
 *            loop waited for batches 20% of the time or more: look at
 *            storage and decoding before adding threads.
 *
 * Pure: rows in, lines out (owned by the verdict; cpl_verdict_free).
 */
#ifndef CPL_PLAN_VERDICT_H
#define CPL_PLAN_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

/* One setting's figures; a figure below 0 is unknown. */
struct cpl_verdict_row {
	const char *setting;	/* "t2-w1" */
	long threads;
	long workers;
	double throughput;	/* examples per second */
	double wait;		/* share of time waiting for batches, 0..1 */
	double cpu_used;	/* CPUs (per Pod, averaged) */
	double cpu_budget;	/* CPUs: the limit, else the request */
	double throttled;	/* percent of CFS periods (worst Pod) */
	size_t runs;		/* runs of the setting whose median the
				 * figures are (plan --repeat); 0, 1: one */
	double throughput_min;	/* its lowest and highest run's */
	double throughput_max;	/* throughput; < 0 unknown */
};

struct cpl_verdict_line {
	const char *kind;	/* "best", "gain", "workers", "storage"
				 * (static) */
	char *text;
};

struct cpl_verdict {
	long best;		/* index of the best row; -1 none */
	bool by_throughput;	/* ranked by throughput */
	struct cpl_verdict_line *lines;
	size_t nlines;
};

/* Judges rows (n); threshold: the throttling threshold in percent. */
void cpl_verdict_judge(struct cpl_verdict *v,
		       const struct cpl_verdict_row *rows, size_t n,
		       double threshold);
void cpl_verdict_free(struct cpl_verdict *v);

#endif
