/* Many reads of one CUBE profile set, one per call path × metric (perfmodel
 * batch --each-region), from one pass over its profiles: parsing every
 * profile again for each pair costs more than the fits (docs/batch.md
 * measures it). The cache holds each pair's runs as read, before any
 * aggregation, so a read through it makes the dataset a read of the files
 * would (lib/ingest/ingest.c). Read-only once made: threads may share it. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"
#include "core/read_file.h"
#include "ingest/ingest_impl.h"

struct pm_read_cache {
	char *path;
	int inclusive;
	pm_cube_scaling scaling;
	size_t n;
	char **region, **metric;
	pm_dataset **runs;	/* per pair; NULL: err[k] says why */
	pm_error *err;
	struct entry *sorted;	/* the pairs by (region, metric) */
};

struct entry {
	const char *region, *metric;
	size_t k;
};

static int pair_cmp(const struct entry *e, const char *region, const char *metric)
{
	int d = strcmp(e->region, region);

	return d ? d : strcmp(e->metric, metric);
}

static int sort_cmp(const void *a, const void *b)
{
	const struct entry *y = b;

	return pair_cmp(a, y->region, y->metric);
}

void pm_read_cache_free(pm_read_cache *c)
{
	if (!c)
		return;
	for (size_t k = 0; k < c->n; k++) {
		free(c->region[k]);
		free(c->metric[k]);
		pm_dataset_free(c->runs ? c->runs[k] : NULL);
	}
	free(c->path);
	free(c->region);
	free(c->metric);
	free(c->runs);
	free(c->err);
	free(c->sorted);
	free(c);
}

/* Whether path is a folder (a set), else a CUBE profile: a tar archive, as
 * pm_dataset_read tells it by content. */
static pm_status cube_at(const char *path, int *folder, pm_error *err)
{
	struct stat st;
	char *text;
	size_t len;
	pm_status rc;
	int tar;

	*folder = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
	if (*folder)
		return PM_OK;
	if ((rc = pm__read_file(path, &text, &len, err)))
		return rc;
	tar = pm__is_tar(text, len);
	free(text);
	return tar ? PM_OK : pm__fail_at(err, PM_EINVAL, path, 0, 0, "a read cache holds CUBE "
					 "profiles: not a tar archive");
}

pm_status pm_read_cache_new(const char *path, const pm_read_options *o, const pm_region_list *l,
			    pm_read_cache **out, pm_error *err)
{
	const pm_read_options dflt = { 0 };
	pm_read_cache *c;
	int folder;
	pm_status rc;

	if (!out)
		return pm__fail(err, PM_EINVAL, "pm_read_cache_new: out is NULL");
	*out = NULL;
	if (!path || !l)
		return pm__fail(err, PM_EINVAL, "pm_read_cache_new: no %s", path ? "pairs" : "path");
	if (!o)
		o = &dflt;
	if (o->format != PM_FORMAT_AUTO && o->format != PM_FORMAT_CUBE)
		return pm__fail(err, PM_EINVAL, "a read cache holds CUBE profiles: not another "
				"format");
	if ((rc = cube_at(path, &folder, err)))
		return rc;
	if (!(c = calloc(1, sizeof(*c))))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	c->inclusive = o->inclusive;
	c->scaling = o->scaling;
	c->n = l->n;
	c->path = strdup(path);
	c->region = calloc(l->n + 1, sizeof(*c->region));
	c->metric = calloc(l->n + 1, sizeof(*c->metric));
	c->runs = calloc(l->n + 1, sizeof(*c->runs));
	c->err = calloc(l->n + 1, sizeof(*c->err));
	c->sorted = malloc((l->n + 1) * sizeof(*c->sorted));
	rc = c->path && c->region && c->metric && c->runs && c->err && c->sorted ? PM_OK
	     : pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t k = 0; k < l->n && !rc; k++) {
		c->region[k] = strdup(l->region[k]);
		c->metric[k] = strdup(l->metric[k]);
		c->sorted[k] = (struct entry){ c->region[k], c->metric[k], k };
		if (!c->region[k] || !c->metric[k])
			rc = pm__fail(err, PM_ENOMEM, "out of memory");
	}
	if (!rc)
		rc = pm__read_cube_pairs(path, folder, o, l->n,
					 (const char *const *)c->region,
					 (const char *const *)c->metric, c->runs, c->err, err);
	if (rc) {
		pm_read_cache_free(c);
		return rc;
	}
	qsort(c->sorted, c->n, sizeof(*c->sorted), sort_cmp);
	*out = c;
	return PM_OK;
}

/* The pair o asks for, read from path as c was made: its index, else
 * SIZE_MAX (the files are read instead). */
static size_t find(const pm_read_cache *c, const char *path, const pm_read_options *o)
{
	size_t lo = 0, hi = c->n;

	if (strcmp(c->path, path) || !o->region || !o->metric || o->inclusive != c->inclusive ||
	    o->scaling != c->scaling || (o->format && o->format != PM_FORMAT_CUBE))
		return SIZE_MAX;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = pair_cmp(&c->sorted[mid], o->region, o->metric);

		if (!d)
			return c->sorted[mid].k;
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

int pm__read_cache_holds(const char *path, const pm_read_options *o)
{
	return o && o->cache && find(o->cache, path, o) != SIZE_MAX;
}

pm_status pm__read_cache_take(const char *path, const pm_read_options *o, pm_dataset **out,
			      pm_error *err)
{
	size_t k = find(o->cache, path, o), n;
	const pm_dataset *d = o->cache->runs[k];
	size_t *rows;
	pm_status rc;

	*out = NULL;
	if (!d) {
		if (err)
			*err = o->cache->err[k];
		return o->cache->err[k].code ? o->cache->err[k].code : PM_ESCHEMA;
	}
	n = pm_dataset_nrows(d);
	if (!(rows = malloc((n + 1) * sizeof(*rows))))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t r = 0; r < n; r++)
		rows[r] = r;
	/* a copy: the caller owns and may change what it reads */
	rc = pm_dataset_subset(d, rows, n, out, err);
	free(rows);
	return rc;
}
