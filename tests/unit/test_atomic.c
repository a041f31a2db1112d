/* test_atomic.c — replacing a file whole: the mode is kept, a file that
 * changed since it was read is left alone, a failed write leaves the old
 * file, and no temporary file is left behind. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_main.h"
#include "text/atomic.h"
#include "util.h"

static char dir[] = "/tmp/cpl-atomic-XXXXXX";

static void
setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void
teardown(void)
{
	char *cmd = cpl_xasprintf("rm -rf '%s'", dir);

	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
}

static char *
put(const char *name, const char *text, mode_t mode)
{
	char *path = cpl_xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	ck_assert_int_eq(chmod(path, mode), 0);
	return path;
}

static char *
get(const char *path)
{
	struct cpl_error e = { 0 };
	char *text = NULL;
	size_t len;

	ck_assert_int_eq(cpl_read_file(&text, &len, path, 1 << 20, &e), 0);
	return text;
}

/* Files in dir (temporary ones included). */
static int
entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)) != NULL)
		n += strcmp(de->d_name, ".") != 0 &&
		     strcmp(de->d_name, "..") != 0;
	closedir(d);
	return n;
}

START_TEST(replace_keeps_mode)
{
	struct cpl_error e = { 0 };
	char *p = put("a.yaml", "a: 1\n", 0640), *t;
	struct stat st;

	ck_assert_int_eq(cpl_atomic_replace(p, "a: 1\n", 5, "a: 2\n", 5, 0, &e),
			 0);
	t = get(p);
	ck_assert_str_eq(t, "a: 2\n");
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0640);
	ck_assert_int_eq(entries(), 1);
	free(t);
	free(p);
}
END_TEST

START_TEST(changed_file_not_written)
{
	/* The file holds other bytes than were linted: edited in between. */
	struct cpl_error e = { 0 };
	char *p = put("a.yaml", "a: 1 # edited\n", 0644), *t;

	ck_assert_int_eq(cpl_atomic_replace(p, "a: 1\n", 5, "a: 2\n", 5, 0, &e),
			 1);
	ck_assert_ptr_nonnull(strstr(e.message, "changed since it was read"));
	t = get(p);
	ck_assert_str_eq(t, "a: 1 # edited\n");
	ck_assert_int_eq(entries(), 1);
	cpl_error_clear(&e);
	free(t);
	free(p);
}
END_TEST

START_TEST(grown_or_gone)
{
	struct cpl_error e = { 0 };
	char *p = put("a.yaml", "a: 1\nb: 2\n", 0644);
	char *gone = cpl_xasprintf("%s/none.yaml", dir);

	/* Longer than what was linted: changed, not an error. */
	ck_assert_int_eq(cpl_atomic_replace(p, "a: 1\n", 5, "a: 2\n", 5, 0, &e),
			 1);
	cpl_error_clear(&e);
	ck_assert_int_eq(cpl_atomic_replace(gone, "a: 1\n", 5, "x", 1, 0, &e),
			 -1);
	ck_assert_ptr_nonnull(e.message);
	cpl_error_clear(&e);
	free(gone);
	free(p);
}
END_TEST

START_TEST(symlink_target_replaced)
{
	struct cpl_error e = { 0 };
	char *p = put("real.yaml", "a: 1\n", 0600), *t;
	char *link = cpl_xasprintf("%s/link.yaml", dir);
	struct stat st;

	ck_assert_int_eq(symlink("real.yaml", link), 0);
	ck_assert_int_eq(cpl_atomic_replace(link, "a: 1\n", 5, "a: 3\n", 5,
					    0, &e), 0);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	t = get(p);
	ck_assert_str_eq(t, "a: 3\n");
	free(t);
	free(link);
	free(p);
}
END_TEST

START_TEST(read_only_refused)
{
	/* Even root (who may write it) leaves a file no one may write. */
	struct cpl_error e = { 0 };
	char *p = put("ro.yaml", "a: 1\n", 0444), *t;
	struct stat st;

	ck_assert_int_eq(cpl_atomic_replace(p, "a: 1\n", 5, "a: 2\n", 5, 0,
					    &e), 1);
	ck_assert_ptr_nonnull(strstr(e.message, "read-only"));
	cpl_error_clear(&e);
	t = get(p);
	ck_assert_str_eq(t, "a: 1\n");
	free(t);
	/* --force: replaced, still read-only. */
	ck_assert_int_eq(cpl_atomic_replace(p, "a: 1\n", 5, "a: 2\n", 5,
					    CPL_ATOMIC_FORCE, &e), 0);
	t = get(p);
	ck_assert_str_eq(t, "a: 2\n");
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0444);
	ck_assert_int_eq(entries(), 1);
	free(t);
	free(p);
}
END_TEST

START_TEST(hard_link_refused_or_kept)
{
	struct cpl_error e = { 0 };
	char *p = put("h.yaml", "a: 1\n", 0644), *t;
	char *other = cpl_xasprintf("%s/other.yaml", dir);
	struct stat st;

	ck_assert_int_eq(link(p, other), 0);
	ck_assert_int_eq(cpl_atomic_replace(p, "a: 1\n", 5, "a: 2\n", 5, 0,
					    &e), 1);
	ck_assert_ptr_nonnull(strstr(e.message, "hard link"));
	cpl_error_clear(&e);
	/* --force writes in place: both names see the new text. */
	ck_assert_int_eq(cpl_atomic_replace(p, "a: 1\n", 5, "b: 22\n", 6,
					    CPL_ATOMIC_FORCE, &e), 0);
	t = get(other);
	ck_assert_str_eq(t, "b: 22\n");
	free(t);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_uint_eq(st.st_nlink, 2);
	/* Shorter text: the rest is cut off. */
	ck_assert_int_eq(cpl_atomic_replace(p, "b: 22\n", 6, "c\n", 2,
					    CPL_ATOMIC_FORCE, &e), 0);
	t = get(other);
	ck_assert_str_eq(t, "c\n");
	free(t);
	free(other);
	free(p);
}
END_TEST

START_TEST(owner_and_group_kept)
{
	/* As root (CI is): the new file gets the old one's owner. */
	struct cpl_error e = { 0 };
	char *p = put("o.yaml", "a: 1\n", 0644);
	struct stat st;

	if (geteuid() != 0)
		return;
	ck_assert_int_eq(chown(p, 65534, 65534), 0);
	ck_assert_int_eq(cpl_atomic_replace(p, "a: 1\n", 5, "a: 2\n", 5, 0,
					    &e), 0);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_uint_eq(st.st_uid, 65534);
	ck_assert_uint_eq(st.st_gid, 65534);
	free(p);
}
END_TEST

START_TEST(abort_leaves_file)
{
	struct cpl_error e = { 0 };
	struct cpl_atomic a;
	char *p = put("r.txt", "old\n", 0644), *t;

	ck_assert_int_eq(cpl_atomic_open(&a, p, CPL_ATOMIC_NEW_MODE, &e), 0);
	fputs("new\n", a.fp);
	ck_assert_int_eq(entries(), 2);
	cpl_atomic_abort(&a);
	cpl_atomic_abort(NULL);
	t = get(p);
	ck_assert_str_eq(t, "old\n");
	ck_assert_int_eq(entries(), 1);
	free(t);
	free(p);
}
END_TEST

static Suite *
atomic_suite(void)
{
	Suite *s = suite_create("atomic");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, replace_keeps_mode);
	tcase_add_test(tc, changed_file_not_written);
	tcase_add_test(tc, grown_or_gone);
	tcase_add_test(tc, symlink_target_replaced);
	tcase_add_test(tc, abort_leaves_file);
	tcase_add_test(tc, read_only_refused);
	tcase_add_test(tc, hard_link_refused_or_kept);
	tcase_add_test(tc, owner_and_group_kept);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(atomic_suite)
