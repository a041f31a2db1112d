/*
 * livemeasure.c — threads, CPU use and CFS throttling of live containers,
 * from cAdvisor or Prometheus, range-checked (see livemeasure_int.h).
 *
 * A group of Pods keeps its most throttled Pod's figures (then the one
 * with the most threads), named (measured_pod), with that Pod's notes.
 * cAdvisor metrics are read one node after the other and freed before the
 * next, so memory holds one node's metrics, not the cluster's, unless a
 * cache (serve's audit) keeps them for the measurements that follow; a
 * sample then borrows the cache's metrics and frees none of them.
 */
#include "live/livemeasure_int.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube/cadvisor.h"
#include "kube/prometheus.h"

/* A counter past this cannot be held as a whole count (uint64_t). */
#define COUNT_MAX 9.2e18

static int unreadable;	/* sentinel value in a sample's node map */

/* Where one Pod's container is being measured, for its notes. */
struct at {
	const struct cpl_livemeasure *lm;
	const struct cpl_livepod *p;
	const char *ns;
	const char *container;
};

/* A value as Prometheus writes it: "+Inf", "-Inf", "NaN", "%g". */
static void
fmt_value(char *out, size_t size, double v)
{
	if (isnan(v))
		cpl_format(out, size, "NaN");
	else if (isinf(v))
		cpl_format(out, size, "%sInf", v > 0 ? "+" : "-");
	else
		cpl_format(out, size, "%g", v);
}

static void note(struct cpl_container *m, const struct at *a,
		 const char *fmt, ...) CPL_PRINTF(3, 4);

/* Adds one note to m (a line of its measure_notes) and, with -v, logs it
 * for the Pod's container. */
static void
note(struct cpl_container *m, const struct at *a, const char *fmt, ...)
{
	va_list ap;
	char *text, *all;

	va_start(ap, fmt);
	text = cpl_xvasprintf(fmt, ap);
	va_end(ap);
	all = m->measure_notes ? cpl_xasprintf("%s\n%s", m->measure_notes,
					       text) : cpl_xstrdup(text);
	free(m->measure_notes);
	m->measure_notes = all;
	if (a->lm->o->log) {
		char *line = cpl_xasprintf("pod/%s/%s[%s]: measured: %s",
					   a->ns, a->p->name, a->container,
					   text);

		a->lm->o->log(a->lm->o->log_ctx, line);
		free(line);
	}
	free(text);
}

/* ---- ranges ------------------------------------------------------------- */

/* Why v is not a thread count (NULL: it is one). */
static const char *
bad_threads(double v)
{
	if (!isfinite(v) || v < 0)
		return "not a count";
	if (v != floor(v))
		return "not a whole number of threads";
	if (v > CPL_THREADS_MAX)
		return "above 4194304, more than a Linux node can run";
	return NULL;
}

/* Why v is not a number of CPUs used on a node of node_cpus (0 unknown);
 * NULL when it is one.  The text is in buf. */
static const char *
bad_cpus(char *buf, size_t size, double v, double node_cpus)
{
	if (!isfinite(v) || v < 0)
		return "not a number of CPUs";
	if (node_cpus > 0 && v > 2 * node_cpus) {
		cpl_format(buf, size, "more than twice the node's %g CPUs",
			   node_cpus);
		return buf;
	}
	if (v > CPL_CPUS_MAX)
		return "above 8192, more CPUs than any machine has";
	return NULL;
}

/* Why v is not a share of periods, 0 to 1 (NULL: it is one). */
static const char *
bad_share(double v)
{
	if (!isfinite(v) || v < 0 || v > 1 + 1e-9)
		return "a share of periods is 0 to 1";
	return NULL;
}

double
cpl_livemeasure_window(bool *clamped, double window, double start,
		       double now)
{
	double w, unit = 1;

	*clamped = false;
	/* Unknown start, or a start ahead of our clock: as asked. */
	if (start <= 0 || now <= start || now - start >= window)
		return window;
	w = floor(now - start);
	while (w / unit >= 100)
		unit *= 10;
	w = floor(w / unit) * unit;
	*clamped = true;
	return w >= 1 ? w : 1;
}

/* ---- cAdvisor ----------------------------------------------------------- */

/* One read of some nodes' metrics: node name → parsed metrics. */
struct sample {
	struct cpl_strmap nodes;	/* node → struct cpl_cadvisor * or
					 * &unreadable */
	char **names;
	size_t n, names_cap;
	struct cpl_buf forbidden;	/* nodes whose proxy RBAC denies */
	bool borrowed;			/* values are the cache's */
};

/* One node as read into a cache. */
struct node_read {
	char *node;
	struct cpl_cadvisor *m;		/* NULL when it could not be read */
	int rc;				/* 0 or the CPL_KUBE_* failure */
	char *why;			/* its message */
};

struct cpl_livemeasure_cache {
	struct cpl_strmap at;		/* node → struct node_read * */
	struct node_read **reads;
	size_t n, cap;
};

struct cpl_livemeasure_cache *
cpl_livemeasure_cache_new(void)
{
	return cpl_xcalloc(1, sizeof(struct cpl_livemeasure_cache));
}

void
cpl_livemeasure_cache_clear(struct cpl_livemeasure_cache *c)
{
	size_t i;

	if (c == NULL)
		return;
	cpl_strmap_free(&c->at);
	memset(&c->at, 0, sizeof(c->at));
	for (i = 0; i < c->n; i++) {
		cpl_cadvisor_free(c->reads[i]->m);
		free(c->reads[i]->node);
		free(c->reads[i]->why);
		free(c->reads[i]);
	}
	c->n = 0;
}

void
cpl_livemeasure_cache_free(struct cpl_livemeasure_cache *c)
{
	if (c == NULL)
		return;
	cpl_livemeasure_cache_clear(c);
	free(c->reads);
	free(c);
}


static void
sample_free(struct sample *s)
{
	size_t i;

	/* Values first, keys after: a lookup probes other slots' keys, so
	 * no key may be freed while the map is still read. */
	for (i = 0; i < s->n && !s->borrowed; i++) {
		void *m = cpl_strmap_get(&s->nodes, s->names[i]);

		if (m != &unreadable)
			cpl_cadvisor_free(m);
	}
	cpl_strmap_free(&s->nodes);
	for (i = 0; i < s->n; i++)
		free(s->names[i]);
	free(s->names);
	cpl_buf_free(&s->forbidden);
}

/* An empty sample. */
static void
sample_init(struct sample *s)
{
	memset(s, 0, sizeof(*s));
	cpl_buf_init(&s->forbidden, 0);
}

/* Reads node's metrics: 0 and *m, or a failure with err set. */
static int
read_node(struct cpl_cadvisor **m, const struct cpl_livemeasure *lm,
	  const char *node, struct cpl_error *err)
{
	struct cpl_kube_ref ref = { "v1", "nodes", NULL, node,
				    "proxy/metrics/cadvisor" };
	char *body = NULL, *origin;
	size_t len;
	int rc;

	*m = NULL;
	rc = cpl_kubeclient_get_raw(&body, &len, lm->client, &ref, err);
	origin = cpl_xasprintf("nodes/%s/proxy/metrics/cadvisor", node);
	if (rc == 0 && cpl_cadvisor_parse(m, body, len, origin, err) < 0)
		rc = -1;
	free(origin);
	free(body);
	return rc;
}

/* node as lm's cache holds it, read now when it does not. */
static const struct node_read *
cached_node(const struct cpl_livemeasure *lm, const char *node)
{
	struct cpl_livemeasure_cache *c = lm->cache;
	struct cpl_error err = { 0 };
	struct node_read *r = cpl_strmap_get(&c->at, node);

	if (r)
		return r;
	r = cpl_xcalloc(1, sizeof(*r));
	r->node = cpl_xstrdup(node);
	r->rc = read_node(&r->m, lm, node, &err);
	if (r->rc < 0)
		r->why = cpl_xstrdup(err.message ? err.message : "failed");
	cpl_error_clear(&err);
	CPL_GROW(c->reads, c->cap, c->n + 1);
	c->reads[c->n++] = r;
	cpl_strmap_put(&c->at, r->node, r);
	return r;
}

/*
 * Reads node's metrics into s unless s has them (from lm's cache when s
 * borrows from it); why they could not be read goes to the notes, or
 * (RBAC) to forbidden.
 */
static void
sample_node(const struct cpl_livemeasure *lm, struct sample *s,
	    const char *node, struct cpl_buf *forbidden, bool say)
{
	struct cpl_error err = { 0 };
	struct cpl_cadvisor *m = NULL;
	int rc;

	if (node == NULL || cpl_strmap_get(&s->nodes, node) != NULL)
		return;
	CPL_GROW(s->names, s->names_cap, s->n + 1);
	s->names[s->n] = cpl_xstrdup(node);
	if (s->borrowed) {
		const struct node_read *r = cached_node(lm, node);

		m = r->m;
		rc = r->rc;
		if (rc < 0)
			cpl_error_set(&err, NULL, 0, 0, "%s", r->why);
	} else {
		rc = read_node(&m, lm, node, &err);
	}
	if (rc < 0 && say) {
		if (rc == CPL_KUBE_FORBIDDEN)
			cpl_buf_addf(forbidden, "%s%s",
				     forbidden->len ? ", " : "", node);
		else
			cpl_buf_addf(lm->notes, "throttling was not measured "
				     "on node %s: %s\n", node, err.message);
	}
	cpl_strmap_put(&s->nodes, s->names[s->n],
		       rc == 0 ? (void *)m : (void *)&unreadable);
	s->n++;
	cpl_error_clear(&err);
}

/* Once, for every node RBAC keeps closed. */
static void
note_forbidden(const struct cpl_livemeasure *lm,
	       const struct cpl_buf *forbidden)
{
	if (forbidden->len)
		cpl_buf_addf(lm->notes, "throttling was not measured on node%s "
			     "%s: RBAC does not allow `get` on `nodes/proxy` "
			     "(a ClusterRole rule with resources "
			     "[\"nodes/proxy\"] and verbs [\"get\"] would); "
			     "--prometheus URL would measure threads, CPU "
			     "use and throttling from Prometheus instead\n",
			     strchr(cpl_buf_str(forbidden), ',') ? "s" : "",
			     cpl_buf_str(forbidden));
}

/* Reads each node's metrics once; notes why a node could not be read. */
static void
take_sample(const struct cpl_livemeasure *lm, struct sample *s, bool say)
{
	size_t i;

	sample_init(s);
	for (i = 0; i < lm->lp->nnodes; i++)
		sample_node(lm, s, lm->lp->nodes[i], &s->forbidden, say);
	if (say)
		note_forbidden(lm, &s->forbidden);
}

/* The metrics of Pod p's node in s, or NULL. */
static const struct cpl_cadvisor *
metrics_of(const struct sample *s, const struct cpl_livepod *p)
{
	void *m = p->node ? cpl_strmap_get(&s->nodes, p->node) : NULL;

	return m == NULL || m == &unreadable ? NULL : m;
}

static void
sleep_seconds(double s)
{
	struct timespec ts;

	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static double
mono_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One or two reads of a container's counters, and what they stand for. */
struct reads {
	const struct cpl_cadvisor_counters *x, *y;	/* y: NULL for one */
	double window;		/* --sample */
	double elapsed;		/* between the reads */
	double start;		/* epoch s the container started; 0 */
	double node_cpus;	/* machine_cpu_cores; 0 unknown */
};

/* The CFS counters of r: throttled periods and periods over the window
 * (or the lifetime); false, with a note, when they cannot be trusted. */
static bool
periods_of(struct cpl_container *c, const struct at *a,
	   const struct reads *r, double *thr, double *per)
{
	const struct cpl_cadvisor_counters *x = r->x, *y = r->y;
	unsigned bad = x->bad | (y ? y->bad : 0);
	char v[32];

	if (bad & (CPL_CADVISOR_BAD_PERIODS | CPL_CADVISOR_BAD_THROTTLED)) {
		note(c, a, "throttled share unknown: a sample of "
		     "container_cpu_cfs_%speriods_total from "
		     "nodes/%s/proxy/metrics/cadvisor is not a count",
		     bad & CPL_CADVISOR_BAD_THROTTLED ? "throttled_" : "",
		     a->p->node);
		return false;
	}
	if (x->periods > COUNT_MAX || x->throttled_periods > COUNT_MAX ||
	    (y && (y->periods > COUNT_MAX ||
		   y->throttled_periods > COUNT_MAX))) {
		fmt_value(v, sizeof(v), y && y->periods > x->periods ?
			  y->periods : x->periods);
		note(c, a, "throttled share unknown: container_cpu_cfs_"
		     "periods_total from nodes/%s/proxy/metrics/cadvisor is "
		     "%s, past any count of periods", a->p->node, v);
		return false;
	}
	if (y && y->periods >= x->periods) {
		*per = y->periods - x->periods;
		*thr = y->throttled_periods > x->throttled_periods ?
		       y->throttled_periods - x->throttled_periods : 0;
	} else {
		*per = x->periods;
		*thr = x->throttled_periods;
	}
	return true;
}

/* Threads now, CPUs used and the throttled share of c from the reads r,
 * each checked for range (an out-of-range figure is unknown, noted). */
static void
measure_container(struct cpl_container *c, const struct at *a,
		  const struct reads *r)
{
	const struct cpl_cadvisor_counters *x = r->x, *y = r->y;
	const struct cpl_cadvisor_counters *last = y ? y : x;
	double now = a->lm->now, thr = 0, per = 0, cpu = 0;
	bool have_cpu = false;
	const char *why;
	char v[32], buf[64];

	c->measure_source = "cadvisor";
	if (y) {
		c->measure_window = r->window;
	} else if (r->start > 0 && now > r->start) {
		c->measure_window = now - r->start;
		c->since_start = true;
	} else {
		c->since_start = true;
	}
	if (last->bad & CPL_CADVISOR_BAD_THREADS) {
		note(c, a, "threads unknown: a sample of container_threads "
		     "from nodes/%s/proxy/metrics/cadvisor is not a count",
		     a->p->node);
	} else if (last->has_threads) {
		why = bad_threads(last->threads);
		fmt_value(v, sizeof(v), last->threads);
		if (why)
			note(c, a, "threads unknown: container_threads from "
			     "nodes/%s/proxy/metrics/cadvisor is %s (%s)",
			     a->p->node, v, why);
		else
			c->threads_now = last->threads;
	}
	if ((x->bad | (y ? y->bad : 0)) & CPL_CADVISOR_BAD_CPU) {
		note(c, a, "CPU used unknown: a sample of "
		     "container_cpu_usage_seconds_total from "
		     "nodes/%s/proxy/metrics/cadvisor is not a count",
		     a->p->node);
	} else if (y && x->has_cpu_seconds && y->has_cpu_seconds &&
		   r->elapsed > 0) {
		/* A sum past the largest double is +Inf: so is the use. */
		have_cpu = true;
		cpu = !isfinite(x->cpu_seconds) || !isfinite(y->cpu_seconds) ?
		      INFINITY : y->cpu_seconds > x->cpu_seconds ?
		      (y->cpu_seconds - x->cpu_seconds) / r->elapsed : 0;
	} else if (!y && x->has_cpu_seconds && c->measure_window > 0) {
		have_cpu = true;
		cpu = x->cpu_seconds / c->measure_window;
	}
	if (have_cpu) {
		why = bad_cpus(buf, sizeof(buf), cpu, r->node_cpus);
		fmt_value(v, sizeof(v), cpu);
		if (why)
			note(c, a, "CPU used unknown: %s CPUs from "
			     "container_cpu_usage_seconds_total of "
			     "nodes/%s/proxy/metrics/cadvisor (%s)", v,
			     a->p->node, why);
		else
			c->cpu_used = cpu;
	}
	if (!x->has_periods || (y && !y->has_periods)) {
		/* No CFS quota (no limit) or no counters: nothing to say
		 * about throttling. */
		c->throttle = CPL_THROTTLE_UNAVAILABLE;
		note(c, a, "no cAdvisor CFS counters for it");
		return;
	}
	if (!periods_of(c, a, r, &thr, &per)) {
		c->throttle = CPL_THROTTLE_UNAVAILABLE;
		return;
	}
	if (per > 0 && (why = bad_share(thr / per)) != NULL) {
		fmt_value(v, sizeof(v), thr / per);
		note(c, a, "throttled share unknown: %s (%.0f throttled of "
		     "%.0f periods) from container_cpu_cfs_throttled_periods_"
		     "total / container_cpu_cfs_periods_total of "
		     "nodes/%s/proxy/metrics/cadvisor (%s)", v, thr, per,
		     a->p->node, why);
		c->throttle = CPL_THROTTLE_UNAVAILABLE;
		return;
	}
	c->throttle = CPL_THROTTLE_MEASURED;
	c->periods = (uint64_t)per;
	c->throttled_periods = (uint64_t)thr;
	if (y && y->periods >= x->periods)
		c->window_seconds = r->window;
	if (c->periods > 0)
		c->throttled_pct = 100.0 * thr / per;
}

/* ---- groups ------------------------------------------------------------- */

/* Whether measured m is worse than what dst holds: more throttled, then
 * more threads, then more CPU used. */
static bool
worse(const struct cpl_container *m, const struct cpl_container *dst)
{
	if (m->throttle != CPL_THROTTLE_MEASURED)
		return dst->throttle == CPL_THROTTLE_NONE;
	if (dst->throttle != CPL_THROTTLE_MEASURED)
		return true;
	if (m->throttled_pct != dst->throttled_pct)
		return m->throttled_pct > dst->throttled_pct;
	if (m->threads_now != dst->threads_now)
		return m->threads_now > dst->threads_now;
	return m->cpu_used > dst->cpu_used;
}

/*
 * What was measured for container j of Pod p, in m (a scratch container
 * whose notes are taken), kept in the group's workload: as it is for a
 * group of one Pod; for several, the worst Pod's figures, named.
 */
static void
keep_measure(const struct cpl_livemeasure *lm, const struct cpl_livepod *p,
	     size_t j, struct cpl_container *m)
{
	const struct cpl_livegroup *g = &lm->lp->groups[p->group];
	struct cpl_container *dst = &g->w->containers[j];

	if (g->pods > 1 && !worse(m, dst)) {
		free(m->measure_notes);
		return;
	}
	free(dst->measure_notes);
	dst->measure_notes = m->measure_notes;
	dst->throttle = m->throttle;
	dst->throttled_periods = m->throttled_periods;
	dst->periods = m->periods;
	dst->window_seconds = m->window_seconds;
	dst->measure_source = m->measure_source;
	dst->measure_window = m->measure_window;
	dst->since_start = m->since_start;
	dst->window_clamped = m->window_clamped;
	dst->threads_now = m->threads_now;
	dst->cpu_used = m->cpu_used;
	dst->throttled_pct = m->throttled_pct;
	dst->pids_max = m->pids_max;
	dst->pids_pod = m->pids_pod;
	dst->node_cpus = m->node_cpus;
	free(dst->measured_pod);
	dst->measured_pod = g->pods > 1 && m->measure_source ?
		cpl_xasprintf("pod/%s/%s", g->namespace, p->name) : NULL;
}

/* A scratch container for one Pod's figures: nothing measured yet. */
static void
scratch(struct cpl_container *m)
{
	memset(m, 0, sizeof(*m));
	m->threads_now = -1;
	m->cpu_used = -1;
	m->throttled_pct = -1;
	m->pids_max = -1;
}

/* ---- Prometheus --------------------------------------------------------- */

/* Whether container j of a workload is measured (init containers are
 * not: they have finished). */
static bool
measured(const struct cpl_workload *w, size_t j)
{
	return w->containers[j].role != CPL_CROLE_INIT;
}

/*
 * The Prometheus entries of every Pod: the whole Pod over one window when
 * its containers share one, else each container over its own; windows
 * (per Pod, per container) and clamped flags say what each asked for.
 */
static struct cpl_prometheus_pod *
prom_entries(const struct cpl_livemeasure *lm, double window, double **wins,
	     bool **clamps, size_t *n)
{
	const struct cpl_livepods *lp = lm->lp;
	struct cpl_prometheus_pod *out = NULL;
	size_t cap = 0, i, j, total = 0;

	*n = 0;
	for (i = 0; i < lp->npods; i++)
		total += lp->groups[lp->pods[i].group].w->ncontainers;
	*wins = cpl_xcalloc(total + 1, sizeof(**wins));
	*clamps = cpl_xcalloc(total + 1, sizeof(**clamps));
	for (i = 0, total = 0; i < lp->npods; i++) {
		const struct cpl_livepod *p = &lp->pods[i];
		const struct cpl_livegroup *g = &lp->groups[p->group];
		double *w = *wins + total;
		bool *cl = *clamps + total, same = true, seen = false;
		double first = 0;

		for (j = 0; j < g->w->ncontainers; j++) {
			w[j] = cpl_livemeasure_window(&cl[j], window,
				p->started ? (double)p->started[j] : 0,
				lm->now);
			if (!measured(g->w, j))
				continue;
			if (seen && w[j] != first)
				same = false;
			first = seen ? first : w[j];
			seen = true;
		}
		/* One entry for the Pod, or one per container. */
		for (j = 0, seen = false; j < g->w->ncontainers; j++) {
			if (!measured(g->w, j) || (same && seen))
				continue;
			seen = true;
			CPL_GROW(out, cap, *n + 1);
			out[*n] = (struct cpl_prometheus_pod){ g->namespace,
				p->name, same ? NULL : g->w->containers[j].name,
				w[j] };
			(*n)++;
		}
		total += g->w->ncontainers;
	}
	return out;
}

/* The figures of series x for container m over window w, range-checked:
 * out of range, unknown with a note naming the query. */
static void
prom_figures(struct cpl_container *m, const struct at *a,
	     const struct cpl_prometheus_series *x, double w)
{
	const char *why;
	char v[32], buf[64], *q;

	if (x->has_threads) {
		why = bad_threads(x->threads);
		if (why) {
			fmt_value(v, sizeof(v), x->threads);
			q = cpl_prometheus_expr("threads", w);
			note(m, a, "threads unknown: Prometheus answered %s for "
			     "%s (%s)", v, q, why);
			free(q);
		} else {
			m->threads_now = x->threads;
		}
	}
	if (x->has_cpu) {
		why = bad_cpus(buf, sizeof(buf), x->cpu, 0);
		if (why) {
			fmt_value(v, sizeof(v), x->cpu);
			q = cpl_prometheus_expr("cpu", w);
			note(m, a, "CPU used unknown: Prometheus answered %s for "
			     "%s (%s)", v, q, why);
			free(q);
		} else {
			m->cpu_used = x->cpu;
		}
	}
	if (!x->has_throttled) {
		m->throttle = CPL_THROTTLE_UNAVAILABLE;
		note(m, a, "no CFS periods in Prometheus for it");
		return;
	}
	why = bad_share(x->throttled_ratio);
	if (why) {
		fmt_value(v, sizeof(v), x->throttled_ratio);
		q = cpl_prometheus_expr("throttled", w);
		note(m, a, "throttled share unknown: Prometheus answered %s "
		     "for %s (%s)", v, q, why);
		free(q);
		m->throttle = CPL_THROTTLE_UNAVAILABLE;
		return;
	}
	m->throttle = CPL_THROTTLE_MEASURED;
	m->throttled_pct = 100.0 * x->throttled_ratio;
	m->window_seconds = w;
}

/* Threads, CPU use and throttling of every live container from
 * Prometheus over --window (or the time it has run); a failure is one
 * engine error. */
static void
measure_prometheus(const struct cpl_livemeasure *lm)
{
	const struct cpl_livepods *lp = lm->lp;
	struct cpl_prometheus *pm = NULL;
	struct cpl_prometheus_opts po = lm->o->prometheus;
	struct cpl_prometheus_pod *entries;
	struct cpl_error err = { 0 };
	double window = lm->o->window_seconds > 0 ? lm->o->window_seconds :
			3600, *wins;
	long left = cpl_kubeclient_time_left(lm->client);
	bool *clamps;
	size_t i, j, n, k = 0;

	entries = prom_entries(lm, window, &wins, &clamps, &n);
	/* The queries are part of the run: within its time limit. */
	if (left >= 0)
		po.run_left_ms = left > 0 ? left : 1;
	if (cpl_prometheus_query(&pm, &po, entries, n, window, &err) < 0) {
		cpl_engine_add_error(lm->e, &err);
		cpl_error_clear(&err);
		goto out;
	}
	for (i = 0; i < lp->npods; i++) {
		const struct cpl_livepod *p = &lp->pods[i];
		const struct cpl_livegroup *g = &lp->groups[p->group];
		const struct cpl_workload *w = g->w;

		for (j = 0; j < w->ncontainers; j++, k++) {
			const struct cpl_container *c = &w->containers[j];
			struct at a = { lm, p, g->namespace, c->name };
			const struct cpl_prometheus_series *x;
			struct cpl_container m;
			char run[32], asked[32];

			if (!measured(w, j))
				continue;
			scratch(&m);
			x = cpl_prometheus_find(pm, g->namespace, p->name,
						c->name);
			if (x == NULL) {
				m.throttle = CPL_THROTTLE_UNAVAILABLE;
				note(&m, &a, "no series in Prometheus for it");
				keep_measure(lm, p, j, &m);
				continue;
			}
			m.measure_source = "prometheus";
			m.measure_window = wins[k];
			if (clamps[k]) {
				m.window_clamped = true;
				cpl_format_duration(run, sizeof(run), wins[k]);
				cpl_format_duration(asked, sizeof(asked),
						    window);
				note(&m, &a, "measured over the %s it has run, "
				     "not the %s of --window: rates over time "
				     "before it started would dilute its "
				     "figures", run, asked);
			}
			prom_figures(&m, &a, x, wins[k]);
			keep_measure(lm, p, j, &m);
		}
	}
out:
	cpl_prometheus_free(pm);
	free(entries);
	free(wins);
	free(clamps);
}

/* ---- cAdvisor, by node -------------------------------------------------- */

/* The pids limit of a container from its counters x and its Pod
 * cgroup's (pod; either NULL): the smallest positive pids.max, and
 * whether it is the Pod's. */
static void
pids_of(struct cpl_container *m, const struct cpl_cadvisor_counters *x,
	const struct cpl_cadvisor_counters *pod)
{
	if (x && x->has_threads_max && !(x->bad & CPL_CADVISOR_BAD_THREADS_MAX)
	    && x->threads_max >= 1 && x->threads_max <= CPL_THREADS_MAX)
		m->pids_max = x->threads_max;
	if (pod && pod->has_threads_max &&
	    !(pod->bad & CPL_CADVISOR_BAD_THREADS_MAX) &&
	    pod->threads_max >= 1 && pod->threads_max <= CPL_THREADS_MAX &&
	    (m->pids_max <= 0 || pod->threads_max < m->pids_max)) {
		m->pids_max = pod->threads_max;
		m->pids_pod = true;
	}
}

/* Measures Pod p's containers from sample a (and b, elapsed seconds
 * later, when two). */
static void
measure_pod(const struct cpl_livemeasure *lm, const struct cpl_livepod *p,
	    const struct sample *a, const struct sample *b, double elapsed)
{
	const struct cpl_livegroup *g = &lm->lp->groups[p->group];
	const struct cpl_cadvisor *ma = metrics_of(a, p);
	const struct cpl_cadvisor *mb = b ? metrics_of(b, p) : NULL;
	size_t j;

	for (j = 0; j < g->w->ncontainers; j++) {
		const struct cpl_container *c = &g->w->containers[j];
		struct at at = { lm, p, g->namespace, c->name };
		struct reads r = { NULL, NULL, lm->o->sample_seconds, elapsed,
				   p->started ? (double)p->started[j] : 0,
				   ma ? cpl_cadvisor_machine_cpus(ma) : 0 };
		struct cpl_container m;

		if (!measured(g->w, j))
			continue;
		scratch(&m);
		r.x = ma ? cpl_cadvisor_find(ma, g->namespace, p->name,
					     c->name) : NULL;
		r.y = mb ? cpl_cadvisor_find(mb, g->namespace, p->name,
					     c->name) : NULL;
		if (r.x == NULL || (b && r.y == NULL)) {
			m.throttle = CPL_THROTTLE_UNAVAILABLE;
			note(&m, &at, "%s", p->node == NULL ?
			     "the Pod is not scheduled on a node" :
			     "no cAdvisor counters for it");
		} else {
			measure_container(&m, &at, &r);
			pids_of(&m, b ? r.y : r.x,
				cpl_cadvisor_find(b ? mb : ma, g->namespace,
						  p->name, ""));
			m.node_cpus = r.node_cpus;
		}
		keep_measure(lm, p, j, &m);
	}
}

/*
 * One read per node, node after node: each node's metrics are read, its
 * Pods measured, and the metrics freed before the next node.
 */
static void
measure_by_node(const struct cpl_livemeasure *lm)
{
	const struct cpl_livepods *lp = lm->lp;
	size_t *start = cpl_xcalloc(lp->nnodes + 2, sizeof(*start));
	size_t *order = cpl_xcalloc(lp->npods + 1, sizeof(*order));
	struct cpl_buf forbidden;
	size_t i, k;

	/* The Pods by node (a counting sort; unscheduled ones last). */
	for (i = 0; i < lp->npods; i++) {
		size_t ix = lp->pods[i].node_ix;

		start[(ix == SIZE_MAX ? lp->nnodes : ix) + 1]++;
	}
	for (k = 1; k <= lp->nnodes + 1; k++)
		start[k] += start[k - 1];
	for (i = 0; i < lp->npods; i++) {
		size_t ix = lp->pods[i].node_ix;

		order[start[ix == SIZE_MAX ? lp->nnodes : ix]++] = i;
	}
	/* start[k] is now where node k + 1 begins. */
	cpl_buf_init(&forbidden, 0);
	for (k = 0, i = 0; k <= lp->nnodes; k++) {
		struct sample a;

		sample_init(&a);
		a.borrowed = lm->cache != NULL;
		if (k < lp->nnodes)
			sample_node(lm, &a, lp->nodes[k], &forbidden, true);
		for (; i < start[k]; i++)
			measure_pod(lm, &lp->pods[order[i]], &a, NULL, 0);
		sample_free(&a);
	}
	note_forbidden(lm, &forbidden);
	cpl_buf_free(&forbidden);
	free(order);
	free(start);
}

void
cpl_livemeasure_run(const struct cpl_livemeasure *lm)
{
	struct sample a, b;
	size_t i;
	double t0, t1;

	if (lm->lp->npods == 0)
		return;
	if (lm->o->prometheus.url) {
		measure_prometheus(lm);
		return;
	}
	if (lm->o->no_cadvisor)
		return;		/* not measured: asked not to read kubelets */
	if (lm->o->sample_seconds <= 0) {
		measure_by_node(lm);
		return;
	}
	/* Two reads of every node, the window apart. */
	t0 = mono_seconds();
	take_sample(lm, &a, true);
	sleep_seconds(lm->o->sample_seconds);
	t1 = mono_seconds();
	take_sample(lm, &b, false);
	for (i = 0; i < lm->lp->npods; i++)
		measure_pod(lm, &lm->lp->pods[i], &a, &b, t1 - t0);
	sample_free(&a);
	sample_free(&b);
}
