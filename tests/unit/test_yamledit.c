/* test_yamledit.c — style-following insertions: block lists of both entry
 * shapes, flow lists, maps, missing keys, JSON pretty and on one line,
 * CRLF, non-ASCII before the point, comments. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "text/yamledit.h"
#include "text/yamlfast_int.h"

static const struct cpl_yval omp_entry[] = {
	{ .kind = CPL_YV_SCALAR, .key = "name", .text = "OMP_NUM_THREADS" },
	{ .kind = CPL_YV_SCALAR, .key = "value", .text = "2", .quote = true },
};
static const struct cpl_yval env_items[] = {
	{ .kind = CPL_YV_MAP, .kids = omp_entry, .nkids = 2 },
};
static const struct cpl_yval env_pair[] = {
	{ .kind = CPL_YV_SEQ, .key = "env", .kids = env_items, .nkids = 1 },
};
static const struct cpl_yval add_env = {
	.kind = CPL_YV_MAP, .kids = env_pair, .nkids = 1,
};

static int
by_offset(const void *a, const void *b)
{
	const struct cpl_yedit_ins *x = a, *y = b;

	return (x->offset > y->offset) - (x->offset < y->offset);
}

/* The container mapping at line:col of text merged with val; returns the
 * edited text (caller frees), or NULL when the merge refused. */
static char *
merged(const char *text, int line, int col, const struct cpl_yval *val)
{
	struct cpl_yedit *ed = NULL;
	struct cpl_yedit_out out = { 0 };
	struct cpl_error err = { 0 };
	const struct cpl_yenode *n;
	struct cpl_buf b = { 0 };
	size_t i, at = 0;
	int rc;

	ck_assert_int_eq(cpl_yedit_open(&ed, "t", text, strlen(text), &err),
			 0);
	n = cpl_yedit_find(ed, line, col);
	ck_assert_msg(n != NULL, "no node at %d:%d", line, col);
	rc = cpl_yedit_merge(ed, n, val, &out);
	cpl_yedit_free(ed);
	if (rc < 0) {
		cpl_yedit_out_free(&out);
		return NULL;
	}
	qsort(out.v, out.n, sizeof(*out.v), by_offset);
	for (i = 0; i < out.n; i++) {
		const char *p = text;
		int l = 1;

		/* line:column (bytes) names the same offset */
		while (l < out.v[i].line)
			if (*p++ == '\n')
				l++;
		ck_assert_int_eq((size_t)(p - text) + (size_t)out.v[i].column -
				 1, out.v[i].offset);
		ck_assert(out.v[i].offset >= at);
		cpl_buf_add(&b, text + at, out.v[i].offset - at);
		cpl_buf_adds(&b, out.v[i].text);
		at = out.v[i].offset;
	}
	cpl_buf_adds(&b, text + at);
	cpl_yedit_out_free(&out);
	return cpl_buf_detach(&b);
}

#define EXPECT(text, line, col, val, want) do {				\
		char *got_ = merged(text, line, col, val);		\
		ck_assert_ptr_nonnull(got_);				\
		ck_assert_str_eq(got_, want);				\
		free(got_);						\
	} while (0)

START_TEST(block_list_block_entries)
{
	EXPECT("spec:\n  containers:\n  - name: t\n    env:\n"
	       "    - name: A\n      value: \"1\"  # keep\n"
	       "    image: x\n# tail\n", 3, 5, &add_env,
	       "spec:\n  containers:\n  - name: t\n    env:\n"
	       "    - name: OMP_NUM_THREADS\n      value: \"2\"\n"
	       "    - name: A\n      value: \"1\"  # keep\n"
	       "    image: x\n# tail\n");
	/* indented dashes and single quotes */
	EXPECT("c:\n  env:\n    -   name: A\n        value: 'x'\n", 2, 3,
	       &add_env,
	       "c:\n  env:\n    -   name: OMP_NUM_THREADS\n"
	       "        value: '2'\n    -   name: A\n        value: 'x'\n");
}
END_TEST

START_TEST(block_list_flow_entries)
{
	EXPECT("c:\n  env:\n  - {name: A, value: \"1\"}\n  image: x\n", 2, 3,
	       &add_env,
	       "c:\n  env:\n  - {name: OMP_NUM_THREADS, value: \"2\"}\n"
	       "  - {name: A, value: \"1\"}\n  image: x\n");
}
END_TEST

START_TEST(flow_list)
{
	EXPECT("c:\n  env: [{name: A, value: \"1\"}]  # c\n", 2, 3, &add_env,
	       "c:\n  env: [{name: A, value: \"1\"}, {name: "
	       "OMP_NUM_THREADS, value: \"2\"}]  # c\n");
	EXPECT("c: {image: x, env: []}\n", 1, 4, &add_env,
	       "c: {image: x, env: [{name: OMP_NUM_THREADS, value: "
	       "\"2\"}]}\n");
}
END_TEST

START_TEST(map_form)
{
	static const struct cpl_yval vars[] = {
		{ .kind = CPL_YV_SCALAR, .key = "OMP_NUM_THREADS",
		  .text = "2", .quote = true },
		{ .kind = CPL_YV_SCALAR, .key = "MKL_NUM_THREADS",
		  .text = "2", .quote = true },
	};
	static const struct cpl_yval add = {
		.kind = CPL_YV_MAP, .kids = vars, .nkids = 2,
	};

	EXPECT("version: 1.1\nenv:\n  KEEP: yes\nrun:\n  kind: job\n", 3, 3,
	       &add, "version: 1.1\nenv:\n  KEEP: yes\n"
	       "  OMP_NUM_THREADS: \"2\"\n  MKL_NUM_THREADS: \"2\"\n"
	       "run:\n  kind: job\n");
}
END_TEST

START_TEST(missing_key)
{
	/* no env: the key at the container's key indentation, the list
	 * indented as the file's other lists are */
	EXPECT("spec:\n  containers:\n    - name: t\n      image: x\n"
	       "  volumes: []\n", 3, 7, &add_env,
	       "spec:\n  containers:\n    - name: t\n"
	       "      env:\n        - name: OMP_NUM_THREADS\n"
	       "          value: \"2\"\n      image: x\n  volumes: []\n");
	/* indentless lists; no final line break */
	EXPECT("containers:\n- args:\n  - a", 2, 3, &add_env,
	       "containers:\n- args:\n  - a\n  env:\n"
	       "  - name: OMP_NUM_THREADS\n    value: \"2\"");
	/* above the first key (and its comment) when the first value is a
	 * block */
	EXPECT("c:\n  # limits\n  resources:\n    cpu: 1\n", 3, 3, &add_env,
	       "c:\n  env:\n    - name: OMP_NUM_THREADS\n"
	       "      value: \"2\"\n  # limits\n  resources:\n    cpu: 1\n");
}
END_TEST

START_TEST(nested_maps)
{
	static const struct cpl_yval cpu[] = {
		{ .kind = CPL_YV_SCALAR, .key = "cpu", .text = "4",
		  .quote = true },
	};
	static const struct cpl_yval res[] = {
		{ .kind = CPL_YV_MAP, .key = "requests", .kids = cpu,
		  .nkids = 1 },
		{ .kind = CPL_YV_MAP, .key = "limits", .kids = cpu,
		  .nkids = 1 },
	};
	static const struct cpl_yval top[] = {
		{ .kind = CPL_YV_MAP, .key = "resources", .kids = res,
		  .nkids = 2 },
	};
	static const struct cpl_yval add = {
		.kind = CPL_YV_MAP, .kids = top, .nkids = 1,
	};

	EXPECT("c:\n    image: x\n    resources:\n        limits:\n"
	       "            memory: 1Gi\n", 2, 5, &add,
	       "c:\n    image: x\n    resources:\n        requests:\n"
	       "            cpu: \"4\"\n        limits:\n"
	       "            memory: 1Gi\n            cpu: \"4\"\n");
	/* a scalar where a mapping is wanted: no edit */
	ck_assert_ptr_null(merged("c:\n  resources: none\n", 2, 3, &add));
}
END_TEST

START_TEST(json_pretty)
{
	EXPECT("{\n  \"spec\": {\n    \"containers\": [\n      {\n"
	       "        \"name\": \"t\",\n        \"image\": \"x\"\n      }\n"
	       "    ]\n  }\n}\n", 4, 7, &add_env,
	       "{\n  \"spec\": {\n    \"containers\": [\n      {\n"
	       "        \"name\": \"t\",\n        \"image\": \"x\",\n"
	       "        \"env\": [\n          {\n"
	       "            \"name\": \"OMP_NUM_THREADS\",\n"
	       "            \"value\": \"2\"\n          }\n        ]\n"
	       "      }\n    ]\n  }\n}\n");
	/* an existing list of one-line entries */
	EXPECT("{\n\t\"c\": {\n\t\t\"env\": [\n"
	       "\t\t\t{\"name\": \"A\", \"value\": \"1\"}\n\t\t]\n\t}\n}",
	       2, 7, &add_env,
	       "{\n\t\"c\": {\n\t\t\"env\": [\n"
	       "\t\t\t{\"name\": \"A\", \"value\": \"1\"},\n"
	       "\t\t\t{\"name\": \"OMP_NUM_THREADS\", \"value\": \"2\"}\n"
	       "\t\t]\n\t}\n}");
}
END_TEST

START_TEST(json_one_line)
{
	EXPECT("{\"spec\":{\"containers\":[{\"name\":\"t\",\"image\":\"x\"}]}}",
	       1, 24, &add_env,
	       "{\"spec\":{\"containers\":[{\"name\":\"t\",\"image\":\"x\","
	       "\"env\":[{\"name\":\"OMP_NUM_THREADS\",\"value\":\"2\"}]}]}}");
}
END_TEST

START_TEST(crlf)
{
	EXPECT("c:\r\n  image: x\r\n  env:\r\n  - name: A\r\n    value: b\r\n"
	       "x: 1\r\n", 2, 3, &add_env,
	       "c:\r\n  image: x\r\n  env:\r\n"
	       "  - name: OMP_NUM_THREADS\r\n    value: \"2\"\r\n"
	       "  - name: A\r\n    value: b\r\nx: 1\r\n");
	EXPECT("c:\r\n  image: x\r\n", 2, 3, &add_env,
	       "c:\r\n  image: x\r\n  env:\r\n"
	       "    - name: OMP_NUM_THREADS\r\n      value: \"2\"\r\n");
}
END_TEST

START_TEST(non_ascii)
{
	/* columns come in as characters, offsets go out as bytes */
	EXPECT("c: {név: \"é\", image: ü}\n", 1, 4, &add_env,
	       "c: {név: \"é\", image: ü, env: [{name: OMP_NUM_THREADS, "
	       "value: \"2\"}]}\n");
	EXPECT("# été\nc:\n  image: \"ü\" # ß\n", 3, 3, &add_env,
	       "# été\nc:\n  image: \"ü\" # ß\n  env:\n"
	       "    - name: OMP_NUM_THREADS\n      value: \"2\"\n");
}
END_TEST

START_TEST(distinct_offsets)
{
	static const struct cpl_yval mount[] = {
		{ .kind = CPL_YV_SCALAR, .key = "name", .text = "dshm" },
	};
	static const struct cpl_yval mounts[] = {
		{ .kind = CPL_YV_MAP, .kids = mount, .nkids = 1 },
	};
	static const struct cpl_yval vm[] = {
		{ .kind = CPL_YV_SEQ, .key = "volumeMounts", .kids = mounts,
		  .nkids = 1 },
	};
	static const struct cpl_yval vols[] = {
		{ .kind = CPL_YV_SEQ, .key = "volumes", .kids = mounts,
		  .nkids = 1 },
	};
	static const struct cpl_yval a = { .kind = CPL_YV_MAP, .kids = vm,
					   .nkids = 1 };
	static const struct cpl_yval b = { .kind = CPL_YV_MAP, .kids = vols,
					   .nkids = 1 };
	const char *text = "spec:\n  containers:\n  - name: t\n"
			   "    resources:\n      limits:\n        cpu: 1\n";
	struct cpl_yedit *ed = NULL;
	struct cpl_yedit_out out = { 0 };
	struct cpl_error err = { 0 };

	ck_assert_int_eq(cpl_yedit_open(&ed, "t", text, strlen(text), &err),
			 0);
	ck_assert_int_eq(cpl_yedit_merge(ed, cpl_yedit_find(ed, 3, 5), &a,
					 &out), 0);
	ck_assert_int_eq(cpl_yedit_merge(ed, cpl_yedit_find(ed, 2, 3), &b,
					 &out), 0);
	/* the container's key after its name, the Pod's above containers:
	 * two bytes, whatever else is added at the end of either */
	ck_assert_int_eq(out.n, 2);
	ck_assert_int_eq(out.v[0].line, 4);
	ck_assert_str_eq(out.v[0].text,
			 "    volumeMounts:\n    - name: dshm\n");
	ck_assert_int_eq(out.v[1].line, 2);
	ck_assert_str_eq(out.v[1].text, "  volumes:\n  - name: dshm\n");
	ck_assert_str_eq(cpl_yedit_key_of(cpl_yedit_parent(
		cpl_yedit_find(ed, 3, 5))), "containers");
	cpl_yedit_out_free(&out);
	cpl_yedit_free(ed);
}
END_TEST

/* The fast reader's events are built a batch at a time: a text of many
 * batches, and one it refuses only at its end (an anchor) that libyaml
 * then reads from the start, give the same nodes, none twice. */
START_TEST(fast_batches_and_late_refusal)
{
	const size_t n = 3 * CPL_YFAST_BATCH;
	struct cpl_buf b;
	size_t i, k;

	for (k = 0; k < 2; k++) {
		struct cpl_yedit *ed = NULL;
		struct cpl_error err = { 0 };
		const struct cpl_yenode *m, *v;

		cpl_buf_init(&b, 0);
		for (i = 0; i < n; i++)
			cpl_buf_addf(&b, "---\nc%zu:\n  image: x%zu\n", i, i);
		if (k == 1)
			cpl_buf_adds(&b, "---\nlast: &a 1\n");
		ck_assert_int_eq(cpl_yedit_open(&ed, "t", b.data, b.len, &err),
				 0);
		for (i = 0; i < n; i += CPL_YFAST_BATCH / 2) {
			char want[32];

			/* document i's "c<i>:" value, a map at line 3i+3 */
			m = cpl_yedit_find(ed, (int)(3 * i + 3), 3);
			ck_assert(cpl_yedit_is_map(m));
			v = cpl_yedit_get(m, "image");
			snprintf(want, sizeof(want), "x%zu", i);
			ck_assert_str_eq(cpl_yedit_str(v), want);
			snprintf(want, sizeof(want), "c%zu", i);
			ck_assert_str_eq(cpl_yedit_key_of(m), want);
		}
		cpl_yedit_free(ed);
		cpl_buf_free(&b);
	}
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("yamledit");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, block_list_block_entries);
	tcase_add_test(tc, block_list_flow_entries);
	tcase_add_test(tc, flow_list);
	tcase_add_test(tc, map_form);
	tcase_add_test(tc, missing_key);
	tcase_add_test(tc, nested_maps);
	tcase_add_test(tc, json_pretty);
	tcase_add_test(tc, json_one_line);
	tcase_add_test(tc, crlf);
	tcase_add_test(tc, non_ascii);
	tcase_add_test(tc, distinct_offsets);
	tcase_add_test(tc, fast_batches_and_late_refusal);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(suite)
