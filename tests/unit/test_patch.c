/* test_patch.c — applying edits (replacement, insertion, duplicates,
 * overlaps, groups, CRLF, non-ASCII columns, no final newline) and the
 * unified diff written from them. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "text/patch.h"

#define E(l, c, el, ec, t, g) { .line = (l), .column = (c), .end_line = (el), \
				.end_column = (ec), .text = (t), .group = (g) }

/* Applies edits to text; the new text, or the diff when diff is set. */
static char *
run(const char *text, struct cpl_patch_edit *ed, size_t n, bool diff,
    struct cpl_patch *keep)
{
	struct cpl_patch p;
	struct cpl_buf b;
	char *s;

	cpl_patch_apply(&p, text, strlen(text), ed, n);
	ck_assert_uint_eq(strlen(p.text), p.len);
	if (!diff) {
		s = cpl_xstrdup(p.text);
	} else {
		cpl_buf_init(&b, 0);
		ck_assert_int_eq(cpl_patch_diff(&b, "./dir/f.yaml", text,
						strlen(text), p.text, p.len,
						p.regions, p.nregions, NULL),
				 0);
		s = cpl_buf_detach(&b);
	}
	if (keep)
		*keep = p;
	else
		cpl_patch_free(&p);
	return s;
}

START_TEST(replace_scalar)
{
	struct cpl_patch_edit ed[] = { E(2, 10, 2, 14, "\"4\"", 0) };
	char *s = run("env:\n  value: \"16\" # keep\n", ed, 1, false, NULL);

	ck_assert_str_eq(s, "env:\n  value: \"4\" # keep\n");
	ck_assert_int_eq(ed[0].state, CPL_PATCH_APPLIED);
	free(s);
}
END_TEST

START_TEST(insert_keeps_order)
{
	struct cpl_patch_edit ed[] = {
		E(2, 1, 2, 1, "  - b\n", 1),
		E(2, 1, 2, 1, "  - c\n", 2),
		E(1, 5, 1, 5, " # list", 3),
	};
	char *s = run("env:\n  - a\n", ed, 3, false, NULL);

	ck_assert_str_eq(s, "env: # list\n  - b\n  - c\n  - a\n");
	free(s);
}
END_TEST

START_TEST(duplicate_dropped)
{
	struct cpl_patch_edit ed[] = {
		E(1, 4, 1, 5, "2", 0),
		E(1, 4, 1, 5, "2", 1),
		E(2, 1, 2, 1, "b: 1\n", 2),
		E(2, 1, 2, 1, "b: 1\n", 3),
	};
	struct cpl_patch p;
	char *s = run("a: 1\n", ed, 4, false, &p);

	ck_assert_str_eq(s, "a: 2\nb: 1\n");
	ck_assert_int_eq(ed[0].state, CPL_PATCH_APPLIED);
	ck_assert_int_eq(ed[1].state, CPL_PATCH_DUPLICATE);
	ck_assert_int_eq(ed[3].state, CPL_PATCH_DUPLICATE);
	ck_assert_uint_eq(p.napplied, 2);
	ck_assert_uint_eq(p.nskipped, 0);
	cpl_patch_free(&p);
	free(s);
}
END_TEST

START_TEST(overlap_skips_group)
{
	/* Group 1 overlaps group 0; its other edit is not applied either. */
	struct cpl_patch_edit ed[] = {
		E(1, 1, 1, 5, "x: 9", 0),
		E(1, 4, 1, 5, "7", 1),
		E(2, 4, 2, 5, "8", 1),
	};
	struct cpl_patch p;
	char *s = run("a: 1\nb: 2\n", ed, 3, false, &p);

	ck_assert_str_eq(s, "x: 9\nb: 2\n");
	ck_assert_int_eq(ed[1].state, CPL_PATCH_SKIPPED);
	ck_assert_int_eq(ed[2].state, CPL_PATCH_SKIPPED);
	ck_assert_uint_eq(p.nskipped, 2);
	cpl_patch_free(&p);
	free(s);
}
END_TEST

START_TEST(invalid_position)
{
	struct cpl_patch_edit ed[] = {
		E(3, 1, 3, 2, "x", 0),
		E(1, 9, 1, 9, "x", 1),
		E(1, 3, 1, 2, "x", 2),
		E(1, 1, 1, 2, "b", 3),
	};
	char *s = run("a: 1\n", ed, 4, false, NULL);

	ck_assert_str_eq(s, "b: 1\n");
	ck_assert_int_eq(ed[0].state, CPL_PATCH_INVALID);
	ck_assert_int_eq(ed[1].state, CPL_PATCH_INVALID);
	ck_assert_int_eq(ed[2].state, CPL_PATCH_INVALID);
	ck_assert_int_eq(ed[3].state, CPL_PATCH_APPLIED);
	free(s);
}
END_TEST

START_TEST(crlf_kept)
{
	struct cpl_patch_edit ed[] = {
		E(2, 4, 2, 6, "4", 0),
		E(3, 1, 3, 1, "c: 1\r\n", 1),
	};
	char *s = run("a:\r\nb: 16\r\n", ed, 2, false, NULL);
	char *d;

	ck_assert_str_eq(s, "a:\r\nb: 4\r\nc: 1\r\n");
	free(s);
	d = run("a:\r\nb: 16\r\n", ed, 2, true, NULL);
	ck_assert_str_eq(d, "--- a/dir/f.yaml\n+++ b/dir/f.yaml\n"
			 "@@ -1,2 +1,3 @@\n a:\r\n-b: 16\r\n+b: 4\r\n"
			 "+c: 1\r\n");
	free(d);
}
END_TEST

START_TEST(non_ascii_bytes)
{
	/* "é" is two bytes: the value starts at byte column 15. */
	struct cpl_patch_edit ed[] = { E(1, 15, 1, 17, "4", 0) };
	char *s = run("# caf\xc3\xa9 x: \"\" 16\n", ed, 1, false, NULL);

	ck_assert_str_eq(s, "# caf\xc3\xa9 x: \"\" 4\n");
	free(s);
}
END_TEST

START_TEST(no_final_newline)
{
	struct cpl_patch_edit ed[] = { E(2, 4, 2, 5, "2", 0) };
	char *d = run("a: 1\nb: 1", ed, 1, true, NULL);

	ck_assert_str_eq(d, "--- a/dir/f.yaml\n+++ b/dir/f.yaml\n"
			 "@@ -1,2 +1,2 @@\n a: 1\n-b: 1\n"
			 "\\ No newline at end of file\n+b: 2\n"
			 "\\ No newline at end of file\n");
	free(d);
}
END_TEST

START_TEST(append_at_end)
{
	struct cpl_patch_edit ed[] = { E(1, 5, 1, 5, "\nb: 2\n", 0) };
	char *d = run("a: 1", ed, 1, true, NULL);

	ck_assert_str_eq(d, "--- a/dir/f.yaml\n+++ b/dir/f.yaml\n"
			 "@@ -1 +1,2 @@\n-a: 1\n"
			 "\\ No newline at end of file\n+a: 1\n+b: 2\n");
	free(d);
}
END_TEST

START_TEST(insert_after_last_line)
{
	struct cpl_patch_edit ed[] = { E(3, 1, 3, 1, "c: 3\n", 0) };
	char *d = run("a: 1\nb: 2\n", ed, 1, true, NULL);

	ck_assert_str_eq(d, "--- a/dir/f.yaml\n+++ b/dir/f.yaml\n"
			 "@@ -1,2 +1,3 @@\n a: 1\n b: 2\n+c: 3\n");
	free(d);
}
END_TEST

START_TEST(diff_hunks_and_context)
{
	/* Lines 2 and 20 change: two hunks; lines 2 and 8: one. */
	const char *t = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n"
			"15\n16\n17\n18\n19\n20\n";
	struct cpl_patch_edit two[] = {
		E(2, 1, 2, 2, "two", 0), E(20, 1, 20, 3, "twenty", 1),
	};
	struct cpl_patch_edit one[] = {
		E(2, 1, 2, 2, "two", 0), E(8, 1, 8, 2, "eight", 1),
	};
	char *d = run(t, two, 2, true, NULL);

	ck_assert_str_eq(d, "--- a/dir/f.yaml\n+++ b/dir/f.yaml\n"
			 "@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n"
			 "@@ -17,4 +17,4 @@\n 17\n 18\n 19\n-20\n+twenty\n");
	free(d);
	d = run(t, one, 2, true, NULL);
	ck_assert_str_eq(d, "--- a/dir/f.yaml\n+++ b/dir/f.yaml\n"
			 "@@ -1,11 +1,11 @@\n 1\n-2\n+two\n 3\n 4\n 5\n"
			 " 6\n 7\n-8\n+eight\n 9\n 10\n 11\n");
	free(d);
}
END_TEST

START_TEST(diff_trims_unchanged_lines)
{
	/* An insertion at a line start does not show that line changed;
	 * an edit that changes nothing gives no diff. */
	struct cpl_patch_edit ed[] = { E(2, 1, 2, 1, "x: 0\n", 0) };
	struct cpl_patch_edit same[] = { E(1, 4, 1, 5, "1", 0) };
	char *d = run("a: 1\nb: 2\n", ed, 1, true, NULL);

	ck_assert_str_eq(d, "--- a/dir/f.yaml\n+++ b/dir/f.yaml\n"
			 "@@ -1,2 +1,3 @@\n a: 1\n+x: 0\n b: 2\n");
	free(d);
	d = run("a: 1\n", same, 1, true, NULL);
	ck_assert_str_eq(d, "");
	free(d);
}
END_TEST

START_TEST(diff_neighbouring_edits)
{
	/* An insertion before line 2 and a change of line 3: line 2 stays
	 * context (merged into one region it was removed and added again);
	 * changes of lines 3 and 4 read as one block, "-a -b +a' +b'". */
	struct cpl_patch_edit ed[] = {
		E(2, 1, 2, 1, "x: 0\n", 0), E(3, 4, 3, 5, "9", 1),
	};
	struct cpl_patch_edit two[] = {
		E(3, 4, 3, 5, "9", 0), E(4, 4, 4, 5, "8", 1),
	};
	const char *t = "a: 1\nb: 2\nc: 3\nd: 4\n";
	char *d = run(t, ed, 2, true, NULL);

	ck_assert_str_eq(d, "--- a/dir/f.yaml\n+++ b/dir/f.yaml\n"
			 "@@ -1,4 +1,5 @@\n a: 1\n+x: 0\n b: 2\n-c: 3\n"
			 "+c: 9\n d: 4\n");
	free(d);
	d = run(t, two, 2, true, NULL);
	ck_assert_str_eq(d, "--- a/dir/f.yaml\n+++ b/dir/f.yaml\n"
			 "@@ -1,4 +1,4 @@\n a: 1\n b: 2\n-c: 3\n-d: 4\n"
			 "+c: 9\n+d: 8\n");
	free(d);
}
END_TEST

START_TEST(empty_text)
{
	struct cpl_patch_edit ed[] = { E(1, 1, 1, 1, "a: 1\n", 0) };
	char *d = run("", ed, 1, true, NULL);

	ck_assert_str_eq(d, "--- a/dir/f.yaml\n+++ b/dir/f.yaml\n"
			 "@@ -0,0 +1 @@\n+a: 1\n");
	free(d);
	d = run("", NULL, 0, false, NULL);
	ck_assert_str_eq(d, "");
	free(d);
}
END_TEST

START_TEST(span_of_two_texts)
{
	struct cpl_patch_region r;
	const char *a = "1\n2\n3\n4\n", *b = "1\nx\n3\ny\n";

	ck_assert(cpl_patch_span(&r, a, strlen(a), b, strlen(b)));
	ck_assert_uint_eq(r.old_off, 2);
	ck_assert_uint_eq(r.old_end, 8);
	ck_assert_uint_eq(r.new_off, 2);
	ck_assert_uint_eq(r.new_end, 8);
	ck_assert(!cpl_patch_span(&r, a, strlen(a), a, strlen(a)));
}
END_TEST

/* The "---" and "+++" lines of a one-line change in a file called path
 * (NULL when the diff refused the name: err set); caller frees. */
static char *
headers(const char *path, struct cpl_error *err)
{
	struct cpl_patch_edit ed[] = { E(1, 4, 1, 5, "2", 0) };
	struct cpl_patch p;
	struct cpl_buf b;
	char *s, *hunk;

	cpl_patch_apply(&p, "a: 1\n", 5, ed, 1);
	cpl_buf_init(&b, 0);
	if (cpl_patch_diff(&b, path, "a: 1\n", 5, p.text, p.len, p.regions,
			   p.nregions, err) < 0) {
		ck_assert_uint_eq(b.len, 0);
		cpl_buf_free(&b);
		cpl_patch_free(&p);
		return NULL;
	}
	s = cpl_buf_detach(&b);
	hunk = strstr(s, "@@ -1 +1 @@\n-a: 1\n+a: 2\n");
	ck_assert_msg(hunk != NULL, "%s", s);
	*hunk = '\0';
	cpl_patch_free(&p);
	return s;
}

/* Names as git writes them: C-quoted when they hold a control character,
 * a quote, a backslash, DEL or a byte from 0x80 (octal), a tab after a
 * name with a space, "." and empty components dropped. */
START_TEST(diff_names_quoted_as_git)
{
	static const struct {
		const char *path, *want;
	} cases[] = {
		{ "./dir/f.yaml", "--- a/dir/f.yaml\n+++ b/dir/f.yaml\n" },
		{ "d\n::add-mask::x/f.yaml",
		  "--- \"a/d\\n::add-mask::x/f.yaml\"\n"
		  "+++ \"b/d\\n::add-mask::x/f.yaml\"\n" },
		{ "t\tab\r.yaml",
		  "--- \"a/t\\tab\\r.yaml\"\n+++ \"b/t\\tab\\r.yaml\"\n" },
		{ "q\"\\.yaml",
		  "--- \"a/q\\\"\\\\.yaml\"\n+++ \"b/q\\\"\\\\.yaml\"\n" },
		{ "sp ace.yaml",
		  "--- a/sp ace.yaml\t\n+++ b/sp ace.yaml\t\n" },
		{ "sp ace\a.yaml",
		  "--- \"a/sp ace\\a.yaml\"\t\n+++ \"b/sp ace\\a.yaml\"\t\n" },
		{ "\xc3\xa9\x1b\x7f\x01.yaml",
		  "--- \"a/\\303\\251\\033\\177\\001.yaml\"\n"
		  "+++ \"b/\\303\\251\\033\\177\\001.yaml\"\n" },
		{ "sub/./f.yaml", "--- a/sub/f.yaml\n+++ b/sub/f.yaml\n" },
		{ "sub//f.yaml", "--- a/sub/f.yaml\n+++ b/sub/f.yaml\n" },
		{ ".../..x", "--- a/.../..x\n+++ b/.../..x\n" },
		{ "<stdin>", "--- a/<stdin>\n+++ b/<stdin>\n" },
		/* past git: "##[" commands a CI runner; "#[" does not */
		{ "##[add-mask]s/#[x]",
		  "--- \"a/##\\133add-mask]s/#[x]\"\n"
		  "+++ \"b/##\\133add-mask]s/#[x]\"\n" },
	};
	static const char *const refused[] = {
		"/abs/f.yaml", "../up.yaml", "sub/../f.yaml", "sub/..",
	};
	struct cpl_error err = { 0 };
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(cases); i++) {
		char *got = headers(cases[i].path, &err);

		ck_assert_ptr_nonnull(got);
		ck_assert_str_eq(got, cases[i].want);
		free(got);
	}
	for (i = 0; i < CPL_ARRAY_LEN(refused); i++) {
		ck_assert_ptr_null(headers(refused[i], &err));
		ck_assert_str_eq(err.path, refused[i]);
		ck_assert(strstr(err.message, i == 0 ? "absolute" : "\"..\""));
		cpl_error_clear(&err);
	}
}
END_TEST

static Suite *
patch_suite(void)
{
	Suite *s = suite_create("patch");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, replace_scalar);
	tcase_add_test(tc, insert_keeps_order);
	tcase_add_test(tc, duplicate_dropped);
	tcase_add_test(tc, overlap_skips_group);
	tcase_add_test(tc, invalid_position);
	tcase_add_test(tc, crlf_kept);
	tcase_add_test(tc, non_ascii_bytes);
	tcase_add_test(tc, no_final_newline);
	tcase_add_test(tc, append_at_end);
	tcase_add_test(tc, insert_after_last_line);
	tcase_add_test(tc, diff_hunks_and_context);
	tcase_add_test(tc, diff_trims_unchanged_lines);
	tcase_add_test(tc, diff_neighbouring_edits);
	tcase_add_test(tc, empty_text);
	tcase_add_test(tc, span_of_two_texts);
	tcase_add_test(tc, diff_names_quoted_as_git);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(patch_suite)
