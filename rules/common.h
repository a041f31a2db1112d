/*
 * common.h — what several rules share: the gathered budget facts of one
 * container (struct cpl_facts, gathered in lib/model/budget.c) and the sentences
 * that state the suggested split.  Only rules include this.
 */
#ifndef CPL_RULES_COMMON_H
#define CPL_RULES_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/budget.h"
#include "model/fixreq.h"
#include "model/pools.h"
#include "model/rule.h"
#include "python/pyscan.h"

/* "container \"pytorch\"" or "the container" for messages. */
const char *cpl_facts_cname(const struct cpl_container *c);

/* Where a container-level finding goes: its resources, else itself. */
const struct cpl_pos *cpl_facts_where(const struct cpl_workload *w,
				      const struct cpl_container *c);

/* A CPU total that covers ranks × (threads + workers), at least one thread
 * per rank and one worker when the count is unknown; *t and *w receive the
 * per-rank parts. */
long cpl_facts_needed(const struct cpl_facts *f, long *t, long *w);

/*
 * Whether thread setting f->threads[i] runs in DataLoader workers as (part
 * of) a worker_init_fn: the file says so, or a process that runs f passes
 * the def it is in as a worker_init_fn from another module.
 */
bool cpl_facts_in_worker_init(const struct cpl_check *ck,
			      const struct cpl_pyfile *f, size_t i);

/*
 * The fix's advice when the rank count is not known (f->ranks_known
 * false): the per-rank budget as a formula over the ranks, and what to
 * set var to from it.  Written into out (size bytes).
 */
void cpl_facts_ranks_unknown_fix(char *out, size_t size,
				 const struct cpl_facts *f, const char *var);

/* The measurement window of a live container for messages: "since it
 * started", "over the last 30s", "over the last 1h"; with its source
 * ("cAdvisor", "Prometheus") in *source (static). */
void cpl_facts_window(char *out, size_t size, const char **source,
		      const struct cpl_container *c);

/* The share of CFS periods c was throttled in, or -1 when unknown. */
double cpl_facts_throttled(const struct cpl_container *c);

/*
 * When w records a measurement (compare --fix's cpulint.io/measured) of
 * c's setting as it is now, threads and workers, on its budget now:
 * fd becomes a note that cites it, with a fix that keeps the setting
 * (and no edit), and true.  A measurement beats the static model; a
 * setting or budget changed since makes the record stale, and false.
 */
bool cpl_facts_measured(struct cpl_finding *fd, const struct cpl_workload *w,
			const struct cpl_facts *f);

/*
 * The size CPU202 writes for pool k of a container with facts f: its
 * share (cpl_pools_share) of the per-rank budget, the rank running the
 * intra-op threads it has once CPU202 or CPU305 has fixed them (the
 * split's T when they are over the budget) and the loader workers as
 * written; 1 when the ranks or the workers are not known.  *threads
 * (may be NULL) receives the intra-op threads it counted.
 */
long cpl_facts_pool_share(long *threads, const struct cpl_facts *f,
			  const struct cpl_pools *ps, enum cpl_pool_kind k);

/* The loader workers f counts (known, or a host-sized lower bound), 0
 * when unknown. */
long cpl_facts_workers(const struct cpl_facts *f);

/* "1 thread" / "2 threads": the noun for n (static strings). */
const char *cpl_plural(long n, const char *one, const char *many);

#endif
