/*
 * gotmpl_yaml.c — Helm's toYaml, byte for byte for what it accepts:
 * sigs.k8s.io/yaml (JSON, then go-yaml v2) writes mapping keys in
 * go-yaml's natural order, two-space indentation, sequences in a mapping
 * not indented, strings plain when go-yaml may, single-quoted when plain
 * is not allowed, double-quoted when plain would read as another type.
 *
 * What it does not model is refused (1 with a reason), never guessed:
 * multi-line strings, strings with non-ASCII or control bytes, a string
 * with spaces that go-yaml would fold past column 80, sequences directly
 * in sequences, values Helm reads in a way not modelled.
 */
#include "text/gotmpl_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct yw {
	struct cpl_gotmpl *g;
	struct cpl_buf *b;
	struct gorigin *org;
	size_t norg, cap;
	int col;		/* of the next byte */
	const char *why;
};

static bool
is_letter(unsigned char c)
{
	return isalpha(c);
}

/* go-yaml v2's keyList.Less for ASCII strings. */
static bool
key_less(const char *a, const char *b)
{
	size_t i, la = strlen(a), lb = strlen(b);

	for (i = 0; i < la && i < lb; i++) {
		unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
		bool al, bl;
		size_t ai, bi;
		long an = 0, bn = 0;

		if (x == y)
			continue;
		al = is_letter(x);
		bl = is_letter(y);
		if (al && bl)
			return x < y;
		if (al || bl)
			return bl;
		if (x == '0' || y == '0') {
			size_t j;

			for (j = i; j-- > 0 && isdigit((unsigned char)a[j]);)
				if (a[j] != '0') {
					an = 1;
					bn = 1;
					break;
				}
		}
		for (ai = i; ai < la && isdigit((unsigned char)a[ai]); ai++)
			an = an * 10 + (a[ai] - '0');
		for (bi = i; bi < lb && isdigit((unsigned char)b[bi]); bi++)
			bn = bn * 10 + (b[bi] - '0');
		if (an != bn)
			return an < bn;
		if (ai != bi)
			return ai < bi;
		return x < y;
	}
	return la < lb;
}

static void
put(struct yw *w, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		cpl_buf_addc(w->b, s[i]);
		w->col = s[i] == '\n' ? 1 : w->col + 1;
	}
}

static void
puts_(struct yw *w, const char *s)
{
	put(w, s, strlen(s));
}

/* Starts an output line (not the first) at indent, from origin v. */
static void
line(struct yw *w, int indent, const struct gval *v)
{
	int i;

	put(w, "\n", 1);
	for (i = 0; i < indent; i++)
		put(w, " ", 1);
	cpl_gotmpl_grow(w->g, (void **)&w->org, &w->cap, w->norg + 1,
			sizeof(*w->org));
	w->org[w->norg].file = v ? v->file : NULL;
	w->org[w->norg++].line = v ? v->line : 0;
}

/* A string as go-yaml v2 writes it. */
static bool
string(struct yw *w, const char *s, size_t len)
{
	size_t i;
	bool plain = len > 0, space = false;
	struct gval *r;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		bool ws_after = i + 1 >= len || s[i + 1] == ' ';

		if (c < 0x20 || c >= 0x7f) {
			w->why = "toYaml of a string with control or "
				 "non-ASCII bytes";
			return false;
		}
		if (c == ' ')
			space = true;
		if (i == 0 && strchr("#,[]{}&*!|>'\"%@`", c) != NULL)
			plain = false;
		if (i == 0 && (c == '?' || c == ':' || c == '-') && ws_after)
			plain = false;
		if (c == ':' && ws_after)
			plain = false;
		if (c == '#' && i > 0 && s[i - 1] == ' ')
			plain = false;
	}
	if (len > 0 && (s[0] == ' ' || s[len - 1] == ' '))
		plain = false;
	if (space && (size_t)w->col + len + 2 > 80) {
		w->why = "toYaml of a long string with spaces (go-yaml folds "
			 "it)";
		return false;
	}
	r = cpl_gotmpl_resolve(w->g, s, len);
	if (r->kind == GV_ODD) {
		w->why = "toYaml of a string go-yaml may read as a number, "
			 "date or other type";
		return false;
	}
	if (r->kind != GV_STR || len == 0) {
		if (memchr(s, '"', len) || memchr(s, '\\', len)) {
			w->why = "toYaml of a string with quotes";
			return false;
		}
		put(w, "\"", 1);
		put(w, s, len);
		put(w, "\"", 1);
		return true;
	}
	if (plain) {
		put(w, s, len);
		return true;
	}
	put(w, "'", 1);
	for (i = 0; i < len; i++) {
		if (s[i] == '\'')
			put(w, "'", 1);
		put(w, s + i, 1);
	}
	put(w, "'", 1);
	return true;
}

static bool
scalar(struct yw *w, const struct gval *v)
{
	switch (v->kind) {
	case GV_NIL:
		puts_(w, "null");
		return true;
	case GV_BOOL:
		puts_(w, v->b ? "true" : "false");
		return true;
	case GV_INT:
	case GV_FLOAT:
		puts_(w, v->s);
		return true;
	case GV_STR:
		return string(w, v->s, v->len);
	default:
		w->why = "toYaml of a value Helm reads in a way the tool does "
			 "not model";
		return false;
	}
}

static bool node(struct yw *w, const struct gval *v, int indent,
		 bool inline_first, int depth);

/* A mapping's entries, the first on the current line when inline. */
static bool
mapping(struct yw *w, const struct gval *v, int indent, bool inline_first,
	int depth)
{
	size_t *order = cpl_xcalloc(v->n, sizeof(*order)), i, j;
	bool ok = true;

	for (i = 0; i < v->n; i++) {	/* insertion sort: maps are small */
		for (j = i; j > 0 && key_less(v->keys[i],
					       v->keys[order[j - 1]]); j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	for (i = 0; i < v->n && ok; i++) {
		const struct gval *c = v->vals[order[i]];

		if (i > 0 || !inline_first)
			line(w, indent, c);
		ok = string(w, v->keys[order[i]], strlen(v->keys[order[i]]));
		if (!ok)
			break;
		put(w, ":", 1);
		if ((c->kind == GV_MAP || c->kind == GV_SEQ) && c->n > 0) {
			ok = node(w, c, c->kind == GV_MAP ? indent + 2 :
				  indent, false, depth + 1);
		} else {
			put(w, " ", 1);
			ok = node(w, c, indent, true, depth + 1);
		}
	}
	free(order);
	return ok;
}

static bool
node(struct yw *w, const struct gval *v, int indent, bool inline_first,
     int depth)
{
	size_t i;

	if (depth > 100) {
		w->why = "toYaml of values nested this deep";
		return false;
	}
	if (v->kind == GV_MAP) {
		if (v->n == 0) {
			puts_(w, "{}");
			return true;
		}
		return mapping(w, v, indent, inline_first, depth);
	}
	if (v->kind == GV_SEQ) {
		if (v->n == 0) {
			puts_(w, "[]");
			return true;
		}
		for (i = 0; i < v->n; i++) {
			const struct gval *c = v->vals[i];

			if (i > 0 || !inline_first)
				line(w, indent, c);
			put(w, "- ", 2);
			if (c->kind == GV_SEQ && c->n > 0) {
				w->why = "toYaml of a list in a list";
				return false;
			}
			if (!node(w, c, indent + 2, true, depth + 1))
				return false;
		}
		return true;
	}
	return scalar(w, v);
}

int
cpl_gotmpl_yaml(struct cpl_gotmpl *g, const struct gval *v,
		struct cpl_buf *out, struct gorigin **origins,
		size_t *norigins, const char **why)
{
	struct yw w = { 0 };

	w.g = g;
	w.b = out;
	w.col = 1;
	cpl_gotmpl_grow(g, (void **)&w.org, &w.cap, 1, sizeof(*w.org));
	w.org[0].file = v->file;
	w.org[0].line = v->line;
	w.norg = 1;
	if (!node(&w, v, 0, true, 0)) {
		*why = w.why;
		return 1;
	}
	*origins = w.org;
	*norigins = w.norg;
	return 0;
}
