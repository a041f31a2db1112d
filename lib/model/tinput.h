/*
 * tinput.h — the Polyaxon input or param a template {{ NAME }} reads,
 * where its value is written: CPU401 names it in its message, and the
 * split fix (fix/split.c) sets the count there.
 *
 * Ownership: nothing is kept; the text is the caller's.
 */
#ifndef CPL_TINPUT_H
#define CPL_TINPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "text/pos.h"

struct cpl_yedit;
struct cpl_lines;

/* A Polyaxon input or param that a template {{ NAME }} reads. */
struct cpl_tinput {
	char name[64];
	struct cpl_pos at;	/* where its value is written (columns in
				 * code points, as readers count them);
				 * file is pos's */
	size_t start, end;	/* the value's digits, bytes of the text */
	long value;
};

/*
 * The input or param of the same document (params over inputs, an
 * operation's inline component's inputs too) that the first {{ NAME }}
 * (inputs.NAME, params.NAME, .value) written at pos or later on its
 * line of text reads, when its value is written as a plain count; false
 * otherwise.  lines (NULL: indexed here) indexes text; ed (NULL: parsed
 * here, only when the line holds a template) is its parse for edits.
 */
bool cpl_tinput_find(struct cpl_tinput *out, const char *text, size_t len,
		     const struct cpl_lines *lines,
		     const struct cpl_yedit *ed, const struct cpl_pos *pos);

#endif
