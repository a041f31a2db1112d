/*
 * prometheus.h — what containers did over a window, from a Prometheus
 * server's HTTP API (instant queries of /api/v1/query).
 *
 * Three queries per namespace, each one matcher for all the namespace's
 * Pods ({namespace="ml", pod=~"a|b", container!=""}), never one query
 * per container:
 *
 *   throttled  sum by (namespace, pod, container)
 *                (rate(container_cpu_cfs_throttled_periods_total[W]))
 *            / sum by (...) (rate(container_cpu_cfs_periods_total[W]))
 *   cpu        sum by (...) (rate(container_cpu_usage_seconds_total
 *                {cpu=~"total|"}[W]))
 *   threads    max by (...) (max_over_time(container_threads[W]))
 *
 * A Pod (or one container of it) may ask for a window of its own (the
 * time it has run, when that is shorter): each query is then the union
 * ("or") of one such term per window, and per Pod measured container by
 * container, so it is still three queries per namespace.
 *
 * Values are stored as Prometheus answered them (+Inf, negative or huge
 * figures too): the caller judges their range.  A throttled share of NaN
 * (0/0: no CFS periods in the window) is left out.
 *
 * Talks HTTP through libcurl's table (kube/curlso.h) only.  A bearer
 * token is read from a file and never appears in errors; an empty one,
 * or one with a control character inside, is an error naming the file;
 * the URL's userinfo is left out of errors too.
 *
 * Ownership: the result is an opaque handle (cpl_prometheus_free); the
 * series and their strings are borrowed from it.
 *
 * May include: util.h, kube/curlso.h and system headers.
 */
#ifndef CPL_PROMETHEUS_H
#define CPL_PROMETHEUS_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

struct cpl_prometheus_opts {
	const char *url;		/* http(s)://host:port[/prefix] */
	const char *token_file;		/* bearer token, or NULL */
	const char *ca_file;		/* PEM CA bundle, or NULL */
	bool insecure;			/* do not verify the certificate */
	long timeout_ms;		/* per request; 0: 30 s */
	long run_left_ms;		/* what is left of the run's time
					 * limit (--live-timeout) when the
					 * queries start; 0: none */
};

/* One container over its window, as Prometheus answered. */
struct cpl_prometheus_series {
	const char *namespace;
	const char *pod;
	const char *container;
	double throttled_ratio;		/* 0..1 when sane */
	bool has_throttled;
	double cpu;			/* CPUs used */
	bool has_cpu;
	double threads;			/* most threads seen */
	bool has_threads;
};

struct cpl_prometheus;

/* One Pod, or one container of it, to measure. */
struct cpl_prometheus_pod {
	const char *namespace;
	const char *name;
	const char *container;		/* NULL: all the Pod's containers */
	double window_s;		/* 0: the query's window */
};

/*
 * Runs the queries for pods (n of them) over window_s seconds, or each
 * entry's own window.  -1 with
 * err (one line naming the server, not its credentials) when Prometheus
 * cannot be reached or answers an error; a timeout says whether it could
 * not connect or connected and did not answer, and within which limit.
 */
int cpl_prometheus_query(struct cpl_prometheus **out,
			 const struct cpl_prometheus_opts *o,
			 const struct cpl_prometheus_pod *pods, size_t n,
			 double window_s, struct cpl_error *err);
void cpl_prometheus_free(struct cpl_prometheus *p);	/* NULL-safe */

/* The series of one container, or NULL. */
const struct cpl_prometheus_series *
cpl_prometheus_find(const struct cpl_prometheus *p, const char *namespace,
		    const char *pod, const char *container);

/*
 * Evaluates PromQL q at epoch second at (0: now) and sums the samples of
 * its answer (a scalar's value, or every series of a vector): *has false
 * when it answered none (a sample of "NaN" is none).  A sample that is
 * not a number ("abc") makes *out NaN with *has true, and a sum may be
 * infinite: the caller judges and says.  0, or -1 with err as
 * cpl_prometheus_query's.
 */
int cpl_prometheus_value(double *out, bool *has,
			 const struct cpl_prometheus_opts *o, const char *q,
			 double at, struct cpl_error *err);
/*
 * Evaluates q, a counter's range selector ("x{...}[600s]"), at epoch
 * second at: *used the counter's increase over every series answered
 * (a fall is a reset, counted from 0), *covered the seconds from the
 * first sample to the last (the time the samples cover, which may be
 * less than the range).  *has false when fewer than two samples came; a
 * sample that is not a number makes *used NaN with *has true.  0, or -1
 * with err as cpl_prometheus_value's.
 */
int cpl_prometheus_counter(double *used, double *covered, bool *has,
			   const struct cpl_prometheus_opts *o, const char *q,
			   double at, struct cpl_error *err);

/* The PromQL of one metric ("throttled", "cpu", "threads") for a
 * namespace and its pod names (n), for tests; the caller frees it. */
char *cpl_prometheus_promql(const char *metric, const char *namespace,
			    const char *const *pods, size_t n,
			    double window_s);

/* The expression of one metric without its matchers, to name the query
 * in notes ("rate(container_cpu_usage_seconds_total[600s])"); caller
 * frees. */
char *cpl_prometheus_expr(const char *metric, double window_s);

#endif
