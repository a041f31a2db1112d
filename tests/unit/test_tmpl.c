/* test_tmpl.c — Go/Helm template actions outside strings, in parsed
 * streams and in text that does not parse. */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "text/tmpl.h"

/* Whether parsed text holds an action; -1 when it does not parse. */
static int
in_stream(const char *t, int *line, int *col)
{
	struct cpl_ystream *s = NULL;
	struct cpl_error err = { 0 };
	int rc;

	if (cpl_yaml_parse(&s, "t.yaml", t, strlen(t), &err) < 0) {
		cpl_error_clear(&err);
		return -1;
	}
	rc = cpl_tmpl_in_stream(s, line, col);
	cpl_ystream_free(s);
	return rc;
}

static bool
in_text(const char *t, int *line, int *col)
{
	return cpl_tmpl_in_text(t, strlen(t), line, col);
}

START_TEST(parsed_action)
{
	int line = 0, col = 0;

	ck_assert_int_eq(in_stream("apiVersion: v1\nkind: Pod\nmetadata:\n"
				   "  name: {{ .Values.name }}\n", &line,
				   &col), 1);
	ck_assert_int_eq(line, 4);
	ck_assert_int_eq(col, 9);
	ck_assert_int_eq(in_stream("a:\n- {{ x }}\n", &line, &col), 1);
	ck_assert_int_eq(line, 2);
}
END_TEST

START_TEST(strings_are_data)
{
	int line = 0, col = 0;

	/* Polyaxon's templates: quoted, inside plain scalars, in blocks. */
	ck_assert_int_eq(in_stream(
		"version: 1.1\nkind: component\nrun:\n  kind: job\n"
		"  container:\n"
		"    command: [\"python\", \"train.py\", \"--lr={{ lr }}\"]\n"
		"    args:\n    - --epochs={{ epochs }}\n"
		"    - '{{ params.x }}'\n    - |\n      {{ globals.x }}/run\n"
		"    env: {A: \"{{ a }}\"}\n", &line, &col), 0);
	ck_assert_int_eq(in_stream("a: 1\n", &line, &col), 0);
	/* A flow mapping that is not an action. */
	ck_assert_int_eq(in_stream("a: {b: {c: 1}}\n", &line, &col), 0);
}
END_TEST

START_TEST(text_actions)
{
	int line = 0, col = 0;

	ck_assert(in_text("{{- if .Values.enabled }}\napiVersion: v1\n",
			  &line, &col));
	ck_assert_int_eq(line, 1);
	ck_assert_int_eq(col, 1);
	ck_assert(in_text("spec:\n  containers:\n  - name: x\n"
			  "    resources:\n"
			  "      {{- toYaml .Values.r | nindent 6 }}\n", &line,
			  &col));
	ck_assert_int_eq(line, 5);
	ck_assert_int_eq(col, 7);
	ck_assert(in_text("a: [x, {{ y }}]\n", &line, &col));
	ck_assert_int_eq(col, 8);
	ck_assert(in_text("a:\n  b: {{ .Values.b }}\n  c: [1\n", &line,
			  &col));
	ck_assert_int_eq(line, 2);
	ck_assert_int_eq(col, 6);
	/* "{{" found wherever it is, a '{' alone never: at the very end,
	 * after single braces, in a text without a newline. */
	ck_assert(in_text("a: 1\nb: {{", &line, &col));
	ck_assert_int_eq(line, 2);
	ck_assert_int_eq(col, 4);
	ck_assert(!in_text("a: {b: 1}\nc: {\n", &line, &col));
	ck_assert(!in_text("{", &line, &col));
	ck_assert(!in_text("", &line, &col));
	ck_assert(in_text("{{", &line, &col));
}
END_TEST

START_TEST(text_strings)
{
	int line = 0, col = 0;

	/* A broken file whose templates are all inside strings. */
	ck_assert(!in_text("a: [1\n", &line, &col));
	ck_assert(!in_text("cmd: \"--lr={{ lr }}\"\nb: [1\n", &line, &col));
	ck_assert(!in_text("cmd: '{{ a }}'' and {{ b }}'\nb: [1\n", &line,
			   &col));
	ck_assert(!in_text("cmd: \"a\n  {{ b }}\"\nb: [1\n", &line, &col));
	ck_assert(!in_text("- --lr={{ lr }}\n- it's {{ x }}\nb: [1\n",
			   &line, &col));
	ck_assert(!in_text("args:\n  - |\n    {{ x }} run\n    {{ y }}\n"
			   "b: [1\n", &line, &col));
	ck_assert(!in_text("a: >-\n  {{ x }}\nb: [1\n", &line, &col));
	ck_assert(!in_text("a: 1  # {{ x }}\n# {{ y }}\nb: [1\n", &line,
			   &col));
	/* The block ends where the indentation does. */
	ck_assert(in_text("a: |\n  {{ x }}\n{{ y }}\n", &line, &col));
	ck_assert_int_eq(line, 3);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("tmpl");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, parsed_action);
	tcase_add_test(tc, strings_are_data);
	tcase_add_test(tc, text_actions);
	tcase_add_test(tc, text_strings);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(suite)
