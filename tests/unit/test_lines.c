/* test_lines.c — the line index: offsets of line:column in bytes and in
 * characters, positions of offsets, CRLF, no final newline, the empty
 * text. */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "text/lines.h"

START_TEST(byte_and_char_columns)
{
	/* "é" is two bytes: character column 3 is byte column 4. */
	const char *t = "a: 1\n# \xc3\xa9x: 2\nlast";
	size_t len = strlen(t);
	struct cpl_lines l = { 0 };

	cpl_lines_index(&l, t, len);
	ck_assert_uint_eq(l.n, 3);
	ck_assert_int_eq(cpl_lines_offset(&l, t, len, 1, 1, false), 0);
	ck_assert_int_eq(cpl_lines_offset(&l, t, len, 2, 4, false), 8);
	ck_assert_int_eq(cpl_lines_offset(&l, t, len, 2, 4, true), 9);
	ck_assert_int_eq(t[cpl_lines_offset(&l, t, len, 2, 4, true)], 'x');
	/* The end of a line is a place; past it is not. */
	ck_assert_int_eq(cpl_lines_offset(&l, t, len, 1, 5, false), 4);
	ck_assert_int_eq(cpl_lines_offset(&l, t, len, 1, 6, false), -1);
	ck_assert_int_eq(cpl_lines_offset(&l, t, len, 2, 8, true), 13);
	ck_assert_int_eq(cpl_lines_offset(&l, t, len, 2, 9, true), -1);
	/* The last line has no newline: its end is the text's. */
	ck_assert_int_eq(cpl_lines_offset(&l, t, len, 3, 5, false),
			 (long)len);
	ck_assert_int_eq(cpl_lines_offset(&l, t, len, 3, 6, false), -1);
	ck_assert_int_eq(cpl_lines_offset(&l, t, len, 4, 1, false), -1);
	ck_assert_int_eq(cpl_lines_offset(&l, t, len, 0, 1, false), -1);
	ck_assert_int_eq(cpl_lines_offset(&l, t, len, 1, 0, true), -1);
	cpl_lines_free(&l);
	ck_assert_ptr_null(l.at);
}
END_TEST

START_TEST(positions_of_offsets)
{
	const char *t = "ab\r\ncd\r\n\r\nef";
	size_t len = strlen(t), off;
	struct cpl_lines l = { 0 };
	int line, col;

	cpl_lines_index(&l, t, len);
	ck_assert_uint_eq(l.n, 4);
	cpl_lines_pos(&l, 0, &line, &col);
	ck_assert_int_eq(line, 1);
	ck_assert_int_eq(col, 1);
	cpl_lines_pos(&l, 2, &line, &col);	/* the '\r' is of line 1 */
	ck_assert_int_eq(line, 1);
	ck_assert_int_eq(col, 3);
	cpl_lines_pos(&l, 4, &line, &col);
	ck_assert_int_eq(line, 2);
	ck_assert_int_eq(col, 1);
	cpl_lines_pos(&l, len, &line, &col);
	ck_assert_int_eq(line, 4);
	ck_assert_int_eq(col, 3);
	/* Every offset comes back from its position. */
	for (off = 0; off <= len; off++) {
		cpl_lines_pos(&l, off, &line, &col);
		ck_assert_int_eq(cpl_lines_offset(&l, t, len, line, col,
						  false), (long)off);
	}
	cpl_lines_free(&l);
}
END_TEST

START_TEST(empty_text)
{
	struct cpl_lines l = { 0 };
	int line, col;

	cpl_lines_index(&l, "", 0);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_int_eq(cpl_lines_offset(&l, "", 0, 1, 1, true), 0);
	ck_assert_int_eq(cpl_lines_offset(&l, "", 0, 1, 2, true), -1);
	cpl_lines_pos(&l, 0, &line, &col);
	ck_assert_int_eq(line, 1);
	ck_assert_int_eq(col, 1);
	cpl_lines_free(&l);
	cpl_lines_free(NULL);
}
END_TEST

static Suite *
lines_suite(void)
{
	Suite *s = suite_create("lines");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, byte_and_char_columns);
	tcase_add_test(tc, positions_of_offsets);
	tcase_add_test(tc, empty_text);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(lines_suite)
