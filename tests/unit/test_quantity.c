/* test_quantity.c — CPU quantities and Polyaxon ranges. */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "text/quantity.h"

static int64_t
cpu(const char *s)
{
	int64_t m = -99;
	const char *why;

	ck_assert_msg(cpl_quantity_cpu(&m, s, &why) == 0, "%s: %s", s,
		      why ? why : "");
	return m;
}

static const char *
bad(const char *s)
{
	int64_t m;
	const char *why = NULL;

	ck_assert_msg(cpl_quantity_cpu(&m, s, &why) < 0, "%s parsed", s);
	ck_assert_ptr_nonnull(why);
	return why;
}

START_TEST(plain_forms)
{
	ck_assert_int_eq(cpu("2"), 2000);
	ck_assert_int_eq(cpu("500m"), 500);
	ck_assert_int_eq(cpu("2.5"), 2500);
	ck_assert_int_eq(cpu("0.1"), 100);
	ck_assert_int_eq(cpu(".5"), 500);
	ck_assert_int_eq(cpu("+3"), 3000);
	ck_assert_int_eq(cpu("0"), 0);
	ck_assert_int_eq(cpu("100"), 100000);
}
END_TEST

START_TEST(exponents_and_suffixes)
{
	ck_assert_int_eq(cpu("1e3"), 1000000);
	ck_assert_int_eq(cpu("1E-1"), 100);
	ck_assert_int_eq(cpu("2e0"), 2000);
	ck_assert_int_eq(cpu("1k"), 1000000);
	ck_assert_int_eq(cpu("1Ki"), 1024000);
	ck_assert_int_eq(cpu("1P"), 1000000000000000000LL);
	ck_assert_ptr_nonnull(strstr(bad("1E"), "too large"));
	ck_assert_int_eq(cpu("250000u"), 250);
	ck_assert_int_eq(cpu("1500000000n"), 1500);
}
END_TEST

START_TEST(rounding_up)
{
	/* Like MilliValue(): a fraction of a millicore rounds up. */
	ck_assert_int_eq(cpu("0.0001"), 1);
	ck_assert_int_eq(cpu("1n"), 1);
	ck_assert_int_eq(cpu("2.0005"), 2001);
	ck_assert_int_eq(cpu("100.5m"), 101);
}
END_TEST

START_TEST(invalid)
{
	bad("");
	bad("abc");
	ck_assert_ptr_nonnull(strstr(bad("2 cores"), "suffix"));
	bad("2x");
	bad("m");
	bad("1.2.3");
	ck_assert_ptr_nonnull(strstr(bad("-1"), "negative"));
	ck_assert_ptr_nonnull(strstr(bad("1e40"), "too large"));
	bad("500 m");
}
END_TEST

START_TEST(ranges)
{
	int64_t req, lim;
	const char *why;

	ck_assert_int_eq(cpl_quantity_range(&req, &lim, "2..4", &why), 0);
	ck_assert_int_eq(req, 2000);
	ck_assert_int_eq(lim, 4000);
	ck_assert_int_eq(cpl_quantity_range(&req, &lim, "500m..1", &why), 0);
	ck_assert_int_eq(req, 500);
	ck_assert_int_eq(lim, 1000);
	ck_assert_int_eq(cpl_quantity_range(&req, &lim, "..4", &why), 0);
	ck_assert_int_eq(req, -1);
	ck_assert_int_eq(lim, 4000);
	ck_assert_int_eq(cpl_quantity_range(&req, &lim, "2..", &why), 0);
	ck_assert_int_eq(req, 2000);
	ck_assert_int_eq(lim, -1);
	ck_assert_int_eq(cpl_quantity_range(&req, &lim, "3", &why), 0);
	ck_assert_int_eq(req, 3000);
	ck_assert_int_eq(lim, 3000);
	ck_assert_int_eq(cpl_quantity_range(&req, &lim, "4..2", &why), -1);
	ck_assert_ptr_nonnull(strstr(why, "above"));
	ck_assert_int_eq(cpl_quantity_range(&req, &lim, "..", &why), -1);
	ck_assert_int_eq(cpl_quantity_range(&req, &lim, "2..x", &why), -1);
}
END_TEST

START_TEST(format)
{
	char buf[32];

	cpl_quantity_format(buf, sizeof(buf), 2000);
	ck_assert_str_eq(buf, "2");
	cpl_quantity_format(buf, sizeof(buf), 500);
	ck_assert_str_eq(buf, "500m");
	cpl_quantity_format(buf, sizeof(buf), 2500);
	ck_assert_str_eq(buf, "2500m");
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("quantity");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, plain_forms);
	tcase_add_test(tc, exponents_and_suffixes);
	tcase_add_test(tc, rounding_up);
	tcase_add_test(tc, invalid);
	tcase_add_test(tc, ranges);
	tcase_add_test(tc, format);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(suite)
