/*
 * keep.h — `compare --fix`: the setting of intra-op threads T and loader
 * workers W a comparison chose, written where a workload's source writes
 * them by CPU401's split fix (a SPLIT request, model/fixreq.h).
 *
 * Ownership: findings and their edits are the engine's; the keep's
 * strings (struct cpl_keep_result) are the caller's (cpl_keep_free).
 */
#ifndef CPL_KEEP_H
#define CPL_KEEP_H

#include <stdbool.h>
#include <stddef.h>


struct cpl_engine;

/* What cpl_engine_keep made: edits of file, or why none. */
struct cpl_keep_result {
	struct cpl_edit *edits;	/* copies; all in the file */
	size_t nedits;
	size_t ncontainers;	/* the training containers set */
	bool unrecorded;	/* no place took the measured annotation */
	char *why;		/* refused: one line; NULL otherwise */
};

/*
 * After cpl_engine_run() on one file: the edits that set the threads t
 * and workers w of the training containers of its one workload that has
 * any (all of them: a PyTorchJob's Master and Worker alike); w < 0 sets
 * the threads alone (a setting of a job with no loader).  Refused
 * (r->why) when the file has none, when several workloads have them,
 * or when a value is not written where the file can be edited (the
 * worker count must be a word of the command or its script's arguments,
 * however the script names it).  No edits and no why: the file holds
 * the setting already.  measured (NULL: none) is what the comparison
 * measured ("412 examples/s, 1.04x t1-w0; plan ID, DATE", no quote or
 * backslash): the workload's annotation cpulint.io/measured gets it
 * after the setting and the budget ("t1-w4 on 1 CPU: ..."), added or
 * replaced, so that the budget rules honour the measurement.  pools
 * (NULL: none) holds the sizes of the pool variables the setting ran
 * with, in cpl_pools_vars()'s order (model/pools.h; -1: not set): each
 * is written where the container's env writes that variable as a count
 * (plan sets them with every setting); one the file does not write is
 * left alone.
 */
void cpl_engine_keep(struct cpl_engine *e, const char *file, long t, long w,
		     const long *pools, const char *measured,
		     struct cpl_keep_result *r);
void cpl_keep_free(struct cpl_keep_result *r);

#endif
