/* core/strindex.h — strings found by their text in expected constant time:
 * the one index behind every look-up of a name and every duplicate check
 * (a spec's columns, a model's inputs and levels, a formula's names), so
 * that none of them costs time quadratic in the number of names
 * (docs/reliability.md, "Sizes").
 *
 * The index holds item numbers, not strings: item i's text is key(ctx, i),
 * so one index serves any array (of names, of structs with a name) without
 * a copy of a string. Open addressing with linear probing, at most half
 * full: 2 to 4 slots (one size_t each) per item. The hash has a fixed seed,
 * so every run probes alike; no output depends on the order of the slots. */
#ifndef PM_CORE_STRINDEX_H
#define PM_CORE_STRINDEX_H

#include <stddef.h>

/* Item i's text, NUL-terminated; it must not change while i is in. */
typedef const char *(*pm__key_fn)(const void *ctx, size_t i);

/* { 0 } is an empty index that pm__strindex_free accepts and that finds
 * nothing; pm__strindex_init makes one that items can be added to. */
typedef struct pm__strindex {
	size_t *slot;		/* item + 1; 0: free */
	size_t mask;		/* slots - 1, slots a power of two; 0 with no slots */
	size_t n;		/* items in */
	pm__key_fn key;
	const void *ctx;
} pm__strindex;

/* An empty index of the items key(ctx, i), with room for `expect` of them
 * before it grows (adding those needs no memory): 0, or -1 when out of
 * memory (x is then { 0 }). */
int pm__strindex_init(pm__strindex *x, size_t expect, pm__key_fn key, const void *ctx);
/* An index of the items 0..n-1 (of two equal texts, the first): 0, or -1
 * when out of memory (x is then { 0 }). */
int pm__strindex_all(pm__strindex *x, size_t n, pm__key_fn key, const void *ctx);
/* Frees the slots; x becomes { 0 }. */
void pm__strindex_free(pm__strindex *x);
/* The item whose text is s, or SIZE_MAX. Reads only: any number of threads
 * may look up at once in an index that none changes. */
size_t pm__strindex_find(const pm__strindex *x, const char *s);
/* Puts item i in, unless an item of the same text is in already: returns i
 * when added, that earlier item when not (the index unchanged), or SIZE_MAX
 * when growing failed for want of memory (the index as it was). */
size_t pm__strindex_add(pm__strindex *x, size_t i);

/* The hash of s that picks its slot (hash & mask): fixed, no seed. */
size_t pm__strhash(const char *s);

/* An array of strings, for key: ctx is the array (const char *const *). */
const char *pm__key_of_array(const void *ctx, size_t i);

#endif
