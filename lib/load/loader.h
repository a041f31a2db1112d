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

#include "model/workload.h"
#include "text/yamldoc.h"
#include "util.h"

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

/*
 * Reads a Kubeflow Pipelines v2 executor's container mapping (image,
 * command, args, env) into c; its resources are KFP's own fields, read by
 * the caller.  A lightweight component's Python (the last command word,
 * which KFP's executor runs as a module) is kept as c's inline script.
 */
int cpl_manifest_kfp_container(struct cpl_container *c,
			       const struct cpl_ystream *s,
			       const struct cpl_ynode *node, const char *path,
			       struct cpl_error *err);

/* How a Pod-like spec lists its containers. */
enum cpl_podshape {
	CPL_POD_K8S,	/* a Pod spec: initContainers, containers */
	CPL_POD_ARGO,	/* an Argo template: initContainers; container,
			 * script (its source run by its command) or
			 * containerSet.containers; sidecars */
	CPL_POD_TEKTON,	/* a Tekton task spec: steps (each over the
			 * stepTemplate, its script run by its #! line),
			 * sidecars */
};

/* How to read one Pod-like spec (cpl_manifest_pod). */
struct cpl_podread {
	enum cpl_podshape shape;
	bool job;			/* a training job's replica: the first
					 * main container named one of run
					 * (else the first) is the run
					 * container */
	const char *const *run;
	const struct cpl_ynode *volumes;	/* the Pod volumes when the
						 * spec has none of its own
						 * (an Argo workflow's), or
						 * NULL */
	const struct cpl_ynode *defaults;	/* what each main container
						 * is read over (Argo's
						 * templateDefaults
						 * container), or NULL */
};

/* Reads a Pod-like spec into w as how says: init containers (native
 * sidecars among them), the main containers, sidecars. */
int cpl_manifest_pod(struct cpl_workload *w, const struct cpl_ystream *s,
		     const struct cpl_ynode *spec,
		     const struct cpl_podread *how, const char *path,
		     struct cpl_error *err);

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

/* ---- objects: the kinds table (kinds.c), the rest (generic.c) ---- */

/* Objects held in objects or lists deeper than this are not followed. */
#define CPL_LOADER_MAX_DEPTH 8

/* One document being loaded: what every reader of its objects needs. */
struct cpl_lctx {
	struct cpl_wlist *out;
	const struct cpl_ystream *s;	/* the stream the nodes are in */
	const char *path;
	int depth;		/* objects inside objects and lists */
	const char *holder;	/* the name of the object holding this one,
				 * for one that has none (a Katib trial),
				 * or NULL */
	struct cpl_error *err;
};

/*
 * Loads one object (or a list of objects) by its apiVersion and kind
 * (kind_hint, api_hint: a typed list's items may omit them): a kind of
 * the kinds table as its row says, any other by the generic model.
 */
int cpl_kinds_load(const struct cpl_lctx *x, const struct cpl_ynode *obj,
		   const char *kind_hint, const char *api_hint);
/*
 * Loads what an object holds at n: an object (a mapping with apiVersion
 * and kind), a string holding one as YAML or JSON, or an Argo resource
 * template whose action makes its manifest run; a string is loaded with
 * its positions in the outer file, its placeholders unknown values.  A string that is not a manifest is no object; one that
 * does not parse is skipped with why.  holder is the kind holding it.
 * Returns how many objects it loaded (>= 0), or -1 with x->err set.
 */
int cpl_nested_load(const struct cpl_lctx *x, const struct cpl_ynode *n,
		    const char *holder);
/*
 * The generic model, for an object of a kind the table has no row for
 * (or a row whose places held nothing): every Pod template in it (a
 * mapping with a containers list of container mappings, at any depth) is
 * a workload judged on evidence (w->by_evidence), the objects inside it
 * are loaded on their own, and a document of neither is skipped with
 * why.  Reading errors skip the document (it was a guess), counted as
 * not judged.
 */
int cpl_generic_load(const struct cpl_lctx *x, const struct cpl_ynode *obj,
		     const char *kind);
/* Records that object obj of kind kind was skipped, and why; with
 * containers, it holds containers nobody judged. */
void cpl_loader_skip(const struct cpl_lctx *x, const struct cpl_ynode *obj,
		     const char *kind, const char *why, bool containers);
/* Somewhere under n (a few levels down, status aside) is a list under a
 * key named containers. */
bool cpl_loader_holds_containers(const struct cpl_ynode *n);
/*
 * Where literal block n's value stands in the source of s: its first line
 * is the line after the indicator, every line indented alike (checked
 * line by line).  False when a line does not match or n is no literal
 * block; *at is then left alone.
 */
bool cpl_loader_block_place(struct cpl_yplace *at,
			    const struct cpl_ystream *s,
			    const struct cpl_ynode *n);
/* As cpl_loader_block_place(), returning where the block's first line
 * starts in the source of s (NULL: not placed). */
const char *cpl_loader_block_start(struct cpl_yplace *at,
				   const struct cpl_ystream *s,
				   const struct cpl_ynode *n);
/* The check of cpl_loader_block_place() with the block's first line at p
 * (end: the source's end). */
bool cpl_loader_block_from(struct cpl_yplace *at, const char *p,
			   const char *end, const struct cpl_ynode *n);
/* Integer field key of map, or def when absent or not an integer. */
long cpl_loader_long(const struct cpl_ynode *map, const char *key,
		     long def);
/* Whether a Pod (spec: its spec) runs to completion: restartPolicy Never
 * or OnFailure, or a job owns the object. */
bool cpl_loader_pod_completes(const struct cpl_ynode *obj,
			      const struct cpl_ynode *spec);

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
/* A Kubeflow Pipelines v2 pipeline spec (kfp.c): its executors. */
bool cpl_kfp_detect(const struct cpl_ynode *doc);
int cpl_kfp_load(struct cpl_wlist *out, const struct cpl_ystream *s,
		 const struct cpl_ynode *doc, const char *path,
		 struct cpl_error *err);

bool cpl_polyaxon_detect(const struct cpl_ynode *doc);
int cpl_polyaxon_load(struct cpl_wlist *out, const struct cpl_ystream *s,
		      const struct cpl_ynode *doc, const char *path,
		      struct cpl_error *err);

/*
 * Whether a text that did not parse still looks like one of ours (sniff.c):
 * it names a kind key together with apiVersion (a Kubernetes object) or
 * version (a Polyaxonfile), as YAML keys or JSON members, anywhere in the
 * text.  Generous on purpose: a file that only may be a manifest is an
 * error to report, never a file to skip.
 */
bool cpl_loader_looks_ours(const char *text, size_t len);

#endif
