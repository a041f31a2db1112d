/*
 * workload.h — the workload model: the only thing rules see.
 *
 * Every source (Polyaxonfile, Kubernetes manifest, live object) builds
 * workloads; every rule reads them.  A workload is one Pod template: a
 * PyTorchJob with Master and Worker replica specs is two workloads.
 *
 * Ownership: a workload owns all its strings and arrays; free it with
 * cpl_workload_free().  struct cpl_pos.file is borrowed from the owning
 * workload's file (or NULL for live objects).
 */
#ifndef CPL_WORKLOAD_H
#define CPL_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A place in a source file (1-based); file NULL when there is none. */
struct cpl_pos {
	const char *file;
	int line;
	int column;
};

/* One word of a command line (argv element or shell word) and where. */
struct cpl_word {
	char *text;
	struct cpl_pos pos;
};

/* An environment variable; value NULL when unknown (Secret, fieldRef,
 * unresolved template, a ConfigMap not read). */
struct cpl_env {
	char *name;
	char *value;
	struct cpl_pos pos;
};

enum cpl_launcher {
	CPL_LAUNCH_NONE,	/* nothing recognised */
	CPL_LAUNCH_PYTHON,	/* python [-u] script.py | -m module */
	CPL_LAUNCH_TORCHRUN,	/* torchrun, python -m torch.distributed.run */
	CPL_LAUNCH_TORCH_LAUNCH,	/* python -m torch.distributed.launch */
	CPL_LAUNCH_ACCELERATE,	/* accelerate launch */
	CPL_LAUNCH_DEEPSPEED,	/* deepspeed */
};

/* A place where the command reads the host's CPU count ($(nproc), ...). */
struct cpl_hostcount {
	struct cpl_word expr;	/* "$(nproc)" as written */
	char *sizes;		/* "OMP_NUM_THREADS", "--workers"; NULL when
				 * it only printed or compared */
};

/*
 * What the container's command line launches (see shscan.h).  All words
 * point into the command or the shell text with positions.
 */
struct cpl_launch {
	enum cpl_launcher launcher;
	struct cpl_word launcher_word;	/* "torchrun", "accelerate" ... */
	bool has_nproc;			/* a rank-count flag was given */
	struct cpl_word nproc;		/* its value: "4", "auto", "cpu",
					 * "gpu", "$(nproc)" */
	bool has_script;
	struct cpl_word script;		/* "train.py" or module "pkg.train" */
	bool is_module;			/* python -m MODULE */
	struct cpl_word *args;		/* the script's own arguments */
	size_t nargs;
	struct cpl_env *exports;	/* export X=..., X=... cmd, env X=... */
	size_t nexports;
	struct cpl_hostcount *hostcounts;
	size_t nhostcounts;
	bool is_shell;			/* came from sh -c / a string command */
};

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

struct cpl_container {
	char *name;
	char *image;
	enum cpl_crole role;
	bool run_container;	/* Polyaxon run container or a Kubeflow job
				 * replica's main container */
	struct cpl_pos pos;	/* the container's mapping */
	struct cpl_word *argv;	/* command then args, templates expanded */
	size_t argc;
	size_t ncommand;	/* how many of argv came from command */
	struct cpl_env *env;	/* in order; later entries win */
	size_t nenv;
	bool env_from;		/* envFrom whose contents are not known */
	int64_t cpu_request;	/* millicores or CPL_CPU_* */
	int64_t cpu_limit;
	struct cpl_pos request_pos;	/* the value node, when present */
	struct cpl_pos limit_pos;
	struct cpl_pos resources_pos;	/* resources: key, else container */
	long gpus;		/* nvidia.com/gpu, amd.com/gpu ... limits or
				 * requests; 0 none */
	bool shm;		/* emptyDir medium Memory mounted at /dev/shm */
	int64_t shm_bytes;	/* its sizeLimit in bytes, -1 unlimited */
	struct cpl_launch launch;
	const struct cpl_code *code;	/* borrowed from the engine */
	/* Live only: CFS throttling of this container (CPU501). */
	enum cpl_throttle throttle;
	uint64_t throttled_periods;	/* over the window */
	uint64_t periods;
	double window_seconds;		/* 0: lifetime counters */
	char *throttle_note;		/* why not measured (RBAC, no data) */
};

enum cpl_source {
	CPL_SRC_POLYAXON,
	CPL_SRC_MANIFEST,
	CPL_SRC_LIVE,
};

struct cpl_workload {
	enum cpl_source source;
	char *kind;		/* "Pod", "PyTorchJob", "Polyaxon job" ... */
	char *name;		/* object name, "" when unnamed */
	char *namespace;	/* NULL when not given */
	char *replica;		/* "Master", "Worker", NULL */
	long replicas;		/* pods of this template; 1 by default */
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
	bool platform_shm;	/* the platform mounts /dev/shm (Polyaxon
				 * unless plugins.shm is false) */
	struct cpl_container *containers;
	size_t ncontainers;
};

/* A growable list of owned workloads. */
struct cpl_wlist {
	struct cpl_workload **items;
	size_t count;
	size_t cap;
};

struct cpl_workload *cpl_workload_new(enum cpl_source source,
				      const char *file);
/* Appends a zeroed container (CPU fields CPL_CPU_ABSENT); borrowed. */
struct cpl_container *cpl_workload_add_container(struct cpl_workload *w);
void cpl_workload_free(struct cpl_workload *w);	/* NULL-safe */

void cpl_container_add_arg(struct cpl_container *c, const char *text,
			   struct cpl_pos pos);
/* Sets (or replaces: later definitions win) an env variable. */
void cpl_container_set_env(struct cpl_container *c, const char *name,
			   const char *value, struct cpl_pos pos);
const struct cpl_env *cpl_container_env(const struct cpl_container *c,
					const char *name);
void cpl_launch_clear(struct cpl_launch *l);

void cpl_wlist_add(struct cpl_wlist *l, struct cpl_workload *w);
void cpl_wlist_free(struct cpl_wlist *l);	/* frees the workloads too */

/* Duplicates a word (text copied, pos shared). */
struct cpl_word cpl_word_dup(const struct cpl_word *w);

#endif
