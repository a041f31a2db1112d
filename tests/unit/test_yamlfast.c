/*
 * test_yamlfast.c — the fast YAML reader against libyaml: whatever text
 * it reads, its events (types, marks, values, styles) are libyaml's, and
 * libyaml reads that text without an error.
 *
 * Over every YAML and JSON file of testdata/ (each must either be
 * refused or read exactly as libyaml does, and the manifests a run
 * mostly meets must be read), over texts made to probe each rule (some
 * must be read, some refused), and over mutations of those texts: bytes
 * deleted, doubled or replaced by YAML's indicators, blanks and line
 * ends (YAMLFAST_MUTATIONS sets how many; 20,000 by default).
 */
#include <check.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "check_main.h"
#include "text/yamldoc.h"
#include "text/yamlfast_int.h"
#include "util.h"
#include "yamlfast_diff.h"

/*
 * Reads text both ways (yamlfast_diff.h).  Returns 0 when the fast
 * reader refused it, 1 when it read it exactly as libyaml did; otherwise
 * fails the test with the first difference (what names the text).
 */
static int
compare(const char *what, const char *text, size_t len)
{
	bool read;
	char *diff = yamlfast_diff(text, len, &read);

	ck_assert_msg(diff == NULL, "%s: %s", what, diff);
	return read ? 1 : 0;
}

static int
compare_str(const char *text)
{
	return compare(text, text, strlen(text));
}

/* Texts the fast reader must read (as libyaml does). */
static const char *const must_read[] = {
	"a: 1\n",
	"a: 1",
	"a:\n",
	"a:",
	"a:\nb: 2\n",
	"a:\n  b: 2\n  c:\n    - x\n    -\n    - y\n",
	"a:\n- x\n- y\nb: 1\n",
	"- a\n- b: 1\n  c: 2\n- - x\n  - y\n",
	"-\n- \n-  # c\n  x\n",
	"key: value # comment\nother: 'it''s' # c\n",
	"k: \"a\\tb\\\\c\\\"d\"\n",
	"k: [a, \"b\", 'c', [d, e], {f: g}]\n",
	"k: []\nl: {}\nm: [a, ]\n",
	"env: {name: A, value: \"1\"}\n",
	"command: [torchrun, --nnodes=1, train.py, --workers, \"1\"]\n",
	"image: registry.example.com/x/y:2.2.1-cpu\nurl: http://x:80/y\n",
	"s: |\n  line1\n  line2\nt: x\n",
	"s: |-\n  line1\n\n  line2\n\n\nt: x\n",
	"s: |+\n  line1\n\n\nt: x\n",
	"s: >\n  folded\n  text\n\n  para\n    more\n  end\n",
	"s: >-\n\n  x\n",
	"s: |\n",
	"s: |\nt: 1\n",
	"- |\n  a\n- >\n  b\n",
	"# only a comment\n",
	"",
	"---\n",
	"---\na: 1\n---\nb: 2\n",
	"a: 1\n---\n",
	"--- # c\n- x\n",
	"plain scalar\n",
	"\"quoted\"\n",
	"a: 1\n\n\n# trailing\n",
	"  a: 1\n  b: 2\n",
	"\"q k\": 1\n'r': 2\nx : 3\n",
	"a: -1\nb: -x\nc: ---\n",
	"a: b#c\nd: e:f\n",
	"a:\n  # c\n  b: 1\n",
	"a: 'x'   \nb: [x]  # c\n",
	"spec:\n  containers:\n  - name: x\n    resources:\n      limits: "
	"{cpu: \"4\"}\n",
	"a: 1\n...\n",
	"a: 1\n...\n---\nb: 2\n...\n",
	"---\n...\n",
	"a: [x,\n  y]\n",
	"k: [\n  a,\n  \"b\"\n]\n",
	"k: {a: 1,\n  b: [x,\n y]}\n",
	"k: [a, # c\n  b]\n",
	"{\n  \"a\": 1,\n  \"b\": [true, null],\n  \"c\": {\"d\":\"e\"}\n}\n",
	"a: [a:b, http://x/y]\n",
	"a: {'k':2, \"l\" : 3}\n",
};

/* Texts the fast reader must refuse (libyaml reads them, or fails). */
static const char *const must_refuse[] = {
	"a: &x 1\nb: *x\n",
	"a: !!str 1\n",
	"%YAML 1.1\n---\na: 1\n",
	"? a\n: b\n",
	"a: multi\n  line\n",
	"a: \"multi\n  line\"\n",
	"a: [x\n  y]\n",
	"a: [x, {b:\n---\n}]\n",
	"a:\tb\n",
	"a: 1\r\n",
	"a: \xc3\xa9\n",
	"a: b: c\n",
	"a: - b\n",
	"a: 1\n  b: 2\n",
	"- a\nb: 1\n",
	"s: |2\n  x\n",
	"a: \"\\x41\"\n",
	"a: [a:]\n",
	"...\na: 1\n",
	"a: 1\n...\nb: 2\n",
	"a: {b}\n",
	"a: {b: }\n",
	"a: @x\n",
	"[a]: b\n",
	"--- a\n",
	"a: 1\n b\n",
};

START_TEST(probes_read)
{
	size_t i;

	for (i = 0; i < sizeof(must_read) / sizeof(*must_read); i++)
		ck_assert_msg(compare_str(must_read[i]) == 1,
			      "refused: \"%s\"", must_read[i]);
}
END_TEST

START_TEST(probes_refused)
{
	size_t i;
	struct cpl_yfast f = { 0 };

	for (i = 0; i < sizeof(must_refuse) / sizeof(*must_refuse); i++)
		ck_assert_msg(cpl_yfast_read(&f, must_refuse[i],
					     strlen(must_refuse[i])) < 0,
			      "read: \"%s\"", must_refuse[i]);
	cpl_yfast_free(&f);
}
END_TEST

/* Every YAML and JSON file under testdata/: read exactly or refused. */
START_TEST(testdata_files)
{
	static const char *const pats[] = {
		"testdata/*.y*ml", "testdata/*/*.y*ml", "testdata/*/*/*.y*ml",
		"testdata/*/*/*/*.y*ml", "testdata/*/*/*/*/*.y*ml",
		"testdata/*/*/*/*/*/*.y*ml", "testdata/*/*.json",
		"testdata/*/*/*.json", "testdata/*/*/*/*.json",
	};
	glob_t g;
	size_t i, files = 0, read = 0;
	int flags = 0;

	for (i = 0; i < sizeof(pats) / sizeof(*pats); i++) {
		glob(pats[i], flags, NULL, &g);
		flags = GLOB_APPEND;
	}
	for (i = 0; i < g.gl_pathc; i++) {
		char *buf = NULL;
		size_t len;
		struct cpl_error err = { 0 };

		if (cpl_read_file(&buf, &len, g.gl_pathv[i], 1 << 24,
				  &err) < 0) {
			cpl_error_clear(&err);
			continue;
		}
		files++;
		read += (size_t)compare(g.gl_pathv[i], buf, len);
		free(buf);
	}
	globfree(&g);
	ck_assert_uint_gt(files, 100);
	/* Most of testdata is what the fast reader is for: manifests and
	 * Polyaxonfiles in block style with flow leaves. */
	ck_assert_msg(read * 2 > files, "read %zu of %zu files", read, files);
}
END_TEST

/* The seeds of the mutations: the probes, and (YAMLFAST_FILES=1) the
 * YAML files of testdata/ as well. */
static char **seeds;
static size_t *seed_lens, nseeds;

static void
add_seed(const char *text, size_t len)
{
	seeds = cpl_xrealloc(seeds, (nseeds + 1) * sizeof(*seeds));
	seed_lens = cpl_xrealloc(seed_lens, (nseeds + 1) *
				 sizeof(*seed_lens));
	seeds[nseeds] = cpl_xstrndup(text, len);
	seed_lens[nseeds++] = len;
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

/* Byte mutations of the seeds: each text read is read exactly. */
START_TEST(mutations)
{
	static const char alphabet[] = " \n:-#'\"[]{},|>?&*!%.a1\\";
	const char *e = getenv("YAMLFAST_MUTATIONS");
	size_t n = mutation_count(e, 20000), i, k, read = 0;
	uint64_t x = 0x9e3779b97f4a7c15u;
	struct cpl_buf what;
	char *buf = NULL, *diff;
	bool was_read;
	size_t cap = 0;

	cpl_buf_init(&what, 0);
	for (i = 0; i < sizeof(must_read) / sizeof(*must_read); i++)
		add_seed(must_read[i], strlen(must_read[i]));
	e = getenv("YAMLFAST_FILES");
	if (e && *e == '1') {
		glob_t g;

		glob("testdata/*/*/*.y*ml", 0, NULL, &g);
		glob("testdata/*/*/*/*.y*ml", GLOB_APPEND, NULL, &g);
		for (i = 0; i < g.gl_pathc; i++) {
			char *text = NULL;
			size_t len;
			struct cpl_error err = { 0 };

			if (cpl_read_file(&text, &len, g.gl_pathv[i], 1 << 16,
					  &err) == 0)
				add_seed(text, len);
			free(text);
			cpl_error_clear(&err);
		}
		globfree(&g);
	}
	for (i = 0; i < n; i++) {
		size_t s = i % nseeds, len = seed_lens[s], edits;

		buf = cpl_xgrow_to(buf, &cap, len + 8, 1);
		memcpy(buf, seeds[s], len);
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		edits = 1 + x % 3;
		for (k = 0; k < edits; k++) {
			size_t at;
			char c;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			at = len ? (size_t)(x >> 8) % (len + 1) : 0;
			c = alphabet[(x >> 40) % (sizeof(alphabet) - 1)];
			switch (x % 3) {
			case 0:		/* insert */
				memmove(buf + at + 1, buf + at, len - at);
				buf[at] = c;
				len++;
				break;
			case 1:		/* replace */
				if (at < len)
					buf[at] = c;
				break;
			default:	/* delete */
				if (at < len) {
					memmove(buf + at, buf + at + 1,
						len - at - 1);
					len--;
				}
				break;
			}
		}
		diff = yamlfast_diff(buf, len, &was_read);
		if (diff != NULL) {	/* the text, line ends shown */
			cpl_buf_addf(&what, "mutation %zu of seed %zu (", i,
				     s);
			for (k = 0; k < len && k < 1000; k++)
				if (buf[k] == '\n')
					cpl_buf_adds(&what, "\\n");
				else
					cpl_buf_addc(&what, buf[k]);
			ck_abort_msg("%s): %s", cpl_buf_str(&what), diff);
		}
		read += was_read;
	}
	/* The mutations must exercise the reader, not only its refusals. */
	ck_assert_uint_gt(read, n / 10);
	for (i = 0; i < nseeds; i++)
		free(seeds[i]);
	free(seeds);
	free(seed_lens);
	free(buf);
	cpl_buf_free(&what);
}
END_TEST

/* The tree built from fast events is the one libyaml's give: a refused
 * text and a read one, parsed through cpl_yaml_parse. */
START_TEST(tree_either_way)
{
	struct cpl_ystream *a = NULL, *b = NULL;
	struct cpl_error err = { 0 };
	const char *fast = "a:\n  b: [1, 2]\n  c: x\n";
	const char *slow = "a:\n  b: [1,\n   2]\n  c: x\n";
	const struct cpl_ynode *na, *nb;

	ck_assert_int_eq(cpl_yaml_parse(&a, "a.yaml", fast, strlen(fast),
					&err), 0);
	ck_assert_int_eq(cpl_yaml_parse(&b, "b.yaml", slow, strlen(slow),
					&err), 0);
	na = cpl_ynode_path(cpl_ystream_doc(a, 0), "a", "c", NULL);
	nb = cpl_ynode_path(cpl_ystream_doc(b, 0), "a", "c", NULL);
	ck_assert_str_eq(na->value, "x");
	ck_assert_str_eq(nb->value, "x");
	ck_assert_int_eq(na->line, 3);
	ck_assert_int_eq(nb->line, 4);
	ck_assert_int_eq(cpl_ynode_path(cpl_ystream_doc(a, 0), "a", "b",
					NULL)->count, 2);
	cpl_ystream_free(a);
	cpl_ystream_free(b);
	/* An error is libyaml's message, position and all. */
	ck_assert_int_eq(cpl_yaml_parse(&a, "e.yaml", "a: b: c\n", 8, &err),
			 -1);
	ck_assert_ptr_nonnull(strstr(err.message, "mapping values are not "
				     "allowed"));
	cpl_error_clear(&err);
}
END_TEST

/* A text the fast reader reads but the builder stops at (its node
 * limit): the message and position are those of libyaml's events. */
START_TEST(builder_limit_after_fast_read)
{
	struct cpl_ystream *st = NULL;
	struct cpl_error err = { 0 };
	size_t n = CPL_YAML_MAX_NODES + 1, i;
	char *text = cpl_xmalloc(2 * n + 2);
	size_t len = 0;

	text[len++] = '[';
	for (i = 0; i < n; i++) {
		text[len++] = '0';
		text[len++] = i + 1 < n ? ',' : ']';
	}
	text[len] = '\0';
	ck_assert_int_eq(compare("a long flow sequence", text, len), 1);
	ck_assert_int_eq(cpl_yaml_parse(&st, "big.yaml", text, len, &err),
			 -1);
	ck_assert_ptr_nonnull(strstr(err.message, "too many YAML nodes"));
	/* The node past the limit: item 2,000,000 (0-based), two bytes
	 * each after the bracket (the sequence is node 1). */
	ck_assert_int_eq(err.line, 1);
	ck_assert_int_eq(err.column, (int)(1 + 2 * (CPL_YAML_MAX_NODES - 1)) +
			 1);
	cpl_error_clear(&err);
	free(text);
}
END_TEST

static Suite *
yamlfast_suite(void)
{
	Suite *s = suite_create("yamlfast");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, probes_read);
	tcase_add_test(tc, probes_refused);
	tcase_add_test(tc, testdata_files);
	tcase_add_test(tc, mutations);
	tcase_add_test(tc, tree_either_way);
	tcase_add_test(tc, builder_limit_after_fast_read);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(yamlfast_suite)
