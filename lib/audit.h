/*
 * audit.h — the audit loop of `serve`: on a thread of its own, reads the
 * cluster's Pods (every namespace, or one) through live mode
 * (cpl_live_collect: Pods grouped by top owner, each owner judged once
 * per pass, throttling from the kubelets when RBAC allows), keeps the
 * last pass's findings and budgets for /metrics, and starts again after
 * the interval.
 *
 * Memory: one pass's engine at a time (the Pods of a page, one workload
 * per owner and spec, their findings); the previous pass is freed when
 * the new one is published.
 *
 * Ownership: the audit owns its engines; a snapshot is lent to the
 * caller's function under the audit's lock, never kept.
 */
#ifndef CPL_AUDIT_H
#define CPL_AUDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "engine.h"
#include "live.h"
#include "util.h"

struct cpl_audit_opts {
	struct cpl_live_opts live;	/* kubeconfig, -n/-A, -l ... */
	double interval_s;		/* between passes; 0: 60 */
};

/* What the last pass found; borrowed for the callback only. */
struct cpl_audit_snapshot {
	const struct cpl_engine *e;	/* NULL before the first pass */
	double last_time;		/* epoch seconds the last pass ended
					 * (0: none yet) */
	double last_duration;		/* seconds it took */
	unsigned long passes;		/* passes done */
	unsigned long failures;		/* passes that read nothing */
	bool ok;			/* the last pass read the cluster */
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
/* Stops the loop (a pass under way ends first) and frees it; NULL-safe. */
void cpl_audit_stop(struct cpl_audit *a);

#endif
