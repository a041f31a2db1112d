/* test_yamldoc.c — the node tree: positions, aliases, merges, caps. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "text/yamldoc.h"
#include "util.h"
#include "text/yamlfast_int.h"

static struct cpl_ystream *
parse(const char *text)
{
	struct cpl_ystream *s = NULL;
	struct cpl_error err = { 0 };

	ck_assert_msg(cpl_yaml_parse(&s, "t.yaml", text, strlen(text),
				     &err) == 0, "%s",
		      err.message ? err.message : "");
	return s;
}

START_TEST(positions)
{
	struct cpl_ystream *s = parse("a: 1\nb:\n  c: [x, \"y\"]\n  d: |\n"
				      "    line1\n    line2\n");
	const struct cpl_ynode *doc = cpl_ystream_doc(s, 0), *n;

	ck_assert_int_eq(cpl_ystream_count(s), 1);
	n = cpl_ynode_get(doc, "a");
	ck_assert_int_eq(n->line, 1);
	ck_assert_int_eq(n->column, 4);
	ck_assert_str_eq(n->value, "1");
	n = cpl_ynode_path(doc, "b", "c", NULL);
	ck_assert(cpl_ynode_is_seq(n));
	ck_assert_int_eq(n->count, 2);
	ck_assert_int_eq(n->items[1]->line, 3);
	ck_assert_int_eq(n->items[1]->column, 10);
	ck_assert_int_eq(n->items[1]->style, CPL_YS_DOUBLE);
	ck_assert_int_eq(cpl_ynode_key(cpl_ynode_get(doc, "b"), "c")->column,
			 3);
	n = cpl_ynode_path(doc, "b", "d", NULL);
	ck_assert_int_eq(n->style, CPL_YS_LITERAL);
	ck_assert_str_eq(n->value, "line1\nline2\n");
	cpl_ystream_free(s);
}
END_TEST

START_TEST(offset_positions)
{
	struct cpl_ystream *s = parse("cmd: |\n  export A=1\n  python x.py\n"
				      "q: \"ab cd\"\np: ab cd\n");
	const struct cpl_ynode *doc = cpl_ystream_doc(s, 0), *n;
	int line, col;

	n = cpl_ynode_get(doc, "cmd");
	cpl_ynode_offset_pos(s, n, strlen("export A=1\npy"), &line, &col);
	ck_assert_int_eq(line, 3);
	ck_assert_int_eq(col, 5);
	n = cpl_ynode_get(doc, "q");
	cpl_ynode_offset_pos(s, n, 3, &line, &col);
	ck_assert_int_eq(line, 4);
	ck_assert_int_eq(col, 8);
	n = cpl_ynode_get(doc, "p");
	cpl_ynode_offset_pos(s, n, 3, &line, &col);
	ck_assert_int_eq(line, 5);
	ck_assert_int_eq(col, 7);
	cpl_ystream_free(s);
}
END_TEST

/* A text that stands in another file: shifted to its lines and columns
 * (positions inside its scalars too), or pinned at one place; the fast
 * reader and libyaml alike (a flow mapping sends the text to libyaml). */
START_TEST(placed)
{
	static const char *const texts[] = {
		"kind: Job\nspec:\n  cmd: |\n    export A=1\n"
		"    python x.py\n  q: \"ab cd\"\n",
		"kind: Job\nspec:\n  cmd: |\n    export A=1\n"
		"    python x.py\n  q: \"ab cd\"\n  f: {a: 1}\n",
	};
	struct cpl_yplace at = { 10, 5, false };
	struct cpl_error err = { 0 };
	size_t i;

	for (i = 0; i < 2; i++) {
		struct cpl_ystream *s = NULL;
		const struct cpl_ynode *doc, *n;
		int line, col;

		at.pinned = false;
		ck_assert_int_eq(cpl_yaml_parse_at(&s, "t.yaml", texts[i],
						   strlen(texts[i]), &at,
						   &err), 0);
		doc = cpl_ystream_doc(s, 0);
		ck_assert_int_eq(doc->line, 10);
		ck_assert_int_eq(doc->column, 5);
		n = cpl_ynode_path(doc, "spec", "cmd", NULL);
		ck_assert_int_eq(n->line, 12);
		ck_assert_int_eq(n->column, 12);
		cpl_ynode_offset_pos(s, n, strlen("export A=1\npy"), &line,
				     &col);
		ck_assert_int_eq(line, 14);
		ck_assert_int_eq(col, 11);
		n = cpl_ynode_path(doc, "spec", "q", NULL);
		cpl_ynode_offset_pos(s, n, 3, &line, &col);
		ck_assert_int_eq(line, 15);
		ck_assert_int_eq(col, 14);
		cpl_ystream_free(s);

		at.pinned = true;
		ck_assert_int_eq(cpl_yaml_parse_at(&s, "t.yaml", texts[i],
						   strlen(texts[i]), &at,
						   &err), 0);
		n = cpl_ynode_path(cpl_ystream_doc(s, 0), "spec", "cmd", NULL);
		ck_assert_int_eq(n->line, 10);
		ck_assert_int_eq(n->column, 5);
		cpl_ynode_offset_pos(s, n, strlen("export A=1\npy"), &line,
				     &col);
		ck_assert_int_eq(line, 10);
		ck_assert_int_eq(col, 5);
		cpl_ystream_free(s);
	}
}
END_TEST

START_TEST(aliases_are_shared)
{
	struct cpl_ystream *s = parse("base: &b {cpu: 2, mem: 1}\n"
				      "x: *b\n"
				      "y:\n  <<: *b\n  cpu: 4\n");
	const struct cpl_ynode *doc = cpl_ystream_doc(s, 0);

	ck_assert_ptr_eq(cpl_ynode_get(doc, "x"), cpl_ynode_get(doc, "base"));
	ck_assert_str_eq(cpl_ynode_gets(cpl_ynode_get(doc, "y"), "cpu"), "4");
	ck_assert_str_eq(cpl_ynode_gets(cpl_ynode_get(doc, "y"), "mem"), "1");
	cpl_ystream_free(s);
}
END_TEST

START_TEST(alias_bomb_is_cheap)
{
	/* Ten levels of ten aliases: 10^10 nodes if copied, ~100 here. */
	struct cpl_buf b;
	struct cpl_ystream *s;
	int i, j;

	cpl_buf_init(&b, 0);
	cpl_buf_adds(&b, "a0: &a0 [x]\n");
	for (i = 1; i < 10; i++) {
		cpl_buf_addf(&b, "a%d: &a%d [", i, i);
		for (j = 0; j < 10; j++)
			cpl_buf_addf(&b, "%s*a%d", j ? ", " : "", i - 1);
		cpl_buf_adds(&b, "]\n");
	}
	s = parse(cpl_buf_str(&b));
	ck_assert_int_eq(cpl_ynode_get(cpl_ystream_doc(s, 0), "a9")->count, 10);
	cpl_ystream_free(s);
	cpl_buf_free(&b);
}
END_TEST

START_TEST(merge_bomb_is_expanded_once)
{
	/* Fifteen levels of ten merges of the level below: following every
	 * path on lookup is 10^15 steps; expanded once it is ~150 pairs. */
	struct cpl_buf b;
	struct cpl_ystream *s;
	const struct cpl_ynode *top;
	int i, j;

	cpl_buf_init(&b, 0);
	cpl_buf_adds(&b, "a0: &a0 {k0: 0}\n");
	for (i = 1; i <= 15; i++) {
		cpl_buf_addf(&b, "a%d: &a%d {<<: [", i, i);
		for (j = 0; j < 10; j++)
			cpl_buf_addf(&b, "%s*a%d", j ? ", " : "", i - 1);
		cpl_buf_addf(&b, "], k%d: %d}\n", i, i);
	}
	s = parse(cpl_buf_str(&b));
	top = cpl_ynode_get(cpl_ystream_doc(s, 0), "a15");
	ck_assert_int_eq(top->count, 16);
	ck_assert_str_eq(cpl_ynode_gets(top, "k0"), "0");
	ck_assert_ptr_null(cpl_ynode_get(top, "missing"));
	ck_assert_ptr_null(cpl_ynode_get(top, "<<"));
	cpl_ystream_free(s);
	cpl_buf_free(&b);
}
END_TEST

START_TEST(merge_order_and_work_cap)
{
	struct cpl_ystream *s = parse("a: &a {x: 1, y: 1}\nb: &b {x: 2, z: 2}\n"
				      "c: {<<: [*a, *b], y: 3, \"<<\": q}\n");
	const struct cpl_ynode *c = cpl_ynode_get(cpl_ystream_doc(s, 0), "c");
	struct cpl_buf b;
	struct cpl_error err = { 0 };
	int i;

	/* Own keys win, then earlier sources; a quoted "<<" is a key. */
	ck_assert_str_eq(cpl_ynode_gets(c, "y"), "3");
	ck_assert_str_eq(cpl_ynode_gets(c, "x"), "1");
	ck_assert_str_eq(cpl_ynode_gets(c, "z"), "2");
	ck_assert_str_eq(cpl_ynode_gets(c, "<<"), "q");
	ck_assert_int_eq(c->count, 4);
	cpl_ystream_free(s);

	/* 4,000 distinct keys merged 2,000 times: 8M entries, past the cap. */
	cpl_buf_init(&b, 0);
	cpl_buf_adds(&b, "big: &big {");
	for (i = 0; i < 4000; i++)
		cpl_buf_addf(&b, "%sk%d: %d", i ? ", " : "", i, i);
	cpl_buf_adds(&b, "}\nl:\n");
	for (i = 0; i < 2000; i++)
		cpl_buf_adds(&b, "- {<<: *big}\n");
	s = NULL;
	ck_assert_int_eq(cpl_yaml_parse(&s, "m.yaml", cpl_buf_str(&b),
					b.len, &err), -1);
	ck_assert_ptr_null(s);
	ck_assert_msg(strstr(err.message, "merge keys") != NULL, "%s",
		      err.message);
	ck_assert_str_eq(err.path, "m.yaml");
	ck_assert_int_gt(err.line, 1);
	cpl_error_clear(&err);
	cpl_buf_free(&b);
}
END_TEST

START_TEST(duplicate_keys_warn_and_keep_last)
{
	struct cpl_ystream *s = parse("a: 1\nb: 2\na: 3\n");
	const struct cpl_error *w;
	size_t n, dropped;

	ck_assert_str_eq(cpl_ynode_gets(cpl_ystream_doc(s, 0), "a"), "3");
	ck_assert_int_eq(cpl_ystream_doc(s, 0)->count, 2);
	w = cpl_ystream_warnings(s, &n, &dropped);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(dropped, 0);
	ck_assert_int_eq(w[0].line, 3);
	ck_assert_int_eq(w[0].column, 1);
	ck_assert_msg(strstr(w[0].message, "duplicate key \"a\"") != NULL,
		      "%s", w[0].message);
	cpl_ystream_free(s);
}
END_TEST

START_TEST(multi_document_and_json)
{
	struct cpl_ystream *s = parse("---\na: 1\n---\n---\n{\"b\": [1, 2]}\n");

	ck_assert_int_eq(cpl_ystream_count(s), 3);
	/* An empty document is a null scalar in libyaml. */
	ck_assert(cpl_ynode_is_null(cpl_ystream_doc(s, 1)));
	ck_assert_str_eq(cpl_ynode_get(cpl_ystream_doc(s, 2), "b")
			 ->items[1]->value, "2");
	cpl_ystream_free(s);
}
END_TEST

/* The stream's arenas start small and grow by chunks: a document of
 * many nodes, a scalar larger than any chunk, and small strings after it
 * all keep their values. */
START_TEST(arenas_grow_past_their_chunks)
{
	struct cpl_buf b;
	struct cpl_ystream *s;
	const struct cpl_ynode *d;
	char key[32], want[32];
	size_t i;

	cpl_buf_init(&b, 0);
	cpl_buf_adds(&b, "big: ");
	for (i = 0; i < 200000; i++)
		cpl_buf_addc(&b, (char)('a' + i % 26));
	cpl_buf_addc(&b, '\n');
	for (i = 0; i < 6000; i++) {
		snprintf(key, sizeof(key), "k%zu", i);
		cpl_buf_adds(&b, key);
		cpl_buf_adds(&b, ": [v");
		cpl_buf_adds(&b, key);
		cpl_buf_adds(&b, ", 2]\n");
	}
	s = parse(cpl_buf_str(&b));
	d = cpl_ystream_doc(s, 0);
	ck_assert_uint_eq(strlen(cpl_ynode_gets(d, "big")), 200000);
	ck_assert_int_eq(cpl_ynode_gets(d, "big")[199999], 'a' + 199999 % 26);
	for (i = 0; i < 6000; i += 7) {
		snprintf(key, sizeof(key), "k%zu", i);
		snprintf(want, sizeof(want), "vk%zu", i);
		ck_assert_str_eq(cpl_ynode_get(d, key)->items[0]->value, want);
		ck_assert_str_eq(cpl_ynode_get(d, key)->items[1]->value, "2");
	}
	cpl_ystream_free(s);
	cpl_buf_free(&b);
}
END_TEST

START_TEST(scalars)
{
	struct cpl_ystream *s = parse("a: ~\nb: null\nc: ''\nd: true\n"
				      "e: \"true\"\nf: 12\ng: 1.5\nh: off\n");
	const struct cpl_ynode *d = cpl_ystream_doc(s, 0);
	long v;

	ck_assert(cpl_ynode_is_null(cpl_ynode_get(d, "a")));
	ck_assert_ptr_null(cpl_ynode_gets(d, "b"));
	ck_assert_str_eq(cpl_ynode_gets(d, "c"), "");
	ck_assert_int_eq(cpl_ynode_bool(cpl_ynode_get(d, "d")), 1);
	ck_assert_int_eq(cpl_ynode_bool(cpl_ynode_get(d, "e")), -1);
	ck_assert_int_eq(cpl_ynode_bool(cpl_ynode_get(d, "h")), 0);
	ck_assert_int_eq(cpl_ynode_long(cpl_ynode_get(d, "f"), &v), 0);
	ck_assert_int_eq(v, 12);
	ck_assert_int_eq(cpl_ynode_long(cpl_ynode_get(d, "g"), &v), -1);
	ck_assert_ptr_null(cpl_ynode_get(d, "zz"));
	ck_assert_ptr_null(cpl_ynode_get(cpl_ynode_get(d, "f"), "x"));
	cpl_ystream_free(s);
}
END_TEST

/* The null forms of YAML 1.1 (plain only), and what only looks like
 * one: cpl_ynode_is_null() decides by the first character first. */
START_TEST(null_forms)
{
	static const char *const null[] = { "~", "null", "Null", "NULL", "" };
	static const char *const not_null[] = {
		"nul", "nulls", "NUll", "nULL", "~x", "N", "n", "none", "None",
		"\"null\"", "'~'", "!!str null", "0",
	};
	char text[64];
	size_t i;

	for (i = 0; i < sizeof(null) / sizeof(null[0]); i++) {
		struct cpl_ystream *s;

		snprintf(text, sizeof(text), "k: %s\n", null[i]);
		s = parse(text);
		ck_assert_msg(cpl_ynode_is_null(cpl_ynode_get(
			cpl_ystream_doc(s, 0), "k")), "%s", text);
		cpl_ystream_free(s);
	}
	for (i = 0; i < sizeof(not_null) / sizeof(not_null[0]); i++) {
		struct cpl_ystream *s;

		snprintf(text, sizeof(text), "k: %s\n", not_null[i]);
		s = parse(text);
		ck_assert_msg(!cpl_ynode_is_null(cpl_ynode_get(
			cpl_ystream_doc(s, 0), "k")), "%s", text);
		cpl_ystream_free(s);
	}
}
END_TEST

static void
expect_error(const char *text, int line, int col, const char *part)
{
	struct cpl_ystream *s = NULL;
	struct cpl_error err = { 0 };

	ck_assert_int_eq(cpl_yaml_parse(&s, "bad.yaml", text, strlen(text),
					&err), -1);
	ck_assert_ptr_null(s);
	ck_assert_str_eq(err.path, "bad.yaml");
	ck_assert_int_eq(err.line, line);
	if (col)
		ck_assert_int_eq(err.column, col);
	ck_assert_msg(strstr(err.message, part) != NULL, "%s", err.message);
	cpl_error_clear(&err);
}

START_TEST(errors)
{
	expect_error("a: [1, 2\nb: 3\n", 2, 2, "flow sequence");
	expect_error("a: *nope\n", 1, 4, "names no anchor");
	expect_error("a:\n  b: 1\n c: 2\n", 3, 0, "");
	expect_error("key: \"unterminated\n", 2, 1, "quoted scalar");
}
END_TEST

START_TEST(depth_cap)
{
	struct cpl_buf b;
	struct cpl_ystream *s = NULL;
	struct cpl_error err = { 0 };
	int i;

	cpl_buf_init(&b, 0);
	for (i = 0; i < CPL_YAML_MAX_DEPTH + 5; i++)
		cpl_buf_addc(&b, '[');
	for (i = 0; i < CPL_YAML_MAX_DEPTH + 5; i++)
		cpl_buf_addc(&b, ']');
	ck_assert_int_eq(cpl_yaml_parse(&s, "deep.yaml", b.data, b.len, &err),
			 -1);
	ck_assert_ptr_nonnull(strstr(err.message, "nested too deeply"));
	ck_assert_int_eq(err.line, 1);
	ck_assert_int_eq(err.column, CPL_YAML_MAX_DEPTH + 1);
	cpl_error_clear(&err);
	cpl_buf_free(&b);
}
END_TEST

/* An alias inside the node it names would make the tree a cycle, which a
 * walk down it never leaves: an error at the alias.  An alias of a node
 * that has ended, inside a node still open, is a plain DAG edge. */
START_TEST(recursive_alias_is_an_error)
{
	static const struct {
		const char *text;
		int line, column;
	} bad[] = {
		{ "a: &x {b: *x}\n", 1, 11 },
		{ "- &s [1, *s]\n", 1, 10 },
		{ "m: &m\n  <<: *m\n  k: 1\n", 2, 7 },
		{ "a: &o\n  b: &i\n    c: [*o]\n", 3, 9 },
	};
	struct cpl_ystream *s;
	struct cpl_error err = { 0 };
	const struct cpl_ynode *a;
	size_t i;

	for (i = 0; i < CPL_ARRAY_LEN(bad); i++) {
		s = NULL;
		ck_assert_int_eq(cpl_yaml_parse(&s, "r.yaml", bad[i].text,
						strlen(bad[i].text), &err), -1);
		ck_assert_msg(strstr(err.message, "inside the node it names"),
			      "%s", err.message);
		ck_assert_int_eq(err.line, bad[i].line);
		ck_assert_int_eq(err.column, bad[i].column);
		cpl_error_clear(&err);
	}
	s = parse("a: &o {b: &i [1], c: *i, d: {e: *i}}\nf: *o\n");
	a = cpl_ynode_get(cpl_ystream_doc(s, 0), "a");
	ck_assert_ptr_eq(cpl_ynode_get(a, "c"), cpl_ynode_get(a, "b"));
	ck_assert_ptr_eq(cpl_ynode_get(cpl_ystream_doc(s, 0), "f"), a);
	cpl_ystream_free(s);
}
END_TEST

/* The fast reader hands its events over in batches (yamlfast_int.h): a text
 * of many batches is built whole, and one it refuses only at its end (an
 * anchor, past many batches) is read again by libyaml into the same
 * tree, with nothing left of the batches built before. */
START_TEST(fast_batches_and_late_refusal)
{
	const size_t n = 5 * CPL_YFAST_BATCH;
	struct cpl_buf b;
	struct cpl_ystream *s;
	const struct cpl_ynode *doc;
	size_t i, k;

	for (k = 0; k < 2; k++) {
		cpl_buf_init(&b, 0);
		for (i = 0; i < n; i++)
			cpl_buf_addf(&b, "---\nk%zu: [v%zu, 'q%zu']\n", i, i, i);
		if (k == 1)	/* refused by the fast reader */
			cpl_buf_adds(&b, "---\nlast: &a [1]\nagain: *a\n");
		s = parse(cpl_buf_str(&b));
		ck_assert_uint_eq(cpl_ystream_count(s), n + k);
		for (i = 0; i < n; i += CPL_YFAST_BATCH / 3) {
			char key[32];
			const struct cpl_ynode *v;

			snprintf(key, sizeof(key), "k%zu", i);
			doc = cpl_ystream_doc(s, i);
			ck_assert_uint_eq(doc->count, 1);
			v = cpl_ynode_get(doc, key);
			ck_assert_ptr_nonnull(v);
			ck_assert_uint_eq(v->count, 2);
			ck_assert_int_eq(v->line, (int)(2 * i + 2));
			ck_assert_str_eq(cpl_ynode_str(v->items[1]) + 1,
					 key + 1);
		}
		if (k == 1) {
			doc = cpl_ystream_doc(s, n);
			ck_assert_ptr_eq(cpl_ynode_get(doc, "again"),
					 cpl_ynode_get(doc, "last"));
		}
		cpl_ystream_free(s);
		cpl_buf_free(&b);
	}
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("yamldoc");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, positions);
	tcase_add_test(tc, offset_positions);
	tcase_add_test(tc, placed);
	tcase_add_test(tc, aliases_are_shared);
	tcase_add_test(tc, alias_bomb_is_cheap);
	tcase_add_test(tc, merge_bomb_is_expanded_once);
	tcase_add_test(tc, merge_order_and_work_cap);
	tcase_add_test(tc, duplicate_keys_warn_and_keep_last);
	tcase_add_test(tc, multi_document_and_json);
	tcase_add_test(tc, scalars);
	tcase_add_test(tc, arenas_grow_past_their_chunks);
	tcase_add_test(tc, null_forms);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, depth_cap);
	tcase_add_test(tc, recursive_alias_is_an_error);
	tcase_add_test(tc, fast_batches_and_late_refusal);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(suite)
