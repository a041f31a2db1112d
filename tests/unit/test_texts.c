/*
 * test_texts.c — a run that lets texts go once judged
 * (cpl_engine_drop_texts()): the same findings, edits and errors as a run
 * that keeps them; the texts of judged files gone; a text asked for again
 * read again (a later group's fix or dynamic import), a Python file
 * loaded again from it; a file gone from disk meanwhile, or changed in
 * length, one error naming it and an empty text, never a crash; the text
 * of a file that holds no workload gone as soon as it is loaded.
 *
 * Owns a scratch directory under $TMPDIR for each test, removed after.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "model/finding.h"
#include "model/rule.h"
#include "python/pyscan.h"
#include "run/engine.h"
#include "run/engine_int.h"
#include "util.h"

/* Job "first" runs first.py, with no thread variables: CPU201 and its
 * edit into this file.  The ConfigMap is not a workload. */
static const char a_yaml[] =
	"apiVersion: v1\n"
	"kind: ConfigMap\n"
	"metadata: {name: threads}\n"
	"data:\n"
	"  OMP_NUM_THREADS: \"64\"\n"
	"---\n"
	"apiVersion: batch/v1\n"
	"kind: Job\n"
	"metadata: {name: first}\n"
	"spec:\n"
	"  template:\n"
	"    spec:\n"
	"      restartPolicy: Never\n"
	"      containers:\n"
	"      - name: train\n"
	"        command: [python, first.py]\n"
	"        resources: {limits: {cpu: \"4\"}}\n";

/* Job "second" runs second.py, whose pool is sized from the host. */
static const char b_yaml[] =
	"apiVersion: batch/v1\n"
	"kind: Job\n"
	"metadata: {name: second}\n"
	"spec:\n"
	"  template:\n"
	"    spec:\n"
	"      restartPolicy: Never\n"
	"      containers:\n"
	"      - name: train\n"
	"        command: [python, second.py]\n"
	"        env:\n"
	"        - {name: OMP_NUM_THREADS, value: \"1\"}\n"
	"        - {name: MKL_NUM_THREADS, value: \"1\"}\n"
	"        resources: {limits: {cpu: \"4\"}}\n";

/* It trains (a DataLoader): a Job's Python that only imports torch is no
 * evidence of training. */
static const char first_py[] =
	"import torch\n"
	"from torch.utils.data import DataLoader\n"
	"loader = DataLoader([])\n";

static const char second_py[] =
	"import os\n"
	"import torch\n"
	"from torch.utils.data import DataLoader\n"
	"loader = DataLoader([], num_workers=os.cpu_count())\n";

static char dir[64];

static void
put(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

static void
setup(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/cpl-texts-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	put("a.yaml", a_yaml);
	put("b.yaml", b_yaml);
	put("first.py", first_py);
	put("second.py", second_py);
}

static void
teardown(void)
{
	static const char *const names[] = { "a.yaml", "b.yaml", "first.py",
					     "second.py", "values.yaml" };
	char path[128];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		(void)unlink(path);
	}
	(void)rmdir(dir);
}

/* path under the scratch directory (a static buffer: one at a time). */
static const char *
at(const char *name)
{
	static char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static struct cpl_engine *
run(bool drop)
{
	struct cpl_engine *e = cpl_engine_new();

	cpl_engine_set_jobs(e, 1);
	if (drop)
		cpl_engine_drop_texts(e);
	cpl_engine_add_path(e, dir, true);
	cpl_engine_run(e);
	return e;
}

/* Every finding with its edits, one line each, in report order. */
static char *
describe(const struct cpl_engine *e)
{
	struct cpl_buf b;
	const struct cpl_finding *f;
	size_t n, i, k;

	cpl_buf_init(&b, 1 << 20);
	f = cpl_engine_findings(e, &n);
	for (i = 0; i < n; i++) {
		cpl_buf_addf(&b, "%s %s:%d:%d", f[i].rule->id,
			     f[i].file ? f[i].file : "-", f[i].line,
			     f[i].column);
		for (k = 0; k < f[i].nedits; k++)
			cpl_buf_addf(&b, " [%s %d:%d-%d:%d %s]",
				     f[i].edits[k].file, f[i].edits[k].line,
				     f[i].edits[k].column,
				     f[i].edits[k].end_line,
				     f[i].edits[k].end_column,
				     f[i].edits[k].text);
		cpl_buf_addf(&b, "\n");
	}
	cpl_engine_errors(e, &n);
	cpl_buf_addf(&b, "errors %zu\n", n);
	return cpl_buf_detach(&b);
}

START_TEST(same_report_texts_gone)
{
	struct cpl_engine *keep = run(false), *drop = run(true);
	char *a, *b;

	ck_assert_ptr_nonnull(cpl_engine_source_text(keep, at("a.yaml"),
						     NULL));
	ck_assert_ptr_nonnull(cpl_engine_source_text(keep, at("first.py"),
						     NULL));
	ck_assert_ptr_null(cpl_engine_source_text(drop, at("a.yaml"), NULL));
	ck_assert_ptr_null(cpl_engine_source_text(drop, at("b.yaml"), NULL));
	ck_assert_ptr_null(cpl_engine_source_text(drop, at("first.py"),
						  NULL));
	ck_assert_ptr_null(cpl_engine_source_text(drop, at("second.py"),
						  NULL));
	/* The edits are made after the run: a text let go is read again
	 * for them. */
	cpl_engine_resolve_fixes(keep);
	cpl_engine_resolve_fixes(drop);
	a = describe(keep);
	b = describe(drop);
	/* Both jobs have findings, and the first's has an edit. */
	ck_assert_ptr_nonnull(strstr(a, "CPU201"));
	ck_assert_ptr_nonnull(strstr(a, "second.py"));
	ck_assert_ptr_nonnull(strstr(a, " ["));
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	cpl_engine_free(keep);
	cpl_engine_free(drop);
}
END_TEST

START_TEST(read_again_when_asked)
{
	struct cpl_engine *e = run(true);
	struct source *src;
	const struct cpl_pyfile *py;
	size_t n0, n1, len = 0;

	cpl_engine_errors(e, &n0);
	src = cpl_engine_text_source(e, at("a.yaml"));
	ck_assert_ptr_nonnull(src);
	ck_assert_str_eq(src->text, a_yaml);
	ck_assert_str_eq(cpl_engine_source_text(e, at("a.yaml"), &len),
			 a_yaml);
	ck_assert_uint_eq(len, sizeof(a_yaml) - 1);
	/* A Python file loaded again (a dynamic import from a later
	 * group) reads its text again and makes its facts from it. */
	src = (struct source *)cpl_engine_find_source(e, at("second.py"));
	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_null(src->text);
	ck_assert(!cpl_pyfile_loaded(src->py));
	py = cpl_engine_python(e, src, PY_LOADED);
	ck_assert(cpl_pyfile_loaded(py));
	ck_assert_ptr_eq(py->text, src->text);
	ck_assert_str_eq(py->text, second_py);
	ck_assert(py->imports_torch);
	cpl_engine_errors(e, &n1);
	ck_assert_uint_eq(n1, n0);
	cpl_engine_free(e);
}
END_TEST

/* e holds one error more than before, naming the file name and saying
 * says (when given). */
static void
one_more_error(const struct cpl_engine *e, size_t before, const char *name,
	       const char *says)
{
	size_t n;
	const struct cpl_error *err = cpl_engine_errors(e, &n);

	ck_assert_uint_eq(n, before + 1);
	ck_assert_ptr_nonnull(strstr(err[n - 1].path, name));
	if (says != NULL)
		ck_assert_ptr_nonnull(strstr(err[n - 1].message, says));
}

START_TEST(gone_from_disk_is_an_error)
{
	struct cpl_engine *e = run(true);
	struct source *src;
	size_t n0;

	cpl_engine_errors(e, &n0);
	ck_assert_int_eq(unlink(at("first.py")), 0);
	src = (struct source *)cpl_engine_find_source(e, at("first.py"));
	ck_assert_ptr_nonnull(src);
	ck_assert(cpl_pyfile_loaded(cpl_engine_python(e, src, PY_LOADED)));
	ck_assert_str_eq(src->text, "");
	ck_assert_uint_eq(src->len, 0);
	one_more_error(e, n0, "first.py", NULL);
	/* Asked again: no second error. */
	(void)cpl_engine_text_source(e, at("first.py"));
	one_more_error(e, n0, "first.py", NULL);
	cpl_engine_free(e);
}
END_TEST

/* A Helm values file: no object, so nothing of it is judged. */
static const char values_yaml[] =
	"replicaCount: 2\n"
	"image: {repository: example/app, tag: latest}\n";

/* Issue 39: a YAML file that holds no workload has nothing to judge, so
 * a run that lets texts go lets its text go once it is read and loaded,
 * not at the run's end with the texts of every file of the tree held
 * until then; a file with workloads keeps its text until they are
 * judged.  Asked for, it is read again. */
START_TEST(no_workload_text_goes_at_once)
{
	struct cpl_engine *e = cpl_engine_new();
	struct source *src;

	put("values.yaml", values_yaml);
	cpl_engine_set_jobs(e, 1);
	cpl_engine_drop_texts(e);
	cpl_engine_add_path(e, dir, true);
	/* Read and loaded, not judged yet. */
	ck_assert_ptr_nonnull(cpl_engine_find_source(e, at("values.yaml")));
	ck_assert_ptr_null(cpl_engine_source_text(e, at("values.yaml"),
						  NULL));
	ck_assert_ptr_nonnull(cpl_engine_source_text(e, at("a.yaml"), NULL));
	src = cpl_engine_text_source(e, at("values.yaml"));
	ck_assert_ptr_nonnull(src);
	ck_assert_str_eq(src->text, values_yaml);
	cpl_engine_free(e);
}
END_TEST

START_TEST(changed_on_disk_is_an_error)
{
	struct cpl_engine *e = run(true);
	struct source *src;
	size_t n0;

	cpl_engine_errors(e, &n0);
	put("a.yaml", "kind: ConfigMap\n");
	src = cpl_engine_text_source(e, at("a.yaml"));
	ck_assert_ptr_nonnull(src);
	ck_assert_str_eq(src->text, "");
	one_more_error(e, n0, "a.yaml", "changed while being linted");
	cpl_engine_free(e);
}
END_TEST

static Suite *
texts_suite(void)
{
	Suite *s = suite_create("texts");
	TCase *tc = tcase_create("texts");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, same_report_texts_gone);
	tcase_add_test(tc, read_again_when_asked);
	tcase_add_test(tc, gone_from_disk_is_an_error);
	tcase_add_test(tc, changed_on_disk_is_an_error);
	tcase_add_test(tc, no_workload_text_goes_at_once);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(texts_suite)
