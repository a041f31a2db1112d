/*
 * gotmpl_eval.c — the values a chart's templates run over and the
 * evaluation of the parsed subset (gotmpl.h): the public interface, the
 * output with where each of its lines came from, and toYaml as Helm's
 * YAML library writes it.
 *
 * Exactness first: values are read as Helm reads them (through JSON:
 * every number a float64, printed by Go as %v prints one), and whatever
 * the tool cannot reproduce byte for byte (a number Go would print in
 * exponent form, a string toYaml would quote or fold in a way not
 * modelled, a function not in the list) stops the render as "outside
 * the subset" instead of producing text Helm would not.
 */
#include "text/gotmpl_int.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "text/yamldoc.h"

/* Includes nested at most; work (nodes run) at most per render. */
#define MAX_DEPTH 64
#define MAX_WORK 4000000
#define MAX_OUT (16u << 20)

#define INDEX_FROM 16	/* keys from which a map keeps an index */

/* The position of key in a map, or -1: by the index of a large map. */
static long
gv_find(const struct gval *m, const char *key)
{
	size_t i;

	if (m->index != NULL) {
		uintptr_t at = (uintptr_t)cpl_strmap_get(m->index, key);

		return at ? (long)at - 1 : -1;
	}
	for (i = m->n; i-- > 0;)
		if (strcmp(m->keys[i], key) == 0)
			return (long)i;
	return -1;
}

/* The value of key in a map, or NULL. */
static struct gval *
gv_get(const struct gval *m, const char *key)
{
	long at;

	if (m == NULL || m->kind != GV_MAP)
		return NULL;
	at = gv_find(m, key);
	return at < 0 ? NULL : m->vals[at];
}

/* Sets key in a map (replacing); linear in its keys over the run. */
static void
gv_put(struct cpl_gotmpl *g, struct gval *m, const char *key,
       struct gval *v)
{
	size_t i, cap = m->cap;
	long at = gv_find(m, key);

	if (at >= 0) {
		m->vals[at] = v;
		return;
	}
	cpl_gotmpl_grow(g, (void **)&m->keys, &cap, m->n + 1,
			sizeof(*m->keys));
	cpl_gotmpl_grow(g, (void **)&m->vals, &m->cap, m->n + 1,
			sizeof(*m->vals));
	m->keys[m->n] = cpl_gotmpl_strndup(g, key, strlen(key));
	m->vals[m->n++] = v;
	if (m->index != NULL) {
		cpl_strmap_put(m->index, m->keys[m->n - 1],
			       (void *)(uintptr_t)m->n);
	} else if (m->n >= INDEX_FROM) {
		m->index = cpl_xcalloc(1, sizeof(*m->index));
		CPL_GROW(g->indexes, g->indexes_cap, g->nindexes + 1);
		g->indexes[g->nindexes++] = m->index;
		for (i = 0; i < m->n; i++)
			cpl_strmap_put(m->index, m->keys[i],
				       (void *)(uintptr_t)(i + 1));
	}
}

static void
gv_push(struct cpl_gotmpl *g, struct gval *s, struct gval *v)
{
	cpl_gotmpl_grow(g, (void **)&s->vals, &s->cap, s->n + 1,
			sizeof(*s->vals));
	s->vals[s->n++] = v;
}

/* ---- numbers as Helm prints them --------------------------------------- */

static struct gval *
from_ynode(struct cpl_gotmpl *g, const char *file, const struct cpl_ynode *n,
	   int depth)
{
	struct gval *v;
	size_t i;

	if (n == NULL || depth > 200)
		return cpl_gotmpl_val_new(g, GV_ODD);
	if (n->kind == CPL_Y_SCALAR) {
		if (n->tag != NULL)
			v = cpl_gotmpl_val_new(g, GV_ODD);
		else if (n->style == CPL_YS_PLAIN)
			v = cpl_gotmpl_resolve(g, n->value, n->len);
		else
			v = cpl_gotmpl_val_str(g, n->value, n->len);
	} else if (n->kind == CPL_Y_SEQ) {
		v = cpl_gotmpl_val_new(g, GV_SEQ);
		for (i = 0; i < n->count; i++)
			gv_push(g, v, from_ynode(g, file, n->items[i],
						 depth + 1));
	} else {
		v = cpl_gotmpl_val_new(g, GV_MAP);
		for (i = 0; i < n->count; i++) {
			const char *k = cpl_ynode_str(n->pairs[i].key);

			struct gval *c = from_ynode(g, file,
						    n->pairs[i].value,
						    depth + 1);

			c->line = n->pairs[i].key->line;	/* "key:" */
			gv_put(g, v, k ? k : "", c);
		}
	}
	v->file = file;
	v->line = n->line;
	return v;
}

/* Helm's coalescing: maps merge key by key, anything else is replaced;
 * a null over a value deletes it. */
static struct gval *
merge(struct cpl_gotmpl *g, struct gval *base, struct gval *over)
{
	size_t i;

	if (base == NULL || base->kind != GV_MAP || over->kind != GV_MAP)
		return over;
	for (i = 0; i < over->n; i++) {
		struct gval *old = gv_get(base, over->keys[i]);

		gv_put(g, base, over->keys[i],
		       old ? merge(g, old, over->vals[i]) : over->vals[i]);
	}
	return base;
}

struct cpl_gotmpl *
cpl_gotmpl_new(void)
{
	struct cpl_gotmpl *g = cpl_xcalloc(1, sizeof(*g));

	g->values = cpl_gotmpl_val_new(g, GV_MAP);
	g->release = cpl_gotmpl_val_new(g, GV_MAP);
	g->chart = cpl_gotmpl_val_new(g, GV_MAP);
	g->root = cpl_gotmpl_val_new(g, GV_MAP);
	gv_put(g, g->root, "Values", g->values);
	gv_put(g, g->root, "Release", g->release);
	gv_put(g, g->root, "Chart", g->chart);
	gv_put(g, g->root, "Files", cpl_gotmpl_val_new(g, GV_FILES));
	cpl_gotmpl_builtin(g, "Release", "Name", "release-name");
	cpl_gotmpl_builtin(g, "Release", "Namespace", "default");
	cpl_gotmpl_builtin(g, "Release", "Service", "Helm");
	gv_put(g, g->release, "IsInstall", cpl_gotmpl_val_bool(g, true));
	gv_put(g, g->release, "IsUpgrade", cpl_gotmpl_val_bool(g, false));
	return g;
}

void
cpl_gotmpl_free(struct cpl_gotmpl *g)
{
	size_t i;

	if (g == NULL)
		return;
	for (i = 0; i < g->npool; i++)
		free(g->pool[i]);
	free(g->pool);
	cpl_strmap_free(&g->files);
	cpl_strmap_free(&g->defines);
	for (i = 0; i < g->nindexes; i++) {
		cpl_strmap_free(g->indexes[i]);
		free(g->indexes[i]);
	}
	free(g->indexes);
	free(g);
}

int
cpl_gotmpl_values(struct cpl_gotmpl *g, const char *path, const char *text,
		  size_t len, struct cpl_error *err)
{
	struct cpl_ystream *s = NULL;
	const char *file = cpl_gotmpl_strndup(g, path, strlen(path));
	const struct cpl_ynode *doc;
	struct gval *v;

	if (cpl_yaml_parse(&s, path, text, len, err) < 0)
		return -1;
	doc = cpl_ystream_count(s) > 0 ? cpl_ystream_doc(s, 0) : NULL;
	if (doc != NULL && !cpl_ynode_is_null(doc)) {
		if (doc->kind != CPL_Y_MAP) {
			cpl_error_set(err, path, doc->line, doc->column,
				      "values are not a mapping");
			cpl_ystream_free(s);
			return -1;
		}
		v = from_ynode(g, file, doc, 0);
		merge(g, g->values, v);
	}
	cpl_ystream_free(s);
	return 0;
}

int
cpl_gotmpl_set(struct cpl_gotmpl *g, const char *kv, struct cpl_error *err)
{
	const char *p = kv;

	while (*p) {
		const char *end = strchr(p, ','), *eq;
		size_t n = end ? (size_t)(end - p) : strlen(p);
		struct gval *m = g->values, *v;
		const char *k = p;

		eq = memchr(p, '=', n);
		if (eq == NULL || eq == p || memchr(p, '\\', n) ||
		    memchr(p, '[', (size_t)(eq - p)) || memchr(p, '{', n)) {
			cpl_error_set(err, NULL, 0, 0, "--helm-set %s: only "
				      "KEY=VALUE with dotted keys is read "
				      "(no lists, escapes or braces)", kv);
			return -1;
		}
		for (;;) {
			const char *dot = memchr(k, '.', (size_t)(eq - k));
			char *key;

			key = cpl_xstrndup(k, dot ? (size_t)(dot - k) :
					   (size_t)(eq - k));
			if (*key == '\0') {
				free(key);
				cpl_error_set(err, NULL, 0, 0, "--helm-set %s: "
					      "an empty key", kv);
				return -1;
			}
			if (dot == NULL) {
				const char *val = eq + 1;
				size_t vl = n - (size_t)(val - p);
				char *vs = cpl_xstrndup(val, vl);

				if (strcmp(vs, "true") == 0 ||
				    strcmp(vs, "false") == 0)
					v = cpl_gotmpl_val_bool(g, vs[0] == 't');
				else if (strcmp(vs, "null") == 0)
					v = cpl_gotmpl_val_new(g, GV_NIL);
				else if (vl > 0 && vl < 19 &&
					 strspn(vs + (vs[0] == '-'),
						"0123456789") ==
					 vl - (vs[0] == '-') &&
					 vl > (size_t)(vs[0] == '-') &&
					 !(vs[vs[0] == '-'] == '0' &&
					   vl > (size_t)(vs[0] == '-') + 1)) {
					v = cpl_gotmpl_val_str(g, vs, vl);
					v->kind = GV_INT;
					v->gokind = 2;
				} else {
					v = cpl_gotmpl_val_str(g, vs, vl);
				}
				free(vs);
				gv_put(g, m, key, v);
				free(key);
				break;
			}
			v = gv_get(m, key);
			if (v == NULL || v->kind != GV_MAP) {
				v = cpl_gotmpl_val_new(g, GV_MAP);
				gv_put(g, m, key, v);
			}
			free(key);
			m = v;
			k = dot + 1;
		}
		if (end == NULL)
			break;
		p = end + 1;
	}
	return 0;
}

void
cpl_gotmpl_builtin(struct cpl_gotmpl *g, const char *obj, const char *key,
		   const char *value)
{
	struct gval *m = gv_get(g->root, obj);

	if (m != NULL)
		gv_put(g, m, key, cpl_gotmpl_val_str(g, value, strlen(value)));
}

void
cpl_gotmpl_files(struct cpl_gotmpl *g, cpl_gotmpl_files_fn fn, void *ctx)
{
	g->files_fn = fn;
	g->files_ctx = ctx;
}

int
cpl_gotmpl_add(struct cpl_gotmpl *g, const char *path, const char *text,
	       size_t len, struct cpl_error *err)
{
	struct gtfile *f = cpl_gotmpl_alloc(g, sizeof(*f));
	int rc;

	f->path = cpl_gotmpl_strndup(g, path, strlen(path));
	rc = cpl_gotmpl_parse(g, f->path, text, len, &f->list, err);
	if (rc == 0)
		cpl_strmap_put(&g->files, f->path, f);
	return rc;
}

/* ---- evaluation -------------------------------------------------------- */

struct var {
	const char *name;
	struct gval *v;
};

/* The output and where its lines came from. */
struct out {
	struct cpl_buf b;
	struct cpl_gotmpl_line *lines;
	size_t nlines, cap;
	int col;		/* of the next byte, 1-based */
	bool started;		/* the current line has a non-blank byte */
};

struct ev {
	struct cpl_gotmpl *g;
	struct cpl_error *err;
	int rc;
	struct var *vars;
	size_t nvars, vars_cap;
	int depth;
	size_t work;
	size_t floor;		/* the first variable the running
				 * template sees */
	const char *file;	/* of the node running */
};

static void
ev_fail(struct ev *e, int rc, const char *file, int line, int col,
	const char *fmt, const char *what)
{
	if (e->rc != 0)
		return;
	e->rc = rc;
	cpl_error_set(e->err, file, line, col, fmt, what);
}

#define OUTSIDE " is outside the template subset the tool evaluates"

static void
out_newline(struct out *o)
{
	CPL_GROW(o->lines, o->cap, o->nlines + 1);
	memset(&o->lines[o->nlines], 0, sizeof(o->lines[0]));
	o->nlines++;
	o->col = 1;
	o->started = false;
}

/* Appends s; text (literal) bytes come from file at line:col onwards,
 * values' from the action at line:col, their lines from origins (values
 * files) and tl (template places, include's text). */
static void
out_add(struct out *o, const char *s, size_t n, bool literal,
	const char *file, int line, int col, const struct gorigin *origins,
	size_t norigins, const struct gorigin *one,
	const struct cpl_gotmpl_line *tl, size_t ntl)
{
	size_t i, oline = 0;
	int start = o->nlines ? o->col : 1;

	if (o->nlines == 0)
		out_newline(o);
	for (i = 0; i < n; i++) {
		struct cpl_gotmpl_line *l = &o->lines[o->nlines - 1];
		const struct gorigin *org = origins ?
			(oline < norigins ? &origins[oline] : NULL) : one;
		const struct cpl_gotmpl_line *t = tl && oline < ntl &&
			tl[oline].file ? &tl[oline] : NULL;
		char c = s[i];

		if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			if (!o->started && t != NULL) {
				o->started = true;
				*l = *t;
				l->out_column = t->out_column + start - 1;
			} else if (!o->started) {
				o->started = true;
				l->file = file;
				l->line = line;
				l->column = col;
				l->out_column = o->col;
				l->literal = literal;
			} else if (t == NULL && l->literal &&
				   (!literal || l->line != line ||
				    l->file != file)) {
				l->literal = false;
				l->literal_to = o->col;
			}
			if (!literal && l->vfile == NULL && org != NULL &&
			    org->file != NULL) {
				l->vfile = org->file;
				l->vline = org->line;
			}
		}
		cpl_buf_addc(&o->b, c);
		if (c == '\n') {
			out_newline(o);
			oline++;
			start = 1;
			if (literal) {
				line++;
				col = 1;
			}
		} else {
			o->col++;
			if (literal)
				col++;
		}
	}
}

/* A variable of the template running: a named template sees only its
 * own (from floor up), as in Go. */
static struct gval *
var_get(struct ev *e, const char *name)
{
	size_t i;

	for (i = e->nvars; i-- > e->floor;)
		if (strcmp(e->vars[i].name, name) == 0)
			return e->vars[i].v;
	return NULL;
}

static void
var_push(struct ev *e, const char *name, struct gval *v)
{
	CPL_GROW(e->vars, e->vars_cap, e->nvars + 1);
	e->vars[e->nvars].name = name;
	e->vars[e->nvars++].v = v;
}

/* Go's truth: false, 0, nil, empty string, map or list are false. */
static int
truth(struct ev *e, const struct gval *v, int line, int col)
{
	switch (v->kind) {
	case GV_NIL:
		return 0;
	case GV_BOOL:
		return v->b;
	case GV_STR:
		return v->len > 0;
	case GV_INT:
	case GV_FLOAT:
		return strspn(v->s, "-0.") != strlen(v->s);
	case GV_MAP:
	case GV_SEQ:
		return v->n > 0;
	default:
		ev_fail(e, 1, e->file, line, col, "%s", "a value Helm reads "
			"in a way the tool does not model" OUTSIDE);
		return -1;
	}
}

/* A scalar as text (Go's %v); NULL and a failure when it has none the
 * tool can give exactly. */
static const char *
strval(struct ev *e, const struct gval *v, int line, int col)
{
	switch (v->kind) {
	case GV_NIL:
		return "";
	case GV_BOOL:
		return v->b ? "true" : "false";
	case GV_STR:
		return v->s;
	case GV_INT:
	case GV_FLOAT:
		return v->s;
	case GV_MAP:
	case GV_SEQ:
		ev_fail(e, 1, e->file, line, col, "%s", "printing a map or "
			"list without toYaml" OUTSIDE);
		return NULL;
	default:
		ev_fail(e, 1, e->file, line, col, "%s", "a value Helm reads "
			"in a way the tool does not model" OUTSIDE);
		return NULL;
	}
}

static struct gval *eval_pipe(struct ev *e, const struct pipe *p,
			      struct gval *dot);
static void run_list(struct ev *e, const struct nlist *l, struct gval *dot,
		     struct out *o);

/* .a.b from v. */
static struct gval *
fields_of(struct ev *e, struct gval *v, const struct arg *a)
{
	size_t i;

	for (i = 0; i < a->nfields; i++) {
		struct gval *next;

		if (v->kind == GV_NIL) {
			ev_fail(e, -1, e->file, a->line, a->column, "nil "
				"pointer evaluating interface {}.%s",
				a->fields[i]);
			return NULL;
		}
		if (v->kind == GV_FILES) {
			ev_fail(e, 1, e->file, a->line, a->column,
				".Files.%s" OUTSIDE, a->fields[i]);
			return NULL;
		}
		if (v->kind != GV_MAP) {
			ev_fail(e, -1, e->file, a->line, a->column,
				"can't evaluate field %s in a value that is "
				"not a map", a->fields[i]);
			return NULL;
		}
		if (v == e->g->root && strcmp(a->fields[i], "Values") != 0 &&
		    strcmp(a->fields[i], "Release") != 0 &&
		    strcmp(a->fields[i], "Chart") != 0 &&
		    strcmp(a->fields[i], "Files") != 0) {
			ev_fail(e, 1, e->file, a->line, a->column,
				".%s" OUTSIDE, a->fields[i]);
			return NULL;
		}
		if ((v == e->g->release || v == e->g->chart) &&
		    gv_get(v, a->fields[i]) == NULL) {
			ev_fail(e, 1, e->file, a->line, a->column,
				"this built-in field (%s)" OUTSIDE,
				a->fields[i]);
			return NULL;
		}
		next = gv_get(v, a->fields[i]);
		v = next ? next : cpl_gotmpl_val_new(e->g, GV_NIL);
	}
	return v;
}

/* The value of one operand (not a function). */
static struct gval *
eval_arg(struct ev *e, const struct arg *a, struct gval *dot)
{
	struct gval *v;

	switch (a->kind) {
	case A_DOT:
		return dot;
	case A_FIELD:
		return fields_of(e, dot, a);
	case A_VAR:
		v = var_get(e, a->name);
		if (v == NULL) {
			ev_fail(e, -1, e->file, a->line, a->column,
				"undefined variable \"$%s\"", a->name);
			return NULL;
		}
		return fields_of(e, v, a);
	case A_STR:
		return cpl_gotmpl_val_str(e->g, a->name, strlen(a->name));
	case A_NUM:
		v = cpl_gotmpl_val_str(e->g, a->name, strlen(a->name));
		v->kind = GV_INT;
		v->gokind = 1;
		return v;
	case A_BOOL:
		return cpl_gotmpl_val_bool(e->g, a->name[0] == 't');
	case A_NIL:
		return cpl_gotmpl_val_new(e->g, GV_NIL);
	case A_PIPE:
		return eval_pipe(e, a->sub, dot);
	default:
		ev_fail(e, -1, e->file, a->line, a->column, "function \"%s\" "
			"used as a value", a->name);
		return NULL;
	}
}

/* Sprig's empty. */
static int
empty(struct ev *e, const struct gval *v, int line, int col)
{
	int t = truth(e, v, line, col);

	return t < 0 ? -1 : !t;
}

static long
int_arg(struct ev *e, const struct gval *v, int line, int col)
{
	long n;

	if ((v->kind != GV_INT && v->kind != GV_FLOAT) ||
	    cpl_parse_long(&n, v->s) < 0 || n < 0 || n > 4096) {
		ev_fail(e, 1, e->file, line, col, "%s", "a count that is not "
			"a small whole number" OUTSIDE);
		return -1;
	}
	return n;
}

/* Whether s prints the same under %q as between two quotes. */
static bool
plain_quotable(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			return false;
	}
	return true;
}

/* A string result whose lines carry origins (toYaml, include). */
static struct gval *
gv_lines(struct cpl_gotmpl *g, const char *s, size_t len,
	 const struct gorigin *lines, size_t nlines)
{
	struct gval *v = cpl_gotmpl_val_str(g, s, len);

	v->lines = lines;
	v->nlines = nlines;
	return v;
}

static struct gval *call(struct ev *e, const struct cmd *c,
			 struct gval *dot, struct gval *piped);

static struct gval *
eval_pipe(struct ev *e, const struct pipe *p, struct gval *dot)
{
	struct gval *v = NULL;
	size_t i;

	for (i = 0; i < p->n && e->rc == 0; i++)
		v = call(e, &p->cmds[i], dot, v);
	if (e->rc != 0)
		return NULL;
	if (p->assign == 1 && p->nvars == 1)
		var_push(e, p->vars[0], v);
	else if (p->assign == 2 && p->nvars == 1) {
		size_t k;

		for (k = e->nvars; k-- > e->floor;)
			if (strcmp(e->vars[k].name, p->vars[0]) == 0) {
				e->vars[k].v = v;
				break;
			}
	}
	return v;
}

/* Renders a named template with dot into a string with line origins. */
static struct gval *
include(struct ev *e, const char *name, struct gval *dot, int line, int col)
{
	const struct nlist *body = cpl_strmap_get(&e->g->defines, name);
	struct out o = { 0 };
	struct gorigin *org;
	struct gval *v;
	size_t i, nvars = e->nvars, floor;
	const char *file = e->file;

	if (body == NULL) {
		ev_fail(e, -1, e->file, line, col, "no template \"%s\"",
			name);
		return NULL;
	}
	if (e->depth >= MAX_DEPTH) {
		ev_fail(e, 1, e->file, line, col, "%s", "templates included "
			"this deep" OUTSIDE);
		return NULL;
	}
	e->depth++;
	cpl_buf_init(&o.b, MAX_OUT);
	floor = e->floor;
	e->floor = e->nvars;
	var_push(e, "", dot);
	run_list(e, body, dot, &o);
	e->nvars = nvars;
	e->floor = floor;
	e->file = file;
	e->depth--;
	if (e->rc != 0) {
		cpl_buf_free(&o.b);
		free(o.lines);
		return NULL;
	}
	org = cpl_gotmpl_alloc(e->g, (o.nlines + 1) * sizeof(*org));
	for (i = 0; i < o.nlines; i++) {
		org[i].file = o.lines[i].vfile;
		org[i].line = o.lines[i].vline;
	}
	v = gv_lines(e->g, cpl_buf_str(&o.b), o.b.len, org, o.nlines);
	{
		struct cpl_gotmpl_line *tl = cpl_gotmpl_alloc(e->g,
			(o.nlines + 1) * sizeof(*tl));

		if (o.nlines > 0)
			memcpy(tl, o.lines, o.nlines * sizeof(*tl));
		v->tlines = tl;
		v->ntlines = o.nlines;
	}
	cpl_buf_free(&o.b);
	free(o.lines);
	return v;
}

/* A key and where it stands, for sorting without shared state. */
struct keypos {
	const char *key;
	size_t at;
};

static int
cmp_key(const void *a, const void *b)
{
	return strcmp(((const struct keypos *)a)->key,
		      ((const struct keypos *)b)->key);
}

/* Range order: a map's keys sorted bytewise (Go's), a list in order. */
static void
sort_keys(const struct gval *v, size_t *order)
{
	struct keypos *kp;
	size_t i;

	for (i = 0; i < v->n; i++)
		order[i] = i;
	if (v->kind != GV_MAP || v->n < 2)
		return;
	kp = cpl_xcalloc(v->n, sizeof(*kp));
	for (i = 0; i < v->n; i++) {
		kp[i].key = v->keys[i];
		kp[i].at = i;
	}
	qsort(kp, v->n, sizeof(*kp), cmp_key);
	for (i = 0; i < v->n; i++)
		order[i] = kp[i].at;
	free(kp);
}

/* toYaml v. */
static struct gval *
to_yaml(struct ev *e, const struct gval *v, int line, int col)
{
	struct cpl_buf b = { 0 };
	struct gorigin *org = NULL;
	size_t norg = 0;
	const char *why = NULL;
	struct gval *r;

	if (cpl_gotmpl_yaml(e->g, v, &b, &org, &norg, &why) != 0) {
		cpl_buf_free(&b);
		ev_fail(e, 1, e->file, line, col, "%s" OUTSIDE, why);
		return NULL;
	}
	r = gv_lines(e->g, cpl_buf_str(&b), b.len, org, norg);
	cpl_buf_free(&b);
	return r;
}

/* indent/nindent: pad every line (sprig: also empty ones). */
static struct gval *
indent(struct ev *e, long n, const struct gval *v, bool newline, int line,
       int col)
{
	struct cpl_buf b = { 0 };
	const char *s = strval(e, v, line, col);
	struct gorigin *org = NULL;
	size_t i, nl = 1;
	struct gval *r;

	if (s == NULL)
		return NULL;
	if (newline)
		cpl_buf_addc(&b, '\n');
	for (i = 0; i < (size_t)n; i++)
		cpl_buf_addc(&b, ' ');
	for (; *s; s++) {
		cpl_buf_addc(&b, *s);
		if (*s == '\n') {
			nl++;
			for (i = 0; i < (size_t)n; i++)
				cpl_buf_addc(&b, ' ');
		}
	}
	org = cpl_gotmpl_alloc(e->g, (nl + 1) * sizeof(*org));
	for (i = 0; i < nl; i++) {
		const struct gorigin one = { v->file, v->line };
		const struct gorigin *src = v->lines ?
			(i < v->nlines ? &v->lines[i] : NULL) : &one;

		if (src)
			org[i + newline] = *src;
	}
	r = gv_lines(e->g, cpl_buf_str(&b), b.len, org, nl + newline);
	if (v->tlines != NULL) {
		struct cpl_gotmpl_line *tl = cpl_gotmpl_alloc(e->g,
			(nl + 1) * sizeof(*tl));

		for (i = 0; i < nl && i < v->ntlines; i++) {
			tl[i + newline] = v->tlines[i];
			if (tl[i + newline].file != NULL)
				tl[i + newline].out_column += (int)n;
		}
		r->tlines = tl;
		r->ntlines = nl + newline;
	}
	cpl_buf_free(&b);
	return r;
}

/* printf with %s, %d, %v and %%. */
static struct gval *
printf_(struct ev *e, struct gval **args, size_t n, int line, int col)
{
	struct cpl_buf b = { 0 };
	const char *f;
	size_t k = 1;
	struct gval *r;

	if (n == 0 || args[0]->kind != GV_STR) {
		ev_fail(e, 1, e->file, line, col, "%s", "printf without a "
			"format string" OUTSIDE);
		return NULL;
	}
	for (f = args[0]->s; *f; f++) {
		const char *s;

		if (*f != '%') {
			cpl_buf_addc(&b, *f);
			continue;
		}
		f++;
		if (*f == '%') {
			cpl_buf_addc(&b, '%');
			continue;
		}
		if ((*f != 's' && *f != 'd' && *f != 'v') || k >= n ||
		    (*f == 'd' && args[k]->kind != GV_INT) ||
		    (*f == 's' && args[k]->kind == GV_NIL)) {
			cpl_buf_free(&b);
			ev_fail(e, 1, e->file, line, col, "%s", "this printf "
				"verb or argument" OUTSIDE);
			return NULL;
		}
		s = strval(e, args[k++], line, col);
		if (s == NULL) {
			cpl_buf_free(&b);
			return NULL;
		}
		cpl_buf_adds(&b, s);
	}
	if (k != n) {
		cpl_buf_free(&b);
		ev_fail(e, 1, e->file, line, col, "%s", "printf with extra "
			"arguments" OUTSIDE);
		return NULL;
	}
	r = cpl_gotmpl_val_str(e->g, cpl_buf_str(&b), b.len);
	cpl_buf_free(&b);
	return r;
}

/* .Files.Get name. */
static struct gval *
files_get(struct ev *e, const struct gval *name, int line, int col)
{
	char *text = NULL;
	size_t len = 0;
	struct gval *r;

	if (name->kind != GV_STR) {
		ev_fail(e, -1, e->file, line, col, "%s",
			".Files.Get needs a file name");
		return NULL;
	}
	if (e->g->files_fn == NULL ||
	    e->g->files_fn(e->g->files_ctx, name->s, &text, &len) < 0)
		return cpl_gotmpl_val_str(e->g, "", 0);	/* Helm: "" when absent */
	r = cpl_gotmpl_val_str(e->g, text, len);
	free(text);
	return r;
}

/* Whether two scalars are equal as Go's eq compares them: values of
 * different kinds fail (as in Helm), nil equals only nil. */
static int
equal(struct ev *e, const struct gval *a, const struct gval *b, int line,
      int col)
{
	const char *why = NULL;
	int c = 0, rc;

	if (a->kind == GV_NIL || b->kind == GV_NIL)
		return a->kind == b->kind;
	rc = cpl_gotmpl_compare(a, b, &c, &why);
	if (rc < 0)
		ev_fail(e, -1, e->file, line, col, "error calling eq: %s",
			why);
	else if (rc > 0)
		ev_fail(e, 1, e->file, line, col, "%s" OUTSIDE, why);
	return rc != 0 ? -1 : c == 0;
}

static bool
need(struct ev *e, size_t n, size_t want, const char *name, int line,
     int col)
{
	if (n == want)
		return true;
	ev_fail(e, -1, e->file, line, col, "wrong number of args for %s",
		name);
	return false;
}

/* One command: a function with its arguments (piped: the last), a
 * .Files.Get, or an operand. */
static struct gval *
call(struct ev *e, const struct cmd *c, struct gval *dot, struct gval *piped)
{
	const struct arg *f = &c->args[0];
	struct gval *args[16], *r = NULL;
	size_t n = 0, i;
	const char *name;
	int line = f->line, col = f->column, t;

	if (f->kind != A_IDENT) {
		if ((f->kind == A_FIELD || f->kind == A_VAR) &&
		    f->nfields >= 2 &&
		    strcmp(f->fields[f->nfields - 1], "Get") == 0 &&
		    strcmp(f->fields[f->nfields - 2], "Files") == 0) {
			struct arg pre = *f;
			struct gval *files, *arg;

			pre.nfields--;
			files = eval_arg(e, &pre, dot);
			if (files == NULL || files->kind != GV_FILES) {
				ev_fail(e, 1, e->file, line, col, "%s",
					"this .Files" OUTSIDE);
				return NULL;
			}
			if (c->n + (piped != NULL) != 2) {
				ev_fail(e, -1, e->file, line, col, "%s",
					"wrong number of args for Get");
				return NULL;
			}
			arg = piped ? piped : eval_arg(e, &c->args[1], dot);
			return arg ? files_get(e, arg, line, col) : NULL;
		}
		if (c->n > 1 || piped != NULL) {
			ev_fail(e, f->kind == A_FIELD || f->kind == A_VAR ?
				1 : -1, e->file, line, col, "%s",
				"arguments to a value (a method call)"
				OUTSIDE);
			return NULL;
		}
		return eval_arg(e, f, dot);
	}
	name = f->name;
	if (c->n + 1 > 16) {
		ev_fail(e, 1, e->file, line, col, "%s", "a call with this "
			"many arguments" OUTSIDE);
		return NULL;
	}
	if (strcmp(name, "and") == 0 || strcmp(name, "or") == 0) {
		bool is_and = name[0] == 'a';
		size_t total = c->n - 1 + (piped != NULL);

		if (total == 0) {
			ev_fail(e, -1, e->file, line, col, "%s",
				"and/or need arguments");
			return NULL;
		}
		for (i = 1; i <= total; i++) {
			r = i < c->n ? eval_arg(e, &c->args[i], dot) : piped;
			if (r == NULL)
				return NULL;
			t = truth(e, r, line, col);
			if (t < 0)
				return NULL;
			if (is_and ? !t : t)
				return r;
		}
		return r;
	}
	for (i = 1; i < c->n; i++) {
		if (c->args[i].kind == A_IDENT) {
			/* a niladic function as an argument */
			ev_fail(e, 1, e->file, c->args[i].line,
				c->args[i].column, "%s", "a function as an "
				"argument" OUTSIDE);
			return NULL;
		}
		args[n] = eval_arg(e, &c->args[i], dot);
		if (args[n++] == NULL)
			return NULL;
	}
	if (piped != NULL)
		args[n++] = piped;
	if (strcmp(name, "default") == 0) {
		if (!need(e, n, 2, name, line, col) ||
		    (t = empty(e, args[1], line, col)) < 0)
			return NULL;
		return t ? args[0] : args[1];
	}
	if (strcmp(name, "quote") == 0 || strcmp(name, "squote") == 0) {
		struct cpl_buf b = { 0 };
		char q = name[0] == 'q' ? '"' : '\'';

		for (i = 0; i < n; i++) {
			const char *s;

			if (args[i]->kind == GV_NIL)
				continue;
			s = strval(e, args[i], line, col);
			if (s == NULL || (q == '"' &&
					  !plain_quotable(s, strlen(s)))) {
				cpl_buf_free(&b);
				if (s != NULL)
					ev_fail(e, 1, e->file, line, col, "%s",
						"quote of a string with "
						"escapes" OUTSIDE);
				return NULL;
			}
			if (b.len > 0)
				cpl_buf_addc(&b, ' ');
			cpl_buf_addc(&b, q);
			cpl_buf_adds(&b, s);
			cpl_buf_addc(&b, q);
		}
		r = cpl_gotmpl_val_str(e->g, cpl_buf_str(&b), b.len);
		if (n == 1) {
			r->file = args[0]->file;
			r->line = args[0]->line;
		}
		cpl_buf_free(&b);
		return r;
	}
	if (strcmp(name, "toYaml") == 0)
		return need(e, n, 1, name, line, col) ?
		       to_yaml(e, args[0], line, col) : NULL;
	if (strcmp(name, "nindent") == 0 || strcmp(name, "indent") == 0) {
		long k;

		if (!need(e, n, 2, name, line, col) ||
		    (k = int_arg(e, args[0], line, col)) < 0)
			return NULL;
		return indent(e, k, args[1], name[0] == 'n', line, col);
	}
	if (strcmp(name, "include") == 0) {
		if (!need(e, n, 2, name, line, col))
			return NULL;
		if (args[0]->kind != GV_STR) {
			ev_fail(e, -1, e->file, line, col, "%s",
				"include needs a template name");
			return NULL;
		}
		return include(e, args[0]->s, args[1], line, col);
	}
	if (strcmp(name, "printf") == 0)
		return printf_(e, args, n, line, col);
	if (strcmp(name, "required") == 0) {
		if (!need(e, n, 2, name, line, col))
			return NULL;
		if (args[1]->kind == GV_NIL ||
		    (args[1]->kind == GV_STR && args[1]->len == 0)) {
			const char *m = strval(e, args[0], line, col);

			if (m != NULL)
				ev_fail(e, -1, e->file, line, col,
					"execution error: %s", m);
			return NULL;
		}
		return args[1];
	}
	if (strcmp(name, "not") == 0 || strcmp(name, "empty") == 0) {
		if (!need(e, n, 1, name, line, col) ||
		    (t = truth(e, args[0], line, col)) < 0)
			return NULL;
		return cpl_gotmpl_val_bool(e->g, !t);
	}
	if (strcmp(name, "eq") == 0 || strcmp(name, "ne") == 0) {
		if (!need(e, n, 2, name, line, col) ||
		    (t = equal(e, args[0], args[1], line, col)) < 0)
			return NULL;
		return cpl_gotmpl_val_bool(e->g, name[0] == 'e' ? t : !t);
	}
	if (strcmp(name, "toString") == 0) {
		const char *s;

		if (!need(e, n, 1, name, line, col) ||
		    (s = strval(e, args[0], line, col)) == NULL)
			return NULL;
		r = cpl_gotmpl_val_str(e->g, s, strlen(s));
		r->file = args[0]->file;
		r->line = args[0]->line;
		return r;
	}
	if (strcmp(name, "contains") == 0 || strcmp(name, "trimSuffix") == 0 ||
	    strcmp(name, "trimPrefix") == 0) {
		const char *a, *s;
		size_t la, ls;

		if (!need(e, n, 2, name, line, col) ||
		    (a = strval(e, args[0], line, col)) == NULL ||
		    (s = strval(e, args[1], line, col)) == NULL)
			return NULL;
		la = strlen(a);
		ls = strlen(s);
		if (name[0] == 'c')
			return cpl_gotmpl_val_bool(e->g, strstr(s, a) != NULL);
		if (strcmp(name, "trimSuffix") == 0)
			return cpl_gotmpl_val_str(e->g, s, ls >= la &&
				      memcmp(s + ls - la, a, la) == 0 ?
				      ls - la : ls);
		return ls >= la && memcmp(s, a, la) == 0 ?
		       cpl_gotmpl_val_str(e->g, s + la, ls - la) : cpl_gotmpl_val_str(e->g, s, ls);
	}
	if (strcmp(name, "trunc") == 0) {
		long k;
		const char *s;

		if (!need(e, n, 2, name, line, col) ||
		    (k = int_arg(e, args[0], line, col)) < 0 ||
		    (s = strval(e, args[1], line, col)) == NULL)
			return NULL;
		return cpl_gotmpl_val_str(e->g, s, strlen(s) > (size_t)k ? (size_t)k :
			      strlen(s));
	}
	if (strcmp(name, "lower") == 0 || strcmp(name, "upper") == 0 ||
	    strcmp(name, "trim") == 0) {
		const char *s;
		char *cp;
		size_t len, a = 0;

		if (!need(e, n, 1, name, line, col) ||
		    (s = strval(e, args[0], line, col)) == NULL)
			return NULL;
		len = strlen(s);
		for (i = 0; i < len; i++)
			if ((unsigned char)s[i] >= 0x80) {
				ev_fail(e, 1, e->file, line, col, "%s",
					"case or trimming of non-ASCII text"
					OUTSIDE);
				return NULL;
			}
		if (name[1] == 'r') {
			while (a < len && isspace((unsigned char)s[a]))
				a++;
			while (len > a && isspace((unsigned char)s[len - 1]))
				len--;
			return cpl_gotmpl_val_str(e->g, s + a, len - a);
		}
		cp = cpl_xstrndup(s, len);
		for (i = 0; i < len; i++)
			cp[i] = (char)(name[0] == 'l' ?
				       tolower((unsigned char)cp[i]) :
				       toupper((unsigned char)cp[i]));
		r = cpl_gotmpl_val_str(e->g, cp, len);
		free(cp);
		return r;
	}
	if (strcmp(name, "replace") == 0) {
		const char *o, *nw, *s, *p;
		struct cpl_buf b = { 0 };
		size_t lo;

		if (!need(e, n, 3, name, line, col) ||
		    (o = strval(e, args[0], line, col)) == NULL ||
		    (nw = strval(e, args[1], line, col)) == NULL ||
		    (s = strval(e, args[2], line, col)) == NULL)
			return NULL;
		lo = strlen(o);
		if (lo == 0) {
			ev_fail(e, 1, e->file, line, col, "%s",
				"replace of an empty string" OUTSIDE);
			return NULL;
		}
		while ((p = strstr(s, o)) != NULL) {
			cpl_buf_add(&b, s, (size_t)(p - s));
			cpl_buf_adds(&b, nw);
			s = p + lo;
		}
		cpl_buf_adds(&b, s);
		r = cpl_gotmpl_val_str(e->g, cpl_buf_str(&b), b.len);
		cpl_buf_free(&b);
		return r;
	}
	{
		const char *why = NULL;

		switch (cpl_gotmpl_func(e->g, name, args, n, &r, &why)) {
		case 0:
			return r;
		case -1:
			ev_fail(e, -1, e->file, line, col, strcmp(name, "fail")
				== 0 ? "execution error: %s" : "error calling "
				"a function: %s", why);
			return NULL;
		case 1:
			ev_fail(e, 1, e->file, line, col, "%s" OUTSIDE, why);
			return NULL;
		default:
			break;
		}
	}
	ev_fail(e, 1, e->file, line, col, "function \"%s\"" OUTSIDE, name);
	return NULL;
}

static void
emit_value(struct ev *e, struct out *o, const struct gval *v, int line,
	   int col)
{
	const char *s = strval(e, v, line, col);
	struct gorigin one = { v->file, v->line };

	if (s == NULL)
		return;
	out_add(o, s, strlen(s), false, e->file, line, col, v->lines,
		v->nlines, &one, v->tlines, v->ntlines);
}

/* The parent scope's variables are restored after each block. */
static void
run_node(struct ev *e, const struct node *n, struct gval *dot,
	 struct out *o)
{
	struct gval *v;
	size_t nvars = e->nvars, i;
	int t;

	if (++e->work > MAX_WORK) {
		ev_fail(e, 1, n->file, n->line, n->column, "%s",
			"a template this long to run" OUTSIDE);
		return;
	}
	e->file = n->file;
	switch (n->kind) {
	case N_TEXT:
		out_add(o, n->text, n->len, true, n->file, n->line,
			n->column, NULL, 0, NULL, NULL, 0);
		return;
	case N_ACTION:
		v = eval_pipe(e, n->pipe, dot);
		if (v != NULL && n->pipe->assign == 0)
			emit_value(e, o, v, n->line, n->column);
		return;
	case N_TEMPLATE:
		v = n->pipe ? eval_pipe(e, n->pipe, dot) :
		    cpl_gotmpl_val_new(e->g, GV_NIL);
		if (v == NULL)
			return;
		v = include(e, n->name, v, n->line, n->column);
		if (v != NULL)
			emit_value(e, o, v, n->line, n->column);
		return;
	case N_IF:
	case N_WITH:
		v = eval_pipe(e, n->pipe, dot);
		if (v == NULL)
			return;
		t = truth(e, v, n->line, n->column);
		if (t < 0)
			return;
		if (t)
			run_list(e, &n->body, n->kind == N_WITH ? v : dot, o);
		else
			run_list(e, &n->alt, dot, o);
		e->nvars = nvars;
		return;
	case N_RANGE: {
		struct pipe p = *n->pipe;

		p.assign = 0;
		v = eval_pipe(e, &p, dot);
		if (v == NULL)
			return;
		if (v->kind == GV_NIL || ((v->kind == GV_MAP ||
					   v->kind == GV_SEQ) && v->n == 0)) {
			run_list(e, &n->alt, dot, o);
			e->nvars = nvars;
			return;
		}
		if (v->kind != GV_MAP && v->kind != GV_SEQ) {
			ev_fail(e, 1, n->file, n->line, n->column, "%s",
				"range over a value that is not a map or "
				"list" OUTSIDE);
			return;
		}
		{
			size_t *order = cpl_xcalloc(v->n, sizeof(*order));

			sort_keys(v, order);
			for (i = 0; i < v->n && e->rc == 0; i++) {
				struct gval *key, *item = v->vals[order[i]];

				if (v->kind == GV_MAP) {
					const char *k = v->keys[order[i]];

					key = cpl_gotmpl_val_str(e->g, k, strlen(k));
				} else {
					char num[24];

					cpl_format(num, sizeof(num), "%zu", i);
					key = cpl_gotmpl_val_str(e->g, num, strlen(num));
					key->kind = GV_INT;
					key->gokind = 1;
				}
				e->nvars = nvars;
				if (n->pipe->nvars == 1)
					var_push(e, n->pipe->vars[0], item);
				else if (n->pipe->nvars == 2) {
					var_push(e, n->pipe->vars[0], key);
					var_push(e, n->pipe->vars[1], item);
				}
				run_list(e, &n->body, item, o);
			}
			free(order);
		}
		e->nvars = nvars;
		return;
	}
	}
}

static void
run_list(struct ev *e, const struct nlist *l, struct gval *dot,
	 struct out *o)
{
	size_t i;

	for (i = 0; i < l->n && e->rc == 0; i++)
		run_node(e, l->v[i], dot, o);
}

int
cpl_gotmpl_render(struct cpl_gotmpl *g, const char *path,
		  struct cpl_gotmpl_out *result, struct cpl_error *err)
{
	const struct gtfile *f = cpl_strmap_get(&g->files, path);
	struct ev e = { 0 };
	struct out o = { 0 };
	struct cpl_gotmpl_line *lines;
	size_t i;
	int last = 1;
	const char *lastf = path;

	memset(result, 0, sizeof(*result));
	if (f == NULL) {
		cpl_error_set(err, path, 0, 0, "not a template of the chart");
		return -1;
	}
	e.g = g;
	e.err = err;
	e.file = f->path;
	cpl_buf_init(&o.b, MAX_OUT);
	var_push(&e, "", g->root);
	run_list(&e, &f->list, g->root, &o);
	free(e.vars);
	if (e.rc == 0 && o.b.overflow) {
		cpl_error_set(err, path, 0, 0, "rendered text is too large");
		e.rc = -1;
	}
	if (e.rc != 0) {
		cpl_buf_free(&o.b);
		free(o.lines);
		return e.rc;
	}
	if (o.nlines == 0)
		out_newline(&o);
	/* blank lines stand at the last place known */
	lines = cpl_gotmpl_alloc(g, o.nlines * sizeof(*lines));
	for (i = 0; i < o.nlines; i++) {
		lines[i] = o.lines[i];
		if (lines[i].file == NULL) {
			lines[i].file = lastf;
			lines[i].line = last;
			lines[i].column = 1;
			lines[i].out_column = 1;
		}
		last = lines[i].line;
		lastf = lines[i].file;
	}
	result->len = o.b.len;
	result->text = cpl_gotmpl_strndup(g, cpl_buf_str(&o.b), o.b.len);
	result->lines = lines;
	result->nlines = o.nlines;
	cpl_buf_free(&o.b);
	free(o.lines);
	return 0;
}
