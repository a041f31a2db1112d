/*
 * test_cadvisor.c — the Prometheus text reader for CFS throttling
 * counters: sums per (namespace, pod, container), label escapes,
 * comments, timestamps, legacy label names, errors with positions, and a
 * large input that makes the hash table grow.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/cadvisor.h"

/* Parses text, failing the test on error. */
static struct cpl_cadvisor *
parse_ok(const char *text)
{
	struct cpl_cadvisor *m = NULL;
	struct cpl_error err = { 0 };

	ck_assert_msg(cpl_cadvisor_parse(&m, text, strlen(text), "metrics",
					 &err) == 0,
		      "parse failed: %s", err.message ? err.message : "");
	cpl_error_clear(&err);
	return m;
}

/* Parses text expecting an error; returns "line:col: message". */
static char *
parse_bad(const char *text)
{
	struct cpl_cadvisor *m = NULL;
	struct cpl_error err = { 0 };
	char *s;

	ck_assert_int_eq(cpl_cadvisor_parse(&m, text, strlen(text), "metrics",
					    &err), -1);
	ck_assert_ptr_null(m);
	s = cpl_error_format(&err);
	cpl_error_clear(&err);
	return s;
}

START_TEST(sums_per_container)
{
	const char *text =
		"# HELP container_cpu_cfs_periods_total Number of elapsed "
		"enforcement period intervals.\n"
		"# TYPE container_cpu_cfs_periods_total counter\n"
		"container_cpu_cfs_periods_total{container=\"train\",id=\"/a\","
		"namespace=\"ml\",pod=\"train-0\"} 1000 1700000000000\n"
		"container_cpu_cfs_periods_total{container=\"train\",id=\"/b\","
		"namespace=\"ml\",pod=\"train-0\"} 500 1700000000000\n"
		"container_cpu_cfs_periods_total{container=\"\",id=\"/pod\","
		"namespace=\"ml\",pod=\"train-0\"} 1500\n"
		"container_cpu_cfs_periods_total{container=\"train\","
		"namespace=\"ml\",pod=\"train-1\"} 2000\n"
		"# TYPE container_cpu_cfs_throttled_periods_total counter\n"
		"container_cpu_cfs_throttled_periods_total{container=\"train\","
		"id=\"/a\",namespace=\"ml\",pod=\"train-0\"} 400\n"
		"container_cpu_cfs_throttled_periods_total{container=\"train\","
		"id=\"/b\",namespace=\"ml\",pod=\"train-0\"} 200\n"
		"container_cpu_cfs_throttled_seconds_total{container=\"train\","
		"namespace=\"ml\",pod=\"train-0\"} 99999\n";
	struct cpl_cadvisor *m = parse_ok(text);
	const struct cpl_cadvisor_counters *c;

	ck_assert_uint_eq(cpl_cadvisor_count(m), 3);
	c = cpl_cadvisor_find(m, "ml", "train-0", "train");
	ck_assert_ptr_nonnull(c);
	ck_assert_double_eq(c->periods, 1500);
	ck_assert_double_eq(c->throttled_periods, 600);
	ck_assert(c->has_periods && c->has_throttled);
	c = cpl_cadvisor_find(m, "ml", "train-0", "");
	ck_assert_ptr_nonnull(c);
	ck_assert_double_eq(c->periods, 1500);
	ck_assert(!c->has_throttled);
	c = cpl_cadvisor_find(m, "ml", "train-1", "train");
	ck_assert_double_eq(c->periods, 2000);
	ck_assert_double_eq(c->throttled_periods, 0);
	ck_assert_ptr_null(cpl_cadvisor_find(m, "ml", "train-2", "train"));
	ck_assert_ptr_null(cpl_cadvisor_find(m, "other", "train-0", "train"));
	/* order of first appearance */
	ck_assert_str_eq(cpl_cadvisor_at(m, 0)->container, "train");
	ck_assert_str_eq(cpl_cadvisor_at(m, 1)->container, "");
	ck_assert_str_eq(cpl_cadvisor_at(m, 2)->pod, "train-1");
	ck_assert_ptr_null(cpl_cadvisor_at(m, 3));
	cpl_cadvisor_free(m);
}
END_TEST

START_TEST(threads_and_cpu_usage)
{
	const char *text =
		"container_threads{container=\"train\",namespace=\"ml\","
		"pod=\"t-0\"} 97 1733050000000\n"
		"container_cpu_usage_seconds_total{container=\"train\","
		"cpu=\"total\",namespace=\"ml\",pod=\"t-0\"} 120.5\n"
		"container_cpu_usage_seconds_total{container=\"old\","
		"cpu=\"cpu00\",namespace=\"ml\",pod=\"t-0\"} 10\n"
		"container_cpu_usage_seconds_total{container=\"old\","
		"cpu=\"cpu01\",namespace=\"ml\",pod=\"t-0\"} 5\n"
		"container_cpu_usage_seconds_total{container=\"both\","
		"cpu=\"cpu00\",namespace=\"ml\",pod=\"t-0\"} 10\n"
		"container_cpu_usage_seconds_total{container=\"both\","
		"cpu=\"total\",namespace=\"ml\",pod=\"t-0\"} 30\n"
		"container_cpu_usage_seconds_total{container=\"both\","
		"cpu=\"cpu01\",namespace=\"ml\",pod=\"t-0\"} 20\n"
		"container_threads_max{container=\"train\",namespace=\"ml\","
		"pod=\"t-0\"} 4096\n"
		"container_threads_max{container=\"\",namespace=\"ml\","
		"pod=\"t-0\"} 1024\n"
		"container_threads_max{container=\"\",namespace=\"ml\","
		"pod=\"t-0\",id=\"/x\"} 2048\n";
	struct cpl_cadvisor *m = parse_ok(text);
	const struct cpl_cadvisor_counters *c;

	c = cpl_cadvisor_find(m, "ml", "t-0", "train");
	ck_assert_ptr_nonnull(c);
	ck_assert(c->has_threads);
	ck_assert_double_eq(c->threads, 97);
	ck_assert(c->has_cpu_seconds);
	ck_assert_double_eq(c->cpu_seconds, 120.5);
	ck_assert(!c->has_periods);
	/* pids.max: the container's, and the Pod cgroup's smallest. */
	ck_assert(c->has_threads_max);
	ck_assert_double_eq(c->threads_max, 4096);
	c = cpl_cadvisor_find(m, "ml", "t-0", "");
	ck_assert_ptr_nonnull(c);
	ck_assert(c->has_threads_max);
	ck_assert_double_eq(c->threads_max, 1024);
	ck_assert(!c->has_threads);
	c = cpl_cadvisor_find(m, "ml", "t-0", "old");
	ck_assert_double_eq(c->cpu_seconds, 15);
	ck_assert(!c->has_threads);
	c = cpl_cadvisor_find(m, "ml", "t-0", "both");
	ck_assert_double_eq(c->cpu_seconds, 30);
	cpl_cadvisor_free(m);
}
END_TEST

START_TEST(escapes_in_label_values)
{
	const char *text =
		"container_cpu_cfs_periods_total{image=\"x{y}\\\"z,\","
		"namespace=\"a\\\\b\",pod=\"p\\\"q\",container=\"c\\nd\"} 7\n"
		"container_cpu_cfs_throttled_periods_total{"
		"namespace=\"a\\\\b\","
		"pod=\"p\\\"q\",container=\"c\\nd\",} 3\n";
	struct cpl_cadvisor *m = parse_ok(text);
	const struct cpl_cadvisor_counters *c;

	ck_assert_uint_eq(cpl_cadvisor_count(m), 1);
	c = cpl_cadvisor_find(m, "a\\b", "p\"q", "c\nd");
	ck_assert_ptr_nonnull(c);
	ck_assert_double_eq(c->periods, 7);
	ck_assert_double_eq(c->throttled_periods, 3);
	cpl_cadvisor_free(m);
}
END_TEST

START_TEST(format_details)
{
	/* CRLF, blank lines, spaces around labels, exponent values, a
	 * negative timestamp, NaN (ignored), a sample without labels and
	 * system cgroups without pod labels (ignored), a name that only
	 * starts like ours. */
	const char *text =
		"\r\n"
		"\n"
		"   # a comment with container_cpu_cfs_periods_total{ in it\n"
		"container_cpu_cfs_periods_total { namespace = \"ml\" , "
		"pod=\"p\", container=\"c\" } 1.234567e+06 -5\r\n"
		"container_cpu_cfs_periods_total{namespace=\"ml\",pod=\"p\","
		"container=\"c\"} NaN\n"
		"container_cpu_cfs_periods_total 42\n"
		"container_cpu_cfs_periods_total{id=\"/system.slice\"} 42\n"
		"container_cpu_cfs_periods_totalx{namespace=\"ml\",pod=\"p\","
		"container=\"c\"} 42\n"
		"container_cpu_cfs_throttled_periods_total{namespace=\"ml\","
		"pod=\"p\",container=\"c\"}\t+4.5e+05\n"
		"container_cpu_cfs_throttled_periods_total{namespace=\"ml\","
		"pod=\"p\",container=\"c\"} 0";	/* no final newline */
	struct cpl_cadvisor *m = parse_ok(text);
	const struct cpl_cadvisor_counters *c;

	ck_assert_uint_eq(cpl_cadvisor_count(m), 1);
	c = cpl_cadvisor_find(m, "ml", "p", "c");
	ck_assert_ptr_nonnull(c);
	ck_assert_double_eq(c->periods, 1234567);
	ck_assert_double_eq(c->throttled_periods, 450000);
	cpl_cadvisor_free(m);
}
END_TEST

START_TEST(out_of_range_samples_and_node_cpus)
{
	/* NaN, +Inf and negative samples are left out of their sums and
	 * mark the metric bad for their container (the caller says it is
	 * unknown); machine_cpu_cores (with or without labels) is the
	 * node's CPU count. */
	const char *text =
		"machine_cpu_cores{boot_id=\"b\",machine_id=\"m\"} 32\n"
		"container_threads{namespace=\"ml\",pod=\"p\",container=\"a\"}"
		" +Inf\n"
		"container_cpu_usage_seconds_total{namespace=\"ml\",pod=\"p\","
		"container=\"a\",cpu=\"total\"} -3\n"
		"container_cpu_cfs_periods_total{namespace=\"ml\",pod=\"p\","
		"container=\"a\"} 100\n"
		"container_cpu_cfs_throttled_periods_total{namespace=\"ml\","
		"pod=\"p\",container=\"a\"} NaN\n"
		"container_threads{namespace=\"ml\",pod=\"p\",container=\"b\"}"
		" 12\n";
	struct cpl_cadvisor *m = parse_ok(text);
	const struct cpl_cadvisor_counters *a, *b;

	ck_assert_double_eq(cpl_cadvisor_machine_cpus(m), 32);
	a = cpl_cadvisor_find(m, "ml", "p", "a");
	b = cpl_cadvisor_find(m, "ml", "p", "b");
	ck_assert_ptr_nonnull(a);
	ck_assert_uint_eq(a->bad, CPL_CADVISOR_BAD_THREADS |
			  CPL_CADVISOR_BAD_CPU | CPL_CADVISOR_BAD_THROTTLED);
	ck_assert(!a->has_threads && !a->has_cpu_seconds);
	ck_assert(a->has_periods);
	ck_assert_double_eq(a->periods, 100);
	ck_assert_uint_eq(b->bad, 0);
	ck_assert_double_eq(b->threads, 12);
	cpl_cadvisor_free(m);
	m = parse_ok("machine_cpu_cores 8\n");
	ck_assert_double_eq(cpl_cadvisor_machine_cpus(m), 8);
	cpl_cadvisor_free(m);
	m = parse_ok("container_threads{namespace=\"ml\",pod=\"p\"} 1\n");
	ck_assert_double_eq(cpl_cadvisor_machine_cpus(m), 0);
	cpl_cadvisor_free(m);
}
END_TEST

START_TEST(legacy_label_names)
{
	/* Kubernetes before 1.16: pod_name and container_name. */
	const char *text =
		"container_cpu_cfs_periods_total{container_name=\"app\","
		"namespace=\"ns\",pod_name=\"web-1\"} 10\n"
		"container_cpu_cfs_throttled_periods_total{"
		"container_name=\"POD\","
		"namespace=\"ns\",pod_name=\"web-1\"} 1\n";
	struct cpl_cadvisor *m = parse_ok(text);

	ck_assert_uint_eq(cpl_cadvisor_count(m), 2);
	ck_assert_double_eq(cpl_cadvisor_find(m, "ns", "web-1",
					      "app")->periods, 10);
	ck_assert_double_eq(cpl_cadvisor_find(m, "ns", "web-1",
					      "POD")->throttled_periods, 1);
	cpl_cadvisor_free(m);
}
END_TEST

START_TEST(empty_input)
{
	struct cpl_cadvisor *m = parse_ok("");

	ck_assert_uint_eq(cpl_cadvisor_count(m), 0);
	ck_assert_ptr_null(cpl_cadvisor_find(m, "a", "b", "c"));
	cpl_cadvisor_free(m);
	cpl_cadvisor_free(NULL);
}
END_TEST

START_TEST(errors_name_line_and_column)
{
	char *s;

	s = parse_bad("# ok\ncontainer_cpu_cfs_periods_total{pod=\"p} 1\n");
	ck_assert_str_eq(s, "metrics:2:42: malformed metrics sample: "
			 "unterminated label value");
	free(s);
	s = parse_bad("container_cpu_cfs_periods_total{pod=\"p\"} many\n");
	ck_assert_str_eq(s, "metrics:1:42: malformed metrics sample: "
			 "expected a number");
	free(s);
	s = parse_bad("container_cpu_cfs_periods_total{pod=\"a\\tb\"} 1\n");
	ck_assert_str_eq(s, "metrics:1:39: malformed metrics sample: "
			 "unknown escape in a label value");
	free(s);
	s = parse_bad("container_cpu_cfs_periods_total{pod=\"p\" x} 1\n");
	ck_assert_str_eq(s, "metrics:1:41: malformed metrics sample: "
			 "expected ',' or '}' after a label");
	free(s);
	s = parse_bad("container_cpu_cfs_periods_total{pod} 1\n");
	ck_assert_str_eq(s, "metrics:1:36: malformed metrics sample: "
			 "expected '=' after a label name");
	free(s);
	s = parse_bad("container_cpu_cfs_throttled_periods_total{} 1 12 x\n");
	ck_assert_str_eq(s, "metrics:1:50: malformed metrics sample: "
			 "unexpected text after the sample");
	free(s);
	/* Lines of other metrics are never parsed, so cannot fail. */
	{
		struct cpl_cadvisor *m =
			parse_ok("other_metric{x=\"unterminated} ???\n");

		ck_assert_uint_eq(cpl_cadvisor_count(m), 0);
		cpl_cadvisor_free(m);
	}
}
END_TEST

START_TEST(many_containers)
{
	struct cpl_buf b;
	struct cpl_cadvisor *m;
	struct cpl_error err = { 0 };
	int i;

	cpl_buf_init(&b, 0);
	for (i = 0; i < 20000; i++) {
		cpl_buf_addf(&b, "container_cpu_cfs_periods_total{namespace="
			     "\"ns-%d\",pod=\"pod-%d\",container=\"c\"} %d\n",
			     i % 7, i, i);
		cpl_buf_addf(&b, "container_cpu_cfs_throttled_periods_total{"
			     "namespace=\"ns-%d\",pod=\"pod-%d\",container="
			     "\"c\"} %d\n", i % 7, i, i / 2);
	}
	ck_assert_int_eq(cpl_cadvisor_parse(&m, b.data, b.len, "big", &err),
			 0);
	ck_assert_uint_eq(cpl_cadvisor_count(m), 20000);
	for (i = 0; i < 20000; i += 997) {
		char ns[32], pod[32];
		const struct cpl_cadvisor_counters *c;

		snprintf(ns, sizeof(ns), "ns-%d", i % 7);
		snprintf(pod, sizeof(pod), "pod-%d", i);
		c = cpl_cadvisor_find(m, ns, pod, "c");
		ck_assert_ptr_nonnull(c);
		ck_assert_double_eq(c->periods, i);
		ck_assert_double_eq(c->throttled_periods, i / 2);
	}
	cpl_cadvisor_free(m);
	cpl_buf_free(&b);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("cadvisor");
	TCase *tc = tcase_create("parse");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, sums_per_container);
	tcase_add_test(tc, threads_and_cpu_usage);
	tcase_add_test(tc, escapes_in_label_values);
	tcase_add_test(tc, format_details);
	tcase_add_test(tc, out_of_range_samples_and_node_cpus);
	tcase_add_test(tc, legacy_label_names);
	tcase_add_test(tc, empty_input);
	tcase_add_test(tc, errors_name_line_and_column);
	tcase_add_test(tc, many_containers);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
