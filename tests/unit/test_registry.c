/*
 * test_registry.c — the registry checks itself: ids unique, in order and
 * well formed, names kebab-case, every rule documented (rules/ID.md is
 * embedded) and, unless live-only, backed by a firing and a non-firing
 * golden case under testdata/rules/ID/.
 */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "check_main.h"
#include "model/rule.h"

static bool
is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

START_TEST(well_formed)
{
	const struct cpl_rule *const *r;
	size_t n, i, j;

	r = cpl_rules_all(&n);
	ck_assert_int_gt(n, 0);
	ck_assert_ptr_null(r[n]);
	for (i = 0; i < n; i++) {
		const char *id = r[i]->id, *name = r[i]->name;

		ck_assert_msg(strlen(id) == 6 && strncmp(id, "CPU", 3) == 0 &&
			      isdigit((unsigned char)id[3]) &&
			      isdigit((unsigned char)id[4]) &&
			      isdigit((unsigned char)id[5]),
			      "malformed id %s", id);
		if (i > 0)
			ck_assert_msg(strcmp(r[i - 1]->id, id) < 0,
				      "%s is out of order or duplicated", id);
		ck_assert_msg(name && islower((unsigned char)name[0]) &&
			      strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-")
			      == strlen(name) && !strstr(name, "--") &&
			      name[strlen(name) - 1] != '-',
			      "%s: name \"%s\" is not kebab-case", id, name);
		for (j = 0; j < i; j++)
			ck_assert_msg(strcmp(r[j]->name, name) != 0,
				      "duplicate name %s", name);
		ck_assert_msg(r[i]->summary && *r[i]->summary, "%s: summary",
			      id);
		ck_assert_msg(r[i]->severity >= CPL_SEV_NOTE &&
			      r[i]->severity <= CPL_SEV_ERROR, "%s severity",
			      id);
		ck_assert_msg(r[i]->check_container || r[i]->check_code,
			      "%s has no check", id);
		ck_assert_ptr_eq(cpl_rule_find(id), r[i]);
		ck_assert_ptr_eq(cpl_rule_find(name), r[i]);
	}
	ck_assert_ptr_null(cpl_rule_find("CPU999"));
}
END_TEST

START_TEST(documented_and_tested)
{
	const struct cpl_rule *const *r;
	size_t n, i;
	char path[256];

	r = cpl_rules_all(&n);
	for (i = 0; i < n; i++) {
		const char *doc = cpl_rule_doc(r[i]);
		char head[64];

		ck_assert_msg(doc != NULL, "rules/%s.md is missing", r[i]->id);
		snprintf(head, sizeof(head), "# %s %s\n", r[i]->id,
			 r[i]->name);
		ck_assert_msg(strncmp(doc, head, strlen(head)) == 0,
			      "rules/%s.md must start with \"%s\"", r[i]->id,
			      head);
		ck_assert_msg(strstr(doc, "## How to fix") != NULL,
			      "rules/%s.md has no fix section", r[i]->id);
		if (r[i]->live_only)
			continue;
		snprintf(path, sizeof(path), "testdata/rules/%s/bad",
			 r[i]->id);
		ck_assert_msg(is_dir(path), "%s is missing", path);
		snprintf(path, sizeof(path), "testdata/rules/%s/good",
			 r[i]->id);
		ck_assert_msg(is_dir(path), "%s is missing", path);
	}
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("registry");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, well_formed);
	tcase_add_test(tc, documented_and_tested);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(suite)
