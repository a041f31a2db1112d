/*
 * test_keep.c — compare --fix's edits (lib/run/keep.h) after a whole run:
 * a setting of threads alone kept in a job with no loader whose script
 * shows training only by its calls (backward, an optimizer's step), which
 * the run released before the keep asks (the lab's compute job was
 * refused: "no training container to keep the setting in"); the record
 * of what the comparison measured (cpulint.io/measured) added beside it,
 * and read back by the rules' test of a record against a setting.
 */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "model/finding.h"
#include "run/engine.h"
#include "model/workload.h"
#include "run/keep.h"

#define DIR "testdata/keep/threads-only/"

START_TEST(threads_alone_after_the_run)
{
	struct cpl_engine *e = cpl_engine_new();
	struct cpl_keep_result k = { 0 };

	cpl_engine_add_path(e, DIR "job.yaml", true);
	cpl_engine_run(e);
	cpl_engine_keep(e, DIR "job.yaml", 1, -1, NULL, NULL, &k);
	ck_assert_msg(k.why == NULL, "refused: %s", k.why);
	ck_assert_uint_eq(k.nedits, 1);
	ck_assert_str_eq(k.edits[0].text, "\"1\"");
	cpl_keep_free(&k);
	/* the same threads as the file: nothing to do, and not refused */
	cpl_engine_keep(e, DIR "job.yaml", 2, -1, NULL, NULL, &k);
	ck_assert_msg(k.why == NULL, "refused: %s", k.why);
	ck_assert_uint_eq(k.nedits, 0);
	cpl_keep_free(&k);
	cpl_engine_free(e);
}
END_TEST

/* compare --fix keeps the pool size the setting ran with (plan sets it
 * with each setting): t1-w0 of the features job ran OpenBLAS at 2. */
START_TEST(pools_kept)
{
	struct cpl_engine *e = cpl_engine_new();
	struct cpl_keep_result k = { 0 };
	const long pools[4] = { 2, -1, -1, -1 };
	const long same[4] = { 1, -1, -1, -1 };
	size_t i, blas = 0, workers = 0;

	cpl_engine_add_path(e, "testdata/keep/pools/job.yaml", true);
	cpl_engine_run(e);
	cpl_engine_keep(e, "testdata/keep/pools/job.yaml", 1, 0, pools, NULL,
			&k);
	ck_assert_msg(k.why == NULL, "refused: %s", k.why);
	for (i = 0; i < k.nedits; i++) {
		if (k.edits[i].line == 19 && strcmp(k.edits[i].text,
						     "\"2\"") == 0)
			blas++;
		if (k.edits[i].line == 14)
			workers++;
	}
	ck_assert_uint_eq(blas, 1);
	ck_assert_uint_eq(workers, 1);
	cpl_keep_free(&k);
	/* the file holds the setting and the size: nothing to do */
	cpl_engine_keep(e, "testdata/keep/pools/job.yaml", 1, 2, same, NULL,
			&k);
	ck_assert_msg(k.why == NULL, "refused: %s", k.why);
	ck_assert_uint_eq(k.nedits, 0);
	cpl_keep_free(&k);
	cpl_engine_free(e);
}
END_TEST

START_TEST(measured_recorded)
{
	struct cpl_engine *e = cpl_engine_new();
	struct cpl_keep_result k = { 0 };
	size_t i, found = 0;

	cpl_engine_add_path(e, DIR "job.yaml", true);
	cpl_engine_run(e);
	/* the threads already held: the record alone is written, under
	 * the object's metadata, with the budget it was measured on */
	cpl_engine_keep(e, DIR "job.yaml", 2, -1, NULL,
			"148 examples/s, 1.04x t1; plan dense-1, 2026-12-07", &k);
	ck_assert_msg(k.why == NULL, "refused: %s", k.why);
	ck_assert_uint_ge(k.nedits, 1);
	for (i = 0; i < k.nedits; i++)
		if (strstr(k.edits[i].text, "cpulint.io/measured: \"t2 on 2 "
			   "CPU: 148 examples/s, 1.04x t1; plan dense-1, "
			   "2026-12-07\"") != NULL)
			found++;
	ck_assert_uint_eq(found, 1);
	cpl_keep_free(&k);
	cpl_engine_free(e);
}
END_TEST

START_TEST(measured_matches_only_its_setting_and_budget)
{
	struct cpl_workload *w = cpl_workload_new(CPL_SRC_MANIFEST, "f.yaml");
	struct cpl_pos at = { 0 };

	ck_assert(!cpl_workload_measured(w, 1, 4, 1000));
	cpl_workload_set_measured(w, "t1-w4 on 1 CPU: 423 examples/s", at);
	ck_assert(cpl_workload_measured(w, 1, 4, 1000));
	ck_assert(!cpl_workload_measured(w, 1, 3, 1000));	/* workers */
	ck_assert(!cpl_workload_measured(w, 2, 4, 1000));	/* threads */
	ck_assert(!cpl_workload_measured(w, 1, 4, 2000));	/* budget */
	ck_assert(!cpl_workload_measured(w, 1, -1, 1000));
	cpl_workload_free(w);
	w = cpl_workload_new(CPL_SRC_MANIFEST, "f.yaml");
	cpl_workload_set_measured(w, "t2 on 0.5 CPU: ranked by throttling",
				  at);
	ck_assert(cpl_workload_measured(w, 2, -1, 500));
	ck_assert(!cpl_workload_measured(w, 2, 0, 500));
	ck_assert(!cpl_workload_measured(w, 2, -1, 5000));
	cpl_workload_free(w);
	w = cpl_workload_new(CPL_SRC_MANIFEST, "f.yaml");
	cpl_workload_set_measured(w, "t2 on 250m CPU", at);
	ck_assert(cpl_workload_measured(w, 2, -1, 250));
	cpl_workload_free(w);
	/* not a record: no setting, no budget, a number run past its end */
	w = cpl_workload_new(CPL_SRC_MANIFEST, "f.yaml");
	cpl_workload_set_measured(w, "best t1-w4", at);
	ck_assert(!cpl_workload_measured(w, 1, 4, 1000));
	cpl_workload_free(w);
	w = cpl_workload_new(CPL_SRC_MANIFEST, "f.yaml");
	cpl_workload_set_measured(w, "t1-w4", at);
	ck_assert(!cpl_workload_measured(w, 1, 4, 1000));
	cpl_workload_free(w);
	w = cpl_workload_new(CPL_SRC_MANIFEST, "f.yaml");
	cpl_workload_set_measured(w, "t1-w4 on 1.2345 CPU", at);
	ck_assert(!cpl_workload_measured(w, 1, 4, 1234));
	cpl_workload_free(w);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("keep");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, threads_alone_after_the_run);
	tcase_add_test(tc, measured_recorded);
	tcase_add_test(tc, pools_kept);
	tcase_add_test(tc, measured_matches_only_its_setting_and_budget);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(suite)
