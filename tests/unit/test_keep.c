/*
 * test_keep.c — compare --fix's edits (lib/run/keep.h) after a whole run:
 * a setting of threads alone kept in a job with no loader whose script
 * shows training only by its calls (backward, an optimizer's step), which
 * the run released before the keep asks (the lab's compute job was
 * refused: "no training container to keep the setting in").
 */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "run/engine.h"
#include "run/keep.h"

#define DIR "testdata/keep/threads-only/"

START_TEST(threads_alone_after_the_run)
{
	struct cpl_engine *e = cpl_engine_new();
	struct cpl_keep_result k = { 0 };

	cpl_engine_add_path(e, DIR "job.yaml", true);
	cpl_engine_run(e);
	cpl_engine_keep(e, DIR "job.yaml", 1, -1, NULL, &k);
	ck_assert_msg(k.why == NULL, "refused: %s", k.why);
	ck_assert_uint_eq(k.nedits, 1);
	ck_assert_str_eq(k.edits[0].text, "\"1\"");
	cpl_keep_free(&k);
	/* the same threads as the file: nothing to do, and not refused */
	cpl_engine_keep(e, DIR "job.yaml", 2, -1, NULL, &k);
	ck_assert_msg(k.why == NULL, "refused: %s", k.why);
	ck_assert_uint_eq(k.nedits, 0);
	cpl_keep_free(&k);
	cpl_engine_free(e);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("keep");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, threads_alone_after_the_run);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(suite)
