/*
 * tmpl.c — template actions outside strings (see tmpl.h).
 *
 * Two views of one question.  A parsed tree answers it exactly: only a
 * template action makes YAML start a mapping with `{{`.  Text that did
 * not parse is read line by line with just enough YAML to know where a
 * node starts: quotes (which may span lines), comments, flow brackets and
 * block scalars (whose lines are text, whatever they hold).
 */
#include "text/tmpl.h"

#include <string.h>

/* Visits allowed per stream: an alias-heavy DAG stops here, unreported. */
#define MAX_VISITS ((size_t)CPL_YAML_MAX_NODES)

/* Whether the source text at a node starts a template action. */
static bool
starts_action(const char *src, size_t len, const struct cpl_ynode *n)
{
	return n->offset + 1 < len && src[n->offset] == '{' &&
	       src[n->offset + 1] == '{';
}

static bool
visit(const char *src, size_t len, const struct cpl_ynode *n,
      size_t *budget, const struct cpl_ynode **hit)
{
	size_t i;

	if (n == NULL || *budget == 0)
		return false;
	(*budget)--;
	if (n->kind == CPL_Y_MAP) {
		if (starts_action(src, len, n)) {
			*hit = n;
			return true;
		}
		for (i = 0; i < n->count; i++)
			if (visit(src, len, n->pairs[i].key, budget, hit) ||
			    visit(src, len, n->pairs[i].value, budget, hit))
				return true;
	} else if (n->kind == CPL_Y_SEQ) {
		for (i = 0; i < n->count; i++)
			if (visit(src, len, n->items[i], budget, hit))
				return true;
	}
	return false;
}

/* s[0, len) holds "{{" (memchr, which is vectorised, finds each '{';
 * memmem costs several times as much on text that has none). */
static bool
has_open(const char *s, size_t len)
{
	const char *p = s, *end = s + len;

	while (p + 1 < end && (p = memchr(p, '{', (size_t)(end - p - 1))) !=
	       NULL) {
		if (p[1] == '{')
			return true;
		p++;
	}
	return false;
}

bool
cpl_tmpl_in_stream(const struct cpl_ystream *s, int *line, int *column)
{
	size_t len, i, n = cpl_ystream_count(s), budget = MAX_VISITS;
	const char *src = cpl_ystream_source(s, &len);
	const struct cpl_ynode *hit = NULL;

	if (src == NULL || !has_open(src, len))
		return false;
	for (i = 0; i < n; i++) {
		if (visit(src, len, cpl_ystream_doc(s, i), &budget, &hit)) {
			*line = hit->line;
			*column = hit->column;
			return true;
		}
	}
	return false;
}

/* Reading state carried from line to line. */
struct tmpl_scan {
	char quote;		/* inside a '…' or "…" scalar, or 0 */
	int flow;		/* depth of [ and { */
	bool block;		/* the lines below are a block scalar's */
	int block_indent;	/* … while more indented than this */
};

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* A block scalar indicator (| or >, then chomping and indent digits)
 * with nothing after it but a comment. */
static bool
block_indicator(const char *p, const char *eol)
{
	if (p >= eol || (*p != '|' && *p != '>'))
		return false;
	for (p++; p < eol && (*p == '-' || *p == '+' ||
			      (*p >= '1' && *p <= '9')); p++)
		;
	while (p < eol && is_space(*p))
		p++;
	return p == eol || *p == '#';
}

/*
 * Reads one line's content [p, eol) from column 1 at line; 1-based
 * column of an action at a node start in *col.  Updates the state.
 */
static bool
scan_line(struct tmpl_scan *st, const char *line, const char *p,
	  const char *eol, int *col)
{
	bool node = true;	/* a node may start here */

	for (; p < eol; p++) {
		char c = *p;

		if (st->quote) {
			if (c == '\\' && st->quote == '"' && p + 1 < eol)
				p++;
			else if (c == st->quote && st->quote == '\'' &&
				 p + 1 < eol && p[1] == '\'')
				p++;
			else if (c == st->quote)
				st->quote = 0;
			continue;
		}
		if (is_space(c))
			continue;
		if (c == '#' && (p == line || is_space(p[-1])))
			return false;	/* a comment to the end of the line */
		if (node && c == '{' && p + 1 < eol && p[1] == '{') {
			*col = (int)(p - line) + 1;
			return true;
		}
		if (node && (c == '"' || c == '\'')) {
			st->quote = c;
			node = false;
		} else if (node && (c == '-' || c == '?') &&
			   (p + 1 == eol || is_space(p[1]))) {
			/* a sequence entry or complex key: a node follows */
		} else if (node && block_indicator(p, eol)) {
			st->block = true;
			return false;
		} else if (node && (c == '[' || c == '{')) {
			st->flow++;
		} else if (st->flow > 0 && (c == ']' || c == '}')) {
			st->flow--;
			node = false;
		} else if (st->flow > 0 && c == ',') {
			node = true;
		} else if (c == ':' && (p + 1 == eol || is_space(p[1]) ||
					(st->flow > 0 && (p[1] == ',' ||
							  p[1] == ']' ||
							  p[1] == '}')))) {
			node = true;
		} else {
			node = false;	/* inside a plain scalar */
		}
	}
	return false;
}

bool
cpl_tmpl_in_text(const char *text, size_t len, int *line, int *column)
{
	struct tmpl_scan st = { 0 };
	const char *p = text, *end = text + len;
	int ln = 1;

	if (!has_open(text, len))
		return false;
	for (; p < end; ln++) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *q = p;
		int indent;

		if (eol == NULL)
			eol = end;
		while (q < eol && *q == ' ')
			q++;
		indent = (int)(q - p);
		while (q < eol && is_space(*q))
			q++;
		if (st.block && !st.quote) {
			if (q == eol || indent > st.block_indent) {
				p = eol + 1;
				continue;
			}
			st.block = false;
		}
		if (scan_line(&st, p, q, eol, column)) {
			*line = ln;
			return true;
		}
		if (st.block)
			st.block_indent = indent;
		p = eol + 1;
	}
	return false;
}
