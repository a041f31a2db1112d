/*
 * test_budgets.c — the budget entries the reporters render: the text
 * --budget table and measured lines, JSON "budgets" field by field, SARIF
 * run properties; and the engine's entries for a static file (every
 * training container, clean or not).
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/finding.h"
#include "model/rule.h"
#include "report/report.h"
#include "run/engine.h"
#include "util.h"

static const struct cpl_rule rule_t = {
	.id = "CPU905",
	.name = "test-throttled",
	.severity = CPL_SEV_WARNING,
	.summary = "Test rule.",
};

/* A static entry: limit 4 (request 2), 4 x (1 + 2) = 12 busy. */
static void
mk_static(struct cpl_budget_entry *b)
{
	memset(b, 0, sizeof(*b));
	b->object = cpl_xstrdup("Polyaxon job/x");
	b->container = cpl_xstrdup("polyaxon-main");
	b->file = cpl_xstrdup("polyaxonfile.yaml");
	b->line = 7;
	b->cpu_request = 2;
	b->cpu_limit = 4;
	b->ranks = 4;
	b->threads = 1;
	b->workers = 2;
	b->busy = 12;
	b->per_rank = 1;
	b->suggested_threads = 1;
	b->suggested_workers = 0;
	b->how_cpu.text = cpl_xstrdup("resources.limits.cpu 4");
	b->how_cpu.file = cpl_xstrdup("polyaxonfile.yaml");
	b->how_cpu.line = 20;
	b->how_cpu.column = 14;
	b->m_threads = -1;
	b->cpu_used = -1;
	b->throttled_pct = -1;
}

/* A live entry with measurements, unknown workers. */
static void
mk_live(struct cpl_budget_entry *b)
{
	memset(b, 0, sizeof(*b));
	b->object = cpl_xstrdup("pod/ml/train-0");
	b->container = cpl_xstrdup("trainer");
	b->cpu_request = 0.5;
	b->cpu_limit = -1;
	b->ranks = 1;
	b->threads = 8;
	b->workers = -1;
	b->busy = -1;
	b->per_rank = -1;
	b->suggested_threads = -1;
	b->suggested_workers = -1;
	b->measured = true;
	b->source = "cadvisor";
	b->window_s = 30;
	b->m_threads = 97;
	b->cpu_used = 3.9;
	b->throttled_pct = 42;
}

static char *
render(const char *format, const struct cpl_report_meta *meta,
       const struct cpl_finding *fs, size_t n)
{
	const struct cpl_reporter *r = cpl_reporter_find(format);
	char *buf = NULL;
	size_t len = 0, i;
	FILE *fp = open_memstream(&buf, &len);
	void *st;

	ck_assert_ptr_nonnull(fp);
	st = r->begin(fp, meta);
	for (i = 0; i < n; i++)
		r->emit(st, &fs[i]);
	ck_assert_int_eq(r->end(st), 0);
	ck_assert_int_eq(fclose(fp), 0);
	return buf;
}

START_TEST(text_table_and_measured)
{
	struct cpl_budget_entry b[3];
	struct cpl_report_meta m;
	struct cpl_finding f;
	char *out;

	mk_live(&b[0]);
	mk_live(&b[1]);
	free(b[1].container);
	b[1].container = cpl_xstrdup("helper");
	b[1].m_threads = 1;
	b[1].cpu_used = -1;
	b[1].throttled_pct = -1;
	b[1].window_s = 7200;
	b[1].since_start = true;
	mk_static(&b[2]);
	memset(&m, 0, sizeof(m));
	m.budgets = b;
	m.nbudgets = 3;
	memset(&f, 0, sizeof(f));
	f.rule = &rule_t;
	f.severity = CPL_SEV_WARNING;
	f.object = cpl_xstrdup("pod/ml/train-0");
	f.container = cpl_xstrdup("trainer");
	f.message = cpl_xstrdup("throttled");
	out = render("text", &m, &f, 1);
	ck_assert_str_eq(out,
		"pod/ml/train-0[trainer]: warning: throttled "
		"[CPU905 test-throttled]\n"
		"    measured (cadvisor, 30 s): 97 threads, 3.9 CPUs used, "
		"throttled 42% of periods\n"
		"pod/ml/train-0[helper]: measured (cadvisor, since start): "
		"1 thread\n"
		"1 finding (0 errors, 1 warning, 0 notes)\n");
	free(out);
	m.budget_table = true;
	out = render("text", &m, NULL, 0);
	ck_assert_str_eq(out,
		"pod/ml/train-0[trainer]: measured (cadvisor, 30 s): "
		"97 threads, 3.9 CPUs used, throttled 42% of periods\n"
		"pod/ml/train-0[helper]: measured (cadvisor, since start): "
		"1 thread\n"
		"pod/ml/train-0  trainer  request 0.5 (no limit)  1 rank x "
		"(8 threads + ? workers)\n"
		"pod/ml/train-0  helper  request 0.5 (no limit)  1 rank x "
		"(8 threads + ? workers)\n"
		"polyaxonfile.yaml:7  polyaxon-main  limit 4 (request 2)  "
		"4 ranks x (1 thread + 2 workers) = 12 busy  over by 8  "
		"suggest 1 + 0\n"
		"no findings\n");
	free(out);
	cpl_finding_free(&f);
	cpl_finding_budget_free(&b[0]);
	cpl_finding_budget_free(&b[1]);
	cpl_finding_budget_free(&b[2]);
}
END_TEST

START_TEST(json_and_sarif)
{
	static const char *const keys[] = {
		"object", "container", "file", "line", "cpu_request",
		"cpu_limit", "ranks", "threads", "workers", "busy", "per_rank",
		"suggested_threads", "suggested_workers", "how", "measured",
	};
	struct cpl_budget_entry b[2];
	struct cpl_report_meta m;
	json_t *root, *a, *o, *me, *how;
	void *it;
	size_t i;
	char *out;

	mk_static(&b[0]);
	mk_live(&b[1]);
	memset(&m, 0, sizeof(m));
	m.version = "0";
	m.srcroot = "/tmp";
	m.budgets = b;
	m.nbudgets = 2;
	out = render("json", &m, NULL, 0);
	root = json_loads(out, 0, NULL);
	ck_assert_ptr_nonnull(root);
	a = json_object_get(root, "budgets");
	ck_assert_uint_eq(json_array_size(a), 2);
	o = json_array_get(a, 1);
	it = json_object_iter(o);
	for (i = 0; i < CPL_ARRAY_LEN(keys); i++) {
		ck_assert_ptr_nonnull(it);
		ck_assert_str_eq(json_object_iter_key(it), keys[i]);
		it = json_object_iter_next(o, it);
	}
	ck_assert_ptr_null(it);
	ck_assert(json_is_null(json_object_get(o, "file")));
	ck_assert(json_is_null(json_object_get(o, "cpu_limit")));
	ck_assert(json_is_null(json_object_get(o, "workers")));
	ck_assert_double_eq(json_real_value(json_object_get(o,
		"cpu_request")), 0.5);
	me = json_object_get(o, "measured");
	ck_assert_str_eq(json_string_value(json_object_get(me, "source")),
			 "cadvisor");
	ck_assert_int_eq(json_integer_value(json_object_get(me, "threads")),
			 97);
	ck_assert_double_eq(json_real_value(json_object_get(me,
		"cpu_used")), 3.9);
	ck_assert_int_eq(json_integer_value(json_object_get(me,
		"throttled_pct")), 42);
	ck_assert_int_eq(json_integer_value(json_object_get(me,
		"window_s")), 30);
	o = json_array_get(a, 0);
	ck_assert_ptr_null(json_object_get(o, "measured"));
	ck_assert_int_eq(json_integer_value(json_object_get(o, "busy")), 12);
	ck_assert_int_eq(json_integer_value(json_object_get(o, "cpu_limit")),
			 4);
	how = json_object_get(json_object_get(o, "how"), "cpu");
	ck_assert_str_eq(json_string_value(json_object_get(how, "from")),
			 "resources.limits.cpu 4");
	ck_assert_int_eq(json_integer_value(json_object_get(how, "line")),
			 20);
	ck_assert(json_is_null(json_object_get(json_object_get(o, "how"),
					       "ranks")));
	json_decref(root);
	free(out);
	out = render("sarif", &m, NULL, 0);
	root = json_loads(out, 0, NULL);
	ck_assert_ptr_nonnull(root);
	a = json_object_get(json_object_get(json_array_get(
		json_object_get(root, "runs"), 0), "properties"), "budgets");
	ck_assert_uint_eq(json_array_size(a), 2);
	ck_assert_str_eq(json_string_value(json_object_get(
		json_array_get(a, 1), "object")), "pod/ml/train-0");
	json_decref(root);
	free(out);
	cpl_finding_budget_free(&b[0]);
	cpl_finding_budget_free(&b[1]);
}
END_TEST

static const char clean_and_not[] =
	"apiVersion: batch/v1\n"
	"kind: Job\n"
	"metadata: {name: clean}\n"
	"spec:\n"
	"  template:\n"
	"    spec:\n"
	"      restartPolicy: Never\n"
	"      containers:\n"
	"      - name: train\n"
	"        command: [torchrun, --nproc_per_node, \"2\", train.py,\n"
	"                  --workers, \"1\"]\n"
	"        env: [{name: OMP_NUM_THREADS, value: \"1\"}]\n"
	"        resources: {limits: {cpu: \"4\"}, requests: {cpu: \"4\"}}\n"
	"      - name: sidecar\n"
	"        image: busybox\n";

START_TEST(engine_entries)
{
	struct cpl_engine *e = cpl_engine_new();
	const struct cpl_budget_entry *b;
	size_t n, nf;

	cpl_engine_add_buffer(e, "job.yaml", clean_and_not,
			      sizeof(clean_and_not) - 1, true);
	cpl_engine_run(e);
	cpl_engine_findings(e, &nf);
	b = cpl_engine_budgets(e, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(b[0].object, "Job/clean");
	ck_assert_str_eq(b[0].container, "train");
	ck_assert_str_eq(b[0].file, "job.yaml");
	ck_assert_int_eq(b[0].line, 9);
	ck_assert_double_eq(b[0].cpu_limit, 4);
	ck_assert_int_eq(b[0].ranks, 2);
	ck_assert_int_eq(b[0].threads, 1);
	ck_assert_int_eq(b[0].workers, 1);
	ck_assert_int_eq(b[0].busy, 4);
	ck_assert_int_eq(b[0].per_rank, 2);
	ck_assert_int_eq(b[0].suggested_threads, 1);
	ck_assert_int_eq(b[0].suggested_workers, 1);
	ck_assert_str_eq(b[0].how_ranks.text, "torchrun --nproc_per_node 2");
	ck_assert_int_eq(b[0].how_ranks.line, 10);
	ck_assert(!b[0].measured);
	cpl_engine_free(e);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("budgets");
	TCase *tc = tcase_create("budgets");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, text_table_and_measured);
	tcase_add_test(tc, json_and_sarif);
	tcase_add_test(tc, engine_entries);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
