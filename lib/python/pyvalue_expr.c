/*
 * pyvalue_expr.c — reads one expression of a scanned Python file for the
 * value resolver (pyvalue_int.h).
 *
 * An expression is a token range; it is evaluated by a small
 * precedence-climbing parser that computes as it parses: lambda, walrus
 * and conditional, or / and / not, comparisons, binary operators, unary
 * - + ~, **, and atoms (numbers, strings, True False None, parentheses,
 * names).  It owns the parse state (struct pv_ev) and the token helpers it
 * moves by.  A name, a call, self.X, args.X, os.environ[...] or an
 * attribute of a linked module is handed to pyvalue_bind.c, which may
 * read further expressions through cpl_pyvalue_eval_range(); each such
 * read charges the budget.  What it does not read (a subscript or
 * attribute of a value, a lambda, implicitly joined strings, escapes) is
 * UNKNOWN, never a guess.  Each nested sub-expression (parenthesis,
 * prefix operator, not, await, the right of ** and of a conditional or
 * walrus) opens through nest() and closes through unnest(): past
 * MAX_NEST the parse is abandoned as UNKNOWN (pyvalue_int.h).
 *
 * May include: python/pyvalue_int.h and the C library.
 */
#include "python/pyvalue_int.h"

#include <string.h>

/* A parse over tokens [k, end) of a file. */
struct pv_ev {
	struct ctx *cx;
	const struct pv_frame *fr;
	const struct cpl_pyfile *f;
	const struct cpl_pytoken *toks;	/* f's, held for the parse */
	size_t k;
	size_t end;
	int scope;
	int block;
	bool bad;		/* not an expression we read */
};

static struct val expr(struct pv_ev *ev);

/* Opens one level of nesting; false (and the parse bad) past MAX_NEST. */
static bool
nest(struct pv_ev *ev)
{
	if (ev->cx->nest >= MAX_NEST) {
		ev->bad = true;
		return false;
	}
	ev->cx->nest++;
	return true;
}

/* Closes the level nest() opened. */
static void
unnest(struct pv_ev *ev)
{
	ev->cx->nest--;
}

/* ---- tokens ----------------------------------------------------------- */

/* The next token of the parse that is not NL or a comment. */
static size_t
at(struct pv_ev *ev)
{
	while (ev->k < ev->end &&
	       (ev->toks[ev->k].kind == CPL_PYTOK_NL ||
		ev->toks[ev->k].kind == CPL_PYTOK_COMMENT))
		ev->k++;
	return ev->k;
}

/* The next token is operator op. */
static bool
is_op(struct pv_ev *ev, const char *op)
{
	size_t k = at(ev);

	return k < ev->end && ev->toks[k].kind == CPL_PYTOK_OP &&
	       tok_is(ev->f->text, &ev->toks[k], op);
}

/* The next token is keyword kw. */
static bool
is_kw(struct pv_ev *ev, const char *kw)
{
	size_t k = at(ev);

	return k < ev->end && ev->toks[k].kind == CPL_PYTOK_KEYWORD &&
	       tok_is(ev->f->text, &ev->toks[k], kw);
}

/* The bracket closing the one at k (within end), end if none. */
size_t
cpl_pyvalue_closing(const struct cpl_pyfile *f, size_t k, size_t end)
{
	const struct cpl_pytoken *toks = cpl_pyfile_toks(f);
	int depth = 0;

	for (; k < end; k++) {
		const struct cpl_pytoken *t = &toks[k];
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
size_t
cpl_pyvalue_top_comma(const struct cpl_pyfile *f, size_t k, size_t end)
{
	const struct cpl_pytoken *toks = cpl_pyfile_toks(f);

	for (; k < end; k++) {
		const struct cpl_pytoken *t = &toks[k];

		if (t->kind != CPL_PYTOK_OP || t->len != 1)
			continue;
		if (strchr("([{", f->text[t->off]))
			k = cpl_pyvalue_closing(f, k, end);
		else if (f->text[t->off] == ',')
			return k;
	}
	return end;
}

/* Copies a token's text into buf (NUL-terminated); false if too long. */
static bool
tok_text(char *buf, size_t size, const struct cpl_pyfile *f, size_t k)
{
	const struct cpl_pytoken *toks = cpl_pyfile_toks(f);

	if (toks[k].len >= size)
		return false;
	memcpy(buf, f->text + toks[k].off, toks[k].len);
	buf[toks[k].len] = '\0';
	return true;
}

/* ---- the expression parser -------------------------------------------- */

/* The contents of a plain one-token string literal, as a slice. */
static bool
str_slice(const struct cpl_pyfile *f, size_t k, const char **s, size_t *n)
{
	const struct cpl_pytoken *t = cpl_pyfile_toks(f) + k;
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
name_primary(struct pv_ev *ev)
{
	const struct cpl_pyfile *f = ev->f;
	struct ctx *cx = ev->cx;
	size_t names[8], n = 0, k = at(ev);
	char base[128], attr[128];

	names[n++] = k;
	ev->k = k + 1;
	while (n < CPL_ARRAY_LEN(names) && is_op(ev, ".") &&
	       ev->k + 1 < ev->end &&
	       ev->toks[ev->k + 1].kind == CPL_PYTOK_NAME) {
		names[n++] = ev->k + 1;
		ev->k += 2;
	}
	if (is_op(ev, "(")) {
		size_t open = at(ev);
		size_t close = cpl_pyvalue_closing(f, open, ev->end);
		int c = cpl_pyscan_call_at(f, open);

		ev->k = close < ev->end ? close + 1 : ev->end;
		return c < 0 ? unknown() :
			       cpl_pyvalue_eval_call(cx, ev->fr, c);
	}
	if (!tok_text(base, sizeof(base), f, names[0]))
		return unknown();
	if (is_op(ev, "[")) {
		size_t open = at(ev);
		size_t close = cpl_pyvalue_closing(f, open, ev->end);
		int im = cpl_pyscan_binding(f, ev->scope, base);
		struct val key = unknown();

		ev->k = close < ev->end ? close + 1 : ev->end;
		if (im < 0 || close != open + 2 ||
		    ev->toks[open + 1].kind != CPL_PYTOK_STRING ||
		    !str_slice(f, open + 1, &key.s, &key.n))
			return unknown();
		key.kind = V_STR;
		/* os.environ["X"]: through the imports, unset is KeyError. */
		if (n == 2 && strcmp(f->imports[im].target, "os") == 0 &&
		    tok_is(f->text, &ev->toks[names[1]], "environ")) {
			struct val v = cpl_pyvalue_env_read(cx, key, NULL,
					cpl_pyscan_pos(f, names[0]));

			return v.kind == V_NONE ? unknown() : v;
		}
		if (n == 1 &&
		    strcmp(f->imports[im].target, "os.environ") == 0) {
			struct val v = cpl_pyvalue_env_read(cx, key, NULL,
					cpl_pyscan_pos(f, names[0]));

			return v.kind == V_NONE ? unknown() : v;
		}
		return unknown();
	}
	if (n == 1)
		return cpl_pyvalue_eval_name(cx, ev->fr, ev->scope, base,
					      names[0], ev->block);
	if (n == 3 || (n == 2 && tok_text(attr, sizeof(attr), f, names[1]) &&
		       strcmp(base, "self") != 0 &&
		       cpl_pyscan_assign_last(f, ev->scope, base) < 0)) {
		/* Class.attr, module.Class.attr: a class's attribute. */
		struct val v;
		bool is_class;
		char dotted[3 * 128 + 2];
		size_t i, len = 0;

		for (i = 0; i < n; i++) {
			const struct cpl_pytoken *t = &ev->toks[names[i]];

			if (len + t->len + 1 >= sizeof(dotted))
				return unknown();
			if (i > 0)
				dotted[len++] = '.';
			memcpy(dotted + len, f->text + t->off, t->len);
			len += t->len;
		}
		dotted[len] = '\0';
		v = cpl_pyvalue_class_attr(cx, ev->fr, ev->scope, dotted,
					   names[0], ev->block, &is_class);
		/* A val holds no pointer to is_class (cppcheck cannot see
		 * that through the call into pyvalue_bind.c). */
		if (is_class || n == 3)
			/* cppcheck-suppress returnDanglingLifetime */
			return v;
	}
	if (n == 2 && tok_text(attr, sizeof(attr), f, names[1])) {
		struct val b;
		int im;

		if (strcmp(base, "self") == 0) {
			char full[140] = "self.";

			memcpy(full + 5, attr, strlen(attr) + 1);
			return cpl_pyvalue_self_attr(cx, ev->fr, ev->scope,
						      full);
		}
		b = cpl_pyvalue_eval_name(cx, ev->fr, ev->scope, base,
					   names[0], ev->block);
		if (b.kind == V_NS)
			return cpl_pyvalue_option(cx, b.ns, attr);
		im = cpl_pyscan_binding(f, ev->scope, base);
		if (b.kind == V_UNKNOWN && im >= 0) {
			const struct cpl_pyfile *g =
				cpl_pyvalue_module_of(cx, f, im);
			struct pv_frame fr = { g, NULL, -1 };

			/* A val holds nothing of the frame it was read in
			 * (cppcheck cannot see that through the call into
			 * pyvalue_bind.c). */
			if (g)
				/* cppcheck-suppress returnDanglingLifetime */
				return cpl_pyvalue_eval_name(cx, &fr, 0, attr,
							      (size_t)-1, 0);
		}
	}
	return unknown();
}

/* An atom and its trailers. */
static struct val
primary(struct pv_ev *ev)
{
	const struct cpl_pyfile *f = ev->f;
	size_t k = at(ev), close;
	const struct cpl_pytoken *t;
	struct val v = unknown();

	if (k >= ev->end) {
		ev->bad = true;
		return v;
	}
	t = &ev->toks[k];
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
		       ev->toks[ev->k].kind == CPL_PYTOK_STRING) {
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
		else if (tok_is(f->text, t, "await") && nest(ev)) {
			v = primary(ev);
			unnest(ev);
		} else
			ev->bad = true;
		break;
	case CPL_PYTOK_NAME:
		v = name_primary(ev);
		break;
	case CPL_PYTOK_OP:
		close = cpl_pyvalue_closing(f, k, ev->end);
		if (close >= ev->end || !strchr("([{", f->text[t->off])) {
			ev->bad = true;
			break;
		}
		if (f->text[t->off] == '(' &&
		    cpl_pyvalue_top_comma(f, k + 1, close) == close) {
			struct pv_ev sub = *ev;

			if (!nest(ev))
				break;
			sub.k = k + 1;
			sub.end = close;
			v = expr(&sub);
			unnest(ev);
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
			close = cpl_pyvalue_closing(f, at(ev), ev->end);
			ev->k = close < ev->end ? close + 1 : ev->end;
		}
		v = unknown();
	}
	return v;
}

static struct val unary(struct pv_ev *ev);

/* primary [** unary] */
static struct val
power(struct pv_ev *ev)
{
	struct val a = primary(ev), b;

	if (!is_op(ev, "**"))
		return a;
	ev->k++;
	if (!nest(ev))
		return unknown();
	b = unary(ev);
	unnest(ev);
	return cpl_pyvalue_binop("**", a, b);
}

/* - + ~ before a power. */
static struct val
unary(struct pv_ev *ev)
{
	struct val v;

	if (is_op(ev, "-") || is_op(ev, "+") || is_op(ev, "~")) {
		char op = ev->f->text[ev->toks[at(ev)].off];

		ev->k++;
		if (!nest(ev))
			return unknown();
		v = unary(ev);
		unnest(ev);
		if (v.kind == V_HOST && op != '+') {
			v.capk = CAP_NONE;	/* -x: no bounds kept */
			v.lok = false;
		}
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
binop_at(struct pv_ev *ev, const char **op, size_t *ntok)
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
		    tok_is(ev->f->text, &ev->toks[k + 1], "not")) {
			*op = "is not";
			*ntok = 2;
		}
		return 4;
	}
	if (is_kw(ev, "not") && k + 1 < ev->end &&
	    tok_is(ev->f->text, &ev->toks[k + 1], "in")) {
		*op = "in";
		*ntok = 2;
		return 4;
	}
	if (ev->toks[k].kind != CPL_PYTOK_OP)
		return 0;
	for (i = 0; i < CPL_ARRAY_LEN(ops); i++)
		if (tok_is(ev->f->text, &ev->toks[k], ops[i].op)) {
			*op = ops[i].op;
			return ops[i].prec;
		}
	return 0;
}

/* Binary operators of precedence minprec and up (precedence climbing). */
static struct val
binary(struct pv_ev *ev, int minprec)
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
		lhs = cpl_pyvalue_binop(op, lhs, rhs);
	}
	return lhs;
}

/* [not] comparison */
static struct val
not_test(struct pv_ev *ev)
{
	struct val v;
	bool known, t;

	if (!is_kw(ev, "not"))
		return binary(ev, 4);
	ev->k++;
	if (!nest(ev))
		return unknown();
	v = not_test(ev);
	unnest(ev);
	if (v.kind == V_HOST)
		return v;
	t = cpl_pyvalue_truthy(&v, &known);
	return known ? number(!t, true, v.origin, v.pos) : unknown();
}

/* `a and b` (and) or `a or b` of two values. */
static struct val
logic(bool is_and, struct val a, struct val b)
{
	bool known, t;

	if (a.kind == V_HOST)
		return a;
	t = cpl_pyvalue_truthy(&a, &known);
	if (known)
		return t == is_and ? b : a;
	return b.kind == V_HOST ? b : unknown();
}

/* not_test (and not_test)* */
static struct val
and_test(struct pv_ev *ev)
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
or_test(struct pv_ev *ev)
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
expr(struct pv_ev *ev)
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
		if (!nest(ev))
			return unknown();
		v = expr(ev);
		unnest(ev);
		return v;
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
	if (!nest(ev))
		return unknown();
	e = expr(ev);
	unnest(ev);
	t = cpl_pyvalue_truthy(&c, &known);
	if (known)
		return t ? v : e;
	r = cpl_pyvalue_combine(v, e);
	if (r.kind != V_HOST && c.kind == V_HOST && v.kind == V_NUM &&
	    e.kind == V_NUM) {
		/* One of two numbers, chosen by the CPU count. */
		r = host(c.host);
		r.capk = CAP_KNOWN;
		r.cap = v.num > e.num ? v.num : e.num;
		r.lok = true;
		r.lo = v.num < e.num ? v.num : e.num;
	}
	return r;
}

/* The value of expression e read in frame fr. */
struct val
cpl_pyvalue_eval_range(struct ctx *cx, const struct pv_frame *fr,
		       const struct cpl_pyexpr *e)
{
	struct pv_ev ev;
	struct val v;

	if (e->first >= e->last || !enter(cx))
		return unknown();
	memset(&ev, 0, sizeof(ev));
	ev.cx = cx;
	ev.fr = fr;
	ev.f = fr->f;
	ev.toks = cpl_pyfile_toks(ev.f);
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
