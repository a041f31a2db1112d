/*
 * test_pyload.c — Python files held unloaded while they wait for their
 * group (pyscan.h, lib/run/group.c): the light scan reads the imports the full
 * scan reads and reports the same tokenizer error; an unloaded file keeps
 * its path, text, entry flag and each import's module, name and level;
 * loaded again, a file (light-scanned or unloaded) holds the facts a full
 * scan makes; and the linker's file walk over unloaded files reaches the
 * files the linked process holds, with or without a memo, and after the
 * memo forgot its look-ups.
 *
 * The texts: a few written here to reach odd corners, and every Python
 * file under testdata/ (the unit tests run from the repository root).
 */
#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/link.h"
#include "model/workload.h"
#include "python/pyscan.h"
#include "run/pywork_int.h"
#include "util.h"

static const char *const odd[] = {
	"import os, torch.multiprocessing as mp\n"
	"from . import data\nfrom ..pkg.sub import (a as b,\n    c)\n"
	"from x import *\nif True: import inline_a; import inline_b\n"
	"def f():\n    import inner\n    return inner.g()\n"
	"try:\n    import fast\nexcept ImportError:\n    fast = None\n"
	"class C:\n    from y import z\n",
	/* Not imports: a keyword inside an expression. */
	"def g():\n    yield from range(3)\nraise E from None\n",
	/* A tokenizer error between imports: both scans go on past it. */
	"import before\nmsg = 'open\nimport after\n",
	"",
};

/* Every .py file under testdata (paths owned). */
static char **paths;
static size_t npaths, paths_cap;

static int
collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_F && cpl_str_ends(path, ".py")) {
		CPL_GROW(paths, paths_cap, npaths + 1);
		paths[npaths++] = cpl_xstrdup(path);
	}
	return 0;
}

static void
each_text(void (*fn)(const char *name, const char *text, size_t len))
{
	size_t i;

	for (i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		fn("odd.py", odd[i], strlen(odd[i]));
	if (npaths == 0)
		ck_assert_int_eq(nftw("testdata", collect, 16, FTW_PHYS), 0);
	ck_assert_uint_gt(npaths, 20);
	for (i = 0; i < npaths; i++) {
		struct cpl_error err = { 0 };
		char *text = NULL;
		size_t len;

		ck_assert_int_eq(cpl_read_file(&text, &len, paths[i],
					       1 << 24, &err), 0);
		fn(paths[i], text, len);
		free(text);
	}
}

static void
same_import(const struct cpl_pyimport *a, const struct cpl_pyimport *b,
	    const char *name)
{
	ck_assert_msg(strcmp(a->module, b->module) == 0, "%s: %s vs %s",
		      name, a->module, b->module);
	ck_assert_msg(cpl_str_eq(a->name, b->name), "%s: name of %s", name,
		      a->module);
	ck_assert_int_eq(a->level, b->level);
}

/* ---- the light scan ---------------------------------------------------- */

static size_t nbare, nfacts;	/* texts light_vs_full() saw bare, with
				 * CPU counts or thread calls */
static size_t ndeclares;	/* ... and that import a framework */

static void
light_vs_full(const char *name, const char *text, size_t len)
{
	struct cpl_pyfile *full = NULL, *light = NULL;
	struct cpl_error e1 = { 0 }, e2 = { 0 };
	int rc1 = cpl_pyscan_file_borrowed(&full, name, text, len, &e1);
	int rc2 = cpl_pyscan_file_light(&light, name, text, len, &e2);
	size_t i;

	ck_assert_int_eq(rc1, rc2);
	ck_assert(cpl_str_eq(e1.message, e2.message));
	ck_assert_int_eq(e1.line, e2.line);
	ck_assert_int_eq(e1.column, e2.column);
	ck_assert(!cpl_pyfile_loaded(light));
	/* Not known yet: "may be" covers every entry (a text without
	 * "__main__" and "DataLoader" is none). */
	ck_assert(light->entry || !full->entry);
	ck_assert(light->entry == (memmem(text, len, "__main__", 8) ||
				   memmem(text, len, "DataLoader", 10)));
	/* Bare: none of the facts a code rule reads. */
	if (light->bare) {
		ck_assert_msg(!full->entry && full->ncpucounts == 0 &&
			      full->nthreads == 0 && full->nloaders == 0,
			      "%s: bare, with CPU facts", name);
		for (i = 0; i < full->ncalls; i++)
			ck_assert_msg(strncmp(full->calls[i].target, "cv2.",
					      4) != 0, "%s: bare, a cv2 call",
				      name);
	}
	nbare += light->bare;
	nfacts += full->ncpucounts + full->nthreads > 0;
	ck_assert_msg(full->nimports == light->nimports,
		      "%s: %zu imports, light %zu", name, full->nimports,
		      light->nimports);
	for (i = 0; i < full->nimports; i++)
		same_import(&full->imports[i], &light->imports[i], name);
	/* The pipeline reads a file's declared workloads (pywork.c) only
	 * when its light scan read and names a framework: any other file
	 * declares none. */
	ck_assert_int_eq(cpl_pywork_declares(light), cpl_pywork_declares(full));
	if (rc2 != 0 || !cpl_pywork_declares(light)) {
		struct cpl_wlist l;

		memset(&l, 0, sizeof(l));
		ck_assert_int_eq(cpl_pywork_load(&l, name, text, len), 0);
		ck_assert_msg(l.count == 0 && l.nskipped == 0,
			      "%s: declares workloads, not seen light", name);
		cpl_wlist_free(&l);
	}
	ndeclares += rc2 == 0 && cpl_pywork_declares(light);
	cpl_error_clear(&e1);
	cpl_error_clear(&e2);
	cpl_pyfile_free(full);
	cpl_pyfile_free(light);
}

/* The light scan reads exactly the full scan's imports, in its order,
 * and fails where it fails. */
START_TEST(light_scan_reads_the_imports)
{
	struct cpl_pyfile *f = NULL;
	struct cpl_error err = { 0 };
	static const char *const want[] = {
		"os", "torch.multiprocessing", ".", "..pkg.sub", "..pkg.sub",
		"x", "inline_a", "inline_b", "inner", "fast", "y",
	};
	size_t i;

	each_text(light_vs_full);
	ck_assert_uint_gt(nbare, 5);	/* both kinds were seen */
	ck_assert_uint_gt(nfacts, 5);
	ck_assert_uint_gt(ndeclares, 3);
	/* And what it reads is what this text holds. */
	ck_assert_int_eq(cpl_pyscan_file_light(&f, "odd.py", odd[0],
					       strlen(odd[0]), &err), 0);
	ck_assert_uint_eq(f->nimports, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < f->nimports; i++) {
		const char *w = want[i];
		int level = 0;

		while (*w == '.') {
			level++;
			w++;
		}
		ck_assert_str_eq(f->imports[i].module, w);
		ck_assert_int_eq(f->imports[i].level, level);
	}
	ck_assert_str_eq(f->imports[3].name, "a");
	ck_assert_str_eq(f->imports[4].name, "c");
	ck_assert_str_eq(f->imports[5].name, "*");
	cpl_pyfile_free(f);
	/* The error text: reported, and the import after it read too. */
	ck_assert_int_eq(cpl_pyscan_file_light(&f, "bad.py", odd[2],
					       strlen(odd[2]), &err), 1);
	ck_assert_int_eq(err.line, 2);
	ck_assert_uint_eq(f->nimports, 2);
	ck_assert_str_eq(f->imports[1].module, "after");
	cpl_error_clear(&err);
	cpl_pyfile_free(f);
}
END_TEST

/* ---- unloading and loading again ---------------------------------------- */

/* a and b hold the same facts (b loaded again). */
static void
same_facts(const struct cpl_pyfile *a, const struct cpl_pyfile *b,
	   const char *name)
{
	size_t i;

	ck_assert(cpl_pyfile_loaded(b));
	ck_assert_uint_eq(a->ntoks, b->ntoks);
	ck_assert_int_eq(a->entry, b->entry);
	ck_assert_int_eq(a->main_guard, b->main_guard);
	ck_assert_int_eq(a->imports_torch, b->imports_torch);
	ck_assert_int_eq(a->imports_cv2, b->imports_cv2);
	ck_assert_int_eq(a->torch_pos.line, b->torch_pos.line);
	ck_assert_msg(a->nimports == b->nimports && a->ncalls == b->ncalls &&
		      a->nscopes == b->nscopes && a->nassigns == b->nassigns &&
		      a->nargdefs == b->nargdefs &&
		      a->nloaders == b->nloaders &&
		      a->nthreads == b->nthreads && a->npools == b->npools &&
		      a->ncpucounts == b->ncpucounts &&
		      a->nenvsets == b->nenvsets && a->nsinks == b->nsinks &&
		      a->nrefs == b->nrefs, "%s: the facts differ", name);
	for (i = 0; i < a->nimports; i++) {
		same_import(&a->imports[i], &b->imports[i], name);
		ck_assert(cpl_str_eq(a->imports[i].bound,
				     b->imports[i].bound));
		ck_assert(cpl_str_eq(a->imports[i].target,
				     b->imports[i].target));
		ck_assert_int_eq(a->imports[i].scope, b->imports[i].scope);
	}
	for (i = 0; i < a->ncalls; i++) {
		ck_assert_str_eq(a->calls[i].callee, b->calls[i].callee);
		ck_assert_int_eq(a->calls[i].kind, b->calls[i].kind);
		ck_assert_int_eq(a->calls[i].pos.line, b->calls[i].pos.line);
		ck_assert_int_eq(a->calls[i].pos.column,
				 b->calls[i].pos.column);
		ck_assert_int_eq(a->calls[i].scope, b->calls[i].scope);
	}
	for (i = 0; i < a->nscopes; i++)
		ck_assert_int_eq(a->scopes[i].roles, b->scopes[i].roles);
	for (i = 0; i < a->nassigns; i++)
		ck_assert_int_eq(a->assigns[i].pos.line,
				 b->assigns[i].pos.line);
	for (i = 0; i < a->nthreads; i++)
		ck_assert_int_eq(a->threads[i].pos.line,
				 b->threads[i].pos.line);
}

static void
reload_vs_full(const char *name, const char *text, size_t len)
{
	struct cpl_pyfile *full = NULL, *light = NULL, *again = NULL;
	struct cpl_error err = { 0 };
	const struct cpl_pytoken *kept;
	size_t i, n;

	(void)cpl_pyscan_file_borrowed(&full, name, text, len, &err);
	cpl_error_clear(&err);
	(void)cpl_pyscan_file_light(&light, name, text, len, &err);
	cpl_error_clear(&err);
	(void)cpl_pyscan_file_borrowed(&again, name, text, len, &err);
	cpl_error_clear(&err);

	/* Light, then loaded with its tokens kept. */
	cpl_pyfile_reload(light, true);
	same_facts(full, light, name);
	kept = cpl_pyfile_toks(light);
	ck_assert_ptr_eq(cpl_pyfile_toks(light), kept);

	/* Loaded, unloaded: what the linker reads stays. */
	n = again->nimports;
	cpl_pyfile_unload(again);
	ck_assert(!cpl_pyfile_loaded(again));
	ck_assert_ptr_eq(again->text, text);
	ck_assert_str_eq(again->path, name);
	ck_assert_int_eq(again->entry, full->entry);
	ck_assert_uint_eq(again->nimports, n);
	for (i = 0; i < n; i++) {
		same_import(&full->imports[i], &again->imports[i], name);
		ck_assert_ptr_null(again->imports[i].bound);
		ck_assert_ptr_null(again->imports[i].target);
	}
	cpl_pyfile_unload(again);	/* twice: nothing more to do */
	cpl_pyfile_reload(again, false);
	same_facts(full, again, name);
	cpl_pyfile_reload(again, false);	/* loaded: nothing to do */
	same_facts(full, again, name);
	/* Made again on demand, the same tokens as kept ones. */
	for (i = 0; i < again->ntoks; i++)
		ck_assert_uint_eq(cpl_pyfile_toks(again)[i].off, kept[i].off);
	cpl_pyfile_free(full);
	cpl_pyfile_free(light);
	cpl_pyfile_free(again);
}

START_TEST(loaded_again_the_same_facts)
{
	each_text(reload_vs_full);
}
END_TEST

/* ---- the linker's walk over unloaded files ----------------------------- */

/* Files by path for the loader. */
struct tree {
	const char *path[16];
	struct cpl_pyfile *file[16];
	size_t n;
};

static const struct cpl_pyfile *
tree_load(void *ctx, const char *path)
{
	struct tree *t = ctx;
	size_t i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->path[i], path) == 0)
			return t->file[i];
	return NULL;
}

static int readies;
static int loads;	/* tree_load() calls, when counted */

/* The missing hook over the tree: dir lacks each of names when no path
 * of the tree is dir/name or below it (every directory "listed"). */
static bool
tree_missing(void *ctx, const char *dir, const char *const *names, size_t n)
{
	struct tree *t = ctx;
	size_t i, k, nd = strlen(dir);

	for (k = 0; k < n; k++) {
		size_t nn = strlen(names[k]);

		for (i = 0; i < t->n; i++) {
			const char *p = t->path[i];

			if (strncmp(p, dir, nd) == 0 && p[nd] == '/' &&
			    strncmp(p + nd + 1, names[k], nn) == 0 &&
			    (p[nd + 1 + nn] == '/' || p[nd + 1 + nn] == '\0'))
				return false;
		}
	}
	return true;
}

/* tree_load(), counted. */
static const struct cpl_pyfile *
counted_load(void *ctx, const char *path)
{
	loads++;
	return tree_load(ctx, path);
}

static void
count_ready(void *ctx, const struct cpl_pyfile *f)
{
	(void)ctx;
	(void)f;
	readies++;
}

START_TEST(file_walk_is_the_linked_files)
{
	static const char *const texts[][2] = {
		{ "app/train.py",
		  "import torch\nfrom pkg import data\nimport util\n"
		  "import missing\nif __name__ == '__main__':\n"
		  "    data.run()\n" },
		{ "app/pkg/__init__.py", "from .data import run\n" },
		{ "app/pkg/data.py",
		  "from ..util import helper\nfrom . import model\n"
		  "def run():\n    return helper()\n" },
		{ "app/pkg/model.py", "import pkg.data\n" },
		{ "app/util.py", "def helper():\n    return 1\n" },
		{ "app/unused.py", "import util\n" },
	};
	struct tree t = { .n = 6 };
	struct cpl_linker lk = { .load = tree_load, .ctx = &t };
	const struct cpl_pyfile **files;
	struct cpl_code *code;
	size_t i, n;
	int k_loads;

	for (i = 0; i < t.n; i++) {
		struct cpl_error err = { 0 };

		t.path[i] = texts[i][0];
		ck_assert_int_eq(cpl_pyscan_file(&t.file[i], texts[i][0],
						 texts[i][1],
						 strlen(texts[i][1]), &err),
				 0);
	}
	lk.ready = count_ready;
	code = cpl_link_script(&lk, t.file[0]);
	ck_assert_ptr_nonnull(code);
	ck_assert_uint_eq(code->nfiles, 5);	/* not unused.py */
	ck_assert_int_eq(readies, 5);	/* each file taken, made ready */
	/* Over unloaded files, no hook: the same files in the same order. */
	for (i = 0; i < t.n; i++)
		cpl_pyfile_unload(t.file[i]);
	readies = 0;
	n = cpl_link_script_files(&lk, t.file[0], &files);
	ck_assert_int_eq(readies, 0);
	ck_assert_uint_eq(n, code->nfiles);
	for (i = 0; i < n; i++)
		ck_assert_ptr_eq(files[i], code->files[i]);
	free(files);
	ck_assert_uint_eq(cpl_link_script_files(&lk, NULL, &files), 0);
	ck_assert_ptr_null(files);
	/* Through a memo, and again once the memo forgot everything: the
	 * same files (a memo only saves look-ups). */
	lk.memo = cpl_link_memo_new();
	for (i = 0; i < 2; i++) {
		size_t k;

		n = cpl_link_script_files(&lk, t.file[0], &files);
		ck_assert_uint_eq(n, code->nfiles);
		for (k = 0; k < n; k++)
			ck_assert_ptr_eq(files[k], code->files[k]);
		free(files);
		cpl_link_memo_bound(lk.memo, i == 0 ? 1000 : 0);
	}
	cpl_link_memo_free(lk.memo);
	lk.memo = NULL;
	lk.load = counted_load;
	/* With the missing hook: the same files, and `import torch`,
	 * `import missing` and the rest answered without the loader. */
	loads = 0;
	n = cpl_link_script_files(&lk, t.file[0], &files);
	free(files);
	k_loads = loads;
	lk.missing = tree_missing;
	loads = 0;
	n = cpl_link_script_files(&lk, t.file[0], &files);
	ck_assert_uint_eq(n, code->nfiles);
	for (i = 0; i < n; i++)
		ck_assert_ptr_eq(files[i], code->files[i]);
	free(files);
	ck_assert_int_lt(loads, k_loads);
	ck_assert_int_gt(loads, 0);
	cpl_pyscan_code_free(code);
	for (i = 0; i < t.n; i++)
		cpl_pyfile_free(t.file[i]);
}
END_TEST

/* ---- a batch joins what the walks join ------------------------------- */

/* Union-find over the tree's files. */
static size_t
uf_find(size_t *up, size_t x)
{
	while (up[x] != x)
		x = up[x] = up[up[x]];
	return x;
}

static void
uf_join(size_t *up, size_t a, size_t b)
{
	a = uf_find(up, a);
	b = uf_find(up, b);
	if (a != b)
		up[a < b ? b : a] = a < b ? a : b;
}

static size_t
tree_index(const struct tree *t, const struct cpl_pyfile *f)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->file[i] == f)
			return i;
	ck_abort_msg("a file not in the tree");
	return 0;
}

struct joins {
	const struct tree *t;
	size_t up[16];
	bool touched[16];	/* an edge from or to it */
};

static void
join_edge(void *ctx, const struct cpl_pyfile *from,
	  const struct cpl_pyfile *to)
{
	struct joins *j = ctx;
	size_t a = tree_index(j->t, from), b = tree_index(j->t, to);

	j->touched[a] = j->touched[b] = true;
	uf_join(j->up, a, b);
}

/* The batch over the scripts mask picks joins the tree's files as the
 * walks from each of them do (each script joined with all it reaches):
 * alone, each script's group is exactly its walk's files. */
static void
batch_vs_walks(struct cpl_linker *lk, struct tree *t, unsigned picks)
{
	struct joins by_batch = { .t = t }, by_walks = { .t = t };
	struct cpl_link_batch *b = cpl_link_batch_new(lk);
	size_t i, k, n;

	for (i = 0; i < t->n; i++)
		by_batch.up[i] = by_walks.up[i] = i;
	for (i = 0; i < t->n; i++) {
		const struct cpl_pyfile **files;

		if (!(picks & (1u << i)))
			continue;
		cpl_link_batch_script(b, t->file[i]);
		n = cpl_link_script_files(lk, t->file[i], &files);
		for (k = 0; k < n; k++)
			uf_join(by_walks.up, i, tree_index(t, files[k]));
		if (picks == (1u << i)) {	/* alone: the same files */
			struct joins one = { .t = t };
			struct cpl_link_batch *b1 = cpl_link_batch_new(lk);

			for (k = 0; k < t->n; k++)
				one.up[k] = k;
			cpl_link_batch_script(b1, t->file[i]);
			cpl_link_batch_run(b1, join_edge, &one);
			cpl_link_batch_free(b1);
			one.touched[i] = true;
			for (k = 0; k < t->n; k++) {
				size_t w, in_walk = 0;

				for (w = 0; w < n; w++)
					in_walk += files[w] == t->file[k];
				ck_assert_msg(one.touched[k] == (in_walk > 0),
					      "%s from %s", t->path[k],
					      t->path[i]);
			}
		}
		free(files);
	}
	cpl_link_batch_run(b, join_edge, &by_batch);
	cpl_link_batch_free(b);
	for (i = 0; i < t->n; i++)
		if (picks & (1u << i))
			by_batch.touched[i] = true;
	for (i = 0; i < t->n; i++)
		for (k = 0; k < t->n; k++)
			ck_assert_msg((uf_find(by_batch.up, i) ==
				       uf_find(by_batch.up, k)) ==
				      (uf_find(by_walks.up, i) ==
				       uf_find(by_walks.up, k)),
				      "%s and %s, scripts %#x", t->path[i],
				      t->path[k], picks);
}

START_TEST(batch_joins_what_walks_join)
{
	/* app/pkg/sub/util.py shadows app/util.py for the scripts in
	 * app/pkg/sub (sys.path[0] first): their walks are not those of
	 * the package root app alone. */
	static const char *const texts[][2] = {
		{ "app/train.py", "import torch\nfrom pkg import data\n"
				  "import util\n" },
		{ "app/pkg/__init__.py", "from .data import run\n" },
		{ "app/pkg/data.py", "from ..util import helper\n"
				     "from . import model\n" },
		{ "app/pkg/model.py", "import pkg.data\n" },
		{ "app/util.py", "def helper():\n    return 1\n" },
		{ "app/pkg/tool.py", "import util\n" },
		{ "app/pkg/sub/__init__.py", "" },
		{ "app/pkg/sub/run.py", "from pkg import tool\n" },
		{ "app/pkg/sub/util.py", "import json\nimport shadow\n" },
		{ "app/pkg/sub/shadow.py", "" },
		{ "app/pkg/sub/plain.py", "import pkg.model\n" },
		{ "lib/x.py", "import y\n" },
		{ "lib/y.py", "from pkg import data\n" },
	};
	struct tree t = { .n = CPL_ARRAY_LEN(texts) };
	struct cpl_linker lk = { .load = tree_load, .ctx = &t };
	unsigned picks;
	size_t i;
	int missing;

	for (i = 0; i < t.n; i++) {
		struct cpl_error err = { 0 };

		t.path[i] = texts[i][0];
		ck_assert_int_eq(cpl_pyscan_file_light(&t.file[i],
						       texts[i][0],
						       texts[i][1],
						       strlen(texts[i][1]),
						       &err), 0);
	}
	for (missing = 0; missing < 2; missing++) {
		lk.missing = missing ? tree_missing : NULL;
		lk.memo = missing ? cpl_link_memo_new() : NULL;
		for (i = 0; i < t.n; i++)
			batch_vs_walks(&lk, &t, 1u << i);
		/* Scripts in twos, and all of them. */
		for (picks = 3; picks < (1u << t.n); picks += 0x1111)
			batch_vs_walks(&lk, &t, picks);
		batch_vs_walks(&lk, &t, (1u << t.n) - 1);
		cpl_link_memo_free(lk.memo);
		lk.memo = NULL;
	}
	/* run.py reaches the util.py beside it, plain.py no util.py. */
	{
		const struct cpl_pyfile **files;
		size_t n = cpl_link_script_files(&lk, t.file[7], &files);
		bool shadowed = false;

		for (i = 0; i < n; i++)
			shadowed |= files[i] == t.file[8];
		ck_assert(shadowed);
		free(files);
	}
	cpl_link_batch_free(NULL);
	for (i = 0; i < t.n; i++)
		cpl_pyfile_free(t.file[i]);
}
END_TEST

/* ---- the screens ------------------------------------------------------- */

/* What cpl_pyscan_screen() must say of text: memmem() of each word. */
static void
screen_is_memmem(const char *name, const char *text, size_t len)
{
	static const char *const cpu_words[] = {
		"cpu_count", "sched_getaffinity", "set_num_", "setNumThreads",
		"cv2",
	};
	bool entry, cpu, want_cpu = false;
	bool want_entry = memmem(text, len, "__main__", 8) != NULL ||
			  memmem(text, len, "DataLoader", 10) != NULL;
	size_t i;

	for (i = 0; i < sizeof(cpu_words) / sizeof(cpu_words[0]); i++)
		want_cpu = want_cpu || memmem(text, len, cpu_words[i],
					      strlen(cpu_words[i])) != NULL;
	cpl_pyscan_screen(text, len, &entry, &cpu);
	ck_assert_msg(entry == want_entry, "%s: entry %d, memmem %d", name,
		      entry, want_entry);
	if (!want_entry)
		ck_assert_msg(cpu == want_cpu, "%s: cpu %d, memmem %d", name,
			      cpu, want_cpu);
}

/* The screens say what memmem() of each word says, over every
 * text and over texts made of the words, their prefixes and overlaps,
 * cut at every length (a word at the very end, a word cut short, a
 * word's rarest byte at either end of the text). */
START_TEST(screens_are_memmem)
{
	static const char *const parts[] = {
		"__main__", "__mai", "___main__", "DataLoader", "DataLoade",
		"cpu_count", "cpu_coun", "ccpu_count", "cv2", "cv", "ccv2",
		"sched_getaffinity", "sched_getaffinit", "set_num_",
		"set_num", "sset_num_", "setNumThreads", "setNumThread",
		"s", "c", "_", "D", "x", " ", "\n", "\0", "2", "v2", "cx",
		/* the bytes three words are found by (memchr()) and what
		 * comes before and after them */
		"L", "N", "y", "Loader", "DataL", "NumThreads", "setN",
		"getaffinity", "sched_getaffinit", "ataLoader",
		/* around the '_'s one pass tries each word at */
		"_main__", "__main_", "_count", "cpu_", "cp", "u_count",
		"num_", "set_", "et_num_", "__", "___",
	};
	const size_t np = sizeof(parts) / sizeof(parts[0]);
	char buf[128];
	unsigned seed = 39;
	size_t n, k, len;

	each_text(screen_is_memmem);
	for (n = 0; n < 20000; n++) {
		len = 0;
		for (k = 0; k < 1 + n % 5; k++) {
			const char *p;

			seed = seed * 1103515245u + 12345u;
			p = parts[(seed >> 16) % np];
			memcpy(buf + len, p, strlen(p) + (p[0] == '\0'));
			len += strlen(p) + (p[0] == '\0');
		}
		for (k = 0; k <= len; k++)	/* every cut */
			screen_is_memmem("parts", buf, k);
	}
}
END_TEST

static Suite *
pyload_suite(void)
{
	Suite *s = suite_create("pyload");
	TCase *tc = tcase_create("unloaded");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, light_scan_reads_the_imports);
	tcase_add_test(tc, loaded_again_the_same_facts);
	tcase_add_test(tc, file_walk_is_the_linked_files);
	tcase_add_test(tc, batch_joins_what_walks_join);
	tcase_add_test(tc, screens_are_memmem);
	suite_add_tcase(s, tc);
	return s;
}

#include "check_main.h"
CPL_CHECK_MAIN(pyload_suite)
