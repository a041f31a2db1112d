/*
 * test_pycode.c — Python read as a process rather than a file: the main
 * guard that makes an entry script, the sinks and refs a file keeps for
 * joining, upper and lower bounds of CPU counts (min(8, os.cpu_count())),
 * the linked code of a process (pipeline roles, worker_init_fn and CPU
 * counts across modules, the first cv2 call its workers run), and which
 * calls start the intra-op pool.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/link.h"
#include "python/pyscan.h"
#include "python/pyvalue.h"

static struct cpl_pyfile *
scan_as(const char *path, const char *src)
{
	struct cpl_pyfile *f = NULL;
	struct cpl_error err;

	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(cpl_pyscan_file(&f, path, src, strlen(src), &err), 0);
	cpl_error_clear(&err);
	return f;
}

static struct cpl_pyfile *
scan(const char *src)
{
	return scan_as("t.py", src);
}

static int
scope_of(const struct cpl_pyfile *f, const char *qualname)
{
	size_t i;

	for (i = 0; i < f->nscopes; i++)
		if (strcmp(f->scopes[i].qualname, qualname) == 0)
			return (int)i;
	return -1;
}

/* The value of module-level name (its last assignment). */
static struct cpl_pyval
value_of(const struct cpl_pyfile *f, const char *name,
	 const struct cpl_pyenv *env)
{
	struct cpl_pyval v;
	int a = cpl_pyscan_assign_last(f, 0, name);

	ck_assert_msg(a >= 0, "no assignment of %s", name);
	cpl_pyvalue_expr(&v, f, &f->assigns[a].value, NULL, env);
	return v;
}

#define ck_host(v, is_capped, want_cap)                                  \
	do {                                                              \
		ck_assert_int_eq((v).kind, CPL_PYVAL_HOST);               \
		ck_assert_int_eq((v).capped, (is_capped));                \
		ck_assert_int_eq((v).cap, (want_cap));                    \
	} while (0)

/* Linked modules by dotted name (levels ignored). */
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

/* ---- entry scripts ---------------------------------------------------- */

START_TEST(main_guard_makes_an_entry)
{
	static const char *const yes[] = {
		"def main():\n    pass\nif __name__ == \"__main__\":\n"
		"    main()\n",
		"if '__main__' == __name__:\n    pass\n",
		"if (__name__ == '__main__'):  # run\n    pass\n",
		"from torch.utils.data import DataLoader\n"
		"loader = DataLoader(range(4), num_workers=2)\n",
	};
	static const char *const no[] = {
		"def f():\n    if __name__ == '__main__':\n        pass\n",
		"if __name__ == 'train':\n    pass\n",
		"x = '__main__'\n",
		"from torch.utils.data import DataLoader\n"
		"def make():\n    return DataLoader(range(4), num_workers=2)\n",
	};
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		struct cpl_pyfile *f = scan(yes[i]);

		ck_assert_msg(cpl_link_is_entry(f), "not an entry: %s", yes[i]);
		cpl_pyfile_free(f);
	}
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		struct cpl_pyfile *f = scan(no[i]);

		ck_assert_msg(!cpl_link_is_entry(f), "an entry: %s", no[i]);
		ck_assert(!f->main_guard);
		cpl_pyfile_free(f);
	}
	{
		struct cpl_pyfile *f = scan("import os\n\nif __name__ == "
					    "\"__main__\":\n    pass\n");

		ck_assert(f->main_guard);
		ck_assert_int_eq(f->main_pos.line, 3);
		ck_assert_int_eq(f->main_pos.column, 1);
		cpl_pyfile_free(f);
	}
	ck_assert(!cpl_link_is_entry(NULL));
}
END_TEST

/* ---- bounds of CPU counts --------------------------------------------- */

START_TEST(cpu_counts_keep_their_caps)
{
	struct cpl_pyfile *f = scan(
		"import os\n"
		"import psutil\n"
		"a = min(8, os.cpu_count())\n"
		"b = os.cpu_count()\n"
		"c = min(os.cpu_count() // 2, 8) * 2\n"
		"d = min([os.cpu_count() // max(nd, 1), bs, workers])\n"
		"e = min(len(files), os.cpu_count())\n"
		"g = max(2, min(8, os.cpu_count()))\n"
		"h = 4 if os.cpu_count() > 8 else 2\n"
		"i = -min(8, os.cpu_count())\n"
		"j = int(min(8, os.cpu_count()) / 3)\n"
		"k = max(os.cpu_count(), 4)\n"
		"m = min(8, os.cpu_count(), key=abs)\n"
		"n = min(8, os.cpu_count() // 2)\n"
		"p = psutil.cpu_count()\n"
		"q = min(cfg.workers, os.cpu_count())\n"
		"r = min(4, 6)\n"
		"s = min((os.cpu_count(), 16))\n"
		"t = min(8, os.cpu_count()) + os.cpu_count()\n");
	struct cpl_pyenv env;
	struct cpl_pyval v;

	v = value_of(f, "a", NULL);
	ck_host(v, true, 8);
	ck_assert_int_eq(v.host.line, 3);
	ck_assert_int_eq(v.host.column, 12);
	ck_host(value_of(f, "b", NULL), false, -1);
	ck_host(value_of(f, "c", NULL), true, 16);
	/* YOLO's form: bounded by settings the text does not fix. */
	ck_host(value_of(f, "d", NULL), true, -1);
	/* An amount of data is no cap. */
	ck_host(value_of(f, "e", NULL), false, -1);
	ck_host(value_of(f, "g", NULL), true, 8);
	v = value_of(f, "h", NULL);
	ck_host(v, true, 4);
	ck_assert_int_eq(v.lo, 2);
	ck_host(value_of(f, "i", NULL), false, -1);
	ck_host(value_of(f, "j", NULL), true, 2);
	ck_host(value_of(f, "k", NULL), false, -1);
	ck_assert_int_eq(value_of(f, "m", NULL).kind, CPL_PYVAL_UNKNOWN);
	ck_host(value_of(f, "q", NULL), true, -1);
	v = value_of(f, "r", NULL);
	ck_assert_int_eq(v.kind, CPL_PYVAL_KNOWN);
	ck_assert_int_eq(v.value, 4);
	ck_host(value_of(f, "s", NULL), true, 16);
	ck_host(value_of(f, "t", NULL), false, -1);
	/* Lower bounds: the node has at least the CPUs requested. */
	ck_assert_int_eq(value_of(f, "a", NULL).lo, 1);
	memset(&env, 0, sizeof(env));
	env.host_min = 4;
	ck_assert_int_eq(value_of(f, "a", &env).lo, 4);
	ck_assert_int_eq(value_of(f, "b", &env).lo, 4);
	ck_assert_int_eq(value_of(f, "n", &env).lo, 2);
	ck_assert_int_eq(value_of(f, "c", &env).lo, 4);
	ck_assert_int_eq(value_of(f, "g", &env).lo, 4);
	/* psutil may count physical cores: no more than 1 is known. */
	ck_assert_int_eq(value_of(f, "p", &env).lo, 1);
	cpl_pyfile_free(f);
}
END_TEST

/* ---- what a file keeps for joining ------------------------------------ */

START_TEST(sinks_and_refs)
{
	struct cpl_pyfile *f = scan(
		"import os\n"
		"import torch\n"
		"from torch.utils.data import DataLoader\n"
		"import aug as A\n"
		"from data import Frames\n"
		"from seeding import seed_worker\n"
		"from functools import partial\n"
		"def make(root, batch_size, n_workers):\n"
		"    tf = A.Compose([A.Letterbox(640), local_tf])\n"
		"    ds = Frames(root, transform=tf)\n"
		"    return DataLoader(ds, batch_size, num_workers=n_workers,\n"
		"        worker_init_fn=partial(seed_worker, rank=0))\n"
		"def local_tf(x):\n"
		"    return x\n"
		"torch.set_num_threads(min(4, os.cpu_count()))\n");
	size_t i;
	bool seen_loader = false, seen_param = false, seen_threads = false;
	const char *refs[] = { "A.Letterbox", "Frames", "seed_worker" };
	unsigned roles[] = { CPL_PYROLE_TRANSFORM, CPL_PYROLE_GETITEM,
			     CPL_PYROLE_WORKER_INIT };

	for (i = 0; i < f->nsinks; i++) {
		const struct cpl_pysink *s = &f->sinks[i];

		if (strcmp(s->what, "num_workers") == 0) {
			seen_loader = true;
			ck_assert_int_eq(s->pos.line, 11);
		} else if (strcmp(s->what, "n_workers") == 0) {
			/* A parameter: its name as the body reads it. */
			seen_param = true;
			ck_assert_uint_eq(s->value.last, s->value.first + 1);
			ck_assert_int_eq(s->value.scope, scope_of(f, "make"));
		} else if (strcmp(s->what, "torch.set_num_threads") == 0) {
			seen_threads = true;
		}
	}
	ck_assert(seen_loader && seen_param && seen_threads);
	/* The CPU count's first sink is the thread setting. */
	ck_assert_uint_eq(f->ncpucounts, 1);
	ck_assert_int_eq(f->cpucounts[0].use, CPL_PYUSE_SIZING);
	ck_assert_int_ge(f->cpucounts[0].sink_index, 0);
	ck_assert_str_eq(f->sinks[f->cpucounts[0].sink_index].what,
			 "torch.set_num_threads");
	/* A.Compose is called, not passed: no ref. */
	ck_assert_uint_eq(f->nrefs, 3);
	for (i = 0; i < 3; i++) {
		size_t k;

		for (k = 0; k < f->nrefs; k++)
			if (strcmp(f->refs[k].name, refs[i]) == 0)
				break;
		ck_assert_msg(k < f->nrefs, "no ref %s", refs[i]);
		ck_assert_uint_eq(f->refs[k].role, roles[i]);
	}
	ck_assert(f->scopes[scope_of(f, "local_tf")].roles &
		  CPL_PYROLE_TRANSFORM);
	cpl_pyfile_free(f);
}
END_TEST

/* ---- a process -------------------------------------------------------- */

START_TEST(process_joins_modules)
{
	struct cpl_pyfile *t = scan_as("train.py",
		"import os\n"
		"import torch\n"
		"from torch.utils.data import DataLoader\n"
		"from pkg import Frames\n"
		"from loaders import build\n"
		"from seeding import seed_worker\n"
		"import aug\n"
		"ds = Frames('/data', transform=aug.Letterbox(640))\n"
		"dl = DataLoader(ds, num_workers=4, worker_init_fn=seed_worker)\n"
		"torch.set_num_threads(2)\n"
		"val = build('/data', 64, os.cpu_count())\n"
		"if __name__ == '__main__':\n"
		"    pass\n");
	struct cpl_pyfile *init = scan_as("pkg/__init__.py",
		"from .dataset import Frames\n");
	struct cpl_pyfile *ds = scan_as("pkg/dataset.py",
		"import cv2\n"
		"from helpers import decode\n"
		"class Frames:\n"
		"    def __init__(self, root, transform=None):\n"
		"        self.root = root\n"
		"    def __getitem__(self, i):\n"
		"        return decode(self.root)\n");
	struct cpl_pyfile *helpers = scan_as("helpers.py",
		"import cv2\n"
		"def decode(p):\n"
		"    return cv2.imread(p)\n"
		"def unused(p):\n"
		"    return cv2.imwrite(p, None)\n");
	struct cpl_pyfile *aug = scan_as("aug.py",
		"import cv2\n"
		"class Letterbox:\n"
		"    def __init__(self, size):\n"
		"        self.size = size\n"
		"    def __call__(self, img):\n"
		"        return cv2.resize(img, (self.size, self.size))\n");
	struct cpl_pyfile *seeding = scan_as("seeding.py",
		"import torch\n"
		"def seed_worker(worker_id):\n"
		"    torch.set_num_threads(4)\n");
	struct cpl_pyfile *loaders = scan_as("loaders.py",
		"from torch.utils.data import DataLoader\n"
		"def build(root, batch_size, workers):\n"
		"    return DataLoader(root, batch_size, num_workers=workers)\n");
	const struct cpl_pyfile *files[] = { t, init, ds, helpers, aug,
					     seeding, loaders };
	struct linkmap m = {
		{ "pkg", "dataset", "helpers", "aug", "seeding", "loaders" },
		{ init, ds, helpers, aug, seeding, loaders }, 6,
	};
	struct cpl_pyenv env;
	struct cpl_code *code;
	size_t i;

	/* Alone, no file shows a pipeline role from another. */
	ck_assert_uint_eq(ds->scopes[scope_of(ds, "Frames.__getitem__")].roles,
			  0);
	memset(&env, 0, sizeof(env));
	env.module = link_module;
	env.ctx = &m;
	ck_assert_int_eq(cpl_pyvalue_code(&code, files, 7, &env), 0);
	ck_assert_uint_eq(code->nfiles, 7);
	/* The dataset built in train.py, re-exported by pkg/__init__.py. */
	ck_assert(code->roles[2][scope_of(ds, "Frames.__getitem__")] &
		  CPL_PYROLE_GETITEM);
	ck_assert(!(code->roles[2][scope_of(ds, "Frames.__init__")] &
		    CPL_PYROLE_PIPELINE));
	/* What __getitem__ calls in another module runs in the workers. */
	ck_assert(code->roles[3][scope_of(helpers, "decode")] &
		  CPL_PYROLE_PIPELINE);
	ck_assert(!(code->roles[3][scope_of(helpers, "unused")] &
		    CPL_PYROLE_PIPELINE));
	/* A transform class passed as aug.Letterbox: its __call__. */
	ck_assert(code->roles[4][scope_of(aug, "Letterbox.__call__")] &
		  CPL_PYROLE_TRANSFORM);
	/* An imported worker_init_fn, whose thread setting is not the
	 * rank's. */
	ck_assert(code->roles[5][scope_of(seeding, "seed_worker")] &
		  CPL_PYROLE_WORKER_INIT);
	ck_assert_uint_eq(code->nthreads, 1);
	ck_assert_ptr_eq(code->threads[0].file, t);
	/* The first cv2 call the workers run, in file order. */
	ck_assert_int_eq(code->cv2_file, 3);
	ck_assert_str_eq(helpers->calls[code->cv2_call].callee, "cv2.imread");
	/* A CPU count passed positionally that sizes workers elsewhere. */
	ck_assert_int_eq(t->cpucounts[0].use, CPL_PYUSE_OTHER);
	ck_assert_uint_eq(code->ncounts, 1);
	ck_assert_ptr_eq(code->counts[0].file, t);
	ck_assert_uint_eq(code->counts[0].index, 0);
	ck_assert_str_eq(code->counts[0].what, "num_workers");
	ck_assert_str_eq(code->counts[0].sink.file, "loaders.py");
	ck_assert_int_eq(code->counts[0].sink.line, 3);
	for (i = 0; i < code->nloaders; i++)
		if (code->loaders[i].file == loaders)
			ck_assert_int_eq(code->loaders[i].value.kind,
					 CPL_PYVAL_HOST);
	cpl_pyscan_code_free(code);
	/* Without the module callback nothing is joined. */
	memset(&env, 0, sizeof(env));
	ck_assert_int_eq(cpl_pyvalue_code(&code, files, 7, &env), 0);
	ck_assert(!(code->roles[2][scope_of(ds, "Frames.__getitem__")] &
		    CPL_PYROLE_GETITEM));
	ck_assert_int_eq(code->cv2_file, -1);
	ck_assert_uint_eq(code->ncounts, 0);
	ck_assert_uint_eq(code->nthreads, 2);
	cpl_pyscan_code_free(code);
	for (i = 0; i < 7; i++)
		cpl_pyfile_free((struct cpl_pyfile *)files[i]);
}
END_TEST

START_TEST(process_keeps_capped_counts_local)
{
	struct cpl_pyfile *t = scan_as("train.py",
		"import os\n"
		"from loaders import build, log_host\n"
		"from config import PROCS\n"
		"a = build('/data', min(8, os.cpu_count()))\n"
		"b = build('/data', PROCS)\n"
		"log_host(os.cpu_count())\n");
	struct cpl_pyfile *cfg = scan_as("config.py",
		"import os\nPROCS = os.cpu_count()\n");
	struct cpl_pyfile *l = scan_as("loaders.py",
		"import logging\n"
		"from torch.utils.data import DataLoader\n"
		"def build(root, workers):\n"
		"    return DataLoader(root, num_workers=workers)\n"
		"def log_host(cpus):\n"
		"    logging.info('%d CPUs', cpus)\n");
	const struct cpl_pyfile *files[] = { t, cfg, l };
	struct linkmap m = { { "config", "loaders" }, { cfg, l }, 2 };
	struct cpl_pyenv env;
	struct cpl_code *code;

	memset(&env, 0, sizeof(env));
	env.module = link_module;
	env.ctx = &m;
	ck_assert_int_eq(cpl_pyvalue_code(&code, files, 3, &env), 0);
	/* The capped and the logged counts are not; the imported constant
	 * that reaches num_workers is, at config.py. */
	ck_assert_uint_eq(code->ncounts, 1);
	ck_assert_ptr_eq(code->counts[0].file, cfg);
	ck_assert_str_eq(code->counts[0].sink.file, "loaders.py");
	cpl_pyscan_code_free(code);
	cpl_pyfile_free(t);
	cpl_pyfile_free(cfg);
	cpl_pyfile_free(l);
}
END_TEST

/* A helper reached through a package's re-export, and re-exports that
 * point at each other (an import cycle) stop. */
START_TEST(process_follows_reexports)
{
	struct cpl_pyfile *t = scan_as("train.py",
		"from torch.utils.data import DataLoader\n"
		"from common import loader_workers, spin\n"
		"a = DataLoader(range(8), num_workers=loader_workers())\n"
		"b = DataLoader(range(8), num_workers=spin())\n");
	struct cpl_pyfile *init = scan_as("common/__init__.py",
		"from .data import loader_workers\n"
		"from .cyc import spin\n");
	struct cpl_pyfile *data = scan_as("common/data.py",
		"import os\n"
		"def loader_workers():\n"
		"    return os.cpu_count()\n");
	struct cpl_pyfile *cyc = scan_as("common/cyc.py",
		"from common import spin\n");
	const struct cpl_pyfile *files[] = { t, init, data, cyc };
	struct linkmap m = { { "common", "data", "cyc" }, { init, data, cyc },
			     3 };
	struct cpl_pyenv env;
	struct cpl_code *code;
	struct cpl_pyval v;

	memset(&env, 0, sizeof(env));
	env.module = link_module;
	env.ctx = &m;
	ck_assert_int_eq(cpl_pyvalue_code(&code, files, 4, &env), 0);
	ck_assert_uint_eq(code->nloaders, 2);
	ck_assert_int_eq(code->loaders[0].value.kind, CPL_PYVAL_HOST);
	ck_assert_str_eq(code->loaders[0].value.host.file, "common/data.py");
	ck_assert_int_eq(code->loaders[1].value.kind, CPL_PYVAL_UNKNOWN);
	ck_assert_uint_eq(code->ncounts, 1);
	ck_assert_ptr_eq(code->counts[0].file, data);
	ck_assert_str_eq(code->counts[0].sink.file, "train.py");
	/* The value alone, through the same callback. */
	cpl_pyvalue_loader(&v, t, 1, NULL, &env);
	ck_assert_int_eq(v.kind, CPL_PYVAL_UNKNOWN);
	cpl_pyscan_code_free(code);
	cpl_pyfile_free(t);
	cpl_pyfile_free(init);
	cpl_pyfile_free(data);
	cpl_pyfile_free(cyc);
}
END_TEST

/* A helper that reads the cgroup's CPU quota falls back on the CPU count
 * only where no quota is set: its count sizes nothing, in its own file or
 * in another. */
START_TEST(quota_aware_helpers_size_nothing)
{
	struct cpl_pyfile *t = scan_as("train.py",
		"import os\n"
		"from torch.utils.data import DataLoader\n"
		"from system import available_cpus\n"
		"def _cgroup():\n"
		"    q, p = open('/sys/fs/cgroup/cpu.max').read().split()\n"
		"    return None if q == 'max' else int(q) // int(p)\n"
		"def cpus():\n"
		"    return _cgroup() or os.cpu_count()\n"
		"def host():\n"
		"    return os.cpu_count()\n"
		"a = DataLoader(range(8), num_workers=cpus())\n"
		"b = DataLoader(range(8), num_workers=available_cpus() - 1)\n"
		"c = DataLoader(range(8), num_workers=host())\n");
	struct cpl_pyfile *sys = scan_as("system.py",
		"import os\n"
		"def available_cpus():\n"
		"    n = len(os.sched_getaffinity(0))\n"
		"    try:\n"
		"        q = int(open('/sys/fs/cgroup/cpu/cpu.cfs_quota_us')"
		".read())\n"
		"    except OSError:\n"
		"        return n\n"
		"    return n if q <= 0 else max(1, q // 100000)\n");
	const struct cpl_pyfile *files[] = { t, sys };
	struct linkmap m = { { "system" }, { sys }, 1 };
	struct cpl_pyenv env;
	struct cpl_code *code;

	ck_assert_uint_eq(t->ncpucounts, 2);
	ck_assert_int_ne(t->cpucounts[0].use, CPL_PYUSE_SIZING);
	ck_assert_int_eq(t->cpucounts[1].use, CPL_PYUSE_SIZING);
	memset(&env, 0, sizeof(env));
	env.module = link_module;
	env.ctx = &m;
	ck_assert_int_eq(cpl_pyvalue_code(&code, files, 2, &env), 0);
	ck_assert_uint_eq(code->nloaders, 3);
	ck_assert_int_eq(code->loaders[0].value.kind, CPL_PYVAL_UNKNOWN);
	ck_assert_int_eq(code->loaders[1].value.kind, CPL_PYVAL_UNKNOWN);
	ck_assert_int_eq(code->loaders[2].value.kind, CPL_PYVAL_HOST);
	ck_assert_uint_eq(code->ncounts, 0);
	cpl_pyscan_code_free(code);
	cpl_pyfile_free(t);
	cpl_pyfile_free(sys);
}
END_TEST

/* A capped count returned from a helper module keeps its cap for the
 * rule to weigh against the budget; a cap the text does not fix is not
 * one. */
START_TEST(process_keeps_caps_across_modules)
{
	struct cpl_pyfile *t = scan_as("train.py",
		"from torch.utils.data import DataLoader\n"
		"from hardware import get_num_workers, up_to\n"
		"a = DataLoader(range(8), num_workers=get_num_workers())\n"
		"b = DataLoader(range(8), num_workers=up_to(cfg.workers))\n");
	struct cpl_pyfile *hw = scan_as("hardware.py",
		"import os\n"
		"def get_num_workers():\n"
		"    return min(8, os.cpu_count())\n"
		"def up_to(n):\n"
		"    return min(n, os.cpu_count())\n");
	const struct cpl_pyfile *files[] = { t, hw };
	struct linkmap m = { { "hardware" }, { hw }, 1 };
	struct cpl_pyenv env;
	struct cpl_code *code;

	memset(&env, 0, sizeof(env));
	env.module = link_module;
	env.ctx = &m;
	ck_assert_int_eq(cpl_pyvalue_code(&code, files, 2, &env), 0);
	ck_assert_uint_eq(code->ncounts, 1);
	ck_assert_ptr_eq(code->counts[0].file, hw);
	ck_assert_int_eq(code->counts[0].sink.line, 3);
	ck_assert_int_eq(code->counts[0].cap, 8);
	cpl_pyscan_code_free(code);
	cpl_pyfile_free(t);
	cpl_pyfile_free(hw);
}
END_TEST

/* Names and defs a star import brings (from utils import *); a name
 * with a leading underscore is not exported. */
START_TEST(star_imports_bring_values)
{
	struct cpl_pyfile *t = scan_as("train.py",
		"from torch.utils.data import DataLoader\n"
		"from utils import *\n"
		"a = DataLoader(range(8), num_workers=N_CPU)\n"
		"b = DataLoader(range(8), num_workers=get_workers())\n"
		"c = DataLoader(range(8), num_workers=_hidden)\n");
	struct cpl_pyfile *u = scan_as("utils.py",
		"import os\n"
		"N_CPU = os.cpu_count() - 1\n"
		"_hidden = os.cpu_count()\n"
		"def get_workers():\n"
		"    return os.cpu_count()\n");
	struct linkmap m = { { "utils" }, { u }, 1 };
	struct cpl_pyenv env;
	struct cpl_pyval v;

	memset(&env, 0, sizeof(env));
	env.module = link_module;
	env.ctx = &m;
	cpl_pyvalue_loader(&v, t, 0, NULL, &env);
	ck_assert_int_eq(v.kind, CPL_PYVAL_HOST);
	ck_assert_int_eq(v.host.line, 2);
	cpl_pyvalue_loader(&v, t, 1, NULL, &env);
	ck_assert_int_eq(v.kind, CPL_PYVAL_HOST);
	ck_assert_int_eq(v.host.line, 5);
	cpl_pyvalue_loader(&v, t, 2, NULL, &env);
	ck_assert_int_eq(v.kind, CPL_PYVAL_UNKNOWN);
	cpl_pyfile_free(t);
	cpl_pyfile_free(u);
}
END_TEST

/* A class's attribute (Class.attr, module.Class.attr): the class body's
 * value; the dotted name assigned before the use wins, and assigned in
 * another def leaves it unknown. */
START_TEST(class_attributes_across_modules)
{
	struct cpl_pyfile *t = scan_as("train.py",
		"from torch.utils.data import DataLoader\n"
		"import config\n"
		"from config import CFG, Other\n"
		"a = DataLoader(range(8), num_workers=CFG.cpus)\n"
		"b = DataLoader(range(8), num_workers=config.CFG.cpus)\n"
		"def tune():\n"
		"    Other.cpus = 2\n"
		"c = DataLoader(range(8), num_workers=Other.cpus)\n"
		"CFG.cpus = 3\n"
		"d = DataLoader(range(8), num_workers=CFG.cpus)\n");
	struct cpl_pyfile *cfg = scan_as("config.py",
		"import os\n"
		"class CFG:\n"
		"    seed = 42\n"
		"    cpus = os.cpu_count()\n"
		"class Other:\n"
		"    cpus = os.cpu_count()\n");
	struct linkmap m = { { "config" }, { cfg }, 1 };
	struct cpl_pyenv env;
	struct cpl_pyval v;

	memset(&env, 0, sizeof(env));
	env.module = link_module;
	env.ctx = &m;
	cpl_pyvalue_loader(&v, t, 0, NULL, &env);
	ck_assert_int_eq(v.kind, CPL_PYVAL_HOST);
	ck_assert_int_eq(v.host.line, 4);
	cpl_pyvalue_loader(&v, t, 1, NULL, &env);
	ck_assert_int_eq(v.kind, CPL_PYVAL_HOST);
	cpl_pyvalue_loader(&v, t, 2, NULL, &env);
	ck_assert_int_eq(v.kind, CPL_PYVAL_UNKNOWN);
	cpl_pyvalue_loader(&v, t, 3, NULL, &env);
	ck_assert_int_eq(v.kind, CPL_PYVAL_KNOWN);
	ck_assert_int_eq(v.value, 3);
	cpl_pyfile_free(t);
	cpl_pyfile_free(cfg);
}
END_TEST

START_TEST(process_factories_build_transforms)
{
	struct cpl_pyfile *t = scan_as("train.py",
		"from torch.utils.data import DataLoader\n"
		"from torchvision import datasets, transforms as T\n"
		"from aug import build_tf, letterbox, flip\n"
		"ds = datasets.ImageFolder('/d', transform=build_tf(640))\n"
		"tf = T.Compose([T.Lambda(lambda im: letterbox(im)), flip])\n"
		"dl = DataLoader(ds, num_workers=4)\n"
		"if __name__ == '__main__':\n"
		"    pass\n");
	struct cpl_pyfile *aug = scan_as("aug.py",
		"import cv2\n"
		"def build_tf(size):\n"
		"    return cv2.resize\n"
		"def letterbox(im):\n"
		"    return cv2.resize(im, (640, 640))\n"
		"def flip(im):\n"
		"    return cv2.flip(im, 1)\n");
	const struct cpl_pyfile *files[] = { t, aug };
	struct linkmap m = { { "aug" }, { aug }, 1 };
	struct cpl_pyenv env;
	struct cpl_code *code;

	memset(&env, 0, sizeof(env));
	env.module = link_module;
	env.ctx = &m;
	ck_assert_int_eq(cpl_pyvalue_code(&code, files, 2, &env), 0);
	/* Called at construction: it builds the transform, it is not one. */
	ck_assert(!(code->roles[1][scope_of(aug, "build_tf")] &
		    CPL_PYROLE_PIPELINE));
	/* Called in a lambda the workers run, or passed: transforms. */
	ck_assert(code->roles[1][scope_of(aug, "letterbox")] &
		  CPL_PYROLE_TRANSFORM);
	ck_assert(code->roles[1][scope_of(aug, "flip")] &
		  CPL_PYROLE_TRANSFORM);
	cpl_pyscan_code_free(code);
	cpl_pyfile_free(t);
	cpl_pyfile_free(aug);
}
END_TEST

/* ---- work that starts the intra-op pool ------------------------------- */

START_TEST(parallel_work)
{
	static const struct {
		const char *stmt;
		bool work;
	} cases[] = {
		{ "y = model(x)", true },
		{ "y = self.model(x)", true },
		{ "y = teacher_model(x)", true },
		{ "loss.backward()", true },
		{ "y = net.forward(x)", true },
		{ "y = torch.matmul(a, b)", true },
		{ "y = F.conv2d(x, w)", true },
		{ "y = torch.cat([a, b])", true },
		{ "x = torch.randn(512, 512)", true },
		{ "x = torch.zeros(bs, 3, 224, 224)", true },
		{ "x = torch.ones((256, 256))", true },
		{ "x = torch.arange(100000)", true },
		{ "x = torch.full((1024, 64), 0.5)", true },
		{ "sd = torch.load('ckpt.pt', map_location='cpu')", true },
		{ "m.load_state_dict(sd)", true },
		{ "m = AutoModel.from_pretrained('bert-base-uncased')", true },
		{ "m = resnet50(weights=ResNet50_Weights.DEFAULT)", true },
		{ "m = timm.create_model('vit_b_16', pretrained=True)", true },
		{ "t = torch.jit.trace(model, x)", true },
		{ "g = torch.autograd.grad(y, x)", true },
		{ "s = torch.tensor([rank])", false },
		{ "s = torch.tensor(0.5)", false },
		{ "x = torch.zeros(3)", false },
		{ "x = torch.randn(n)", false },
		{ "x = torch.arange(10)", false },
		{ "x = torch.empty(4096, 4096)", false },
		{ "x = torch.from_numpy(a)", false },
		{ "m = m.to(device)", false },
		{ "m = m.cuda()", false },
		{ "torch.manual_seed(0)", false },
		{ "n = torch.cuda.device_count()", false },
		{ "torch.cuda.set_device(0)", false },
		{ "m = nn.Linear(4096, 4096)", false },
		{ "m = resnet50()", false },
		{ "m = resnet50(weights=None)", false },
		{ "m = timm.create_model('vit_b_16')", false },
		{ "m = build_model(cfg)", false },
		{ "m = create_model('resnet50')", false },
		{ "m = MyModel(cfg)", false },
		{ "c = torch.compile(m)", false },
		{ "s = torch.jit.script(m)", false },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *src = cpl_xasprintf(
			"import timm\nimport torch\nimport torch.nn as nn\n"
			"import torch.nn.functional as F\n"
			"from torchvision.models import resnet50\n"
			"from transformers import AutoModel\n%s\n",
			cases[i].stmt);
		struct cpl_pyfile *f = scan(src);
		bool work = false;
		size_t k;

		for (k = 0; k < f->ncalls; k++)
			work |= f->calls[k].kind == CPL_PYCALL_TENSOR;
		ck_assert_msg(work == cases[i].work, "%s: %s", cases[i].stmt,
			      work ? "work" : "no work");
		cpl_pyfile_free(f);
		free(src);
	}
}
END_TEST

/* Paths join lexically: "." and "" go, ".." takes back a component (a
 * leading ".." stays), a root stays, an absolute rel wins. */
START_TEST(paths_join_lexically)
{
	static const char *const cases[][3] = {
		{ ".", "a/b.py", "a/b.py" },
		{ "", "a.py", "a.py" },
		{ "x", "a.py", "x/a.py" },
		{ "x/y", "../a.py", "x/a.py" },
		{ "x/./y/", "./a//b.py", "x/y/a/b.py" },
		{ "/r/x", "../../a.py", "/a.py" },
		{ "/r", "../..", "/.." },
		{ "/", "a", "/a" },
		{ "x", "..", "." },
		{ ".", "../a.py", "../a.py" },
		{ "..", "a/../../b", "../../b" },
		{ ".", "../../x.py", "../../x.py" },
		{ "a", "../../../x.py", "../../x.py" },
		{ "x", "/abs/./a.py", "/abs/a.py" },
		{ "x//y", "", "x/y" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *p = cpl_link_join(cases[i][0], cases[i][1]);

		ck_assert_msg(strcmp(p, cases[i][2]) == 0,
			      "join(%s, %s) = %s, want %s", cases[i][0],
			      cases[i][1], p, cases[i][2]);
		free(p);
	}
	{
		char *p = cpl_link_join(NULL, "./a.py");

		ck_assert_str_eq(p, "a.py");
		free(p);
	}
}
END_TEST

/* A path is joined exactly when joining it again changes nothing: over
 * every path of up to five components from "", ".", "..", "a", "bc",
 * with and without a leading '/'. */
START_TEST(joined_paths_are_fixed_points)
{
	static const char *const comp[] = { "", ".", "..", "a", "bc" };
	size_t ncomp = sizeof(comp) / sizeof(comp[0]), total = 1, code, k;
	struct cpl_buf path;
	int len, root;

	cpl_buf_init(&path, 0);
	for (len = 1; len <= 5; len++) {
		total *= ncomp;
		for (root = 0; root < 2; root++) {
			for (code = 0; code < total; code++) {
				const char *p;
				char *j;
				size_t c = code;

				cpl_buf_reset(&path);
				if (root)
					cpl_buf_addc(&path, '/');
				for (k = 0; k < (size_t)len; k++, c /= ncomp) {
					if (k > 0)
						cpl_buf_addc(&path, '/');
					cpl_buf_adds(&path, comp[c % ncomp]);
				}
				p = cpl_buf_str(&path);
				j = cpl_link_join(".", p);
				ck_assert_msg(cpl_link_is_joined(p) ==
					      (strcmp(j, p) == 0),
					      "is_joined(\"%s\") but join "
					      "gives \"%s\"", p, j);
				free(j);
			}
		}
	}
	cpl_buf_free(&path);
}
END_TEST

static Suite *
pycode_suite(void)
{
	Suite *s = suite_create("pycode");
	TCase *tc = tcase_create("pycode");

	tcase_add_test(tc, main_guard_makes_an_entry);
	tcase_add_test(tc, paths_join_lexically);
	tcase_add_test(tc, joined_paths_are_fixed_points);
	tcase_add_test(tc, cpu_counts_keep_their_caps);
	tcase_add_test(tc, sinks_and_refs);
	tcase_add_test(tc, process_joins_modules);
	tcase_add_test(tc, process_keeps_capped_counts_local);
	tcase_add_test(tc, process_factories_build_transforms);
	tcase_add_test(tc, process_follows_reexports);
	tcase_add_test(tc, quota_aware_helpers_size_nothing);
	tcase_add_test(tc, process_keeps_caps_across_modules);
	tcase_add_test(tc, star_imports_bring_values);
	tcase_add_test(tc, class_attributes_across_modules);
	tcase_add_test(tc, parallel_work);
	suite_add_tcase(s, tc);
	return s;
}

#include "check_main.h"
CPL_CHECK_MAIN(pycode_suite)
