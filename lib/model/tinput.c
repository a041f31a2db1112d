/*
 * tinput.c — the Polyaxon input a template reads (tinput.h): the line
 * at the position is looked at first, so a text is parsed only when the
 * line holds a template.
 *
 * Owns nothing past a call: an index or parse made here is freed here.
 */
#include "model/tinput.h"

#include <string.h>

#include "text/lines.h"
#include "text/yamledit.h"
#include "util.h"

/* Whether c may be part of a name. */
static bool
is_word(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || c == '_' || c == '.';
}

/* The first of two c's in a row in [s, e), or NULL. */
static const char *
pair_in(const char *s, const char *e, char c)
{
	for (; s + 1 < e; s++)
		if (s[0] == c && s[1] == c)
			return s;
	return NULL;
}

/* The value node of template variable name in document root: params.NAME
 * (.value) over the inputs list's item named NAME, the inline
 * component's inputs last; NULL when none. */
static const struct cpl_yenode *
input_value(const struct cpl_yenode *root, const char *name)
{
	const struct cpl_yenode *p, *seq, *item;
	const struct cpl_yenode *docs[2];
	size_t i, d;

	p = cpl_yedit_get(cpl_yedit_get(root, "params"), name);
	if (cpl_yedit_is_map(p))
		return cpl_yedit_get(p, "value");
	docs[0] = root;
	docs[1] = cpl_yedit_get(root, "component");
	for (d = 0; d < 2; d++) {
		seq = cpl_yedit_get(docs[d], "inputs");
		for (i = 0; i < cpl_yedit_count(seq); i++) {
			item = cpl_yedit_item(seq, i);
			if (cpl_str_eq(cpl_yedit_str(cpl_yedit_get(item,
						"name")), name))
				return cpl_yedit_get(item, "value");
		}
	}
	return NULL;
}

/* The name between b and e ({{ inputs.NAME.value }} and the like) into
 * out->name; false when it is none. */
static bool
take_name(struct cpl_tinput *out, const char *b, const char *e)
{
	const char *t;
	size_t len;

	for (b += 2; b < e && *b == ' '; b++)
		;
	while (e > b && e[-1] == ' ')
		e--;
	if ((size_t)(e - b) > 7 && (strncmp(b, "inputs.", 7) == 0 ||
				    strncmp(b, "params.", 7) == 0))
		b += 7;
	if ((size_t)(e - b) > 6 && strncmp(e - 6, ".value", 6) == 0)
		e -= 6;
	len = (size_t)(e - b);
	if (len == 0 || len >= sizeof(out->name))
		return false;
	for (t = b; t < e; t++)
		if (!is_word(*t) || *t == '.')
			return false;
	memcpy(out->name, b, len);
	out->name[len] = '\0';
	return true;
}

/* The input's value node in ed, its digits at the end of the scalar,
 * into out; false when it is no plain count. */
static bool
take_value(struct cpl_tinput *out, const char *text,
	   const struct cpl_lines *l, const struct cpl_yedit *ed, size_t at)
{
	const struct cpl_yenode *n, *up, *v;
	const char *t;
	size_t end, i;

	for (n = cpl_yedit_at(ed, at); n != NULL &&
	     (up = cpl_yedit_parent(n)) != NULL; n = up)
		;
	v = input_value(n, out->name);
	if (v == NULL || cpl_yedit_str(v) == NULL ||
	    cpl_parse_long(&out->value, cpl_yedit_str(v)) < 0 ||
	    out->value < 0)
		return false;
	/* The digits end the scalar (a closing quote after them). */
	end = cpl_yedit_end(v);
	if (end > 0 && (text[end - 1] == '"' || text[end - 1] == '\''))
		end--;
	for (i = end; i > 0 && text[i - 1] >= '0' && text[i - 1] <= '9'; i--)
		;
	if (i == end)
		return false;
	out->start = i;
	out->end = end;
	cpl_lines_pos(l, i, &out->at.line, &out->at.column);
	/* Columns in code points: count the line's lead bytes. */
	out->at.column = 1;
	for (t = text + i; t > text && t[-1] != '\n'; t--)
		if (((unsigned char)t[-1] & 0xC0) != 0x80)
			out->at.column++;
	return true;
}

bool
cpl_tinput_find(struct cpl_tinput *out, const char *text, size_t len,
		const struct cpl_lines *lines, const struct cpl_yedit *ed,
		const struct cpl_pos *pos)
{
	struct cpl_lines own = { 0 };
	struct cpl_yedit *parsed = NULL;
	struct cpl_error err = { 0 };
	const char *b, *e, *eol;
	long off;
	bool ok = false;

	if (text == NULL || pos == NULL || pos->file == NULL)
		return false;
	if (lines == NULL) {
		cpl_lines_index(&own, text, len);
		lines = &own;
	}
	off = cpl_lines_offset(lines, text, len, pos->line, pos->column,
			       true);
	if (off < 0)
		goto out;
	eol = memchr(text + off, '\n', len - (size_t)off);
	if (eol == NULL)
		eol = text + len;
	b = pair_in(text + off, eol, '{');
	e = b ? pair_in(b + 2, eol, '}') : NULL;
	if (e == NULL || !take_name(out, b, e))
		goto out;
	if (ed == NULL) {
		if (cpl_yedit_open(&parsed, pos->file, text, len, &err) < 0)
			goto out;
		ed = parsed;
	}
	out->at.file = pos->file;
	ok = take_value(out, text, lines, ed, (size_t)(b - text));
out:
	cpl_error_clear(&err);
	cpl_yedit_free(parsed);
	cpl_lines_free(&own);
	return ok;
}
