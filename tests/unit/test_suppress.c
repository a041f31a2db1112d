/* test_suppress.c — inline `cpulint: disable` comments. */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "run/suppress_int.h"

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

/* The words after the rule list are the reason (SARIF's justification). */
START_TEST(reasons)
{
	struct cpl_suppress *s = scan(
		"a: 1  # cpulint: disable=CPU202 by policy\n"
		"b: 2  # cpulint: disable=CPU201,CPU101 -- sized on purpose  \r\n"
		"c: 3  # cpulint: disable=CPU301\n"
		"# cpulint: disable-file=CPU401 (reviewed)\n");
	const char *why = "x";

	ck_assert_int_eq(cpl_suppress_match_why(s, "CPU202", 1, &why), 1);
	ck_assert_str_eq(why, "by policy");
	ck_assert_int_eq(cpl_suppress_match_why(s, "CPU101", 2, &why), 2);
	ck_assert_str_eq(why, "sized on purpose");
	ck_assert_int_eq(cpl_suppress_match_why(s, "CPU301", 3, &why), 3);
	ck_assert_ptr_null(why);
	ck_assert_int_eq(cpl_suppress_match_why(s, "CPU401", 9, &why), -1);
	ck_assert_str_eq(why, "reviewed");
	ck_assert_int_eq(cpl_suppress_match_why(s, "CPU402", 9, &why), 0);
	ck_assert_ptr_null(why);
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

/* Only lines with "cpulint:" are read, so the line count across the
 * lines skipped must be right; a line's first comment decides. */
START_TEST(lines_found_by_search)
{
	struct cpl_suppress *s = scan(
		"a: 'cpulint: disable=CPU101'  # plain comment\n"
		"\n\n\n"
		"b: 1  # cpulint: disable=CPU102 # cpulint: disable=CPU103\n"
		"c: x#y  # cpulint: disable=CPU104\r\n"
		"d: 2\n"
		"# cpulint: disable=CPU105");

	ck_assert_int_eq(cpl_suppress_match(s, "CPU101", 1), 0);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU101", 2), 0);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU102", 5), 5);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU103", 5), 0);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU104", 6), 6);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU104", 7), 6);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU105", 8), 8);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU105", 7), 0);
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

START_TEST(unknown_rules)
{
	/* A typo is kept with its place; `all` and prose after the list
	 * are not typos. */
	struct cpl_suppress *s = scan(
		"a: 1  # cpulint: disable=CPU2O1,CPU102\n"
		"# cpulint: disable-file=cpu-limt-missing\n"
		"b: 2  # cpulint: disable=all\n"
		"c: 3  # cpulint: disable=CPU102 no limits by policy\n"
		"d: 4  # cpulint: disable=nonsense\n");
	const struct cpl_suppress_unknown *u;
	size_t n;

	u = cpl_suppress_unknowns(s, &n);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(u[0].word, "CPU2O1");
	ck_assert_int_eq(u[0].line, 1);
	ck_assert_int_eq(u[0].column, 26);
	ck_assert_str_eq(u[1].word, "cpu-limt-missing");
	ck_assert_int_eq(u[1].line, 2);
	ck_assert_int_eq(u[1].column, 25);
	ck_assert_str_eq(u[2].word, "nonsense");
	ck_assert_int_eq(u[2].line, 5);
	/* The known rule beside a typo still suppresses. */
	ck_assert_int_eq(cpl_suppress_match(s, "CPU102", 1), 1);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU102", 5), 4);
	cpl_suppress_free(s);
	ck_assert_ptr_null(cpl_suppress_unknowns(NULL, &n));
	ck_assert_uint_eq(n, 0);
}
END_TEST

/* The lines are found from their '#': many comments without the word,
 * the word before any '#' or only before one, a '#' closing the text,
 * and the line numbers counted across them. */
START_TEST(lines_found_from_hashes)
{
	struct cpl_suppress *s = scan(
		"# one\n"
		"a: cpulint: disable=CPU101\n"
		"b: cpulint: disable=CPU102 # two\n"
		"## three # four #\n"
		"\n"
		"c: 1 # x # cpulint: disable=CPU103\n"
		"#cpulint: disable=CPU104\n"
		"d: 2 #cpulint:\n"
		"e: 3 # cpulint: disable=CPU105 #\n"
		"#");

	ck_assert_int_eq(cpl_suppress_match(s, "CPU101", 2), 0);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU102", 3), 0);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU103", 6), 6);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU104", 7), 7);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU104", 8), 7);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU105", 9), 9);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU105", 10), 9);
	ck_assert_int_eq(cpl_suppress_match(s, "CPU105", 11), 0);
	cpl_suppress_free(s);
	/* The word alone, no '#' on its line: nothing to read. */
	ck_assert_ptr_null(scan("# a\nb: cpulint: disable=CPU101\n# c\n"));
	ck_assert_ptr_null(scan("#"));
	ck_assert_ptr_null(scan("a #cpulint"));
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
	tcase_add_test(tc, lines_found_by_search);
	tcase_add_test(tc, lines_found_from_hashes);
	tcase_add_test(tc, unknown_rules);
	tcase_add_test(tc, reasons);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(suite)
