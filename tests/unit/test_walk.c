/* test_walk.c — the walks' one rule set: hidden names, vendored
 * directories, wanted file names, Helm chart templates. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "walk.h"

START_TEST(rule_set)
{
	ck_assert(cpl_walk_skip_path(".hidden.yaml"));
	ck_assert(cpl_walk_skip_path("a/.cache/x.yaml"));
	ck_assert(cpl_walk_skip_path("venv/lib/x.py"));
	ck_assert(cpl_walk_skip_path("a/__pycache__/x.py"));
	ck_assert(cpl_walk_skip_path("node_modules/x.json"));
	ck_assert(cpl_walk_skip_path("lib/site-packages/x.py"));
	ck_assert(!cpl_walk_skip_path("my_venv/x.py"));
	ck_assert(!cpl_walk_skip_path("a/b/x.yaml"));
	/* A file may be named like a vendored directory. */
	ck_assert(!cpl_walk_skip_path("a/venv"));
	ck_assert(cpl_walk_wanted("a.yml") && cpl_walk_wanted("a.json") &&
		  cpl_walk_wanted("a.py") && !cpl_walk_wanted("a.tpl"));
}
END_TEST

START_TEST(helm_chart)
{
	char dir[] = "/tmp/cpl-walk-XXXXXX";
	char p[256], *chart;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(p, sizeof(p), "mkdir -p %s/c/templates/sub && "
		 "touch %s/c/Chart.yaml", dir, dir);
	ck_assert_int_eq(system(p), 0);
	snprintf(p, sizeof(p), "%s/c/templates/sub/x.yaml", dir);
	chart = cpl_walk_chart_of(p);
	ck_assert_ptr_nonnull(chart);
	snprintf(p, sizeof(p), "%s/c", dir);
	ck_assert_str_eq(chart, p);
	free(chart);
	snprintf(p, sizeof(p), "%s/c/values.yaml", dir);
	ck_assert_ptr_null(cpl_walk_chart_of(p));
	/* No Chart.yaml beside this templates/. */
	ck_assert_ptr_null(cpl_walk_chart_of("templates/x.yaml"));
	snprintf(p, sizeof(p), "rm -rf %s", dir);
	ck_assert_int_eq(system(p), 0);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("walk");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, rule_set);
	tcase_add_test(tc, helm_chart);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(suite)
