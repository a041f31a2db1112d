/*
 * admit.h — the judging half of the admission webhook: an
 * admission.k8s.io/v1 AdmissionReview read and checked, the object it
 * carries linted through the same loaders as a file (-f -), its
 * findings in an engine.  Turning those into the AdmissionReview answer
 * (warnings, a denial) is report/admission.h's part.
 *
 * Bounded work per review: the review text is at most the server's body
 * cap (jansson refuses nesting past 2048 levels), the object judged is
 * at most CPL_ADMIT_MAX_OBJECT bytes once written compact (the API
 * server's own limit on a request body is 3 MiB) with at most
 * CPL_ADMIT_MAX_CONTAINERS containers.  An object over either cap is
 * admitted without judgement, and says so.  The object's text never
 * names a file on this machine: it is judged under a path no directory
 * has, so the code linker never reads a file of the server (only a
 * repository has the code).
 *
 * Ownership: struct cpl_admit owns its strings and engine; free with
 * cpl_admit_clear().
 */
#ifndef CPL_ADMIT_H
#define CPL_ADMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "run/engine.h"
#include "util.h"

#define CPL_ADMIT_MAX_OBJECT ((size_t)3 << 20)
/* The most containers (of all its Pod templates) an object judged may
 * have: the linting of one Pod template grows faster than linearly with
 * its containers (400 take seconds), and real ones have a handful. */
#define CPL_ADMIT_MAX_CONTAINERS 128

/* One review, read and (when there was something to judge) judged. */
struct cpl_admit {
	char *uid;		/* request.uid: the answer must carry it */
	char *operation;	/* "CREATE", "UPDATE" ... */
	char *what;		/* "PyTorchJob ml/resnet", for messages */
	struct cpl_engine *e;	/* the findings; NULL when not judged */
	char *skipped;		/* why it was not judged, or NULL */
};

/*
 * Reads body (len bytes) as an AdmissionReview and judges request.object
 * of a CREATE or UPDATE (other operations, and a review without an
 * object, are admitted unjudged).  config: a .cpulint.yaml to apply, or
 * NULL.  0 with *a filled; -1 with err's message saying what is
 * malformed (the caller answers 400 with it; *a is then empty).
 */
int cpl_admit_review(struct cpl_admit *a, const char *body, size_t len,
		     const char *config, struct cpl_error *err);

void cpl_admit_clear(struct cpl_admit *a);	/* members; NULL-safe */

#endif
