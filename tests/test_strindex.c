/* The string index behind every name look-up and duplicate check
 * (core/strindex.h): found by text, the earlier of two equal texts kept,
 * collisions, growth, and out of memory leaving the index as it was. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_fail.h"
#include "leak_check.h"
#include "core/strindex.h"

PM_LEAK_CHECKED_SUITE(strindex);

Test(strindex, empty_index_finds_nothing)
{
	static const char *const none[] = { "" };
	pm__strindex zero = { 0 }, x;

	cr_assert_eq(pm__strindex_find(&zero, "a"), SIZE_MAX);
	pm__strindex_free(&zero);
	cr_assert_eq(pm__strindex_init(&x, 0, pm__key_of_array, none), 0);
	cr_assert_eq(x.n, 0);
	cr_assert_eq(pm__strindex_find(&x, ""), SIZE_MAX);
	cr_assert_eq(pm__strindex_find(&x, "a"), SIZE_MAX);
	pm__strindex_free(&x);
	cr_assert_null(x.slot);
	cr_assert_eq(pm__strindex_find(&x, ""), SIZE_MAX);
}

Test(strindex, a_text_twice_answers_the_first_item)
{
	static const char *const name[] = { "n", "", "nn", "n", "N", "", "n " };
	pm__strindex x;

	cr_assert_eq(pm__strindex_init(&x, 2, pm__key_of_array, name), 0);
	cr_assert_eq(pm__strindex_add(&x, 0), 0);
	cr_assert_eq(pm__strindex_add(&x, 1), 1);	/* "" is a text like any */
	cr_assert_eq(pm__strindex_add(&x, 2), 2);	/* a prefix is not the same */
	cr_assert_eq(pm__strindex_add(&x, 3), 0);
	cr_assert_eq(pm__strindex_add(&x, 4), 4);	/* case matters */
	cr_assert_eq(pm__strindex_add(&x, 5), 1);
	cr_assert_eq(pm__strindex_add(&x, 6), 6);
	cr_assert_eq(x.n, 5, "the duplicates stay out: %zu in", x.n);
	cr_assert_eq(pm__strindex_find(&x, "n"), 0);
	cr_assert_eq(pm__strindex_find(&x, ""), 1);
	cr_assert_eq(pm__strindex_find(&x, "N"), 4);
	cr_assert_eq(pm__strindex_find(&x, "n "), 6);
	cr_assert_eq(pm__strindex_find(&x, "nnn"), SIZE_MAX);
	pm__strindex_free(&x);
}

Test(strindex, all_items_at_once)
{
	static const char *const name[] = { "b", "a", "b", "c", "a" };
	pm__strindex x;

	cr_assert_eq(pm__strindex_all(&x, 5, pm__key_of_array, name), 0);
	cr_assert_eq(x.n, 3);
	cr_assert_eq(pm__strindex_find(&x, "b"), 0, "of two equal texts, the first");
	cr_assert_eq(pm__strindex_find(&x, "a"), 1);
	cr_assert_eq(pm__strindex_find(&x, "c"), 3);
	pm__strindex_free(&x);
	cr_assert_eq(pm__strindex_all(&x, 0, pm__key_of_array, name), 0);
	cr_assert_eq(pm__strindex_find(&x, "b"), SIZE_MAX);
	pm__strindex_free(&x);
}

/* Texts whose hashes pick the same one of 8 slots, found by trying. */
static void colliding(char (*out)[16], size_t n)
{
	size_t want = pm__strhash("k0") & 7, k = 0;

	for (unsigned t = 0; k < n; t++) {
		char s[16];

		snprintf(s, sizeof(s), "k%u", t);
		if ((pm__strhash(s) & 7) == want)
			memcpy(out[k++], s, sizeof(s));
		cr_assert_lt(t, 100000u, "no collisions found");
	}
}

static const char *key_of_rows(const void *ctx, size_t i)
{
	return ((const char (*)[16])ctx)[i];
}

Test(strindex, colliding_texts_each_found)
{
	char key[5][16];
	pm__strindex x;

	colliding(key, 5);
	/* 8 slots: four items fit unmoved, all probing from the same slot */
	cr_assert_eq(pm__strindex_init(&x, 4, key_of_rows, key), 0);
	cr_assert_eq(x.mask, 7);
	for (size_t i = 0; i < 4; i++)
		cr_assert_eq(pm__strindex_add(&x, i), i, "%s", key[i]);
	cr_assert_eq(x.mask, 7, "no growth yet");
	for (size_t i = 0; i < 4; i++) {
		cr_assert_eq(pm__strindex_find(&x, key[i]), i, "%s", key[i]);
		cr_assert_eq(pm__strindex_add(&x, i), i);
	}
	cr_assert_eq(pm__strindex_find(&x, key[4]), SIZE_MAX, "%s is not in", key[4]);
	/* the fifth grows the index: every item is found in the new slots */
	cr_assert_eq(pm__strindex_add(&x, 4), 4);
	cr_assert_eq(x.mask, 15);
	for (size_t i = 0; i < 5; i++)
		cr_assert_eq(pm__strindex_find(&x, key[i]), i, "%s", key[i]);
	pm__strindex_free(&x);
}

Test(strindex, many_items_grow_from_nothing)
{
	enum { N = 200000 };
	char (*key)[16] = malloc(N * sizeof(*key));
	pm__strindex x;
	char s[16];

	cr_assert_not_null(key);
	for (size_t i = 0; i < N; i++)
		snprintf(key[i], sizeof(key[i]), "x%zu", i);
	cr_assert_eq(pm__strindex_init(&x, 0, key_of_rows, key), 0);
	for (size_t i = 0; i < N; i++)
		cr_assert_eq(pm__strindex_add(&x, i), i, "%s", key[i]);
	cr_assert_eq(x.n, N);
	cr_assert_geq(x.mask + 1, 2 * (size_t)N, "at most half full");
	cr_assert_leq(x.mask + 1, 4 * (size_t)N, "at most 4 slots an item");
	for (size_t i = 0; i < N; i++)
		cr_assert_eq(pm__strindex_find(&x, key[i]), i, "%s", key[i]);
	for (size_t i = 0; i < 1000; i++) {
		snprintf(s, sizeof(s), "y%zu", i);
		cr_assert_eq(pm__strindex_find(&x, s), SIZE_MAX, "%s", s);
	}
	pm__strindex_free(&x);
	free(key);
}

Test(strindex, too_large_to_address_is_out_of_memory)
{
	static const char *const name[] = { "a" };
	pm__strindex x;

	cr_assert_eq(pm__strindex_init(&x, SIZE_MAX / 2, pm__key_of_array, name), -1);
	cr_assert_null(x.slot);
	cr_assert_eq(x.n, 0);
	cr_assert_eq(pm__strindex_find(&x, "a"), SIZE_MAX);
	pm__strindex_free(&x);
}

#ifndef NO_ALLOC_HOOK
Test(strindex, out_of_memory_leaves_the_index_as_it_was)
{
	static const char *const name[] = { "a", "b", "c", "d", "e", "f" };
	pm__strindex x;
	int rc;

	alloc_arm(0);
	rc = pm__strindex_init(&x, 0, pm__key_of_array, name);
	armed = 0;
	cr_assert_eq(rc, -1);
	cr_assert_null(x.slot);
	cr_assert_eq(pm__strindex_init(&x, 0, pm__key_of_array, name), 0);
	for (size_t i = 0; i < 4; i++)
		cr_assert_eq(pm__strindex_add(&x, i), i);
	/* the fifth needs more slots */
	alloc_arm(0);
	cr_assert_eq(pm__strindex_add(&x, 4), SIZE_MAX);
	cr_assert_eq(pm__strindex_add(&x, 0), 0, "a duplicate needs no memory");
	armed = 0;
	cr_assert_eq(live, 0);
	cr_assert_eq(x.n, 4);
	cr_assert_eq(x.mask, 7);
	for (size_t i = 0; i < 4; i++)
		cr_assert_eq(pm__strindex_find(&x, name[i]), i);
	cr_assert_eq(pm__strindex_find(&x, "e"), SIZE_MAX);
	cr_assert_eq(pm__strindex_add(&x, 4), 4);
	cr_assert_eq(pm__strindex_add(&x, 5), 5);
	cr_assert_eq(pm__strindex_find(&x, "e"), 4);
	pm__strindex_free(&x);
	alloc_arm(0);
	rc = pm__strindex_all(&x, 6, pm__key_of_array, name);
	armed = 0;
	cr_assert_eq(rc, -1);
	cr_assert_null(x.slot);
	cr_assert_eq(live, 0, "nothing left allocated");
}
#endif
