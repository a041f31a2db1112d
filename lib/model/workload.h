/*
 * workload.h — the workload model: the only thing rules see.
 *
 * Every source (Polyaxonfile, Kubernetes manifest, live object) builds
 * workloads; every rule reads them.  A workload is one Pod template: a
 * PyTorchJob with Master and Worker replica specs is two workloads.
 *
 * Ownership: a workload owns all its strings and arrays; free it with
 * cpl_workload_free().  struct cpl_pos.file is borrowed from the owning
 * workload's file (or NULL for live objects); a TrainJob merged with its
 * runtime (cpl_trainer_join) borrows from the TrainJob and runtime
 * workloads it was made of, which stay in the same list.
 */
#ifndef CPL_WORKLOAD_H
#define CPL_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shell/launch.h"
#include "text/pos.h"
#include "util.h"

enum cpl_crole {
	CPL_CROLE_MAIN,
	CPL_CROLE_INIT,
	CPL_CROLE_SIDECAR,	/* native sidecar (init, restartPolicy:
				 * Always) or a Polyaxon sidecar */
};

enum cpl_throttle {
	CPL_THROTTLE_NONE,	/* static source: nothing to measure */
	CPL_THROTTLE_MEASURED,	/* counters read */
	CPL_THROTTLE_UNAVAILABLE,	/* live, but not measured: see note */
};

#define CPL_CPU_ABSENT (-1)	/* not written */
#define CPL_CPU_UNKNOWN (-2)	/* written but not resolvable (template) */

struct cpl_code;	/* facts from linked Python (pyscan.h); may be NULL */

struct cpl_facts;	/* budget.h */
struct cpl_pools;	/* pools.h */

/*
 * The CPU bounds of a LimitRange (`type: Container` max, min and
 * maxLimitRequestRatio, `type: Pod` max) that the LimitRanger admission
 * plugin checks a Pod against: on a LimitRange's one container, and a
 * copy on each container in its namespace (run/limitrange.c).  Values
 * are millicores (the ratio ×1000), CPL_CPU_ABSENT when unset.
 */
struct cpl_limits {
	char *name;		/* the LimitRange's name; owned */
	int64_t max;
	int64_t min;
	int64_t ratio;
	int64_t pod_max;
	struct cpl_pos max_pos;
	struct cpl_pos min_pos;
	struct cpl_pos ratio_pos;
	struct cpl_pos pod_max_pos;
	bool default_from_max;	/* no default: the API server set it to
				 * max */
};

/* A copy of l (NULL: NULL); caller frees with cpl_limits_free(). */
struct cpl_limits *cpl_limits_dup(const struct cpl_limits *l);
void cpl_limits_free(struct cpl_limits *l);	/* NULL-safe */

struct cpl_container {
	char *name;
	char *image;
	char *base_image;	/* the last FROM of the repository's
				 * Dockerfile that builds image, when it
				 * was linked as the container's command
				 * (run/entrypoint.c); else NULL */
	enum cpl_crole role;
	bool run_container;	/* Polyaxon run container or a Kubeflow job
				 * replica's main container */
	bool not_training;	/* never a training container, whatever it
				 * runs: a Trainer initializer, an MPI
				 * launcher whose ranks run in other Pods */
	bool has_slots;		/* MPI ranks run in this container */
	struct cpl_word slots;	/* how many: slotsPerWorker,
				 * numProcPerNode, a local mpirun -np */
	const char *slots_from;	/* static text naming it for messages */
	char *ranks_native;	/* MPI: the native program (no Python, no
				 * shell) the job's mpirun starts as this
				 * container's ranks, which cpulint cannot
				 * see into; NULL otherwise */
	struct cpl_pos pos;	/* the container's mapping */
	struct cpl_word *argv;	/* command then args, templates expanded */
	size_t argc;
	size_t argv_cap;
	size_t ncommand;	/* how many of argv came from command */
	struct cpl_env *env;	/* in order; later entries win */
	size_t nenv;
	size_t env_cap;
	struct cpl_strmap env_at;	/* name → index + 1 into env */
	bool env_from;		/* envFrom whose contents are not known */
	int64_t cpu_request;	/* millicores or CPL_CPU_* */
	int64_t cpu_limit;
	struct cpl_pos request_pos;	/* the value node, when present */
	struct cpl_pos limit_pos;
	struct cpl_pos resources_pos;	/* resources: key, else container */
	int64_t mem_request;	/* memory, in thousandths of a byte as a
				 * quantity reads, or CPL_CPU_*: only to
				 * tell the Pod's QoS class (CPU406) */
	int64_t mem_limit;
	bool cpu_from_limitrange;	/* request or limit is a LimitRange's
					 * default (positions there): fixes
					 * never edit it */
	char *cpu_note;		/* where the budget comes from when not the
				 * container's own resources, said after it
				 * in messages ("from LimitRange \"x\"",
				 * "(resized from 4)"); owned, NULL */
	struct cpl_limits *limits;	/* the LimitRange bounds admission
					 * checks it against; owned, NULL */
	long gpus;		/* nvidia.com/gpu, amd.com/gpu ... limits or
				 * requests; 0 none */
	bool shm;		/* emptyDir medium Memory mounted at /dev/shm */
	int64_t shm_bytes;	/* its sizeLimit in bytes, -1 unlimited */
	struct cpl_launch launch;
	char *script_py;	/* an inline Python script the command runs
				 * (an Argo script template's source, a
				 * Tekton step's script), laid at its lines
				 * of the file: linked as the code it runs
				 * when it names no file; NULL */
	size_t script_len;
	int script_line;	/* the line of path where script_py's first
				 * line is laid (its text is not padded) */
	int script_base;	/* > 0: a quoted string's script, whose lines
				 * are not the file's, laid from this line
				 * past the file's end; positions there are
				 * reported at script_at, the string */
	struct cpl_pos script_at;
	const struct cpl_code *code;	/* borrowed from the engine */
	/* Live only: CFS throttling of this container (CPU501). */
	enum cpl_throttle throttle;
	uint64_t throttled_periods;	/* over the window */
	uint64_t periods;
	double window_seconds;		/* 0: lifetime counters */
	char *measure_notes;		/* what was not measured and why (no
					 * data, out of range), a window
					 * clamped: one per line; owned */
	/* Live only: what was measured over the window (CPU501-503 and
	 * the budget); source NULL when nothing was. */
	const char *measure_source;	/* "cadvisor", "prometheus" */
	double measure_window;		/* seconds measured over */
	bool since_start;		/* the window is its whole life */
	bool window_clamped;		/* the window is the time it has run,
					 * shorter than the one asked for */
	double threads_now;		/* threads; < 0 unknown */
	double cpu_used;		/* CPUs; < 0 unknown */
	double throttled_pct;		/* percent of CFS periods; < 0 */
	double pids_max;		/* the smallest pids.max over the
					 * container's and its Pod's cgroups
					 * (cAdvisor container_threads_max);
					 * <= 0 unlimited or unknown */
	bool pids_pod;			/* pids_max is the Pod's cgroup's
					 * (the kubelet's podPidsLimit) */
	double node_cpus;		/* the node's CPUs (cAdvisor
					 * machine_cpu_cores); <= 0 unknown */
	char *measured_pod;	/* live, a workload of several Pods: the
				 * Pod whose figures these are (the most
				 * throttled), "pod/NS/NAME"; else NULL */
	struct cpl_facts *facts;	/* the budget's facts, gathered once
					 * when the rules first ask
					 * (budget.c); owned */
	struct cpl_pools *pools;	/* its native pools, read once while
					 * the run judges c (pools.c);
					 * owned */
};

/*
 * An annotation `ignore-check.cpulint.io/<rule>: "reason"` on an object's
 * metadata or on its Pod template's: the rule is silenced for the
 * workload.  rule is as written (an id or a name; the engine warns when
 * it names no rule).
 */
#define CPL_IGNORE_ANNOTATION "ignore-check.cpulint.io/"

/*
 * The annotation `compare --fix` writes beside the setting it keeps:
 * "tT-wW on B CPU: what it measured; plan ID, DATE" (tT alone for a job
 * with no loader).  A measurement beats the static model: the budget
 * rules make a note, not an error, of a container whose setting and
 * budget are still the ones recorded (cpl_workload_measured).
 */
#define CPL_MEASURED_ANNOTATION "cpulint.io/measured"

struct cpl_wignore {
	char *rule;
	char *reason;		/* the value; "" when empty */
	struct cpl_pos pos;	/* the annotation's key (no file when live) */
};

enum cpl_source {
	CPL_SRC_POLYAXON,
	CPL_SRC_MANIFEST,
	CPL_SRC_LIVE,
};

/* The framework an object itself says starts its ranks (a Kubeflow
 * Trainer runtime's mlPolicy); NONE: its kind decides. */
enum cpl_tpolicy {
	CPL_TPOLICY_NONE,
	CPL_TPOLICY_TORCH,	/* the torch plugin sets PET_NPROC_PER_NODE */
	CPL_TPOLICY_MPI,	/* ranks are MPI slots on the node Pods */
	CPL_TPOLICY_OTHER,	/* another framework's plugin (flux, jax,
				 * xgboost): PyTorch only on evidence */
};

/* A Kubeflow Trainer object's own fields (load/trainer_int.h). */
struct cpl_trainer;

/*
 * How the wing that keeps its own struct on a workload (the load wing's
 * TrainJob kind, a wing above this one) frees and copies it: the
 * workload owns it, and cpl_workload_free() and _copy() call these.
 */
struct cpl_own_ops {
	void (*free)(struct cpl_trainer *t);
	struct cpl_trainer *(*copy)(const struct cpl_trainer *t);
};

struct cpl_workload {
	enum cpl_source source;
	char *kind;		/* "Pod", "PyTorchJob", "Polyaxon job" ... */
	char *name;		/* object name, "" when unnamed */
	char *namespace;	/* NULL when not given */
	char *replica;		/* "Master", "Worker", NULL */
	long replicas;		/* pods of this template; 1 by default */
	unsigned long pods;	/* live: how many Pods of one owner with
				 * this same spec it stands for (object then
				 * names the owner); 0 or 1: one object */
	char *file;		/* origin file; NULL for live objects */
	char *object;		/* live: "pod/NS/NAME"; NULL for files */
	struct cpl_pos pos;	/* the object (document root) */
	bool training_job;	/* Polyaxon run or Kubeflow job: the main
				 * containers are training containers */
	bool has_nproc;		/* nprocPerNode / numProcPerNode /
				 * nProcPerNode written in the job */
	struct cpl_word nproc;	/* its value */
	bool nproc_default_auto;	/* PyTorchJob: torchrun reads
					 * PET_NPROC_PER_NODE, default auto */
	bool torch_kind;	/* its kind's operator starts its run
				 * container's ranks with torchrun (the
				 * kinds table's launcher: PyTorchJob,
				 * TrainJob) */
	bool platform_shm;	/* the platform mounts /dev/shm (Polyaxon
				 * unless plugins.shm is false) */
	bool run_to_completion;	/* a Job, CronJob, Kubeflow or Trainer job,
				 * JobSet, Volcano Job, Polyaxon run, or a
				 * Pod with restartPolicy Never/OnFailure (or
				 * owned by a job): not a server */
	bool template_only;	/* a training runtime no TrainJob of the run
				 * uses: resources and env come from each
				 * TrainJob, so their absence is no finding */
	bool unadmitted;	/* live: a controller's Pod template whose
				 * Pods do not exist yet, so admission has
				 * not applied its namespace's LimitRanges
				 * (run/limitrange.c applies them) */
	bool merged;		/* merged into another workload (a TrainJob
				 * with its runtime): not linted itself */
	char *merged_into;	/* with merged: "into TrainJob \"x\"", "with
				 * its runtime ...", for -v */
	struct cpl_trainer *trainer;	/* Kubeflow Trainer: what its loader
					 * keeps to join a TrainJob with its
					 * runtime (load/trainer_int.h);
					 * NULL for every other kind */
	const struct cpl_own_ops *trainer_ops;	/* frees, copies it */
	enum cpl_tpolicy ml_policy;	/* the framework the object says
					 * starts its ranks */
	struct cpl_container *containers;
	size_t ncontainers;
	size_t containers_cap;	/* allocated, grown by doubling */
	struct cpl_wignore *ignores;	/* ignore-check annotations */
	size_t nignores;
	char *measured;		/* CPL_MEASURED_ANNOTATION's value; owned,
				 * NULL when none */
	struct cpl_pos measured_pos;	/* its value */
	bool context;		/* loaded only because it runs a named
				 * Python file: findings are kept only
				 * where they involve that file */
	bool pod_spec;		/* a Kubernetes Pod spec read whole (its
				 * containers and initContainers, with their
				 * memory): its QoS class can be told */
	bool pod_resources;	/* spec.resources (Pod-level) written */
	char *exclusive_hint;	/* what asks for nodes that grant exclusive
				 * cores: "nodeSelector cpumanager: true",
				 * "annotation cpu-quota.crio.io: disable"
				 * (CRI-O's, honoured for Guaranteed Pods
				 * only); NULL */
	bool by_evidence;	/* a kind whose containers train only on
				 * evidence (cpl_budget_training): one the
				 * kinds table has no row for (the generic
				 * model), Argo or Tekton steps */
	bool py_declared;	/* declared in a Python file (a Flyte task,
				 * a KFP component, a Metaflow step, a Ray
				 * TorchTrainer, a ZenML step): its code is
				 * a copy of that file laid at its lines
				 * (script_py), and the code rules judge the
				 * file itself once, not the copy */
	bool platform_cpu;	/* the platform fills in a CPU request and
				 * limit the task does not set (Flyte's
				 * task resource defaults): CPU101 is a
				 * note there */
	const char *note;	/* static text for -v: how the kind was
				 * read ("the generic model"), why its
				 * containers do not train (Ray); NULL */
};

/* A document read but not turned into workloads, and why (for -v). */
struct cpl_skip {
	char *what;		/* "Ingress \"web\"", "document 2" */
	char *why;		/* "not a workload" */
	char *file;		/* NULL for live objects */
	int line;
	int column;
	char *kind;		/* the object's kind; NULL when not known */
	bool containers;	/* it holds containers nobody judged: the
				 * summary counts it (not judged, not
				 * clean) */
};

/* A growable list of owned workloads, and the documents skipped. */
struct cpl_wlist {
	struct cpl_workload **items;
	size_t count;
	size_t cap;
	struct cpl_skip *skipped;
	size_t nskipped;
	size_t skipped_cap;
};

struct cpl_workload *cpl_workload_new(enum cpl_source source,
				      const char *file);
/* Appends a zeroed container (CPU fields CPL_CPU_ABSENT); borrowed. */
struct cpl_container *cpl_workload_add_container(struct cpl_workload *w);
void cpl_workload_free(struct cpl_workload *w);	/* NULL-safe */
/*
 * A deep copy of w (containers, env, launch, trainer), kept apart from
 * derived state: code is not copied (linking comes later).  Positions are
 * copied as they are, so they keep borrowing their file names from w (or
 * whatever w borrowed from); w must outlive the copy.
 */
struct cpl_workload *cpl_workload_copy(const struct cpl_workload *w);
/* Copies container src over dst (dst's old contents freed), as above. */
void cpl_container_copy(struct cpl_container *dst,
			const struct cpl_container *src);
/* Copies src's command line over dst's: argv, ncommand and the launch. */
void cpl_container_copy_command(struct cpl_container *dst,
				const struct cpl_container *src);
/* Keeps an annotation of the object or its Pod template when it is an
 * ignore-check one (CPL_IGNORE_ANNOTATION), and CRI-O's exclusive-core
 * ones (cpu-load-balancing, cpu-quota, irq-load-balancing .crio.io) as
 * exclusive_hint; others are not kept.  value NULL is "".  pos.file
 * should be w->file. */
void cpl_workload_add_annotation(struct cpl_workload *w, const char *key,
				 const char *value, struct cpl_pos pos);
/* Keeps value as w's measured record (CPL_MEASURED_ANNOTATION), pos
 * at the value; the first one found wins. */
void cpl_workload_set_measured(struct cpl_workload *w, const char *value,
			       struct cpl_pos pos);
/* Whether w records a measurement of t threads and wk workers (wk < 0:
 * a setting of threads alone) on a budget of cpu millicores. */
bool cpl_workload_measured(const struct cpl_workload *w, long t, long wk,
			   long cpu);
/* Appends a copy of an ignore-check record (strings duplicated). */
void cpl_workload_add_ignore(struct cpl_workload *w,
			     const struct cpl_wignore *ig);

void cpl_container_add_arg(struct cpl_container *c, const char *text,
			   struct cpl_pos pos);
/* Sets (or replaces: later definitions win) an env variable. */
void cpl_container_set_env(struct cpl_container *c, const char *name,
			   const char *value, struct cpl_pos pos);
const struct cpl_env *cpl_container_env(const struct cpl_container *c,
					const char *name);
/* The value the process sees: the command's exports (last wins) override
 * the container's env.  NULL when unset; value NULL = unknown. */
const struct cpl_env *cpl_container_env_effective(
	const struct cpl_container *c, const char *name);

void cpl_wlist_add(struct cpl_wlist *l, struct cpl_workload *w);
/* Records a skipped document: what (printf) at file:line:column, and why
 * (copied); returns the record (borrowed until the next skip), whose kind
 * and containers the caller may set. */
struct cpl_skip *cpl_wlist_skip(struct cpl_wlist *l, const char *file,
				int line, int column, const char *why,
				const char *fmt, ...) CPL_PRINTF(6, 7);
/* How many skipped documents of l hold containers (not judged). */
size_t cpl_wlist_not_judged(const struct cpl_wlist *l);
void cpl_wlist_free(struct cpl_wlist *l);	/* frees the workloads too */

/* Duplicates a word (text copied, pos shared). */
struct cpl_word cpl_word_dup(const struct cpl_word *w);

#endif
