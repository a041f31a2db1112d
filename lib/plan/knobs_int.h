/*
 * knobs_int.h — the two knobs of a container, read and set in its JSON (a
 * Kubernetes container, a Polyaxon run container or a TrainJob's
 * trainer: an object with env, command and args): the intra-op threads
 * (OMP_NUM_THREADS and MKL_NUM_THREADS, the latter winning for MKL, so
 * both are set together) and the loader workers (a --workers style flag
 * of the script, cpl_budget_worker_flag's names, as a word of its own or
 * inside a shell string; the last one wins, as argparse reads it).
 *
 * Ownership: the container is the caller's; strings returned are
 * borrowed from it, or newly allocated where a comment says so.
 *
 * May include: util.h, budget.h, plan/.
 */
#ifndef CPL_PLAN_KNOBS_H
#define CPL_PLAN_KNOBS_H

#include <jansson.h>
#include <stdbool.h>

/* The value env variable name has in c (its "value"), or NULL. */
const char *cpl_knob_env(const json_t *c, const char *name);
/* Sets env name to value (replacing a value or valueFrom; else
 * appended). */
void cpl_knob_set_env(json_t *c, const char *name, const char *value);

/* Sets OMP_NUM_THREADS and MKL_NUM_THREADS to value. */
void cpl_knob_set_threads(json_t *c, const char *value);
/* The threads the spec sets: MKL_NUM_THREADS, else OMP_NUM_THREADS, as
 * a count; -1 when neither holds one. */
long cpl_knob_threads(const json_t *c);

/*
 * The value of the script's flag in c's command and args: the worker
 * count (flag NULL) or the flag named flag (compared without dashes,
 * '-' as '_').  A new string the caller frees, or NULL when no such flag
 * is there.
 */
char *cpl_knob_flag(const json_t *c, const char *flag);
/* Replaces that flag's value with value; false when there is none. */
bool cpl_knob_set_flag(json_t *c, const char *flag, const char *value);

/* The worker count the spec sets, -1 when none (or not a count). */
long cpl_knob_workers(const json_t *c);

#endif
