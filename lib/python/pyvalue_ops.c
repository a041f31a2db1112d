/*
 * pyvalue_ops.c — the arithmetic of resolved values (pyvalue_int.h) that
 * every part of the resolver shares: combining the values that reach one
 * use, Python's int() float() round() abs() str() math.floor/ceil/trunc,
 * truth, min()/max() and the binary operators.  The lowest file of the
 * resolver: it calls none of the others (pyvalue.c, pyvalue_expr.c,
 * pyvalue_bind.c and pyvalue_code.c call it).
 *
 * Invariant: the arithmetic yields only numbers Python would: a division
 * by zero, a result past 9e15 or an operand that is not a number is
 * UNKNOWN, and an operand that depends on the CPU count makes the result
 * HOST.  A CPU count keeps an upper bound through min() and the operators
 * that preserve one (min(8, os.cpu_count()) // 2 is at most 4).
 *
 * Owns nothing.  May include: python/pyvalue_int.h and the C library.
 */
#include "python/pyvalue_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- values ----------------------------------------------------------- */

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

/* A lower bound of v: a number's value, a HOST value's lo. */
bool
cpl_pyvalue_low(const struct val *v, double *lo)
{
	if (v->kind == V_NUM) {
		*lo = v->num;
		return true;
	}
	if (v->kind == V_HOST && v->lok) {
		*lo = v->lo;
		return true;
	}
	return false;
}

/*
 * The bounds of a HOST value h that may also be o (both reach one use):
 * the larger upper bound, none when either side is unbounded; the smaller
 * lower bound.
 */
static struct val
cap_join(struct val h, const struct val *o)
{
	double lo;

	if (h.lok && cpl_pyvalue_low(o, &lo))
		h.lo = lo < h.lo ? lo : h.lo;
	else
		h.lok = false;
	if (h.capk == CAP_NONE)
		return h;
	if (o->kind == V_HOST) {
		if (o->capk == CAP_NONE)
			h.capk = CAP_NONE;
		else if (o->capk == CAP_SET)
			h.capk = CAP_SET;
		else if (h.capk == CAP_KNOWN && o->cap > h.cap)
			h.cap = o->cap;
	} else if (o->kind == V_NUM) {
		if (h.capk == CAP_KNOWN && o->num > h.cap)
			h.cap = o->num;
	} else {
		h.capk = CAP_NONE;
	}
	return h;
}

/* Two values that may both reach one use. */
struct val
cpl_pyvalue_combine(struct val a, struct val b)
{
	/* Of two counts, the unbounded one names the CPU count to blame. */
	if (a.kind == V_HOST && b.kind == V_HOST && a.capk != CAP_NONE &&
	    b.capk == CAP_NONE)
		return cap_join(b, &a);
	if (a.kind == V_HOST)
		return cap_join(a, &b);
	if (b.kind == V_HOST)
		return cap_join(b, &a);
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
int
cpl_pyvalue_parse_text(double *out, bool *isint, const char *s, size_t n,
		       bool want_int)
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
struct val
cpl_pyvalue_convert(struct val v, const char *how, struct cpl_pos pos)
{
	double d;
	bool isint;

	if (v.kind == V_HOST && strcmp(how, "str") != 0 &&
	    strcmp(how, "float") != 0) {
		/* Monotone conversions keep the bounds; abs may not. */
		double (*fn)(double) =
			strcmp(how, "round") == 0 ? nearbyint :
			strcmp(how, "math.ceil") == 0 ? ceil :
			strcmp(how, "math.floor") == 0 ? floor : trunc;

		if (strcmp(how, "abs") == 0) {
			v.capk = CAP_NONE;
			v.lok = false;
		}
		v.cap = fn(v.cap);
		v.lo = fn(v.lo);
	}
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
		} else if (cpl_pyvalue_parse_text(&d, &isint, v.s, v.n,
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
bool
cpl_pyvalue_truthy(const struct val *v, bool *known)
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

/*
 * a op b when a or b depends on a CPU count: the HOST operand, with its
 * upper bound carried through the operators that keep one (+, and - * //
 * / by a known number on the right; + and * of two bounded values).
 */
static struct val
host_arith(const char *op, struct val a, struct val b)
{
	struct val h = a.kind == V_HOST ? a : b;
	const struct val *o = a.kind == V_HOST ? &b : &a;
	bool plus = strcmp(op, "+") == 0, times = strcmp(op, "*") == 0;
	double y = o->num, olo;

	/* The lower bound, through the same monotone operators. */
	if (h.lok && cpl_pyvalue_low(o, &olo) && (plus || times) &&
	    (plus || (h.lo >= 0 && olo >= 0)))
		h.lo = plus ? h.lo + olo : h.lo * olo;
	else if (h.lok && o->kind == V_NUM && a.kind == V_HOST &&
		 strcmp(op, "-") == 0)
		h.lo -= y;
	else if (h.lok && o->kind == V_NUM && a.kind == V_HOST && y > 0 &&
		 (strcmp(op, "//") == 0 || strcmp(op, "/") == 0))
		h.lo = op[1] ? floor(h.lo / y) : h.lo / y;
	else
		h.lok = false;
	if (h.capk == CAP_NONE)
		return h;
	if (o->kind == V_HOST) {
		if (o->capk == CAP_NONE || !(plus || times)) {
			h.capk = CAP_NONE;
		} else if (o->capk == CAP_SET || h.capk == CAP_SET) {
			h.capk = CAP_SET;
		} else {
			h.cap = plus ? h.cap + o->cap : h.cap * o->cap;
		}
		return h;
	}
	if (o->kind != V_NUM) {
		h.capk = CAP_NONE;
		return h;
	}
	if (plus || (times && y >= 0)) {
		if (h.capk == CAP_KNOWN)
			h.cap = plus ? h.cap + y : h.cap * y;
	} else if (a.kind == V_HOST && strcmp(op, "-") == 0) {
		if (h.capk == CAP_KNOWN)
			h.cap -= y;
	} else if (a.kind == V_HOST && y > 0 &&
		   (strcmp(op, "//") == 0 || strcmp(op, "/") == 0)) {
		if (h.capk == CAP_KNOWN)
			h.cap = op[1] ? floor(h.cap / y) : h.cap / y;
	} else {
		h.capk = CAP_NONE;
	}
	return h;
}

/* min() (is_min) or max() of operands v[0, n). */
struct val
cpl_pyvalue_minmax(bool is_min, const struct val *v, const bool *setting,
		   size_t n)
{
	const struct val *h = NULL, *best = NULL;
	bool set = false, open = false;
	double bound = 0, lo = 0, l;
	bool have = false, lok = is_min, known;
	struct val r;
	size_t i;

	for (i = 0; i < n; i++) {
		/* min: the smallest lower bound, all known; max: the
		 * largest known one. */
		known = cpl_pyvalue_low(&v[i], &l);
		if (is_min && known && (i == 0 || l < lo))
			lo = l;
		else if (is_min && !known)
			lok = false;
		else if (!is_min && known && (!lok || l > lo))
			lo = l, lok = true;
		if (v[i].kind == V_HOST) {
			if (h == NULL)
				h = &v[i];
			if (v[i].capk == CAP_NONE)
				open = true;
			else if (v[i].capk == CAP_SET)
				set = true;
			else if (!have || (is_min ? v[i].cap < bound :
					   v[i].cap > bound))
				bound = v[i].cap, have = true;
		} else if (v[i].kind == V_NUM) {
			if (best == NULL || (is_min ? v[i].num < best->num :
					     v[i].num > best->num))
				best = &v[i];
			if (!have || (is_min ? v[i].num < bound :
				      v[i].num > bound))
				bound = v[i].num, have = true;
		} else if (setting[i]) {
			set = true;
		} else {
			open = true;
		}
	}
	if (h == NULL)
		return !open && !set && best ? *best : unknown();
	r = *h;
	if (is_min) {
		/* The smallest operand bounds it: a known one, else a
		 * setting. */
		r.capk = have ? CAP_KNOWN : set ? CAP_SET : CAP_NONE;
	} else {
		/* Every operand must be bounded for the largest to be. */
		r.capk = open ? CAP_NONE : set ? CAP_SET : CAP_KNOWN;
	}
	r.cap = bound;
	r.lok = lok;
	r.lo = lo;
	return r;
}

/* a op b for a binary operator op (as written). */
struct val
cpl_pyvalue_binop(const char *op, struct val a, struct val b)
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
	if (a.kind == V_HOST || b.kind == V_HOST)
		return host_arith(op, a, b);
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

/* ---- the interface ---------------------------------------------------- */
