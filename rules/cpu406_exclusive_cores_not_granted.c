/*
 * CPU406 exclusive-cores-not-granted — a container set up for exclusive
 * cores (a whole number of CPUs, CPU and memory requests equal to their
 * limits, and threads bound to cores: OMP_PROC_BIND, OMP_PLACES,
 * KMP_AFFINITY, GOMP_CPU_AFFINITY, taskset/numactl ids, deepspeed
 * --bind_cores_to_rank; or the Pod asks for nodes of the static policy
 * by nodeSelector, or for CRI-O's exclusive-core annotations) in a Pod
 * that is not of the Guaranteed QoS class, because another container of
 * it (an init container or a sidecar included) lacks equal requests and
 * limits for CPU and memory.
 *
 * The kubelet's static CPU Manager policy gives exclusive cores only to
 * containers with integer CPU requests in Guaranteed Pods; any other
 * container runs on the shared pool, where the binding pins threads to
 * CPUs other Pods use.  The QoS class is told as Kubernetes tells it:
 * Guaranteed when every container and init container has a CPU and a
 * memory limit, and each request is absent (it then defaults to the
 * limit) or equal to it.  Judged only where the whole Pod spec is known:
 * Kubernetes manifests and live Pods (not Polyaxon, which adds
 * containers of its own; not a TrainJob merged with its runtime; not
 * with Pod-level resources or a LimitRange's defaults).  The finding
 * names the first container that breaks the class.
 */
#include "common.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* What binds c's threads to cores, or asks w's Pod onto nodes that
 * grant exclusive cores, for messages (static, c's or w's); NULL when
 * nothing does. */
static const char *
binding(const struct cpl_workload *w, const struct cpl_container *c,
	char *buf, size_t size)
{
	static const char *const vars[] = {
		"OMP_PROC_BIND", "OMP_PLACES", "KMP_AFFINITY",
		"GOMP_CPU_AFFINITY",
	};
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(vars); i++) {
		const struct cpl_env *e = cpl_container_env_effective(c,
								      vars[i]);

		if (e == NULL || e->value == NULL || *e->value == '\0' ||
		    strcasecmp(e->value, "false") == 0 ||
		    strcasestr(e->value, "disabled") != NULL ||
		    strcasestr(e->value, "none") != NULL)
			continue;
		snprintf(buf, size, "%s=%s", vars[i], e->value);
		return buf;
	}
	if (c->launch.npins > 0) {
		snprintf(buf, size, "%s %s", c->launch.pins[0].how,
			 c->launch.pins[0].list.text);
		return buf;
	}
	if (c->launch.flags & CPL_LFLAG_BIND_CORES)
		return "deepspeed --bind_cores_to_rank";
	return w->exclusive_hint;
}

/* Whether one side (CPU or memory) of c is as Guaranteed wants it; *why
 * receives the reason when not.  unknown is set when it cannot tell. */
static bool
side_ok(int64_t req, int64_t lim, const char *what, char *why, size_t size,
	bool *unknown)
{
	if (req == CPL_CPU_UNKNOWN || lim == CPL_CPU_UNKNOWN) {
		*unknown = true;
		return true;
	}
	if (lim == CPL_CPU_ABSENT) {
		snprintf(why, size, "has no %s limit", what);
		return false;
	}
	if (req != CPL_CPU_ABSENT && req != lim) {
		snprintf(why, size, "has a %s request below its limit", what);
		return false;
	}
	return true;
}

/* "init container \"x\"", "sidecar \"x\"", "container \"x\"". */
static const char *
role(const struct cpl_container *c)
{
	return c->role == CPL_CROLE_INIT ? "init container" :
	       c->role == CPL_CROLE_SIDECAR ? "sidecar" : "container";
}

static void
check(struct cpl_check *ck, const struct cpl_workload *w,
      const struct cpl_container *c)
{
	const struct cpl_container *bad = NULL;
	struct cpl_finding *fd;
	char bind[160], why[80] = "", cpus[16];
	const char *how;
	bool unknown = false;	/* a quantity not resolved: not bad */
	size_t i;

	if (!w->pod_spec || w->pod_resources || w->trainer != NULL ||
	    w->source == CPL_SRC_POLYAXON || c->role != CPL_CROLE_MAIN ||
	    c->cpu_limit < 1000 || c->cpu_limit % 1000 != 0 ||
	    (c->cpu_request != CPL_CPU_ABSENT &&
	     c->cpu_request != c->cpu_limit))
		return;
	how = binding(w, c, bind, sizeof(bind));
	/* The bound container is itself set up as Guaranteed asks (its
	 * memory too): only then is it meant for exclusive cores. */
	if (how == NULL ||
	    !side_ok(c->mem_request, c->mem_limit, "memory", why,
		     sizeof(why), &unknown) || unknown)
		return;
	for (i = 0; i < w->ncontainers; i++) {
		const struct cpl_container *o = &w->containers[i];

		if (o->cpu_from_limitrange)
			return;
		if (bad != NULL || o == c)
			continue;
		if (!side_ok(o->cpu_request, o->cpu_limit, "CPU", why,
			     sizeof(why), &unknown) ||
		    !side_ok(o->mem_request, o->mem_limit, "memory", why,
			     sizeof(why), &unknown))
			bad = o;
	}
	if (bad == NULL)
		return;
	cpl_budget_cpus_str(cpus, sizeof(cpus), c->cpu_limit);
	fd = cpl_check_report(ck, w, c, cpl_facts_where(w, c),
		"container \"%s\" is set up for exclusive cores (%s whole "
		"CPU(s), request = limit, %s), but the Pod is not of the "
		"Guaranteed QoS class: %s \"%s\" %s; the static CPU Manager "
		"policy gives exclusive cores only to Guaranteed Pods, so its "
		"threads run on the shared CPUs other Pods use",
		cpl_facts_cname(c), cpus, how, role(bad),
		cpl_facts_cname(bad), why);
	cpl_finding_add_related(fd, cpl_facts_where(w, bad), "%s \"%s\" %s",
				role(bad), cpl_facts_cname(bad), why);
	cpl_finding_set_fix(fd,
		"give %s \"%s\" (and every other container and init "
		"container of the Pod) CPU and memory limits with requests "
		"equal to them, so the Pod is Guaranteed; or, if exclusive "
		"cores are not wanted, drop %s", role(bad),
		cpl_facts_cname(bad), how);
}

const struct cpl_rule cpl_rule_cpu406 = {
	.id = "CPU406",
	.name = "exclusive-cores-not-granted",
	.severity = CPL_SEV_WARNING,
	.summary = "A container bound to whole cores is in a Pod that is not "
		   "Guaranteed QoS, so the static CPU Manager policy gives it "
		   "no exclusive cores.",
	.precision = "high",
	.check_container = check,
};
