/* A batch's jobs in two orders (perfmodel/batch.h): by id, which a result
 * is matched to its job by (duplicates, --resume), and most costly first,
 * the order to hand them out in so that a long job does not start last.
 * The sorts carry their keys with them: nothing global, any thread. */
#include <stdlib.h>
#include <string.h>

#include "batch/batch_impl.h"
#include "core/error.h"

int pm__batch_id_cmp(const pm_batch_id *a, const pm_batch_id *b)
{
	if (!a->text != !b->text)
		return a->text ? 1 : -1;
	if (a->text)
		return strcmp(a->text, b->text);
	return (a->number > b->number) - (a->number < b->number);
}

/* A job as the sorts see it. */
struct key {
	const struct pm__job *job;
	size_t index;
};

static int by_id(const void *x, const void *y)
{
	const struct key *a = x, *b = y;
	int c = pm__batch_id_cmp(&a->job->id, &b->job->id);

	return c ? c : (a->job->line > b->job->line) - (a->job->line < b->job->line);
}

static int by_size(const void *x, const void *y)
{
	const struct key *a = x, *b = y;

	/* larger first; ties in job order, so that the order is one */
	if (a->job->size != b->job->size)
		return a->job->size < b->job->size ? 1 : -1;
	return (a->index > b->index) - (a->index < b->index);
}

/* The jobs of b that pass keep (NULL: all) sorted by cmp, as indices. */
static pm_status sorted(const pm_batch *b, int (*keep)(const pm_batch *, const void *, size_t),
			const void *arg, int (*cmp)(const void *, const void *), size_t **ix,
			size_t *n, pm_error *err)
{
	struct key *k = malloc((b->n + 1) * sizeof(*k));

	*n = 0;
	*ix = malloc((b->n + 1) * sizeof(**ix));
	if (!k || !*ix) {
		free(k);
		free(*ix);
		*ix = NULL;
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < b->n; i++)
		if (keep(b, arg, i))
			k[(*n)++] = (struct key){ &b->job[i], i };
	qsort(k, *n, sizeof(*k), cmp);
	for (size_t i = 0; i < *n; i++)
		(*ix)[i] = k[i].index;
	free(k);
	return PM_OK;
}

static int has_id(const pm_batch *b, const void *arg, size_t i)
{
	(void)arg;
	return b->job[i].id.given;
}

pm_status pm__batch_by_id(const pm_batch *b, size_t **ix, size_t *n, pm_error *err)
{
	return sorted(b, has_id, NULL, by_id, ix, n, err);
}

size_t pm__batch_find_id(const pm_batch *b, const size_t *ix, size_t n, const pm_batch_id *want)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = pm__batch_id_cmp(&b->job[ix[mid]].id, want);

		if (c == 0)
			return ix[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return b->n;
}

pm_status pm__batch_check_ids(const pm_batch *b, pm_error *err)
{
	size_t n, *ix;
	pm_status st = pm__batch_by_id(b, &ix, &n, err);

	for (size_t k = 1; !st && k < n; k++) {
		const struct pm__job *a = &b->job[ix[k - 1]], *c = &b->job[ix[k]];

		if (pm__batch_id_cmp(&a->id, &c->id))
			continue;
		if (a->id.text)
			st = pm__fail_at(err, PM_EINVAL, b->path, c->line, 0, "id \"%s\" is also line "
					 "%u's: ids must be unique", c->id.text, a->line);
		else
			st = pm__fail_at(err, PM_EINVAL, b->path, c->line, 0, "id %lld is also line "
					 "%u's: ids must be unique", c->id.number, a->line);
	}
	free(ix);
	return st;
}

static int to_run(const pm_batch *b, const void *done, size_t i)
{
	(void)b;
	return !done || !((const unsigned char *)done)[i];
}

pm_status pm__batch_by_size(const pm_batch *b, const unsigned char *done, size_t **order,
			    size_t *n, pm_error *err)
{
	return sorted(b, to_run, done, by_size, order, n, err);
}
