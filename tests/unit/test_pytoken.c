/*
 * test_pytoken.c — the Python tokenizer: every token kind with its exact
 * position, string prefixes and quote forms, f-string nesting, NEWLINE vs
 * NL, INDENT/DEDENT, continuations, operators, errors and recovery, and
 * the literal decoders.  Expected positions follow CPython's tokenize
 * (1-based here).  Lines passed over in a light scan (skip_plain_lines)
 * hide no import statement and no error: over testdata's Python files
 * and mutations of them (PYTOKEN_MUTATIONS, 3,000 by default), the
 * lines holding "import" or "from" and the first error are the same
 * with and without the skip.
 */
#include <check.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "python/pytoken.h"
#include "util.h"

/* One expected token: kind, text (NULL: empty), start line and column. */
struct want {
	enum cpl_pytok_kind kind;
	const char *text;
	int line;
	int col;
};

#define K(k) CPL_PYTOK_##k

/* Tokenizes src and checks every token against w[0, n). */
static void
expect(const char *src, const struct want *w, size_t n, int want_rc)
{
	struct cpl_pytokens t;
	struct cpl_error err;
	size_t i;
	int rc;

	memset(&t, 0, sizeof(t));
	memset(&err, 0, sizeof(err));
	rc = cpl_pytoken_scan(&t, src, strlen(src), "t.py", &err);
	ck_assert_int_eq(rc, want_rc);
	for (i = 0; i < n && i < t.count; i++) {
		const struct cpl_pytoken *k = &t.toks[i];

		ck_assert_msg(k->kind == w[i].kind,
			      "token %zu: kind %s, want %s", i,
			      cpl_pytoken_kind_name(k->kind),
			      cpl_pytoken_kind_name(w[i].kind));
		if (w[i].text)
			ck_assert_msg(k->len == strlen(w[i].text) &&
				      memcmp(src + k->off, w[i].text,
					     k->len) == 0,
				      "token %zu: text '%.*s', want '%s'", i,
				      (int)k->len, src + k->off, w[i].text);
		else
			ck_assert_msg(k->len == 0, "token %zu: not empty", i);
		ck_assert_msg(k->line == w[i].line && k->column == w[i].col,
			      "token %zu '%.*s': at %d:%d, want %d:%d", i,
			      (int)k->len, src + k->off, k->line, k->column,
			      w[i].line, w[i].col);
	}
	ck_assert_msg(t.count == n, "%zu tokens, want %zu", t.count, n);
	cpl_pytoken_clear(&t);
	cpl_error_clear(&err);
}

/* Scans src expecting success; caller clears. */
static struct cpl_pytokens
scan_ok(const char *src)
{
	struct cpl_pytokens t;
	struct cpl_error err;

	memset(&t, 0, sizeof(t));
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(cpl_pytoken_scan(&t, src, strlen(src), "t.py", &err),
			 0);
	cpl_error_clear(&err);
	return t;
}

START_TEST(names_and_keywords)
{
	static const struct want w[] = {
		{ K(KEYWORD), "def", 1, 1 }, { K(NAME), "f_1", 1, 5 },
		{ K(OP), "(", 1, 8 }, { K(NAME), "self", 1, 9 },
		{ K(OP), ",", 1, 13 }, { K(NAME), "\xc3\xa9t\xc3\xa9", 1, 15 },
		{ K(OP), ")", 1, 18 }, { K(OP), ":", 1, 19 },
		{ K(NEWLINE), "\n", 1, 20 },
		{ K(INDENT), "    ", 2, 1 }, { K(KEYWORD), "return", 2, 5 },
		{ K(KEYWORD), "None", 2, 12 }, { K(KEYWORD), "if", 2, 17 },
		{ K(NAME), "match", 2, 20 }, { K(KEYWORD), "else", 2, 26 },
		{ K(NAME), "_", 2, 31 }, { K(NEWLINE), "\n", 2, 32 },
		{ K(DEDENT), NULL, 3, 1 }, { K(ENDMARKER), NULL, 3, 1 },
	};

	/* "été" is 3 characters: columns count code points. */
	expect("def f_1(self, \xc3\xa9t\xc3\xa9):\n"
	       "    return None if match else _\n", w, CPL_ARRAY_LEN(w), 0);
}
END_TEST

START_TEST(numbers)
{
	static const struct want w[] = {
		{ K(NUMBER), "1", 1, 1 }, { K(NUMBER), "1_000", 1, 3 },
		{ K(NUMBER), "0x1F", 1, 9 }, { K(NUMBER), "0o17", 1, 14 },
		{ K(NUMBER), "0b1010", 1, 19 }, { K(NUMBER), "1.5", 1, 26 },
		{ K(NUMBER), ".5", 1, 30 }, { K(NUMBER), "1.", 1, 33 },
		{ K(NUMBER), "1e3", 1, 36 }, { K(NUMBER), "1E-3", 1, 40 },
		{ K(NUMBER), "1.5e+3", 1, 45 }, { K(NUMBER), "1j", 1, 52 },
		{ K(NUMBER), "1.5J", 1, 55 }, { K(NUMBER), "1e3j", 1, 60 },
		{ K(NUMBER), "0xdead_beef", 1, 65 },
		{ K(NEWLINE), "\n", 1, 76 }, { K(ENDMARKER), NULL, 2, 1 },
	};
	static const struct {
		const char *src;
		unsigned flags;
		double value;
		bool integral;
	} v[] = {
		{ "1_000", CPL_PYNUM_INT, 1000, true },
		{ "0x1F", CPL_PYNUM_INT, 31, true },
		{ "0o17", CPL_PYNUM_INT, 15, true },
		{ "0b1010", CPL_PYNUM_INT, 10, true },
		{ "1.5", CPL_PYNUM_FLOAT, 1.5, false },
		{ ".5", CPL_PYNUM_FLOAT, 0.5, false },
		{ "1e3", CPL_PYNUM_FLOAT, 1000, false },
		{ "1_0.2_5", CPL_PYNUM_FLOAT, 10.25, false },
		{ "0xdead_beef", CPL_PYNUM_INT, 3735928559.0, true },
	};
	size_t i;

	expect("1 1_000 0x1F 0o17 0b1010 1.5 .5 1. 1e3 1E-3 1.5e+3 1j 1.5J "
	       "1e3j 0xdead_beef\n", w, CPL_ARRAY_LEN(w), 0);
	for (i = 0; i < CPL_ARRAY_LEN(v); i++) {
		struct cpl_pytokens t = scan_ok(v[i].src);
		double d;
		bool integral;

		ck_assert_int_eq(t.toks[0].kind, CPL_PYTOK_NUMBER);
		ck_assert_uint_eq(t.toks[0].flags, v[i].flags);
		ck_assert_uint_eq(t.toks[0].len, strlen(v[i].src));
		ck_assert_int_eq(cpl_pytoken_number(&d, &integral, v[i].src,
						    &t.toks[0]), 0);
		ck_assert_msg(d == v[i].value, "%s = %g", v[i].src, d);
		ck_assert(integral == v[i].integral);
		cpl_pytoken_clear(&t);
	}
	{
		struct cpl_pytokens t = scan_ok("2j");
		double d;
		bool integral;

		ck_assert_uint_eq(t.toks[0].flags, CPL_PYNUM_IMAG);
		ck_assert_int_eq(cpl_pytoken_number(&d, &integral, "2j",
						    &t.toks[0]), -1);
		cpl_pytoken_clear(&t);
	}
	/* 1if x else 2: the number stops before the keyword. */
	{
		struct cpl_pytokens t = scan_ok("1if x else 2\n");

		ck_assert_uint_eq(t.toks[0].len, 1);
		ck_assert_int_eq(t.toks[1].kind, CPL_PYTOK_KEYWORD);
		cpl_pytoken_clear(&t);
	}
}
END_TEST

START_TEST(string_prefixes)
{
	static const struct {
		const char *src;
		unsigned flags;
	} v[] = {
		{ "'a'", 0 },
		{ "\"a\"", 0 },
		{ "r'a'", CPL_PYSTR_RAW }, { "R'a'", CPL_PYSTR_RAW },
		{ "b'a'", CPL_PYSTR_BYTES }, { "B\"a\"", CPL_PYSTR_BYTES },
		{ "u'a'", CPL_PYSTR_UNI }, { "U'a'", CPL_PYSTR_UNI },
		{ "f'a'", CPL_PYSTR_FMT }, { "F'a'", CPL_PYSTR_FMT },
		{ "t'a'", CPL_PYSTR_TMPL },
		{ "rb'a'", CPL_PYSTR_RAW | CPL_PYSTR_BYTES },
		{ "bR'a'", CPL_PYSTR_RAW | CPL_PYSTR_BYTES },
		{ "Rb'a'", CPL_PYSTR_RAW | CPL_PYSTR_BYTES },
		{ "BR'a'", CPL_PYSTR_RAW | CPL_PYSTR_BYTES },
		{ "br\"a\"", CPL_PYSTR_RAW | CPL_PYSTR_BYTES },
		{ "fr'a'", CPL_PYSTR_RAW | CPL_PYSTR_FMT },
		{ "rf'a'", CPL_PYSTR_RAW | CPL_PYSTR_FMT },
		{ "Fr'a'", CPL_PYSTR_RAW | CPL_PYSTR_FMT },
		{ "rF\"a\"", CPL_PYSTR_RAW | CPL_PYSTR_FMT },
		{ "FR'a'", CPL_PYSTR_RAW | CPL_PYSTR_FMT },
		{ "'''a'''", CPL_PYSTR_TRIPLE },
		{ "\"\"\"a\"\"\"", CPL_PYSTR_TRIPLE },
		{ "rb'''a'''", CPL_PYSTR_RAW | CPL_PYSTR_BYTES |
			       CPL_PYSTR_TRIPLE },
		{ "f\"\"\"a\"\"\"", CPL_PYSTR_FMT | CPL_PYSTR_TRIPLE },
		{ "''", 0 },
		{ "'it\\'s'", 0 },
		{ "r'\\''", CPL_PYSTR_RAW },
	};
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(v); i++) {
		struct cpl_pytokens t = scan_ok(v[i].src);

		ck_assert_msg(t.toks[0].kind == CPL_PYTOK_STRING, "%s",
			      v[i].src);
		ck_assert_msg(t.toks[0].flags == v[i].flags, "%s: flags %x",
			      v[i].src, t.toks[0].flags);
		ck_assert_msg(t.toks[0].len == strlen(v[i].src), "%s",
			      v[i].src);
		ck_assert_int_eq(t.toks[1].kind, CPL_PYTOK_NEWLINE);
		cpl_pytoken_clear(&t);
	}
	/* Not prefixes: a name followed by a string. */
	{
		static const struct want w[] = {
			{ K(NAME), "ub", 1, 1 }, { K(STRING), "'a'", 1, 3 },
			{ K(NAME), "bf", 1, 7 }, { K(STRING), "'b'", 1, 9 },
			{ K(NEWLINE), NULL, 1, 12 },
			{ K(ENDMARKER), NULL, 2, 1 },
		};

		expect("ub'a' bf'b'", w, CPL_ARRAY_LEN(w), 0);
	}
}
END_TEST

START_TEST(triple_quoted_spans_lines)
{
	static const struct want w[] = {
		{ K(NAME), "x", 1, 1 }, { K(OP), "=", 1, 3 },
		{ K(STRING), "\"\"\"one\n'two' \"\"\n\"\"\"", 1, 5 },
		{ K(NEWLINE), "\n", 3, 4 }, { K(NAME), "y", 4, 1 },
		{ K(NEWLINE), "\n", 4, 2 }, { K(ENDMARKER), NULL, 5, 1 },
	};
	struct cpl_pytokens t;

	expect("x = \"\"\"one\n'two' \"\"\n\"\"\"\ny\n", w, CPL_ARRAY_LEN(w),
	       0);
	t = scan_ok("s = '''a\nbc'''\n");
	ck_assert_int_eq(t.toks[2].line, 1);
	ck_assert_int_eq(t.toks[2].column, 5);
	{
		int end_line, end_column;

		cpl_pytoken_end(t.text, &t.toks[2], &end_line, &end_column);
		ck_assert_int_eq(end_line, 2);
		ck_assert_int_eq(end_column, 6);
	}
	cpl_pytoken_clear(&t);
}
END_TEST

START_TEST(fstrings_nest)
{
	static const struct want w[] = {
		{ K(NAME), "print", 1, 1 }, { K(OP), "(", 1, 6 },
		{ K(STRING), "f\"{x['a']:{w}} {{lit}} {y!r} {f'{z:>{n}}'}\"",
		  1, 7 },
		{ K(OP), ")", 1, 50 }, { K(NEWLINE), "\n", 1, 51 },
		{ K(NAME), "g", 2, 1 }, { K(OP), "=", 2, 3 },
		{ K(STRING), "f\"{d[\"k\"]}\"", 2, 5 },
		{ K(NEWLINE), "\n", 2, 16 },
		{ K(STRING), "rf'\\{x}'", 3, 1 }, { K(NEWLINE), "\n", 3, 9 },
		{ K(STRING), "f'''{\na\n}'''", 4, 1 },
		{ K(NEWLINE), "\n", 6, 5 },
		{ K(STRING), "f\"\\N{BULLET} {x}\"", 7, 1 },
		{ K(NEWLINE), "\n", 7, 18 }, { K(ENDMARKER), NULL, 8, 1 },
	};

	/* Nested fields, format specs with fields, nested f-strings, the
	 * same quote reused inside a field (PEP 701), \N{...} escapes. */
	expect("print(f\"{x['a']:{w}} {{lit}} {y!r} {f'{z:>{n}}'}\")\n"
	       "g = f\"{d[\"k\"]}\"\n"
	       "rf'\\{x}'\n"
	       "f'''{\na\n}'''\n"
	       "f\"\\N{BULLET} {x}\"\n", w, CPL_ARRAY_LEN(w), 0);
}
END_TEST

START_TEST(comments_newline_nl)
{
	static const struct want w[] = {
		{ K(NAME), "x", 1, 1 }, { K(OP), "=", 1, 3 },
		{ K(OP), "(", 1, 5 }, { K(NUMBER), "1", 1, 6 },
		{ K(OP), ",", 1, 7 }, { K(COMMENT), "# in", 1, 9 },
		{ K(NL), "\n", 1, 13 },
		{ K(NL), "\n", 2, 1 },
		{ K(NUMBER), "2", 3, 6 }, { K(OP), ")", 3, 7 },
		{ K(COMMENT), "# after", 3, 10 }, { K(NEWLINE), "\n", 3, 17 },
		{ K(NL), "\n", 4, 1 },
		{ K(COMMENT), "# only", 5, 1 }, { K(NL), "\n", 5, 7 },
		{ K(NAME), "y", 6, 1 }, { K(NEWLINE), "\n", 6, 2 },
		{ K(ENDMARKER), NULL, 7, 1 },
	};

	expect("x = (1, # in\n\n     2)  # after\n\n# only\ny\n", w,
	       CPL_ARRAY_LEN(w), 0);
}
END_TEST

START_TEST(indent_dedent)
{
	static const struct want w[] = {
		{ K(KEYWORD), "if", 1, 1 }, { K(NAME), "a", 1, 4 },
		{ K(OP), ":", 1, 5 }, { K(NEWLINE), "\n", 1, 6 },
		{ K(INDENT), "  ", 2, 1 }, { K(KEYWORD), "if", 2, 3 },
		{ K(NAME), "b", 2, 6 }, { K(OP), ":", 2, 7 },
		{ K(NEWLINE), "\n", 2, 8 },
		{ K(COMMENT), "# c", 3, 1 }, { K(NL), "\n", 3, 4 },
		{ K(INDENT), "\t", 4, 1 }, { K(NAME), "x", 4, 2 },
		{ K(NEWLINE), "\n", 4, 3 },
		{ K(NL), "\n", 5, 3 },
		{ K(DEDENT), NULL, 6, 1 }, { K(DEDENT), NULL, 6, 1 },
		{ K(NAME), "y", 6, 1 }, { K(NEWLINE), "\n", 6, 2 },
		{ K(ENDMARKER), NULL, 7, 1 },
	};

	/* A tab indents to column 8 (deeper than 2 spaces); blank and
	 * comment-only lines leave the indentation alone; one line can
	 * close two blocks. */
	expect("if a:\n  if b:\n# c\n\tx\n  \ny\n", w, CPL_ARRAY_LEN(w), 0);
}
END_TEST

START_TEST(continuation_and_eof)
{
	static const struct want w[] = {
		{ K(NAME), "x", 1, 1 }, { K(OP), "=", 1, 3 },
		{ K(NUMBER), "1", 1, 5 }, { K(OP), "+", 1, 7 },
		{ K(NUMBER), "2", 2, 5 }, { K(NEWLINE), "\n", 2, 6 },
		{ K(KEYWORD), "def", 3, 1 }, { K(NAME), "f", 3, 5 },
		{ K(OP), "(", 3, 6 }, { K(OP), ")", 3, 7 },
		{ K(OP), ":", 3, 8 }, { K(NEWLINE), "\n", 3, 9 },
		{ K(INDENT), "    ", 4, 1 }, { K(KEYWORD), "pass", 4, 5 },
		{ K(NEWLINE), NULL, 4, 9 },
		{ K(DEDENT), NULL, 5, 1 }, { K(ENDMARKER), NULL, 5, 1 },
	};

	/* Backslash-newline joins lines (no token); a last line without a
	 * newline still ends with NEWLINE, DEDENT, ENDMARKER. */
	expect("x = 1 + \\\n    2\ndef f():\n    pass", w, CPL_ARRAY_LEN(w),
	       0);
}
END_TEST

START_TEST(operators)
{
	static const char *const ops[] = {
		":=", "->", "**=", "//=", "@", "@=", "...", "!=", "==", "<=",
		">=", ">>", "<<", ">>=", "<<=", "**", "//", "+=", "-=", "*=",
		"/=", "%=", "&=", "|=", "^=", "~", "<", ">", ".", ",", ";",
		"=", ":", "%", "&", "|", "^", "+", "-", "*", "/",
	};
	struct cpl_buf b;
	struct cpl_pytokens t;
	size_t i;
	int col = 1;

	cpl_buf_init(&b, 0);
	for (i = 0; i < CPL_ARRAY_LEN(ops); i++)
		cpl_buf_addf(&b, "%s ", ops[i]);
	t = scan_ok(cpl_buf_str(&b));
	for (i = 0; i < CPL_ARRAY_LEN(ops); i++) {
		ck_assert_msg(t.toks[i].kind == CPL_PYTOK_OP, "%s", ops[i]);
		ck_assert_msg(cpl_pytoken_is(t.text, &t.toks[i], ops[i]),
			      "%s: got '%.*s'", ops[i], (int)t.toks[i].len,
			      t.text + t.toks[i].off);
		ck_assert_int_eq(t.toks[i].column, col);
		col += (int)strlen(ops[i]) + 1;
	}
	ck_assert_int_eq(t.toks[i].kind, CPL_PYTOK_NEWLINE);
	cpl_pytoken_clear(&t);
	cpl_buf_free(&b);
	{
		static const struct want w[] = {
			{ K(KEYWORD), "def", 1, 1 }, { K(NAME), "f", 1, 5 },
			{ K(OP), "(", 1, 6 }, { K(OP), ")", 1, 7 },
			{ K(OP), "->", 1, 9 }, { K(NAME), "int", 1, 12 },
			{ K(OP), ":", 1, 15 }, { K(KEYWORD), "return", 1, 17 },
			{ K(OP), "(", 1, 24 }, { K(NAME), "n", 1, 25 },
			{ K(OP), ":=", 1, 27 }, { K(NAME), "a", 1, 30 },
			{ K(OP), "@", 1, 31 }, { K(NAME), "b", 1, 32 },
			{ K(OP), ")", 1, 33 }, { K(NEWLINE), "\n", 1, 34 },
			{ K(ENDMARKER), NULL, 2, 1 },
		};

		expect("def f() -> int: return (n := a@b)\n", w,
		       CPL_ARRAY_LEN(w), 0);
	}
}
END_TEST

START_TEST(crlf_bom_and_form_feed)
{
	static const struct want w[] = {
		{ K(KEYWORD), "if", 1, 1 }, { K(NAME), "a", 1, 4 },
		{ K(OP), ":", 1, 5 }, { K(NEWLINE), "\r\n", 1, 6 },
		{ K(INDENT), " ", 2, 1 }, { K(NAME), "b", 2, 2 },
		{ K(NEWLINE), "\r", 2, 3 }, { K(DEDENT), NULL, 3, 2 },
		{ K(NAME), "c", 3, 2 }, { K(NEWLINE), "\n", 3, 3 },
		{ K(ENDMARKER), NULL, 4, 1 },
	};

	/* The BOM is skipped (columns start after it); CRLF and a lone CR
	 * end lines; a form feed resets the indentation count. */
	expect("\xEF\xBB\xBFif a:\r\n b\r\fc\n", w, CPL_ARRAY_LEN(w), 0);
}
END_TEST

START_TEST(errors_recover)
{
	struct cpl_pytokens t;
	struct cpl_error err;
	const char *src;

	memset(&err, 0, sizeof(err));
	{
		static const struct want w[] = {
			{ K(NAME), "x", 1, 1 }, { K(OP), "=", 1, 3 },
			{ K(STRING), "'abc", 1, 5 }, { K(NEWLINE), "\n", 1, 9 },
			{ K(NAME), "y", 2, 1 }, { K(OP), "=", 2, 3 },
			{ K(NUMBER), "2", 2, 5 }, { K(NEWLINE), "\n", 2, 6 },
			{ K(ENDMARKER), NULL, 3, 1 },
		};

		expect("x = 'abc\ny = 2\n", w, CPL_ARRAY_LEN(w), -1);
	}
	src = "x = 'abc\ny = 2\n";
	memset(&t, 0, sizeof(t));
	ck_assert_int_eq(cpl_pytoken_scan(&t, src, strlen(src), "bad.py",
					  &err), -1);
	ck_assert_str_eq(err.path, "bad.py");
	ck_assert_int_eq(err.line, 1);
	ck_assert_int_eq(err.column, 5);
	ck_assert_str_eq(err.message, "unterminated string literal");
	ck_assert(t.toks[2].flags & CPL_PYSTR_OPEN);
	cpl_pytoken_clear(&t);
	cpl_error_clear(&err);

	src = "a = 1\ns = \"\"\"never\nclosed\n";
	ck_assert_int_eq(cpl_pytoken_scan(&t, src, strlen(src), "bad.py",
					  &err), -1);
	ck_assert_int_eq(err.line, 2);
	ck_assert_int_eq(err.column, 5);
	ck_assert_str_eq(err.message,
			 "unterminated triple-quoted string literal");
	ck_assert_int_eq(t.toks[t.count - 1].kind, CPL_PYTOK_ENDMARKER);
	cpl_pytoken_clear(&t);
	cpl_error_clear(&err);

	src = "x = a $ b\n";
	ck_assert_int_eq(cpl_pytoken_scan(&t, src, strlen(src), "bad.py",
					  &err), -1);
	ck_assert_int_eq(err.line, 1);
	ck_assert_int_eq(err.column, 7);
	ck_assert_int_eq(t.toks[3].kind, CPL_PYTOK_ERRORTOKEN);
	ck_assert_int_eq(t.toks[4].kind, CPL_PYTOK_NAME);
	cpl_pytoken_clear(&t);
	cpl_error_clear(&err);

	src = "f(a,\n  b\n";
	ck_assert_int_eq(cpl_pytoken_scan(&t, src, strlen(src), "bad.py",
					  &err), -1);
	ck_assert_int_eq(err.line, 1);
	ck_assert_int_eq(err.column, 2);
	ck_assert_int_eq(t.toks[t.count - 1].kind, CPL_PYTOK_ENDMARKER);
	cpl_pytoken_clear(&t);
	cpl_error_clear(&err);

	src = "if a:\n    b\n  c\n";
	ck_assert_int_eq(cpl_pytoken_scan(&t, src, strlen(src), "bad.py",
					  &err), -1);
	ck_assert_int_eq(err.line, 3);
	ck_assert_int_eq(err.column, 3);
	ck_assert_str_eq(err.message,
			 "unindent does not match any outer indentation level");
	cpl_pytoken_clear(&t);
	cpl_error_clear(&err);

	src = "x = 1)\n";
	ck_assert_int_eq(cpl_pytoken_scan(&t, src, strlen(src), "bad.py",
					  &err), -1);
	ck_assert_str_eq(err.message, "unmatched ')'");
	ck_assert_int_eq(err.column, 6);
	cpl_pytoken_clear(&t);
	cpl_error_clear(&err);

	/* Empty input: just the end. */
	ck_assert_int_eq(cpl_pytoken_scan(&t, "", 0, "e.py", &err), 0);
	ck_assert_uint_eq(t.count, 1);
	ck_assert_int_eq(t.toks[0].kind, CPL_PYTOK_ENDMARKER);
	cpl_pytoken_clear(&t);
}
END_TEST

START_TEST(string_decode)
{
	static const struct {
		const char *src;
		const char *want;	/* NULL: not decodable */
	} v[] = {
		{ "'a\\nb'", "a\nb" },
		{ "\"it\\'s\"", "it's" },
		{ "r'\\n'", "\\n" },
		{ "'''x\ny'''", "x\ny" },
		{ "u'OMP_NUM_THREADS'", "OMP_NUM_THREADS" },
		{ "''", "" },
		{ "f'{x}'", NULL },
		{ "b'x'", NULL },
		{ "'\\x41'", NULL },
	};
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(v); i++) {
		struct cpl_pytokens t = scan_ok(v[i].src);
		char *s;
		int rc = cpl_pytoken_string(&s, v[i].src, &t.toks[0]);

		if (v[i].want) {
			ck_assert_msg(rc == 0, "%s", v[i].src);
			ck_assert_str_eq(s, v[i].want);
		} else {
			ck_assert_msg(rc == -1 && s == NULL, "%s", v[i].src);
		}
		free(s);
		cpl_pytoken_clear(&t);
	}
	ck_assert(cpl_pytoken_keyword("lambda", 6));
	ck_assert(cpl_pytoken_keyword("None", 4));
	ck_assert(!cpl_pytoken_keyword("match", 5));
	ck_assert(!cpl_pytoken_keyword("print", 5));
	{	/* every keyword, and near misses of each */
		static const char *const kw[] = {
			"False", "None", "True", "and", "as", "assert",
			"async", "await", "break", "class", "continue",
			"def", "del", "elif", "else", "except", "finally",
			"for", "from", "global", "if", "import", "in", "is",
			"lambda", "nonlocal", "not", "or", "pass", "raise",
			"return", "try", "while", "with", "yield",
		};
		char buf[16];
		size_t w, len;

		for (w = 0; w < sizeof(kw) / sizeof(kw[0]); w++) {
			len = strlen(kw[w]);
			ck_assert_msg(cpl_pytoken_keyword(kw[w], len), "%s",
				      kw[w]);
			/* a prefix of the text is not the keyword */
			ck_assert(!cpl_pytoken_keyword(kw[w], len - 1));
			memcpy(buf, kw[w], len);
			buf[len] = 'x';	/* longer */
			ck_assert(!cpl_pytoken_keyword(buf, len + 1));
			buf[len - 1] ^= 0x20;	/* last letter's case */
			ck_assert(!cpl_pytoken_keyword(buf, len));
		}
		/* Every word one letter away from a keyword is a keyword
		 * only when it is in the list (the lookup compares by
		 * length and first letter: "is" and "in" from "if"). */
		for (w = 0; w < sizeof(kw) / sizeof(kw[0]); w++) {
			size_t at, k;
			int c;

			len = strlen(kw[w]);
			for (at = 0; at < len; at++) {
				for (c = 'A'; c <= 'z'; c++) {
					bool listed = false;

					memcpy(buf, kw[w], len);
					buf[at] = (char)c;
					for (k = 0; k < sizeof(kw) /
						    sizeof(kw[0]); k++)
						listed = listed ||
						    (strlen(kw[k]) == len &&
						     memcmp(kw[k], buf,
							    len) == 0);
					ck_assert_msg(cpl_pytoken_keyword(buf,
						      len) == listed,
						      "%.*s", (int)len, buf);
				}
			}
		}
		ck_assert(!cpl_pytoken_keyword("asif", 4));
		ck_assert(!cpl_pytoken_keyword("sifi", 4));
		ck_assert(!cpl_pytoken_keyword("none", 4));
	}
	ck_assert_str_eq(cpl_pytoken_kind_name(CPL_PYTOK_DEDENT), "DEDENT");
}
END_TEST

/* A string's plain text is passed a run at a time (pytoken.c): bytes
 * past ASCII a column a character, a '}' of an f-string outside a field
 * text, and in a light scan's skip the same. */
START_TEST(string_runs_keep_columns)
{
	static const struct want w[] = {
		{ K(NAME), "s", 1, 1 }, { K(OP), "=", 1, 3 },
		{ K(STRING), "'a\xc3\xa9}b'", 1, 5 }, { K(OP), "+", 1, 12 },
		{ K(STRING), "f'x}}y{z}\xc3\xa9q'", 1, 14 },
		{ K(OP), "+", 1, 27 },
		{ K(STRING), "\"\"\"m\xc3\xa9\nn\"\"\"", 1, 29 },
		{ K(OP), ";", 2, 6 }, { K(NAME), "t", 2, 8 },
		{ K(NEWLINE), "\n", 2, 9 }, { K(ENDMARKER), NULL, 3, 1 },
	};

	expect("s = 'a\xc3\xa9}b' + f'x}}y{z}\xc3\xa9q' + "
	       "\"\"\"m\xc3\xa9\nn\"\"\" ; t\n", w, CPL_ARRAY_LEN(w), 0);
}
END_TEST

/* The logical lines a scan hands over that start a statement with
 * "import" or "from", token by token but for comments and NLs, and how
 * many lines there were. */
struct import_lines {
	struct cpl_buf b;
	size_t lines;
	const char *text;
};

static void
keep_import_lines(void *ctx, struct cpl_pytokens *line)
{
	struct import_lines *il = ctx;
	size_t i;
	bool has = false;

	bool start = true;

	il->lines++;
	/* As the light scan reads a line: a statement starts first, after
	 * NEWLINE, INDENT, DEDENT, ';' and ':'. */
	for (i = 0; i < line->count; i++) {
		const struct cpl_pytoken *t = &line->toks[i];

		if (t->kind == CPL_PYTOK_COMMENT || t->kind == CPL_PYTOK_NL)
			continue;
		if (t->kind == CPL_PYTOK_KEYWORD && start &&
		    (cpl_pytoken_is(il->text, t, "import") ||
		     cpl_pytoken_is(il->text, t, "from")))
			has = true;
		start = t->kind == CPL_PYTOK_NEWLINE ||
			t->kind == CPL_PYTOK_INDENT ||
			t->kind == CPL_PYTOK_DEDENT ||
			(t->kind == CPL_PYTOK_OP && t->len == 1 &&
			 (il->text[t->off] == ';' || il->text[t->off] == ':'));
	}
	if (!has)
		return;
	for (i = 0; i < line->count; i++) {
		const struct cpl_pytoken *t = &line->toks[i];
		char one[96];

		/* The light scan reads neither (pyscan.c, light_line()): a
		 * comment line before an import is one a skip may pass. */
		if (t->kind == CPL_PYTOK_COMMENT || t->kind == CPL_PYTOK_NL)
			continue;
		snprintf(one, sizeof(one), "%s %u %u %u %d:%d|",
			 cpl_pytoken_kind_name(t->kind), t->flags,
			 (unsigned)t->off, (unsigned)t->len, t->line,
			 t->column);
		cpl_buf_adds(&il->b, one);
	}
	cpl_buf_addc(&il->b, '\n');
}

/* Scans text line by line, skipping plain lines or not: its import
 * lines and its first error, as one string (caller frees); *lines (when
 * not NULL) how many lines the scan handed over. */
static char *
light_view(const char *text, size_t len, bool skip, size_t *lines)
{
	struct cpl_pytokens t;
	struct import_lines il;
	struct cpl_error err = { 0 };
	char one[512];
	int rc;

	memset(&t, 0, sizeof(t));
	memset(&il, 0, sizeof(il));
	cpl_buf_init(&il.b, 0);
	il.text = text;
	t.on_line = keep_import_lines;
	t.on_line_ctx = &il;
	t.skip_plain_lines = skip;
	rc = cpl_pytoken_scan(&t, text, len, "t.py", &err);
	snprintf(one, sizeof(one), "rc %d %s %d:%d\n", rc,
		 err.message ? err.message : "", err.line, err.column);
	cpl_buf_adds(&il.b, one);
	cpl_error_clear(&err);
	cpl_pytoken_clear(&t);
	if (lines)
		*lines = il.lines;
	return cpl_buf_detach(&il.b);
}

/* Compares the two views of text. */
static void
same_light_view(const char *what, const char *text, size_t len)
{
	char *a = light_view(text, len, false, NULL);
	char *b = light_view(text, len, true, NULL);

	ck_assert_msg(strcmp(a, b) == 0, "%s: skipping plain lines changes "
		      "what a light scan reads:\n%s\n---\n%s", what, a, b);
	free(a);
	free(b);
}

/* The mutations to run: the environment's count (a positive number),
 * else dflt. */
static size_t
mutation_count(const char *env, size_t dflt)
{
	long v;

	return env && cpl_parse_long(&v, env) == 0 && v > 0 ? (size_t)v :
	       dflt;
}

START_TEST(skip_plain_lines_hides_nothing)
{
	static const char *const probes[] = {
		"import os\nx = f(a, b)  # c\ny = 'a' + \"b\"\n",
		"if x: import y\nz = 1; from a import b\n",
		"x = (1,\n     2)\nimport q\n",
		"s = '''\nimport not_me\n'''\nt = r'x'\n",
		"a = 1e5if b else 2\nc = x!=y\nd = x ! y\n",
		"  bad = 1\nok = 2\n",
		"x = ')'\ny = (]\nz = )\n",
		"w = $\nv = `x`\nu = '\\'\n",
		"caf\xc3\xa9 = 1  # \xc3\xa9\nimport x\n",
		"s = 'unterminated\nimport y\n",
		"x = \\\n  1\nfrom . import z\n",
		"def f():\n    return 1\n  x = 2\n",
		"x = [\n",
		"y = ''\nz = \"\"\nimport a\n",
		"x = f(a,\n      b)\nimport y\n",
		"doc = \"\"\"\nimport fake\n\"\"\"\nfrom a import b\n",
		"s = f'{x}'\nimport z\nt = f'plain'\nimport u\n",
		"y = 1 + \\\n    2\nimport w\n",
		"z = (1,\n# c \xc3\xa9\n 2)\nfrom . import q\n",
		"t = rb'x' + Br\"y\" + u'z' + ub'w'\nimport v\n",
		"d = '''a\r\nb''' + 1\r\nimport r\r\n",
		"e = \"\"\"x\"\"\"\"\nimport s\n",
		"f = (\n  'open'\n",
		"g = '''never closed\nimport t\n",
		"h = [1,\n  2]]\nimport u\n",
	};
	static const char *const bits[] = {
		"'", "\"", "(", ")", "[", "]", "{", "}", "#", "\\", "\n", " ",
		"\t", "import ", "from ", "x", "1", "!", "$", "\xc3\xa9", ":",
		";", "'''", "f'", "\r\n", "    ",
	};
	const char *e = getenv("PYTOKEN_MUTATIONS");
	size_t n = mutation_count(e, 3000), i, k;
	char **texts = NULL;
	size_t *lens = NULL, ntexts = 0, cap = 0;
	uint64_t x = 0x2545f4914f6cdd1du;
	glob_t g;
	char what[64];
	char *buf = NULL;

	for (i = 0; i < sizeof(probes) / sizeof(*probes); i++)
		same_light_view(probes[i], probes[i], strlen(probes[i]));
	glob("testdata/*.py", 0, NULL, &g);
	glob("testdata/*/*.py", GLOB_APPEND, NULL, &g);
	glob("testdata/*/*/*.py", GLOB_APPEND, NULL, &g);
	glob("testdata/*/*/*/*.py", GLOB_APPEND, NULL, &g);
	glob("testdata/*/*/*/*/*.py", GLOB_APPEND, NULL, &g);
	for (i = 0; i < g.gl_pathc; i++) {
		char *text = NULL;
		size_t len;
		struct cpl_error err = { 0 };

		if (cpl_read_file(&text, &len, g.gl_pathv[i], 1 << 20,
				  &err) < 0) {
			cpl_error_clear(&err);
			continue;
		}
		same_light_view(g.gl_pathv[i], text, len);
		texts = cpl_xrealloc(texts, (ntexts + 1) * sizeof(*texts));
		lens = cpl_xrealloc(lens, (ntexts + 1) * sizeof(*lens));
		texts[ntexts] = text;
		lens[ntexts++] = len;
	}
	globfree(&g);
	ck_assert_uint_gt(ntexts, 50);
	for (i = 0; i < n; i++) {
		size_t t = i % ntexts, len = lens[t], edits = 1 + i % 4;

		buf = cpl_xgrow_to(buf, &cap, len + 64, 1);
		memcpy(buf, texts[t], len);
		for (k = 0; k < edits; k++) {
			const char *bit;
			size_t at, bl;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			at = len ? (size_t)(x >> 8) % len : 0;
			bit = bits[(x >> 40) % (sizeof(bits) / sizeof(*bits))];
			bl = strlen(bit);
			if (x % 2 && at + bl <= len) {	/* overwrite */
				memcpy(buf + at, bit, bl);
			} else if (len + bl < cap) {	/* insert */
				memmove(buf + at + bl, buf + at, len - at);
				memcpy(buf + at, bit, bl);
				len += bl;
			}
		}
		snprintf(what, sizeof(what), "mutation %zu of file %zu", i, t);
		same_light_view(what, buf, len);
	}
	for (i = 0; i < ntexts; i++)
		free(texts[i]);
	free(texts);
	free(lens);
	free(buf);
}
END_TEST

/* A light scan's skip hands over no line it passes: the lines a scan
 * hands over are the import line (with the DEDENT before it) and the
 * end, not the four plain lines around them (a call each, made for
 * nothing, before this round). */
START_TEST(skipped_lines_not_handed_over)
{
	static const char text[] = "x = 1\ndef f():\n    y = 2\n"
				   "import os\nz = 3\n";
	size_t lines = 0;
	char *v;

	v = light_view(text, strlen(text), true, &lines);
	ck_assert_uint_eq(lines, 2);
	ck_assert_str_eq(v, "DEDENT 0 25 0 4:1|KEYWORD 0 25 6 4:1|"
			 "NAME 0 32 2 4:8|NEWLINE 0 34 1 4:10|\nrc 0  0:0\n");
	free(v);
	/* Without the skip every line is handed over. */
	v = light_view(text, strlen(text), false, &lines);
	ck_assert_uint_eq(lines, 6);
	ck_assert_ptr_nonnull(strstr(v, "rc 0 "));
	free(v);
}
END_TEST

static Suite *
pytoken_suite(void)
{
	Suite *s = suite_create("pytoken");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, names_and_keywords);
	tcase_add_test(tc, numbers);
	tcase_add_test(tc, string_prefixes);
	tcase_add_test(tc, triple_quoted_spans_lines);
	tcase_add_test(tc, fstrings_nest);
	tcase_add_test(tc, comments_newline_nl);
	tcase_add_test(tc, indent_dedent);
	tcase_add_test(tc, continuation_and_eof);
	tcase_add_test(tc, operators);
	tcase_add_test(tc, crlf_bom_and_form_feed);
	tcase_add_test(tc, errors_recover);
	tcase_add_test(tc, string_decode);
	tcase_add_test(tc, skip_plain_lines_hides_nothing);
	tcase_add_test(tc, string_runs_keep_columns);
	tcase_add_test(tc, skipped_lines_not_handed_over);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(pytoken_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
