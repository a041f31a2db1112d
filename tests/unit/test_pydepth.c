/*
 * test_pydepth.c — deep Python, generated: every reader of Python text
 * that recurses over nesting stops at its bound, so no file can exhaust
 * the stack (a 1 MB file of prefix operators once overflowed the value
 * resolver's).  Past the bound a value is unknown; past CPython's own
 * limits (brackets nested more than 200 deep, f-strings more than 150)
 * the tokenizer reports the error CPython reports, at its line and
 * column, and still yields the rest.  Below the bounds, values resolve as
 * before.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "python/pyscan.h"
#include "python/pytoken.h"
#include "python/pyvalue.h"
#include "util.h"

/* Deep enough to overflow any stack one frame per level: 200,000 levels
 * (a file under 1 MB for one-character operators). */
#define DEEP 200000

/* head, then rep n times, then mid, then tail n times, then end. */
static char *
gen(const char *head, const char *rep, size_t n, const char *mid,
    const char *tail, const char *end)
{
	struct cpl_buf b;
	size_t i;

	cpl_buf_init(&b, 0);
	cpl_buf_adds(&b, head);
	for (i = 0; i < n; i++)
		cpl_buf_adds(&b, rep);
	cpl_buf_adds(&b, mid);
	for (i = 0; i < n; i++)
		cpl_buf_adds(&b, tail);
	cpl_buf_adds(&b, end);
	return cpl_buf_detach(&b);
}

/* Scans src; *rc gets the scan's return, err its error. */
static struct cpl_pyfile *
scan(const char *src, int *rc, struct cpl_error *err)
{
	struct cpl_pyfile *f = NULL;

	memset(err, 0, sizeof(*err));
	*rc = cpl_pyscan_file(&f, "deep.py", src, strlen(src), err);
	ck_assert_ptr_nonnull(f);
	return f;
}

/* The value of the last module-level assignment of name in src, which
 * must scan without error unless want_err names the error. */
static struct cpl_pyval
value_of(const char *src, const char *name, const char *want_err)
{
	struct cpl_error err;
	struct cpl_pyfile *f;
	struct cpl_pyval v;
	int rc, a;

	f = scan(src, &rc, &err);
	if (want_err == NULL)
		ck_assert_msg(rc == 0, "scan: %s", err.message);
	else
		ck_assert_msg(rc != 0 && err.message &&
			      strstr(err.message, want_err),
			      "want error %s, got %s", want_err,
			      err.message ? err.message : "none");
	a = cpl_pyscan_assign_last(f, 0, name);
	ck_assert_int_ge(a, 0);
	cpl_pyvalue_expr(&v, f, &f->assigns[a].value, NULL, NULL);
	cpl_error_clear(&err);
	cpl_pyfile_free(f);
	return v;
}

static void
is_known(const struct cpl_pyval *v, long want, const char *what)
{
	ck_assert_msg(v->kind == CPL_PYVAL_KNOWN && v->value == want,
		      "%s: %s %ld, want known %ld", what,
		      cpl_pyvalue_kind_name(v->kind), v->value, want);
}

static void
is_unknown(const struct cpl_pyval *v, const char *what)
{
	ck_assert_msg(v->kind == CPL_PYVAL_UNKNOWN, "%s: %s, want unknown",
		      what, cpl_pyvalue_kind_name(v->kind));
}

/* ---- the value resolver ----------------------------------------------- */

/* A chain of prefix operators: a few resolve, 200,000 are unknown. */
START_TEST(prefix_operators)
{
	static const struct {
		const char *op;
		long few;	/* the value of 10 of them before 3 */
	} ops[] = { { "-", 3 }, { "+", 3 }, { "~", 3 }, { "not ", 1 } };
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(ops); i++) {
		char *src = gen("x = ", ops[i].op, 10, "3", "", "\n");
		struct cpl_pyval v = value_of(src, "x", NULL);

		is_known(&v, ops[i].few, ops[i].op);
		free(src);
		src = gen("x = ", ops[i].op, DEEP, "3", "", "\n");
		v = value_of(src, "x", NULL);
		is_unknown(&v, ops[i].op);
		free(src);
	}
}
END_TEST

/* Right-nested chains: **, conditionals, await; and a prefix chain in
 * a DataLoader's num_workers and a thread setting, read as the engine
 * reads them. */
START_TEST(right_nested_chains)
{
	char *src;
	struct cpl_pyval v;
	struct cpl_error err;
	struct cpl_pyfile *f;
	int rc;

	src = gen("x = 1", " ** 1", 5, "", "", "\n");
	v = value_of(src, "x", NULL);
	is_known(&v, 1, "** x5");
	free(src);
	src = gen("x = 1", " ** -1", DEEP, "", "", "\n");
	v = value_of(src, "x", NULL);
	is_unknown(&v, "** x200000");
	free(src);
	src = gen("x = ", "2 if c else ", 5, "3", "", "\n");
	v = value_of(src, "x", NULL);
	ck_assert(v.kind == CPL_PYVAL_UNKNOWN);	/* c is unknown */
	free(src);
	src = gen("x = ", "1 if True else ", DEEP, "3", "", "\n");
	v = value_of(src, "x", NULL);
	is_unknown(&v, "conditional x200000");
	free(src);
	src = gen("x = ", "await ", DEEP, "3", "", "\n");
	v = value_of(src, "x", NULL);
	is_unknown(&v, "await x200000");
	free(src);
	src = gen("import torch\nfrom torch.utils.data import DataLoader\n"
		  "d = DataLoader(ds, num_workers=", "-", DEEP, "2",
		  "", ")\ntorch.set_num_threads(" "~~~~1)\n"
		  "torch.set_num_threads(not not not 7)\n");
	f = scan(src, &rc, &err);
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(f->nloaders, 1);
	cpl_pyvalue_loader(&v, f, 0, NULL, NULL);
	is_unknown(&v, "num_workers");
	ck_assert_int_eq(f->nthreads, 2);
	cpl_pyvalue_threads(&v, f, 0, NULL, NULL);
	is_known(&v, 1, "set_num_threads(~~~~1)");
	cpl_pyvalue_threads(&v, f, 1, NULL, NULL);
	is_known(&v, 0, "set_num_threads(not not not 7)");
	cpl_pyfile_free(f);
	cpl_error_clear(&err);
	free(src);
}
END_TEST

/* Parentheses: 60 deep resolve; 150 (still Python) are past the
 * resolver's bound and unknown; 200,000 are CPython's "too many nested
 * parentheses" at the 201st, and unknown. */
START_TEST(parentheses)
{
	char *src;
	struct cpl_pyval v;

	src = gen("x = ", "(", 60, "4", ")", "\n");
	v = value_of(src, "x", NULL);
	is_known(&v, 4, "60 parentheses");
	free(src);
	src = gen("x = ", "(-", 150, "4", ")", "\n");
	v = value_of(src, "x", NULL);
	is_unknown(&v, "150 parentheses");
	free(src);
	src = gen("x = ", "(", DEEP, "4", ")", "\n");
	v = value_of(src, "x", "too many nested parentheses");
	is_unknown(&v, "200000 parentheses");
	free(src);
}
END_TEST

/* ---- the tokenizer ----------------------------------------------------- */

/* Tokenizes src; the return, with err's position and message. */
static int
tokenize(const char *src, struct cpl_error *err)
{
	struct cpl_pytokens t;
	int rc;

	memset(&t, 0, sizeof(t));
	memset(err, 0, sizeof(*err));
	rc = cpl_pytoken_scan(&t, src, strlen(src), "deep.py", err);
	ck_assert_uint_gt(t.count, 0);
	ck_assert(t.toks[t.count - 1].kind == CPL_PYTOK_ENDMARKER);
	cpl_pytoken_clear(&t);
	return rc;
}

START_TEST(bracket_limit)
{
	struct cpl_error err;
	char *src;

	src = gen("x = ", "[", CPL_PYTOKEN_MAX_NEST, "1", "]", "\n");
	ck_assert_int_eq(tokenize(src, &err), 0);
	free(src);
	src = gen("x = ", "[", CPL_PYTOKEN_MAX_NEST + 1, "1", "]", "\n");
	ck_assert_int_eq(tokenize(src, &err), -1);
	ck_assert_str_eq(err.message, "too many nested parentheses");
	ck_assert_int_eq(err.line, 1);
	ck_assert_int_eq(err.column, 5 + CPL_PYTOKEN_MAX_NEST);
	cpl_error_clear(&err);
	free(src);
}
END_TEST

/* f-strings in replacement fields of f-strings, and format specs in
 * format specs: 150 levels read, deeper is CPython's error, and 200,000
 * levels do not exhaust the stack. */
START_TEST(fstring_limit)
{
	struct cpl_error err;
	char *src;

	src = gen("x = ", "f'{", CPL_PYTOKEN_MAX_FSTRING, "1", "}'", "\n");
	ck_assert_int_eq(tokenize(src, &err), 0);
	free(src);
	src = gen("x = ", "f'{", CPL_PYTOKEN_MAX_FSTRING + 1, "1", "}'", "\n");
	ck_assert_int_eq(tokenize(src, &err), -1);
	ck_assert_str_eq(err.message, "too many nested f-strings");
	/* At the quote of the first f-string too deep. */
	ck_assert_int_eq(err.column, 6 + 3 * CPL_PYTOKEN_MAX_FSTRING);
	cpl_error_clear(&err);
	free(src);
	src = gen("x = ", "f'{", DEEP, "1", "}'", "\n");
	ck_assert_int_eq(tokenize(src, &err), -1);
	ck_assert_str_eq(err.message, "too many nested f-strings");
	cpl_error_clear(&err);
	free(src);
	src = gen("x = f'{y", ":{y", DEEP, "", "}", "}'\n");
	ck_assert_int_eq(tokenize(src, &err), -1);
	ck_assert_str_eq(err.message, "too many nested f-strings");
	cpl_error_clear(&err);
	free(src);
}
END_TEST

/* ---- the facts --------------------------------------------------------- */

/* worker_init_fn=functools.partial(...): a partial of a partial names the
 * def; 200,000 of them are read without recursing down them all. */
START_TEST(nested_partials)
{
	struct cpl_error err;
	struct cpl_pyfile *f;
	char *src;
	int rc;

	src = gen("import functools\nfrom torch.utils.data import "
		  "DataLoader\ndef init(w):\n    pass\n"
		  "d = DataLoader(ds, num_workers=2, worker_init_fn=",
		  "functools.partial(", 3, "init", ")", ")\n");
	f = scan(src, &rc, &err);
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(f->nloaders, 1);
	ck_assert_int_ge(f->loaders[0].init_func, 0);
	cpl_pyfile_free(f);
	free(src);
	src = gen("import functools\nfrom torch.utils.data import "
		  "DataLoader\ndef init(w):\n    pass\n"
		  "d = DataLoader(ds, num_workers=2, worker_init_fn=",
		  "functools.partial(", DEEP, "init", ")", ")\n");
	f = scan(src, &rc, &err);
	ck_assert_int_ne(rc, 0);	/* too many nested parentheses */
	ck_assert_int_eq(f->nloaders, 1);
	ck_assert_int_eq(f->loaders[0].init_func, -1);
	cpl_error_clear(&err);
	cpl_pyfile_free(f);
	free(src);
}
END_TEST

static Suite *
pydepth_suite(void)
{
	Suite *s = suite_create("pydepth");
	TCase *tc = tcase_create("deep");

	tcase_add_test(tc, prefix_operators);
	tcase_add_test(tc, right_nested_chains);
	tcase_add_test(tc, parentheses);
	tcase_add_test(tc, bracket_limit);
	tcase_add_test(tc, fstring_limit);
	tcase_add_test(tc, nested_partials);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(pydepth_suite)
