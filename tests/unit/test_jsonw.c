/*
 * test_jsonw.c — the streaming JSON writer and the buffered writer the
 * reporters write through, checked against jansson itself: the writer
 * must print exactly what json_dumps(JSON_INDENT(2) | JSON_PRESERVE_ORDER)
 * prints for the same document.
 *
 * Random inputs come from a fixed-seed generator, so a failure repeats;
 * each failing case prints its input in hex.  jansson is used here only
 * as the reference (the library no longer builds trees to write them).
 */
#include <check.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "jsonw_ref.h"
#include "report/jsonw.h"
#include "report/render_int.h"
#include "report/wbuf.h"
#include "util.h"

#define DUMP_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER)

/* xorshift64*: deterministic, good enough to spread test cases. */
static uint64_t rng_state;

static void
rng_seed(uint64_t s)
{
	rng_state = s ? s : 1;
}

static uint64_t
rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/* A number in [0, n). */
static size_t
rng_below(size_t n)
{
	return (size_t)(rng() % n);
}

/* Appends code point cp as UTF-8 (any value up to 0x1fffff, so surrogates
 * and values past U+10FFFF make ill-formed input too). */
static void
add_utf8(struct cpl_buf *b, uint32_t cp)
{
	char u[4];

	if (cp < 0x80) {
		cpl_buf_addc(b, (char)cp);
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3f));
		cpl_buf_add(b, u, 2);
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | cp >> 12);
		u[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		cpl_buf_add(b, u, 3);
	} else {
		u[0] = (char)(0xf0 | (cp >> 18 & 0x07));
		u[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		u[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		cpl_buf_add(b, u, 4);
	}
}

/*
 * A random byte string of up to max bytes: a mix of printable ASCII,
 * control characters, quotes and backslashes, NUL, encoded code points
 * (valid or not) and raw bytes from 0x80 up.
 */
static void
random_bytes(struct cpl_buf *b, size_t max, bool allow_nul)
{
	size_t n = rng_below(max + 1), i;

	cpl_buf_reset(b);
	for (i = 0; i < n; i++) {
		switch (rng_below(8)) {
		case 0:
			cpl_buf_addc(b, (char)rng_below(0x20));
			break;
		case 1:
			cpl_buf_addc(b, "\"\\/\x7f"[rng_below(4)]);
			break;
		case 2:
			cpl_buf_addc(b, (char)(0x80 + rng_below(0x80)));
			break;
		case 3:
			add_utf8(b, (uint32_t)rng_below(0x800));
			break;
		case 4:
			add_utf8(b, (uint32_t)rng_below(0x10000));
			break;
		case 5:
			add_utf8(b, (uint32_t)rng_below(0x120000));
			break;
		default:
			cpl_buf_addc(b, (char)(0x20 + rng_below(0x5f)));
			break;
		}
	}
	if (!allow_nul) {
		for (i = 0; i < b->len; i++)
			if (b->data[i] == '\0')
				b->data[i] = '0';
	}
}

/* What the reporters handed jansson before: s with each ill-formed
 * subpart replaced by U+FFFD (render.c's repair, kept as the reference). */
static void
repair(struct cpl_buf *out, const char *s, size_t len)
{
	size_t i = 0, adv;

	cpl_buf_reset(out);
	while (i < len) {
		uint32_t cp;

		if ((unsigned char)s[i] < 0x80) {
			cpl_buf_addc(out, s[i]);
			i++;
			continue;
		}
		cp = cpl_report_utf8_next(&adv, s + i, len - i);
		if (cp == 0xfffd)
			cpl_buf_adds(out, "\xef\xbf\xbd");
		else
			cpl_buf_add(out, s + i, adv);
		i += adv;
	}
}

/* s in hex, for failure messages.  Caller frees. */
static char *
hex(const char *s, size_t n)
{
	struct cpl_buf b;
	size_t i;

	cpl_buf_init(&b, 0);
	for (i = 0; i < n; i++)
		cpl_buf_addf(&b, "%02x", (unsigned char)s[i]);
	return cpl_buf_detach(&b);
}

/* jansson's dump of a string value (JSON_ENCODE_ANY); caller frees. */
static char *
jansson_string(const char *s, size_t n)
{
	json_t *j = json_stringn(s, n);
	char *d;

	ck_assert_ptr_nonnull(j);
	d = json_dumps(j, JSON_ENCODE_ANY | DUMP_FLAGS);
	ck_assert_ptr_nonnull(d);
	json_decref(j);
	return extra_escapes(d);
}

/* ---- the escaper ------------------------------------------------- */

/* Random byte strings: the escaper prints what jansson printed for the
 * repaired string, and for well-formed input that is jansson's own dump
 * of the input. */
START_TEST(escape_fuzz)
{
	struct cpl_buf in, fixed;
	struct cpl_wbuf w;
	size_t round, len, valid = 0;

	rng_seed(0x5eed0001);
	cpl_buf_init(&in, 0);
	cpl_buf_init(&fixed, 0);
	for (round = 0; round < 20000; round++) {
		json_t *direct;
		char *want, *got, *h;

		random_bytes(&in, round < 100 ? 4 : 48, true);
		repair(&fixed, in.data ? in.data : "", in.len);
		want = jansson_string(cpl_buf_str(&fixed), fixed.len);
		cpl_wbuf_init(&w, NULL);
		cpl_jsonw_escape(&w, in.data ? in.data : "", in.len);
		got = cpl_wbuf_take(&w, &len);
		cpl_wbuf_free(&w);
		h = hex(cpl_buf_str(&in), in.len);
		ck_assert_msg(len == strlen(want) &&
			      memcmp(got, want, len) == 0,
			      "input %s: got %s want %s", h, got, want);
		/* jansson takes the input as it is exactly when it is
		 * well-formed, and then prints the same */
		direct = json_stringn(in.data ? in.data : "", in.len);
		if (direct) {
			char *d = extra_escapes(json_dumps(direct,
							   JSON_ENCODE_ANY));

			valid++;
			ck_assert_msg(strcmp(d, got) == 0, "input %s", h);
			free(d);
			json_decref(direct);
		} else {
			ck_assert_msg(fixed.len != in.len ||
				      memcmp(fixed.data, in.data, in.len) != 0,
				      "jansson refused %s, kept as it was", h);
		}
		free(h);
		free(got);
		free(want);
	}
	/* both branches were exercised */
	ck_assert_uint_gt(valid, 1000);
	ck_assert_uint_lt(valid, 19000);
	cpl_buf_free(&in);
	cpl_buf_free(&fixed);
}
END_TEST

/* The escapes by name, and what is left alone. */
START_TEST(escape_table)
{
	static const struct {
		const char *in;
		size_t n;
		const char *out;
	} cases[] = {
		{ "", 0, "\"\"" },
		{ "a/b", 3, "\"a/b\"" },
		{ "\"\\", 2, "\"\\\"\\\\\"" },
		{ "\b\f\n\r\t", 5, "\"\\b\\f\\n\\r\\t\"" },
		{ "\x01\x1f\x7f", 3, "\"\\u0001\\u001F\\u007F\"" },
		/* C1 controls (U+0085 NEL, U+009B CSI), not the next */
		{ "\xc2\x85\xc2\x9b\xc2\xa0", 6,
		  "\"\\u0085\\u009B\xc2\xa0\"" },
		/* an old-style runner command; "#[" and "# [" stay */
		{ "##[add-mask]x #[ # [ ###[", 25,
		  "\"##\\u005Badd-mask]x #[ # [ ###\\u005B\"" },
		{ "a\0b", 3, "\"a\\u0000b\"" },
		{ "\xc3\x97", 2, "\"\xc3\x97\"" },
		{ "\xf0\x9f\x98\x80", 4, "\"\xf0\x9f\x98\x80\"" },
		{ "\xff", 1, "\"\xef\xbf\xbd\"" },
		/* a truncated sequence is one U+FFFD, then the next byte */
		{ "\xe2\x82x", 3, "\"\xef\xbf\xbdx\"" },
		/* a surrogate: three maximal subparts */
		{ "\xed\xa0\x80", 3,
		  "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"" },
	};
	size_t i, len;

	for (i = 0; i < CPL_ARRAY_LEN(cases); i++) {
		struct cpl_wbuf w;
		char *got;

		cpl_wbuf_init(&w, NULL);
		cpl_jsonw_escape(&w, cases[i].in, cases[i].n);
		got = cpl_wbuf_take(&w, &len);
		cpl_wbuf_free(&w);
		ck_assert_msg(strcmp(got, cases[i].out) == 0, "case %zu: %s",
			      i, got);
		free(got);
	}
}
END_TEST

/* ---- numbers ----------------------------------------------------- */

/* The writer's text of one number; caller frees. */
static char *
our_real(double v)
{
	struct cpl_wbuf w;
	size_t len;
	char *s;

	cpl_wbuf_init(&w, NULL);
	cpl_jsonw_format_real(&w, v);
	s = cpl_wbuf_take(&w, &len);
	cpl_wbuf_free(&w);
	return s;
}

START_TEST(reals_like_jansson)
{
	static const double fixed[] = {
		0.0, 0.5, 0.1, 1.5, 2.333, 1e15, 1e16, 1e21, 1e22, 1e100,
		1e-5, 1e-7, 123456789.125, 0.001, 3.3, 0.3, 1e308, 5e-324,
		-0.0, -2.5, -1e-300,
	};
	size_t i;

	rng_seed(0x5eed0002);
	for (i = 0; i < CPL_ARRAY_LEN(fixed) + 50000; i++) {
		double v;
		json_t *j;
		char *want, *got;

		if (i < CPL_ARRAY_LEN(fixed)) {
			v = fixed[i];
		} else {
			uint64_t bits;

			switch (i % 4) {
			case 0:	/* what the budgets print: 3 decimals */
				v = (double)(long long)(
					(double)rng_below(100000000) / 997.0 *
					1000.0 + 0.5) / 1000.0;
				break;
			case 1:
				v = (double)rng_below(1000000) /
				    (double)(1 + rng_below(1000));
				break;
			case 2:
				v = ldexp((double)rng_below(1u << 30),
					  (int)rng_below(200) - 100);
				break;
			default:	/* any finite bit pattern */
				do {
					bits = rng();
					memcpy(&v, &bits, sizeof(v));
				} while (!isfinite(v));
				break;
			}
		}
		j = json_real(v);
		ck_assert_ptr_nonnull(j);
		want = json_dumps(j, JSON_ENCODE_ANY);
		got = our_real(v);
		ck_assert_msg(strcmp(want, got) == 0, "%a: got %s want %s", v,
			      got, want);
		free(want);
		free(got);
		json_decref(j);
	}
}
END_TEST

/* Not finite: null, where jansson could not hold the value at all. */
START_TEST(reals_not_finite)
{
	struct cpl_wbuf w;
	struct cpl_jsonw j;
	size_t len;
	char *s;

	cpl_wbuf_init(&w, NULL);
	cpl_jsonw_init(&j, &w, 0);
	cpl_jsonw_array(&j);
	cpl_jsonw_real(&j, INFINITY);
	cpl_jsonw_real(&j, NAN);
	cpl_jsonw_int(&j, -9223372036854775807LL - 1);
	cpl_jsonw_close(&j);
	s = cpl_wbuf_take(&w, &len);
	ck_assert_str_eq(s, "[\n  null,\n  null,\n  -9223372036854775808\n]");
	free(s);
	cpl_wbuf_free(&w);
}
END_TEST

/* ---- documents --------------------------------------------------- */

/* A random key: usually a plain word, sometimes anything. */
static char *
random_key(void)
{
	struct cpl_buf b;

	cpl_buf_init(&b, 0);
	if (rng_below(4) == 0) {
		struct cpl_buf fixed;

		random_bytes(&b, 12, false);
		cpl_buf_init(&fixed, 0);
		repair(&fixed, cpl_buf_str(&b), b.len);
		cpl_buf_free(&b);
		return cpl_buf_detach(&fixed);
	}
	cpl_buf_addf(&b, "k%zu", rng_below(1000));
	return cpl_buf_detach(&b);
}

/* A random scalar. */
static json_t *
random_scalar(void)
{
	struct cpl_buf b, fixed;
	json_t *j;

	switch (rng_below(7)) {
	case 0:
		return json_null();
	case 1:
		return json_boolean(rng_below(2));
	case 2:
		return json_integer((json_int_t)rng() >> rng_below(64));
	case 3:
		return json_real((double)rng_below(1000000) / 1000.0);
	default:
		cpl_buf_init(&b, 0);
		cpl_buf_init(&fixed, 0);
		random_bytes(&b, 20, true);
		repair(&fixed, cpl_buf_str(&b), b.len);
		j = json_stringn(cpl_buf_str(&fixed), fixed.len);
		cpl_buf_free(&b);
		cpl_buf_free(&fixed);
		return j;
	}
}

/* A random value; containers (often empty) until depth runs out. */
static json_t *
random_value(int depth)
{
	json_t *c;
	size_t n, i;

	if (depth <= 0 || rng_below(3) == 0)
		return random_scalar();
	n = rng_below(3) == 0 ? 0 : rng_below(5);
	if (rng_below(2)) {
		c = json_array();
		for (i = 0; i < n; i++)
			json_array_append_new(c, random_value(depth - 1));
	} else {
		c = json_object();
		for (i = 0; i < n; i++) {
			char *k = random_key();

			json_object_set_new(c, k, random_value(depth - 1));
			free(k);
		}
	}
	return c;
}

static void write_value(struct cpl_jsonw *j, const json_t *v, bool pieces);

/*
 * Writes v through the writer.  With pieces, containers at depth 2 are
 * written apart (at their depth, into memory) and copied in with
 * cpl_jsonw_raw, as SARIF writes its results.
 */
static void
write_member(struct cpl_jsonw *j, const json_t *v, bool pieces)
{
	struct cpl_wbuf piece;
	struct cpl_jsonw pj;
	size_t len;
	char *text;

	if (pieces && j->depth == 2 && (json_is_array(v) ||
					 json_is_object(v))) {
		cpl_wbuf_init(&piece, NULL);
		cpl_jsonw_init(&pj, &piece, 2);
		write_value(&pj, v, false);
		text = cpl_wbuf_take(&piece, &len);
		cpl_wbuf_free(&piece);
		cpl_jsonw_raw(j, text, len);
		free(text);
		return;
	}
	write_value(j, v, pieces);
}

static void
write_value(struct cpl_jsonw *j, const json_t *v, bool pieces)
{
	const char *key;
	json_t *m;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		cpl_jsonw_object(j);
		json_object_foreach((json_t *)v, key, m) {
			cpl_jsonw_key(j, key);
			write_member(j, m, pieces);
		}
		cpl_jsonw_close(j);
		break;
	case JSON_ARRAY:
		cpl_jsonw_array(j);
		json_array_foreach(v, i, m)
			write_member(j, m, pieces);
		cpl_jsonw_close(j);
		break;
	case JSON_STRING:
		cpl_jsonw_strn(j, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER:
		cpl_jsonw_int(j, (long long)json_integer_value(v));
		break;
	case JSON_REAL:
		cpl_jsonw_real(j, json_real_value(v));
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		cpl_jsonw_bool(j, json_is_true(v));
		break;
	case JSON_NULL:
		cpl_jsonw_null(j);
		break;
	}
}

/* Random documents: streamed, whole or in pieces, equals jansson's dump. */
START_TEST(documents_like_jansson)
{
	size_t round, len;

	rng_seed(0x5eed0003);
	for (round = 0; round < 3000; round++) {
		json_t *doc = random_value(6);
		bool pieces = round % 2;
		struct cpl_wbuf w;
		struct cpl_jsonw j;
		char *want, *got;

		want = json_dumps(doc, JSON_ENCODE_ANY | DUMP_FLAGS);
		ck_assert_ptr_nonnull(want);
		want = extra_escapes(want);
		cpl_wbuf_init(&w, NULL);
		cpl_jsonw_init(&j, &w, 0);
		write_value(&j, doc, pieces);
		got = cpl_wbuf_take(&w, &len);
		cpl_wbuf_free(&w);
		ck_assert_msg(strcmp(want, got) == 0,
			      "round %zu:\n--- jansson\n%s\n--- ours\n%s",
			      round, want, got);
		ck_assert_uint_eq(len, strlen(want));
		free(want);
		free(got);
		json_decref(doc);
	}
}
END_TEST

/* ---- the buffered writer ----------------------------------------- */

/* Pieces of every size, through a FILE, come out whole and in order. */
START_TEST(wbuf_order)
{
	struct cpl_wbuf w;
	struct cpl_buf want;
	char *got = NULL, *piece;
	size_t gotlen = 0, i, n;
	FILE *fp = open_memstream(&got, &gotlen);

	ck_assert_ptr_nonnull(fp);
	rng_seed(0x5eed0004);
	cpl_buf_init(&want, 0);
	cpl_wbuf_init(&w, fp);
	piece = cpl_xmalloc(3 * CPL_WBUF_SIZE);
	for (i = 0; i < 400; i++) {
		size_t k;

		switch (i % 5) {
		case 0:
			n = rng_below(3 * CPL_WBUF_SIZE);
			break;
		case 1:
			n = CPL_WBUF_SIZE - rng_below(3);
			break;
		default:
			n = rng_below(300);
			break;
		}
		for (k = 0; k < n; k++)
			piece[k] = (char)('a' + (i + k) % 26);
		cpl_wbuf_add(&w, piece, n);
		cpl_buf_add(&want, piece, n);
		cpl_wbuf_addc(&w, '\n');
		cpl_buf_addc(&want, '\n');
		cpl_wbuf_addf(&w, "%zu:%s", i, i % 7 ? "" : "x");
		cpl_buf_addf(&want, "%zu:%s", i, i % 7 ? "" : "x");
		cpl_wbuf_pad(&w, i % 70);
		for (k = 0; k < i % 70; k++)
			cpl_buf_addc(&want, ' ');
	}
	/* a formatted piece larger than addf's stack buffer */
	memset(piece, 'z', 1000);
	piece[1000] = '\0';
	cpl_wbuf_addf(&w, "<%s>", piece);
	cpl_buf_addf(&want, "<%s>", piece);
	ck_assert_int_eq(cpl_wbuf_finish(&w), 0);
	ck_assert_int_eq(fclose(fp), 0);
	ck_assert_uint_eq(gotlen, want.len);
	ck_assert(memcmp(got, want.data, want.len) == 0);
	free(piece);
	free(got);
	cpl_buf_free(&want);
}
END_TEST

/* Writes a document of n members whose keys and strings grow by one
 * byte each (plain, and every 17th in need of escapes), nested every
 * 5th member: the pieces written in place land at every offset of the
 * writer's buffer. */
static void
write_ladder(struct cpl_jsonw *j, size_t n)
{
	char key[64], val[200];
	size_t i, k;

	cpl_jsonw_object(j);
	for (i = 0; i < n; i++) {
		size_t kl = 1 + i % 60, vl = i % 190;

		for (k = 0; k < kl; k++)
			key[k] = (char)('a' + (i + k) % 26);
		key[kl] = '\0';
		for (k = 0; k < vl; k++)
			val[k] = i % 17 == 0 && k == 0 ? '"' :
				 (char)('A' + (i * 7 + k) % 26);
		val[vl] = '\0';
		cpl_jsonw_key(j, key);
		if (i % 5 == 0) {
			cpl_jsonw_object(j);
			cpl_jsonw_key(j, "in");
			cpl_jsonw_str(j, val);
			cpl_jsonw_close(j);
		} else {
			cpl_jsonw_str(j, val);
		}
	}
	cpl_jsonw_close(j);
}

/*
 * Keys, line breaks and strings written in place (cpl_wbuf_reserve())
 * across the 64 KiB buffer of a FILE writer, the document shifted by 0
 * to 99 bytes (more than any key's piece) so that the pieces meet the
 * buffer's end at every offset
 * (a piece that wrote past what it reserved overruns the buffer there:
 * ASan's suite sees it): the same bytes as the document in memory.
 */
START_TEST(wbuf_in_place_across_blocks)
{
	size_t shift;

	for (shift = 0; shift < 100; shift++) {
		struct cpl_wbuf mem, file;
		struct cpl_jsonw j;
		char *got = NULL, *want;
		size_t gotlen = 0, wantlen;
		FILE *fp = open_memstream(&got, &gotlen);

		ck_assert_ptr_nonnull(fp);
		cpl_wbuf_init(&mem, NULL);
		cpl_wbuf_pad(&mem, shift);
		cpl_jsonw_init(&j, &mem, 0);
		write_ladder(&j, 700);
		want = cpl_wbuf_take(&mem, &wantlen);
		ck_assert_uint_gt(wantlen, CPL_WBUF_SIZE);
		cpl_wbuf_init(&file, fp);
		cpl_wbuf_pad(&file, shift);
		cpl_jsonw_init(&j, &file, 0);
		write_ladder(&j, 700);
		ck_assert_int_eq(cpl_wbuf_finish(&file), 0);
		ck_assert_int_eq(fclose(fp), 0);
		ck_assert_uint_eq(gotlen, wantlen);
		ck_assert(memcmp(got, want, wantlen) == 0);
		free(got);
		free(want);
		cpl_wbuf_free(&mem);
		cpl_wbuf_free(&file);
	}
}
END_TEST

/*
 * Over a FILE with a descriptor the blocks go straight to it: what the
 * FILE itself buffered before comes first, and the bytes arrive whole.
 */
START_TEST(wbuf_descriptor)
{
	struct cpl_wbuf w;
	FILE *fp = tmpfile();
	char *piece = cpl_xmalloc(CPL_WBUF_SIZE + 10), *back;
	size_t i, total;
	long size;

	ck_assert_ptr_nonnull(fp);
	ck_assert_int_ge(fputs("head;", fp), 0);	/* still in stdio */
	memset(piece, 'p', CPL_WBUF_SIZE + 10);
	cpl_wbuf_init(&w, fp);
	ck_assert_int_ge(w.fd, 0);
	for (i = 0; i < 3; i++) {
		cpl_wbuf_add(&w, piece, CPL_WBUF_SIZE + 10);
		cpl_wbuf_addc(&w, (char)('0' + i));
	}
	cpl_wbuf_adds(&w, ";tail");
	ck_assert_int_eq(cpl_wbuf_finish(&w), 0);
	total = 5 + 3 * (CPL_WBUF_SIZE + 11) + 5;
	ck_assert_int_eq(fseek(fp, 0, SEEK_END), 0);
	size = ftell(fp);
	ck_assert_int_eq(size, (long)total);
	rewind(fp);
	back = cpl_xmalloc(total);
	ck_assert_uint_eq(fread(back, 1, total, fp), total);
	ck_assert(memcmp(back, "head;", 5) == 0);
	for (i = 0; i < 3; i++) {
		const char *at = back + 5 + i * (CPL_WBUF_SIZE + 11);

		ck_assert(memcmp(at, piece, CPL_WBUF_SIZE + 10) == 0);
		ck_assert_int_eq(at[CPL_WBUF_SIZE + 10], '0' + (int)i);
	}
	ck_assert(memcmp(back + total - 5, ";tail", 5) == 0);
	free(back);
	free(piece);
	(void)fclose(fp);
}
END_TEST

/* A full disk: the first failure is kept and reported at the end. */
START_TEST(wbuf_full_disk)
{
	struct cpl_wbuf w;
	FILE *fp = fopen("/dev/full", "w");
	size_t i;

	ck_assert_ptr_nonnull(fp);
	cpl_wbuf_init(&w, fp);
	cpl_wbuf_adds(&w, "small");
	errno = 0;
	ck_assert_int_eq(cpl_wbuf_finish(&w), -1);
	ck_assert_int_eq(errno, ENOSPC);
	/* failing in the middle: later writes are dropped, end still fails */
	cpl_wbuf_init(&w, fp);
	for (i = 0; i < 5; i++)
		cpl_wbuf_add(&w, "0123456789abcdef", 16);
	for (i = 0; i < 3 * CPL_WBUF_SIZE / 16; i++)
		cpl_wbuf_add(&w, "0123456789abcdef", 16);
	ck_assert(w.failed);
	ck_assert_uint_eq(w.len, 0);
	ck_assert_int_eq(cpl_wbuf_finish(&w), -1);
	(void)fclose(fp);
	cpl_wbuf_free(NULL);
}
END_TEST

static Suite *
jsonw_suite(void)
{
	Suite *s = suite_create("jsonw");
	TCase *tc = tcase_create("escape");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, escape_fuzz);
	tcase_add_test(tc, escape_table);
	suite_add_tcase(s, tc);
	tc = tcase_create("numbers");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, reals_like_jansson);
	tcase_add_test(tc, reals_not_finite);
	suite_add_tcase(s, tc);
	tc = tcase_create("documents");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, documents_like_jansson);
	suite_add_tcase(s, tc);
	tc = tcase_create("wbuf");
	tcase_set_timeout(tc, 120);	/* 100 documents, under TSan too */
	tcase_add_test(tc, wbuf_order);
	tcase_add_test(tc, wbuf_in_place_across_blocks);
	tcase_add_test(tc, wbuf_descriptor);
	tcase_add_test(tc, wbuf_full_disk);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(jsonw_suite)
