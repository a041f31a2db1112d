/*
 * test_pyarena.c — the maps behind a scanned Python file's index
 * (pyarena.c): every key put is found again with its last value, in its
 * namespace only, after the map grows from empty, after it is reserved
 * and after it is cut to size (each a move of every entry to a new
 * table, by the tag each slot keeps rather than by hashing the key
 * again); keys of different lengths sharing a prefix stay apart; a key
 * hashed once (cpl_pyscan_nmap_key()) finds what each lookup finds;
 * the set of hash bits a map keeps never hides a key it holds.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "python/pyscan_int.h"

#define NKEYS 3000

static char keys[NKEYS][16];

/* Key i: a name that shares its prefix with many others. */
static void
make_keys(void)
{
	int i;

	for (i = 0; i < NKEYS; i++)
		snprintf(keys[i], sizeof(keys[i]), "name%d", i);
}

/* Every key of [0, n) maps to want(i) in namespace ns, and to nothing in
 * namespace ns + 1. */
static void
check_all(const struct nmap *m, int n, int ns, int add)
{
	int i;

	for (i = 0; i < n; i++) {
		ck_assert_int_eq(cpl_pyscan_nmap_get(m, ns, keys[i],
						     strlen(keys[i])),
				 i + add);
		ck_assert_int_eq(cpl_pyscan_nmap_get(m, ns + 1, keys[i],
						     strlen(keys[i])), -1);
	}
}

START_TEST(grown_reserved_and_fitted)
{
	struct nmap m;
	int i;

	make_keys();
	memset(&m, 0, sizeof(m));
	ck_assert_int_eq(cpl_pyscan_nmap_get(&m, 0, "x", 1), -1);
	/* Grown from empty, one doubling at a time. */
	for (i = 0; i < NKEYS; i++)
		cpl_pyscan_nmap_put(&m, 0, keys[i], strlen(keys[i]), i);
	ck_assert_uint_eq(m.n, NKEYS);
	check_all(&m, NKEYS, 0, 0);
	/* Values set again: the count stays, the last value wins, and
	 * cpl_pyscan_nmap_set() gives the value each had. */
	for (i = 0; i < NKEYS; i++)
		ck_assert_int_eq(cpl_pyscan_nmap_set(&m, 0, keys[i],
						     strlen(keys[i]), i + 7),
				 i);
	ck_assert_int_eq(cpl_pyscan_nmap_set(&m, 9, keys[0], strlen(keys[0]),
					     5), -1);
	ck_assert_int_eq(cpl_pyscan_nmap_set(&m, 9, keys[0], strlen(keys[0]),
					     6), 5);
	ck_assert_uint_eq(m.n, NKEYS + 1);
	for (i = 0; i < NKEYS; i++)
		cpl_pyscan_nmap_put(&m, 0, keys[i], strlen(keys[i]), i + 7);
	ck_assert_uint_eq(m.n, NKEYS + 1);
	check_all(&m, NKEYS, 0, 7);
	/* Reserved far beyond, then cut back to size. */
	cpl_pyscan_nmap_reserve(&m, 1u << 16);
	ck_assert_uint_eq(m.cap, 1u << 16);
	check_all(&m, NKEYS, 0, 7);
	cpl_pyscan_nmap_fit(&m);
	ck_assert_uint_lt(m.cap, 1u << 16);
	ck_assert_uint_ge(m.cap * 7, m.n * 10);
	check_all(&m, NKEYS, 0, 7);
	/* Names never put are absent whatever bits the seen set holds:
	 * with 3,000 keys every bit is set, and the probe answers. */
	ck_assert_uint_eq(m.seen, ~(uint64_t)0);
	ck_assert_int_eq(cpl_pyscan_nmap_get(&m, 0, "absent", 6), -1);
	/* A key is a prefix of others: "name1" is not "name10". */
	ck_assert_int_eq(cpl_pyscan_nmap_get(&m, 0, "name10", 5), 1 + 7);
	ck_assert_int_eq(cpl_pyscan_nmap_get(&m, 0, "name", 4), -1);
	cpl_pyscan_nmap_free(&m);
	ck_assert_ptr_null(m.slots);
	ck_assert_uint_eq(m.cap, 0);
}
END_TEST

START_TEST(namespaces_apart)
{
	struct nmap m;
	int i;

	make_keys();
	memset(&m, 0, sizeof(m));
	cpl_pyscan_nmap_reserve(&m, 16);
	for (i = 0; i < 500; i++) {
		cpl_pyscan_nmap_put(&m, 2, keys[i], strlen(keys[i]), i);
		cpl_pyscan_nmap_put(&m, 4, keys[i], strlen(keys[i]), i + 1);
	}
	ck_assert_uint_eq(m.n, 1000);
	check_all(&m, 500, 4, 1);
	/* A key hashed once finds what a lookup hashing it finds, in each
	 * namespace. */
	for (i = 0; i < 500; i++) {
		struct nmap_key key = cpl_pyscan_nmap_key(keys[i],
							  strlen(keys[i]));
		int ns;

		for (ns = 0; ns < 6; ns++)
			ck_assert_int_eq(cpl_pyscan_nmap_get_key(&m, ns, &key),
					 cpl_pyscan_nmap_get(&m, ns, keys[i],
							     strlen(keys[i])));
	}
	for (i = 0; i < 500; i++)
		ck_assert_int_eq(cpl_pyscan_nmap_get(&m, 2, keys[i],
						     strlen(keys[i])), i);
	cpl_pyscan_nmap_fit(&m);
	check_all(&m, 500, 4, 1);
	/* A map of one key answers every other name from its seen set or
	 * its probe alike; the set moves with the entries and goes with
	 * the table. */
	cpl_pyscan_nmap_free(&m);
	ck_assert_uint_eq(m.seen, 0);
	cpl_pyscan_nmap_put(&m, 3, "torch", 5, 1);
	ck_assert_int_eq(cpl_pyscan_nmap_get(&m, 3, "torch", 5), 1);
	for (i = 0; i < 500; i++)
		ck_assert_int_eq(cpl_pyscan_nmap_get(&m, 3, keys[i],
						     strlen(keys[i])), -1);
	cpl_pyscan_nmap_reserve(&m, 4096);
	ck_assert_int_eq(cpl_pyscan_nmap_get(&m, 3, "torch", 5), 1);
	cpl_pyscan_nmap_fit(&m);
	ck_assert_int_eq(cpl_pyscan_nmap_get(&m, 3, "torch", 5), 1);
	/* An empty map fitted holds no table. */
	cpl_pyscan_nmap_free(&m);
	cpl_pyscan_nmap_reserve(&m, 64);
	cpl_pyscan_nmap_fit(&m);
	ck_assert_ptr_null(m.slots);
	ck_assert_int_eq(cpl_pyscan_nmap_get(&m, 0, "name1", 5), -1);
}
END_TEST

static Suite *
pyarena_suite(void)
{
	Suite *s = suite_create("pyarena");
	TCase *tc = tcase_create("maps");

	tcase_add_test(tc, grown_reserved_and_fitted);
	tcase_add_test(tc, namespaces_apart);
	suite_add_tcase(s, tc);
	return s;
}

#include "check_main.h"
CPL_CHECK_MAIN(pyarena_suite)
