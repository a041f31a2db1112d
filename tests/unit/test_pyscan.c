/*
 * test_pyscan.c — the facts pyscan reads from Python and the values
 * pyvalue resolves from them: imports and aliases, CPU-count calls, thread
 * settings, DataLoaders, pools, argparse, assignments, defs, cross-module
 * calls, tensor work before set_num_threads, worker_init_fn bodies, the
 * data pipeline and cv2, where CPU counts go, and value resolution with
 * command-line overrides.  Fixtures are in testdata/pyscan/.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "python/pyscan.h"
#include "python/pyvalue.h"

#define FIX "testdata/pyscan/"

static struct cpl_pyfile *
scan(const char *src)
{
	struct cpl_pyfile *f = NULL;
	struct cpl_error err;
	int rc;

	memset(&err, 0, sizeof(err));
	rc = cpl_pyscan_file(&f, "t.py", src, strlen(src), &err);
	ck_assert_msg(rc == 0, "scan failed: %d:%d %s", err.line, err.column,
		      err.message ? err.message : "");
	ck_assert_ptr_nonnull(f);
	cpl_error_clear(&err);
	return f;
}

static struct cpl_pyfile *
load(const char *path)
{
	struct cpl_pyfile *f = NULL;
	struct cpl_error err;
	char *text;
	size_t len;

	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(cpl_read_file(&text, &len, path, 1 << 20, &err), 0);
	ck_assert_int_eq(cpl_pyscan_file(&f, path, text, len, &err), 0);
	free(text);
	cpl_error_clear(&err);
	return f;
}

/* The index of the nth (0-based) call whose callee is callee, -1. */
static int
call_of(const struct cpl_pyfile *f, const char *callee, int nth)
{
	size_t i;

	for (i = 0; i < f->ncalls; i++)
		if (strcmp(f->calls[i].callee, callee) == 0 && nth-- == 0)
			return (int)i;
	return -1;
}

/* The text of an expression. */
static char *
text_of(const struct cpl_pyfile *f, const struct cpl_pyexpr *e)
{
	size_t a, b;

	if (e->first >= e->last)
		return cpl_xstrdup("");
	a = cpl_pyfile_toks(f)[e->first].off;
	b = cpl_pyfile_toks(f)[e->last - 1].off +
	    cpl_pyfile_toks(f)[e->last - 1].len;
	return cpl_xstrndup(f->text + a, b - a);
}

#define ck_assert_expr(f, e, want)                                     \
	do {                                                           \
		char *t_ = text_of((f), (e));                          \
		ck_assert_str_eq(t_, (want));                          \
		free(t_);                                              \
	} while (0)

#define ck_assert_pos(p, l, c)                                         \
	do {                                                           \
		ck_assert_int_eq((p).line, (l));                       \
		ck_assert_int_eq((p).column, (c));                     \
	} while (0)

static int
scope_of(const struct cpl_pyfile *f, const char *qualname)
{
	size_t i;

	for (i = 0; i < f->nscopes; i++)
		if (strcmp(f->scopes[i].qualname, qualname) == 0)
			return (int)i;
	return -1;
}

/* ---- module linking for value resolution ------------------------------ */

/* Linked modules by dotted name. */
struct linkmap {
	const char *names[8];
	const struct cpl_pyfile *files[8];
	size_t n;
};

static const struct cpl_pyfile *
link_module(void *ctx, const struct cpl_pyfile *from, const char *module,
	    int level)
{
	const struct linkmap *m = ctx;
	size_t i;

	(void)from;
	(void)level;
	for (i = 0; i < m->n; i++)
		if (strcmp(m->names[i], module) == 0)
			return m->files[i];
	return NULL;
}

/* Command-line words with positions in a pretend "cmd" file. */
static struct cpl_word words[16];

static void
set_argv(struct cpl_pyenv *env, const char *const *argv, size_t argc)
{
	size_t i;

	for (i = 0; i < argc; i++) {
		words[i].text = (char *)argv[i];
		words[i].pos.file = "cmd";
		words[i].pos.line = 1;
		words[i].pos.column = (int)(i + 1) * 10;
	}
	env->argv = words;
	env->argc = argc;
}

static void
val_is(const struct cpl_pyval *v, enum cpl_pyval_kind kind, long value)
{
	ck_assert_msg(v->kind == kind, "kind %s, want %s",
		      cpl_pyvalue_kind_name(v->kind),
		      cpl_pyvalue_kind_name(kind));
	if (kind == CPL_PYVAL_KNOWN)
		ck_assert_int_eq(v->value, value);
}

/* ---- imports ---------------------------------------------------------- */

START_TEST(imports_and_aliases)
{
	struct cpl_pyfile *f = scan(
		"import os\n"
		"import multiprocessing as mp\n"
		"from multiprocessing import cpu_count\n"
		"from os import cpu_count as cc\n"
		"import torch.multiprocessing as tmp\n"
		"from torch import multiprocessing\n"
		"import os.path, json\n"
		"from . import data\n"
		"from ..pkg.data import (make_loader,\n"
		"                        Other as O)\n"
		"from torch.utils.data import *\n");
	const struct cpl_pyimport *im = f->imports;

	ck_assert_uint_eq(f->nimports, 12);
	ck_assert_str_eq(im[0].bound, "os");
	ck_assert_str_eq(im[0].target, "os");
	ck_assert_ptr_null(im[0].name);
	ck_assert_pos(im[0].pos, 1, 8);
	ck_assert_str_eq(im[1].bound, "mp");
	ck_assert_str_eq(im[1].target, "multiprocessing");
	ck_assert_str_eq(im[2].bound, "cpu_count");
	ck_assert_str_eq(im[2].target, "multiprocessing.cpu_count");
	ck_assert_str_eq(im[3].bound, "cc");
	ck_assert_str_eq(im[3].name, "cpu_count");
	ck_assert_str_eq(im[3].target, "os.cpu_count");
	ck_assert_str_eq(im[4].bound, "tmp");
	ck_assert_str_eq(im[4].target, "torch.multiprocessing");
	ck_assert_str_eq(im[5].bound, "multiprocessing");
	ck_assert_str_eq(im[5].target, "torch.multiprocessing");
	ck_assert_str_eq(im[6].module, "os.path");
	ck_assert_str_eq(im[6].bound, "os");
	ck_assert_str_eq(im[6].target, "os");
	ck_assert_str_eq(im[7].bound, "json");
	ck_assert_pos(im[7].pos, 7, 17);
	ck_assert_str_eq(im[8].module, "");
	ck_assert_int_eq(im[8].level, 1);
	ck_assert_str_eq(im[8].target, ".data");
	ck_assert_str_eq(im[9].module, "pkg.data");
	ck_assert_int_eq(im[9].level, 2);
	ck_assert_str_eq(im[9].name, "make_loader");
	ck_assert_str_eq(im[9].target, "..pkg.data.make_loader");
	ck_assert_pos(im[9].pos, 9, 8);
	ck_assert_str_eq(im[10].bound, "O");
	ck_assert_str_eq(im[10].target, "..pkg.data.Other");
	ck_assert_str_eq(im[11].name, "*");
	ck_assert(f->imports_torch);
	ck_assert_pos(f->torch_pos, 5, 8);
	ck_assert(!f->imports_cv2);
	cpl_pyfile_free(f);

	f = scan("from torch.utils.data import *\nimport cv2 as cv\n");
	ck_assert_str_eq(f->imports[0].name, "*");
	ck_assert_int_eq(cpl_pyscan_binding(f, 0, "*"), -1);
	ck_assert(f->imports_cv2);
	ck_assert_pos(f->cv2_pos, 2, 8);
	ck_assert_int_eq(cpl_pyscan_binding(f, 0, "cv"), 1);
	cpl_pyfile_free(f);

	/* Text in strings, docstrings and comments never counts. */
	f = scan("\"\"\"import torch\"\"\"\n# import cv2\nx = 'import os'\n");
	ck_assert_uint_eq(f->nimports, 0);
	ck_assert(!f->imports_torch);
	cpl_pyfile_free(f);
}
END_TEST

/* ---- CPU counts ------------------------------------------------------- */

START_TEST(cpu_count_calls)
{
	struct cpl_pyfile *f = scan(
		"import os, psutil\n"
		"import multiprocessing as mp\n"
		"from multiprocessing import cpu_count\n"
		"from os import cpu_count as cc\n"
		"a = os.cpu_count()\n"
		"b = mp.cpu_count()\n"
		"c = cpu_count()\n"
		"d = cc()\n"
		"e = psutil.cpu_count(logical=False)\n"
		"g = os.process_cpu_count()\n"
		"h = len(os.sched_getaffinity(0))\n"
		"i = os.sched_getaffinity(0)\n"
		"import torch.multiprocessing as tmp, multiprocess, joblib\n"
		"j = tmp.cpu_count()\n"
		"k = multiprocess.cpu_count()\n"
		"l = joblib.cpu_count()\n");
	static const struct {
		const char *callee;
		const char *target;
		int line, col;
	} want[] = {
		{ "os.cpu_count", "os.cpu_count", 5, 5 },
		{ "mp.cpu_count", "multiprocessing.cpu_count", 6, 5 },
		{ "cpu_count", "multiprocessing.cpu_count", 7, 5 },
		{ "cc", "os.cpu_count", 8, 5 },
		{ "psutil.cpu_count", "psutil.cpu_count", 9, 5 },
		{ "os.process_cpu_count", "os.process_cpu_count", 10, 5 },
		{ "len", "len", 11, 5 },
		/* torch.multiprocessing re-exports multiprocessing */
		{ "tmp.cpu_count", "torch.multiprocessing.cpu_count", 14, 5 },
		{ "multiprocess.cpu_count", "multiprocess.cpu_count", 15, 5 },
	};
	size_t i;

	ck_assert_uint_eq(f->ncpucounts, CPL_ARRAY_LEN(want));
	for (i = 0; i < CPL_ARRAY_LEN(want); i++) {
		const struct cpl_pycall *c = &f->calls[f->cpucounts[i].call];

		ck_assert_str_eq(c->callee, want[i].callee);
		ck_assert_str_eq(c->target, want[i].target);
		ck_assert_int_eq(c->kind, CPL_PYCALL_CPU_COUNT);
		ck_assert_pos(f->cpucounts[i].pos, want[i].line, want[i].col);
		/* Assigned to a name that sizes nothing, never printed. */
		ck_assert_int_eq(f->cpucounts[i].use, CPL_PYUSE_OTHER);
	}
	ck_assert_str_eq(cpl_pyscan_kind_name(CPL_PYCALL_CPU_COUNT),
			 "cpu-count");
	/* The affinity set alone is no count; joblib's reads the quota. */
	ck_assert_int_eq(f->calls[call_of(f, "os.sched_getaffinity", 1)].kind,
			 CPL_PYCALL_OTHER);
	ck_assert_int_eq(f->calls[call_of(f, "joblib.cpu_count", 0)].kind,
			 CPL_PYCALL_OTHER);
	cpl_pyfile_free(f);
}
END_TEST

/* torch.multiprocessing is not the stdlib module (its names resolve to
 * their own targets), but it re-exports the stdlib's (`from
 * multiprocessing import *`): its cpu_count() is the node's count. */
START_TEST(torch_multiprocessing_cpu_count)
{
	struct cpl_pyfile *f = scan(
		"import torch.multiprocessing as mp\n"
		"from torch import multiprocessing\n"
		"from torch.multiprocessing import cpu_count\n"
		"n = mp.cpu_count() + multiprocessing.cpu_count() +\\\n"
		"    cpu_count()\n"
		"mp.spawn(main, nprocs=n)\n");

	ck_assert_uint_eq(f->ncpucounts, 3);
	ck_assert_str_eq(f->calls[0].target, "torch.multiprocessing.cpu_count");
	ck_assert_int_eq(f->calls[0].kind, CPL_PYCALL_CPU_COUNT);
	ck_assert_str_eq(f->calls[1].target, "torch.multiprocessing.cpu_count");
	ck_assert_str_eq(f->calls[2].target, "torch.multiprocessing.cpu_count");
	ck_assert_int_eq(f->calls[2].kind, CPL_PYCALL_CPU_COUNT);
	ck_assert_str_eq(f->calls[3].target, "torch.multiprocessing.spawn");
	cpl_pyfile_free(f);
}
END_TEST

START_TEST(strings_and_comments_never_count)
{
	struct cpl_pyfile *f = scan(
		"\"\"\"Uses os.cpu_count() and\n"
		"torch.set_num_threads(8).\"\"\"\n"
		"import os\n"
		"# workers = os.cpu_count()\n"
		"msg = 'DataLoader(num_workers=os.cpu_count())'\n"
		"doc = r'''cv2.setNumThreads(0)\n"
		"torch.set_num_threads(4)'''\n"
		"def f():\n"
		"    '''os.cpu_count()'''\n"
		"    return 1  # os.cpu_count()\n");

	ck_assert_uint_eq(f->ncalls, 0);
	ck_assert_uint_eq(f->ncpucounts, 0);
	ck_assert_uint_eq(f->nthreads, 0);
	ck_assert_uint_eq(f->nloaders, 0);
	cpl_pyfile_free(f);
}
END_TEST

/* ---- thread settings, cv2, loaders, pools ----------------------------- */

START_TEST(thread_settings)
{
	struct cpl_pyfile *f = scan(
		"import torch, cv2\n"
		"torch.set_num_threads(4)\n"
		"torch.set_num_interop_threads(n // 2)\n"
		"cv2.setNumThreads(0)\n"
		"def work(img):\n"
		"    return cv2.blur(img, (3, 3))\n");

	ck_assert_uint_eq(f->nthreads, 3);
	ck_assert_int_eq(f->threads[0].kind, CPL_PYTHREADS_INTRA);
	ck_assert_expr(f, &f->threads[0].arg, "4");
	ck_assert_pos(f->threads[0].pos, 2, 1);
	ck_assert_pos(f->threads[0].arg.pos, 2, 23);
	ck_assert_int_eq(f->threads[1].kind, CPL_PYTHREADS_INTEROP);
	ck_assert_expr(f, &f->threads[1].arg, "n // 2");
	ck_assert_int_eq(f->threads[2].kind, CPL_PYTHREADS_CV2);
	ck_assert_expr(f, &f->threads[2].arg, "0");
	ck_assert(f->imports_cv2);
	ck_assert_int_eq(f->calls[3].kind, CPL_PYCALL_CV2);
	ck_assert_str_eq(f->scopes[f->calls[3].scope].name, "work");
	ck_assert(f->scopes[scope_of(f, "work")].uses_cv2);
	ck_assert(!f->scopes[0].uses_cv2);
	cpl_pyfile_free(f);
}
END_TEST

START_TEST(dataloaders)
{
	struct cpl_pyfile *f = scan(
		"import torch\n"
		"import torch.utils.data as tud\n"
		"from torch.utils.data import DataLoader as DL\n"
		"a = torch.utils.data.DataLoader(ds, batch_size=8,\n"
		"                                num_workers=W,\n"
		"                                worker_init_fn=init)\n"
		"b = tud.DataLoader(ds, 8, True, None, None, 3)\n"
		"c = DL(ds)\n"
		"d = DL(ds, **kw)\n"
		"e = DL(ds, num_workers=0)\n"
		"def init(worker_id):\n"
		"    pass\n");
	const struct cpl_pyloader *l = f->loaders;

	ck_assert_uint_eq(f->nloaders, 5);
	ck_assert_str_eq(f->calls[l[0].call].target,
			 "torch.utils.data.DataLoader");
	ck_assert_pos(l[0].pos, 4, 5);
	ck_assert(l[0].has_workers);
	ck_assert_expr(f, &l[0].workers, "W");
	ck_assert_pos(l[0].workers.pos, 5, 45);
	ck_assert(l[0].has_init);
	ck_assert_expr(f, &l[0].init, "init");
	ck_assert_int_eq(l[0].init_func, scope_of(f, "init"));
	ck_assert_uint_eq(f->scopes[l[0].init_func].roles,
			  CPL_PYROLE_WORKER_INIT | CPL_PYROLE_PIPELINE);
	ck_assert_str_eq(f->calls[l[1].call].target,
			 "torch.utils.data.DataLoader");
	ck_assert_expr(f, &l[1].workers, "3");
	ck_assert(!l[2].has_workers && !l[2].unknown_kwargs);
	ck_assert(!l[3].has_workers && l[3].unknown_kwargs);
	ck_assert_expr(f, &l[4].workers, "0");
	ck_assert_str_eq(l[0].needs, "");
	cpl_pyfile_free(f);
}
END_TEST

/* Arguments torch refuses with num_workers=0 (ValueError in 1.13 and 2):
 * written as literals they need a worker; written as expressions they
 * are the code's own guard. */
START_TEST(dataloader_needs_workers)
{
	struct cpl_pyfile *f = scan(
		"from torch.utils.data import DataLoader\n"
		"a = DataLoader(ds, num_workers=W, persistent_workers=True)\n"
		"b = DataLoader(ds, num_workers=W, prefetch_factor=4)\n"
		"c = DataLoader(ds, num_workers=W, persistent_workers=W > 0)\n"
		"d = DataLoader(ds, num_workers=W, persistent_workers=False,\n"
		"               prefetch_factor=None)\n"
		"e = DataLoader(ds, prefetch_factor=2 if W else None)\n");
	const struct cpl_pyloader *l = f->loaders;

	ck_assert_uint_eq(f->nloaders, 5);
	ck_assert_str_eq(l[0].needs, "persistent_workers=True");
	ck_assert_pos(l[0].needs_pos, 2, 54);
	ck_assert_str_eq(l[1].needs, "prefetch_factor=4");
	ck_assert_pos(l[1].needs_pos, 3, 51);
	ck_assert_str_eq(l[2].needs, "");
	ck_assert_str_eq(l[3].needs, "");
	ck_assert_str_eq(l[4].needs, "");
	cpl_pyfile_free(f);
}
END_TEST

START_TEST(pools)
{
	struct cpl_pyfile *f = scan(
		"import multiprocessing as mp\n"
		"from multiprocessing import Pool\n"
		"from concurrent.futures import ProcessPoolExecutor\n"
		"import concurrent.futures as cf\n"
		"p = mp.Pool(processes=8)\n"
		"q = Pool(4)\n"
		"r = ProcessPoolExecutor(max_workers=n)\n"
		"s = cf.ThreadPoolExecutor(16)\n"
		"t = mp.get_context('spawn').Pool()\n");

	ck_assert_uint_eq(f->npools, 5);
	ck_assert_int_eq(f->pools[0].kind, CPL_PYPOOL_MP);
	ck_assert_expr(f, &f->pools[0].size, "8");
	ck_assert_str_eq(f->calls[f->pools[1].call].target,
			 "multiprocessing.Pool");
	ck_assert_expr(f, &f->pools[1].size, "4");
	ck_assert_int_eq(f->pools[2].kind, CPL_PYPOOL_PROCESS);
	ck_assert_expr(f, &f->pools[2].size, "n");
	ck_assert_int_eq(f->pools[3].kind, CPL_PYPOOL_THREAD);
	ck_assert_expr(f, &f->pools[3].size, "16");
	ck_assert_str_eq(f->calls[f->pools[4].call].callee, ".Pool");
	ck_assert(!f->pools[4].has_size);
	cpl_pyfile_free(f);
}
END_TEST

/* ---- argparse, assignments, defs -------------------------------------- */

START_TEST(argparse_definitions)
{
	struct cpl_pyfile *f = load(FIX "train.py");
	const struct cpl_pyargdef *d = f->argdefs;

	ck_assert_uint_eq(f->nargdefs, 4);
	ck_assert_uint_eq(d[0].nflags, 2);
	ck_assert_str_eq(d[0].flags[0], "-j");
	ck_assert_str_eq(d[0].flags[1], "--workers");
	ck_assert_str_eq(d[0].dest, "workers");
	ck_assert_str_eq(d[0].type, "int");
	ck_assert_expr(f, &d[0].def, "4");
	ck_assert_pos(d[0].def.pos, 24, 62);
	ck_assert_pos(d[0].pos, 24, 5);
	ck_assert_str_eq(d[1].dest, "intra");
	ck_assert_str_eq(d[2].dest, "batch_size");
	ck_assert_str_eq(d[3].dest, "amp");
	ck_assert_str_eq(d[3].action, "store_true");
	ck_assert(d[3].def.first == d[3].def.last);
	ck_assert_int_eq(cpl_pyscan_argdef_find(f, "intra"), 1);
	ck_assert_int_eq(cpl_pyscan_argdef_find(f, "threads"), -1);
	cpl_pyfile_free(f);
}
END_TEST

START_TEST(assignments)
{
	struct cpl_pyfile *f = scan(
		"import os\n"
		"NUM_WORKERS = os.cpu_count() // 2\n"
		"a, (b, c) = 1, (2, 3)\n"
		"x: int = 5\n"
		"x += 1\n"
		"p = q = 7\n"
		"os.environ['OMP_NUM_THREADS'] = '1'\n"
		"class T:\n"
		"    size = 3\n"
		"    def __init__(self, n):\n"
		"        self.n = n\n"
		"for i in range(3):\n"
		"    pass\n"
		"if (m := 4) > 2:\n"
		"    pass\n"
		"args = parser.parse_args()\n");
	int a;

	a = cpl_pyscan_assign_last(f, 0, "NUM_WORKERS");
	ck_assert_int_ge(a, 0);
	ck_assert_expr(f, &f->assigns[a].value, "os.cpu_count() // 2");
	ck_assert_pos(f->assigns[a].pos, 2, 1);
	ck_assert_int_eq(f->calls[0].assign, a);
	a = cpl_pyscan_assign_last(f, 0, "a");
	ck_assert_int_eq(f->assigns[a].index, 0);
	ck_assert_expr(f, &f->assigns[a].value, "1, (2, 3)");
	ck_assert(f->assigns[cpl_pyscan_assign_last(f, 0, "b")].opaque);
	a = cpl_pyscan_assign_last(f, 0, "x");
	ck_assert_str_eq(f->assigns[a].op, "+=");
	ck_assert_str_eq(f->assigns[f->assigns[a].prev].op, "=");
	ck_assert_expr(f, &f->assigns[f->assigns[a].prev].value, "5");
	ck_assert_expr(f, &f->assigns[cpl_pyscan_assign_last(f, 0, "p")].value,
		       "7");
	ck_assert_expr(f, &f->assigns[cpl_pyscan_assign_last(f, 0, "q")].value,
		       "7");
	ck_assert_int_ge(cpl_pyscan_assign_last(f, scope_of(f, "T"), "size"),
			 0);
	a = cpl_pyscan_assign_last(f, scope_of(f, "T.__init__"), "self.n");
	ck_assert_int_ge(a, 0);
	ck_assert_expr(f, &f->assigns[a].value, "n");
	ck_assert(f->assigns[cpl_pyscan_assign_last(f, 0, "i")].opaque);
	a = cpl_pyscan_assign_last(f, 0, "m");
	ck_assert_expr(f, &f->assigns[a].value, "4");
	ck_assert_pos(f->assigns[a].pos, 14, 5);
	a = cpl_pyscan_assign_last(f, 0, "args");
	ck_assert_int_eq(f->calls[call_of(f, "parser.parse_args", 0)].kind,
			 CPL_PYCALL_PARSE_ARGS);
	ck_assert_int_eq(f->calls[call_of(f, "parser.parse_args", 0)].assign,
			 a);
	ck_assert_uint_eq(f->nenvsets, 1);
	ck_assert_str_eq(f->envsets[0].name, "OMP_NUM_THREADS");
	ck_assert_expr(f, &f->envsets[0].value, "'1'");
	ck_assert_pos(f->envsets[0].pos, 7, 1);
	cpl_pyfile_free(f);
}
END_TEST

START_TEST(defs_params_and_calls)
{
	struct cpl_pyfile *f = scan(
		"NUM_WORKERS = 4\n"
		"def create_dataloaders(batch_size, num_workers=NUM_WORKERS,\n"
		"        *args, pin: bool = True, **kw) -> dict:\n"
		"    a = helper(batch_size)\n"
		"    def inner():\n"
		"        return helper(1)\n"
		"    return inner()\n"
		"def helper(x): return x\n"
		"class Net(nn.Module):\n"
		"    def forward(self, x):\n"
		"        return self.fc(x)\n");
	int s = cpl_pyscan_func_find(f, "create_dataloaders");
	const struct cpl_pyscope *sc;
	size_t i;

	ck_assert_int_eq(s, scope_of(f, "create_dataloaders"));
	sc = &f->scopes[s];
	ck_assert_int_eq(sc->kind, CPL_PYSCOPE_FUNC);
	ck_assert_pos(sc->pos, 2, 5);
	ck_assert_uint_eq(sc->nparams, 5);
	ck_assert_str_eq(sc->params[0].name, "batch_size");
	ck_assert(sc->params[0].def.first == sc->params[0].def.last);
	ck_assert_str_eq(sc->params[1].name, "num_workers");
	ck_assert_expr(f, &sc->params[1].def, "NUM_WORKERS");
	ck_assert_int_eq(sc->params[1].def.scope, 0);
	ck_assert_int_eq(sc->params[2].star, 1);
	ck_assert_str_eq(sc->params[3].name, "pin");
	ck_assert(sc->params[3].kwonly);
	ck_assert_expr(f, &sc->params[3].def, "True");
	ck_assert_int_eq(sc->params[4].star, 2);
	ck_assert_int_eq(cpl_pyscan_param(f, s, "pin"), 3);
	/* Calls made inside each def, nested defs apart. */
	ck_assert_uint_eq(sc->ncalls, 2);
	ck_assert_str_eq(f->calls[sc->calls[0]].callee, "helper");
	ck_assert_int_eq(f->calls[sc->calls[0]].func,
			 cpl_pyscan_func_find(f, "helper"));
	ck_assert_str_eq(f->calls[sc->calls[1]].callee, "inner");
	ck_assert_int_eq(f->calls[sc->calls[1]].func,
			 scope_of(f, "create_dataloaders.inner"));
	i = (size_t)scope_of(f, "create_dataloaders.inner");
	ck_assert_uint_eq(f->scopes[i].ncalls, 1);
	ck_assert_int_eq(f->scopes[i].parent, s);
	ck_assert_int_eq(f->calls[call_of(f, "helper", 1)].scope,
			 (int)i);
	/* A one-line def is a scope too. */
	i = (size_t)cpl_pyscan_func_find(f, "helper");
	ck_assert_uint_eq(f->scopes[i].nparams, 1);
	ck_assert_int_eq(f->assigns[cpl_pyscan_assign_last(f, (int)i,
							   "return")].scope,
			 (int)i);
	ck_assert_int_eq(cpl_pyscan_func_find(f, "Net.forward"),
			 scope_of(f, "Net.forward"));
	ck_assert_str_eq(f->scopes[scope_of(f, "Net")].bases, "nn.Module");
	ck_assert_int_eq(f->scopes[scope_of(f, "Net.forward")].cls,
			 scope_of(f, "Net"));
	cpl_pyfile_free(f);
}
END_TEST

START_TEST(cross_module_calls)
{
	struct cpl_pyfile *f = load(FIX "train.py");
	const struct cpl_pycall *c;
	const struct cpl_pyarg *a;
	bool spread;

	c = &f->calls[call_of(f, "data_setup.create_dataloaders", 0)];
	ck_assert_str_eq(f->imports[c->import].module, "data_setup");
	ck_assert_str_eq(c->remote, "create_dataloaders");
	ck_assert_pos(c->pos, 37, 12);
	ck_assert_uint_eq(c->nargs, 2);
	ck_assert_expr(f, &c->args[1].value, "16");
	c = &f->calls[call_of(f, "create_dataloaders", 0)];
	ck_assert_str_eq(c->target, "data_setup.create_dataloaders");
	ck_assert_str_eq(f->imports[c->import].module, "data_setup");
	ck_assert_str_eq(c->remote, "create_dataloaders");
	ck_assert_str_eq(c->args[2].keyword, "num_workers");
	ck_assert_expr(f, &c->args[2].value, "args.workers");
	c = &f->calls[call_of(f, "make_loader", 0)];
	ck_assert_str_eq(f->imports[c->import].module, "pkg.data");
	ck_assert_int_eq(f->imports[c->import].level, 1);
	ck_assert_str_eq(c->remote, "make_loader");
	{
		struct cpl_pyfile *g = load(FIX "data_setup.py");
		int func = cpl_pyscan_func_find(g, "create_dataloaders");

		c = &f->calls[call_of(f, "create_dataloaders", 0)];
		a = cpl_pyscan_call_arg(f, c, g, func, 2, &spread);
		ck_assert_ptr_nonnull(a);
		ck_assert_expr(f, &a->value, "args.workers");
		c = &f->calls[call_of(f, "data_setup.create_dataloaders", 0)];
		ck_assert_ptr_null(cpl_pyscan_call_arg(f, c, g, func, 2,
						       &spread));
		ck_assert(!spread);
		a = cpl_pyscan_call_arg(f, c, g, func, 0, &spread);
		ck_assert_expr(f, &a->value, "\"test\"");
		cpl_pyfile_free(g);
	}
	cpl_pyfile_free(f);

	f = scan("import pkg.data\nimport pkg.util as u\n"
		 "pkg.data.make_loader(1)\nu.go()\n");
	ck_assert_int_eq(f->calls[0].import, 0);
	ck_assert_str_eq(f->calls[0].remote, "make_loader");
	ck_assert_int_eq(f->calls[1].import, 1);
	ck_assert_str_eq(f->calls[1].target, "pkg.util.go");
	ck_assert_str_eq(f->calls[1].remote, "go");
	cpl_pyfile_free(f);
}
END_TEST

/* ---- tensor work, worker_init_fn, pipeline ---------------------------- */

START_TEST(tensor_work_before_threads)
{
	struct cpl_pyfile *f = scan(
		"import torch\n"
		"import torch.nn as nn\n"
		"def build():\n"
		"    return torch.hub.load('pytorch/vision', 'resnet18')\n"
		"def late():\n"
		"    x = torch.zeros(512, 512)\n"
		"    torch.set_num_threads(2)\n"
		"def via_helper():\n"
		"    m = build()\n"
		"    torch.set_num_threads(2)\n"
		"def early():\n"
		"    torch.set_num_threads(2)\n"
		"    y = model(torch.ones(1))\n"
		"def configure():\n"
		"    torch.set_num_threads(4)\n"
		"model = torch.load('m.pt')\n"
		"configure()\n");
	const struct cpl_pythreads *t = f->threads;

	ck_assert_uint_eq(f->nthreads, 4);
	/* late: torch.zeros at 6:9 ran first. */
	ck_assert_int_ge(t[0].prior_work, 0);
	ck_assert_str_eq(f->calls[t[0].prior_work].target, "torch.zeros");
	ck_assert_pos(f->calls[t[0].prior_work].pos, 6, 9);
	/* via_helper: build() constructs a model. */
	ck_assert_str_eq(f->calls[t[1].prior_work].callee, "build");
	ck_assert_pos(f->calls[t[1].prior_work].pos, 9, 9);
	ck_assert(f->scopes[scope_of(f, "build")].does_work);
	/* early: nothing before it. */
	ck_assert_int_eq(t[2].prior_work, -1);
	ck_assert_int_eq(f->calls[f->scopes[scope_of(f, "early")].work].kind,
			 CPL_PYCALL_TENSOR);
	/* configure: called after torch.load at module level. */
	ck_assert_str_eq(f->calls[t[3].prior_work].target, "torch.load");
	ck_assert_pos(f->calls[t[3].prior_work].pos, 16, 9);
	cpl_pyfile_free(f);

	f = scan("import torch\nnet = Net()\nout = net(x)\nloss.backward()\n"
		 "opt = torch.compile(model)\ny = x.cuda()\n");
	ck_assert_int_eq(f->calls[0].kind, CPL_PYCALL_OTHER);
	ck_assert_int_eq(f->calls[1].kind, CPL_PYCALL_TENSOR);
	ck_assert_int_eq(f->calls[2].kind, CPL_PYCALL_TENSOR);
	/* Compiling runs nothing; moving to a device runs no CPU kernel. */
	ck_assert_int_eq(f->calls[3].kind, CPL_PYCALL_OTHER);
	ck_assert_int_eq(f->calls[4].kind, CPL_PYCALL_OTHER);
	cpl_pyfile_free(f);
}
END_TEST

START_TEST(worker_init_bodies)
{
	struct cpl_pyfile *f = load(FIX "pipeline.py");
	int seed = scope_of(f, "seed_worker");

	ck_assert_uint_eq(f->nloaders, 2);
	ck_assert_int_eq(f->loaders[0].init_func, seed);
	ck_assert(f->scopes[seed].roles & CPL_PYROLE_WORKER_INIT);
	ck_assert_uint_eq(f->nthreads, 2);
	ck_assert(f->threads[0].in_worker_init);
	ck_assert_int_eq(f->calls[f->threads[0].call].scope, seed);
	ck_assert_expr(f, &f->threads[0].arg, "2");
	/* The lambda's call sits in the loader's worker_init_fn. */
	ck_assert(f->threads[1].in_worker_init);
	ck_assert_int_eq(f->calls[f->threads[1].call].scope, 0);
	ck_assert_pos(f->threads[1].pos, 45, 44);
	ck_assert_int_eq(f->loaders[1].init_func, -1);
	ck_assert_expr(f, &f->loaders[1].init,
		       "lambda _: torch.set_num_threads(1)");
	cpl_pyfile_free(f);

	f = scan("import torch\nfrom functools import partial\n"
		 "def init(wid, n):\n    torch.set_num_threads(n)\n"
		 "torch.set_num_threads(8)\n"
		 "dl = torch.utils.data.DataLoader(d, num_workers=2,\n"
		 "    worker_init_fn=partial(init, n=4))\n");
	ck_assert_int_eq(f->loaders[0].init_func, scope_of(f, "init"));
	ck_assert(f->threads[0].in_worker_init);
	ck_assert(!f->threads[1].in_worker_init);
	cpl_pyfile_free(f);
}
END_TEST

START_TEST(pipeline_and_cv2)
{
	struct cpl_pyfile *f = load(FIX "pipeline.py");
	int get = scope_of(f, "Images.__getitem__");
	int load_ = scope_of(f, "Images.load");
	int rgb = scope_of(f, "read_rgb");
	int call = scope_of(f, "Resize.__call__");
	int show = scope_of(f, "show");

	ck_assert(f->imports_cv2);
	ck_assert(f->scopes[scope_of(f, "Images")].dataset);
	ck_assert_uint_eq(f->scopes[get].roles,
			  CPL_PYROLE_GETITEM | CPL_PYROLE_PIPELINE);
	ck_assert_uint_eq(f->scopes[load_].roles, CPL_PYROLE_PIPELINE);
	ck_assert_uint_eq(f->scopes[rgb].roles, CPL_PYROLE_PIPELINE);
	ck_assert(f->scopes[rgb].uses_cv2);
	ck_assert_uint_eq(f->scopes[call].roles,
			  CPL_PYROLE_TRANSFORM | CPL_PYROLE_PIPELINE);
	ck_assert(f->scopes[call].uses_cv2);
	/* cv2 used outside the pipeline: recorded where, no role. */
	ck_assert(f->scopes[show].uses_cv2);
	ck_assert_uint_eq(f->scopes[show].roles, 0);
	ck_assert_int_eq(f->calls[call_of(f, "cv2.imshow", 0)].scope, show);
	ck_assert_int_eq(f->calls[call_of(f, "cv2.imread", 0)].scope, rgb);
	ck_assert_pos(f->calls[call_of(f, "cv2.imread", 0)].pos, 8, 11);
	ck_assert_uint_eq(f->scopes[scope_of(f, "Images.__len__")].roles, 0);
	cpl_pyfile_free(f);

	/* cv2 imported, used only in the main process. */
	f = scan("import cv2\nfrom torch.utils.data import DataLoader\n"
		 "img = cv2.imread('a.png')\n"
		 "dl = DataLoader(ds, num_workers=4)\n");
	ck_assert(f->imports_cv2);
	ck_assert(f->scopes[0].uses_cv2);
	ck_assert_uint_eq(f->scopes[0].roles, 0);
	cpl_pyfile_free(f);
}
END_TEST

/* ---- where CPU counts go ---------------------------------------------- */

START_TEST(cpu_count_sizing_vs_printed)
{
	struct cpl_pyfile *f = load(FIX "printed.py");
	size_t i;

	/* three printed or logged, two (torch.multiprocessing's) returned
	 * from a function no caller sizes anything with */
	ck_assert_uint_eq(f->ncpucounts, 5);
	ck_assert_int_ne(f->cpucounts[3].use, CPL_PYUSE_SIZING);
	ck_assert_int_ne(f->cpucounts[4].use, CPL_PYUSE_SIZING);
	for (i = 0; i < 3; i++)
		ck_assert_msg(f->cpucounts[i].use == CPL_PYUSE_PRINTED,
			      "cpu count %zu at line %d: use %d", i,
			      f->cpucounts[i].pos.line, f->cpucounts[i].use);
	ck_assert_pos(f->cpucounts[0].pos, 13, 11);
	ck_assert_str_eq(f->calls[f->cpucounts[1].call].target,
			 "psutil.cpu_count");
	ck_assert_pos(f->cpucounts[2].pos, 15, 9);
	ck_assert_expr(f, &f->loaders[0].workers, "0");
	cpl_pyfile_free(f);

	f = load(FIX "train.py");
	ck_assert_uint_eq(f->ncpucounts, 2);
	ck_assert_int_eq(f->cpucounts[0].use, CPL_PYUSE_SIZING);
	ck_assert_str_eq(f->cpucounts[0].sink, "NUM_WORKERS");
	ck_assert_pos(f->cpucounts[0].sink_pos, 19, 1);
	ck_assert_int_eq(f->cpucounts[1].use, CPL_PYUSE_SIZING);
	ck_assert_str_eq(f->cpucounts[1].sink, "Pool");
	ck_assert_pos(f->cpucounts[1].sink_pos, 40, 10);
	cpl_pyfile_free(f);

	f = scan("import os, torch\n"
		 "from torch.utils.data import DataLoader\n"
		 "n = os.cpu_count()\n"
		 "m = max(1, n - 1)\n"
		 "def make(w=os.cpu_count()):\n"
		 "    return DataLoader(ds, num_workers=w)\n"
		 "torch.set_num_threads(min(4, m))\n"
		 "os.environ['OMP_NUM_THREADS'] = str(os.cpu_count())\n"
		 "k = os.cpu_count()\n"
		 "if k > 8:\n"
		 "    pass\n");
	ck_assert_uint_eq(f->ncpucounts, 4);
	ck_assert_int_eq(f->cpucounts[0].use, CPL_PYUSE_SIZING);
	ck_assert_str_eq(f->cpucounts[0].sink, "torch.set_num_threads");
	ck_assert_pos(f->cpucounts[0].sink_pos, 7, 1);
	ck_assert_int_eq(f->cpucounts[1].use, CPL_PYUSE_SIZING);
	ck_assert_str_eq(f->cpucounts[1].sink, "num_workers");
	ck_assert_pos(f->cpucounts[1].sink_pos, 6, 39);
	ck_assert_int_eq(f->cpucounts[2].use, CPL_PYUSE_SIZING);
	ck_assert_str_eq(f->cpucounts[2].sink, "OMP_NUM_THREADS");
	ck_assert_int_eq(f->cpucounts[3].use, CPL_PYUSE_OTHER);
	cpl_pyfile_free(f);
}
END_TEST

/* ---- value resolution ------------------------------------------------- */

START_TEST(values_argparse_overrides)
{
	struct cpl_pyfile *f = load(FIX "train.py");
	struct cpl_pyenv env;
	struct cpl_pyval v;
	static const char *const a1[] = { "--workers", "8" };
	static const char *const a2[] = { "--workers=8", "--threads", "3" };
	static const char *const a3[] = { "-j", "4", "--lr", "0.1" };
	static const char *const a4[] = { "-j6" };
	static const char *const a5[] = { "--work", "5" };
	static const char *const a6[] = { "--", "--workers", "9" };

	memset(&env, 0, sizeof(env));
	/* Defaults: the argparse default, through get_args(). */
	cpl_pyvalue_loader(&v, f, 0, NULL, &env);
	val_is(&v, CPL_PYVAL_KNOWN, 4);
	ck_assert_int_eq(v.origin, CPL_PYORIG_DEFAULT);
	ck_assert_pos(v.pos, 24, 62);
	cpl_pyvalue_threads(&v, f, 0, NULL, &env);
	val_is(&v, CPL_PYVAL_KNOWN, 2);
	ck_assert_pos(v.pos, 25, 70);

	set_argv(&env, a1, 2);
	cpl_pyvalue_loader(&v, f, 0, NULL, &env);
	val_is(&v, CPL_PYVAL_KNOWN, 8);
	ck_assert_int_eq(v.origin, CPL_PYORIG_COMMAND);
	ck_assert_str_eq(v.pos.file, "cmd");
	ck_assert_int_eq(v.pos.column, 20);

	set_argv(&env, a2, 3);
	cpl_pyvalue_loader(&v, f, 0, NULL, &env);
	val_is(&v, CPL_PYVAL_KNOWN, 8);
	ck_assert_int_eq(v.pos.column, 10);
	/* dest="intra" renames --threads. */
	cpl_pyvalue_threads(&v, f, 0, NULL, &env);
	val_is(&v, CPL_PYVAL_KNOWN, 3);

	set_argv(&env, a3, 4);
	cpl_pyvalue_loader(&v, f, 0, NULL, &env);
	val_is(&v, CPL_PYVAL_KNOWN, 4);
	ck_assert_int_eq(v.origin, CPL_PYORIG_COMMAND);

	set_argv(&env, a4, 1);
	cpl_pyvalue_loader(&v, f, 0, NULL, &env);
	val_is(&v, CPL_PYVAL_KNOWN, 6);

	set_argv(&env, a5, 2);	/* a unique prefix of --workers */
	cpl_pyvalue_loader(&v, f, 0, NULL, &env);
	val_is(&v, CPL_PYVAL_KNOWN, 5);

	set_argv(&env, a6, 3);	/* after --, no options */
	cpl_pyvalue_loader(&v, f, 0, NULL, &env);
	val_is(&v, CPL_PYVAL_KNOWN, 4);
	ck_assert_int_eq(v.origin, CPL_PYORIG_DEFAULT);

	/* Arguments not fully known: an absent flag proves nothing. */
	set_argv(&env, a3 + 2, 2);
	env.argv_partial = true;
	cpl_pyvalue_loader(&v, f, 0, NULL, &env);
	val_is(&v, CPL_PYVAL_UNKNOWN, 0);
	/* The pool is sized by the CPU count. */
	cpl_pyvalue_pool(&v, f, 0, NULL, &env);
	val_is(&v, CPL_PYVAL_HOST, 0);
	ck_assert_pos(v.host, 40, 28);
	cpl_pyfile_free(f);
}
END_TEST

static int
template_word(void *ctx, const char *text, long *out)
{
	(void)ctx;
	if (strcmp(text, "{{ workers }}") != 0)
		return -1;
	*out = 3;
	return 0;
}

static int
fake_env(void *ctx, const char *name, const char **value,
	 struct cpl_pos *pos)
{
	(void)ctx;
	if (strcmp(name, "NUM_WORKERS") == 0) {
		*value = "6";
		pos->file = "pod.yaml";
		pos->line = 12;
		pos->column = 20;
		return 1;
	}
	return strcmp(name, "UNSET") == 0 ? 0 : -1;
}

START_TEST(values_expressions)
{
	struct cpl_pyfile *f = scan(
		"import os, math\n"
		"import argparse\n"
		"p = argparse.ArgumentParser()\n"
		"p.add_argument('--workers', default=None, type=int)\n"
		"p.add_argument('--n', default='7', type=int)\n"
		"p.add_argument('--t', type=int, default=2)\n"
		"args = p.parse_args()\n"
		"A = (2 + 3) * 4 // 3 % 5\n"
		"B = os.cpu_count() // 2\n"
		"C = min(4, os.cpu_count())\n"
		"D = undefined_thing\n"
		"E = int('12') + max(1, 2.0 * 3)\n"
		"F = args.workers or os.cpu_count()\n"
		"G = args.n * 2\n"
		"H = int(os.environ.get('NUM_WORKERS', 2))\n"
		"I = int(os.getenv('UNSET', '3'))\n"
		"J = int(os.environ['OTHER'])\n"
		"K = 2 ** 3 - -1\n"
		"L = math.ceil(7 / 2)\n"
		"M = 4 if args.t > 1 else 1\n"
		"N = 1_0 + 0x10\n"
		"O = len(os.sched_getaffinity(0)) - 1\n"
		"Q = 8 / 3\n"
		"R = a, b\n"
		"S = 3 if os.cpu_count() > 8 else 1\n"
		"T = os.cpu_count() if args.workers is None else args.workers\n"
		"U = 5 if args.t is not None else 0\n");
	static const struct {
		const char *name;
		enum cpl_pyval_kind kind;
		long value;
	} want[] = {
		{ "A", CPL_PYVAL_KNOWN, 1 },
		{ "B", CPL_PYVAL_HOST, 0 },
		{ "C", CPL_PYVAL_HOST, 0 },
		{ "D", CPL_PYVAL_UNKNOWN, 0 },
		{ "E", CPL_PYVAL_KNOWN, 18 },
		{ "F", CPL_PYVAL_HOST, 0 },
		{ "G", CPL_PYVAL_KNOWN, 14 },
		{ "H", CPL_PYVAL_KNOWN, 6 },
		{ "I", CPL_PYVAL_KNOWN, 3 },
		{ "J", CPL_PYVAL_UNKNOWN, 0 },
		{ "K", CPL_PYVAL_KNOWN, 9 },
		{ "L", CPL_PYVAL_KNOWN, 4 },
		{ "M", CPL_PYVAL_KNOWN, 4 },
		{ "N", CPL_PYVAL_KNOWN, 26 },
		{ "O", CPL_PYVAL_HOST, 0 },
		{ "Q", CPL_PYVAL_UNKNOWN, 0 },
		{ "R", CPL_PYVAL_UNKNOWN, 0 },
		{ "S", CPL_PYVAL_HOST, 0 },
		{ "T", CPL_PYVAL_HOST, 0 },
		{ "U", CPL_PYVAL_KNOWN, 5 },
	};
	struct cpl_pyenv env;
	struct cpl_pyval v;
	size_t i;

	memset(&env, 0, sizeof(env));
	env.getenv = fake_env;
	for (i = 0; i < CPL_ARRAY_LEN(want); i++) {
		int a = cpl_pyscan_assign_last(f, 0, want[i].name);

		ck_assert_int_ge(a, 0);
		cpl_pyvalue_expr(&v, f, &f->assigns[a].value, NULL, &env);
		ck_assert_msg(v.kind == want[i].kind, "%s: %s", want[i].name,
			      cpl_pyvalue_kind_name(v.kind));
		if (want[i].kind == CPL_PYVAL_KNOWN)
			ck_assert_msg(v.value == want[i].value,
				      "%s = %ld, want %ld", want[i].name,
				      v.value, want[i].value);
	}
	/* HOST carries the CPU-count call's position. */
	cpl_pyvalue_expr(&v, f, &f->assigns[cpl_pyscan_assign_last(f, 0,
								  "B")].value,
			 NULL, &env);
	ck_assert_pos(v.host, 9, 5);
	ck_assert_str_eq(v.host.file, "t.py");
	/* An environment value carries where it is set. */
	cpl_pyvalue_expr(&v, f, &f->assigns[cpl_pyscan_assign_last(f, 0,
								  "H")].value,
			 NULL, &env);
	ck_assert_int_eq(v.origin, CPL_PYORIG_ENV);
	ck_assert_str_eq(v.pos.file, "pod.yaml");
	ck_assert_pos(v.pos, 12, 20);
	/* Without an environment callback, environment reads are unknown. */
	env.getenv = NULL;
	cpl_pyvalue_expr(&v, f, &f->assigns[cpl_pyscan_assign_last(f, 0,
								  "H")].value,
			 NULL, &env);
	val_is(&v, CPL_PYVAL_UNKNOWN, 0);
	/* A template word the word callback resolves: `args.workers or
	 * os.cpu_count()` takes it. */
	{
		static const char *const a[] = { "--workers", "{{ workers }}" };

		set_argv(&env, a, 2);
		env.word = template_word;
		cpl_pyvalue_expr(&v, f, &f->assigns[cpl_pyscan_assign_last(
					     f, 0, "F")].value, NULL, &env);
		val_is(&v, CPL_PYVAL_KNOWN, 3);
		ck_assert_int_eq(v.origin, CPL_PYORIG_COMMAND);
		/* ... and picks the given value over the CPU count. */
		cpl_pyvalue_expr(&v, f, &f->assigns[cpl_pyscan_assign_last(
					     f, 0, "T")].value, NULL, &env);
		val_is(&v, CPL_PYVAL_KNOWN, 3);
	}
	cpl_pyfile_free(f);
}
END_TEST

START_TEST(values_names_and_branches)
{
	struct cpl_pyfile *f = scan(
		"import os\n"
		"from torch.utils.data import DataLoader\n"
		"W = 2\n"
		"W = 3\n"
		"def a(debug):\n"
		"    if debug:\n"
		"        w = 0\n"
		"    else:\n"
		"        w = 4\n"
		"    return DataLoader(ds, num_workers=w)\n"
		"def b(debug):\n"
		"    w = 1\n"
		"    if debug:\n"
		"        w = 1\n"
		"    return DataLoader(ds, num_workers=w)\n"
		"def c():\n"
		"    return DataLoader(ds, num_workers=W)\n"
		"def d(n):\n"
		"    n += 2\n"
		"    return DataLoader(ds, num_workers=n)\n"
		"def e():\n"
		"    w, t = 3, os.cpu_count()\n"
		"    torch.set_num_threads(t)\n"
		"    return DataLoader(ds, num_workers=w)\n"
		"class L:\n"
		"    def __init__(self, workers=5):\n"
		"        self.workers = workers\n"
		"    def make(self):\n"
		"        return DataLoader(ds, num_workers=self.workers)\n"
		"d(6)\n");
	struct cpl_pyval v;
	static const struct {
		enum cpl_pyval_kind kind;
		long value;
	} want[] = {
		{ CPL_PYVAL_UNKNOWN, 0 },	/* 0 or 4 */
		{ CPL_PYVAL_KNOWN, 1 },		/* 1 on both paths */
		{ CPL_PYVAL_KNOWN, 3 },		/* the last module value */
		{ CPL_PYVAL_KNOWN, 8 },		/* d(6), then += 2 */
		{ CPL_PYVAL_KNOWN, 3 },		/* tuple unpacking */
		{ CPL_PYVAL_KNOWN, 5 },		/* self.workers, default */
	};
	size_t i;

	ck_assert_uint_eq(f->nloaders, CPL_ARRAY_LEN(want));
	for (i = 0; i < CPL_ARRAY_LEN(want); i++) {
		cpl_pyvalue_loader(&v, f, i, NULL, NULL);
		ck_assert_msg(v.kind == want[i].kind, "loader %zu: %s", i,
			      cpl_pyvalue_kind_name(v.kind));
		if (v.kind == CPL_PYVAL_KNOWN)
			ck_assert_msg(v.value == want[i].value,
				      "loader %zu = %ld", i, v.value);
	}
	cpl_pyvalue_threads(&v, f, 0, NULL, NULL);
	val_is(&v, CPL_PYVAL_HOST, 0);
	ck_assert_pos(v.host, 22, 15);
	cpl_pyfile_free(f);

	/* Implicit and unknown workers. */
	f = scan("from torch.utils.data import DataLoader\n"
		 "a = DataLoader(ds)\nb = DataLoader(ds, **kw)\n"
		 "c = DataLoader(ds, num_workers=0)\n");
	cpl_pyvalue_loader(&v, f, 0, NULL, NULL);
	val_is(&v, CPL_PYVAL_KNOWN, 0);
	ck_assert_int_eq(v.origin, CPL_PYORIG_IMPLICIT);
	ck_assert_pos(v.pos, 2, 5);
	cpl_pyvalue_loader(&v, f, 1, NULL, NULL);
	val_is(&v, CPL_PYVAL_UNKNOWN, 0);
	cpl_pyvalue_loader(&v, f, 2, NULL, NULL);
	val_is(&v, CPL_PYVAL_KNOWN, 0);
	ck_assert_int_eq(v.origin, CPL_PYORIG_CODE);
	ck_assert_pos(v.pos, 4, 32);
	cpl_pyfile_free(f);
}
END_TEST

START_TEST(values_cross_module)
{
	struct cpl_pyfile *t = load(FIX "train.py");
	struct cpl_pyfile *d = load(FIX "data_setup.py");
	struct cpl_pyfile *p = load(FIX "pkg/data.py");
	const struct cpl_pyfile *files[] = { t, d, p };
	struct linkmap m = { { "data_setup", "pkg.data" }, { d, p }, 2 };
	struct cpl_pyenv env;
	struct cpl_pysite site;
	struct cpl_pyval v;
	static const char *const argv[] = { "--workers", "8" };

	memset(&env, 0, sizeof(env));
	env.module = link_module;
	env.ctx = &m;
	env.files = files;
	env.nfiles = 3;
	set_argv(&env, argv, 2);
	/* The call without num_workers: the callee's default, which is
	 * os.cpu_count() through NUM_WORKERS. */
	site.file = t;
	site.call = (size_t)call_of(t, "data_setup.create_dataloaders", 0);
	site.up = NULL;
	cpl_pyvalue_loader(&v, d, 0, &site, &env);
	val_is(&v, CPL_PYVAL_HOST, 0);
	ck_assert_str_eq(v.host.file, FIX "data_setup.py");
	ck_assert_pos(v.host, 5, 15);
	/* The call passing args.workers: the command line's 8. */
	site.call = (size_t)call_of(t, "create_dataloaders", 0);
	cpl_pyvalue_loader(&v, d, 0, &site, &env);
	val_is(&v, CPL_PYVAL_KNOWN, 8);
	ck_assert_int_eq(v.origin, CPL_PYORIG_COMMAND);
	/* No site: every linked call site; one of them is host-sized. */
	cpl_pyvalue_loader(&v, d, 0, NULL, &env);
	val_is(&v, CPL_PYVAL_HOST, 0);
	/* make_loader(NUM_WORKERS) in the relative module pkg.data. */
	cpl_pyvalue_loader(&v, p, 0, NULL, &env);
	val_is(&v, CPL_PYVAL_HOST, 0);
	ck_assert_str_eq(v.host.file, FIX "train.py");
	ck_assert_pos(v.host, 19, 15);
	/* Not linked: no caller is seen; a parameter with a default reads
	 * it, one without stays UNKNOWN. */
	memset(&env, 0, sizeof(env));
	cpl_pyvalue_loader(&v, d, 0, NULL, &env);
	val_is(&v, CPL_PYVAL_HOST, 0);
	cpl_pyvalue_loader(&v, p, 0, NULL, &env);
	val_is(&v, CPL_PYVAL_UNKNOWN, 0);
	/* The linked code of the process. */
	{
		struct cpl_code *code;

		memset(&env, 0, sizeof(env));
		env.module = link_module;
		env.ctx = &m;
		set_argv(&env, argv, 2);
		ck_assert_int_eq(cpl_pyvalue_code(&code, files, 3, &env), 0);
		ck_assert_ptr_eq(code->entry, t);
		ck_assert_uint_eq(code->nfiles, 3);
		ck_assert(code->imports_torch);
		ck_assert_uint_eq(code->nloaders, 3);
		ck_assert_ptr_eq(code->loaders[0].file, t);
		val_is(&code->loaders[0].value, CPL_PYVAL_KNOWN, 8);
		ck_assert_pos(code->loaders[0].pos, 35, 13);
		val_is(&code->loaders[1].value, CPL_PYVAL_HOST, 0);
		ck_assert_uint_eq(code->nthreads, 1);
		val_is(&code->threads[0].value, CPL_PYVAL_KNOWN, 2);
		cpl_pyscan_code_free(code);
	}
	cpl_pyfile_free(t);
	cpl_pyfile_free(d);
	cpl_pyfile_free(p);
}
END_TEST

START_TEST(environment_settings)
{
	struct cpl_pyfile *f = scan(
		"import os\n"
		"from os import environ\n"
		"os.environ.setdefault('OMP_NUM_THREADS', '1')\n"
		"os.putenv('MKL_NUM_THREADS', str(2))\n"
		"os.environ.update(OPENBLAS_NUM_THREADS='3')\n"
		"os.environ.update({'NUMEXPR_NUM_THREADS': '4',\n"
		"                   'TOKENIZERS_PARALLELISM': 'false'})\n"
		"environ['OMP_NUM_THREADS'] = str(os.cpu_count())\n"
		"cfg['OMP_NUM_THREADS'] = '9'\n");
	static const struct {
		const char *name;
		bool setdefault;
		int line, col;
		enum cpl_pyval_kind kind;
		long value;
	} want[] = {
		{ "OMP_NUM_THREADS", true, 3, 1, CPL_PYVAL_KNOWN, 1 },
		{ "MKL_NUM_THREADS", false, 4, 1, CPL_PYVAL_KNOWN, 2 },
		{ "OPENBLAS_NUM_THREADS", false, 5, 40, CPL_PYVAL_KNOWN, 3 },
		{ "NUMEXPR_NUM_THREADS", false, 6, 20, CPL_PYVAL_KNOWN, 4 },
		{ "TOKENIZERS_PARALLELISM", false, 7, 20, CPL_PYVAL_UNKNOWN,
		  0 },
		{ "OMP_NUM_THREADS", false, 8, 1, CPL_PYVAL_HOST, 0 },
	};
	struct cpl_pyval v;
	size_t i;

	ck_assert_uint_eq(f->nenvsets, CPL_ARRAY_LEN(want));
	for (i = 0; i < CPL_ARRAY_LEN(want); i++) {
		const struct cpl_pyenvset *e = &f->envsets[i];

		ck_assert_str_eq(e->name, want[i].name);
		ck_assert(e->setdefault == want[i].setdefault);
		ck_assert_pos(e->pos, want[i].line, want[i].col);
		cpl_pyvalue_envset(&v, f, i, NULL);
		ck_assert_msg(v.kind == want[i].kind, "%s: %s", e->name,
			      cpl_pyvalue_kind_name(v.kind));
		if (v.kind == CPL_PYVAL_KNOWN)
			ck_assert_int_eq(v.value, want[i].value);
	}
	/* The CPU count sizes OMP_NUM_THREADS. */
	ck_assert_int_eq(f->cpucounts[0].use, CPL_PYUSE_SIZING);
	ck_assert_str_eq(f->cpucounts[0].sink, "OMP_NUM_THREADS");
	cpl_pyfile_free(f);
}
END_TEST

START_TEST(values_linked_names)
{
	struct cpl_pyfile *cfg = scan("import os\nWORKERS = 6\n"
				      "THREADS = os.cpu_count()\n");
	struct cpl_pyfile *f = scan(
		"import argparse, torch\n"
		"import config\n"
		"from config import WORKERS\n"
		"from torch.utils.data import DataLoader\n"
		"p = argparse.ArgumentParser()\n"
		"p.add_argument('--amp', action='store_true')\n"
		"args = p.parse_args()\n"
		"a = DataLoader(ds, num_workers=WORKERS)\n"
		"b = DataLoader(ds, num_workers=config.WORKERS * 2)\n"
		"c = DataLoader(ds, num_workers=4 if args.amp else 1)\n"
		"torch.set_num_threads(config.THREADS)\n");
	struct linkmap m = { { "config" }, { NULL }, 1 };
	struct cpl_pyenv env;
	struct cpl_pyval v;
	static const char *const amp[] = { "--amp" };

	m.files[0] = cfg;
	memset(&env, 0, sizeof(env));
	env.module = link_module;
	env.ctx = &m;
	cpl_pyvalue_loader(&v, f, 0, NULL, &env);
	val_is(&v, CPL_PYVAL_KNOWN, 6);
	ck_assert_pos(v.pos, 2, 11);
	cpl_pyvalue_loader(&v, f, 1, NULL, &env);
	val_is(&v, CPL_PYVAL_KNOWN, 12);
	cpl_pyvalue_loader(&v, f, 2, NULL, &env);
	val_is(&v, CPL_PYVAL_KNOWN, 1);
	set_argv(&env, amp, 1);
	cpl_pyvalue_loader(&v, f, 2, NULL, &env);
	val_is(&v, CPL_PYVAL_KNOWN, 4);
	/* The value is the literal the flag chose. */
	ck_assert_int_eq(v.origin, CPL_PYORIG_CODE);
	ck_assert_pos(v.pos, 10, 32);
	cpl_pyvalue_threads(&v, f, 0, NULL, &env);
	val_is(&v, CPL_PYVAL_HOST, 0);
	ck_assert_pos(v.host, 3, 11);
	/* Not linked: unknown, never a guess. */
	env.module = NULL;
	cpl_pyvalue_loader(&v, f, 0, NULL, &env);
	val_is(&v, CPL_PYVAL_UNKNOWN, 0);
	cpl_pyfile_free(f);
	cpl_pyfile_free(cfg);
}
END_TEST

/* ---- robustness and scale --------------------------------------------- */

START_TEST(tokenizer_error_still_yields_facts)
{
	const char *src = "import os\nn = os.cpu_count()\nmsg = 'oops\n"
			  "torch.set_num_threads(n)\n";
	struct cpl_pyfile *f = NULL;
	struct cpl_error err;

	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(cpl_pyscan_file(&f, "bad.py", src, strlen(src),
					 &err), 1);
	ck_assert_str_eq(err.path, "bad.py");
	ck_assert_int_eq(err.line, 3);
	ck_assert_int_eq(err.column, 7);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->ncpucounts, 1);
	ck_assert_uint_eq(f->nthreads, 1);
	ck_assert_pos(f->threads[0].pos, 4, 1);
	cpl_pyfile_free(f);
	cpl_error_clear(&err);

	/* Odd but valid Python: no error, fewer facts. */
	f = scan("match x:\n    case [a, *rest]:\n        pass\n"
		 "type Alias = list[int]\n"
		 "def g[T](x: T) -> T: return x\n"
		 "class C[T](Base): pass\n"
		 "lambda: (yield)\n"
		 "@decorator(arg=1)\nasync def h():\n    await x\n"
		 "print >>sys.stderr, 'py2'\n");
	ck_assert_int_ge(scope_of(f, "g"), 0);
	ck_assert_int_ge(scope_of(f, "C"), 0);
	ck_assert_int_ge(scope_of(f, "h"), 0);
	cpl_pyfile_free(f);
	cpl_pyfile_free(NULL);
	cpl_pyscan_code_free(NULL);
}
END_TEST

START_TEST(large_generated_file)
{
	struct cpl_buf b;
	struct cpl_pyfile *f;
	struct cpl_error err;
	size_t i, n = 2500;

	cpl_buf_init(&b, 0);
	cpl_buf_adds(&b, "import os\nimport torch\n"
			 "from torch.utils.data import DataLoader\n\n");
	for (i = 0; i < n; i++)
		cpl_buf_addf(&b,
			     "def f%zu(ds, workers=os.cpu_count()):\n"
			     "    \"\"\"Loader %zu.\"\"\"\n"
			     "    x = torch.zeros(%zu + 1, 65536)  # work\n"
			     "    torch.set_num_threads(%zu)\n"
			     "    return DataLoader(ds, num_workers=workers)\n"
			     "\n"
			     "\n"
			     "\n",
			     i, i, i, i % 7 + 1);
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(cpl_pyscan_file(&f, "big.py", b.data, b.len, &err),
			 0);
	ck_assert_int_eq(cpl_pyfile_toks(f)[f->ntoks - 1].line,
			 (int)(4 + 8 * n + 1));
	ck_assert_uint_eq(f->nscopes, n + 1);
	ck_assert_uint_eq(f->ncalls, 4 * n);
	ck_assert_uint_eq(f->ncpucounts, n);
	ck_assert_uint_eq(f->nloaders, n);
	ck_assert_uint_eq(f->nthreads, n);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(f->cpucounts[i].use, CPL_PYUSE_SIZING);
		ck_assert_int_ge(f->threads[i].prior_work, 0);
	}
	ck_assert_pos(f->threads[n - 1].pos, (int)(4 + 8 * (n - 1) + 4), 5);
	{
		struct cpl_pyval v;

		cpl_pyvalue_threads(&v, f, n - 1, NULL, NULL);
		val_is(&v, CPL_PYVAL_KNOWN, (long)((n - 1) % 7 + 1));
		cpl_pyvalue_loader(&v, f, n - 1, NULL, NULL);
		val_is(&v, CPL_PYVAL_HOST, 0);
	}
	cpl_pyfile_free(f);
	cpl_buf_free(&b);
}
END_TEST

/* A borrowed text is not copied, and the facts are those of a copying
 * scan; the lookup maps, cut to fit after the scan, still find every
 * name. */
START_TEST(borrowed_text_and_fitted_maps)
{
	struct cpl_pyfile *f = NULL, *g;
	struct cpl_error err = { 0 };
	struct cpl_buf b = { 0 };
	char name[32];
	int i;

	for (i = 0; i < 300; i++)
		cpl_buf_addf(&b, "import mod%d as a%d\nv%d = %d\n", i, i, i,
			     i);
	/* Many tokens, few names: the assign map is reserved large and
	 * must shrink. */
	cpl_buf_adds(&b, "big = [");
	for (i = 0; i < 3000; i++)
		cpl_buf_adds(&b, "0, ");
	cpl_buf_adds(&b, "]\n");
	cpl_buf_adds(&b, "def f(x):\n    return x\n");
	ck_assert_int_eq(cpl_pyscan_file_borrowed(&f, "t.py", b.data, b.len,
						  &err), 0);
	ck_assert_ptr_eq(f->text, b.data);
	g = scan(b.data);
	ck_assert_ptr_ne(g->text, b.data);
	ck_assert_uint_eq(f->ntoks, g->ntoks);
	ck_assert_uint_eq(f->nimports, 300);
	ck_assert_uint_eq(f->nassigns, g->nassigns);
	for (i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "a%d", i);
		ck_assert_int_eq(cpl_pyscan_binding(f, 0, name), i);
		snprintf(name, sizeof(name), "v%d", i);
		ck_assert_int_ge(cpl_pyscan_assign_last(f, 0, name), 0);
	}
	ck_assert_int_ge(cpl_pyscan_assign_last(f, 0, "big"), 0);
	ck_assert_int_eq(cpl_pyscan_binding(f, 0, "a300"), -1);
	ck_assert_int_eq(cpl_pyscan_binding(f, 0, "nothing"), -1);
	cpl_pyfile_free(f);
	cpl_pyfile_free(g);
	ck_assert_str_eq(cpl_buf_str(&b) + b.len - 9, "return x\n");
	cpl_buf_free(&b);
	cpl_error_clear(&err);
}
END_TEST

static Suite *
pyscan_suite(void)
{
	Suite *s = suite_create("pyscan");
	TCase *facts = tcase_create("facts");
	TCase *values = tcase_create("values");
	TCase *robust = tcase_create("robust");

	tcase_add_test(facts, imports_and_aliases);
	tcase_add_test(facts, cpu_count_calls);
	tcase_add_test(facts, torch_multiprocessing_cpu_count);
	tcase_add_test(facts, strings_and_comments_never_count);
	tcase_add_test(facts, thread_settings);
	tcase_add_test(facts, dataloaders);
	tcase_add_test(facts, dataloader_needs_workers);
	tcase_add_test(facts, pools);
	tcase_add_test(facts, argparse_definitions);
	tcase_add_test(facts, assignments);
	tcase_add_test(facts, defs_params_and_calls);
	tcase_add_test(facts, cross_module_calls);
	tcase_add_test(facts, tensor_work_before_threads);
	tcase_add_test(facts, worker_init_bodies);
	tcase_add_test(facts, pipeline_and_cv2);
	tcase_add_test(facts, cpu_count_sizing_vs_printed);
	tcase_add_test(values, values_argparse_overrides);
	tcase_add_test(values, values_expressions);
	tcase_add_test(values, values_names_and_branches);
	tcase_add_test(values, values_cross_module);
	tcase_add_test(values, environment_settings);
	tcase_add_test(values, values_linked_names);
	tcase_add_test(robust, tokenizer_error_still_yields_facts);
	tcase_add_test(robust, large_generated_file);
	tcase_add_test(robust, borrowed_text_and_fitted_maps);
	tcase_set_timeout(robust, 30);
	suite_add_tcase(s, facts);
	suite_add_tcase(s, values);
	suite_add_tcase(s, robust);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(pyscan_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
