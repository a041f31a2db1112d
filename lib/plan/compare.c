/*
 * compare.c — the runs of a comparison and their figures (compare.h):
 * the Pods are read from the API server, their settings from their
 * specs (plan/knobs_int.h), their figures from Prometheus, one instant query
 * per figure and Pod at the end of its life over its whole life (CPU
 * used: the raw samples of that range, their increase over the time they
 * cover).  A figure outside its range is unknown, said once (figs[]).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube/kubeclient.h"
#include "kube/kubeconfig.h"
#include "kube/prometheus.h"
#include "live/live.h"
#include "load/kinds.h"
#include "model/pools.h"
#include "plan/compare.h"
#include "plan/knobs_int.h"
#include "plan/plan_int.h"
#include "text/quantity.h"

/* An RFC 3339 time ("2025-03-11T09:14:39Z") in epoch seconds; 0 bad. */
static double
stamp(const char *s)
{
	struct tm tm = { 0 };
	const char *end;

	if (s == NULL)
		return 0;
	end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (end == NULL)
		return 0;
	return (double)timegm(&tm);
}

/* The container whose settings the Pod's run is about. */
static json_t *
training_container(json_t *pod)
{
	json_t *cs = json_object_get(json_object_get(pod, "spec"),
				     "containers"), *c;
	size_t i;

	json_array_foreach(cs, i, c) {
		char *w = cpl_knob_flag(c, NULL);
		bool set = w != NULL || cpl_knob_env(c, "OMP_NUM_THREADS") ||
			   cpl_knob_env(c, "MKL_NUM_THREADS");

		free(w);
		if (set)
			return c;
	}
	return json_array_get(cs, 0);
}

static double
cpu_budget(const json_t *c)
{
	json_t *res = json_object_get(c, "resources");
	const char *why;
	int64_t m;
	const char *lim = json_string_value(json_object_get(
		json_object_get(res, "limits"), "cpu"));
	const char *req = json_string_value(json_object_get(
		json_object_get(res, "requests"), "cpu"));

	if (lim && cpl_quantity_cpu(&m, lim, &why) == 0)
		return (double)m / 1000;
	if (req && cpl_quantity_cpu(&m, req, &why) == 0)
		return (double)m / 1000;
	return -1;
}

/* The container's life: [*start, *end] (end: now when it runs). */
static void
lifetime(double *start, double *end, const json_t *pod, const char *name,
	 double now)
{
	json_t *st = json_object_get(pod, "status"), *cs;
	size_t i;

	*start = stamp(json_string_value(json_object_get(st, "startTime")));
	*end = now;
	json_array_foreach(json_object_get(st, "containerStatuses"), i, cs) {
		json_t *state = json_object_get(cs, "state"), *t;

		if (!cpl_str_eq(json_string_value(json_object_get(cs, "name")),
				name))
			continue;
		t = json_object_get(state, "terminated");
		if (t) {
			double s = stamp(json_string_value(json_object_get(t,
							"startedAt")));
			double e = stamp(json_string_value(json_object_get(t,
							"finishedAt")));

			if (s > 0)
				*start = s;
			if (e > 0)
				*end = e;
		} else if ((t = json_object_get(state, "running"))) {
			double s = stamp(json_string_value(json_object_get(t,
							"startedAt")));

			if (s > 0)
				*start = s;
		}
	}
}

/* expr with $pod, $namespace and $window replaced. */
static char *
substitute(const char *expr, const char *ns, const char *pod, long window)
{
	struct cpl_buf b;
	const char *p;

	cpl_buf_init(&b, 1 << 16);
	for (p = expr; *p; p++) {
		if (strncmp(p, "$pod", 4) == 0) {
			cpl_buf_adds(&b, pod);
			p += 3;
		} else if (strncmp(p, "$namespace", 10) == 0) {
			cpl_buf_adds(&b, ns);
			p += 9;
		} else if (strncmp(p, "$window", 7) == 0) {
			cpl_buf_addf(&b, "%lds", window);
			p += 6;
		} else {
			cpl_buf_addc(&b, *p);
		}
	}
	return cpl_buf_detach(&b);
}

/* The figures read from Prometheus, and the range each may take:
 * outside it (or not a number) a figure is unknown, said once. */
enum fig { FIG_CPU, FIG_THROTTLED, FIG_THREADS, FIG_THROUGHPUT, FIG_WAIT,
	   FIG_N };

static const struct {
	const char *what;
	double hi;		/* 0 .. hi */
	const char *range;
} figs[FIG_N] = {
	[FIG_CPU] = { "CPU used", 1e5, "0 to 100000 CPUs" },
	[FIG_THROTTLED] = { "throttled share", 100, "0 to 100%" },
	[FIG_THREADS] = { "thread count", 4194304, "0 to 4194304 (the "
			  "kernel's most)" },
	[FIG_THROUGHPUT] = { "throughput (--throughput)", 1e12, "0 to 1e12 a "
			     "second" },
	[FIG_WAIT] = { "loader wait (--wait)", 1, "0 to 100% of the time" },
};

/* Where the figures come from: Prometheus within --request-timeout (a
 * query) and --live-timeout (the run), and the figures said so far. */
struct prom {
	const struct cpl_compare_opts *o;
	struct cpl_prometheus_opts po;
	const struct cpl_kubeclient *client;
	struct cpl_buf *notes;
	bool said[FIG_N];
};

/* Sets the query's time limits: what is left of the run's. */
static const struct cpl_prometheus_opts *
prom_opts(struct prom *pr)
{
	long left = pr->client ? cpl_kubeclient_time_left(pr->client) : -1;

	if (left >= 0)
		pr->po.run_left_ms = left > 0 ? left : 1;
	return &pr->po;
}

/* Keeps *out when it is a figure of its kind, else makes it unknown
 * (-1), saying so once for the figure. */
static void
judge(double *out, struct prom *pr, enum fig f, const char *ns,
      const char *pod)
{
	const char *why;

	if (*out != *out)
		why = "not a number";
	else if (*out < 0 || *out > figs[f].hi)
		why = NULL;
	else
		return;
	if (!pr->said[f]) {
		pr->said[f] = true;
		if (why)
			cpl_buf_addf(pr->notes, "pod/%s/%s: prometheus "
				     "answered a %s that is %s: unknown\n",
				     ns, pod, figs[f].what, why);
		else
			cpl_buf_addf(pr->notes, "pod/%s/%s: prometheus "
				     "answered a %s of %g, outside %s: "
				     "unknown\n", ns, pod, figs[f].what,
				     f == FIG_WAIT ? *out * 100 : *out,
				     figs[f].range);
	}
	*out = -1;
}

/* One figure of one Pod; < 0 when Prometheus has none or one out of
 * range. */
static int
figure(double *out, struct prom *pr, enum fig f, const char *q, double at,
       const char *ns, const char *pod, struct cpl_error *err)
{
	bool has;

	if (cpl_prometheus_value(out, &has, prom_opts(pr), q, at, err) < 0)
		return -1;
	if (!has)
		*out = -1;
	else
		judge(out, pr, f, ns, pod);
	return 0;
}

/* CPU used by one Pod: the counter's increase over the time its samples
 * cover (a young Pod, a Prometheus that started late: less than the
 * window), not over the window. */
static int
cpu_figure(double *out, struct prom *pr, const char *q, double at,
	   const char *ns, const char *pod, struct cpl_error *err)
{
	double used, covered;
	bool has;

	if (cpl_prometheus_counter(&used, &covered, &has, prom_opts(pr), q,
				   at, err) < 0)
		return -1;
	*out = !has ? -1 : used != used ? NAN : used / covered;
	if (has)
		judge(out, pr, FIG_CPU, ns, pod);
	return 0;
}

struct run {
	char *setting;
	char *repeat;		/* its repeat label's value, or NULL */
	long threads;
	long workers;
	long pools[CPL_BUDGET_POOL_VARS];
	double cpu_budget;
	double throughput, wait, cpu, throttled, threads_seen, window;
};

/* The pool variables c's env sets as counts (plan sets them with each
 * setting), in cpl_pools_vars()'s order; -1 where not. */
static void
pool_sizes(long *out, const json_t *c)
{
	const char *const *vars;
	size_t i, n = cpl_pools_vars(&vars);

	for (i = 0; i < n && i < CPL_BUDGET_POOL_VARS; i++) {
		const char *v = cpl_knob_env(c, vars[i]);

		if (v == NULL || cpl_parse_long(&out[i], v) < 0 ||
		    out[i] < 0)
			out[i] = -1;
	}
}

/* Measures one Pod into r. */
static int
measure(struct run *r, json_t *pod, struct prom *pr, struct cpl_error *err)
{
	const struct cpl_compare_opts *o = pr->o;
	json_t *md = json_object_get(pod, "metadata");
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	const char *name = json_string_value(json_object_get(md, "name"));
	const char *label = json_string_value(json_object_get(
		json_object_get(md, "labels"), CPL_PLAN_SETTING_LABEL));
	const char *repeat;
	json_t *c = training_container(pod);
	const char *cname = json_string_value(json_object_get(c, "name"));
	double start, end;
	long w;
	char *m, *q;
	int rc = -1;

	if (ns == NULL || name == NULL || cname == NULL ||
	    strpbrk(ns, "\"\\") || strpbrk(name, "\"\\") ||
	    strpbrk(cname, "\"\\")) {
		cpl_error_set(err, NULL, 0, 0, "a Pod without a usable "
			      "namespace, name or container");
		return -1;
	}
	r->threads = cpl_knob_threads(c);
	r->workers = cpl_knob_workers(c);
	pool_sizes(r->pools, c);
	r->cpu_budget = cpu_budget(c);
	repeat = json_string_value(json_object_get(json_object_get(md,
			"labels"), CPL_PLAN_REPEAT_LABEL));
	r->repeat = repeat ? cpl_xstrdup(repeat) : NULL;
	if (label)
		r->setting = cpl_xstrdup(label);
	else if (r->workers >= 0)
		r->setting = cpl_xasprintf("t%ld-w%ld", r->threads,
					   r->workers);
	else
		r->setting = cpl_xasprintf("t%ld", r->threads);
	lifetime(&start, &end, pod, cname, o->now);
	if (start <= 0) {
		cpl_buf_addf(pr->notes, "pod/%s/%s: not started: not "
			     "measured\n", ns, name);
		r->throughput = r->wait = r->cpu = r->throttled =
			r->threads_seen = -1;
		return 0;
	}
	w = lround(end - start);
	if (w < 1)
		w = 1;
	r->window = (double)w;
	m = cpl_xasprintf("{namespace=\"%s\",pod=\"%s\",container=\"%s\"",
			  ns, name, cname);
	q = cpl_xasprintf("container_cpu_usage_seconds_total%s,"
			  "cpu=~\"total|\"}[%lds]", m, w);
	if (cpu_figure(&r->cpu, pr, q, end, ns, name, err) < 0)
		goto out;
	free(q);
	q = cpl_xasprintf("100 * sum(rate(container_cpu_cfs_throttled_"
			  "periods_total%s}[%lds])) / sum(rate(container_cpu_"
			  "cfs_periods_total%s}[%lds]))", m, w, m, w);
	if (figure(&r->throttled, pr, FIG_THROTTLED, q, end, ns, name,
		   err) < 0)
		goto out;
	free(q);
	q = cpl_xasprintf("max(max_over_time(container_threads%s}[%lds]))",
			  m, w);
	if (figure(&r->threads_seen, pr, FIG_THREADS, q, end, ns, name,
		   err) < 0)
		goto out;
	free(q);
	q = NULL;
	r->throughput = r->wait = -1;
	if (o->throughput) {
		q = substitute(o->throughput, ns, name, w);
		if (figure(&r->throughput, pr, FIG_THROUGHPUT, q, end, ns,
			   name, err) < 0)
			goto out;
		free(q);
		q = NULL;
	}
	if (o->wait) {
		q = substitute(o->wait, ns, name, w);
		if (figure(&r->wait, pr, FIG_WAIT, q, end, ns, name, err) < 0)
			goto out;
	}
	rc = 0;
out:
	free(q);
	free(m);
	return rc;
}

/* The selector of a target: experiment/NAME, job/NAME ...; NULL. */
static char *
target_selector(struct cpl_kubeclient *client, const char *target,
		const char *ns, struct cpl_error *err)
{
	const char *slash = strchr(target, '/');
	size_t tl = slash ? (size_t)(slash - target) : 0;
	const char *name = slash ? slash + 1 : target;
	const struct cpl_kind *k = NULL;
	struct cpl_buf use;
	size_t i;

	if (slash && (strncmp(target, "experiment", tl) == 0 ||
		      strncmp(target, "experiments", tl) == 0) && tl >= 10) {
		struct cpl_kube_ref ref = { "kubeflow.org/v1beta1",
					    "experiments", ns, name, NULL };
		json_t *exp = NULL;
		const char *id;
		char *sel = NULL;

		if (cpl_kubeclient_get(&exp, NULL, client, &ref, err) < 0)
			return NULL;
		id = json_string_value(json_object_get(json_object_get(
			json_object_get(exp, "metadata"), "labels"),
			CPL_PLAN_LABEL));
		if (id)
			sel = cpl_xasprintf("%s=%s", CPL_PLAN_LABEL, id);
		else
			cpl_error_set(err, NULL, 0, 0, "experiment %s has no %s "
				      "label: not a plan of kubectl cpulint "
				      "plan", name, CPL_PLAN_LABEL);
		json_decref(exp);
		return sel;
	}
	if (slash) {
		/* A kind plan takes (the kinds table): its Pods by the label
		 * their operator gives them; a Pod by name. */
		char *type = cpl_xstrndup(target, tl);

		k = cpl_kinds_by_type(type);
		free(type);
	}
	if (!slash || (k && k->pods == CPL_KPODS_SELF))
		return cpl_xasprintf("@%s", name);	/* one Pod by name */
	if (k && k->plan && k->pod_label)
		return cpl_xasprintf("%s=%s", k->pod_label, name);
	cpl_buf_init(&use, 0);
	for (i = 0; (k = cpl_kinds_at(i)) != NULL; i++)
		if (k->singular && (k->pods == CPL_KPODS_SELF ||
				    (k->plan && k->pod_label)))
			cpl_buf_addf(&use, "%s/, ", k->singular);
	cpl_error_set(err, NULL, 0, 0, "compare reads %sor experiment/ "
		      "targets, not \"%s\"", use.data ? use.data : "", target);
	cpl_buf_free(&use);
	return NULL;
}

static int
by_setting(const void *a, const void *b)
{
	const struct cpl_compare_row *x = a, *y = b;

	if (x->r.threads != y->r.threads)
		return x->r.threads < y->r.threads ? -1 : 1;
	if (x->r.workers != y->r.workers)
		return x->r.workers < y->r.workers ? -1 : 1;
	return strcmp(x->setting, y->setting);
}

/*
 * The runs of the rows: one per setting and repeat label (plan
 * --repeat), the Pods of one run (a job's ranks) summed in it; a Pod
 * without the label is of its setting's one run.
 */
struct slot {
	size_t row;
	double throughput, wait, cpu, throttled;
	size_t pods;
};

struct tally {
	struct cpl_strmap rows;		/* setting -> row index + 1 */
	struct cpl_strmap at;		/* "setting\037repeat" -> slot + 1 */
	struct slot *slots;
	size_t nslots, cap;
};

/* Adds run r to its setting's row and its repeat's run. */
static void
add_run(struct cpl_compare *c, struct run *r, size_t *cap, struct tally *t)
{
	struct cpl_compare_row *row;
	struct slot *sl;
	size_t ri, si;
	char *key;

	ri = (size_t)(uintptr_t)cpl_strmap_get(&t->rows, r->setting);
	if (ri == 0) {
		c->rows = cpl_xgrow_to(c->rows, cap, c->nrows + 1,
					 sizeof(*c->rows));
		row = &c->rows[c->nrows++];
		memset(row, 0, sizeof(*row));
		row->setting = r->setting;
		r->setting = NULL;
		row->r.threads = r->threads;
		row->r.workers = r->workers;
		memcpy(row->pools, r->pools, sizeof(row->pools));
		row->r.cpu_budget = r->cpu_budget;
		row->r.throughput = row->r.wait = row->r.cpu_used = -1;
		row->r.throttled = row->threads_seen = -1;
		row->r.throughput_min = row->r.throughput_max = -1;
		ri = c->nrows;
		cpl_strmap_put(&t->rows, row->setting, (void *)(uintptr_t)ri);
	}
	row = &c->rows[ri - 1];
	key = cpl_xasprintf("%s\037%s", row->setting,
			    r->repeat ? r->repeat : "");
	si = (size_t)(uintptr_t)cpl_strmap_get(&t->at, key);
	if (si == 0) {
		CPL_GROW(t->slots, t->cap, t->nslots + 1);
		sl = &t->slots[t->nslots++];
		sl->row = ri - 1;
		sl->throughput = sl->wait = sl->cpu = sl->throttled = -1;
		sl->pods = 0;
		si = t->nslots;
		cpl_strmap_put(&t->at, key, (void *)(uintptr_t)si);
	}
	free(key);
	sl = &t->slots[si - 1];
	/* in a run: sums and worsts; wait and CPU averaged over Pods */
	if (r->throughput >= 0)
		sl->throughput = (sl->throughput < 0 ? 0 : sl->throughput) +
				 r->throughput;
	if (r->wait >= 0)
		sl->wait = sl->wait < 0 ? r->wait :
			(sl->wait * (double)sl->pods + r->wait) /
			(double)(sl->pods + 1);
	if (r->cpu >= 0)
		sl->cpu = sl->cpu < 0 ? r->cpu :
			(sl->cpu * (double)sl->pods + r->cpu) /
			(double)(sl->pods + 1);
	if (r->throttled > sl->throttled)
		sl->throttled = r->throttled;
	sl->pods++;
	if (r->threads_seen > row->threads_seen)
		row->threads_seen = r->threads_seen;
	if (r->window > row->window)
		row->window = r->window;
	row->pods++;
}

static int
by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of the known (>= 0) values of v[0, n) (sorted in place
 * first: the unknown ones sort before them); -1 when none is known. */
static double
median(double *v, size_t n)
{
	size_t k = 0;

	qsort(v, n, sizeof(*v), by_value);
	while (k < n && v[k] < 0)
		k++;
	if (k == n)
		return -1;
	v += k;
	n -= k;
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int
by_row(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	return x->row < y->row ? -1 : x->row > y->row;
}

/* Each row's figures: the median over its runs (one run: its own),
 * its throughput's lowest and highest run. */
static void
fold_runs(struct cpl_compare *c, struct tally *t)
{
	double *v = cpl_xcalloc(t->nslots + 1, 4 * sizeof(*v));
	size_t i = 0, j, n;

	qsort(t->slots, t->nslots, sizeof(*t->slots), by_row);
	while (i < t->nslots) {
		struct cpl_compare_row *row = &c->rows[t->slots[i].row];
		double *tp = v, *wt = v + t->nslots, *cp = wt + t->nslots;
		double *th = cp + t->nslots;

		for (n = 0; i + n < t->nslots &&
		     t->slots[i + n].row == t->slots[i].row; n++) {
			const struct slot *s = &t->slots[i + n];

			tp[n] = s->throughput;
			wt[n] = s->wait;
			cp[n] = s->cpu;
			th[n] = s->throttled;
		}
		row->r.runs = n;
		row->r.throughput = median(tp, n);
		row->r.wait = median(wt, n);
		row->r.cpu_used = median(cp, n);
		row->r.throttled = median(th, n);
		for (j = 0; j < n; j++) {
			if (tp[j] < 0)
				continue;
			if (row->r.throughput_min < 0 ||
			    tp[j] < row->r.throughput_min)
				row->r.throughput_min = tp[j];
			if (tp[j] > row->r.throughput_max)
				row->r.throughput_max = tp[j];
		}
		i += n;
	}
	free(v);
}

int
cpl_compare_run(struct cpl_compare *c, const char *const *targets,
		size_t n, const struct cpl_compare_opts *o,
		struct cpl_error *err)
{
	struct cpl_kubeconfig *kc = NULL;
	struct cpl_kubeclient *client = NULL;
	struct prom pr = { 0 };
	struct tally t = { .at = { .own_keys = true } };
	const char *ns;
	json_t *pods = json_array();
	size_t i, cap = 0;
	int rc = -1;

	memset(c, 0, sizeof(*c));
	cpl_buf_init(&c->notes, 0);
	if (o->lo->prometheus.url == NULL) {
		cpl_error_set(err, NULL, 0, 0, "compare measures from "
			      "Prometheus: give --prometheus URL (or "
			      "CPULINT_PROMETHEUS_URL)");
		goto out;
	}
	if (cpl_kubeconfig_load(&kc, &o->lo->kube, err) < 0 ||
	    cpl_kubeclient_new(&client, kc, err) < 0 ||
	    cpl_kubeconfig_credentials(kc, false, err) < 0)
		goto out;
	if (o->lo->run_timeout_set)
		cpl_kubeclient_set_deadline(client, (long)
					    (o->lo->run_timeout_seconds * 1000));
	if (o->lo->log)
		cpl_kubeclient_set_log(client, o->lo->log, o->lo->log_ctx);
	ns = cpl_kubeconfig_info(kc)->namespace;
	for (i = 0; i <= n; i++) {
		struct cpl_kube_ref ref = { "v1", "pods", ns, NULL, NULL };
		struct cpl_kube_list_opts lo = { 0 };
		char *sel = NULL;
		json_t *items = NULL;
		int r;

		if (i == n && (n > 0 || o->lo->selector == NULL))
			break;
		if (i < n) {
			sel = target_selector(client, targets[i], ns, err);
			if (sel == NULL)
				goto out;
		} else {
			sel = cpl_xstrdup(o->lo->selector);
		}
		if (sel[0] == '@') {
			json_t *pod = NULL;

			ref.name = sel + 1;
			r = cpl_kubeclient_get(&pod, NULL, client, &ref, err);
			if (r == 0)
				json_array_append_new(pods, pod);
		} else {
			lo.label_selector = sel;
			r = cpl_kubeclient_list(&items, client, &ref, &lo,
						err);
			if (r == 0)
				json_array_extend(pods, items);
			json_decref(items);
			if (c->plan == NULL && strncmp(sel, CPL_PLAN_LABEL "=",
					strlen(CPL_PLAN_LABEL) + 1) == 0)
				c->plan = cpl_xstrdup(sel +
						strlen(CPL_PLAN_LABEL) + 1);
		}
		free(sel);
		if (r < 0)
			goto out;
	}
	if (json_array_size(pods) == 0) {
		cpl_error_set(err, NULL, 0, 0, "no Pods of the runs to compare "
			      "in namespace %s", ns);
		goto out;
	}
	pr.o = o;
	pr.po = o->lo->prometheus;
	pr.client = client;
	pr.notes = &c->notes;
	/* --request-timeout bounds each query as each request of the API
	 * server; --live-timeout the whole run (prom_opts()). */
	if (cpl_kubeconfig_info(kc)->timeout_ms > 0)
		pr.po.timeout_ms = cpl_kubeconfig_info(kc)->timeout_ms;
	for (i = 0; i < json_array_size(pods); i++) {
		struct run r = { 0 };

		if (measure(&r, json_array_get(pods, i), &pr, err) < 0) {
			free(r.setting);
			free(r.repeat);
			goto out;
		}
		add_run(c, &r, &cap, &t);
		free(r.setting);
		free(r.repeat);
	}
	fold_runs(c, &t);
	qsort(c->rows, c->nrows, sizeof(*c->rows), by_setting);
	for (i = 0; i < c->nrows; i++)
		c->rows[i].r.setting = c->rows[i].setting;
	rc = 0;
out:
	cpl_strmap_free(&t.rows);
	cpl_strmap_free(&t.at);
	free(t.slots);
	json_decref(pods);
	cpl_kubeclient_free(client);
	cpl_kubeconfig_free(kc);
	return rc;
}

void
cpl_compare_free(struct cpl_compare *c)
{
	size_t i;

	for (i = 0; i < c->nrows; i++)
		free(c->rows[i].setting);
	free(c->rows);
	free(c->plan);
	cpl_buf_free(&c->notes);
	memset(c, 0, sizeof(*c));
}
