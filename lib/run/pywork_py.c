/*
 * pywork_py.c — reading one declaration of a workload in Python, for
 * the framework readers of pywork.c: tokens and the values they fix (a
 * literal, a name bound once, a dict display), decorators and what they
 * name through the imports, the code a workload is given (the file laid
 * at its lines, every def and class its function does not reach
 * blanked), and the workload itself.  Never a guess: what the text does
 * not fix is CPL_PYW_UNKNOWN.
 *
 * Any thread: reads only the file it is given.
 * Ownership: see pywork_int.h.
 */
#include "run/pywork_int.h"

#include <stdlib.h>
#include <string.h>

#include "python/pyvalue.h"
#include "text/quantity.h"

/* ---- tokens and values ---- */

/* Whether token i is of kind k and, with s, spelled s. */
bool
cpl_pyw_tok_is(const struct cpl_pyw_rd *r, size_t i, enum cpl_pytok_kind k,
	       const char *s)
{
	const struct cpl_pytoken *t = &r->t[i];

	return i < r->f->ntoks && t->kind == k &&
	       (s == NULL || (strlen(s) == t->len &&
			      memcmp(r->f->text + t->off, s, t->len) == 0));
}

/* A string token's contents when it is a plain literal (no f-string, no
 * escape), copied; NULL otherwise. */
char *
cpl_pyw_str_lit(const struct cpl_pyw_rd *r, size_t i)
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

/*
 * The expression name u (a NAME token, read in u's scope and block)
 * stands for: in its own scope, the nearest assignment before it, when
 * that is in u's own block (so it surely ran, and no other came after:
 * a name set in both branches of an if is not fixed); else, from a def,
 * the module's one assignment of it.  False when there is none, or it
 * is no single value (unpacking, +=, a for or with target).
 */
static bool
name_value(const struct cpl_pyw_rd *r, const struct cpl_pyexpr *u,
	   struct cpl_pyexpr *e)
{
	const struct cpl_pytoken *t = &r->t[u->first];
	char *name = cpl_xstrndup(r->f->text + t->off, t->len);
	int a = cpl_pyscan_assign_last(r->f, u->scope, name);
	const struct cpl_pyassign *as;

	while (a >= 0 && r->f->assigns[a].tok > u->first)
		a = r->f->assigns[a].prev;
	if (a >= 0 && (u->block < 0 || r->f->assigns[a].block != u->block))
		a = -1;
	if (a < 0 && u->scope != 0 &&
	    cpl_pyscan_assign_last(r->f, u->scope, name) < 0) {
		a = cpl_pyscan_assign_last(r->f, 0, name);
		if (a >= 0 && r->f->assigns[a].prev >= 0)
			a = -1;	/* set twice: which one ran first? */
	}
	free(name);
	if (a < 0)
		return false;
	as = &r->f->assigns[a];
	if (as->opaque || as->index >= 0 || strcmp(as->op, "=") != 0)
		return false;
	*e = as->value;
	return e->first < e->last;
}

/* The call expression e is, through one name; -1 when it is none. */
int
cpl_pyw_expr_call(const struct cpl_pyw_rd *r, const struct cpl_pyexpr *e,
		  int depth)
{
	size_t k;
	struct cpl_pyexpr v;

	if (e->first >= e->last)
		return -1;
	if (e->last - e->first == 1 && cpl_pyw_tok_is(r, e->first, CPL_PYTOK_NAME,
					      NULL)) {
		if (depth > 0 || !name_value(r, e, &v))
			return -1;
		return cpl_pyw_expr_call(r, &v, depth + 1);
	}
	for (k = cpl_pyscan_call_from(r->f, e->first);
	     k < r->f->ncalls && r->f->calls[k].open < e->last; k++)
		if (r->f->calls[k].first == e->first &&
		    r->f->calls[k].close + 1 == e->last)
			return (int)k;
	return -1;
}

/* Whether dotted name s ends in the component last. */
bool
cpl_pyw_ends_name(const char *s, const char *last)
{
	size_t n = s ? strlen(s) : 0, m = strlen(last);

	return n >= m && strcmp(s + n - m, last) == 0 &&
	       (n == m || s[n - m - 1] == '.');
}

/* The keyword argument kw of call k (NULL: none). */
const struct cpl_pyarg *
cpl_pyw_kwarg(const struct cpl_pyw_rd *r, int k, const char *kw)
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
const struct cpl_pyarg *
cpl_pyw_posarg(const struct cpl_pyw_rd *r, int k, size_t n)
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
bool
cpl_pyw_spread(const struct cpl_pyw_rd *r, int k)
{
	size_t i;

	for (i = 0; i < r->f->calls[k].nargs; i++)
		if (r->f->calls[k].args[i].star)
			return true;
	return false;
}


/* A CPU (or GPU) amount written as e: a string or number literal, or a
 * name bound once to one; *millis in millicores.  With whole, a count
 * (GPUs): *millis is the number itself. */
enum cpl_pyw_vstate
cpl_pyw_amount(const struct cpl_pyw_rd *r, const struct cpl_pyexpr *e,
	       int64_t *millis, bool whole, int depth)
{
	const char *why;
	char *s = NULL;
	struct cpl_pyexpr v;
	int rc;

	if (e == NULL || e->first >= e->last)
		return CPL_PYW_ABSENT;
	if (e->last - e->first == 1 && cpl_pyw_tok_is(r, e->first, CPL_PYTOK_NAME,
					      NULL)) {
		if (depth > 0 || !name_value(r, e, &v))
			return CPL_PYW_UNKNOWN;
		return cpl_pyw_amount(r, &v, millis, whole, depth + 1);
	}
	if (e->last - e->first != 1)
		return CPL_PYW_UNKNOWN;
	if (cpl_pyw_tok_is(r, e->first, CPL_PYTOK_NUMBER, NULL))
		s = cpl_xstrndup(r->f->text + r->t[e->first].off,
				 r->t[e->first].len);
	else
		s = cpl_pyw_str_lit(r, e->first);
	if (s == NULL)
		return CPL_PYW_UNKNOWN;
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
	return rc == 0 ? CPL_PYW_KNOWN : CPL_PYW_UNKNOWN;
}

/* A count resolved as the code resolves one (literals, names, simple
 * arithmetic); -1 when it is not known. */
long
cpl_pyw_count(const struct cpl_pyw_rd *r, const struct cpl_pyexpr *e)
{
	struct cpl_pyval v;

	if (e == NULL || e->first >= e->last)
		return -1;
	cpl_pyvalue_expr(&v, r->f, e, NULL, NULL);
	return v.kind == CPL_PYVAL_KNOWN && v.value >= 0 ? v.value : -1;
}

/* Token i is a line break or comment inside brackets. */
static bool
soft(const struct cpl_pyw_rd *r, size_t i)
{
	return r->t[i].kind == CPL_PYTOK_NL ||
	       r->t[i].kind == CPL_PYTOK_COMMENT;
}

/* The value of key (a string) in dict display e: 1 and *val when there,
 * 0 when the display lacks it, -1 when e is no display the text fixes. */
int
cpl_pyw_dict_get(const struct cpl_pyw_rd *r, const struct cpl_pyexpr *e,
		 const char *key, struct cpl_pyexpr *val, int depth)
{
	size_t i, kfirst;
	int level = 0;
	struct cpl_pyexpr v;

	if (e->first >= e->last)
		return -1;
	if (e->last - e->first == 1 && cpl_pyw_tok_is(r, e->first, CPL_PYTOK_NAME,
					      NULL)) {
		if (depth > 0 || !name_value(r, e, &v))
			return -1;
		return cpl_pyw_dict_get(r, &v, key, val, depth + 1);
	}
	if (!cpl_pyw_tok_is(r, e->first, CPL_PYTOK_OP, "{") ||
	    !cpl_pyw_tok_is(r, e->last - 1, CPL_PYTOK_OP, "}"))
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
			char *k = i == kfirst + 1 ? cpl_pyw_str_lit(r, kfirst) : NULL;
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
resolve_name(const struct cpl_pyw_rd *r, const char *name, size_t n)
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
void
cpl_pyw_read_decorators(struct cpl_pyw_rd *r)
{
	struct cpl_pyw_decos pending = { .n = 0 };
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
		if (line_start && cpl_pyw_tok_is(r, i, CPL_PYTOK_OP, "@")) {
			struct cpl_buf b;
			size_t j = i + 1;
			struct cpl_pyw_deco *d;

			cpl_buf_init(&b, 4096);
			while (j < r->f->ntoks &&
			       (cpl_pyw_tok_is(r, j, CPL_PYTOK_NAME, NULL) ||
				cpl_pyw_tok_is(r, j, CPL_PYTOK_OP, "."))) {
				cpl_buf_add(&b, r->f->text + r->t[j].off,
					    r->t[j].len);
				j++;
			}
			if (pending.n == 0)
				pending.first_line = t->line;
			if (pending.n < CPL_PYW_MAX_DECOS && b.len > 0) {
				d = &pending.d[pending.n++];
				d->target = resolve_name(r, cpl_buf_str(&b),
							 b.len);
				d->call = cpl_pyw_tok_is(r, j, CPL_PYTOK_OP, "(") ?
					  cpl_pyscan_call_at(r->f, j) : -1;
				d->pos = cpl_pyscan_pos(r->f, i);
			}
			cpl_buf_free(&b);
			line_start = false;
			continue;
		}
		if (line_start && (cpl_pyw_tok_is(r, i, CPL_PYTOK_KEYWORD, "def") ||
				   cpl_pyw_tok_is(r, i, CPL_PYTOK_KEYWORD, "class") ||
				   cpl_pyw_tok_is(r, i, CPL_PYTOK_NAME, "async") ||
				   cpl_pyw_tok_is(r, i, CPL_PYTOK_KEYWORD, "async"))) {
			size_t j = i + 1, s;

			if (!cpl_pyw_tok_is(r, i, CPL_PYTOK_KEYWORD, "def") &&
			    !cpl_pyw_tok_is(r, i, CPL_PYTOK_KEYWORD, "class"))
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
const struct cpl_pyw_deco *
cpl_pyw_deco_of(const struct cpl_pyw_rd *r, size_t s, const char *mod,
		const char *last)
{
	const struct cpl_pyw_decos *ds = &r->by_scope[s];
	size_t i, n = strlen(mod);

	for (i = 0; i < ds->n; i++) {
		const char *t = ds->d[i].target;

		if (strncmp(t, mod, n) == 0 && (t[n] == '.' || t[n] == '\0') &&
		    cpl_pyw_ends_name(t, last))
			return &ds->d[i];
	}
	return NULL;
}

/* ---- workloads ---- */

/* The last line of scope s's body. */
static int
scope_end(const struct cpl_pyw_rd *r, size_t s)
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
scope_start(const struct cpl_pyw_rd *r, size_t s)
{
	const struct cpl_pyw_decos *ds = &r->by_scope[s];

	return ds->n > 0 && ds->first_line < r->f->scopes[s].pos.line ?
	       ds->first_line : r->f->scopes[s].pos.line;
}

/* Whether scope k is a or inside it. */
static bool
inside(const struct cpl_pyw_rd *r, size_t k, size_t a)
{
	int p = (int)k;

	while (p > 0 && (size_t)p != a)
		p = r->f->scopes[p].parent;
	return p >= 0 && (size_t)p == a;
}

/* Keeps scope k and the scopes inside it (after it in source order,
 * while inside), queueing each newly kept one on q (*nq of them). */
static void
keep_tree(const struct cpl_pyw_rd *r, size_t k, bool *keep, size_t *q,
	  size_t *nq)
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
reach(const struct cpl_pyw_rd *r, size_t s, bool *keep)
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
void
cpl_pyw_keep_code(const struct cpl_pyw_rd *r, struct cpl_container *c, size_t s,
		  bool only)
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
struct cpl_workload *
cpl_pyw_new_workload(const struct cpl_pyw_rd *r, const char *kind,
		     const char *name, const char *replica, const char *cname,
		     struct cpl_pos pos, const char *note)
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
struct cpl_pos
cpl_pyw_at(const struct cpl_workload *w, struct cpl_pos pos)
{
	pos.file = w->file;
	return pos;
}

/* Lists a declaration as not judged, and why. */
void
cpl_pyw_not_judged(const struct cpl_pyw_rd *r, const char *what,
		   const char *name, struct cpl_pos pos, const char *why)
{
	struct cpl_skip *k = cpl_wlist_skip(r->out, r->f->path, pos.line,
					    pos.column, why, "%s \"%s\"",
					    what, name);

	k->kind = cpl_xstrdup(what);
	k->containers = true;
}

/* Appends w to the run's workloads: at most CPL_PYW_MAX_WORKLOADS a file, each
 * with a copy of the file as its code; past them, not judged. */
void
cpl_pyw_emit(struct cpl_pyw_rd *r, struct cpl_workload *w)
{
	if (r->nout >= CPL_PYW_MAX_WORKLOADS) {
		cpl_pyw_not_judged(r, w->kind, w->replica ? w->replica : w->name,
			   w->pos, "more workloads are declared in this file "
			   "than the reader takes from one (512)");
		cpl_workload_free(w);
		return;
	}
	r->nout++;
	cpl_wlist_add(r->out, w);
}

/* The CPU and GPUs of a Resources-like call k into *cpu, *gpus (each
 * CPL_PYW_ABSENT when not given); cpu_kw and gpu_kw are its keywords.  False
 * with *why when a value is not fixed by the text. */
bool
cpl_pyw_read_res(const struct cpl_pyw_rd *r, int k, const char *cpu_kw,
		 const char *gpu_kw, bool cpu_whole, int64_t *cpu,
		 enum cpl_pyw_vstate *cs, struct cpl_pos *cpos, long *gpus,
		 const char **why)
{
	const struct cpl_pyarg *a;
	int64_t g = 0;
	enum cpl_pyw_vstate gs;

	*cs = CPL_PYW_ABSENT;
	if (cpl_pyw_spread(r, k)) {
		*why = "its resources are passed through **kwargs";
		return false;
	}
	if ((a = cpl_pyw_kwarg(r, k, cpu_kw)) != NULL) {
		*cs = cpl_pyw_amount(r, &a->value, cpu, cpu_whole, 0);
		*cpos = a->value.pos;
		if (*cs == CPL_PYW_UNKNOWN) {
			*why = "its CPU is a value the file does not fix";
			return false;
		}
		if (cpu_whole)
			*cpu *= 1000;
	}
	if (gpu_kw != NULL && (a = cpl_pyw_kwarg(r, k, gpu_kw)) != NULL) {
		gs = cpl_pyw_amount(r, &a->value, &g, true, 0);
		if (gs == CPL_PYW_UNKNOWN) {
			*why = "its GPU count is a value the file does not fix";
			return false;
		}
		if (gs == CPL_PYW_KNOWN && g > *gpus)
			*gpus = (long)g;
	}
	return true;
}

/* Adds env from dict display e (string keys and values) to c; false when
 * the display is not one the text fixes. */
bool
cpl_pyw_read_env(const struct cpl_pyw_rd *r, struct cpl_container *c,
	 const struct cpl_workload *w, const struct cpl_pyexpr *e)
{
	size_t i;
	int level = 0;

	if (!cpl_pyw_tok_is(r, e->first, CPL_PYTOK_OP, "{"))
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
		    !cpl_pyw_tok_is(r, i + 1, CPL_PYTOK_OP, ":"))
			continue;
		k = cpl_pyw_str_lit(r, i);
		v = cpl_pyw_str_lit(r, i + 2);
		/* A value that is not one literal is set, unknown. */
		if (v != NULL && !(cpl_pyw_tok_is(r, i + 3, CPL_PYTOK_OP, ",") ||
				   cpl_pyw_tok_is(r, i + 3, CPL_PYTOK_OP, "}"))) {
			free(v);
			v = NULL;
		}
		/* At the value, which a fix may replace (a number). */
		if (k != NULL)
			cpl_container_set_env(c, k, v, cpl_pyw_at(w,
					      cpl_pyscan_pos(r->f, v ? i + 2 :
							     i)));
		free(k);
		free(v);
	}
	return true;
}

/* Sets c's CPU: a request and limit as the framework reads them. */
void
cpl_pyw_set_cpu(const struct cpl_workload *w, struct cpl_container *c,
	int64_t req, enum cpl_pyw_vstate rs, struct cpl_pos rpos, int64_t lim,
	enum cpl_pyw_vstate ls, struct cpl_pos lpos)
{
	if (rs == CPL_PYW_KNOWN) {
		c->cpu_request = req;
		c->request_pos = cpl_pyw_at(w, rpos);
	}
	if (ls == CPL_PYW_KNOWN) {
		c->cpu_limit = lim;
		c->limit_pos = cpl_pyw_at(w, lpos);
	}
}
