/* CUBE4 profiles (.cubex), as Score-P writes them and pycubexr (Extra-P's
 * reader) reads them: a POSIX tar archive of
 * - anchor.xml, plain or gzip: <metrics> (nested <metric id type> with
 *   <uniq_name> and <dtype>), <program> (<region id> with <name>, nested
 *   <cnode id calleeId>: the call tree), <system> (its <location>s);
 * - per metric with data, <id>.index: "CUBEX.INDEX", the int32 1 in the
 *   writer's byte order (which the data share), a 2-byte version, a 1-byte
 *   index type, an int32 count n and n int32 tree indices: the call nodes
 *   that have a row of data, in the order of the rows;
 * - and <id>.data: "CUBEX.DATA" and n rows of one value per location, or
 *   "ZCUBEX.DATA", an int64 count of chunks, per chunk three int64 (its
 *   place in the raw data, its place after the chunk table, its compressed
 *   size), then the zlib chunks.
 * A tree index is the call node's place in the call tree: in preorder for
 * an EXCLUSIVE metric, and for an INCLUSIVE one in the order in which a
 * preorder walk numbers each node's children together (pycubexr's
 * _deep_enumeration and _wide_enumeration). Call nodes without a row are 0.
 * Nothing in the file is trusted: every size and index is checked against
 * the bytes there are. The archive's members are cube_archive.c's to find,
 * anchor.xml is cube_anchor.c's to read; here, the values. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "ingest/cube_impl.h"

#ifdef PM_HAVE_CUBE
/* ---- the profile ---------------------------------------------------------- */

static void free_data(pm_cube *c);

void pm__cube_free(pm_cube *c)
{
	if (!c)
		return;
	free_data(c);
	for (size_t i = 0; i < c->nmetric; i++) {
		free(c->metric[i].name);
		free(c->metric[i].dtype);
	}
	for (size_t i = 0; i < c->nregion; i++)
		free(c->region_name[i]);
	free(c->metric);
	free(c->region_name);
	pm__strindex_free(&c->metric_by_name);
	free(c->by_path);
	free(c->cnode);
	free(c->children);
	free(c);
}

pm_status pm__cube_parse(const unsigned char *buf, size_t len, const char *name,
			 const volatile sig_atomic_t *stop, pm_cube **out, pm_error *err)
{
	pm_cube *c = calloc(1, sizeof(*c));
	const unsigned char *a;
	size_t alen;
	pm_status rc;

	*out = NULL;
	if (!c)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	*c = (pm_cube){ .name = name, .buf = buf, .len = len, .stop = stop };
	if ((rc = pm__cube_tar_find(c, "anchor.xml", &a, &alen, err)))
		goto out;
	if (!a) {
		rc = pm__fail_at(err, PM_ESCHEMA, name, 0, 0, "no anchor.xml in the archive: not a "
				 "CUBE profile");
		goto out;
	}
	rc = pm__cube_anchor(c, a, alen, err);
out:
	if (rc)
		pm__cube_free(c);
	else
		*out = c;
	return rc;
}

/* A value type of the data: its size, and how it reads. */
struct dtype {
	const char *name;
	unsigned char size, kind;	/* kind: 'f' double, 's' signed, 'u' unsigned */
};
static const struct dtype dtypes[] = {
	{ "DOUBLE", 8, 'f' }, { "FLOAT", 8, 'f' }, { "MINDOUBLE", 8, 'f' },
	{ "MAXDOUBLE", 8, 'f' }, { "INT8", 1, 's' }, { "UINT8", 1, 'u' }, { "CHAR", 1, 'u' },
	{ "INT16", 2, 's' }, { "SHORT INT", 2, 's' }, { "SIGNED SHORT INT", 2, 's' },
	{ "UINT16", 2, 'u' }, { "UNSIGNED SHORT INT", 2, 'u' }, { "INT32", 4, 's' },
	{ "INT", 4, 's' }, { "SIGNED INT", 4, 's' }, { "UINT32", 4, 'u' },
	{ "UNSIGNED INT", 4, 'u' }, { "INT64", 8, 's' }, { "INTEGER", 8, 's' },
	{ "SIGNED INTEGER", 8, 's' }, { "UINT64", 8, 'u' }, { "UNSIGNED INTEGER", 8, 'u' },
};

static uint64_t load(const unsigned char *p, size_t n, int big)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[big ? i : n - 1 - i] << (8 * (n - 1 - i));
	return v;
}

static double value(const unsigned char *p, const struct dtype *t, int big)
{
	uint64_t v = load(p, t->size, big);
	double d;

	if (t->kind == 'f') {
		memcpy(&d, &v, sizeof(d));
		return d;
	}
	if (t->kind == 'u')
		return (double)v;
	/* sign-extend */
	if (t->size < 8 && (v >> (8 * t->size - 1)) & 1)
		v |= ~(uint64_t)0 << (8 * t->size);
	return (double)(int64_t)v;
}

/* One metric's data: each call node's row (SIZE_MAX: none, 0) of nloc values. */
struct pm_cube_data {
	const struct dtype *t;
	int big;
	size_t *row;		/* per call node */
	unsigned char *raw;	/* rows * nloc values */
	size_t nrows;
};

static void free_data(pm_cube *c)
{
	for (size_t i = 0; c->data && i < c->nmetric; i++) {
		free(c->data[i].row);
		free(c->data[i].raw);
	}
	free(c->data);
}

/* The tree index -> call node maps (pycubexr's enumerations). */
static void enumerate(const pm_cube *c, int inclusive_order, size_t *node)
{
	size_t ctr = 0, top = 0, *stack;

	if (!inclusive_order) {
		for (size_t i = 0; i < c->ncnode; i++)
			node[i] = i;	/* preorder is document order */
		return;
	}
	stack = node + c->ncnode;	/* the caller gave room for both */
	for (size_t r = 0; r < c->ncnode; r++) {
		if (c->cnode[r].parent != SIZE_MAX)
			continue;
		node[ctr++] = r;
		stack[top++] = r;
		while (top) {
			const struct pm_cube_cnode *n = &c->cnode[stack[--top]];

			for (size_t k = 0; k < n->nchild; k++)
				node[ctr++] = c->children[n->child + k];
			for (size_t k = n->nchild; k-- > 0;)
				stack[top++] = c->children[n->child + k];
		}
	}
}

static pm_status read_index(const pm_cube *c, const struct pm_cube_metric *m, struct pm_cube_data *d,
			    pm_error *err)
{
	char file[48];
	const unsigned char *p;
	size_t n, *node;
	uint64_t count;
	pm_status rc;

	snprintf(file, sizeof(file), "%ld.index", m->id);
	if ((rc = pm__cube_tar_find(c, file, &p, &n, err)))
		return rc;
	if (!p)
		return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "metric '%s' has no data in the "
				   "profile (no %s; Extra-P skips such metrics)", m->name, file);
	if (n < 22 || memcmp(p, "CUBEX.INDEX", 11))
		return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "%s: no CUBEX.INDEX header", file);
	if (load(p + 11, 4, 0) == 1)
		d->big = 0;
	else if (load(p + 11, 4, 1) == 1)
		d->big = 1;
	else
		return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "%s: no byte-order mark (the "
				   "number 1)", file);
	count = load(p + 18, 4, d->big);
	if ((n - 22) % 4 || count != (n - 22) / 4)
		return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "%s: %llu indices in %zu bytes",
				   file, (unsigned long long)count, n - 22);
	d->nrows = (size_t)count;
	node = malloc(2 * (c->ncnode + 1) * sizeof(*node));
	d->row = malloc((c->ncnode + 1) * sizeof(*d->row));
	if (!node || !d->row) {
		free(node);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	enumerate(c, m->type == PM_CUBE_INCLUSIVE, node);
	for (size_t i = 0; i < c->ncnode; i++)
		d->row[i] = SIZE_MAX;
	for (size_t r = 0; r < d->nrows; r++) {
		uint64_t t = load(p + 22 + 4 * r, 4, d->big);

		if (t >= c->ncnode || d->row[node[t]] != SIZE_MAX) {
			free(node);
			return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "%s: index %llu is no call "
					   "node (of %zu) or comes twice", file, (unsigned long long)t,
					   c->ncnode);
		}
		d->row[node[t]] = r;
	}
	free(node);
	return PM_OK;
}

static pm_status read_data(const pm_cube *c, const struct pm_cube_metric *m, struct pm_cube_data *d,
			   pm_error *err)
{
	char file[48];
	const unsigned char *p;
	size_t n, want, head;
	uint64_t chunks;
	pm_status rc;

	snprintf(file, sizeof(file), "%ld.data", m->id);
	if ((rc = pm__cube_tar_find(c, file, &p, &n, err)))
		return rc;
	if (!p)
		return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "metric '%s': no %s", m->name,
				   file);
	/* rows * nloc * size, which the bytes there are bound */
	if (d->nrows && c->nloc > SIZE_MAX / d->nrows / d->t->size)
		return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "%s: too large", file);
	want = d->nrows * c->nloc * d->t->size;
	if (n >= 10 && !memcmp(p, "CUBEX.DATA", 10)) {
		if (n - 10 != want)
			return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "%s: %zu bytes of values, "
					   "but %zu call nodes x %zu locations x %u bytes", file,
					   n - 10, d->nrows, c->nloc, d->t->size);
		d->raw = malloc(want + 1);
		if (!d->raw)
			return pm__fail(err, PM_ENOMEM, "out of memory");
		memcpy(d->raw, p + 10, want);
		return PM_OK;
	}
	if (n < 19 || memcmp(p, "ZCUBEX.DATA", 11))
		return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "%s: no CUBEX.DATA header", file);
	chunks = load(p + 11, 8, d->big);
	if (chunks > (n - 19) / 24)
		return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "%s: %llu chunks in %zu bytes",
				   file, (unsigned long long)chunks, n);
	head = 19 + 24 * (size_t)chunks;
	if (want / PM_CUBE_MAX_RATIO > n)
		return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "%s: %zu bytes of values cannot "
				   "come from %zu compressed", file, want, n);
	if (!(d->raw = calloc(want + 1, 1)))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t k = 0; k < chunks; k++) {
		const unsigned char *e = p + 19 + 24 * k;
		uint64_t at = load(e, 8, d->big), from = load(e + 8, 8, d->big),
			 size = load(e + 16, 8, d->big);
		size_t got;

		if (!size)
			continue;
		if (from > n - head || size > n - head - from || at > want)
			return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "%s: chunk %zu lies outside "
					   "the file or the values", file, k);
		if ((rc = pm__cube_inflate(c, p + head + from, (size_t)size, d->raw + at,
				       want - (size_t)at, &got, file, err)))
			return rc;
	}
	return PM_OK;
}

/* Whether call node i's path is want[0, n): its region's name last, its
 * parent's path before "->". */
static int path_is(const pm_cube *c, size_t i, const char *want, size_t n)
{
	for (;;) {
		const char *name = c->region_name[c->cnode[i].region];
		size_t k = strlen(name);

		if (k > n || memcmp(want + n - k, name, k))
			return 0;
		n -= k;
		if (c->cnode[i].parent == SIZE_MAX)
			return n == 0;
		if (n < 2 || memcmp(want + n - 2, "->", 2))
			return 0;
		n -= 2;
		i = c->cnode[i].parent;
	}
}

/* Call node i's path, cut to fit buf. */
static void path_of(const pm_cube *c, size_t i, char *buf, size_t size)
{
	size_t up = c->cnode[i].parent;
	size_t at;

	buf[0] = '\0';
	if (up != SIZE_MAX) {
		path_of(c, up, buf, size);
		at = strlen(buf);
		snprintf(buf + at, size - at, "->");
	}
	at = strlen(buf);
	snprintf(buf + at, size - at, "%s", c->region_name[c->cnode[i].region]);
}

/* row's values (or 0s) added to v (sign -1: subtracted). */
static void add_row(const pm_cube *c, const struct pm_cube_data *d, size_t node, double sign, double *v)
{
	size_t r = d->row[node];

	if (r == SIZE_MAX)
		return;
	for (size_t l = 0; l < c->nloc; l++)
		v[l] += sign * value(d->raw + (r * c->nloc + l) * d->t->size, d->t, d->big);
}

/* The inclusive value of node from an exclusively stored metric: its
 * subtree's sum (iteratively: a deep tree must not overflow the stack). */
static pm_status subtree(const pm_cube *c, const struct pm_cube_data *d, size_t node, double *v,
			 pm_error *err)
{
	size_t *stack = malloc((c->ncnode + 1) * sizeof(*stack)), top = 0;

	if (!stack)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	stack[top++] = node;
	while (top) {
		const struct pm_cube_cnode *n = &c->cnode[stack[--top]];

		add_row(c, d, (size_t)(n - c->cnode), 1, v);
		for (size_t k = 0; k < n->nchild; k++)
			stack[top++] = c->children[n->child + k];
	}
	free(stack);
	return PM_OK;
}

static pm_status node_values(const pm_cube *c, const struct pm_cube_metric *m, const struct pm_cube_data *d,
			     size_t node, int inclusive, double *v, pm_error *err)
{
	const struct pm_cube_cnode *n = &c->cnode[node];

	/* a minimum or maximum does not add up: as stored */
	if (m->type == PM_CUBE_INCLUSIVE || m->type == PM_CUBE_EXCLUSIVE) {
		int minmax = !strcmp(m->dtype, "MINDOUBLE") || !strcmp(m->dtype, "MAXDOUBLE");

		if (!minmax && inclusive && m->type == PM_CUBE_EXCLUSIVE)
			return subtree(c, d, node, v, err);
		add_row(c, d, node, 1, v);
		if (!minmax && !inclusive && m->type == PM_CUBE_INCLUSIVE)
			for (size_t k = 0; k < n->nchild; k++)
				add_row(c, d, c->children[n->child + k], -1, v);
	}
	return PM_OK;
}

/* Why metric m's values cannot be read, or NULL; *t: their type. */
static const char *unreadable(const struct pm_cube_metric *m, const struct dtype **t)
{
	*t = NULL;
	if (m->type == PM_CUBE_OTHER)
		return "neither INCLUSIVE nor EXCLUSIVE (derived metrics are Cube's to compute)";
	for (size_t k = 0; k < sizeof(dtypes) / sizeof(*dtypes) && !*t; k++)
		if (!strcmp(dtypes[k].name, m->dtype))
			*t = &dtypes[k];
	return *t ? NULL : "values of a type perfmodel does not read (numbers only)";
}

static pm_status no_callpath(const pm_cube *c, const char *callpath, pm_error *err)
{
	char list[400] = "", one[160];

	for (size_t i = 0; i < c->ncnode && i < 4; i++) {
		path_of(c, i, one, sizeof(one));
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s'%s'", i ? ", " : "",
			 one);
	}
	if (callpath)
		return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "no call path '%s' (%zu call "
				   "nodes: %s%s)", callpath, c->ncnode, list, c->ncnode > 4 ? ", ..." : "");
	return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "the profile has %zu call paths: "
			   "choose one with --callpath (%s%s)", c->ncnode, list,
			   c->ncnode > 4 ? ", ..." : "");
}

/* ---- look-ups: a metric by its name, call nodes by their path ---------- */

static const char *metric_name(const void *ctx, size_t i)
{
	return ((const pm_cube *)ctx)->metric[i].name;
}

#define FNV_BASIS UINT64_C(0xcbf29ce484222325)

/* 64-bit FNV-1a of s[0, n), from h: a path's hash is its parent's path's
 * extended by "->" and its own name */
static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

static int cmp_hash_node(const void *x, const void *y)
{
	const uint64_t *p = x, *q = y;

	if (p[0] != q[0])
		return p[0] < q[0] ? -1 : 1;
	return (p[1] > q[1]) - (p[1] < q[1]);
}

/* c->by_path: (path hash, call node), sorted, so that finding a call path
 * costs the nodes of its hash, not a walk of every node (pm__read_cube_pairs
 * looks up every call path of a profile). Preorder puts each parent, whose
 * hash a node's extends, before it. */
static pm_status index_paths(pm_cube *c, pm_error *err)
{
	uint64_t (*p)[2] = malloc((c->ncnode + 1) * sizeof(*p));

	if (!p)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (size_t i = 0; i < c->ncnode; i++) {
		const char *name = c->region_name[c->cnode[i].region];
		size_t up = c->cnode[i].parent;
		uint64_t h = up == SIZE_MAX ? FNV_BASIS : fnv(p[up][0], "->", 2);

		p[i][0] = fnv(h, name, strlen(name));
		p[i][1] = i;
	}
	qsort(p, c->ncnode, sizeof(*p), cmp_hash_node);
	c->by_path = p;
	return PM_OK;
}

/* The first place in c->by_path, from `from` on (0: the first of all), of
 * a call node whose path is `path`; c->ncnode when there is none. */
static size_t next_of_path(const pm_cube *c, const char *path, size_t from)
{
	size_t n = strlen(path), lo = 0, hi = c->ncnode;
	uint64_t h = fnv(FNV_BASIS, path, n);

	if (from) {
		lo = from;
	} else {
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (c->by_path[mid][0] < h)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	for (; lo < c->ncnode && c->by_path[lo][0] == h; lo++)
		if (path_is(c, (size_t)c->by_path[lo][1], path, n))
			return lo;
	return c->ncnode;
}

int pm__cube_has_callpath(pm_cube *c, const char *callpath)
{
	if (!c->by_path && index_paths(c, NULL))
		return -1;
	return next_of_path(c, callpath, 0) < c->ncnode;
}

pm_status pm__cube_values(pm_cube *c, const char *metric, const char *callpath,
			  int inclusive, double **vals, size_t *nloc, pm_error *err)
{
	const struct pm_cube_metric *m = NULL;
	const struct dtype *t;
	struct pm_cube_data *d;
	size_t found = 0, k;
	const char *why;
	double *v = NULL;
	pm_status rc = PM_OK;

	*vals = NULL;
	*nloc = 0;
	if (!metric)
		metric = "time";
	if (c->nmetric && !c->metric_by_name.slot &&
	    pm__strindex_all(&c->metric_by_name, c->nmetric, metric_name, c))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	if ((k = pm__strindex_find(&c->metric_by_name, metric)) != SIZE_MAX)
		m = &c->metric[k];
	if (!m) {
		char list[300] = "";

		for (k = 0; k < c->nmetric && k < 6; k++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s'%s'",
				 k ? ", " : "", c->metric[k].name);
		return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "no metric '%s' (%s%s): choose "
				   "one with --metric", metric, list, c->nmetric > 6 ? ", ..." : "");
	}
	if ((why = unreadable(m, &t)))
		return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "metric '%s' (%s): %s", metric,
				   m->dtype, why);
	if (!callpath && c->ncnode > 1)
		return no_callpath(c, NULL, err);
	if (!c->data && !(c->data = calloc(c->nmetric + 1, sizeof(*c->data))))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	d = &c->data[m - c->metric];
	if (!d->raw) {
		d->t = t;
		if ((rc = read_index(c, m, d, err)) || (rc = read_data(c, m, d, err))) {
			/* read again, and fail again, next time */
			free(d->row);
			free(d->raw);
			*d = (struct pm_cube_data){ 0 };
			return rc;
		}
	}
	if (callpath && !c->by_path && (rc = index_paths(c, err)))
		return rc;
	if (!(v = calloc(c->nloc, sizeof(*v))))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	if (!callpath) {
		found = 1;	/* the one call node */
		rc = node_values(c, m, d, 0, inclusive, v, err);
	} else {
		/* the nodes of that path, in preorder: summed as before */
		for (k = next_of_path(c, callpath, 0); k < c->ncnode && !rc;
		     k = next_of_path(c, callpath, k + 1)) {
			found++;
			rc = node_values(c, m, d, (size_t)c->by_path[k][1], inclusive, v, err);
		}
	}
	if (!rc && !found)
		rc = no_callpath(c, callpath, err);
	if (rc) {
		free(v);
		return rc;
	}
	*vals = v;
	*nloc = c->nloc;
	return PM_OK;
}

size_t pm__cube_nlocations(const pm_cube *c)
{
	return c->nloc;
}

size_t pm__cube_nmetrics(const pm_cube *c)
{
	return c->nmetric;
}

size_t pm__cube_ncnodes(const pm_cube *c)
{
	return c->ncnode;
}

pm_cube_metric_info pm__cube_metric(const pm_cube *c, size_t i)
{
	static const char *const type[] = { "EXCLUSIVE", "INCLUSIVE", "OTHER" };
	const struct pm_cube_metric *m = &c->metric[i];
	pm_cube_metric_info info = { m->name, type[m->type], m->dtype, NULL };
	const struct dtype *t;
	const unsigned char *p = NULL;
	size_t n;
	char file[48];

	info.unreadable = unreadable(m, &t);
	snprintf(file, sizeof(file), "%ld.index", m->id);
	if (!info.unreadable && (pm__cube_tar_find(c, file, &p, &n, NULL) || !p))
		info.unreadable = "no data in the profile (Extra-P skips such metrics)";
	return info;
}

pm_status pm__cube_callpath(const pm_cube *c, size_t i, char **out, size_t *depth,
			    pm_error *err)
{
	size_t len = 0, at;
	char *path;

	*out = NULL;
	*depth = 0;
	for (size_t k = i;; k = c->cnode[k].parent, ++*depth) {
		len += strlen(c->region_name[c->cnode[k].region]);
		if (c->cnode[k].parent == SIZE_MAX)
			break;
		len += 2;
	}
	/* names are not bounded but by the anchor's size: many call nodes
	 * under long names would otherwise make paths of gigabytes */
	if (len > PM_CUBE_MAX_PATH)
		return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "call node %zu: its call path is "
				   "%zu bytes long, more than %d", i, len, PM_CUBE_MAX_PATH);
	if (!(path = malloc(len + 1)))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	path[at = len] = '\0';
	/* from the leaf back to the root */
	for (size_t k = i;; k = c->cnode[k].parent) {
		const char *name = c->region_name[c->cnode[k].region];
		size_t l = strlen(name);

		memcpy(path + (at -= l), name, l);
		if (c->cnode[k].parent == SIZE_MAX)
			break;
		memcpy(path + (at -= 2), "->", 2);
	}
	*out = path;
	return PM_OK;
}

#else /* !PM_HAVE_CUBE */

pm_status pm__cube_parse(const unsigned char *buf, size_t len, const char *name,
			 const volatile sig_atomic_t *stop, pm_cube **out, pm_error *err)
{
	(void)buf;
	(void)len;
	(void)stop;
	*out = NULL;
	return pm__fail_at(err, PM_EINVAL, name, 0, 0, "perfmodel was built without CUBE support "
			   "(libxml2 and zlib: install libxml2-dev and zlib1g-dev and build again)");
}

void pm__cube_free(pm_cube *c)
{
	(void)c;
}

pm_status pm__cube_values(pm_cube *c, const char *metric, const char *callpath,
			  int inclusive, double **vals, size_t *nloc, pm_error *err)
{
	(void)c;
	(void)metric;
	(void)callpath;
	(void)inclusive;
	*vals = NULL;
	*nloc = 0;
	return pm__fail(err, PM_EINVAL, "perfmodel was built without CUBE support");
}

/* never called: pm__cube_parse makes no profile without CUBE support */
int pm__cube_has_callpath(pm_cube *c, const char *callpath)
{
	(void)c;
	(void)callpath;
	return 0;
}

size_t pm__cube_nlocations(const pm_cube *c)
{
	(void)c;
	return 0;
}

size_t pm__cube_nmetrics(const pm_cube *c)
{
	(void)c;
	return 0;
}

size_t pm__cube_ncnodes(const pm_cube *c)
{
	(void)c;
	return 0;
}

pm_cube_metric_info pm__cube_metric(const pm_cube *c, size_t i)
{
	(void)c;
	(void)i;
	return (pm_cube_metric_info){ 0 };
}

pm_status pm__cube_callpath(const pm_cube *c, size_t i, char **out, size_t *depth,
			    pm_error *err)
{
	(void)c;
	(void)i;
	*out = NULL;
	*depth = 0;
	return pm__fail(err, PM_EINVAL, "perfmodel was built without CUBE support");
}

#endif
