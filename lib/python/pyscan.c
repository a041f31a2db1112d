/*
 * pyscan.c — reads the facts of a Python file from its tokens (pyscan.h):
 * the public entry points and the walk over statements.
 *
 * Two stages, both linear.  The scan walks the tokens once, statement by
 * statement, keeping a stack of scopes (module, class, def), a stack of
 * indented blocks and, inside a statement, a stack of open brackets whose
 * call frames collect arguments; it records imports, scopes, assignments
 * and raw calls.  The post-pass then resolves each callee through the
 * imports, classifies calls, builds the typed facts (argdefs, loaders,
 * threads, pools, cpucounts, envsets), marks the data pipeline and tensor
 * work by walking call edges, and follows values backwards from sizing
 * uses to the CPU-count calls that feed them.
 *
 * The scanner is five files that share the private pyscan_int.h:
 *   pyscan.c   this file: the walk (statements, assignment targets, calls
 *              inside a statement), cpl_pyscan_file() and the frees
 *   pyindex.c  records scopes, assignments and imports into the file's
 *              private index; the lookups of pyscan.h
 *   pyfacts.c  post-pass, first half: callees, call kinds, typed facts
 *   pyflow.c   post-pass, second half: data pipeline, tensor work, where
 *              CPU counts go
 *   pyarena.c  the arena and the (namespace, name) maps
 *
 * Invariant: calls are appended when their '(' is read, so f->calls is
 * sorted by the '(' token; every other fact array is in token order too.
 * Lookups go through hash maps keyed by (namespace, name); no step scans
 * all facts for each fact.
 *
 * Ownership: strings live in the file's arena (struct cpl_pyindex), arrays
 * are heap blocks; cpl_pyfile_free() releases both.  The walk's stacks
 * (struct scan) live for one cpl_pyscan_file().
 */
#include "python/pyscan_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- scan state ------------------------------------------------------- */

/* An open bracket inside a statement; a call frame when call >= 0. */
struct cframe {
	int call;
	size_t start;		/* the current argument's first token */
	int argi;		/* its index */
	size_t argbase;		/* the call's first argument in targs */
	int near;		/* the nearest call frame at or below, -1 */
};

/* The first token at or after k (before end) that is not NL or comment. */
static size_t
skip_trivia(const struct scan *sc, size_t k, size_t end)
{
	while (k < end && is_trivia(sc, k))
		k++;
	return k;
}

/* Opens a block nested in the current one. */
static void
push_block(struct scan *sc, bool oneline)
{
	struct cpl_pyindex *ix = sc->ix;

	if (ix->nblocks == ix->capblocks)
		CPL_GROW(ix->block_parent, ix->capblocks, ix->nblocks + 1);
	ix->block_parent[ix->nblocks] = sc->nbs ? cur_block(sc) : -1;
	if (sc->nbs == sc->capbs)
		CPL_GROW(sc->bs, sc->capbs, sc->nbs + 1);
	sc->bs[sc->nbs].block = (int)ix->nblocks++;
	sc->bs[sc->nbs].oneline = oneline;
	sc->nbs++;
}

/* Opens scope for the statements that follow. */
static void
push_scope_frame(struct scan *sc, int scope, bool oneline)
{
	if (sc->nss == sc->capss)
		CPL_GROW(sc->ss, sc->capss, sc->nss + 1);
	sc->ss[sc->nss].scope = scope;
	sc->ss[sc->nss].depth = sc->depth;
	sc->ss[sc->nss].oneline = oneline;
	sc->nss++;
}

/* ---- calls inside a statement ----------------------------------------- */

/*
 * When the '(' at k (inside [s, ...)) opens a call, sets *first to the
 * callee's first name token and returns its dotted text; NULL otherwise.
 */
static char *
callee_at(struct scan *sc, size_t k, size_t s, size_t *first)
{
	size_t p = k, q, j, len;
	bool method;
	char *name, *w;

	do {
		if (p == s)
			return NULL;
		p--;
	} while (is_trivia(sc, p));
	if (!tok_name(sc, p))
		return NULL;
	q = p;
	while (q >= s + 2 && tok_op(sc, q - 1, ".") && tok_name(sc, q - 2))
		q -= 2;
	method = q >= s + 1 && tok_op(sc, q - 1, ".");
	if (q >= s + 1 && (tok_kw(sc, q - 1, "def") || tok_kw(sc, q - 1,
							       "class")))
		return NULL;
	/* Written in place in the arena: its length first. */
	len = method;
	for (j = q; j <= p; j += 2)
		len += sc->t[j].len + (j < p);
	name = w = cpl_pyscan_arena_str(&sc->ix->arena, len);
	if (method)
		*w++ = '.';
	for (j = q; j <= p; j += 2) {
		memcpy(w, sc->text + sc->t[j].off, sc->t[j].len);
		w += sc->t[j].len;
		if (j < p)
			*w++ = '.';
	}
	*w = '\0';
	*first = q;
	return name;
}

/* Opens a bracket in a statement; a call frame when call >= 0. */
static void
push_cframe(struct scan *sc, int call)
{
	struct cframe *c;
	int below = sc->ncs ? sc->cs[sc->ncs - 1].near : -1;

	if (sc->ncs == sc->capcs)
		CPL_GROW(sc->cs, sc->capcs, sc->ncs + 1);
	c = &sc->cs[sc->ncs];
	c->call = call;
	c->start = 0;
	c->argi = 0;
	c->argbase = sc->ntargs;
	c->near = call >= 0 ? (int)sc->ncs : below;
	sc->ncs++;
}

/* Records a call whose '(' is token k and opens its frame. */
static void
open_call(struct scan *sc, size_t k, size_t first, char *callee,
	  size_t vfirst, size_t vlast, int assign)
{
	struct cpl_pyfile *f = sc->f;
	struct cpl_pyindex *ix = sc->ix;
	struct cpl_pycall *c;
	int near = sc->ncs ? sc->cs[sc->ncs - 1].near : -1;

	if (f->ncalls == ix->capcalls)
		CPL_GROW(f->calls, ix->capcalls, f->ncalls + 1);
	if (sc->capargoff != ix->capcalls) {
		ix->argoff = cpl_xrealloc(ix->argoff, ix->capcalls *
					  sizeof(*ix->argoff));
		sc->capargoff = ix->capcalls;
	}
	c = &f->calls[f->ncalls];
	memset(c, 0, sizeof(*c));
	c->callee = callee;
	c->target = callee;
	c->scope = cur_scope(sc);
	c->pos = scan_pos(sc, first);
	c->end = c->pos;
	c->first = first;
	c->open = k;
	c->close = k;
	c->parent = near >= 0 ? sc->cs[near].call : -1;
	c->parent_arg = near >= 0 ? sc->cs[near].argi : -1;
	c->assign = k >= vfirst && k < vlast ? assign : -1;
	c->func = -1;
	c->import = -1;
	ix->argoff[f->ncalls] = 0;
	push_cframe(sc, (int)f->ncalls);
	sc->cs[sc->ncs - 1].start = k + 1;
	f->ncalls++;
}

/* Adds tokens [a, b) as the next argument of call frame fr. */
static void
add_arg(struct scan *sc, struct cframe *fr, size_t a, size_t b)
{
	struct cpl_pyarg *arg;
	int scope = cur_scope(sc);

	a = skip_trivia(sc, a, b);
	while (b > a && is_trivia(sc, b - 1))
		b--;
	if (a >= b)
		return;
	if (sc->ntargs == sc->captargs)
		CPL_GROW(sc->targs, sc->captargs, sc->ntargs + 1);
	arg = &sc->targs[sc->ntargs++];
	memset(arg, 0, sizeof(*arg));
	if (tok_name(sc, a) && a + 1 < b && tok_op(sc, a + 1, "=")) {
		arg->keyword = tok_dup(sc, a);
		a += 2;
	} else if (tok_op(sc, a, "*")) {
		arg->star = 1;
		a++;
	} else if (tok_op(sc, a, "**")) {
		arg->star = 2;
		a++;
	}
	arg->value = make_expr(sc, a, b, scope);
	(void)fr;
}

/* Closes the innermost bracket at token k, finishing its call. */
static void
close_cframe(struct scan *sc, size_t k)
{
	struct cframe *fr = &sc->cs[sc->ncs - 1];
	struct cpl_pyindex *ix = sc->ix;

	if (fr->call >= 0) {
		struct cpl_pycall *c = &sc->f->calls[fr->call];
		size_t nargs;

		add_arg(sc, fr, fr->start, k);
		nargs = sc->ntargs - fr->argbase;
		if (nargs > 0) {
			if (ix->nargs + nargs > ix->capargs)
				CPL_GROW(ix->args, ix->capargs,
					 ix->nargs + nargs);
			memcpy(ix->args + ix->nargs, sc->targs + fr->argbase,
			       nargs * sizeof(*ix->args));
		}
		ix->argoff[fr->call] = ix->nargs;
		c->nargs = nargs;
		ix->nargs += nargs;
		sc->ntargs = fr->argbase;
		c->close = k;
		if (k < sc->n)
			cpl_pytoken_end(sc->text, &sc->t[k], &c->end.line,
					&c->end.column);
	}
	sc->ncs--;
}

/* name := value inside a statement: value runs to the next ',' or close. */
static void
walrus(struct scan *sc, size_t k, size_t s, size_t e)
{
	size_t j;
	int depth = 0;

	if (k == s || !tok_name(sc, k - 1))
		return;
	for (j = k + 1; j < e; j++) {
		if (sc->t[j].kind != CPL_PYTOK_OP || sc->t[j].len != 1)
			continue;
		switch (sc->text[sc->t[j].off]) {
		case '(': case '[': case '{':
			depth++;
			break;
		case ')': case ']': case '}':
			depth--;
			break;
		case ',':
			if (depth == 0)
				depth = -1;
			break;
		default:
			break;
		}
		if (depth < 0)
			break;
	}
	cpl_pyscan_add_assign(sc, tok_dup(sc, k - 1), k + 1, j, -1, "=", false,
			      k - 1);
}

/*
 * Records the calls of tokens [s, e).  Calls whose '(' lies in
 * [vfirst, vlast) belong to assignment assign.
 */
static void
scan_calls(struct scan *sc, size_t s, size_t e, size_t vfirst, size_t vlast,
	   int assign)
{
	size_t base = sc->ncs, k, first = 0;

	for (k = s; k < e; k++) {
		const struct cpl_pytoken *t = &sc->t[k];
		char c, *callee;

		if (t->kind != CPL_PYTOK_OP)
			continue;
		if (t->len == 2 && tok_is(sc->text, t, ":=")) {
			walrus(sc, k, s, e);
			continue;
		}
		if (t->len != 1)
			continue;
		c = sc->text[t->off];
		callee = c == '(' ? callee_at(sc, k, s, &first) : NULL;
		if (callee) {
			open_call(sc, k, first, callee, vfirst, vlast, assign);
		} else if (c == '(' || c == '[' || c == '{') {
			push_cframe(sc, -1);
		} else if ((c == ')' || c == ']' || c == '}') &&
			   sc->ncs > base) {
			close_cframe(sc, k);
		} else if (c == ',' && sc->ncs > base &&
			   sc->cs[sc->ncs - 1].call >= 0) {
			struct cframe *fr = &sc->cs[sc->ncs - 1];

			add_arg(sc, fr, fr->start, k);
			fr->start = k + 1;
			fr->argi++;
		}
	}
	while (sc->ncs > base)
		close_cframe(sc, e);
}

/* ---- statements ------------------------------------------------------- */

/*
 * The end of the statement at s: the NEWLINE, the ';' or, for a compound
 * header, the ':' that ends it (a lambda's ':' skipped).
 */
static size_t
stmt_end(const struct scan *sc, size_t s, bool header)
{
	int depth = 0, lambdas = 0;
	size_t k;

	for (k = s; k < sc->n; k++) {
		const struct cpl_pytoken *t = &sc->t[k];
		char c;

		if (t->kind == CPL_PYTOK_NEWLINE ||
		    t->kind == CPL_PYTOK_ENDMARKER ||
		    t->kind == CPL_PYTOK_INDENT || t->kind == CPL_PYTOK_DEDENT)
			return k;
		if (header && depth == 0 && tok_kw(sc, k, "lambda"))
			lambdas++;
		if (t->kind != CPL_PYTOK_OP || t->len != 1)
			continue;
		c = sc->text[t->off];
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if ((c == ')' || c == ']' || c == '}') && depth > 0)
			depth--;
		else if (depth == 0 && c == ';')
			return k;
		else if (header && depth == 0 && c == ':' && lambdas-- == 0)
			return k;
	}
	return k;
}

/* The bracket matching the one at k, or end. */
static size_t
match_close(const struct scan *sc, size_t k, size_t end)
{
	int depth = 0;

	for (; k < end; k++) {
		const struct cpl_pytoken *t = &sc->t[k];
		char c;

		if (t->kind != CPL_PYTOK_OP || t->len != 1)
			continue;
		c = sc->text[t->off];
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if ((c == ')' || c == ']' || c == '}') && --depth == 0)
			return k;
	}
	return end;
}

/* A dotted name NAME(.NAME)* at k: its end (exclusive), k if none. */
static size_t
dotted_end(const struct scan *sc, size_t k, size_t end)
{
	size_t j = k;

	if (j >= end || !tok_name(sc, j))
		return k;
	j++;
	while (j + 1 < end && tok_op(sc, j, ".") && tok_name(sc, j + 1))
		j += 2;
	return j;
}

/* The text of tokens [a, b) joined without spaces, in the arena. */
static char *
join_tokens(struct scan *sc, size_t a, size_t b)
{
	size_t len = 0, k;
	char *s, *w;

	/* Written in place in the arena: its length first. */
	for (k = a; k < b; k++)
		if (!is_trivia(sc, k))
			len += sc->t[k].len;
	s = w = cpl_pyscan_arena_str(&sc->ix->arena, len);
	for (k = a; k < b; k++)
		if (!is_trivia(sc, k)) {
			memcpy(w, sc->text + sc->t[k].off, sc->t[k].len);
			w += sc->t[k].len;
		}
	*w = '\0';
	return s;
}

/* One assignment target [a, b) (no commas): name, dotted or subscript. */
static void
target_item(struct scan *sc, size_t a, size_t b, size_t vfirst, size_t vlast,
	    int index, const char *op, bool opaque)
{
	size_t d;

	a = skip_trivia(sc, a, b);
	while (b > a && is_trivia(sc, b - 1))
		b--;
	if (a >= b)
		return;
	if (tok_op(sc, a, "*") && b - a == 2 && tok_name(sc, a + 1)) {
		cpl_pyscan_add_assign(sc, tok_dup(sc, a + 1), vfirst, vlast,
				      index, op, true, a + 1);
		return;
	}
	if (tok_op(sc, a, "(") || tok_op(sc, a, "[")) {
		size_t j;

		/* A nested tuple: its names get no readable value. */
		for (j = a; j < b; j++)
			if (tok_name(sc, j) && !tok_op(sc, j - 1, "."))
				cpl_pyscan_add_assign(sc, tok_dup(sc, j),
						      vfirst, vlast, index,
						      op, true, j);
		return;
	}
	d = dotted_end(sc, a, b);
	if (d == b) {
		cpl_pyscan_add_assign(sc, join_tokens(sc, a, b), vfirst,
				      vlast, index, op, opaque, a);
		return;
	}
	if (d > a && tok_op(sc, d, "[") && d + 2 < b &&
	    sc->t[d + 1].kind == CPL_PYTOK_STRING && tok_op(sc, d + 2, "]") &&
	    d + 3 == b && cpl_str_eq(op, "=") && !opaque) {
		struct cpl_pyindex *ix = sc->ix;
		struct subassign *sa;

		CPL_GROW(ix->subs, ix->capsubs, ix->nsubs + 1);
		sa = &ix->subs[ix->nsubs++];
		sa->base = a;
		sa->base_end = d;
		sa->key = d + 1;
		sa->value = make_expr(sc, vfirst, vlast, cur_scope(sc));
		sa->scope = cur_scope(sc);
	}
}

/* Targets [a, b), maybe a tuple, maybe in brackets. */
static void
targets(struct scan *sc, size_t a, size_t b, size_t vfirst, size_t vlast,
	const char *op, bool opaque)
{
	size_t k, start;
	int depth = 0, index = 0;
	bool tuple = false;

	a = skip_trivia(sc, a, b);
	while (b > a && is_trivia(sc, b - 1))
		b--;
	if (a < b && (tok_op(sc, a, "(") || tok_op(sc, a, "[")) &&
	    match_close(sc, a, b) == b - 1) {
		a++;
		b--;
		tuple = true;
	}
	for (k = a; k < b; k++)
		if (tok_op(sc, k, ",") && depth == 0)
			tuple = true;
		else if (tok_op(sc, k, "(") || tok_op(sc, k, "[") ||
			 tok_op(sc, k, "{"))
			depth++;
		else if (tok_op(sc, k, ")") || tok_op(sc, k, "]") ||
			 tok_op(sc, k, "}"))
			depth--;
	depth = 0;
	for (k = start = a; k <= b; k++) {
		if (k == b || (tok_op(sc, k, ",") && depth == 0)) {
			target_item(sc, start, k, vfirst, vlast,
				    tuple ? index : -1, op, opaque);
			index++;
			start = k + 1;
		} else if (tok_op(sc, k, "(") || tok_op(sc, k, "[") ||
			   tok_op(sc, k, "{")) {
			depth++;
		} else if (tok_op(sc, k, ")") || tok_op(sc, k, "]") ||
			   tok_op(sc, k, "}")) {
			depth--;
		}
	}
}

/* A word and its length, for the lists a token is compared with. */
struct word {
	const char *s;
	size_t n;
};

#define WORD(lit) { lit, sizeof(lit) - 1 }

/* Token t's text is one of list[0, n): lengths first, no strlen(). */
static bool
tok_in(const char *text, const struct cpl_pytoken *t,
       const struct word *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t->len == list[i].n &&
		    memcmp(text + t->off, list[i].s, list[i].n) == 0)
			return true;
	return false;
}

/* Token k is an augmented assignment operator. */
static bool
is_augop(const struct scan *sc, size_t k)
{
	static const struct word aug[] = {
		WORD("+="), WORD("-="), WORD("*="), WORD("/="), WORD("//="),
		WORD("%="), WORD("**="), WORD(">>="), WORD("<<="), WORD("&="),
		WORD("|="), WORD("^="), WORD("@="),
	};
	const struct cpl_pytoken *t = &sc->t[k];

	/* Each ends in '=': most operators are out at their last byte. */
	if (t->kind != CPL_PYTOK_OP || t->len < 2 ||
	    sc->text[t->off + t->len - 1] != '=')
		return false;
	return tok_in(sc->text, t, aug, CPL_ARRAY_LEN(aug));
}

/* An expression statement or an assignment in [s, e). */
static void
assignment(struct scan *sc, size_t s, size_t e)
{
	size_t k, last_eq = SIZE_MAX, colon = SIZE_MAX, aug = SIZE_MAX;
	size_t start, nbefore = sc->f->nassigns;
	int depth = 0;

	for (k = s; k < e; k++) {
		const struct cpl_pytoken *t = &sc->t[k];
		char c;

		if (depth == 0 && tok_kw(sc, k, "lambda"))
			break;
		if (t->kind != CPL_PYTOK_OP)
			continue;
		if (depth == 0 && is_augop(sc, k) && aug == SIZE_MAX &&
		    last_eq == SIZE_MAX)
			aug = k;
		if (t->len != 1)
			continue;
		c = sc->text[t->off];
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if ((c == ')' || c == ']' || c == '}') && depth > 0)
			depth--;
		else if (depth == 0 && c == '=' && aug == SIZE_MAX)
			last_eq = k;
		else if (depth == 0 && c == ':' && last_eq == SIZE_MAX &&
			 colon == SIZE_MAX)
			colon = k;
	}
	if (aug != SIZE_MAX) {
		char op[4] = "";

		if (sc->t[aug].len < sizeof(op))
			memcpy(op, sc->text + sc->t[aug].off, sc->t[aug].len);
		targets(sc, s, aug, aug + 1, e, op, false);
		scan_calls(sc, s, e, aug + 1, e,
			   sc->f->nassigns > nbefore ? (int)nbefore : -1);
		return;
	}
	if (last_eq == SIZE_MAX) {
		scan_calls(sc, s, e, 0, 0, -1);
		return;
	}
	depth = 0;
	for (k = start = s; k <= last_eq; k++) {
		if (k == last_eq || (tok_op(sc, k, "=") && depth == 0)) {
			targets(sc, start, colon < k && colon >= start ?
				colon : k, last_eq + 1, e, "=", false);
			start = k + 1;
		} else if (tok_op(sc, k, "(") || tok_op(sc, k, "[") ||
			   tok_op(sc, k, "{")) {
			depth++;
		} else if (tok_op(sc, k, ")") || tok_op(sc, k, "]") ||
			   tok_op(sc, k, "}")) {
			depth--;
		}
	}
	scan_calls(sc, s, e, last_eq + 1, e,
		   sc->f->nassigns > nbefore ? (int)nbefore : -1);
}

/* import a.b as c, d  /  from ..m import (x as y, z)  in [s, e). */
static void
import_stmt(struct scan *sc, size_t s, size_t e)
{
	size_t k = s + 1, d;

	if (tok_kw(sc, s, "import")) {
		while (k < e) {
			char *mod, *alias = NULL;
			size_t at;

			k = skip_trivia(sc, k, e);
			at = k;
			d = dotted_end(sc, k, e);
			if (d == k)
				break;
			mod = join_tokens(sc, k, d);
			k = d;
			if (tok_kw(sc, k, "as") && tok_name(sc, k + 1)) {
				alias = tok_dup(sc, k + 1);
				k += 2;
			}
			cpl_pyscan_add_import(sc, mod, 0, NULL, alias, at);
			if (!tok_op(sc, k, ","))
				break;
			k++;
		}
		return;
	}
	{
		int level = 0;
		char *mod;
		size_t at = k;

		while (k < e && (tok_op(sc, k, ".") || tok_op(sc, k, "..."))) {
			level += (int)sc->t[k].len;
			k++;
		}
		d = dotted_end(sc, k, e);
		mod = join_tokens(sc, k, d);
		if (d > k)
			at = k;
		k = d;
		if (!tok_kw(sc, k, "import"))
			return;
		k++;
		while (k < e) {
			char *name, *alias = NULL;

			k = skip_trivia(sc, k, e);
			if (tok_op(sc, k, "(") || tok_op(sc, k, ",")) {
				k++;
				continue;
			}
			if (tok_op(sc, k, ")"))
				break;
			if (tok_op(sc, k, "*")) {
				cpl_pyscan_add_import(sc, mod, level, "*",
						      NULL, at);
				break;
			}
			if (!tok_name(sc, k))
				break;
			name = tok_dup(sc, k);
			k++;
			if (tok_kw(sc, k, "as") && tok_name(sc, k + 1)) {
				alias = tok_dup(sc, k + 1);
				k += 2;
			}
			cpl_pyscan_add_import(sc, mod, level, name, alias, at);
		}
	}
}

/*
 * def NAME(params) -> ann:  at kw (the def keyword), header ending at
 * colon.  Returns the new scope.
 */
static int
def_header(struct scan *sc, size_t kw, size_t colon)
{
	struct cpl_pyfile *f = sc->f;
	struct cpl_pyparam tmp[64], *params = tmp;
	size_t np = 0, cap = CPL_ARRAY_LEN(tmp), k, close;
	int scope, outer = cur_scope(sc);
	bool kwonly = false;

	k = kw + 2;
	if (tok_op(sc, k, "["))		/* def f[T](...): PEP 695 */
		k = match_close(sc, k, colon) + 1;
	if (!tok_name(sc, kw + 1) || !tok_op(sc, k, "("))
		return -1;
	scope = cpl_pyscan_new_scope(sc, CPL_PYSCOPE_FUNC, kw + 1);
	close = match_close(sc, k, colon);
	k++;
	while (k < close) {
		struct cpl_pyparam p;
		size_t j, eq = SIZE_MAX;
		int depth = 0;

		memset(&p, 0, sizeof(p));
		k = skip_trivia(sc, k, close);
		if (k >= close)
			break;
		for (j = k; j < close; j++) {
			if (tok_op(sc, j, "(") || tok_op(sc, j, "[") ||
			    tok_op(sc, j, "{"))
				depth++;
			else if (tok_op(sc, j, ")") || tok_op(sc, j, "]") ||
				 tok_op(sc, j, "}"))
				depth--;
			else if (depth == 0 && tok_op(sc, j, ","))
				break;
			else if (depth == 0 && tok_op(sc, j, "=") &&
				 eq == SIZE_MAX)
				eq = j;
		}
		if (tok_op(sc, k, "*") || tok_op(sc, k, "**")) {
			p.star = tok_op(sc, k, "*") ? 1 : 2;
			kwonly = true;
			k++;
		}
		if (tok_name(sc, k)) {
			p.name = tok_dup(sc, k);
			p.tok = k;
			p.pos = scan_pos(sc, k);
			p.kwonly = kwonly && p.star == 0;
			if (eq != SIZE_MAX) {
				p.def = make_expr(sc, eq + 1, j, outer);
				scan_calls(sc, eq + 1, j, 0, 0, -1);
			} else {
				p.def = make_expr(sc, j, j, outer);
			}
			if (np == cap) {
				struct cpl_pyparam *big;

				big = cpl_xmalloc(cap * 2 * sizeof(*big));
				memcpy(big, params, np * sizeof(*big));
				if (params != tmp)
					free(params);
				params = big;
				cap *= 2;
			}
			params[np++] = p;
		}
		k = j + 1;
	}
	f->scopes[scope].params = cpl_pyscan_arena_alloc(&sc->ix->arena,
							 np * sizeof(*params));
	memcpy(f->scopes[scope].params, params, np * sizeof(*params));
	f->scopes[scope].nparams = np;
	if (params != tmp)
		free(params);
	if (close + 1 < colon)
		scan_calls(sc, close + 1, colon, 0, 0, -1);
	return scope;
}

/* class NAME(bases):  at kw, header ending at colon.  The new scope. */
static int
class_header(struct scan *sc, size_t kw, size_t colon)
{
	struct cpl_pyfile *f = sc->f;
	int scope;
	size_t k;

	if (!tok_name(sc, kw + 1))
		return -1;
	scope = cpl_pyscan_new_scope(sc, CPL_PYSCOPE_CLASS, kw + 1);
	k = kw + 2;
	if (tok_op(sc, k, "["))		/* class C[T](...): PEP 695 */
		k = match_close(sc, k, colon) + 1;
	if (tok_op(sc, k, "(")) {
		size_t open = k, close = match_close(sc, open, colon);
		size_t a = skip_trivia(sc, open + 1, close);

		if (a < close)
			f->scopes[scope].bases = cpl_pyscan_arena_strndup(
				&sc->ix->arena, sc->text + sc->t[a].off,
				sc->t[close - 1].off + sc->t[close - 1].len -
					sc->t[a].off);
		for (k = open + 1; k < close; k++)
			if (tok_name(sc, k) && !tok_op(sc, k + 1, "=") &&
			    sc->t[k].len >= 7 &&
			    memcmp(sc->text + sc->t[k].off + sc->t[k].len - 7,
				   "Dataset", 7) == 0)
				f->scopes[scope].dataset = true;
		scan_calls(sc, open + 1, close, 0, 0, -1);
	}
	return scope;
}

/* `as NAME` bindings of with/except headers: no readable value. */
static void
as_bindings(struct scan *sc, size_t s, size_t e)
{
	size_t k;

	for (k = s; k + 1 < e; k++)
		if (tok_kw(sc, k, "as") && tok_name(sc, k + 1))
			cpl_pyscan_add_assign(sc, tok_dup(sc, k + 1), k + 1,
					      k + 1, -1, "=", true, k + 1);
}

/* Token k is the string literal "__main__" (either quote). */
static bool
is_main_str(const struct scan *sc, size_t k)
{
	return sc->t[k].kind == CPL_PYTOK_STRING &&
	       (tok_is(sc->text, &sc->t[k], "\"__main__\"") ||
		tok_is(sc->text, &sc->t[k], "'__main__'"));
}

/* Tokens [a, b) are `__name__ == "__main__"`, either way round, maybe in
 * parentheses. */
static bool
main_test(const struct scan *sc, size_t a, size_t b)
{
	a = skip_trivia(sc, a, b);
	while (b > a && is_trivia(sc, b - 1))
		b--;
	while (b > a + 2 && tok_op(sc, a, "(") && tok_op(sc, b - 1, ")")) {
		a = skip_trivia(sc, a + 1, b);
		b--;
		while (b > a && is_trivia(sc, b - 1))
			b--;
	}
	if (b != a + 3 || !tok_op(sc, a + 1, "=="))
		return false;
	return (tok_name(sc, a) && tok_is(sc->text, &sc->t[a], "__name__") &&
		is_main_str(sc, a + 2)) ||
	       (is_main_str(sc, a) && tok_name(sc, a + 2) &&
		tok_is(sc->text, &sc->t[a + 2], "__name__"));
}

/*
 * A compound statement header [s, colon): records what it binds and its
 * calls; returns the scope it opens (def, class) or -1.
 */
static int
header(struct scan *sc, size_t s, size_t kw, size_t colon)
{
	size_t k;

	if (tok_kw(sc, kw, "def"))
		return def_header(sc, kw, colon);
	if (tok_kw(sc, kw, "class"))
		return class_header(sc, kw, colon);
	if (tok_kw(sc, kw, "for")) {
		int depth = 0;

		for (k = kw + 1; k < colon; k++) {
			if (tok_op(sc, k, "(") || tok_op(sc, k, "["))
				depth++;
			else if (tok_op(sc, k, ")") || tok_op(sc, k, "]"))
				depth--;
			else if (depth == 0 && tok_kw(sc, k, "in"))
				break;
		}
		targets(sc, kw + 1, k, k, k, "=", true);
	} else if (tok_kw(sc, kw, "with") || tok_kw(sc, kw, "except")) {
		as_bindings(sc, kw + 1, colon);
	} else if (tok_kw(sc, kw, "if") && cur_scope(sc) == 0 &&
		   !sc->f->main_guard && main_test(sc, kw + 1, colon)) {
		sc->f->main_guard = true;
		sc->f->main_pos = scan_pos(sc, kw);
	}
	scan_calls(sc, s, colon, 0, 0, -1);
	return -1;
}

/* Token k starts a compound statement header. */
static bool
is_compound(const struct scan *sc, size_t k)
{
	static const struct word kws[] = {
		WORD("if"), WORD("elif"), WORD("else"), WORD("while"),
		WORD("for"), WORD("try"), WORD("except"), WORD("finally"),
		WORD("with"), WORD("def"), WORD("class"),
	};

	if (sc->t[k].kind != CPL_PYTOK_KEYWORD)
		return false;
	return tok_in(sc->text, &sc->t[k], kws, CPL_ARRAY_LEN(kws));
}

/* A simple statement [s, e). */
static void
simple(struct scan *sc, size_t s, size_t e)
{
	if (tok_kw(sc, s, "import") || tok_kw(sc, s, "from")) {
		import_stmt(sc, s, e);
	} else if (tok_kw(sc, s, "return")) {
		int a = -1;

		if (s + 1 < e)
			a = cpl_pyscan_add_assign(
				sc, cpl_pyscan_arena_strndup(&sc->ix->arena,
							     "return", 6),
				s + 1, e, -1, "=", false, s);
		scan_calls(sc, s + 1, e, s + 1, e, a);
	} else if (tok_kw(sc, s, "global") || tok_kw(sc, s, "nonlocal") ||
		   tok_kw(sc, s, "del") || tok_kw(sc, s, "assert") ||
		   tok_kw(sc, s, "raise") || tok_op(sc, s, "@")) {
		scan_calls(sc, s + 1, e, 0, 0, -1);
	} else {
		assignment(sc, s, e);
	}
}

/* One statement or compound header at s; returns the next token. */
static size_t
statement(struct scan *sc, size_t s)
{
	size_t kw = s, e, next;
	bool compound;
	int scope;

	sc->pending = -1;
	if (tok_kw(sc, s, "async"))
		kw = s + 1;
	compound = is_compound(sc, kw);
	e = stmt_end(sc, s, compound);
	if (!compound) {
		simple(sc, s, e);
		return tok_op(sc, e, ";") ? e + 1 : e;
	}
	scope = header(sc, s, kw, e);
	if (!tok_op(sc, e, ":"))
		return e;
	next = skip_trivia(sc, e + 1, sc->n);
	if (next < sc->n && sc->t[next].kind == CPL_PYTOK_NEWLINE) {
		sc->pending = scope;
		return e + 1;
	}
	push_block(sc, true);
	if (scope >= 0) {
		push_scope_frame(sc, scope, true);
		sc->f->scopes[scope].body_first = e + 1;
		sc->f->scopes[scope].block = cur_block(sc);
	}
	return e + 1;
}

/* Closes the scope frame on top at token k. */
static void
pop_scope_frame(struct scan *sc, size_t k)
{
	struct sframe *fr = &sc->ss[--sc->nss];

	sc->f->scopes[fr->scope].body_last = k;
}

/* The single pass: statements, blocks and scopes. */
static void
scan_file(struct scan *sc)
{
	size_t i = 0;

	push_block(sc, false);
	push_scope_frame(sc, cpl_pyscan_new_scope(sc, CPL_PYSCOPE_MODULE, 0),
			 false);
	while (i < sc->n && sc->t[i].kind != CPL_PYTOK_ENDMARKER) {
		switch (sc->t[i].kind) {
		case CPL_PYTOK_NL:
		case CPL_PYTOK_COMMENT:
			i++;
			break;
		case CPL_PYTOK_INDENT:
			sc->depth++;
			push_block(sc, false);
			if (sc->pending >= 0) {
				struct cpl_pyscope *p =
					&sc->f->scopes[sc->pending];

				push_scope_frame(sc, sc->pending, false);
				p->body_first = i + 1;
				p->block = cur_block(sc);
				sc->pending = -1;
			}
			i++;
			break;
		case CPL_PYTOK_DEDENT:
			while (sc->nss > 1 &&
			       sc->ss[sc->nss - 1].depth >= sc->depth)
				pop_scope_frame(sc, i);
			if (sc->nbs > 1)
				sc->nbs--;
			sc->depth--;
			i++;
			break;
		case CPL_PYTOK_NEWLINE:
			while (sc->nss > 1 && sc->ss[sc->nss - 1].oneline)
				pop_scope_frame(sc, i);
			while (sc->nbs > 1 && sc->bs[sc->nbs - 1].oneline)
				sc->nbs--;
			i++;
			break;
		default:
			i = statement(sc, i);
			break;
		}
	}
	while (sc->nss > 0)
		pop_scope_frame(sc, i);
}

/* ---- the post-pass ---------------------------------------------------- */

/* Array p of n elements (room for *cap) cut to n: a scanned file is kept
 * for the whole run and never grows again. */
static void *
fit(void *p, size_t n, size_t elem, size_t *cap)
{
	if (p == NULL || n == 0 || n >= *cap)
		return p;
	*cap = n;
	return cpl_xrealloc(p, n * elem);
}

/* The post-pass over the scanned file: pyfacts.c, then pyflow.c. */
static void
post(struct cpl_pyfile *f)
{
	cpl_pyscan_facts(f);
	cpl_pyscan_pipeline(f);
	cpl_pyscan_tensor_work(f);
	cpl_pyscan_cpu_flow(f);
}

/* Whether f is an entry script (cpl_link_is_entry()). */
static bool
is_entry(const struct cpl_pyfile *f)
{
	size_t i;

	if (f->main_guard)
		return true;
	for (i = 0; i < f->nloaders; i++)
		if (f->calls[f->loaders[i].call].scope == 0)
			return true;
	return false;
}

/* A new index for f, and scan state sc over it (no tokens yet). */
static void
scan_setup(struct cpl_pyfile *f, struct scan *sc)
{
	f->index = cpl_xcalloc(1, sizeof(*f->index));
	memset(sc, 0, sizeof(*sc));
	sc->f = f;
	sc->ix = f->index;
	sc->text = f->text;
	sc->pending = -1;
}

/* Tokenizes f's text into a new index (the tokens held by it) and sets
 * up scan state sc over them; the tokenizer's return. */
static int
scan_begin(struct cpl_pyfile *f, struct scan *sc, struct cpl_error *err)
{
	struct cpl_pytokens tk;
	int rc;

	scan_setup(f, sc);
	memset(&tk, 0, sizeof(tk));
	tk.first_line = f->first_line;
	rc = cpl_pytoken_scan(&tk, f->text, f->len, f->path, err);
	f->index->toks = tk.toks;
	f->index->captoks = tk.cap;
	f->ntoks = tk.count;
	sc->t = tk.toks;
	sc->n = f->ntoks;
	return rc;
}

/* Scans f->text[0, f->len) into f (see cpl_pyscan_file()); keep_toks:
 * see cpl_pyfile_reload(). */
static int
scan_into(struct cpl_pyfile *f, struct cpl_error *err, bool keep_toks)
{
	struct scan sc;
	int rc;

	rc = scan_begin(f, &sc, err);
	/* One slot for 16 tokens: room for most files' assignments without
	 * a grow, and half the slots to clear of one for 8 (on 500 projects
	 * of the real-shaped tree the fewest instructions of 8, 16 and 32;
	 * the map is cut to its entries after the scan either way). */
	cpl_pyscan_nmap_reserve(&f->index->assigns, f->ntoks / 16);
	scan_file(&sc);
	free(sc.ss);
	free(sc.bs);
	free(sc.cs);
	free(sc.targs);
	/* Before the post-pass, which keeps pointers into args. */
	f->calls = fit(f->calls, f->ncalls, sizeof(*f->calls),
		       &f->index->capcalls);
	f->scopes = fit(f->scopes, f->nscopes, sizeof(*f->scopes),
			&f->index->capscopes);
	f->assigns = fit(f->assigns, f->nassigns, sizeof(*f->assigns),
			 &f->index->capassigns);
	f->index->args = fit(f->index->args, f->index->nargs,
			     sizeof(*f->index->args), &f->index->capargs);
	post(f);
	f->entry = is_entry(f);
	/* The facts are complete and nothing keeps a pointer into these
	 * arrays (only indices): cut them to their length. */
	f->imports = fit(f->imports, f->nimports, sizeof(*f->imports),
			 &f->index->capimports);
	f->argdefs = fit(f->argdefs, f->nargdefs, sizeof(*f->argdefs),
			 &f->index->capargdefs);
	f->loaders = fit(f->loaders, f->nloaders, sizeof(*f->loaders),
			 &f->index->caploaders);
	f->threads = fit(f->threads, f->nthreads, sizeof(*f->threads),
			 &f->index->capthreads);
	f->pools = fit(f->pools, f->npools, sizeof(*f->pools),
		       &f->index->cappools);
	f->cpucounts = fit(f->cpucounts, f->ncpucounts, sizeof(*f->cpucounts),
			   &f->index->capcpucounts);
	f->envsets = fit(f->envsets, f->nenvsets, sizeof(*f->envsets),
			 &f->index->capenvsets);
	f->sinks = fit(f->sinks, f->nsinks, sizeof(*f->sinks),
		       &f->index->capsinks);
	f->refs = fit(f->refs, f->nrefs, sizeof(*f->refs),
		      &f->index->caprefs);
	/* The maps were sized for the scan; lookups are all that is left. */
	cpl_pyscan_nmap_fit(&f->index->assigns);
	cpl_pyscan_nmap_fit(&f->index->bindings);
	cpl_pyscan_nmap_fit(&f->index->defs);
	cpl_pyscan_nmap_fit(&f->index->argdefs);
	/* The facts hold token indices, never token pointers: the array can
	 * go, to be made again by cpl_pyfile_toks() when an evaluation
	 * reads it (the largest part of a scanned file). */
	if (!keep_toks)
		cpl_pyscan_toks_drop(f->index, false);
	return rc < 0 ? 1 : 0;
}

/* A new file over text[0, len), copied or borrowed; *out set. */
static struct cpl_pyfile *
file_new(struct cpl_pyfile **out, const char *path, const char *text,
	 size_t len, bool borrow)
{
	struct cpl_pyfile *f = cpl_xcalloc(1, sizeof(*f));

	f->path = cpl_xstrdup(path ? path : "<string>");
	f->text = borrow ? (char *)text : cpl_xstrndup(text, len);
	f->text_borrowed = borrow;
	f->len = len;
	*out = f;
	return f;
}

int
cpl_pyscan_file(struct cpl_pyfile **out, const char *path, const char *text,
		size_t len, struct cpl_error *err)
{
	return scan_into(file_new(out, path, text, len, false), err, false);
}

int
cpl_pyscan_file_at(struct cpl_pyfile **out, const char *path,
		   const char *text, size_t len, int first_line,
		   struct cpl_error *err)
{
	struct cpl_pyfile *f = file_new(out, path, text, len, false);

	f->first_line = first_line;
	return scan_into(f, err, false);
}

int
cpl_pyscan_file_borrowed(struct cpl_pyfile **out, const char *path,
			 const char *text, size_t len, struct cpl_error *err)
{
	return scan_into(file_new(out, path, text, len, true), err, false);
}

/*
 * The light scan (cpl_pyscan_file_light()): import statements only, each
 * read by import_stmt() as the full scan reads it.  A statement starts at
 * the first token, or after a NEWLINE, INDENT, DEDENT, ';' or ':' (ending
 * a compound header whose body is on its line); "import" and "from" are
 * hard keywords, so after any other token they start no statement.  So
 * every import the full scan reads is read here (and, in odd text, maybe
 * one more): the linker's walk over light files reaches at least the
 * files it reaches over loaded ones.
 *
 * The tokenizer hands over one logical line at a time (on_line), ended by
 * its NEWLINE, and reuses the array: the file's tokens are never held at
 * once.  Each line starts a statement, as it does after the NEWLINE
 * before it (INDENT and DEDENT come first on a line), and a statement
 * ends within its line (stmt_end() stops at the NEWLINE), so reading line
 * by line reads what reading the whole array would.  Positions are right:
 * the index's tokens are the line's while it is read.  Lines that can
 * start no import statement and hold no error do not come at all
 * (skip_plain_lines, pytoken.h): tokenizing them, or reading their
 * INDENT, DEDENTs and NEWLINE, would give this reader nothing (a line
 * that comes starts a statement as it did after them).
 */
static void
light_line(void *ctx, struct cpl_pytokens *line)
{
	struct scan *sc = ctx;
	bool start = true;
	size_t k;

	sc->ix->toks = line->toks;	/* for cpl_pyscan_pos() */
	sc->f->ntoks = line->count;
	sc->t = line->toks;
	sc->n = line->count;
	for (k = 0; k < sc->n; k++) {	/* by kind: it sees every token */
		const struct cpl_pytoken *t = &sc->t[k];

		switch (t->kind) {
		case CPL_PYTOK_NL:
		case CPL_PYTOK_COMMENT:
			break;
		case CPL_PYTOK_NEWLINE:
		case CPL_PYTOK_INDENT:
		case CPL_PYTOK_DEDENT:
			start = true;
			break;
		case CPL_PYTOK_KEYWORD:
			if (start && (tok_kw(sc, k, "import") ||
				      tok_kw(sc, k, "from")))
				import_stmt(sc, k, stmt_end(sc, k, false));
			start = false;
			break;
		case CPL_PYTOK_OP:
			start = t->len == 1 && (sc->text[t->off] == ';' ||
						sc->text[t->off] == ':');
			break;
		default:
			start = false;
			break;
		}
	}
}

int
cpl_pyscan_file_light(struct cpl_pyfile **out, const char *path,
		      const char *text, size_t len, struct cpl_error *err)
{
	struct cpl_pyfile *f = file_new(out, path, text, len, true);
	struct cpl_pytokens tk;
	struct scan sc;
	bool cpu;
	int rc;

	scan_setup(f, &sc);
	push_scope_frame(&sc, 0, false);
	memset(&tk, 0, sizeof(tk));
	/* Room for a long line, not grown from 8 by copying per file. */
	tk.cap = 256;
	tk.toks = cpl_xmalloc(tk.cap * sizeof(*tk.toks));
	tk.on_line = light_line;
	tk.skip_plain_lines = true;
	tk.on_line_ctx = &sc;
	tk.first_line = f->first_line;
	rc = cpl_pytoken_scan(&tk, f->text, f->len, f->path, err);
	f->index->toks = tk.toks;	/* the array; unloading frees it */
	f->index->captoks = tk.cap;
	f->ntoks = 0;
	free(sc.ss);
	/* Not known until loaded: may be, unless the text lacks both words
	 * an entry needs (is_entry(): the string "__main__" of a main
	 * guard; a call whose name ends in DataLoader). */
	cpl_pyscan_screen(f->text, f->len, &f->entry, &cpu);
	f->bare = !f->entry && !cpu;
	cpl_pyfile_unload(f);
	return rc < 0 ? 1 : 0;
}

/* free() that leaves the pointer NULL. */
#define DROP(p) (free(p), (p) = NULL)

/* Frees every fact of f (not path, text or the struct); f unloaded. */
static void
drop_facts(struct cpl_pyfile *f)
{
	struct cpl_pyindex *ix = f->index;

	DROP(f->imports);
	DROP(f->light);
	f->nimports = 0;
	if (ix == NULL)
		return;
	cpl_pyscan_toks_drop(ix, true);
	DROP(f->scopes);
	DROP(f->calls);
	DROP(f->assigns);
	DROP(f->argdefs);
	DROP(f->loaders);
	DROP(f->threads);
	DROP(f->pools);
	DROP(f->cpucounts);
	DROP(f->envsets);
	DROP(f->sinks);
	DROP(f->refs);
	f->nscopes = f->ncalls = f->nassigns = f->nargdefs = 0;
	f->nloaders = f->nthreads = f->npools = f->ncpucounts = 0;
	f->nenvsets = f->nsinks = f->nrefs = 0;
	cpl_pyscan_nmap_free(&ix->assigns);
	cpl_pyscan_nmap_free(&ix->bindings);
	cpl_pyscan_nmap_free(&ix->defs);
	cpl_pyscan_nmap_free(&ix->argdefs);
	free(ix->block_parent);
	free(ix->args);
	free(ix->argoff);
	free(ix->scope_calls);
	free(ix->callers);
	free(ix->callers_off);
	free(ix->subs);
	cpl_pyscan_arena_free(ix->arena);
	DROP(f->index);
}

void
cpl_pyfile_free(struct cpl_pyfile *f)
{
	if (f == NULL)
		return;
	drop_facts(f);
	free(f->path);
	if (!f->text_borrowed)
		free(f->text);
	free(f);
}

void
cpl_pyfile_unload(struct cpl_pyfile *f)
{
	struct cpl_pyimport *imp;
	size_t i, room = 0, n;
	char *light, *p;

	if (f == NULL || f->index == NULL)
		return;
	n = f->nimports;
	for (i = 0; i < n; i++)
		room += strlen(f->imports[i].module) + 1 +
			(f->imports[i].name ? strlen(f->imports[i].name) + 1 :
					      0);
	imp = n ? cpl_xmalloc(n * sizeof(*imp)) : NULL;
	light = p = n ? cpl_xmalloc(room) : NULL;
	for (i = 0; i < n; i++) {
		const struct cpl_pyimport *from = &f->imports[i];
		size_t len = strlen(from->module) + 1;

		imp[i] = *from;
		imp[i].bound = imp[i].target = NULL;
		imp[i].module = memcpy(p, from->module, len);
		p += len;
		if (from->name) {
			len = strlen(from->name) + 1;
			imp[i].name = memcpy(p, from->name, len);
			p += len;
		}
	}
	drop_facts(f);
	f->imports = imp;
	f->nimports = n;
	f->light = light;
}

void
cpl_pyfile_reload(struct cpl_pyfile *f, bool keep_toks)
{
	struct cpl_error err = { 0 };

	if (f == NULL || f->index != NULL)
		return;
	drop_facts(f);
	(void)scan_into(f, &err, keep_toks);
	cpl_error_clear(&err);	/* the first scan reported it */
}

bool
cpl_pyfile_loaded(const struct cpl_pyfile *f)
{
	return f != NULL && f->index != NULL;
}

void
cpl_pyscan_code_free(struct cpl_code *c)
{
	size_t i;

	if (c == NULL)
		return;
	if (c->roles)
		for (i = 0; i < c->nfiles; i++)
			free(c->roles[i]);
	free(c->roles);
	free(c->counts);
	free(c->count_at);
	free(c->files);
	free(c->loaders);
	free(c->threads);
	free(c);
}
