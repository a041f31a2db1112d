/*
 * lease.h — one audit among the replicas of `serve`: leader election on
 * a coordination.k8s.io/v1 Lease, as client-go's tools/leaderelection
 * does it, and the audit (audit.h) run only while this replica holds the
 * Lease.  The webhook is not its business: every replica answers it.
 *
 * On a thread of its own the elector reads the Lease and
 *   - creates it, holding it, when there is none;
 *   - renews it (renewTime now) every leaseDurationSeconds / 3 while it
 *     holds it;
 *   - takes it over when the holder is empty (released) or the holder
 *     has not renewed it for leaseDurationSeconds: both by the record's
 *     renewTime on the wall clock and by when this replica saw the
 *     record change on its own monotonic clock (client-go's guard
 *     against skewed clocks; the change is placed by renewTime within
 *     the interval between the two reads that bracket it, so agreeing
 *     clocks lose no time to polling), acquireTime now and
 *     leaseTransitions + 1;
 *   - writes with the resourceVersion it read, so of two replicas that
 *     try at once one gets 409 Conflict and reads again;
 *   - tries again every retry period (min(2 s, duration / 3)) while
 *     another holds it, and at the moment its hold lapses.
 * A holder that cannot renew for two thirds of the duration (client-go's
 * renewDeadline) stops its audit before anyone may take over; on stop it
 * releases the Lease (holderIdentity empty, client-go's
 * ReleaseOnCancel), so the next replica takes over at its next try.
 *
 * Ownership: the elector owns its kube client, the audit it runs and the
 * copies of the options' strings; a snapshot is lent as audit.h says.
 */
#ifndef CPL_LEASE_H
#define CPL_LEASE_H

#include <stdbool.h>

#include "live/audit.h"
#include "util.h"

struct cpl_lease_opts {
	const char *name;		/* the Lease; NULL: "kubectl-cpulint" */
	const char *namespace;		/* NULL: $POD_NAMESPACE, else the
					 * kubeconfig's namespace (in the
					 * cluster: the service account's) */
	const char *identity;		/* holderIdentity; NULL: $POD_NAME
					 * (the downward API), else the host
					 * name */
	double duration_s;		/* leaseDurationSeconds; 0: 15 */
};

struct cpl_leader;

/*
 * Starts the elector; ao says how the audit runs and where the cluster
 * is (ao->live.kube), which the Lease is read through too.  -1 with err
 * when the kubeconfig cannot be loaded or the thread cannot start.
 */
int cpl_leader_start(struct cpl_leader **out, const struct cpl_lease_opts *lo,
		     const struct cpl_audit_opts *ao, struct cpl_error *err);
/*
 * Calls fn under the elector's lock: with the audit's snapshot while
 * this replica holds the Lease (cpl_audit_with), with NULL while it does
 * not.
 */
void cpl_leader_with(struct cpl_leader *l, cpl_audit_fn fn, void *ctx);
/* Whether this replica holds the Lease (and so audits) now. */
bool cpl_leader_held(struct cpl_leader *l);
/*
 * Why the Lease could not be read or written (RBAC, the server down ...),
 * once per new reason: a message the caller frees, or NULL when nothing
 * new went wrong since the last call (a reason is new again after a
 * round that worked).
 */
char *cpl_leader_error(struct cpl_leader *l);
/* This replica's holderIdentity; borrowed until cpl_leader_stop. */
const char *cpl_leader_identity(const struct cpl_leader *l);
/* The Lease, "namespace/name"; borrowed until cpl_leader_stop. */
const char *cpl_leader_lease(const struct cpl_leader *l);
/* Stops the audit (if running) and the elector, releases the Lease when
 * held, and frees it; NULL-safe. */
void cpl_leader_stop(struct cpl_leader *l);

#endif
