/*
 * limitrange.c — the effective CPU budget a LimitRange gives, and the
 * bounds admission holds a Pod to.  The LimitRanges read in the run
 * (load/kinds.c keeps each as a merged workload whose one container
 * holds its Container defaults, as the API server defaults them, and
 * whose limits hold max, min, maxLimitRequestRatio and the Pod max)
 * apply to the main containers of the workloads in their namespace (or,
 * both without one, of the run), as the LimitRanger admission plugin
 * does: the first LimitRange with a default gives the default limit where
 * the limit is unset and the default request where neither is set (a
 * lone limit makes the request equal to it), and the first with bounds
 * gives each container a copy of them (CPU104 judges them).  Positions
 * are the LimitRange's values and cpu_note names it, so findings on the
 * budget point at it and say so.
 *
 * Static workloads, and live ones whose Pods do not exist yet
 * (unadmitted: live.c read their namespace's LimitRanges); a live Pod
 * already carries what admission applied.  Runs once per run, before the
 * group graph.  Owns nothing.
 */
#include "run/engine_int.h"

#include <string.h>

/* Whether w is a LimitRange kept for its defaults and bounds. */
static bool
is_limitrange(const struct cpl_workload *w)
{
	return w->merged && cpl_str_eq(w->kind, "LimitRange") &&
	       w->ncontainers == 1;
}

/* Whether LimitRange lr applies to workload w: the same namespace, both
 * without one, and both static or both live. */
static bool
applies(const struct cpl_workload *lr, const struct cpl_workload *w)
{
	return (lr->source == CPL_SRC_LIVE) == (w->source == CPL_SRC_LIVE) &&
	       (w->namespace == NULL ? lr->namespace == NULL :
		cpl_str_eq(lr->namespace, w->namespace));
}

/* The first LimitRange of w's namespace with a CPU default (want_default)
 * or with bounds, or NULL. */
static const struct cpl_container *
first_for(const struct cpl_engine *e, const struct cpl_workload *w,
	  bool want_default)
{
	size_t i;

	for (i = 0; i < e->res.workloads.count; i++) {
		const struct cpl_workload *lr = e->res.workloads.items[i];
		const struct cpl_container *c;
		const struct cpl_limits *b;

		if (!is_limitrange(lr) || !applies(lr, w))
			continue;
		c = &lr->containers[0];
		b = c->limits;
		if (want_default ? c->cpu_limit != CPL_CPU_ABSENT ||
				   c->cpu_request != CPL_CPU_ABSENT :
		    b != NULL && (b->max != CPL_CPU_ABSENT ||
				  b->min != CPL_CPU_ABSENT ||
				  b->ratio != CPL_CPU_ABSENT ||
				  b->pod_max != CPL_CPU_ABSENT))
			return c;
	}
	return NULL;
}

/* Applies the defaults of lr (NULL: none) to container c (a main
 * container that may set none) and the bounds of lb (NULL: none). */
static void
apply(struct cpl_container *c, const struct cpl_container *lr,
      const struct cpl_container *lb)
{
	bool none = c->cpu_limit == CPL_CPU_ABSENT &&
		    c->cpu_request == CPL_CPU_ABSENT;

	if (lb != NULL)
		c->limits = cpl_limits_dup(lb->limits);
	if (lr == NULL || c->cpu_limit != CPL_CPU_ABSENT)
		return;
	if (lr->cpu_limit != CPL_CPU_ABSENT) {
		c->cpu_limit = lr->cpu_limit;
		c->limit_pos = lr->limit_pos;
		c->cpu_from_limitrange = true;
	}
	if (none && lr->cpu_request != CPL_CPU_ABSENT) {
		c->cpu_request = lr->cpu_request;
		c->request_pos = lr->request_pos;
		c->cpu_from_limitrange = true;
	}
	if (c->cpu_from_limitrange)
		c->cpu_note = cpl_xasprintf("from %sLimitRange \"%s\"",
			lr->limits && lr->limits->default_from_max &&
			c->cpu_limit == lr->cpu_limit ? "the max of " : "",
			lr->limits && lr->limits->name ? lr->limits->name : "");
}

void
cpl_engine_limitranges(struct cpl_engine *e)
{
	size_t i, j, n = 0;

	for (i = 0; i < e->res.workloads.count; i++)
		n += is_limitrange(e->res.workloads.items[i]);
	if (n == 0)
		return;
	for (i = 0; i < e->res.workloads.count; i++) {
		struct cpl_workload *w = e->res.workloads.items[i];
		const struct cpl_container *lr, *lb;

		if ((w->source == CPL_SRC_LIVE && !w->unadmitted) ||
		    w->merged)
			continue;
		lr = first_for(e, w, true);
		lb = first_for(e, w, false);
		if (lr == NULL && lb == NULL)
			continue;
		for (j = 0; j < w->ncontainers; j++)
			if (w->containers[j].role == CPL_CROLE_MAIN)
				apply(&w->containers[j], lr, lb);
	}
}
