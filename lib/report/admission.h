/*
 * admission.h — the answer of the admission webhook: an
 * admission.k8s.io/v1 AdmissionReview response whose warnings are the
 * findings, cut to what the API server passes on, and a denial only
 * when asked for (--deny-on).
 *
 * The API server's limits (k8s.io/apiserver, the warning recorder of
 * endpoints/filters/warning.go): a warning with a control character is
 * dropped; once the warnings of a request pass 4096 characters (runes)
 * in all, every one is cut to 256.  So each warning here is at most
 * CPL_ADMISSION_ITEM_RUNES runes, escaped (report/escape.h: no control
 * character), and all of them together at most
 * CPL_ADMISSION_TOTAL_RUNES: what does not fit is counted in a last
 * warning that says how many more findings there are.  The worst come
 * first (errors, then warnings, then notes).
 *
 * Ownership: the result is the caller's to free().
 */
#ifndef CPL_REPORT_ADMISSION_H
#define CPL_REPORT_ADMISSION_H

#include <stdbool.h>
#include <stddef.h>

#include "model/finding.h"

#define CPL_ADMISSION_ITEM_RUNES 256
#define CPL_ADMISSION_TOTAL_RUNES 4096

/* What the answer says about one review. */
struct cpl_admission {
	const char *uid;		/* request.uid */
	const char *what;		/* "PyTorchJob ml/x", for a denial */
	const struct cpl_finding *findings;
	size_t nfindings;
	const struct cpl_error *errors;	/* the object could not be read
					 * whole: said as warnings */
	size_t nerrors;
	const char *skipped;		/* not judged, and why; or NULL */
	enum cpl_severity deny_on;	/* CPL_SEV_OFF: never deny */
	const char *patch;		/* /mutate: a JSONPatch (JSON array
					 * text) sent base64 as the API server
					 * wants it, or NULL */
	const char *mutate_note;	/* /mutate: said as a first warning
					 * (not mutated, and why), or NULL */
};

/*
 * The AdmissionReview response text (JSON); *denied says whether it
 * refuses the object, *nwarnings how many warnings it carries.
 */
char *cpl_report_admission(const struct cpl_admission *a, bool *denied,
			   size_t *nwarnings);

/* A warning cut to at most max runes of UTF-8 (a "…" ends a cut one),
 * escaped; caller frees.  For tests. */
char *cpl_report_admission_clip(const char *text, size_t max);

/* text (len bytes) in standard base64 with padding; caller frees. */
char *cpl_report_base64(const char *text, size_t len);

/* The runes of a UTF-8 text (a stray byte counts as one). */
size_t cpl_report_runes(const char *s);

#endif
