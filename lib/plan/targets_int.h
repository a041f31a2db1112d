/*
 * targets_int.h — where the knobs of a document's training containers are:
 * the containers of its Pod templates named as the budget names them, a
 * Polyaxon run's containers (run.container, a replica's container), a
 * TrainJob's spec.trainer; and its Pod templates, for the plan's labels.
 * Shared by the plan writers (plan.c, katib.c).
 *
 * Ownership: the arrays are the caller's to free; the values in them
 * are borrowed from doc.
 *
 * May include: util.h, plan/.
 */
#ifndef CPL_PLAN_TARGETS_H
#define CPL_PLAN_TARGETS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* The container objects of doc to set (names: the training containers;
 * Polyaxon run containers are taken whatever their name). */
json_t **cpl_plan_targets(size_t *n, json_t *doc, const char *const *names,
			  size_t nnames);
/* Adds label key=value to doc's metadata and every Pod template's. */
void cpl_plan_label(json_t *doc, const char *key, const char *value);

/* Appends v as a YAML document (ydoc_int.h); -1 with err when it cannot. */
int cpl_plan_emit(struct cpl_buf *out, const json_t *v, bool start,
		  struct cpl_error *err);
/* Sets the training command's --NAME flag to VALUE for --segment
 * NAME=VALUE in each of t (nt); -1 with err when none has the flag. */
int cpl_plan_segment(json_t **t, size_t nt, const char *segment,
		     struct cpl_error *err);

#endif
