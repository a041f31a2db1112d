/*
 * trains_int.h — whether linked Python trains (trains.c): the evidence the
 * budget rules use for containers that do not train by their kind.
 */
#ifndef CPL_MODEL_TRAINS_H
#define CPL_MODEL_TRAINS_H

#include <stdbool.h>

struct cpl_code;

/* The linked code imports torch and trains anywhere in it: a DataLoader,
 * .backward(), an optimizer's .step() (not a scheduler's). */
bool cpl_trains_script(const struct cpl_code *code);
/* A task declared in Python (a Flyte task, a KFP component): its own
 * copy (files[0]) trains, or a def of another module it calls by its
 * imported name does; NULL or nothing linked: false. */
bool cpl_trains_declared(const struct cpl_code *code);

#endif
