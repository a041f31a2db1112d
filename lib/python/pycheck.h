/*
 * pycheck.h — whether an edited Python text still reads as the original
 * but for what its edits replace: the Python side of the re-parse that
 * proves every edit of --fix (text/yamlcheck.h is the YAML side, and
 * lends its edit and result types).
 *
 * Both texts are tokenized (pytoken.h).  The edited one must tokenize
 * without error, and every token of the original that no edit touches
 * (names, numbers, strings, operators, comments) must stand in the
 * edited text at its shifted place, with the same kind and bytes; the
 * edited text may hold no other tokens but those an edit's new bytes
 * touch.  So an edit that opens a string swallowing the code after it,
 * closes a bracket early or joins two names is refused; one that
 * replaces a count or adds a helper function is not.
 *
 * Ownership: as text/yamlcheck.h.
 *
 * May include: util.h, text/ and python/.
 */
#ifndef CPL_PYTHON_PYCHECK_H
#define CPL_PYTHON_PYCHECK_H

#include <stddef.h>

#include "text/yamlcheck.h"

/* As cpl_ycheck_run(), for Python texts. */
int cpl_pycheck_run(struct cpl_ycheck_result *out, const char *old,
		    size_t olen, const char *neu, size_t nlen,
		    const struct cpl_ycheck_edit *ed, size_t ne);

#endif
