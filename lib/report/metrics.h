/*
 * metrics.h — /metrics of `serve`: the Prometheus text exposition format
 * (version 0.0.4) of the audit's last pass and the webhook's counters.
 *
 *   cpulint_findings{namespace,owner_kind,owner,container,rule,severity}
 *       findings of the owner's containers (suppressed ones left out)
 *   cpulint_budget_cpus, cpulint_ranks, cpulint_planned_threads,
 *   cpulint_planned_workers, cpulint_busy_threads
 *       {namespace,owner_kind,owner,container}: each training container's
 *       budget (CPU limit, else request), ranks, intra-op threads and
 *       loader workers per rank, and ranks x (threads + workers); an
 *       unknown figure is left out
 *   cpulint_last_audit_timestamp_seconds, cpulint_audit_duration_seconds,
 *   cpulint_audit_passes_total, cpulint_audit_failures_total,
 *   cpulint_audit_up (the last read of the cluster worked),
 *   cpulint_audit_judgements_total, cpulint_audit_watch_events_total,
 *   cpulint_audit_relists_total (after a 410 Gone), cpulint_audit_owners
 *   cpulint_admission_reviews_total{result="allowed|denied|invalid"}
 *   cpulint_audit_leader{identity,lease} 1 or 0 (with --leader-elect:
 *       whether this replica holds the Lease and so runs the audit; the
 *       audit's series above come from the holder alone)
 *
 * Live objects are named "kind/namespace/name" (a fourth part, the Pod,
 * when one owner's Pods differ: the owner stays the third); label values
 * are escaped (report/escape.h) and then as the format wants (\\ \" \n).
 *
 * Ownership: the result is the caller's to free().
 */
#ifndef CPL_REPORT_METRICS_H
#define CPL_REPORT_METRICS_H

#include <stdbool.h>
#include <stddef.h>


struct cpl_metrics_in {
	const struct cpl_finding *findings;
	size_t nfindings;
	const struct cpl_budget_entry *budgets;
	size_t nbudgets;
	bool audit;			/* the audit runs (not --no-audit) */
	bool up;			/* its last pass read the cluster */
	double last_time;		/* epoch s; 0: no pass yet */
	double last_duration;
	unsigned long passes, failures;
	unsigned long judgements;	/* owners judged */
	unsigned long events;		/* watch events */
	unsigned long relists;		/* lists after a 410 Gone */
	size_t owners;			/* owners the audit keeps */
	unsigned long allowed, denied, invalid;	/* reviews answered */
	const char *identity;		/* --leader-elect: this replica's
					 * holderIdentity; NULL: no election */
	const char *lease;		/* "namespace/name" of the Lease */
	bool leader;			/* this replica holds it */
};

/* The exposition text; caller frees. */
char *cpl_report_metrics(const struct cpl_metrics_in *m);

#endif
