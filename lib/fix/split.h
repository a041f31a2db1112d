/*
 * split.h — setting a training container's intra-op threads T and loader
 * workers W where its source writes them, through the edits of fixes
 * (fixedit.h): CPU401's split fix, and compare --fix's (keep.h).
 *
 * Ownership: edits are added to the finding, which is the run's.
 */
#ifndef CPL_SPLIT_H
#define CPL_SPLIT_H

#include <stdbool.h>

#include "model/budget.h"
#include "model/finding.h"
#include "model/workload.h"

struct cpl_check;

/*
 * The edits of "set the threads to t (and, with workers, use w loader
 * workers)" on fd, for container c whose facts are f: every number
 * named, where the text writes it (OMP_NUM_THREADS / MKL_NUM_THREADS,
 * added when neither is set; torch.set_num_threads' argument; the
 * worker count where it is written), or no edit at all (false).  The
 * fix is unsafe: it changes what the job runs.
 */
bool cpl_keep_split(struct cpl_check *ck, struct cpl_finding *fd,
		    const struct cpl_container *c, const struct cpl_facts *f,
		    long t, long w, bool workers);

#endif
