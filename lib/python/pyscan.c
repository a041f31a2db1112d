/*
 * pyscan.c — reads the facts of a Python file from its tokens (pyscan.h).
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
 * Invariant: calls are appended when their '(' is read, so f->calls is
 * sorted by the '(' token; every other fact array is in token order too.
 * Lookups go through hash maps keyed by (namespace, name); no step scans
 * all facts for each fact.
 *
 * Ownership: strings live in the file's arena (struct cpl_pyindex), arrays
 * are heap blocks; cpl_pyfile_free() releases both.
 */
#include "python/pyscan.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena ------------------------------------------------------------ */

/* A block of the arena. */
struct chunk {
	struct chunk *next;
	size_t used;
	size_t size;
	max_align_t data[];
};

/* n bytes from the arena, aligned for any type. */
static void *
arena_alloc(struct chunk **head, size_t n)
{
	struct chunk *c = *head;

	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (c == NULL || c->size - c->used < n) {
		size_t size = n > 32768 ? n : 32768;

		c = cpl_xmalloc(sizeof(*c) + size);
		c->size = size;
		c->used = 0;
		c->next = *head;
		*head = c;
	}
	c->used += n;
	return (char *)c->data + c->used - n;
}

/* s[0, n) copied into the arena, NUL-terminated. */
static char *
arena_strndup(struct chunk **head, const char *s, size_t n)
{
	char *p = arena_alloc(head, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* a, b and c (any may be NULL) joined, in the arena. */
static char *
arena_cat(struct chunk **head, const char *a, const char *b, const char *c)
{
	size_t na = a ? strlen(a) : 0, nb = b ? strlen(b) : 0;
	size_t nc = c ? strlen(c) : 0;
	char *p = arena_alloc(head, na + nb + nc + 1);

	if (na)
		memcpy(p, a, na);
	if (nb)
		memcpy(p + na, b, nb);
	if (nc)
		memcpy(p + na + nb, c, nc);
	p[na + nb + nc] = '\0';
	return p;
}

/* Frees every chunk of an arena. */
static void
arena_free(struct chunk *c)
{
	while (c) {
		struct chunk *next = c->next;

		free(c);
		c = next;
	}
}

/* ---- maps: (namespace, name) → int ------------------------------------ */

/* A slot of a map; key NULL when empty.  Keys are borrowed; tag is the
 * key's hash, compared before the key itself is touched. */
struct nslot {
	const char *key;
	uint32_t len;
	uint32_t tag;
	int ns;
	int val;
};

/* An open-addressing map from (ns, key) to an int, keys borrowed. */
struct nmap {
	struct nslot *slots;
	size_t cap;		/* a power of two, or 0 */
	size_t n;
};

/* FNV-1a over the key, the namespace mixed in, then a 64-bit finaliser
 * so that linear probing sees well-spread slots. */
static uint64_t
nhash(int ns, const char *k, size_t len)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)k[i];
		h *= 1099511628211ULL;
	}
	h ^= (uint64_t)(uint32_t)ns * 0x9E3779B97F4A7C15ULL;
	h ^= h >> 33;
	h *= 0xFF51AFD7ED558CCDULL;
	h ^= h >> 33;
	h *= 0xC4CEB9FE1A85EC53ULL;
	return h ^ (h >> 33);
}

/* The slot holding (ns, k) or the empty slot where it would go. */
static struct nslot *
nmap_slot(const struct nmap *m, int ns, const char *k, size_t len,
	  uint64_t h)
{
	size_t i = (size_t)h & (m->cap - 1);
	uint32_t tag = (uint32_t)(h >> 32);

	for (;;) {
		struct nslot *s = &m->slots[i];

		if (s->key == NULL || (s->tag == tag && s->ns == ns &&
				       s->len == len &&
				       memcmp(s->key, k, len) == 0))
			return s;
		i = (i + 1) & (m->cap - 1);
	}
}

/* The value of (ns, k), -1 when absent. */
static int
nmap_get(const struct nmap *m, int ns, const char *k, size_t len)
{
	const struct nslot *s;

	if (m->cap == 0)
		return -1;
	s = nmap_slot(m, ns, k, len, nhash(ns, k, len));
	return s->key ? s->val : -1;
}

/* Grows m to a power of two of at least cap slots. */
static void
nmap_reserve(struct nmap *m, size_t cap)
{
	struct nmap big = { NULL, m->cap ? m->cap : 64, 0 };
	size_t i;

	while (big.cap < cap)
		big.cap *= 2;
	if (big.cap <= m->cap)
		return;
	big.slots = cpl_xcalloc(big.cap, sizeof(*big.slots));
	for (i = 0; i < m->cap; i++) {
		struct nslot *o = &m->slots[i];

		if (o->key)
			*nmap_slot(&big, o->ns, o->key, o->len,
				   nhash(o->ns, o->key, o->len)) = *o;
	}
	big.n = m->n;
	free(m->slots);
	*m = big;
}

/* Sets (ns, k) to val; k must outlive the map. */
static void
nmap_put(struct nmap *m, int ns, const char *k, size_t len, int val)
{
	struct nslot *s;
	uint64_t h = nhash(ns, k, len);

	if ((m->n + 1) * 10 > m->cap * 7)
		nmap_reserve(m, m->cap ? m->cap * 2 : 64);
	s = nmap_slot(m, ns, k, len, h);
	if (s->key == NULL)
		m->n++;
	s->key = k;
	s->len = (uint32_t)len;
	s->tag = (uint32_t)(h >> 32);
	s->ns = ns;
	s->val = val;
}

/* Frees the slots (not the borrowed keys). */
static void
nmap_free(struct nmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

/* ---- the private index of a file -------------------------------------- */

/* The namespace of self.X attributes of class scope c in the assign map. */
#define CLASS_NS(c) (-2 - (c))
/* The namespace of argparse dests. */
#define ARGS_NS (-1)

/* A subscript assignment X[...] = v, kept until imports are known. */
struct subassign {
	size_t base;		/* first token of X */
	size_t base_end;	/* the '[' */
	size_t key;		/* the subscript's token */
	struct cpl_pyexpr value;
	int scope;
};

/* Lookup tables and capacities of a cpl_pyfile. */
struct cpl_pyindex {
	struct chunk *arena;	/* every string of the facts */
	struct nmap assigns;	/* (scope | CLASS_NS, name) → last assign */
	struct nmap bindings;	/* (scope, bound) → import */
	struct nmap defs;	/* (parent scope, name) → scope */
	struct nmap argdefs;	/* (ARGS_NS, dest) → last argdef */
	int *block_parent;	/* block → enclosing block; [0] = -1 */
	size_t nblocks, capblocks;
	struct cpl_pyarg *args;	/* every call's arguments, call by call */
	size_t nargs, capargs;
	size_t *argoff;		/* per call: its first argument in args */
	size_t *scope_calls;	/* calls grouped by scope */
	size_t *callers;	/* calls grouped by the def they reach */
	size_t *callers_off;	/* per scope: [off[s], off[s+1]) */
	struct subassign *subs;
	size_t nsubs, capsubs;
	size_t capimports, capscopes, capcalls, capassigns, capargdefs;
	size_t caploaders, capthreads, cappools, capcpucounts, capenvsets;
};

/* ---- scan state ------------------------------------------------------- */

/* An open scope: its index, the INDENT depth of its body. */
struct sframe {
	int scope;
	int depth;
	bool oneline;		/* body on the header's line */
};

/* An open block. */
struct bframe {
	int block;
	bool oneline;
};

/* An open bracket inside a statement; a call frame when call >= 0. */
struct cframe {
	int call;
	size_t start;		/* the current argument's first token */
	int argi;		/* its index */
	size_t argbase;		/* the call's first argument in targs */
	int near;		/* the nearest call frame at or below, -1 */
};

/* The state of one scan. */
struct scan {
	struct cpl_pyfile *f;
	struct cpl_pyindex *ix;
	const char *text;
	const struct cpl_pytoken *t;
	size_t n;
	struct sframe *ss;
	size_t nss, capss;
	struct bframe *bs;
	size_t nbs, capbs;
	struct cframe *cs;
	size_t ncs, capcs;
	struct cpl_pyarg *targs;	/* arguments of open calls */
	size_t ntargs, captargs;
	int depth;		/* INDENT depth */
	int pending;		/* a def/class whose body starts at the next
				 * INDENT, -1 */
	struct cpl_buf tmp;	/* scratch for dotted names, reused */
	size_t capargoff;	/* calls ix->argoff has room for */
};

/* ---- token helpers ---------------------------------------------------- */

/* Token t's text is s; inline so that strlen of a literal folds. */
static inline bool
tok_is(const char *text, const struct cpl_pytoken *t, const char *s)
{
	size_t n = strlen(s);

	return t->len == n && memcmp(text + t->off, s, n) == 0;
}

/* Token k is a comment or an NL. */
static inline bool
is_trivia(const struct scan *sc, size_t k)
{
	enum cpl_pytok_kind kd = sc->t[k].kind;

	return kd == CPL_PYTOK_NL || kd == CPL_PYTOK_COMMENT;
}

/* Token k is operator op. */
static inline bool
tok_op(const struct scan *sc, size_t k, const char *op)
{
	return k < sc->n && sc->t[k].kind == CPL_PYTOK_OP &&
	       tok_is(sc->text, &sc->t[k], op);
}

/* Token k is keyword kw. */
static inline bool
tok_kw(const struct scan *sc, size_t k, const char *kw)
{
	return k < sc->n && sc->t[k].kind == CPL_PYTOK_KEYWORD &&
	       tok_is(sc->text, &sc->t[k], kw);
}

/* Token k is a name. */
static inline bool
tok_name(const struct scan *sc, size_t k)
{
	return k < sc->n && sc->t[k].kind == CPL_PYTOK_NAME;
}

/* The first token at or after k (before end) that is not NL or comment. */
static size_t
skip_trivia(const struct scan *sc, size_t k, size_t end)
{
	while (k < end && is_trivia(sc, k))
		k++;
	return k;
}

/* The token's text, copied into the arena. */
static char *
tok_dup(struct scan *sc, size_t k)
{
	return arena_strndup(&sc->ix->arena, sc->text + sc->t[k].off,
			     sc->t[k].len);
}

struct cpl_pos
cpl_pyscan_pos(const struct cpl_pyfile *f, size_t tok)
{
	struct cpl_pos p = { f->path, 0, 0 };

	if (tok < f->ntoks) {
		p.line = f->toks[tok].line;
		p.column = f->toks[tok].column;
	}
	return p;
}

static int cur_block(const struct scan *sc);

/*
 * Tokens [first, last) without surrounding trivia, as an expression of
 * scope.
 */
static struct cpl_pyexpr
make_expr(const struct scan *sc, size_t first, size_t last, int scope)
{
	struct cpl_pyexpr e;

	while (first < last && is_trivia(sc, first))
		first++;
	while (last > first && is_trivia(sc, last - 1))
		last--;
	e.first = first;
	e.last = last;
	e.scope = scope;
	e.block = sc->nbs ? cur_block(sc) : 0;
	e.pos = cpl_pyscan_pos(sc->f, first);
	return e;
}

/* The innermost open scope. */
static int
cur_scope(const struct scan *sc)
{
	return sc->ss[sc->nss - 1].scope;
}

/* The innermost open block. */
static int
cur_block(const struct scan *sc)
{
	return sc->bs[sc->nbs - 1].block;
}

/* The last component of a dotted name. */
static const char *
last_comp(const char *s)
{
	const char *d = strrchr(s, '.');

	return d ? d + 1 : s;
}

/* s ends with suffix. */
static bool
ends_with(const char *s, const char *suffix)
{
	return cpl_str_ends(s, suffix);
}

/* ---- recording -------------------------------------------------------- */

/* Opens a block nested in the current one. */
static void
push_block(struct scan *sc, bool oneline)
{
	struct cpl_pyindex *ix = sc->ix;

	cpl_xgrow((void **)&ix->block_parent, &ix->capblocks, ix->nblocks + 1,
		  sizeof(*ix->block_parent));
	ix->block_parent[ix->nblocks] = sc->nbs ? cur_block(sc) : -1;
	cpl_xgrow((void **)&sc->bs, &sc->capbs, sc->nbs + 1, sizeof(*sc->bs));
	sc->bs[sc->nbs].block = (int)ix->nblocks++;
	sc->bs[sc->nbs].oneline = oneline;
	sc->nbs++;
}

/* Opens scope for the statements that follow. */
static void
push_scope_frame(struct scan *sc, int scope, bool oneline)
{
	cpl_xgrow((void **)&sc->ss, &sc->capss, sc->nss + 1, sizeof(*sc->ss));
	sc->ss[sc->nss].scope = scope;
	sc->ss[sc->nss].depth = sc->depth;
	sc->ss[sc->nss].oneline = oneline;
	sc->nss++;
}

/*
 * Records a module, class or def scope named by token name_tok; returns its
 * index.
 */
static int
new_scope(struct scan *sc, enum cpl_pyscope_kind kind, size_t name_tok)
{
	struct cpl_pyfile *f = sc->f;
	struct cpl_pyscope *s;
	int parent = sc->nss ? cur_scope(sc) : -1;

	cpl_xgrow((void **)&f->scopes, &sc->ix->capscopes, f->nscopes + 1,
		  sizeof(*f->scopes));
	s = &f->scopes[f->nscopes];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->parent = parent;
	s->cls = -1;
	s->work = -1;
	s->bases = arena_strndup(&sc->ix->arena, "", 0);
	if (kind == CPL_PYSCOPE_MODULE) {
		s->name = arena_strndup(&sc->ix->arena, "<module>", 8);
		s->qualname = s->name;
		s->pos.file = f->path;
		s->pos.line = 1;
		s->pos.column = 1;
	} else {
		const struct cpl_pyscope *p = &f->scopes[parent];

		s->name = tok_dup(sc, name_tok);
		s->qualname = parent == 0 ? s->name :
			      arena_cat(&sc->ix->arena, p->qualname, ".",
					s->name);
		s->pos = cpl_pyscan_pos(f, name_tok);
		if (p->kind == CPL_PYSCOPE_CLASS && kind == CPL_PYSCOPE_FUNC)
			s->cls = parent;
		else if (p->kind == CPL_PYSCOPE_FUNC)
			s->cls = p->cls;
		nmap_put(&sc->ix->defs, parent, s->name, strlen(s->name),
			 (int)f->nscopes);
	}
	return (int)f->nscopes++;
}

/* Records an assignment of name (arena string) in the current scope. */
static int
add_assign(struct scan *sc, const char *name, size_t vfirst, size_t vlast,
	   int index, const char *op, bool opaque, size_t tok)
{
	struct cpl_pyfile *f = sc->f;
	struct cpl_pyassign *a;
	int scope = cur_scope(sc), ns = scope;
	const struct cpl_pyscope *s = &f->scopes[scope];

	if (cpl_str_starts(name, "self.") && s->cls >= 0)
		ns = CLASS_NS(s->cls);
	cpl_xgrow((void **)&f->assigns, &sc->ix->capassigns, f->nassigns + 1,
		  sizeof(*f->assigns));
	a = &f->assigns[f->nassigns];
	memset(a, 0, sizeof(*a));
	a->name = (char *)name;
	a->value = make_expr(sc, vfirst, vlast, scope);
	a->index = index;
	memcpy(a->op, op, strlen(op) < sizeof(a->op) ? strlen(op) + 1 : 1);
	a->opaque = opaque;
	a->scope = scope;
	a->block = cur_block(sc);
	a->tok = tok;
	a->pos = cpl_pyscan_pos(f, tok);
	a->prev = nmap_get(&sc->ix->assigns, ns, name, strlen(name));
	nmap_put(&sc->ix->assigns, ns, name, strlen(name), (int)f->nassigns);
	return (int)f->nassigns++;
}

/* Records one import binding in the current scope. */
static void
add_import(struct scan *sc, const char *module, int level, const char *name,
	   const char *alias, size_t pos_tok)
{
	struct cpl_pyfile *f = sc->f;
	struct cpl_pyindex *ix = sc->ix;
	struct cpl_pyimport *im;
	struct cpl_buf b;
	const char *dot;
	int k;

	cpl_xgrow((void **)&f->imports, &ix->capimports, f->nimports + 1,
		  sizeof(*f->imports));
	im = &f->imports[f->nimports];
	memset(im, 0, sizeof(*im));
	im->module = arena_strndup(&ix->arena, module, strlen(module));
	im->level = level;
	im->scope = cur_scope(sc);
	im->pos = cpl_pyscan_pos(f, pos_tok);
	cpl_buf_init(&b, 0);
	for (k = 0; k < level; k++)
		cpl_buf_addc(&b, '.');
	if (name) {
		im->name = arena_strndup(&ix->arena, name, strlen(name));
		im->bound = arena_strndup(&ix->arena, alias ? alias : name,
					  strlen(alias ? alias : name));
		cpl_buf_adds(&b, module);
		if (*module)
			cpl_buf_addc(&b, '.');
		cpl_buf_adds(&b, name);
	} else if (alias) {
		im->bound = arena_strndup(&ix->arena, alias, strlen(alias));
		cpl_buf_adds(&b, module);
	} else {
		dot = strchr(module, '.');
		im->bound = arena_strndup(&ix->arena, module,
					  dot ? (size_t)(dot - module) :
						strlen(module));
		cpl_buf_adds(&b, im->bound);
	}
	im->target = arena_strndup(&ix->arena, cpl_buf_str(&b), b.len);
	cpl_buf_free(&b);
	if (level == 0 && !f->imports_torch &&
	    (cpl_str_eq(module, "torch") || cpl_str_starts(module, "torch."))) {
		f->imports_torch = true;
		f->torch_pos = im->pos;
	}
	if (level == 0 && (cpl_str_eq(module, "cv2") ||
			   cpl_str_starts(module, "cv2.")) && !f->imports_cv2) {
		f->imports_cv2 = true;
		f->cv2_pos = im->pos;
	}
	if (!cpl_str_eq(im->bound, "*"))
		nmap_put(&ix->bindings, im->scope, im->bound,
			 strlen(im->bound), (int)f->nimports);
	f->nimports++;
}

/* ---- calls inside a statement ----------------------------------------- */

/*
 * When the '(' at k (inside [s, ...)) opens a call, sets *first to the
 * callee's first name token and returns its dotted text; NULL otherwise.
 */
static char *
callee_at(struct scan *sc, size_t k, size_t s, size_t *first)
{
	size_t p = k, q, j;
	bool method;
	struct cpl_buf *b = &sc->tmp;

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
	cpl_buf_reset(b);
	if (method)
		cpl_buf_addc(b, '.');
	for (j = q; j <= p; j += 2) {
		cpl_buf_add(b, sc->text + sc->t[j].off, sc->t[j].len);
		if (j < p)
			cpl_buf_addc(b, '.');
	}
	*first = q;
	return arena_strndup(&sc->ix->arena, cpl_buf_str(b), b->len);
}

/* Opens a bracket in a statement; a call frame when call >= 0. */
static void
push_cframe(struct scan *sc, int call)
{
	struct cframe *c;
	int below = sc->ncs ? sc->cs[sc->ncs - 1].near : -1;

	if (sc->ncs == sc->capcs)
		cpl_xgrow((void **)&sc->cs, &sc->capcs, sc->ncs + 1,
			  sizeof(*sc->cs));
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
		cpl_xgrow((void **)&f->calls, &ix->capcalls, f->ncalls + 1,
			  sizeof(*f->calls));
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
	c->pos = cpl_pyscan_pos(f, first);
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
		cpl_xgrow((void **)&sc->targs, &sc->captargs, sc->ntargs + 1,
			  sizeof(*sc->targs));
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
			cpl_xgrow((void **)&ix->args, &ix->capargs,
				  ix->nargs + nargs, sizeof(*ix->args));
			memcpy(ix->args + ix->nargs, sc->targs + fr->argbase,
			       nargs * sizeof(*ix->args));
		}
		ix->argoff[fr->call] = ix->nargs;
		c->nargs = nargs;
		ix->nargs += nargs;
		sc->ntargs = fr->argbase;
		c->close = k;
		if (k < sc->n) {
			c->end.line = sc->t[k].end_line;
			c->end.column = sc->t[k].end_column;
		}
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
	add_assign(sc, tok_dup(sc, k - 1), k + 1, j, -1, "=", false, k - 1);
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
	struct cpl_buf *buf = &sc->tmp;

	cpl_buf_reset(buf);
	for (; a < b; a++)
		if (!is_trivia(sc, a))
			cpl_buf_add(buf, sc->text + sc->t[a].off,
				    sc->t[a].len);
	return arena_strndup(&sc->ix->arena, cpl_buf_str(buf), buf->len);
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
		add_assign(sc, tok_dup(sc, a + 1), vfirst, vlast, index, op,
			   true, a + 1);
		return;
	}
	if (tok_op(sc, a, "(") || tok_op(sc, a, "[")) {
		size_t j;

		/* A nested tuple: its names get no readable value. */
		for (j = a; j < b; j++)
			if (tok_name(sc, j) && !tok_op(sc, j - 1, "."))
				add_assign(sc, tok_dup(sc, j), vfirst, vlast,
					   index, op, true, j);
		return;
	}
	d = dotted_end(sc, a, b);
	if (d == b) {
		add_assign(sc, join_tokens(sc, a, b), vfirst, vlast, index,
			   op, opaque, a);
		return;
	}
	if (d > a && tok_op(sc, d, "[") && d + 2 < b &&
	    sc->t[d + 1].kind == CPL_PYTOK_STRING && tok_op(sc, d + 2, "]") &&
	    d + 3 == b && cpl_str_eq(op, "=") && !opaque) {
		struct cpl_pyindex *ix = sc->ix;
		struct subassign *sa;

		cpl_xgrow((void **)&ix->subs, &ix->capsubs, ix->nsubs + 1,
			  sizeof(*ix->subs));
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

/* Token k is an augmented assignment operator. */
static bool
is_augop(const struct scan *sc, size_t k)
{
	static const char *const aug[] = {
		"+=", "-=", "*=", "/=", "//=", "%=", "**=", ">>=", "<<=",
		"&=", "|=", "^=", "@=",
	};
	size_t i;

	if (sc->t[k].kind != CPL_PYTOK_OP || sc->t[k].len < 2)
		return false;
	for (i = 0; i < CPL_ARRAY_LEN(aug); i++)
		if (tok_is(sc->text, &sc->t[k], aug[i]))
			return true;
	return false;
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
			add_import(sc, mod, 0, NULL, alias, at);
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
				add_import(sc, mod, level, "*", NULL, at);
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
			add_import(sc, mod, level, name, alias, at);
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
	scope = new_scope(sc, CPL_PYSCOPE_FUNC, kw + 1);
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
			p.pos = cpl_pyscan_pos(f, k);
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
	f->scopes[scope].params = arena_alloc(&sc->ix->arena,
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
	scope = new_scope(sc, CPL_PYSCOPE_CLASS, kw + 1);
	k = kw + 2;
	if (tok_op(sc, k, "["))		/* class C[T](...): PEP 695 */
		k = match_close(sc, k, colon) + 1;
	if (tok_op(sc, k, "(")) {
		size_t open = k, close = match_close(sc, open, colon);
		size_t a = skip_trivia(sc, open + 1, close);

		if (a < close)
			f->scopes[scope].bases = arena_strndup(
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
			add_assign(sc, tok_dup(sc, k + 1), k + 1, k + 1, -1,
				   "=", true, k + 1);
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
	}
	scan_calls(sc, s, colon, 0, 0, -1);
	return -1;
}

/* Token k starts a compound statement header. */
static bool
is_compound(const struct scan *sc, size_t k)
{
	static const char *const kws[] = {
		"if", "elif", "else", "while", "for", "try", "except",
		"finally", "with", "def", "class",
	};
	size_t i;

	if (sc->t[k].kind != CPL_PYTOK_KEYWORD)
		return false;
	for (i = 0; i < CPL_ARRAY_LEN(kws); i++)
		if (tok_is(sc->text, &sc->t[k], kws[i]))
			return true;
	return false;
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
			a = add_assign(sc, arena_strndup(&sc->ix->arena,
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
	push_scope_frame(sc, new_scope(sc, CPL_PYSCOPE_MODULE, 0), false);
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

/* ---- lookups ---------------------------------------------------------- */

/* s[0, n) copied into the file's arena. */
static char *
fdup(struct cpl_pyfile *f, const char *s, size_t n)
{
	return arena_strndup(&f->index->arena, s, n);
}

/* The parameter of scope named name[0, len), -1. */
static int
param_n(const struct cpl_pyfile *f, int scope, const char *name, size_t len)
{
	const struct cpl_pyscope *s = &f->scopes[scope];
	size_t i;

	for (i = 0; i < s->nparams; i++)
		if (strlen(s->params[i].name) == len &&
		    memcmp(s->params[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

int
cpl_pyscan_param(const struct cpl_pyfile *f, int scope, const char *name)
{
	if (scope < 0 || (size_t)scope >= f->nscopes)
		return -1;
	return param_n(f, scope, name, strlen(name));
}

/* The import binding name[0, len) in scope or an enclosing one, -1. */
static int
binding_n(const struct cpl_pyfile *f, int scope, const char *name, size_t len)
{
	while (scope >= 0 && (size_t)scope < f->nscopes) {
		int v = nmap_get(&f->index->bindings, scope, name, len);

		if (v >= 0)
			return v;
		scope = f->scopes[scope].parent;
	}
	return -1;
}

int
cpl_pyscan_binding(const struct cpl_pyfile *f, int scope, const char *name)
{
	return binding_n(f, scope, name, strlen(name));
}

/* The def or class named name that code in scope sees, -1. */
static int
find_def(const struct cpl_pyfile *f, int scope, const char *name, size_t len)
{
	bool first = true;

	while (scope >= 0) {
		if (first || f->scopes[scope].kind != CPL_PYSCOPE_CLASS) {
			int v = nmap_get(&f->index->defs, scope, name, len);

			if (v >= 0)
				return v;
		}
		first = false;
		scope = f->scopes[scope].parent;
	}
	return -1;
}

int
cpl_pyscan_func_find(const struct cpl_pyfile *f, const char *name)
{
	const char *dot = strchr(name, '.');
	int cls;

	if (dot == NULL)
		return nmap_get(&f->index->defs, 0, name, strlen(name));
	cls = nmap_get(&f->index->defs, 0, name, (size_t)(dot - name));
	if (cls < 0 || f->scopes[cls].kind != CPL_PYSCOPE_CLASS)
		return -1;
	return nmap_get(&f->index->defs, cls, dot + 1, strlen(dot + 1));
}

int
cpl_pyscan_assign_last(const struct cpl_pyfile *f, int scope,
		       const char *name)
{
	int ns = scope;

	if (scope < 0 || (size_t)scope >= f->nscopes)
		return -1;
	if (cpl_str_starts(name, "self.") && f->scopes[scope].cls >= 0)
		ns = CLASS_NS(f->scopes[scope].cls);
	return nmap_get(&f->index->assigns, ns, name, strlen(name));
}

int
cpl_pyscan_argdef_find(const struct cpl_pyfile *f, const char *dest)
{
	return nmap_get(&f->index->argdefs, ARGS_NS, dest, strlen(dest));
}

size_t
cpl_pyscan_call_from(const struct cpl_pyfile *f, size_t tok)
{
	size_t lo = 0, hi = f->ncalls;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->calls[mid].open < tok)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int
cpl_pyscan_call_at(const struct cpl_pyfile *f, size_t open)
{
	size_t i = cpl_pyscan_call_from(f, open);

	return i < f->ncalls && f->calls[i].open == open ? (int)i : -1;
}

size_t
cpl_pyscan_callers(const struct cpl_pyfile *f, int func, const size_t **out)
{
	const struct cpl_pyindex *ix = f->index;

	*out = NULL;
	if (func < 0 || (size_t)func >= f->nscopes || ix->callers_off == NULL)
		return 0;
	*out = ix->callers + ix->callers_off[func];
	return ix->callers_off[func + 1] - ix->callers_off[func];
}

bool
cpl_pyscan_block_within(const struct cpl_pyfile *f, int b, int a)
{
	while (b >= 0 && (size_t)b < f->index->nblocks) {
		if (b == a)
			return true;
		b = f->index->block_parent[b];
	}
	return false;
}

const struct cpl_pyarg *
cpl_pyscan_call_arg(const struct cpl_pyfile *f, const struct cpl_pycall *call,
		    const struct cpl_pyfile *callee, int func, size_t param,
		    bool *spread)
{
	const struct cpl_pyscope *fn = &callee->scopes[func];
	const struct cpl_pyparam *p = &fn->params[param];
	size_t i, skip = 0, n = 0;

	(void)f;
	*spread = false;
	for (i = 0; i < call->nargs; i++)
		if (call->args[i].keyword &&
		    strcmp(call->args[i].keyword, p->name) == 0)
			return &call->args[i];
	for (i = 0; i < call->nargs; i++)
		if (call->args[i].star)
			*spread = true;
	if (p->kwonly || p->star)
		return NULL;
	/* A method reached through an attribute or a class name skips
	 * its self. */
	if (fn->cls >= 0 && fn->nparams > 0 && fn->params[0].star == 0 &&
	    (cpl_str_eq(fn->params[0].name, "self") ||
	     cpl_str_eq(fn->params[0].name, "cls")))
		skip = 1;
	if (param < skip)
		return NULL;
	for (i = 0; i < call->nargs; i++) {
		const struct cpl_pyarg *a = &call->args[i];

		if (a->keyword)
			continue;
		if (a->star == 1)
			return NULL;
		if (a->star == 2)
			continue;
		if (n++ == param - skip) {
			*spread = false;
			return a;
		}
	}
	return NULL;
}

/* ---- post-pass: callees and kinds ------------------------------------- */

/* s is one of list[0, n). */
static bool
in_list(const char *s, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[0] == list[i][0] && strcmp(s, list[i]) == 0)
			return true;
	return false;
}

#define IN(s, list) in_list((s), (list), CPL_ARRAY_LEN(list))

/* Sets target, func, import and remote of call c. */
static void
resolve_call(struct cpl_pyfile *f, struct cpl_pycall *c)
{
	const char *callee = c->callee, *dot = strchr(callee, '.');
	size_t flen = dot ? (size_t)(dot - callee) : strlen(callee);
	const struct cpl_pyimport *im;
	int i;

	if (callee[0] == '.')
		return;
	if (dot == NULL) {
		c->func = find_def(f, c->scope, callee, flen);
	} else if ((flen == 4 && memcmp(callee, "self", 4) == 0) ||
		   (flen == 3 && memcmp(callee, "cls", 3) == 0)) {
		int cls = f->scopes[c->scope].cls;

		if (cls >= 0 && strchr(dot + 1, '.') == NULL)
			c->func = nmap_get(&f->index->defs, cls, dot + 1,
					   strlen(dot + 1));
	}
	if (c->func >= 0)
		return;
	i = binding_n(f, c->scope, callee, flen);
	if (i < 0)
		return;
	im = &f->imports[i];
	c->import = i;
	c->target = arena_cat(&f->index->arena, im->target, dot, NULL);
	if (im->name) {
		c->remote = arena_cat(&f->index->arena, im->name, dot, NULL);
	} else if (strcmp(im->target, im->module) == 0) {
		if (dot)
			c->remote = fdup(f, dot + 1, strlen(dot + 1));
	} else {
		/* import a.b (binds a): the longest imported module that
		 * prefixes the callee. */
		size_t best = 0, k;

		for (k = 0; k < f->nimports; k++) {
			const struct cpl_pyimport *o = &f->imports[k];
			size_t m = strlen(o->module);

			if (o->name || !cpl_str_eq(o->bound, im->bound) ||
			    strcmp(o->target, o->module) == 0 || m <= best)
				continue;
			if (strncmp(c->target, o->module, m) == 0 &&
			    c->target[m] == '.') {
				best = m;
				c->import = (int)k;
			}
		}
		if (best)
			c->remote = fdup(f, c->target + best + 1,
					 strlen(c->target + best + 1));
	}
}

/* The call that spans expression e exactly, -1. */
static int
expr_call(const struct cpl_pyfile *f, const struct cpl_pyexpr *e)
{
	size_t i;

	for (i = cpl_pyscan_call_from(f, e->first);
	     i < f->ncalls && f->calls[i].open < e->last; i++)
		if (f->calls[i].first == e->first &&
		    f->calls[i].close + 1 == e->last)
			return (int)i;
	return -1;
}

/* c prints or logs its arguments. */
static bool
is_print(const struct cpl_pycall *c)
{
	static const char *const names[] = {
		"print", "pprint", "pprint.pprint", "warnings.warn",
		"click.echo", "click.secho", "tqdm.write", "tqdm.tqdm.write",
		"wandb.log", "rich.print",
	};
	static const char *const logfns[] = {
		"debug", "info", "warning", "warn", "error", "exception",
		"critical", "fatal", "log",
	};
	const char *last = last_comp(c->target), *dot = strrchr(c->callee, '.');
	char recv[64];
	size_t k, n;

	if (IN(c->target, names))
		return true;
	if (dot == NULL || c->callee[0] == '.')
		return false;
	n = (size_t)(dot - c->callee);
	if (n >= sizeof(recv))
		n = sizeof(recv) - 1;
	for (k = 0; k < n; k++) {
		char ch = c->callee[k];

		recv[k] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
	}
	recv[n] = '\0';
	if (IN(last, logfns) && (strstr(recv, "log") != NULL ||
				 cpl_str_starts(c->target, "logging.") ||
				 (strcmp(last, "log") == 0 &&
				  strcmp(recv, "self") == 0)))
		return true;
	if (strcmp(last, "write") == 0 && (strstr(recv, "stdout") ||
					   strstr(recv, "stderr")))
		return true;
	if ((strcmp(last, "print") == 0 || strcmp(last, "log") == 0) &&
	    strstr(recv, "console"))
		return true;
	return cpl_str_starts(last, "log_") ||
	       cpl_str_starts(last, "add_scalar") ||
	       strcmp(last, "set_postfix") == 0 ||
	       strcmp(last, "set_description") == 0;
}

/* c does tensor, model or autograd work. */
static bool
is_tensor(const struct cpl_pyfile *f, const struct cpl_pycall *c)
{
	static const char *const factories[] = {
		"tensor", "zeros", "ones", "randn", "rand", "randint",
		"randperm", "empty", "full", "arange", "linspace", "logspace",
		"eye", "from_numpy", "as_tensor", "stack", "cat", "matmul",
		"mm", "bmm", "einsum", "zeros_like", "ones_like", "empty_like",
		"full_like", "rand_like", "randn_like", "randint_like",
		"normal", "load", "compile", "Tensor", "FloatTensor",
		"LongTensor", "sparse_coo_tensor",
	};
	const char *t = c->target, *last = last_comp(t);
	const char *wl = last_comp(c->callee);
	bool recv = strchr(c->callee, '.') != NULL;

	if (cpl_str_starts(t, "torch.")) {
		const char *rest = t + 6;

		if (strchr(rest, '.') == NULL && IN(rest, factories))
			return true;
		if (cpl_str_starts(rest, "jit.") ||
		    cpl_str_starts(rest, "hub.load"))
			return true;
		if (cpl_str_starts(rest, "nn.") && last[0] >= 'A' &&
		    last[0] <= 'Z')
			return true;
	}
	if (cpl_str_starts(t, "torchvision.models.") ||
	    strcmp(t, "timm.create_model") == 0)
		return true;
	if (recv && (strcmp(last, "from_pretrained") == 0 ||
		     strcmp(last, "to") == 0 || strcmp(last, "cuda") == 0 ||
		     strcmp(last, "backward") == 0))
		return true;
	if (strcmp(wl, "model") == 0 || strcmp(wl, "net") == 0 ||
	    ends_with(wl, "_model") || ends_with(wl, "Model"))
		return true;
	return c->func >= 0 && f->scopes[c->func].kind == CPL_PYSCOPE_CLASS &&
	       ends_with(f->scopes[c->func].bases, "Module");
}

/* The kind of call c, from its target. */
static enum cpl_pycall_kind
classify(const struct cpl_pyfile *f, const struct cpl_pycall *c)
{
	static const char *const counts[] = {
		"os.cpu_count", "multiprocessing.cpu_count", "psutil.cpu_count",
		"os.process_cpu_count",
	};
	const char *t = c->target, *last = last_comp(t);
	bool recv = strchr(c->callee, '.') != NULL, local = c->func >= 0;

	if (IN(t, counts))
		return CPL_PYCALL_CPU_COUNT;
	if (strcmp(t, "len") == 0 && !local && c->nargs == 1 &&
	    c->args[0].keyword == NULL && c->args[0].star == 0) {
		int in = expr_call(f, &c->args[0].value);

		if (in >= 0 && strcmp(f->calls[in].target,
				      "os.sched_getaffinity") == 0)
			return CPL_PYCALL_CPU_COUNT;
	}
	if (strcmp(t, "torch.set_num_threads") == 0)
		return CPL_PYCALL_SET_THREADS;
	if (strcmp(t, "torch.set_num_interop_threads") == 0)
		return CPL_PYCALL_SET_INTEROP;
	if (strcmp(t, "cv2.setNumThreads") == 0)
		return CPL_PYCALL_CV2_THREADS;
	if (cpl_str_starts(t, "cv2."))
		return CPL_PYCALL_CV2;
	if (!local && strcmp(last, "DataLoader") == 0)
		return CPL_PYCALL_DATALOADER;
	if (!local && (strcmp(last, "Pool") == 0 ||
		       strcmp(last, "ThreadPool") == 0))
		return CPL_PYCALL_POOL;
	if (!local && strcmp(last, "ProcessPoolExecutor") == 0)
		return CPL_PYCALL_PROCESS_POOL;
	if (!local && strcmp(last, "ThreadPoolExecutor") == 0)
		return CPL_PYCALL_THREAD_POOL;
	if (recv && strcmp(last, "add_argument") == 0)
		return CPL_PYCALL_ADD_ARGUMENT;
	if (recv && (strcmp(last, "parse_args") == 0 ||
		     strcmp(last, "parse_known_args") == 0 ||
		     strcmp(last, "parse_intermixed_args") == 0))
		return CPL_PYCALL_PARSE_ARGS;
	if (!local && is_print(c))
		return CPL_PYCALL_PRINT;
	if (is_tensor(f, c))
		return CPL_PYCALL_TENSOR;
	return CPL_PYCALL_OTHER;
}

const char *
cpl_pyscan_kind_name(enum cpl_pycall_kind k)
{
	switch (k) {
	case CPL_PYCALL_OTHER: return "other";
	case CPL_PYCALL_CPU_COUNT: return "cpu-count";
	case CPL_PYCALL_SET_THREADS: return "set-num-threads";
	case CPL_PYCALL_SET_INTEROP: return "set-num-interop-threads";
	case CPL_PYCALL_CV2_THREADS: return "cv2-set-num-threads";
	case CPL_PYCALL_CV2: return "cv2";
	case CPL_PYCALL_DATALOADER: return "dataloader";
	case CPL_PYCALL_POOL: return "pool";
	case CPL_PYCALL_PROCESS_POOL: return "process-pool";
	case CPL_PYCALL_THREAD_POOL: return "thread-pool";
	case CPL_PYCALL_ADD_ARGUMENT: return "add-argument";
	case CPL_PYCALL_PARSE_ARGS: return "parse-args";
	case CPL_PYCALL_TENSOR: return "tensor";
	case CPL_PYCALL_PRINT: return "print";
	}
	return "?";
}

/* ---- post-pass: facts ------------------------------------------------- */

/* A plain string literal spanning e exactly, in the arena; NULL else. */
static char *
expr_string(struct cpl_pyfile *f, const struct cpl_pyexpr *e)
{
	char *s, *r;

	if (e->last != e->first + 1 ||
	    f->toks[e->first].kind != CPL_PYTOK_STRING ||
	    cpl_pytoken_string(&s, f->text, &f->toks[e->first]) != 0)
		return NULL;
	r = fdup(f, s, strlen(s));
	free(s);
	return r;
}

/* A dotted name spanning e exactly ("int", "np.int64"), in the arena. */
static char *
expr_dotted(struct cpl_pyfile *f, const struct cpl_pyexpr *e)
{
	size_t k;

	if (e->first >= e->last)
		return NULL;
	for (k = e->first; k < e->last; k++) {
		bool name = f->toks[k].kind == CPL_PYTOK_NAME;
		bool dot = f->toks[k].kind == CPL_PYTOK_OP &&
			   tok_is(f->text, &f->toks[k], ".");

		if ((k - e->first) % 2 == 0 ? !name : !dot)
			return NULL;
	}
	if ((e->last - e->first) % 2 == 0)
		return NULL;
	return fdup(f, f->text + f->toks[e->first].off,
		    f->toks[e->last - 1].off + f->toks[e->last - 1].len -
			    f->toks[e->first].off);
}

/* The argument passed as keyword name, NULL. */
static const struct cpl_pyarg *
kwarg(const struct cpl_pycall *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nargs; i++)
		if (c->args[i].keyword && strcmp(c->args[i].keyword, name) == 0)
			return &c->args[i];
	return NULL;
}

/* The n-th positional argument (no keyword, no star), NULL. */
static const struct cpl_pyarg *
posarg(const struct cpl_pycall *c, size_t n)
{
	size_t i;

	for (i = 0; i < c->nargs; i++) {
		if (c->args[i].keyword || c->args[i].star == 2)
			continue;
		if (c->args[i].star == 1)
			return NULL;
		if (n-- == 0)
			return &c->args[i];
	}
	return NULL;
}

/* Records the argparse option that call ci defines. */
static void
add_argdef(struct cpl_pyfile *f, int ci)
{
	const struct cpl_pycall *c = &f->calls[ci];
	const struct cpl_pyarg *a;
	struct cpl_pyargdef *d;
	char *flags[16];
	size_t i, n = 0;

	for (i = 0; i < c->nargs && n < CPL_ARRAY_LEN(flags); i++) {
		char *s;

		if (c->args[i].keyword || c->args[i].star)
			continue;
		s = expr_string(f, &c->args[i].value);
		if (s)
			flags[n++] = s;
	}
	if (n == 0)
		return;
	cpl_xgrow((void **)&f->argdefs, &f->index->capargdefs, f->nargdefs + 1,
		  sizeof(*f->argdefs));
	d = &f->argdefs[f->nargdefs];
	memset(d, 0, sizeof(*d));
	d->flags = arena_alloc(&f->index->arena, n * sizeof(*d->flags));
	memcpy(d->flags, flags, n * sizeof(*flags));
	d->nflags = n;
	d->call = ci;
	d->pos = c->pos;
	d->def.first = d->def.last = c->close;
	d->def.scope = c->scope;
	d->def.block = -1;
	d->def.pos = c->pos;
	if ((a = kwarg(c, "default")) != NULL)
		d->def = a->value;
	if ((a = kwarg(c, "type")) != NULL)
		d->type = expr_dotted(f, &a->value);
	if ((a = kwarg(c, "action")) != NULL)
		d->action = expr_string(f, &a->value);
	if ((a = kwarg(c, "dest")) != NULL)
		d->dest = expr_string(f, &a->value);
	if (d->dest == NULL) {
		const char *pick = flags[0];
		char *p;

		for (i = 0; i < n; i++)
			if (cpl_str_starts(flags[i], "--")) {
				pick = flags[i];
				break;
			}
		while (*pick == '-')
			pick++;
		d->dest = fdup(f, pick, strlen(pick));
		for (p = d->dest; *p; p++)
			if (*p == '-')
				*p = '_';
	}
	nmap_put(&f->index->argdefs, ARGS_NS, d->dest, strlen(d->dest),
		 (int)f->nargdefs);
	f->nargdefs++;
}

/*
 * The def a callable expression names: NAME, self.NAME, or
 * functools.partial(NAME, ...); -1.
 */
static int
callable_def(const struct cpl_pyfile *f, const struct cpl_pyexpr *e)
{
	int c;

	if (e->last == e->first + 1 && f->toks[e->first].kind ==
	    CPL_PYTOK_NAME)
		return find_def(f, e->scope, f->text + f->toks[e->first].off,
				f->toks[e->first].len);
	if (e->last == e->first + 3 &&
	    tok_is(f->text, &f->toks[e->first], "self") &&
	    tok_is(f->text, &f->toks[e->first + 1], ".") &&
	    f->scopes[e->scope].cls >= 0)
		return nmap_get(&f->index->defs, f->scopes[e->scope].cls,
				f->text + f->toks[e->first + 2].off,
				f->toks[e->first + 2].len);
	c = expr_call(f, e);
	if (c >= 0 && strcmp(last_comp(f->calls[c].target), "partial") == 0 &&
	    f->calls[c].nargs > 0 && f->calls[c].args[0].keyword == NULL &&
	    f->calls[c].args[0].star == 0)
		return callable_def(f, &f->calls[c].args[0].value);
	return -1;
}

/* Records DataLoader call ci. */
static void
add_loader(struct cpl_pyfile *f, int ci)
{
	const struct cpl_pycall *c = &f->calls[ci];
	const struct cpl_pyarg *a;
	struct cpl_pyloader *l;
	size_t i;

	cpl_xgrow((void **)&f->loaders, &f->index->caploaders, f->nloaders + 1,
		  sizeof(*f->loaders));
	l = &f->loaders[f->nloaders++];
	memset(l, 0, sizeof(*l));
	l->call = ci;
	l->pos = c->pos;
	l->init_func = -1;
	if ((a = kwarg(c, "num_workers")) != NULL || (a = posarg(c, 5)))
		l->has_workers = true, l->workers = a->value;
	if ((a = kwarg(c, "worker_init_fn")) != NULL || (a = posarg(c, 10)))
		l->has_init = true, l->init = a->value;
	for (i = 0; i < c->nargs; i++)
		if (c->args[i].star == 2 ||
		    (c->args[i].star == 1 && !l->has_workers))
			l->unknown_kwargs = true;
	if (l->has_init) {
		l->init_func = callable_def(f, &l->init);
		if (l->init_func >= 0 &&
		    f->scopes[l->init_func].kind != CPL_PYSCOPE_FUNC)
			l->init_func = -1;
	}
}

/* Records thread-count call ci. */
static void
add_threads(struct cpl_pyfile *f, int ci)
{
	const struct cpl_pycall *c = &f->calls[ci];
	struct cpl_pythreads *t;

	cpl_xgrow((void **)&f->threads, &f->index->capthreads, f->nthreads + 1,
		  sizeof(*f->threads));
	t = &f->threads[f->nthreads++];
	memset(t, 0, sizeof(*t));
	t->kind = c->kind == CPL_PYCALL_SET_THREADS ? CPL_PYTHREADS_INTRA :
		  c->kind == CPL_PYCALL_SET_INTEROP ? CPL_PYTHREADS_INTEROP :
						      CPL_PYTHREADS_CV2;
	t->call = ci;
	t->pos = c->pos;
	t->prior_work = -1;
	if (c->nargs > 0 && c->args[0].star == 0) {
		t->has_arg = true;
		t->arg = c->args[0].value;
	}
}

/* Records pool creation ci. */
static void
add_pool(struct cpl_pyfile *f, int ci)
{
	const struct cpl_pycall *c = &f->calls[ci];
	const struct cpl_pyarg *a;
	struct cpl_pypool *p;

	cpl_xgrow((void **)&f->pools, &f->index->cappools, f->npools + 1,
		  sizeof(*f->pools));
	p = &f->pools[f->npools++];
	memset(p, 0, sizeof(*p));
	p->kind = c->kind == CPL_PYCALL_POOL ? CPL_PYPOOL_MP :
		  c->kind == CPL_PYCALL_PROCESS_POOL ? CPL_PYPOOL_PROCESS :
						       CPL_PYPOOL_THREAD;
	p->call = ci;
	p->pos = c->pos;
	a = kwarg(c, p->kind == CPL_PYPOOL_MP ? "processes" : "max_workers");
	if (a == NULL)
		a = posarg(c, 0);
	if (a) {
		p->has_size = true;
		p->size = a->value;
	}
}

/* Records that name is set to value (name NULL: not a literal; skipped). */
static void
add_envset(struct cpl_pyfile *f, const char *name,
	   const struct cpl_pyexpr *value, bool setdefault, int scope,
	   struct cpl_pos pos)
{
	struct cpl_pyenvset *e;

	if (name == NULL)
		return;
	cpl_xgrow((void **)&f->envsets, &f->index->capenvsets,
		  f->nenvsets + 1, sizeof(*f->envsets));
	e = &f->envsets[f->nenvsets++];
	e->name = (char *)name;
	e->value = *value;
	e->setdefault = setdefault;
	e->scope = scope;
	e->pos = pos;
}

/* os.environ.update({"K": v, ...}): the pairs of a dict display. */
static void
env_dict(struct cpl_pyfile *f, const struct cpl_pyexpr *e, int scope)
{
	size_t k = e->first + 1, end = e->last - 1;

	if (e->last < e->first + 2 ||
	    !tok_is(f->text, &f->toks[e->first], "{"))
		return;
	while (k + 2 < end + 1) {
		struct cpl_pyexpr key = { k, k + 1, scope, e->block,
					  cpl_pyscan_pos(f, k) };
		struct cpl_pyexpr val;
		size_t j = k + 2;
		int depth = 0;

		if (f->toks[k].kind != CPL_PYTOK_STRING ||
		    !tok_is(f->text, &f->toks[k + 1], ":"))
			return;
		for (; j < end; j++) {
			const struct cpl_pytoken *t = &f->toks[j];

			if (t->kind != CPL_PYTOK_OP || t->len != 1)
				continue;
			if (strchr("([{", f->text[t->off]))
				depth++;
			else if (strchr(")]}", f->text[t->off]))
				depth--;
			else if (depth == 0 && f->text[t->off] == ',')
				break;
		}
		val.first = k + 2;
		val.last = j;
		val.scope = scope;
		val.block = e->block;
		val.pos = cpl_pyscan_pos(f, k + 2);
		while (val.first < val.last &&
		       (f->toks[val.first].kind == CPL_PYTOK_NL ||
			f->toks[val.first].kind == CPL_PYTOK_COMMENT))
			val.first++;
		add_envset(f, expr_string(f, &key), &val, false, scope,
			   key.pos);
		k = j + 1;
		while (k < end && (f->toks[k].kind == CPL_PYTOK_NL ||
				   f->toks[k].kind == CPL_PYTOK_COMMENT))
			k++;
	}
}

/* Environment settings made by call ci (setdefault, putenv, update). */
static void
call_envsets(struct cpl_pyfile *f, int ci)
{
	const struct cpl_pycall *c = &f->calls[ci];
	const struct cpl_pyarg *a0, *a1;
	size_t i;

	if (strncmp(c->target, "os.", 3) != 0)
		return;
	a0 = posarg(c, 0);
	a1 = posarg(c, 1);

	if ((strcmp(c->target, "os.environ.setdefault") == 0 ||
	     strcmp(c->target, "os.putenv") == 0) && a0 && a1)
		add_envset(f, expr_string(f, &a0->value), &a1->value,
			   c->target[3] == 'e', c->scope, c->pos);
	if (strcmp(c->target, "os.environ.update") != 0)
		return;
	for (i = 0; i < c->nargs; i++)
		if (c->args[i].keyword)
			add_envset(f, c->args[i].keyword, &c->args[i].value,
				   false, c->scope, c->args[i].value.pos);
	if (a0)
		env_dict(f, &a0->value, c->scope);
}

/* X["KEY"] = v where X is os.environ through the imports. */
static void
sub_envsets(struct cpl_pyfile *f)
{
	struct cpl_pyindex *ix = f->index;
	size_t i;

	for (i = 0; i < ix->nsubs; i++) {
		const struct subassign *sa = &ix->subs[i];
		const struct cpl_pytoken *b = &f->toks[sa->base];
		const char *text = f->text + b->off;
		size_t n = f->toks[sa->base_end - 1].off +
			   f->toks[sa->base_end - 1].len - b->off;
		const char *dot = memchr(text, '.', n);
		size_t flen = dot ? (size_t)(dot - text) : n;
		int im = binding_n(f, sa->scope, text, flen);
		char *full;
		struct cpl_pyexpr key = { sa->key, sa->key + 1, sa->scope,
					  sa->value.block,
					  cpl_pyscan_pos(f, sa->key) };

		if (im < 0)
			continue;
		full = cpl_xasprintf("%s%.*s", f->imports[im].target,
				     (int)(n - flen), text + flen);
		if (strcmp(full, "os.environ") == 0)
			add_envset(f, expr_string(f, &key), &sa->value, false,
				   sa->scope, cpl_pyscan_pos(f, sa->base));
		free(full);
	}
}

/* Orders environment settings by position. */
static int
cmp_envset(const void *a, const void *b)
{
	const struct cpl_pyenvset *x = a, *y = b;

	if (x->pos.line != y->pos.line)
		return x->pos.line < y->pos.line ? -1 : 1;
	return (x->pos.column > y->pos.column) - (x->pos.column <
						   y->pos.column);
}

/* Groups calls by scope and by the def they reach (counting sorts). */
static void
group_calls(struct cpl_pyfile *f)
{
	struct cpl_pyindex *ix = f->index;
	size_t *off = cpl_xcalloc(f->nscopes + 1, sizeof(*off));
	size_t i, s;

	ix->scope_calls = cpl_xmalloc((f->ncalls + 1) *
				      sizeof(*ix->scope_calls));
	for (i = 0; i < f->ncalls; i++)
		f->scopes[f->calls[i].scope].ncalls++;
	for (s = 0, i = 0; s < f->nscopes; s++) {
		f->scopes[s].calls = ix->scope_calls + i;
		i += f->scopes[s].ncalls;
		f->scopes[s].ncalls = 0;
	}
	for (i = 0; i < f->ncalls; i++) {
		struct cpl_pyscope *sc = &f->scopes[f->calls[i].scope];

		sc->calls[sc->ncalls++] = i;
	}
	ix->callers_off = off;
	ix->callers = cpl_xmalloc((f->ncalls + 1) * sizeof(*ix->callers));
	for (i = 0; i < f->ncalls; i++)
		if (f->calls[i].func >= 0)
			off[f->calls[i].func + 1]++;
	for (s = 0; s < f->nscopes; s++)
		off[s + 1] += off[s];
	{
		size_t *fill = cpl_xmalloc((f->nscopes + 1) * sizeof(*fill));

		memcpy(fill, off, (f->nscopes + 1) * sizeof(*fill));
		for (i = 0; i < f->ncalls; i++)
			if (f->calls[i].func >= 0)
				ix->callers[fill[f->calls[i].func]++] = i;
		free(fill);
	}
}

/* ---- post-pass: data pipeline and tensor work ------------------------- */

/* Sets role on the defs that expression e names (a class: its
 * __call__ and forward). */
static void
mark_refs(struct cpl_pyfile *f, const struct cpl_pyexpr *e, unsigned role)
{
	size_t k;

	for (k = e->first; k < e->last; k++) {
		const struct cpl_pytoken *t = &f->toks[k];
		int d;

		if (t->kind != CPL_PYTOK_NAME ||
		    (k > e->first &&
		     tok_is(f->text, &f->toks[k - 1], ".")) ||
		    (k + 1 < e->last &&
		     tok_is(f->text, &f->toks[k + 1], "=")))
			continue;
		if (tok_is(f->text, t, "self") && k + 2 < e->last &&
		    tok_is(f->text, &f->toks[k + 1], ".") &&
		    f->scopes[e->scope].cls >= 0)
			d = nmap_get(&f->index->defs, f->scopes[e->scope].cls,
				     f->text + f->toks[k + 2].off,
				     f->toks[k + 2].len);
		else
			d = find_def(f, e->scope, f->text + t->off, t->len);
		if (d < 0)
			continue;
		if (f->scopes[d].kind == CPL_PYSCOPE_FUNC) {
			f->scopes[d].roles |= role;
		} else if (f->scopes[d].kind == CPL_PYSCOPE_CLASS) {
			int m = nmap_get(&f->index->defs, d, "__call__", 8);

			if (m >= 0)
				f->scopes[m].roles |= role;
			m = nmap_get(&f->index->defs, d, "forward", 7);
			if (m >= 0)
				f->scopes[m].roles |= role;
		}
	}
}

/* The local class an expression constructs, directly or through a name
 * assigned from a construction; -1. */
static int
constructed_class(const struct cpl_pyfile *f, const struct cpl_pyexpr *e)
{
	int c = expr_call(f, e);

	if (c < 0 && e->last == e->first + 1 &&
	    f->toks[e->first].kind == CPL_PYTOK_NAME) {
		const struct cpl_pytoken *t = &f->toks[e->first];
		int s = e->scope, a = -1;

		for (; s >= 0 && a < 0; s = f->scopes[s].parent)
			a = nmap_get(&f->index->assigns, s, f->text + t->off,
				     t->len);
		if (a >= 0 && !f->assigns[a].opaque)
			c = expr_call(f, &f->assigns[a].value);
	}
	if (c >= 0 && f->calls[c].func >= 0 &&
	    f->scopes[f->calls[c].func].kind == CPL_PYSCOPE_CLASS)
		return f->calls[c].func;
	return -1;
}

/* Marks datasets and the scopes that run in loader workers. */
static void
pipeline(struct cpl_pyfile *f)
{
	static const char *const tkw[] = {
		"transform", "target_transform", "transforms", "collate_fn",
	};
	static const char *const tfn[] = {
		"Compose", "Lambda", "with_transform", "set_transform",
		"RandomApply", "RandomChoice", "RandomOrder", "OneOf",
		"SomeOf",
	};
	size_t i, j, *queue, nq = 0, head = 0;

	for (i = 0; i < f->nloaders; i++) {
		const struct cpl_pycall *c = &f->calls[f->loaders[i].call];
		const struct cpl_pyarg *a = kwarg(c, "dataset");
		int cls;

		if (a == NULL)
			a = posarg(c, 0);
		if (a && (cls = constructed_class(f, &a->value)) >= 0)
			f->scopes[cls].dataset = true;
		if (f->loaders[i].init_func >= 0)
			f->scopes[f->loaders[i].init_func].roles |=
				CPL_PYROLE_WORKER_INIT;
	}
	for (i = 0; i < f->nscopes; i++) {
		struct cpl_pyscope *s = &f->scopes[i];

		if (s->kind == CPL_PYSCOPE_CLASS && !s->dataset &&
		    nmap_get(&f->index->defs, (int)i, "__getitem__", 11) >= 0 &&
		    nmap_get(&f->index->defs, (int)i, "__len__", 7) >= 0)
			s->dataset = true;
	}
	for (i = 0; i < f->nscopes; i++) {
		struct cpl_pyscope *s = &f->scopes[i];

		if (s->kind == CPL_PYSCOPE_FUNC && s->cls >= 0 &&
		    s->parent == s->cls && f->scopes[s->cls].dataset &&
		    (strcmp(s->name, "__getitem__") == 0 ||
		     strcmp(s->name, "__getitems__") == 0 ||
		     strcmp(s->name, "__iter__") == 0))
			s->roles |= CPL_PYROLE_GETITEM;
	}
	for (i = 0; i < f->ncalls; i++) {
		const struct cpl_pycall *c = &f->calls[i];
		bool all = IN(last_comp(c->target), tfn);

		for (j = 0; j < c->nargs; j++)
			if (all || (c->args[j].keyword &&
				    IN(c->args[j].keyword, tkw)))
				mark_refs(f, &c->args[j].value,
					  CPL_PYROLE_TRANSFORM);
	}
	queue = cpl_xmalloc((f->nscopes + 1) * sizeof(*queue));
	for (i = 0; i < f->nscopes; i++)
		if (f->scopes[i].roles) {
			f->scopes[i].roles |= CPL_PYROLE_PIPELINE;
			queue[nq++] = i;
		}
	while (head < nq) {
		const struct cpl_pyscope *s = &f->scopes[queue[head++]];

		for (j = 0; j < s->ncalls; j++) {
			int d = f->calls[s->calls[j]].func;

			if (d < 0 || f->scopes[d].kind != CPL_PYSCOPE_FUNC ||
			    (f->scopes[d].roles & CPL_PYROLE_PIPELINE))
				continue;
			f->scopes[d].roles |= CPL_PYROLE_PIPELINE;
			queue[nq++] = (size_t)d;
		}
	}
	free(queue);
}

/* The first call of scope before token tok that does tensor work, itself
 * or through a local def; -1. */
static int
work_before(const struct cpl_pyfile *f, int scope, size_t tok)
{
	const struct cpl_pyscope *s = &f->scopes[scope];
	size_t j;

	for (j = 0; j < s->ncalls; j++) {
		const struct cpl_pycall *c = &f->calls[s->calls[j]];

		if (c->open >= tok)
			break;
		if (c->kind == CPL_PYCALL_TENSOR ||
		    (c->func >= 0 &&
		     f->scopes[c->func].kind == CPL_PYSCOPE_FUNC &&
		     f->scopes[c->func].does_work))
			return (int)s->calls[j];
	}
	return -1;
}

/* Finds tensor work per scope and what ran before each thread setting. */
static void
tensor_work(struct cpl_pyfile *f)
{
	struct cpl_pyindex *ix = f->index;
	size_t i, j, *queue, nq = 0, head = 0;

	queue = cpl_xmalloc((f->nscopes + 1) * sizeof(*queue));
	for (i = 0; i < f->nscopes; i++) {
		struct cpl_pyscope *s = &f->scopes[i];

		for (j = 0; j < s->ncalls && s->work < 0; j++)
			if (f->calls[s->calls[j]].kind == CPL_PYCALL_TENSOR)
				s->work = (int)s->calls[j];
		if (s->work >= 0 && s->kind == CPL_PYSCOPE_FUNC) {
			s->does_work = true;
			queue[nq++] = i;
		}
	}
	while (head < nq) {
		size_t d = queue[head++];

		for (j = ix->callers_off[d]; j < ix->callers_off[d + 1]; j++) {
			struct cpl_pyscope *s =
				&f->scopes[f->calls[ix->callers[j]].scope];

			if (s->does_work || s->kind != CPL_PYSCOPE_FUNC)
				continue;
			s->does_work = true;
			queue[nq++] = (size_t)f->calls[ix->callers[j]].scope;
		}
	}
	free(queue);
	for (i = 0; i < f->nthreads; i++) {
		struct cpl_pythreads *t = &f->threads[i];
		const struct cpl_pycall *c = &f->calls[t->call];
		int scope = c->scope, p, a, hops;
		size_t tok = c->open;

		for (hops = 0; hops < 8; hops++) {
			t->prior_work = work_before(f, scope, tok);
			if (t->prior_work >= 0 ||
			    f->scopes[scope].kind != CPL_PYSCOPE_FUNC ||
			    ix->callers_off[scope] ==
				    ix->callers_off[scope + 1])
				break;
			j = ix->callers[ix->callers_off[scope]];
			tok = f->calls[j].open;
			scope = f->calls[j].scope;
		}
		t->in_worker_init = (f->scopes[c->scope].roles &
				     CPL_PYROLE_WORKER_INIT) != 0;
		for (p = c->parent, a = c->parent_arg; p >= 0 &&
		     !t->in_worker_init; a = f->calls[p].parent_arg,
		     p = f->calls[p].parent) {
			const struct cpl_pycall *pc = &f->calls[p];
			const struct cpl_pyarg *init;

			if (pc->kind != CPL_PYCALL_DATALOADER || a < 0)
				continue;
			init = kwarg(pc, "worker_init_fn");
			if (init == NULL)
				init = posarg(pc, 10);
			if (init && c->open >= init->value.first &&
			    c->open < init->value.last)
				t->in_worker_init = true;
		}
	}
}

/* ---- post-pass: where CPU counts go ----------------------------------- */

/* A name the sizing flow has reached, and the sink that reached it. */
struct fitem {
	int ns;
	const char *name;
	size_t len;
	const char *sink;
	struct cpl_pos pos;
};

/* The state of the sizing flow. */
struct flow {
	struct cpl_pyfile *f;
	struct nmap seen;	/* (ns, name) reached */
	struct nmap nspaces;	/* (0, name) assigned from parse_args() */
	struct fitem *q;
	size_t nq, capq, head;
	int *count_of;		/* call → cpucount, -1 */
};

/* A name that says it holds a pool size: workers, threads, procs, jobs. */
static bool
sizing_name(const char *s, size_t n)
{
	static const char *const parts[] = {
		"worker", "thread", "nproc", "num_proc", "n_proc", "n_jobs",
		"njobs", "num_jobs", "processes", "pool_size", "max_procs",
	};
	char low[64];
	size_t k;
	bool maybe = false;

	if (n >= sizeof(low))
		return false;
	for (k = 0; k < n; k++) {
		low[k] = (char)(s[k] >= 'A' && s[k] <= 'Z' ? s[k] + 32 : s[k]);
		/* every part holds one of w, h, p, j */
		maybe |= low[k] == 'w' || low[k] == 'h' || low[k] == 'p' ||
			 low[k] == 'j';
	}
	if (!maybe)
		return false;
	low[n] = '\0';
	for (k = 0; k < CPL_ARRAY_LEN(parts); k++)
		if (strstr(low, parts[k]))
			return true;
	return false;
}

/* The scope whose binding of name a use in scope reads; 0 if none. */
static int
var_scope(const struct cpl_pyfile *f, int scope, const char *name, size_t len)
{
	bool first = true;

	while (scope > 0) {
		if ((first || f->scopes[scope].kind != CPL_PYSCOPE_CLASS) &&
		    (nmap_get(&f->index->assigns, scope, name, len) >= 0 ||
		     param_n(f, scope, name, len) >= 0))
			return scope;
		first = false;
		scope = f->scopes[scope].parent;
	}
	return 0;
}

/* name holds an argparse namespace in scope. */
static bool
is_namespace(const struct flow *fl, int scope, const char *name, size_t len)
{
	const struct cpl_pyfile *f = fl->f;

	if (nmap_get(&fl->nspaces, 0, name, len) >= 0)
		return true;
	if (f->nargdefs == 0)
		return false;
	for (; scope > 0; scope = f->scopes[scope].parent)
		if (param_n(f, scope, name, len) >= 0)
			return true;
	return false;
}

/* Queues (ns, name) for the sizing flow unless it was reached before. */
static void
flow_key(struct flow *fl, int ns, const char *name, size_t len,
	 const char *sink, struct cpl_pos pos)
{
	struct fitem *it;

	if (nmap_get(&fl->seen, ns, name, len) >= 0)
		return;
	nmap_put(&fl->seen, ns, name, len, 1);
	cpl_xgrow((void **)&fl->q, &fl->capq, fl->nq + 1, sizeof(*fl->q));
	it = &fl->q[fl->nq++];
	it->ns = ns;
	it->name = name;
	it->len = len;
	it->sink = sink;
	it->pos = pos;
}

/* Marks CPU-count call as sizing sink at pos (the first sink wins). */
static void
mark_sizing(struct flow *fl, size_t call, const char *sink,
	    struct cpl_pos pos)
{
	struct cpl_pycpucount *cc;

	if (fl->count_of[call] < 0)
		return;
	cc = &fl->f->cpucounts[fl->count_of[call]];
	if (cc->use == CPL_PYUSE_SIZING)
		return;
	cc->use = CPL_PYUSE_SIZING;
	cc->sink = fdup(fl->f, sink, strlen(sink));
	cc->sink_pos = pos;
}

/*
 * Calls visit(fl, ns, name, len) for each name expression e reads:
 * plain names by the scope that binds them, self.X by class, args.X of
 * an argparse namespace by dest.  Callee names and keywords are skipped.
 */
static void
expr_names(struct flow *fl, const struct cpl_pyexpr *e, const char *sink,
	   struct cpl_pos pos)
{
	const struct cpl_pyfile *f = fl->f;
	const struct cpl_pytoken *t = f->toks;
	const char *x = f->text;
	size_t k;

	for (k = e->first; k < e->last; k++) {
		const char *name = x + t[k].off;
		size_t len = t[k].len;

		if (t[k].kind != CPL_PYTOK_NAME ||
		    (k > e->first && tok_is(x, &t[k - 1], ".")) ||
		    (k + 1 < f->ntoks && (tok_is(x, &t[k + 1], "=") ||
					  tok_is(x, &t[k + 1], "("))))
			continue;
		if (k + 2 < e->last && tok_is(x, &t[k + 1], ".") &&
		    t[k + 2].kind == CPL_PYTOK_NAME &&
		    !(k + 3 < f->ntoks && tok_is(x, &t[k + 3], "("))) {
			int cls = f->scopes[e->scope].cls;

			if (len == 4 && memcmp(name, "self", 4) == 0 &&
			    cls >= 0 && t[k + 2].off == t[k].off + 5)
				flow_key(fl, CLASS_NS(cls), name, 5 +
					 t[k + 2].len, sink, pos);
			else if (is_namespace(fl, e->scope, name, len) ||
				 nmap_get(&f->index->argdefs, ARGS_NS,
					  x + t[k + 2].off, t[k + 2].len) >= 0)
				flow_key(fl, ARGS_NS, x + t[k + 2].off,
					 t[k + 2].len, sink, pos);
			k += 2;
			continue;
		}
		flow_key(fl, var_scope(f, e->scope, name, len), name, len,
			 sink, pos);
	}
}

/* Expression e sizes sink: its CPU counts do, and what it reads. */
static void
flow_expr(struct flow *fl, const struct cpl_pyexpr *e, const char *sink,
	  struct cpl_pos pos)
{
	struct cpl_pyfile *f = fl->f;
	size_t c;

	if (e->first >= e->last)
		return;
	for (c = cpl_pyscan_call_from(f, e->first);
	     c < f->ncalls && f->calls[c].open < e->last; c++) {
		const struct cpl_pycall *call = &f->calls[c];

		if (call->kind == CPL_PYCALL_CPU_COUNT)
			mark_sizing(fl, c, sink, pos);
		if (call->func >= 0 &&
		    f->scopes[call->func].kind == CPL_PYSCOPE_FUNC)
			flow_key(fl, call->func, "return", 6, sink, pos);
	}
	expr_names(fl, e, sink, pos);
}

/* Every readable assignment in the chain from a sizes the item's sink. */
static void
flow_assigns(struct flow *fl, int a, const struct fitem *it)
{
	for (; a >= 0; a = fl->f->assigns[a].prev) {
		const struct cpl_pyassign *as = &fl->f->assigns[a];

		if (!as->opaque)
			flow_expr(fl, &as->value, it->sink, it->pos);
	}
}

/* Follows everything queued until nothing new is reached. */
static void
flow_drain(struct flow *fl)
{
	struct cpl_pyfile *f = fl->f;
	struct cpl_pyindex *ix = f->index;

	while (fl->head < fl->nq) {
		struct fitem it = fl->q[fl->head++];
		int p;
		size_t j;

		if (it.ns == ARGS_NS) {
			int d = nmap_get(&ix->argdefs, ARGS_NS, it.name,
					 it.len);

			if (d >= 0)
				flow_expr(fl, &f->argdefs[d].def, it.sink,
					  it.pos);
			continue;
		}
		flow_assigns(fl, nmap_get(&ix->assigns, it.ns, it.name,
					  it.len), &it);
		if (it.ns <= -2 && it.len > 5)
			flow_assigns(fl, nmap_get(&ix->assigns, -2 - it.ns,
						  it.name + 5, it.len - 5),
				     &it);
		if (it.ns <= 0 || f->scopes[it.ns].kind != CPL_PYSCOPE_FUNC ||
		    (p = param_n(f, it.ns, it.name, it.len)) < 0)
			continue;
		flow_expr(fl, &f->scopes[it.ns].params[p].def, it.sink,
			  it.pos);
		for (j = ix->callers_off[it.ns]; j < ix->callers_off[it.ns + 1];
		     j++) {
			const struct cpl_pycall *c = &f->calls[ix->callers[j]];
			const struct cpl_pyarg *a;
			bool spread;

			a = cpl_pyscan_call_arg(f, c, f, it.ns, (size_t)p,
						&spread);
			if (a)
				flow_expr(fl, &a->value, it.sink, it.pos);
		}
	}
}

/* An environment variable that sizes a pool. */
static bool
is_thread_env(const char *name)
{
	return strstr(name, "THREADS") != NULL ||
	       strstr(name, "WORKERS") != NULL;
}

/* A call that passes its argument's value on: min, int, str ... */
static bool
is_transparent(const struct cpl_pycall *c)
{
	static const char *const names[] = {
		"min", "max", "int", "float", "round", "str", "abs",
		"math.floor", "math.ceil", "math.trunc", "format",
	};

	return IN(c->target, names) ||
	       (strcmp(last_comp(c->callee), "format") == 0 &&
		strchr(c->callee, '.') != NULL);
}

/* Names an f-string token reads: identifiers right after a '{'. */
static void
fstring_names(struct flow *fl, size_t k, int scope)
{
	const struct cpl_pyfile *f = fl->f;
	const char *s = f->text + f->toks[k].off;
	size_t n = f->toks[k].len, i;

	for (i = 0; i + 1 < n; i++) {
		size_t j;

		if (s[i] != '{')
			continue;
		if (s[i + 1] == '{') {
			i++;
			continue;
		}
		for (j = i + 1; j < n && (s[j] == '_' ||
					  (s[j] >= 'a' && s[j] <= 'z') ||
					  (s[j] >= 'A' && s[j] <= 'Z') ||
					  (j > i + 1 && s[j] >= '0' &&
					   s[j] <= '9')); j++)
			;
		if (j > i + 1)
			flow_key(fl, var_scope(f, scope, s + i + 1, j - i - 1),
				 s + i + 1, j - i - 1, "print",
				 f->scopes[0].pos);
	}
}

/* Marks the CPU counts that are only printed or logged. */
static void
printed(struct flow *fl)
{
	struct cpl_pyfile *f = fl->f;
	size_t i, j, k;

	/* Reuse the flow's seen map for the names print calls read. */
	nmap_free(&fl->seen);
	fl->nq = fl->head = 0;
	for (i = 0; i < f->ncalls; i++) {
		const struct cpl_pycall *c = &f->calls[i];

		if (c->kind != CPL_PYCALL_PRINT)
			continue;
		for (j = 0; j < c->nargs; j++) {
			const struct cpl_pyexpr *e = &c->args[j].value;

			expr_names(fl, e, "print", c->pos);
			for (k = e->first; k < e->last; k++)
				if (f->toks[k].kind == CPL_PYTOK_STRING &&
				    (f->toks[k].flags & CPL_PYSTR_FMT))
					fstring_names(fl, k, e->scope);
		}
	}
	for (i = 0; i < f->ncpucounts; i++) {
		struct cpl_pycpucount *cc = &f->cpucounts[i];
		int c = cc->call;

		if (cc->use == CPL_PYUSE_SIZING)
			continue;
		while (f->calls[c].parent >= 0 &&
		       is_transparent(&f->calls[f->calls[c].parent]))
			c = f->calls[c].parent;
		if (f->calls[c].parent >= 0 &&
		    f->calls[f->calls[c].parent].kind == CPL_PYCALL_PRINT) {
			cc->use = CPL_PYUSE_PRINTED;
		} else if (f->calls[c].assign >= 0) {
			const struct cpl_pyassign *a =
				&f->assigns[f->calls[c].assign];
			int ns = a->scope;

			if (cpl_str_starts(a->name, "self.") &&
			    f->scopes[a->scope].cls >= 0)
				ns = CLASS_NS(f->scopes[a->scope].cls);
			if (nmap_get(&fl->seen, ns, a->name,
				     strlen(a->name)) >= 0)
				cc->use = CPL_PYUSE_PRINTED;
		}
	}
}

/*
 * Decides, for every CPU-count call, whether it sizes something or is only
 * printed.
 */
static void
cpu_flow(struct cpl_pyfile *f)
{
	static const char *const tnames[] = {
		"torch.set_num_threads", "torch.set_num_interop_threads",
		"cv2.setNumThreads",
	};
	static const char *const pnames[] = {
		"Pool", "ProcessPoolExecutor", "ThreadPoolExecutor",
	};
	struct flow fl;
	size_t i, j;

	memset(&fl, 0, sizeof(fl));
	fl.f = f;
	fl.count_of = cpl_xmalloc((f->ncalls + 1) * sizeof(*fl.count_of));
	for (i = 0; i < f->ncalls; i++)
		fl.count_of[i] = -1;
	for (i = 0; i < f->ncpucounts; i++)
		fl.count_of[f->cpucounts[i].call] = (int)i;
	for (i = 0; i < f->ncalls; i++) {
		const struct cpl_pycall *c = &f->calls[i];
		const struct cpl_pyassign *a;

		if (c->kind != CPL_PYCALL_PARSE_ARGS || c->assign < 0)
			continue;
		a = &f->assigns[c->assign];
		nmap_put(&fl.nspaces, 0, a->name, strlen(a->name), 1);
	}
	/* Sizing uses the libraries define, then keywords and names that
	 * say they size something. */
	for (i = 0; i < f->nloaders; i++)
		if (f->loaders[i].has_workers)
			flow_expr(&fl, &f->loaders[i].workers, "num_workers",
				  f->loaders[i].workers.pos);
	for (i = 0; i < f->nthreads; i++)
		if (f->threads[i].has_arg)
			flow_expr(&fl, &f->threads[i].arg,
				  tnames[f->threads[i].kind],
				  f->threads[i].pos);
	for (i = 0; i < f->npools; i++)
		if (f->pools[i].has_size)
			flow_expr(&fl, &f->pools[i].size,
				  pnames[f->pools[i].kind], f->pools[i].pos);
	for (i = 0; i < f->nenvsets; i++)
		if (is_thread_env(f->envsets[i].name))
			flow_expr(&fl, &f->envsets[i].value,
				  f->envsets[i].name, f->envsets[i].pos);
	flow_drain(&fl);
	for (i = 0; i < f->ncalls; i++)
		for (j = 0; j < f->calls[i].nargs; j++) {
			const struct cpl_pyarg *a = &f->calls[i].args[j];

			if (a->keyword && sizing_name(a->keyword,
						      strlen(a->keyword)))
				flow_expr(&fl, &a->value, a->keyword,
					  a->value.pos);
		}
	for (i = 0; i < f->nargdefs; i++)
		if (sizing_name(f->argdefs[i].dest,
				strlen(f->argdefs[i].dest)))
			flow_expr(&fl, &f->argdefs[i].def,
				  f->argdefs[i].flags[0], f->argdefs[i].pos);
	flow_drain(&fl);
	for (i = 0; i < f->nassigns; i++) {
		const struct cpl_pyassign *a = &f->assigns[i];
		const char *n = a->name;

		if (cpl_str_starts(n, "self."))
			n += 5;
		if (!a->opaque && sizing_name(n, strlen(n)))
			flow_expr(&fl, &a->value, n, a->pos);
	}
	for (i = 0; i < f->nscopes; i++)
		for (j = 0; j < f->scopes[i].nparams; j++) {
			const struct cpl_pyparam *p = &f->scopes[i].params[j];

			if (sizing_name(p->name, strlen(p->name)))
				flow_expr(&fl, &p->def, p->name, p->pos);
		}
	flow_drain(&fl);
	printed(&fl);
	nmap_free(&fl.seen);
	nmap_free(&fl.nspaces);
	free(fl.q);
	free(fl.count_of);
}

/* ---- the post-pass ---------------------------------------------------- */

/* The post-pass over the scanned file. */
static void
post(struct cpl_pyfile *f)
{
	struct cpl_pyindex *ix = f->index;
	size_t i;

	for (i = 0; i < f->ncalls; i++) {
		f->calls[i].args = f->calls[i].nargs ?
				   ix->args + ix->argoff[i] : NULL;
		resolve_call(f, &f->calls[i]);
	}
	for (i = 0; i < f->ncalls; i++)
		f->calls[i].kind = classify(f, &f->calls[i]);
	group_calls(f);
	for (i = 0; i < f->ncalls; i++) {
		struct cpl_pycall *c = &f->calls[i];

		switch (c->kind) {
		case CPL_PYCALL_ADD_ARGUMENT:
			add_argdef(f, (int)i);
			break;
		case CPL_PYCALL_DATALOADER:
			add_loader(f, (int)i);
			break;
		case CPL_PYCALL_SET_THREADS:
		case CPL_PYCALL_SET_INTEROP:
		case CPL_PYCALL_CV2_THREADS:
			add_threads(f, (int)i);
			break;
		case CPL_PYCALL_POOL:
		case CPL_PYCALL_PROCESS_POOL:
		case CPL_PYCALL_THREAD_POOL:
			add_pool(f, (int)i);
			break;
		case CPL_PYCALL_CPU_COUNT:
			cpl_xgrow((void **)&f->cpucounts, &ix->capcpucounts,
				  f->ncpucounts + 1, sizeof(*f->cpucounts));
			memset(&f->cpucounts[f->ncpucounts], 0,
			       sizeof(*f->cpucounts));
			f->cpucounts[f->ncpucounts].call = (int)i;
			f->cpucounts[f->ncpucounts++].pos = c->pos;
			break;
		case CPL_PYCALL_CV2:
			f->scopes[c->scope].uses_cv2 = true;
			break;
		default:
			break;
		}
		call_envsets(f, (int)i);
	}
	sub_envsets(f);
	if (f->nenvsets > 1)
		qsort(f->envsets, f->nenvsets, sizeof(*f->envsets),
		      cmp_envset);
	pipeline(f);
	tensor_work(f);
	cpu_flow(f);
}

int
cpl_pyscan_file(struct cpl_pyfile **out, const char *path, const char *text,
		size_t len, struct cpl_error *err)
{
	struct cpl_pyfile *f = cpl_xcalloc(1, sizeof(*f));
	struct cpl_pytokens tk;
	struct scan sc;
	int rc;

	f->index = cpl_xcalloc(1, sizeof(*f->index));
	f->path = cpl_xstrdup(path ? path : "<string>");
	f->text = cpl_xstrndup(text, len);
	f->len = len;
	memset(&tk, 0, sizeof(tk));
	rc = cpl_pytoken_scan(&tk, f->text, len, f->path, err);
	f->toks = tk.toks;
	f->ntoks = tk.count;
	memset(&sc, 0, sizeof(sc));
	sc.f = f;
	sc.ix = f->index;
	sc.text = f->text;
	sc.t = f->toks;
	sc.n = f->ntoks;
	sc.pending = -1;
	nmap_reserve(&f->index->assigns, f->ntoks / 8);
	scan_file(&sc);
	free(sc.ss);
	free(sc.bs);
	free(sc.cs);
	free(sc.targs);
	cpl_buf_free(&sc.tmp);
	post(f);
	*out = f;
	return rc < 0 ? 1 : 0;
}

void
cpl_pyfile_free(struct cpl_pyfile *f)
{
	struct cpl_pyindex *ix;

	if (f == NULL)
		return;
	ix = f->index;
	free(f->path);
	free(f->text);
	free(f->toks);
	free(f->imports);
	free(f->scopes);
	free(f->calls);
	free(f->assigns);
	free(f->argdefs);
	free(f->loaders);
	free(f->threads);
	free(f->pools);
	free(f->cpucounts);
	free(f->envsets);
	nmap_free(&ix->assigns);
	nmap_free(&ix->bindings);
	nmap_free(&ix->defs);
	nmap_free(&ix->argdefs);
	free(ix->block_parent);
	free(ix->args);
	free(ix->argoff);
	free(ix->scope_calls);
	free(ix->callers);
	free(ix->callers_off);
	free(ix->subs);
	arena_free(ix->arena);
	free(ix);
	free(f);
}

void
cpl_pyscan_code_free(struct cpl_code *c)
{
	if (c == NULL)
		return;
	free(c->files);
	free(c->loaders);
	free(c->threads);
	free(c);
}
