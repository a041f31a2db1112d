/* test_config.c — .cpulint.yaml's per-object ignores: matching by rule,
 * kind, name and namespace globs; unknown rules as warnings; a file with
 * an error adds nothing. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "run/config_int.h"

/* Writes text to a fresh temporary file; caller unlinks and frees. */
static char *
write_tmp(const char *text)
{
	char *path = strdup("/tmp/cpl-config-XXXXXX");
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

START_TEST(ignores_match)
{
	struct cpl_config *c = cpl_config_new();
	struct cpl_error err = { 0 };
	const struct cpl_error *w;
	const char *why = NULL;
	char *path = write_tmp(
		"ignore:\n"
		"- rule: CPU102\n"
		"  kind: deployment\n"
		"  name: \"tok-*\"\n"
		"  namespace: serving\n"
		"  reason: by policy\n"
		"- {rule: thread-env-missing}\n"
		"- {rule: CPU9O9, name: x}\n");
	size_t n;

	ck_assert_int_eq(cpl_config_load(c, path, &err), 0);
	ck_assert(cpl_config_ignored(c, "CPU102", "Deployment", "tok-a",
				     "serving", &why));
	ck_assert_str_eq(why, "by policy");
	ck_assert(!cpl_config_ignored(c, "CPU102", "Deployment", "tok-a",
				      "other", &why));
	ck_assert(!cpl_config_ignored(c, "CPU102", "Deployment", "tok-a",
				      NULL, &why));
	ck_assert(!cpl_config_ignored(c, "CPU102", "StatefulSet", "tok-a",
				      "serving", &why));
	ck_assert(!cpl_config_ignored(c, "CPU102", "Deployment", "other",
				      "serving", &why));
	ck_assert(!cpl_config_ignored(c, "CPU103", "Deployment", "tok-a",
				      "serving", &why));
	/* By name, every object; no reason: the file and line. */
	ck_assert(cpl_config_ignored(c, "CPU201", "Pod", "p", NULL, &why));
	ck_assert(strncmp(why, "ignored by cpl-config-", 22) == 0);
	ck_assert(cpl_str_ends(why, ":7"));
	w = cpl_config_warnings(c, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(w[0].line, 8);
	ck_assert_int_eq(w[0].column, 10);
	ck_assert(strstr(w[0].message, "CPU9O9") != NULL);
	unlink(path);
	free(path);
	cpl_config_free(c);
}
END_TEST

START_TEST(error_adds_nothing)
{
	struct cpl_config *c = cpl_config_new();
	struct cpl_error err = { 0 };
	const char *why = NULL;
	char *path = write_tmp(
		"ignore:\n"
		"- {rule: CPU102}\n"
		"- {rule: CPU9O9}\n"
		"- {kind: Pod}\n");
	size_t n;

	ck_assert_int_eq(cpl_config_load(c, path, &err), -1);
	ck_assert_int_eq(err.line, 4);
	ck_assert(strstr(err.message, "needs a rule") != NULL);
	ck_assert(!cpl_config_ignored(c, "CPU102", "Pod", "p", NULL, &why));
	cpl_config_warnings(c, &n);
	ck_assert_uint_eq(n, 0);
	cpl_error_clear(&err);
	unlink(path);
	free(path);
	cpl_config_free(c);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, ignores_match);
	tcase_add_test(tc, error_adds_nothing);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(suite)
