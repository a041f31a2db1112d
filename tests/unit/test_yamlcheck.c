/* test_yamlcheck.c — the re-parse that proves an edited YAML text: a
 * replaced value, a count inside a command, insertions, and every way an
 * edit can mean something else (an aliased anchor, a block scalar's
 * indicator, a lost tag or quoting, a changed key, a dangling alias, a
 * merge key's base, an edit that changes nothing). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "fix/fixcheck.h"
#include "text/patch.h"
#include "text/yamlcheck.h"

/* An edit replacing the nth (0-based) occurrence of needle in text by
 * repl (needle "" with at: an insertion before the nth occurrence of
 * at). */
struct spec {
	const char *needle;
	int nth;
	const char *repl;
	size_t group;
	const char *at;
};

static struct cpl_patch_edit
make_edit(const char *text, const struct spec *s)
{
	const char *find = s->at ? s->at : s->needle, *p = text;
	struct cpl_patch_edit e = { 0 };
	int k, line = 1, col = 1;
	size_t off, end, i;

	for (k = 0; k <= s->nth; k++) {
		p = strstr(k ? p + 1 : p, find);
		ck_assert_ptr_nonnull(p);
	}
	off = (size_t)(p - text);
	end = off + (s->at ? 0 : strlen(s->needle));
	for (i = 0; i < end; i++) {
		if (i == off) {
			e.line = line;
			e.column = col;
		}
		if (text[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	if (off == end) {
		e.line = line;
		e.column = col;
	}
	e.end_line = line;
	e.end_column = col;
	e.text = s->repl;
	e.group = s->group;
	return e;
}

/* Applies the edits and runs the check; 0 when proved.  why: the first
 * refusal's reason or the unexplained difference (caller frees). */
static int
verify(const char *text, const struct spec *specs, size_t n, char **why,
       char **out_text)
{
	struct cpl_patch_edit ed[8];
	struct cpl_ycheck_edit ye[8];
	struct cpl_ycheck_result r;
	struct cpl_patch p;
	size_t i, k = 0;
	int rc;

	ck_assert_uint_le(n, 8);
	for (i = 0; i < n; i++)
		ed[i] = make_edit(text, &specs[i]);
	cpl_patch_apply(&p, text, strlen(text), ed, n);
	for (i = 0; i < n; i++)
		if (ed[i].state == CPL_PATCH_APPLIED)
			ye[k++] = (struct cpl_ycheck_edit){ ed[i].old_off,
				ed[i].old_end, ed[i].new_off, ed[i].new_end,
				ed[i].group };
	rc = cpl_ycheck_run(&r, text, strlen(text), p.text, p.len, ye, k);
	*why = r.n ? cpl_xstrdup(r.v[0].why) :
	       r.unexplained ? cpl_xstrdup(r.unexplained) : NULL;
	if (out_text)
		*out_text = cpl_xstrdup(p.text);
	cpl_ycheck_result_free(&r);
	cpl_patch_free(&p);
	return rc;
}

#define PROVED(text, ...) do {						\
	const struct spec s_[] = { __VA_ARGS__ };			\
	char *w_ = NULL;						\
	int rc_ = verify(text, s_, sizeof(s_) / sizeof(s_[0]), &w_,	\
			 NULL);					\
	ck_assert_msg(rc_ == 0, "refused: %s", w_ ? w_ : "?");		\
	free(w_);							\
} while (0)

#define REFUSED(text, reason, ...) do {				\
	const struct spec s_[] = { __VA_ARGS__ };			\
	char *w_ = NULL;						\
	int rc_ = verify(text, s_, sizeof(s_) / sizeof(s_[0]), &w_,	\
			 NULL);					\
	ck_assert_int_eq(rc_, 1);					\
	ck_assert_ptr_nonnull(w_);					\
	ck_assert_msg(strstr(w_, reason) != NULL, "why: %s", w_);	\
	free(w_);							\
} while (0)

static const char ENV[] =
	"env:\n"
	"- name: OMP_NUM_THREADS\n"
	"  value: \"8\" # keep\n"
	"- name: X\n"
	"  value: plain\n";

START_TEST(whole_scalar_replaced)
{
	PROVED(ENV, { "\"8\"", 0, "\"1\"", 0, NULL });
	PROVED("a: 8\nb: 2\n", { "8", 0, "1", 0, NULL });
	PROVED("a: '8'\n", { "'8'", 0, "'1'", 0, NULL });
	/* An anchor nothing reads, and a tag, stay before the content. */
	PROVED("a: &t \"8\"\n", { "\"8\"", 0, "\"1\"", 0, NULL });
	PROVED("a: !!str 8\n", { "8", 0, "\"1\"", 0, NULL });
	/* A block scalar replaced whole by a flow one. */
	PROVED("a: |\n  8\nb: 1\n", { "|\n  8", 0, "\"1\"", 0, NULL });
}
END_TEST

START_TEST(type_must_stay)
{
	REFUSED(ENV, "type from str to int", { "\"8\"", 0, "1", 0, NULL });
	REFUSED("a: !!str 8\n", "type from str to int",
		{ "!!str 8", 0, "1", 0, NULL });
	REFUSED("a: &t \"8\"\n", "type from str to int",
		{ "&t \"8\"", 0, "1", 0, NULL });
	REFUSED("cpu: 500m\n", "type from str to int",
		{ "500m", 0, "2", 0, NULL });
}
END_TEST

START_TEST(block_indicator_alone)
{
	/* The defect: only `|` replaced, the value read "1 8". */
	REFUSED("env:\n- name: OMP_NUM_THREADS\n  value: |\n    8\n",
		"block scalar", { "|", 0, "1", 0, NULL });
}
END_TEST

START_TEST(anchor_read_elsewhere)
{
	static const char t[] =
		"a:\n  value: &t \"8\"\nb:\n  value: *t\n";

	/* The edit keeps the anchor, but *t now reads "1" too. */
	REFUSED(t, "read again at line 4", { "\"8\"", 0, "\"1\"", 0, NULL });
	/* Dropping the anchor leaves *t dangling. */
	REFUSED(t, "line 2", { "&t \"8\"", 0, "\"1\"", 0, NULL });
	/* Replacing the alias itself changes only that node. */
	PROVED(t, { "*t", 0, "\"1\"", 0, NULL });
	REFUSED(t, "type from str to int", { "*t", 0, "1", 0, NULL });
}
END_TEST

START_TEST(merge_key_base)
{
	static const char t[] =
		"base: &b\n  value: \"8\"\n  other: x\n"
		"c1:\n  <<: *b\n  name: one\n"
		"c2:\n  <<: *b\n  name: two\n";

	REFUSED(t, "anchored as &b", { "\"8\"", 0, "\"2\"", 0, NULL });
	/* A pair added to the base changes what both merge. */
	REFUSED(t, "anchored as &b",
		{ "", 0, "  extra: 1\n", 0, "  other" });
	/* A pair added beside the merge key is c1's alone. */
	PROVED(t, { "", 0, "  extra: 1\n", 0, "  name: one" });
	/* But one the base gives would hide the merged value. */
	REFUSED(t, "takes value from a merge key",
		{ "", 0, "  value: \"1\"\n", 0, "  name: one" });
}
END_TEST

START_TEST(count_inside_a_command)
{
	static const char t[] =
		"command: [\"torchrun\", \"--nproc_per_node=8\", \"t.py\","
		" \"--workers=8\"]\nargs: |\n  python t.py --workers 8 "
		"--seed 8\n";

	PROVED(t, { "8", 0, "2", 0, NULL }, { "8", 1, "3", 1, NULL });
	PROVED(t, { "8", 2, "1", 0, NULL });
	/* Two edits in one block scalar, of two groups. */
	PROVED(t, { "8\n", 0, "2\n", 0, NULL },
	       { "--workers 8", 0, "--workers 4", 1, NULL });
	/* An edit that breaks the quoting is not a value change. */
	REFUSED(t, "syntax", { "\"--nproc", 0, "--nproc", 0, NULL });
}
END_TEST

START_TEST(insertions)
{
	static const char t[] =
		"spec:\n  containers:\n  - name: a\n    image: x\n"
		"  volumes: [{name: v}]\n";

	PROVED(t, { "", 0, "    env:\n    - name: A\n      value: \"1\"\n",
		    0, "    image" },
	       { "", 0, ", {name: dshm}", 1, "]\n" });
	/* Text that adds no pair or item is refused. */
	REFUSED(t, "changes no value", { "", 0, "# hi\n", 0, "  volumes" });
	/* An item added to an aliased list changes its reader too. */
	REFUSED("a: &l [1, 2]\nb: *l\n", "anchored as &l",
		{ "", 0, ", 3", 0, "]" });
}
END_TEST

START_TEST(keys_and_structure)
{
	REFUSED("a: 1\nb: 2\n", "key at line 2", { "b", 0, "c", 0, NULL });
	REFUSED("a: 1\n", "not parse", { "1", 0, "[1", 0, NULL });
	/* A comment edited: no value changes. */
	REFUSED("a: 1 # was 8\n", "changes no value",
		{ "8", 0, "1", 0, NULL });
}
END_TEST

START_TEST(crlf_bom_json)
{
	PROVED("\xef\xbb\xbf" "a: \"8\"\r\nb: 1\r\n",
	       { "\"8\"", 0, "\"1\"", 0, NULL });
	PROVED("{\"env\": [{\"name\": \"A\", \"value\": \"8\"}]}",
	       { "\"8\"", 0, "\"1\"", 0, NULL });
	REFUSED("{\"v\": \"8\"}", "type", { "\"8\"", 0, "1", 0, NULL });
	PROVED("a: \"é8\"\nb: \"8\"\n", { "\"8\"", 0, "\"1\"", 0, NULL });
}
END_TEST

START_TEST(aliases_of_aliases_linear)
{
	/* A "billion laughs" shape compares without expanding. */
	struct cpl_buf b;
	int i;

	cpl_buf_init(&b, 0);
	cpl_buf_adds(&b, "l0: &a0 [\"x\", \"x\"]\n");
	for (i = 1; i < 60; i++)
		cpl_buf_addf(&b, "l%d: &a%d [*a%d, *a%d]\n", i, i, i - 1,
			     i - 1);
	cpl_buf_adds(&b, "v: \"8\"\n");
	PROVED(b.data, { "\"8\"", 0, "\"1\"", 0, NULL });
	REFUSED(b.data, "anchored as &a0", { "\"x\"", 0, "\"y\"", 0, NULL });
	cpl_buf_free(&b);
}
END_TEST

START_TEST(fixcheck_keeps_the_good_group)
{
	static const char t[] =
		"a:\n  value: &t \"8\"\nb:\n  value: *t\nc: \"4\"\n";
	const struct spec s[] = {
		{ "\"8\"", 0, "\"1\"", 0, NULL },
		{ "\"4\"", 0, "\"2\"", 1, NULL },
		{ "\"4\"", 0, "[", 2, NULL },
	};
	struct cpl_patch_edit ed[3];
	struct cpl_patch p;
	struct cpl_fixcheck c = { 0 };
	size_t i;

	for (i = 0; i < 2; i++)
		ed[i] = make_edit(t, &s[i]);
	cpl_fixcheck_apply(&p, &c, t, strlen(t), CPL_FIXCHECK_YAML, ed, 2);
	ck_assert_str_eq(p.text,
			 "a:\n  value: &t \"8\"\nb:\n  value: *t\nc: \"2\"\n");
	ck_assert_uint_eq(c.n, 1);
	ck_assert_uint_eq(c.v[0].group, 0);
	ck_assert_int_eq(ed[0].state, CPL_PATCH_REFUSED);
	ck_assert_int_eq(ed[1].state, CPL_PATCH_APPLIED);
	cpl_patch_free(&p);
	cpl_fixcheck_free(&c);
	/* An edit that breaks the parse alone is traced to its group. */
	ed[0] = make_edit(t, &s[2]);
	ed[1] = make_edit(t, &s[1]);
	ed[1].group = 1;
	ed[0].line = 2;
	ed[0].column = 3;
	ed[0].end_line = 2;
	ed[0].end_column = 3;
	ed[0].text = "[";
	cpl_fixcheck_apply(&p, &c, t, strlen(t), CPL_FIXCHECK_YAML, ed, 2);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_uint_eq(c.v[0].group, 2);
	ck_assert_str_eq(p.text,
			 "a:\n  value: &t \"8\"\nb:\n  value: *t\nc: \"2\"\n");
	cpl_patch_free(&p);
	cpl_fixcheck_free(&c);
}
END_TEST

static Suite *
yamlcheck_suite(void)
{
	Suite *s = suite_create("yamlcheck");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, whole_scalar_replaced);
	tcase_add_test(tc, type_must_stay);
	tcase_add_test(tc, block_indicator_alone);
	tcase_add_test(tc, anchor_read_elsewhere);
	tcase_add_test(tc, merge_key_base);
	tcase_add_test(tc, count_inside_a_command);
	tcase_add_test(tc, insertions);
	tcase_add_test(tc, keys_and_structure);
	tcase_add_test(tc, crlf_bom_json);
	tcase_add_test(tc, aliases_of_aliases_linear);
	tcase_add_test(tc, fixcheck_keeps_the_good_group);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(yamlcheck_suite)
