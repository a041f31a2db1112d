/*
 * yamlfast.c — the events libyaml gives for the YAML most manifests are
 * written in, read by a line-oriented descent instead of libyaml's
 * character-at-a-time scanner (see yamlfast_int.h for the subset).
 *
 * The reader follows libyaml 0.2.5's rules where they decide an event:
 *  - a block collection's indent is the column of its first key or
 *    dash; a plain scalar goes on to the next line when that line is
 *    indented past the enclosing collection's indent and does not start
 *    a comment (so such a scalar is refused here);
 *  - a mapping value or sequence entry with nothing in it is an empty
 *    plain scalar marked just after its ':' or '-'; an empty document
 *    one marked where the next token starts;
 *  - a block scalar's indent is the widest of its leading blank lines
 *    and its first line, at least one past the enclosing indent; lines
 *    fold and chomp as yaml_parser_scan_block_scalar() does.
 * Whatever it is not sure of it refuses: every function returns -1 at
 * the first byte it does not expect, and libyaml reads the text again.
 *
 * Owns nothing past the struct cpl_yfast it fills.
 */
#include "text/yamlfast_int.h"

#include <stdlib.h>
#include <string.h>

#include "text/yamldoc.h"
#include "util.h"

/* Nesting refused past this (libyaml's builder stops at 200). */
#define MAX_DEPTH 100
/* A simple key must end within 1024 characters of its start. */
#define MAX_KEY 1000

struct mark {
	int line, column;
	size_t index;
};

/* A scalar read but not yet emitted (a key, or a value that may be). */
struct tok {
	struct mark m;
	struct mark e;		/* its end (libyaml's end_mark) */
	int style;
	bool own;
	size_t off, len;
};

struct rd {
	const char *s;
	size_t n;
	size_t p;		/* cursor */
	size_t ls;		/* where the cursor's line starts */
	int line;		/* the cursor's line, 0-based */
	int depth;
	struct cpl_yfast *f;
};

static int block_node(struct rd *r, int indent);

static inline int
ch(const struct rd *r, size_t i)
{
	return i < r->n ? (unsigned char)r->s[i] : 0;
}

/* A blank, a line end or the end of the text (libyaml's IS_BLANKZ). */
static inline bool
blankz(const struct rd *r, size_t i)
{
	int c = ch(r, i);

	return c == 0 || c == ' ' || c == '\n';
}

static inline int
col(const struct rd *r)
{
	return (int)(r->p - r->ls);
}

static inline struct mark
here(const struct rd *r)
{
	struct mark m = { r->line, col(r), r->p };

	return m;
}

static inline void
newline(struct rd *r)
{
	r->p++;
	r->line++;
	r->ls = r->p;
}

static inline bool
at_end(const struct rd *r)
{
	return r->p >= r->n;
}

/* "---" or "..." at a line's start, followed by a blank or the end. */
static bool
doc_marker(const struct rd *r, char c)
{
	return r->p == r->ls && r->p + 3 <= r->n && r->s[r->p] == c &&
	       r->s[r->p + 1] == c && r->s[r->p + 2] == c &&
	       blankz(r, r->p + 3);
}

/* The end of the text, or a line starting the next document. */
static bool
at_doc_end(const struct rd *r)
{
	return at_end(r) || doc_marker(r, '-') || doc_marker(r, '.');
}

static void
skip_spaces(struct rd *r)
{
	while (r->p < r->n && r->s[r->p] == ' ')
		r->p++;
}

/* From the cursor (at a line's start or after a blank), past blanks,
 * comments and line ends to the next content byte or the end. */
static void
skip_to_content(struct rd *r)
{
	for (;;) {
		skip_spaces(r);
		if (r->p < r->n && r->s[r->p] == '#') {
			const char *nl = memchr(r->s + r->p, '\n',
						r->n - r->p);

			r->p = nl ? (size_t)(nl - r->s) : r->n;
		}
		if (r->p >= r->n || r->s[r->p] != '\n')
			return;
		newline(r);
	}
}

/* After a token: blanks, then a comment (after a blank) or the line's
 * end, then on to the next content.  -1 for anything else on the line. */
static int
end_line(struct rd *r)
{
	size_t from = r->p;

	skip_spaces(r);
	if (ch(r, r->p) == '#' && r->p == from)
		return -1;
	if (ch(r, r->p) != '#' && ch(r, r->p) != '\n' && !at_end(r))
		return -1;
	skip_to_content(r);
	return 0;
}

static struct cpl_yfev *
emit(struct rd *r, int type, struct mark m)
{
	struct cpl_yfast *f = r->f;
	struct cpl_yfev *e;

	if (f->n == f->cap && f->sink != NULL && f->n >= CPL_YFAST_BATCH) {
		/* Every event before this one is complete: only the newest
		 * is ever changed after emit(). */
		f->sink(f->sink_ctx, f);
		f->n = 0;
	}
	if (f->n == f->cap)
		CPL_GROW(f->ev, f->cap, f->n + 1);
	e = &f->ev[f->n++];
	memset(e, 0, sizeof(*e));
	e->type = (unsigned char)type;
	e->line = e->eline = m.line;
	e->column = e->ecolumn = m.column;
	e->index = e->eindex = m.index;
	return e;
}

/* Sets e's end mark. */
static void
set_end(struct cpl_yfev *e, struct mark m)
{
	e->eline = m.line;
	e->ecolumn = m.column;
	e->eindex = m.index;
}

/* The mark end bytes on from m, on m's line. */
static struct mark
along(struct mark m, size_t end)
{
	m.column += (int)(end - m.index);
	m.index = end;
	return m;
}

static void
emit_tok(struct rd *r, const struct tok *t)
{
	struct cpl_yfev *e = emit(r, CPL_YFE_SCALAR, t->m);

	set_end(e, t->e);
	e->style = (unsigned char)t->style;
	e->own = t->own;
	e->voff = t->off;
	e->len = t->len;
}

static void
emit_empty(struct rd *r, struct mark m)
{
	emit(r, CPL_YFE_SCALAR, m)->style = CPL_YS_PLAIN;
}

static void
scratch_add(struct cpl_yfast *f, const char *s, size_t n)
{
	if (n == 0)		/* the scratch text may not exist yet */
		return;
	if (f->slen + n > f->scap)
		f->scratch = cpl_xgrow_to(f->scratch, &f->scap, f->slen + n, 1);
	memcpy(f->scratch + f->slen, s, n);
	f->slen += n;
}

static void
scratch_addc(struct cpl_yfast *f, char c, size_t times)
{
	if (times == 0)
		return;
	if (f->slen + times > f->scap)
		f->scratch = cpl_xgrow_to(f->scratch, &f->scap, f->slen + times, 1);
	memset(f->scratch + f->slen, c, times);
	f->slen += times;
}

/* ---- scalars ------------------------------------------------------- */

/* Bytes a plain scalar's scan stops at, in block and in flow context. */
static const bool stops_plain[256] = {
	[0] = true, ['\n'] = true, [':'] = true, [' '] = true,
};
static const bool stops_flow[256] = {
	[0] = true, ['\n'] = true, [':'] = true, [' '] = true, [','] = true,
	['['] = true, [']'] = true, ['{'] = true, ['}'] = true,
};

/* May a plain scalar start at i?  flow: inside [] or {}. */
static bool
plain_start(const struct rd *r, size_t i, bool flow)
{
	int c = ch(r, i), d = ch(r, i + 1);

	switch (c) {
	case 0: case '\n': case ' ': case '?': case ':': case ',': case '[':
	case ']': case '{': case '}': case '#': case '&': case '*': case '!':
	case '|': case '>': case '\'': case '"': case '%': case '@': case '`':
		return false;
	case '-':
		if (blankz(r, i + 1))
			return false;
		return !flow || (d != ',' && d != '[' && d != ']' && d != '{' &&
				 d != '}');
	default:
		return true;
	}
}

/* Does a plain scalar inside a flow collection end at the line end at
 * p?  It does when blanks, line ends and comments lead to a flow
 * indicator: then libyaml drops the blanks; anything else would go on
 * the scalar. */
static bool
flow_break_ends(const struct rd *r, size_t p)
{
	for (;;) {
		int c = ch(r, p);

		if (c == ' ' || c == '\n') {
			p++;
			continue;
		}
		if (c == '#')
			return r->s[p - 1] == ' ' || r->s[p - 1] == '\n';
		return c == ',' || c == ']' || c == '}';
	}
}

/*
 * A plain scalar at the cursor, in block context (flow false) or inside
 * a flow collection.  In block context it ends at its line's end, at a
 * comment or at a ':' followed by a blank (the scalar is then a key); in
 * a flow collection at a flow indicator too, and at a line end only when
 * blanks and comments part it from a flow indicator.  The cursor stops
 * at what ended it.  -1 (flow only) where libyaml would go on to the
 * next line or complain (':' before an indicator, the text's end).
 */
static int
plain(struct rd *r, struct tok *t, bool flow)
{
	const unsigned char *s = (const unsigned char *)r->s;
	const bool *stops = flow ? stops_flow : stops_plain;
	size_t p = r->p, end = p;

	t->m = here(r);
	for (;;) {
		int c, d;

		while (!stops[s[p]])	/* s[n] is the NUL */
			p++;
		if (p > end && s[p - 1] != ' ')
			end = p;
		c = s[p];
		if (c == 0) {
			if (flow)
				return -1;
			break;
		}
		if (c == '\n') {
			if (flow && !flow_break_ends(r, p))
				return -1;
			break;
		}
		if (c == ',' || c == '[' || c == ']' || c == '{' || c == '}')
			break;		/* only stops a flow scan */
		if (c == ':') {
			d = ch(r, p + 1);
			if (d == 0 || d == ' ' || d == '\n')
				break;
			if (flow && (d == ',' || d == '?' || d == '[' ||
				     d == ']' || d == '{' || d == '}'))
				return -1;
		}
		if (c == ' ') {
			if (ch(r, p + 1) == '#') {
				p++;
				break;
			}
			p++;
			continue;
		}
		end = ++p;
	}
	t->style = CPL_YS_PLAIN;
	t->own = false;
	t->off = t->m.index;
	t->len = end - t->m.index;
	t->e = along(t->m, end);
	r->p = p;
	return 0;
}

/* The byte a double-quoted escape stands for; -1 for the escapes left
 * to libyaml (\x, \u, \U, \N, \_, \L, \P, \/, \', \0 and line ends). */
static int
unescape(int c)
{
	switch (c) {
	case 'a': return '\a';
	case 'b': return '\b';
	case 't': return '\t';
	case 'n': return '\n';
	case 'v': return '\v';
	case 'f': return '\f';
	case 'r': return '\r';
	case 'e': return 0x1b;
	case ' ': return ' ';
	case '"': return '"';
	case '\\': return '\\';
	default: return -1;
	}
}

/* The bytes that end or escape something in a quoted scalar, single or
 * double: the rest of it is passed over a byte a test. */
static const bool stops_quoted[256] = {
	[0] = true, ['\n'] = true, ['"'] = true, ['\''] = true,
	['\\'] = true,
};

/* A quoted scalar that ends on its line; the cursor goes past it. */
static int
quoted(struct rd *r, struct tok *t)
{
	struct cpl_yfast *f = r->f;
	const unsigned char *s = (const unsigned char *)r->s;
	bool dq = r->s[r->p] == '"';
	size_t start = r->p + 1, p = start;
	bool plain = true;

	t->m = here(r);
	t->style = dq ? CPL_YS_DOUBLE : CPL_YS_SINGLE;
	for (;;) {
		int c;

		while (!stops_quoted[s[p]])	/* s[n] is the NUL */
			p++;
		c = ch(r, p);

		if (c == 0 || c == '\n')
			return -1;
		if (dq && c == '"')
			break;
		if (!dq && c == '\'') {
			if (ch(r, p + 1) != '\'')
				break;
			plain = false;
			p += 2;
			continue;
		}
		if (dq && c == '\\') {
			if (unescape(ch(r, p + 1)) < 0)
				return -1;
			plain = false;
			p += 2;
			continue;
		}
		p++;
	}
	r->p = p + 1;
	t->e = here(r);
	if (plain) {
		t->own = false;
		t->off = start;
		t->len = p - start;
		return 0;
	}
	t->own = true;
	t->off = f->slen;
	while (start < p) {
		int c = (unsigned char)r->s[start];

		if (c == '\\' && dq) {
			scratch_addc(f, (char)unescape(ch(r, start + 1)), 1);
			start += 2;
		} else if (c == '\'' && !dq) {
			scratch_addc(f, '\'', 1);
			start += 2;
		} else {
			scratch_addc(f, (char)c, 1);
			start++;
		}
	}
	t->len = f->slen - t->off;
	return 0;
}

/*
 * Does a plain scalar that ended on its line (cursor at the line end)
 * go on to the next one?  It does when the next line with content is
 * indented past indent and starts neither a comment nor a document.
 */
static bool
continues(const struct rd *r, int indent)
{
	size_t p = r->p, ls;

	if (ch(r, p) != '\n')
		return false;
	for (;;) {
		if (p >= r->n)
			return false;
		p++;			/* the line end */
		ls = p;
		while (p < r->n && r->s[p] == ' ')
			p++;
		if (p >= r->n)
			return false;
		if (r->s[p] != '\n')
			break;
	}
	if (r->s[p] == '#')
		return false;
	if (p == ls && r->n - p >= 3 &&
	    (memcmp(r->s + p, "---", 3) == 0 ||
	     memcmp(r->s + p, "...", 3) == 0) &&
	    (p + 3 == r->n || r->s[p + 3] == ' ' || r->s[p + 3] == '\n'))
		return false;
	return (int)(p - ls) > indent;
}

/* Eats a block scalar's indentation and empty lines (libyaml's
 * yaml_parser_scan_block_scalar_breaks); *breaks counts the lines and
 * *end is where the scalar ends so far: where this started, then past
 * each empty line. */
static void
block_breaks(struct rd *r, int *ind, size_t *breaks, int indent,
	     struct mark *end)
{
	int max = 0;

	*end = here(r);
	for (;;) {
		while ((*ind == 0 || col(r) < *ind) && ch(r, r->p) == ' ')
			r->p++;
		if (col(r) > max)
			max = col(r);
		if (ch(r, r->p) != '\n')
			break;
		(*breaks)++;
		newline(r);
		*end = here(r);
	}
	if (*ind == 0) {
		*ind = max;
		if (*ind < indent + 1)
			*ind = indent + 1;
		if (*ind < 1)
			*ind = 1;
	}
}

/* A literal (|) or folded (>) block scalar at the cursor; indent: the
 * enclosing collection's.  Ends at the next content. */
static int
block_scalar(struct rd *r, int indent)
{
	struct cpl_yfast *f = r->f;
	struct tok t;
	bool literal = r->s[r->p] == '|', lb = false, lblank = false;
	int chomp = 0, ind = 0;
	size_t tb = 0, from;

	t.m = here(r);
	r->p++;
	if (ch(r, r->p) == '-' || ch(r, r->p) == '+')
		chomp = r->s[r->p++] == '-' ? -1 : 1;
	from = r->p;
	skip_spaces(r);
	if (ch(r, r->p) == '#') {
		if (r->p == from)
			return -1;
		while (r->p < r->n && r->s[r->p] != '\n')
			r->p++;
	}
	if (!at_end(r) && r->s[r->p] != '\n')
		return -1;
	if (!at_end(r))
		newline(r);
	t.style = literal ? CPL_YS_LITERAL : CPL_YS_FOLDED;
	t.own = true;
	t.off = f->slen;
	block_breaks(r, &ind, &tb, indent, &t.e);
	while (col(r) == ind && !at_end(r)) {
		bool tblank = r->s[r->p] == ' ';
		const char *nl;
		size_t end;

		if (!literal && lb && !lblank && !tblank) {
			if (tb == 0)
				scratch_addc(f, ' ', 1);
		} else if (lb) {
			scratch_addc(f, '\n', 1);
		}
		lb = false;
		scratch_addc(f, '\n', tb);
		tb = 0;
		lblank = tblank;
		nl = memchr(r->s + r->p, '\n', r->n - r->p);
		end = nl ? (size_t)(nl - r->s) : r->n;
		scratch_add(f, r->s + r->p, end - r->p);
		r->p = end;
		if (at_end(r)) {
			t.e = here(r);
			break;
		}
		lb = true;
		newline(r);
		block_breaks(r, &ind, &tb, indent, &t.e);
	}
	if (chomp != -1 && lb)
		scratch_addc(f, '\n', 1);
	if (chomp == 1)
		scratch_addc(f, '\n', tb);
	t.len = f->slen - t.off;
	emit_tok(r, &t);
	skip_to_content(r);
	return 0;
}

/* ---- flow collections (on one line) ---------------------------------- */

static int flow_node(struct rd *r);

/* Inside a flow collection: past blanks, line ends and comments (a '#'
 * after a blank or at a line's start).  -1 at a '#' glued to a token and
 * at a document marker, which ends a flow in libyaml with an error. */
static int
flow_ws(struct rd *r)
{
	for (;;) {
		int c = ch(r, r->p);

		if (c == ' ') {
			r->p++;
		} else if (c == '\n') {
			newline(r);
			if (doc_marker(r, '-') || doc_marker(r, '.'))
				return -1;
		} else if (c == '#') {
			if (r->p != r->ls && r->s[r->p - 1] != ' ')
				return -1;
			while (r->p < r->n && r->s[r->p] != '\n')
				r->p++;
		} else {
			return 0;
		}
	}
}

/* The start or end event of a flow collection at its bracket: marked
 * there, ending past it. */
static void
flow_bracket(struct rd *r, int type)
{
	struct cpl_yfev *e = emit(r, type, here(r));

	e->flow = true;
	r->p++;
	set_end(e, here(r));
}

/* Before an entry of a flow collection closed by close (*first: none
 * read yet): 1 at close, 0 at the entry (past its ','), -1 else. */
static int
flow_next(struct rd *r, int close, bool *first)
{
	if (flow_ws(r) < 0)
		return -1;
	if (ch(r, r->p) == close)
		return 1;
	if (!*first) {
		if (ch(r, r->p) != ',')
			return -1;
		r->p++;
		if (flow_ws(r) < 0)
			return -1;
		if (ch(r, r->p) == close)
			return 1;
	}
	*first = false;
	return 0;
}

static int
flow_seq(struct rd *r)
{
	bool first = true;
	int rc;

	flow_bracket(r, CPL_YFE_SEQ_START);
	while ((rc = flow_next(r, ']', &first)) == 0)
		if (flow_node(r) < 0)
			return -1;
	if (rc < 0)
		return -1;
	flow_bracket(r, CPL_YFE_SEQ_END);
	return 0;
}

/* A flow mapping: each key on one line with its ':' (right after a
 * quoted key, as JSON writes it, or before a blank), each value there. */
static int
flow_map(struct rd *r)
{
	bool first = true;
	struct tok k;
	int rc;

	flow_bracket(r, CPL_YFE_MAP_START);
	while ((rc = flow_next(r, '}', &first)) == 0) {
		if (ch(r, r->p) == '"' || ch(r, r->p) == '\'') {
			if (quoted(r, &k) < 0)
				return -1;
			skip_spaces(r);
		} else if (!plain_start(r, r->p, true) ||
			   plain(r, &k, true) < 0 || !blankz(r, r->p + 1)) {
			return -1;
		}
		if (ch(r, r->p) != ':')
			return -1;
		emit_tok(r, &k);
		r->p++;
		if (flow_ws(r) < 0)
			return -1;
		if (ch(r, r->p) == ',' || ch(r, r->p) == '}')
			return -1;
		if (flow_node(r) < 0)
			return -1;
	}
	if (rc < 0)
		return -1;
	flow_bracket(r, CPL_YFE_MAP_END);
	return 0;
}

/* A node inside a flow collection; a plain one may not be a key. */
static int
flow_node(struct rd *r)
{
	struct tok t;
	int c = ch(r, r->p), rc;

	if (++r->depth > MAX_DEPTH)
		return -1;
	if (c == '[') {
		rc = flow_seq(r);
	} else if (c == '{') {
		rc = flow_map(r);
	} else if (c == '"' || c == '\'') {
		rc = quoted(r, &t);
		if (rc == 0)
			emit_tok(r, &t);
	} else if (plain_start(r, r->p, true) && plain(r, &t, true) == 0 &&
		   ch(r, r->p) != ':') {
		emit_tok(r, &t);
		rc = 0;
	} else {
		rc = -1;
	}
	r->depth--;
	return rc;
}

/* ---- block collections ------------------------------------------------ */

/* A key at the cursor: a one-line scalar followed by ':' and a blank;
 * the cursor stops at the ':'. */
static int
key(struct rd *r, struct tok *t)
{
	int c = ch(r, r->p);

	if (c == '"' || c == '\'') {
		if (quoted(r, t) < 0)
			return -1;
		skip_spaces(r);
	} else if (plain_start(r, r->p, false)) {
		(void)plain(r, t, false);
	} else {
		return -1;
	}
	if (ch(r, r->p) != ':' || !blankz(r, r->p + 1) ||
	    r->p - t->m.index > MAX_KEY)
		return -1;
	return 0;
}

static int block_seq(struct rd *r, bool indentless);

/* A mapping value on its key's line, at the cursor; c: the mapping's
 * indent.  Ends at the next content. */
static int
inline_value(struct rd *r, int c)
{
	struct tok t;
	int ch0 = ch(r, r->p);

	switch (ch0) {
	case '|': case '>':
		return block_scalar(r, c);
	case '[': case '{':
		if (++r->depth > MAX_DEPTH)
			return -1;
		if ((ch0 == '[' ? flow_seq(r) : flow_map(r)) < 0)
			return -1;
		r->depth--;
		return end_line(r);
	case '"': case '\'':
		if (quoted(r, &t) < 0)
			return -1;
		emit_tok(r, &t);
		return end_line(r);
	default:
		if (!plain_start(r, r->p, false))
			return -1;
		(void)plain(r, &t, false);
		if (ch(r, r->p) == ':' || continues(r, c))
			return -1;
		emit_tok(r, &t);
		skip_to_content(r);
		return 0;
	}
}

/* A block mapping whose first key (first) is read, the cursor at its
 * ':'.  Ends at the next content outside it. */
static int
block_map(struct rd *r, struct tok *first)
{
	int c = first->m.column;
	struct tok t = *first;

	emit(r, CPL_YFE_MAP_START, first->m);
	for (;;) {
		struct mark vm;

		emit_tok(r, &t);
		r->p++;
		vm = here(r);
		skip_spaces(r);
		if (at_end(r) || r->s[r->p] == '\n' || r->s[r->p] == '#') {
			skip_to_content(r);
			if (at_doc_end(r)) {
				emit_empty(r, vm);
			} else if (col(r) > c) {
				if (block_node(r, c) < 0)
					return -1;
			} else if (col(r) == c && r->s[r->p] == '-' &&
				   blankz(r, r->p + 1)) {
				if (block_seq(r, true) < 0)
					return -1;
			} else {
				emit_empty(r, vm);
			}
		} else if (inline_value(r, c) < 0) {
			return -1;
		}
		if (at_doc_end(r) || col(r) < c)
			break;
		if (col(r) > c || key(r, &t) < 0)
			return -1;
	}
	emit(r, CPL_YFE_MAP_END, here(r));
	return 0;
}

/* A block sequence at the cursor's dash; indentless: a mapping value
 * whose dashes stand at the mapping's indent. */
static int
block_seq(struct rd *r, bool indentless)
{
	int c = col(r);

	emit(r, CPL_YFE_SEQ_START, here(r));
	for (;;) {
		struct mark dm;

		r->p++;
		dm = here(r);
		skip_spaces(r);
		if (at_end(r) || r->s[r->p] == '\n' || r->s[r->p] == '#') {
			skip_to_content(r);
			if (at_doc_end(r) || col(r) <= c)
				emit_empty(r, dm);
			else if (block_node(r, c) < 0)
				return -1;
		} else if (block_node(r, c) < 0) {
			return -1;
		}
		if (at_doc_end(r) || col(r) < c)
			break;
		if (col(r) > c)
			return -1;
		if (r->s[r->p] != '-' || !blankz(r, r->p + 1)) {
			if (indentless)
				break;
			return -1;
		}
	}
	emit(r, CPL_YFE_SEQ_END, here(r));
	return 0;
}

/* Any block node at the cursor; indent: the enclosing collection's (-1
 * at a document's top).  Ends at the next content after it. */
static int
block_node(struct rd *r, int indent)
{
	struct tok t;
	int c = ch(r, r->p), rc = -1;

	if (++r->depth > MAX_DEPTH)
		return -1;
	switch (c) {
	case '-':
		if (blankz(r, r->p + 1)) {
			rc = block_seq(r, false);
			break;
		}
		goto plain;
	case '[': case '{':
		rc = (c == '[' ? flow_seq(r) : flow_map(r)) < 0 ? -1 :
		     end_line(r);
		break;
	case '|': case '>':
		rc = block_scalar(r, indent);
		break;
	case '"': case '\'':
		if (quoted(r, &t) < 0)
			break;
		skip_spaces(r);
		if (ch(r, r->p) == ':' && blankz(r, r->p + 1)) {
			rc = block_map(r, &t);
			break;
		}
		emit_tok(r, &t);
		rc = end_line(r);
		break;
	default:
plain:
		if (!plain_start(r, r->p, false))
			break;
		(void)plain(r, &t, false);
		if (ch(r, r->p) == ':') {
			if (r->p - t.m.index <= MAX_KEY)
				rc = block_map(r, &t);
			break;
		}
		if (continues(r, indent))
			break;
		emit_tok(r, &t);
		skip_to_content(r);
		rc = 0;
		break;
	}
	r->depth--;
	return rc;
}

/* ---- the stream --------------------------------------------------------- */

/* Only printable ASCII and line feeds are read here.  Written so that
 * compilers make it a vector loop (GCC is asked to at -O2 too). */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("tree-vectorize")))
#endif
static bool
plain_ascii(const char *text, size_t n)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i;
	unsigned char bad = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		bad |= (unsigned char)((unsigned char)(c - 0x20) > 0x5e) &
		       (unsigned char)(c != '\n');
	}
	return bad == 0;
}

/* Where libyaml marks the stream's end: the text's end, on a fresh line. */
static struct mark
stream_end(const struct rd *r)
{
	struct mark m = { r->line, (int)(r->n - r->ls), r->n };

	if (m.column != 0) {
		m.column = 0;
		m.line++;
	}
	return m;
}

int
cpl_yfast_read(struct cpl_yfast *f, const char *text, size_t len)
{
	struct rd r = { text, len, 0, 0, 0, 0, f };
	bool first = true;

	f->n = 0;
	f->slen = 0;
	if (f->cap == 0)
		CPL_GROW(f->ev, f->cap, f->sink != NULL ? CPL_YFAST_BATCH : len / 8 + 16);
	if (!plain_ascii(text, len))
		return -1;
	skip_to_content(&r);
	if (doc_marker(&r, '.'))
		return -1;
	while (!at_end(&r)) {
		struct mark m = here(&r);

		if (doc_marker(&r, '-')) {
			r.p += 3;
			if (end_line(&r) < 0)
				return -1;
		} else if (!first || r.s[r.p] == '%') {
			return -1;
		}
		emit(&r, CPL_YFE_DOC_START, m);
		if (at_end(&r)) {
			emit_empty(&r, stream_end(&r));
		} else if (doc_marker(&r, '-') || doc_marker(&r, '.')) {
			emit_empty(&r, here(&r));
		} else if (block_node(&r, -1) < 0 || !at_doc_end(&r)) {
			return -1;
		}
		emit(&r, CPL_YFE_DOC_END, here(&r));
		/* "..." ends a document; the next needs its "---". */
		while (doc_marker(&r, '.')) {
			r.p += 3;
			if (end_line(&r) < 0)
				return -1;
		}
		first = false;
	}
	emit(&r, CPL_YFE_STREAM_END, stream_end(&r));
	if (f->sink != NULL) {
		f->sink(f->sink_ctx, f);
		f->n = 0;
	}
	return 0;
}

const char *
cpl_yfast_value(const struct cpl_yfast *f, const struct cpl_yfev *e,
		const char *text)
{
	if (e->len == 0)	/* the scratch text may not exist */
		return "";
	return e->own ? f->scratch + e->voff : text + e->voff;
}

void
cpl_yfast_free(struct cpl_yfast *f)
{
	if (f == NULL)
		return;
	free(f->ev);
	free(f->scratch);
	memset(f, 0, sizeof(*f));
}
