/*
 * cadvisor.h — CFS throttling, CPU use and thread counts from the
 * kubelet's cAdvisor metrics (Prometheus text format, as served by
 * /api/v1/nodes/NODE/proxy/metrics/cadvisor).
 *
 * cpl_cadvisor_parse() reads container_cpu_cfs_throttled_periods_total,
 * container_cpu_cfs_periods_total, container_threads,
 * container_threads_max (the cgroup's pids.max; 0 when unlimited) and
 * container_cpu_usage_seconds_total (its cpu="total" series, else the sum
 * of per-CPU ones) and sums them per (namespace, pod, container) label
 * set, and the node's machine_cpu_cores; every other line is skipped
 * unparsed.  A sample that is not a finite number >= 0 (NaN, +Inf, a
 * negative count) is left out of its sum and marks the metric bad for
 * its container: the caller judges it unknown.  The pod
 * and container labels fall back to the pre-1.16 pod_name and
 * container_name.  Samples without a namespace or pod label (node and
 * system cgroups) are ignored.  Container "" is the pod's own cgroup and
 * "POD" the sandbox on older runtimes; they are kept under those names.
 * Escapes in label values, comments, timestamps, CRLF and blank lines are
 * handled; the cost is linear in the input.
 *
 * Ownership: the result is an opaque handle (cpl_cadvisor_free); the
 * counters and their strings are borrowed from it.
 */
#ifndef CPL_CADVISOR_H
#define CPL_CADVISOR_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* A metric of a container had a sample that is not a finite number >= 0
 * (struct cpl_cadvisor_counters, bad). */
#define CPL_CADVISOR_BAD_THROTTLED 1u
#define CPL_CADVISOR_BAD_PERIODS 2u
#define CPL_CADVISOR_BAD_THREADS 4u
#define CPL_CADVISOR_BAD_CPU 8u
#define CPL_CADVISOR_BAD_THREADS_MAX 16u

/* One container's counters, summed over its series. */
struct cpl_cadvisor_counters {
	const char *namespace;
	const char *pod;
	const char *container;
	double throttled_periods;	/* ..._cfs_throttled_periods_total */
	double periods;			/* ..._cfs_periods_total */
	bool has_throttled;		/* a throttled sample was seen */
	bool has_periods;		/* a periods sample was seen */
	double threads;			/* container_threads: threads now */
	bool has_threads;
	double threads_max;		/* container_threads_max: the cgroup's
					 * pids.max, 0 unlimited (the smallest
					 * of its series) */
	bool has_threads_max;
	double cpu_seconds;		/* container_cpu_usage_seconds_total */
	bool has_cpu_seconds;
	unsigned bad;			/* CPL_CADVISOR_BAD_* */
};

struct cpl_cadvisor;

/*
 * Parses text (len bytes, need not be NUL-terminated).  origin names the
 * source in errors (e.g. "nodes/n1/proxy/metrics/cadvisor").  -1 with err
 * (origin, line, column) on a malformed sample of the two metrics.
 */
int cpl_cadvisor_parse(struct cpl_cadvisor **out, const char *text,
		       size_t len, const char *origin, struct cpl_error *err);
void cpl_cadvisor_free(struct cpl_cadvisor *m);	/* NULL-safe */

/* The counters of one container, or NULL when the metrics have none. */
const struct cpl_cadvisor_counters *
cpl_cadvisor_find(const struct cpl_cadvisor *m, const char *namespace,
		  const char *pod, const char *container);

/* The node's CPUs (machine_cpu_cores); 0 when the metrics do not say. */
double cpl_cadvisor_machine_cpus(const struct cpl_cadvisor *m);

/* All containers, in order of first appearance. */
size_t cpl_cadvisor_count(const struct cpl_cadvisor *m);
const struct cpl_cadvisor_counters *
cpl_cadvisor_at(const struct cpl_cadvisor *m, size_t i);

#endif
