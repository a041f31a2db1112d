/*
 * lines.h — where each line of a text starts, indexed once, and the two
 * questions asked of it: the byte offset of a line and column, and the
 * line and byte column of an offset.
 *
 * Lines end at '\n' ('\r' before it is an ordinary byte of the line).
 * Lines and columns are 1-based.  Columns count bytes, or characters
 * (UTF-8 code points, as libyaml and the Python tokenizer count them)
 * when asked.
 *
 * Ownership: the index owns its array (cpl_lines_free); the text is not
 * kept, so every question that reads it is handed it again.
 *
 * May include: util.h.
 */
#ifndef CPL_TEXT_LINES_H
#define CPL_TEXT_LINES_H

#include <stdbool.h>
#include <stddef.h>

struct cpl_lines {
	size_t *at;		/* at[i]: the offset where line i + 1 starts */
	size_t n;		/* lines (at least 1 once indexed) */
};

/* Indexes text; l must be zeroed or freed before. */
void cpl_lines_index(struct cpl_lines *l, const char *text, size_t len);
void cpl_lines_free(struct cpl_lines *l);

/*
 * The offset of line:column in text (as indexed in l), or -1 when the
 * column lies past the line's end (the end itself, before its '\n', is
 * a valid place).  chars: column counts characters, not bytes.
 */
long cpl_lines_offset(const struct cpl_lines *l, const char *text,
		      size_t len, int line, int column, bool chars);

/* The length of the line at p, up to end: without its '\n' or a '\r'
 * before it. */
size_t cpl_lines_len(const char *p, const char *end);

/* The line and byte column of offset off. */
void cpl_lines_pos(const struct cpl_lines *l, size_t off, int *line,
		   int *column);

#endif
