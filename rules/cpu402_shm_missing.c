/*
 * CPU402 shm-missing — loader workers > 0 and no memory-backed /dev/shm:
 * workers hand batches to the rank through shared memory, and a
 * container's default /dev/shm is 64 MiB.  Polyaxon mounts one unless
 * plugins.shm is false.
 */
#include "common.h"

static void
check(struct cpl_check *ck, const struct cpl_workload *w,
      const struct cpl_container *c)
{
	struct cpl_amount wk;
	struct cpl_finding *fd;
	const struct cpl_pos *at;
	bool in_code;

	if (!cpl_budget_training(w, c) || c->shm || w->platform_shm)
		return;
	cpl_budget_workers(&wk, w, c);
	if (!((wk.state == CPL_AMT_KNOWN && wk.n > 0) ||
	      wk.state == CPL_AMT_HOST))
		return;
	/* The fix goes into the workload: report there, and point at the
	 * DataLoader when the workers come from code. */
	in_code = wk.pos.file != NULL && !cpl_str_eq(wk.pos.file, w->file);
	at = in_code ? (c->pos.line > 0 ? &c->pos : &w->pos) : &wk.pos;
	fd = cpl_check_report(ck, w, c, at,
		"DataLoader workers (%s) pass batches through /dev/shm, but "
		"container \"%s\" has no memory-backed /dev/shm (the default "
		"is 64 MiB): workers crash with a bus error or stall",
		wk.how, cpl_facts_cname(c));
	if (in_code)
		cpl_finding_add_related(fd, &wk.pos, "the DataLoader workers: "
					"%s", wk.how);
	/* A Kubeflow Pipelines spec has no volumes of its own: the
	 * pipeline's source mounts one through kfp-kubernetes, which
	 * compiles it into the platform spec. */
	if (cpl_str_eq(w->kind, "PipelineSpec")) {
		cpl_finding_set_fix(fd,
			"mount a memory-backed emptyDir at /dev/shm from the "
			"pipeline's source with kfp-kubernetes: "
			"kubernetes.empty_dir_mount(task, volume_name=\"dshm\", "
			"mount_path=\"/dev/shm\", medium=\"Memory\", "
			"size_limit=\"2Gi\"), then compile it again");
		return;
	}
	cpl_finding_set_fix(fd,
		"mount a memory-backed emptyDir at /dev/shm: add volume "
		"{name: dshm, emptyDir: {medium: Memory, sizeLimit: 2Gi}} and "
		"volumeMount {name: dshm, mountPath: /dev/shm}");
	cpl_fix_shm(fd, c, "2Gi");
}

const struct cpl_rule cpl_rule_cpu402 = {
	.id = "CPU402",
	.name = "shm-missing",
	.severity = CPL_SEV_WARNING,
	.summary = "DataLoader workers run without a memory-backed /dev/shm.",
	.precision = "high",
	.check_container = check,
};
