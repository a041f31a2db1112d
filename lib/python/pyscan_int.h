/*
 * pyscan_int.h — private to the parts of the Python scanner: only
 * pyscan.c, pyindex.c, pyfacts.c, pyflow.c, pyarena.c and pytokcache.c
 * include it.
 * Every other module uses pyscan.h, the scanner's only interface.
 *
 * What the parts share: the arena and the (namespace, name) maps, the
 * private index of a file (struct cpl_pyindex, which struct cpl_pyfile
 * points at), the state of the walk over statements, the token helpers,
 * and the few functions one part calls in another, each named
 * cpl_pyscan_<what> and declared here under the part that defines it:
 *   pyscan.c   the walk over statements and the public entry points
 *   pyindex.c  scopes, assignments and imports as the walk records them,
 *              and the lookups over the index
 *   pyfacts.c  post-pass, first half: callees, call kinds, typed facts
 *   pyflow.c   post-pass, second half: data pipeline, tensor work, where
 *              CPU counts go
 *   pyarena.c  the arena and the maps
 *   pytokcache.c  the tokens of a scanned file, made again on demand
 *
 * Ownership is the file's: strings in its arena, arrays and map slots on
 * the heap, all released by cpl_pyfile_free().
 */
#ifndef CPL_PYTHON_PYSCAN_INT_H
#define CPL_PYTHON_PYSCAN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "python/pyscan.h"

/* ---- arena (pyarena.c) ------------------------------------------------ */

struct arena_chunk;		/* a block of an arena; a NULL head is empty */

/* n bytes from the arena, aligned for any type. */
void *cpl_pyscan_arena_alloc(struct arena_chunk **head, size_t n);
/* s[0, n) copied into the arena, NUL-terminated. */
char *cpl_pyscan_arena_strndup(struct arena_chunk **head, const char *s,
			       size_t n);
/* Room for a string of n characters and its NUL, packed: the caller
 * writes them (a text joined in place, not built elsewhere first). */
char *cpl_pyscan_arena_str(struct arena_chunk **head, size_t n);
/* a, b and c (any may be NULL) joined, in the arena. */
char *cpl_pyscan_arena_cat(struct arena_chunk **head, const char *a,
			   const char *b, const char *c);
/* Frees every chunk of an arena. */
void cpl_pyscan_arena_free(struct arena_chunk *c);

/* ---- maps: (namespace, name) → int ------------------------------------ */

/* A slot of a map; key NULL when empty.  Keys are borrowed; tag is the
 * low 32 bits of the key's hash, compared before the key itself is
 * touched, and the bits its index in any table comes from (a map moves
 * its entries to a new table without hashing them again). */
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
	uint64_t seen;		/* a bit of each key's hash put: a key
				 * whose bit is clear was never put */
};

/* The value of (ns, k), -1 when absent. */
int cpl_pyscan_nmap_get(const struct nmap *m, int ns, const char *k,
			size_t len);
/* A name with the part of its hash that no namespace changes. */
struct nmap_key {
	const char *s;
	size_t len;
	uint64_t h;
};

/* k[0, len) (borrowed) as a key hashed once, for lookups in several
 * namespaces (a name looked up scope by scope outwards). */
struct nmap_key cpl_pyscan_nmap_key(const char *k, size_t len);
/* The value of key in namespace ns, -1 when absent. */
int cpl_pyscan_nmap_get_key(const struct nmap *m, int ns,
			    const struct nmap_key *key);
/* Grows m to a power of two of at least cap slots. */
void cpl_pyscan_nmap_reserve(struct nmap *m, size_t cap);
/* Cuts m to the fewest slots its entries need (none when empty): for a
 * map that is kept and rarely grows again. */
void cpl_pyscan_nmap_fit(struct nmap *m);
/* Sets (ns, k) to val; k must outlive the map.  The value it had, -1. */
int cpl_pyscan_nmap_set(struct nmap *m, int ns, const char *k, size_t len,
			int val);
/* Sets (ns, k) to val; k must outlive the map. */
void cpl_pyscan_nmap_put(struct nmap *m, int ns, const char *k, size_t len,
			 int val);
/* Frees the slots (not the borrowed keys). */
void cpl_pyscan_nmap_free(struct nmap *m);

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

struct cpl_pytokcache;	/* bounds remade tokens (pytokcache.h) */

/* Lookup tables and capacities of a cpl_pyfile. */
struct cpl_pyindex {
	struct arena_chunk *arena;	/* every string of the facts */
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
	size_t capsinks, caprefs;
	/* The tokens (pytokcache.c): the scan's while it runs, then freed
	 * and made again by cpl_pyfile_toks().  The one part of a scanned
	 * file that changes after the scan, through a const file; nothing
	 * else in the index changes then. */
	struct cpl_pytoken *toks;	/* NULL when not held */
	size_t captoks;			/* slots of toks */
	struct cpl_pytokcache *tokcache;	/* bounds toks, NULL */
	size_t tokslot;			/* in tokcache's attached files */
	struct cpl_pyindex *lru_prev;	/* in tokcache's list of held */
	struct cpl_pyindex *lru_next;	/* arrays, newest use first */
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

struct cframe;		/* an open bracket inside a statement (pyscan.c) */

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

/* The innermost open scope. */
static inline int
cur_scope(const struct scan *sc)
{
	return sc->ss[sc->nss - 1].scope;
}

/* The innermost open block. */
static inline int
cur_block(const struct scan *sc)
{
	return sc->bs[sc->nbs - 1].block;
}

/* The token's text, copied into the arena. */
static inline char *
tok_dup(struct scan *sc, size_t k)
{
	return cpl_pyscan_arena_strndup(&sc->ix->arena,
					sc->text + sc->t[k].off,
					sc->t[k].len);
}

/* The position of token tok of the file being scanned (past the last:
 * none), as cpl_pyscan_pos() gives it: while a scan runs, its tokens
 * are the file's (sc->t is f->index->toks, sc->n f->ntoks, no cache),
 * read here with no call. */
static inline struct cpl_pos
scan_pos(const struct scan *sc, size_t tok)
{
	struct cpl_pos p = { sc->f->path, 0, 0 };

	if (tok < sc->n) {
		p.line = sc->t[tok].line;
		p.column = sc->t[tok].column;
	}
	return p;
}

/*
 * Tokens [first, last) without surrounding trivia, as an expression of
 * scope.
 */
static inline struct cpl_pyexpr
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
	e.pos = scan_pos(sc, first);
	return e;
}

/* The last component of a dotted name. */
static inline const char *
last_comp(const char *s)
{
	const char *d = strrchr(s, '.');

	return d ? d + 1 : s;
}

/* s is one of list[0, n). */
static inline bool
in_list(const char *s, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[0] == list[i][0] && strcmp(s, list[i]) == 0)
			return true;
	return false;
}

#define IN(s, list) in_list((s), (list), CPL_ARRAY_LEN(list))

/* s is the literal lit: the first byte compared inline, as most names
 * differ there (the fact readers test each call against many names). */
static inline bool
str_is(const char *s, const char *lit)
{
	return s[0] == lit[0] && strcmp(s, lit) == 0;
}

/* s[0, n) copied into the file's arena. */
static inline char *
fdup(struct cpl_pyfile *f, const char *s, size_t n)
{
	return cpl_pyscan_arena_strndup(&f->index->arena, s, n);
}

/* The argument passed as keyword name, NULL. */
static inline const struct cpl_pyarg *
kwarg(const struct cpl_pycall *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nargs; i++)
		if (c->args[i].keyword && strcmp(c->args[i].keyword, name) == 0)
			return &c->args[i];
	return NULL;
}

/* The n-th positional argument (no keyword, no star), NULL. */
static inline const struct cpl_pyarg *
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

/* ---- recording and lookups (pyindex.c) -------------------------------- */

/*
 * Records a module, class or def scope named by token name_tok; returns its
 * index.
 */
int cpl_pyscan_new_scope(struct scan *sc, enum cpl_pyscope_kind kind,
			 size_t name_tok);
/* Records an assignment of name (arena string) in the current scope. */
int cpl_pyscan_add_assign(struct scan *sc, const char *name, size_t vfirst,
			  size_t vlast, int index, const char *op,
			  bool opaque, size_t tok);
/* Records one import binding in the current scope. */
void cpl_pyscan_add_import(struct scan *sc, const char *module, int level,
			   const char *name, const char *alias,
			   size_t pos_tok);
/* The parameter of scope named name[0, len), -1. */
int cpl_pyscan_param_n(const struct cpl_pyfile *f, int scope,
		       const char *name, size_t len);
/* The import binding name[0, len) in scope or an enclosing one, -1. */
int cpl_pyscan_binding_n(const struct cpl_pyfile *f, int scope,
			 const char *name, size_t len);
/* The def or class named name that code in scope sees, -1. */
int cpl_pyscan_find_def(const struct cpl_pyfile *f, int scope,
			const char *name, size_t len);
/* The call that spans expression e exactly, -1. */
int cpl_pyscan_expr_call(const struct cpl_pyfile *f,
			 const struct cpl_pyexpr *e);

/* ---- tokens (pytokcache.c) ------------------------------------------- */

/* Frees the tokens of ix and takes it off its cache (cpl_pyfile_free, and
 * the end of a scan, with detach false). */
void cpl_pyscan_toks_drop(struct cpl_pyindex *ix, bool detach);

/* ---- post-pass, first half (pyfacts.c) -------------------------------- */

/*
 * Attaches each call's arguments, resolves its callee, classifies it,
 * groups calls by scope and by the def they reach, and records argdefs,
 * loaders, threads, pools, cpucounts and envsets (sorted by position).
 */
void cpl_pyscan_facts(struct cpl_pyfile *f);

/* ---- post-pass, second half (pyflow.c), after cpl_pyscan_facts() ------ */

/* Marks datasets and the scopes that run in loader workers. */
void cpl_pyscan_pipeline(struct cpl_pyfile *f);
/* Finds tensor work per scope and what ran before each thread setting. */
void cpl_pyscan_tensor_work(struct cpl_pyfile *f);
/*
 * Decides, for every CPU-count call, whether it sizes something or is only
 * printed.
 */
void cpl_pyscan_cpu_flow(struct cpl_pyfile *f);

#endif
