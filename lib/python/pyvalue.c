/*
 * pyvalue.c — value resolution over scanned Python (pyvalue.h).
 *
 * An expression is a token range; it is evaluated by a small
 * precedence-climbing parser that computes as it parses.  Names, calls,
 * parameters and argparse options recurse into other expressions of the
 * same or a linked file, carrying a frame: the file and the call site (if
 * any) that binds the parameters of one def.
 *
 * Invariant: every recursion goes through enter(), which charges the
 * step budget and the depth limit; once either is spent every answer is
 * UNKNOWN, so no input can make a resolution slow or unbounded.  Values
 * never own memory: strings are slices of a file's text, of an argv word
 * or of an environment value, all borrowed for the resolution.
 */
#include "python/pyvalue.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 32
#define MAX_STEPS 4000
#define MAX_SITES 32

enum vkind {
	V_UNKNOWN,
	V_NUM,
	V_STR,
	V_NONE,
	V_HOST,
	V_NS,		/* an argparse namespace (parse_args result) */
};

/* A value while resolving. */
struct val {
	enum vkind kind;
	double num;		/* V_NUM; V_STR made by str(number) */
	bool isint;
	bool strnum;		/* V_STR is the decimal form of num */
	const char *s;		/* V_STR bytes, borrowed */
	size_t n;
	const struct cpl_pyfile *ns;	/* V_NS: the file of parse_args() */
	enum cpl_pyval_origin origin;
	struct cpl_pos pos;
	struct cpl_pos host;
};

/* The state of one resolution: environment and budget. */
struct ctx {
	const struct cpl_pyenv *env;
	struct cpl_pyenv none;
	const struct cpl_pyfile *self[1];
	int steps;
	int depth;
};

/* The file an expression is read in and the site binding one def. */
struct frame {
	const struct cpl_pyfile *f;
	const struct cpl_pysite *site;
	int site_func;		/* the def site calls, -1 */
};

/* A parse over tokens [k, end) of a file. */
struct ev {
	struct ctx *cx;
	const struct frame *fr;
	const struct cpl_pyfile *f;
	size_t k;
	size_t end;
	int scope;
	int block;
	bool bad;		/* not an expression we read */
};

static struct val expr(struct ev *ev);
static struct val eval_range(struct ctx *cx, const struct frame *fr,
			     const struct cpl_pyexpr *e);
static struct val eval_name(struct ctx *cx, const struct frame *fr,
			    int scope, const char *name, size_t use_tok,
			    int use_block);

/* ---- values ----------------------------------------------------------- */

/* A value that cannot be read. */
static struct val
unknown(void)
{
	struct val v;

	memset(&v, 0, sizeof(v));
	return v;
}

/* A number from origin at pos. */
static struct val
number(double d, bool isint, enum cpl_pyval_origin origin,
       struct cpl_pos pos)
{
	struct val v = unknown();

	v.kind = V_NUM;
	v.num = d;
	v.isint = isint;
	v.origin = origin;
	v.pos = pos;
	return v;
}

/* A value that depends on the CPU-count call at pos. */
static struct val
host(struct cpl_pos pos)
{
	struct val v = unknown();

	v.kind = V_HOST;
	v.origin = CPL_PYORIG_HOST;
	v.pos = pos;
	v.host = pos;
	return v;
}

/* How much an origin tells a reader, for picking one of two. */
static int
rank(enum cpl_pyval_origin o)
{
	switch (o) {
	case CPL_PYORIG_COMMAND: return 5;
	case CPL_PYORIG_ENV: return 4;
	case CPL_PYORIG_DEFAULT: return 3;
	case CPL_PYORIG_CODE: return 2;
	case CPL_PYORIG_IMPLICIT: return 1;
	default: return 0;
	}
}

/* The operand whose origin says most about a result built from both. */
static const struct val *
telling(const struct val *a, const struct val *b)
{
	return rank(b->origin) > rank(a->origin) ? b : a;
}

/* Two values that may both reach one use. */
static struct val
combine(struct val a, struct val b)
{
	if (a.kind == V_HOST)
		return a;
	if (b.kind == V_HOST)
		return b;
	if (a.kind == V_NUM && b.kind == V_NUM && a.num == b.num)
		return *telling(&a, &b);
	if (a.kind == V_NONE && b.kind == V_NONE)
		return a;
	if (a.kind == V_NS && b.kind == V_NS && a.ns == b.ns)
		return a;
	if (a.kind == V_STR && b.kind == V_STR && !a.strnum && !b.strnum &&
	    a.n == b.n && memcmp(a.s, b.s, a.n) == 0)
		return a;
	return unknown();
}

/*
 * Python's int()/float() of text: blanks around, a sign, digits with
 * single underscores between them (and for floats a point and exponent).
 */
static int
parse_text(double *out, bool *isint, const char *s, size_t n, bool want_int)
{
	char buf[64], *end;
	size_t i = 0, m = 0;
	double d;

	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' ||
			 s[n - 1] == '\n'))
		n--;
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n'))
		i++;
	if (i == n || n - i >= sizeof(buf))
		return -1;
	for (; i < n; i++) {
		char c = s[i];

		if (c == '_') {
			if (m == 0 || i + 1 >= n || buf[m - 1] < '0' ||
			    buf[m - 1] > '9' || s[i + 1] < '0' ||
			    s[i + 1] > '9')
				return -1;
			continue;
		}
		if (want_int && !(c >= '0' && c <= '9') &&
		    !((c == '+' || c == '-') && m == 0))
			return -1;
		buf[m++] = c;
	}
	buf[m] = '\0';
	d = strtod(buf, &end);
	if (*end != '\0' || end == buf || !isfinite(d))
		return -1;
	*out = d;
	*isint = want_int;
	return 0;
}

/* int(v), float(v) and friends on a value. */
static struct val
convert(struct val v, const char *how, struct cpl_pos pos)
{
	double d;
	bool isint;

	if (v.kind == V_HOST || v.kind == V_UNKNOWN)
		return v;
	if (strcmp(how, "str") == 0) {
		if (v.kind == V_NUM) {
			v.kind = V_STR;
			v.strnum = true;
		}
		return v.kind == V_STR ? v : unknown();
	}
	if (v.kind == V_STR) {
		if (v.strnum) {
			v.kind = V_NUM;
		} else if (parse_text(&d, &isint, v.s, v.n,
				      strcmp(how, "int") == 0) == 0) {
			v.kind = V_NUM;
			v.num = d;
			v.isint = isint;
		} else {
			return unknown();
		}
		if (strcmp(how, "float") == 0)
			v.isint = false;
		return strcmp(how, "int") == 0 || strcmp(how, "float") == 0 ?
		       v : unknown();
	}
	if (v.kind != V_NUM)
		return unknown();
	if (strcmp(how, "int") == 0 || strcmp(how, "math.trunc") == 0)
		d = trunc(v.num);
	else if (strcmp(how, "float") == 0)
		return number(v.num, false, v.origin, v.pos);
	else if (strcmp(how, "round") == 0)
		d = nearbyint(v.num);
	else if (strcmp(how, "abs") == 0)
		return number(fabs(v.num), v.isint, v.origin, v.pos);
	else if (strcmp(how, "math.floor") == 0)
		d = floor(v.num);
	else if (strcmp(how, "math.ceil") == 0)
		d = ceil(v.num);
	else
		return unknown();
	(void)pos;
	return number(d, true, v.origin, v.pos);
}

/* Python truth of v; *known false when it cannot be told. */
static bool
truthy(const struct val *v, bool *known)
{
	*known = true;
	if (v->kind == V_NUM)
		return v->num != 0;
	if (v->kind == V_NONE)
		return false;
	if (v->kind == V_STR)
		return v->strnum || v->n > 0;
	if (v->kind == V_NS)
		return true;
	*known = false;
	return false;
}

/* a is b, a == b and their negations when one side is None and the
 * other is known; *known false otherwise. */
static bool
none_test(const char *op, const struct val *a, const struct val *b,
	  bool *known)
{
	bool same;

	*known = (a->kind == V_NONE || b->kind == V_NONE) &&
		 a->kind != V_UNKNOWN && b->kind != V_UNKNOWN &&
		 a->kind != V_HOST && b->kind != V_HOST;
	if (!*known)
		return false;
	same = a->kind == b->kind;
	return strcmp(op, "is") == 0 || strcmp(op, "==") == 0 ? same : !same;
}

/* a op b for a binary operator op (as written). */
static struct val
binop(const char *op, struct val a, struct val b)
{
	const struct val *t = telling(&a, &b);
	double x = a.num, y = b.num, r;
	bool isint = a.isint && b.isint, known;

	if (strcmp(op, "is") == 0 || strcmp(op, "is not") == 0 ||
	    strcmp(op, "==") == 0 || strcmp(op, "!=") == 0) {
		bool res = none_test(op, &a, &b, &known);

		if (known)
			return number(res, true, t->origin, t->pos);
	}
	if (a.kind == V_HOST)
		return a;
	if (b.kind == V_HOST)
		return b;
	if (a.kind != V_NUM || b.kind != V_NUM)
		return unknown();
	if (strcmp(op, "+") == 0) {
		r = x + y;
	} else if (strcmp(op, "-") == 0) {
		r = x - y;
	} else if (strcmp(op, "*") == 0) {
		r = x * y;
	} else if (strcmp(op, "/") == 0) {
		if (y == 0)
			return unknown();
		r = x / y;
		isint = false;
	} else if (strcmp(op, "//") == 0) {
		if (y == 0)
			return unknown();
		r = floor(x / y);
	} else if (strcmp(op, "%") == 0) {
		if (y == 0)
			return unknown();
		r = x - y * floor(x / y);
	} else if (strcmp(op, "**") == 0) {
		r = pow(x, y);
		isint = isint && y >= 0;
	} else if (strcmp(op, "<") == 0 || strcmp(op, ">") == 0 ||
		   strcmp(op, "<=") == 0 || strcmp(op, ">=") == 0 ||
		   strcmp(op, "==") == 0 || strcmp(op, "!=") == 0) {
		r = op[0] == '<' ? (op[1] ? x <= y : x < y) :
		    op[0] == '>' ? (op[1] ? x >= y : x > y) :
		    op[0] == '=' ? x == y : x != y;
		isint = true;
	} else {
		return unknown();
	}
	if (!isfinite(r) || fabs(r) > 9.0e15)
		return unknown();
	return number(r, isint, t->origin, t->pos);
}

/* s is one of list[0, n). */
static bool
in_list(const char *s, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(s, list[i]) == 0)
			return true;
	return false;
}

/* ---- the budget ------------------------------------------------------- */

/* Charges one step and one level of depth; false when spent. */
static bool
enter(struct ctx *cx)
{
	if (++cx->steps > MAX_STEPS || cx->depth >= MAX_DEPTH)
		return false;
	cx->depth++;
	return true;
}

/* Returns the level of depth enter() took. */
static void
leave(struct ctx *cx)
{
	cx->depth--;
}

/* ---- tokens ----------------------------------------------------------- */

/* Token t's text is s; inline so that strlen of a literal folds. */
static inline bool
tok_is(const char *text, const struct cpl_pytoken *t, const char *s)
{
	size_t n = strlen(s);

	return t->len == n && memcmp(text + t->off, s, n) == 0;
}

/* The next token of the parse that is not NL or a comment. */
static size_t
at(struct ev *ev)
{
	while (ev->k < ev->end &&
	       (ev->f->toks[ev->k].kind == CPL_PYTOK_NL ||
		ev->f->toks[ev->k].kind == CPL_PYTOK_COMMENT))
		ev->k++;
	return ev->k;
}

/* The next token is operator op. */
static bool
is_op(struct ev *ev, const char *op)
{
	size_t k = at(ev);

	return k < ev->end && ev->f->toks[k].kind == CPL_PYTOK_OP &&
	       tok_is(ev->f->text, &ev->f->toks[k], op);
}

/* The next token is keyword kw. */
static bool
is_kw(struct ev *ev, const char *kw)
{
	size_t k = at(ev);

	return k < ev->end && ev->f->toks[k].kind == CPL_PYTOK_KEYWORD &&
	       tok_is(ev->f->text, &ev->f->toks[k], kw);
}

/* The bracket closing the one at k (within end), end if none. */
static size_t
closing(const struct cpl_pyfile *f, size_t k, size_t end)
{
	int depth = 0;

	for (; k < end; k++) {
		const struct cpl_pytoken *t = &f->toks[k];
		char c;

		if (t->kind != CPL_PYTOK_OP || t->len != 1)
			continue;
		c = f->text[t->off];
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if ((c == ')' || c == ']' || c == '}') && --depth == 0)
			return k;
	}
	return end;
}

/* The first top-level ',' in [k, end), end if none. */
static size_t
top_comma(const struct cpl_pyfile *f, size_t k, size_t end)
{
	for (; k < end; k++) {
		const struct cpl_pytoken *t = &f->toks[k];

		if (t->kind != CPL_PYTOK_OP || t->len != 1)
			continue;
		if (strchr("([{", f->text[t->off]))
			k = closing(f, k, end);
		else if (f->text[t->off] == ',')
			return k;
	}
	return end;
}

/* Copies a token's text into buf (NUL-terminated); false if too long. */
static bool
tok_text(char *buf, size_t size, const struct cpl_pyfile *f, size_t k)
{
	if (f->toks[k].len >= size)
		return false;
	memcpy(buf, f->text + f->toks[k].off, f->toks[k].len);
	buf[f->toks[k].len] = '\0';
	return true;
}

/* The def enclosing scope (itself when a def), -1. */
static int
enclosing_def(const struct cpl_pyfile *f, int scope)
{
	while (scope > 0 && f->scopes[scope].kind != CPL_PYSCOPE_FUNC)
		scope = f->scopes[scope].parent;
	return scope > 0 ? scope : -1;
}

/* The environment of a resolution (never NULL). */
static const struct cpl_pyenv *
env_of(const struct ctx *cx)
{
	return cx->env;
}

/* ---- modules ---------------------------------------------------------- */

/* The last component of a dotted name. */
static const char *
last_name(const char *s)
{
	const char *d = strrchr(s, '.');

	return d ? d + 1 : s;
}

/*
 * The linked file call c of h goes into and, in *qual, the def's
 * qualified name there (a slice of c->remote); NULL when not linked.
 */
static const struct cpl_pyfile *
call_file(struct ctx *cx, const struct cpl_pyfile *h,
	  const struct cpl_pycall *c, const char **qual)
{
	const struct cpl_pyenv *env = env_of(cx);
	const struct cpl_pyimport *im;
	const struct cpl_pyfile *g;
	const char *dot;

	if (c->import < 0 || c->remote == NULL || env->module == NULL)
		return NULL;
	im = &h->imports[c->import];
	dot = strchr(c->remote, '.');
	if (dot) {
		char *sub = cpl_xasprintf("%s%s%.*s", im->module,
					  *im->module ? "." : "",
					  (int)(dot - c->remote), c->remote);

		g = env->module(env->ctx, h, sub, im->level);
		free(sub);
		if (g) {
			*qual = dot + 1;
			return g;
		}
	}
	g = env->module(env->ctx, h, im->module, im->level);
	*qual = c->remote;
	return g;
}

/* ---- argparse --------------------------------------------------------- */

/* w names option flag: exactly, or as a unique prefix of a long flag. */
static bool
flag_match(const struct cpl_pyfile *g, const char *flag, const char *w,
	   size_t wl)
{
	size_t i, j, hits = 0;

	if (strlen(flag) == wl && memcmp(flag, w, wl) == 0)
		return true;
	if (wl < 3 || w[0] != '-' || w[1] != '-' || strlen(flag) <= wl ||
	    strncmp(flag, w, wl) != 0)
		return false;
	for (i = 0; i < g->nargdefs; i++)
		for (j = 0; j < g->argdefs[i].nflags; j++) {
			const char *o = g->argdefs[i].flags[j];

			if (strncmp(o, w, wl) == 0)
				hits++;
			if (strlen(o) == wl && strncmp(o, w, wl) == 0)
				return false;	/* another exact option */
		}
	return hits == 1;
}

/*
 * The command-line word that sets argdef d: *val points into it (its
 * value), *word is the word holding the value, *flag the word naming the
 * option (set with *present even when no value follows).  The last
 * occurrence wins.
 */
static bool
cli_value(const struct cpl_pyfile *g, const struct cpl_pyargdef *d,
	  const struct cpl_pyenv *env, const char **val,
	  const struct cpl_word **word, const struct cpl_word **flag,
	  bool *present)
{
	size_t i, j;
	bool found = false;

	*present = false;
	for (i = 0; i < env->argc; i++) {
		const char *w = env->argv[i].text;
		const char *eq;
		size_t wl;

		if (w == NULL)
			continue;
		if (strcmp(w, "--") == 0)
			break;
		if (w[0] != '-' || w[1] == '\0')
			continue;
		eq = w[1] == '-' ? strchr(w, '=') : NULL;
		wl = eq ? (size_t)(eq - w) : strlen(w);
		for (j = 0; j < d->nflags; j++) {
			const char *fl = d->flags[j];

			if (fl[0] != '-')
				continue;
			if (flag_match(g, fl, w, wl)) {
				*present = true;
				*flag = &env->argv[i];
				if (eq) {
					*val = eq + 1;
					*word = &env->argv[i];
					found = true;
				} else if (i + 1 < env->argc) {
					*val = env->argv[i + 1].text;
					*word = &env->argv[i + 1];
					found = true;
				}
				break;
			}
			if (fl[1] != '-' && strlen(fl) == 2 && !eq &&
			    strncmp(w, fl, 2) == 0 && w[2] != '\0' &&
			    w[1] != '-') {
				*present = true;
				*flag = &env->argv[i];
				*val = w[2] == '=' ? w + 3 : w + 2;
				*word = &env->argv[i];
				found = true;
				break;
			}
		}
	}
	return found;
}

/* The default of argdef d of g: its default= (string defaults go
 * through type=, as argparse does), else None. */
static struct val
option_default(struct ctx *cx, const struct cpl_pyfile *g,
	       const struct cpl_pyargdef *d)
{
	struct frame fr = { g, NULL, -1 };
	struct val v = unknown();

	if (d->def.first >= d->def.last) {
		v.kind = V_NONE;
		v.origin = CPL_PYORIG_DEFAULT;
		v.pos = d->pos;
		return v;
	}
	v = eval_range(cx, &fr, &d->def);
	if (v.kind == V_STR && d->type && (strcmp(d->type, "int") == 0 ||
					   strcmp(d->type, "float") == 0))
		v = convert(v, d->type, d->def.pos);
	if (v.kind == V_NUM || v.kind == V_STR || v.kind == V_NONE) {
		v.origin = CPL_PYORIG_DEFAULT;
		v.pos = d->def.pos;
	}
	return v;
}

/* A command-line value text (in word) read with d's type=. */
static struct val
option_word(struct ctx *cx, const struct cpl_pyargdef *d, const char *text,
	    const struct cpl_word *word)
{
	const struct cpl_pyenv *env = env_of(cx);
	bool is_int = d->type && strcmp(d->type, "int") == 0;
	struct val v = unknown();
	double num;
	bool isint;
	long l;

	if (d->type == NULL || strcmp(d->type, "str") == 0) {
		v.kind = V_STR;
		v.s = text;
		v.n = strlen(text);
		v.origin = CPL_PYORIG_COMMAND;
		v.pos = word->pos;
		return v;
	}
	if ((is_int || strcmp(d->type, "float") == 0) &&
	    parse_text(&num, &isint, text, strlen(text), is_int) == 0)
		return number(num, isint, CPL_PYORIG_COMMAND, word->pos);
	if (is_int && env->word && env->word(env->ctx, text, &l) == 0)
		return number((double)l, true, CPL_PYORIG_COMMAND, word->pos);
	return v;
}

/* The value of dest in the argparse definitions of g (or, failing that,
 * of any linked file): the command line's, else the default. */
static struct val
option(struct ctx *cx, const struct cpl_pyfile *g, const char *dest)
{
	const struct cpl_pyenv *env = env_of(cx);
	const struct cpl_pyargdef *d;
	const struct cpl_word *word = NULL, *flag = NULL;
	const char *text = NULL;
	bool present, given, t;
	int i = cpl_pyscan_argdef_find(g, dest);
	size_t k;

	for (k = 0; i < 0 && k < env->nfiles; k++)
		if ((i = cpl_pyscan_argdef_find(env->files[k], dest)) >= 0)
			g = env->files[k];
	if (i < 0)
		return unknown();
	d = &g->argdefs[i];
	given = cli_value(g, d, env, &text, &word, &flag, &present);
	if (d->action == NULL || strcmp(d->action, "store") == 0) {
		if (given)
			return option_word(cx, d, text, word);
		if (present || env->argv_partial)
			return unknown();
		return option_default(cx, g, d);
	}
	t = strcmp(d->action, "store_true") == 0;
	if (!t && strcmp(d->action, "store_false") != 0)
		return unknown();
	if (present)
		return number(t ? 1 : 0, true, CPL_PYORIG_COMMAND, flag->pos);
	if (env->argv_partial)
		return unknown();
	if (d->def.first < d->def.last)
		return option_default(cx, g, d);
	return number(t ? 0 : 1, true, CPL_PYORIG_DEFAULT, d->pos);
}

/* ---- parameters and calls --------------------------------------------- */

/* Parameter p of def func bound at site (the call of func). */
static struct val
param_at(struct ctx *cx, const struct cpl_pyfile *f, int func, size_t p,
	 const struct cpl_pysite *site)
{
	const struct cpl_pycall *c = &site->file->calls[site->call];
	const struct cpl_pyparam *pp = &f->scopes[func].params[p];
	const struct cpl_pyarg *a;
	struct frame fr;
	struct val v;
	bool spread;

	a = cpl_pyscan_call_arg(site->file, c, f, func, p, &spread);
	if (a) {
		fr.f = site->file;
		fr.site = site->up;
		fr.site_func = site->up ? enclosing_def(site->file, c->scope) :
					  -1;
		return eval_range(cx, &fr, &a->value);
	}
	if (spread || pp->def.first >= pp->def.last)
		return unknown();
	fr.f = f;
	fr.site = NULL;
	fr.site_func = -1;
	v = eval_range(cx, &fr, &pp->def);
	if (v.kind == V_NUM) {
		v.origin = CPL_PYORIG_DEFAULT;
		v.pos = pp->def.pos;
	}
	return v;
}

/* Adds the value of parameter p at site to the running combination. */
static void
site_value(struct ctx *cx, const struct cpl_pyfile *f, int func, size_t p,
	   const struct cpl_pysite *site, struct val *acc, int *nsites)
{
	struct val v = param_at(cx, f, func, p, site);

	*acc = (*nsites)++ ? combine(*acc, v) : v;
}

/*
 * Parameter p of def func with no site given: every call of func in the
 * linked files binds it, else its default does.
 */
static struct val
param_value(struct ctx *cx, const struct frame *fr, const struct cpl_pyfile *f,
	    int func, size_t p)
{
	const struct cpl_pyenv *env = env_of(cx);
	const struct cpl_pyscope *fn = &f->scopes[func];
	const struct cpl_pyparam *pp = &fn->params[p];
	const size_t *calls;
	struct cpl_pysite site;
	struct val acc = unknown();
	int nsites = 0, target = func;
	size_t n, i, k;

	if (pp->star)
		return unknown();
	if (fr->site && fr->site_func == func && fr->f == f)
		return param_at(cx, f, func, p, fr->site);
	if (strcmp(fn->name, "__init__") == 0 && fn->cls >= 0)
		target = fn->cls;	/* constructions of its class */
	n = cpl_pyscan_callers(f, target, &calls);
	for (i = 0; i < n && nsites <= MAX_SITES; i++) {
		site.file = f;
		site.call = calls[i];
		site.up = NULL;
		site_value(cx, f, func, p, &site, &acc, &nsites);
	}
	for (k = 0; k < env->nfiles && nsites <= MAX_SITES; k++) {
		const struct cpl_pyfile *h = env->files[k];

		if (h == f || env->module == NULL)
			continue;	/* local calls are the callers above */
		/* Reading a file's calls costs steps too. */
		cx->steps += (int)(h->ncalls / 64);
		if (cx->steps > MAX_STEPS)
			return unknown();
		for (i = 0; i < h->ncalls && nsites <= MAX_SITES; i++) {
			const struct cpl_pycall *c = &h->calls[i];
			const char *qual;

			if (c->import < 0 || c->remote == NULL ||
			    strcmp(last_name(c->remote), fn->name) != 0 ||
			    call_file(cx, h, c, &qual) != f ||
			    strcmp(qual, f->scopes[target].qualname) != 0)
				continue;
			site.file = h;
			site.call = i;
			site.up = NULL;
			site_value(cx, f, func, p, &site, &acc, &nsites);
		}
	}
	if (nsites > MAX_SITES)
		return unknown();
	if (nsites > 0)
		return acc;
	if (pp->def.first >= pp->def.last)
		return unknown();
	{
		struct frame df = { f, NULL, -1 };

		acc = eval_range(cx, &df, &pp->def);
		if (acc.kind == V_NUM) {
			acc.origin = CPL_PYORIG_DEFAULT;
			acc.pos = pp->def.pos;
		}
	}
	return acc;
}

/* What def func of f returns when called at site. */
static struct val
returns(struct ctx *cx, const struct cpl_pyfile *f, int func,
	const struct cpl_pysite *site)
{
	struct frame fr = { f, site, func };
	struct val acc = unknown();
	int a = cpl_pyscan_assign_last(f, func, "return");
	bool have = false;

	if (f->scopes[func].kind != CPL_PYSCOPE_FUNC)
		return unknown();
	if (a < 0) {
		acc.kind = V_NONE;
		return acc;
	}
	for (; a >= 0; a = f->assigns[a].prev) {
		struct val v = eval_range(cx, &fr, &f->assigns[a].value);

		acc = have ? combine(acc, v) : v;
		have = true;
	}
	return acc;
}

/* os.environ[name] / os.environ.get(name, d) / os.getenv(name, d). */
static struct val
env_read(struct ctx *cx, struct val name, const struct val *dflt,
	 struct cpl_pos pos)
{
	const struct cpl_pyenv *env = env_of(cx);
	const char *value = NULL;
	struct cpl_pos vpos = pos;
	char key[128];
	struct val v;
	int r;

	if (name.kind != V_STR || name.strnum || name.n >= sizeof(key) ||
	    env->getenv == NULL)
		return unknown();
	memcpy(key, name.s, name.n);
	key[name.n] = '\0';
	r = env->getenv(env->ctx, key, &value, &vpos);
	if (r < 0)
		return unknown();
	if (r == 0) {
		if (dflt)
			return *dflt;
		v = unknown();
		v.kind = V_NONE;
		return v;
	}
	v = unknown();
	v.kind = V_STR;
	v.s = value;
	v.n = strlen(value);
	v.origin = CPL_PYORIG_ENV;
	v.pos = vpos;
	return v;
}

/* The positional argument i of call c evaluated, or unknown. */
static struct val
arg_value(struct ctx *cx, const struct frame *fr, const struct cpl_pycall *c,
	  size_t i, bool *given)
{
	size_t k, n = 0;

	*given = false;
	for (k = 0; k < c->nargs; k++) {
		if (c->args[k].keyword)
			continue;
		if (c->args[k].star)
			return unknown();
		if (n++ == i) {
			*given = true;
			return eval_range(cx, fr, &c->args[k].value);
		}
	}
	return unknown();
}

/* The value call ci returns, where we know it. */
static struct val
eval_call(struct ev *ev, int ci)
{
	static const char *const conv[] = {
		"int", "float", "round", "abs", "str", "math.floor",
		"math.ceil", "math.trunc",
	};
	const struct cpl_pyfile *f = ev->f;
	const struct cpl_pycall *c = &f->calls[ci];
	struct ctx *cx = ev->cx;
	struct cpl_pysite site;
	struct val v = unknown();
	bool given;
	size_t i;

	if (c->kind == CPL_PYCALL_CPU_COUNT)
		return host(c->pos);
	if (c->kind == CPL_PYCALL_PARSE_ARGS) {
		v.kind = V_NS;
		v.ns = f;
		return v;
	}
	if (!enter(cx))
		return unknown();
	if (strcmp(c->target, "min") == 0 || strcmp(c->target, "max") == 0) {
		bool mn = c->target[1] == 'i';

		for (i = 0; i < c->nargs; i++) {
			struct val a;

			if (c->args[i].keyword || c->args[i].star ||
			    c->nargs < 2) {
				v = unknown();
				break;
			}
			a = eval_range(cx, ev->fr, &c->args[i].value);
			if (i == 0 || (a.kind == V_HOST && v.kind != V_HOST))
				v = a;
			else if (v.kind == V_HOST)
				continue;
			else if (v.kind != V_NUM || a.kind != V_NUM)
				v = unknown();
			else if (mn ? a.num < v.num : a.num > v.num)
				v = a;
		}
	} else if (c->func < 0 && in_list(c->target, conv,
					   CPL_ARRAY_LEN(conv))) {
		if (c->nargs == 1)
			v = convert(arg_value(cx, ev->fr, c, 0, &given),
				    c->target, c->pos);
	} else if (strcmp(c->target, "os.environ.get") == 0 ||
		   strcmp(c->target, "os.getenv") == 0) {
		struct val name = arg_value(cx, ev->fr, c, 0, &given);
		struct val d = arg_value(cx, ev->fr, c, 1, &given);

		v = env_read(cx, name, given ? &d : NULL, c->pos);
	} else if (c->func >= 0 &&
		   f->scopes[c->func].kind == CPL_PYSCOPE_FUNC) {
		site.file = f;
		site.call = (size_t)ci;
		site.up = ev->fr->site && ev->fr->site_func ==
			  enclosing_def(f, c->scope) ? ev->fr->site : NULL;
		v = returns(cx, f, c->func, &site);
	} else if (c->import >= 0 && c->remote) {
		const char *qual;
		const struct cpl_pyfile *g = call_file(cx, f, c, &qual);
		int func = g ? cpl_pyscan_func_find(g, qual) : -1;

		if (func >= 0) {
			site.file = f;
			site.call = (size_t)ci;
			site.up = ev->fr->site && ev->fr->site_func ==
				  enclosing_def(f, c->scope) ? ev->fr->site :
							      NULL;
			v = returns(cx, g, func, &site);
		}
	}
	leave(cx);
	return v;
}

/* ---- names ------------------------------------------------------------ */

/* The value assignment ai of fr->f gives its target. */
static struct val
eval_assign(struct ctx *cx, const struct frame *fr, int ai)
{
	const struct cpl_pyfile *f = fr->f;
	const struct cpl_pyassign *a = &f->assigns[ai];
	struct val v;

	if (a->opaque || !enter(cx))
		return unknown();
	if (a->index >= 0) {
		size_t first = a->value.first, last = a->value.last, k;
		int idx;

		if (first < last && tok_is(f->text, &f->toks[first],
						   "(") &&
		    closing(f, first, last) == last - 1) {
			first++;
			last--;
		}
		if (top_comma(f, first, last) < last) {
			struct cpl_pyexpr sub = a->value;

			for (k = first, idx = 0; idx < a->index && k < last;
			     idx++)
				k = top_comma(f, k, last) + 1;
			sub.first = k;
			sub.last = k < last ? top_comma(f, k, last) : k;
			v = sub.first < sub.last ? eval_range(cx, fr, &sub) :
						   unknown();
		} else {
			v = eval_range(cx, fr, &a->value);
			if (!(v.kind == V_NS && a->index == 0))
				v = unknown();
		}
	} else {
		v = eval_range(cx, fr, &a->value);
	}
	if (strcmp(a->op, "=") != 0 && v.kind != V_UNKNOWN) {
		char op[4];
		size_t n = strlen(a->op) - 1;

		memcpy(op, a->op, n);
		op[n] = '\0';
		v = binop(op, eval_name(cx, fr, a->scope, a->name, a->tok,
					a->block), v);
	}
	leave(cx);
	return v;
}

/*
 * The assignments of a name in scope s (chain from a) that reach a use at
 * use_tok in use_block, combined; param p of s when no assignment
 * dominates the use.
 */
static struct val
reach(struct ctx *cx, const struct frame *fr, int s, int a, int p,
      size_t use_tok, int use_block)
{
	const struct cpl_pyfile *f = fr->f;
	struct val acc = unknown(), v;
	bool have = false;

	for (; a >= 0; a = f->assigns[a].prev) {
		const struct cpl_pyassign *as = &f->assigns[a];

		if (as->tok >= use_tok)
			continue;
		v = eval_assign(cx, fr, a);
		acc = have ? combine(acc, v) : v;
		have = true;
		if (use_block < 0 ||
		    cpl_pyscan_block_within(f, use_block, as->block))
			return acc;
	}
	if (p >= 0) {
		v = param_value(cx, fr, f, s, (size_t)p);
		acc = have ? combine(acc, v) : v;
		have = true;
	}
	return have ? acc : unknown();
}

/* The file a plain or from-import binding of a module stands for. */
static const struct cpl_pyfile *
module_of(struct ctx *cx, const struct cpl_pyfile *f, int im)
{
	const struct cpl_pyenv *env = env_of(cx);
	const struct cpl_pyimport *m = &f->imports[im];
	const struct cpl_pyfile *g;
	char *name;

	if (env->module == NULL)
		return NULL;
	if (m->name == NULL)
		return env->module(env->ctx, f, strcmp(m->target, m->module) ?
				   m->target : m->module, m->level);
	name = cpl_xasprintf("%s%s%s", m->module, *m->module ? "." : "",
			     m->name);
	g = env->module(env->ctx, f, name, m->level);
	free(name);
	return g;
}

/* A name bound by `from M import name`: its value in linked module M. */
static struct val
imported(struct ctx *cx, const struct cpl_pyfile *f, int im)
{
	const struct cpl_pyenv *env = env_of(cx);
	const struct cpl_pyimport *m = &f->imports[im];
	const struct cpl_pyfile *g;
	struct frame fr;

	if (m->name == NULL || env->module == NULL)
		return unknown();
	g = env->module(env->ctx, f, m->module, m->level);
	if (g == NULL)
		return unknown();
	fr.f = g;
	fr.site = NULL;
	fr.site_func = -1;
	return eval_name(cx, &fr, 0, m->name, (size_t)-1, 0);
}

/* self.X in a method of class cls: every assignment of it in the class,
 * and the class attribute X. */
static struct val
self_attr(struct ctx *cx, const struct frame *fr, int scope, const char *name)
{
	const struct cpl_pyfile *f = fr->f;
	int cls = f->scopes[scope].cls, a;
	struct val acc = unknown(), v;
	bool have = false;

	if (cls < 0 || !enter(cx))
		return unknown();
	for (a = cpl_pyscan_assign_last(f, scope, name); a >= 0;
	     a = f->assigns[a].prev) {
		v = eval_assign(cx, fr, a);
		acc = have ? combine(acc, v) : v;
		have = true;
	}
	for (a = cpl_pyscan_assign_last(f, cls, name + 5); a >= 0;
	     a = f->assigns[a].prev) {
		v = eval_assign(cx, fr, a);
		acc = have ? combine(acc, v) : v;
		have = true;
	}
	leave(cx);
	return acc;
}

/* The value of name used at token use_tok of block use_block in scope. */
static struct val
eval_name(struct ctx *cx, const struct frame *fr, int scope, const char *name,
	  size_t use_tok, int use_block)
{
	const struct cpl_pyfile *f = fr->f;
	struct val v = unknown();
	bool first = true, found = false;
	int s = scope, im;

	if (cpl_str_starts(name, "self."))
		return self_attr(cx, fr, scope, name);
	if (!enter(cx))
		return unknown();
	while (s >= 0) {
		const struct cpl_pyscope *sc = &f->scopes[s];
		int a, p;

		if (!first && sc->kind == CPL_PYSCOPE_CLASS) {
			s = sc->parent;
			continue;
		}
		a = cpl_pyscan_assign_last(f, s, name);
		p = sc->kind == CPL_PYSCOPE_FUNC ?
		    cpl_pyscan_param(f, s, name) : -1;
		if (a >= 0 || p >= 0) {
			v = reach(cx, fr, s, a, p, first ? use_tok : (size_t)-1,
				  first ? use_block : sc->block);
			found = true;
			break;
		}
		first = false;
		s = sc->parent;
	}
	if (!found && (im = cpl_pyscan_binding(f, scope, name)) >= 0)
		v = imported(cx, f, im);
	leave(cx);
	return v;
}

/* ---- the expression parser -------------------------------------------- */

/* The contents of a plain one-token string literal, as a slice. */
static bool
str_slice(const struct cpl_pyfile *f, size_t k, const char **s, size_t *n)
{
	const struct cpl_pytoken *t = &f->toks[k];
	const char *p = f->text + t->off, *end = p + t->len;
	size_t q = t->flags & CPL_PYSTR_TRIPLE ? 3 : 1;

	if (t->flags & (CPL_PYSTR_FMT | CPL_PYSTR_TMPL | CPL_PYSTR_BYTES |
			CPL_PYSTR_OPEN))
		return false;
	while (p < end && *p != '\'' && *p != '"')
		p++;
	if ((size_t)(end - p) < 2 * q)
		return false;
	*s = p + q;
	*n = (size_t)(end - p) - 2 * q;
	return memchr(*s, '\\', *n) == NULL;
}

/* A chain NAME(.NAME)* with its call or subscript, if any. */
static struct val
name_primary(struct ev *ev)
{
	const struct cpl_pyfile *f = ev->f;
	struct ctx *cx = ev->cx;
	size_t names[8], n = 0, k = at(ev);
	char base[128], attr[128];

	names[n++] = k;
	ev->k = k + 1;
	while (n < CPL_ARRAY_LEN(names) && is_op(ev, ".") &&
	       ev->k + 1 < ev->end &&
	       f->toks[ev->k + 1].kind == CPL_PYTOK_NAME) {
		names[n++] = ev->k + 1;
		ev->k += 2;
	}
	if (is_op(ev, "(")) {
		size_t open = at(ev), close = closing(f, open, ev->end);
		int c = cpl_pyscan_call_at(f, open);

		ev->k = close < ev->end ? close + 1 : ev->end;
		return c < 0 ? unknown() : eval_call(ev, c);
	}
	if (!tok_text(base, sizeof(base), f, names[0]))
		return unknown();
	if (is_op(ev, "[")) {
		size_t open = at(ev), close = closing(f, open, ev->end);
		int im = cpl_pyscan_binding(f, ev->scope, base);
		struct val key = unknown();

		ev->k = close < ev->end ? close + 1 : ev->end;
		if (im < 0 || close != open + 2 ||
		    f->toks[open + 1].kind != CPL_PYTOK_STRING ||
		    !str_slice(f, open + 1, &key.s, &key.n))
			return unknown();
		key.kind = V_STR;
		/* os.environ["X"]: through the imports, unset is KeyError. */
		if (n == 2 && strcmp(f->imports[im].target, "os") == 0 &&
		    tok_is(f->text, &f->toks[names[1]], "environ")) {
			struct val v = env_read(cx, key, NULL,
						cpl_pyscan_pos(f, names[0]));

			return v.kind == V_NONE ? unknown() : v;
		}
		if (n == 1 &&
		    strcmp(f->imports[im].target, "os.environ") == 0) {
			struct val v = env_read(cx, key, NULL,
						cpl_pyscan_pos(f, names[0]));

			return v.kind == V_NONE ? unknown() : v;
		}
		return unknown();
	}
	if (n == 1)
		return eval_name(cx, ev->fr, ev->scope, base, names[0],
				 ev->block);
	if (n == 2 && tok_text(attr, sizeof(attr), f, names[1])) {
		struct val b;
		int im;

		if (strcmp(base, "self") == 0) {
			char full[140] = "self.";

			memcpy(full + 5, attr, strlen(attr) + 1);
			return self_attr(cx, ev->fr, ev->scope, full);
		}
		b = eval_name(cx, ev->fr, ev->scope, base, names[0], ev->block);
		if (b.kind == V_NS)
			return option(cx, b.ns, attr);
		im = cpl_pyscan_binding(f, ev->scope, base);
		if (b.kind == V_UNKNOWN && im >= 0) {
			const struct cpl_pyfile *g = module_of(cx, f, im);
			struct frame fr = { g, NULL, -1 };

			if (g)
				return eval_name(cx, &fr, 0, attr, (size_t)-1,
						 0);
		}
	}
	return unknown();
}

/* An atom and its trailers. */
static struct val
primary(struct ev *ev)
{
	const struct cpl_pyfile *f = ev->f;
	size_t k = at(ev), close;
	const struct cpl_pytoken *t;
	struct val v = unknown();

	if (k >= ev->end) {
		ev->bad = true;
		return v;
	}
	t = &f->toks[k];
	switch (t->kind) {
	case CPL_PYTOK_NUMBER: {
		double d;
		bool isint;

		ev->k++;
		if (cpl_pytoken_number(&d, &isint, f->text, t) == 0)
			v = number(d, isint, CPL_PYORIG_CODE,
				   cpl_pyscan_pos(f, k));
		break;
	}
	case CPL_PYTOK_STRING: {
		size_t n = 0;

		while (at(ev) < ev->end &&
		       f->toks[ev->k].kind == CPL_PYTOK_STRING) {
			ev->k++;
			n++;
		}
		if (n == 1 && str_slice(f, k, &v.s, &v.n)) {
			v.kind = V_STR;
			v.origin = CPL_PYORIG_CODE;
			v.pos = cpl_pyscan_pos(f, k);
		}
		break;
	}
	case CPL_PYTOK_KEYWORD:
		ev->k++;
		if (tok_is(f->text, t, "True") ||
		    tok_is(f->text, t, "False"))
			v = number(f->text[t->off] == 'T', true,
				   CPL_PYORIG_CODE, cpl_pyscan_pos(f, k));
		else if (tok_is(f->text, t, "None"))
			v.kind = V_NONE;
		else if (tok_is(f->text, t, "await"))
			v = primary(ev);
		else
			ev->bad = true;
		break;
	case CPL_PYTOK_NAME:
		v = name_primary(ev);
		break;
	case CPL_PYTOK_OP:
		close = closing(f, k, ev->end);
		if (close >= ev->end || !strchr("([{", f->text[t->off])) {
			ev->bad = true;
			break;
		}
		if (f->text[t->off] == '(' && top_comma(f, k + 1, close) ==
		    close) {
			struct ev sub = *ev;

			sub.k = k + 1;
			sub.end = close;
			v = expr(&sub);
			if (sub.bad || at(&sub) < close)
				v = unknown();
		}
		ev->k = close + 1;
		break;
	default:
		ev->bad = true;
		break;
	}
	while (!ev->bad && (is_op(ev, ".") || is_op(ev, "(") ||
			    is_op(ev, "["))) {
		if (is_op(ev, ".")) {
			ev->k += 2;
		} else {
			close = closing(f, at(ev), ev->end);
			ev->k = close < ev->end ? close + 1 : ev->end;
		}
		v = unknown();
	}
	return v;
}

static struct val unary(struct ev *ev);

/* primary [** unary] */
static struct val
power(struct ev *ev)
{
	struct val a = primary(ev);

	if (!is_op(ev, "**"))
		return a;
	ev->k++;
	return binop("**", a, unary(ev));
}

/* - + ~ before a power. */
static struct val
unary(struct ev *ev)
{
	struct val v;

	if (is_op(ev, "-") || is_op(ev, "+") || is_op(ev, "~")) {
		char op = ev->f->text[ev->f->toks[at(ev)].off];

		ev->k++;
		v = unary(ev);
		if (v.kind == V_HOST || op == '+')
			return v;
		if (v.kind != V_NUM || (op == '~' && !v.isint))
			return unknown();
		v.num = op == '-' ? -v.num : -(v.num + 1);
		return v;
	}
	return power(ev);
}

/* The binary operator at the cursor: its precedence (0: none), its text
 * and how many tokens it takes. */
static int
binop_at(struct ev *ev, const char **op, size_t *ntok)
{
	static const struct {
		const char *op;
		int prec;
	} ops[] = {
		{ "<", 4 }, { ">", 4 }, { "<=", 4 }, { ">=", 4 }, { "==", 4 },
		{ "!=", 4 }, { "|", 5 }, { "^", 6 }, { "&", 7 }, { "<<", 8 },
		{ ">>", 8 }, { "+", 9 }, { "-", 9 }, { "*", 10 }, { "/", 10 },
		{ "//", 10 }, { "%", 10 }, { "@", 10 },
	};
	size_t i, k = at(ev);

	*ntok = 1;
	if (k >= ev->end)
		return 0;
	if (is_kw(ev, "in")) {
		*op = "in";
		return 4;
	}
	if (is_kw(ev, "is")) {
		*op = "is";
		if (k + 1 < ev->end &&
		    tok_is(ev->f->text, &ev->f->toks[k + 1], "not")) {
			*op = "is not";
			*ntok = 2;
		}
		return 4;
	}
	if (is_kw(ev, "not") && k + 1 < ev->end &&
	    tok_is(ev->f->text, &ev->f->toks[k + 1], "in")) {
		*op = "in";
		*ntok = 2;
		return 4;
	}
	if (ev->f->toks[k].kind != CPL_PYTOK_OP)
		return 0;
	for (i = 0; i < CPL_ARRAY_LEN(ops); i++)
		if (tok_is(ev->f->text, &ev->f->toks[k], ops[i].op)) {
			*op = ops[i].op;
			return ops[i].prec;
		}
	return 0;
}

/* Binary operators of precedence minprec and up (precedence climbing). */
static struct val
binary(struct ev *ev, int minprec)
{
	struct val lhs = unary(ev);

	for (;;) {
		const char *op = NULL;
		size_t ntok;
		int p = binop_at(ev, &op, &ntok);
		struct val rhs;

		if (p == 0 || p < minprec || ev->bad)
			break;
		ev->k = at(ev) + ntok;
		rhs = binary(ev, p + 1);
		lhs = binop(op, lhs, rhs);
	}
	return lhs;
}

/* [not] comparison */
static struct val
not_test(struct ev *ev)
{
	struct val v;
	bool known, t;

	if (!is_kw(ev, "not"))
		return binary(ev, 4);
	ev->k++;
	v = not_test(ev);
	if (v.kind == V_HOST)
		return v;
	t = truthy(&v, &known);
	return known ? number(!t, true, v.origin, v.pos) : unknown();
}

/* `a and b` (and) or `a or b` of two values. */
static struct val
logic(bool is_and, struct val a, struct val b)
{
	bool known, t;

	if (a.kind == V_HOST)
		return a;
	t = truthy(&a, &known);
	if (known)
		return t == is_and ? b : a;
	return b.kind == V_HOST ? b : unknown();
}

/* not_test (and not_test)* */
static struct val
and_test(struct ev *ev)
{
	struct val v = not_test(ev);

	while (!ev->bad && is_kw(ev, "and")) {
		ev->k++;
		v = logic(true, v, not_test(ev));
	}
	return v;
}

/* and_test (or and_test)* */
static struct val
or_test(struct ev *ev)
{
	struct val v = and_test(ev);

	while (!ev->bad && is_kw(ev, "or")) {
		ev->k++;
		v = logic(false, v, and_test(ev));
	}
	return v;
}

/* A full expression: lambda, walrus, conditional. */
static struct val
expr(struct ev *ev)
{
	struct val v, c, e, r;
	bool known, t;

	if (is_kw(ev, "lambda")) {
		ev->k = ev->end;
		return unknown();
	}
	v = or_test(ev);
	if (is_op(ev, ":=")) {
		ev->k++;
		return expr(ev);
	}
	if (!is_kw(ev, "if"))
		return v;
	ev->k++;
	c = or_test(ev);
	if (!is_kw(ev, "else")) {
		ev->bad = true;
		return unknown();
	}
	ev->k++;
	e = expr(ev);
	t = truthy(&c, &known);
	if (known)
		return t ? v : e;
	r = combine(v, e);
	if (r.kind != V_HOST && c.kind == V_HOST && v.kind == V_NUM &&
	    e.kind == V_NUM)
		return host(c.host);
	return r;
}

/* The value of expression e read in frame fr. */
static struct val
eval_range(struct ctx *cx, const struct frame *fr, const struct cpl_pyexpr *e)
{
	struct ev ev;
	struct val v;

	if (e->first >= e->last || !enter(cx))
		return unknown();
	memset(&ev, 0, sizeof(ev));
	ev.cx = cx;
	ev.fr = fr;
	ev.f = fr->f;
	ev.k = e->first;
	ev.end = e->last;
	ev.scope = e->scope;
	ev.block = e->block;
	v = expr(&ev);
	if (ev.bad || at(&ev) < ev.end)
		v = unknown();
	leave(cx);
	return v;
}

/* ---- the interface ---------------------------------------------------- */

/* A fresh resolution over env (env->files defaults to f alone). */
static void
ctx_init(struct ctx *cx, const struct cpl_pyfile *f,
	 const struct cpl_pyenv *env)
{
	memset(cx, 0, sizeof(*cx));
	if (env)
		cx->none = *env;
	if (cx->none.files == NULL) {
		cx->self[0] = f;
		cx->none.files = cx->self;
		cx->none.nfiles = 1;
	}
	cx->env = &cx->none;
}

/* The public form of v; at is the position for an UNKNOWN. */
static void
publish(struct cpl_pyval *out, const struct val *v, struct cpl_pos at_pos)
{
	memset(out, 0, sizeof(*out));
	out->pos = at_pos;
	if (v->kind == V_HOST) {
		out->kind = CPL_PYVAL_HOST;
		out->origin = CPL_PYORIG_HOST;
		out->pos = v->pos;
		out->host = v->host;
	} else if (v->kind == V_NUM && v->num == floor(v->num) &&
		   fabs(v->num) < 9.0e15) {
		out->kind = CPL_PYVAL_KNOWN;
		out->value = (long)v->num;
		out->origin = v->origin ? v->origin : CPL_PYORIG_CODE;
		out->pos = v->pos.file ? v->pos : at_pos;
	}
}

void
cpl_pyvalue_expr(struct cpl_pyval *out, const struct cpl_pyfile *f,
		 const struct cpl_pyexpr *e, const struct cpl_pysite *site,
		 const struct cpl_pyenv *env)
{
	struct ctx cx;
	struct frame fr;
	struct val v;

	ctx_init(&cx, f, env);
	fr.f = f;
	fr.site = site;
	fr.site_func = site ? enclosing_def(f, e->scope) : -1;
	v = eval_range(&cx, &fr, e);
	publish(out, &v, e->pos);
}

void
cpl_pyvalue_loader(struct cpl_pyval *out, const struct cpl_pyfile *f,
		   size_t i, const struct cpl_pysite *site,
		   const struct cpl_pyenv *env)
{
	const struct cpl_pyloader *l = &f->loaders[i];

	if (l->has_workers) {
		cpl_pyvalue_expr(out, f, &l->workers, site, env);
		return;
	}
	memset(out, 0, sizeof(*out));
	out->pos = l->pos;
	if (!l->unknown_kwargs) {
		out->kind = CPL_PYVAL_KNOWN;
		out->value = 0;
		out->origin = CPL_PYORIG_IMPLICIT;
	}
}

void
cpl_pyvalue_threads(struct cpl_pyval *out, const struct cpl_pyfile *f,
		    size_t i, const struct cpl_pysite *site,
		    const struct cpl_pyenv *env)
{
	const struct cpl_pythreads *t = &f->threads[i];

	if (t->has_arg) {
		cpl_pyvalue_expr(out, f, &t->arg, site, env);
		return;
	}
	memset(out, 0, sizeof(*out));
	out->pos = t->pos;
}

void
cpl_pyvalue_pool(struct cpl_pyval *out, const struct cpl_pyfile *f, size_t i,
		 const struct cpl_pysite *site, const struct cpl_pyenv *env)
{
	const struct cpl_pypool *p = &f->pools[i];

	if (p->has_size) {
		cpl_pyvalue_expr(out, f, &p->size, site, env);
		return;
	}
	memset(out, 0, sizeof(*out));
	out->kind = CPL_PYVAL_HOST;
	out->origin = CPL_PYORIG_HOST;
	out->pos = p->pos;
	out->host = p->pos;
}

void
cpl_pyvalue_envset(struct cpl_pyval *out, const struct cpl_pyfile *f,
		   size_t i, const struct cpl_pyenv *env)
{
	const struct cpl_pyenvset *e = &f->envsets[i];
	struct ctx cx;
	struct frame fr = { f, NULL, -1 };
	struct val v;

	ctx_init(&cx, f, env);
	v = eval_range(&cx, &fr, &e->value);
	if (v.kind == V_STR)
		v = convert(v, "int", e->value.pos);
	publish(out, &v, e->value.pos);
}

/* Appends a resolved size to a cpl_code array. */
static void
add_size(struct cpl_code_size **arr, size_t *n, const struct cpl_pyfile *f,
	 size_t index, struct cpl_pos pos, const struct cpl_pyval *v)
{
	struct cpl_code_size *s;

	*arr = cpl_xrealloc(*arr, (*n + 1) * sizeof(**arr));
	s = &(*arr)[(*n)++];
	s->file = f;
	s->index = index;
	s->pos = pos;
	s->value = *v;
}

int
cpl_pyvalue_code(struct cpl_code **out, const struct cpl_pyfile *const *files,
		 size_t nfiles, const struct cpl_pyenv *env)
{
	struct cpl_code *code = cpl_xcalloc(1, sizeof(*code));
	struct cpl_pyenv e;
	size_t i, j;

	memset(&e, 0, sizeof(e));
	if (env)
		e = *env;
	if (e.files == NULL) {
		e.files = files;
		e.nfiles = nfiles;
	}
	code->entry = nfiles ? files[0] : NULL;
	code->files = cpl_xcalloc(nfiles + 1, sizeof(*code->files));
	if (nfiles)
		memcpy(code->files, files, nfiles * sizeof(*files));
	code->nfiles = nfiles;
	for (i = 0; i < nfiles; i++) {
		const struct cpl_pyfile *f = files[i];
		struct cpl_pyval v;

		code->imports_torch |= f->imports_torch;
		for (j = 0; j < f->nloaders; j++) {
			cpl_pyvalue_loader(&v, f, j, NULL, &e);
			add_size(&code->loaders, &code->nloaders, f, j,
				 f->loaders[j].pos, &v);
		}
		for (j = 0; j < f->nthreads; j++) {
			if (f->threads[j].kind != CPL_PYTHREADS_INTRA ||
			    f->threads[j].in_worker_init)
				continue;
			cpl_pyvalue_threads(&v, f, j, NULL, &e);
			add_size(&code->threads, &code->nthreads, f, j,
				 f->threads[j].pos, &v);
		}
	}
	*out = code;
	return 0;
}

const char *
cpl_pyvalue_kind_name(enum cpl_pyval_kind k)
{
	switch (k) {
	case CPL_PYVAL_KNOWN: return "known";
	case CPL_PYVAL_HOST: return "host";
	case CPL_PYVAL_UNKNOWN: return "unknown";
	}
	return "?";
}
