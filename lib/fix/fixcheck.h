/*
 * fixcheck.h — applying the edits of fixes to one file, keeping only the
 * ones a re-parse proves right.
 *
 * The edits are applied as text/patch.h applies them (a group whose edit
 * overlaps an applied one waits for a later pass); for a YAML or JSON
 * file the result is then parsed again and compared with the original
 * (text/yamlcheck.h): a group whose edits would change anything but what
 * they intend is refused, with the reason, and the others are applied
 * without it.  A difference no edit explains (the text would not parse)
 * is traced by trying each group alone.  A Python file is compared token
 * by token instead (python/pycheck.h).
 *
 * Ownership: the caller owns the struct cpl_patch (cpl_patch_free) and
 * the refusals (cpl_fixcheck_free); edits stay the caller's, their
 * states set as cpl_patch_apply() sets them, CPL_PATCH_REFUSED for the
 * edits of a refused group.
 */
#ifndef CPL_FIXCHECK_H
#define CPL_FIXCHECK_H

#include <stddef.h>

#include "text/patch.h"

/* A refused group and why. */
struct cpl_fixcheck_refusal {
	size_t group;
	char *why;
};

struct cpl_fixcheck {
	struct cpl_fixcheck_refusal *v;
	size_t n, cap;
};

/* What a text is, so what proves its edits. */
enum cpl_fixcheck_lang {
	CPL_FIXCHECK_TEXT,	/* nothing: the edits as applied */
	CPL_FIXCHECK_YAML,	/* YAML or JSON: text/yamlcheck.h */
	CPL_FIXCHECK_PYTHON,	/* python/pycheck.h */
};

/* Applies edits (n) to text, written in lang, as above. */
void cpl_fixcheck_apply(struct cpl_patch *out, struct cpl_fixcheck *refused,
			const char *text, size_t len,
			enum cpl_fixcheck_lang lang,
			struct cpl_patch_edit *edits, size_t n);

void cpl_fixcheck_free(struct cpl_fixcheck *c);		/* members */

#endif
