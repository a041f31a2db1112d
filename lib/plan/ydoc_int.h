/*
 * ydoc_int.h — YAML documents as JSON trees and back, for the plan writers:
 * a user's file is read into jansson values (one per document, with the
 * line it starts on), changed there, and written out as block YAML.
 *
 * Scalars are typed as YAML 1.2's core schema types them when plain
 * (null, true/false, integers, floats); quoted scalars stay strings.  On
 * output a string that would read back as another type is quoted, so a
 * round trip keeps every value's type.  Anchors and aliases are expanded
 * (an alias is a copy of its anchor's value); tags are dropped.
 *
 * Ownership: cpl_ydoc_load fills an array the caller frees with
 * cpl_ydoc_free; cpl_ydoc_emit appends to the caller's buffer.
 *
 * May include: util.h, plan/ and system headers (libyaml, jansson).
 */
#ifndef CPL_PLAN_YDOC_H
#define CPL_PLAN_YDOC_H

#include <jansson.h>
#include <stddef.h>

#include "util.h"

/* One document: its root and the line (1-based) it starts on. */
struct cpl_ydoc {
	json_t *root;
	int line;
};

/*
 * Reads every document of text[0, len) (path names it in errors).  0, or
 * -1 with err (path:line:column) when it is not YAML; *docs is then
 * NULL.
 */
int cpl_ydoc_load(struct cpl_ydoc **docs, size_t *n, const char *path,
		  const char *text, size_t len, struct cpl_error *err);
void cpl_ydoc_free(struct cpl_ydoc *docs, size_t n);	/* NULL-safe */

/* The document that holds line (the last starting at or before it). */
const struct cpl_ydoc *cpl_ydoc_at(const struct cpl_ydoc *docs, size_t n,
				   int line);

/* Appends v as one block YAML document ("---" first when start). */
int cpl_ydoc_emit(struct cpl_buf *out, const json_t *v, bool start);

#endif
