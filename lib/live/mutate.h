/*
 * mutate.h — what `serve --mutate` changes in an object at admission:
 * the thread variables the tool's own fixes would add (OMP_NUM_THREADS,
 * MKL_NUM_THREADS, any *_NUM_THREADS a fix inserts), in the training
 * containers those fixes name, as an RFC 6902 JSONPatch against the
 * object the review carries, and an annotation saying what was set and
 * why.
 *
 * The numbers are the fixes' numbers by construction: the edits of the
 * findings (not suppressed) on the judged text (live/admit.h) are
 * applied together, each finding's all or none, as --fix applies a
 * file's, and the text read again; an env entry a fix adds to a
 * container whose env did not name it (nor envFrom) is taken, and
 * nothing else (a fix that would change a value the user set, in env
 * or valueFrom, a worker count or a CPU limit, is never carried over).
 * A container no fix names (not training, an init container, a sidecar)
 * is never touched.
 *
 * The patch is checked as --fix edits are: applied to a copy of the
 * object and read again: every touched env holds valid, distinct names,
 * the annotations stay under the API server's 256 KiB, and the object
 * minus the added entries and the annotation is the object sent.  A
 * patch that fails the check is not sent, and why is said (struct
 * cpl_mutation.refused).
 *
 * Only a CREATE is mutated (a Pod's containers cannot change on UPDATE).
 * Opt-out: annotation or label cpulint.io/mutate: "false" on the object.
 *
 * Ownership: struct cpl_mutation owns its strings and its patch; free
 * with cpl_mutate_clear().
 */
#ifndef CPL_MUTATE_H
#define CPL_MUTATE_H

#include <stdbool.h>
#include <stddef.h>

#include "live/admit.h"

/* The annotation that opts an object out, and the one that says what
 * was set. */
#define CPL_MUTATE_OPT_OUT "cpulint.io/mutate"
#define CPL_MUTATE_NOTE "cpulint.io/mutated"

/* One env entry to add. */
struct cpl_mutate_set {
	char *pointer;		/* the container in the object sent:
				 * "/spec/containers/0" */
	char *container;	/* its name */
	char *name;		/* "OMP_NUM_THREADS" */
	char *value;		/* "2" */
	bool env_absent;	/* the container has no env member */
	char *why;		/* "CPU limit 4, 2 ranks" or NULL */
};

/* What one review changes. */
struct cpl_mutation {
	struct cpl_mutate_set *sets;	/* in the object's order, each
					 * container's together */
	size_t nsets;
	char *note;		/* the annotation's value, or NULL */
	char *patch;		/* the JSONPatch (a JSON array) to send, or
				 * NULL: nothing to change */
	char *skipped;		/* not mutated, and why (opted out) */
	char *refused;		/* a patch failed its check: why */
};

/*
 * Plans the mutation of a judged review a (cpl_admit_review()).
 * dry_run: the patch only adds the annotation ("would set ...").
 * Always fills *m (empty when there is nothing to set).
 */
void cpl_mutate_plan(struct cpl_mutation *m, const struct cpl_admit *a,
		     bool dry_run);

/*
 * Applies patch (an RFC 6902 array of add operations, the only op the
 * planner writes) to a copy of obj; NULL with *why set (caller frees)
 * when an operation is not an add or its path does not resolve.  For
 * the check and for tests; caller json_decref()s the result.
 */
struct json_t *cpl_mutate_apply(const struct json_t *obj, const char *patch,
				char **why);

void cpl_mutate_clear(struct cpl_mutation *m);	/* members; NULL-safe */

#endif
