/* test_pycheck.c — the token comparison that proves a Python edit: a
 * count or a call replaced and a helper inserted pass; an edit that
 * opens a string over the code after it, joins two names, leaves a
 * bracket open or adds code outside what it writes is refused. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "python/pycheck.h"
#include "text/patch.h"

/* Replaces the first needle of text by repl (needle "" with at: inserts
 * before at) and runs the check; 0 when proved.  why: the reason. */
static int
verify(const char *text, const char *needle, const char *at,
       const char *repl, char **why)
{
	const char *p = strstr(text, at ? at : needle);
	struct cpl_patch_edit ed = { 0 };
	struct cpl_ycheck_edit ye;
	struct cpl_ycheck_result r;
	struct cpl_patch pt;
	size_t off, i;
	int rc, line = 1, col = 1;

	ck_assert_ptr_nonnull(p);
	off = (size_t)(p - text);
	for (i = 0; i < off; i++, col++)
		if (text[i] == '\n') {
			line++;
			col = 0;
		}
	ed.line = ed.end_line = line;
	ed.column = col;
	ed.end_column = col + (at ? 0 : (int)strlen(needle));
	ed.text = repl;
	cpl_patch_apply(&pt, text, strlen(text), &ed, 1);
	ck_assert_int_eq(ed.state, CPL_PATCH_APPLIED);
	ye = (struct cpl_ycheck_edit){ ed.old_off, ed.old_end, ed.new_off,
				       ed.new_end, 7 };
	rc = cpl_pycheck_run(&r, text, strlen(text), pt.text, pt.len, &ye, 1);
	*why = r.n ? cpl_xstrdup(r.v[0].why) :
	       r.unexplained ? cpl_xstrdup(r.unexplained) : NULL;
	if (r.n)
		ck_assert_uint_eq(r.v[0].group, 7);
	cpl_ycheck_result_free(&r);
	cpl_patch_free(&pt);
	return rc;
}

static const char SRC[] =
	"import os\n"
	"import torch\n"
	"\n"
	"def main():\n"
	"    torch.set_num_threads(8)  # (8 threads)\n"
	"    n = os.cpu_count()\n"
	"    return DataLoader(ds, num_workers=8, batch_size=32)\n";

START_TEST(edits_that_read_the_same)
{
	char *why = NULL;

	ck_assert_int_eq(verify(SRC, "8)", NULL, "2)", &why), 0);
	ck_assert_int_eq(verify(SRC, "os.cpu_count()", NULL, "cpu_quota()",
				&why), 0);
	ck_assert_int_eq(verify(SRC, "num_workers=8", NULL, "num_workers=2",
				&why), 0);
	ck_assert_int_eq(verify(SRC, "", "def main", "def cpu_quota():\n"
				"    return 1\n\n\n", &why), 0);
	ck_assert_ptr_null(why);
}
END_TEST

START_TEST(edits_that_read_otherwise)
{
	char *why = NULL;

	/* A quote opened: the code after it becomes a string. */
	ck_assert_int_eq(verify(SRC, "8)", NULL, "'8)", &why), 1);
	ck_assert_ptr_nonnull(why);
	free(why);
	/* Two names joined into one. */
	ck_assert_int_eq(verify(SRC, "n = os", NULL, "n =os", &why), 0);
	free(why);
	ck_assert_int_eq(verify(SRC, " DataLoader", NULL, "DataLoader",
				&why), 1);
	ck_assert_ptr_nonnull(strstr(why, "line 7"));
	free(why);
	/* A bracket left open: the text no longer tokenizes. */
	ck_assert_int_eq(verify(SRC, "32)", NULL, "32", &why), 1);
	ck_assert_ptr_nonnull(strstr(why, "would not tokenize"));
	free(why);
	/* A comment turned into code. */
	ck_assert_int_eq(verify(SRC, "# (8", NULL, "(8", &why), 1);
	free(why);
}
END_TEST

static Suite *
pycheck_suite(void)
{
	Suite *s = suite_create("pycheck");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, edits_that_read_the_same);
	tcase_add_test(tc, edits_that_read_otherwise);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(pycheck_suite)
