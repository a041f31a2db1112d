/*
 * pyvalue.c — value resolution over scanned Python (pyvalue.h): the
 * interface.  The arithmetic of values that every part shares is
 * pyvalue_ops.c.
 *
 * The resolver is three files around one private header, pyvalue_int.h
 * (the value type, the frame, the budget).  This one owns the
 * interface: each entry point starts a fresh
 * resolution with its own budget, reads one expression and publishes the
 * value as a struct cpl_pyval.  The per-pool resolvers (DataLoader
 * workers, set_num_threads counts, pool sizes, environment values) are
 * built on that.  Reading an expression is pyvalue_expr.c; what its names
 * stand for is pyvalue_bind.c; the linked code of a process, which joins
 * its files, is pyvalue_code.c.  A CPU count keeps an upper bound through
 * min() and the operators that preserve one (min(8, os.cpu_count()) // 2
 * is at most 4).
 *
 * Invariant: the arithmetic yields only numbers Python would: a division
 * by zero, a result past 9e15 or an operand that is not a number is
 * UNKNOWN, and an operand that depends on the CPU count makes the result
 * HOST.
 *
 * May include: python/pyvalue_int.h and the C library.
 */
#include "python/pyvalue_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
		out->capped = v->capk != CAP_NONE;
		out->cap = v->capk == CAP_KNOWN ?
			   (long)fmax(0, floor(fmin(v->cap, 9.0e15))) : -1;
		out->lo = v->lok ? (long)fmax(0, floor(fmin(v->lo, 9.0e15))) :
				   0;
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
	struct pv_frame fr;
	struct val v;

	ctx_init(&cx, f, env);
	fr.f = f;
	fr.site = site;
	fr.site_func = site ? enclosing_def(f, e->scope) : -1;
	v = cpl_pyvalue_eval_range(&cx, &fr, e);
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
	struct pv_frame fr = { f, NULL, -1 };
	struct val v;

	ctx_init(&cx, f, env);
	v = cpl_pyvalue_eval_range(&cx, &fr, &e->value);
	if (v.kind == V_STR)
		v = cpl_pyvalue_convert(v, "int", e->value.pos);
	publish(out, &v, e->value.pos);
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
