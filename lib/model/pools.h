/*
 * pools.h — the native thread pools of a training container beyond
 * torch's intra-op pool (DESIGN.md, "Every pool counts"): OpenBLAS,
 * numexpr, Hugging Face tokenizers (Rayon), ONNX Runtime, TensorFlow,
 * JAX/XLA, torch's inter-op pool and Inductor's compile workers.  For
 * each: whether the process uses it (its linked code imports and calls
 * the library, or the environment sizes it), what sizes it and where,
 * and whether it runs in the loader workers.
 *
 * A pool of n threads adds n - 1 busy threads to the rank (or worker)
 * that calls it: the calling thread is already counted (intra-op threads
 * or the worker itself) and waits while the pool works.  So a pool set
 * to 1 adds nothing, which is what the fixes write.
 *
 * Pure functions over the workload model and its linked code; nothing
 * is allocated.  Every string is static or points into the container or
 * its code (borrowed while they live).
 */
#ifndef CPL_POOLS_H
#define CPL_POOLS_H

#include <stdbool.h>

#include "model/budget.h"
#include "model/finding.h"
#include "model/workload.h"

enum cpl_pool_kind {
	CPL_POOL_OPENBLAS,	/* OPENBLAS_NUM_THREADS, openblas_set_num_
				 * threads, threadpoolctl.threadpool_limits */
	CPL_POOL_NUMEXPR,	/* NUMEXPR_NUM_THREADS (NUMEXPR_MAX_THREADS),
				 * numexpr.set_num_threads */
	CPL_POOL_RAYON,		/* tokenizers: RAYON_NUM_THREADS,
				 * TOKENIZERS_PARALLELISM=false turns it off */
	CPL_POOL_ORT,		/* SessionOptions.intra_op_num_threads */
	CPL_POOL_TF,		/* TF_NUM_INTRAOP_THREADS, tf.config.threading.
				 * set_intra_op_parallelism_threads */
	CPL_POOL_XLA,		/* XLA_FLAGS intra_op_parallelism_threads=N,
				 * --xla_cpu_multi_thread_eigen=false */
	CPL_POOL_INTEROP,	/* torch.set_num_interop_threads */
	CPL_POOL_INDUCTOR,	/* TORCHINDUCTOR_COMPILE_THREADS */
	CPL_POOL_NKINDS
};

/* One pool of a container's process. */
struct cpl_pool {
	enum cpl_pool_kind kind;
	const char *name;	/* "OpenBLAS", "ONNX Runtime" (static) */
	const char *env;	/* the variable a fix sets, NULL: none (a
				 * setting in code: ORT, inter-op) */
	bool active;		/* the process uses the library: its code
				 * calls it, or (no code known) the env
				 * sizes it */
	bool off;		/* turned off: one thread, the caller's */
	bool in_workers;	/* it runs in the DataLoader workers (a
				 * tokenizer in __getitem__) */
	bool host_default;	/* unset, and the library's documented
				 * default is the node's cores */
	bool unread;		/* used, and its size is not read here: set
				 * to what the text does not fix, or unset
				 * with a default cpulint does not count
				 * (Inductor's compile workers, Rayon in the
				 * main process, numexpr without
				 * OMP_NUM_THREADS) */
	struct cpl_amount size;	/* UNSET: nothing sets it */
	struct cpl_pos use;	/* the call that uses it (file NULL: none
				 * seen, the env alone) */
	const char *use_how;	/* its callee as written, or NULL */
	char setter[96];	/* what a fix sets, for its text: the env
				 * variable, "so.intra_op_num_threads", "the
				 * argument of numexpr.set_num_threads" */
};

struct cpl_pools {
	struct cpl_pool p[CPL_POOL_NKINDS];	/* indexed by kind */
};

/*
 * The pools of container c of w, from its environment and its linked
 * code (c->code, may be NULL).  Every member of *out is filled; a pool
 * the process does not use has active false.
 */
void cpl_budget_pools(struct cpl_pools *out, const struct cpl_workload *w,
		      const struct cpl_container *c);

/* The busy threads pool p adds beyond its calling thread: n - 1 for an
 * active pool set to a known n > 1 (not off), else 0.  Inductor's
 * compile workers run before training, not during it: 0. */
long cpl_pool_extra(const struct cpl_pool *p);

/* The busy threads all pools of c add per rank (*rank) and per loader
 * worker (*worker). */
void cpl_pools_extra(long *rank, long *worker, const struct cpl_pools *ps);

/*
 * Adds container c's pools to its budget entry b (made by
 * cpl_budget_entry(); the run calls this after it): what they add to
 * b->busy when that is known, and b->pools, the pools that count, size
 * to the node or are unread (owned by b, freed with
 * cpl_finding_budget_free()).
 */
void cpl_pools_entry(struct cpl_budget_entry *b,
		     const struct cpl_workload *w,
		     const struct cpl_container *c);

#endif
