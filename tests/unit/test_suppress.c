/* test_suppress.c — inline `cpulint: disable` comments. */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "suppress.h"

static struct cpl_suppress *
scan(const char *t)
{
	return cpl_suppress_scan(t, strlen(t));
}

START_TEST(line_and_next_line)
{
	struct cpl_suppress *s = scan(
		"a: 1\n"
		"# cpulint: disable=CPU201\n"
		"b: 2\n"
		"c: 3  # cpulint: disable=CPU101, cpu-limit-missing\n"
		"d: 4\n");

	ck_assert_int_eq(cpl_suppress_match(s, "CPU201", 2), 2);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU201", 3), 2);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU201", 4), 0);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU201", 1), 0);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU101", 4), 4);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU102", 5), 4);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU102", 6), 0);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU103", 4), 0);
	cpl_suppress_free(s);
}
END_TEST

START_TEST(file_wide_and_all)
{
	struct cpl_suppress *s = scan(
		"x = 1\n"
		"y = 2  # cpulint: disable=all\n"
		"# cpulint: disable-file=CPU301\n");

	ck_assert_int_eq(cpl_suppress_match(s, "CPU301", 100), -1);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU401", 2), 2);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU401", 3), 2);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU401", 1), 0);
	cpl_suppress_free(s);
}
END_TEST

START_TEST(not_comments)
{
	/* '#' inside a word is not a comment; no comment, no table. */
	struct cpl_suppress *s = scan("url: a#cpulint: disable=CPU201\n");

	ck_assert_int_eq(cpl_suppress_match(s, "CPU201", 1), 0);
	cpl_suppress_free(s);
	ck_assert_ptr_null(scan("a: 1\nb: 2\n"));
	ck_assert_int_eq(cpl_suppress_match(NULL, "CPU201", 1), 0);
	s = scan("# cpulint: enable=CPU201\n");
	ck_assert_int_eq(cpl_suppress_match(s, "CPU201", 1), 0);
	cpl_suppress_free(s);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("suppress");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, line_and_next_line);
	tcase_add_test(tc, file_wide_and_all);
	tcase_add_test(tc, not_comments);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(suite)
