/*
 * test_pyload.c — Python files held unloaded while they wait for their
 * group (pyscan.h, lib/group.c): the light scan reads the imports the full
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

#include "link.h"
#include "python/pyscan.h"
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
		cpl_xgrow((void **)&paths, &paths_cap, npaths + 1,
			  sizeof(*paths));
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
	ck_assert_msg(full->nimports == light->nimports,
		      "%s: %zu imports, light %zu", name, full->nimports,
		      light->nimports);
	for (i = 0; i < full->nimports; i++)
		same_import(&full->imports[i], &light->imports[i], name);
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
	const char *path[8];
	struct cpl_pyfile *file[8];
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
	/* Through a walk cache: the same files; walked again, the loader is
	 * not asked; another entry script is walked on its own. */
	lk.walks = cpl_link_walks_new();
	lk.load = counted_load;
	for (i = 0; i < 2; i++) {
		size_t k;

		loads = 0;
		n = cpl_link_script_files(&lk, t.file[0], &files);
		ck_assert_uint_eq(n, code->nfiles);
		for (k = 0; k < n; k++)
			ck_assert_ptr_eq(files[k], code->files[k]);
		free(files);
		if (i == 0)
			ck_assert_int_gt(loads, 0);
		else
			ck_assert_int_eq(loads, 0);
	}
	n = cpl_link_script_files(&lk, t.file[5], &files);	/* unused.py */
	ck_assert_uint_eq(n, 2);
	ck_assert_ptr_eq(files[0], t.file[5]);
	ck_assert_ptr_eq(files[1], t.file[4]);
	free(files);
	cpl_link_walks_free(lk.walks);
	cpl_link_walks_free(NULL);
	lk.walks = NULL;
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

static Suite *
pyload_suite(void)
{
	Suite *s = suite_create("pyload");
	TCase *tc = tcase_create("unloaded");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, light_scan_reads_the_imports);
	tcase_add_test(tc, loaded_again_the_same_facts);
	tcase_add_test(tc, file_walk_is_the_linked_files);
	suite_add_tcase(s, tc);
	return s;
}

#include "check_main.h"
CPL_CHECK_MAIN(pyload_suite)
