/*
 * yamlcheck.c — comparing an edited YAML text with its original under
 * the edits that made it (yamlcheck.h).
 *
 * Both texts are parsed with libyaml into flat node arrays (indices, not
 * pointers, so growing never invalidates a link), each node with its
 * byte extent, where its content starts after an anchor or tag, its
 * resolved type and, for an alias, the node its anchor names (the last
 * one defined before it in its document).  The walk then goes down both
 * trees together; the edits, sorted by old offset, say which nodes may
 * differ.  Comparisons through aliases are strict (no edit may change
 * what an alias reads) and remembered per anchored node, so a file of
 * aliases of aliases is compared in linear time, never expanded.
 *
 * Invariant: a refusal names the group of an edit that touches the
 * node in question; a difference no edit touches is "unexplained".
 *
 * May include: util.h, its own headers and libyaml.
 */
#include "text/yamlcheck.h"

#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "text/lines.h"
#include "util.h"

#define NONE ((size_t)-1)
enum { MAX_DEPTH = 1000 };

enum ykind {
	Y_SCALAR,
	Y_SEQ,
	Y_MAP,
	Y_ALIAS,
};

/* One node of a parsed text. */
struct ynode {
	enum ykind kind;
	size_t start;		/* byte offset, an anchor or tag included */
	size_t cstart;		/* where its content starts */
	size_t end;		/* byte offset after it */
	int line;		/* 1-based, for messages */
	char *value;		/* scalars */
	size_t vlen;
	char *type;		/* scalars: resolved type; collections: an
				 * explicit tag or NULL */
	char *anchor;		/* defined here, or NULL */
	bool block;		/* a literal or folded scalar */
	size_t target;		/* aliases: the anchored node, or NONE */
	size_t *kids;		/* items; mapping: key, value, ... */
	size_t n, cap;
	size_t memo_with;	/* the last node strictly compared to */
	int memo;		/* its result: 1 equal, 0 not */
	int alias_line;		/* the first alias that reads it, or 0 */
};

/* One parsed text. */
struct ytree {
	const char *text;
	size_t len;
	struct cpl_lines lines;
	bool bom;
	struct ynode *v;
	size_t n, cap;
	size_t *docs;
	size_t ndocs, docs_cap;
	char *error;		/* why it does not parse, or NULL */
	bool c_valid;		/* offset_of()'s last mark: */
	size_t c_line, c_col, c_off;
};

/* ---- parsing ---------------------------------------------------------- */

/*
 * The byte offset of a libyaml mark (a line, and characters into it).
 * Marks come in order, so a mark on the line of the last one is walked
 * to from there, not from the line's start: a one-line JSON file of
 * thousands of nodes stays linear.
 */
static size_t
offset_of(struct ytree *t, const yaml_mark_t *m)
{
	size_t off, col;

	if (m->line >= t->lines.n)
		return t->len;
	if (m->line == t->c_line && m->column >= t->c_col && t->c_valid) {
		off = t->c_off;
		col = t->c_col;
	} else {
		off = t->lines.at[m->line];
		if (m->line == 0 && t->bom)
			off = 3;
		col = 0;
	}
	for (; col < m->column && off < t->len && t->text[off] != '\n';
	     col++) {
		off++;
		while (off < t->len && ((unsigned char)t->text[off] & 0xc0) ==
		       0x80)
			off++;
	}
	t->c_valid = true;
	t->c_line = m->line;
	t->c_col = col;
	t->c_off = off;
	return off;
}

/* Whether s (n bytes) is one of the words, '|'-separated. */
static bool
is_one_of(const char *s, size_t n, const char *words)
{
	const char *w = words, *bar;

	for (;;) {
		bar = strchr(w, '|');
		if ((size_t)(bar ? bar - w : (long)strlen(w)) == n &&
		    memcmp(w, s, n) == 0)
			return true;
		if (bar == NULL)
			return false;
		w = bar + 1;
	}
}

/* Whether [s, e) is digits (and '_') of base, at least one digit. */
static bool
digits(const char *s, const char *e, int base)
{
	bool any = false;

	for (; s < e; s++) {
		char c = *s;
		bool ok = (c >= '0' && c <= '9' && c - '0' < base) ||
			  (base == 16 && ((c >= 'a' && c <= 'f') ||
					  (c >= 'A' && c <= 'F')));

		if (c == '_')
			continue;
		if (!ok)
			return false;
		any = true;
	}
	return any;
}

/* A plain scalar's type, as YAML 1.1 resolves it (the resolution
 * Kubernetes' YAML reader and PyYAML apply). */
static const char *
plain_type(const char *s, size_t n)
{
	const char *e = s + n, *p = s, *dot, *exp;

	if (n == 0 || is_one_of(s, n, "~|null|Null|NULL"))
		return "null";
	if (is_one_of(s, n, "true|True|TRUE|false|False|FALSE|yes|Yes|YES|"
		      "no|No|NO|on|On|ON|off|Off|OFF|y|Y|n|N"))
		return "bool";
	if (*p == '-' || *p == '+')
		p++;
	if (is_one_of(p, (size_t)(e - p), ".inf|.Inf|.INF") ||
	    is_one_of(s, n, ".nan|.NaN|.NAN"))
		return "float";
	if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'b'))
		return digits(p + 2, e, p[1] == 'x' ? 16 : 2) ? "int" : "str";
	if (e - p > 1 && p[0] == '0' && digits(p + 1, e, 8))
		return "int";
	if (digits(p, e, 10))
		return "int";
	dot = memchr(p, '.', (size_t)(e - p));
	exp = NULL;
	for (const char *q = p; q < e; q++)
		if (*q == 'e' || *q == 'E')
			exp = q;
	if (dot == NULL)
		return "str";
	if (exp && exp > dot) {
		const char *x = exp + 1;

		if (x < e && (*x == '-' || *x == '+'))
			x++;
		if (!digits(x, e, 10))
			return "str";
		e = exp;
	}
	if ((dot == p || digits(p, dot, 10)) &&
	    (dot + 1 == e || digits(dot + 1, e, 10)) && !(dot == p &&
							 dot + 1 == e))
		return "float";
	return "str";
}

/* The type name of an explicit tag. */
static char *
tag_type(const char *tag)
{
	static const char core[] = "tag:yaml.org,2002:";

	if (strcmp(tag, "!") == 0)
		return cpl_xstrdup("str");
	if (strncmp(tag, core, sizeof(core) - 1) == 0)
		return cpl_xstrdup(tag + sizeof(core) - 1);
	return cpl_xstrdup(tag);
}

/* Skips an anchor and a tag (and the blanks after them) from off. */
static size_t
content_start(const struct ytree *t, size_t off, size_t end)
{
	while (off < end && (t->text[off] == '&' || t->text[off] == '!')) {
		while (off < end && !strchr(" \t\r\n", t->text[off]))
			off++;
		while (off < end && strchr(" \t\r\n", t->text[off]))
			off++;
	}
	return off;
}

static size_t
add_node(struct ytree *t, enum ykind kind, const yaml_event_t *ev,
	 const yaml_char_t *anchor)
{
	struct ynode *n;

	CPL_GROW(t->v, t->cap, t->n + 1);
	n = &t->v[t->n];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->start = offset_of(t, &ev->start_mark);
	n->end = offset_of(t, &ev->end_mark);
	n->cstart = content_start(t, n->start, n->end);
	n->line = (int)ev->start_mark.line + 1;
	n->target = NONE;
	n->memo_with = NONE;
	n->anchor = anchor ? cpl_xstrdup((const char *)anchor) : NULL;
	return t->n++;
}

static void
attach(struct ytree *t, const size_t *stack, size_t depth, size_t i)
{
	struct ynode *p;

	if (depth == 0) {
		CPL_GROW(t->docs, t->docs_cap, t->ndocs + 1);
		t->docs[t->ndocs++] = i;
		return;
	}
	p = &t->v[stack[depth - 1]];
	CPL_GROW(p->kids, p->cap, p->n + 1);
	p->kids[p->n++] = i;
}

/* Parses t->text; -1 with t->error set when it is not YAML. */
static int
parse(struct ytree *t)
{
	yaml_parser_t p;
	yaml_event_t ev;
	struct cpl_strmap anchors = { 0 };
	size_t *stack = NULL, depth = 0, scap = 0, i;
	bool done = false;
	int rc = -1;

	cpl_lines_index(&t->lines, t->text, t->len);
	t->bom = t->len >= 3 && memcmp(t->text, "\xef\xbb\xbf", 3) == 0;
	if (!yaml_parser_initialize(&p)) {
		t->error = cpl_xstrdup("cannot start the YAML parser");
		return -1;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)t->text,
				     t->len);
	while (!done) {
		if (!yaml_parser_parse(&p, &ev)) {
			t->error = cpl_xasprintf("%s at line %zu, column %zu",
						 p.problem ? p.problem :
						 "a YAML error",
						 p.problem_mark.line + 1,
						 p.problem_mark.column + 1);
			goto out;
		}
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_DOCUMENT_START_EVENT:
			cpl_strmap_free(&anchors);
			memset(&anchors, 0, sizeof(anchors));
			break;
		case YAML_SCALAR_EVENT: {
			struct ynode *n;

			i = add_node(t, Y_SCALAR, &ev,
				     ev.data.scalar.anchor);
			n = &t->v[i];
			n->vlen = ev.data.scalar.length;
			n->value = cpl_xstrndup(
				(const char *)ev.data.scalar.value, n->vlen);
			n->block = ev.data.scalar.style ==
				   YAML_LITERAL_SCALAR_STYLE ||
				   ev.data.scalar.style ==
				   YAML_FOLDED_SCALAR_STYLE;
			if (ev.data.scalar.tag)
				n->type = tag_type(
					(const char *)ev.data.scalar.tag);
			else if (ev.data.scalar.style ==
				 YAML_PLAIN_SCALAR_STYLE)
				n->type = cpl_xstrdup(plain_type(n->value,
								 n->vlen));
			else
				n->type = cpl_xstrdup("str");
			attach(t, stack, depth, i);
			if (n->anchor)
				cpl_strmap_put(&anchors, n->anchor,
					       (void *)(i + 1));
			break;
		}
		case YAML_ALIAS_EVENT: {
			size_t at = (size_t)cpl_strmap_get(&anchors,
				(const char *)ev.data.alias.anchor);

			i = add_node(t, Y_ALIAS, &ev, NULL);
			t->v[i].target = at ? at - 1 : NONE;
			if (at && t->v[at - 1].alias_line == 0)
				t->v[at - 1].alias_line = t->v[i].line;
			attach(t, stack, depth, i);
			break;
		}
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT: {
			const yaml_char_t *anchor = ev.type ==
				YAML_MAPPING_START_EVENT ?
				ev.data.mapping_start.anchor :
				ev.data.sequence_start.anchor;
			const yaml_char_t *tag = ev.type ==
				YAML_MAPPING_START_EVENT ?
				ev.data.mapping_start.tag :
				ev.data.sequence_start.tag;

			if (depth >= MAX_DEPTH) {
				t->error = cpl_xstrdup("nested too deep");
				yaml_event_delete(&ev);
				goto out;
			}
			i = add_node(t, ev.type == YAML_MAPPING_START_EVENT ?
				     Y_MAP : Y_SEQ, &ev, anchor);
			if (tag)
				t->v[i].type = tag_type((const char *)tag);
			attach(t, stack, depth, i);
			if (t->v[i].anchor)
				cpl_strmap_put(&anchors, t->v[i].anchor,
					       (void *)(i + 1));
			CPL_GROW(stack, scap, depth + 1);
			stack[depth++] = i;
			break;
		}
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			if (depth > 0) {
				struct ynode *n = &t->v[stack[--depth]];
				size_t e = offset_of(t, &ev.end_mark);

				if (e > n->end)
					n->end = e;
			}
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	rc = 0;
out:
	yaml_parser_delete(&p);
	cpl_strmap_free(&anchors);
	free(stack);
	return rc;
}

static void
tree_free(struct ytree *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->v[i].value);
		free(t->v[i].type);
		free(t->v[i].anchor);
		free(t->v[i].kids);
	}
	free(t->v);
	free(t->docs);
	free(t->error);
	cpl_lines_free(&t->lines);
}

/* ---- comparing -------------------------------------------------------- */

/* The walk: both trees, the edits by old offset, what each edit did. */
struct ycheck_walk {
	struct ytree *o, *n;
	const struct cpl_ycheck_edit *ed;
	size_t ne;
	size_t *by_old;		/* edit indices sorted by old_off */
	bool *used;		/* per edit: a node accounted for it */
	struct cpl_ycheck_result *out;
};

/* An edit's place, for sorting by old offset (applied edits do not
 * overlap, so that is their order in the new text too). */
struct place {
	size_t off, end, index;
};

static int
place_cmp(const void *a, const void *b)
{
	const struct place *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The first position in by_old whose edit ends after off (or starts at
 * it: an insertion there). */
static size_t
first_edit(const struct ycheck_walk *w, size_t off)
{
	size_t lo = 0, hi = w->ne;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct cpl_ycheck_edit *e = &w->ed[w->by_old[mid]];

		if (e->old_off < off && e->old_end <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether edit e touches old bytes [s, end): overlaps them, or inserts
 * strictly inside. */
static bool
touches(const struct cpl_ycheck_edit *e, size_t s, size_t end)
{
	if (e->old_off == e->old_end)
		return e->old_off > s && e->old_off < end;
	return e->old_off < end && e->old_end > s;
}

void
cpl_ycheck_result_free(struct cpl_ycheck_result *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->n; i++)
		free(r->v[i].why);
	free(r->v);
	free(r->unexplained);
	memset(r, 0, sizeof(*r));
}

const char *
cpl_ycheck_why(const struct cpl_ycheck_result *r, size_t group)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->v[i].group == group)
			return r->v[i].why;
	return NULL;
}

/* Refuses group (its first reason is kept). */
static void
refuse(struct ycheck_walk *w, size_t group, char *why)
{
	struct cpl_ycheck_result *r = w->out;

	if (cpl_ycheck_why(r, group) != NULL) {
		free(why);
		return;
	}
	CPL_GROW(r->v, r->cap, r->n + 1);
	r->v[r->n].group = group;
	r->v[r->n].why = why;
	r->n++;
}

/* Refuses every group with an edit touching old bytes [s, end); false
 * when none does (the caller then says the difference is unexplained). */
static bool
refuse_in(struct ycheck_walk *w, size_t s, size_t end, const char *why)
{
	size_t k;
	bool any = false;

	for (k = first_edit(w, s); k < w->ne; k++) {
		const struct cpl_ycheck_edit *e = &w->ed[w->by_old[k]];

		if (e->old_off > end)
			break;
		if (!touches(e, s, end) &&
		    !(e->old_off == e->old_end && e->old_off == end))
			continue;
		w->used[w->by_old[k]] = true;
		refuse(w, e->group, cpl_xstrdup(why));
		any = true;
	}
	return any;
}

static void
unexplained(struct ycheck_walk *w, char *why)
{
	if (w->out->unexplained == NULL)
		w->out->unexplained = why;
	else
		free(why);
}

/* The node an alias reads (itself for anything else); NONE when its
 * anchor is unknown. */
static size_t
resolve(const struct ytree *t, size_t i)
{
	size_t hops = 0;

	while (i != NONE && t->v[i].kind == Y_ALIAS && hops++ < t->n)
		i = t->v[i].target;
	return i;
}

/* Strict equality of what two nodes mean (no edit may change it). */
static bool
same(struct ycheck_walk *w, size_t a, size_t b, int depth)
{
	struct ynode *x, *y;
	size_t i;
	bool eq;

	a = resolve(w->o, a);
	b = resolve(w->n, b);
	if (a == NONE || b == NONE || depth > MAX_DEPTH)
		return false;
	x = &w->o->v[a];
	y = &w->n->v[b];
	if (x->memo_with == b)
		return x->memo == 1;
	eq = x->kind == y->kind && cpl_str_eq(x->type, y->type) &&
	     x->n == y->n;
	if (eq && x->kind == Y_SCALAR)
		eq = x->vlen == y->vlen &&
		     memcmp(x->value, y->value, x->vlen) == 0;
	for (i = 0; eq && i < x->n; i++)
		eq = same(w, w->o->v[a].kids[i], w->n->v[b].kids[i],
			  depth + 1);
	w->o->v[a].memo_with = b;
	w->o->v[a].memo = eq;
	return eq;
}

/* A short, printable form of a value for messages (escaped). */
static char *
shown(const char *s, size_t n)
{
	struct cpl_buf b;
	size_t i;

	cpl_buf_init(&b, 0);
	cpl_buf_addc(&b, '"');
	for (i = 0; i < n && i < 40; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n')
			cpl_buf_adds(&b, "\\n");
		else if (c == '"' || c == '\\')
			cpl_buf_addf(&b, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			cpl_buf_addf(&b, "\\x%02x", c);
		else
			cpl_buf_addc(&b, (char)c);
	}
	if (n > 40)
		cpl_buf_adds(&b, "...");
	cpl_buf_addc(&b, '"');
	return cpl_buf_detach(&b);
}

/* The value and type a replacement text spells as a scalar alone, or -1
 * when it is not one scalar. */
static int
spelled(const char *text, size_t len, char **value, size_t *vlen,
	char **type)
{
	struct ytree t = { 0 };
	int rc = -1;

	t.text = text;
	t.len = len;
	if (parse(&t) == 0 && t.ndocs == 1 && t.v[t.docs[0]].kind ==
	    Y_SCALAR) {
		*vlen = t.v[t.docs[0]].vlen;
		*value = cpl_xstrndup(t.v[t.docs[0]].value, *vlen);
		*type = cpl_xstrdup(t.v[t.docs[0]].type);
		rc = 0;
	}
	tree_free(&t);
	return rc;
}

/*
 * The old value with the edits' bytes replaced, each at the latest
 * place in the value at or before its place in the source (quotes,
 * escapes, indentation and folding only ever make the source longer).
 * NULL when an edit's old bytes are not in the value: it edited syntax
 * (a block indicator, an escape, a quote), not content.
 */
static char *
substituted(struct ycheck_walk *w, const struct ynode *x, const size_t *ks,
	    size_t nk, size_t *len)
{
	struct cpl_buf b;
	size_t pos = 0, k;

	cpl_buf_init(&b, 0);
	for (k = 0; k < nk; k++) {
		const struct cpl_ycheck_edit *e = &w->ed[ks[k]];
		const char *o = w->o->text + e->old_off;
		size_t ol = e->old_end - e->old_off;
		size_t rel = e->old_off > x->cstart ? e->old_off - x->cstart :
			     0, at = NONE, j;

		for (j = pos; j + ol <= x->vlen && j <= rel; j++)
			if (memcmp(x->value + j, o, ol) == 0)
				at = j;
		if (at == NONE) {
			cpl_buf_free(&b);
			return NULL;
		}
		cpl_buf_add(&b, x->value + pos, at - pos);
		cpl_buf_add(&b, w->n->text + e->new_off,
			    e->new_end - e->new_off);
		pos = at + ol;
	}
	cpl_buf_add(&b, x->value + pos, x->vlen - pos);
	*len = b.len;
	return cpl_buf_detach(&b);
}

/* The end of a scalar's content: its end less the line ends and blanks
 * a block scalar's end takes in. */
static size_t
content_end(const struct ytree *t, const struct ynode *x)
{
	size_t e = x->end;

	while (e > x->cstart && strchr(" \t\r\n", t->text[e - 1]))
		e--;
	return e;
}

/* A scalar (or alias) o that edits touch, against the new node n. */
static void
edited_scalar(struct ycheck_walk *w, size_t o, size_t n, const size_t *ks,
	      size_t nk)
{
	const struct ynode *x = &w->o->v[o], *y = &w->n->v[n];
	const struct ynode *xr;
	const struct cpl_ycheck_edit *e0 = &w->ed[ks[0]];
	size_t ro = resolve(w->o, o), k, vlen = 0;
	char *want = NULL, *type = NULL, *why = NULL, *a = NULL, *b = NULL;
	bool whole = nk == 1 && e0->old_off <= x->cstart &&
		     e0->old_end >= content_end(w->o, x);

	for (k = 0; k < nk; k++)
		w->used[ks[k]] = true;
	if (ro == NONE || y->kind != Y_SCALAR) {
		why = cpl_xasprintf("the edit at line %d would not leave a "
				    "plain value there", x->line);
		goto refuse;
	}
	xr = &w->o->v[ro];
	if (x->kind == Y_SCALAR && x->anchor && x->alias_line > 0) {
		why = cpl_xasprintf("the value at line %d is anchored as &%s "
				    "and read again at line %d (*%s): the "
				    "edit would change it there too",
				    x->line, x->anchor, x->alias_line,
				    x->anchor);
		goto refuse;
	}
	if (whole) {
		/* An anchor or tag before the replaced content stays. */
		size_t from = e0->old_off > x->start ? x->start : e0->old_off;
		struct cpl_buf t;

		cpl_buf_init(&t, 0);
		cpl_buf_add(&t, w->o->text + from, e0->old_off - from);
		cpl_buf_add(&t, w->n->text + e0->new_off,
			    e0->new_end - e0->new_off);
		if (spelled(t.data ? t.data : "", t.len, &want, &vlen,
			    &type) < 0) {
			cpl_buf_free(&t);
			why = cpl_xasprintf("the replacement at line %d is "
					    "not one YAML value", x->line);
			goto refuse;
		}
		cpl_buf_free(&t);
	} else if (x->kind == Y_SCALAR) {
		want = substituted(w, x, ks, nk, &vlen);
		if (want == NULL) {
			why = cpl_xasprintf("the edit at line %d would change "
					    "the %s's syntax, not its value",
					    x->line, x->block ?
					    "block scalar" : "value");
			goto refuse;
		}
		type = cpl_xstrdup(xr->type);
	} else {
		why = cpl_xasprintf("the edit at line %d replaces part of "
				    "an alias", x->line);
		goto refuse;
	}
	if (!cpl_str_eq(y->type, xr->type) || !cpl_str_eq(type, xr->type)) {
		why = cpl_xasprintf("the edit at line %d would change the "
				    "value's type from %s to %s", x->line,
				    xr->type, cpl_str_eq(y->type, xr->type) ?
				    type : y->type);
		goto refuse;
	}
	if (y->vlen != vlen || memcmp(y->value, want, vlen) != 0) {
		a = shown(y->value, y->vlen);
		b = shown(want, vlen);
		why = cpl_xasprintf("the edit at line %d would give %s, not "
				    "%s", x->line, a, b);
		goto refuse;
	}
	goto out;
refuse:
	for (k = 0; k < nk; k++)
		refuse(w, w->ed[ks[k]].group, cpl_xstrdup(why));
out:
	free(why);
	free(want);
	free(type);
	free(a);
	free(b);
}

/* The edit (index) whose inserted text holds new byte off, or NONE: the
 * last edit starting at or before it, found by halving. */
static size_t
insertion_at(struct ycheck_walk *w, size_t off)
{
	size_t lo = 0, hi = w->ne, k;
	const struct cpl_ycheck_edit *e;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->ed[w->by_old[mid]].new_off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* New ranges do not overlap; empty ones may share a start. */
	for (k = lo; k-- > 0;) {
		e = &w->ed[w->by_old[k]];
		if (e->old_off == e->old_end && off < e->new_end) {
			w->used[w->by_old[k]] = true;
			return w->by_old[k];
		}
		if (e->new_off != e->new_end)
			return NONE;
	}
	return NONE;
}

/* Whether scalar node key's text is a key that mapping m (old) takes
 * from a merge key (<<: *base, or a list of bases). */
static bool
merged_key(struct ycheck_walk *w, const struct ynode *m, const struct ynode *key)
{
	size_t i, j, k;

	if (key->kind != Y_SCALAR)
		return false;
	for (i = 0; i + 1 < m->n; i += 2) {
		const struct ynode *mk = &w->o->v[m->kids[i]];
		size_t v = resolve(w->o, m->kids[i + 1]);
		const struct ynode *bases;
		size_t nb;

		if (mk->kind != Y_SCALAR || mk->vlen != 2 ||
		    memcmp(mk->value, "<<", 2) != 0 || v == NONE)
			continue;
		bases = &w->o->v[v];
		nb = bases->kind == Y_SEQ ? bases->n : 1;
		for (j = 0; j < nb; j++) {
			size_t b = bases->kind == Y_SEQ ?
				   resolve(w->o, bases->kids[j]) : v;
			const struct ynode *bm = b == NONE ? NULL :
						 &w->o->v[b];

			for (k = 0; bm && bm->kind == Y_MAP && k + 1 < bm->n;
			     k += 2) {
				const struct ynode *bk = &w->o->v[bm->kids[k]];

				if (bk->kind == Y_SCALAR &&
				    bk->vlen == key->vlen &&
				    memcmp(bk->value, key->value,
					   key->vlen) == 0)
					return true;
			}
		}
	}
	return false;
}

/* Whether the new kid at j of new collection n was inserted; an
 * inserted key that hides a merged one is refused. */
static bool
inserted(struct ycheck_walk *w, const struct ynode *x, size_t n, size_t j)
{
	const struct ynode *kid = &w->n->v[w->n->v[n].kids[j]];
	size_t e = insertion_at(w, kid->start);
	char *why;

	if (e == NONE)
		return false;
	if (x->kind == Y_MAP && merged_key(w, x, kid)) {
		why = cpl_xasprintf("the mapping at line %d takes %.*s from a "
				    "merge key (<<): adding it there would "
				    "hide the merged value", x->line,
				    (int)kid->vlen, kid->value);
		refuse(w, w->ed[e].group, why);
	}
	return true;
}

static void compare(struct ycheck_walk *w, size_t o, size_t n, int depth);

/* Two collections of one kind: the new one's kids less those an
 * insertion added must pair with the old one's, in order. */
static void
collections(struct ycheck_walk *w, size_t o, size_t n, int depth)
{
	const struct ynode *x = &w->o->v[o];
	size_t step = x->kind == Y_MAP ? 2 : 1, i, j = 0, nn = w->n->v[n].n;
	char *why;

	if (!cpl_str_eq(x->type, w->n->v[n].type)) {
		why = cpl_xasprintf("the edit would change the tag of the "
				    "collection at line %d", x->line);
		goto differ;
	}
	for (i = 0; i < x->n; i += step) {
		while (j < nn && inserted(w, x, n, j))
			j += step;
		if (j >= nn)
			break;
		if (step == 2) {
			if (!same(w, x->kids[i], w->n->v[n].kids[j], depth)) {
				why = cpl_xasprintf("the edit would change "
						    "the key at line %d",
						    w->o->v[x->kids[i]].line);
				goto differ;
			}
			compare(w, x->kids[i + 1], w->n->v[n].kids[j + 1],
				depth + 1);
		} else {
			compare(w, x->kids[i], w->n->v[n].kids[j], depth + 1);
		}
		j += step;
	}
	while (j < nn && inserted(w, x, n, j))
		j += step;
	if (i >= x->n && j >= nn)
		return;
	why = cpl_xasprintf("the edit would remove or reorder what the %s "
			    "at line %d holds", x->kind == Y_MAP ? "mapping" :
			    "list", x->line);
differ:
	if (!refuse_in(w, x->start, x->end, why))
		unexplained(w, cpl_xstrdup(why));
	free(why);
}

static void
compare(struct ycheck_walk *w, size_t o, size_t n, int depth)
{
	const struct ynode *x = &w->o->v[o];
	size_t k, nk = 0, kcap = 0, *ks = NULL;
	char *why = NULL;

	if (depth > MAX_DEPTH) {
		unexplained(w, cpl_xstrdup("nested too deep to compare"));
		return;
	}
	if (x->kind == Y_SCALAR || x->kind == Y_ALIAS) {
		for (k = first_edit(w, x->start); k < w->ne; k++) {
			const struct cpl_ycheck_edit *e =
				&w->ed[w->by_old[k]];

			if (e->old_off >= x->end)
				break;
			if (touches(e, x->start, x->end)) {
				CPL_GROW(ks, kcap, nk + 1);
				ks[nk++] = w->by_old[k];
			}
		}
		if (nk > 0) {
			edited_scalar(w, o, n, ks, nk);
			free(ks);
			return;
		}
		if (same(w, o, n, depth))
			return;
		if (x->kind == Y_ALIAS && x->target != NONE) {
			const struct ynode *t = &w->o->v[x->target];

			why = cpl_xasprintf("the value at line %d is anchored "
					    "as &%s and read again at line %d "
					    "(*%s): the edit would change it "
					    "there too", t->line, t->anchor,
					    x->line, t->anchor);
			if (refuse_in(w, t->start, t->end, why))
				goto out;
		} else {
			why = cpl_xasprintf("the value at line %d would "
					    "change", x->line);
		}
		unexplained(w, why);
		return;
	}
	if (w->n->v[n].kind != x->kind) {
		why = cpl_xasprintf("the edit would replace the %s at line %d",
				    x->kind == Y_MAP ? "mapping" : "list",
				    x->line);
		if (!refuse_in(w, x->start, x->end, why))
			unexplained(w, cpl_xstrdup(why));
		goto out;
	}
	if (x->anchor && x->alias_line > 0 && !same(w, o, n, depth)) {
		why = cpl_xasprintf("the %s at line %d is anchored as &%s and "
				    "read again at line %d (*%s): the edit "
				    "would change it there too",
				    x->kind == Y_MAP ? "mapping" : "list",
				    x->line, x->anchor, x->alias_line,
				    x->anchor);
		if (!refuse_in(w, x->start, x->end, why))
			unexplained(w, cpl_xstrdup(why));
		goto out;
	}
	collections(w, o, n, depth);
out:
	free(why);
}

int
cpl_ycheck_run(struct cpl_ycheck_result *out, const char *old, size_t olen,
	       const char *neu, size_t nlen,
	       const struct cpl_ycheck_edit *ed, size_t ne)
{
	struct ytree to = { 0 }, tn = { 0 };
	struct ycheck_walk w = { &to, &tn, ed, ne, NULL, NULL, out };
	struct place *places;
	size_t i;

	memset(out, 0, sizeof(*out));
	to.text = old;
	to.len = olen;
	tn.text = neu;
	tn.len = nlen;
	if (parse(&to) < 0) {
		out->unexplained = cpl_xasprintf("the original does not "
						 "parse: %s", to.error);
		goto out;
	}
	if (parse(&tn) < 0) {
		out->unexplained = cpl_xasprintf("the edited text would not "
						 "parse: %s", tn.error);
		goto out;
	}
	w.by_old = cpl_xcalloc(ne ? ne : 1, sizeof(*w.by_old));
	w.used = cpl_xcalloc(ne ? ne : 1, sizeof(*w.used));
	places = cpl_xcalloc(ne ? ne : 1, sizeof(*places));
	for (i = 0; i < ne; i++)
		places[i] = (struct place){ ed[i].old_off, ed[i].old_end, i };
	qsort(places, ne, sizeof(*places), place_cmp);
	for (i = 0; i < ne; i++)
		w.by_old[i] = places[i].index;
	free(places);
	if (to.ndocs != tn.ndocs) {
		out->unexplained = cpl_xstrdup("the edit would change the "
					       "number of documents");
		goto out;
	}
	for (i = 0; i < to.ndocs; i++)
		compare(&w, to.docs[i], tn.docs[i], 0);
	for (i = 0; i < ne; i++)
		if (!w.used[i])
			refuse(&w, ed[i].group, cpl_xasprintf(
				"the edit at byte %zu changes no value",
				ed[i].old_off));
out:
	free(w.by_old);
	free(w.used);
	tree_free(&to);
	tree_free(&tn);
	return out->n > 0 || out->unexplained != NULL;
}
