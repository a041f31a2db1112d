/*
 * pyflow.c — the second half of the scanner's post-pass: what reaches
 * what, along call edges and along values (pyscan.h).
 *
 * Three walks over the facts of pyfacts.c, each with a work queue so that
 * a scope or a name is visited once:
 *   the data pipeline   datasets, and the defs DataLoader workers run
 *                       (__getitem__, transforms, worker_init_fn) with
 *                       the local defs they call
 *   tensor work         the defs that do it, themselves or through local
 *                       calls, and what ran before each thread setting
 *   where CPU counts go values followed backwards from sizing uses
 *                       (num_workers, pool sizes, thread settings,
 *                       *THREADS and *WORKERS variables, names that say
 *                       they size something) through assignments,
 *                       parameters, call arguments and argparse defaults
 *                       to the CPU-count calls that feed them; of the
 *                       rest, those only printed or logged are marked so
 *
 * Owns only its queues and the flow's maps, freed before each walk
 * returns; marks go into the file's facts.
 */
#include "python/pyscan_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- post-pass: data pipeline and tensor work ------------------------- */

/*
 * Records a ref: the dotted name that starts at token k of f (NAME(.NAME)*,
 * within end) read in scope, when its first name is bound by an import;
 * called when a '(' follows it outside a lambda (lam false).
 */
static void
add_ref(struct cpl_pyfile *f, size_t k, size_t end, int scope, unsigned role,
	bool lam)
{
	const struct cpl_pytoken *t = cpl_pyfile_toks(f);
	struct cpl_pyref *r;
	size_t last = k;

	if (t[k].kind != CPL_PYTOK_NAME ||
	    cpl_pyscan_binding_n(f, scope, f->text + t[k].off, t[k].len) < 0)
		return;
	while (last + 2 < end && tok_is(f->text, &t[last + 1], ".") &&
	       t[last + 2].kind == CPL_PYTOK_NAME &&
	       t[last + 2].off == t[last + 1].off + 1 &&
	       t[last + 1].off == t[last].off + t[last].len)
		last += 2;
	CPL_GROW(f->refs, f->index->caprefs, f->nrefs + 1);
	r = &f->refs[f->nrefs++];
	r->role = role;
	r->name = fdup(f, f->text + t[k].off,
		       t[last].off + t[last].len - t[k].off);
	r->scope = scope;
	r->called = !lam && last + 1 < end &&
		    tok_is(f->text, &t[last + 1], "(");
	r->pos = cpl_pyscan_pos(f, k);
}

/* Token k of expression e is read inside a lambda written in e. */
static bool
in_lambda(const struct cpl_pyfile *f, const struct cpl_pyexpr *e, size_t k)
{
	const struct cpl_pytoken *toks = cpl_pyfile_toks(f);
	size_t j;

	for (j = e->first; j < k; j++)
		if (toks[j].kind == CPL_PYTOK_KEYWORD &&
		    tok_is(f->text, &toks[j], "lambda"))
			return true;
	return false;
}

/*
 * Sets role on the defs that expression e names (a class: its __call__
 * and forward); names from imports become refs.  A function called right
 * there (transform=build_transforms(cfg)) builds the transform rather
 * than being it, unless the call sits in a lambda the workers run.
 */
static void
mark_refs(struct cpl_pyfile *f, const struct cpl_pyexpr *e, unsigned role)
{
	const struct cpl_pytoken *toks = cpl_pyfile_toks(f);
	const struct nmap *defs = &f->index->defs;
	size_t k;

	for (k = e->first; k < e->last; k++) {
		const struct cpl_pytoken *t = &toks[k];
		bool self, called;
		int d;

		if (t->kind != CPL_PYTOK_NAME ||
		    (k > e->first &&
		     tok_is(f->text, &toks[k - 1], ".")) ||
		    (k + 1 < e->last &&
		     tok_is(f->text, &toks[k + 1], "=")))
			continue;
		self = tok_is(f->text, t, "self") && k + 2 < e->last &&
		       tok_is(f->text, &toks[k + 1], ".") &&
		       f->scopes[e->scope].cls >= 0;
		if (self)
			d = cpl_pyscan_nmap_get(defs, f->scopes[e->scope].cls,
						f->text + toks[k + 2].off,
						toks[k + 2].len);
		else
			d = cpl_pyscan_find_def(f, e->scope, f->text + t->off,
						t->len);
		called = (k + (self ? 3 : 1) < e->last &&
			  tok_is(f->text, &toks[k + (self ? 3 : 1)], "(")) &&
			 !in_lambda(f, e, k);
		if (d < 0) {
			if (!tok_is(f->text, t, "self"))
				add_ref(f, k, e->last, e->scope, role,
					in_lambda(f, e, k));
			continue;
		}
		if (f->scopes[d].kind == CPL_PYSCOPE_FUNC) {
			if (!called)
				f->scopes[d].roles |= role;
		} else if (f->scopes[d].kind == CPL_PYSCOPE_CLASS) {
			int m = cpl_pyscan_nmap_get(defs, d, "__call__", 8);

			if (m >= 0)
				f->scopes[m].roles |= role;
			m = cpl_pyscan_nmap_get(defs, d, "forward", 7);
			if (m >= 0)
				f->scopes[m].roles |= role;
		}
	}
}

/* The call an expression makes, directly or through a name assigned
 * from a call; -1. */
static int
constructing_call(const struct cpl_pyfile *f, const struct cpl_pyexpr *e)
{
	const struct cpl_pytoken *toks = cpl_pyfile_toks(f);
	int c = cpl_pyscan_expr_call(f, e);

	if (c < 0 && e->last == e->first + 1 &&
	    toks[e->first].kind == CPL_PYTOK_NAME) {
		const struct cpl_pytoken *t = &toks[e->first];
		int s = e->scope, a = -1;

		for (; s >= 0 && a < 0; s = f->scopes[s].parent)
			a = cpl_pyscan_nmap_get(&f->index->assigns, s,
						f->text + t->off, t->len);
		if (a >= 0 && !f->assigns[a].opaque)
			c = cpl_pyscan_expr_call(f, &f->assigns[a].value);
	}
	return c;
}

/*
 * The dataset a DataLoader's argument builds: marks a local class, or
 * records a ref when the class comes from an import.
 */
static void
mark_dataset(struct cpl_pyfile *f, const struct cpl_pyexpr *e)
{
	int c = constructing_call(f, e);
	const struct cpl_pycall *call;

	if (c < 0)
		return;
	call = &f->calls[c];
	if (call->func >= 0 &&
	    f->scopes[call->func].kind == CPL_PYSCOPE_CLASS)
		f->scopes[call->func].dataset = true;
	else if (call->func < 0 && call->import >= 0)
		add_ref(f, call->first, call->open, call->scope,
			CPL_PYROLE_GETITEM, false);
}

/* A worker_init_fn from an import: NAME, mod.NAME or partial(NAME, ...). */
static void
worker_init_ref(struct cpl_pyfile *f, const struct cpl_pyexpr *e)
{
	const struct cpl_pytoken *toks = cpl_pyfile_toks(f);
	int c = cpl_pyscan_expr_call(f, e);

	if (c >= 0 && strcmp(last_comp(f->calls[c].target), "partial") == 0 &&
	    f->calls[c].nargs > 0 && f->calls[c].args[0].keyword == NULL &&
	    f->calls[c].args[0].star == 0)
		e = &f->calls[c].args[0].value;
	else if (c >= 0)
		return;
	if (e->first < e->last && toks[e->first].kind == CPL_PYTOK_NAME)
		add_ref(f, e->first, e->last, e->scope,
			CPL_PYROLE_WORKER_INIT, false);
}

/* Marks datasets and the scopes that run in loader workers. */
void
cpl_pyscan_pipeline(struct cpl_pyfile *f)
{
	static const char *const tkw[] = {
		"transform", "target_transform", "transforms", "collate_fn",
	};
	static const char *const tfn[] = {
		"Compose", "Lambda", "with_transform", "set_transform",
		"RandomApply", "RandomChoice", "RandomOrder", "OneOf",
		"SomeOf",
	};
	const struct nmap *defs = &f->index->defs;
	size_t i, j, *queue, nq = 0, head = 0;

	for (i = 0; i < f->nloaders; i++) {
		const struct cpl_pycall *c = &f->calls[f->loaders[i].call];
		const struct cpl_pyarg *a = kwarg(c, "dataset");

		if (a == NULL)
			a = posarg(c, 0);
		if (a)
			mark_dataset(f, &a->value);
		if (f->loaders[i].init_func >= 0)
			f->scopes[f->loaders[i].init_func].roles |=
				CPL_PYROLE_WORKER_INIT;
		else if (f->loaders[i].has_init)
			worker_init_ref(f, &f->loaders[i].init);
	}
	for (i = 0; i < f->nscopes; i++) {
		struct cpl_pyscope *s = &f->scopes[i];

		if (s->kind == CPL_PYSCOPE_CLASS && !s->dataset &&
		    cpl_pyscan_nmap_get(defs, (int)i, "__getitem__", 11) >= 0 &&
		    cpl_pyscan_nmap_get(defs, (int)i, "__len__", 7) >= 0)
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

/* The first call of scope that does tensor work, itself or through a
 * local def; -1.  Found once per scope (first[scope], -2 until then), so
 * that many thread settings in one scope cost one pass over its calls,
 * not one each. */
static int
first_work(const struct cpl_pyfile *f, int *first, int scope)
{
	const struct cpl_pyscope *s = &f->scopes[scope];
	size_t j;

	if (first[scope] != -2)
		return first[scope];
	first[scope] = -1;
	for (j = 0; j < s->ncalls; j++) {
		const struct cpl_pycall *c = &f->calls[s->calls[j]];

		if (c->kind == CPL_PYCALL_TENSOR ||
		    (c->func >= 0 &&
		     f->scopes[c->func].kind == CPL_PYSCOPE_FUNC &&
		     f->scopes[c->func].does_work)) {
			first[scope] = (int)s->calls[j];
			break;
		}
	}
	return first[scope];
}

/* The first call of scope before token tok that does tensor work, itself
 * or through a local def; -1.  A scope's calls are in the order they
 * open, so it is the scope's first such call when that opens before tok. */
static int
work_before(const struct cpl_pyfile *f, int *first, int scope, size_t tok)
{
	int w = first_work(f, first, scope);

	return w >= 0 && f->calls[w].open < tok ? w : -1;
}

/* Finds tensor work per scope and what ran before each thread setting. */
void
cpl_pyscan_tensor_work(struct cpl_pyfile *f)
{
	struct cpl_pyindex *ix = f->index;
	size_t i, j, *queue, nq = 0, head = 0;
	int *first;

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
	first = cpl_xmalloc((f->nscopes + 1) * sizeof(*first));
	for (i = 0; i < f->nscopes; i++)
		first[i] = -2;
	for (i = 0; i < f->nthreads; i++) {
		struct cpl_pythreads *t = &f->threads[i];
		const struct cpl_pycall *c = &f->calls[t->call];
		int scope = c->scope, p, a, hops;
		size_t tok = c->open;

		for (hops = 0; hops < 8; hops++) {
			t->prior_work = work_before(f, first, scope, tok);
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
		/* The calls around it, as deep as CPython nests brackets. */
		for (p = c->parent, a = c->parent_arg, hops = 0; p >= 0 &&
		     !t->in_worker_init && hops < CPL_PYTOKEN_MAX_NEST;
		     a = f->calls[p].parent_arg, p = f->calls[p].parent,
		     hops++) {
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
	free(first);
}

/* ---- post-pass: where CPU counts go ----------------------------------- */

/* A name the sizing flow has reached, and the sink that reached it (an
 * index into the file's sinks; -1 for the names print calls read). */
struct fitem {
	int ns;
	const char *name;
	size_t len;
	int sink;
};

/* The state of the sizing flow. */
struct flow {
	struct cpl_pyfile *f;
	struct nmap seen;	/* (ns, name) reached */
	struct nmap pseen;	/* (scope, name): a parameter reached by a
				 * use no assignment dominates */
	bool *adone;		/* assignment → its value followed */
	struct nmap nspaces;	/* (0, name) assigned from parse_args() */
	struct fitem *q;
	size_t nq, capq, head;
	int *count_of;		/* call → cpucount, -1 */
};

/* A name that says it holds a pool size: workers, threads, procs, jobs.
 * One pass over the lowered name: at each byte, only the parts that
 * start with it are compared. */
static bool
sizing_name(const char *s, size_t n)
{
#define PART(s) { s, sizeof(s) - 1 }
	static const struct {
		const char *s;
		size_t len;
	} parts[] = {
		PART("worker"), PART("thread"), PART("nproc"),
		PART("num_proc"), PART("n_proc"), PART("n_jobs"),
		PART("njobs"), PART("num_jobs"), PART("processes"),
		PART("pool_size"), PART("max_procs"),
	};
#undef PART
	char low[64];
	size_t k, i;
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
	for (i = 0; i < n; i++) {
		char c = low[i];

		if (c != 'w' && c != 't' && c != 'n' && c != 'p' && c != 'm')
			continue;
		for (k = 0; k < CPL_ARRAY_LEN(parts); k++)
			if (parts[k].s[0] == c && parts[k].len <= n - i &&
			    memcmp(low + i, parts[k].s, parts[k].len) == 0)
				return true;
	}
	return false;
}

/* The scope whose binding of name a use in scope reads; 0 if none. */
static int
var_scope(const struct cpl_pyfile *f, int scope, const char *name, size_t len)
{
	bool first = true;

	while (scope > 0) {
		if ((first || f->scopes[scope].kind != CPL_PYSCOPE_CLASS) &&
		    (cpl_pyscan_nmap_get(&f->index->assigns, scope, name,
					 len) >= 0 ||
		     cpl_pyscan_param_n(f, scope, name, len) >= 0))
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

	if (cpl_pyscan_nmap_get(&fl->nspaces, 0, name, len) >= 0)
		return true;
	if (f->nargdefs == 0)
		return false;
	for (; scope > 0; scope = f->scopes[scope].parent)
		if (cpl_pyscan_param_n(f, scope, name, len) >= 0)
			return true;
	return false;
}

/* Queues (ns, name) for the sizing flow unless it was reached before. */
static void
flow_key(struct flow *fl, int ns, const char *name, size_t len, int sink)
{
	struct fitem *it;

	if (cpl_pyscan_nmap_get(&fl->seen, ns, name, len) >= 0)
		return;
	cpl_pyscan_nmap_put(&fl->seen, ns, name, len, 1);
	CPL_GROW(fl->q, fl->capq, fl->nq + 1);
	it = &fl->q[fl->nq++];
	it->ns = ns;
	it->name = name;
	it->len = len;
	it->sink = sink;
}

/* The def enclosing scope (itself when a def), -1. */
static int
def_of(const struct cpl_pyfile *f, int scope)
{
	while (scope > 0 && f->scopes[scope].kind != CPL_PYSCOPE_FUNC)
		scope = f->scopes[scope].parent;
	return scope > 0 ? scope : -1;
}

/* A string literal in tokens [first, last) of f names a cgroup CPU quota
 * file: "/sys/fs/cgroup/cpu.max", ".../cpu.cfs_quota_us". */
static bool
names_quota(const struct cpl_pyfile *f, size_t first, size_t last)
{
	static const char *const files[] = { "cpu.max", "cpu.cfs_quota_us" };
	const struct cpl_pytoken *t = cpl_pyfile_toks(f);
	size_t k, i, j;

	for (k = first; k < last; k++) {
		const char *s = f->text + t[k].off;

		if (t[k].kind != CPL_PYTOK_STRING)
			continue;
		for (i = 0; i < CPL_ARRAY_LEN(files); i++) {
			size_t n = strlen(files[i]);

			for (j = 0; j + n <= t[k].len; j++)
				if (memcmp(s + j, files[i], n) == 0)
					return true;
		}
	}
	return false;
}

/*
 * Marks the defs holding a CPU count that read the cgroup's CPU quota,
 * themselves or in a local def they call (`return _cgroup_cpus() or
 * os.cpu_count()`): quota-aware helpers, whose count runs only where no
 * quota is set.  Each def's body is read once.
 */
static void
mark_quota_readers(struct cpl_pyfile *f)
{
	unsigned char *done = cpl_xcalloc(f->nscopes + 1, 1);
	size_t i, j;

	for (i = 0; i < f->ncpucounts; i++) {
		int d = def_of(f, f->calls[f->cpucounts[i].call].scope);
		struct cpl_pyscope *s;

		if (d < 0 || done[d])
			continue;
		done[d] = 1;
		s = &f->scopes[d];
		s->quota_reader = names_quota(f, s->body_first, s->body_last);
		for (j = 0; j < s->ncalls && !s->quota_reader; j++) {
			int g = f->calls[s->calls[j]].func;

			if (g > 0 && g != d &&
			    f->scopes[g].kind == CPL_PYSCOPE_FUNC)
				s->quota_reader = names_quota(f,
					f->scopes[g].body_first,
					f->scopes[g].body_last);
		}
	}
	free(done);
}

/* Marks CPU-count call as sizing sink (the first sink wins); the
 * fallback count of a quota-aware helper sizes nothing. */
static void
mark_sizing(struct flow *fl, size_t call, int sink)
{
	struct cpl_pycpucount *cc;
	const struct cpl_pysink *sk;
	int d;

	if (fl->count_of[call] < 0 || sink < 0)
		return;
	d = def_of(fl->f, fl->f->calls[call].scope);
	if (d >= 0 && fl->f->scopes[d].quota_reader)
		return;
	cc = &fl->f->cpucounts[fl->count_of[call]];
	if (cc->use == CPL_PYUSE_SIZING)
		return;
	sk = &fl->f->sinks[sink];
	cc->use = CPL_PYUSE_SIZING;
	cc->sink = fdup(fl->f, sk->what, strlen(sk->what));
	cc->sink_pos = sk->pos;
	cc->sink_index = sink;
}

/* Records a sink: what it is called, the expression whose value sizes it,
 * where it is.  Returns its index. */
static int
add_sink(struct cpl_pyfile *f, const char *what,
	 const struct cpl_pyexpr *value, struct cpl_pos pos)
{
	struct cpl_pysink *sk;

	CPL_GROW(f->sinks, f->index->capsinks, f->nsinks + 1);
	sk = &f->sinks[f->nsinks];
	sk->what = what;
	sk->value = *value;
	sk->pos = pos;
	return (int)f->nsinks++;
}

static void flow_expr(struct flow *fl, const struct cpl_pyexpr *e, int sink);

/* Parameter p of def scope sizes sink: its default and the values its
 * call sites in the file pass. */
static void
flow_param(struct flow *fl, int scope, size_t p, int sink)
{
	const struct cpl_pyfile *f = fl->f;
	const struct cpl_pyindex *ix = f->index;
	size_t j;

	flow_expr(fl, &f->scopes[scope].params[p].def, sink);
	for (j = ix->callers_off[scope]; j < ix->callers_off[scope + 1];
	     j++) {
		const struct cpl_pycall *c = &f->calls[ix->callers[j]];
		const struct cpl_pyarg *a;
		bool spread;

		a = cpl_pyscan_call_arg(f, c, f, scope, p, &spread);
		if (a)
			flow_expr(fl, &a->value, sink);
	}
}

/* Follows assignment a's value for sink, once per run of the flow. */
static void
flow_assign(struct flow *fl, int a, int sink)
{
	const struct cpl_pyassign *as = &fl->f->assigns[a];

	if (fl->adone[a])
		return;
	fl->adone[a] = true;
	if (!as->opaque)
		flow_expr(fl, &as->value, sink);
}

/*
 * Name use at token k of e: the values that reach it, in the code's
 * order.  A use in the scope that binds the name reads the assignments
 * before it, back to one in a block the use is within (it replaces every
 * earlier value: `n = os.cpu_count(); n = 4` sizes with 4), then the
 * parameter when none is; a use of a module's name from a def reads the
 * module's last assignment at its top level and any after it.  Other uses
 * (enclosing defs' names) read every assignment (flow_key).
 */
static void
flow_use(struct flow *fl, const struct cpl_pyexpr *e, size_t k,
	 const char *name, size_t len, int sink)
{
	const struct cpl_pyfile *f = fl->f;
	int ns = var_scope(f, e->scope, name, len), a, p;
	size_t use = k;
	int block = e->block;

	if (ns != e->scope && ns != 0) {
		flow_key(fl, ns, name, len, sink);
		return;
	}
	if (ns != e->scope) {
		use = (size_t)-1;	/* after the module ran */
		block = f->scopes[0].block;
	}
	for (a = cpl_pyscan_nmap_get(&f->index->assigns, ns, name, len);
	     a >= 0; a = f->assigns[a].prev) {
		const struct cpl_pyassign *as = &f->assigns[a];

		/* After the use, or the use is in its own value. */
		if (as->tok >= use ||
		    (use >= as->value.first && use < as->value.last))
			continue;
		flow_assign(fl, a, sink);
		if (block >= 0 && !as->opaque && as->op[0] == '=' &&
		    as->op[1] == '\0' &&
		    cpl_pyscan_block_within(f, block, as->block))
			return;
	}
	if (ns <= 0 || f->scopes[ns].kind != CPL_PYSCOPE_FUNC ||
	    (p = cpl_pyscan_param_n(f, ns, name, len)) < 0 ||
	    cpl_pyscan_nmap_get(&fl->pseen, ns, name, len) >= 0)
		return;
	cpl_pyscan_nmap_put(&fl->pseen, ns, name, len, 1);
	flow_param(fl, ns, (size_t)p, sink);
}

/*
 * Calls visit(fl, ns, name, len) for each name expression e reads:
 * plain names by the scope that binds them, self.X by class, args.X of
 * an argparse namespace by dest.  Callee names and keywords are skipped.
 */
static void
expr_names(struct flow *fl, const struct cpl_pyexpr *e, int sink)
{
	const struct cpl_pyfile *f = fl->f;
	const struct cpl_pytoken *t = cpl_pyfile_toks(f);
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
					 t[k + 2].len, sink);
			else if (is_namespace(fl, e->scope, name, len) ||
				 cpl_pyscan_nmap_get(&f->index->argdefs,
						     ARGS_NS, x + t[k + 2].off,
						     t[k + 2].len) >= 0)
				flow_key(fl, ARGS_NS, x + t[k + 2].off,
					 t[k + 2].len, sink);
			k += 2;
			continue;
		}
		if (sink < 0)	/* printed(): every value it reads */
			flow_key(fl, var_scope(f, e->scope, name, len), name,
				 len, sink);
		else
			flow_use(fl, e, k, name, len, sink);
	}
}

/* Expression e sizes sink: its CPU counts do, and what it reads. */
static void
flow_expr(struct flow *fl, const struct cpl_pyexpr *e, int sink)
{
	struct cpl_pyfile *f = fl->f;
	size_t c;

	if (e->first >= e->last)
		return;
	for (c = cpl_pyscan_call_from(f, e->first);
	     c < f->ncalls && f->calls[c].open < e->last; c++) {
		const struct cpl_pycall *call = &f->calls[c];

		if (call->kind == CPL_PYCALL_CPU_COUNT)
			mark_sizing(fl, c, sink);
		if (call->func >= 0 &&
		    f->scopes[call->func].kind == CPL_PYSCOPE_FUNC)
			flow_key(fl, call->func, "return", 6, sink);
	}
	expr_names(fl, e, sink);
}

/* Every readable assignment in the chain from a sizes the item's sink. */
static void
flow_assigns(struct flow *fl, int a, const struct fitem *it)
{
	for (; a >= 0; a = fl->f->assigns[a].prev)
		flow_assign(fl, a, it->sink);
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

		if (it.ns == ARGS_NS) {
			int d = cpl_pyscan_nmap_get(&ix->argdefs, ARGS_NS,
						    it.name, it.len);

			if (d >= 0)
				flow_expr(fl, &f->argdefs[d].def, it.sink);
			continue;
		}
		flow_assigns(fl, cpl_pyscan_nmap_get(&ix->assigns, it.ns,
						     it.name, it.len), &it);
		if (it.ns <= -2 && it.len > 5)
			flow_assigns(fl,
				     cpl_pyscan_nmap_get(&ix->assigns,
							 -2 - it.ns,
							 it.name + 5,
							 it.len - 5),
				     &it);
		if (it.ns <= 0 || f->scopes[it.ns].kind != CPL_PYSCOPE_FUNC ||
		    (p = cpl_pyscan_param_n(f, it.ns, it.name, it.len)) < 0)
			continue;
		flow_param(fl, it.ns, (size_t)p, it.sink);
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
	const struct cpl_pytoken *toks = cpl_pyfile_toks(f);
	const char *s = f->text + toks[k].off;
	size_t n = toks[k].len, i;

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
				 s + i + 1, j - i - 1, -1);
	}
}

/* Marks the CPU counts that are only printed or logged. */
static void
printed(struct flow *fl)
{
	struct cpl_pyfile *f = fl->f;
	const struct cpl_pytoken *toks = cpl_pyfile_toks(f);
	size_t i, j, k;
	int hops;

	/* Reuse the flow's seen map for the names print calls read. */
	cpl_pyscan_nmap_free(&fl->seen);
	fl->nq = fl->head = 0;
	for (i = 0; i < f->ncalls; i++) {
		const struct cpl_pycall *c = &f->calls[i];

		/* A print in the arguments of a print of its scope is read
		 * with them: nested prints are read once, not once each. */
		if (c->kind != CPL_PYCALL_PRINT ||
		    (c->parent >= 0 && c->parent_arg >= 0 &&
		     f->calls[c->parent].kind == CPL_PYCALL_PRINT &&
		     f->calls[c->parent].scope == c->scope))
			continue;
		for (j = 0; j < c->nargs; j++) {
			const struct cpl_pyexpr *e = &c->args[j].value;

			expr_names(fl, e, -1);
			for (k = e->first; k < e->last; k++)
				if (toks[k].kind == CPL_PYTOK_STRING &&
				    (toks[k].flags & CPL_PYSTR_FMT))
					fstring_names(fl, k, e->scope);
		}
	}
	for (i = 0; i < f->ncpucounts; i++) {
		struct cpl_pycpucount *cc = &f->cpucounts[i];
		int c = cc->call;

		if (cc->use == CPL_PYUSE_SIZING)
			continue;
		for (hops = 0; hops < CPL_PYTOKEN_MAX_NEST &&
		     f->calls[c].parent >= 0 &&
		     is_transparent(&f->calls[f->calls[c].parent]); hops++)
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
			if (cpl_pyscan_nmap_get(&fl->seen, ns, a->name,
						strlen(a->name)) >= 0)
				cc->use = CPL_PYUSE_PRINTED;
		}
	}
}

/* Tokens a dead-value check reads before it gives up (then: not dead). */
#define KILL_SCAN 20000

/* Whether token k of f reads name (plain, or self.X as three tokens). */
static bool
reads_name(const struct cpl_pyfile *f, size_t k, const char *name,
	   size_t len)
{
	const struct cpl_pytoken *t = cpl_pyfile_toks(f);
	const char *x = f->text;

	if (len > 5 && memcmp(name, "self.", 5) == 0)
		return t[k].kind == CPL_PYTOK_NAME && t[k].len == 4 &&
		       memcmp(x + t[k].off, "self", 4) == 0 &&
		       k + 2 < f->ntoks && tok_is(x, &t[k + 1], ".") &&
		       t[k + 2].len == len - 5 &&
		       memcmp(x + t[k + 2].off, name + 5, len - 5) == 0;
	return t[k].kind == CPL_PYTOK_NAME && t[k].len == len &&
	       memcmp(x + t[k].off, name, len) == 0 &&
	       !(k > 0 && tok_is(x, &t[k - 1], "."));
}

/*
 * Whether the value name holds after token from (in scope, block) is
 * replaced before anything reads it: a plain assignment of the name later
 * in the same scope, in a block that holds from's (so it runs whenever
 * from's does), with no read of the name in between or in its own value.
 * `workers = os.cpu_count(); workers = 4` sizes nothing with the count.
 */
static bool
dead_value(const struct cpl_pyfile *f, int ns, int scope, int block,
	   const char *name, size_t from)
{
	const struct cpl_pyassign *kill = NULL;
	size_t k, n = strlen(name);
	int a;

	if (block < 0)
		return false;
	for (a = cpl_pyscan_nmap_get(&f->index->assigns, ns, name, n); a >= 0;
	     a = f->assigns[a].prev) {
		const struct cpl_pyassign *b = &f->assigns[a];

		if (b->tok <= from || b->scope != scope || b->opaque ||
		    strcmp(b->op, "=") != 0 || b->index >= 0 ||
		    !cpl_pyscan_block_within(f, block, b->block))
			continue;
		if (kill == NULL || b->tok < kill->tok)
			kill = b;
	}
	if (kill == NULL || kill->value.last < from ||
	    kill->value.last - from > KILL_SCAN)
		return false;
	for (k = from + 1; k < kill->value.last && k < f->ntoks; k++)
		if (k != kill->tok && reads_name(f, k, name, n))
			return false;
	return true;
}

/*
 * Starts the flow at a sink: records it (what, the value a resolver reads,
 * where) and follows start, the expression the flow reads from.
 */
static void
flow_sink(struct flow *fl, const char *what, const struct cpl_pyexpr *start,
	  const struct cpl_pyexpr *value, struct cpl_pos pos)
{
	flow_expr(fl, start, add_sink(fl->f, what, value, pos));
}

/*
 * Decides, for every CPU-count call, whether it sizes something or is only
 * printed.
 */
void
cpl_pyscan_cpu_flow(struct cpl_pyfile *f)
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
	fl.adone = cpl_xcalloc(f->nassigns + 1, sizeof(*fl.adone));
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
		cpl_pyscan_nmap_put(&fl.nspaces, 0, a->name, strlen(a->name),
				    1);
	}
	for (i = 0; i < f->ncpucounts; i++)
		f->cpucounts[i].sink_index = -1;
	mark_quota_readers(f);
	/* Sizing uses the libraries define, then keywords and names that
	 * say they size something. */
	for (i = 0; i < f->nloaders; i++)
		if (f->loaders[i].has_workers)
			flow_sink(&fl, "num_workers", &f->loaders[i].workers,
				  &f->loaders[i].workers,
				  f->loaders[i].workers.pos);
	for (i = 0; i < f->nthreads; i++)
		if (f->threads[i].has_arg)
			flow_sink(&fl, tnames[f->threads[i].kind],
				  &f->threads[i].arg, &f->threads[i].arg,
				  f->threads[i].pos);
	for (i = 0; i < f->npools; i++)
		if (f->pools[i].has_size)
			flow_sink(&fl, pnames[f->pools[i].kind],
				  &f->pools[i].size, &f->pools[i].size,
				  f->pools[i].pos);
	for (i = 0; i < f->nenvsets; i++)
		if (is_thread_env(f->envsets[i].name))
			flow_sink(&fl, f->envsets[i].name, &f->envsets[i].value,
				  &f->envsets[i].value, f->envsets[i].pos);
	flow_drain(&fl);
	for (i = 0; i < f->ncalls; i++)
		for (j = 0; j < f->calls[i].nargs; j++) {
			const struct cpl_pyarg *a = &f->calls[i].args[j];

			/* A DataLoader's num_workers is its sink already. */
			if (f->calls[i].kind == CPL_PYCALL_DATALOADER &&
			    a->keyword && strcmp(a->keyword, "num_workers") == 0)
				continue;
			if (a->keyword && sizing_name(a->keyword,
						      strlen(a->keyword)))
				flow_sink(&fl, a->keyword, &a->value,
					  &a->value, a->value.pos);
		}
	for (i = 0; i < f->nargdefs; i++)
		if (sizing_name(f->argdefs[i].dest,
				strlen(f->argdefs[i].dest)))
			flow_sink(&fl, f->argdefs[i].flags[0],
				  &f->argdefs[i].def, &f->argdefs[i].def,
				  f->argdefs[i].pos);
	flow_drain(&fl);
	for (i = 0; i < f->nassigns; i++) {
		const struct cpl_pyassign *a = &f->assigns[i];
		const char *n = a->name;

		if (cpl_str_starts(n, "self."))
			n += 5;
		if (!a->opaque && sizing_name(n, strlen(n)) &&
		    !dead_value(f, n == a->name ? a->scope :
				f->scopes[a->scope].cls >= 0 ?
				CLASS_NS(f->scopes[a->scope].cls) : a->scope,
				a->scope, a->block, a->name,
				a->value.last - 1))
			flow_sink(&fl, n, &a->value, &a->value, a->pos);
	}
	for (i = 0; i < f->nscopes; i++)
		for (j = 0; j < f->scopes[i].nparams; j++) {
			const struct cpl_pyparam *p = &f->scopes[i].params[j];
			struct cpl_pyexpr name;

			if (p->star || !sizing_name(p->name, strlen(p->name)) ||
			    dead_value(f, (int)i, (int)i, f->scopes[i].block,
				       p->name, p->tok))
				continue;
			/* The parameter as its body reads it: the call
			 * sites' values, else the default. */
			name.first = p->tok;
			name.last = p->tok + 1;
			name.scope = (int)i;
			name.block = f->scopes[i].block;
			name.pos = p->pos;
			flow_sink(&fl, p->name, &p->def, &name, p->pos);
		}
	flow_drain(&fl);
	printed(&fl);
	cpl_pyscan_nmap_free(&fl.seen);
	cpl_pyscan_nmap_free(&fl.pseen);
	cpl_pyscan_nmap_free(&fl.nspaces);
	free(fl.q);
	free(fl.count_of);
	free(fl.adone);
}

