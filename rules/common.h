/*
 * common.h — what several rules share: the gathered budget facts of one
 * container and the sentences that state the suggested split.  Only rules
 * include this; the arithmetic itself lives in lib/budget.c.
 */
#ifndef CPL_RULES_COMMON_H
#define CPL_RULES_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "budget.h"
#include "python/pyscan.h"
#include "rule.h"

/* Everything a budget rule asks about one container. */
struct cpl_facts {
	int64_t cpu;		/* C in millicores, -1 unknown */
	struct cpl_pos cpu_pos;
	char cpus[16];		/* C for messages: "4", "2.5" */
	char budget[48];	/* "budget of 4 CPUs", "budget of 1 CPU" */
	struct cpl_amount ranks;
	struct cpl_amount threads;
	struct cpl_amount workers;
	long per_rank;		/* suggested split (when cpu >= 1000) */
	long t;
	long w;
	bool ranks_known;	/* the rank count is known (KNOWN) */
	bool no_workers;	/* known to run no loader workers: T = B */
	char rank_phrase[32];	/* "1 rank", "4 ranks", "at least 1 rank" */
	const char *ranks_why;	/* when not known: "not known here", "one
				 * per CPU of the node" */
	char share[96];		/* how B splits, for fixes: "split into 2
				 * thread(s) and 2 loader worker(s)" */
};

void cpl_facts_gather(struct cpl_facts *f, const struct cpl_workload *w,
		      const struct cpl_container *c);

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

/* "1 thread" / "2 threads": the noun for n (static strings). */
const char *cpl_plural(long n, const char *one, const char *many);

#endif
