/*
 * test_serve.c — the parts of `serve` that need no socket: an
 * AdmissionReview read and judged (admit.h: malformed ones refused with
 * a reason, other operations admitted unjudged, a bad object judged
 * through the loaders), the answer (report/admission.h: warnings within
 * the API server's limits, worst first, escaped, cut on a rune boundary,
 * the rest counted; a denial only with --deny-on) and the Prometheus
 * text (report/metrics.h: counted series, escaped labels, suppressed
 * findings left out).  The HTTP server itself is tested end to end
 * (tests/e2e/serve.sh, serve-prometheus.sh).
 */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "live/admit.h"
#include "model/finding.h"
#include "model/rule.h"
#include "report/admission.h"
#include "report/metrics.h"
#include "run/engine.h"
#include "util.h"

static const char bad_pod[] =
	"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
	"\"request\":{\"uid\":\"u1\",\"operation\":\"CREATE\",\"namespace\":"
	"\"ml\",\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"Pod\"},"
	"\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":"
	"{\"name\":\"p\",\"namespace\":\"ml\"},\"spec\":{\"containers\":[{"
	"\"name\":\"t\",\"image\":\"pytorch/pytorch\",\"command\":[\"torchrun\","
	"\"--nproc_per_node=4\",\"train.py\"],\"env\":[{\"name\":"
	"\"OMP_NUM_THREADS\",\"value\":\"8\"}],\"resources\":{\"limits\":"
	"{\"cpu\":\"4\"}}}]}}}}";

START_TEST(review_malformed)
{
	static const struct {
		const char *body;
		const char *why;
	} cases[] = {
		{ "", "not JSON" },
		{ "{\"a\":", "not JSON" },
		{ "[]", "not a JSON object" },
		{ "{\"apiVersion\":\"admission.k8s.io/v1beta1\"}",
		  "apiVersion is not admission.k8s.io/v1" },
		{ "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"X\"}",
		  "kind is not AdmissionReview" },
		{ "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":"
		  "\"AdmissionReview\",\"request\":[]}", "no request object" },
		{ "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":"
		  "\"AdmissionReview\",\"request\":{\"uid\":\"\"}}",
		  "request.uid" },
		{ "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":"
		  "\"AdmissionReview\",\"request\":{\"uid\":\"u\"}}",
		  "request.operation" },
		{ "{\"apiVersion\":\"admission.k8s.io/v1\",\"apiVersion\":\"x\"}",
		  "not JSON" },
	};
	struct cpl_error err = { 0 };
	struct cpl_admit a;
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(cases); i++) {
		ck_assert_int_eq(cpl_admit_review(&a, cases[i].body,
						  strlen(cases[i].body), NULL,
						  &err), -1);
		ck_assert_msg(strstr(err.message, cases[i].why) != NULL,
			      "%s: %s", cases[i].body, err.message);
		ck_assert_ptr_null(a.uid);
		cpl_error_clear(&err);
	}
}
END_TEST

START_TEST(review_judged)
{
	struct cpl_error err = { 0 };
	struct cpl_admit a;
	const struct cpl_finding *f;
	size_t n, i;
	bool cpu202 = false;

	ck_assert_int_eq(cpl_admit_review(&a, bad_pod, strlen(bad_pod), NULL,
					  &err), 0);
	ck_assert_str_eq(a.uid, "u1");
	ck_assert_str_eq(a.what, "Pod ml/p");
	ck_assert_ptr_nonnull(a.e);
	ck_assert_ptr_null(a.skipped);
	f = cpl_engine_findings(a.e, &n);
	for (i = 0; i < n; i++)
		cpu202 |= strcmp(f[i].rule->id, "CPU202") == 0;
	ck_assert(cpu202);
	cpl_admit_clear(&a);
}
END_TEST

START_TEST(review_unjudged)
{
	static const char del[] =
		"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":"
		"\"AdmissionReview\",\"request\":{\"uid\":\"u2\",\"operation\":"
		"\"DELETE\",\"object\":null}}";
	static const char noobj[] =
		"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":"
		"\"AdmissionReview\",\"request\":{\"uid\":\"u3\",\"operation\":"
		"\"CREATE\",\"object\":\"text\"}}";
	struct cpl_error err = { 0 };
	struct cpl_admit a;

	ck_assert_int_eq(cpl_admit_review(&a, del, strlen(del), NULL, &err),
			 0);
	ck_assert_ptr_null(a.e);
	ck_assert_str_eq(a.skipped, "DELETE is not judged");
	cpl_admit_clear(&a);
	ck_assert_int_eq(cpl_admit_review(&a, noobj, strlen(noobj), NULL,
					  &err), 0);
	ck_assert_ptr_null(a.e);
	ck_assert_str_eq(a.skipped, "the review holds no object");
	cpl_admit_clear(&a);
}
END_TEST

START_TEST(clip)
{
	char long_ascii[301], *c;
	struct cpl_buf b;
	size_t i;

	memset(long_ascii, 'a', 300);
	long_ascii[300] = '\0';
	c = cpl_report_admission_clip("short", 256);
	ck_assert_str_eq(c, "short");
	free(c);
	c = cpl_report_admission_clip(long_ascii, 256);
	ck_assert_uint_eq(cpl_report_runes(c), 256);
	ck_assert(cpl_str_ends(c, "\xe2\x80\xa6"));
	free(c);
	/* Two-byte runes: never cut inside one. */
	cpl_buf_init(&b, 0);
	for (i = 0; i < 300; i++)
		cpl_buf_adds(&b, "\xc3\xa9");
	c = cpl_report_admission_clip(cpl_buf_str(&b), 256);
	ck_assert_uint_eq(cpl_report_runes(c), 256);
	ck_assert_uint_eq(strlen(c), 255 * 2 + 3);
	free(c);
	cpl_buf_free(&b);
	c = cpl_report_admission_clip("a\x1b[31mb\nc", 256);
	ck_assert_str_eq(c, "a\\x1b[31mb\\nc");
	free(c);
}
END_TEST

/* n findings of rule id with messages of len characters. */
static struct cpl_finding *
findings(size_t n, const char *id, enum cpl_severity sev, size_t len)
{
	struct cpl_finding *f = cpl_xcalloc(n, sizeof(*f));
	size_t i;

	for (i = 0; i < n; i++) {
		f[i].rule = cpl_rule_find(id);
		f[i].severity = sev;
		f[i].message = cpl_xmalloc(len + 1);
		memset(f[i].message, 'm', len);
		f[i].message[len] = '\0';
		f[i].object = cpl_xstrdup("pod/ml/p");
		f[i].container = cpl_xstrdup("t");
	}
	return f;
}

static void
free_findings(struct cpl_finding *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(f[i].message);
		free(f[i].object);
		free(f[i].container);
	}
	free(f);
}

START_TEST(answer_limits)
{
	struct cpl_finding *f = findings(100, "CPU201", CPL_SEV_WARNING, 400);
	struct cpl_admission a = { .uid = "u", .findings = f,
				   .nfindings = 100, .deny_on = CPL_SEV_OFF };
	json_t *root, *w;
	size_t i, nw, total = 0;
	bool denied;
	char *out;
	const char *last;

	/* One error among them comes first. */
	f[50].rule = cpl_rule_find("CPU401");
	f[50].severity = CPL_SEV_ERROR;
	out = cpl_report_admission(&a, &denied, &nw);
	root = json_loads(out, 0, NULL);
	ck_assert_ptr_nonnull(root);
	ck_assert(!denied);
	ck_assert(json_is_true(json_object_get(json_object_get(root,
		"response"), "allowed")));
	w = json_object_get(json_object_get(root, "response"), "warnings");
	ck_assert_uint_eq(json_array_size(w), nw);
	ck_assert_uint_gt(nw, 2);
	ck_assert_uint_lt(nw, 100);
	for (i = 0; i < nw; i++) {
		const char *s = json_string_value(json_array_get(w, i));
		size_t r = cpl_report_runes(s);

		ck_assert_uint_le(r, CPL_ADMISSION_ITEM_RUNES);
		total += r;
	}
	ck_assert_uint_le(total, CPL_ADMISSION_TOTAL_RUNES);
	ck_assert(strncmp(json_string_value(json_array_get(w, 0)),
			  "CPU401 error: ", 14) == 0);
	last = json_string_value(json_array_get(w, nw - 1));
	ck_assert_msg(strstr(last, "more findings not shown") != NULL, "%s",
		      last);
	json_decref(root);
	free(out);
	free_findings(f, 100);
}
END_TEST

START_TEST(answer_deny)
{
	struct cpl_finding *f = findings(2, "CPU201", CPL_SEV_WARNING, 20);
	struct cpl_admission a = { .uid = "u", .what = "Pod ml/p",
				   .findings = f, .nfindings = 2,
				   .deny_on = CPL_SEV_ERROR };
	json_t *root, *resp;
	size_t nw;
	bool denied;
	char *out;

	out = cpl_report_admission(&a, &denied, &nw);
	ck_assert(!denied);
	free(out);
	f[1].rule = cpl_rule_find("CPU401");
	f[1].severity = CPL_SEV_ERROR;
	out = cpl_report_admission(&a, &denied, &nw);
	ck_assert(denied);
	root = json_loads(out, 0, NULL);
	resp = json_object_get(root, "response");
	ck_assert(json_is_false(json_object_get(resp, "allowed")));
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(
		resp, "status"), "code")), 403);
	ck_assert(strstr(json_string_value(json_object_get(json_object_get(
		resp, "status"), "message")), "Pod ml/p has 1 finding at or "
		"above error") != NULL);
	ck_assert_uint_eq(nw, 2);
	json_decref(root);
	free(out);
	/* A suppressed finding neither warns nor denies. */
	f[1].suppressed = true;
	out = cpl_report_admission(&a, &denied, &nw);
	ck_assert(!denied);
	ck_assert_uint_eq(nw, 1);
	free(out);
	free_findings(f, 2);
}
END_TEST

/* --leader-elect: the gauge in every replica, its identity escaped; no
 * audit series from the replica that does not hold the Lease. */
START_TEST(metrics_leader)
{
	struct cpl_metrics_in m = { .identity = "pod-\"b\"\x1b",
				    .lease = "cpulint-system/kubectl-cpulint" };
	char *out = cpl_report_metrics(&m);

	ck_assert(strstr(out, "# TYPE cpulint_audit_leader gauge\n") != NULL);
	ck_assert(strstr(out, "cpulint_audit_leader{identity=\"pod-\\\"b"
			 "\\\"\\\\x1b\",lease=\"cpulint-system/"
			 "kubectl-cpulint\"} 0\n") != NULL);
	ck_assert(strstr(out, "cpulint_audit_up") == NULL);
	free(out);
	m.leader = m.audit = true;
	out = cpl_report_metrics(&m);
	ck_assert(strstr(out, "lease=\"cpulint-system/kubectl-cpulint\"} 1\n")
		  != NULL);
	ck_assert(strstr(out, "cpulint_audit_up 0\n") != NULL);
	free(out);
	m.identity = NULL;
	out = cpl_report_metrics(&m);
	ck_assert(strstr(out, "cpulint_audit_leader") == NULL);
	free(out);
}
END_TEST

START_TEST(metrics_text)
{
	struct cpl_finding *f = findings(4, "CPU401", CPL_SEV_ERROR, 5);
	struct cpl_budget_entry be = { 0 };
	struct cpl_metrics_in m = { .findings = f, .nfindings = 4,
				    .budgets = &be, .nbudgets = 1,
				    .audit = true, .up = true,
				    .last_time = 1700000000, .allowed = 3 };
	char *out;

	free(f[2].object);
	f[2].object = cpl_xstrdup("deployment/ml/we\"ird\x1b/pod-x");
	f[3].suppressed = true;
	be.object = (char *)"pytorchjob/ml/resnet";
	be.container = (char *)"pytorch";
	be.cpu_limit = 4;
	be.cpu_request = 2;
	be.ranks = 4;
	be.threads = -1;
	be.workers = 2;
	be.busy = -1;
	out = cpl_report_metrics(&m);
	ck_assert(strstr(out, "cpulint_findings{namespace=\"ml\",owner_kind="
			 "\"pod\",owner=\"p\",container=\"t\",rule=\"CPU401\","
			 "severity=\"error\"} 2\n") != NULL);
	ck_assert(strstr(out, "owner_kind=\"deployment\",owner=\"we\\\"ird"
			 "\\\\x1b\",container=\"t\"") != NULL);
	ck_assert(strstr(out, "cpulint_budget_cpus{namespace=\"ml\","
			 "owner_kind=\"pytorchjob\",owner=\"resnet\","
			 "container=\"pytorch\"} 4\n") != NULL);
	ck_assert(strstr(out, "cpulint_ranks{namespace=\"ml\",owner_kind="
			 "\"pytorchjob\",owner=\"resnet\",container=\"pytorch\"}"
			 " 4\n") != NULL);
	ck_assert(strstr(out, "cpulint_planned_threads{") == NULL);
	ck_assert(strstr(out, "cpulint_planned_workers{namespace=\"ml\"") !=
		  NULL);
	ck_assert(strstr(out, "cpulint_audit_up 1\n") != NULL);
	ck_assert(strstr(out, "cpulint_admission_reviews_total{result="
			 "\"allowed\"} 3\n") != NULL);
	/* Every family's TYPE line comes once. */
	ck_assert(strstr(strstr(out, "# TYPE cpulint_findings gauge") + 1,
			 "# TYPE cpulint_findings gauge") == NULL);
	free(out);
	free_findings(f, 4);
}
END_TEST

static Suite *
serve_suite(void)
{
	Suite *s = suite_create("serve");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, review_malformed);
	tcase_add_test(tc, review_judged);
	tcase_add_test(tc, review_unjudged);
	tcase_add_test(tc, clip);
	tcase_add_test(tc, answer_limits);
	tcase_add_test(tc, answer_deny);
	tcase_add_test(tc, metrics_text);
	tcase_add_test(tc, metrics_leader);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(serve_suite)
