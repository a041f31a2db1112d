/*
 * pyvalue_bind.c — what the names and calls of an expression stand for,
 * for the value resolver (pyvalue_int.h).
 *
 * It owns the lookups that leave the expression being read: the
 * assignments of a name that reach its use (module, class and function
 * scope; tuple unpacking; augmented assignments; self.X of the same
 * class), parameters through their call sites (in the file and in the
 * linked files) or their defaults, the return values of local defs and of
 * defs in linked modules, the calls it knows (min max int float round abs
 * str math.*, os.getenv, CPU counts, parse_args), argparse options from
 * the command line or their defaults, environment reads through the env
 * callback, and names and attributes of linked modules.  Each reads
 * further expressions through pyvalue_expr.c in a frame and combines the
 * values that may reach one use.
 *
 * Invariant: every recursion charges the budget (enter()), and reading
 * the calls of another file costs steps by its size; one parameter
 * follows at most MAX_SITES call sites, past which it is UNKNOWN.
 *
 * May include: python/pyvalue_int.h and the C library.
 */
#include "python/pyvalue_int.h"

#include <stdlib.h>
#include <string.h>

#define MAX_SITES 32

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

/*
 * The def qual of linked module *g, following a package's re-exports
 * (`from .workers import get_num_workers` in its __init__.py) a few hops;
 * *g becomes the file the def is in.  -1 when none: an import cycle
 * spends the hops and stops.
 */
static int
remote_def(struct ctx *cx, const struct cpl_pyfile **g, const char *qual)
{
	const struct cpl_pyenv *env = env_of(cx);
	int hops, func, im;

	for (hops = 0; *g != NULL && hops <= MAX_REEXPORT; hops++) {
		const struct cpl_pyimport *m;

		if ((func = cpl_pyscan_func_find(*g, qual)) >= 0)
			return func;
		if (strchr(qual, '.') != NULL ||
		    (im = cpl_pyscan_binding(*g, 0, qual)) < 0)
			return -1;
		m = &(*g)->imports[im];
		if (m->name == NULL || strcmp(m->name, "*") == 0)
			return -1;
		qual = m->name;
		*g = env->module(env->ctx, *g, m->module, m->level);
	}
	return -1;
}

/*
 * The linked module that a star import of f (`from config import *`)
 * brings name from: one that defines, assigns or imports name at module
 * level (names with a leading underscore are not exported); NULL.  Python
 * allows star imports only at module level, before what reads them.
 */
static const struct cpl_pyfile *
star_module(struct ctx *cx, const struct cpl_pyfile *f, const char *name)
{
	const struct cpl_pyenv *env = env_of(cx);
	size_t i;

	if (env->module == NULL || name[0] == '_' || strchr(name, '.'))
		return NULL;
	for (i = 0; i < f->nimports; i++) {
		const struct cpl_pyimport *m = &f->imports[i];
		const struct cpl_pyfile *g;

		if (m->name == NULL || strcmp(m->name, "*") != 0 ||
		    m->scope != 0)
			continue;
		g = env->module(env->ctx, f, m->module, m->level);
		if (g != NULL && g != f &&
		    (cpl_pyscan_assign_last(g, 0, name) >= 0 ||
		     cpl_pyscan_func_find(g, name) >= 0 ||
		     cpl_pyscan_binding(g, 0, name) >= 0))
			return g;
	}
	return NULL;
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
	struct pv_frame fr = { g, NULL, -1 };
	struct val v = unknown();

	if (d->def.first >= d->def.last) {
		v.kind = V_NONE;
		v.origin = CPL_PYORIG_DEFAULT;
		v.pos = d->pos;
		return v;
	}
	v = cpl_pyvalue_eval_range(cx, &fr, &d->def);
	if (v.kind == V_STR && d->type && (strcmp(d->type, "int") == 0 ||
					   strcmp(d->type, "float") == 0))
		v = cpl_pyvalue_convert(v, d->type, d->def.pos);
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
	    cpl_pyvalue_parse_text(&num, &isint, text, strlen(text),
				   is_int) == 0)
		return number(num, isint, CPL_PYORIG_COMMAND, word->pos);
	if (is_int && env->word && env->word(env->ctx, text, &l) == 0)
		return number((double)l, true, CPL_PYORIG_COMMAND, word->pos);
	return v;
}

/* The value of dest in the argparse definitions of g (or, failing that,
 * of any linked file): the command line's, else the default. */
struct val
cpl_pyvalue_option(struct ctx *cx, const struct cpl_pyfile *g,
		   const char *dest)
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

/* Parameter p of def func bound at site (the call of func). */
static struct val
param_at(struct ctx *cx, const struct cpl_pyfile *f, int func, size_t p,
	 const struct cpl_pysite *site)
{
	const struct cpl_pycall *c = &site->file->calls[site->call];
	const struct cpl_pyparam *pp = &f->scopes[func].params[p];
	const struct cpl_pyarg *a;
	struct pv_frame fr;
	struct val v;
	bool spread;

	a = cpl_pyscan_call_arg(site->file, c, f, func, p, &spread);
	if (a) {
		fr.f = site->file;
		fr.site = site->up;
		fr.site_func = site->up ? enclosing_def(site->file, c->scope) :
					  -1;
		return cpl_pyvalue_eval_range(cx, &fr, &a->value);
	}
	if (spread || pp->def.first >= pp->def.last)
		return unknown();
	fr.f = f;
	fr.site = NULL;
	fr.site_func = -1;
	v = cpl_pyvalue_eval_range(cx, &fr, &pp->def);
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

	*acc = (*nsites)++ ? cpl_pyvalue_combine(*acc, v) : v;
}

/*
 * Parameter p of def func with no site given: every call of func in the
 * linked files binds it, else its default does.
 */
static struct val
param_value(struct ctx *cx, const struct pv_frame *fr, const struct cpl_pyfile *f,
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
	if (env->callmap && env->module) {
		const struct callsites *cs =
			cpl_strmap_get(&env->callmap->by_name, fn->name);

		for (i = 0; cs && i < cs->n && nsites <= MAX_SITES; i++) {
			const struct cpl_pyfile *h = cs->v[i].file;
			const char *qual;

			if (h == f)
				continue;	/* the callers above */
			if (++cx->steps > MAX_STEPS)
				return unknown();
			if (call_file(cx, h, &h->calls[cs->v[i].call],
				      &qual) != f ||
			    strcmp(qual, f->scopes[target].qualname) != 0)
				continue;
			site.file = h;
			site.call = cs->v[i].call;
			site.up = NULL;
			site_value(cx, f, func, p, &site, &acc, &nsites);
		}
	}
	for (k = 0; k < env->nfiles && nsites <= MAX_SITES; k++) {
		const struct cpl_pyfile *h = env->files[k];

		if (h == f || env->module == NULL || env->callmap)
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
		struct pv_frame df = { f, NULL, -1 };

		acc = cpl_pyvalue_eval_range(cx, &df, &pp->def);
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
	struct pv_frame fr = { f, site, func };
	struct val acc = unknown();
	int a = cpl_pyscan_assign_last(f, func, "return");
	bool have = false;

	/* A quota-aware helper: the count it falls back on runs only where
	 * no quota is set, and what it reads from the quota is unknown. */
	if (f->scopes[func].kind != CPL_PYSCOPE_FUNC ||
	    f->scopes[func].quota_reader)
		return unknown();
	if (a < 0) {
		acc.kind = V_NONE;
		return acc;
	}
	for (; a >= 0; a = f->assigns[a].prev) {
		struct val v = cpl_pyvalue_eval_range(cx, &fr,
						      &f->assigns[a].value);

		acc = have ? cpl_pyvalue_combine(acc, v) : v;
		have = true;
	}
	return acc;
}

/* os.environ[name] / os.environ.get(name, d) / os.getenv(name, d). */
struct val
cpl_pyvalue_env_read(struct ctx *cx, struct val name, const struct val *dflt,
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
arg_value(struct ctx *cx, const struct pv_frame *fr, const struct cpl_pycall *c,
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
			return cpl_pyvalue_eval_range(cx, fr,
						      &c->args[k].value);
		}
	}
	return unknown();
}

/* Expression e is a call of len(): an amount of data, not a setting. */
static bool
is_len(const struct cpl_pyfile *f, const struct cpl_pyexpr *e)
{
	const struct cpl_pytoken *toks = cpl_pyfile_toks(f);
	int c;

	if (e->last < e->first + 3 ||
	    !tok_is(f->text, &toks[e->first], "len") ||
	    cpl_pyvalue_closing(f, e->first + 1, e->last) != e->last - 1)
		return false;
	c = cpl_pyscan_call_at(f, e->first + 1);
	return c >= 0 && strcmp(f->calls[c].target, "len") == 0;
}

/*
 * min(a, b, ...) or max(...) of call c, also of one list or tuple
 * display (min([a, b])); a key= or default= keyword, or a star argument,
 * is not read.
 */
static struct val
minmax(struct ctx *cx, const struct pv_frame *fr, const struct cpl_pycall *c)
{
	const struct cpl_pyfile *f = fr->f;
	const struct cpl_pytoken *toks = cpl_pyfile_toks(f);
	struct cpl_pyexpr ops[16];
	struct val v[16];
	bool setting[16];
	size_t n = 0, i;

	for (i = 0; i < c->nargs; i++)
		if (c->args[i].keyword || c->args[i].star)
			return unknown();
	if (c->nargs == 1) {
		const struct cpl_pyexpr *e = &c->args[0].value;
		size_t k, end = e->last - 1;

		if (e->last < e->first + 2 ||
		    !(tok_is(f->text, &toks[e->first], "[") ||
		      tok_is(f->text, &toks[e->first], "(")) ||
		    cpl_pyvalue_closing(f, e->first, e->last) != end)
			return unknown();
		for (k = e->first + 1; k < end && n < CPL_ARRAY_LEN(ops);) {
			size_t comma = cpl_pyvalue_top_comma(f, k, end);

			ops[n] = *e;
			ops[n].first = k;
			ops[n].last = comma;
			while (ops[n].first < ops[n].last &&
			       (toks[ops[n].first].kind == CPL_PYTOK_NL ||
				toks[ops[n].first].kind ==
					CPL_PYTOK_COMMENT))
				ops[n].first++;
			if (ops[n].first < ops[n].last)
				n++;
			k = comma + 1;
		}
		if (k < end)
			return unknown();
	} else {
		for (i = 0; i < c->nargs && n < CPL_ARRAY_LEN(ops); i++)
			ops[n++] = c->args[i].value;
		if (i < c->nargs)
			return unknown();
	}
	if (n < 2)
		return unknown();
	for (i = 0; i < n; i++) {
		v[i] = cpl_pyvalue_eval_range(cx, fr, &ops[i]);
		setting[i] = !is_len(f, &ops[i]);
	}
	return cpl_pyvalue_minmax(c->target[1] == 'i', v, setting, n);
}

/* The value call ci returns, where we know it. */
struct val
cpl_pyvalue_eval_call(struct ctx *cx, const struct pv_frame *fr, int ci)
{
	static const char *const conv[] = {
		"int", "float", "round", "abs", "str", "math.floor",
		"math.ceil", "math.trunc",
	};
	const struct cpl_pyfile *f = fr->f;
	const struct cpl_pycall *c = &f->calls[ci];
	struct cpl_pysite site;
	struct val v = unknown();
	bool given;

	if (c->kind == CPL_PYCALL_CPU_COUNT) {
		/* The node has at least the CPUs the container requests;
		 * psutil may count physical cores. */
		v = host(c->pos);
		v.lok = true;
		v.lo = env_of(cx)->host_min > 1 &&
		       strcmp(c->target, "psutil.cpu_count") != 0 ?
		       (double)env_of(cx)->host_min : 1;
		return v;
	}
	if (c->kind == CPL_PYCALL_PARSE_ARGS) {
		v.kind = V_NS;
		v.ns = f;
		return v;
	}
	if (!enter(cx))
		return unknown();
	if (c->func < 0 && (strcmp(c->target, "min") == 0 ||
			    strcmp(c->target, "max") == 0)) {
		v = minmax(cx, fr, c);
	} else if (c->func < 0 && in_list(c->target, conv,
					   CPL_ARRAY_LEN(conv))) {
		if (c->nargs == 1)
			v = cpl_pyvalue_convert(arg_value(cx, fr, c, 0,
							  &given),
						c->target, c->pos);
	} else if (strcmp(c->target, "os.environ.get") == 0 ||
		   strcmp(c->target, "os.getenv") == 0) {
		struct val name = arg_value(cx, fr, c, 0, &given);
		struct val d = arg_value(cx, fr, c, 1, &given);

		v = cpl_pyvalue_env_read(cx, name, given ? &d : NULL, c->pos);
	} else if (c->func >= 0 &&
		   f->scopes[c->func].kind == CPL_PYSCOPE_FUNC) {
		site.file = f;
		site.call = (size_t)ci;
		site.up = fr->site && fr->site_func ==
			  enclosing_def(f, c->scope) ? fr->site : NULL;
		v = returns(cx, f, c->func, &site);
	} else if (c->import >= 0 && c->remote) {
		const char *qual;
		const struct cpl_pyfile *g = call_file(cx, f, c, &qual);
		int func = g ? remote_def(cx, &g, qual) : -1;

		if (func >= 0) {
			site.file = f;
			site.call = (size_t)ci;
			site.up = fr->site && fr->site_func ==
				  enclosing_def(f, c->scope) ? fr->site :
							      NULL;
			v = returns(cx, g, func, &site);
		}
	} else if (c->func < 0 && c->import < 0) {
		/* A def a star import brings: from utils import *. */
		const struct cpl_pyfile *g = star_module(cx, f, c->callee);
		int func = g ? remote_def(cx, &g, c->callee) : -1;

		if (func >= 0) {
			site.file = f;
			site.call = (size_t)ci;
			site.up = NULL;
			v = returns(cx, g, func, &site);
		}
	}
	leave(cx);
	return v;
}

/* ---- names ------------------------------------------------------------ */

/* The value assignment ai of fr->f gives its target. */
static struct val
eval_assign(struct ctx *cx, const struct pv_frame *fr, int ai)
{
	const struct cpl_pyfile *f = fr->f;
	const struct cpl_pytoken *toks = cpl_pyfile_toks(f);
	const struct cpl_pyassign *a = &f->assigns[ai];
	struct val v;

	if (a->opaque || !enter(cx))
		return unknown();
	if (a->index >= 0) {
		size_t first = a->value.first, last = a->value.last, k;
		int idx;

		if (first < last && tok_is(f->text, &toks[first],
						   "(") &&
		    cpl_pyvalue_closing(f, first, last) == last - 1) {
			first++;
			last--;
		}
		if (cpl_pyvalue_top_comma(f, first, last) < last) {
			struct cpl_pyexpr sub = a->value;

			for (k = first, idx = 0; idx < a->index && k < last;
			     idx++)
				k = cpl_pyvalue_top_comma(f, k, last) + 1;
			sub.first = k;
			sub.last = k < last ?
				   cpl_pyvalue_top_comma(f, k, last) : k;
			v = sub.first < sub.last ?
			    cpl_pyvalue_eval_range(cx, fr, &sub) : unknown();
		} else {
			v = cpl_pyvalue_eval_range(cx, fr, &a->value);
			if (!(v.kind == V_NS && a->index == 0))
				v = unknown();
		}
	} else {
		v = cpl_pyvalue_eval_range(cx, fr, &a->value);
	}
	if (strcmp(a->op, "=") != 0 && v.kind != V_UNKNOWN) {
		char op[4];
		size_t n = strlen(a->op) - 1;
		struct val old;

		memcpy(op, a->op, n);
		op[n] = '\0';
		old = cpl_pyvalue_eval_name(cx, fr, a->scope, a->name, a->tok,
					    a->block);
		v = cpl_pyvalue_binop(op, old, v);
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
reach(struct ctx *cx, const struct pv_frame *fr, int s, int a, int p,
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
		acc = have ? cpl_pyvalue_combine(acc, v) : v;
		have = true;
		if (use_block < 0 ||
		    cpl_pyscan_block_within(f, use_block, as->block))
			return acc;
	}
	if (p >= 0) {
		v = param_value(cx, fr, f, s, (size_t)p);
		acc = have ? cpl_pyvalue_combine(acc, v) : v;
		have = true;
	}
	return have ? acc : unknown();
}

/* The file a plain or from-import binding of a module stands for. */
const struct cpl_pyfile *
cpl_pyvalue_module_of(struct ctx *cx, const struct cpl_pyfile *f, int im)
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
	struct pv_frame fr;

	if (m->name == NULL || env->module == NULL)
		return unknown();
	g = env->module(env->ctx, f, m->module, m->level);
	if (g == NULL)
		return unknown();
	fr.f = g;
	fr.site = NULL;
	fr.site_func = -1;
	return cpl_pyvalue_eval_name(cx, &fr, 0, m->name, (size_t)-1, 0);
}

/* self.X in a method of class cls: every assignment of it in the class,
 * and the class attribute X. */
struct val
cpl_pyvalue_self_attr(struct ctx *cx, const struct pv_frame *fr, int scope,
		      const char *name)
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
		acc = have ? cpl_pyvalue_combine(acc, v) : v;
		have = true;
	}
	for (a = cpl_pyscan_assign_last(f, cls, name + 5); a >= 0;
	     a = f->assigns[a].prev) {
		v = eval_assign(cx, fr, a);
		acc = have ? cpl_pyvalue_combine(acc, v) : v;
		have = true;
	}
	leave(cx);
	return acc;
}

/* The class that name (Class, or module.Class through a plain import)
 * stands for in scope of f: *g receives its file; -1 when none. */
static int
class_named(struct ctx *cx, const struct cpl_pyfile *f, int scope,
	    const char *name, const struct cpl_pyfile **g)
{
	const struct cpl_pyenv *env = env_of(cx);
	const char *dot = strchr(name, '.');
	char *first = cpl_xstrndup(name, dot ? (size_t)(dot - name) :
						strlen(name));
	int im = cpl_pyscan_binding(f, scope, first), c = -1;

	*g = f;
	if (dot == NULL && im < 0) {
		c = cpl_pyscan_func_find(f, name);
	} else if (im >= 0 && env->module != NULL) {
		const struct cpl_pyimport *m = &f->imports[im];

		if (dot == NULL && m->name != NULL) {
			*g = env->module(env->ctx, f, m->module, m->level);
			c = *g ? remote_def(cx, g, m->name) : -1;
		} else if (dot != NULL && strchr(dot + 1, '.') == NULL) {
			*g = cpl_pyvalue_module_of(cx, f, im);
			c = *g ? remote_def(cx, g, dot + 1) : -1;
		}
	}
	free(first);
	if (c < 0 || *g == NULL || (*g)->scopes[c].kind != CPL_PYSCOPE_CLASS ||
	    (*g)->scopes[c].parent != 0)
		return -1;
	return c;
}

/*
 * Class.attr or module.Class.attr (dotted) read at use_tok of use_block
 * in scope: the class body's assignments of attr (it runs whole before
 * any use outside it).  An assignment of the dotted name itself
 * (CFG.workers = 2) in the scopes the use sees wins in code order; one
 * anywhere else in the file leaves the value unknown.  *is_class false
 * when dotted names no class.
 */
struct val
cpl_pyvalue_class_attr(struct ctx *cx, const struct pv_frame *fr, int scope,
		       const char *dotted, size_t use_tok, int use_block,
		       bool *is_class)
{
	const struct cpl_pyfile *f = fr->f, *g;
	const char *attr = strrchr(dotted, '.');
	char *cname;
	struct pv_frame gf;
	size_t i;
	int s, cls, a;

	*is_class = false;
	if (attr == NULL)
		return unknown();
	cname = cpl_xstrndup(dotted, (size_t)(attr - dotted));
	cls = class_named(cx, f, scope, cname, &g);
	free(cname);
	if (cls < 0)
		return unknown();
	*is_class = true;
	/* Assignments of the dotted name the use sees: before it in its
	 * own scope, anywhere in an enclosing one. */
	for (s = scope; s >= 0; s = f->scopes[s].parent)
		for (a = cpl_pyscan_assign_last(f, s, dotted); a >= 0;
		     a = f->assigns[a].prev)
			if (s != scope || f->assigns[a].tok < use_tok)
				return cpl_pyvalue_eval_name(cx, fr, scope,
							     dotted, use_tok,
							     use_block);
	/* Set in a def the use does not run in: no guess. */
	for (i = 0; i < f->nscopes; i++) {
		int in_chain = 0;

		for (s = scope; s >= 0 && !in_chain; s = f->scopes[s].parent)
			in_chain = s == (int)i;
		if (!in_chain && cpl_pyscan_assign_last(f, (int)i, dotted) >= 0)
			return unknown();
	}
	a = cpl_pyscan_assign_last(g, cls, attr + 1);
	if (a < 0 || !enter(cx))
		return unknown();
	gf.f = g;
	gf.site = NULL;
	gf.site_func = -1;
	{
		struct val v = reach(cx, &gf, cls, a, -1, (size_t)-1,
				     g->scopes[cls].block);

		leave(cx);
		return v;
	}
}

/* The value of name used at token use_tok of block use_block in scope. */
struct val
cpl_pyvalue_eval_name(struct ctx *cx, const struct pv_frame *fr, int scope,
		      const char *name, size_t use_tok, int use_block)
{
	const struct cpl_pyfile *f = fr->f;
	struct val v = unknown();
	bool first = true, found = false;
	int s = scope, im;

	if (cpl_str_starts(name, "self."))
		return cpl_pyvalue_self_attr(cx, fr, scope, name);
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
	if (!found && (im = cpl_pyscan_binding(f, scope, name)) >= 0) {
		v = imported(cx, f, im);
	} else if (!found) {
		const struct cpl_pyfile *g = star_module(cx, f, name);
		struct pv_frame gf = { g, NULL, -1 };

		if (g != NULL)
			v = cpl_pyvalue_eval_name(cx, &gf, 0, name,
						  (size_t)-1, 0);
	}
	leave(cx);
	return v;
}
