/*
 * budget.h — the CPU budget arithmetic of DESIGN.md, stated once, and the
 * questions every budget rule asks of a container: is it a training
 * container, what is its CPU budget C, how many ranks does it start, how
 * many intra-op threads and loader workers does each rank use.
 *
 *   per-rank budget   B = floor(C / ranks)      (C: limit, else request)
 *   suggested split   by what the code shows the loader does:
 *                     none (W known to be 0)  T = max(1, B), W = 0;
 *                     a loader that decodes   T = max(1, floor(B / 3)),
 *                     images (PIL, cv2,       W = max(2, B + 1 - T): the
 *                     torchvision transforms) workers and the main process
 *                     or, from B = 2, whose   take turns, so W may pass B
 *                     pipeline computes       (its allowance, T + W - B,
 *                     (numpy's BLAS, numexpr  is what CPU401 forgives);
 *                     in __getitem__)
 *                     any other loader (and   T = max(1, floor(B / 2)),
 *                     any under 1 CPU a rank) W = max(0, B - T)
 *   thread precedence torch.set_num_threads > MKL_NUM_THREADS >
 *                     a launcher that forces it (accelerate
 *                     --num_cpu_threads_per_process, deepspeed
 *                     --bind_cores_to_rank) > OMP_NUM_THREADS > the
 *                     launcher's default when unset (torchrun, tune run:
 *                     1 for more than one rank; accelerate launch: 1)
 *   ranks             per container: accelerate's --num_processes over
 *                     --num_machines; a count nothing resolves is
 *                     UNKNOWN (its lower bound 1), never KNOWN 1
 *
 * Pure functions over the workload model; nothing is allocated except
 * where a comment says so (the budget entry).
 */
#ifndef CPL_BUDGET_H
#define CPL_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#include "model/finding.h"
#include "model/workload.h"

enum cpl_amount_state {
	CPL_AMT_UNSET,		/* nothing sets it: the library default */
	CPL_AMT_KNOWN,		/* n */
	CPL_AMT_HOST,		/* sized from the host's CPU count */
	CPL_AMT_UNKNOWN,	/* set, but not resolvable */
};

/* A count (ranks, threads, workers) with where it came from. */
struct cpl_amount {
	enum cpl_amount_state state;
	long n;			/* KNOWN: the value; else a lower bound */
	struct cpl_pos pos;	/* where it is set (file NULL: nowhere) */
	bool auto_cpu;		/* ranks: "auto"/"cpu" with no GPUs */
	long cap;		/* HOST: at most this, a bound the code
				 * sets (min(8, os.cpu_count())); n is then
				 * its lower bound on a node with the CPUs
				 * requested.  0: not bounded */
	char how[96];		/* "torchrun --nproc_per_node 4",
				 * "OMP_NUM_THREADS=8", "--workers 6" */
};

/*
 * DESIGN's training container: the run container of a Polyaxonfile, a
 * Kubeflow job replica or a TrainJob, or a container whose command starts
 * a training launcher; in a run-to-completion kind also one with GPUs or
 * whose linked Python imports torch; in a long-running one (a server)
 * only one whose linked Python trains (imports torch and builds a
 * DataLoader, calls backward or steps an optimizer).  Never an init
 * container, a sidecar, a Trainer initializer or an MPI launcher whose
 * ranks run elsewhere (not_training).  The one place that decides.
 */
bool cpl_budget_training(const struct cpl_workload *w,
			 const struct cpl_container *c);
/*
 * Whether c runs PyTorch because of its kind, whatever console script its
 * command names: the trainer of a PyTorchJob, of a TrainJob (a runtime
 * whose policy is not MPI) or of a PyTorch ElasticJob (the run container
 * load/generic.c marks).  Never the native program of MPI ranks (ranks_native).
 */
bool cpl_budget_torch_kind(const struct cpl_workload *w,
			   const struct cpl_container *c);
/*
 * The program c's command runs when it is one cpulint cannot see into: a
 * command written (args alone run the image's entrypoint, which is not
 * known), no launcher, no Python (nor python among its words, nor linked
 * code), no MPI ranks another Pod starts here: a CUDA burn-in binary,
 * lmp, sleep, a shell script that starts none of them; or, for a
 * container whose MPI ranks the job's mpirun starts, the native program
 * they run (ranks_native: an MPI pi, a C solver).  Its first word
 * (borrowed), or NULL.  No evidence of an OpenMP pool.
 */
const char *cpl_budget_unseen(const struct cpl_container *c);

/* C in millicores: the limit, else the request; -1 when neither is known.
 * *pos receives where it is written (may be NULL). */
int64_t cpl_budget_cpu(const struct cpl_container *c, struct cpl_pos *pos);

/* Processes the container starts (ranks). */
void cpl_budget_ranks(struct cpl_amount *out, const struct cpl_workload *w,
		      const struct cpl_container *c);

/*
 * What the launcher does to OMP_NUM_THREADS in each rank: UNSET when it
 * leaves it alone; KNOWN n, HOST or UNKNOWN when it sets it (UNKNOWN: it
 * may, the rank count or its config being unknown).  *forced is true when
 * it sets it whatever the environment says (accelerate
 * --num_cpu_threads_per_process, deepspeed --bind_cores_to_rank); else
 * only when the variable is unset.
 */
void cpl_budget_launcher_threads(struct cpl_amount *out, bool *forced,
				 const struct cpl_workload *w,
				 const struct cpl_container *c);

/* Intra-op threads per rank: torch.set_num_threads in the linked code,
 * MKL_NUM_THREADS, a launcher that forces it, OMP_NUM_THREADS, the
 * launcher's default, in that order. */
void cpl_budget_threads(struct cpl_amount *out,
			const struct cpl_workload *w,
			const struct cpl_container *c);

/* A numeric environment variable: UNSET, KNOWN n, or UNKNOWN. */
void cpl_budget_env_count(struct cpl_amount *out,
			  const struct cpl_container *c, const char *name);

/* DataLoader workers per rank: the linked code's DataLoaders (KNOWN 0
 * when it has none and imports no library that builds its own), else a
 * --workers style script argument. */
void cpl_budget_workers(struct cpl_amount *out,
			const struct cpl_workload *w,
			const struct cpl_container *c);

/* Whether flag[0, len) ("--num-workers", "-j") names a script's loader
 * worker count, as cpl_budget_workers reads it. */
bool cpl_budget_worker_flag(const char *flag, size_t len);

/* True when the workers are known to be none: all of B goes to threads. */
bool cpl_budget_no_workers(const struct cpl_amount *workers);

/* What the code shows its loader does: the kind of job the split is for. */
enum cpl_loader {
	CPL_LOADER_PLAIN,	/* workers, or not known to be none */
	CPL_LOADER_NONE,	/* no loader workers run: all to threads */
	CPL_LOADER_DECODE,	/* a DataLoader, and the code decodes or
				 * augments images (PIL, cv2, torchvision
				 * transforms, io or datasets, albumentations,
				 * imageio, skimage, decord) */
	CPL_LOADER_COMPUTE,	/* a DataLoader whose pipeline (__getitem__,
				 * a transform) computes: numpy/scipy BLAS
				 * calls or numexpr, once per sample */
};

/* Whether the split of a per-rank budget of per_rank CPUs gives the
 * workers of a loader of kind l the larger share: DECODE from one CPU a
 * rank, COMPUTE from two (on one CPU its pipeline runs best in the
 * rank). */
bool cpl_budget_loader_busy(enum cpl_loader l, long per_rank);

/* What the loader of kind l does, for messages on a split that leans
 * to its workers: "decodes images", "computes per sample"; "" for the
 * other kinds. */
const char *cpl_budget_loader_phrase(enum cpl_loader l);

/*
 * The kind of loader of container c of w: DECODE when its linked code
 * builds a DataLoader and imports an image decoding library (*how, when
 * not NULL, receives the module, borrowed from the code; *pos where it
 * is imported), COMPUTE when it builds one and its pipeline computes
 * (*how the call as written, *pos the call), NONE when its workers are
 * known to be none, else PLAIN.
 */
enum cpl_loader cpl_budget_loader(const char **how, struct cpl_pos *pos,
				  const struct cpl_workload *w,
				  const struct cpl_container *c);

/* The suggested split for C millicores over ranks (ranks >= 1), by the
 * kind of loader (the table at the top of this file). */
void cpl_budget_split(long *per_rank, long *threads, long *workers,
		      int64_t cpu_millis, long ranks, enum cpl_loader loader);

/* The loader workers a rank may run beyond its budget B: T + W - B of
 * the split for a busy loader (2 at B = 1 for a decoding one, 1 above),
 * else 0. */
long cpl_budget_worker_allowance(long per_rank, enum cpl_loader loader);

/* Formats millicores for messages: "4", "2.5", "0.5". */
void cpl_budget_cpus_str(char *out, unsigned size, int64_t millis);


/* Everything a budget rule (and the budget report) asks about one
 * container. */
struct cpl_facts {
	int64_t cpu;		/* C in millicores, -1 unknown */
	struct cpl_pos cpu_pos;
	char cpus[16];		/* C for messages: "4", "2.5" */
	char budget[192];	/* "budget of 4 CPUs", "budget of 1 CPU",
				 * with the container's cpu_note */
	struct cpl_amount ranks;
	struct cpl_amount threads;
	struct cpl_amount workers;
	long per_rank;		/* suggested split (when cpu >= 1000) */
	long t;
	long w;
	bool ranks_known;	/* the rank count is known (KNOWN) */
	bool no_workers;	/* known to run no loader workers: T = B */
	enum cpl_loader loader;	/* what the split is for */
	const char *decodes;	/* DECODE: the module that shows it
				 * ("PIL.Image"); COMPUTE: the call
				 * ("np.dot"); borrowed from the code */
	struct cpl_pos decodes_pos;
	char rank_phrase[32];	/* "1 rank", "4 ranks", "at least 1 rank" */
	const char *ranks_why;	/* when not known: "not known here", "one
				 * per CPU of the node" */
	char share[192];		/* how B splits, for fixes: "split into 2
				 * thread(s) and 2 loader worker(s)" */
	/* The least loader workers the code takes: 1 when a DataLoader
	 * is given an argument torch refuses with num_workers=0
	 * (persistent_workers=True), else 0; w is never below it.
	 * w_min_how is that argument as written, w_min_pos where. */
	long w_min;
	const char *w_min_how;
	struct cpl_pos w_min_pos;
	long w_raised;		/* what w_min added to the split's w */
};

/*
 * The facts of training container c of w: its CPU budget, ranks, threads,
 * workers and the split, with the phrases messages use: those kept in c
 * (cpl_facts_keep()), else gathered now.  Reads c only.
 */
void cpl_facts_gather(struct cpl_facts *f, const struct cpl_workload *w,
		      const struct cpl_container *c);
/* Gathers c's facts and keeps them in c (c->facts, freed with c or by
 * cpl_facts_forget()), so c must not change in between: the run calls
 * it after linking, before c's budget entry and rules, and forgets them
 * after c's rules, so that facts are kept for a group's containers, not
 * all. */
void cpl_facts_keep(const struct cpl_workload *w, struct cpl_container *c);
void cpl_facts_forget(struct cpl_container *c);

/*
 * The budget entry of training container c of w (object: its name as
 * findings give it, copied).  Fills every member; the caller frees them
 * with cpl_finding_budget_free().
 */
void cpl_budget_entry(struct cpl_budget_entry *b, const char *object,
		      const struct cpl_workload *w,
		      const struct cpl_container *c);

#endif
