/*
 * pyvalue_int.h — what the three parts of the value resolver share;
 * nothing but them includes it.  pyvalue.c owns the arithmetic of values
 * and the interface (pyvalue.h); pyvalue_expr.c reads an expression;
 * pyvalue_bind.c says what its names, calls, parameters and argparse
 * options stand for.  The parts call each other recursively: the reader
 * meets a name and asks the binder, which reads further expressions of
 * the same or a linked file, carrying a frame: the file and the call site
 * (if any) that binds the parameters of one def.
 *
 * Invariant: every recursion goes through enter(), which charges the
 * step budget and the depth limit, or, inside one expression (a
 * parenthesis, a prefix operator, not, **, a conditional or walrus
 * chain), through nest(), which charges the nesting limit of the whole
 * resolution; once any is spent every answer is UNKNOWN, so no input can
 * make a resolution slow or unbounded, or its stack deep.  Values
 * never own memory: strings are slices of a file's text, of an argv word
 * or of an environment value, all borrowed for the resolution.
 *
 * The cpl_pyvalue_* functions declared here are external only so that the
 * parts can link; they are not part of pyvalue.h's interface.
 *
 * May include: python/pyvalue.h (and through it python/pyscan.h,
 * text/pos.h) and the C library.
 */
#ifndef CPL_PYVALUE_INT_H
#define CPL_PYVALUE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "python/pyvalue.h"

#define MAX_DEPTH 32
#define MAX_STEPS 4000
/* Sub-expressions open at once in one resolution (over every expression
 * it reads): real code nests a few; a parenthesis costs the parser about
 * 5 KiB of stack (10 KiB under ASan), so this keeps a resolution well
 * under a thread's stack whatever the text. */
#define MAX_NEST 64
/* Re-exports followed from a package to the module that defines a name
 * (pkg/__init__.py → pkg/workers.py): real packages take one or two. */
#define MAX_REEXPORT 4

enum vkind {
	V_UNKNOWN,
	V_NUM,
	V_STR,
	V_NONE,
	V_HOST,
	V_NS,		/* an argparse namespace (parse_args result) */
};

/* What bounds a V_HOST value from above. */
enum vcap {
	CAP_NONE,	/* nothing: it grows with the node */
	CAP_KNOWN,	/* at most cap: min(8, os.cpu_count()) */
	CAP_SET,	/* at most a setting the text does not fix:
			 * min(cfg.workers, os.cpu_count()) */
};

/* A value while resolving. */
struct val {
	enum vkind kind;
	enum vcap capk;		/* V_HOST: its upper bound */
	double cap;		/* CAP_KNOWN: the bound */
	bool lok;		/* V_HOST: lo is a lower bound */
	double lo;
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
	int nest;		/* sub-expressions open (MAX_NEST) */
};

/* The file an expression is read in and the site binding one def. */
struct pv_frame {
	const struct cpl_pyfile *f;
	const struct cpl_pysite *site;
	int site_func;		/* the def site calls, -1 */
};

/* ---- the calls of a process by name ----------------------------------- */

/* The calls that go through an import to a def of one last name. */
struct callsites {
	struct cpl_pysite *v;	/* file and call; up unused */
	size_t n, cap;
};

/* Every call of a process's files that goes through an import, by the
 * last name of its remote def ("create_dataloaders"). */
struct cpl_pycallmap {
	struct cpl_strmap by_name;	/* name → struct callsites */
	struct callsites **all;		/* the values, owned */
	size_t nall, capall;
};

/* Builds the map over files[0, n); free with cpl_pyvalue_callmap_free. */
struct cpl_pycallmap *cpl_pyvalue_callmap_new(
	const struct cpl_pyfile *const *files, size_t n);
void cpl_pyvalue_callmap_free(struct cpl_pycallmap *m);	/* NULL-safe */

/* ---- values ----------------------------------------------------------- */

/* A value that cannot be read. */
static inline struct val
unknown(void)
{
	struct val v;

	memset(&v, 0, sizeof(v));
	return v;
}

/* A number from origin at pos. */
static inline struct val
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
static inline struct val
host(struct cpl_pos pos)
{
	struct val v = unknown();

	v.kind = V_HOST;
	v.origin = CPL_PYORIG_HOST;
	v.pos = pos;
	v.host = pos;
	return v;
}

/* ---- the budget ------------------------------------------------------- */

/* Charges one step and one level of depth; false when spent. */
static inline bool
enter(struct ctx *cx)
{
	if (++cx->steps > MAX_STEPS || cx->depth >= MAX_DEPTH)
		return false;
	cx->depth++;
	return true;
}

/* Returns the level of depth enter() took. */
static inline void
leave(struct ctx *cx)
{
	cx->depth--;
}

/* ---- lookups ---------------------------------------------------------- */

/* Token t's text is s; inline so that strlen of a literal folds. */
static inline bool
tok_is(const char *text, const struct cpl_pytoken *t, const char *s)
{
	size_t n = strlen(s);

	return t->len == n && memcmp(text + t->off, s, n) == 0;
}

/* The def enclosing scope (itself when a def), -1. */
static inline int
enclosing_def(const struct cpl_pyfile *f, int scope)
{
	while (scope > 0 && f->scopes[scope].kind != CPL_PYSCOPE_FUNC)
		scope = f->scopes[scope].parent;
	return scope > 0 ? scope : -1;
}

/* The environment of a resolution (never NULL). */
static inline const struct cpl_pyenv *
env_of(const struct ctx *cx)
{
	return cx->env;
}

/* ---- pyvalue.c: the arithmetic of values ------------------------------ */

/* Two values that may both reach one use. */
struct val cpl_pyvalue_combine(struct val a, struct val b);

/* A lower bound of v: a number's value, a HOST value's lo; false when
 * none is known. */
bool cpl_pyvalue_low(const struct val *v, double *lo);

/* min() (is_min) or max() of operands v[0, n), n >= 2; setting[i] says
 * that an UNKNOWN v[i] is a setting (an option, a config value), which
 * bounds a CPU count as a deliberate cap would, rather than an amount of
 * data (len(...)). */
struct val cpl_pyvalue_minmax(bool is_min, const struct val *v,
			      const bool *setting, size_t n);

/* Python's int()/float() of text s[0, n); 0 and *out, else -1. */
int cpl_pyvalue_parse_text(double *out, bool *isint, const char *s,
			   size_t n, bool want_int);

/* int(v), float(v) and friends on a value (how: "int", "math.floor" …). */
struct val cpl_pyvalue_convert(struct val v, const char *how,
			       struct cpl_pos pos);

/* Python truth of v; *known false when it cannot be told. */
bool cpl_pyvalue_truthy(const struct val *v, bool *known);

/* a op b for a binary operator op (as written). */
struct val cpl_pyvalue_binop(const char *op, struct val a, struct val b);

/* ---- pyvalue_expr.c: reading an expression ---------------------------- */

/* The bracket closing the one at token k of f (within end), end if none. */
size_t cpl_pyvalue_closing(const struct cpl_pyfile *f, size_t k,
			   size_t end);

/* The first top-level ',' in tokens [k, end) of f, end if none. */
size_t cpl_pyvalue_top_comma(const struct cpl_pyfile *f, size_t k,
			     size_t end);

/* The value of expression e read in frame fr. */
struct val cpl_pyvalue_eval_range(struct ctx *cx, const struct pv_frame *fr,
				  const struct cpl_pyexpr *e);

/* ---- pyvalue_bind.c: what names stand for ----------------------------- */

/* The value of name used at token use_tok of block use_block in scope. */
struct val cpl_pyvalue_eval_name(struct ctx *cx, const struct pv_frame *fr,
				 int scope, const char *name, size_t use_tok,
				 int use_block);

/* The value call ci of fr->f returns, where we know it. */
struct val cpl_pyvalue_eval_call(struct ctx *cx, const struct pv_frame *fr,
				 int ci);

/* self.X (name is "self.X") in a method: every assignment of it in the
 * class, and the class attribute X. */
struct val cpl_pyvalue_self_attr(struct ctx *cx, const struct pv_frame *fr,
				 int scope, const char *name);

/* The value of dest in the argparse definitions of g (or, failing that,
 * of any linked file): the command line's, else the default. */
struct val cpl_pyvalue_option(struct ctx *cx, const struct cpl_pyfile *g,
			      const char *dest);

/* Class.attr or module.Class.attr (dotted) read at use_tok of use_block
 * in scope; *is_class false when dotted names no class. */
struct val cpl_pyvalue_class_attr(struct ctx *cx, const struct pv_frame *fr,
				  int scope, const char *dotted,
				  size_t use_tok, int use_block,
				  bool *is_class);

/* The file a plain or from-import binding im of f stands for, NULL. */
const struct cpl_pyfile *cpl_pyvalue_module_of(struct ctx *cx,
					       const struct cpl_pyfile *f,
					       int im);

/* os.environ[name] / os.environ.get(name, d) / os.getenv(name, d);
 * dflt NULL: no default given (unset is None). */
struct val cpl_pyvalue_env_read(struct ctx *cx, struct val name,
				const struct val *dflt, struct cpl_pos pos);

#endif
