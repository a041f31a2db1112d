/*
 * patch.h — applying edits to a text and writing the unified diff of
 * what changed.  Pure text: knows lines, byte columns and groups of
 * edits, nothing of findings, workloads or files on disk.
 *
 * Positions are 1-based lines and 1-based byte columns, the end
 * exclusive; an empty range is an insertion.  A line ends at '\n' (a
 * '\r' before it is an ordinary byte), so CRLF text is kept as it is and
 * a column counts bytes, also after non-ASCII text.
 *
 * Ownership: cpl_patch_apply() fills a caller-owned struct cpl_patch,
 * freed with cpl_patch_free(); the edits stay the caller's.
 */
#ifndef CPL_TEXT_PATCH_H
#define CPL_TEXT_PATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* What became of one edit (cpl_patch_edit.state, set by apply). */
enum cpl_patch_state {
	CPL_PATCH_APPLIED = 0,
	CPL_PATCH_DUPLICATE,	/* the same as an applied edit: dropped */
	CPL_PATCH_SKIPPED,	/* overlaps an applied edit, or one of its
				 * group could not be applied */
	CPL_PATCH_INVALID,	/* a position outside the text */
	CPL_PATCH_REFUSED,	/* its group was proved wrong (fixcheck.h);
				 * never set by cpl_patch_apply() */
};

/*
 * One edit: replace [line:column, end_line:end_column) with text.  Edits
 * of one group (one finding's fix) are applied all or none.
 */
struct cpl_patch_edit {
	int line;
	int column;
	int end_line;
	int end_column;
	const char *text;	/* borrowed */
	size_t group;
	enum cpl_patch_state state;	/* out */
	/* out, for an applied edit: bytes [old_off, old_end) of the old
	 * text became [new_off, new_end) of the new one. */
	size_t old_off, old_end;
	size_t new_off, new_end;
};

/*
 * A changed stretch of whole lines: bytes [old_off, old_end) of the old
 * text became [new_off, new_end) of the new one.  Both start at a line
 * start and end after a '\n' or at the end of the text.
 */
struct cpl_patch_region {
	size_t old_off, old_end;
	size_t new_off, new_end;
};

/* The result of applying edits. */
struct cpl_patch {
	char *text;		/* NUL-terminated; owned */
	size_t len;
	struct cpl_patch_region *regions;	/* in text order; owned */
	size_t nregions;
	size_t napplied;	/* edits applied (duplicates not counted) */
	size_t nskipped;	/* edits skipped or invalid */
};

/*
 * Applies edits (n of them) to text.  Groups are taken in the order of
 * their first edit in the text; a group whose edit overlaps an applied
 * one, or holds an invalid position, is skipped whole (a later pass may
 * apply it once the text is linted again).  An edit equal to an applied
 * one (same range, same text) is dropped as a duplicate.  Two insertions
 * at one point keep the order they were given in.  Sets every edit's
 * state.  The result always holds the new text (the old one when nothing
 * applied).
 */
void cpl_patch_apply(struct cpl_patch *out, const char *text, size_t len,
		     struct cpl_patch_edit *edits, size_t n);
void cpl_patch_free(struct cpl_patch *p);	/* members; NULL-safe */

/*
 * One region from the first line old and new differ in to the last (for
 * text changed by several passes of edits); false when they are equal.
 */
bool cpl_patch_span(struct cpl_patch_region *r, const char *old,
		    size_t old_len, const char *new_text, size_t new_len);

/*
 * Appends the unified diff from old to new to b: "--- a/PATH" and
 * "+++ b/PATH" (path without its "." and empty components, so without a
 * leading "./"), then @@ hunks with three lines of context, "\ No newline
 * at end of file" after a last line without one.  regions (from
 * cpl_patch_apply) say which lines differ.  Appends nothing and returns
 * 0 when there are no regions.
 *
 * Names are written as git writes them, so that GNU patch (2.7 reads
 * git's quoting) and git apply take the file and nothing else: a name
 * holding a control character, '"', '\\', DEL or a byte from 0x80 is
 * written in double quotes with C escapes (\n \t \" \\, \ooo for the
 * rest; git's core.quotePath), and a name holding a space is followed by
 * a tab.  A name holding "##[" (a command to a GitHub runner anywhere in
 * a log line) is quoted too, its '[' as \133.  A path that cannot be named so that patch -p1 and git apply,
 * run from the current directory, find that file is refused: -1 with err
 * set (its path and why) and nothing appended; that is an absolute path
 * (patch would strip its root and patch a file below the current
 * directory) and one with a ".." component (both tools refuse it).
 */
int cpl_patch_diff(struct cpl_buf *b, const char *path, const char *old,
		   size_t old_len, const char *new_text, size_t new_len,
		   const struct cpl_patch_region *regions, size_t nregions,
		   struct cpl_error *err);

#endif
