/*
 * lines.c — the line index of a text (see lines.h).
 */
#include "text/lines.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void
cpl_lines_index(struct cpl_lines *l, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	size_t cap = 0;

	l->at = NULL;
	l->n = 0;
	CPL_GROW(l->at, cap, 1);
	l->at[l->n++] = 0;
	while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		p++;
		CPL_GROW(l->at, cap, l->n + 1);
		l->at[l->n++] = (size_t)(p - text);
	}
}

void
cpl_lines_free(struct cpl_lines *l)
{
	if (l == NULL)
		return;
	free(l->at);
	l->at = NULL;
	l->n = 0;
}

long
cpl_lines_offset(const struct cpl_lines *l, const char *text, size_t len,
		 int line, int column, bool chars)
{
	size_t at, end;
	int col;

	if (line < 1 || column < 1 || (size_t)line > l->n)
		return -1;
	at = l->at[line - 1];
	end = (size_t)line < l->n ? l->at[line] - 1 : len;
	if (!chars)
		return (size_t)column - 1 > end - at ? -1 :
		       (long)(at + (size_t)column - 1);
	for (col = 1; col < column; col++) {
		if (at >= end)
			return -1;
		at++;
		while (at < end && ((unsigned char)text[at] & 0xc0) == 0x80)
			at++;
	}
	return (long)at;
}

void
cpl_lines_pos(const struct cpl_lines *l, size_t off, int *line,
	      int *column)
{
	size_t lo = 0, hi = l->n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->at[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	*line = (int)lo + 1;
	*column = l->n ? (int)(off - l->at[lo]) + 1 : 1;
}

size_t
cpl_lines_len(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

	if (n > 0 && p[n - 1] == '\r')
		n--;
	return n;
}
