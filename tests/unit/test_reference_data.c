/*
 * test_reference_data.c — the YAML loaders over real files from public
 * projects (testdata/reference: Polyaxonfiles, Kubeflow jobs, Kubernetes
 * API fixtures and live objects; each folder's SOURCES.md names them).
 * Valid files load without an error; the deliberately broken ones fail
 * with a position; a handful of named files give the workloads their
 * authors meant.
 *
 * Every file is read and parsed once, before the tests run; the tests only
 * look at the results.
 */
#include <check.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "load/loader.h"

#define DATA "testdata/reference/"

/* What reading, parsing and loading one file gave. */
struct result {
	char *name;		/* path under DATA */
	bool parse_failed;
	struct cpl_error err;	/* the parse error, or the first load error */
	int load_errors;
	size_t docs;		/* non-empty documents */
	size_t detected;	/* documents some loader claimed */
	struct cpl_wlist wl;
};

static struct result *results;
static size_t nresults;

/* Reads, parses and loads one file into a new result. */
static void
load_one(const char *path)
{
	struct result *r;
	struct cpl_ystream *s = NULL;
	struct cpl_error err = { 0 };
	char *buf = NULL;
	size_t len, i;

	results = cpl_xrealloc(results, (nresults + 1) * sizeof(*results));
	r = &results[nresults++];
	memset(r, 0, sizeof(*r));
	r->name = cpl_xstrdup(path + strlen(DATA));
	if (cpl_read_file(&buf, &len, path, 1 << 22, &r->err) < 0) {
		r->parse_failed = true;
		return;
	}
	if (cpl_yaml_parse(&s, path, buf, len, &r->err) < 0) {
		r->parse_failed = true;
		free(buf);
		return;
	}
	for (i = 0; i < cpl_ystream_count(s); i++) {
		const struct cpl_ynode *doc = cpl_ystream_doc(s, i);
		int rc;

		/* A document of comments only is a null scalar. */
		if (doc == NULL || cpl_ynode_is_null(doc))
			continue;
		r->docs++;
		if (cpl_manifest_detect(doc))
			rc = cpl_manifest_load(&r->wl, s, doc, path, &err);
		else if (cpl_polyaxon_detect(doc))
			rc = cpl_polyaxon_load(&r->wl, s, doc, path, &err);
		else
			continue;
		r->detected++;
		if (rc < 0 && r->load_errors++ == 0) {
			r->err = err;
			memset(&err, 0, sizeof(err));
		}
		cpl_error_clear(&err);
	}
	/* Workloads own copies of what they need: the stream can go. */
	cpl_ystream_free(s);
	free(buf);
}

/* Loads every file matching a glob pattern under DATA; their count. */
static size_t
load_glob(const char *pattern)
{
	char *full = cpl_xasprintf(DATA "%s", pattern);
	glob_t g;
	size_t i, n = 0;

	if (glob(full, 0, NULL, &g) == 0) {
		for (i = 0; i < g.gl_pathc; i++)
			load_one(g.gl_pathv[i]);
		n = g.gl_pathc;
		globfree(&g);
	}
	free(full);
	return n;
}

static size_t n_polyaxon, n_kubeflow, n_api, n_live;

/* Frees every result (at exit, in the runner and in each test child). */
static void
free_all(void)
{
	size_t i;

	for (i = 0; i < nresults; i++) {
		free(results[i].name);
		cpl_error_clear(&results[i].err);
		cpl_wlist_free(&results[i].wl);
	}
	free(results);
	results = NULL;
	nresults = 0;
}

static void
load_all(void)
{
	atexit(free_all);
	n_polyaxon = load_glob("polyaxon/*/*.yml") +
		     load_glob("polyaxon/*/*.yaml");
	n_kubeflow = load_glob("kubeflow/*/*.yaml");
	n_api = load_glob("k8s/api-testdata/*.yaml") +
		load_glob("k8s/api-testdata/*.json");
	n_live = load_glob("k8s/live-objects/*.json");
}

/* The result for a file under DATA (fails the test when missing). */
static const struct result *
result(const char *name)
{
	size_t i;

	for (i = 0; i < nresults; i++)
		if (strcmp(results[i].name, name) == 0)
			return &results[i];
	ck_abort_msg("%s was not loaded", name);
	return NULL;
}

/* The deliberately invalid or broken files (SOURCES.md, Notes). */
static const char *const invalid[] = {
	"polyaxon/polyaxon-core-test-fixtures/missing_kind.yml",
	"polyaxon/polyaxon-core-test-fixtures/missing_version.yml",
	"polyaxon/polyaxon-core-test-fixtures/non_supported_file.yml",
	"polyaxon/polyaxon-core-test-fixtures/job_missing_container.yml",
	"polyaxon/polyaxon-core-test-fixtures/"
	"jupyterlab_service_with_custom_environment.yml",
	"polyaxon/polyaxon-examples/mxnet_mnist_polyaxonfile_hyperparams.yml",
	"polyaxon/polyaxon-examples/"
	"keras_bidirectional_lstm_polyaxonfile_hyperparams.yml",
};

static bool
is_invalid(const char *name)
{
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(invalid); i++)
		if (strcmp(invalid[i], name) == 0)
			return true;
	return false;
}

START_TEST(every_file_found)
{
	/* 51 polyaxon-examples + 25 core fixtures (SOURCES.md's "26"
	 * counts the licence). */
	ck_assert_int_eq(n_polyaxon, 76);
	ck_assert_int_eq(n_kubeflow, 40);
	ck_assert_int_eq(n_api, 24);
	ck_assert_int_eq(n_live, 7);
}
END_TEST

START_TEST(valid_files_load)
{
	size_t i, checked = 0;

	for (i = 0; i < nresults; i++) {
		const struct result *r = &results[i];

		if (is_invalid(r->name))
			continue;
		checked++;
		ck_assert_msg(!r->parse_failed && r->load_errors == 0,
			      "%s: %d:%d: %s", r->name, r->err.line,
			      r->err.column,
			      r->err.message ? r->err.message : "");
		/* Every document is a Polyaxonfile or an object. */
		ck_assert_msg(r->detected == r->docs, "%s: %zu of %zu",
			      r->name, r->detected, r->docs);
		ck_assert_msg(r->docs > 0, "%s has no document", r->name);
	}
	ck_assert_int_eq(checked, 76 + 40 + 24 + 7 - CPL_ARRAY_LEN(invalid));
}
END_TEST

/* Expects r to have failed at line:col with part in the message. */
static void
expect_failure(const char *name, bool parse, int line, int col,
	       const char *part)
{
	const struct result *r = result(name);

	ck_assert_msg(r->parse_failed == parse, "%s", name);
	ck_assert_msg(parse || r->load_errors == 1, "%s", name);
	ck_assert_int_eq(r->err.line, line);
	ck_assert_int_eq(r->err.column, col);
	ck_assert_msg(r->err.message && strstr(r->err.message, part),
		      "%s: %s", name, r->err.message);
	ck_assert_int_eq(r->wl.count, 0);
}

START_TEST(invalid_files_fail)
{
	const char *const core = "polyaxon/polyaxon-core-test-fixtures/";
	const char *const ex = "polyaxon/polyaxon-examples/";
	char *n;

	/* Core fixtures open with "---": the document starts on line 2. */
	n = cpl_xasprintf("%smissing_kind.yml", core);
	expect_failure(n, false, 2, 1, "missing kind");
	free(n);
	n = cpl_xasprintf("%smissing_version.yml", core);
	expect_failure(n, false, 2, 1, "missing version");
	free(n);
	n = cpl_xasprintf("%snon_supported_file.yml", core);
	expect_failure(n, false, 2, 10,
		       "unsupported Polyaxonfile version 0.4");
	free(n);
	n = cpl_xasprintf("%sjob_missing_container.yml", core);
	expect_failure(n, false, 2, 1, "component has no run");
	free(n);
	n = cpl_xasprintf("%skeras_bidirectional_lstm_polyaxonfile_"
			  "hyperparams.yml", ex);
	expect_failure(n, false, 2, 7,
		       "unknown Polyaxonfile kind \"operations\"");
	free(n);
	/* libyaml rejects both files PyYAML rejects, at the same places:
	 * implicit string concatenation in a flow sequence, and a key
	 * indented under a plain scalar. */
	n = cpl_xasprintf("%sjupyterlab_service_with_custom_environment.yml",
			  core);
	expect_failure(n, true, 55, 7,
		       "did not find expected ',' or ']'");
	free(n);
	n = cpl_xasprintf("%smxnet_mnist_polyaxonfile_hyperparams.yml", ex);
	expect_failure(n, true, 16, 14, "mapping values are not allowed");
	free(n);
}
END_TEST

/* The workload count of a file. */
static size_t
count(const char *name)
{
	return result(name)->wl.count;
}

START_TEST(workload_counts)
{
	ck_assert_int_eq(count("polyaxon/polyaxon-core-test-fixtures/"
			       "distributed_pytorch_file.yml"), 2);
	ck_assert_int_eq(count("polyaxon/polyaxon-core-test-fixtures/"
			       "distributed_tensorflow_file.yml"), 2);
	/* Scheduler and Server hold no container of their own. */
	ck_assert_int_eq(count("polyaxon/polyaxon-core-test-fixtures/"
			       "distributed_mxnet_file.yml"), 1);
	ck_assert_int_eq(count("polyaxon/polyaxon-core-test-fixtures/"
			       "matrix_job_file.yml"), 1);
	ck_assert_int_eq(count("polyaxon/polyaxon-examples/"
			       "kubeflow_pytorchjob_polyaxonfile.yaml"), 2);
	ck_assert_int_eq(count("polyaxon/polyaxon-examples/"
			       "mpijob_polyaxonfile.yaml"), 2);
	/* References to other files (pathRef, urlRef, hubRef). */
	ck_assert_int_eq(count("polyaxon/polyaxon-examples/"
			       "keras_mnist_polyaxonfile_gpu.yml"), 0);
	ck_assert_int_eq(count("polyaxon/polyaxon-examples/"
			       "kubeflow_tfjob_operation.yaml"), 0);
	ck_assert_int_eq(count("polyaxon/polyaxon-examples/"
			       "build_image_build-pytorch.yaml"), 0);
	ck_assert_int_eq(count("kubeflow/training-operator-v1/"
			       "tensorflow_dist-mnist_tf_job_mnist.yaml"), 3);
	ck_assert_int_eq(count("kubeflow/training-operator-v1/"
			       "pytorch_elastic_etcd.yaml"), 1);
	ck_assert_int_eq(count("kubeflow/training-operator-v1/"
			       "xgboost_xgboostjob.yaml"), 2);
	ck_assert_int_eq(count("kubeflow/mpi-operator-v2beta1/pi_pi.yaml"), 2);
	ck_assert_int_eq(count("kubeflow/trainer-v2/"
			       "examples_05-multi-step.yaml"), 3);
	ck_assert_int_eq(count("kubeflow/trainer-v2/"
			       "runtimes_torch_distributed.yaml"), 1);
	ck_assert_int_eq(count("k8s/api-testdata/core.v1.Pod.json"), 1);
	ck_assert_int_eq(count("k8s/api-testdata/batch.v1.CronJob.yaml"), 1);
	ck_assert_int_eq(count("k8s/api-testdata/core.v1.Node.yaml"), 0);
	ck_assert_int_eq(count("k8s/api-testdata/core.v1.Status.json"), 0);
	ck_assert_int_eq(count("k8s/live-objects/k9s-no.json"), 0);
	ck_assert_int_eq(count("k8s/live-objects/k9s-job.json"), 1);
}
END_TEST

START_TEST(polyaxon_details)
{
	const struct cpl_workload *w;
	const struct cpl_container *c;

	w = result("polyaxon/polyaxon-core-test-fixtures/"
		   "distributed_pytorch_file.yml")->wl.items[0];
	ck_assert_str_eq(w->replica, "Master");
	ck_assert_int_eq(w->replicas, 5);
	ck_assert_int_eq(w->containers[0].cpu_limit, CPL_CPU_ABSENT);
	w = result("polyaxon/polyaxon-core-test-fixtures/"
		   "distributed_pytorch_file.yml")->wl.items[1];
	ck_assert_str_eq(w->replica, "Worker");
	ck_assert_int_eq(w->replicas, 10);
	ck_assert_int_eq(w->containers[0].cpu_request, 3000);
	ck_assert_int_eq(w->containers[0].cpu_limit, 3000);
	ck_assert_int_eq(w->containers[0].limit_pos.line, 42);
	w = result("polyaxon/polyaxon-examples/"
		   "kubeflow_pytorchjob_polyaxonfile.yaml")->wl.items[1];
	c = &w->containers[0];
	ck_assert_int_eq(c->gpus, 1);
	ck_assert_int_eq(c->argc, 3);
	ck_assert_str_eq(c->argv[2].text, "{{ globals.artifacts_path }}/"
			 "polyaxon-examples/in_cluster/kubeflow/pytorchjob/"
			 "mnist.py");
	w = result("polyaxon/polyaxon-examples/"
		   "mpijob_polyaxonfile.yaml")->wl.items[1];
	ck_assert_str_eq(w->replica, "Worker");
	ck_assert_int_eq(w->replicas, 2);
	ck_assert_int_eq(w->containers[0].cpu_limit, 2000);
	/* args given as one string, from an input with a value. */
	c = &result("polyaxon/polyaxon-core-test-fixtures/"
		    "tensorboard_with_custom_environment.yml")->wl.items[0]
		     ->containers[0];
	ck_assert_int_eq(c->argc, 3);
	ck_assert_str_eq(c->argv[2].text,
			 "tensorboard --logdir=/path/my/outputs --port=6006");
	c = &result("polyaxon/polyaxon-examples/"
		    "xgboost_boston_polyaxonfile.yml")->wl.items[0]
		     ->containers[0];
	ck_assert_str_eq(c->argv[3].text, "--max_depth=5");
	ck_assert_str_eq(c->argv[10].text, "--cross_validate=False");
	w = result("polyaxon/polyaxon-core-test-fixtures/"
		   "simple_job_run_patch.yml")->wl.items[0];
	ck_assert_str_eq(w->containers[0].name, "test");
	ck_assert_int_eq(w->containers[0].gpus, 1);
	ck_assert(w->platform_shm);
	ck_assert(result("polyaxon/polyaxon-core-test-fixtures/"
			 "job_file_with_init.yml")->wl.items[0]
		  ->containers[0].env_from);
}
END_TEST

START_TEST(kubeflow_details)
{
	const struct cpl_workload *w;

	w = result("kubeflow/training-operator-v1/"
		   "pytorch_cpu-demo_demo.yaml")->wl.items[1];
	ck_assert_str_eq(w->replica, "Worker");
	ck_assert(w->has_nproc);
	ck_assert_str_eq(w->nproc.text, "2");
	ck_assert_int_eq(w->nproc.pos.line, 6);
	w = result("kubeflow/training-operator-v1/"
		   "pytorch_elastic_imagenet_imagenet.yaml")->wl.items[0];
	ck_assert(w->nproc_default_auto);
	ck_assert_int_eq(w->replicas, 2);
	ck_assert_int_eq(w->containers[0].cpu_request, 4000);
	ck_assert_int_eq(w->containers[0].cpu_limit, CPL_CPU_ABSENT);
	w = result("kubeflow/training-operator-v1/"
		   "paddlepaddle_simple-gpu.yaml")->wl.items[0];
	ck_assert(w->containers[0].shm);
	ck_assert_int_eq(w->containers[0].shm_bytes, -1);
	ck_assert_int_eq(w->containers[0].gpus, 2);
	w = result("kubeflow/training-operator-v1/"
		   "pytorch_elastic_etcd.yaml")->wl.items[0];
	ck_assert_str_eq(w->kind, "Pod");
	ck_assert_str_eq(w->name, "etcd-server");
	ck_assert(!w->training_job);
	w = result("kubeflow/trainer-v2/examples_05-multi-step.yaml")
		->wl.items[2];
	ck_assert_str_eq(w->kind, "TrainJob");
	ck_assert_int_eq(w->replicas, 2);
	ck_assert_int_eq(w->containers[0].cpu_request, 2000);
	ck_assert_int_eq(w->containers[0].cpu_limit, 4000);
	w = result("kubeflow/trainer-v2/"
		   "runtimes_deepspeed_distributed.yaml")->wl.items[0];
	ck_assert_str_eq(w->replica, "node");
	ck_assert_str_eq(w->nproc.text, "1");
}
END_TEST

START_TEST(kubernetes_details)
{
	const struct cpl_workload *w;

	w = result("k8s/live-objects/k9s-po_sidecar.json")->wl.items[0];
	ck_assert_int_eq(w->ncontainers, 3);
	ck_assert_str_eq(w->containers[0].name, "init");
	ck_assert_int_eq(w->containers[0].role, CPL_CROLE_INIT);
	ck_assert_str_eq(w->containers[1].name, "sidecar");
	ck_assert_int_eq(w->containers[1].role, CPL_CROLE_SIDECAR);
	ck_assert_int_eq(w->containers[1].cpu_limit, 20);
	ck_assert_str_eq(w->containers[2].name, "sleep");
	ck_assert_int_eq(w->containers[2].cpu_request, 30);
	ck_assert_int_eq(w->containers[2].cpu_limit, 230);
	w = result("k8s/live-objects/k9s-dp.json")->wl.items[0];
	ck_assert_str_eq(w->name, "icx-db");
	ck_assert_str_eq(w->namespace, "icx");
	ck_assert_int_eq(w->containers[0].cpu_limit, 250);
	/* Every field of a Pod: one init and one main container (the
	 * ephemeral debug container is not part of the template). */
	w = result("k8s/api-testdata/core.v1.Pod.yaml")->wl.items[0];
	ck_assert_int_eq(w->ncontainers, 2);
	ck_assert_int_eq(w->containers[0].role, CPL_CROLE_INIT);
	ck_assert_int_eq(w->containers[1].role, CPL_CROLE_MAIN);
	ck_assert_int_eq(w->containers[1].cpu_limit, CPL_CPU_ABSENT);
	ck_assert(w->containers[1].env_from);
}
END_TEST

static Suite *
reference_data_suite(void)
{
	Suite *s = suite_create("reference_data");
	TCase *tc = tcase_create("core");

	load_all();
	tcase_add_test(tc, every_file_found);
	tcase_add_test(tc, valid_files_load);
	tcase_add_test(tc, invalid_files_fail);
	tcase_add_test(tc, workload_counts);
	tcase_add_test(tc, polyaxon_details);
	tcase_add_test(tc, kubeflow_details);
	tcase_add_test(tc, kubernetes_details);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(reference_data_suite)
