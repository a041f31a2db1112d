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
/* Reads c's pools and keeps them in c (c->pools, freed with c or by
 * cpl_pools_forget()), so that cpl_budget_pools() copies them: as
 * cpl_facts_keep(), called after linking and forgotten after c's rules,
 * so c must not change in between. */
void cpl_pools_keep(const struct cpl_workload *w, struct cpl_container *c);
void cpl_pools_forget(struct cpl_container *c);

/* The busy threads pool p adds beyond its calling thread: n - 1 for an
 * active pool set to a known n > 1 (not off), else 0.  Inductor's
 * compile workers run before training, not during it: 0. */
long cpl_pool_extra(const struct cpl_pool *p);

/* The busy threads all pools of c add per rank (*rank) and per loader
 * worker (*worker). */
void cpl_pools_extra(long *rank, long *worker, const struct cpl_pools *ps);

/*
 * The busy threads of one rank with threads intra-op threads and
 * workers loader workers (both >= 0): threads + the rank's pools' extra
 * + workers x (1 + the workers' pools' extra).  With no workers the
 * pipeline (and the pools it runs) runs in the rank: its pools' extra
 * counts once, in the rank.
 */
long cpl_pools_busy(const struct cpl_pools *ps, long threads, long workers);

/*
 * The size the budget gives pool k in each process that runs it, on a
 * per-rank budget of per_rank CPUs (0: under one CPU) run as threads
 * intra-op threads and workers loader workers (-1: not known): CPU401's
 * arithmetic with every pool at this size fits the budget.  A pool in
 * the loader workers gets a worker's share of what the threads leave,
 * floor((per_rank - threads) / workers), split between the workers'
 * pools; a pool of the rank (or of a pipeline with no workers) what the
 * threads and the workers leave, plus its calling thread.  At least 1;
 * 1 when the workers are not known.
 */
long cpl_pools_share(const struct cpl_pools *ps, enum cpl_pool_kind k,
		     long per_rank, long threads, long workers);

/*
 * The same arithmetic over counts, for what has no struct cpl_pools
 * (plan, from a budget entry): a pool that runs in the loader workers
 * (in_workers) or not, among in_rank pools of the rank and in_workers_n
 * of the pipeline (a pipeline's pools are the rank's when workers is
 * 0).
 */
/* The pool variables cpl_pools_env_sized() reads (a count each), in a
 * fixed order: OPENBLAS_NUM_THREADS, NUMEXPR_NUM_THREADS,
 * RAYON_NUM_THREADS, TF_NUM_INTRAOP_THREADS.  *out receives the static
 * array; returns its length (CPL_BUDGET_POOL_VARS). */
size_t cpl_pools_vars(const char *const **out);

long cpl_pools_share_n(bool in_workers, long in_rank, long in_workers_n,
		       long per_rank, long threads, long workers);

/*
 * Whether pool k is sized by the container's environment alone, as a
 * count a YAML edit can reach: its variable (OPENBLAS_NUM_THREADS,
 * NUMEXPR_NUM_THREADS, RAYON_NUM_THREADS, TF_NUM_INTRAOP_THREADS) holds
 * a known number and the code sets no other size.  *a receives it.
 */
bool cpl_pools_env_sized(struct cpl_amount *a, const struct cpl_pools *ps,
			 enum cpl_pool_kind k, const struct cpl_container *c);

/*
 * CPU202's question of pool k: its variable (cpl_pools_env_sized) times
 * the processes that run the pool (ranks, or ranks x workers when it
 * runs in the loader workers and workers > 0; lower bounds) is more
 * than cpu_millis.  Only for a pool the process uses, not turned off.
 */
bool cpl_pools_env_over(struct cpl_amount *a, const struct cpl_pools *ps,
			enum cpl_pool_kind k, const struct cpl_container *c,
			long ranks, long workers, int64_t cpu_millis);

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

/*
 * The first call of code's loader pipeline (__getitem__, a transform)
 * that computes: a numpy/scipy BLAS kernel or numexpr (not its
 * set_num_threads).  *how receives the call as written and *pos where
 * it is (both borrowed from code); false when there is none.
 */
bool cpl_pools_pipeline_computes(const char **how, struct cpl_pos *pos,
				 const struct cpl_code *code);

#endif
