/*
 * pyindex.c — the private index of a scanned Python file: what the walk
 * records into it, and the lookups that read it (pyscan.h).
 *
 * The walk (pyscan.c) calls the recorders as it reads statements: a scope
 * per module, class and def (in the defs map under its parent), an
 * assignment per bound name (the assigns map keeps the last one, each
 * chained to the one before; self.X in a method is keyed by its class),
 * an import per binding (the bindings map).  Lookups answer from those
 * maps, walking out through enclosing scopes as Python resolves names;
 * the call lookups binary-search f->calls, which is sorted by '('.
 *
 * Owns nothing of its own: strings go into the file's arena and facts
 * into the file's arrays, all freed by cpl_pyfile_free().
 */
#include "python/pyscan_int.h"

#include <string.h>

/* ---- recording -------------------------------------------------------- */

/*
 * Records a module, class or def scope named by token name_tok; returns its
 * index.
 */
int
cpl_pyscan_new_scope(struct scan *sc, enum cpl_pyscope_kind kind,
		     size_t name_tok)
{
	struct cpl_pyfile *f = sc->f;
	struct cpl_pyscope *s;
	int parent = sc->nss ? cur_scope(sc) : -1;

	if (f->nscopes == sc->ix->capscopes)
		CPL_GROW(f->scopes, sc->ix->capscopes, f->nscopes + 1);
	s = &f->scopes[f->nscopes];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->parent = parent;
	s->cls = -1;
	s->work = -1;
	s->bases = cpl_pyscan_arena_strndup(&sc->ix->arena, "", 0);
	if (kind == CPL_PYSCOPE_MODULE) {
		s->name = cpl_pyscan_arena_strndup(&sc->ix->arena, "<module>",
						   8);
		s->qualname = s->name;
		s->pos.file = f->path;
		s->pos.line = 1;
		s->pos.column = 1;
	} else {
		const struct cpl_pyscope *p = &f->scopes[parent];

		s->name = tok_dup(sc, name_tok);
		s->qualname = parent == 0 ? s->name :
			      cpl_pyscan_arena_cat(&sc->ix->arena,
						   p->qualname, ".", s->name);
		s->pos = scan_pos(sc, name_tok);
		if (p->kind == CPL_PYSCOPE_CLASS && kind == CPL_PYSCOPE_FUNC)
			s->cls = parent;
		else if (p->kind == CPL_PYSCOPE_FUNC)
			s->cls = p->cls;
		cpl_pyscan_nmap_put(&sc->ix->defs, parent, s->name,
				    strlen(s->name), (int)f->nscopes);
	}
	return (int)f->nscopes++;
}

/* Records an assignment of name (arena string) in the current scope. */
int
cpl_pyscan_add_assign(struct scan *sc, const char *name, size_t vfirst,
		      size_t vlast, int index, const char *op, bool opaque,
		      size_t tok)
{
	struct cpl_pyfile *f = sc->f;
	struct cpl_pyassign *a;
	int scope = cur_scope(sc), ns = scope;
	const struct cpl_pyscope *s = &f->scopes[scope];
	size_t oplen;

	if (cpl_str_starts(name, "self.") && s->cls >= 0)
		ns = CLASS_NS(s->cls);
	if (f->nassigns == sc->ix->capassigns)
		CPL_GROW(f->assigns, sc->ix->capassigns,
			 f->nassigns + 1);
	a = &f->assigns[f->nassigns];
	memset(a, 0, sizeof(*a));
	a->name = (char *)name;
	a->value = make_expr(sc, vfirst, vlast, scope);
	a->index = index;
	oplen = strlen(op);
	memcpy(a->op, op, oplen < sizeof(a->op) ? oplen + 1 : 1);
	a->opaque = opaque;
	a->scope = scope;
	a->block = cur_block(sc);
	a->tok = tok;
	a->pos = scan_pos(sc, tok);
	a->prev = cpl_pyscan_nmap_set(&sc->ix->assigns, ns, name,
				      strlen(name), (int)f->nassigns);
	return (int)f->nassigns++;
}

/* Records one import binding in the current scope. */
void
cpl_pyscan_add_import(struct scan *sc, const char *module, int level,
		      const char *name, const char *alias, size_t pos_tok)
{
	struct cpl_pyfile *f = sc->f;
	struct cpl_pyindex *ix = sc->ix;
	struct cpl_pyimport *im;
	struct cpl_buf b;
	const char *dot;
	int k;

	CPL_GROW(f->imports, ix->capimports, f->nimports + 1);
	im = &f->imports[f->nimports];
	memset(im, 0, sizeof(*im));
	im->module = cpl_pyscan_arena_strndup(&ix->arena, module,
					      strlen(module));
	im->level = level;
	im->scope = cur_scope(sc);
	im->pos = scan_pos(sc, pos_tok);
	cpl_buf_init(&b, 0);
	for (k = 0; k < level; k++)
		cpl_buf_addc(&b, '.');
	if (name) {
		im->name = cpl_pyscan_arena_strndup(&ix->arena, name,
						    strlen(name));
		im->bound = cpl_pyscan_arena_strndup(
			&ix->arena, alias ? alias : name,
			strlen(alias ? alias : name));
		cpl_buf_adds(&b, module);
		if (*module)
			cpl_buf_addc(&b, '.');
		cpl_buf_adds(&b, name);
	} else if (alias) {
		im->bound = cpl_pyscan_arena_strndup(&ix->arena, alias,
						     strlen(alias));
		cpl_buf_adds(&b, module);
	} else {
		dot = strchr(module, '.');
		im->bound = cpl_pyscan_arena_strndup(
			&ix->arena, module,
			dot ? (size_t)(dot - module) : strlen(module));
		cpl_buf_adds(&b, im->bound);
	}
	im->target = cpl_pyscan_arena_strndup(&ix->arena, cpl_buf_str(&b),
					      b.len);
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
		cpl_pyscan_nmap_put(&ix->bindings, im->scope, im->bound,
				    strlen(im->bound), (int)f->nimports);
	f->nimports++;
}

/* ---- lookups ---------------------------------------------------------- */

/* The parameter of scope named name[0, len), -1. */
int
cpl_pyscan_param_n(const struct cpl_pyfile *f, int scope, const char *name,
		   size_t len)
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
	return cpl_pyscan_param_n(f, scope, name, strlen(name));
}

/* The import binding name[0, len) in scope or an enclosing one, -1. */
int
cpl_pyscan_binding_n(const struct cpl_pyfile *f, int scope, const char *name,
		     size_t len)
{
	struct nmap_key key;

	if (f->index->bindings.cap == 0)
		return -1;
	key = cpl_pyscan_nmap_key(name, len);
	while (scope >= 0 && (size_t)scope < f->nscopes) {
		int v = cpl_pyscan_nmap_get_key(&f->index->bindings, scope,
						&key);

		if (v >= 0)
			return v;
		scope = f->scopes[scope].parent;
	}
	return -1;
}

int
cpl_pyscan_binding(const struct cpl_pyfile *f, int scope, const char *name)
{
	return cpl_pyscan_binding_n(f, scope, name, strlen(name));
}

/* The def or class named name that code in scope sees, -1. */
int
cpl_pyscan_find_def(const struct cpl_pyfile *f, int scope, const char *name,
		    size_t len)
{
	bool first = true;
	struct nmap_key key;

	if (f->index->defs.cap == 0)
		return -1;
	key = cpl_pyscan_nmap_key(name, len);
	while (scope >= 0) {
		if (first || f->scopes[scope].kind != CPL_PYSCOPE_CLASS) {
			int v = cpl_pyscan_nmap_get_key(&f->index->defs,
							scope, &key);

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
	const struct nmap *defs = &f->index->defs;
	const char *dot = strchr(name, '.');
	int cls;

	if (dot == NULL)
		return cpl_pyscan_nmap_get(defs, 0, name, strlen(name));
	cls = cpl_pyscan_nmap_get(defs, 0, name, (size_t)(dot - name));
	if (cls < 0 || f->scopes[cls].kind != CPL_PYSCOPE_CLASS)
		return -1;
	return cpl_pyscan_nmap_get(defs, cls, dot + 1, strlen(dot + 1));
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
	return cpl_pyscan_nmap_get(&f->index->assigns, ns, name, strlen(name));
}

int
cpl_pyscan_argdef_find(const struct cpl_pyfile *f, const char *dest)
{
	return cpl_pyscan_nmap_get(&f->index->argdefs, ARGS_NS, dest,
				   strlen(dest));
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

/* The call that spans expression e exactly, -1. */
int
cpl_pyscan_expr_call(const struct cpl_pyfile *f, const struct cpl_pyexpr *e)
{
	size_t i;

	for (i = cpl_pyscan_call_from(f, e->first);
	     i < f->ncalls && f->calls[i].open < e->last; i++)
		if (f->calls[i].first == e->first &&
		    f->calls[i].close + 1 == e->last)
			return (int)i;
	return -1;
}

struct cpl_pos
cpl_pyscan_pos(const struct cpl_pyfile *f, size_t tok)
{
	struct cpl_pos p = { f->path, 0, 0 };

	if (tok < f->ntoks) {
		const struct cpl_pytoken *t = cpl_pyfile_toks(f) + tok;

		p.line = t->line;
		p.column = t->column;
	}
	return p;
}
