/*
 * yamledit.c — style-following insertions into YAML and JSON text.
 *
 * Owns a second, edit-time parse of a source (libyaml events) into a tree
 * of nodes that know their byte extent and block/flow style, and the
 * rendering of struct cpl_yval trees in the style found beside the
 * insertion point.  Invariant: it only ever inserts; the bytes of the
 * source are never rewritten, so comments, key order, quoting and
 * indentation elsewhere survive any merge.
 *
 * May include: util.h, its own headers and libyaml.
 */
#include "text/yamledit.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "text/lines.h"
#include "text/yamldoc.h"
#include "text/yamlfast_int.h"

/* Inserted text is capped like any other string the tool builds. */
#define MAX_INSERT (1u << 20)

enum nkind {
	N_SCALAR,
	N_SEQ,
	N_MAP,
};

/* A node: 64 bytes (a large file is millions of them); offsets and
 * counts are 32-bit, as a text past 4 GiB is refused. */
struct cpl_yenode {
	enum nkind kind : 8;
	bool flow;				/* [..] or {..} */
	yaml_scalar_style_t sstyle : 8;		/* scalars */
	bool aliased;			/* it has an anchor (written at its
					 * start) that an alias reads */
	int line, column;		/* libyaml's, 1-based (characters) */
	uint32_t start;			/* byte offset of the node */
	uint32_t end;			/* byte offset after its content */
	uint32_t n, cap;		/* kids */
	char *value;			/* scalars; NULL for aliases */
	struct cpl_yenode **kids;	/* seq items; map key, value, ... */
	struct cpl_yenode *parent;
	const char *key;		/* a mapping value's key text */
};
/* A file's edit parse holds a node per value: keep them small. */
_Static_assert(sizeof(struct cpl_yenode) <= 64, "a yedit node grew");

struct cpl_yedit {
	char *src;
	size_t len;
	struct cpl_lines lines;		/* where each line starts */
	struct cpl_yenode **docs;
	size_t ndocs, docs_cap;
	struct cpl_yenode **all;	/* every node, for find and free */
	size_t nall, all_cap;
	bool crlf;
	bool json;			/* the file is JSON: every key and
					 * string double-quoted */
	int step, seqoff;		/* block_steps(), found once */
	struct {			/* mark_offset()'s last answer */
		size_t line, column, off;
	} mark;
};

/* ---- parsing ---------------------------------------------------------- */

static void block_steps(struct cpl_yedit *ed);

/* Byte offset of a libyaml mark (line, then characters into it).  Marks
 * come mostly in order, so the walk along a line starts from the last
 * mark's offset when it is on the same line and not past this one: on a
 * file of one long line (minified JSON) each character is walked once,
 * not once per node. */
static size_t
mark_offset(struct cpl_yedit *ed, const yaml_mark_t *m)
{
	size_t off, col;

	if (m->line >= ed->lines.n)
		return ed->len;
	if (ed->mark.line == m->line && ed->mark.column <= m->column &&
	    ed->mark.off > 0) {
		off = ed->mark.off;
		col = ed->mark.column;
	} else {
		off = ed->lines.at[m->line];
		if (m->line == 0 && ed->len >= 3 &&
		    memcmp(ed->src, "\xef\xbb\xbf", 3) == 0)
			off = 3;
		col = 0;
	}
	for (; col < m->column && off < ed->len &&
	     ed->src[off] != '\n'; col++) {
		off++;
		while (off < ed->len &&
		       ((unsigned char)ed->src[off] & 0xc0) == 0x80)
			off++;
	}
	ed->mark.line = m->line;
	ed->mark.column = col;
	ed->mark.off = off;
	return off;
}

/* A node at a libyaml start mark, ending at byte end. */
static struct cpl_yenode *
new_node(struct cpl_yedit *ed, enum nkind kind, const yaml_mark_t *start,
	 size_t end)
{
	struct cpl_yenode *n = cpl_xcalloc(1, sizeof(*n));

	n->kind = kind;
	n->line = (int)start->line + 1;
	n->column = (int)start->column + 1;
	n->start = (uint32_t)mark_offset(ed, start);
	n->end = (uint32_t)end;
	CPL_GROW(ed->all, ed->all_cap, ed->nall + 1);
	ed->all[ed->nall++] = n;
	return n;
}

/* Attaches n to the open collection top (or makes it a root). */
static void
attach(struct cpl_yedit *ed, struct cpl_yenode *top, struct cpl_yenode *n)
{
	if (top == NULL) {
		CPL_GROW(ed->docs, ed->docs_cap, ed->ndocs + 1);
		ed->docs[ed->ndocs++] = n;
		return;
	}
	if (top->kind == N_MAP && top->n % 2 == 1)
		n->key = top->kids[top->n - 1]->value;
	n->parent = top;
	if (top->n == top->cap) {
		size_t cap = top->cap;

		CPL_GROW(top->kids, cap, (size_t)top->n + 1);
		top->cap = (uint32_t)cap;
	}
	top->kids[top->n++] = n;
}

/* Where a block collection's content ends: its last descendant's end. */
static void
close_block(struct cpl_yenode *n)
{
	if (!n->flow && n->n > 0)
		n->end = n->kids[n->n - 1]->end;
}

static void
index_lines(struct cpl_yedit *ed)
{
	size_t i;

	cpl_lines_index(&ed->lines, ed->src, ed->len);
	/* The first line's end says how new lines end. */
	ed->crlf = ed->lines.n > 1 && ed->lines.at[1] >= 2 &&
		   ed->src[ed->lines.at[1] - 2] == '\r';
	for (i = 0; i < ed->len && strchr(" \t\r\n", ed->src[i]); i++)
		;
	if (i + 3 <= ed->len && memcmp(ed->src + i, "\xef\xbb\xbf", 3) == 0)
		i += 3;
	ed->json = i < ed->len && (ed->src[i] == '{' || ed->src[i] == '[');
}

/* The tree being built: the open collections. */
struct build {
	struct cpl_yedit *ed;
	struct cpl_yenode **stack;
	size_t depth, cap;
	struct cpl_strmap anchors;	/* name → node, this document */
	char **names;			/* the keys of anchors (owned) */
	size_t nnames, names_cap;
};

/* Records the anchor a node defines (libyaml's events only: the fast
 * reader refuses anchors). */
static void
anchor(struct build *b, const yaml_char_t *name)
{
	struct cpl_yenode *n = b->ed->all[b->ed->nall - 1];

	if (name == NULL)
		return;
	CPL_GROW(b->names, b->names_cap, b->nnames + 1);
	b->names[b->nnames] = cpl_xstrdup((const char *)name);
	cpl_strmap_put(&b->anchors, b->names[b->nnames++], n);
}

static void
on_scalar(struct build *b, const yaml_mark_t *start, size_t end,
	  yaml_scalar_style_t style, const char *value, size_t len)
{
	struct cpl_yenode *n = new_node(b->ed, N_SCALAR, start, end);

	n->sstyle = style;
	if (value)
		n->value = cpl_xstrndup(value, len);
	attach(b->ed, b->depth ? b->stack[b->depth - 1] : NULL, n);
}

static int
on_start(struct build *b, enum nkind kind, bool flow,
	 const yaml_mark_t *start, size_t end)
{
	struct cpl_yenode *n;

	if (b->depth >= 1000)
		return -1;
	n = new_node(b->ed, kind, start, end);
	n->flow = flow;
	attach(b->ed, b->depth ? b->stack[b->depth - 1] : NULL, n);
	CPL_GROW(b->stack, b->cap, b->depth + 1);
	b->stack[b->depth++] = n;
	return 0;
}

/* A collection ends; end: the byte after a flow collection's bracket. */
static void
on_end(struct build *b, size_t end)
{
	struct cpl_yenode *n;

	if (b->depth == 0)
		return;
	n = b->stack[--b->depth];
	if (n->flow)
		n->end = (uint32_t)end;
	close_block(n);
}

/* Builds from the fast reader's events (yamlfast_int.h): the same events
 * libyaml gives, for the text it reads. */
static void
build_fast(struct build *b, const struct cpl_yfast *f)
{
	static const yaml_scalar_style_t styles[] = {
		[CPL_YS_PLAIN] = YAML_PLAIN_SCALAR_STYLE,
		[CPL_YS_SINGLE] = YAML_SINGLE_QUOTED_SCALAR_STYLE,
		[CPL_YS_DOUBLE] = YAML_DOUBLE_QUOTED_SCALAR_STYLE,
		[CPL_YS_LITERAL] = YAML_LITERAL_SCALAR_STYLE,
		[CPL_YS_FOLDED] = YAML_FOLDED_SCALAR_STYLE,
	};
	size_t i;

	for (i = 0; i < f->n; i++) {
		const struct cpl_yfev *e = &f->ev[i];
		yaml_mark_t m = { e->index, (size_t)e->line,
				  (size_t)e->column };

		switch (e->type) {
		case CPL_YFE_SCALAR:
			on_scalar(b, &m, e->eindex, styles[e->style],
				  cpl_yfast_value(f, e, b->ed->src), e->len);
			break;
		case CPL_YFE_SEQ_START:
		case CPL_YFE_MAP_START:
			/* The reader refuses nesting this deep long before. */
			(void)on_start(b, e->type == CPL_YFE_MAP_START ?
				       N_MAP : N_SEQ, e->flow, &m, e->eindex);
			break;
		case CPL_YFE_SEQ_END:
		case CPL_YFE_MAP_END:
			on_end(b, e->eindex);
			break;
		default:
			break;
		}
	}
}

/* The fast reader's sink: builds each batch of events as it is read. */
static void
fast_sink(void *ctx, const struct cpl_yfast *f)
{
	build_fast(ctx, f);
}

/* Drops every node built, and b's open collections: the fast reader
 * refused the text after handing some of it over. */
static void
drop_nodes(struct build *b)
{
	struct cpl_yedit *ed = b->ed;
	size_t i;

	for (i = 0; i < ed->nall; i++) {
		free(ed->all[i]->value);
		free(ed->all[i]->kids);
		free(ed->all[i]);
	}
	ed->nall = 0;
	ed->ndocs = 0;
	memset(&ed->mark, 0, sizeof(ed->mark));
	b->depth = 0;
}

int
cpl_yedit_open(struct cpl_yedit **out, const char *path, const char *buf,
	       size_t len, struct cpl_error *err)
{
	struct cpl_yedit *ed = cpl_xcalloc(1, sizeof(*ed));
	struct build b = { ed, NULL, 0, 0, { 0 }, NULL, 0, 0 };
	struct cpl_yfast fast = { 0 };
	yaml_parser_t p;
	yaml_event_t ev;
	bool done = false;
	int rc = -1;

	*out = NULL;
	if (len > UINT32_MAX) {		/* offsets are 32-bit */
		cpl_error_set(err, path, 0, 0, "too large to edit");
		free(ed);
		return -1;
	}
	ed->src = cpl_xstrndup(buf, len);
	ed->len = len;
	index_lines(ed);
	/* libyaml reads what the fast reader refuses (yamlfast_int.h); what
	 * the fast one read is built as it reads, a batch at a time. */
	fast.sink = fast_sink;
	fast.sink_ctx = &b;
	if (cpl_yfast_read(&fast, ed->src, len) == 0) {
		cpl_yfast_free(&fast);
		free(b.stack);
		block_steps(ed);
		*out = ed;
		return 0;
	}
	cpl_yfast_free(&fast);
	drop_nodes(&b);
	if (!yaml_parser_initialize(&p)) {
		cpl_error_set(err, path, 0, 0, "cannot start the YAML parser");
		goto out;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)ed->src, len);
	while (!done) {
		if (!yaml_parser_parse(&p, &ev)) {
			cpl_error_set(err, path, (int)p.problem_mark.line + 1,
				      (int)p.problem_mark.column + 1, "%s",
				      p.problem ? p.problem : "YAML error");
			goto parsed;
		}
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_DOCUMENT_START_EVENT:
			cpl_strmap_free(&b.anchors);
			memset(&b.anchors, 0, sizeof(b.anchors));
			break;
		case YAML_SCALAR_EVENT:
			on_scalar(&b, &ev.start_mark,
				  mark_offset(ed, &ev.end_mark),
				  ev.data.scalar.style,
				  (const char *)ev.data.scalar.value,
				  ev.data.scalar.length);
			anchor(&b, ev.data.scalar.anchor);
			break;
		case YAML_ALIAS_EVENT: {
			struct cpl_yenode *t = cpl_strmap_get(&b.anchors,
				(const char *)ev.data.alias.anchor);

			if (t != NULL)
				t->aliased = true;
			on_scalar(&b, &ev.start_mark,
				  mark_offset(ed, &ev.end_mark),
				  YAML_ANY_SCALAR_STYLE, NULL, 0);
			break;
		}
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (on_start(&b, ev.type == YAML_MAPPING_START_EVENT ?
				     N_MAP : N_SEQ,
				     ev.type == YAML_MAPPING_START_EVENT ?
				     ev.data.mapping_start.style ==
				     YAML_FLOW_MAPPING_STYLE :
				     ev.data.sequence_start.style ==
				     YAML_FLOW_SEQUENCE_STYLE,
				     &ev.start_mark,
				     mark_offset(ed, &ev.end_mark)) < 0) {
				cpl_error_set(err, path, 0, 0, "too deep");
				yaml_event_delete(&ev);
				goto parsed;
			}
			anchor(&b, ev.type == YAML_MAPPING_START_EVENT ?
			       ev.data.mapping_start.anchor :
			       ev.data.sequence_start.anchor);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			on_end(&b, mark_offset(ed, &ev.end_mark));
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	rc = 0;
	block_steps(ed);
	*out = ed;
	ed = NULL;
parsed:
	yaml_parser_delete(&p);
out:
	cpl_strmap_free(&b.anchors);
	while (b.nnames > 0)
		free(b.names[--b.nnames]);
	free(b.names);
	free(b.stack);
	cpl_yedit_free(ed);
	return rc;
}

void
cpl_yedit_free(struct cpl_yedit *ed)
{
	size_t i;

	if (ed == NULL)
		return;
	for (i = 0; i < ed->nall; i++) {
		free(ed->all[i]->value);
		free(ed->all[i]->kids);
		free(ed->all[i]);
	}
	free(ed->all);
	free(ed->docs);
	cpl_lines_free(&ed->lines);
	free(ed->src);
	free(ed);
}

const struct cpl_yenode *
cpl_yedit_find(const struct cpl_yedit *ed, int line, int column)
{
	const struct cpl_yenode *hit = NULL;
	size_t lo = 0, hi, i;

	if (ed == NULL)
		return NULL;
	/* Nodes are kept in the order they start, so by line and column. */
	hi = ed->nall;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct cpl_yenode *n = ed->all[mid];

		if (n->line < line || (n->line == line && n->column < column))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < ed->nall && ed->all[i]->line == line &&
	     ed->all[i]->column == column; i++) {
		if (hit == NULL)
			hit = ed->all[i];
		if (ed->all[i]->kind == N_MAP)
			return ed->all[i];
	}
	return hit;
}

const struct cpl_yenode *
cpl_yedit_parent(const struct cpl_yenode *n)
{
	return n ? n->parent : NULL;
}

const char *
cpl_yedit_key_of(const struct cpl_yenode *n)
{
	return n ? n->key : NULL;
}

const struct cpl_yenode *
cpl_yedit_get(const struct cpl_yenode *map, const char *key)
{
	size_t i;

	if (map == NULL || map->kind != N_MAP)
		return NULL;
	for (i = 0; i + 1 < map->n; i += 2)
		if (cpl_str_eq(map->kids[i]->value, key))
			return map->kids[i + 1];
	return NULL;
}

bool
cpl_yedit_is_map(const struct cpl_yenode *n)
{
	return n && n->kind == N_MAP;
}

bool
cpl_yedit_is_seq(const struct cpl_yenode *n)
{
	return n && n->kind == N_SEQ;
}

size_t
cpl_yedit_count(const struct cpl_yenode *seq)
{
	return seq && seq->kind == N_SEQ ? seq->n : 0;
}

const struct cpl_yenode *
cpl_yedit_item(const struct cpl_yenode *seq, size_t i)
{
	return i < cpl_yedit_count(seq) ? seq->kids[i] : NULL;
}

const char *
cpl_yedit_str(const struct cpl_yenode *n)
{
	return n && n->kind == N_SCALAR ? n->value : NULL;
}

size_t
cpl_yedit_end(const struct cpl_yenode *n)
{
	return n ? n->end : 0;
}

const struct cpl_yenode *
cpl_yedit_at(const struct cpl_yedit *ed, size_t off)
{
	size_t lo = 0, hi, i;

	if (ed == NULL)
		return NULL;
	hi = ed->nall;
	/* The last node starting at or before off, then back to the first
	 * that holds it: nodes start in order, inner ones after outer. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ed->all[mid]->start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i-- > 0;)
		if (off < ed->all[i]->end || (ed->all[i]->start == off &&
					      ed->all[i]->end == off))
			return ed->all[i];
	return NULL;
}

const char *
cpl_yedit_shared(const struct cpl_yedit *ed, const struct cpl_yenode *n,
		 size_t *len)
{
	const char *a, *end;

	for (; n != NULL; n = n->parent) {
		if (!n->aliased || n->start >= ed->len ||
		    ed->src[n->start] != '&')
			continue;
		/* The anchor is the first thing of the node (libyaml's
		 * start mark is at its properties). */
		a = ed->src + n->start + 1;
		for (end = a; end < ed->src + ed->len &&
		     !strchr(" \t\r\n,[]{}", *end); end++)
			;
		*len = (size_t)(end - a);
		return a;
	}
	return NULL;
}

/* ---- style ------------------------------------------------------------ */

/* How the text around one insertion point is written. */
struct style {
	bool json;
	const char *nl;			/* "\n" or "\r\n" */
	char q;				/* quote for quoted scalars */
	bool qkeys;			/* keys double-quoted */
	int step;			/* block mapping indentation step */
	int seqoff;			/* block sequence dash past its key */
	const char *colon;		/* flow ": " or ":" */
	const char *comma;		/* flow ", " or "," */
	const char *jstep;		/* JSON pretty-printing step */
};

/* The offset where the line holding off starts (from the line index:
 * a long line is not walked back). */
static size_t
line_start(const struct cpl_yedit *ed, size_t off)
{
	int line, column;

	if (ed->lines.n == 0)
		return 0;
	cpl_lines_pos(&ed->lines, off, &line, &column);
	return ed->lines.at[line - 1];
}

/* The whitespace that opens the line holding off, copied into buf. */
static void
lead_ws(char *buf, size_t size, const struct cpl_yedit *ed, size_t off)
{
	size_t s = line_start(ed, off), i = 0;

	while (s + i < ed->len && (ed->src[s + i] == ' ' ||
				   ed->src[s + i] == '\t') && i + 1 < size) {
		buf[i] = ed->src[s + i];
		i++;
	}
	buf[i] = '\0';
}

/* Byte offset of the dash that opens block sequence item n, or -1. */
static long
dash_of(const struct cpl_yedit *ed, const struct cpl_yenode *n)
{
	size_t off = n->start;

	while (off > 0 && ed->src[off - 1] == ' ')
		off--;
	if (off == 0 || ed->src[off - 1] != '-')
		return -1;
	return (long)off - 1;
}

/* The indentation step of block mappings and the sequence offset, from
 * the first nesting of each kind in the file (2 and 2 when none): found
 * once, when the file is opened, since a file of flow collections has
 * none and would be searched to its end for every insertion. */
static void
block_steps(struct cpl_yedit *ed)
{
	size_t i;
	bool got_step = false, got_seq = false;

	ed->step = 2;
	ed->seqoff = 2;
	for (i = 0; i < ed->nall && !(got_step && got_seq); i++) {
		const struct cpl_yenode *n = ed->all[i], *p = n->parent;
		long d;

		if (p == NULL || p->kind != N_MAP || p->flow || n->flow ||
		    n->key == NULL || n->n == 0)
			continue;
		if (n->kind == N_MAP && !got_step && n->column > p->column) {
			ed->step = n->column - p->column;
			got_step = true;
		} else if (n->kind == N_SEQ && !got_seq &&
			   (d = dash_of(ed, n->kids[0])) >= 0) {
			ed->seqoff = (int)((size_t)d -
					   line_start(ed, (size_t)d)) -
				     (p->column - 1);
			if (ed->seqoff < 0)
				ed->seqoff = 0;
			got_seq = true;
		}
	}
}

/* Single quotes when the nearest quoted scalar in n (or its items) is
 * single-quoted, else double. */
static char
quote_of(const struct cpl_yenode *n)
{
	size_t i;
	char q = 0;

	for (i = 0; i < n->n; i++) {
		const struct cpl_yenode *k = n->kids[i];

		if (k->kind != N_SCALAR && k->n > 0) {
			char inner = quote_of(k);

			if (inner)
				q = inner;
		} else if (k->sstyle == YAML_SINGLE_QUOTED_SCALAR_STYLE) {
			q = '\'';
		} else if (k->sstyle == YAML_DOUBLE_QUOTED_SCALAR_STYLE) {
			q = '"';
		}
	}
	return q;
}

/* Whether the first key of n (or of its last item) is double-quoted. */
static bool
quoted_keys(const struct cpl_yenode *n)
{
	if (n->kind == N_SEQ && n->n > 0)
		n = n->kids[n->n - 1];
	return n->kind == N_MAP && n->n > 0 &&
	       n->kids[0]->sstyle == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
}

/* The separator text between a and b when it is one line of exactly
 * punct and spaces ("," ", " ": "), else dflt. */
static const char *
sep_between(const struct cpl_yedit *ed, size_t a, size_t b, char punct,
	    const char *dflt)
{
	size_t i;
	bool seen = false;

	if (b <= a || b - a > 8)
		return dflt;
	for (i = a; i < b; i++) {
		if (ed->src[i] == punct && !seen)
			seen = true;
		else if (ed->src[i] != ' ')
			return dflt;
	}
	if (!seen)
		return dflt;
	return b - a == 1 ? (punct == ',' ? "," : ":") :
	       (punct == ',' ? ", " : ": ");
}

static void
style_for(struct style *st, const struct cpl_yedit *ed,
	  const struct cpl_yenode *coll)
{
	const struct cpl_yenode *m = coll;
	char q;

	memset(st, 0, sizeof(*st));
	st->json = ed->json;
	st->nl = ed->crlf ? "\r\n" : "\n";
	q = quote_of(coll);
	st->q = q ? q : '"';
	if (st->json)
		st->q = '"';
	st->qkeys = st->json || quoted_keys(coll);
	st->step = ed->step;
	st->seqoff = ed->seqoff;
	st->colon = ": ";
	st->comma = ", ";
	st->jstep = "  ";
	if (m->kind == N_SEQ && m->n > 0)
		m = m->kids[m->n - 1];
	if (m->kind == N_MAP && m->flow && m->n >= 2) {
		st->colon = sep_between(ed, m->kids[0]->end, m->kids[1]->start,
					':', ": ");
		if (m->n >= 4)
			st->comma = sep_between(ed, m->kids[1]->end,
						m->kids[2]->start, ',', ", ");
	}
}

/* ---- rendering -------------------------------------------------------- */

static void
spaces(struct cpl_buf *b, int n)
{
	while (n-- > 0)
		cpl_buf_addc(b, ' ');
}

/* Text that must be quoted in YAML to stay a plain string. */
static bool
needs_quotes(const char *s)
{
	if (*s == '\0' || strchr("-?:,[]{}#&*!|>'\"%@` ", *s))
		return true;
	return strpbrk(s, ":#'\"") != NULL;
}

static void
put_scalar(struct cpl_buf *b, const struct style *st, const char *text,
	   bool quote)
{
	const char *p;

	if (!st->json && !quote && !needs_quotes(text)) {
		cpl_buf_adds(b, text);
		return;
	}
	if (!st->json && st->q == '\'') {
		cpl_buf_addc(b, '\'');
		for (p = text; *p; p++) {
			if (*p == '\'')
				cpl_buf_addc(b, '\'');
			cpl_buf_addc(b, *p);
		}
		cpl_buf_addc(b, '\'');
		return;
	}
	cpl_buf_addc(b, '"');
	for (p = text; *p; p++) {
		if (*p == '"' || *p == '\\')
			cpl_buf_addc(b, '\\');
		cpl_buf_addc(b, *p);
	}
	cpl_buf_addc(b, '"');
}

static void
put_key(struct cpl_buf *b, const struct style *st, const char *key)
{
	struct style ks = *st;

	ks.q = '"';
	ks.json = st->json || st->qkeys;
	put_scalar(b, &ks, key, st->qkeys);
}

/* A value on one line: flow YAML or JSON. */
static void
put_flow(struct cpl_buf *b, const struct style *st, const struct cpl_yval *v)
{
	size_t i;

	if (v->kind == CPL_YV_SCALAR) {
		put_scalar(b, st, v->text, v->quote);
		return;
	}
	cpl_buf_addc(b, v->kind == CPL_YV_MAP ? '{' : '[');
	for (i = 0; i < v->nkids; i++) {
		if (i > 0)
			cpl_buf_adds(b, st->comma);
		if (v->kind == CPL_YV_MAP) {
			put_key(b, st, v->kids[i].key);
			cpl_buf_adds(b, st->colon);
		}
		put_flow(b, st, &v->kids[i]);
	}
	cpl_buf_addc(b, v->kind == CPL_YV_MAP ? '}' : ']');
}

/* A JSON value pretty-printed, its inner lines opening with ind + step. */
static void
put_pretty(struct cpl_buf *b, const struct style *st, const char *ind,
	   const struct cpl_yval *v)
{
	char *inner;
	size_t i;

	if (v->kind == CPL_YV_SCALAR || v->nkids == 0) {
		put_flow(b, st, v);
		return;
	}
	inner = cpl_xasprintf("%s%s", ind, st->jstep);
	cpl_buf_addc(b, v->kind == CPL_YV_MAP ? '{' : '[');
	for (i = 0; i < v->nkids; i++) {
		cpl_buf_adds(b, i > 0 ? "," : "");
		cpl_buf_adds(b, st->nl);
		cpl_buf_adds(b, inner);
		if (v->kind == CPL_YV_MAP) {
			put_key(b, st, v->kids[i].key);
			cpl_buf_adds(b, st->colon);
		}
		put_pretty(b, st, inner, &v->kids[i]);
	}
	cpl_buf_adds(b, st->nl);
	cpl_buf_adds(b, ind);
	cpl_buf_addc(b, v->kind == CPL_YV_MAP ? '}' : ']');
	free(inner);
}

static void put_items(struct cpl_buf *b, const struct style *st,
		      const struct cpl_yval *items, size_t n, int dash,
		      int keyoff, bool flow_items);

/*
 * One block mapping pair "key: value" whose key sits at column indent;
 * inline: the line is already open (after a sequence dash).  Every line
 * written ends with a line break.
 */
static void
put_pair(struct cpl_buf *b, const struct style *st, const struct cpl_yval *p,
	 int indent, bool inline_)
{
	size_t i;

	if (!inline_)
		spaces(b, indent);
	put_key(b, st, p->key);
	cpl_buf_addc(b, ':');
	if (p->kind == CPL_YV_SCALAR || p->nkids == 0) {
		cpl_buf_addc(b, ' ');
		put_flow(b, st, p);
		cpl_buf_adds(b, st->nl);
	} else if (p->kind == CPL_YV_MAP) {
		cpl_buf_adds(b, st->nl);
		for (i = 0; i < p->nkids; i++)
			put_pair(b, st, &p->kids[i], indent + st->step, false);
	} else {
		cpl_buf_adds(b, st->nl);
		put_items(b, st, p->kids, p->nkids, indent + st->seqoff, 2,
			  false);
	}
}

/* Block sequence items, the dash at column dash and the item's content
 * keyoff past it; flow_items: each item a flow collection. */
static void
put_items(struct cpl_buf *b, const struct style *st,
	  const struct cpl_yval *items, size_t n, int dash, int keyoff,
	  bool flow_items)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		const struct cpl_yval *it = &items[i];

		spaces(b, dash);
		cpl_buf_addc(b, '-');
		spaces(b, keyoff - 1);
		if (it->kind != CPL_YV_MAP || flow_items || it->nkids == 0) {
			put_flow(b, st, it);
			cpl_buf_adds(b, st->nl);
			continue;
		}
		for (j = 0; j < it->nkids; j++)
			put_pair(b, st, &it->kids[j], dash + keyoff, j == 0);
	}
}

/* ---- insertion points ------------------------------------------------- */

static void
add_ins(const struct cpl_yedit *ed, struct cpl_yedit_out *out, size_t off,
	struct cpl_buf *text)
{
	struct cpl_yedit_ins *in;
	size_t i;

	for (i = 0; i < out->n; i++)
		if (out->v[i].offset == off) {
			char *t = cpl_xasprintf("%s%s", out->v[i].text,
						cpl_buf_str(text));

			free(out->v[i].text);
			out->v[i].text = t;
			return;
		}
	CPL_GROW(out->v, out->cap, out->n + 1);
	in = &out->v[out->n++];
	in->offset = off;
	cpl_lines_pos(&ed->lines, off, &in->line, &in->column);
	in->text = cpl_xstrdup(cpl_buf_str(text));
}

/* Inserts whole lines (each ending with st->nl) after the line holding
 * byte end: at the start of the next line, or at the end of a file that
 * does not end with a line break (the break then goes first). */
static void
add_lines_after(const struct cpl_yedit *ed, const struct style *st,
		struct cpl_yedit_out *out, size_t end, struct cpl_buf *lines)
{
	const char *nlp;
	struct cpl_buf b;
	size_t nll = strlen(st->nl);

	if (end > 0 && ed->src[end - 1] == '\n') {
		add_ins(ed, out, end, lines);
		return;
	}
	nlp = memchr(ed->src + end, '\n', ed->len - end);
	if (nlp != NULL) {
		add_ins(ed, out, (size_t)(nlp - ed->src) + 1, lines);
		return;
	}
	cpl_buf_init(&b, MAX_INSERT);
	cpl_buf_adds(&b, st->nl);
	cpl_buf_add(&b, cpl_buf_str(lines), lines->len >= nll ?
		    lines->len - nll : 0);
	add_ins(ed, out, ed->len, &b);
	cpl_buf_free(&b);
}

/* Whether a flow collection is written over several lines (pretty). */
static bool
multiline(const struct cpl_yedit *ed, const struct cpl_yenode *n)
{
	return n->flow && memchr(ed->src + n->start, '\n',
				 n->end - n->start) != NULL;
}

/* The JSON step: what the first line inside n adds to n's own line. */
static void
json_step(char *buf, size_t size, const struct cpl_yedit *ed,
	  const struct cpl_yenode *n)
{
	char outer[64], inner[64];
	size_t lo;

	buf[0] = '\0';
	if (n->n == 0 || !multiline(ed, n))
		return;
	lead_ws(outer, sizeof(outer), ed, n->start);
	lead_ws(inner, sizeof(inner), ed, n->kids[0]->start);
	lo = strlen(outer);
	if (strncmp(inner, outer, lo) == 0 && inner[lo] != '\0')
		snprintf(buf, size, "%s", inner + lo);
}

/* Adds new pairs to a flow mapping or new items to a flow sequence. */
static void
add_flow(const struct cpl_yedit *ed, const struct style *st0,
	 const struct cpl_yenode *coll, const struct cpl_yval *v, size_t n,
	 struct cpl_yedit_out *out)
{
	struct style st = *st0;
	struct cpl_buf b;
	char ind[64], step[64];
	const struct cpl_yenode *last;
	bool pretty, item_pretty = false;
	size_t i, at;

	cpl_buf_init(&b, MAX_INSERT);
	pretty = coll->n > 0 && multiline(ed, coll);
	last = coll->n > 0 ? coll->kids[coll->n - 1] : NULL;
	at = last ? last->end : coll->start + 1;
	ind[0] = '\0';
	if (pretty) {
		lead_ws(ind, sizeof(ind), ed,
			coll->kind == N_MAP ? coll->kids[coll->n - 2]->start :
			last->start);
		json_step(step, sizeof(step), ed, coll);
		if (coll->kind == N_SEQ && last->kind != N_SCALAR &&
		    multiline(ed, last)) {
			item_pretty = true;
			json_step(step, sizeof(step), ed, last);
		}
		if (step[0])
			st.jstep = step;
	}
	for (i = 0; i < n; i++) {
		if (last || i > 0)
			cpl_buf_adds(&b, pretty ? "," : st.comma);
		if (pretty) {
			cpl_buf_adds(&b, st.nl);
			cpl_buf_adds(&b, ind);
		}
		if (coll->kind == N_MAP) {
			put_key(&b, &st, v[i].key);
			cpl_buf_adds(&b, st.colon);
		}
		if (st.json && pretty && (coll->kind == N_MAP || item_pretty))
			put_pretty(&b, &st, ind, &v[i]);
		else
			put_flow(&b, &st, &v[i]);
	}
	add_ins(ed, out, at, &b);
	cpl_buf_free(&b);
}

/* Whether only spaces precede byte off on its line. */
static bool
opens_line(const struct cpl_yedit *ed, size_t off)
{
	size_t i;

	for (i = line_start(ed, off); i < off; i++)
		if (ed->src[i] != ' ' && ed->src[i] != '\t')
			return false;
	return true;
}

/* The start of the line holding off, moved up over the comment lines
 * right above it (they belong to what follows). */
static size_t
above_comments(const struct cpl_yedit *ed, size_t off)
{
	size_t at = line_start(ed, off), prev, i;

	while (at > 0) {
		prev = line_start(ed, at - 1);
		for (i = prev; i < at && (ed->src[i] == ' ' ||
					  ed->src[i] == '\t'); i++)
			;
		if (i >= at || ed->src[i] != '#')
			break;
		at = prev;
	}
	return at;
}

/*
 * New pairs for a block mapping, at its keys' indentation.  They go
 * after its first pair when that ends on its own line (a scalar or flow
 * value), else above its first key, and only when neither can, after its
 * last pair.  Never at its end by choice: there a nested mapping's or a
 * containing one's insertions may fall on the same byte, and insertions
 * from two findings on one byte would depend on the order applied.
 */
static void
add_block_pairs(const struct cpl_yedit *ed, const struct style *st,
		const struct cpl_yenode *map, const struct cpl_yval *v,
		size_t n, struct cpl_yedit_out *out)
{
	const struct cpl_yenode *first = map->kids[1];
	struct cpl_buf b;
	size_t i;

	cpl_buf_init(&b, MAX_INSERT);
	for (i = 0; i < n; i++)
		put_pair(&b, st, &v[i], map->column - 1, false);
	if (first->kind == N_SCALAR || first->flow)
		add_lines_after(ed, st, out, first->end, &b);
	else if (opens_line(ed, map->start))
		add_ins(ed, out, above_comments(ed, map->start), &b);
	else
		add_lines_after(ed, st, out, map->end, &b);
	cpl_buf_free(&b);
}

/* New items for a block sequence, shaped like its first item and put
 * before it (a byte no other insertion uses, as above). */
static int
add_block_items(const struct cpl_yedit *ed, const struct style *st,
		const struct cpl_yenode *seq, const struct cpl_yval *v,
		size_t n, struct cpl_yedit_out *out)
{
	const struct cpl_yenode *first = seq->kids[0];
	long dash = dash_of(ed, first);
	struct cpl_buf b;

	if (dash < 0 || !opens_line(ed, (size_t)dash))
		return -1;
	cpl_buf_init(&b, MAX_INSERT);
	put_items(&b, st, v, n,
		  (int)((size_t)dash - line_start(ed, (size_t)dash)),
		  (int)(first->start - (size_t)dash), first->flow);
	add_ins(ed, out, above_comments(ed, (size_t)dash), &b);
	cpl_buf_free(&b);
	return 0;
}

/* Appends items to an existing sequence. */
static int
append_items(const struct cpl_yedit *ed, const struct cpl_yenode *seq,
	     const struct cpl_yval *v, size_t n, struct cpl_yedit_out *out)
{
	struct style st;

	if (n == 0)
		return 0;
	style_for(&st, ed, seq);
	if (seq->flow) {
		add_flow(ed, &st, seq, v, n, out);
		return 0;
	}
	return add_block_items(ed, &st, seq, v, n, out);
}

static int
merge_map(const struct cpl_yedit *ed, const struct cpl_yenode *map,
	  const struct cpl_yval *val, struct cpl_yedit_out *out)
{
	const struct cpl_yval **missing = NULL;
	struct cpl_yval *add = NULL;
	size_t i, nmiss = 0, cap = 0;
	struct style st;
	int rc = -1;

	if (map->kind != N_MAP || val->kind != CPL_YV_MAP)
		return -1;
	for (i = 0; i < val->nkids; i++) {
		const struct cpl_yval *k = &val->kids[i];
		const struct cpl_yenode *ex = cpl_yedit_get(map, k->key);

		if (ex == NULL) {
			CPL_GROW(missing, cap, nmiss + 1);
			missing[nmiss++] = k;
		} else if (k->kind == CPL_YV_MAP && ex->kind == N_MAP) {
			if (merge_map(ed, ex, k, out) < 0)
				goto out;
		} else if (k->kind == CPL_YV_SEQ && ex->kind == N_SEQ &&
			   (ex->n > 0 || ex->flow)) {
			if (append_items(ed, ex, k->kids, k->nkids, out) < 0)
				goto out;
		} else if (!(k->kind == CPL_YV_SCALAR &&
			     ex->kind == N_SCALAR &&
			     cpl_str_eq(ex->value, k->text))) {
			goto out;
		}
	}
	if (nmiss > 0) {
		add = cpl_xcalloc(nmiss, sizeof(*add));
		for (i = 0; i < nmiss; i++)
			add[i] = *missing[i];
		style_for(&st, ed, map);
		if (map->flow || map->n == 0)
			add_flow(ed, &st, map, add, nmiss, out);
		else
			add_block_pairs(ed, &st, map, add, nmiss, out);
	}
	rc = 0;
out:
	free(missing);
	free(add);
	return rc;
}

int
cpl_yedit_merge(const struct cpl_yedit *ed, const struct cpl_yenode *map,
		const struct cpl_yval *val, struct cpl_yedit_out *out)
{
	struct cpl_yedit_out tmp = { 0 };
	struct cpl_buf b;
	size_t i;

	if (ed == NULL || map == NULL || val == NULL)
		return -1;
	if (merge_map(ed, map, val, &tmp) < 0) {
		cpl_yedit_out_free(&tmp);
		return -1;
	}
	cpl_buf_init(&b, MAX_INSERT);
	for (i = 0; i < tmp.n; i++) {
		cpl_buf_reset(&b);
		cpl_buf_adds(&b, tmp.v[i].text);
		add_ins(ed, out, tmp.v[i].offset, &b);
	}
	cpl_buf_free(&b);
	cpl_yedit_out_free(&tmp);
	return 0;
}

void
cpl_yedit_out_free(struct cpl_yedit_out *out)
{
	size_t i;

	if (out == NULL)
		return;
	for (i = 0; i < out->n; i++)
		free(out->v[i].text);
	free(out->v);
	memset(out, 0, sizeof(*out));
}
