/*
 * CPU404 absolute-cpu-ids — a container with a CPU budget binds its
 * process or its OpenMP threads to fixed CPU ids of the node: `taskset -c
 * 0-3`, `numactl -C/--physcpubind 0-3` (shscan records them as pins),
 * deepspeed --bind_core_list, GOMP_CPU_AFFINITY, KMP_AFFINITY with a
 * proclist, OMP_PLACES with explicit places ({0:4}).
 *
 * A container's cpuset is not CPUs 0..N-1 of the node: under the static
 * CPU Manager policy it is whichever cores the kubelet granted, and
 * without it every CPU of the node, shared with every other Pod, so ids
 * written into the job pin it onto CPUs other Pods use as well, or onto
 * CPUs outside its cpuset (taskset then fails).  Under a CFS quota alone
 * a pin does nothing for the quota.  By NUMA node (numactl
 * --cpunodebind, --membind) and relative ids (numactl -C +0-3) are not
 * this and stay silent.  One finding per setting; every container with a
 * CPU budget that is not an init container or a sidecar is judged: the
 * setting is its own evidence of a pinned pool.
 */
#include "common.h"

#include <string.h>

/* What the fix says after naming the setting to drop. */
#define TAIL "the container's cpuset already bounds it; to bind threads " \
	     "inside it use OMP_PROC_BIND=close with OMP_PLACES=cores, " \
	     "and only where the kubelet's static CPU Manager policy " \
	     "grants the Pod exclusive cores (Guaranteed QoS, integer CPUs)"

/* Whether env value v of name names CPU ids: GOMP_CPU_AFFINITY always
 * does; KMP_AFFINITY with proclist=; OMP_PLACES with explicit places
 * ("{0,1},{2,3}", "{0:4}:2:4"), not abstract names ("cores(4)"). */
static bool
env_ids(const char *name, const char *v)
{
	if (strcmp(name, "GOMP_CPU_AFFINITY") == 0)
		return strpbrk(v, "0123456789") != NULL;
	if (strcmp(name, "KMP_AFFINITY") == 0)
		return strstr(v, "proclist") != NULL;
	return strchr(v, '{') != NULL;
}

static void
check(struct cpl_check *ck, const struct cpl_workload *w,
      const struct cpl_container *c)
{
	static const char *const vars[] = {
		"GOMP_CPU_AFFINITY", "KMP_AFFINITY", "OMP_PLACES",
	};
	const struct cpl_word *cores;
	struct cpl_finding *fd;
	struct cpl_facts f;
	size_t i;

	if (c->role != CPL_CROLE_MAIN || cpl_budget_cpu(c, NULL) < 0)
		return;
	cpl_facts_gather(&f, w, c);
	for (i = 0; i < c->launch.npins; i++) {
		const struct cpl_pin *p = &c->launch.pins[i];

		/* Plain taskset takes a mask ("0xf"), its -c a list. */
		bool mask = strcmp(p->how, "taskset") == 0;

		fd = cpl_check_report(ck, w, c, &p->list.pos,
			"%s %s binds what it runs to %s%s of the node in "
			"container \"%s\" (a %s): the container's cpuset is "
			"not CPUs 0..N-1 of the node, and a CPU limit is a "
			"share of time, not these cores", p->how,
			p->list.text, mask ? "the CPUs of mask " : "CPUs ",
			p->list.text, cpl_facts_cname(c), f.budget);
		cpl_finding_set_fix(fd, "drop the CPU ids (run the command "
				    "without %s %s): " TAIL, p->how,
				    p->list.text);
	}
	cores = &c->launch.opt[CPL_LOPT_CORES];
	if (c->launch.launcher == CPL_LAUNCH_DEEPSPEED && cores->text) {
		fd = cpl_check_report(ck, w, c, &cores->pos,
			"deepspeed --bind_core_list %s binds the ranks to CPUs "
			"%s of the node in container \"%s\" (a %s): the "
			"container's cpuset is not CPUs 0..N-1 of the node",
			cores->text, cores->text, cpl_facts_cname(c),
			f.budget);
		cpl_finding_set_fix(fd, "drop --bind_core_list %s: " TAIL,
				    cores->text);
	}
	for (i = 0; i < CPL_ARRAY_LEN(vars); i++) {
		const struct cpl_env *e = cpl_container_env_effective(c,
								      vars[i]);

		if (e == NULL || e->value == NULL ||
		    !env_ids(vars[i], e->value))
			continue;
		fd = cpl_check_report(ck, w, c, &e->pos,
			"%s=%s binds OpenMP threads to fixed CPU ids of the "
			"node in container \"%s\" (a %s): the container's "
			"cpuset is not CPUs 0..N-1 of the node, and a CPU "
			"limit is a share of time, not these cores", vars[i],
			e->value, cpl_facts_cname(c), f.budget);
		cpl_finding_set_fix(fd, "remove %s: " TAIL, vars[i]);
	}
}

const struct cpl_rule cpl_rule_cpu404 = {
	.id = "CPU404",
	.name = "absolute-cpu-ids",
	.severity = CPL_SEV_WARNING,
	.summary = "taskset, numactl -C or an OpenMP affinity variable binds "
		   "a container to fixed CPU ids of the node.",
	.precision = "high",
	.check_container = check,
};
