/*
 * test_resolve.c — fixes as plain data (model/fixreq.h) and the step
 * that makes them into edits (fix/resolve.h, run/fixrun.c): a run makes
 * no edit until one is asked for, then the same edits as its rules
 * describe; each text is fetched (so parsed for edits) once by one
 * resolver; asked for before the run, they are made group by group
 * while the texts are held; a request that cannot be made adds nothing; a WHOLE request
 * that fails takes the finding's other edits with it; IF_SPLIT and
 * IF_EDITS requests are tried only after a split or beside edits.
 *
 * Owns its engines and findings, freed in each test.
 */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "fix/resolve.h"
#include "model/finding.h"
#include "model/fixreq.h"
#include "model/rule.h"
#include "run/engine.h"

/* The texts a test's resolver edits, and how often each was asked for. */
static const char job_yaml[] =
	"containers:\n"
	"- name: train\n"
	"  env:\n"
	"  - name: OMP_NUM_THREADS\n"
	"    value: \"8\"\n";
static const char train_py[] = "loader = DataLoader(ds, num_workers=8)\n";
static int asked_yaml, asked_py, asked_other;

static const char *
text_of(void *arg, const char *path, size_t *len, bool *yaml)
{
	(void)arg;
	if (strcmp(path, "job.yaml") == 0) {
		asked_yaml++;
		*len = sizeof(job_yaml) - 1;
		*yaml = true;
		return job_yaml;
	}
	if (strcmp(path, "train.py") == 0) {
		asked_py++;
		*len = sizeof(train_py) - 1;
		*yaml = false;
		return train_py;
	}
	asked_other++;
	return NULL;
}

static struct cpl_fixres *
resolver(void)
{
	const struct cpl_fixtext t = { text_of, NULL };

	asked_yaml = asked_py = asked_other = 0;
	return cpl_fixres_new(&t);
}

static const struct cpl_pos omp_value = { "job.yaml", 5, 12 };
static const struct cpl_pos workers = { "train.py", 1, 25 };

START_TEST(run_makes_no_edit_until_asked)
{
	struct cpl_engine *e = cpl_engine_new();
	const struct cpl_finding *f;
	size_t n, i, before = 0, reqs = 0, after = 0;

	cpl_engine_set_jobs(e, 1);
	cpl_engine_add_path(e, "testdata/rules/CPU202/bad/pytorchjob.yaml",
			    true);
	cpl_engine_run(e);
	f = cpl_engine_findings(e, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(f[0].rule->id, "CPU202");
	/* The rule said what to change; nothing was parsed for it. */
	before = f[0].nedits;
	reqs = f[0].nreqs;
	ck_assert_uint_eq(before, 0);
	ck_assert_uint_eq(reqs, 1);
	ck_assert_int_eq(f[0].reqs[0].op, CPL_FIXOP_SCALAR);
	ck_assert_str_eq(f[0].reqs[0].text, "\"1\"");
	cpl_engine_resolve_fixes(e);
	f = cpl_engine_findings(e, &n);
	ck_assert_uint_eq(f[0].nreqs, 0);
	ck_assert_uint_eq(f[0].nedits, 1);
	ck_assert_str_eq(f[0].edits[0].text, "\"1\"");
	ck_assert_int_eq(f[0].edits[0].line, 22);
	/* Again: nothing left to make. */
	cpl_engine_resolve_fixes(e);
	for (i = 0; i < n; i++)
		after += f[i].nedits;
	ck_assert_uint_eq(after, 1);
	cpl_engine_free(e);
}
END_TEST

START_TEST(edits_made_in_the_run_when_wanted)
{
	static const char path[] = "testdata/rules/CPU202/bad/pytorchjob.yaml";
	struct cpl_engine *e = cpl_engine_new();
	const struct cpl_finding *f;
	size_t n;

	cpl_engine_set_jobs(e, 1);
	cpl_engine_drop_texts(e);
	cpl_engine_want_edits(e);
	cpl_engine_add_path(e, path, true);
	cpl_engine_run(e);
	f = cpl_engine_findings(e, &n);
	ck_assert_uint_eq(n, 1);
	/* Made while the group's text was held: the text was let go after,
	 * and not read again for the edit. */
	ck_assert_uint_eq(f[0].nreqs, 0);
	ck_assert_uint_eq(f[0].nedits, 1);
	ck_assert_str_eq(f[0].edits[0].text, "\"1\"");
	ck_assert_ptr_null(cpl_engine_source_text(e, path, NULL));
	cpl_engine_resolve_fixes(e);
	ck_assert_uint_eq(f[0].nedits, 1);
	cpl_engine_free(e);
}
END_TEST

START_TEST(scalar_and_count)
{
	struct cpl_fixres *r = resolver();
	struct cpl_finding f = { 0 };

	cpl_fix_scalar(&f, &omp_value, "\"2\"");
	cpl_fix_count(&f, &workers, 8, 3);
	ck_assert(cpl_fixres_finding(r, &f));
	ck_assert_uint_eq(f.nreqs, 0);
	ck_assert_uint_eq(f.nedits, 2);
	ck_assert_str_eq(f.edits[0].file, "job.yaml");
	ck_assert_int_eq(f.edits[0].line, 5);
	ck_assert_int_eq(f.edits[0].column, 12);
	ck_assert_int_eq(f.edits[0].end_column, 15);
	ck_assert_str_eq(f.edits[0].text, "\"2\"");
	ck_assert_str_eq(f.edits[1].file, "train.py");
	ck_assert_int_eq(f.edits[1].column, 37);
	ck_assert_int_eq(f.edits[1].end_column, 38);
	ck_assert_str_eq(f.edits[1].text, "3");
	cpl_finding_free(&f);
	cpl_fixres_free(r);
}
END_TEST

START_TEST(one_text_per_file)
{
	struct cpl_fixres *r = resolver();
	struct cpl_finding f[3];
	size_t i;

	memset(f, 0, sizeof(f));
	for (i = 0; i < 3; i++) {
		cpl_fix_scalar(&f[i], &omp_value, "\"2\"");
		cpl_fix_count(&f[i], &workers, 8, 3);
		ck_assert(cpl_fixres_finding(r, &f[i]));
		ck_assert_uint_eq(f[i].nedits, 2);
	}
	ck_assert_int_eq(asked_yaml, 1);
	ck_assert_int_eq(asked_py, 1);
	/* Forgotten: the next file's findings fetch it again. */
	cpl_fixres_forget(r);
	cpl_fix_scalar(&f[0], &omp_value, "\"4\"");
	ck_assert(cpl_fixres_finding(r, &f[0]));
	ck_assert_int_eq(asked_yaml, 2);
	for (i = 0; i < 3; i++)
		cpl_finding_free(&f[i]);
	cpl_fixres_free(r);
}
END_TEST

START_TEST(missing_text_makes_nothing)
{
	struct cpl_fixres *r = resolver();
	struct cpl_finding f = { 0 };
	const struct cpl_pos gone = { "gone.yaml", 1, 1 };

	cpl_fix_scalar(&f, &gone, "\"2\"");
	ck_assert(!cpl_fixres_finding(r, &f));
	ck_assert_uint_eq(f.nedits, 0);
	ck_assert_int_eq(asked_other, 1);
	cpl_finding_free(&f);
	cpl_fixres_free(r);
}
END_TEST

START_TEST(whole_failing_drops_every_edit)
{
	struct cpl_fixres *r = resolver();
	struct cpl_finding f = { 0 };
	struct cpl_fixreq *q;

	cpl_fix_scalar(&f, &omp_value, "\"2\"");
	q = cpl_fix_add(&f, CPL_FIXOP_FAIL, CPL_FIXREQ_WHOLE);
	ck_assert_ptr_nonnull(q);
	ck_assert(!cpl_fixres_finding(r, &f));
	ck_assert_uint_eq(f.nedits, 0);
	/* Not WHOLE: the failure costs only itself. */
	cpl_fix_scalar(&f, &omp_value, "\"2\"");
	cpl_fix_add(&f, CPL_FIXOP_FAIL, 0);
	ck_assert(!cpl_fixres_finding(r, &f));
	ck_assert_uint_eq(f.nedits, 1);
	cpl_finding_free(&f);
	cpl_fixres_free(r);
}
END_TEST

START_TEST(conditions)
{
	struct cpl_fixres *r = resolver();
	struct cpl_finding f = { 0 };

	/* No split before it: an IF_SPLIT request is not tried, and its
	 * WHOLE failure drops nothing. */
	cpl_fix_scalar(&f, &omp_value, "\"2\"");
	cpl_fix_add(&f, CPL_FIXOP_FAIL, CPL_FIXREQ_IF_SPLIT |
		    CPL_FIXREQ_WHOLE);
	ck_assert(cpl_fixres_finding(r, &f));
	ck_assert_uint_eq(f.nedits, 1);
	cpl_finding_free(&f);
	/* IF_EDITS beside no edit: not tried. */
	memset(&f, 0, sizeof(f));
	cpl_fix_env_count(&f, &omp_value, 8, 2, CPL_FIXREQ_IF_EDITS);
	ck_assert(cpl_fixres_finding(r, &f));
	ck_assert_uint_eq(f.nedits, 0);
	/* Beside an edit: tried (the env's count written as a number). */
	cpl_fix_count(&f, &workers, 8, 3);
	cpl_fix_env_count(&f, &omp_value, 8, 2, CPL_FIXREQ_IF_EDITS);
	ck_assert(cpl_fixres_finding(r, &f));
	ck_assert_uint_eq(f.nedits, 2);
	ck_assert_str_eq(f.edits[1].text, "\"2\"");
	cpl_finding_free(&f);
	cpl_fixres_free(r);
}
END_TEST

static Suite *
resolve_suite(void)
{
	Suite *s = suite_create("resolve");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, run_makes_no_edit_until_asked);
	tcase_add_test(tc, edits_made_in_the_run_when_wanted);
	tcase_add_test(tc, scalar_and_count);
	tcase_add_test(tc, one_text_per_file);
	tcase_add_test(tc, missing_text_makes_nothing);
	tcase_add_test(tc, whole_failing_drops_every_edit);
	tcase_add_test(tc, conditions);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(resolve_suite)
