/*
 * CPU302 set-num-threads-late — torch.set_num_threads runs after tensor,
 * model or autograd work in the same process: the intra-op pool has
 * already started at its default size.
 */
#include "common.h"
#include "python/pyscan.h"

static void
check(struct cpl_check *ck, const struct cpl_pyfile *f)
{
	size_t i;

	for (i = 0; i < f->nthreads; i++) {
		const struct cpl_pythreads *t = &f->threads[i];
		const struct cpl_pycall *work;
		struct cpl_finding *fd;

		if (t->kind != CPL_PYTHREADS_INTRA || t->prior_work < 0 ||
		    cpl_facts_in_worker_init(ck, f, i))
			continue;
		work = &f->calls[t->prior_work];
		fd = cpl_check_report(ck, NULL, NULL, &t->pos,
			"torch.set_num_threads runs after tensor work (%s at "
			"line %d): by then the intra-op thread pool has "
			"started at one thread per node CPU", work->callee,
			work->pos.line);
		cpl_finding_add_related(fd, &work->pos, "tensor work before "
					"it: %s", work->callee);
		cpl_finding_set_fix(fd,
			"move the torch.set_num_threads call to the start of "
			"the process, right after `import torch` and before "
			"line %d (or set OMP_NUM_THREADS in the container's "
			"env, which takes effect before any work)",
			work->pos.line);
	}
}

const struct cpl_rule cpl_rule_cpu302 = {
	.id = "CPU302",
	.name = "set-num-threads-late",
	.severity = CPL_SEV_WARNING,
	.summary = "torch.set_num_threads runs after tensor, model or "
		   "autograd work in the same process.",
	.precision = "medium",
	.check_code = check,
};
