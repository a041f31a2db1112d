/*
 * livemeasure_int.h — what live containers did: the threads they ran, the
 * CPUs they used and the share of CFS periods they were throttled in,
 * from the kubelets' cAdvisor metrics (through the API server's node
 * proxy, once per node, or twice --sample apart) or from Prometheus over
 * --window (live.c reads the Pods; this module measures them).
 *
 * Invariants:
 *   - a Prometheus window is never longer than the container has run (its
 *     status's state.running.startedAt): rate() over time before it
 *     started would dilute its figures.  The clamped window is the one
 *     reported (measure_window, window_clamped) and a note says so;
 *   - a figure out of range is unknown, never reported: negative or not
 *     finite, a throttled share above 1, CPUs above twice the node's
 *     (machine_cpu_cores, when cAdvisor says) or above CPL_CPUS_MAX, a
 *     thread count that is not a whole number or above CPL_THREADS_MAX.
 *     A note names the figure, the value and the query (or the cAdvisor
 *     source) it came from;
 *   - notes go to the container's measure_notes (JSON measured notes)
 *     and, with -v, to the log hook, one line per Pod and container.
 *
 * Ownership: fills the containers of the groups' workloads (borrowed
 * from lp); errors go to the engine, notes for the user to notes.
 */
#ifndef CPL_LIVEMEASURE_H
#define CPL_LIVEMEASURE_H

#include "kube/kubeclient.h"
#include "live/live.h"
#include "live/livepods_int.h"
#include "run/engine.h"
#include "util.h"

/* No machine has more CPUs: Linux's largest NR_CPUS (MAXSMP). */
#define CPL_CPUS_MAX 8192.0
/* No node runs more threads: PID_MAX_LIMIT of 64-bit Linux (2^22). */
#define CPL_THREADS_MAX 4194304.0

/* What to measure, and where results and problems go. */
struct cpl_livemeasure {
	struct cpl_engine *e;		/* errors (a Prometheus that fails) */
	const struct cpl_live_opts *o;	/* --sample, --prometheus, --window,
					 * the -v log hook */
	struct cpl_kubeclient *client;	/* reads the nodes' metrics */
	struct cpl_livepods *lp;	/* the Pods, their groups, nodes */
	struct cpl_buf *notes;		/* for the user, one per line */
	double now;			/* epoch seconds of the measurement */
	struct cpl_livemeasure_cache *cache;	/* NULL: read each node */
};

/*
 * The nodes' cAdvisor metrics (or why a node could not be read) kept
 * from one measurement to the next, so that many measurements in a row
 * (serve's audit judging owner after owner) read each node once: with
 * one, a measurement without --sample reads only the nodes it does not
 * hold.  It holds every node read until cleared (as --sample's two
 * reads do); clear it when the figures should be read again.
 */
struct cpl_livemeasure_cache;

struct cpl_livemeasure_cache *cpl_livemeasure_cache_new(void);
void cpl_livemeasure_cache_clear(struct cpl_livemeasure_cache *c);
void cpl_livemeasure_cache_free(struct cpl_livemeasure_cache *c);

/* Measures every Pod of m->lp into its group's workload. */
void cpl_livemeasure_run(const struct cpl_livemeasure *m);

/*
 * The window to ask Prometheus for a container that started at start
 * (epoch seconds; 0 unknown) when window is asked at now: window, or the
 * time it has run when shorter (*clamped set), rounded down to whole
 * seconds and to two significant figures (containers started moments
 * apart share a term of the query), at least 1 s.
 */
double cpl_livemeasure_window(bool *clamped, double window, double start,
			      double now);

#endif
