/*
 * planrun.h — `kubectl cpulint plan FILE...`: after a lint run over the
 * files, one plan for each document holding training containers with a
 * known CPU budget: the sweep (plan/sweep_int.h) made from the budget's
 * suggestion (the smallest per-rank budget of the document's training
 * containers, so every setting fits each of them), written for the
 * document's engine (plan/plan_int.h).
 *
 * Ownership: output is appended to the caller's buffers; errors are
 * appended to the caller's array (free each with cpl_error_clear, then
 * the array).
 */
#ifndef CPL_PLANRUN_H
#define CPL_PLANRUN_H

#include <stdbool.h>
#include <stddef.h>

#include "run/engine.h"
#include "util.h"

struct cpl_planrun_opts {
	bool jobs;		/* --jobs: plain manifests, not Katib */
	long max;		/* --max: each knob at most this; 0 none */
	const char *segment;	/* --segment NAME=VALUE, or NULL */
	long repeat;		/* --repeat: runs of each setting; 0, 1:
				 * one */
};

/* One plan written (for the command's summary line). */
struct cpl_planrun_done {
	char *id;
	char *object;		/* the document's object, as budgets name it */
	char *file;
	int line;
	size_t settings;
	long repeat;		/* runs of each setting */
	const char *engine;	/* "Polyaxon operation", "Katib
				 * Experiments (one per knob)", "Jobs"
				 * (static) */
	bool workers;		/* the workers vary too */
	char current[32];	/* the job's current setting's id, when
				 * it is run too; else "" */
};

struct cpl_planrun {
	struct cpl_planrun_done *done;
	size_t ndone;
	struct cpl_error *errors;	/* a document no plan is written for */
	size_t nerrors;
};

/* Writes the plans of e's files (after cpl_engine_run) to out. */
void cpl_planrun(struct cpl_planrun *r, struct cpl_buf *out,
		 const struct cpl_engine *e,
		 const struct cpl_planrun_opts *o);
void cpl_planrun_free(struct cpl_planrun *r);

#endif
