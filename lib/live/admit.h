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
 * cpl_admit_clear().  A Pod whose controller is a Kubeflow job
 * (PyTorchJob, TFJob ...) is judged inside an object of that kind with
 * the Pod's replica type and its PET_NPROC_PER_NODE as nprocPerNode, so
 * its ranks and training container are its owner's, as in live mode.
 */
#ifndef CPL_ADMIT_H
#define CPL_ADMIT_H

#include <stddef.h>

#include "util.h"

#define CPL_ADMIT_MAX_OBJECT ((size_t)3 << 20)
/*
 * Where the object's text is judged: a path below a directory that does
 * not exist, deep enough that the linker's climb (the file's directory
 * and 4 parents) stays inside it.  Findings on the object name it.
 */
#define CPL_ADMIT_PATH "/<admission-review>/o/b/j/e/c/t.json"
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
	/* For /mutate (live/mutate.h), set when e is: */
	struct json_t *object;	/* request.object as sent; a reference */
	char *text;		/* the JSON text judged at CPL_ADMIT_PATH */
	size_t tlen;
	/* A Pod an operator made (its controller a PyTorchJob ...) is
	 * judged inside an object of its owner's kind, as live mode judges
	 * it with its owner's ranks: the JSON pointer of its Pod spec in
	 * text ("/spec/pytorchReplicaSpecs/Worker/template/spec"), which is
	 * "/spec" in object; NULL when text is the object itself. */
	char *wrapped;
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
