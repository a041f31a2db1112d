/*
 * limitrange.c — the effective CPU budget a LimitRange gives: the
 * Container defaults (`default`, `defaultRequest`) of a LimitRange read
 * in the run (load/kinds.c keeps each as a merged workload) apply to the
 * main containers of the workloads in its namespace (or, both without
 * one, of the run) that set no CPU limit, as the LimitRanger admission
 * plugin would: the default limit where the limit is unset, the default
 * request where neither is set (a lone limit makes the request equal to
 * it).  Positions are the LimitRange's values, so findings on the budget
 * point at it.
 *
 * Runs once per run, before the group graph, over the static workloads.
 * Owns nothing.  Includes: engine_int.h, the C library.
 */
#include "run/engine_int.h"

#include <string.h>

/* Whether w is a LimitRange kept for its defaults. */
static bool
is_limitrange(const struct cpl_workload *w)
{
	return w->merged && cpl_str_eq(w->kind, "LimitRange") &&
	       w->ncontainers == 1;
}

/* The LimitRange of namespace ns among the run's workloads, or NULL. */
static const struct cpl_container *
defaults_for(const struct cpl_engine *e, const char *ns)
{
	size_t i;

	for (i = 0; i < e->workloads.count; i++) {
		const struct cpl_workload *w = e->workloads.items[i];

		if (is_limitrange(w) && (ns == NULL ? w->namespace == NULL :
					 cpl_str_eq(w->namespace, ns)))
			return &w->containers[0];
	}
	return NULL;
}

void
cpl_engine_limitranges(struct cpl_engine *e)
{
	size_t i, j, n = 0;

	for (i = 0; i < e->workloads.count; i++)
		n += is_limitrange(e->workloads.items[i]);
	if (n == 0)
		return;
	for (i = 0; i < e->workloads.count; i++) {
		struct cpl_workload *w = e->workloads.items[i];
		const struct cpl_container *lr;

		if (w->source == CPL_SRC_LIVE || w->merged ||
		    (lr = defaults_for(e, w->namespace)) == NULL)
			continue;
		for (j = 0; j < w->ncontainers; j++) {
			struct cpl_container *c = &w->containers[j];
			bool none = c->cpu_limit == CPL_CPU_ABSENT &&
				    c->cpu_request == CPL_CPU_ABSENT;

			if (c->role != CPL_CROLE_MAIN ||
			    c->cpu_limit != CPL_CPU_ABSENT)
				continue;
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
		}
	}
}
