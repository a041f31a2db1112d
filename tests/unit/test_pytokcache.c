/*
 * test_pytokcache.c — the tokens of a scanned Python file after its scan:
 * cpl_pyfile_toks() makes again the array the facts index (the same
 * count, the same tokens, also after a tokenizer error), and a token
 * cache bounds the arrays made again, freeing the oldest only at a trim,
 * making them again on the next use, and giving the same values.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "python/pyscan.h"
#include "python/pytokcache.h"
#include "python/pyvalue.h"

/* Texts that exercise the tokenizer: valid, odd, and with each kind of
 * error the scan keeps going past.  want_rc: what the scan returns. */
static const struct {
	const char *text;
	int want_rc;
} texts[] = {
	{ "import os\nimport torch\nn = os.cpu_count()\n"
	  "def f(x, workers=4):\n    return DataLoader(x, "
	  "num_workers=workers)\ntorch.set_num_threads(n // 2)\n", 0 },
	{ "\xEF\xBB\xBFx = f'{a!r:>{w}}' + rb'\\x'\r\nif x:\r\n\ty = (1,\r\n"
	  "  2)  # c\r\n\r\nz = 1_000.5e-3j\n", 0 },
	/* An unterminated string: the scan reports line 3. */
	{ "import os\nn = os.cpu_count()\nmsg = 'oops\n"
	  "torch.set_num_threads(n)\n", 1 },
	/* A dedent to no outer level, a character Python rejects, and an
	 * unclosed bracket at the end. */
	{ "if a:\n        b = 1\n    c = 2\nd = $\ne = f(1,\n", 1 },
	{ "", 0 },
};

/* The scan of text (the return code checked). */
static struct cpl_pyfile *
scan(const char *name, const char *text, int want_rc)
{
	struct cpl_pyfile *f = NULL;
	struct cpl_error err = { 0 };

	ck_assert_int_eq(cpl_pyscan_file(&f, name, text, strlen(text), &err),
			 want_rc);
	ck_assert_ptr_nonnull(f);
	cpl_error_clear(&err);
	return f;
}

/* Token a and b are the same token. */
static void
same_token(const struct cpl_pytoken *a, const struct cpl_pytoken *b,
	   size_t i)
{
	ck_assert_msg(a->kind == b->kind && a->flags == b->flags &&
		      a->off == b->off && a->len == b->len &&
		      a->line == b->line && a->column == b->column,
		      "token %zu differs", i);
}

/* Token k of toks reads s. */
static bool
tok_text_is(const struct cpl_pyfile *f, const struct cpl_pytoken *toks,
	    size_t k, const char *s)
{
	return cpl_pytoken_is(f->text, &toks[k], s);
}

/* Position p is where token k of toks starts. */
static void
pos_at(const struct cpl_pytoken *toks, size_t k, struct cpl_pos p)
{
	ck_assert_int_eq(p.line, toks[k].line);
	ck_assert_int_eq(p.column, toks[k].column);
}

/* The remade array is the tokenizer's output for the text, token for
 * token, and the positions the scan recorded from its own tokens are
 * those of the remade tokens they index. */
START_TEST(remade_tokens_equal_the_scans)
{
	size_t t, i;

	for (t = 0; t < sizeof(texts) / sizeof(texts[0]); t++) {
		struct cpl_pyfile *f = scan("t.py", texts[t].text,
					    texts[t].want_rc);
		const struct cpl_pytoken *toks = cpl_pyfile_toks(f);
		struct cpl_pytokens ref;
		struct cpl_error err = { 0 };

		memset(&ref, 0, sizeof(ref));
		ck_assert_int_eq(cpl_pytoken_scan(&ref, texts[t].text,
						  strlen(texts[t].text),
						  "t.py", &err),
				 texts[t].want_rc ? -1 : 0);
		cpl_error_clear(&err);
		ck_assert_uint_gt(f->ntoks, 0);
		ck_assert_uint_eq(f->ntoks, ref.count);
		for (i = 0; i < f->ntoks; i++)
			same_token(&toks[i], &ref.toks[i], i);
		ck_assert_int_eq(toks[f->ntoks - 1].kind,
				 CPL_PYTOK_ENDMARKER);
		for (i = 0; i < f->ncalls; i++) {
			pos_at(toks, f->calls[i].first, f->calls[i].pos);
			ck_assert(f->calls[i].open < f->ntoks);
			ck_assert(tok_text_is(f, toks, f->calls[i].open,
					      "("));
		}
		for (i = 0; i < f->nassigns; i++)
			pos_at(toks, f->assigns[i].tok, f->assigns[i].pos);
		for (i = 0; i < f->nthreads; i++)
			if (f->threads[i].has_arg)
				pos_at(toks, f->threads[i].arg.first,
				       f->threads[i].arg.pos);
		/* Kept without a cache: asked again, the same array. */
		ck_assert_ptr_eq(cpl_pyfile_toks(f), toks);
		cpl_pytoken_clear(&ref);
		cpl_pyfile_free(f);
	}
}
END_TEST

/* What the scan keeps past a tokenizer error is what is made again: the
 * facts after the error still point at the right tokens. */
START_TEST(tokens_after_an_error)
{
	struct cpl_pyfile *f = scan("bad.py", texts[2].text, 1);
	const struct cpl_pytoken *toks = cpl_pyfile_toks(f);
	const struct cpl_pytoken *a;

	ck_assert_uint_eq(f->nthreads, 1);
	ck_assert_int_eq(f->threads[0].pos.line, 4);
	a = &toks[f->threads[0].arg.first];
	ck_assert_int_eq(a->kind, CPL_PYTOK_NAME);
	ck_assert_uint_eq(a->len, 1);
	ck_assert_int_eq(f->text[a->off], 'n');
	ck_assert_int_eq(a->line, 4);
	ck_assert_int_eq(a->column, 23);
	cpl_pyfile_free(f);
}
END_TEST

/* A file of n lines "vI = I", about 4 tokens a line. */
static struct cpl_pyfile *
numbered(int n, int tag)
{
	struct cpl_buf b = { 0 };
	struct cpl_pyfile *f;
	char name[32];
	int i;

	cpl_buf_init(&b, 0);
	for (i = 0; i < n; i++)
		cpl_buf_addf(&b, "v%d = %d\n", i, i + tag);
	cpl_buf_adds(&b, "import torch\ntorch.set_num_threads(v3 + 1)\n");
	snprintf(name, sizeof(name), "f%d.py", tag);
	f = scan(name, b.data, 0);
	cpl_buf_free(&b);
	return f;
}

/* Files beyond the budget lose their tokens at a trim, the oldest use
 * first, and make them again on the next use; nothing is freed except
 * at a trim. */
START_TEST(cache_bound_and_trim)
{
	struct cpl_pyfile *f[5];
	const struct cpl_pytoken *held[5];
	struct cpl_pytokcache *c;
	size_t one, i, made;

	for (i = 0; i < 5; i++)
		f[i] = numbered(100, (int)i);
	one = f[0]->ntoks * sizeof(struct cpl_pytoken);
	for (i = 1; i < 5; i++)
		ck_assert_uint_eq(f[i]->ntoks, f[0]->ntoks);
	/* Room for two files and a half. */
	c = cpl_pytokcache_new(one * 5 / 2);
	for (i = 0; i < 5; i++)
		cpl_pytokcache_attach(c, f[i]);
	cpl_pytokcache_attach(c, f[0]);		/* once is enough */
	ck_assert_uint_eq(cpl_pytokcache_bytes(c), 0);
	for (i = 0; i < 5; i++)
		held[i] = cpl_pyfile_toks(f[i]);
	ck_assert_uint_eq(cpl_pytokcache_made(c), 5);
	/* Over the budget, but no trim yet: every array still valid. */
	ck_assert_uint_eq(cpl_pytokcache_bytes(c), 5 * one);
	for (i = 0; i < 5; i++) {
		ck_assert_ptr_eq(cpl_pyfile_toks(f[i]), held[i]);
		ck_assert_int_eq(held[i][f[i]->ntoks - 1].kind,
				 CPL_PYTOK_ENDMARKER);
	}
	ck_assert_uint_eq(cpl_pytokcache_made(c), 5);
	/* Use f[0] again: it is the newest now, f[1] the oldest. */
	(void)cpl_pyfile_toks(f[0]);
	cpl_pytokcache_trim(c);
	ck_assert_uint_eq(cpl_pytokcache_bytes(c), 2 * one);
	/* f[0] and f[4] kept theirs, f[1..3] are made again. */
	made = cpl_pytokcache_made(c);
	ck_assert_ptr_eq(cpl_pyfile_toks(f[0]), held[0]);
	ck_assert_ptr_eq(cpl_pyfile_toks(f[4]), held[4]);
	ck_assert_uint_eq(cpl_pytokcache_made(c), made);
	for (i = 1; i < 4; i++) {
		const struct cpl_pytoken *t = cpl_pyfile_toks(f[i]);
		struct cpl_pyval v;

		ck_assert_uint_eq(cpl_pytokcache_made(c), made + i);
		ck_assert_int_eq(t[f[i]->ntoks - 1].kind, CPL_PYTOK_ENDMARKER);
		ck_assert_int_eq(t[0].line, 1);
		ck_assert_uint_eq(t[0].len, 2);		/* "v0" */
		cpl_pyvalue_threads(&v, f[i], 0, NULL, NULL);
		ck_assert_int_eq(v.kind, CPL_PYVAL_KNOWN);
		ck_assert_int_eq(v.value, (long)(3 + i + 1));
	}
	/* A budget of nothing: a trim frees all. */
	cpl_pytokcache_free(c);
	c = cpl_pytokcache_new(0);
	for (i = 0; i < 5; i++)
		cpl_pytokcache_attach(c, f[i]);
	/* Attached while holding (detached from the freed cache, each kept
	 * what it had): the arrays count at once. */
	ck_assert_uint_eq(cpl_pytokcache_bytes(c), 5 * one);
	cpl_pytokcache_trim(c);
	ck_assert_uint_eq(cpl_pytokcache_bytes(c), 0);
	made = cpl_pytokcache_made(c);
	(void)cpl_pyfile_toks(f[2]);
	ck_assert_uint_eq(cpl_pytokcache_made(c), made + 1);
	ck_assert_uint_eq(cpl_pytokcache_bytes(c), one);
	/* A file freed before its cache leaves it. */
	cpl_pyfile_free(f[2]);
	ck_assert_uint_eq(cpl_pytokcache_bytes(c), 0);
	(void)cpl_pyfile_toks(f[3]);
	cpl_pyfile_free(f[0]);
	ck_assert_uint_eq(cpl_pytokcache_bytes(c), one);
	cpl_pytokcache_free(c);
	/* ... and the cache before its files: they keep what they hold. */
	ck_assert_int_eq(cpl_pyfile_toks(f[3])[0].line, 1);
	cpl_pyfile_free(f[1]);
	cpl_pyfile_free(f[3]);
	cpl_pyfile_free(f[4]);
	cpl_pytokcache_free(NULL);
	cpl_pytokcache_trim(NULL);
	cpl_pytokcache_attach(NULL, NULL);
}
END_TEST

/* Values resolved across linked files with a cache that keeps nothing
 * past a trim, trimmed between resolutions, are those resolved with
 * every array kept. */
static const struct cpl_pyfile *linked[2];

static const struct cpl_pyfile *
module_of(void *ctx, const struct cpl_pyfile *from, const char *module,
	  int level)
{
	(void)ctx;
	(void)from;
	(void)level;
	return strcmp(module, "conf") == 0 ? linked[1] : NULL;
}

START_TEST(values_with_a_tiny_cache)
{
	const char *main_py =
		"import os\nimport torch\nfrom conf import WORKERS, threads\n"
		"from torch.utils.data import DataLoader\n"
		"torch.set_num_threads(threads(2) + 1)\n"
		"dl = DataLoader(ds, num_workers=WORKERS * 2)\n"
		"p = DataLoader(ds, num_workers=os.cpu_count() // 2)\n";
	const char *conf_py =
		"WORKERS = (3 +\n    1)\n"
		"def threads(n):\n    return n * 4\n";
	struct cpl_pyfile *m = scan("main.py", main_py, 0);
	struct cpl_pyfile *g = scan("conf.py", conf_py, 0);
	struct cpl_pyenv env;
	struct cpl_pyval want[3], got[3];
	struct cpl_pytokcache *c;
	int round;

	linked[0] = m;
	linked[1] = g;
	memset(&env, 0, sizeof(env));
	env.files = linked;
	env.nfiles = 2;
	env.module = module_of;
	ck_assert_uint_eq(m->nthreads, 1);
	ck_assert_uint_eq(m->nloaders, 2);
	cpl_pyvalue_threads(&want[0], m, 0, NULL, &env);
	cpl_pyvalue_loader(&want[1], m, 0, NULL, &env);
	cpl_pyvalue_loader(&want[2], m, 1, NULL, &env);
	ck_assert_int_eq(want[0].kind, CPL_PYVAL_KNOWN);
	ck_assert_int_eq(want[0].value, 9);
	ck_assert_int_eq(want[1].kind, CPL_PYVAL_KNOWN);
	ck_assert_int_eq(want[1].value, 8);
	ck_assert_int_eq(want[2].kind, CPL_PYVAL_HOST);
	c = cpl_pytokcache_new(0);
	cpl_pytokcache_attach(c, m);
	cpl_pytokcache_attach(c, g);
	for (round = 0; round < 3; round++) {
		cpl_pytokcache_trim(c);
		ck_assert_uint_eq(cpl_pytokcache_bytes(c), 0);
		cpl_pyvalue_threads(&got[0], m, 0, NULL, &env);
		cpl_pytokcache_trim(c);
		cpl_pyvalue_loader(&got[1], m, 0, NULL, &env);
		cpl_pytokcache_trim(c);
		cpl_pyvalue_loader(&got[2], m, 1, NULL, &env);
		ck_assert_int_eq(got[0].kind, want[0].kind);
		ck_assert_int_eq(got[0].value, want[0].value);
		ck_assert_int_eq(got[0].pos.line, want[0].pos.line);
		ck_assert_int_eq(got[0].pos.column, want[0].pos.column);
		ck_assert_int_eq(got[1].kind, want[1].kind);
		ck_assert_int_eq(got[1].value, want[1].value);
		ck_assert_int_eq(got[1].pos.line, want[1].pos.line);
		ck_assert_int_eq(got[2].kind, want[2].kind);
		ck_assert_int_eq(got[2].host.line, want[2].host.line);
		ck_assert_int_eq(got[2].host.column, want[2].host.column);
	}
	/* Both files were read in each round: made again each time. */
	ck_assert_uint_ge(cpl_pytokcache_made(c), 6);
	cpl_pyfile_free(m);
	cpl_pyfile_free(g);
	cpl_pytokcache_free(c);
}
END_TEST

static Suite *
pytokcache_suite(void)
{
	Suite *s = suite_create("pytokcache");
	TCase *tc = tcase_create("tokens");

	tcase_add_test(tc, remade_tokens_equal_the_scans);
	tcase_add_test(tc, tokens_after_an_error);
	tcase_add_test(tc, cache_bound_and_trim);
	tcase_add_test(tc, values_with_a_tiny_cache);
	suite_add_tcase(s, tc);
	return s;
}

#include "check_main.h"
CPL_CHECK_MAIN(pytokcache_suite)
