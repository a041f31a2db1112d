/*
 * pywork.c — workloads declared in Python: a Flyte @task, a Kubeflow
 * Pipelines v2 component and the tasks a @dsl.pipeline makes of it, a
 * Metaflow step with @kubernetes or @resources, a Ray Train
 * TorchTrainer's workers, a ZenML @step with ResourceSettings.  The
 * decorator (or the call) is the workload and its container; the
 * function is the code the container runs.
 *
 * What each framework does with what it is given, read in its own code:
 *  - flytekit: requests=/limits= Resources(cpu=, gpu=); a missing limit
 *    takes the request and no resources at all take the platform's task
 *    resource defaults (flytepropeller), so CPU101 is a note there.
 *    task_config=PyTorch(...) is a PyTorchJob of one process per replica
 *    that sets no thread variable; Elastic(nnodes, nproc_per_node) runs
 *    torch's elastic_launch and sets OMP_NUM_THREADS=1 when it is unset
 *    and nproc_per_node > 1, as torchrun does (flytekitplugins-kfpytorch
 *    task.py, PytorchElasticFunctionTask._execute); both mount a memory
 *    /dev/shm unless increase_shared_mem=False; MPIJob(slots=) (and
 *    HorovodJob) runs that many ranks per worker; TfJob one process per
 *    replica.  Another plugin's task_config (Slurm, Spark, Ray,
 *    Databricks, a Pod spec) runs elsewhere or in a shape the file does
 *    not show: no workload.
 *  - KFP v2: a task's .set_cpu_limit/.set_cpu_request/
 *    .set_accelerator_limit (.set_gpu_limit)/.set_env_variable, chained
 *    or on the variable the task is bound to; the component's function
 *    is all the code KFP ships (its imports are inside it).
 *  - Metaflow: a step with @kubernetes(cpu=, gpu=, shared_memory=) or
 *    @resources (the larger of the two wins; either alone requests 1
 *    CPU, their default); a request, no limit unless qos="Guaranteed";
 *    shared_memory (MiB) mounts /dev/shm; @torchrun and
 *    @pytorch_parallel make it train by kind.
 *  - Ray Train: each of ScalingConfig's num_workers is a process with
 *    resources_per_worker's CPUs (1 by default), and Ray sets its
 *    OMP_NUM_THREADS to them when unset (ray/_private/utils.py
 *    set_omp_num_threads_if_unset), so the worker's CPUs are its budget.
 *  - ZenML: ResourceSettings(cpu_count=, gpu_count=) in a step's
 *    settings["resources"]: the budget (the Kubeflow orchestrator makes
 *    it the limit, the Trainer one request and limit).
 * A pipeline or workflow function only wires steps: no workload.  A value
 * the file does not fix (a name bound elsewhere, a call) is never
 * guessed: the declaration is listed as not judged, with why.
 *
 * The code of a workload is the file laid at its lines (script_py) with
 * the other declared functions blanked (a KFP component: everything but
 * its function), so each task is judged on its own function and what it
 * calls; the code rules judge the file itself, once (w->py_declared).
 *
 * Any thread (the pipeline's): reads only the text it is given.
 * Ownership: workloads and skips go to out; nothing is kept.
 * Includes: run/pywork.h, model/, python/, text/quantity.h.
 */
#include "run/pywork.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "python/pyscan.h"
#include "python/pyvalue.h"
#include "text/quantity.h"

/* Decorators of one def: what each names (through the imports) and its
 * call (-1: not called). */
#define MAX_DECOS 8
/* Workloads one file may declare: each holds a copy of the file. */
#define MAX_WORKLOADS 512

struct deco {
	char *target;		/* "flytekit.task", "metaflow.kubernetes" */
	int call;
	struct cpl_pos pos;	/* the '@' */
};

struct decos {
	struct deco d[MAX_DECOS];
	size_t n;
	int first_line;		/* the first decorator's line */
};

enum fw {
	FW_NONE,
	FW_FLYTE,
	FW_KFP,
	FW_METAFLOW,
	FW_RAY,
	FW_ZENML,
};

/* One reading of a file. */
struct rd {
	const struct cpl_pyfile *f;
	const struct cpl_pytoken *t;
	struct decos *by_scope;	/* [scope]: its decorators */
	bool *decl;		/* [scope]: a declared function (a task,
				 * a component, a step) */
	struct cpl_wlist *out;
	size_t nout;		/* workloads emitted */
};

/* ---- tokens and values ---- */

static bool
tok_is(const struct rd *r, size_t i, enum cpl_pytok_kind k, const char *s)
{
	const struct cpl_pytoken *t = &r->t[i];

	return i < r->f->ntoks && t->kind == k &&
	       (s == NULL || (strlen(s) == t->len &&
			      memcmp(r->f->text + t->off, s, t->len) == 0));
}

/* A string token's contents when it is a plain literal (no f-string, no
 * escape), copied; NULL otherwise. */
static char *
str_lit(const struct rd *r, size_t i)
{
	const struct cpl_pytoken *t = &r->t[i];
	const char *p = r->f->text + t->off, *q;
	size_t n = t->len, skip;

	if (t->kind != CPL_PYTOK_STRING ||
	    (t->flags & (CPL_PYSTR_FMT | CPL_PYSTR_BYTES | CPL_PYSTR_TMPL |
			 CPL_PYSTR_OPEN)))
		return NULL;
	while (n > 0 && *p != '"' && *p != '\'') {
		p++;
		n--;
	}
	skip = (t->flags & CPL_PYSTR_TRIPLE) ? 3 : 1;
	if (n < 2 * skip)
		return NULL;
	q = p + skip;
	n -= 2 * skip;
	if (memchr(q, '\\', n) != NULL)
		return NULL;
	return cpl_xstrndup(q, n);
}

/* The expression a name stands for: its last assignment in scope, else
 * at module level; false when there is none or it is not one value. */
static bool
name_value(const struct rd *r, int scope, size_t tok, struct cpl_pyexpr *e)
{
	const struct cpl_pytoken *t = &r->t[tok];
	char *name = cpl_xstrndup(r->f->text + t->off, t->len);
	int a = cpl_pyscan_assign_last(r->f, scope, name);

	if (a < 0 && scope != 0)
		a = cpl_pyscan_assign_last(r->f, 0, name);
	free(name);
	/* One binding, read as written: a name set twice, in a loop, or
	 * by unpacking is the user's to say. */
	if (a < 0 || r->f->assigns[a].opaque || r->f->assigns[a].prev >= 0 ||
	    r->f->assigns[a].index >= 0 ||
	    strcmp(r->f->assigns[a].op, "=") != 0)
		return false;
	*e = r->f->assigns[a].value;
	return e->first < e->last;
}

/* The call expression e is, through one name; -1 when it is none. */
static int
expr_call(const struct rd *r, const struct cpl_pyexpr *e, int depth)
{
	size_t k;
	struct cpl_pyexpr v;

	if (e->first >= e->last)
		return -1;
	if (e->last - e->first == 1 && tok_is(r, e->first, CPL_PYTOK_NAME,
					      NULL)) {
		if (depth > 0 || !name_value(r, e->scope, e->first, &v))
			return -1;
		return expr_call(r, &v, depth + 1);
	}
	for (k = cpl_pyscan_call_from(r->f, e->first);
	     k < r->f->ncalls && r->f->calls[k].open < e->last; k++)
		if (r->f->calls[k].first == e->first &&
		    r->f->calls[k].close + 1 == e->last)
			return (int)k;
	return -1;
}

/* Whether dotted name s ends in the component last. */
static bool
ends_name(const char *s, const char *last)
{
	size_t n = s ? strlen(s) : 0, m = strlen(last);

	return n >= m && strcmp(s + n - m, last) == 0 &&
	       (n == m || s[n - m - 1] == '.');
}

/* The keyword argument kw of call k (NULL: none). */
static const struct cpl_pyarg *
kwarg(const struct rd *r, int k, const char *kw)
{
	const struct cpl_pycall *c;
	size_t i;

	if (k < 0)
		return NULL;
	c = &r->f->calls[k];
	for (i = 0; i < c->nargs; i++)
		if (cpl_str_eq(c->args[i].keyword, kw))
			return &c->args[i];
	return NULL;
}

/* The positional argument n of call k (NULL: none). */
static const struct cpl_pyarg *
posarg(const struct rd *r, int k, size_t n)
{
	const struct cpl_pycall *c = &r->f->calls[k];
	size_t i, seen = 0;

	for (i = 0; i < c->nargs; i++) {
		if (c->args[i].keyword != NULL || c->args[i].star)
			continue;
		if (seen++ == n)
			return &c->args[i];
	}
	return NULL;
}

/* Whether call k passes *args or **kwargs (anything may hide there). */
static bool
spread(const struct rd *r, int k)
{
	size_t i;

	for (i = 0; i < r->f->calls[k].nargs; i++)
		if (r->f->calls[k].args[i].star)
			return true;
	return false;
}

/* Value states of what a declaration says. */
enum vstate {
	V_ABSENT,
	V_KNOWN,
	V_UNKNOWN,
};

/* A CPU (or GPU) amount written as e: a string or number literal, or a
 * name bound once to one; *millis in millicores.  With whole, a count
 * (GPUs): *millis is the number itself. */
static enum vstate
amount(const struct rd *r, const struct cpl_pyexpr *e, int64_t *millis,
       bool whole, int depth)
{
	const char *why;
	char *s = NULL;
	struct cpl_pyexpr v;
	int rc;

	if (e == NULL || e->first >= e->last)
		return V_ABSENT;
	if (e->last - e->first == 1 && tok_is(r, e->first, CPL_PYTOK_NAME,
					      NULL)) {
		if (depth > 0 || !name_value(r, e->scope, e->first, &v))
			return V_UNKNOWN;
		return amount(r, &v, millis, whole, depth + 1);
	}
	if (e->last - e->first != 1)
		return V_UNKNOWN;
	if (tok_is(r, e->first, CPL_PYTOK_NUMBER, NULL))
		s = cpl_xstrndup(r->f->text + r->t[e->first].off,
				 r->t[e->first].len);
	else
		s = str_lit(r, e->first);
	if (s == NULL)
		return V_UNKNOWN;
	if (whole) {
		long n;

		rc = cpl_parse_long(&n, s);
		*millis = n;
		if (rc == 0 && n < 0)
			rc = -1;
	} else {
		rc = cpl_quantity_cpu(millis, s, &why);
	}
	free(s);
	return rc == 0 ? V_KNOWN : V_UNKNOWN;
}

/* A count resolved as the code resolves one (literals, names, simple
 * arithmetic); -1 when it is not known. */
static long
count(const struct rd *r, const struct cpl_pyexpr *e)
{
	struct cpl_pyval v;

	if (e == NULL || e->first >= e->last)
		return -1;
	cpl_pyvalue_expr(&v, r->f, e, NULL, NULL);
	return v.kind == CPL_PYVAL_KNOWN && v.value >= 0 ? v.value : -1;
}

/* Token i is a line break or comment inside brackets. */
static bool
soft(const struct rd *r, size_t i)
{
	return r->t[i].kind == CPL_PYTOK_NL ||
	       r->t[i].kind == CPL_PYTOK_COMMENT;
}

/* The value of key (a string) in dict display e: 1 and *val when there,
 * 0 when the display lacks it, -1 when e is no display the text fixes. */
static int
dict_get(const struct rd *r, const struct cpl_pyexpr *e, const char *key,
	 struct cpl_pyexpr *val, int depth)
{
	size_t i, kfirst;
	int level = 0;
	struct cpl_pyexpr v;

	if (e->first >= e->last)
		return -1;
	if (e->last - e->first == 1 && tok_is(r, e->first, CPL_PYTOK_NAME,
					      NULL)) {
		if (depth > 0 || !name_value(r, e->scope, e->first, &v))
			return -1;
		return dict_get(r, &v, key, val, depth + 1);
	}
	if (!tok_is(r, e->first, CPL_PYTOK_OP, "{") ||
	    !tok_is(r, e->last - 1, CPL_PYTOK_OP, "}"))
		return -1;
	kfirst = e->first + 1;
	while (kfirst < e->last && soft(r, kfirst))
		kfirst++;
	for (i = e->first + 1; i < e->last - 1; i++) {
		const struct cpl_pytoken *t = &r->t[i];
		char c = t->kind == CPL_PYTOK_OP && t->len == 1 ?
			 r->f->text[t->off] : '\0';

		if (t->kind == CPL_PYTOK_OP && t->len == 2 &&
		    memcmp(r->f->text + t->off, "**", 2) == 0 && level == 0)
			return -1;	/* {**base, ...}: not fixed */
		if (c == '(' || c == '[' || c == '{')
			level++;
		else if (c == ')' || c == ']' || c == '}')
			level--;
		else if (c == ':' && level == 0) {
			char *k = i == kfirst + 1 ? str_lit(r, kfirst) : NULL;
			size_t j = i + 1;
			int lv = 0;

			for (; j < e->last - 1; j++) {
				const struct cpl_pytoken *u = &r->t[j];
				char d = u->kind == CPL_PYTOK_OP &&
					 u->len == 1 ?
					 r->f->text[u->off] : '\0';

				if (d == '(' || d == '[' || d == '{')
					lv++;
				else if (d == ')' || d == ']' || d == '}')
					lv--;
				else if (d == ',' && lv == 0)
					break;
			}
			if (k == NULL) {
				free(k);
				return -1;	/* a key not literal */
			}
			if (strcmp(k, key) == 0) {
				size_t a = i + 1, b = j;

				free(k);
				while (a < b && soft(r, a))
					a++;
				while (b > a && soft(r, b - 1))
					b--;
				val->first = a;
				val->last = b;
				val->scope = e->scope;
				val->block = e->block;
				val->pos = cpl_pyscan_pos(r->f, i + 1);
				return 1;
			}
			free(k);
			i = j;
			kfirst = j + 1;
			while (kfirst < e->last && soft(r, kfirst))
				kfirst++;
		}
	}
	return 0;
}

/* ---- decorators ---- */

/* What dotted name[0, n) stands for through the module's imports. */
static char *
resolve_name(const struct rd *r, const char *name, size_t n)
{
	size_t head = 0;
	int b;
	char *first;
	char *out;

	while (head < n && name[head] != '.')
		head++;
	first = cpl_xstrndup(name, head);
	b = cpl_pyscan_binding(r->f, 0, first);
	free(first);
	if (b < 0 || r->f->imports[b].target == NULL)
		return cpl_xstrndup(name, n);
	out = cpl_xasprintf("%s%.*s", r->f->imports[b].target,
			    (int)(n - head), name + head);
	return out;
}

/* Reads every decorator of the file and gives each def its own. */
static void
read_decorators(struct rd *r)
{
	struct decos pending = { .n = 0 };
	size_t i;
	bool line_start = true;

	int depth = 0;

	for (i = 0; i < r->f->ntoks; i++) {
		const struct cpl_pytoken *t = &r->t[i];

		if (t->kind == CPL_PYTOK_OP && t->len == 1) {
			char ch = r->f->text[t->off];

			depth += ch == '(' || ch == '[' || ch == '{';
			depth -= depth > 0 && (ch == ')' || ch == ']' ||
					       ch == '}');
		}
		if (depth > 0) {	/* inside brackets: one line */
			line_start = false;
			continue;
		}
		if (t->kind == CPL_PYTOK_NEWLINE || t->kind == CPL_PYTOK_NL ||
		    t->kind == CPL_PYTOK_INDENT ||
		    t->kind == CPL_PYTOK_DEDENT ||
		    t->kind == CPL_PYTOK_COMMENT) {
			line_start = t->kind != CPL_PYTOK_COMMENT ||
				     line_start;
			continue;
		}
		if (line_start && tok_is(r, i, CPL_PYTOK_OP, "@")) {
			struct cpl_buf b;
			size_t j = i + 1;
			struct deco *d;

			cpl_buf_init(&b, 4096);
			while (j < r->f->ntoks &&
			       (tok_is(r, j, CPL_PYTOK_NAME, NULL) ||
				tok_is(r, j, CPL_PYTOK_OP, "."))) {
				cpl_buf_add(&b, r->f->text + r->t[j].off,
					    r->t[j].len);
				j++;
			}
			if (pending.n == 0)
				pending.first_line = t->line;
			if (pending.n < MAX_DECOS && b.len > 0) {
				d = &pending.d[pending.n++];
				d->target = resolve_name(r, cpl_buf_str(&b),
							 b.len);
				d->call = tok_is(r, j, CPL_PYTOK_OP, "(") ?
					  cpl_pyscan_call_at(r->f, j) : -1;
				d->pos = cpl_pyscan_pos(r->f, i);
			}
			cpl_buf_free(&b);
			line_start = false;
			continue;
		}
		if (line_start && (tok_is(r, i, CPL_PYTOK_KEYWORD, "def") ||
				   tok_is(r, i, CPL_PYTOK_KEYWORD, "class") ||
				   tok_is(r, i, CPL_PYTOK_NAME, "async") ||
				   tok_is(r, i, CPL_PYTOK_KEYWORD, "async"))) {
			size_t j = i + 1, s;

			if (!tok_is(r, i, CPL_PYTOK_KEYWORD, "def") &&
			    !tok_is(r, i, CPL_PYTOK_KEYWORD, "class"))
				j++;
			for (s = 1; j < r->f->ntoks && s < r->f->nscopes;
			     s++) {
				const struct cpl_pyscope *sc =
					&r->f->scopes[s];

				if (sc->pos.line == r->t[j].line &&
				    sc->pos.column == r->t[j].column)
					break;
			}
			if (s < r->f->nscopes && pending.n > 0)
				r->by_scope[s] = pending;
			else
				for (s = 0; s < pending.n; s++)
					free(pending.d[s].target);
			pending.n = 0;
		} else if (line_start && pending.n > 0) {
			/* A statement between decorator and def: not ours. */
			size_t s;

			for (s = 0; s < pending.n; s++)
				free(pending.d[s].target);
			pending.n = 0;
		}
		line_start = false;
	}
	for (i = 0; i < pending.n; i++)
		free(pending.d[i].target);
}

/* The decorator of scope s whose target is under module mod (a prefix
 * "flytekit", "kfp") and whose last name is last; NULL when none. */
static const struct deco *
deco_of(const struct rd *r, size_t s, const char *mod, const char *last)
{
	const struct decos *ds = &r->by_scope[s];
	size_t i, n = strlen(mod);

	for (i = 0; i < ds->n; i++) {
		const char *t = ds->d[i].target;

		if (strncmp(t, mod, n) == 0 && (t[n] == '.' || t[n] == '\0') &&
		    ends_name(t, last))
			return &ds->d[i];
	}
	return NULL;
}

/* ---- workloads ---- */

/* The last line of scope s's body. */
static int
scope_end(const struct rd *r, size_t s)
{
	const struct cpl_pyscope *sc = &r->f->scopes[s];
	size_t i;
	int end = sc->pos.line;

	for (i = sc->body_first; i < sc->body_last && i < r->f->ntoks; i++)
		if (r->t[i].kind != CPL_PYTOK_DEDENT &&
		    r->t[i].kind != CPL_PYTOK_ENDMARKER &&
		    r->t[i].line > end)
			end = r->t[i].line;
	return end;
}

/* The first line of scope s with its decorators. */
static int
scope_start(const struct rd *r, size_t s)
{
	const struct decos *ds = &r->by_scope[s];

	return ds->n > 0 && ds->first_line < r->f->scopes[s].pos.line ?
	       ds->first_line : r->f->scopes[s].pos.line;
}

/* Whether scope k is a or inside it. */
static bool
inside(const struct rd *r, size_t k, size_t a)
{
	int p = (int)k;

	while (p > 0 && (size_t)p != a)
		p = r->f->scopes[p].parent;
	return p >= 0 && (size_t)p == a;
}

/* Keeps scope k and the scopes inside it (after it in source order,
 * while inside), queueing each newly kept one on q (*nq of them). */
static void
keep_tree(const struct rd *r, size_t k, bool *keep, size_t *q, size_t *nq)
{
	size_t m;

	for (m = k; m < r->f->nscopes && (m == k || inside(r, m, k)); m++)
		if (!keep[m]) {
			keep[m] = true;
			q[(*nq)++] = m;
		}
}

/*
 * The scopes the code of function s takes (keep[]): s and what is inside
 * it, the classes and defs around it, and, transitively, the local defs
 * and classes its code calls or constructs (a class with its methods).
 * Each scope is taken once and its calls read once: linear in the file.
 */
static void
reach(const struct rd *r, size_t s, bool *keep)
{
	size_t *q = cpl_xcalloc(r->f->nscopes + 1, sizeof(*q));
	size_t nq = 0, head = 0, i;
	int p;

	keep_tree(r, s, keep, q, &nq);
	for (p = r->f->scopes[s].parent; p > 0; p = r->f->scopes[p].parent)
		keep[p] = true;	/* kept, not followed: a flow's other steps */
	while (head < nq) {
		const struct cpl_pyscope *sc = &r->f->scopes[q[head++]];

		for (i = 0; i < sc->ncalls; i++) {
			int fn = r->f->calls[sc->calls[i]].func;

			if (fn > 0 && !keep[fn])
				keep_tree(r, (size_t)fn, keep, q, &nq);
		}
	}
	free(q);
}

/* The code of a workload whose function is scope s, as container c's
 * inline script laid at the file's lines: the module's own statements
 * and what s reaches (reach()), every other def and class blanked; with
 * only, s's lines alone (a KFP component ships only its function). */
static void
keep_code(const struct rd *r, struct cpl_container *c, size_t s, bool only)
{
	char *text = cpl_xmalloc(r->f->len + 1);
	size_t i, k, nlines = 2;
	int line = 1, from = scope_start(r, s), to = scope_end(r, s);
	bool *cut, *keep;

	for (i = 0; i < r->f->len; i++)
		nlines += r->f->text[i] == '\n';
	memcpy(text, r->f->text, r->f->len + 1);
	cut = cpl_xcalloc(nlines, sizeof(*cut));
	keep = cpl_xcalloc(r->f->nscopes, sizeof(*keep));
	if (only) {
		for (k = 1; k < nlines; k++)
			cut[k] = (int)k < from || (int)k > to;
	} else {
		reach(r, s, keep);
		for (k = 1; k < r->f->nscopes; k++) {
			int a, b, l, p = r->f->scopes[k].parent;

			if (keep[k] || (p > 0 && !keep[p]))
				continue;
			a = scope_start(r, k);
			b = scope_end(r, k);
			for (l = a; l <= b && (size_t)l < nlines; l++)
				cut[l] = true;
		}
	}
	for (i = 0; i < r->f->len; i++) {
		if (text[i] == '\n') {
			line++;
			continue;
		}
		if ((size_t)line < nlines && cut[line] && text[i] != '\r')
			text[i] = ' ';
	}
	free(cut);
	free(keep);
	c->script_py = text;
	c->script_len = r->f->len;
	c->script_line = 1;
}

/* A new workload of kind kind, named name[replica], with one container
 * named cname declared at pos; the file is r's. */
static struct cpl_workload *
new_workload(const struct rd *r, const char *kind, const char *name,
	     const char *replica, const char *cname, struct cpl_pos pos,
	     const char *note)
{
	struct cpl_workload *w = cpl_workload_new(CPL_SRC_MANIFEST,
						  r->f->path);
	struct cpl_container *c;

	w->kind = cpl_xstrdup(kind);
	w->name = cpl_xstrdup(name);
	w->replica = replica ? cpl_xstrdup(replica) : NULL;
	w->replicas = 1;
	pos.file = w->file;
	w->pos = pos;
	w->run_to_completion = true;
	w->by_evidence = true;
	w->py_declared = true;
	w->note = note;
	c = cpl_workload_add_container(w);
	c->name = cpl_xstrdup(cname);
	c->role = CPL_CROLE_MAIN;
	c->pos = pos;
	c->resources_pos = pos;
	/* No command: the framework's runner calls the function.  So GPUs
	 * alone are no evidence of training (a step that checks CUDA or
	 * echoes its config trains nothing); its code is. */
	return w;
}

/* pos of a file fact, moved to w's copy of the path. */
static struct cpl_pos
at(const struct cpl_workload *w, struct cpl_pos pos)
{
	pos.file = w->file;
	return pos;
}

/* Lists a declaration as not judged, and why. */
static void
not_judged(const struct rd *r, const char *what, const char *name,
	   struct cpl_pos pos, const char *why)
{
	struct cpl_skip *k = cpl_wlist_skip(r->out, r->f->path, pos.line,
					    pos.column, why, "%s \"%s\"",
					    what, name);

	k->kind = cpl_xstrdup(what);
	k->containers = true;
}

/* Appends w to the run's workloads: at most MAX_WORKLOADS a file, each
 * with a copy of the file as its code; past them, not judged. */
static void
emit(struct rd *r, struct cpl_workload *w)
{
	if (r->nout >= MAX_WORKLOADS) {
		not_judged(r, w->kind, w->replica ? w->replica : w->name,
			   w->pos, "more workloads are declared in this file "
			   "than the reader takes from one (512)");
		cpl_workload_free(w);
		return;
	}
	r->nout++;
	cpl_wlist_add(r->out, w);
}

/* The CPU and GPUs of a Resources-like call k into *cpu, *gpus (each
 * V_ABSENT when not given); cpu_kw and gpu_kw are its keywords.  False
 * with *why when a value is not fixed by the text. */
static bool
read_res(const struct rd *r, int k, const char *cpu_kw, const char *gpu_kw,
	 bool cpu_whole, int64_t *cpu, enum vstate *cs, struct cpl_pos *cpos,
	 long *gpus, const char **why)
{
	const struct cpl_pyarg *a;
	int64_t g = 0;
	enum vstate gs;

	*cs = V_ABSENT;
	if (spread(r, k)) {
		*why = "its resources are passed through **kwargs";
		return false;
	}
	if ((a = kwarg(r, k, cpu_kw)) != NULL) {
		*cs = amount(r, &a->value, cpu, cpu_whole, 0);
		*cpos = a->value.pos;
		if (*cs == V_UNKNOWN) {
			*why = "its CPU is a value the file does not fix";
			return false;
		}
		if (cpu_whole)
			*cpu *= 1000;
	}
	if (gpu_kw != NULL && (a = kwarg(r, k, gpu_kw)) != NULL) {
		gs = amount(r, &a->value, &g, true, 0);
		if (gs == V_UNKNOWN) {
			*why = "its GPU count is a value the file does not fix";
			return false;
		}
		if (gs == V_KNOWN && g > *gpus)
			*gpus = (long)g;
	}
	return true;
}

/* Adds env from dict display e (string keys and values) to c; false when
 * the display is not one the text fixes. */
static bool
read_env(const struct rd *r, struct cpl_container *c,
	 const struct cpl_workload *w, const struct cpl_pyexpr *e)
{
	size_t i;
	int level = 0;

	if (!tok_is(r, e->first, CPL_PYTOK_OP, "{"))
		return false;
	for (i = e->first + 1; i + 2 < e->last; i++) {
		char *k, *v;

		if (r->t[i].kind == CPL_PYTOK_OP) {
			char ch = r->f->text[r->t[i].off];

			level += ch == '{' || ch == '(' || ch == '[';
			level -= ch == '}' || ch == ')' || ch == ']';
			continue;
		}
		if (level != 0 || r->t[i].kind != CPL_PYTOK_STRING ||
		    !tok_is(r, i + 1, CPL_PYTOK_OP, ":"))
			continue;
		k = str_lit(r, i);
		v = str_lit(r, i + 2);
		/* A value that is not one literal is set, unknown. */
		if (v != NULL && !(tok_is(r, i + 3, CPL_PYTOK_OP, ",") ||
				   tok_is(r, i + 3, CPL_PYTOK_OP, "}"))) {
			free(v);
			v = NULL;
		}
		/* At the value, which a fix may replace (a number). */
		if (k != NULL)
			cpl_container_set_env(c, k, v, at(w,
					      cpl_pyscan_pos(r->f, v ? i + 2 :
							     i)));
		free(k);
		free(v);
	}
	return true;
}

/* Sets c's CPU: a request and limit as the framework reads them. */
static void
set_cpu(const struct cpl_workload *w, struct cpl_container *c,
	int64_t req, enum vstate rs, struct cpl_pos rpos, int64_t lim,
	enum vstate ls, struct cpl_pos lpos)
{
	if (rs == V_KNOWN) {
		c->cpu_request = req;
		c->request_pos = at(w, rpos);
	}
	if (ls == V_KNOWN) {
		c->cpu_limit = lim;
		c->limit_pos = at(w, lpos);
	}
}

/* ---- Flyte ---- */

/* One Flyte @task on def s (decorator d). */
static void
flyte_task(struct rd *r, size_t s, const struct deco *d)
{
	const char *name = r->f->scopes[s].name, *why = NULL, *kind;
	const struct cpl_pyarg *a;
	int64_t req = 0, lim = 0;
	enum vstate rs = V_ABSENT, ls = V_ABSENT;
	struct cpl_pos rpos = d->pos, lpos = d->pos;
	long gpus = 0;
	int cfg = -1, k;
	const char *cfgname = NULL;
	struct cpl_workload *w;
	struct cpl_container *c;

	if (d->call >= 0 && spread(r, d->call)) {
		not_judged(r, "Flyte task", name, d->pos,
			   "its arguments are passed through **kwargs");
		return;
	}
	if ((a = kwarg(r, d->call, "requests")) != NULL) {
		k = expr_call(r, &a->value, 0);
		if (k < 0 || !ends_name(r->f->calls[k].target, "Resources"))
			why = "its requests are not a Resources(...) the file "
			      "fixes";
		else
			(void)read_res(r, k, "cpu", "gpu", false, &req, &rs,
				       &rpos, &gpus, &why);
	}
	if (why == NULL && (a = kwarg(r, d->call, "limits")) != NULL) {
		k = expr_call(r, &a->value, 0);
		if (k < 0 || !ends_name(r->f->calls[k].target, "Resources"))
			why = "its limits are not a Resources(...) the file "
			      "fixes";
		else
			(void)read_res(r, k, "cpu", "gpu", false, &lim, &ls,
				       &lpos, &gpus, &why);
	}
	if (why == NULL && (a = kwarg(r, d->call, "task_config")) != NULL) {
		cfg = expr_call(r, &a->value, 0);
		if (cfg >= 0 && ends_name(r->f->calls[cfg].target, "PyTorch"))
			cfgname = "PyTorch";
		else if (cfg >= 0 &&
			 ends_name(r->f->calls[cfg].target, "Elastic"))
			cfgname = "Elastic";
		else if (cfg >= 0 &&
			 (ends_name(r->f->calls[cfg].target, "MPIJob") ||
			  ends_name(r->f->calls[cfg].target, "HorovodJob")))
			cfgname = "MPIJob";
		else if (cfg >= 0 &&
			 ends_name(r->f->calls[cfg].target, "TfJob"))
			cfgname = "TfJob";
		else if (tok_is(r, a->value.first, CPL_PYTOK_KEYWORD,
				"None") && a->value.last == a->value.first + 1)
			cfg = -1;	/* a plain task */
		else
			/* Another plugin's (Slurm, Spark, Ray, Databricks,
			 * a Pod spec ...) or one the file does not fix:
			 * it runs elsewhere or in a shape the file does
			 * not show, and holds no container of ours. */
			return;
	}
	if (why != NULL) {
		not_judged(r, "Flyte task", name, d->pos, why);
		return;
	}
	kind = cfgname == NULL ? "Flyte task" :
	       cpl_str_eq(cfgname, "PyTorch") ? "Flyte PyTorch task" :
	       cpl_str_eq(cfgname, "Elastic") ? "Flyte Elastic task" :
	       cpl_str_eq(cfgname, "TfJob") ? "Flyte TFJob task" :
	       "Flyte MPI task";
	w = new_workload(r, kind, name, NULL, name, d->pos,
			 "read by the Flyte reader: the task function is "
			 "the code; a missing limit takes the request");
	c = &w->containers[0];
	w->platform_cpu = true;
	/* flytepropeller: a missing limit takes the request; Kubernetes: a
	 * missing request takes the limit. */
	if (rs == V_KNOWN && ls == V_ABSENT) {
		lim = req;
		lpos = rpos;
		ls = V_KNOWN;
	}
	set_cpu(w, c, req, rs, rpos, lim, ls, lpos);
	c->gpus = gpus;
	if ((a = kwarg(r, d->call, "container_image")) != NULL)
		c->image = str_lit(r, a->value.first);
	if ((a = kwarg(r, d->call, "environment")) != NULL &&
	    !read_env(r, c, w, &a->value))
		c->env_from = true;	/* env the file does not show */
	if ((a = kwarg(r, d->call, "shared_memory")) != NULL &&
	    !tok_is(r, a->value.first, CPL_PYTOK_KEYWORD, "False") &&
	    !tok_is(r, a->value.first, CPL_PYTOK_KEYWORD, "None")) {
		c->shm = true;
		c->shm_bytes = -1;
	}
	if (cfgname != NULL) {
		/* A Kubeflow job the plugin makes: its replicas run the
		 * task function, PyTorch whatever the code shows. */
		w->training_job = true;
		c->run_container = true;
		a = kwarg(r, cfg, "increase_shared_mem");
		if ((cpl_str_eq(cfgname, "PyTorch") ||
		     cpl_str_eq(cfgname, "Elastic")) &&
		    (a == NULL || !tok_is(r, a->value.first,
					  CPL_PYTOK_KEYWORD, "False"))) {
			c->shm = true;
			c->shm_bytes = -1;
		}
	}
	if (cpl_str_eq(cfgname, "Elastic")) {
		/* elastic_launch, with torchrun's OMP_NUM_THREADS rule. */
		a = kwarg(r, cfg, "nproc_per_node");
		c->launch.launcher = CPL_LAUNCH_TORCHRUN;
		c->launch.launcher_word.text = cpl_xstrdup("elastic_launch");
		c->launch.launcher_word.pos = at(w, r->f->calls[cfg].pos);
		c->launch.has_nproc = true;
		if (a == NULL) {
			c->launch.nproc.text = cpl_xstrdup("1");
			c->launch.nproc.pos = at(w, r->f->calls[cfg].pos);
		} else {
			long n = count(r, &a->value);

			c->launch.nproc.text = n > 0 ?
				cpl_xasprintf("%ld", n) :
				cpl_xstrdup("(unknown)");
			c->launch.nproc.pos = at(w, a->value.pos);
		}
	} else if (cpl_str_eq(cfgname, "MPIJob")) {
		long n = 1;

		a = kwarg(r, cfg, "slots");
		if (a != NULL)
			n = count(r, &a->value);
		c->has_slots = true;
		c->slots.text = n > 0 ? cpl_xasprintf("%ld", n) : NULL;
		c->slots.pos = at(w, a ? a->value.pos : r->f->calls[cfg].pos);
		c->slots_from = "MPIJob slots";
	}
	keep_code(r, c, s, false);
	emit(r, w);
}

static void
read_flyte(struct rd *r)
{
	size_t s;

	for (s = 1; s < r->f->nscopes; s++)
		r->decl[s] = deco_of(r, s, "flytekit", "task") != NULL;
	for (s = 1; s < r->f->nscopes; s++)
		if (r->decl[s] &&
		    r->f->scopes[s].kind == CPL_PYSCOPE_FUNC)
			flyte_task(r, s, deco_of(r, s, "flytekit", "task"));
}

/* ---- Kubeflow Pipelines v2 DSL ---- */

/* A task of a pipeline: the component call and what its setters say. */
struct ktask {
	int call;		/* the component call */
	const char *var;	/* the name it is bound to, or NULL */
	size_t comp;		/* the component's scope */
	struct cpl_workload *w;
	const char *why;	/* not judged: why; NULL */
};

/* The task call k stands for (the component call itself, a setter on
 * it, chained, or the variable bound to it); -1 when none. */
static int
ktask_of(const struct rd *r, const struct ktask *ts, size_t nt, int k,
	 int depth)
{
	const struct cpl_pycall *c = &r->f->calls[k];
	const char *dot;
	size_t i, open = c->open;

	for (i = 0; i < nt; i++)
		if (ts[i].call == k)
			return (int)i;
	if (depth > 16 || (dot = strrchr(c->callee, '.')) == NULL)
		return -1;
	if (dot == c->callee) {
		/* chained: RECEIVER(...).method( */
		size_t close;

		if (open < 3 || !tok_is(r, open - 3, CPL_PYTOK_OP, ")"))
			return -1;
		close = open - 3;
		for (i = 0; i < r->f->ncalls; i++)
			if (r->f->calls[i].close == close)
				return ktask_of(r, ts, nt, (int)i, depth + 1);
		return -1;
	}
	/* var.method(: the last task bound to var before this call */
	for (i = nt; i-- > 0;)
		if (ts[i].var != NULL && ts[i].call < k &&
		    strlen(ts[i].var) == (size_t)(dot - c->callee) &&
		    strncmp(ts[i].var, c->callee,
			    (size_t)(dot - c->callee)) == 0)
			return (int)i;
	return -1;
}

/* Applies setter call k to task t. */
static void
ktask_set(const struct rd *r, struct ktask *t, int k, const char *method)
{
	struct cpl_container *c = &t->w->containers[0];
	const struct cpl_pyarg *a = posarg(r, k, 0);
	int64_t v = 0;
	enum vstate st;

	if (t->why != NULL)
		return;
	if (cpl_str_eq(method, "set_cpu_limit") ||
	    cpl_str_eq(method, "set_cpu_request")) {
		bool limit = cpl_str_eq(method, "set_cpu_limit");

		if (a == NULL)
			a = kwarg(r, k, "cpu");
		st = amount(r, a ? &a->value : NULL, &v, false, 0);
		if (st == V_UNKNOWN) {
			t->why = "its CPU is a value the file does not fix (a "
				 "pipeline parameter)";
			return;
		}
		if (st != V_KNOWN)
			return;
		set_cpu(t->w, c, v, limit ? V_ABSENT : V_KNOWN,
			a->value.pos, v, limit ? V_KNOWN : V_ABSENT,
			a->value.pos);
		c->resources_pos = at(t->w, r->f->calls[k].pos);
	} else if (cpl_str_eq(method, "set_accelerator_limit") ||
		   cpl_str_eq(method, "set_gpu_limit")) {
		if (a == NULL)
			a = kwarg(r, k, "limit");
		st = amount(r, a ? &a->value : NULL, &v, true, 0);
		/* A parameter: at least one, as the IR reader counts it. */
		c->gpus = st == V_KNOWN ? (long)v : st == V_UNKNOWN ? 1 : 0;
	} else if (cpl_str_eq(method, "set_env_variable")) {
		const struct cpl_pyarg *n = a ? a : kwarg(r, k, "name");
		const struct cpl_pyarg *val = posarg(r, k, 1);
		char *name, *value = NULL;

		if (val == NULL)
			val = kwarg(r, k, "value");
		if (n == NULL || (name = str_lit(r, n->value.first)) == NULL ||
		    n->value.last - n->value.first != 1) {
			c->env_from = true;
			return;
		}
		if (val != NULL && val->value.last - val->value.first == 1)
			value = str_lit(r, val->value.first);
		cpl_container_set_env(c, name, value,
				      at(t->w, value ? val->value.pos :
					 r->f->calls[k].pos));
		free(name);
		free(value);
	}
}

/* Call k is kfp-kubernetes' empty_dir_mount(NAME, ..., mount_path=
 * "/dev/shm") of the task t that name stands for: t's /dev/shm is
 * memory-backed.  Whether it was. */
static bool
kfp_shm(const struct rd *r, struct ktask *t, int k, const char *name)
{
	const struct cpl_pyarg *a = posarg(r, k, 0);
	const struct cpl_pyarg *m = kwarg(r, k, "mount_path");
	char *mp;
	bool yes;

	if (a == NULL)
		a = kwarg(r, k, "task");
	if (a == NULL || m == NULL || a->value.last - a->value.first != 1 ||
	    !tok_is(r, a->value.first, CPL_PYTOK_NAME, name) ||
	    !ends_name(r->f->calls[k].target, "empty_dir_mount"))
		return false;
	mp = str_lit(r, m->value.first);
	yes = cpl_str_eq(mp, "/dev/shm") || cpl_str_eq(mp, "/dev/shm/");
	free(mp);
	if (yes) {
		t->w->containers[0].shm = true;
		t->w->containers[0].shm_bytes = -1;
	}
	return true;
}

/*
 * A task handed to call k as a whole (a name bound to it): a local def
 * that configures it (`_configure_gpu_step(task, 2)`) has its setters on
 * that parameter read as the task's; a helper the file does not hold may
 * set anything, so the task is not judged; KFP's own kubernetes helpers
 * (tolerations, secrets, node selectors) set no CPU.
 */
static void
kfp_passed(const struct rd *r, struct ktask *ts, size_t nt, int k)
{
	const struct cpl_pycall *c = &r->f->calls[k];
	size_t i, j, npos = 0;

	for (i = 0; i < c->nargs; i++) {
		const struct cpl_pyarg *a = &c->args[i];
		const struct cpl_pyscope *fn;
		const char *param = NULL;
		struct ktask *t = NULL;

		if (a->keyword == NULL && !a->star)
			npos++;
		if (a->star || a->value.last - a->value.first != 1)
			continue;
		for (j = nt; j-- > 0;)
			if (ts[j].var != NULL && ts[j].call < k &&
			    tok_is(r, a->value.first, CPL_PYTOK_NAME,
				   ts[j].var)) {
				t = &ts[j];
				break;
			}
		if (t == NULL || t->why != NULL)
			continue;
		if (c->func <= 0) {
			/* A task's own method (.after(t)), a list's
			 * append, KFP's helpers: none sets resources. */
			if (c->import >= 0 &&
			    !cpl_str_starts(c->target, "kfp.") &&
			    ktask_of(r, ts, nt, k, 0) < 0)
				t->why = "it is handed to a helper the file "
					 "does not hold, which may set its "
					 "resources";
			continue;
		}
		fn = &r->f->scopes[c->func];
		if (a->keyword != NULL)
			param = a->keyword;
		else if (npos - 1 < fn->nparams && fn->params[npos - 1].star ==
			 0)
			param = fn->params[npos - 1].name;
		if (param == NULL) {
			t->why = "it is handed to a helper whose parameter "
				 "the file does not fix";
			continue;
		}
		for (j = 0; j < fn->ncalls; j++) {
			const struct cpl_pycall *h = &r->f->calls[fn->calls[j]];
			const char *dot = strrchr(h->callee, '.');

			if (kfp_shm(r, t, (int)fn->calls[j], param))
				continue;
			if (dot != NULL &&
			    (size_t)(dot - h->callee) == strlen(param) &&
			    strncmp(h->callee, param, strlen(param)) == 0)
				ktask_set(r, t, (int)fn->calls[j], dot + 1);
		}
	}
}

/* One @dsl.pipeline function s: its tasks become workloads. */
static void
kfp_pipeline(struct rd *r, size_t s)
{
	const struct cpl_pyscope *sc = &r->f->scopes[s];
	struct ktask *ts = NULL;
	size_t nt = 0, cap = 0, i;

	for (i = 0; i < sc->ncalls; i++) {
		const struct cpl_pycall *c = &r->f->calls[sc->calls[i]];
		int comp;
		struct ktask *t;

		if (strchr(c->callee, '.') != NULL ||
		    (comp = cpl_pyscan_func_find(r->f, c->callee)) <= 0 ||
		    !r->decl[comp])
			continue;
		cpl_xgrow((void **)&ts, &cap, nt + 1, sizeof(*ts));
		t = &ts[nt++];
		t->call = (int)sc->calls[i];
		t->var = c->assign >= 0 ? r->f->assigns[c->assign].name : NULL;
		t->comp = (size_t)comp;
		t->why = NULL;
		t->w = new_workload(r, "KFP task", sc->name,
				    t->var ? t->var : c->callee, c->callee,
				    c->pos, "read by the KFP DSL reader: the "
				    "component's function is the code");
	}
	for (i = 0; i < sc->ncalls && nt > 0; i++) {
		int k = (int)sc->calls[i], ti;
		const struct cpl_pycall *c = &r->f->calls[k];
		const char *dot = strrchr(c->callee, '.');

		if (ends_name(c->target, "empty_dir_mount")) {
			size_t j;

			for (j = nt; j-- > 0;)
				if (ts[j].var != NULL && ts[j].call < k &&
				    kfp_shm(r, &ts[j], k, ts[j].var))
					break;
			continue;
		}
		kfp_passed(r, ts, nt, k);
		if (dot == NULL || (ti = ktask_of(r, ts, nt, k, 0)) < 0 ||
		    ts[ti].call == k)
			continue;
		ktask_set(r, &ts[ti], k, dot + 1);
	}
	for (i = 0; i < nt; i++) {
		struct cpl_container *c = &ts[i].w->containers[0];

		if (ts[i].why != NULL) {
			not_judged(r, "KFP task", ts[i].w->replica,
				   r->f->calls[ts[i].call].pos, ts[i].why);
			cpl_workload_free(ts[i].w);
			continue;
		}
		keep_code(r, c, ts[i].comp, true);
		emit(r, ts[i].w);
	}
	free(ts);
}

static void
read_kfp(struct rd *r)
{
	size_t s;

	for (s = 1; s < r->f->nscopes; s++)
		r->decl[s] = r->f->scopes[s].kind == CPL_PYSCOPE_FUNC &&
			      deco_of(r, s, "kfp", "component") != NULL;
	for (s = 1; s < r->f->nscopes; s++)
		if (r->f->scopes[s].kind == CPL_PYSCOPE_FUNC &&
		    deco_of(r, s, "kfp", "pipeline") != NULL)
			kfp_pipeline(r, s);
}

/* ---- Metaflow ---- */

/* One step s of flow class cls with a compute decorator. */
static void
metaflow_step(struct rd *r, size_t s, const char *cls)
{
	const struct deco *kd = deco_of(r, s, "metaflow", "kubernetes");
	const struct deco *rd_ = deco_of(r, s, "metaflow", "resources");
	const struct deco *td = deco_of(r, s, "metaflow", "torchrun");
	const struct deco *pd = deco_of(r, s, "metaflow",
					"pytorch_parallel");
	const struct deco *src[2] = { kd, rd_ }, *ed, *dp;
	const struct cpl_pyarg *a;
	const char *name = r->f->scopes[s].name, *why = NULL;
	int64_t cpu = 0;
	enum vstate cs = V_ABSENT;
	struct cpl_pos cpos = { 0 };
	long gpus = 0, shm = -1;
	bool guaranteed = false;
	struct cpl_workload *w;
	struct cpl_container *c;
	size_t i;

	for (i = 0; i < 2 && why == NULL; i++) {
		int64_t v = 0;
		enum vstate st = V_ABSENT;
		struct cpl_pos p = { 0 };

		if (src[i] == NULL || src[i]->call < 0)
			continue;
		if (!read_res(r, src[i]->call, "cpu", "gpu", false, &v, &st,
			      &p, &gpus, &why))
			break;
		if (st == V_KNOWN && (cs != V_KNOWN || v > cpu)) {
			cpu = v;
			cpos = p;
			cs = V_KNOWN;
		}
		if ((a = kwarg(r, src[i]->call, "shared_memory")) != NULL) {
			long n = count(r, &a->value);

			if (n < 0 && !tok_is(r, a->value.first,
					     CPL_PYTOK_KEYWORD, "None")) {
				why = "its shared_memory is a value the file "
				      "does not fix";
				break;
			}
			if (n > shm)
				shm = n;
		}
		if (i == 0 && (a = kwarg(r, src[i]->call, "qos")) != NULL) {
			char *q = str_lit(r, a->value.first);

			/* metaflow's qos_requests_and_limits(): any case */
			guaranteed = q != NULL && strcasecmp(q,
							     "guaranteed") == 0;
			free(q);
		}
	}
	if (why != NULL) {
		not_judged(r, "Metaflow step", name, r->f->scopes[s].pos, why);
		return;
	}
	if (cs != V_KNOWN) {
		/* @kubernetes's and @resources' own default: cpu="1". */
		cpu = 1000;
		cpos = (kd ? kd : rd_)->pos;
		cs = V_KNOWN;
	}
	dp = kd ? kd : rd_;
	w = new_workload(r, "Metaflow step", cls, name, name, dp->pos,
			 "read by the Metaflow reader: the step is the code; "
			 "its CPU is a request");
	c = &w->containers[0];
	set_cpu(w, c, cpu, cs, cpos, cpu, guaranteed ? cs : V_ABSENT, cpos);
	c->gpus = gpus;
	if (shm > 0) {
		c->shm = true;
		c->shm_bytes = (int64_t)shm * 1024 * 1024;
	}
	if (td != NULL || pd != NULL) {
		w->training_job = true;
		c->run_container = true;
	}
	ed = deco_of(r, s, "metaflow", "environment");
	if (ed != NULL && (a = kwarg(r, ed->call, "vars")) != NULL &&
	    !read_env(r, c, w, &a->value))
		c->env_from = true;
	if (td != NULL)	/* its ranks and thread env are torchrun's call */
		cpl_container_set_env(c, "OMP_NUM_THREADS", NULL,
				      at(w, td->pos));
	keep_code(r, c, s, false);
	emit(r, w);
}

static void
read_metaflow(struct rd *r)
{
	size_t s;

	for (s = 1; s < r->f->nscopes; s++)
		r->decl[s] = deco_of(r, s, "metaflow", "step") != NULL;
	for (s = 1; s < r->f->nscopes; s++) {
		const struct cpl_pyscope *sc = &r->f->scopes[s];

		if (!r->decl[s] || sc->cls < 0 ||
		    strstr(r->f->scopes[sc->cls].bases, "FlowSpec") == NULL)
			continue;
		/* A step without a compute decorator may run anywhere
		 * (locally, --with kubernetes): the file says nothing of
		 * its container. */
		if (deco_of(r, s, "metaflow", "kubernetes") ||
		    deco_of(r, s, "metaflow", "resources"))
			metaflow_step(r, s, r->f->scopes[sc->cls].name);
	}
}

/* ---- Ray Train ---- */

/* One TorchTrainer(...) call k. */
static void
ray_trainer(struct rd *r, int k)
{
	const struct cpl_pycall *call = &r->f->calls[k];
	const struct cpl_pyarg *a = kwarg(r, k, "train_loop_per_worker");
	const struct cpl_pyarg *sa = kwarg(r, k, "scaling_config");
	int sc = -1, fn = -1;
	int64_t cpu = 1000, g = 0;
	long workers = 1, gpus = 0, omp;
	struct cpl_pos cpos = call->pos;
	const char *why = NULL;
	struct cpl_workload *w;
	struct cpl_container *c;
	char *fname = NULL;

	if (a == NULL)
		a = posarg(r, k, 0);
	if (a != NULL && a->value.last - a->value.first == 1 &&
	    tok_is(r, a->value.first, CPL_PYTOK_NAME, NULL)) {
		fname = cpl_xstrndup(r->f->text + r->t[a->value.first].off,
				     r->t[a->value.first].len);
		fn = cpl_pyscan_func_find(r->f, fname);
	}
	if (fn <= 0)
		why = "its train_loop_per_worker is no def of this file";
	if (why == NULL && sa != NULL) {
		sc = expr_call(r, &sa->value, 0);
		if (sc < 0 || !ends_name(r->f->calls[sc].target,
					 "ScalingConfig") || spread(r, sc))
			why = "its scaling_config is a value the file does "
			      "not fix";
	}
	if (why == NULL && sc >= 0) {
		const struct cpl_pyarg *x;
		struct cpl_pyexpr v;
		int got;

		cpos = r->f->calls[sc].pos;
		if ((x = kwarg(r, sc, "num_workers")) != NULL)
			workers = count(r, &x->value);
		if ((x = kwarg(r, sc, "use_gpu")) != NULL &&
		    tok_is(r, x->value.first, CPL_PYTOK_KEYWORD, "True"))
			gpus = 1;
		if ((x = kwarg(r, sc, "resources_per_worker")) != NULL) {
			got = dict_get(r, &x->value, "CPU", &v, 0);
			if (got < 0 || (got > 0 &&
				       amount(r, &v, &cpu, false, 0) !=
				       V_KNOWN))
				why = "its resources_per_worker is a value the "
				      "file does not fix";
			else if (got > 0)
				cpos = v.pos;
			got = why ? 0 : dict_get(r, &x->value, "GPU", &v, 0);
			if (got > 0 && amount(r, &v, &g, true, 0) == V_KNOWN &&
			    gpus > 0)
				gpus = (long)g;
		}
	}
	if (why != NULL) {
		not_judged(r, "Ray TorchTrainer", fname ? fname : "?",
			   call->pos, why);
		free(fname);
		return;
	}
	w = new_workload(r, "Ray TorchTrainer", fname, NULL, fname, call->pos,
			 "read by the Ray Train reader: each worker runs "
			 "train_loop_per_worker with its CPUs as its budget, "
			 "and Ray sets its OMP_NUM_THREADS to them");
	free(fname);
	c = &w->containers[0];
	w->replicas = workers > 0 ? workers : 1;
	/* The worker Pods (and their /dev/shm, which Ray's object store
	 * needs anyway) are the RayCluster's, not this file's. */
	w->platform_shm = true;
	w->training_job = true;
	c->run_container = true;
	set_cpu(w, c, cpu, V_KNOWN, cpos, cpu, V_KNOWN, cpos);
	c->gpus = gpus;
	/* ray/_private/utils.py: int(assigned CPUs), at least 1.  Ray
	 * writes it, not the file: no place a fix could edit (the CPUs
	 * it comes from are the worker's budget, not a thread count). */
	omp = (long)(cpu / 1000);
	{
		char n[24];
		struct cpl_pos none = { 0 };

		cpl_format(n, sizeof(n), "%ld", omp > 0 ? omp : 1);
		cpl_container_set_env(c, "OMP_NUM_THREADS", n, none);
	}
	keep_code(r, c, (size_t)fn, false);
	emit(r, w);
}

static void
read_ray(struct rd *r)
{
	size_t k, s;

	for (k = 0; k < r->f->ncalls; k++)
		if (ends_name(r->f->calls[k].target, "TorchTrainer") &&
		    cpl_str_starts(r->f->calls[k].target, "ray.")) {
			const struct cpl_pyarg *a =
				kwarg(r, (int)k, "train_loop_per_worker");

			if (a == NULL)
				a = posarg(r, (int)k, 0);
			for (s = 1; a != NULL && s < r->f->nscopes; s++)
				if (a->value.last - a->value.first == 1 &&
				    tok_is(r, a->value.first, CPL_PYTOK_NAME,
					   r->f->scopes[s].name))
					r->decl[s] = true;
		}
	for (k = 0; k < r->f->ncalls; k++)
		if (ends_name(r->f->calls[k].target, "TorchTrainer") &&
		    cpl_str_starts(r->f->calls[k].target, "ray."))
			ray_trainer(r, (int)k);
}

/* ---- ZenML ---- */

/* The ResourceSettings call of decorator call k's settings["resources"]:
 * 1 and *out, 0 when it names none, -1 when the file does not fix it. */
static int
zenml_resources(const struct rd *r, int k, int *out)
{
	const struct cpl_pyarg *a = kwarg(r, k, "settings");
	struct cpl_pyexpr v;
	int got;

	if (a == NULL)
		return 0;
	got = dict_get(r, &a->value, "resources", &v, 0);
	if (got <= 0)
		return got;
	*out = expr_call(r, &v, 0);
	if (*out < 0 || !ends_name(r->f->calls[*out].target,
				   "ResourceSettings") || spread(r, *out))
		return -1;
	return 1;
}

/* One @step on def s (decorator d) with settings["resources"]; pcpu is
 * the CPU the file's @pipeline settings give its steps (V_ABSENT: none),
 * which ZenML merges under the step's own. */
static void
zenml_step(struct rd *r, size_t s, const struct deco *d, int64_t pcpu,
	   enum vstate pcs, struct cpl_pos ppos)
{
	const char *name = r->f->scopes[s].name, *why = NULL;
	int got, k = -1;
	int64_t cpu = 0;
	enum vstate cs = V_ABSENT;
	struct cpl_pos cpos = d->pos;
	long gpus = 0;
	struct cpl_workload *w;
	struct cpl_container *c;

	got = zenml_resources(r, d->call, &k);
	if (got == 0)
		return;		/* settings of other kinds */
	if (got < 0)
		why = "its resource settings are a value the file does not "
		      "fix";
	else
		(void)read_res(r, k, "cpu_count", "gpu_count", false, &cpu,
			       &cs, &cpos, &gpus, &why);
	if (why == NULL && cs == V_ABSENT && pcs == V_KNOWN) {
		cpu = pcpu;
		cs = pcs;
		cpos = ppos;
	}
	if (why != NULL) {
		not_judged(r, "ZenML step", name, d->pos, why);
		return;
	}
	w = new_workload(r, "ZenML step", name, NULL, name, d->pos,
			 "read by the ZenML reader: the step function is the "
			 "code; cpu_count is its CPU budget");
	c = &w->containers[0];
	/* The orchestrator decides: Kubeflow's sets it as the limit,
	 * Trainer's as both; either way it is the step's budget, and
	 * whether a limit is missing is not the file's to say. */
	set_cpu(w, c, cpu, cs, cpos, cpu, cs, cpos);
	/* No cpu_count here: a run configuration may set one. */
	w->platform_cpu = cs != V_KNOWN;
	c->gpus = gpus;
	keep_code(r, c, s, false);
	emit(r, w);
}

static void
read_zenml(struct rd *r)
{
	size_t s;
	int64_t pcpu = 0;
	enum vstate pcs = V_ABSENT;
	struct cpl_pos ppos = { 0 };

	for (s = 1; s < r->f->nscopes; s++) {
		const struct deco *p = deco_of(r, s, "zenml", "pipeline");
		const char *why = NULL;
		long g = 0;
		int k;

		r->decl[s] = deco_of(r, s, "zenml", "step") != NULL;
		/* One pipeline's settings, when the file has one that
		 * fixes them: its steps' default. */
		if (p != NULL && p->call >= 0 && pcs == V_ABSENT &&
		    zenml_resources(r, p->call, &k) > 0)
			(void)read_res(r, k, "cpu_count", NULL, false, &pcpu,
				       &pcs, &ppos, &g, &why);
		if (why != NULL)
			pcs = V_ABSENT;
	}
	for (s = 1; s < r->f->nscopes; s++) {
		const struct deco *d = deco_of(r, s, "zenml", "step");

		if (d != NULL && d->call >= 0 &&
		    r->f->scopes[s].kind == CPL_PYSCOPE_FUNC)
			zenml_step(r, s, d, pcpu, pcs, ppos);
	}
}

int
cpl_pywork_load(struct cpl_wlist *out, const char *path, const char *text,
		size_t len)
{
	struct cpl_pyfile *f = NULL;
	struct cpl_error err = { 0 };
	struct rd r = { .out = out };
	enum fw fw = FW_NONE;
	size_t i;

	if (!cpl_pywork_screen(text, len))
		return 0;
	/* A tokenizer error is reported when the file is scanned for the
	 * code rules; a file that does not read is declared nothing. */
	if (cpl_pyscan_file(&f, path, text, len, &err) != 0 || f == NULL) {
		cpl_error_clear(&err);
		cpl_pyfile_free(f);
		return 0;
	}
	for (i = 0; i < f->nimports && fw == FW_NONE; i++) {
		const char *m = f->imports[i].module;

		if (f->imports[i].level > 0 || m == NULL)
			continue;
		if (cpl_str_starts(m, "flytekit"))
			fw = FW_FLYTE;
		else if (cpl_str_eq(m, "kfp") || cpl_str_starts(m, "kfp."))
			fw = FW_KFP;
		else if (cpl_str_eq(m, "metaflow"))
			fw = FW_METAFLOW;
		else if (cpl_str_starts(m, "ray.train"))
			fw = FW_RAY;
		else if (cpl_str_eq(m, "zenml") || cpl_str_starts(m, "zenml."))
			fw = FW_ZENML;
	}
	if (fw == FW_NONE) {
		cpl_pyfile_free(f);
		return 0;
	}
	r.f = f;
	r.t = cpl_pyfile_toks(f);
	r.by_scope = cpl_xcalloc(f->nscopes, sizeof(*r.by_scope));
	r.decl = cpl_xcalloc(f->nscopes, sizeof(*r.decl));
	if (r.t != NULL) {
		read_decorators(&r);
		switch (fw) {
		case FW_FLYTE: read_flyte(&r); break;
		case FW_KFP: read_kfp(&r); break;
		case FW_METAFLOW: read_metaflow(&r); break;
		case FW_RAY: read_ray(&r); break;
		case FW_ZENML: read_zenml(&r); break;
		case FW_NONE: break;
		}
	}
	for (i = 0; i < f->nscopes; i++) {
		size_t k;

		for (k = 0; k < r.by_scope[i].n; k++)
			free(r.by_scope[i].d[k].target);
	}
	free(r.by_scope);
	free(r.decl);
	cpl_pyfile_free(f);
	return 0;
}

bool
cpl_pywork_screen(const char *text, size_t len)
{
	static const char *const words[] = {
		"flytekit", "kfp", "metaflow", "ray.train", "zenml",
	};
	size_t k;

	for (k = 0; k < CPL_ARRAY_LEN(words); k++)
		if (memmem(text, len, words[k], strlen(words[k])) != NULL)
			return true;
	return false;
}
