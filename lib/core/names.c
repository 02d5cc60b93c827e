/* Lists of column names (pm_names) and the "did you mean" of their errors
 * (core/names.h). */
#include "core/names.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

char *pm__strndup(const char *s, size_t len)
{
	char *c = malloc(len + 1);

	if (c) {
		memcpy(c, s, len);
		c[len] = '\0';
	}
	return c;
}

/* The array has room for the least power of two >= n names, with no
 * capacity field in pm_names: it doubles when n reaches one, so n pushes
 * cost linear time whatever realloc does (ASan's copies every time). */
static int is_full(size_t n)
{
	return (n & (n - 1)) == 0;	/* 0 and the powers of two */
}

/* Room for that many, for an array a caller allocated itself (n exactly):
 * 0, or -1 when out of memory (nm unchanged). */
static int fit_room(pm_names *nm)
{
	size_t room = 1;
	char **v;

	while (room < nm->n)
		room *= 2;
	if (!nm->n || room == nm->n)
		return 0;
	if (!(v = realloc(nm->name, room * sizeof(*v))))
		return -1;
	nm->name = v;
	return 0;
}

int pm__names_push(pm_names *nm, const char *s, size_t len)
{
	char *copy = pm__strndup(s, len);
	char **v;

	if (!copy)
		return -1;
	if (is_full(nm->n)) {
		if (nm->n > SIZE_MAX / 2 / sizeof(*v) ||
		    !(v = realloc(nm->name, (nm->n ? 2 * nm->n : 1) * sizeof(*v)))) {
			free(copy);
			return -1;
		}
		nm->name = v;
	}
	nm->name[nm->n++] = copy;
	return 0;
}

/* Drop the names appended after the first n, so a failed call leaves the
 * list as it found it. */
void pm__names_truncate(pm_names *nm, size_t n)
{
	while (nm->n > n)
		free(nm->name[--nm->n]);
	if (nm->n == 0) {
		free(nm->name);
		nm->name = NULL;
	}
}

const char *pm__key_of_names(const void *names, size_t i)
{
	return ((const pm_names *)names)->name[i];
}

int pm__names_index(const pm_names *nm, pm__strindex *x)
{
	return pm__strindex_all(x, nm->n, pm__key_of_names, nm);
}

/* ---- did you mean --------------------------------------------------------- */

static unsigned char lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

enum { MAXSUGGEST = 255 };

/* Case-insensitive Levenshtein distance, or MAXSUGGEST when either string is
 * too long to bother (suggestions are for typos in short names). */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[MAXSUGGEST + 1];

	if (la >= MAXSUGGEST || lb >= MAXSUGGEST)
		return MAXSUGGEST;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (lower((unsigned char)a[i - 1]) !=
					      lower((unsigned char)b[j - 1]));

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

/* A candidate is close when at most 2 edits away and those edits change less
 * than half of the longer name: without the second rule every one-letter name
 * would "match" every other one. */
static int is_close(const char *name, const char *cand, size_t *dist)
{
	size_t la = strlen(name), lb = strlen(cand);
	size_t longer = la > lb ? la : lb;

	*dist = distance(name, cand);
	return *dist <= 2 && *dist * 2 < longer;
}

const char *pm__closest_name(const char *name, size_t n,
			     const char *(*name_at)(const void *ctx, size_t i), const void *ctx)
{
	const char *best = NULL;
	size_t bestd = MAXSUGGEST, d;

	for (size_t i = 0; i < n; i++) {
		const char *cand = name_at(ctx, i);

		if (cand && is_close(name, cand, &d) && d < bestd) {
			best = cand;
			bestd = d;
		}
	}
	return best;
}

static const char *key_at(const void *keys, size_t i)
{
	return ((const char *const *)keys)[i];
}

const char *pm__closest_key(const char *name, const char *const *keys, size_t n)
{
	return pm__closest_name(name, n, key_at, keys);
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

void pm_names_clear(pm_names *names)
{
	if (names)
		pm__names_truncate(names, 0);
}

pm_status pm_names_add_list(pm_names *names, const char *list, pm_error *err)
{
	pm__strindex seen;
	size_t old, i, first;
	const char *p;
	pm_status st = PM_OK;

	if (!names || !list)
		return pm__fail(err, PM_EINVAL, "pm_names_add_list: NULL argument");
	old = names->n;
	/* the names already listed and those of the list, as one index: a
	 * name found in it is a duplicate, and its item says of which kind */
	if (fit_room(names) != 0 || pm__names_index(names, &seen) != 0)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	p = list;
	for (;;) {
		const char *end = strchr(p, ',');
		const char *a = p, *b = end ? end : p + strlen(p);

		while (a < b && is_space(*a))
			a++;
		while (b > a && is_space(b[-1]))
			b--;
		if (a == b) {
			st = pm__fail(err, PM_ESCHEMA, "empty column name in '%s'", list);
			break;
		}
		if (pm__names_push(names, a, (size_t)(b - a)) != 0 ||
		    (first = pm__strindex_add(&seen, i = names->n - 1)) == SIZE_MAX) {
			st = pm__fail(err, PM_ENOMEM, "out of memory");
			break;
		}
		if (first < old) {
			st = pm__fail(err, PM_ESCHEMA, "column '%s' is already listed",
				      names->name[i]);
			break;
		}
		if (first != i) {
			st = pm__fail(err, PM_ESCHEMA, "column '%s' appears twice in '%s'",
				      names->name[i], list);
			break;
		}
		if (!end)
			break;
		p = end + 1;
	}
	pm__strindex_free(&seen);
	if (st)
		pm__names_truncate(names, old);
	return st;
}
