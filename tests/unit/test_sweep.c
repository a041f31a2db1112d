/*
 * test_sweep.c — the settings of a plan (lib/plan/sweep_int.h): one knob at a
 * time around the suggestion, inside the per-rank budget, capped by
 * --max, threads only when the workers cannot be set.
 */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "plan/sweep_int.h"

static size_t
make(struct cpl_sweep_setting *s, long b, long t, long w, long max,
     bool set_workers)
{
	struct cpl_sweep_in in = { .per_rank = b, .threads = t, .workers = w,
				   .max = max, .set_workers = set_workers };

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

/* One setting's knobs and id. */
static void
is(const struct cpl_sweep_setting *s, long t, long w, const char *id)
{
	ck_assert_int_eq(s->threads, t);
	ck_assert_int_eq(s->workers, w);
	ck_assert_str_eq(s->id, id);
}

/* The lab's 1-CPU image job (issue 34): the decoding split t1-w2, then
 * workers below and past the budget; the job as written (t2-w4) last. */
START_TEST(loader_workers_past_the_budget)
{
	struct cpl_sweep_setting s[CPL_SWEEP_MAX];
	struct cpl_sweep_in in = { .per_rank = 1, .threads = 1, .workers = 2,
				   .set_workers = true, .loader = true,
				   .cur_threads = 2, .cur_workers = 4 };
	size_t n = cpl_sweep_make(s, &in);

	ck_assert_uint_eq(n, 5);
	is(&s[0], 1, 2, "t1-w2");
	is(&s[1], 1, 0, "t1-w0");
	is(&s[2], 1, 1, "t1-w1");
	is(&s[3], 1, 4, "t1-w4");
	is(&s[4], 2, 4, "t2-w4-current");
	ck_assert_int_eq(s[4].knob, CPL_SWEEP_CURRENT);
	/* the old split's t1-w0 under 1 CPU reaches t1-w2 too */
	in.workers = 0;
	n = cpl_sweep_make(s, &in);
	ck_assert_uint_eq(n, 4);
	is(&s[0], 1, 0, "t1-w0");
	is(&s[2], 1, 2, "t1-w2");
	/* 4 CPUs, 2 + 2: workers up to 2 + max(2, 4 / 2) = 4 */
	in = (struct cpl_sweep_in){ .per_rank = 4, .threads = 2, .workers = 2,
				    .set_workers = true, .loader = true };
	n = cpl_sweep_make(s, &in);
	ck_assert_uint_eq(n, 5);	/* t2-w2 t1-w2 t2-w0 t2-w1 t2-w4 */
	is(&s[4], 2, 4, "t2-w4");
	/* --max still caps */
	in.max = 2;
	ck_assert_uint_eq(cpl_sweep_make(s, &in), 4);
}
END_TEST

/* A DataLoader given persistent_workers=True takes no num_workers=0:
 * no setting has fewer than one worker, the suggestion included. */
START_TEST(workers_floor)
{
	struct cpl_sweep_setting s[CPL_SWEEP_MAX];
	struct cpl_sweep_in in = { .per_rank = 2, .threads = 1, .workers = 0,
				   .set_workers = true, .loader = true,
				   .min_workers = 1 };
	size_t n = cpl_sweep_make(s, &in), i;

	is(&s[0], 1, 1, "t1-w1");
	for (i = 0; i < n; i++)
		ck_assert_int_ge(s[i].workers, 1);
	/* the threads keep the worker's share: 2 - 1 leaves one */
	ck_assert_uint_eq(n, 3);
	is(&s[1], 1, 2, "t1-w2");
	is(&s[2], 1, 3, "t1-w3");
	/* without the floor the same input plans t1-w0 */
	in.min_workers = 0;
	cpl_sweep_make(s, &in);
	is(&s[0], 1, 0, "t1-w0");
}
END_TEST

/* The current setting: added once, only when known and not planned. */
START_TEST(current_setting)
{
	struct cpl_sweep_setting s[CPL_SWEEP_MAX];
	struct cpl_sweep_in in = { .per_rank = 8, .threads = 4, .workers = 4,
				   .set_workers = true, .cur_threads = 4,
				   .cur_workers = 0 };

	ck_assert_uint_eq(cpl_sweep_make(s, &in), 6);	/* t4-w0 planned */
	in.cur_workers = -1;				/* not known */
	ck_assert_uint_eq(cpl_sweep_make(s, &in), 6);
	in.cur_threads = 0;
	in.cur_workers = 8;
	ck_assert_uint_eq(cpl_sweep_make(s, &in), 6);
	in.cur_threads = 16;
	ck_assert_uint_eq(cpl_sweep_make(s, &in), 7);
	is(&s[6], 16, 8, "t16-w8-current");
	/* --max: no knob above it, the job's own included */
	in.max = 8;
	ck_assert_uint_eq(cpl_sweep_make(s, &in), 6);
	in.max = 0;
	/* threads only: the workers as written are not the plan's */
	in.set_workers = false;
	ck_assert_uint_eq(cpl_sweep_make(s, &in), 4);
	is(&s[3], 16, -1, "t16-current");
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
	tcase_add_test(tc, workers_floor);
	tcase_add_test(tc, no_budget_no_sweep);
	tcase_add_test(tc, loader_workers_past_the_budget);
	tcase_add_test(tc, current_setting);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(suite)
