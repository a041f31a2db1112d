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

struct cpl_container {
	char *name;
	char *image;
	enum cpl_crole role;
	bool run_container;	/* Polyaxon run container or a Kubeflow job
				 * replica's main container */
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
	size_t containers_cap;	/* allocated slots (cpl_xgrow) */
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
/* The value the process sees: the command's exports (last wins) override
 * the container's env.  NULL when unset; value NULL = unknown. */
const struct cpl_env *cpl_container_env_effective(
	const struct cpl_container *c, const char *name);

void cpl_wlist_add(struct cpl_wlist *l, struct cpl_workload *w);
void cpl_wlist_free(struct cpl_wlist *l);	/* frees the workloads too */

/* Duplicates a word (text copied, pos shared). */
struct cpl_word cpl_word_dup(const struct cpl_word *w);

#endif
