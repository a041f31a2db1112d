/*
 * test_report.c — the four reporters over hand-built findings: exact text
 * and github output, JSON and SARIF parsed back field by field, SARIF
 * checked against the official schema (tests/validate-sarif.py), and the
 * GitHub-compatible line fingerprints.
 *
 * The findings use rules defined here with ids outside the catalogue, so
 * only the registry tests depend on what cpl_rules_all() returns.  Every
 * finding and string a test makes is freed by the test.
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonw_ref.h"
#include "model/finding.h"
#include "model/rule.h"
#include "report/report.h"
#include "util.h"

#define SCHEMA "testdata/reference/sarif/sarif-schema-2.1.0.json"
#define VALIDATOR "tests/validate-sarif.py"

static const struct cpl_rule rule_over = {
	.id = "CPU901",
	.name = "test-oversubscribed",
	.severity = CPL_SEV_ERROR,
	.summary = "Test rule: too many threads.",
	.precision = "high",
};

static const struct cpl_rule rule_env = {
	.id = "CPU902",
	.name = "test-env-missing",
	.severity = CPL_SEV_WARNING,
	.summary = "Test rule: no thread variable.",
};

static const struct cpl_rule rule_limit = {
	.id = "CPU903",
	.name = "test-limit-missing",
	.severity = CPL_SEV_NOTE,
	.summary = "Test rule: no limit.",
};

static const struct cpl_rule rule_live = {
	.id = "CPU904",
	.name = "test-throttled",
	.severity = CPL_SEV_WARNING,
	.summary = "Test rule: throttled.",
	.live_only = true,
};

static const struct cpl_rule rule_odd = {
	.id = "CPU905",
	.name = "odd:name,x",
	.severity = CPL_SEV_WARNING,
	.summary = "Test rule with characters GitHub must escape.",
};

/* A finding at file:line:col (file NULL: none) with message and fix. */
static void
mk(struct cpl_finding *f, const struct cpl_rule *rule, enum cpl_severity sev,
   const char *file, int line, int column, const char *msg, const char *fix)
{
	memset(f, 0, sizeof(*f));
	f->rule = rule;
	f->severity = sev;
	f->file = cpl_xstrdup(file);
	f->line = line;
	f->column = column;
	f->message = cpl_xstrdup(msg);
	f->fix = cpl_xstrdup(fix);
}

/* Adds a related location to f. */
static void
add_related(struct cpl_finding *f, const char *file, int line, int column,
	    const char *msg)
{
	struct cpl_related *r;

	f->related = cpl_xrealloc(f->related,
				  (f->nrelated + 1) * sizeof(*f->related));
	r = &f->related[f->nrelated++];
	r->file = cpl_xstrdup(file);
	r->line = line;
	r->column = column;
	r->message = cpl_xstrdup(msg);
}

/* Adds an edit to f. */
static void
add_edit(struct cpl_finding *f, const char *file, int line, int column,
	 int end_line, int end_column, const char *text)
{
	struct cpl_edit *e;

	f->edits = cpl_xrealloc(f->edits, (f->nedits + 1) * sizeof(*f->edits));
	e = &f->edits[f->nedits++];
	e->file = cpl_xstrdup(file);
	e->line = line;
	e->column = column;
	e->end_line = end_line;
	e->end_column = end_column;
	e->text = cpl_xstrdup(text);
}

/* Makes f a live finding on object[container]. */
static void
mk_live(struct cpl_finding *f, const char *object, const char *container,
	const char *msg, const char *fix)
{
	mk(f, &rule_live, CPL_SEV_WARNING, NULL, 0, 0, msg, fix);
	f->object = cpl_xstrdup(object);
	f->container = cpl_xstrdup(container);
}

/* Frees the members of fs[0..n). */
static void
free_all(struct cpl_finding *fs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		cpl_finding_free(&fs[i]);
}

/*
 * The standard set, in engine order: an error with a fix, related
 * locations and edits in two files; a warning without a fix; a note whose
 * message holds quotes, '%', ',' and ':'; a suppressed warning.
 */
#define NSTD 4
static void
mk_std(struct cpl_finding fs[NSTD])
{
	mk(&fs[0], &rule_over, CPL_SEV_ERROR, "train/polyaxonfile.yaml", 12, 9,
	   "8 ranks \xc3\x97 (4 threads + 4 workers) = 64 > 8 CPUs",
	   "Set OMP_NUM_THREADS=1 and num_workers=0 as a starting point.");
	add_related(&fs[0], "train/polyaxonfile.yaml", 20, 5,
		    "nProcPerNode: 8 here");
	add_related(&fs[0], "train/train.py", 33, 40, "num_workers=4 here");
	add_edit(&fs[0], "train/polyaxonfile.yaml", 14, 7, 14, 8, "1");
	add_edit(&fs[0], "train/train.py", 33, 52, 33, 53, "0");
	add_edit(&fs[0], NULL, 15, 1, 15, 1, "  - name: X\n");
	mk(&fs[1], &rule_env, CPL_SEV_WARNING, "train/polyaxonfile.yaml", 30, 3,
	   "OMP_NUM_THREADS is not set", NULL);
	mk(&fs[2], &rule_limit, CPL_SEV_NOTE, "train/train.py", 5, 1,
	   "cpu limit \"none\", 100% used: a,b:c", "Add a limit.");
	mk(&fs[3], &rule_env, CPL_SEV_WARNING, "train/train.py", 9, 1,
	   "hidden", NULL);
	fs[3].suppressed = true;
	fs[3].suppression = cpl_xstrdup("inline comment at line 8");
}

/* The working directory, filled by std_meta(). */
static char cwd_buf[4096];

/* Meta with srcroot = the working directory and nothing else. */
static struct cpl_report_meta
std_meta(void)
{
	struct cpl_report_meta m;

	memset(&m, 0, sizeof(m));
	ck_assert_ptr_nonnull(getcwd(cwd_buf, sizeof(cwd_buf)));
	m.version = "0.1.0";
	m.srcroot = cwd_buf;
	return m;
}

/* Renders fs with the reporter called format; *rc gets end()'s value. */
static char *
render(const char *format, const struct cpl_report_meta *meta,
       const struct cpl_finding *fs, size_t n, int *rc)
{
	const struct cpl_reporter *r = cpl_reporter_find(format);
	char *buf = NULL;
	size_t len = 0, i;
	FILE *fp;
	void *st;

	ck_assert_ptr_nonnull(r);
	fp = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(fp);
	st = r->begin(fp, meta);
	for (i = 0; i < n; i++)
		r->emit(st, &fs[i]);
	*rc = r->end(st);
	ck_assert_int_eq(fclose(fp), 0);
	ck_assert_uint_eq(strlen(buf), len);
	return buf;
}

/* Renders and asserts end() succeeded. */
static char *
render_ok(const char *format, const struct cpl_report_meta *meta,
	  const struct cpl_finding *fs, size_t n)
{
	int rc;
	char *s = render(format, meta, fs, n, &rc);

	ck_assert_int_eq(rc, 0);
	return s;
}

/* Parses JSON output, failing the test on a syntax error. */
static json_t *
parse(const char *text)
{
	json_error_t err;
	json_t *j = json_loads(text, 0, &err);

	ck_assert_msg(j != NULL, "bad JSON at %d:%d: %s", err.line,
		      err.column, err.text);
	return j;
}

/* The string at obj[key]; fails when it is not a string. */
static const char *
jstr(const json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	ck_assert_msg(json_is_string(v), "%s is not a string", key);
	return json_string_value(v);
}

/* The integer at obj[key]; fails when it is not an integer. */
static long long
jint(const json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	ck_assert_msg(json_is_integer(v), "%s is not an integer", key);
	return (long long)json_integer_value(v);
}

/* Fails unless obj's keys are exactly keys, in that order. */
static void
assert_keys(const json_t *obj, const char *const *keys, size_t n)
{
	void *it = json_object_iter((json_t *)obj);
	size_t i;

	for (i = 0; i < n; i++) {
		ck_assert_msg(it != NULL, "missing key %s", keys[i]);
		ck_assert_str_eq(json_object_iter_key(it), keys[i]);
		it = json_object_iter_next((json_t *)obj, it);
	}
	ck_assert_msg(it == NULL, "extra key %s",
		      it ? json_object_iter_key(it) : "");
}

/* ---- reporter table ---------------------------------------------- */

START_TEST(test_table)
{
	static const char *const names[] = { "text", "json", "sarif",
					     "github", "junit", "gitlab",
					     "markdown" };
	size_t i;

	for (i = 0; i < 7; i++) {
		const struct cpl_reporter *r = cpl_reporter_find(names[i]);

		ck_assert_ptr_nonnull(r);
		ck_assert_str_eq(r->name, names[i]);
	}
	ck_assert_ptr_null(cpl_reporter_find("xml"));
	ck_assert_str_eq(cpl_reporter_names(),
			 "text|json|sarif|github|junit|gitlab|markdown");
}
END_TEST

START_TEST(test_write_failure)
{
	static const char *const names[] = { "text", "json", "sarif",
					     "github", "junit", "gitlab",
					     "markdown" };
	struct cpl_finding fs[NSTD];
	struct cpl_report_meta m = std_meta();
	size_t i, k;

	mk_std(fs);
	for (i = 0; i < 7; i++) {
		const struct cpl_reporter *r = cpl_reporter_find(names[i]);
		FILE *fp = fopen("/dev/full", "w");
		void *st;

		ck_assert_ptr_nonnull(fp);
		st = r->begin(fp, &m);
		for (k = 0; k < NSTD; k++)
			r->emit(st, &fs[k]);
		ck_assert_msg(r->end(st) == -1, "%s: end() ignored ENOSPC",
			      names[i]);
		(void)fclose(fp);	/* its error was end()'s to report */
	}
	free_all(fs, NSTD);
}
END_TEST

/* ---- text --------------------------------------------------------- */

START_TEST(test_text_std)
{
	struct cpl_finding fs[NSTD];
	struct cpl_report_meta m = std_meta();
	char *out;

	mk_std(fs);
	out = render_ok("text", &m, fs, NSTD);
	ck_assert_str_eq(out,
		"train/polyaxonfile.yaml:12:9: error: 8 ranks \xc3\x97 "
		"(4 threads + 4 workers) = 64 > 8 CPUs "
		"[CPU901 test-oversubscribed]\n"
		"    fix: Set OMP_NUM_THREADS=1 and num_workers=0 as a "
		"starting point.\n"
		"    note: train/polyaxonfile.yaml:20:5: nProcPerNode: 8 here\n"
		"    note: train/train.py:33:40: num_workers=4 here\n"
		"train/polyaxonfile.yaml:30:3: warning: OMP_NUM_THREADS is "
		"not set [CPU902 test-env-missing]\n"
		"train/train.py:5:1: note: cpu limit \"none\", 100% used: "
		"a,b:c [CPU903 test-limit-missing]\n"
		"    fix: Add a limit.\n"
		"3 findings (1 error, 1 warning, 1 note), 1 suppressed\n");
	free(out);
	free_all(fs, NSTD);
}
END_TEST

START_TEST(test_text_summary_forms)
{
	struct cpl_finding fs[2];
	struct cpl_report_meta m = std_meta();
	char *out;

	out = render_ok("text", &m, NULL, 0);
	ck_assert_str_eq(out, "no findings\n");
	free(out);

	mk(&fs[0], &rule_over, CPL_SEV_ERROR, "a.yaml", 1, 1, "m", NULL);
	out = render_ok("text", &m, fs, 1);
	ck_assert_str_eq(out, "a.yaml:1:1: error: m [CPU901 "
			 "test-oversubscribed]\n"
			 "1 finding (1 error, 0 warnings, 0 notes)\n");
	free(out);

	fs[0].suppressed = true;
	out = render_ok("text", &m, fs, 1);
	ck_assert_str_eq(out, "no findings, 1 suppressed\n");
	free(out);

	/* Unknown column, then unknown line: left out of the position. */
	mk(&fs[1], &rule_env, CPL_SEV_WARNING, "b.yaml", 4, 0, "w", NULL);
	fs[0].suppressed = false;
	fs[0].line = 0;
	out = render_ok("text", &m, fs, 2);
	ck_assert_str_eq(out,
		"a.yaml: error: m [CPU901 test-oversubscribed]\n"
		"b.yaml:4: warning: w [CPU902 test-env-missing]\n"
		"2 findings (1 error, 1 warning, 0 notes)\n");
	free(out);
	free_all(fs, 2);
}
END_TEST

START_TEST(test_text_live)
{
	struct cpl_finding fs[2];
	struct cpl_report_meta m = std_meta();
	char *out;

	mk_live(&fs[0], "pod/ml/train-0", "trainer",
		"throttled 42% of periods", "Raise the CPU limit.");
	mk_live(&fs[1], "pod/ml/train-1", NULL, "no container", NULL);
	fs[1].severity = CPL_SEV_NOTE;
	out = render_ok("text", &m, fs, 2);
	ck_assert_str_eq(out,
		"pod/ml/train-0[trainer]: warning: throttled 42% of periods "
		"[CPU904 test-throttled]\n"
		"    fix: Raise the CPU limit.\n"
		"pod/ml/train-1: note: no container [CPU904 test-throttled]\n"
		"2 findings (0 errors, 1 warning, 1 note)\n");
	free(out);
	free_all(fs, 2);
}
END_TEST

START_TEST(test_text_special)
{
	struct cpl_finding f;
	struct cpl_report_meta m = std_meta();
	char *out;

	mk(&f, &rule_over, CPL_SEV_ERROR, "dir with space/tr\xc3\xa4nk.yaml",
	   1, 2, "line one\nline \"two\"\tend\x1b[31m", "first\nsecond");
	add_related(&f, "x.py", 3, 4, "why\nbecause");
	out = render_ok("text", &m, &f, 1);
	ck_assert_str_eq(out,
		"dir with space/tr\xc3\xa4nk.yaml:1:2: error: line one\\n"
		"line \"two\"\\tend\\x1b[31m [CPU901 test-oversubscribed]\n"
		"    fix: first\\nsecond\n"
		"    note: x.py:3:4: why\\nbecause\n"
		"1 finding (1 error, 0 warnings, 0 notes)\n");
	free(out);
	cpl_finding_free(&f);
}
END_TEST

START_TEST(test_text_color)
{
	struct cpl_finding fs[3];
	struct cpl_report_meta m = std_meta();
	char *out;

	m.color = true;
	mk(&fs[0], &rule_over, CPL_SEV_ERROR, "a.yaml", 1, 2, "e", "f");
	mk(&fs[1], &rule_env, CPL_SEV_WARNING, "a.yaml", 3, 4, "w", NULL);
	add_related(&fs[1], "b.py", 5, 6, "r");
	mk_live(&fs[2], "pod/ns/p", "c", "n", NULL);
	fs[2].severity = CPL_SEV_NOTE;
	out = render_ok("text", &m, fs, 3);
	ck_assert_str_eq(out,
		"\033[1ma.yaml:1:2:\033[0m \033[31merror:\033[0m e "
		"[CPU901 test-oversubscribed]\n"
		"    fix: f\n"
		"\033[1ma.yaml:3:4:\033[0m \033[33mwarning:\033[0m w "
		"[CPU902 test-env-missing]\n"
		"    \033[36mnote:\033[0m b.py:5:6: r\n"
		"\033[1mpod/ns/p[c]:\033[0m \033[36mnote:\033[0m n "
		"[CPU904 test-throttled]\n"
		"3 findings (1 error, 1 warning, 1 note)\n");
	free(out);
	free_all(fs, 3);
}
END_TEST

/* ---- json --------------------------------------------------------- */

START_TEST(test_json_std)
{
	static const char *const root_keys[] = { "version", "findings",
						 "budgets", "summary", "skipped",
						 "errors" };
	static const char *const finding_keys[] = {
		"rule", "name", "severity", "file", "line", "column",
		"object", "container", "message", "fix", "related", "edits",
		"applicability",	/* findings with edits only */
	};
	static const char *const related_keys[] = { "file", "line", "column",
						    "message" };
	static const char *const edit_keys[] = { "file", "line", "column",
						 "end_line", "end_column",
						 "text" };
	static const char *const summary_keys[] = { "errors", "warnings",
						    "notes", "suppressed" };
	struct cpl_finding fs[NSTD];
	struct cpl_error errs[2] = {
		{ .path = (char *)"bad.yaml", .line = 3, .column = 7,
		  .message = (char *)"mapping values are not allowed here" },
		{ .message = (char *)"cluster: 403" },
	};
	struct cpl_report_meta m = std_meta();
	json_t *root, *arr, *f, *r, *e, *sum;
	char *out;
	size_t len;

	m.errors = errs;
	m.nerrors = 2;
	mk_std(fs);
	out = render_ok("json", &m, fs, NSTD);
	len = strlen(out);
	ck_assert(cpl_str_starts(out, "{\n  \"version\": 1,\n  \"findings\": "
				 "[\n    {\n      \"rule\": \"CPU901\",\n"));
	ck_assert(len > 2 && out[len - 1] == '\n' && out[len - 2] == '}');
	root = parse(out);
	assert_keys(root, root_keys, 6);
	ck_assert_int_eq(jint(root, "version"), 1);
	arr = json_object_get(root, "findings");
	/* The suppressed finding is left out. */
	ck_assert_uint_eq(json_array_size(arr), 3);

	f = json_array_get(arr, 0);
	assert_keys(f, finding_keys, 13);
	ck_assert_str_eq(jstr(f, "applicability"), "safe");
	ck_assert_str_eq(jstr(f, "rule"), "CPU901");
	ck_assert_str_eq(jstr(f, "name"), "test-oversubscribed");
	ck_assert_str_eq(jstr(f, "severity"), "error");
	ck_assert_str_eq(jstr(f, "file"), "train/polyaxonfile.yaml");
	ck_assert_int_eq(jint(f, "line"), 12);
	ck_assert_int_eq(jint(f, "column"), 9);
	ck_assert(json_is_null(json_object_get(f, "object")));
	ck_assert(json_is_null(json_object_get(f, "container")));
	ck_assert_str_eq(jstr(f, "message"), "8 ranks \xc3\x97 (4 threads + "
			 "4 workers) = 64 > 8 CPUs");
	ck_assert_str_eq(jstr(f, "fix"), "Set OMP_NUM_THREADS=1 and "
			 "num_workers=0 as a starting point.");
	ck_assert_uint_eq(json_array_size(json_object_get(f, "related")), 2);
	r = json_array_get(json_object_get(f, "related"), 1);
	assert_keys(r, related_keys, 4);
	ck_assert_str_eq(jstr(r, "file"), "train/train.py");
	ck_assert_int_eq(jint(r, "line"), 33);
	ck_assert_int_eq(jint(r, "column"), 40);
	ck_assert_str_eq(jstr(r, "message"), "num_workers=4 here");
	ck_assert_uint_eq(json_array_size(json_object_get(f, "edits")), 3);
	e = json_array_get(json_object_get(f, "edits"), 0);
	assert_keys(e, edit_keys, 6);
	ck_assert_str_eq(jstr(e, "file"), "train/polyaxonfile.yaml");
	ck_assert_int_eq(jint(e, "line"), 14);
	ck_assert_int_eq(jint(e, "column"), 7);
	ck_assert_int_eq(jint(e, "end_line"), 14);
	ck_assert_int_eq(jint(e, "end_column"), 8);
	ck_assert_str_eq(jstr(e, "text"), "1");
	e = json_array_get(json_object_get(f, "edits"), 2);
	ck_assert(json_is_null(json_object_get(e, "file")));
	ck_assert_str_eq(jstr(e, "text"), "  - name: X\n");

	f = json_array_get(arr, 1);
	assert_keys(f, finding_keys, 12);	/* no edits: no applicability */
	ck_assert_str_eq(jstr(f, "severity"), "warning");
	ck_assert(json_is_null(json_object_get(f, "fix")));
	ck_assert_uint_eq(json_array_size(json_object_get(f, "related")), 0);
	ck_assert_uint_eq(json_array_size(json_object_get(f, "edits")), 0);
	f = json_array_get(arr, 2);
	ck_assert_str_eq(jstr(f, "severity"), "note");
	ck_assert_str_eq(jstr(f, "message"),
			 "cpu limit \"none\", 100% used: a,b:c");

	sum = json_object_get(root, "summary");
	assert_keys(sum, summary_keys, 4);
	ck_assert_int_eq(jint(sum, "errors"), 1);
	ck_assert_int_eq(jint(sum, "warnings"), 1);
	ck_assert_int_eq(jint(sum, "notes"), 1);
	ck_assert_int_eq(jint(sum, "suppressed"), 1);

	arr = json_object_get(root, "errors");
	ck_assert_uint_eq(json_array_size(arr), 2);
	e = json_array_get(arr, 0);
	assert_keys(e, related_keys, 4);
	ck_assert_str_eq(jstr(e, "file"), "bad.yaml");
	ck_assert_int_eq(jint(e, "line"), 3);
	ck_assert_int_eq(jint(e, "column"), 7);
	ck_assert_str_eq(jstr(e, "message"),
			 "mapping values are not allowed here");
	e = json_array_get(arr, 1);
	ck_assert(json_is_null(json_object_get(e, "file")));
	ck_assert_int_eq(jint(e, "line"), 0);
	ck_assert_str_eq(jstr(e, "message"), "cluster: 403");
	json_decref(root);
	free(out);
	free_all(fs, NSTD);
}
END_TEST

START_TEST(test_json_live_and_special)
{
	struct cpl_finding fs[2];
	struct cpl_report_meta m = std_meta();
	json_t *root, *f;
	char *out;

	mk_live(&fs[0], "pod/ml/train-0", "trainer", "42%", NULL);
	mk(&fs[1], &rule_over, CPL_SEV_ERROR, "dir with space/\xe2\x82\xac.py",
	   2, 3, "quote \" back \\ nl\n tab\t pct % comma , colon : "
	   "bad \xff\xc3 end", NULL);
	out = render_ok("json", &m, fs, 2);
	root = parse(out);
	f = json_array_get(json_object_get(root, "findings"), 0);
	ck_assert(json_is_null(json_object_get(f, "file")));
	ck_assert_int_eq(jint(f, "line"), 0);
	ck_assert_str_eq(jstr(f, "object"), "pod/ml/train-0");
	ck_assert_str_eq(jstr(f, "container"), "trainer");
	ck_assert_str_eq(jstr(f, "rule"), "CPU904");
	f = json_array_get(json_object_get(root, "findings"), 1);
	ck_assert_str_eq(jstr(f, "file"), "dir with space/\xe2\x82\xac.py");
	/* Ill-formed UTF-8 becomes U+FFFD, one per maximal subpart. */
	ck_assert_str_eq(jstr(f, "message"),
			 "quote \" back \\ nl\n tab\t pct % comma , colon : "
			 "bad \xef\xbf\xbd\xef\xbf\xbd end");
	ck_assert_int_eq(jint(json_object_get(root, "summary"), "errors"), 1);
	ck_assert_uint_eq(json_array_size(json_object_get(root, "errors")), 0);
	json_decref(root);
	free(out);
	free_all(fs, 2);
}
END_TEST

START_TEST(test_json_clean)
{
	struct cpl_report_meta m = std_meta();
	char *out = render_ok("json", &m, NULL, 0);

	ck_assert_str_eq(out,
		"{\n"
		"  \"version\": 1,\n"
		"  \"findings\": [],\n"
		"  \"budgets\": [],\n"
		"  \"summary\": {\n"
		"    \"errors\": 0,\n"
		"    \"warnings\": 0,\n"
		"    \"notes\": 0,\n"
		"    \"suppressed\": 0\n"
		"  },\n"
		"  \"skipped\": [],\n"
		"  \"errors\": []\n"
		"}\n");
	free(out);
}
END_TEST

/* ---- sarif -------------------------------------------------------- */

/* Writes text to a new temporary file; returns its name (caller frees). */
static char *
write_temp(const char *text)
{
	char *name = cpl_xstrdup("/tmp/cpulint-sarif-XXXXXX");
	int fd = mkstemp(name);
	size_t len = strlen(text);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
	ck_assert_int_eq(close(fd), 0);
	return name;
}

/* Runs the schema validator on text; returns its exit status. */
static int
validate_quiet(const char *text, bool quiet)
{
	char *name = write_temp(text);
	char *cmd = cpl_xasprintf("python3 " VALIDATOR " " SCHEMA " %s%s",
				  name, quiet ? " 2>/dev/null" : "");
	int rc = system(cmd);

	ck_assert_int_eq(unlink(name), 0);
	free(name);
	free(cmd);
	ck_assert_int_ne(rc, -1);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

/* Validates text, letting the validator name what fails on stderr. */
static int
validate(const char *text)
{
	return validate_quiet(text, false);
}

/* runs[0] of a SARIF log, after checking the log's header. */
static json_t *
sarif_run(json_t *log)
{
	json_t *runs = json_object_get(log, "runs");

	ck_assert_str_eq(jstr(log, "$schema"),
			 "https://json.schemastore.org/sarif-2.1.0.json");
	ck_assert_str_eq(jstr(log, "version"), "2.1.0");
	ck_assert_uint_eq(json_array_size(runs), 1);
	return json_array_get(runs, 0);
}

/* runs[0].results[i]. */
static json_t *
sarif_result(json_t *log, size_t i)
{
	return json_array_get(json_object_get(sarif_run(log), "results"), i);
}

/* results[i].locations[0].physicalLocation.artifactLocation. */
static json_t *
result_artifact(json_t *log, size_t i)
{
	json_t *loc = json_array_get(json_object_get(sarif_result(log, i),
						     "locations"), 0);

	return json_object_get(json_object_get(loc, "physicalLocation"),
			       "artifactLocation");
}

START_TEST(test_sarif_std)
{
	struct cpl_finding fs[NSTD];
	struct cpl_report_meta m = std_meta();
	json_t *log, *run, *drv, *r, *loc, *rel, *fix, *chg, *rep, *reg;
	char *out, *root_uri;

	mk_std(fs);
	m.command_line = "kubectl-cpulint -o sarif .";
	out = render_ok("sarif", &m, fs, NSTD);
	ck_assert_int_eq(validate(out), 0);
	log = parse(out);
	run = sarif_run(log);
	drv = json_object_get(json_object_get(run, "tool"), "driver");
	ck_assert_str_eq(jstr(drv, "name"), "kubectl-cpulint");
	ck_assert_str_eq(jstr(drv, "version"), "0.1.0");
	ck_assert_str_eq(jstr(drv, "semanticVersion"), "0.1.0");
	ck_assert_str_eq(jstr(drv, "informationUri"),
			 "https://github.com/kubectl-cpulint/kubectl-cpulint");

	r = json_object_get(json_array_get(json_object_get(run,
							   "invocations"), 0),
			    "commandLine");
	ck_assert_str_eq(json_string_value(r),
			 "kubectl-cpulint -o sarif .");
	ck_assert(json_is_true(json_object_get(json_array_get(
		json_object_get(run, "invocations"), 0),
		"executionSuccessful")));
	root_uri = cpl_xasprintf("file://%s/", cwd_buf);
	if (strpbrk(cwd_buf, " %#?") == NULL)	/* else it is encoded */
		ck_assert_str_eq(jstr(json_object_get(json_object_get(run,
			"originalUriBaseIds"), "%SRCROOT%"), "uri"), root_uri);
	free(root_uri);
	/* Suppressed findings stay in SARIF. */
	ck_assert_uint_eq(json_array_size(json_object_get(run, "results")),
			  NSTD);

	r = sarif_result(log, 0);
	ck_assert_str_eq(jstr(r, "ruleId"), "CPU901");
	ck_assert_ptr_null(json_object_get(r, "ruleIndex"));
	ck_assert_str_eq(jstr(r, "level"), "error");
	ck_assert_str_eq(jstr(json_object_get(r, "message"), "text"),
			 "8 ranks \xc3\x97 (4 threads + 4 workers) = 64 > 8 "
			 "CPUs\n\nFix: Set OMP_NUM_THREADS=1 and "
			 "num_workers=0 as a starting point.");
	loc = json_object_get(json_array_get(json_object_get(r, "locations"),
					     0), "physicalLocation");
	ck_assert_str_eq(jstr(json_object_get(loc, "artifactLocation"), "uri"),
			 "train/polyaxonfile.yaml");
	ck_assert_str_eq(jstr(json_object_get(loc, "artifactLocation"),
			      "uriBaseId"), "%SRCROOT%");
	ck_assert_int_eq(jint(json_object_get(loc, "region"), "startLine"), 12);
	ck_assert_int_eq(jint(json_object_get(loc, "region"), "startColumn"),
			 9);
	/* No source text in meta: no line hash, only its own print. */
	ck_assert_ptr_null(json_object_get(json_object_get(r,
		"partialFingerprints"), "primaryLocationLineHash"));
	ck_assert_ptr_nonnull(json_object_get(json_object_get(r,
		"partialFingerprints"), "cpulint/v1"));
	ck_assert_ptr_null(json_object_get(r, "suppressions"));

	rel = json_object_get(r, "relatedLocations");
	ck_assert_uint_eq(json_array_size(rel), 2);
	ck_assert_int_eq(jint(json_array_get(rel, 0), "id"), 1);
	ck_assert_int_eq(jint(json_array_get(rel, 1), "id"), 2);
	ck_assert_str_eq(jstr(json_object_get(json_array_get(rel, 1),
					      "message"), "text"),
			 "num_workers=4 here");
	loc = json_object_get(json_array_get(rel, 1), "physicalLocation");
	ck_assert_str_eq(jstr(json_object_get(loc, "artifactLocation"), "uri"),
			 "train/train.py");
	ck_assert_int_eq(jint(json_object_get(loc, "region"), "startLine"), 33);
	ck_assert_int_eq(jint(json_object_get(loc, "region"), "startColumn"),
			 40);

	/* One fix; edits grouped by file in first-seen order. */
	ck_assert_uint_eq(json_array_size(json_object_get(r, "fixes")), 1);
	fix = json_array_get(json_object_get(r, "fixes"), 0);
	ck_assert_str_eq(jstr(json_object_get(fix, "description"), "text"),
			 "Set OMP_NUM_THREADS=1 and num_workers=0 as a "
			 "starting point.");
	chg = json_object_get(fix, "artifactChanges");
	ck_assert_uint_eq(json_array_size(chg), 2);
	ck_assert_str_eq(jstr(json_object_get(json_array_get(chg, 0),
					      "artifactLocation"), "uri"),
			 "train/polyaxonfile.yaml");
	rep = json_object_get(json_array_get(chg, 0), "replacements");
	ck_assert_uint_eq(json_array_size(rep), 2);
	reg = json_object_get(json_array_get(rep, 0), "deletedRegion");
	ck_assert_int_eq(jint(reg, "startLine"), 14);
	ck_assert_int_eq(jint(reg, "startColumn"), 7);
	ck_assert_int_eq(jint(reg, "endLine"), 14);
	ck_assert_int_eq(jint(reg, "endColumn"), 8);
	ck_assert_str_eq(jstr(json_object_get(json_array_get(rep, 0),
					      "insertedContent"), "text"), "1");
	reg = json_object_get(json_array_get(rep, 1), "deletedRegion");
	ck_assert_int_eq(jint(reg, "startLine"), 15);
	ck_assert_int_eq(jint(reg, "endColumn"), 1);
	ck_assert_str_eq(jstr(json_object_get(json_array_get(rep, 1),
					      "insertedContent"), "text"),
			 "  - name: X\n");
	ck_assert_str_eq(jstr(json_object_get(json_array_get(chg, 1),
					      "artifactLocation"), "uri"),
			 "train/train.py");
	rep = json_object_get(json_array_get(chg, 1), "replacements");
	ck_assert_uint_eq(json_array_size(rep), 1);

	r = sarif_result(log, 1);
	ck_assert_str_eq(jstr(r, "level"), "warning");
	ck_assert_str_eq(jstr(json_object_get(r, "message"), "text"),
			 "OMP_NUM_THREADS is not set");
	ck_assert_ptr_null(json_object_get(r, "fixes"));
	ck_assert_ptr_null(json_object_get(r, "relatedLocations"));
	r = sarif_result(log, 2);
	ck_assert_str_eq(jstr(r, "level"), "note");
	r = sarif_result(log, 3);
	ck_assert_str_eq(jstr(r, "level"), "warning");
	r = json_array_get(json_object_get(r, "suppressions"), 0);
	ck_assert_str_eq(jstr(r, "kind"), "inSource");
	ck_assert_str_eq(jstr(r, "justification"), "inline comment at line 8");
	json_decref(log);
	free(out);
	free_all(fs, NSTD);
}
END_TEST

START_TEST(test_sarif_registry)
{
	const struct cpl_rule *const *all;
	struct cpl_finding f;
	struct cpl_report_meta m = std_meta();
	json_t *log, *rules, *rd, *props;
	char *out, *uri;
	size_t n, i;

	all = cpl_rules_all(&n);
	if (n > 0)
		mk(&f, all[n - 1], all[n - 1]->severity, "a.yaml", 1, 1, "m",
		   NULL);
	else
		mk(&f, &rule_over, CPL_SEV_ERROR, "a.yaml", 1, 1, "m", NULL);
	out = render_ok("sarif", &m, &f, 1);
	ck_assert_int_eq(validate(out), 0);
	log = parse(out);
	rules = json_object_get(json_object_get(json_object_get(
		sarif_run(log), "tool"), "driver"), "rules");
	ck_assert(json_is_array(rules));
	ck_assert_uint_eq(json_array_size(rules), n);
	for (i = 0; i < n; i++) {
		const char *doc = cpl_rule_doc(all[i]);

		rd = json_array_get(rules, i);
		ck_assert_str_eq(jstr(rd, "id"), all[i]->id);
		ck_assert_str_eq(jstr(rd, "name"), all[i]->name);
		ck_assert_str_eq(jstr(json_object_get(rd, "shortDescription"),
				      "text"), all[i]->summary);
		ck_assert(json_is_string(json_object_get(json_object_get(
			rd, "fullDescription"), "text")));
		if (doc) {
			ck_assert_str_eq(jstr(json_object_get(rd, "help"),
					      "text"), doc);
			ck_assert_str_eq(jstr(json_object_get(rd, "help"),
					      "markdown"), doc);
		} else {
			ck_assert_ptr_null(json_object_get(rd, "help"));
		}
		uri = cpl_xasprintf("https://github.com/kubectl-cpulint/"
				    "kubectl-cpulint/blob/main/rules/%s.md",
				    all[i]->id);
		ck_assert_str_eq(jstr(rd, "helpUri"), uri);
		free(uri);
		ck_assert_str_eq(jstr(json_object_get(rd,
				"defaultConfiguration"), "level"),
				 cpl_severity_name(all[i]->severity));
		props = json_object_get(rd, "properties");
		ck_assert_str_eq(jstr(props, "problem.severity"),
				 all[i]->severity == CPL_SEV_NOTE ?
				 "recommendation" :
				 cpl_severity_name(all[i]->severity));
		if (all[i]->precision)
			ck_assert_str_eq(jstr(props, "precision"),
					 all[i]->precision);
		ck_assert_str_eq(json_string_value(json_array_get(
			json_object_get(props, "tags"), 0)), "cpu");
		ck_assert_str_eq(json_string_value(json_array_get(
			json_object_get(props, "tags"), 1)), "performance");
	}
	if (n > 0) {
		ck_assert_str_eq(jstr(sarif_result(log, 0), "ruleId"),
				 all[n - 1]->id);
		ck_assert_int_eq(jint(sarif_result(log, 0), "ruleIndex"),
				 (long long)n - 1);
	} else {
		ck_assert_ptr_null(json_object_get(sarif_result(log, 0),
						   "ruleIndex"));
	}
	json_decref(log);
	free(out);
	cpl_finding_free(&f);
}
END_TEST

START_TEST(test_sarif_uris)
{
	struct cpl_finding fs[7];
	struct cpl_report_meta m = std_meta();
	json_t *log, *a;
	char *out, *inside = cpl_xasprintf("%s/abs in/\xc3\xbc.yaml", cwd_buf);
	char *parent;

	mk(&fs[0], &rule_env, CPL_SEV_WARNING, "./train/../train/x.py", 1, 1,
	   "m", NULL);
	mk(&fs[1], &rule_env, CPL_SEV_WARNING, inside, 1, 1, "m", NULL);
	mk(&fs[2], &rule_env, CPL_SEV_WARNING, "a#b?c%d:e [f].yaml", 1, 1,
	   "m", NULL);
	mk(&fs[3], &rule_env, CPL_SEV_WARNING, "/nonexistent/x y.yaml", 1, 1,
	   "m", NULL);
	mk(&fs[4], &rule_env, CPL_SEV_WARNING, "../outside.yaml", 1, 1, "m",
	   NULL);
	mk(&fs[5], &rule_env, CPL_SEV_WARNING, "k8s//job.yaml", 0, 0, "m",
	   NULL);
	mk(&fs[6], &rule_env, CPL_SEV_WARNING, "d\xe2\x82\xac/\xf0\x9f\x98\x80",
	   2, 0, "m", NULL);
	out = render_ok("sarif", &m, fs, 7);
	ck_assert_int_eq(validate(out), 0);
	log = parse(out);
	a = result_artifact(log, 0);
	ck_assert_str_eq(jstr(a, "uri"), "train/x.py");
	ck_assert_str_eq(jstr(a, "uriBaseId"), "%SRCROOT%");
	a = result_artifact(log, 1);
	ck_assert_str_eq(jstr(a, "uri"), "abs%20in/%C3%BC.yaml");
	ck_assert_str_eq(jstr(a, "uriBaseId"), "%SRCROOT%");
	a = result_artifact(log, 2);
	ck_assert_str_eq(jstr(a, "uri"),
			 "a%23b%3Fc%25d%3Ae%20%5Bf%5D.yaml");
	a = result_artifact(log, 3);
	ck_assert_str_eq(jstr(a, "uri"), "file:///nonexistent/x%20y.yaml");
	ck_assert_ptr_null(json_object_get(a, "uriBaseId"));
	a = result_artifact(log, 4);
	parent = strrchr(cwd_buf, '/');
	ck_assert_ptr_nonnull(parent);
	ck_assert(cpl_str_starts(jstr(a, "uri"), "file:///"));
	ck_assert(cpl_str_ends(jstr(a, "uri"), "/outside.yaml"));
	ck_assert_ptr_null(strstr(jstr(a, "uri"), ".."));
	ck_assert_ptr_null(json_object_get(a, "uriBaseId"));
	a = result_artifact(log, 5);
	ck_assert_str_eq(jstr(a, "uri"), "k8s/job.yaml");
	/* Line 0: no region at all; column 0: startLine only. */
	ck_assert_ptr_null(json_object_get(json_object_get(json_array_get(
		json_object_get(sarif_result(log, 5), "locations"), 0),
		"physicalLocation"), "region"));
	a = result_artifact(log, 6);
	ck_assert_str_eq(jstr(a, "uri"), "d%E2%82%AC/%F0%9F%98%80");
	a = json_object_get(json_object_get(json_array_get(json_object_get(
		sarif_result(log, 6), "locations"), 0), "physicalLocation"),
		"region");
	ck_assert_int_eq(jint(a, "startLine"), 2);
	ck_assert_ptr_null(json_object_get(a, "startColumn"));
	json_decref(log);
	free(out);
	free(inside);
	free_all(fs, 7);
}
END_TEST

START_TEST(test_sarif_srcroot)
{
	struct cpl_finding fs[3];
	struct cpl_report_meta m = std_meta();
	json_t *log, *a;
	char *out;

	m.srcroot = "/srv/my repo/./";
	mk(&fs[0], &rule_env, CPL_SEV_WARNING, "/srv/my repo/k8s/job.yaml", 4,
	   2, "m", NULL);
	mk(&fs[1], &rule_env, CPL_SEV_WARNING, "/srv/my repository/x.yaml",
	   4, 2, "m", NULL);
	mk(&fs[2], &rule_env, CPL_SEV_WARNING, "/srv/my repo", 4, 2, "m",
	   NULL);
	out = render_ok("sarif", &m, fs, 3);
	ck_assert_int_eq(validate(out), 0);
	log = parse(out);
	ck_assert_str_eq(jstr(json_object_get(json_object_get(sarif_run(log),
		"originalUriBaseIds"), "%SRCROOT%"), "uri"),
		"file:///srv/my%20repo/");
	a = result_artifact(log, 0);
	ck_assert_str_eq(jstr(a, "uri"), "k8s/job.yaml");
	ck_assert_str_eq(jstr(a, "uriBaseId"), "%SRCROOT%");
	/* A sibling sharing the prefix is outside the root. */
	a = result_artifact(log, 1);
	ck_assert_str_eq(jstr(a, "uri"), "file:///srv/my%20repository/x.yaml");
	ck_assert_ptr_null(json_object_get(a, "uriBaseId"));
	a = result_artifact(log, 2);
	ck_assert_str_eq(jstr(a, "uri"), "file:///srv/my%20repo");
	json_decref(log);
	free(out);

	m.srcroot = "/";
	out = render_ok("sarif", &m, fs, 1);
	log = parse(out);
	ck_assert_str_eq(jstr(json_object_get(json_object_get(sarif_run(log),
		"originalUriBaseIds"), "%SRCROOT%"), "uri"), "file:///");
	ck_assert_str_eq(jstr(result_artifact(log, 0), "uri"),
			 "srv/my%20repo/k8s/job.yaml");
	json_decref(log);
	free(out);
	free_all(fs, 3);
}
END_TEST

START_TEST(test_sarif_stdin)
{
	struct cpl_finding f;
	struct cpl_report_meta m = std_meta();
	json_t *log, *art;
	char *out;

	mk(&f, &rule_over, CPL_SEV_ERROR, CPL_REPORT_STDIN, 7, 3, "m", NULL);
	out = render_ok("sarif", &m, &f, 1);
	ck_assert_int_eq(validate(out), 0);
	log = parse(out);
	art = result_artifact(log, 0);
	ck_assert_str_eq(jstr(art, "uri"), "stdin");
	ck_assert_ptr_null(json_object_get(art, "uriBaseId"));
	ck_assert_str_eq(jstr(json_object_get(art, "description"), "text"),
			 "the standard input stream");
	json_decref(log);
	free(out);
	out = render_ok("github", &m, &f, 1);
	ck_assert_str_eq(out, "::error title=CPU901 test-oversubscribed::"
			 "<stdin>:7:3: m\n"
			 "kubectl-cpulint: 1 finding (1 error, 0 warnings, "
			 "0 notes)\n");
	free(out);
	free_all(&f, 1);
}
END_TEST

/* Past 25,000 results the most severe are kept, in their order. */
START_TEST(test_sarif_result_limit)
{
	size_t n = CPL_REPORT_SARIF_MAX_RESULTS + 3, i, dropped = 99;
	struct cpl_finding *fs = cpl_xcalloc(n, sizeof(*fs));
	struct cpl_report_meta m = std_meta();
	json_t *log, *res, *note;
	char *out;

	/* notes first; the last three are an error, a warning and a
	 * suppressed error, so file order alone would drop them */
	for (i = 0; i < n - 3; i++)
		mk(&fs[i], &rule_limit, CPL_SEV_NOTE, "a.yaml", (int)i + 1, 1,
		   "n", NULL);
	mk(&fs[n - 3], &rule_over, CPL_SEV_ERROR, "b.yaml", 1, 1, "e", NULL);
	mk(&fs[n - 2], &rule_env, CPL_SEV_WARNING, "b.yaml", 2, 1, "w", NULL);
	mk(&fs[n - 1], &rule_over, CPL_SEV_ERROR, "b.yaml", 3, 1, "s", NULL);
	fs[n - 1].suppressed = true;
	m.dropped = &dropped;
	out = render_ok("sarif", &m, fs, n);
	ck_assert_uint_eq(dropped, 3);
	log = parse(out);
	res = json_object_get(sarif_run(log), "results");
	ck_assert_uint_eq(json_array_size(res), CPL_REPORT_SARIF_MAX_RESULTS);
	/* the notes at the end of a.yaml went: 3 = 2 notes + the
	 * suppressed error (ranked after every unsuppressed result) */
	ck_assert_str_eq(jstr(json_object_get(json_array_get(res,
		CPL_REPORT_SARIF_MAX_RESULTS - 2), "message"), "text"), "e");
	ck_assert_str_eq(jstr(json_object_get(json_array_get(res,
		CPL_REPORT_SARIF_MAX_RESULTS - 1), "message"), "text"), "w");
	note = json_array_get(json_object_get(json_array_get(json_object_get(
		sarif_run(log), "invocations"), 0),
		"toolExecutionNotifications"), 0);
	ck_assert_str_eq(jstr(note, "level"), "warning");
	ck_assert_str_eq(jstr(json_object_get(note, "message"), "text"),
			 "3 results were left out: code scanning takes at "
			 "most 25000 results per run, so the most severe "
			 "were kept");
	ck_assert(json_is_true(json_object_get(json_array_get(
		json_object_get(sarif_run(log), "invocations"), 0),
		"executionSuccessful")));
	json_decref(log);
	free(out);
	/* at the limit nothing is dropped */
	dropped = 99;
	out = render_ok("sarif", &m, fs + 3, n - 3);
	ck_assert_uint_eq(dropped, 0);
	free(out);
	free_all(fs, n);
	free(fs);
}
END_TEST

START_TEST(test_sarif_live)
{
	struct cpl_finding fs[2];
	struct cpl_report_meta m = std_meta();
	json_t *log, *loc, *l;
	char *out;

	mk_live(&fs[0], "pod/ml/train-0", "trainer", "throttled 42%",
		"Raise the limit.");
	mk_live(&fs[1], "pod/ml/train-1", NULL, "m", NULL);
	out = render_ok("sarif", &m, fs, 2);
	ck_assert_int_eq(validate(out), 0);
	log = parse(out);
	loc = json_array_get(json_object_get(sarif_result(log, 0),
					     "locations"), 0);
	ck_assert_ptr_null(json_object_get(loc, "physicalLocation"));
	ck_assert_uint_eq(json_array_size(json_object_get(loc,
		"logicalLocations")), 1);
	l = json_array_get(json_object_get(loc, "logicalLocations"), 0);
	ck_assert_str_eq(jstr(l, "fullyQualifiedName"),
			 "pod/ml/train-0/trainer");
	ck_assert_str_eq(jstr(l, "name"), "trainer");
	ck_assert_str_eq(jstr(l, "kind"), "object");
	ck_assert_str_eq(jstr(json_object_get(sarif_result(log, 0),
					      "message"), "text"),
			 "throttled 42%\n\nFix: Raise the limit.");
	ck_assert_ptr_null(json_object_get(json_object_get(sarif_result(log,
		0), "partialFingerprints"), "primaryLocationLineHash"));
	l = json_array_get(json_object_get(json_array_get(json_object_get(
		sarif_result(log, 1), "locations"), 0), "logicalLocations"), 0);
	ck_assert_str_eq(jstr(l, "fullyQualifiedName"), "pod/ml/train-1");
	ck_assert_str_eq(jstr(l, "name"), "train-1");
	json_decref(log);
	free(out);
	free_all(fs, 2);
}
END_TEST

/* Documents holding containers that were not judged: the text summary
 * counts them and names their kinds, JSON lists them, SARIF notes each;
 * a run with none says nothing of them. */
START_TEST(test_not_judged)
{
	static const struct cpl_report_skip sk[3] = {
		{ "wf.yaml", 12, 7, "Workflow", "a manifest in Workflow",
		  "not YAML until its placeholders are filled in" },
		{ "odd.yaml", 1, 1, "Odd", "Odd \"o\"",
		  "its containers are not in Pod templates cpulint can read" },
		{ "odd.yaml", 9, 1, "Odd", "Odd \"p\"", "nested too deep" },
	};
	struct cpl_report_meta m = std_meta();
	json_t *root, *arr, *k, *inv, *n, *loc;
	char *out;

	out = render_ok("text", &m, NULL, 0);
	ck_assert_str_eq(out, "no findings\n");
	free(out);
	m.skipped = sk;
	m.nskipped = 3;
	out = render_ok("text", &m, NULL, 0);
	ck_assert_str_eq(out, "no findings, 3 documents with containers not "
			 "judged (kinds: Odd, Workflow); -v lists them\n");
	free(out);
	m.nskipped = 1;
	out = render_ok("text", &m, NULL, 0);
	ck_assert_str_eq(out, "no findings, 1 document with containers not "
			 "judged (kinds: Workflow); -v lists them\n");
	free(out);

	m.nskipped = 3;
	out = render_ok("json", &m, NULL, 0);
	root = parse(out);
	arr = json_object_get(root, "skipped");
	ck_assert_uint_eq(json_array_size(arr), 3);
	k = json_array_get(arr, 1);
	ck_assert_str_eq(jstr(k, "file"), "odd.yaml");
	ck_assert_int_eq(jint(k, "line"), 1);
	ck_assert_str_eq(jstr(k, "kind"), "Odd");
	ck_assert_str_eq(jstr(k, "object"), "Odd \"o\"");
	ck_assert_str_eq(jstr(k, "reason"), "its containers are not in Pod "
			 "templates cpulint can read");
	json_decref(root);
	free(out);

	out = render_ok("sarif", &m, NULL, 0);
	ck_assert_int_eq(validate(out), 0);
	root = parse(out);
	inv = json_array_get(json_object_get(sarif_run(root), "invocations"),
			     0);
	ck_assert(json_is_true(json_object_get(inv, "executionSuccessful")));
	ck_assert_uint_eq(json_array_size(json_object_get(inv,
		"toolExecutionNotifications")), 3);
	n = json_array_get(json_object_get(inv, "toolExecutionNotifications"),
			   0);
	ck_assert_str_eq(jstr(n, "level"), "note");
	ck_assert_str_eq(jstr(json_object_get(n, "message"), "text"),
			 "a manifest in Workflow not judged: it holds "
			 "containers, but not YAML until its placeholders are "
			 "filled in");
	loc = json_object_get(json_array_get(json_object_get(n, "locations"),
					     0), "physicalLocation");
	ck_assert_str_eq(jstr(json_object_get(loc, "artifactLocation"), "uri"),
			 "wf.yaml");
	ck_assert_int_eq(jint(json_object_get(loc, "region"), "startLine"),
			 12);
	json_decref(root);
	free(out);
}
END_TEST

START_TEST(test_sarif_errors_and_clean)
{
	struct cpl_error errs[3] = {
		{ .path = (char *)"bad file.yaml", .line = 3, .column = 7,
		  .message = (char *)"mapping values are not allowed here" },
		{ .message = (char *)"cluster: 403 forbidden" },
		{ .path = (char *)"dir/x.yaml",
		  .message = (char *)"cannot read: Permission denied" },
	};
	struct cpl_report_meta m = std_meta();
	json_t *log, *run, *inv, *n, *loc;
	char *out;

	out = render_ok("sarif", &m, NULL, 0);
	ck_assert_int_eq(validate(out), 0);
	log = parse(out);
	run = sarif_run(log);
	ck_assert(json_is_array(json_object_get(run, "results")));
	ck_assert_uint_eq(json_array_size(json_object_get(run, "results")), 0);
	inv = json_array_get(json_object_get(run, "invocations"), 0);
	ck_assert(json_is_true(json_object_get(inv, "executionSuccessful")));
	ck_assert_ptr_null(json_object_get(inv, "commandLine"));
	ck_assert_ptr_null(json_object_get(inv, "toolExecutionNotifications"));
	json_decref(log);
	free(out);

	m.errors = errs;
	m.nerrors = 3;
	out = render_ok("sarif", &m, NULL, 0);
	ck_assert_int_eq(validate(out), 0);
	log = parse(out);
	inv = json_array_get(json_object_get(sarif_run(log), "invocations"), 0);
	ck_assert(json_is_false(json_object_get(inv, "executionSuccessful")));
	ck_assert_uint_eq(json_array_size(json_object_get(inv,
		"toolExecutionNotifications")), 3);
	n = json_array_get(json_object_get(inv, "toolExecutionNotifications"),
			   0);
	ck_assert_str_eq(jstr(n, "level"), "error");
	ck_assert_str_eq(jstr(json_object_get(n, "message"), "text"),
			 "mapping values are not allowed here");
	loc = json_object_get(json_array_get(json_object_get(n, "locations"),
					     0), "physicalLocation");
	ck_assert_str_eq(jstr(json_object_get(loc, "artifactLocation"), "uri"),
			 "bad%20file.yaml");
	ck_assert_int_eq(jint(json_object_get(loc, "region"), "startLine"), 3);
	ck_assert_int_eq(jint(json_object_get(loc, "region"), "startColumn"),
			 7);
	n = json_array_get(json_object_get(inv, "toolExecutionNotifications"),
			   1);
	ck_assert_ptr_null(json_object_get(n, "locations"));
	n = json_array_get(json_object_get(inv, "toolExecutionNotifications"),
			   2);
	loc = json_object_get(json_array_get(json_object_get(n, "locations"),
					     0), "physicalLocation");
	ck_assert_str_eq(jstr(json_object_get(loc, "artifactLocation"), "uri"),
			 "dir/x.yaml");
	ck_assert_ptr_null(json_object_get(loc, "region"));
	json_decref(log);
	free(out);
}
END_TEST

START_TEST(test_validator_rejects)
{
	/* The validator must be able to fail: a bad level, a raw space. */
	ck_assert_int_eq(validate_quiet(
		"{\"version\": \"2.1.0\", \"runs\": [{\"tool\": {\"driver\": "
		"{\"name\": \"x\"}}, \"results\": [{\"message\": {\"text\": "
		"\"m\"}, \"level\": \"fatal\"}]}]}", true), 1);
	ck_assert_int_eq(validate_quiet(
		"{\"version\": \"2.1.0\", \"runs\": [{\"tool\": {\"driver\": "
		"{\"name\": \"x\"}}, \"results\": [{\"message\": {\"text\": "
		"\"m\"}, \"locations\": [{\"physicalLocation\": "
		"{\"artifactLocation\": {\"uri\": \"a b.yaml\"}}}]}]}]}",
		true), 1);
	ck_assert_int_eq(validate(
		"{\"version\": \"2.1.0\", \"runs\": [{\"tool\": {\"driver\": "
		"{\"name\": \"x\"}}, \"results\": []}]}"), 0);
}
END_TEST

/* ---- fingerprints ------------------------------------------------- */

/* The text source_text hands out: one file name and its text. */
struct source {
	const char *file;
	const char *text;
};

/* meta->source_text over a struct source; NULL for any other file. */
static const char *
source_text(void *ctx, const char *file, size_t *len)
{
	const struct source *s = ctx;

	if (s->text == NULL || strcmp(file, s->file) != 0)
		return NULL;
	*len = strlen(s->text);
	return s->text;
}

/*
 * The primaryLocationLineHash SARIF gives findings on lines 1..n of
 * text (into hashes[], caller frees each; NULL when there is none).
 */
static void
fingerprints(char **hashes, const char *text, int n)
{
	struct cpl_finding *fs = cpl_xcalloc((size_t)n, sizeof(*fs));
	struct source src = { "f.py", text };
	struct cpl_report_meta m = std_meta();
	json_t *log;
	char *out;
	int i;

	m.source_text = source_text;
	m.source_ctx = &src;
	for (i = 0; i < n; i++)
		mk(&fs[i], &rule_env, CPL_SEV_WARNING, "f.py", i + 1, 1, "m",
		   NULL);
	out = render_ok("sarif", &m, fs, (size_t)n);
	log = parse(out);
	for (i = 0; i < n; i++) {
		json_t *fp = json_object_get(sarif_result(log, (size_t)i),
					     "partialFingerprints");

		hashes[i] = fp ? cpl_xstrdup(jstr(fp,
			"primaryLocationLineHash")) : NULL;
	}
	json_decref(log);
	free(out);
	free_all(fs, (size_t)n);
	free(fs);
}

/* Fails unless the fingerprints of text's lines are expect[0..n). */
static void
assert_fingerprints(const char *text, const char *const *expect, int n)
{
	char *got[16];
	int i;

	ck_assert_int_le(n, 16);
	fingerprints(got, text, n);
	for (i = 0; i < n; i++) {
		ck_assert_msg(got[i] != NULL, "line %d: no fingerprint", i + 1);
		ck_assert_msg(strcmp(got[i], expect[i]) == 0,
			      "line %d: %s, expected %s", i + 1, got[i],
			      expect[i]);
		free(got[i]);
	}
}

/*
 * Known answers from codeql-action's own tests of src/fingerprints.ts:
 * whitespace skipped, CR / CRLF / LF equivalent, the line after a final
 * newline hashed too, repeated windows counted.
 */
START_TEST(test_fingerprint_known)
{
	static const char *const greet[] = {
		"e9496ae3ebfced30:1", "fb7c023a8b9ccb3f:1",
		"ce8ba1a563dcdaca:1", "e20e36e16fcb0cc8:1",
		"b3edc88f2938467e:1", "c8e28b0b4002a3a0:1",
		"c129715d7a2bc9a3:1",
	};
	static const char *const short_lines[] = {
		"271789c17abda88f:1", "54703d4cd895b18:1",
		"180aee12dab6264:1", "a23a3dc5e078b07b:1",
	};
	static const char *const lorem[] = {
		"a7f2ff13bc495cf2:1", "a7f2ff13bc495cf2:2",
		"a7f2ff13bc495cf2:3", "a7f2ff13bc495cf2:4",
		"a7f2ff13bc495cf2:5", "a7f2ff13bc495cf2:6",
		"a7f2ff1481e87703:1", "a9cf91f7bbf1862b:1",
		"55ec222b86bcae53:1", "cc97dc7b1d7d8f7b:1",
		"c129715d7a2bc9a3:1",
	};
	static const char *const empty[] = { "c129715d7a2bc9a3:1" };
	struct cpl_buf b;
	int i;

	assert_fingerprints("", empty, 1);
	assert_fingerprints(" a\nb\n  \t\tc\n d", short_lines, 4);
	assert_fingerprints(" hello; \t\nworld!!!\n\n\n  \t\tGreetings\n End\n",
			    greet, 7);
	assert_fingerprints(" hello; \t\nworld!!!\r\r\r  \t\tGreetings\r End\r",
			    greet, 7);
	assert_fingerprints(" hello; \t\r\nworld!!!\r\n\r\n\r\n  \t\tGreetings"
			    "\r\n End\r\n", greet, 7);
	assert_fingerprints(" hello; \t\nworld!!!\r\n\n\r  \t\tGreetings\r "
			    "End\r\n", greet, 7);
	cpl_buf_init(&b, 0);
	for (i = 0; i < 10; i++)
		cpl_buf_adds(&b, "Lorem ipsum dolor sit amet.\n");
	assert_fingerprints(cpl_buf_str(&b), lorem, 11);
	cpl_buf_free(&b);
}
END_TEST

/*
 * Non-ASCII text is hashed as UTF-16 code units like Node does; these
 * values were cross-checked against a direct JavaScript port of
 * fingerprints.ts running on Node's UTF-8 decoder.
 */
START_TEST(test_fingerprint_unicode)
{
	static const char *const expect[] = {
		"84e37d33cb2ce2f3:1", "9681821481be13d8:1",
		"db6055b49226f37d:1",
	};

	assert_fingerprints("caf\xc3\xa9 = 1\n\xf0\x9f\x98\x80 x\n"
			    "bad \xff\xe2\x82 end\n", expect, 3);
}
END_TEST

/* The fingerprint of a finding at line of text ("" when none; caller frees). */
static char *
fingerprint_at(const char *text, int line)
{
	char *got[16], *res;
	int i;

	fingerprints(got, text, line);
	res = got[line - 1] ? got[line - 1] : cpl_xstrdup("");
	for (i = 0; i < line - 1; i++)
		free(got[i]);
	return res;
}

START_TEST(test_fingerprint_stable)
{
	static const char base[] =
		"spec:\n"
		"  containers:\n"
		"    - name: train\n"
		"      env:\n"
		"        - {name: OMP_NUM_THREADS, value: \"16\"}\n";
	static const char inserted[] =
		"# a comment added above\n"
		"spec:\n"
		"  containers:\n"
		"    - name: train\n"
		"      env:\n"
		"        - {name: OMP_NUM_THREADS, value: \"16\"}\n";
	static const char reindented[] =
		"spec:\n"
		"  containers:\n"
		"  - name:    train\n"
		"    env:\n"
		"    - {name: OMP_NUM_THREADS, value: \"16\"}\n";
	static const char changed[] =
		"spec:\n"
		"  containers:\n"
		"    - name: trainer\n"
		"      env:\n"
		"        - {name: OMP_NUM_THREADS, value: \"16\"}\n";
	char *a = fingerprint_at(base, 3);
	char *b = fingerprint_at(inserted, 4);
	char *c = fingerprint_at(reindented, 3);
	char *d = fingerprint_at(changed, 3);

	ck_assert_str_ne(a, "");
	ck_assert_str_eq(a, b);		/* unrelated line above */
	ck_assert_str_eq(a, c);		/* whitespace only */
	ck_assert_str_ne(a, d);		/* the finding's own line */
	ck_assert(cpl_str_ends(a, ":1"));
	free(a);
	free(b);
	free(c);
	free(d);
}
END_TEST

/* Two results on one line (same rule, other containers; same rule and
 * container twice) have distinct prints of their own; the line hash is
 * the line's. */
START_TEST(test_fingerprint_one_line)
{
	struct cpl_finding fs[4];
	struct source src = { "known.yaml", "a: 1\nb: 2\n" };
	struct cpl_report_meta m = std_meta();
	const char *p[4];
	json_t *log;
	char *out;
	int i, k;

	m.source_text = source_text;
	m.source_ctx = &src;
	mk(&fs[0], &rule_env, CPL_SEV_WARNING, "known.yaml", 2, 1, "m", NULL);
	mk(&fs[1], &rule_env, CPL_SEV_WARNING, "known.yaml", 2, 4, "m", NULL);
	mk(&fs[2], &rule_env, CPL_SEV_WARNING, "known.yaml", 2, 4, "m", NULL);
	mk(&fs[3], &rule_limit, CPL_SEV_NOTE, "known.yaml", 2, 4, "m", NULL);
	fs[0].container = cpl_xstrdup("a");
	fs[1].container = cpl_xstrdup("b");
	out = render_ok("sarif", &m, fs, 4);
	ck_assert_int_eq(validate(out), 0);
	log = parse(out);
	for (i = 0; i < 4; i++) {
		json_t *pf = json_object_get(sarif_result(log, (size_t)i),
					     "partialFingerprints");

		p[i] = jstr(pf, "cpulint/v1");
		ck_assert_str_eq(jstr(pf, "primaryLocationLineHash"),
				 jstr(json_object_get(sarif_result(log, 0),
				      "partialFingerprints"),
				      "primaryLocationLineHash"));
		for (k = 0; k < i; k++)
			ck_assert_str_ne(p[i], p[k]);
	}
	json_decref(log);
	free(out);
	free_all(fs, 4);
}
END_TEST

START_TEST(test_fingerprint_absent)
{
	struct cpl_finding fs[3];
	struct source src = { "known.py", "x = 1\n" };
	struct cpl_report_meta m = std_meta();
	json_t *log;
	char *out;

	m.source_text = source_text;
	m.source_ctx = &src;
	mk(&fs[0], &rule_env, CPL_SEV_WARNING, "known.py", 1, 1, "m", NULL);
	mk(&fs[1], &rule_env, CPL_SEV_WARNING, "known.py", 9, 1, "m", NULL);
	mk(&fs[2], &rule_env, CPL_SEV_WARNING, "other.py", 1, 1, "m", NULL);
	out = render_ok("sarif", &m, fs, 3);
	ck_assert_int_eq(validate(out), 0);
	log = parse(out);
	ck_assert_str_eq(jstr(json_object_get(sarif_result(log, 0),
		"partialFingerprints"), "primaryLocationLineHash"),
		"8e00d41f0ebba6bf:1");
	/* Past the end of the text, and text unknown: no line hash. */
	ck_assert_ptr_null(json_object_get(json_object_get(sarif_result(log,
		1), "partialFingerprints"), "primaryLocationLineHash"));
	ck_assert_ptr_null(json_object_get(json_object_get(sarif_result(log,
		2), "partialFingerprints"), "primaryLocationLineHash"));
	json_decref(log);
	free(out);
	free_all(fs, 3);
}
END_TEST

/* ---- github ------------------------------------------------------- */

START_TEST(test_github_std)
{
	struct cpl_finding fs[NSTD];
	struct cpl_report_meta m = std_meta();
	char *out;

	mk_std(fs);
	out = render_ok("github", &m, fs, NSTD);
	ck_assert_str_eq(out,
		"::error file=train/polyaxonfile.yaml,line=12,col=9,"
		"title=CPU901 test-oversubscribed::8 ranks \xc3\x97 "
		"(4 threads + 4 workers) = 64 > 8 CPUs%0Afix: Set "
		"OMP_NUM_THREADS=1 and num_workers=0 as a starting point."
		"%0Anote: train/polyaxonfile.yaml:20:5: nProcPerNode: 8 here"
		"%0Anote: train/train.py:33:40: num_workers=4 here\n"
		"::warning file=train/polyaxonfile.yaml,line=30,col=3,"
		"title=CPU902 test-env-missing::OMP_NUM_THREADS is not set\n"
		"::notice file=train/train.py,line=5,col=1,title=CPU903 "
		"test-limit-missing::cpu limit \"none\", 100%25 used: a,b:c"
		"%0Afix: Add a limit.\n"
		"kubectl-cpulint: 3 findings (1 error, 1 warning, 1 note), "
		"1 suppressed\n");
	free(out);
	free_all(fs, NSTD);
}
END_TEST

START_TEST(test_github_escape)
{
	struct cpl_finding fs[2];
	struct cpl_report_meta m = std_meta();
	char *out;

	mk(&fs[0], &rule_odd, CPL_SEV_WARNING, "a,b:c%d e.yaml", 3, 0,
	   "50%\r\nx: y, z", "p%q");
	mk(&fs[1], &rule_odd, CPL_SEV_ERROR, "f.yaml", 0, 0, "m", NULL);
	out = render_ok("github", &m, fs, 2);
	ck_assert_str_eq(out,
		"::warning file=a%2Cb%3Ac%25d e.yaml,line=3,"
		"title=CPU905 odd%3Aname%2Cx::50%25%0D%0Ax: y, z%0Afix: p%25q\n"
		"::error file=f.yaml,title=CPU905 odd%3Aname%2Cx::m\n"
		"kubectl-cpulint: 2 findings (1 error, 1 warning, 0 notes)\n");
	free(out);
	free_all(fs, 2);
}
END_TEST

START_TEST(test_github_live_and_errors)
{
	struct cpl_error errs[2] = {
		{ .path = (char *)"bad,file.yaml", .line = 3, .column = 7,
		  .message = (char *)"mapping values: not allowed\nhere" },
		{ .message = (char *)"cluster: 403 forbidden" },
	};
	struct cpl_finding fs[2];
	struct cpl_report_meta m = std_meta();
	char *out;

	m.errors = errs;
	m.nerrors = 2;
	mk_live(&fs[0], "pod/ml/train-0", "trainer", "throttled 42%",
		"Raise the limit.");
	mk_live(&fs[1], "pod/ml/train-1", NULL, "m", NULL);
	fs[1].severity = CPL_SEV_NOTE;
	out = render_ok("github", &m, fs, 2);
	ck_assert_str_eq(out,
		"::error file=bad%2Cfile.yaml,line=3,col=7::mapping values: "
		"not allowed%0Ahere\n"
		"::error::cluster: 403 forbidden\n"
		"::warning title=CPU904 test-throttled "
		"(pod/ml/train-0[trainer])"
		"::throttled 42%25%0Afix: Raise the limit.\n"
		"::notice title=CPU904 test-throttled (pod/ml/train-1)::m\n"
		"kubectl-cpulint: 2 findings (0 errors, 1 warning, 1 note)\n");
	free(out);
	free_all(fs, 2);
}
END_TEST

/* Past 10 annotations of a level: plain lines, counted in the summary;
 * paths from the source root, not from the working directory. */
START_TEST(test_github_limit)
{
	struct cpl_finding fs[13];
	struct cpl_report_meta m = std_meta();
	char *out, *root, *line;
	size_t i, cmds = 0;

	root = cpl_xasprintf("%s/..", cwd_buf);
	m.srcroot = root;
	for (i = 0; i < 12; i++)
		mk(&fs[i], &rule_env, CPL_SEV_WARNING, "a.yaml", (int)i + 1, 1,
		   "m", NULL);
	mk(&fs[12], &rule_over, CPL_SEV_ERROR, "a.yaml", 20, 1, "e", NULL);
	out = render_ok("github", &m, fs, 13);
	for (line = out; (line = strstr(line, "::warning ")) != NULL; line++)
		cmds++;
	ck_assert_uint_eq(cmds, 10);
	ck_assert_ptr_nonnull(strstr(out, "::error file="));
	line = cpl_xasprintf("file=%s/a.yaml,line=1,", strrchr(cwd_buf, '/') + 1);
	ck_assert_ptr_nonnull(strstr(out, line));
	free(line);
	ck_assert_ptr_nonnull(strstr(out, "\na.yaml:11:1: warning: m [CPU902 "
				      "test-env-missing]\na.yaml:12:1: "));
	ck_assert_ptr_nonnull(strstr(out, "kubectl-cpulint: 13 findings (1 "
		"error, 12 warnings, 0 notes); 2 not annotated (GitHub shows "
		"10 annotations of each level per step): listed above\n"));
	free(out);
	free(root);
	free_all(fs, 13);
}
END_TEST

/* ---- streamed JSON and SARIF are what jansson printed -------------- */

/* A budget entry: fractional CPUs (reals), unknowns (null), measured. */
static void
mk_budget(struct cpl_budget_entry *b, bool live)
{
	memset(b, 0, sizeof(*b));
	b->object = cpl_xstrdup(live ? "pod/ml/train-0" : "Job/x");
	b->container = cpl_xstrdup("c\x01\xff");
	b->file = live ? NULL : cpl_xstrdup("train/polyaxonfile.yaml");
	b->line = live ? 0 : 7;
	b->cpu_request = live ? 0.1 : 2.3333;
	b->cpu_limit = live ? -1 : 1e15 + 0.5;
	b->ranks = 4;
	b->threads = -1;
	b->workers = 2;
	b->busy = -1;
	b->per_rank = 0;
	b->suggested_threads = 1;
	b->suggested_workers = -1;
	b->how_cpu.text = cpl_xstrdup("limits.cpu \"2\"");
	b->how_cpu.file = cpl_xstrdup("train/polyaxonfile.yaml");
	b->how_cpu.line = 20;
	b->how_cpu.column = 14;
	b->measured = live;
	b->source = "cadvisor";
	b->window_s = 30;
	b->m_threads = 97;
	b->cpu_used = 3.9004;
	b->throttled_pct = -1;
	b->measure_notes = live ? cpl_xstrdup("throttled share unknown: "
					      "9.99\nsecond \x01 note") : NULL;
}

/*
 * Fails unless text is byte for byte what jansson prints for the document
 * it holds (JSON_INDENT(2) | JSON_PRESERVE_ORDER, then a newline): the
 * reporters' bytes before they streamed, but for the escapes of DEL, C1
 * controls and "##[" (jsonw.h).
 */
static void
assert_jansson_bytes(const char *format, const char *text)
{
	json_t *root = parse(text);
	char *dump = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	size_t n;

	ck_assert_ptr_nonnull(dump);
	dump = extra_escapes(dump);
	n = strlen(dump);
	ck_assert_msg(strlen(text) == n + 1 && memcmp(text, dump, n) == 0 &&
		      text[n] == '\n', "%s: streamed output differs from "
		      "jansson's:\n%s\n---\n%s", format, text, dump);
	free(dump);
	json_decref(root);
}

START_TEST(test_streamed_like_jansson)
{
	static const char *const formats[] = { "json", "sarif" };
	struct cpl_finding fs[NSTD + 3];
	struct cpl_budget_entry budgets[2];
	struct cpl_error errs[2] = {
		{ .path = (char *)"bad\tfile.yaml", .line = 3, .column = 7,
		  .message = (char *)"bad \xc3 byte" },
		{ .message = (char *)"cluster: 403" },
	};
	struct cpl_report_meta m = std_meta();
	size_t i;

	mk_std(fs);
	mk_live(&fs[NSTD], "pod/ml/train-0", "trainer", "throttled 42%",
		"Raise \"the\" limit.\n\\ now");
	fs[NSTD].pods = 12;
	mk(&fs[NSTD + 1], &rule_odd, CPL_SEV_NOTE, CPL_REPORT_STDIN, 2, 0,
	   "ctl \x1b[31m \x7f \xed\xa0\x80 \xf0\x9f\x98\x80 / end", NULL);
	mk(&fs[NSTD + 2], &rule_env, CPL_SEV_OFF, "x.yaml", 1, 1, "off",
	   NULL);
	mk_budget(&budgets[0], false);
	mk_budget(&budgets[1], true);
	for (i = 0; i < CPL_ARRAY_LEN(formats); i++) {
		char *out;

		/* everything */
		m.errors = errs;
		m.nerrors = 2;
		m.budgets = budgets;
		m.nbudgets = 2;
		m.command_line = "kubectl-cpulint -o x \"q\"";
		out = render_ok(formats[i], &m, fs, NSTD + 3);
		assert_jansson_bytes(formats[i], out);
		free(out);
		/* nothing: every array empty */
		m = std_meta();
		out = render_ok(formats[i], &m, NULL, 0);
		assert_jansson_bytes(formats[i], out);
		free(out);
	}
	free_all(fs, NSTD + 3);
	for (i = 0; i < 2; i++)
		cpl_finding_budget_free(&budgets[i]);
}
END_TEST

START_TEST(test_json_measured_notes)
{
	/* A live entry's measured notes: one string per line. */
	struct cpl_budget_entry b;
	struct cpl_report_meta m = std_meta();
	json_t *root, *notes;
	char *out;

	mk_budget(&b, true);
	m.budgets = &b;
	m.nbudgets = 1;
	out = render_ok("json", &m, NULL, 0);
	root = parse(out);
	notes = json_object_get(json_object_get(json_array_get(
		json_object_get(root, "budgets"), 0), "measured"), "notes");
	ck_assert_uint_eq(json_array_size(notes), 2);
	ck_assert_str_eq(json_string_value(json_array_get(notes, 0)),
			 "throttled share unknown: 9.99");
	ck_assert_str_eq(json_string_value(json_array_get(notes, 1)),
			 "second \x01 note");
	json_decref(root);
	free(out);
	cpl_finding_budget_free(&b);
}
END_TEST

/*
 * "budgets" rendered on a second thread (jobs 2, enough entries) is the
 * same bytes as on the caller's alone, and jansson's, with findings
 * written meanwhile.
 */
START_TEST(test_json_budgets_threaded)
{
	enum { N = 300 };
	struct cpl_budget_entry *budgets = cpl_xcalloc(N, sizeof(*budgets));
	struct cpl_finding fs[NSTD];
	struct cpl_report_meta m = std_meta();
	char *alone, *threaded;
	size_t i;

	mk_std(fs);
	for (i = 0; i < N; i++) {
		mk_budget(&budgets[i], i % 3 == 0);
		budgets[i].line = (int)i;
	}
	m.budgets = budgets;
	m.nbudgets = N;
	m.jobs = 1;
	alone = render_ok("json", &m, fs, NSTD);
	m.jobs = 2;
	threaded = render_ok("json", &m, fs, NSTD);
	ck_assert_str_eq(threaded, alone);
	assert_jansson_bytes("json", threaded);
	ck_assert_ptr_nonnull(strstr(threaded, "\"line\": 299,"));
	free(alone);
	free(threaded);
	free_all(fs, NSTD);
	for (i = 0; i < N; i++)
		cpl_finding_budget_free(&budgets[i]);
	free(budgets);
}
END_TEST

/* The rank a SARIF result keeps when there are too many (higher first). */
static int
keep_rank(const struct cpl_finding *f)
{
	return f->suppressed ? 0 : 1 + (int)f->severity;
}

/*
 * Mixed severities past the result limit: the results written are
 * exactly the CPL_REPORT_SARIF_MAX_RESULTS that rank highest (earlier
 * first among equals), in the order they came.
 */
START_TEST(test_sarif_limit_mixed)
{
	size_t extra = 15000, n = CPL_REPORT_SARIF_MAX_RESULTS + extra;
	size_t i, k, nres = 0, dropped = 99;
	struct cpl_finding *fs = cpl_xcalloc(n, sizeof(*fs));
	size_t *order = cpl_xcalloc(n, sizeof(*order));
	bool *keep = cpl_xcalloc(n, sizeof(*keep));
	struct cpl_report_meta m = std_meta();
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	json_t *log, *res;
	char *out, id[32];

	for (i = 0; i < n; i++) {
		static const enum cpl_severity sev[] = {
			CPL_SEV_NOTE, CPL_SEV_NOTE, CPL_SEV_WARNING,
			CPL_SEV_ERROR, CPL_SEV_OFF,
		};

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		snprintf(id, sizeof(id), "%zu", i);
		/* the errors come late, to push earlier results out */
		mk(&fs[i], &rule_env, i > n / 2 && x % 3 == 0 ? CPL_SEV_ERROR :
		   sev[x % CPL_ARRAY_LEN(sev)], "a.yaml", (int)i + 1, 1, id,
		   NULL);
		fs[i].suppressed = x % 20 == 7;
		/* notes last: each must be left out, not replace one
		 * that came before it */
		if (i >= n - 10) {
			fs[i].severity = CPL_SEV_NOTE;
			fs[i].suppressed = false;
		}
		if (fs[i].severity != CPL_SEV_OFF)
			order[nres++] = i;
	}
	/* the reference: a stable sort by rank, higher first */
	for (i = 1; i < nres; i++) {
		size_t v = order[i];

		for (k = i; k > 0 && keep_rank(&fs[order[k - 1]]) <
		     keep_rank(&fs[v]); k--)
			order[k] = order[k - 1];
		order[k] = v;
	}
	ck_assert_uint_gt(nres, CPL_REPORT_SARIF_MAX_RESULTS);
	for (i = 0; i < CPL_REPORT_SARIF_MAX_RESULTS; i++)
		keep[order[i]] = true;
	m.dropped = &dropped;
	out = render_ok("sarif", &m, fs, n);
	ck_assert_uint_eq(dropped, nres - CPL_REPORT_SARIF_MAX_RESULTS);
	log = parse(out);
	res = json_object_get(sarif_run(log), "results");
	ck_assert_uint_eq(json_array_size(res), CPL_REPORT_SARIF_MAX_RESULTS);
	for (i = 0, k = 0; i < n; i++) {
		if (!keep[i])
			continue;
		snprintf(id, sizeof(id), "%zu", i);
		ck_assert_str_eq(jstr(json_object_get(json_array_get(res, k),
						      "message"), "text"), id);
		k++;
	}
	json_decref(log);
	free(out);
	free_all(fs, n);
	free(fs);
	free(order);
	free(keep);
}
END_TEST

/* Every test above, grouped by format. */
static Suite *
report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc;

	tc = tcase_create("table");
	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_write_failure);
	suite_add_tcase(s, tc);

	tc = tcase_create("text");
	tcase_add_test(tc, test_text_std);
	tcase_add_test(tc, test_text_summary_forms);
	tcase_add_test(tc, test_text_live);
	tcase_add_test(tc, test_text_special);
	tcase_add_test(tc, test_text_color);
	suite_add_tcase(s, tc);

	tc = tcase_create("json");
	tcase_add_test(tc, test_json_std);
	tcase_add_test(tc, test_json_live_and_special);
	tcase_add_test(tc, test_json_clean);
	suite_add_tcase(s, tc);

	tc = tcase_create("sarif");
	tcase_set_timeout(tc, 60);	/* each schema check starts python */
	tcase_add_test(tc, test_sarif_std);
	tcase_add_test(tc, test_sarif_registry);
	tcase_add_test(tc, test_sarif_uris);
	tcase_add_test(tc, test_sarif_srcroot);
	tcase_add_test(tc, test_sarif_live);
	tcase_add_test(tc, test_sarif_stdin);
	tcase_add_test(tc, test_sarif_result_limit);
	tcase_add_test(tc, test_sarif_errors_and_clean);
	tcase_add_test(tc, test_not_judged);
	tcase_add_test(tc, test_validator_rejects);
	suite_add_tcase(s, tc);

	tc = tcase_create("streamed");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_streamed_like_jansson);
	tcase_add_test(tc, test_json_measured_notes);
	tcase_add_test(tc, test_json_budgets_threaded);
	tcase_add_test(tc, test_sarif_limit_mixed);
	suite_add_tcase(s, tc);

	tc = tcase_create("fingerprint");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_fingerprint_known);
	tcase_add_test(tc, test_fingerprint_unicode);
	tcase_add_test(tc, test_fingerprint_stable);
	tcase_add_test(tc, test_fingerprint_absent);
	tcase_add_test(tc, test_fingerprint_one_line);
	suite_add_tcase(s, tc);

	tc = tcase_create("github");
	tcase_add_test(tc, test_github_std);
	tcase_add_test(tc, test_github_escape);
	tcase_add_test(tc, test_github_limit);
	tcase_add_test(tc, test_github_live_and_errors);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(report_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
