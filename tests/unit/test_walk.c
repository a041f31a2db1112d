/* test_walk.c — the walks' one rule set: hidden names, vendored
 * directories, wanted file names, Helm chart templates; and a plain
 * walk's order, with its listings (every name, sorted, once per
 * directory walked; links and skipped directories listed, not walked). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "run/walk_int.h"

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

/* What a walk reported, as one text. */
static char seen[2048];

static void
on_file(void *ctx, const char *path)
{
	(void)ctx;
	snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "F %s\n",
		 strrchr(path, '/') + 1);
}

static void
on_listed(void *ctx, const char *dir, char *const *names, size_t n)
{
	size_t i;

	(void)ctx;
	snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "L %s:",
		 strrchr(dir, '/') + 1);
	for (i = 0; i < n; i++)
		snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen),
			 " %s", names[i]);
	snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "\n");
}

START_TEST(plain_walk_and_listings)
{
	char dir[] = "/tmp/cpl-walk-XXXXXX";
	char p[512];
	struct cpl_walker w = { .file = on_file, .listed = on_listed };

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(p, sizeof(p), "cd %s && mkdir -p top/pkg top/.hidden "
		 "top/venv top/other && touch top/b.py top/a.yaml top/z.txt "
		 "top/pkg/__init__.py top/.hidden/x.py top/venv/y.py && "
		 "ln -s ../other top/pkg/link && ln -s b.py top/c.py", dir);
	ck_assert_int_eq(system(p), 0);
	snprintf(p, sizeof(p), "%s/top", dir);
	seen[0] = '\0';
	cpl_walk_dir(&w, p);
	ck_assert_str_eq(seen,
			 "L top: .hidden a.yaml b.py c.py other pkg venv "
			 "z.txt\n"
			 "F a.yaml\nF b.py\n"	/* c.py: a link */
			 "L other:\n"
			 "L pkg: __init__.py link\n"
			 "F __init__.py\n");
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
	tcase_add_test(tc, plain_walk_and_listings);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(suite)
