/*
 * CPU104 limitrange-rejected — a training container's CPU breaks a bound
 * of the LimitRange of its namespace, so the LimitRanger admission
 * plugin rejects its Pods and the job never starts: a limit above the
 * `type: Container` max (its own, or a default over the max), a request
 * below the min, a limit more than maxLimitRequestRatio times the
 * request, or limits that together exceed the `type: Pod` max.  The
 * bounds and the defaults were applied by the run (run/limitrange.c) as
 * admission applies them, so each value judged is the one the API
 * server would see; one finding per container, the first bound broken,
 * and the Pod's once, on its first training container.
 */
#include "common.h"

#include <stdio.h>

/* "LimitRange \"x\"" of b into out. */
static void
lr_name(char *out, size_t size, const struct cpl_limits *b)
{
	snprintf(out, size, "LimitRange \"%s\"", b->name ? b->name : "");
}

/* The Pod max: the limits of w's main and sidecar containers together,
 * once per workload on its first training container. */
static void
check_pod(struct cpl_check *ck, const struct cpl_workload *w,
	  const struct cpl_container *c, const struct cpl_limits *b)
{
	struct cpl_finding *fd;
	int64_t sum = 0;
	char s[16], m[16], lr[300];
	size_t i;

	for (i = 0; i < w->ncontainers; i++) {
		const struct cpl_container *o = &w->containers[i];

		if (o->role == CPL_CROLE_INIT)
			continue;
		if (o == c)
			break;
		if (cpl_budget_training(w, o))
			return;		/* reported on that one */
	}
	for (i = 0; i < w->ncontainers; i++) {
		const struct cpl_container *o = &w->containers[i];

		if (o->role == CPL_CROLE_INIT)
			continue;
		if (o->cpu_limit < 0)
			return;		/* not known: not judged */
		sum += o->cpu_limit;
	}
	if (sum <= b->pod_max)
		return;
	cpl_budget_cpus_str(s, sizeof(s), sum);
	cpl_budget_cpus_str(m, sizeof(m), b->pod_max);
	lr_name(lr, sizeof(lr), b);
	fd = cpl_check_report(ck, w, c, cpl_facts_where(w, c),
		"the containers of this Pod ask for CPU limits of %s "
		"together, above the Pod max of %s in %s: admission rejects "
		"its Pods, so the job never starts", s, m, lr);
	cpl_finding_add_related(fd, &b->pod_max_pos, "Pod max: %s", m);
	cpl_finding_set_fix(fd, "bring the Pod's CPU limits to %s or less "
			    "together and size threads and workers to them, "
			    "or have the namespace's %s raised", m, lr);
}

static void
check(struct cpl_check *ck, const struct cpl_workload *w,
      const struct cpl_container *c)
{
	const struct cpl_limits *b = c->limits;
	struct cpl_finding *fd;
	char l[16], r[16], v[16], lr[300];
	int64_t req;

	if (b == NULL || !cpl_budget_training(w, c))
		return;
	lr_name(lr, sizeof(lr), b);
	req = c->cpu_request >= 0 ? c->cpu_request : c->cpu_limit;
	if (c->cpu_limit >= 0)
		cpl_budget_cpus_str(l, sizeof(l), c->cpu_limit);
	if (req >= 0)
		cpl_budget_cpus_str(r, sizeof(r), req);
	if (b->max >= 0 && c->cpu_limit > b->max) {
		cpl_budget_cpus_str(v, sizeof(v), b->max);
		if (c->cpu_from_limitrange && c->cpu_note != NULL)
			fd = cpl_check_report(ck, w, c, cpl_facts_where(w, c),
				"container \"%s\" gets the default CPU limit "
				"of %s of %s, above its max of %s: admission "
				"rejects its Pods, so the job never starts",
				cpl_facts_cname(c), l, lr, v);
		else
			fd = cpl_check_report(ck, w, c, &c->limit_pos,
				"container \"%s\" has a CPU limit of %s, above "
				"the max of %s in %s: admission rejects its "
				"Pods, so the job never starts",
				cpl_facts_cname(c), l, v, lr);
		if (c->cpu_from_limitrange)
			cpl_finding_add_related(fd, &c->limit_pos,
						"default: %s", l);
		cpl_finding_add_related(fd, &b->max_pos, "max: %s", v);
		cpl_finding_set_fix(fd, "set resources.limits.cpu to at most "
				    "\"%s\" (the namespace's max) and size "
				    "threads and workers to it, or have %s "
				    "raised", v, lr);
		return;
	}
	if (b->min >= 0 && req >= 0 && req < b->min) {
		cpl_budget_cpus_str(v, sizeof(v), b->min);
		fd = cpl_check_report(ck, w, c, c->cpu_request >= 0 ?
			&c->request_pos : &c->limit_pos,
			"container \"%s\" requests %s CPU, below the min of %s "
			"in %s: admission rejects its Pods, so the job never "
			"starts", cpl_facts_cname(c), r, v, lr);
		cpl_finding_add_related(fd, &b->min_pos, "min: %s", v);
		cpl_finding_set_fix(fd, "set resources.requests.cpu to at "
				    "least \"%s\" (the namespace's min)", v);
		return;
	}
	if (b->ratio > 0 && c->cpu_limit >= 0 && req > 0 &&
	    c->cpu_limit * 1000 > b->ratio * req) {
		char x[24];

		cpl_budget_cpus_str(v, sizeof(v), b->ratio);
		cpl_budget_cpus_str(x, sizeof(x), c->cpu_limit * 1000 / req);
		fd = cpl_check_report(ck, w, c, &c->limit_pos,
			"container \"%s\" has a CPU limit of %s, %sx its "
			"request of %s, above the maxLimitRequestRatio of %s "
			"in %s: admission rejects its Pods, so the job never "
			"starts", cpl_facts_cname(c), l, x, r, v, lr);
		if (c->cpu_request >= 0)
			cpl_finding_add_related(fd, &c->request_pos,
						"request: %s", r);
		cpl_finding_add_related(fd, &b->ratio_pos,
					"maxLimitRequestRatio: %s", v);
		/* The least request the ratio admits, rounded up. */
		cpl_budget_cpus_str(x, sizeof(x), (c->cpu_limit * 1000 +
						   b->ratio - 1) / b->ratio);
		cpl_finding_set_fix(fd, "raise resources.requests.cpu to at "
				    "least \"%s\" (the limit / %s; equal to "
				    "the limit assures every CPU the threads "
				    "are sized to)", x, v);
		return;
	}
	if (b->pod_max >= 0)
		check_pod(ck, w, c, b);
}

const struct cpl_rule cpl_rule_cpu104 = {
	.id = "CPU104",
	.name = "limitrange-rejected",
	.severity = CPL_SEV_ERROR,
	.summary = "A training container's CPU breaks its namespace's "
		   "LimitRange (max, min, maxLimitRequestRatio, Pod max): "
		   "admission rejects its Pods.",
	.precision = "high",
	.check_container = check,
};
