/*
 * kinds.h — one descriptor per Kubernetes kind cpulint knows: the rows
 * of load/kinds.c's table, read by every part that must know a kind.
 *
 * A row says, for one kind: its API group, version and resource names
 * (what live mode asks the API server for and the names kubectl knows
 * it by), how its Pods are selected live (the object itself, its
 * selector, a label its operator sets, the Jobs it owns) and whether
 * live mode follows it up to its own owner, whether its Pods' run
 * container trains and the labels its operator sets on them (their
 * replica roles), its launcher (torchrun's nproc per node, MPI slots,
 * Ray), its merge hook (a TrainJob with its runtime), whether `plan`
 * writes sweeps for it and whether `serve --mutate` is sent it.  The
 * loader's half of the row (where its Pod templates are) is private to
 * kinds.c.  Live mode (live/live.c, live/livepods.c), serve's admission
 * (live/admit.c), plan (plan/plan.c, plan/katib.c) and the engine
 * (run/engine.c) read these fields instead of lists of their own, so a
 * new kind is one row, its tests and its doc (docs/CONTRIBUTING.md).
 *
 * Every pointer returned is to static data: never freed, valid for the
 * life of the program.
 */
#ifndef CPL_LOAD_KINDS_H
#define CPL_LOAD_KINDS_H

#include <stdbool.h>
#include <stddef.h>

struct cpl_wlist;

/* How live mode finds the Pods of a named object of a kind. */
enum cpl_kpods {
	CPL_KPODS_NONE,		/* not read live by name */
	CPL_KPODS_SELF,		/* the object is the Pod */
	CPL_KPODS_SELECTOR,	/* its spec.selector */
	CPL_KPODS_LABEL,	/* pod_label=NAME, set by its operator */
	CPL_KPODS_JOBS,		/* those of the Jobs it owns (CronJob) */
};

/* What starts the ranks of a kind's Pods besides their command. */
enum cpl_klaunch {
	CPL_KLAUNCH_COMMAND,	/* the container's command alone */
	CPL_KLAUNCH_TORCHRUN,	/* torchrun set up by the operator: nproc
				 * per node from the object
				 * (PET_NPROC_PER_NODE, default auto) */
	CPL_KLAUNCH_MPI,	/* a launcher Pod that runs mpirun, node
				 * Pods of slotsPerWorker ranks */
	CPL_KLAUNCH_RAY,	/* Ray sets each worker's OMP_NUM_THREADS
				 * to its CPU share; no training Pods */
};

/* One kind (a row of the kinds table, its public half). */
struct cpl_kind {
	const char *group;	/* API group, "" for the core group */
	const char *old_group;	/* an older group that served it, or NULL */
	const char *kind;	/* NULL: any kind of the group */
	/* Live mode: reading it from the API server. */
	const char *api_version;	/* "apps/v1"; NULL: never read */
	const char *old_api_version;	/* tried when api_version is not
					 * served (MPIJob: kubeflow.org/v1) */
	const char *resource;	/* the plural, "deployments" */
	const char *singular;	/* the type kubectl names ("deployment");
				 * NULL: not a live target */
	const char *short_names;	/* kubectl's, '|' around each:
					 * "|deploy|" */
	enum cpl_kpods pods;	/* how its Pods are selected */
	const char *pod_label;	/* the label whose value on its Pods is
				 * the object's name (CPL_KPODS_LABEL:
				 * how live mode selects them; compare
				 * finds a plan's runs by it) */
	bool follow;		/* as a Pod's owner: read, and its own
				 * owner taken as the Pods' top owner */
	/* Its Pods: roles and what trains. */
	bool trains;		/* its replicas' run container trains (a
				 * training job's) */
	const char *labels;	/* prefix of the labels its operator sets
				 * on its Pods (training ones when trains) */
	const char *role_labels;	/* labels whose value is a Pod's
					 * replica role ('|' between) */
	const char *const *run;	/* run container names, by preference;
				 * NULL: the first main container */
	enum cpl_klaunch launch;
	const char *replica_specs;	/* a Kubeflow v1 job's member of
					 * replica specs: a Pod it owns is
					 * judged at admission as its
					 * replica; NULL: as a Pod */
	/* Hooks and uses. */
	void (*merge)(struct cpl_wlist *l);	/* after every file is
						 * read: objects of the kind
						 * joined with those they
						 * name (TrainJob with its
						 * runtime); live mode reads
						 * what they name */
	bool plan;		/* `plan` writes sweeps for it */
	const char *plan_at;	/* the member of spec plan writes a
				 * training container's settings into when
				 * its containers are elsewhere (a
				 * TrainJob's trainer, over its runtime's);
				 * NULL: its containers */
	const char *succeeded;	/* the status condition a finished run
				 * of it has (Katib trials); NULL:
				 * "Complete" */
	bool mutate;		/* deploy/mutating-webhook.yaml sends it
				 * to `serve --mutate` */
};

/*
 * The kind of an object whose apiVersion is api ("group/version", "v1")
 * and kind is kind: its row, or NULL when the table has none (the
 * generic model reads it).  A NULL api matches the kind in any group.
 */
const struct cpl_kind *cpl_kinds_find(const char *api, const char *kind);
/* Row i of the table, in its order; NULL past the end. */
const struct cpl_kind *cpl_kinds_at(size_t i);
/*
 * The live target type named by word as kubectl names it: its singular,
 * plural or a short name, any case, a group after '.' ignored
 * ("deployment.apps"); NULL when no row is a target of that name.
 */
const struct cpl_kind *cpl_kinds_by_type(const char *word);
/* Whether name is one of k's run container names. */
bool cpl_kinds_is_run(const struct cpl_kind *k, const char *name);
/*
 * Whether a Pod label key is one a training operator sets (a row's
 * labels prefix or role label): what live mode reads of a Pod's labels.
 */
bool cpl_kinds_operator_label(const char *key);
/* Runs every row's merge hook over l (after all sources are read). */
void cpl_kinds_merge(struct cpl_wlist *l);

#endif
