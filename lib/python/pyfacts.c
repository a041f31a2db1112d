/*
 * pyfacts.c — the first half of the scanner's post-pass: what each call
 * is, and the typed facts that follow from the calls (pyscan.h).
 *
 * Runs once the walk has recorded every call.  Each callee is resolved
 * to a local def or through the imports ("mp.cpu_count" becomes
 * "multiprocessing.cpu_count") and classified by that target; calls are
 * grouped by scope and by the def they reach; then argparse options,
 * DataLoaders, thread settings, pools, CPU counts and environment
 * settings are recorded from the calls (and from the os.environ[...] = ...
 * subscripts the walk kept), each array in token order, envsets sorted by
 * position.
 *
 * Owns nothing of its own: strings go into the file's arena and facts
 * into the file's arrays, all freed by cpl_pyfile_free().
 */
#include "python/pyscan_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- post-pass: callees and kinds ------------------------------------- */

/* s ends with suffix (inline: a literal's length folds; it runs for
 * every call of a file). */
static inline bool
ends_with(const char *s, const char *suffix)
{
	size_t n, m = strlen(suffix);

	if (s == NULL)
		return false;
	n = strlen(s);
	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* Sets target, func, import and remote of call c. */
static void
resolve_call(struct cpl_pyfile *f, struct cpl_pycall *c)
{
	const char *callee = c->callee, *dot = strchr(callee, '.');
	size_t flen = dot ? (size_t)(dot - callee) : strlen(callee);
	const struct cpl_pyimport *im;
	int i;

	if (callee[0] == '.')
		return;
	if (dot == NULL) {
		c->func = cpl_pyscan_find_def(f, c->scope, callee, flen);
	} else if ((flen == 4 && memcmp(callee, "self", 4) == 0) ||
		   (flen == 3 && memcmp(callee, "cls", 3) == 0)) {
		int cls = f->scopes[c->scope].cls;

		if (cls >= 0 && strchr(dot + 1, '.') == NULL)
			c->func = cpl_pyscan_nmap_get(&f->index->defs, cls,
						      dot + 1,
						      strlen(dot + 1));
	}
	if (c->func >= 0)
		return;
	i = cpl_pyscan_binding_n(f, c->scope, callee, flen);
	if (i < 0)
		return;
	im = &f->imports[i];
	c->import = i;
	c->target = cpl_pyscan_arena_cat(&f->index->arena, im->target, dot,
					 NULL);
	if (im->name) {
		c->remote = cpl_pyscan_arena_cat(&f->index->arena, im->name,
						 dot, NULL);
	} else if (strcmp(im->target, im->module) == 0) {
		if (dot)
			c->remote = fdup(f, dot + 1, strlen(dot + 1));
	} else {
		/* import a.b (binds a): the longest imported module that
		 * prefixes the callee. */
		size_t best = 0, k;

		for (k = 0; k < f->nimports; k++) {
			const struct cpl_pyimport *o = &f->imports[k];
			size_t m = strlen(o->module);

			if (o->name || !cpl_str_eq(o->bound, im->bound) ||
			    strcmp(o->target, o->module) == 0 || m <= best)
				continue;
			if (strncmp(c->target, o->module, m) == 0 &&
			    c->target[m] == '.') {
				best = m;
				c->import = (int)k;
			}
		}
		if (best)
			c->remote = fdup(f, c->target + best + 1,
					 strlen(c->target + best + 1));
	}
}

/* c prints or logs its arguments; last: the last component of its
 * target (classify() has it). */
static bool
is_print(const struct cpl_pycall *c, const char *last)
{
	static const char *const names[] = {
		"print", "pprint", "pprint.pprint", "warnings.warn",
		"click.echo", "click.secho", "tqdm.write", "tqdm.tqdm.write",
		"wandb.log", "rich.print",
	};
	static const char *const logfns[] = {
		"debug", "info", "warning", "warn", "error", "exception",
		"critical", "fatal", "log",
	};
	const char *dot = strrchr(c->callee, '.');
	char recv[64];
	size_t k, n;

	if (IN(c->target, names))
		return true;
	if (dot == NULL || c->callee[0] == '.')
		return false;
	n = (size_t)(dot - c->callee);
	if (n >= sizeof(recv))
		n = sizeof(recv) - 1;
	for (k = 0; k < n; k++) {
		char ch = c->callee[k];

		recv[k] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
	}
	recv[n] = '\0';
	if (IN(last, logfns) && (strstr(recv, "log") != NULL ||
				 cpl_str_starts(c->target, "logging.") ||
				 (str_is(last, "log") &&
				  str_is(recv, "self"))))
		return true;
	if (str_is(last, "write") && (strstr(recv, "stdout") ||
					   strstr(recv, "stderr")))
		return true;
	if ((str_is(last, "print") || str_is(last, "log")) &&
	    strstr(recv, "console"))
		return true;
	return cpl_str_starts(last, "log_") ||
	       cpl_str_starts(last, "add_scalar") ||
	       str_is(last, "set_postfix") ||
	       str_is(last, "set_description");
}

/* ---- post-pass: work that starts the intra-op pool -------------------- */

/*
 * ATen's grain size (at::internal::GRAIN_SIZE): an element-wise kernel over
 * fewer elements runs in the calling thread, so it never starts the
 * intra-op pool.
 */
#define GRAIN_SIZE 32768.0

/* The integer literal spanning tokens [a, b) of f, or -1. */
static double
int_literal(const struct cpl_pyfile *f, size_t a, size_t b)
{
	const struct cpl_pytoken *toks = cpl_pyfile_toks(f);
	double d;
	bool integral;

	while (a < b && (toks[a].kind == CPL_PYTOK_NL ||
			 toks[a].kind == CPL_PYTOK_COMMENT))
		a++;
	while (b > a && (toks[b - 1].kind == CPL_PYTOK_NL ||
			 toks[b - 1].kind == CPL_PYTOK_COMMENT))
		b--;
	if (b != a + 1 || toks[a].kind != CPL_PYTOK_NUMBER ||
	    cpl_pytoken_number(&d, &integral, f->text, &toks[a]) != 0 ||
	    !integral || d < 0)
		return -1;
	return d;
}

/*
 * The least number of elements a size argument asks for: a dimension, or
 * a tuple or list display of them.  A dimension that is not a literal
 * counts as 1.
 */
static double
size_numel(const struct cpl_pyfile *f, const struct cpl_pyexpr *e)
{
	const struct cpl_pytoken *toks = cpl_pyfile_toks(f);
	size_t a = e->first, b = e->last, k, start;
	double n = 1, d;
	int depth = 0;

	if (b > a + 1 && (tok_is(f->text, &toks[a], "(") ||
			  tok_is(f->text, &toks[a], "[")) &&
	    (tok_is(f->text, &toks[b - 1], ")") ||
	     tok_is(f->text, &toks[b - 1], "]"))) {
		a++;
		b--;
	}
	for (k = start = a; k <= b; k++) {
		const struct cpl_pytoken *t = k < b ? &toks[k] : NULL;

		if (t && t->kind == CPL_PYTOK_OP && t->len == 1 &&
		    strchr("([{", f->text[t->off]))
			depth++;
		else if (t && t->kind == CPL_PYTOK_OP && t->len == 1 &&
			 strchr(")]}", f->text[t->off]))
			depth--;
		if (t && !(depth == 0 && tok_is(f->text, t, ",")))
			continue;
		if ((d = int_literal(f, start, k)) >= 0)
			n *= d;
		start = k + 1;
	}
	return n;
}

/* The positional argument i of c (no keyword, no star) or keyword kw. */
static const struct cpl_pyarg *
arg_of(const struct cpl_pycall *c, size_t i, const char *kw)
{
	const struct cpl_pyarg *a = kw ? kwarg(c, kw) : NULL;

	return a ? a : posarg(c, i);
}

/*
 * Whether factory call c (torch.X, X its last name) asks for at least
 * GRAIN_SIZE elements, as far as its literal sizes tell.
 */
static bool
large_factory(const struct cpl_pyfile *f, const struct cpl_pycall *c,
	      const char *x)
{
	const struct cpl_pytoken *toks = cpl_pyfile_toks(f);
	static const char *const dims[] = {
		"zeros", "ones", "rand", "randn",
	};
	const struct cpl_pyarg *a, *b;
	double n = 1, lo, hi, step;
	size_t i;

	if (IN(x, dims)) {
		if ((a = kwarg(c, "size")) != NULL)
			return size_numel(f, &a->value) >= GRAIN_SIZE;
		for (i = 0; (a = posarg(c, i)) != NULL; i++)
			n *= size_numel(f, &a->value);
		return n >= GRAIN_SIZE;
	}
	if (str_is(x, "full") || str_is(x, "randint") ||
	    str_is(x, "normal")) {
		/* the size: size=, else the tuple or list display */
		if ((a = kwarg(c, "size")) != NULL)
			return size_numel(f, &a->value) >= GRAIN_SIZE;
		for (i = 0; (a = posarg(c, i)) != NULL; i++)
			if (tok_is(f->text, &toks[a->value.first], "(") ||
			    tok_is(f->text, &toks[a->value.first], "["))
				return size_numel(f, &a->value) >= GRAIN_SIZE;
		return false;
	}
	if (str_is(x, "randperm") || str_is(x, "eye")) {
		for (i = 0; i < 2 && (a = posarg(c, i)) != NULL; i++)
			n *= size_numel(f, &a->value);
		return n >= GRAIN_SIZE;
	}
	if (str_is(x, "linspace") || str_is(x, "logspace"))
		return (a = arg_of(c, 2, "steps")) != NULL &&
		       size_numel(f, &a->value) >= GRAIN_SIZE;
	if (str_is(x, "arange")) {
		a = posarg(c, 0);
		b = posarg(c, 1);
		if (a == NULL)
			return false;
		lo = b ? int_literal(f, a->value.first, a->value.last) : 0;
		hi = int_literal(f, (b ? b : a)->value.first,
				 (b ? b : a)->value.last);
		step = (a = posarg(c, 2)) != NULL ?
		       int_literal(f, a->value.first, a->value.last) : 1;
		return lo >= 0 && hi >= 0 && step > 0 &&
		       (hi - lo) / step >= GRAIN_SIZE;
	}
	return false;
}

/* Keyword kw of c is a literal True, or (weights=) anything but None. */
static bool
kw_set(const struct cpl_pyfile *f, const struct cpl_pycall *c,
       const char *kw, bool any)
{
	const struct cpl_pytoken *toks = cpl_pyfile_toks(f);
	const struct cpl_pyarg *a = kwarg(c, kw);

	if (a == NULL || a->value.first >= a->value.last)
		return false;
	if (a->value.last == a->value.first + 1 &&
	    toks[a->value.first].kind == CPL_PYTOK_KEYWORD)
		return tok_is(f->text, &toks[a->value.first], "True");
	return any;
}

/* A name that builds or loads a model rather than running one. */
static bool
builder_name(const char *wl)
{
	static const char *const verbs[] = {
		"build_", "create_", "get_", "make_", "init_", "load_",
		"setup_", "prepare_", "construct_", "new_", "define_",
		"wrap_", "save_", "export_", "freeze_", "unwrap_",
	};
	const char *us = strchr(wl, '_');
	size_t i, n;

	if (us == NULL)		/* each verb ends at the name's first '_' */
		return false;
	n = (size_t)(us - wl) + 1;
	for (i = 0; i < CPL_ARRAY_LEN(verbs); i++)
		if (verbs[i][0] == wl[0] && strlen(verbs[i]) == n &&
		    memcmp(wl, verbs[i], n) == 0)
			return true;
	return false;
}

/*
 * c runs work that starts the intra-op thread pool: kernels that split
 * across threads.  Running a model (forward, backward, autograd), compute
 * ops (matmul, convolutions, torch.nn.functional, linalg, fft, cat,
 * stack), tensor factories of at least GRAIN_SIZE elements by their
 * literal sizes, and loading a model or checkpoint (torch.load,
 * from_pretrained, load_state_dict, pretrained weights).  Not: building
 * a model (its initialisers draw random numbers in one thread), moving it
 * (.to(device), .cuda()), small or data-copying tensors (torch.tensor(x),
 * from_numpy), seeds, torch.cuda queries, compiling.  last and recv:
 * its target's last component and whether its callee has a receiver
 * (classify() has them).
 */
static bool
is_tensor(const struct cpl_pyfile *f, const struct cpl_pycall *c,
	  const char *last, bool recv)
{
	static const char *const factories[] = {
		"zeros", "ones", "rand", "randn", "full", "randint",
		"normal", "randperm", "eye", "linspace", "logspace", "arange",
	};
	static const char *const ops[] = {
		"matmul", "mm", "bmm", "einsum", "addmm", "baddbmm",
		"conv1d", "conv2d", "conv3d", "conv_transpose1d",
		"conv_transpose2d", "conv_transpose3d", "cdist", "cat",
		"stack", "load",
	};
	static const char *const loads[] = {
		"torch.jit.load", "torch.jit.trace", "torch.hub.load",
		"torch.hub.load_state_dict_from_url",
		"torch.utils.model_zoo.load_url", "torch.autograd.grad",
		"torch.autograd.backward",
	};
	const char *t = c->target;
	const char *wl = last_comp(c->callee);

	if (cpl_str_starts(t, "torch.")) {
		const char *rest = t + 6;

		if (strchr(rest, '.') == NULL)
			return IN(rest, ops) ||
			       (IN(rest, factories) &&
				large_factory(f, c, rest));
		if (IN(t, loads) || cpl_str_starts(rest, "nn.functional.") ||
		    cpl_str_starts(rest, "linalg.") ||
		    cpl_str_starts(rest, "fft."))
			return true;
	}
	/* Pretrained weights are loaded into the model's tensors. */
	if ((cpl_str_starts(t, "torchvision.models.") ||
	     str_is(t, "timm.create_model")) &&
	    (kw_set(f, c, "weights", true) || kw_set(f, c, "pretrained",
						     false)))
		return true;
	if (recv && (str_is(last, "from_pretrained") ||
		     str_is(last, "load_state_dict") ||
		     str_is(last, "backward") ||
		     str_is(last, "forward")))
		return true;
	/* Running a model: model(x), self.net(x), teacher_model(x); a
	 * CamelCase name is a class being built. */
	return c->func < 0 && !builder_name(wl) &&
	       (str_is(wl, "model") || str_is(wl, "net") ||
		ends_with(wl, "_model") || ends_with(wl, "_net"));
}

/* The kind of call c, from its target. */
static enum cpl_pycall_kind
classify(const struct cpl_pyfile *f, const struct cpl_pycall *c)
{
	/* torch.multiprocessing re-exports multiprocessing (`import
	 * torch.multiprocessing as mp` for mp.spawn, then mp.cpu_count());
	 * multiprocess is dill's fork of it (Hugging Face datasets).
	 * joblib.cpu_count() is not here: it reads the CFS quota. */
	static const char *const counts[] = {
		"os.cpu_count", "multiprocessing.cpu_count", "psutil.cpu_count",
		"os.process_cpu_count", "torch.multiprocessing.cpu_count",
		"multiprocess.cpu_count",
	};
	const char *t = c->target, *last = last_comp(t);
	bool recv = strchr(c->callee, '.') != NULL, local = c->func >= 0;

	if (IN(t, counts))
		return CPL_PYCALL_CPU_COUNT;
	if (str_is(t, "len") && !local && c->nargs == 1 &&
	    c->args[0].keyword == NULL && c->args[0].star == 0) {
		int in = cpl_pyscan_expr_call(f, &c->args[0].value);

		if (in >= 0 && strcmp(f->calls[in].target,
				      "os.sched_getaffinity") == 0)
			return CPL_PYCALL_CPU_COUNT;
	}
	if (str_is(t, "torch.set_num_threads"))
		return CPL_PYCALL_SET_THREADS;
	if (str_is(t, "torch.set_num_interop_threads"))
		return CPL_PYCALL_SET_INTEROP;
	if (str_is(t, "cv2.setNumThreads"))
		return CPL_PYCALL_CV2_THREADS;
	if (cpl_str_starts(t, "cv2."))
		return CPL_PYCALL_CV2;
	if (!local && str_is(last, "DataLoader"))
		return CPL_PYCALL_DATALOADER;
	if (!local && (str_is(last, "Pool") ||
		       str_is(last, "ThreadPool")))
		return CPL_PYCALL_POOL;
	if (!local && str_is(last, "ProcessPoolExecutor"))
		return CPL_PYCALL_PROCESS_POOL;
	if (!local && str_is(last, "ThreadPoolExecutor"))
		return CPL_PYCALL_THREAD_POOL;
	if (recv && str_is(last, "add_argument"))
		return CPL_PYCALL_ADD_ARGUMENT;
	if (recv && (str_is(last, "parse_args") ||
		     str_is(last, "parse_known_args") ||
		     str_is(last, "parse_intermixed_args")))
		return CPL_PYCALL_PARSE_ARGS;
	if (!local && is_print(c, last))
		return CPL_PYCALL_PRINT;
	if (is_tensor(f, c, last, recv))
		return CPL_PYCALL_TENSOR;
	return CPL_PYCALL_OTHER;
}

const char *
cpl_pyscan_kind_name(enum cpl_pycall_kind k)
{
	switch (k) {
	case CPL_PYCALL_OTHER: return "other";
	case CPL_PYCALL_CPU_COUNT: return "cpu-count";
	case CPL_PYCALL_SET_THREADS: return "set-num-threads";
	case CPL_PYCALL_SET_INTEROP: return "set-num-interop-threads";
	case CPL_PYCALL_CV2_THREADS: return "cv2-set-num-threads";
	case CPL_PYCALL_CV2: return "cv2";
	case CPL_PYCALL_DATALOADER: return "dataloader";
	case CPL_PYCALL_POOL: return "pool";
	case CPL_PYCALL_PROCESS_POOL: return "process-pool";
	case CPL_PYCALL_THREAD_POOL: return "thread-pool";
	case CPL_PYCALL_ADD_ARGUMENT: return "add-argument";
	case CPL_PYCALL_PARSE_ARGS: return "parse-args";
	case CPL_PYCALL_TENSOR: return "tensor";
	case CPL_PYCALL_PRINT: return "print";
	}
	return "?";
}

/* ---- post-pass: facts ------------------------------------------------- */

/* A plain string literal spanning e exactly, in the arena; NULL else. */
static char *
expr_string(struct cpl_pyfile *f, const struct cpl_pyexpr *e)
{
	const struct cpl_pytoken *toks = cpl_pyfile_toks(f);
	char *s, *r;

	if (e->last != e->first + 1 ||
	    toks[e->first].kind != CPL_PYTOK_STRING ||
	    cpl_pytoken_string(&s, f->text, &toks[e->first]) != 0)
		return NULL;
	r = fdup(f, s, strlen(s));
	free(s);
	return r;
}

/* A dotted name spanning e exactly ("int", "np.int64"), in the arena. */
static char *
expr_dotted(struct cpl_pyfile *f, const struct cpl_pyexpr *e)
{
	const struct cpl_pytoken *toks = cpl_pyfile_toks(f);
	size_t k;

	if (e->first >= e->last)
		return NULL;
	for (k = e->first; k < e->last; k++) {
		bool name = toks[k].kind == CPL_PYTOK_NAME;
		bool dot = toks[k].kind == CPL_PYTOK_OP &&
			   tok_is(f->text, &toks[k], ".");

		if ((k - e->first) % 2 == 0 ? !name : !dot)
			return NULL;
	}
	if ((e->last - e->first) % 2 == 0)
		return NULL;
	return fdup(f, f->text + toks[e->first].off,
		    toks[e->last - 1].off + toks[e->last - 1].len -
			    toks[e->first].off);
}

/* Records the argparse option that call ci defines. */
static void
add_argdef(struct cpl_pyfile *f, int ci)
{
	const struct cpl_pycall *c = &f->calls[ci];
	const struct cpl_pyarg *a;
	struct cpl_pyargdef *d;
	char *flags[16];
	size_t i, n = 0;

	for (i = 0; i < c->nargs && n < CPL_ARRAY_LEN(flags); i++) {
		char *s;

		if (c->args[i].keyword || c->args[i].star)
			continue;
		s = expr_string(f, &c->args[i].value);
		if (s)
			flags[n++] = s;
	}
	if (n == 0)
		return;
	CPL_GROW(f->argdefs, f->index->capargdefs, f->nargdefs + 1);
	d = &f->argdefs[f->nargdefs];
	memset(d, 0, sizeof(*d));
	d->flags = cpl_pyscan_arena_alloc(&f->index->arena,
					  n * sizeof(*d->flags));
	memcpy(d->flags, flags, n * sizeof(*flags));
	d->nflags = n;
	d->call = ci;
	d->pos = c->pos;
	d->def.first = d->def.last = c->close;
	d->def.scope = c->scope;
	d->def.block = -1;
	d->def.pos = c->pos;
	if ((a = kwarg(c, "default")) != NULL)
		d->def = a->value;
	if ((a = kwarg(c, "type")) != NULL)
		d->type = expr_dotted(f, &a->value);
	if ((a = kwarg(c, "action")) != NULL)
		d->action = expr_string(f, &a->value);
	if ((a = kwarg(c, "dest")) != NULL)
		d->dest = expr_string(f, &a->value);
	if (d->dest == NULL) {
		const char *pick = flags[0];
		char *p;

		for (i = 0; i < n; i++)
			if (cpl_str_starts(flags[i], "--")) {
				pick = flags[i];
				break;
			}
		while (*pick == '-')
			pick++;
		d->dest = fdup(f, pick, strlen(pick));
		for (p = d->dest; *p; p++)
			if (*p == '-')
				*p = '_';
	}
	cpl_pyscan_nmap_put(&f->index->argdefs, ARGS_NS, d->dest,
			    strlen(d->dest), (int)f->nargdefs);
	f->nargdefs++;
}

/*
 * The def a callable expression names: NAME, self.NAME, or
 * functools.partial(NAME, ...), partials of partials up to
 * CPL_PYTOKEN_MAX_NEST deep (brackets CPython would read); -1.
 */
static int
callable_def(const struct cpl_pyfile *f, const struct cpl_pyexpr *e,
	     int depth)
{
	const struct cpl_pytoken *toks = cpl_pyfile_toks(f);
	int c;

	if (e->last == e->first + 1 && toks[e->first].kind ==
	    CPL_PYTOK_NAME)
		return cpl_pyscan_find_def(f, e->scope,
					   f->text + toks[e->first].off,
					   toks[e->first].len);
	if (e->last == e->first + 3 &&
	    tok_is(f->text, &toks[e->first], "self") &&
	    tok_is(f->text, &toks[e->first + 1], ".") &&
	    f->scopes[e->scope].cls >= 0)
		return cpl_pyscan_nmap_get(&f->index->defs,
					   f->scopes[e->scope].cls,
					   f->text + toks[e->first + 2].off,
					   toks[e->first + 2].len);
	c = cpl_pyscan_expr_call(f, e);
	if (c >= 0 && strcmp(last_comp(f->calls[c].target), "partial") == 0 &&
	    f->calls[c].nargs > 0 && f->calls[c].args[0].keyword == NULL &&
	    f->calls[c].args[0].star == 0 && depth < CPL_PYTOKEN_MAX_NEST)
		return callable_def(f, &f->calls[c].args[0].value, depth + 1);
	return -1;
}

/* Whether argument name of call c is one token: the keyword word (True),
 * or any NUMBER when word is NULL; writes "name=value" to out when it
 * is. */
static bool
arg_is_literal(const struct cpl_pyfile *f, const struct cpl_pycall *c,
	       const char *name, const char *word, char *out, size_t size)
{
	const struct cpl_pyarg *a = kwarg(c, name);
	const struct cpl_pytoken *toks, *t;

	if (a == NULL || a->value.last != a->value.first + 1)
		return false;
	toks = cpl_pyfile_toks(f);
	t = &toks[a->value.first];
	if (word != NULL ? t->kind != CPL_PYTOK_KEYWORD ||
	    !tok_is(f->text, t, word) : t->kind != CPL_PYTOK_NUMBER)
		return false;
	cpl_format(out, size, "%s=%.*s", name, (int)(t->len < 16 ? t->len :
		   16), f->text + t->off);
	return true;
}

/* Records DataLoader call ci. */
static void
add_loader(struct cpl_pyfile *f, int ci)
{
	const struct cpl_pycall *c = &f->calls[ci];
	const struct cpl_pyarg *a;
	struct cpl_pyloader *l;
	size_t i;

	CPL_GROW(f->loaders, f->index->caploaders, f->nloaders + 1);
	l = &f->loaders[f->nloaders++];
	memset(l, 0, sizeof(*l));
	l->call = ci;
	l->pos = c->pos;
	l->init_func = -1;
	if ((a = kwarg(c, "num_workers")) != NULL || (a = posarg(c, 5)))
		l->has_workers = true, l->workers = a->value;
	if ((a = kwarg(c, "worker_init_fn")) != NULL || (a = posarg(c, 10)))
		l->has_init = true, l->init = a->value;
	/* Written as literals only: persistent_workers=workers > 0 and
	 * prefetch_factor=2 if workers else None take 0 workers. */
	if (arg_is_literal(f, c, "persistent_workers", "True", l->needs,
			   sizeof(l->needs)))
		l->needs_pos = kwarg(c, "persistent_workers")->value.pos;
	else if (arg_is_literal(f, c, "prefetch_factor", NULL, l->needs,
				sizeof(l->needs)))
		l->needs_pos = kwarg(c, "prefetch_factor")->value.pos;
	for (i = 0; i < c->nargs; i++)
		if (c->args[i].star == 2 ||
		    (c->args[i].star == 1 && !l->has_workers))
			l->unknown_kwargs = true;
	if (l->has_init) {
		l->init_func = callable_def(f, &l->init, 0);
		if (l->init_func >= 0 &&
		    f->scopes[l->init_func].kind != CPL_PYSCOPE_FUNC)
			l->init_func = -1;
	}
}

/* Records thread-count call ci. */
static void
add_threads(struct cpl_pyfile *f, int ci)
{
	const struct cpl_pycall *c = &f->calls[ci];
	struct cpl_pythreads *t;

	CPL_GROW(f->threads, f->index->capthreads, f->nthreads + 1);
	t = &f->threads[f->nthreads++];
	memset(t, 0, sizeof(*t));
	t->kind = c->kind == CPL_PYCALL_SET_THREADS ? CPL_PYTHREADS_INTRA :
		  c->kind == CPL_PYCALL_SET_INTEROP ? CPL_PYTHREADS_INTEROP :
						      CPL_PYTHREADS_CV2;
	t->call = ci;
	t->pos = c->pos;
	t->prior_work = -1;
	if (c->nargs > 0 && c->args[0].star == 0) {
		t->has_arg = true;
		t->arg = c->args[0].value;
	}
}

/* Records pool creation ci. */
static void
add_pool(struct cpl_pyfile *f, int ci)
{
	const struct cpl_pycall *c = &f->calls[ci];
	const struct cpl_pyarg *a;
	struct cpl_pypool *p;

	CPL_GROW(f->pools, f->index->cappools, f->npools + 1);
	p = &f->pools[f->npools++];
	memset(p, 0, sizeof(*p));
	p->kind = c->kind == CPL_PYCALL_POOL ? CPL_PYPOOL_MP :
		  c->kind == CPL_PYCALL_PROCESS_POOL ? CPL_PYPOOL_PROCESS :
						       CPL_PYPOOL_THREAD;
	p->call = ci;
	p->pos = c->pos;
	a = kwarg(c, p->kind == CPL_PYPOOL_MP ? "processes" : "max_workers");
	if (a == NULL)
		a = posarg(c, 0);
	/* processes=None is the default: the node's CPU count. */
	if (a && !(a->value.last == a->value.first + 1 &&
		   tok_is(f->text, &cpl_pyfile_toks(f)[a->value.first],
			  "None"))) {
		p->has_size = true;
		p->size = a->value;
	}
}

/* Records that name is set to value (name NULL: not a literal; skipped). */
static void
add_envset(struct cpl_pyfile *f, const char *name,
	   const struct cpl_pyexpr *value, bool setdefault, int scope,
	   struct cpl_pos pos)
{
	struct cpl_pyenvset *e;

	if (name == NULL)
		return;
	CPL_GROW(f->envsets, f->index->capenvsets, f->nenvsets + 1);
	e = &f->envsets[f->nenvsets++];
	e->name = (char *)name;
	e->value = *value;
	e->setdefault = setdefault;
	e->scope = scope;
	e->pos = pos;
}

/* os.environ.update({"K": v, ...}): the pairs of a dict display. */
static void
env_dict(struct cpl_pyfile *f, const struct cpl_pyexpr *e, int scope)
{
	const struct cpl_pytoken *toks = cpl_pyfile_toks(f);
	size_t k = e->first + 1, end = e->last - 1;

	if (e->last < e->first + 2 ||
	    !tok_is(f->text, &toks[e->first], "{"))
		return;
	while (k + 2 < end + 1) {
		struct cpl_pyexpr key = { k, k + 1, scope, e->block,
					  cpl_pyscan_pos(f, k) };
		struct cpl_pyexpr val;
		size_t j = k + 2;
		int depth = 0;

		if (toks[k].kind != CPL_PYTOK_STRING ||
		    !tok_is(f->text, &toks[k + 1], ":"))
			return;
		for (; j < end; j++) {
			const struct cpl_pytoken *t = &toks[j];

			if (t->kind != CPL_PYTOK_OP || t->len != 1)
				continue;
			if (strchr("([{", f->text[t->off]))
				depth++;
			else if (strchr(")]}", f->text[t->off]))
				depth--;
			else if (depth == 0 && f->text[t->off] == ',')
				break;
		}
		val.first = k + 2;
		val.last = j;
		val.scope = scope;
		val.block = e->block;
		val.pos = cpl_pyscan_pos(f, k + 2);
		while (val.first < val.last &&
		       (toks[val.first].kind == CPL_PYTOK_NL ||
			toks[val.first].kind == CPL_PYTOK_COMMENT))
			val.first++;
		add_envset(f, expr_string(f, &key), &val, false, scope,
			   key.pos);
		k = j + 1;
		while (k < end && (toks[k].kind == CPL_PYTOK_NL ||
				   toks[k].kind == CPL_PYTOK_COMMENT))
			k++;
	}
}

/* Environment settings made by call ci (setdefault, putenv, update). */
static void
call_envsets(struct cpl_pyfile *f, int ci)
{
	const struct cpl_pycall *c = &f->calls[ci];
	const struct cpl_pyarg *a0, *a1;
	size_t i;

	if (strncmp(c->target, "os.", 3) != 0)
		return;
	a0 = posarg(c, 0);
	a1 = posarg(c, 1);

	if ((str_is(c->target, "os.environ.setdefault") ||
	     str_is(c->target, "os.putenv")) && a0 && a1)
		add_envset(f, expr_string(f, &a0->value), &a1->value,
			   c->target[3] == 'e', c->scope, c->pos);
	if (strcmp(c->target, "os.environ.update") != 0)
		return;
	for (i = 0; i < c->nargs; i++)
		if (c->args[i].keyword)
			add_envset(f, c->args[i].keyword, &c->args[i].value,
				   false, c->scope, c->args[i].value.pos);
	if (a0)
		env_dict(f, &a0->value, c->scope);
}

/* X["KEY"] = v where X is os.environ through the imports. */
static void
sub_envsets(struct cpl_pyfile *f)
{
	const struct cpl_pytoken *toks = cpl_pyfile_toks(f);
	struct cpl_pyindex *ix = f->index;
	size_t i;

	for (i = 0; i < ix->nsubs; i++) {
		const struct subassign *sa = &ix->subs[i];
		const struct cpl_pytoken *b = &toks[sa->base];
		const char *text = f->text + b->off;
		size_t n = toks[sa->base_end - 1].off +
			   toks[sa->base_end - 1].len - b->off;
		const char *dot = memchr(text, '.', n);
		size_t flen = dot ? (size_t)(dot - text) : n;
		int im = cpl_pyscan_binding_n(f, sa->scope, text, flen);
		char *full;
		struct cpl_pyexpr key = { sa->key, sa->key + 1, sa->scope,
					  sa->value.block,
					  cpl_pyscan_pos(f, sa->key) };

		if (im < 0)
			continue;
		full = cpl_xasprintf("%s%.*s", f->imports[im].target,
				     (int)(n - flen), text + flen);
		if (str_is(full, "os.environ"))
			add_envset(f, expr_string(f, &key), &sa->value, false,
				   sa->scope, cpl_pyscan_pos(f, sa->base));
		free(full);
	}
}

/* Orders environment settings by position. */
static int
cmp_envset(const void *a, const void *b)
{
	const struct cpl_pyenvset *x = a, *y = b;

	if (x->pos.line != y->pos.line)
		return x->pos.line < y->pos.line ? -1 : 1;
	return (x->pos.column > y->pos.column) - (x->pos.column <
						   y->pos.column);
}

/* Groups calls by scope and by the def they reach (counting sorts). */
static void
group_calls(struct cpl_pyfile *f)
{
	struct cpl_pyindex *ix = f->index;
	size_t *off = cpl_xcalloc(f->nscopes + 1, sizeof(*off));
	size_t i, s;

	ix->scope_calls = cpl_xmalloc((f->ncalls + 1) *
				      sizeof(*ix->scope_calls));
	for (i = 0; i < f->ncalls; i++)
		f->scopes[f->calls[i].scope].ncalls++;
	for (s = 0, i = 0; s < f->nscopes; s++) {
		f->scopes[s].calls = ix->scope_calls + i;
		i += f->scopes[s].ncalls;
		f->scopes[s].ncalls = 0;
	}
	for (i = 0; i < f->ncalls; i++) {
		struct cpl_pyscope *sc = &f->scopes[f->calls[i].scope];

		sc->calls[sc->ncalls++] = i;
	}
	ix->callers_off = off;
	ix->callers = cpl_xmalloc((f->ncalls + 1) * sizeof(*ix->callers));
	for (i = 0; i < f->ncalls; i++)
		if (f->calls[i].func >= 0)
			off[f->calls[i].func + 1]++;
	for (s = 0; s < f->nscopes; s++)
		off[s + 1] += off[s];
	{
		size_t *fill = cpl_xmalloc((f->nscopes + 1) * sizeof(*fill));

		memcpy(fill, off, (f->nscopes + 1) * sizeof(*fill));
		for (i = 0; i < f->ncalls; i++)
			if (f->calls[i].func >= 0)
				ix->callers[fill[f->calls[i].func]++] = i;
		free(fill);
	}
}

/* ---- the first half of the post-pass ---------------------------------- */

void
cpl_pyscan_facts(struct cpl_pyfile *f)
{
	struct cpl_pyindex *ix = f->index;
	size_t i;

	for (i = 0; i < f->ncalls; i++) {
		f->calls[i].args = f->calls[i].nargs ?
				   ix->args + ix->argoff[i] : NULL;
		resolve_call(f, &f->calls[i]);
	}
	for (i = 0; i < f->ncalls; i++)
		f->calls[i].kind = classify(f, &f->calls[i]);
	group_calls(f);
	for (i = 0; i < f->ncalls; i++) {
		struct cpl_pycall *c = &f->calls[i];

		switch (c->kind) {
		case CPL_PYCALL_ADD_ARGUMENT:
			add_argdef(f, (int)i);
			break;
		case CPL_PYCALL_DATALOADER:
			add_loader(f, (int)i);
			break;
		case CPL_PYCALL_SET_THREADS:
		case CPL_PYCALL_SET_INTEROP:
		case CPL_PYCALL_CV2_THREADS:
			add_threads(f, (int)i);
			break;
		case CPL_PYCALL_POOL:
		case CPL_PYCALL_PROCESS_POOL:
		case CPL_PYCALL_THREAD_POOL:
			add_pool(f, (int)i);
			break;
		case CPL_PYCALL_CPU_COUNT:
			CPL_GROW(f->cpucounts, ix->capcpucounts, f->ncpucounts + 1);
			memset(&f->cpucounts[f->ncpucounts], 0,
			       sizeof(*f->cpucounts));
			f->cpucounts[f->ncpucounts].call = (int)i;
			f->cpucounts[f->ncpucounts++].pos = c->pos;
			break;
		case CPL_PYCALL_CV2:
			f->scopes[c->scope].uses_cv2 = true;
			break;
		default:
			break;
		}
		call_envsets(f, (int)i);
	}
	sub_envsets(f);
	if (f->nenvsets > 1)
		qsort(f->envsets, f->nenvsets, sizeof(*f->envsets),
		      cmp_envset);
}
