/*
 * loader.h — the interface shared by the YAML sources (Polyaxonfiles and
 * Kubernetes manifests): how a parsed document becomes workloads.
 *
 * Each loader exports a detect function (cheap: looks at top-level keys)
 * and a load function that appends workloads to a list.  A load function
 * returns 0 when the document was loaded or deliberately skipped (a kind
 * that has no containers: recorded in the list's skipped, with why), and
 * -1 with err set (path, line, column of the offending node) when the
 * document is not valid; workloads appended before an error stay in the
 * list.  Each loader says whether its workloads run to completion.
 */
#ifndef CPL_LOADER_H
#define CPL_LOADER_H

#include "util.h"
#include "workload.h"
#include "text/yamldoc.h"

/*
 * Template expansion hook used while reading a container: returns a newly
 * allocated expansion of text, and sets *unknown when some part could not
 * be resolved (the caller then treats the value as unknown).  NULL hook:
 * text is taken literally.
 */
struct cpl_expand {
	char *(*expand)(void *ctx, const char *text, bool *unknown);
	void *ctx;
};

/* Helpers both loaders use. */

/* Sets err at node n (no position when n is NULL) and returns -1. */
int cpl_loader_fail(struct cpl_error *err, const char *path,
		    const struct cpl_ynode *n, const char *fmt, ...)
	CPL_PRINTF(4, 5);
/* The position of node n in file (0:0 when n is NULL). */
struct cpl_pos cpl_loader_pos(const char *file, const struct cpl_ynode *n);
/* Absent, or written as null: both mean "not given". */
bool cpl_loader_absent(const struct cpl_ynode *n);
/* Appends w to out, or frees it when rc says reading it failed; returns
 * rc. */
int cpl_loader_finish(struct cpl_wlist *out, struct cpl_workload *w,
		      int rc);

/* The document is a Kubernetes object (apiVersion and kind). */
bool cpl_manifest_detect(const struct cpl_ynode *doc);
int cpl_manifest_load(struct cpl_wlist *out, const struct cpl_ystream *s,
		      const struct cpl_ynode *doc, const char *path,
		      struct cpl_error *err);

/*
 * Reads one Kubernetes container mapping into c (name, image, command and
 * args, env, resources, GPUs, then cpl_shscan for c->launch).  volumes is
 * the Pod spec's volumes sequence (or NULL), for the /dev/shm check.  Used
 * by both loaders.  -1 with err on an invalid field (a bad CPU quantity).
 */
int cpl_manifest_container(struct cpl_container *c,
			   const struct cpl_ystream *s,
			   const struct cpl_ynode *node,
			   const struct cpl_ynode *volumes, const char *path,
			   const struct cpl_expand *ex, struct cpl_error *err);

/* Pieces of the manifest loader that trainer.c builds on. */

/* A new workload for object obj of kind kind, named from its metadata,
 * with the ignore-check annotations of obj and of its Pod template tmpl
 * (NULL: none). */
struct cpl_workload *cpl_manifest_workload(const struct cpl_ynode *obj,
					   const char *kind,
					   const struct cpl_ynode *tmpl,
					   const char *path);
/* Reads a Pod spec's init containers and containers into w. */
int cpl_manifest_pod_spec(struct cpl_workload *w, const struct cpl_ystream *s,
			  const struct cpl_ynode *spec, const char *path,
			  struct cpl_error *err);
/* Reads a TrainJob's trainer mapping into c (resourcesPerNode for
 * resources). */
int cpl_manifest_trainer(struct cpl_container *c, const struct cpl_ystream *s,
			 const struct cpl_ynode *node, const char *path,
			 struct cpl_error *err);
/*
 * Follows keys (NULL-terminated) from n.  *out is the mapping at the end,
 * or NULL when a key is absent; a non-mapping on the way is an error.
 */
int cpl_manifest_walk(const struct cpl_ynode **out, const struct cpl_ynode *n,
		      const char *const *keys, const char *path,
		      struct cpl_error *err);

/*
 * Judges the MPI launchers among w's main containers (mpi.c).  A command
 * that runs mpirun, mpiexec or horovodrun and launches nothing else,
 * whose ranks go to other Pods — a hostfile or hosts other than
 * localhost, or, when orchestrated (an MPIJob launcher, a Volcano Job
 * with the mpi plugin, Trainer's MPI launcher), no hosts at all, since the
 * operator's default hostfile lists the workers — starts no rank itself:
 * not_training.  One whose ranks stay in its Pod is a node: its -np is
 * its slots.  Containers that already have slots are left alone.
 */
void cpl_loader_mpi(struct cpl_workload *w, bool orchestrated);
/*
 * Gives each run container of w that has no slots yet text ranks (a copy;
 * NULL: unknown), set at pos (NULL: nowhere, as live values are) by what
 * from names ("slotsPerWorker"; static text, kept) (mpi.c).
 */
void cpl_loader_mpi_slots(struct cpl_workload *w, const char *text,
			  const struct cpl_pos *pos, const char *from);
/*
 * The Pods of one MPI job are l's workloads from first on: no node runs
 * more ranks than the launcher's mpirun -np starts in all, so slots above
 * it come down to it.
 */
void cpl_loader_mpi_cap(struct cpl_wlist *l, size_t first);

/* Kubeflow Trainer v2 (trainer.c). */

/* A TrainJob: one workload with one "node" container holding what its
 * trainer writes, and the runtimeRef, for cpl_trainer_join(). */
int cpl_trainer_load_job(struct cpl_wlist *out, const struct cpl_ystream *s,
			 const struct cpl_ynode *obj, const char *path,
			 struct cpl_error *err);
/* A TrainingRuntime or ClusterTrainingRuntime: one workload per
 * replicated job of its JobSet template, with its step and mlPolicy. */
int cpl_trainer_load_runtime(struct cpl_wlist *out,
			     const struct cpl_ystream *s,
			     const struct cpl_ynode *obj, const char *kind,
			     const char *path, struct cpl_error *err);
/*
 * After every source is loaded: each TrainJob whose runtime is in l
 * becomes the runtime's jobs with the TrainJob's trainer laid over the
 * trainer job's "node" container, as Trainer's JobSet and torch/MPI
 * plugins build them (appended to l; the TrainJob and runtime workloads
 * stay, flagged merged).  A TrainJob without its runtime keeps only what
 * it says (what the runtime would add is unknown); a runtime no TrainJob
 * uses is a template (template_only).  One pass, hashed by kind,
 * namespace and name.
 */
void cpl_trainer_join(struct cpl_wlist *l);

/* The document is a Polyaxonfile (version and kind component, operation,
 * experiment, group, job). */
bool cpl_polyaxon_detect(const struct cpl_ynode *doc);
int cpl_polyaxon_load(struct cpl_wlist *out, const struct cpl_ystream *s,
		      const struct cpl_ynode *doc, const char *path,
		      struct cpl_error *err);

#endif
