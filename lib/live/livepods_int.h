/*
 * livepods_int.h — live Pods at scale: each owner read once, Pods grouped by
 * top owner and spec, and the compact record of each Pod that measuring
 * needs (live.c lists, loads and measures; this module remembers).
 *
 * A group is the Pods of one top owner (Deployment, StatefulSet, Job,
 * PyTorchJob, TrainJob ...) whose specs are the same in everything the
 * loader and the rules read: the spec (node name, host name, affinity,
 * the per-Pod service-account volume, claim names and the operators'
 * numeric rank variables left out), the ignore-check annotations, the
 * operators' training labels and the owner kinds.  One workload stands for the
 * group; a Pod without an owner is a group of its own, always.
 *
 * Ownership: the set owns its groups, records, owners and keys; the
 * workloads belong to the engine (borrowed here).
 */
#ifndef CPL_LIVEPODS_H
#define CPL_LIVEPODS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kube/kubeclient.h"
#include "model/workload.h"
#include "util.h"

/* The controller owner reference of an object (else its first owner
 * reference), or NULL. */
const json_t *cpl_livepods_owner_ref(const json_t *obj);

/* The top controller of some Pods, as read once. */
struct cpl_liveowner {
	char *kind;		/* "Deployment", "PyTorchJob" */
	char *api_version;	/* as its reference gave it ("kubeflow.org/
				 * v2beta1"), or NULL */
	char *name;
	/* An MPIJob's ranks per node Pod (live.c), read on first need:
	 * 0 not asked, 1 read (slots its spec.slotsPerWorker, or NULL when
	 * unset; launcher_node its runLauncherAsNode), -1 not readable. */
	int mpi_read;
	char *slots;
	bool launcher_node;
	char *object;		/* "deployment/ns/name", as live objects are
				 * named */
	char *log;		/* "Deployment/ns/name" for -v */
	size_t ngroups;		/* groups (distinct specs) of its Pods */
};

/* Pods of one top owner with one spec, linted as one workload. */
struct cpl_livegroup {
	struct cpl_workload *w;	/* the first Pod's; the engine's */
	const struct cpl_liveowner *owner;	/* NULL: an unowned Pod */
	char *namespace;
	char *first;		/* smallest Pod name of the group */
	unsigned long pods;
	char *key;		/* owner and canonical spec (map key) */
};

/* One Pod, kept for measuring after its page is gone. */
struct cpl_livepod {
	size_t group;
	char *name;
	const char *node;	/* interned; NULL when not scheduled */
	size_t node_ix;		/* its index in nodes; SIZE_MAX when none */
	uint32_t *started;	/* per container of the group's workload:
				 * when it started running (epoch s), 0
				 * unknown; NULL when no status says */
};

/* An empty set; its maps own their keys.  cpl_livepods_free() leaves
 * the set as this. */
#define CPL_LIVEPODS_INIT \
	{ .owner_at.own_keys = true, .node_at.own_keys = true }

struct cpl_livepods {
	struct cpl_livegroup *groups;
	size_t ngroups, groups_cap;
	struct cpl_livepod *pods;
	size_t npods, pods_cap;
	struct cpl_strmap group_at;	/* key → group index + 1 */
	struct cpl_strmap owner_at;	/* "ns/Kind/name" → its top owner
					 * (itself when unreadable) */
	struct cpl_liveowner **owners;	/* owned */
	size_t nowners, owners_cap;
	struct cpl_strmap node_at;	/* node name → index + 1 in nodes */
	const char **nodes;		/* node_at's keys, in the order
					 * first met */
	size_t nnodes, nodes_cap;
	unsigned long owner_gets;	/* owners read from the server */
};

/*
 * The top owner of pod in namespace ns: its controller reference
 * followed up through ReplicaSets, Jobs and JobSets, each read at most
 * once per set (an owner that cannot be read is remembered too, and is
 * then the top).  NULL for a Pod without owner references.
 */
struct cpl_liveowner *cpl_livepods_owner(struct cpl_livepods *lp,
					 struct cpl_kubeclient *c,
					 const json_t *pod, const char *ns);
/*
 * The record of an object that is a top owner itself (not a ReplicaSet,
 * Job or JobSet, which are followed up): the one its Pods' references
 * find later, made now without a read.
 */
struct cpl_liveowner *cpl_livepods_top(struct cpl_livepods *lp,
				       const char *kind,
				       const char *api_version,
				       const char *ns, const char *name);

/*
 * The grouping key of pod under owner (caller frees): owner's object and
 * the canonical text of what the linting reads.  NULL when owner is NULL.
 */
char *cpl_livepods_key(const struct cpl_liveowner *owner, const json_t *pod);

/* The index of the group of key, or -1. */
long cpl_livepods_find(const struct cpl_livepods *lp, const char *key);

/* A new group for workload w (borrowed) under owner; key is taken (may be
 * NULL: never found again).  Returns its index. */
size_t cpl_livepods_add_group(struct cpl_livepods *lp, char *key,
			      struct cpl_liveowner *owner,
			      const char *ns, struct cpl_workload *w);

/* Records Pod name of group g on node (may be NULL), with the start times
 * of its containers from statuses (status.containerStatuses, may be
 * NULL). */
void cpl_livepods_add_pod(struct cpl_livepods *lp, size_t g,
			  const char *name, const char *node,
			  const json_t *statuses);

/*
 * Names each group of more than one Pod after its owner
 * ("deployment/ns/x"; "deployment/ns/x/POD" with POD its smallest Pod
 * name when the owner's Pods have several specs) and sets the workload's
 * Pod count.  Call once, after the last Pod.
 */
void cpl_livepods_finish(struct cpl_livepods *lp);

void cpl_livepods_free(struct cpl_livepods *lp);	/* members; NULL-safe */

#endif
