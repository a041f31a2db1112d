/*
 * plan_int.h — the plan writers: one sweep (sweep_int.h) written for the engine
 * the user already has.
 *
 *   Polyaxon  a v1.1 operation whose matrix (kind mapping) sets the
 *             threads (OMP_NUM_THREADS/MKL_NUM_THREADS through an input)
 *             and the workers (the input the command's --workers flag
 *             reads, or one the plan adds), with the setting's name as a
 *             run input too, so every run records what it ran with;
 *   Katib     an Experiment (grid algorithm) whose trialSpec is the
 *             user's job with the two knobs as trialParameters;
 *   jobs      the user's job once per setting, named and labelled
 *             cpulint.io/plan and cpulint.io/setting (object and Pod
 *             templates), for clusters without Katib.
 *
 * Every Pod template of a plan carries the label cpulint.io/plan, which
 * `compare -l cpulint.io/plan=ID` selects.
 *
 * Ownership: the plan borrows everything it points to; writers append
 * YAML to the caller's buffer.
 *
 * May include: util.h, budget.h, plan/.
 */
#ifndef CPL_PLAN_PLAN_H
#define CPL_PLAN_PLAN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "plan/sweep_int.h"
#include "util.h"

#define CPL_PLAN_LABEL "cpulint.io/plan"
#define CPL_PLAN_SETTING_LABEL "cpulint.io/setting"
/* Which run of its setting a run is, 1..--repeat (a plan with --repeat
 * over 1): compare takes the median of a setting's runs. */
#define CPL_PLAN_REPEAT_LABEL "cpulint.io/repeat"
/* The most runs of one setting --repeat asks for. */
#define CPL_PLAN_REPEAT_MAX 9

/* Which engine a document is for. */
enum cpl_plan_engine {
	CPL_PLAN_NONE,		/* not one a plan is written for */
	CPL_PLAN_POLYAXON,	/* a v1.1 Polyaxonfile */
	CPL_PLAN_KUBEFLOW,	/* PyTorchJob, TrainJob or Job */
};

struct cpl_plan {
	const char *id;		/* the plan's name: a label value */
	const json_t *doc;	/* the user's document (not changed) */
	const char *const *containers;	/* its training containers */
	size_t ncontainers;
	const struct cpl_sweep_setting *settings;	/* [0]: suggestion */
	size_t nsettings;
	const char *const *pool_vars;	/* the pools each setting sets
					 * (OPENBLAS_NUM_THREADS...), with
					 * settings[i].pools[j] */
	size_t npools;
	const char *segment;	/* --segment NAME=VALUE, or NULL */
	long repeats;		/* --repeat: runs of each setting; < 2:
				 * one, no repeat label */
	const char *summary;	/* one line: the budget and the sweep */
};

/*
 * The engine doc is for; *why says why not (static text), NULL when doc
 * is of no kind plan writes sweeps for (cpl_plan_kinds_why() says so).
 */
enum cpl_plan_engine cpl_plan_engine_of(const json_t *doc,
					const char **why);
/* "not a Job, PyTorchJob, ... or v1.1 Polyaxonfile ...": the kinds the
 * kinds table marks plan (load/kinds.h).  Caller frees. */
char *cpl_plan_kinds_why(void);

/*
 * Whether the plan can set the loader workers of every training
 * container of doc (a --workers style flag in each command).
 */
bool cpl_plan_can_set_workers(const json_t *doc, const char *const *names,
			      size_t n);

/* Whether a training container's command assigns OMP_NUM_THREADS or
 * MKL_NUM_THREADS itself ("export OMP_NUM_THREADS=$(nproc)"): the
 * plan's environment would not reach the process. */
bool cpl_plan_command_sets_threads(const json_t *doc,
				   const char *const *names, size_t n);

/* Sets the plan's pool variables of setting s in the containers t (nt):
 * each as the count s->pools holds. */
void cpl_plan_set_pools(json_t **t, size_t nt, const struct cpl_plan *p,
			const struct cpl_sweep_setting *s);

/* Writers: 0, or -1 with err (its message only) when the document
 * cannot take the plan (a --segment input it lacks...). */
int cpl_plan_polyaxon(struct cpl_buf *out, const struct cpl_plan *p,
		      struct cpl_error *err);
int cpl_plan_katib(struct cpl_buf *out, const struct cpl_plan *p,
		   struct cpl_error *err);
int cpl_plan_jobs(struct cpl_buf *out, const struct cpl_plan *p,
		  struct cpl_error *err);

#endif
