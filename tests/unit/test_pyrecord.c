/*
 * test_pyrecord.c — what the full scan records and how: every augmented
 * operator makes an assignment and no comparison does, headers of every
 * compound kind end at their ':'; callee names and targets are the
 * tokens' text joined; every recorded position is its token's.  The
 * scan reads these in place (words of known length, names written into
 * the arena, positions from its own tokens); these hold it to the
 * answers it gave.  Fixtures are in testdata/pyscan/.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "python/pyscan.h"
#include "util.h"

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

/* Every augmented operator makes an assignment with its operator; an
 * operator that ends in '=' but assigns nothing (==, <=, >=, !=) does
 * not, nor does '=' of a keyword argument; headers of every compound
 * kind end at their ':' (the body's assignment is read). */
START_TEST(augmented_operators)
{
	static const char *const ops[] = {
		"+=", "-=", "*=", "/=", "//=", "%=", "**=", ">>=", "<<=",
		"&=", "|=", "^=", "@=",
	};
	struct cpl_buf b;
	struct cpl_pyfile *f;
	char name[16];
	size_t i;
	int a;

	cpl_buf_init(&b, 0);
	for (i = 0; i < CPL_ARRAY_LEN(ops); i++) {
		snprintf(name, sizeof(name), "v%zu", i);
		cpl_buf_adds(&b, name);
		cpl_buf_adds(&b, " = 1\n");
		cpl_buf_adds(&b, name);
		cpl_buf_addc(&b, ' ');
		cpl_buf_adds(&b, ops[i]);
		cpl_buf_adds(&b, " 2\n");
	}
	cpl_buf_adds(&b, "c = a == b\nd = a <= b >= c != d\nf(k=1)\n"
		     "if a: e1 = 1\nwhile a: e2 = 1\nfor i in a: e3 = 1\n"
		     "with a: e4 = 1\ntry: e5 = 1\nexcept E: e6 = 1\n"
		     "finally: e7 = 1\n"
		     "if a: pass\nelif b: e8 = 1\nelse: e9 = 1\n");
	f = scan(cpl_buf_str(&b));
	for (i = 0; i < CPL_ARRAY_LEN(ops); i++) {
		snprintf(name, sizeof(name), "v%zu", i);
		a = cpl_pyscan_assign_last(f, 0, name);
		ck_assert_int_ge(a, 0);
		ck_assert_str_eq(f->assigns[a].op, ops[i]);
		ck_assert_expr(f, &f->assigns[a].value, "2");
		ck_assert_str_eq(f->assigns[f->assigns[a].prev].op, "=");
	}
	a = cpl_pyscan_assign_last(f, 0, "c");
	ck_assert_str_eq(f->assigns[a].op, "=");
	ck_assert_expr(f, &f->assigns[a].value, "a == b");
	a = cpl_pyscan_assign_last(f, 0, "d");
	ck_assert_expr(f, &f->assigns[a].value, "a <= b >= c != d");
	ck_assert_int_lt(cpl_pyscan_assign_last(f, 0, "k"), 0);
	for (i = 1; i <= 9; i++) {
		snprintf(name, sizeof(name), "e%zu", i);
		a = cpl_pyscan_assign_last(f, 0, name);
		ck_assert_msg(a >= 0, "%s", name);
		ck_assert_expr(f, &f->assigns[a].value, "1");
	}
	cpl_pyfile_free(f);
	cpl_buf_free(&b);
}
END_TEST

/* Callee names and assignment targets are the tokens' text joined
 * (blanks left out), a method call's name with its leading '.'. */
START_TEST(joined_names)
{
	struct cpl_pyfile *f = scan(
		"torch.utils.data.DataLoader(ds)\n"
		"make().cuda().half()\n"
		"self.x . y = f(\n  1,  # one\n  2)\n");
	static const char *const callees[] = {
		"torch.utils.data.DataLoader", "make", ".cuda", ".half", "f",
	};
	size_t i;

	ck_assert_uint_eq(f->ncalls, CPL_ARRAY_LEN(callees));
	for (i = 0; i < CPL_ARRAY_LEN(callees); i++)
		ck_assert_str_eq(f->calls[i].callee, callees[i]);
	ck_assert_int_ge(cpl_pyscan_assign_last(f, 0, "self.x.y"), 0);
	ck_assert_expr(f, &f->assigns[cpl_pyscan_assign_last(f, 0,
							     "self.x.y")].value,
		       "f(\n  1,  # one\n  2)");
	cpl_pyfile_free(f);
}
END_TEST

/* The positions the scan records are its tokens' (cpl_pyscan_pos() of
 * the token each names), for every call, assignment and parameter. */
START_TEST(positions_are_the_tokens)
{
	static const char *const files[] = {
		FIX "train.py", FIX "data_setup.py", FIX "pipeline.py",
		FIX "printed.py",
	};
	size_t i, k, p;

	for (i = 0; i < CPL_ARRAY_LEN(files); i++) {
		struct cpl_pyfile *f = load(files[i]);

		for (k = 0; k < f->ncalls; k++) {
			struct cpl_pos want = cpl_pyscan_pos(f,
							     f->calls[k].first);

			ck_assert_int_gt(f->calls[k].pos.line, 0);
			ck_assert_int_eq(f->calls[k].pos.line, want.line);
			ck_assert_int_eq(f->calls[k].pos.column, want.column);
		}
		for (k = 0; k < f->nassigns; k++) {
			struct cpl_pos want = cpl_pyscan_pos(f,
							     f->assigns[k].tok);

			ck_assert_int_eq(f->assigns[k].pos.line, want.line);
			ck_assert_int_eq(f->assigns[k].pos.column,
					 want.column);
			want = cpl_pyscan_pos(f, f->assigns[k].value.first);
			ck_assert_int_eq(f->assigns[k].value.pos.line,
					 want.line);
			ck_assert_int_eq(f->assigns[k].value.pos.column,
					 want.column);
		}
		for (k = 0; k < f->nscopes; k++)
			for (p = 0; p < f->scopes[k].nparams; p++) {
				const struct cpl_pyparam *q =
					&f->scopes[k].params[p];
				struct cpl_pos want = cpl_pyscan_pos(f,
								     q->tok);

				ck_assert_int_eq(q->pos.line, want.line);
				ck_assert_int_eq(q->pos.column, want.column);
			}
		cpl_pyfile_free(f);
	}
}
END_TEST

static Suite *
pyrecord_suite(void)
{
	Suite *s = suite_create("pyrecord");
	TCase *tc = tcase_create("records");

	tcase_add_test(tc, augmented_operators);
	tcase_add_test(tc, joined_names);
	tcase_add_test(tc, positions_are_the_tokens);
	suite_add_tcase(s, tc);
	return s;
}

#include "check_main.h"
CPL_CHECK_MAIN(pyrecord_suite)
