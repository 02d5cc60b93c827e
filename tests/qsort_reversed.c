/* An LD_PRELOAD qsort that orders the elements the comparator calls equal
 * the other way round from glibc 2.36's (a stable merge sort): a stable
 * sort of the indices, equal elements last to first. C leaves their order
 * to the library, and other C libraries (or glibc versions) give another:
 * tests/qsort_ties.sh runs perfmodel with it and without, and their
 * outputs must be the same bytes. Not under a sanitizer (whose runtime
 * must come first). */
#include <stdlib.h>
#include <string.h>

static void sort(size_t *ix, size_t *tmp, size_t n, const char *base, size_t size,
		 int (*cmp)(const void *, const void *))
{
	size_t half = n / 2, i = 0, j = half, k = 0;

	if (n < 2)
		return;
	sort(ix, tmp, half, base, size, cmp);
	sort(ix + half, tmp, n - half, base, size, cmp);
	while (i < half && j < n) {
		int c = cmp(base + ix[i] * size, base + ix[j] * size);

		/* equal: the later element first */
		tmp[k++] = c < 0 || (c == 0 && ix[i] > ix[j]) ? ix[i++] : ix[j++];
	}
	while (i < half)
		tmp[k++] = ix[i++];
	while (j < n)
		tmp[k++] = ix[j++];
	memcpy(ix, tmp, n * sizeof(*ix));
}

void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	size_t *ix = malloc(2 * n * sizeof(*ix) + 1);
	char *copy = malloc(n * size + 1);

	if (!ix || !copy)
		abort();	/* a test's helper: no fallback to another order */
	for (size_t k = 0; k < n; k++)
		ix[k] = k;
	sort(ix, ix + n, n, base, size, cmp);
	memcpy(copy, base, n * size);
	for (size_t k = 0; k < n; k++)
		memcpy((char *)base + k * size, copy + ix[k] * size, size);
	free(ix);
	free(copy);
}
