/*
 * audit.h — the audit loop of `serve`: on a thread of its own, lists the
 * cluster's Pods (every namespace, or one) through live mode and then
 * watches them from the list's resourceVersion.  It keeps one row per top
 * owner (Deployment, Job, PyTorchJob, TrainJob ..., or the Pod itself),
 * judged when the list finds it new or changed and again only when one
 * of its Pods is added, changed or deleted; an owner whose last Pod is
 * deleted is dropped with its findings.  The watch is restarted from the
 * last resourceVersion when the server ends it; a 410 Gone lists again at
 * once (what changed meanwhile is judged, what is gone dropped), a
 * failure lists again after a backoff (1 s doubling to 60 s), and every
 * interval the Pods are listed again in full as a resync.  Where RBAC
 * refuses the watch (403, counted as a failure), it lists every
 * interval only, as before there was a watch.
 *
 * Memory: a page of Pods while listing, one event while watching, and
 * per owner one Pod's JSON per distinct spec, a small record per Pod
 * (name, node, container statuses: what counting and measuring need)
 * and the engine of its last judgement.
 *
 * Ownership: the audit owns its rows and engines; a snapshot is lent to
 * the caller's function under the audit's lock, never kept.
 */
#ifndef CPL_AUDIT_H
#define CPL_AUDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "live/live.h"
#include "util.h"

struct cpl_audit_opts {
	struct cpl_live_opts live;	/* kubeconfig, -n/-A, -l ... */
	double interval_s;		/* between full lists; 0: 60 */
};

/* What the audit knows; borrowed for the callback only. */
struct cpl_audit_snapshot {
	const struct cpl_engine *const *engines;	/* one per owner
							 * judged */
	size_t nengines;
	size_t owners;			/* rows (judged or not yet) */
	double last_time;		/* epoch seconds the cluster was last
					 * read whole or the watch last
					 * answered (0: not yet) */
	double last_duration;		/* seconds the last list took */
	unsigned long passes;		/* lists done (the first, resyncs,
					 * after a 410 or a failure) */
	unsigned long failures;		/* lists and watches that failed */
	unsigned long judgements;	/* owners judged */
	unsigned long events;		/* watch events received */
	unsigned long relists;		/* lists after a 410 Gone */
	bool ok;			/* the last read of the cluster
					 * worked */
	const char *last_error;		/* why it did not, or NULL */
};

typedef void (*cpl_audit_fn)(void *ctx, const struct cpl_audit_snapshot *s);

struct cpl_audit;

/* Starts the loop (its first pass at once).  -1 with err when the
 * thread cannot start. */
int cpl_audit_start(struct cpl_audit **out, const struct cpl_audit_opts *o,
		    struct cpl_error *err);
/* Calls fn with the latest snapshot, under the lock. */
void cpl_audit_with(struct cpl_audit *a, cpl_audit_fn fn, void *ctx);
/* Stops the loop (a watch at once, a judgement under way first) and
 * frees it; NULL-safe. */
void cpl_audit_stop(struct cpl_audit *a);

#endif
