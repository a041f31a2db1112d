/*
 * pyvalue_code.c — the linked code of one process (pyvalue.h): the files
 * it runs, joined, with what only the whole shows.
 *
 * Each file is scanned alone; a process is an entry script and the local
 * modules it imports.  Joined, they tell three things more:
 *   roles    which defs of one module run in the DataLoader workers that
 *            another module builds: a transform or a worker_init_fn
 *            imported by the loader's module, the __getitem__ of a Dataset
 *            class a DataLoader elsewhere is built with, and what pipeline
 *            code calls across modules
 *   threads  which set_num_threads calls run in a worker_init_fn (they
 *            size the loader workers, not the rank)
 *   cv2      the first cv2 call the loader workers run
 *   counts   which CPU counts size a pool in another file: passed as an
 *            argument into another module's function (positionally or by
 *            a keyword that does not say so), returned to it, or imported
 *            from it as a name
 * Names are resolved through the imports with the env's module callback,
 * also through a package's re-exports (`from .dataset import Frames` in
 * its __init__.py), a few hops deep.
 *
 * Invariant: each (file, def) is queued at most once, so the pipeline walk
 * is linear in the calls of pipeline code; each sink of each file is
 * resolved once per process, within pyvalue's step budget, and finds the
 * call sites of a parameter through a map of the process's calls by name
 * (struct cpl_pycallmap), not by reading every file again.
 *
 * Owns the struct cpl_code it returns (freed by cpl_pyscan_code_free());
 * its own maps and queue are freed before it returns.
 * May include: python/pyvalue_int.h (and through it python/pyvalue.h and
 * python/pyscan.h) and the C library.
 */
#include "python/pyvalue_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_HOPS 4

/* A def queued for the pipeline walk. */
struct qitem {
	size_t file;
	int scope;
};

/* The state of joining one process. */
struct proc {
	struct cpl_code *code;
	const struct cpl_pyenv *env;
	struct cpl_strmap at;		/* file path → its index + 1 */
	struct qitem *q;
	size_t nq, capq;
};

/* The index of linked file g in the process, -1 when it is not one. */
static long
file_index(const struct proc *p, const struct cpl_pyfile *g)
{
	uintptr_t i;

	if (g == NULL)
		return -1;
	i = (uintptr_t)cpl_strmap_get(&p->at, g->path);
	if (i == 0 || p->code->files[i - 1] != g)
		return -1;
	return (long)i - 1;
}

/*
 * The def or class that dotted name (as written in scope of file fi) stands
 * for through an import of a linked module; -1 when none.  *gi receives
 * the file it is in.  Longer module prefixes are tried first
 * ("pkg.aug.Letterbox" is Letterbox of pkg/aug.py before aug of pkg).
 */
static int
resolve(const struct proc *p, size_t fi, int scope, const char *name,
	int hops, size_t *gi)
{
	const struct cpl_pyfile *f = p->code->files[fi];
	const struct cpl_pyenv *env = p->env;
	const struct cpl_pyimport *m;
	const char *dot = strchr(name, '.');
	char *first, *full, *cut;
	int im, d = -1;

	if (env->module == NULL || hops > MAX_HOPS)
		return -1;
	first = cpl_xstrndup(name, dot ? (size_t)(dot - name) : strlen(name));
	im = cpl_pyscan_binding(f, scope, first);
	free(first);
	if (im < 0)
		return -1;
	m = &f->imports[im];
	if (m->name)
		full = cpl_xasprintf("%s%s%s%s", m->module,
				     *m->module ? "." : "", m->name,
				     dot ? dot : "");
	else
		full = cpl_xasprintf("%s%s", m->target, dot ? dot : "");
	while (d < 0 && (cut = strrchr(full, '.')) != NULL) {
		const struct cpl_pyfile *g;
		long k;

		*cut = '\0';
		if (*full == '\0')
			break;
		g = env->module(env->ctx, f, full, m->level);
		if ((k = file_index(p, g)) < 0)
			continue;
		d = cpl_pyscan_func_find(g, cut + 1);
		if (d >= 0)
			*gi = (size_t)k;
		else if (strchr(cut + 1, '.') == NULL)
			d = resolve(p, (size_t)k, 0, cut + 1, hops + 1, gi);
	}
	free(full);
	return d;
}

/* Gives def d of file fi role (and PIPELINE), queueing it the first time
 * it joins the pipeline. */
static void
mark(struct proc *p, size_t fi, int d, unsigned role)
{
	const struct cpl_pyfile *g = p->code->files[fi];
	unsigned *r = &p->code->roles[fi][d];

	if (g->scopes[d].kind != CPL_PYSCOPE_FUNC)
		return;
	role |= CPL_PYROLE_PIPELINE;
	if ((*r & role) == role)
		return;
	if (!(*r & CPL_PYROLE_PIPELINE)) {
		CPL_GROW(p->q, p->capq, p->nq + 1);
		p->q[p->nq].file = fi;
		p->q[p->nq++].scope = d;
	}
	*r |= role;
}

/* Gives role to def or class d of file fi: a class as a transform runs
 * its __call__ and forward, as a dataset its __getitem__ and kin. */
static void
give(struct proc *p, size_t fi, int d, unsigned role)
{
	static const char *const item[] = {
		"__getitem__", "__getitems__", "__iter__",
	};
	static const char *const call[] = { "__call__", "forward" };
	const struct cpl_pyfile *g = p->code->files[fi];
	const struct cpl_pyscope *s = &g->scopes[d];
	const char *const *names = role == CPL_PYROLE_GETITEM ? item : call;
	size_t n = role == CPL_PYROLE_GETITEM ? CPL_ARRAY_LEN(item) :
						CPL_ARRAY_LEN(call);
	size_t i;

	if (s->kind == CPL_PYSCOPE_FUNC) {
		if (role != CPL_PYROLE_GETITEM)
			mark(p, fi, d, role);
		return;
	}
	if (s->kind != CPL_PYSCOPE_CLASS || s->parent != 0)
		return;
	for (i = 0; i < n; i++) {
		char *q = cpl_xasprintf("%s.%s", s->name, names[i]);
		int m = cpl_pyscan_func_find(g, q);

		free(q);
		if (m >= 0)
			mark(p, fi, m, role);
	}
}

/* The roles of every def in the process: each file's own, what the refs
 * of other files give, and what pipeline code reaches across modules. */
static void
join_roles(struct proc *p)
{
	struct cpl_code *code = p->code;
	size_t i, j, head;

	code->roles = cpl_xcalloc(code->nfiles + 1, sizeof(*code->roles));
	for (i = 0; i < code->nfiles; i++) {
		const struct cpl_pyfile *f = code->files[i];

		code->roles[i] = cpl_xcalloc(f->nscopes + 1,
					     sizeof(**code->roles));
		for (j = 0; j < f->nscopes; j++) {
			code->roles[i][j] = f->scopes[j].roles;
			if (!(f->scopes[j].roles & CPL_PYROLE_PIPELINE))
				continue;
			CPL_GROW(p->q, p->capq, p->nq + 1);
			p->q[p->nq].file = i;
			p->q[p->nq++].scope = (int)j;
		}
	}
	for (i = 0; i < code->nfiles; i++) {
		const struct cpl_pyfile *f = code->files[i];

		for (j = 0; j < f->nrefs; j++) {
			size_t gi;
			int d = resolve(p, i, f->refs[j].scope,
					f->refs[j].name, 0, &gi);

			if (d >= 0 && !(f->refs[j].called &&
					code->files[gi]->scopes[d].kind ==
					CPL_PYSCOPE_FUNC))
				give(p, gi, d, f->refs[j].role);
		}
	}
	for (head = 0; head < p->nq; head++) {
		struct qitem it = p->q[head];
		const struct cpl_pyfile *f = code->files[it.file];
		const struct cpl_pyscope *s = &f->scopes[it.scope];

		for (j = 0; j < s->ncalls; j++) {
			const struct cpl_pycall *c = &f->calls[s->calls[j]];
			size_t gi;
			int d;

			if (c->func >= 0) {
				mark(p, it.file, c->func, 0);
			} else if (c->import >= 0 && c->callee[0] != '.') {
				d = resolve(p, it.file, c->scope, c->callee, 0,
					    &gi);
				if (d >= 0)
					mark(p, gi, d, 0);
			}
		}
	}
}

/* The first cv2 call that pipeline code of the process runs. */
static void
first_cv2(struct cpl_code *code)
{
	size_t i, s, j;

	code->cv2_file = -1;
	for (i = 0; i < code->nfiles; i++) {
		const struct cpl_pyfile *f = code->files[i];

		for (s = 0; s < f->nscopes; s++) {
			const struct cpl_pyscope *sc = &f->scopes[s];

			if (!(code->roles[i][s] & CPL_PYROLE_PIPELINE) ||
			    !sc->uses_cv2)
				continue;
			for (j = 0; j < sc->ncalls; j++)
				if (f->calls[sc->calls[j]].kind ==
				    CPL_PYCALL_CV2) {
					code->cv2_file = (long)i;
					code->cv2_call = sc->calls[j];
					return;
				}
		}
	}
}

/* Last name of a dotted name. */
static const char *
last_name(const char *s)
{
	const char *d = strrchr(s, '.');

	return d ? d + 1 : s;
}

struct cpl_pycallmap *
cpl_pyvalue_callmap_new(const struct cpl_pyfile *const *files, size_t n)
{
	struct cpl_pycallmap *m = cpl_xcalloc(1, sizeof(*m));
	size_t i, j;

	for (i = 0; i < n; i++) {
		const struct cpl_pyfile *h = files[i];

		for (j = 0; j < h->ncalls; j++) {
			const struct cpl_pycall *c = &h->calls[j];
			const char *name;
			struct callsites *cs;

			if (c->import < 0 || c->remote == NULL)
				continue;
			name = last_name(c->remote);
			cs = cpl_strmap_get(&m->by_name, name);
			if (cs == NULL) {
				cs = cpl_xcalloc(1, sizeof(*cs));
				CPL_GROW(m->all, m->capall, m->nall + 1);
				m->all[m->nall++] = cs;
				cpl_strmap_put(&m->by_name, name, cs);
			}
			CPL_GROW(cs->v, cs->cap, cs->n + 1);
			cs->v[cs->n].file = h;
			cs->v[cs->n].call = j;
			cs->v[cs->n++].up = NULL;
		}
	}
	return m;
}

void
cpl_pyvalue_callmap_free(struct cpl_pycallmap *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->nall; i++) {
		free(m->all[i]->v);
		free(m->all[i]);
	}
	free(m->all);
	cpl_strmap_free(&m->by_name);
	free(m);
}

/* Appends a resolved size to a cpl_code array. */
static void
add_size(struct cpl_code_size **arr, size_t *n, size_t *cap,
	 const struct cpl_pyfile *f, size_t index, struct cpl_pos pos,
	 const struct cpl_pyval *v)
{
	struct cpl_code_size *s;

	*arr = cpl_xgrow_to(*arr, cap, *n + 1, sizeof(**arr));
	s = &(*arr)[(*n)++];
	s->file = f;
	s->index = index;
	s->pos = pos;
	s->value = *v;
}

/* Expression e reads a name (a literal alone reads nothing elsewhere). */
static bool
reads_name(const struct cpl_pyfile *f, const struct cpl_pyexpr *e)
{
	const struct cpl_pytoken *toks = cpl_pyfile_toks(f);
	size_t k;

	for (k = e->first; k < e->last; k++)
		if (toks[k].kind == CPL_PYTOK_NAME)
			return true;
	return false;
}

/* A CPU count of a file by its position: the index join_counts() looks
 * it up in. */
struct count_pos {
	int line, column;
	int i;			/* into the file's cpucounts */
};

/* Orders count positions by line, column, then index. */
static int
cmp_count_pos(const void *a, const void *b)
{
	const struct count_pos *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->column != y->column)
		return x->column < y->column ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* The CPU counts of h sorted by position (caller frees). */
static struct count_pos *
counts_by_pos(const struct cpl_pyfile *h)
{
	struct count_pos *v = cpl_xcalloc(h->ncpucounts + 1, sizeof(*v));
	size_t i;

	for (i = 0; i < h->ncpucounts; i++) {
		v[i].line = h->cpucounts[i].pos.line;
		v[i].column = h->cpucounts[i].pos.column;
		v[i].i = (int)i;
	}
	if (h->ncpucounts > 1)
		qsort(v, h->ncpucounts, sizeof(*v), cmp_count_pos);
	return v;
}

/* The first CPU count of h at pos, -1; byp is counts_by_pos(h): a binary
 * search, not a walk over every count for every sink. */
static int
count_at(const struct cpl_pyfile *h, const struct count_pos *byp,
	 const struct cpl_pos *pos)
{
	struct count_pos key = { pos->line, pos->column, -1 };
	size_t lo = 0, hi = h->ncpucounts;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_count_pos(&byp[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < h->ncpucounts && byp[lo].line == pos->line &&
	    byp[lo].column == pos->column)
		return byp[lo].i;
	return -1;
}

/* Orders counts by the file they are in (then as found). */
static int
cmp_count(const void *a, const void *b)
{
	const struct cpl_code_count *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/* Sorts the counts by file and indexes them: file i's counts are
 * counts[count_at[i], count_at[i + 1]). */
static void
group_counts(struct cpl_code *code)
{
	size_t i, k = 0;

	for (i = 0; i < code->ncounts; i++)
		code->counts[i].order = i;
	if (code->ncounts > 1)
		qsort(code->counts, code->ncounts, sizeof(*code->counts),
		      cmp_count);
	code->count_at = cpl_xcalloc(code->nfiles + 1,
				     sizeof(*code->count_at));
	for (i = 0; i <= code->nfiles; i++) {
		while (k < code->ncounts && code->counts[k].at < i)
			k++;
		code->count_at[i] = k;
	}
}

/*
 * The CPU counts that size a pool in another file: every sink of every
 * file resolved in the process; a value that tracks the node, with no
 * upper bound or one the text fixes (min(8, os.cpu_count()): the rule
 * weighs it against the budget), from a CPU count in another file that
 * its own file does not see sizing anything, is one (each count once, at
 * its first sink).
 */
static void
join_counts(struct proc *p, const struct cpl_pyenv *env)
{
	struct cpl_code *code = p->code;
	unsigned char **seen = cpl_xcalloc(code->nfiles + 1, sizeof(*seen));
	struct count_pos **byp = cpl_xcalloc(code->nfiles + 1, sizeof(*byp));
	size_t i, j, capcounts = 0;

	for (i = 0; i < code->nfiles; i++) {
		const struct cpl_pyfile *f = code->files[i];

		for (j = 0; j < f->nsinks; j++) {
			const struct cpl_pysink *sk = &f->sinks[j];
			const struct cpl_pyfile *h;
			struct cpl_code_count *cc;
			struct cpl_pyval v;
			long hi;
			int n;

			if (!reads_name(f, &sk->value))
				continue;
			cpl_pyvalue_expr(&v, f, &sk->value, NULL, env);
			/* A cap the text does not fix is the user's
			 * setting: no guess. */
			if (v.kind != CPL_PYVAL_HOST || v.host.file == NULL ||
			    (v.capped && v.cap <= 0))
				continue;
			hi = (long)(uintptr_t)cpl_strmap_get(&p->at,
							     v.host.file) - 1;
			if (hi < 0)
				continue;
			h = code->files[hi];
			if (byp[hi] == NULL)
				byp[hi] = counts_by_pos(h);
			n = count_at(h, byp[hi], &v.host);
			if (n < 0 || h->cpucounts[n].use == CPL_PYUSE_SIZING)
				continue;
			if (seen[hi] == NULL)
				seen[hi] = cpl_xcalloc(h->ncpucounts,
						       sizeof(**seen));
			if (seen[hi][n])
				continue;
			seen[hi][n] = 1;
			CPL_GROW(code->counts, capcounts, code->ncounts + 1);
			cc = &code->counts[code->ncounts++];
			cc->file = h;
			cc->index = (size_t)n;
			cc->what = sk->what;
			cc->sink = sk->pos;
			cc->cap = v.capped ? v.cap : 0;
			cc->at = (size_t)hi;
		}
	}
	for (i = 0; i < code->nfiles; i++) {
		free(seen[i]);
		free(byp[i]);
	}
	free(seen);
	free(byp);
	group_counts(code);
}

int
cpl_pyvalue_code(struct cpl_code **out, const struct cpl_pyfile *const *files,
		 size_t nfiles, const struct cpl_pyenv *env)
{
	struct cpl_code *code = cpl_xcalloc(1, sizeof(*code));
	struct cpl_pycallmap *callmap = NULL;
	struct proc p;
	struct cpl_pyenv e;
	size_t i, j, caploaders = 0, capthreads = 0;

	memset(&e, 0, sizeof(e));
	if (env)
		e = *env;
	if (e.files == NULL) {
		e.files = files;
		e.nfiles = nfiles;
	}
	memset(&p, 0, sizeof(p));
	p.code = code;
	p.env = &e;
	if (e.callmap == NULL && e.module)
		e.callmap = callmap = cpl_pyvalue_callmap_new(e.files,
							      e.nfiles);
	code->entry = nfiles ? files[0] : NULL;
	code->files = cpl_xcalloc(nfiles + 1, sizeof(*code->files));
	if (nfiles)
		memcpy(code->files, files, nfiles * sizeof(*files));
	code->nfiles = nfiles;
	for (i = 0; i < nfiles; i++)
		if (cpl_strmap_get(&p.at, files[i]->path) == NULL)
			cpl_strmap_put(&p.at, files[i]->path,
				       (void *)(uintptr_t)(i + 1));
	join_roles(&p);
	first_cv2(code);
	/* A process keeps its sizes for the run: room for exactly as many
	 * as its files may give (cpl_xgrow would start at 8). */
	for (i = 0; i < nfiles; i++) {
		caploaders += files[i]->nloaders;
		capthreads += files[i]->nthreads;
	}
	if (caploaders)
		code->loaders = cpl_xmalloc(caploaders *
					    sizeof(*code->loaders));
	if (capthreads)
		code->threads = cpl_xmalloc(capthreads *
					    sizeof(*code->threads));
	for (i = 0; i < nfiles; i++) {
		const struct cpl_pyfile *f = files[i];
		struct cpl_pyval v;

		code->imports_torch |= f->imports_torch;
		for (j = 0; j < f->nloaders; j++) {
			cpl_pyvalue_loader(&v, f, j, NULL, &e);
			add_size(&code->loaders, &code->nloaders, &caploaders,
				 f, j, f->loaders[j].pos, &v);
		}
		for (j = 0; j < f->nthreads; j++) {
			const struct cpl_pythreads *t = &f->threads[j];

			if (t->kind != CPL_PYTHREADS_INTRA ||
			    t->in_worker_init ||
			    (code->roles[i][f->calls[t->call].scope] &
			     CPL_PYROLE_WORKER_INIT))
				continue;
			cpl_pyvalue_threads(&v, f, j, NULL, &e);
			add_size(&code->threads, &code->nthreads, &capthreads,
				 f, j, t->pos, &v);
		}
	}
	join_counts(&p, &e);
	cpl_pyvalue_callmap_free(callmap);
	cpl_strmap_free(&p.at);
	free(p.q);
	*out = code;
	return 0;
}
