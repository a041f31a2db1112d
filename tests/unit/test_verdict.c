/*
 * test_verdict.c — the guidance's rules over a comparison's rows
 * (lib/plan/verdict.h): the best by throughput with ties to fewer
 * threads, more workers raising throttling without throughput, low CPU
 * while loading stalls, and the ranking without a throughput figure.
 */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "plan/verdict.h"

#define ROW(s, t, w, ex, wait, cpu, thr) \
	{ s, t, w, ex, wait, cpu, 8, thr, 1, -1, -1 }

static const char *
line(const struct cpl_verdict *v, const char *kind)
{
	size_t i;

	for (i = 0; i < v->nlines; i++)
		if (strcmp(v->lines[i].kind, kind) == 0)
			return v->lines[i].text;
	return NULL;
}

START_TEST(more_workers_no_gain)
{
	const struct cpl_verdict_row r[] = {
		ROW("t4-w0", 4, 0, 300, 0.15, 3.9, 2),
		ROW("t4-w1", 4, 1, 560, 0.10, 5.0, 3),
		ROW("t4-w2", 4, 2, 800, 0.03, 6.1, 4),
		ROW("t4-w4", 4, 4, 805, 0.02, 7.9, 31),
	};
	struct cpl_verdict v;

	cpl_verdict_judge(&v, r, 4, 10);
	ck_assert(v.by_throughput);
	ck_assert_int_eq(v.best, 2);	/* a tie with t4-w4: fewer workers */
	ck_assert_ptr_nonnull(strstr(line(&v, "best"), "a tie with t4-w4"));
	ck_assert_str_eq(line(&v, "workers"), "more workers raised "
		"throttling from 4% to 31% without raising throughput (2 to 4 "
		"workers at 4 threads: 800 to 805 examples/s): keep 2");
	ck_assert_ptr_null(line(&v, "storage"));
	cpl_verdict_free(&v);
}
END_TEST

START_TEST(more_workers_with_gain_is_no_verdict)
{
	const struct cpl_verdict_row r[] = {
		ROW("t4-w2", 4, 2, 800, 0.03, 6.1, 4),
		ROW("t4-w4", 4, 4, 900, 0.02, 7.9, 31),
	};
	struct cpl_verdict v;

	cpl_verdict_judge(&v, r, 2, 10);
	ck_assert_int_eq(v.best, 1);
	ck_assert_ptr_null(line(&v, "workers"));
	ck_assert_str_eq(line(&v, "best"),
			 "best: t4-w4 (4 threads, 4 workers): 900 examples/s");
	cpl_verdict_free(&v);
}
END_TEST

/* The lab's image job at 1 CPU: one more worker (0 -> 1) raised
 * throttling from 98% to 100% with no more throughput, but 2 workers
 * were the best: "keep 0" beside "best: t1-w2" would contradict it, so
 * the workers rule holds only when no setting with more workers gains. */
START_TEST(more_workers_later_gain_is_no_verdict)
{
	const struct cpl_verdict_row r[] = {
		ROW("t1-w0", 1, 0, 352.0, 0.61, 1.0, 98),
		ROW("t1-w1", 1, 1, 352.0, 0.38, 1.0, 100),
		ROW("t1-w2", 1, 2, 373.3, 0.25, 1.0, 100),
		ROW("t1-w4", 1, 4, 357.3, 0.12, 1.0, 100),
	};
	struct cpl_verdict v;

	cpl_verdict_judge(&v, r, 4, 10);
	ck_assert_int_eq(v.best, 2);
	ck_assert_ptr_null(line(&v, "workers"));
	cpl_verdict_free(&v);
}
END_TEST

START_TEST(ties_go_to_fewer_threads)
{
	const struct cpl_verdict_row r[] = {
		ROW("t4-w4", 4, 4, 1000, 0, 7, 5),
		ROW("t2-w4", 2, 4, 990, 0, 6, 5),
		ROW("t1-w4", 1, 4, 900, 0, 5, 5),
	};
	struct cpl_verdict v;

	cpl_verdict_judge(&v, r, 3, 10);
	ck_assert_int_eq(v.best, 1);
	cpl_verdict_free(&v);
}
END_TEST

START_TEST(storage_before_threads)
{
	const struct cpl_verdict_row r[] = {
		ROW("t2-w4", 2, 4, 1200, 0.02, 6.4, 4),
		ROW("t4-w0", 4, 0, 150, 0.45, 1.6, 1),
	};
	struct cpl_verdict v;

	cpl_verdict_judge(&v, r, 2, 10);
	ck_assert_str_eq(line(&v, "storage"), "t4-w0 (4 threads, 0 workers): "
		"CPU use 1.6 of 8 while loading waits 45%: look at storage "
		"and decoding before adding threads");
	cpl_verdict_free(&v);
}
END_TEST

START_TEST(without_throughput)
{
	const struct cpl_verdict_row r[] = {
		ROW("t4-w4", 4, 4, -1, -1, 7.9, 31),
		ROW("t4-w2", 4, 2, -1, -1, 6.1, 4),
		ROW("t4-w1", 4, 1, -1, -1, 5.0, 3),
	};
	struct cpl_verdict v;

	cpl_verdict_judge(&v, r, 3, 10);
	ck_assert(!v.by_throughput);
	ck_assert_int_eq(v.best, 1);	/* under 10%, most CPU */
	ck_assert_ptr_nonnull(strstr(line(&v, "best"),
		"ranked by throttling, then CPU use (no --throughput figure)"));
	ck_assert_ptr_null(line(&v, "workers"));
	cpl_verdict_free(&v);
}
END_TEST

START_TEST(all_throttled_least_wins)
{
	const struct cpl_verdict_row r[] = {
		ROW("a", 4, 4, -1, -1, 7.9, 31),
		ROW("b", 4, 2, -1, -1, 7.5, 12),
	};
	struct cpl_verdict v;

	cpl_verdict_judge(&v, r, 2, 10);
	ck_assert_int_eq(v.best, 1);
	cpl_verdict_free(&v);
	cpl_verdict_judge(&v, r, 0, 10);
	ck_assert_int_eq(v.best, -1);
	ck_assert_uint_eq(v.nlines, 0);
	cpl_verdict_free(&v);
}
END_TEST

/* The lab's 1-CPU image job (issue 34): the winner's gain over the job
 * as written, which the plan runs as "t2-w4-current". */
/* A setting run several times (plan --repeat): its figure is the median
 * of its runs, and the best line says so with their range; one run
 * says nothing of runs. */
START_TEST(best_of_runs)
{
	struct cpl_verdict_row r[] = {
		ROW("t4-w1", 4, 1, 560, 0.10, 5.0, 3),
		ROW("t4-w2", 4, 2, 800, 0.03, 6.1, 4),
	};
	struct cpl_verdict v;

	r[0].runs = 3;
	r[0].throughput_min = 540;
	r[0].throughput_max = 900;
	r[1].runs = 3;
	r[1].throughput_min = 790;
	r[1].throughput_max = 810;
	cpl_verdict_judge(&v, r, 2, 10);
	ck_assert_int_eq(v.best, 1);
	ck_assert_str_eq(line(&v, "best"), "best: t4-w2 (4 threads, 2 "
		"workers): 800 examples/s, the median of 3 runs (790 to 810)");
	cpl_verdict_free(&v);
	r[1].runs = 1;
	cpl_verdict_judge(&v, r, 2, 10);
	ck_assert_ptr_null(strstr(line(&v, "best"), "runs"));
	cpl_verdict_free(&v);
}
END_TEST

START_TEST(gain_over_current)
{
	const struct cpl_verdict_row r[] = {
		ROW("t1-w0", 1, 0, 409, 0.40, 0.98, 2),
		ROW("t1-w1", 1, 1, 373, 0.30, 0.99, 5),
		ROW("t1-w2", 1, 2, 449, 0.20, 0.99, 8),
		ROW("t2-w4-current", 2, 4, 218, 0.10, 1.0, 90),
	};
	struct cpl_verdict_row mine[] = {
		ROW("t1-w2", 1, 2, 449, 0.20, 0.99, 8),
		ROW("t2-w4-current", 2, 4, 452, 0.10, 1.0, 90),
	};
	struct cpl_verdict v;

	cpl_verdict_judge(&v, r, 4, 10);
	ck_assert_int_eq(v.best, 2);
	ck_assert_str_eq(line(&v, "gain"), "t1-w2: 2.06x your t2-w4 (449 "
			 "against 218 examples/s)");
	cpl_verdict_free(&v);
	/* no current run: nothing to say */
	cpl_verdict_judge(&v, r, 3, 10);
	ck_assert_ptr_null(line(&v, "gain"));
	cpl_verdict_free(&v);
	/* the job as written wins (a tie goes to fewer threads, so it
	 * must be clearly ahead): keep it */
	mine[1].throughput = 600;
	cpl_verdict_judge(&v, mine, 2, 10);
	ck_assert_int_eq(v.best, 1);
	ck_assert_str_eq(line(&v, "gain"), "your t2-w4 is the best of "
			 "these: keep it (600 examples/s, 1.34x t1-w2)");
	cpl_verdict_free(&v);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("verdict");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, gain_over_current);
	tcase_add_test(tc, best_of_runs);
	tcase_add_test(tc, more_workers_no_gain);
	tcase_add_test(tc, more_workers_with_gain_is_no_verdict);
	tcase_add_test(tc, more_workers_later_gain_is_no_verdict);
	tcase_add_test(tc, ties_go_to_fewer_threads);
	tcase_add_test(tc, storage_before_threads);
	tcase_add_test(tc, without_throughput);
	tcase_add_test(tc, all_throttled_least_wins);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(suite)
