/*
 * pools.c — the native pools of a training container (pools.h): which
 * libraries its process uses, read from the linked code's imports and
 * calls, and what sizes each pool: the code (a call or an attribute it
 * sets, or os.environ it writes), which runs after the process starts
 * and so wins, else the container's environment.
 *
 * The invariant: a size is what the text says, never a guess.  A pool
 * the process uses whose size nothing sets is UNSET; host_default says
 * whether the library then sizes it to the node (ONNX Runtime,
 * TensorFlow, XLA without GPUs, Rayon in forked loader workers).
 * OpenBLAS and numexpr left unset follow OMP_NUM_THREADS, which CPU201
 * and CPU202 judge; torch's inter-op pool left unset is mostly idle in
 * eager training; neither is host_default.
 *
 * Owns nothing: every pointer in a pool borrows from c or its code.
 */
#include "model/pools.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "python/pyscan.h"
#include "python/pyvalue.h"
#include "util.h"

/* What each kind is called and the variable that sizes it. */
static const struct {
	const char *name;
	const char *env;
} kinds[CPL_POOL_NKINDS] = {
	[CPL_POOL_OPENBLAS] = { "OpenBLAS", "OPENBLAS_NUM_THREADS" },
	[CPL_POOL_NUMEXPR] = { "numexpr", "NUMEXPR_NUM_THREADS" },
	[CPL_POOL_RAYON] = { "tokenizers (Rayon)", "RAYON_NUM_THREADS" },
	[CPL_POOL_ORT] = { "ONNX Runtime", NULL },
	[CPL_POOL_TF] = { "TensorFlow", "TF_NUM_INTRAOP_THREADS" },
	[CPL_POOL_XLA] = { "JAX/XLA", "XLA_FLAGS" },
	[CPL_POOL_INTEROP] = { "torch inter-op", NULL },
	[CPL_POOL_INDUCTOR] = { "Inductor compile workers",
				"TORCHINDUCTOR_COMPILE_THREADS" },
};

/* Whether dotted name s is module m or inside it ("jax.numpy" in jax). */
static bool
in_module(const char *s, const char *m)
{
	size_t n = strlen(m);

	return s != NULL && strncmp(s, m, n) == 0 &&
	       (s[n] == '\0' || s[n] == '.');
}

/* A call's name through the imports, else as written. */
static const char *
call_name(const struct cpl_pycall *k)
{
	return k->target ? k->target : k->callee;
}

static void
set_amount(struct cpl_amount *a, enum cpl_amount_state st, long n,
	   const struct cpl_pos *pos, const char *fmt, ...) CPL_PRINTF(5, 6);

static void
set_amount(struct cpl_amount *a, enum cpl_amount_state st, long n,
	   const struct cpl_pos *pos, const char *fmt, ...)
{
	va_list ap;

	memset(a, 0, sizeof(*a));
	a->state = st;
	a->n = n;
	if (pos)
		a->pos = *pos;
	va_start(ap, fmt);
	cpl_vformat(a->how, sizeof(a->how), fmt, ap);
	va_end(ap);
}

/* A resolved code value as the size of p: how names the setting. */
static void
size_from_value(struct cpl_pool *p, const struct cpl_pyval *v,
		const struct cpl_pos *at, const char *how)
{
	cpl_format(p->setter, sizeof(p->setter), "the argument of %s", how);
	if (v->kind == CPL_PYVAL_KNOWN && v->value >= 0)
		set_amount(&p->size, CPL_AMT_KNOWN, v->value, at, "%s(%ld)",
			   how, v->value);
	else if (v->kind == CPL_PYVAL_HOST)
		set_amount(&p->size, CPL_AMT_HOST, 1, at, "%s(a CPU count)",
			   how);
	else
		set_amount(&p->size, CPL_AMT_UNKNOWN, 1, at,
			   "%s (value unknown)", how);
}

/* The first positional argument of k, or keyword kw; NULL when absent. */
static const struct cpl_pyexpr *
arg_of(const struct cpl_pycall *k, const char *kw)
{
	size_t i;

	for (i = 0; i < k->nargs; i++)
		if (k->args[i].star == 0 &&
		    (k->args[i].keyword == NULL ? i == 0 :
		     kw != NULL && strcmp(k->args[i].keyword, kw) == 0))
			return &k->args[i].value;
	return NULL;
}

/* The size a call sets: arg (or keyword kw) of call k in f. */
static void
size_from_call(struct cpl_pool *p, const struct cpl_pyfile *f,
	       const struct cpl_pycall *k, const char *kw)
{
	const struct cpl_pyexpr *e = arg_of(k, kw);
	struct cpl_pyval v;

	memset(&v, 0, sizeof(v));
	if (e != NULL && e->first < e->last)
		cpl_pyvalue_expr(&v, f, e, NULL, NULL);
	size_from_value(p, &v, &k->pos, k->callee);
}

/* A scope's roles in this process (the process's own when it has them). */
static unsigned
roles_of(const struct cpl_code *code, size_t fi, int scope)
{
	const struct cpl_pyfile *f = code->files[fi];

	if (scope < 0 || (size_t)scope >= f->nscopes)
		return 0;
	if (code->roles != NULL && code->roles[fi] != NULL)
		return code->roles[fi][scope];
	return f->scopes[scope].roles;
}

/* Whether callee names a tokenizer: "self.tokenizer", "tok.encode" of
 * AutoTokenizer... (a word with "tokeniz" in it, any case). */
static bool
names_tokenizer(const char *callee)
{
	static const char word[] = "tokeniz";
	size_t i, j;

	for (i = 0; callee != NULL && callee[i] != '\0'; i++) {
		for (j = 0; word[j] != '\0' && callee[i + j] != '\0' &&
			    (callee[i + j] | 0x20) == word[j]; j++)
			;
		if (word[j] == '\0')
			return true;
	}
	return false;
}

/* TensorFlow calls that start no pool: configuration, logging, I/O. */
static bool
tf_busy(const char *name)
{
	static const char *const idle[] = {
		"tensorflow.config", "tensorflow.summary", "tensorflow.io",
		"tensorflow.get_logger", "tensorflow.compat.v1.logging",
		"tensorflow.random.set_seed", "tensorflow.debugging",
		"tensorflow.test", "tensorflow.autograph",
	};
	size_t i;

	if (!in_module(name, "tensorflow") || strcmp(name, "tensorflow") == 0)
		return false;
	for (i = 0; i < CPL_ARRAY_LEN(idle); i++)
		if (in_module(name, idle[i]))
			return false;
	return true;
}

/* numpy and scipy calls that run BLAS kernels (OpenBLAS in pip's
 * wheels): products, linear algebra, contractions. */
static bool
blas_call(const char *name)
{
	static const char *const fns[] = {
		"numpy.dot", "numpy.matmul", "numpy.einsum", "numpy.inner",
		"numpy.tensordot", "numpy.vdot", "numpy.outer",
	};
	size_t i;

	/* norm reduces with ufuncs, not BLAS's threads. */
	if ((in_module(name, "numpy.linalg") ||
	     in_module(name, "scipy.linalg")) &&
	    !cpl_str_ends(name, ".norm"))
		return true;
	for (i = 0; i < CPL_ARRAY_LEN(fns); i++)
		if (cpl_str_eq(name, fns[i]))
			return true;
	return false;
}

/* Marks p used at call k (the first use wins, a worker's over a rank's
 * for Rayon). */
static void
use(struct cpl_pool *p, const struct cpl_pycall *k)
{
	if (p->use.file == NULL) {
		p->use = k->pos;
		p->use_how = k->callee;
	}
	p->active = true;
}

/* The pools call k (named n through the imports) of f uses or sizes, by
 * its name; whether it named one. */
static bool
by_name(struct cpl_pool *p, const struct cpl_code *code, size_t fi,
	const struct cpl_pycall *k, const char *n)
{
	const struct cpl_pyfile *f = code->files[fi];

	if (cpl_str_eq(n, "threadpoolctl.threadpool_limits")) {
		use(&p[CPL_POOL_OPENBLAS], k);
		size_from_call(&p[CPL_POOL_OPENBLAS], f, k, "limits");
	} else if (cpl_str_eq(n, "numexpr.set_num_threads")) {
		use(&p[CPL_POOL_NUMEXPR], k);
		size_from_call(&p[CPL_POOL_NUMEXPR], f, k, NULL);
	} else if (in_module(n, "numexpr")) {
		if (roles_of(code, fi, k->scope) & CPL_PYROLE_PIPELINE)
			p[CPL_POOL_NUMEXPR].in_workers = true;
		use(&p[CPL_POOL_NUMEXPR], k);
	} else if (in_module(n, "onnxruntime") &&
		   cpl_str_ends(n, "InferenceSession")) {
		use(&p[CPL_POOL_ORT], k);
	} else if (cpl_str_eq(n, "tensorflow.config.threading."
			      "set_intra_op_parallelism_threads")) {
		use(&p[CPL_POOL_TF], k);
		size_from_call(&p[CPL_POOL_TF], f, k, NULL);
	} else if (tf_busy(n)) {
		use(&p[CPL_POOL_TF], k);
	} else if (in_module(n, "jax") && !in_module(n, "jax.config")) {
		use(&p[CPL_POOL_XLA], k);
	} else if (cpl_str_eq(n, "torch.compile")) {
		use(&p[CPL_POOL_INDUCTOR], k);
	} else if (blas_call(n)) {
		struct cpl_pool *b = &p[CPL_POOL_OPENBLAS];

		/* In __getitem__ or a transform it runs in every loader
		 * worker: that use is the one to name. */
		if ((roles_of(code, fi, k->scope) & CPL_PYROLE_PIPELINE) &&
		    !b->in_workers) {
			b->in_workers = true;
			b->use.file = NULL;
		}
		use(b, k);
	} else {
		return false;
	}
	return true;
}

/* Whether n starts with the literal prefix p. */
#define HAS_PREFIX(n, p) (strncmp((n), (p), sizeof(p) - 1) == 0)

/* Whether by_name() may know call name n: every name it knows starts
 * with threadpoolctl., numexpr, numpy., onnxruntime, tensorflow, jax or
 * scipy.linalg, or is torch.compile (a prefix is enough here: by_name()
 * makes the exact tests).  Most calls of a training script (torch.*,
 * self.*, os.*, json.*, print) need no test there: on a tree of 2,000
 * real-shaped projects the first letter alone let a tenth of all calls
 * through to by_name()'s twenty string tests, 6% of a run. */
static bool
may_name_pool(const char *n)
{
	if (n == NULL)
		return false;
	switch (n[0]) {
	case 'n':
		return HAS_PREFIX(n, "numexpr") || HAS_PREFIX(n, "numpy.");
	case 'o':
		return HAS_PREFIX(n, "onnxruntime");
	case 'j':
		return HAS_PREFIX(n, "jax");
	case 's':
		return HAS_PREFIX(n, "scipy.linalg");
	case 't':
		return HAS_PREFIX(n, "threadpoolctl.") ||
		       HAS_PREFIX(n, "tensorflow") ||
		       strcmp(n, "torch.compile") == 0;
	default:
		return false;
	}
}

bool
cpl_pools_pipeline_computes(const char **how, struct cpl_pos *pos,
			    const struct cpl_code *code)
{
	size_t fi, i;

	for (fi = 0; code != NULL && fi < code->nfiles; fi++) {
		const struct cpl_pyfile *f = code->files[fi];

		for (i = 0; i < f->ncalls; i++) {
			const struct cpl_pycall *k = &f->calls[i];
			const char *n = call_name(k);

			if (!may_name_pool(n) ||
			    !(blas_call(n) || (in_module(n, "numexpr") &&
			      !cpl_str_eq(n, "numexpr.set_num_threads"))) ||
			    !(roles_of(code, fi, k->scope) &
			      CPL_PYROLE_PIPELINE))
				continue;
			*how = k->callee;
			*pos = k->pos;
			pos->file = f->path;
			return true;
		}
	}
	return false;
}

/* What one file of the process does with the pools. */
static void
scan_file(struct cpl_pools *ps, const struct cpl_code *code, size_t fi,
	  bool hf)
{
	const struct cpl_pyfile *f = code->files[fi];
	struct cpl_pool *p = ps->p;
	struct cpl_pyval v;
	size_t i;

	for (i = 0; i < f->ncalls; i++) {
		const struct cpl_pycall *k = &f->calls[i];
		const char *n = call_name(k);
		bool named = may_name_pool(n);

		if (cpl_str_ends(k->callee, "openblas_set_num_threads")) {
			use(&p[CPL_POOL_OPENBLAS], k);
			size_from_call(&p[CPL_POOL_OPENBLAS], f, k, NULL);
		} else if (named && by_name(p, code, fi, k, n)) {
			/* used or sized there */
		} else if (hf && names_tokenizer(k->callee)) {
			bool worker = roles_of(code, fi, k->scope) &
				      CPL_PYROLE_PIPELINE;

			/* A use in the workers is the one to name. */
			if (worker && !p[CPL_POOL_RAYON].in_workers)
				p[CPL_POOL_RAYON].use.file = NULL;
			p[CPL_POOL_RAYON].in_workers |= worker;
			use(&p[CPL_POOL_RAYON], k);
		}
	}
	/* SessionOptions().intra_op_num_threads = N */
	for (i = 0; i < f->nassigns; i++) {
		const struct cpl_pyassign *a = &f->assigns[i];

		if (a->opaque || !cpl_str_ends(a->name,
					       ".intra_op_num_threads"))
			continue;
		memset(&v, 0, sizeof(v));
		cpl_pyvalue_expr(&v, f, &a->value, NULL, NULL);
		size_from_value(&p[CPL_POOL_ORT], &v, &a->pos, a->name);
		cpl_format(p[CPL_POOL_ORT].setter,
			   sizeof(p[CPL_POOL_ORT].setter), "%s", a->name);
		/* "x.intra_op_num_threads(4)" reads oddly: the value alone. */
		if (v.kind == CPL_PYVAL_KNOWN)
			cpl_format(p[CPL_POOL_ORT].size.how,
				   sizeof(p[CPL_POOL_ORT].size.how),
				   "%s = %ld", a->name, v.value);
	}
	for (i = 0; i < f->nthreads; i++) {
		if (f->threads[i].kind != CPL_PYTHREADS_INTEROP ||
		    f->threads[i].in_worker_init)
			continue;
		memset(&v, 0, sizeof(v));
		cpl_pyvalue_threads(&v, f, i, NULL, NULL);
		p[CPL_POOL_INTEROP].active = true;
		p[CPL_POOL_INTEROP].use = f->threads[i].pos;
		size_from_value(&p[CPL_POOL_INTEROP], &v, &f->threads[i].pos,
				"torch.set_num_interop_threads");
	}
	/* os.environ["OPENBLAS_NUM_THREADS"] = "1" and the like. */
	for (i = 0; i < f->nenvsets; i++) {
		const struct cpl_pyenvset *s = &f->envsets[i];
		size_t k;

		for (k = 0; k < CPL_POOL_NKINDS; k++) {
			if (!cpl_str_eq(s->name, kinds[k].env) &&
			    !(k == CPL_POOL_RAYON && cpl_str_eq(s->name,
				"TOKENIZERS_PARALLELISM")))
				continue;
			memset(&v, 0, sizeof(v));
			cpl_pyvalue_envset(&v, f, i, NULL);
			if (k == CPL_POOL_RAYON && strcmp(s->name,
			    "TOKENIZERS_PARALLELISM") == 0)
				/* A string: set in code, whatever it says. */
				set_amount(&p[k].size, CPL_AMT_UNKNOWN, 1,
					   &s->pos, "os.environ[\"%s\"]",
					   s->name);
			else
				size_from_value(&p[k], &v, &s->pos,
						"os.environ");
			cpl_format(p[k].setter, sizeof(p[k].setter),
				   "os.environ[\"%s\"]", s->name);
		}
	}
}

/* Whether any file of code imports module m (or a module inside it). */
static bool
code_imports(const struct cpl_code *code, const char *m)
{
	size_t i, j;

	for (i = 0; i < code->nfiles; i++)
		for (j = 0; j < code->files[i]->nimports; j++)
			if (code->files[i]->imports[j].level == 0 &&
			    in_module(code->files[i]->imports[j].module, m))
				return true;
	return false;
}

/* "false", "0", "off", "no": TOKENIZERS_PARALLELISM turned off. */
static bool
falsy(const char *v)
{
	return v != NULL && (strcasecmp(v, "false") == 0 ||
			     strcmp(v, "0") == 0 ||
			     strcasecmp(v, "off") == 0 ||
			     strcasecmp(v, "no") == 0);
}

/* XLA_FLAGS: the eigen pool off, or intra_op_parallelism_threads=N. */
static void
xla_flags(struct cpl_pool *p, const struct cpl_env *e)
{
	const char *s;
	char *end;
	long n;

	if (e->value == NULL) {
		set_amount(&p->size, CPL_AMT_UNKNOWN, 1, &e->pos,
			   "XLA_FLAGS (value unknown)");
		return;
	}
	if (strstr(e->value, "xla_cpu_multi_thread_eigen=false") != NULL) {
		p->off = true;
		set_amount(&p->size, CPL_AMT_KNOWN, 1, &e->pos,
			   "XLA_FLAGS=--xla_cpu_multi_thread_eigen=false");
		return;
	}
	s = strstr(e->value, "intra_op_parallelism_threads=");
	n = s != NULL ? strtol(s + 29, &end, 10) : -1;
	if (s != NULL && end != s + 29 && n >= 0) {
		set_amount(&p->size, CPL_AMT_KNOWN, n, &e->pos,
			   "XLA_FLAGS intra_op_parallelism_threads=%ld", n);
		return;
	}
	/* Flags that leave the CPU pool alone. */
}

/* The environment's sizes: what the code does not set. */
static void
from_env(struct cpl_pools *ps, const struct cpl_container *c)
{
	const struct cpl_env *e;
	struct cpl_amount a;
	size_t k;

	for (k = 0; k < CPL_POOL_NKINDS; k++) {
		struct cpl_pool *p = &ps->p[k];

		if (p->size.state != CPL_AMT_UNSET || kinds[k].env == NULL)
			continue;
		if (k == CPL_POOL_XLA) {
			e = cpl_container_env_effective(c, "XLA_FLAGS");
			if (e != NULL)
				xla_flags(p, e);
			continue;
		}
		cpl_budget_env_count(&a, c, kinds[k].env);
		if (a.state != CPL_AMT_UNSET) {
			p->size = a;
			cpl_format(p->setter, sizeof(p->setter), "%s",
				   kinds[k].env);
		}
	}
	/* numexpr with neither NUMEXPR_NUM_THREADS nor OMP_NUM_THREADS
	 * starts NUMEXPR_MAX_THREADS threads when that is set. */
	if (ps->p[CPL_POOL_NUMEXPR].size.state == CPL_AMT_UNSET &&
	    cpl_container_env_effective(c, "OMP_NUM_THREADS") == NULL) {
		cpl_budget_env_count(&a, c, "NUMEXPR_MAX_THREADS");
		if (a.state != CPL_AMT_UNSET) {
			ps->p[CPL_POOL_NUMEXPR].size = a;
			cpl_format(ps->p[CPL_POOL_NUMEXPR].setter,
				   sizeof(ps->p[CPL_POOL_NUMEXPR].setter),
				   "NUMEXPR_NUM_THREADS");
		}
	}
	/* TOKENIZERS_PARALLELISM=false: one thread, whatever Rayon says. */
	e = cpl_container_env_effective(c, "TOKENIZERS_PARALLELISM");
	if (e != NULL && ps->p[CPL_POOL_RAYON].size.state == CPL_AMT_UNSET) {
		if (falsy(e->value)) {
			ps->p[CPL_POOL_RAYON].off = true;
			set_amount(&ps->p[CPL_POOL_RAYON].size, CPL_AMT_KNOWN,
				   1, &e->pos, "TOKENIZERS_PARALLELISM=%s",
				   e->value);
		} else {
			set_amount(&ps->p[CPL_POOL_RAYON].size,
				   CPL_AMT_UNKNOWN, 1, &e->pos,
				   "TOKENIZERS_PARALLELISM=%s",
				   e->value ? e->value : "(unknown)");
		}
	}
}

void
cpl_budget_pools(struct cpl_pools *out, const struct cpl_workload *w,
		 const struct cpl_container *c)
{
	const struct cpl_code *code = c->code;
	size_t k, i;
	bool hf;

	(void)w;
	if (c->pools != NULL) {
		*out = *c->pools;
		return;
	}
	memset(out, 0, sizeof(*out));
	for (k = 0; k < CPL_POOL_NKINDS; k++) {
		out->p[k].kind = (enum cpl_pool_kind)k;
		out->p[k].name = kinds[k].name;
		out->p[k].env = kinds[k].env;
	}
	if (code != NULL) {
		hf = code_imports(code, "transformers") ||
		     code_imports(code, "tokenizers");
		for (i = 0; i < code->nfiles; i++)
			scan_file(out, code, i, hf);
		/* numpy's or scipy's BLAS: OpenBLAS in pip wheels. */
		if (code_imports(code, "numpy") || code_imports(code, "scipy"))
			out->p[CPL_POOL_OPENBLAS].active = true;
	}
	from_env(out, c);
	for (k = 0; k < CPL_POOL_NKINDS; k++) {
		struct cpl_pool *p = &out->p[k];

		/* 0 asks ONNX Runtime, TensorFlow and Rayon for their
		 * default: the node's cores. */
		if (p->size.state == CPL_AMT_KNOWN && p->size.n == 0 &&
		    (k == CPL_POOL_ORT || k == CPL_POOL_TF ||
		     k == CPL_POOL_RAYON))
			memset(&p->size, 0, sizeof(p->size));

		/* With no code to read, a size the env sets is the
		 * evidence of the pool. */
		if (code == NULL && p->size.state == CPL_AMT_KNOWN &&
		    p->size.n > 1 && k != CPL_POOL_INTEROP)
			p->active = true;
		if (p->active && !p->off &&
		    p->size.state == CPL_AMT_UNKNOWN)
			p->unread = true;
		if (!p->active || p->off || p->size.state != CPL_AMT_UNSET)
			continue;
		switch (p->kind) {
		case CPL_POOL_ORT:
		case CPL_POOL_TF:
			p->host_default = true;
			break;
		case CPL_POOL_XLA:
			p->host_default = c->gpus <= 0;
			break;
		case CPL_POOL_RAYON:
			p->host_default = p->in_workers;
			p->unread = !p->in_workers;
			break;
		case CPL_POOL_INDUCTOR:
			p->unread = true;
			break;
		case CPL_POOL_NUMEXPR:
			p->unread = cpl_container_env_effective(c,
					"OMP_NUM_THREADS") == NULL;
			break;
		default:
			break;
		}
	}
}

void
cpl_pools_keep(const struct cpl_workload *w, struct cpl_container *c)
{
	/* CPU202, CPU306, CPU401 and the budget entry ask for the same
	 * pools: read once, as the facts are (budget.h). */
	if (c->pools == NULL) {
		struct cpl_pools *ps = cpl_xmalloc(sizeof(*ps));

		cpl_budget_pools(ps, w, c);
		c->pools = ps;
	}
}

void
cpl_pools_forget(struct cpl_container *c)
{
	free(c->pools);
	c->pools = NULL;
}

long
cpl_pool_extra(const struct cpl_pool *p)
{
	if (!p->active || p->off || p->kind == CPL_POOL_INDUCTOR ||
	    p->size.state != CPL_AMT_KNOWN || p->size.n <= 1)
		return 0;
	return p->size.n - 1;
}

void
cpl_pools_extra(long *rank, long *worker, const struct cpl_pools *ps)
{
	size_t k;

	*rank = 0;
	*worker = 0;
	for (k = 0; k < CPL_POOL_NKINDS; k++) {
		long n = cpl_pool_extra(&ps->p[k]);

		if (ps->p[k].in_workers)
			*worker = cpl_sat_add(*worker, n);
		else
			*rank = cpl_sat_add(*rank, n);
	}
}

long
cpl_pools_busy(const struct cpl_pools *ps, long threads, long workers)
{
	long xr, xw;

	cpl_pools_extra(&xr, &xw, ps);
	if (workers <= 0)
		return cpl_sat_add(threads, cpl_sat_add(xr, xw));
	return cpl_sat_add(cpl_sat_add(threads, xr),
			   cpl_sat_mul(workers, cpl_sat_add(1, xw)));
}

/* Whether pool p counts in the workers, with workers of them. */
static bool
worker_side(const struct cpl_pool *p, long workers)
{
	return p->in_workers && workers > 0;
}

/* Whether p is one the shares are split between: used, not off, not
 * Inductor's (it runs before the steps). */
static bool
shared(const struct cpl_pool *p)
{
	return p->active && !p->off && p->kind != CPL_POOL_INDUCTOR;
}

size_t
cpl_pools_vars(const char *const **out)
{
	static const char *const vars[CPL_BUDGET_POOL_VARS] = {
		"OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS",
		"RAYON_NUM_THREADS", "TF_NUM_INTRAOP_THREADS",
	};

	*out = vars;
	return CPL_ARRAY_LEN(vars);
}

long
cpl_pools_share_n(bool in_workers, long in_rank, long in_workers_n,
		  long per_rank, long threads, long workers)
{
	long left, each, busy_w = 1, kr = in_rank, kw = in_workers_n;

	if (workers < 0 || per_rank < 1)
		return 1;
	if (threads < 1)
		threads = 1;
	/* With no workers the pipeline runs in the rank. */
	if (workers == 0) {
		kr += kw;
		kw = 0;
		in_workers = false;
	}
	/* Each worker: floor((B - T) / W) CPUs, its own thread first. */
	each = workers > 0 && per_rank > threads ?
	       (per_rank - threads) / workers : 0;
	if (each < 1)
		each = 1;
	if (kw > 0) {
		long w_share = 1 + (each - 1) / kw;

		if (in_workers)
			return w_share;
		busy_w = 1 + kw * (w_share - 1);
	}
	/* The rank: what its threads and workers leave, plus the calling
	 * thread, split between its pools. */
	left = per_rank - threads - cpl_sat_mul(workers, busy_w);
	if (left < 0 || kr == 0)
		left = 0;
	return 1 + (kr > 0 ? left / kr : 0);
}

/* How many pools the shares split between, of the rank and of the
 * pipeline. */
static void
share_counts(long *in_rank, long *in_w, const struct cpl_pools *ps)
{
	size_t i;

	*in_rank = 0;
	*in_w = 0;
	for (i = 0; i < CPL_POOL_NKINDS; i++) {
		if (!shared(&ps->p[i]))
			continue;
		if (ps->p[i].in_workers)
			(*in_w)++;
		else
			(*in_rank)++;
	}
}

long
cpl_pools_share(const struct cpl_pools *ps, enum cpl_pool_kind k,
		long per_rank, long threads, long workers)
{
	long kr, kw;

	share_counts(&kr, &kw, ps);
	return cpl_pools_share_n(ps->p[k].in_workers, kr, kw, per_rank,
				 threads, workers);
}

bool
cpl_pools_env_sized(struct cpl_amount *a, const struct cpl_pools *ps,
		    enum cpl_pool_kind k, const struct cpl_container *c)
{
	const struct cpl_pool *p = &ps->p[k];

	memset(a, 0, sizeof(*a));
	/* XLA_FLAGS is a string of flags; Inductor's workers are not
	 * counted; ONNX Runtime and inter-op have no variable. */
	if (p->env == NULL || k == CPL_POOL_XLA || k == CPL_POOL_INDUCTOR)
		return false;
	cpl_budget_env_count(a, c, p->env);
	return a->state == CPL_AMT_KNOWN &&
	       p->size.state == CPL_AMT_KNOWN && p->size.n == a->n &&
	       p->size.pos.line == a->pos.line &&
	       p->size.pos.column == a->pos.column &&
	       cpl_str_eq(p->size.pos.file, a->pos.file);
}

bool
cpl_pools_env_over(struct cpl_amount *a, const struct cpl_pools *ps,
		   enum cpl_pool_kind k, const struct cpl_container *c,
		   long ranks, long workers, int64_t cpu_millis)
{
	const struct cpl_pool *p = &ps->p[k];
	long procs = ranks > 0 ? ranks : 1;

	if (!cpl_pools_env_sized(a, ps, k, c) || !p->active || p->off ||
	    a->n <= 1 || cpu_millis < 0)
		return false;
	if (worker_side(p, workers))
		procs = cpl_sat_mul(procs, workers);
	return cpl_sat_mul(cpl_sat_mul(a->n, procs), 1000) > cpu_millis;
}

/* A how of the budget entry: text and position, copied. */
static void
entry_how(struct cpl_budget_how *h, const char *text,
	  const struct cpl_pos *pos)
{
	memset(h, 0, sizeof(*h));
	if (text == NULL || *text == '\0')
		return;
	h->text = cpl_xstrdup(text);
	if (pos != NULL && pos->file != NULL && pos->line > 0) {
		h->file = cpl_xstrdup(pos->file);
		h->line = pos->line;
		h->column = pos->column;
	}
}

void
cpl_pools_entry(struct cpl_budget_entry *b, const struct cpl_workload *w,
		const struct cpl_container *c)
{
	struct cpl_pools ps;
	long xr, xw;
	size_t k, n = 0;

	cpl_budget_pools(&ps, w, c);
	cpl_pools_extra(&xr, &xw, &ps);
	share_counts(&b->pools_rank, &b->pools_workers, &ps);
	for (k = 0; k < CPL_POOL_NKINDS &&
		    b->npool_vars < CPL_BUDGET_POOL_VARS; k++) {
		struct cpl_amount a;

		if (!ps.p[k].active || ps.p[k].off ||
		    !cpl_pools_env_sized(&a, &ps, (enum cpl_pool_kind)k, c))
			continue;
		b->pool_vars[b->npool_vars] = ps.p[k].env;
		b->pool_written[b->npool_vars] = a.n;
		b->pool_in_workers[b->npool_vars++] = ps.p[k].in_workers;
	}
	/* With no workers the pipeline's pools run in the rank. */
	if (b->busy >= 0)
		b->busy = cpl_sat_add(b->busy, cpl_sat_mul(b->ranks,
			cpl_sat_add(xr, b->workers > 0 ?
				    cpl_sat_mul(b->workers, xw) : xw)));
	for (k = 0; k < CPL_POOL_NKINDS; k++)
		n += cpl_pool_extra(&ps.p[k]) > 0 || ps.p[k].host_default ||
		     ps.p[k].unread;
	if (n == 0)
		return;
	b->pools = cpl_xcalloc(n, sizeof(*b->pools));
	for (k = 0; k < CPL_POOL_NKINDS; k++) {
		const struct cpl_pool *p = &ps.p[k];
		struct cpl_budget_pool *e = &b->pools[b->npools];

		if (!(cpl_pool_extra(p) > 0 || p->host_default || p->unread))
			continue;
		b->npools++;
		e->name = cpl_xstrdup(p->name);
		e->threads = p->size.state == CPL_AMT_KNOWN ? p->size.n : -1;
		e->counted = cpl_pool_extra(p);
		e->in_workers = p->in_workers;
		e->node_default = p->host_default;
		e->unread = p->unread;
		entry_how(&e->how, p->size.state != CPL_AMT_UNSET ?
			  p->size.how : NULL, &p->size.pos);
		entry_how(&e->use, p->use_how, &p->use);
	}
}
