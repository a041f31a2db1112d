/* test_cpus.c — the cgroup quota reader on fixture trees (testdata/cpus)
 * and the CPU count's floor. */
#include <check.h>

#include "check_main.h"
#include "run/cpus_int.h"

#define ROOT "testdata/cpus/"

START_TEST(v2_tightest_level)
{
	ck_assert_int_eq(cpl_cpus_quota(ROOT "v2-quota"), 3);
	ck_assert_int_eq(cpl_cpus_quota(ROOT "v2-parent"), 2);
}
END_TEST

START_TEST(v2_no_quota)
{
	ck_assert_int_eq(cpl_cpus_quota(ROOT "v2-max"), 0);
}
END_TEST

START_TEST(v2_namespace_mount)
{
	ck_assert_int_eq(cpl_cpus_quota(ROOT "v2-ns"), 1);
}
END_TEST

START_TEST(v1_quota)
{
	ck_assert_int_eq(cpl_cpus_quota(ROOT "v1-quota"), 3);
	ck_assert_int_eq(cpl_cpus_quota(ROOT "v1-none"), 0);
}
END_TEST

START_TEST(missing_files)
{
	ck_assert_int_eq(cpl_cpus_quota(ROOT "missing"), 0);
	ck_assert_int_eq(cpl_cpus_quota(ROOT "no-such-root"), 0);
}
END_TEST

START_TEST(available_at_least_one)
{
	ck_assert_int_ge(cpl_cpus_available(), 1);
}
END_TEST

static Suite *
cpus_suite(void)
{
	Suite *s = suite_create("cpus");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, v2_tightest_level);
	tcase_add_test(tc, v2_no_quota);
	tcase_add_test(tc, v2_namespace_mount);
	tcase_add_test(tc, v1_quota);
	tcase_add_test(tc, missing_files);
	tcase_add_test(tc, available_at_least_one);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(cpus_suite)
