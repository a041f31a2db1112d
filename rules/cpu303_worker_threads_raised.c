/*
 * CPU303 worker-threads-raised — a worker_init_fn raises the DataLoader
 * workers' torch threads above 1 (each worker starts with 1): every
 * worker then runs its own intra-op pool.
 */
#include "common.h"
#include "python/pyscan.h"
#include "python/pyvalue.h"

static void
check(struct cpl_check *ck, const struct cpl_pyfile *f)
{
	size_t i;

	for (i = 0; i < f->nthreads; i++) {
		const struct cpl_pythreads *t = &f->threads[i];
		struct cpl_pyval v;
		struct cpl_finding *fd;

		if (t->kind != CPL_PYTHREADS_INTRA ||
		    !cpl_facts_in_worker_init(ck, f, i))
			continue;
		cpl_pyvalue_threads(&v, f, i, NULL, NULL);
		if (!((v.kind == CPL_PYVAL_KNOWN && v.value > 1) ||
		      v.kind == CPL_PYVAL_HOST))
			continue;
		if (v.kind == CPL_PYVAL_KNOWN)
			fd = cpl_check_report(ck, NULL, NULL, &t->pos,
				"worker_init_fn sets torch.set_num_threads(%ld)"
				" in every DataLoader worker (the DataLoader "
				"gives each worker 1): workers x %ld threads "
				"compete with the training ranks", v.value,
				v.value);
		else
			fd = cpl_check_report(ck, NULL, NULL, &t->pos,
				"worker_init_fn sizes every DataLoader worker's "
				"torch threads from the host's CPU count (the "
				"DataLoader gives each worker 1)");
		if (v.kind == CPL_PYVAL_HOST)
			cpl_finding_add_related(fd, &v.host, "the CPU count");
		cpl_finding_set_fix(fd,
			"remove the call, or use torch.set_num_threads(1) in "
			"worker_init_fn: parallelism across workers comes "
			"from num_workers, not from threads inside each");
	}
}

const struct cpl_rule cpl_rule_cpu303 = {
	.id = "CPU303",
	.name = "worker-threads-raised",
	.severity = CPL_SEV_WARNING,
	.summary = "A worker_init_fn raises the DataLoader workers' torch "
		   "threads above 1.",
	.precision = "high",
	.check_code = check,
};
