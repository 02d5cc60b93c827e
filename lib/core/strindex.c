/* A hash index of strings by their text (core/strindex.h). */
#include "core/strindex.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* 64-bit FNV-1a, then MurmurHash3's finaliser: FNV's low bits, which pick
 * the slot, depend on the low bits of every step only; the finaliser mixes
 * the high ones in, so that names like x1..x200000 spread evenly. */
size_t pm__strhash(const char *s)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= UINT64_C(0x100000001b3);
	}
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64_C(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return (size_t)h;
}

/* The slot of text s: the one holding it, or the free one where it goes. */
static size_t probe(const pm__strindex *x, const char *s)
{
	size_t h = pm__strhash(s) & x->mask;

	while (x->slot[h] && strcmp(x->key(x->ctx, x->slot[h] - 1), s) != 0)
		h = (h + 1) & x->mask;
	return h;
}

/* The slots for `items` at most half full: a power of two, or 0 when that
 * many could not be addressed. */
static size_t slots_for(size_t items)
{
	size_t n = 8;

	while (n / 2 < items) {
		if (n > SIZE_MAX / 2 / sizeof(size_t))
			return 0;
		n *= 2;
	}
	return n;
}

/* Moves x's items into nslot slots: 0, or -1 (x unchanged) out of memory. */
static int rehash(pm__strindex *x, size_t nslot)
{
	pm__strindex y = *x;

	y.slot = nslot ? calloc(nslot, sizeof(*y.slot)) : NULL;
	if (!y.slot)
		return -1;
	y.mask = nslot - 1;
	for (size_t h = 0; x->slot && h <= x->mask; h++)
		if (x->slot[h])
			y.slot[probe(&y, x->key(x->ctx, x->slot[h] - 1))] = x->slot[h];
	free(x->slot);
	*x = y;
	return 0;
}

int pm__strindex_init(pm__strindex *x, size_t expect, pm__key_fn key, const void *ctx)
{
	*x = (pm__strindex){ .key = key, .ctx = ctx };
	if (rehash(x, slots_for(expect)) != 0) {
		*x = (pm__strindex){ 0 };
		return -1;
	}
	return 0;
}

int pm__strindex_all(pm__strindex *x, size_t n, pm__key_fn key, const void *ctx)
{
	if (pm__strindex_init(x, n, key, ctx) != 0)
		return -1;
	/* with room for n made, adding needs no memory */
	for (size_t i = 0; i < n; i++)
		pm__strindex_add(x, i);
	return 0;
}

void pm__strindex_free(pm__strindex *x)
{
	free(x->slot);
	*x = (pm__strindex){ 0 };
}

size_t pm__strindex_find(const pm__strindex *x, const char *s)
{
	size_t h;

	if (!x->slot)
		return SIZE_MAX;
	h = probe(x, s);
	return x->slot[h] ? x->slot[h] - 1 : SIZE_MAX;
}

size_t pm__strindex_add(pm__strindex *x, size_t i)
{
	const char *s = x->key(x->ctx, i);
	size_t h = probe(x, s);

	if (x->slot[h])
		return x->slot[h] - 1;
	if ((x->n + 1) * 2 > x->mask + 1) {
		if (rehash(x, slots_for(x->n + 1)) != 0)
			return SIZE_MAX;
		h = probe(x, s);
	}
	x->slot[h] = i + 1;
	x->n++;
	return i;
}

const char *pm__key_of_array(const void *ctx, size_t i)
{
	return ((const char *const *)ctx)[i];
}
