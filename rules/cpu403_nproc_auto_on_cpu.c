/*
 * CPU403 nproc-auto-on-cpu — torchrun --nproc_per_node auto|cpu (or a
 * PyTorchJob's nprocPerNode, auto by default, which torchrun reads from
 * PET_NPROC_PER_NODE) in a container with no GPUs starts one rank per
 * host CPU, whatever the limit.
 */
#include "common.h"

static void
check(struct cpl_check *ck, const struct cpl_workload *w,
      const struct cpl_container *c)
{
	struct cpl_facts f;
	struct cpl_finding *fd;

	if (!cpl_budget_training(w, c) || c->gpus > 0)
		return;
	cpl_facts_gather(&f, w, c);
	if (!f.ranks.auto_cpu)
		return;
	fd = cpl_check_report(ck, w, c, &f.ranks.pos,
		"%s starts one rank per CPU of the node in container \"%s\", "
		"which has no GPUs%s%s%s", f.ranks.how, cpl_facts_cname(c),
		f.cpu >= 0 ? " and a budget of only " : "",
		f.cpu >= 0 ? f.cpus : "", f.cpu >= 0 ? " CPU(s)" : "");
	if (f.cpu >= 1000)
		cpl_finding_set_fix(fd,
			"set the rank count explicitly: --nproc_per_node 1 "
			"(or nprocPerNode: \"1\"), then give that rank "
			"OMP_NUM_THREADS=\"%ld\" and %ld loader worker(s) of "
			"the %s CPU(s); a starting point to compare against",
			f.t, f.w, f.cpus);
	else
		cpl_finding_set_fix(fd,
			"set the rank count explicitly (--nproc_per_node 1 "
			"or nprocPerNode: \"1\") and give the container a CPU "
			"limit");
}

const struct cpl_rule cpl_rule_cpu403 = {
	.id = "CPU403",
	.name = "nproc-auto-on-cpu",
	.severity = CPL_SEV_ERROR,
	.summary = "torchrun's nproc_per_node auto or cpu in a container "
		   "without GPUs starts one rank per host CPU.",
	.precision = "very-high",
	.check_container = check,
};
