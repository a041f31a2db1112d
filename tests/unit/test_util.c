/* test_util.c — buffers, errors, file reading, the string map. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "check_main.h"
#include "util.h"

/* cpl_format() gives snprintf()'s bytes and count at every size, for
 * the conversions it does itself and for one it hands on. */
#define SAME_AS_SNPRINTF(...)						\
	do {								\
		char a_[64], b_[64];					\
		size_t sz_;						\
		for (sz_ = 0; sz_ <= sizeof(a_); sz_++) {		\
			int na_, nb_;					\
			memset(a_, 'x', sizeof(a_));			\
			memset(b_, 'x', sizeof(b_));			\
			na_ = cpl_format(a_, sz_, __VA_ARGS__);		\
			nb_ = snprintf(b_, sz_, __VA_ARGS__);		\
			ck_assert_int_eq(na_, nb_);			\
			ck_assert_msg(memcmp(a_, b_, sizeof(a_)) == 0,	\
				      "size %zu: \"%.*s\" vs \"%.*s\"",	\
				      sz_, (int)sizeof(a_), a_,		\
				      (int)sizeof(b_), b_);		\
		}							\
	} while (0)

START_TEST(format_like_snprintf)
{
	const char *volatile null = NULL;	/* hidden from -Wformat */
	char *s;

	SAME_AS_SNPRINTF("plain text");
	SAME_AS_SNPRINTF("%s/%s", "dir", "file.py");
	SAME_AS_SNPRINTF("%s|%s", "", null);
	SAME_AS_SNPRINTF("%.*s %ld", 3, "abcdef", -42L);
	SAME_AS_SNPRINTF("%.*s|%.*s", 0, "abc", 9, "ab");
	SAME_AS_SNPRINTF("%d %d %d", 0, -2147483647 - 1, 2147483647);
	SAME_AS_SNPRINTF("%ld %lu", -9223372036854775807L - 1,
			 18446744073709551615UL);
	SAME_AS_SNPRINTF("%lld.%lld%%", -1LL, 123456789012345LL);
	SAME_AS_SNPRINTF("%u %zu %c", 4294967295U, (size_t)7, 'q');
	SAME_AS_SNPRINTF("budget of %s CPU%s (%ld GPUs)", "2.5", "s", 8L);
	SAME_AS_SNPRINTF("100%% %s", "done");
	SAME_AS_SNPRINTF("%5d|%-3s|%x|%.2f", 42, "a", 255U, 1.5);
	s = cpl_xasprintf("%s:%d:%d: %s", "f.yaml", 3, 14,
			  "a message longer than the stack buffer of "
			  "cpl_xvasprintf, which is two hundred and "
			  "fifty-six bytes: so it is formatted twice, "
			  "once to count and once into the heap, and "
			  "both times must give the same bytes, which "
			  "this test reads back in full, every byte of "
			  "it.");
	ck_assert_uint_gt(strlen(s), 256);
	ck_assert(strncmp(s, "f.yaml:3:14: a message", 22) == 0);
	ck_assert_str_eq(s + strlen(s) - 31,
			 "back in full, every byte of it.");
	free(s);
}
END_TEST

START_TEST(buffer_and_cap)
{
	struct cpl_buf b;
	char *s;

	cpl_buf_init(&b, 8);
	ck_assert_str_eq(cpl_buf_str(&b), "");
	cpl_buf_adds(&b, "abc");
	cpl_buf_addf(&b, "%d", 42);
	ck_assert_str_eq(cpl_buf_str(&b), "abc42");
	cpl_buf_adds(&b, "toolong");
	ck_assert(b.overflow);
	ck_assert_str_eq(cpl_buf_str(&b), "abc42");
	s = cpl_buf_detach(&b);
	ck_assert_str_eq(s, "abc42");
	free(s);
	ck_assert_ptr_null(b.data);
	cpl_buf_free(&b);
}
END_TEST

/* Formatting into a buffer's room, growing it, past its cap; and
 * xasprintf's short and long strings. */
START_TEST(buffer_formatting)
{
	struct cpl_buf b;
	char big[1000], *s;
	int i;

	cpl_buf_init(&b, 0);
	for (i = 0; i < 200; i++)	/* fits in the room, then grows */
		cpl_buf_addf(&b, "%d,", i % 10);
	ck_assert_uint_eq(b.len, 400);
	ck_assert(strncmp(cpl_buf_str(&b), "0,1,2,", 6) == 0);
	ck_assert_str_eq(cpl_buf_str(&b) + 394, "7,8,9,");
	cpl_buf_free(&b);

	cpl_buf_init(&b, 8);
	cpl_buf_adds(&b, "ab");
	cpl_buf_addf(&b, "%s", "cdefghij");	/* 10 > 7: dropped */
	ck_assert(b.overflow);
	ck_assert_str_eq(cpl_buf_str(&b), "ab");
	ck_assert_uint_eq(b.len, 2);
	cpl_buf_addf(&b, "%s", "cd");
	ck_assert_str_eq(cpl_buf_str(&b), "abcd");
	cpl_buf_free(&b);

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	s = cpl_xasprintf("<%s>", big);
	ck_assert_uint_eq(strlen(s), sizeof(big) + 1);
	ck_assert(s[0] == '<' && s[sizeof(big)] == '>');
	free(s);
	s = cpl_xasprintf("%s-%d", "short", 7);
	ck_assert_str_eq(s, "short-7");
	free(s);
}
END_TEST

START_TEST(string_prefixes)
{
	ck_assert(cpl_str_starts("torch.nn", "torch."));
	ck_assert(cpl_str_starts("torch.", "torch."));
	ck_assert(cpl_str_starts("x", ""));
	ck_assert(cpl_str_starts("", ""));
	ck_assert(!cpl_str_starts("torch", "torch."));
	ck_assert(!cpl_str_starts("", "a"));
	ck_assert(!cpl_str_starts("Torch.nn", "torch."));
	ck_assert(!cpl_str_starts(NULL, "a"));
}
END_TEST

START_TEST(errors_format)
{
	struct cpl_error e = { 0 };
	char *s;

	cpl_error_set(&e, "f.yaml", 3, 7, "bad %s", "thing");
	s = cpl_error_format(&e);
	ck_assert_str_eq(s, "f.yaml:3:7: bad thing");
	free(s);
	cpl_error_set(&e, "f.yaml", 0, 0, "gone");
	s = cpl_error_format(&e);
	ck_assert_str_eq(s, "f.yaml: gone");
	free(s);
	cpl_error_clear(&e);
	cpl_error_clear(NULL);
}
END_TEST

START_TEST(read_file)
{
	char path[] = "/tmp/cpl-util-XXXXXX";
	int fd = mkstemp(path);
	struct cpl_error e = { 0 };
	char *text;
	size_t len;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "hello\n", 6), 6);
	close(fd);
	ck_assert_int_eq(cpl_read_file(&text, &len, path, 100, &e), 0);
	ck_assert_str_eq(text, "hello\n");
	ck_assert_int_eq(len, 6);
	free(text);
	ck_assert_int_eq(cpl_read_file(&text, &len, path, 3, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.message, "too large"));
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_eq(write(fd, "a\0b", 3), 3);
	close(fd);
	ck_assert_int_eq(cpl_read_file(&text, &len, path, 100, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.message, "binary"));
	unlink(path);
	ck_assert_int_eq(cpl_read_file(&text, &len, path, 100, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.message, "cannot read"));
	ck_assert_int_eq(cpl_read_file(&text, &len, "/tmp", 100, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.message, "directory"));
	cpl_error_clear(&e);
}
END_TEST

START_TEST(strmap)
{
	struct cpl_strmap m = { 0 };
	char keys[500][16];
	int i;

	for (i = 0; i < 500; i++) {
		snprintf(keys[i], sizeof(keys[i]), "k%d", i);
		cpl_strmap_put(&m, keys[i], &keys[i]);
	}
	cpl_strmap_put(&m, keys[7], NULL);
	ck_assert_int_eq(m.count, 500);
	ck_assert_ptr_eq(cpl_strmap_get(&m, "k499"), &keys[499]);
	ck_assert_ptr_null(cpl_strmap_get(&m, "k7"));
	ck_assert_ptr_null(cpl_strmap_get(&m, "nope"));
	cpl_strmap_free(&m);
	ck_assert_ptr_null(cpl_strmap_get(&m, "k1"));
}
END_TEST

/* A map that owns its keys copies each on its first put (the caller's
 * buffer is reused at once), keeps the first copy when a key is put
 * again, frees them with the map (ASan/valgrind see a leak otherwise)
 * and still owns keys when used again after cpl_strmap_free(). */
START_TEST(strmap_own_keys)
{
	struct cpl_strmap m = { .own_keys = true };
	char buf[16];
	const char *kept, *again;
	int i, round;

	for (round = 0; round < 2; round++) {
		for (i = 0; i < 100; i++) {
			snprintf(buf, sizeof(buf), "k%d", i);
			kept = cpl_strmap_put(&m, buf, &m);
			ck_assert_ptr_ne(kept, buf);
			ck_assert_str_eq(kept, buf);
		}
		memset(buf, 'x', sizeof(buf) - 1);
		buf[sizeof(buf) - 1] = '\0';
		ck_assert_ptr_eq(cpl_strmap_get(&m, "k42"), &m);
		ck_assert_int_eq(m.count, 100);
		snprintf(buf, sizeof(buf), "k42");
		kept = cpl_strmap_put(&m, "k42", NULL);
		again = cpl_strmap_put(&m, buf, &buf);
		ck_assert_ptr_eq(kept, again);
		ck_assert_int_eq(m.count, 100);
		ck_assert_ptr_eq(cpl_strmap_get(&m, "k42"), &buf);
		cpl_strmap_free(&m);
		ck_assert(m.own_keys);
		ck_assert_int_eq(m.count, 0);
	}
}
END_TEST

START_TEST(parse_long)
{
	long v;

	ck_assert_int_eq(cpl_parse_long(&v, "42"), 0);
	ck_assert_int_eq(v, 42);
	ck_assert_int_eq(cpl_parse_long(&v, "4x"), -1);
	ck_assert_int_eq(cpl_parse_long(&v, ""), -1);
	ck_assert_int_eq(cpl_parse_long(&v, "99999999999999999999999"), -1);
}
END_TEST

START_TEST(control_characters)
{
	ck_assert(!cpl_has_control("eyJhbGciOi.abc-_~+/=", 20));
	ck_assert(!cpl_has_control(NULL, 4));
	ck_assert(!cpl_has_control("", 0));
	ck_assert(cpl_has_control("a\r\nX-Evil: 1", 14));
	ck_assert(cpl_has_control("a\tb", 3));
	ck_assert(cpl_has_control("a\x7f", 2));
	ck_assert(cpl_has_control("a\0b", 3));	/* by length, not NUL */
	ck_assert(!cpl_has_control("caf\xc3\xa9", 5));	/* UTF-8 */
}
END_TEST

START_TEST(durations)
{
	char t[32];

	cpl_format_duration(t, sizeof(t), 20.7);
	ck_assert_str_eq(t, "20 s");
	cpl_format_duration(t, sizeof(t), 600);
	ck_assert_str_eq(t, "10 min");
	cpl_format_duration(t, sizeof(t), 7199);
	ck_assert_str_eq(t, "119 min");
	cpl_format_duration(t, sizeof(t), 7200);
	ck_assert_str_eq(t, "2 h");
	cpl_format_duration(t, sizeof(t), 3 * 86400 + 5);
	ck_assert_str_eq(t, "3 days");
	cpl_format_duration(t, sizeof(t), -4);
	ck_assert_str_eq(t, "0 s");
}
END_TEST

START_TEST(redaction)
{
	const char *const secrets[] = { "s3cr3t-token", "hunter22", "", "ab",
					NULL };
	char *r;

	r = cpl_redact("Unauthorized: Authorization: Bearer s3cr3t-token "
		       "at https://admin:hunter22@kube.example:6443/api; "
		       "ab stays", secrets);
	ck_assert_str_eq(r, "Unauthorized: Authorization: Bearer [redacted] "
			 "at https://[redacted]@kube.example:6443/api; "
			 "ab stays");
	free(r);
	r = cpl_redact("no secrets, user@example.com mail://x", NULL);
	ck_assert_str_eq(r, "no secrets, user@example.com mail://x");
	free(r);
	r = cpl_url_without_userinfo("https://admin:pw@host:6443/p?q=a@b");
	ck_assert_str_eq(r, "https://host:6443/p?q=a@b");
	free(r);
	r = cpl_url_without_userinfo("https://host:6443");
	ck_assert_str_eq(r, "https://host:6443");
	free(r);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, buffer_and_cap);
	tcase_add_test(tc, buffer_formatting);
	tcase_add_test(tc, string_prefixes);
	tcase_add_test(tc, errors_format);
	tcase_add_test(tc, read_file);
	tcase_add_test(tc, strmap);
	tcase_add_test(tc, strmap_own_keys);
	tcase_add_test(tc, parse_long);
	tcase_add_test(tc, redaction);
	tcase_add_test(tc, control_characters);
	tcase_add_test(tc, durations);
	tcase_add_test(tc, format_like_snprintf);
	suite_add_tcase(s, tc);
	return s;
}

CPL_CHECK_MAIN(suite)
