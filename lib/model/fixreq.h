/*
 * fixreq.h — what a fix asks to change, as plain data: a rule records on
 * its finding a place and new text, an env value to set in a container,
 * "add a CPU request of N", a code edit at a line; fix/ resolves these
 * into edits of text (struct cpl_edit) after every rule has run, and only
 * when an edit is asked for (fix/resolve.h).  Rules decide what is wrong;
 * nothing here reads a source.
 *
 * Ownership: a finding owns its requests (cpl_finding_free); each
 * request owns its strings and the files of its positions.  Containers
 * and workloads are borrowed from the run, as a finding's origin is.
 */
#ifndef CPL_FIXREQ_H
#define CPL_FIXREQ_H

#include <stdbool.h>
#include <stddef.h>

#include "model/budget.h"
#include "model/finding.h"
#include "model/workload.h"

/* What one request changes. */
enum cpl_fixop {
	CPL_FIXOP_FAIL,		/* nothing can be edited: fails (a pool
				 * sized in code, in a whole fix) */
	CPL_FIXOP_SCALAR,	/* the YAML scalar at pos becomes text */
	CPL_FIXOP_ENV,		/* env names = text added to c */
	CPL_FIXOP_SHM,		/* /dev/shm volume of size text for c */
	CPL_FIXOP_CPU,		/* c's request text, limit text2 (either
				 * NULL) added */
	CPL_FIXOP_LIMIT,	/* limit text added beside c's request */
	CPL_FIXOP_COUNT,	/* the count from at pos becomes to */
	CPL_FIXOP_ENV_COUNT,	/* an env's count from at pos becomes to */
	CPL_FIXOP_ARGS,		/* the call at pos gets arguments text */
	CPL_FIXOP_CPU_QUOTA,	/* CPU301: [pos, end) becomes cpu_quota() */
	CPL_FIXOP_SPLIT,	/* c's threads to from, workers to to */
	CPL_FIXOP_ANNOTATION,	/* w's annotation text = text2 (at pos) */
};

/* When a request is tried, and what its failure does. */
#define CPL_FIXREQ_IF_EDITS	0x1u	/* only when the finding has
					 * edits already */
#define CPL_FIXREQ_IF_SPLIT	0x2u	/* only when the last split
					 * succeeded */
#define CPL_FIXREQ_WHOLE	0x4u	/* failing, it takes every edit
					 * of the finding with it */

/* One change a fix asks for. */
struct cpl_fixreq {
	enum cpl_fixop op;
	unsigned flags;
	struct cpl_pos pos;		/* file owned */
	struct cpl_pos end;		/* CPU_QUOTA: the call's end */
	const struct cpl_container *c;	/* borrowed */
	const struct cpl_workload *w;	/* ANNOTATION: borrowed */
	long from, to;
	char *text, *text2;		/* owned */
	const char *names[2];		/* ENV: static strings */
	size_t nnames;
	/* SPLIT: what sets the threads and the workers (files owned),
	 * and whether the worker count is set too. */
	struct cpl_amount threads, workers;
	bool set_workers;
};

/* Replaces the YAML scalar that starts at pos (plain or quoted, on one
 * line) with text, in the quoting of the one it replaces. */
void cpl_fix_scalar(struct cpl_finding *f, const struct cpl_pos *pos,
		    const char *text);
/* Adds env variables names[0..n) = value to c: to a Polyaxonfile's
 * simplified env when it has one, else to the container's env. */
void cpl_fix_env(struct cpl_finding *f, const struct cpl_container *c,
		 const char *const *names, size_t n, const char *value);
/* A request of op with flags, its other members zero, added to f: for a
 * shape the calls below do not make (a FAIL).  Borrowed from f. */
struct cpl_fixreq *cpl_fix_add(struct cpl_finding *f, enum cpl_fixop op,
			       unsigned flags);
/* Adds the memory-backed /dev/shm volume of size to c and its mount. */
void cpl_fix_shm(struct cpl_finding *f, const struct cpl_container *c,
		 const char *size);
/* Adds the CPU request and limit (either NULL: not that one) to c. */
void cpl_fix_cpu(struct cpl_finding *f, const struct cpl_container *c,
		 const char *request, const char *limit);
/* Adds the limit beside the request written at c->request_pos. */
void cpl_fix_limit(struct cpl_finding *f, const struct cpl_container *c,
		   const char *limit);
/* An env variable's count from, written at pos, becomes to (flags as
 * above). */
void cpl_fix_env_count(struct cpl_finding *f, const struct cpl_pos *pos,
		       long from, long to, unsigned flags);
/* The count from, written at pos or later on its line, becomes to. */
void cpl_fix_count(struct cpl_finding *f, const struct cpl_pos *pos,
		   long from, long to);
/* The arguments of the call whose name starts at pos become text. */
void cpl_fix_args(struct cpl_finding *f, const struct cpl_pos *pos,
		  const char *text);
/* CPU301's edit: the CPU count call [call, end) becomes cpu_quota(), the
 * helper added once to the file.  The fix is unsafe. */
void cpl_fix_cpu_quota(struct cpl_finding *f, const struct cpl_pos *call,
		       const struct cpl_pos *end);
/* The split of c, whose facts are fa: threads t and, with workers,
 * loader workers w, set where the text writes them (fix/split.c).  The
 * fix is unsafe. */
void cpl_fix_split(struct cpl_finding *f, const struct cpl_container *c,
		   const struct cpl_facts *fa, long t, long w, bool workers);
/* Sets the annotation key = value on w's own metadata (replacing the
 * value written at at, when at names one). */
void cpl_fix_annotation(struct cpl_finding *f, const struct cpl_workload *w,
			const char *key, const char *value,
			const struct cpl_pos *at);

/* Frees the members of n requests, and reqs. */
void cpl_fixreq_free(struct cpl_fixreq *reqs, size_t n);

#endif
