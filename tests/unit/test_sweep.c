/*
 * test_sweep.c — the settings of a plan (lib/plan/sweep.h): one knob at a
 * time around the suggestion, inside the per-rank budget, capped by
 * --max, threads only when the workers cannot be set.
 */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "plan/sweep.h"

static size_t
make(struct cpl_sweep_setting *s, long b, long t, long w, long max,
     bool set_workers)
{
	struct cpl_sweep_in in = { b, t, w, max, set_workers };

	return cpl_sweep_make(s, &in);
}

START_TEST(suggestion_then_threads_then_workers)
{
	struct cpl_sweep_setting s[CPL_SWEEP_MAX];
	size_t n = make(s, 8, 4, 4, 0, true), i;
	static const long want[][2] = {
		{ 4, 4 }, { 1, 4 }, { 2, 4 }, { 4, 0 }, { 4, 1 }, { 4, 2 },
	};

	ck_assert_uint_eq(n, 6);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(s[i].threads, want[i][0]);
		ck_assert_int_eq(s[i].workers, want[i][1]);
		ck_assert_int_le(s[i].threads + s[i].workers, 8);
	}
	ck_assert_str_eq(s[0].id, "t4-w4");
	ck_assert_int_eq(s[0].knob, CPL_SWEEP_BASE);
	ck_assert_int_eq(s[1].knob, CPL_SWEEP_THREADS);
	ck_assert_int_eq(s[3].knob, CPL_SWEEP_WORKERS);
	ck_assert_str_eq(s[5].id, "t4-w2");
}
END_TEST

START_TEST(odd_budget_keeps_its_bound)
{
	struct cpl_sweep_setting s[CPL_SWEEP_MAX];
	size_t n = make(s, 6, 3, 3, 0, true), i;
	static const long want[][2] = {
		{ 3, 3 }, { 1, 3 }, { 2, 3 }, { 3, 0 }, { 3, 1 }, { 3, 2 },
	};

	ck_assert_uint_eq(n, 6);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(s[i].threads, want[i][0]);
		ck_assert_int_eq(s[i].workers, want[i][1]);
	}
}
END_TEST

START_TEST(large_budget_powers_of_two)
{
	struct cpl_sweep_setting s[CPL_SWEEP_MAX];
	size_t n = make(s, 48, 24, 24, 0, true), i;

	/* threads 1 2 4 8 16 24, workers 0 1 2 4 8 16 24: 12 settings */
	ck_assert_uint_eq(n, 12);
	ck_assert_int_eq(s[5].threads, 16);
	ck_assert_int_eq(s[11].workers, 16);
	for (i = 0; i < n; i++)
		ck_assert_int_le(s[i].threads + s[i].workers, 48);
}
END_TEST

START_TEST(max_caps_each_knob)
{
	struct cpl_sweep_setting s[CPL_SWEEP_MAX];
	size_t n = make(s, 8, 4, 4, 2, true), i;

	ck_assert_uint_eq(n, 4);	/* t2-w2, t1-w2, t2-w0, t2-w1 */
	ck_assert_str_eq(s[0].id, "t2-w2");
	for (i = 0; i < n; i++) {
		ck_assert_int_le(s[i].threads, 2);
		ck_assert_int_le(s[i].workers, 2);
	}
}
END_TEST

START_TEST(threads_only)
{
	struct cpl_sweep_setting s[CPL_SWEEP_MAX];
	size_t n = make(s, 8, 4, 4, 0, false);

	ck_assert_uint_eq(n, 3);	/* t4, t1, t2: workers untouched */
	ck_assert_str_eq(s[0].id, "t4");
	ck_assert_int_eq(s[0].workers, -1);
	ck_assert_int_eq(s[2].threads, 2);
}
END_TEST

START_TEST(no_budget_no_sweep)
{
	struct cpl_sweep_setting s[CPL_SWEEP_MAX];

	ck_assert_uint_eq(make(s, 0, 1, 0, 0, true), 0);
	/* one CPU per rank: one thread, no workers, nothing else fits */
	ck_assert_uint_eq(make(s, 1, 1, 0, 0, true), 1);
	ck_assert_str_eq(s[0].id, "t1-w0");
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("sweep");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, suggestion_then_threads_then_workers);
	tcase_add_test(tc, odd_budget_keeps_its_bound);
	tcase_add_test(tc, large_budget_powers_of_two);
	tcase_add_test(tc, max_caps_each_knob);
	tcase_add_test(tc, threads_only);
	tcase_add_test(tc, no_budget_no_sweep);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(suite)
