/*
 * test_measured.c — the live rules over measured containers, through the
 * engine: CPU501 names its source and window, CPU502 (threads over the
 * spec plus the helper allowance, while throttled) and CPU503 (CPU used
 * within 5% of the limit, while throttled) fire and stay silent where
 * they should, and the budget entry carries the measurement.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kube/prometheus.h"
#include "live/livemeasure_int.h"
#include "model/finding.h"
#include "model/rule.h"
#include "model/workload.h"
#include "run/engine.h"
#include "util.h"

/* A live Pod: one training container, limit 8, OMP_NUM_THREADS=16,
 * one rank, workers unknown: 1 x (16 + 1) = 17 busy, allowance
 * 1 x (8 + 1) + 8 = 17, so 34 threads are accounted for. */
static struct cpl_workload *
pod(const char *source, double threads, double cpus, double pct,
    double window)
{
	struct cpl_workload *w = cpl_workload_new(CPL_SRC_LIVE, NULL);
	struct cpl_container *c = cpl_workload_add_container(w);
	struct cpl_pos nowhere = { NULL, 0, 0 };

	w->kind = cpl_xstrdup("Pod");
	w->name = cpl_xstrdup("train-0");
	w->object = cpl_xstrdup("pod/ml/train-0");
	c->name = cpl_xstrdup("pytorch");
	c->run_container = true;
	c->cpu_limit = 8000;
	c->cpu_request = 8000;
	cpl_container_set_env(c, "OMP_NUM_THREADS", "16", nowhere);
	c->measure_source = source;
	c->measure_window = window;
	c->since_start = window == 0;
	c->threads_now = threads;
	c->cpu_used = cpus;
	c->throttle = pct >= 0 ? CPL_THROTTLE_MEASURED :
		      CPL_THROTTLE_UNAVAILABLE;
	c->throttled_pct = pct;
	c->window_seconds = window;
	return w;
}

/* The message of rule id, or NULL. */
static const char *
message_of(struct cpl_engine *e, const char *id)
{
	const struct cpl_finding *f;
	size_t n, i;

	f = cpl_engine_findings(e, &n);
	for (i = 0; i < n; i++)
		if (strcmp(f[i].rule->id, id) == 0)
			return f[i].message;
	return NULL;
}

static struct cpl_engine *
run(struct cpl_workload *w)
{
	struct cpl_engine *e = cpl_engine_new();

	cpl_engine_add_workload(e, w);
	cpl_engine_run(e);
	return e;
}

START_TEST(firing_prometheus)
{
	struct cpl_engine *e = run(pod("prometheus", 50, 7.7, 38.2, 3600));
	const struct cpl_budget_entry *b;
	size_t n;

	ck_assert_str_eq(message_of(e, "CPU501"),
		"throttled in 38.2% of CFS periods over the last 1h (from "
		"Prometheus; threshold 10%)");
	ck_assert_str_eq(message_of(e, "CPU502"),
		"50 threads measured (Prometheus, over the last 1h) where "
		"the spec accounts for 34: 1 rank x (16 threads + 1 worker) "
		"= 17 busy plus 17 runtime helper threads; throttled in "
		"38.2% of periods (threshold 10%)");
	ck_assert_str_eq(message_of(e, "CPU503"),
		"used 7.70 CPUs of its 8-CPU limit (96%) over the last 1h "
		"and was throttled in 38.2% of periods (from Prometheus; "
		"threshold 10%): it is bound by its CPU limit");
	b = cpl_engine_budgets(e, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert(b[0].measured);
	ck_assert_str_eq(b[0].source, "prometheus");
	ck_assert_double_eq(b[0].window_s, 3600);
	ck_assert_double_eq(b[0].m_threads, 50);
	ck_assert_double_eq(b[0].cpu_used, 7.7);
	ck_assert_double_eq(b[0].throttled_pct, 38.2);
	cpl_engine_free(e);
}
END_TEST

START_TEST(silent_within)
{
	/* 34 threads (the allowance exactly), 7.5 CPUs (94%): neither. */
	struct cpl_engine *e = run(pod("cadvisor", 34, 7.5, 38.2, 0));

	ck_assert_ptr_nonnull(message_of(e, "CPU501"));
	ck_assert_str_eq(message_of(e, "CPU501"),
		"throttled in 38.2% of CFS periods since it started (from "
		"cAdvisor; threshold 10%)");
	ck_assert_ptr_null(message_of(e, "CPU502"));
	ck_assert_ptr_null(message_of(e, "CPU503"));
	cpl_engine_free(e);
}
END_TEST

START_TEST(silent_unthrottled)
{
	/* Many threads and a full limit, but throttled only 5%. */
	struct cpl_engine *e = run(pod("cadvisor", 500, 8.0, 5, 30));

	ck_assert_ptr_null(message_of(e, "CPU501"));
	ck_assert_ptr_null(message_of(e, "CPU502"));
	ck_assert_ptr_null(message_of(e, "CPU503"));
	cpl_engine_free(e);
}
END_TEST

START_TEST(unmeasured)
{
	struct cpl_engine *e = run(pod(NULL, -1, -1, -1, 0));
	const struct cpl_budget_entry *b;
	size_t n;

	ck_assert_ptr_null(message_of(e, "CPU501"));
	ck_assert_ptr_null(message_of(e, "CPU502"));
	ck_assert_ptr_null(message_of(e, "CPU503"));
	b = cpl_engine_budgets(e, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert(!b[0].measured);
	cpl_engine_free(e);
}
END_TEST

START_TEST(window_clamped_to_the_time_it_has_run)
{
	/* A container that has run 10 minutes, measured by Prometheus over
	 * those 10 minutes, not --window's hour: the messages and the
	 * budget entry say so. */
	struct cpl_workload *w = pod("prometheus", 50, 7.7, 38.2, 600);
	struct cpl_engine *e;
	const struct cpl_budget_entry *b;
	size_t n;

	w->containers[0].window_clamped = true;
	w->containers[0].measure_notes = cpl_xstrdup("first\nsecond");
	e = run(w);
	ck_assert_str_eq(message_of(e, "CPU501"),
		"throttled in 38.2% of CFS periods over the 10 min it has "
		"run (from Prometheus; threshold 10%)");
	ck_assert_ptr_nonnull(strstr(message_of(e, "CPU503"),
				     "of its 8-CPU limit (96%) over the 10 min "
				     "it has run"));
	b = cpl_engine_budgets(e, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert(b[0].window_clamped);
	ck_assert_double_eq(b[0].window_s, 600);
	ck_assert_str_eq(b[0].measure_notes, "first\nsecond");
	cpl_engine_free(e);
}
END_TEST

START_TEST(window_of_a_young_container)
{
	double now = 1741684479;	/* 2025-03-11T09:14:39Z */
	bool clamped;

	/* Run 10 min of a 1 h window: 600 s. */
	ck_assert_double_eq(cpl_livemeasure_window(&clamped, 3600, now - 600,
						   now), 600);
	ck_assert(clamped);
	/* Two significant figures, rounded down: 613 s → 610 s, 20.7 s →
	 * 20 s; at least 1 s. */
	ck_assert_double_eq(cpl_livemeasure_window(&clamped, 3600, now - 613,
						   now), 610);
	ck_assert_double_eq(cpl_livemeasure_window(&clamped, 3600,
						   now - 20.7, now), 20);
	ck_assert_double_eq(cpl_livemeasure_window(&clamped, 3600, now - 0.3,
						   now), 1);
	ck_assert(clamped);
	/* Longer than the window, unknown start, a start ahead of our
	 * clock: the window as asked. */
	ck_assert_double_eq(cpl_livemeasure_window(&clamped, 3600,
						   now - 3600, now), 3600);
	ck_assert(!clamped);
	ck_assert_double_eq(cpl_livemeasure_window(&clamped, 60, 0, now), 60);
	ck_assert(!clamped);
	ck_assert_double_eq(cpl_livemeasure_window(&clamped, 60, now + 5,
						   now), 60);
	ck_assert(!clamped);
}
END_TEST

START_TEST(promql)
{
	static const char *const pods[] = { "train-0", "a.b\"c" };
	char *q = cpl_prometheus_promql("cpu", "ml", pods, 2, 1800);

	ck_assert_str_eq(q, "sum by (namespace, pod, container) "
		"(rate(container_cpu_usage_seconds_total{namespace=\"ml\","
		"pod=~\"train-0|a\\\\.b\\\"c\",container!=\"\","
		"container!=\"POD\",cpu=~\"total|\"}[1800s]))");
	free(q);
	q = cpl_prometheus_promql("threads", "ml", pods, 1, 3600);
	ck_assert_str_eq(q, "max by (namespace, pod, container) "
		"(max_over_time(container_threads{namespace=\"ml\","
		"pod=~\"train-0\",container!=\"\",container!=\"POD\"}"
		"[3600s]))");
	free(q);
	q = cpl_prometheus_promql("throttled", "ml", pods, 1, 60);
	ck_assert_ptr_nonnull(strstr(q, "rate(container_cpu_cfs_throttled_"
		"periods_total{namespace=\"ml\",pod=~\"train-0\","
		"container!=\"\",container!=\"POD\"}[60s])) / sum by "
		"(namespace, pod, container) (rate(container_cpu_cfs_periods_"
		"total{"));
	free(q);
	/* What notes name a query by. */
	q = cpl_prometheus_expr("throttled", 600);
	ck_assert_str_eq(q, "rate(container_cpu_cfs_throttled_periods_total"
			 "[600s]) / rate(container_cpu_cfs_periods_total"
			 "[600s])");
	free(q);
	q = cpl_prometheus_expr("threads", 20.2);
	ck_assert_str_eq(q, "max_over_time(container_threads[20s])");
	free(q);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("measured");
	TCase *tc = tcase_create("rules");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, firing_prometheus);
	tcase_add_test(tc, silent_within);
	tcase_add_test(tc, silent_unthrottled);
	tcase_add_test(tc, unmeasured);
	tcase_add_test(tc, window_clamped_to_the_time_it_has_run);
	tcase_add_test(tc, window_of_a_young_container);
	tcase_add_test(tc, promql);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
