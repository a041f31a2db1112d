/*
 * test_plandoc.c — the plan writers' tools: YAML documents as JSON and
 * back with every value's type kept (lib/plan/ydoc_int.h), and the knobs of
 * a container read and set in its three shapes (lib/plan/knobs_int.h).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "plan/knobs_int.h"
#include "plan/ydoc_int.h"

START_TEST(round_trip_keeps_types)
{
	static const char text[] =
		"a: 1\nb: \"1\"\nc: true\nd: 'yes'\ne: ~\nf: 1.5\ng: \"\"\n"
		"h: '{{ x }}'\ni: 0x1F\nj: \"null\"\nk: |\n  one\n  two\n"
		"---\nsecond: [1, two]\n";
	struct cpl_ydoc *d, *back;
	struct cpl_error err = { 0 };
	struct cpl_buf out;
	size_t n, m, i;

	ck_assert_int_eq(cpl_ydoc_load(&d, &n, "t.yaml", text, strlen(text),
				       &err), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(d[1].line, 15);	/* its root, after "---" */
	ck_assert(json_is_integer(json_object_get(d[0].root, "a")));
	ck_assert(json_is_string(json_object_get(d[0].root, "b")));
	ck_assert(json_is_true(json_object_get(d[0].root, "c")));
	ck_assert(json_is_string(json_object_get(d[0].root, "d")));
	ck_assert(json_is_null(json_object_get(d[0].root, "e")));
	ck_assert(json_is_real(json_object_get(d[0].root, "f")));
	ck_assert_int_eq(json_integer_value(json_object_get(d[0].root, "i")),
			 31);
	cpl_buf_init(&out, 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(cpl_ydoc_emit(&out, d[i].root, i > 0), 0);
	ck_assert_int_eq(cpl_ydoc_load(&back, &m, "t2.yaml", out.data,
				       out.len, &err), 0);
	ck_assert_uint_eq(m, 2);
	for (i = 0; i < n; i++)
		ck_assert(json_equal(d[i].root, back[i].root));
	ck_assert_ptr_nonnull(strstr(out.data, "b: \"1\"\n"));
	ck_assert_ptr_nonnull(strstr(out.data, "f: 1.5\n"));
	cpl_buf_free(&out);
	cpl_ydoc_free(d, n);
	cpl_ydoc_free(back, m);
}
END_TEST

START_TEST(not_yaml)
{
	struct cpl_ydoc *d;
	struct cpl_error err = { 0 };
	size_t n;

	ck_assert_int_eq(cpl_ydoc_load(&d, &n, "bad.yaml", "a: [1,\n", 7,
				       &err), -1);
	ck_assert_ptr_null(d);
	ck_assert_str_eq(err.path, "bad.yaml");
	ck_assert_int_gt(err.line, 0);
	cpl_error_clear(&err);
}
END_TEST

START_TEST(knob_shapes)
{
	json_t *c = json_pack("{s:[s,s,s,s],s:[s]}", "command", "python",
			      "t.py", "--num-workers", "6", "args",
			      "--steps=10");
	json_t *sh = json_pack("{s:[s,s,s]}", "command", "sh", "-c",
			       "export X=1; python t.py --workers=4 && echo");
	char *v;

	ck_assert_int_eq(cpl_knob_workers(c), 6);
	ck_assert(cpl_knob_set_flag(c, NULL, "2"));
	ck_assert_int_eq(cpl_knob_workers(c), 2);
	v = cpl_knob_flag(c, "steps");
	ck_assert_str_eq(v, "10");
	free(v);
	ck_assert(cpl_knob_set_flag(c, "--steps", "200"));
	ck_assert_str_eq(json_string_value(json_array_get(
		json_object_get(c, "args"), 0)), "--steps=200");
	ck_assert(!cpl_knob_set_flag(c, "epochs", "1"));

	ck_assert_int_eq(cpl_knob_workers(sh), 4);
	ck_assert(cpl_knob_set_flag(sh, NULL, "${trialParameters.workers}"));
	ck_assert_str_eq(json_string_value(json_array_get(
		json_object_get(sh, "command"), 2)), "export X=1; python t.py "
		"--workers=${trialParameters.workers} && echo");

	ck_assert_int_eq(cpl_knob_threads(c), -1);
	cpl_knob_set_env(c, "OMP_NUM_THREADS", "8");
	cpl_knob_set_threads(c, "3");
	ck_assert_int_eq(cpl_knob_threads(c), 3);
	ck_assert_uint_eq(json_array_size(json_object_get(c, "env")), 2);
	json_decref(c);
	json_decref(sh);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("plandoc");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, round_trip_keeps_types);
	tcase_add_test(tc, not_yaml);
	tcase_add_test(tc, knob_shapes);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(suite)
