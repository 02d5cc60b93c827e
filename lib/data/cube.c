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
 * the bytes there are. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "data/cube.h"

#ifdef PM_HAVE_CUBE
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <zlib.h>

#define TAR_BLOCK 512
/* zlib's deflate compresses at most about 1032-fold */
#define MAX_RATIO 1100u
#define MAX_ANCHOR ((size_t)256 << 20)

struct metric {
	char *name, *dtype;
	long id;
	int type;		/* EXCLUSIVE, INCLUSIVE or OTHER */
};
enum { EXCLUSIVE, INCLUSIVE, OTHER };

struct cnode {
	size_t region, parent;	/* parent SIZE_MAX: a root */
	size_t nchild, child;	/* children: order[child .. child + nchild) */
};

struct pm_cube {
	const char *name;
	const unsigned char *buf;
	size_t len;
	struct metric *metric;
	size_t nmetric;
	char **region_name;
	long *region_id;
	size_t nregion;
	struct cnode *cnode;	/* in preorder: document order */
	size_t ncnode;
	size_t *children;	/* every node's children, each node's together */
	size_t nloc;
	/* per metric: its values once pm__cube_values has read them, so that
	 * the many call paths of one profile (pm__read_cube_pairs) inflate
	 * them once; NULL until then */
	struct data *data;
};

/* ---- tar ------------------------------------------------------------------ */

/* A header's number field: octal digits (blanks and NULs around), or
 * base-256 when its first byte has the high bit set. -1 if neither. */
static int tar_number(const unsigned char *f, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	if (f[0] & 0x80) {
		if (f[0] != 0x80)
			return -1;	/* negative */
		for (i = 1; i < n; i++) {
			if (v >> 55)
				return -1;
			v = v << 8 | f[i];
		}
		*out = v;
		return 0;
	}
	while (i < n && f[i] == ' ')
		i++;
	for (; i < n && f[i] >= '0' && f[i] <= '7'; i++) {
		if (v >> 60)
			return -1;
		v = v * 8 + (uint64_t)(f[i] - '0');
	}
	while (i < n && (f[i] == ' ' || f[i] == '\0'))
		i++;
	if (i != n)
		return -1;
	*out = v;
	return 0;
}

/* The regular file `want` of the archive: *data and *size, or *data NULL
 * when there is none. PM_ESCHEMA for a header or size that does not fit. */
static pm_status tar_find(const pm_cube *c, const char *want, const unsigned char **data,
			  size_t *size, pm_error *err)
{
	size_t off = 0;

	*data = NULL;
	*size = 0;
	while (c->len - off >= TAR_BLOCK) {
		const unsigned char *h = c->buf + off;
		char name[256 + 2];
		size_t nl = strnlen((const char *)h, 100), pl = 0;
		uint64_t sz;

		if (!h[0])
			return PM_OK;	/* the end-of-archive block */
		if (tar_number(h + 124, 12, &sz))
			return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "a tar header at byte %zu "
					   "with no size: not a CUBE archive", off);
		if (sz > c->len - off - TAR_BLOCK)
			return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "tar member at byte %zu "
					   "is %llu bytes, past the end of the file", off,
					   (unsigned long long)sz);
		if (memcmp(h + 257, "ustar", 5) == 0)
			pl = strnlen((const char *)h + 345, 155);
		snprintf(name, sizeof(name), "%.*s%s%.*s", (int)pl, (const char *)h + 345,
			 pl ? "/" : "", (int)nl, (const char *)h);
		if ((h[156] == '0' || h[156] == '\0') &&
		    (!strcmp(name, want) || (!strncmp(name, "./", 2) && !strcmp(name + 2, want)))) {
			*data = h + TAR_BLOCK;
			*size = (size_t)sz;
			return PM_OK;
		}
		/* sz <= len: no overflow */
		off += TAR_BLOCK + ((size_t)sz + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
		if (off > c->len)
			return PM_OK;
	}
	return PM_OK;
}

/* ---- zlib ----------------------------------------------------------------- */

/* Inflate src[0, n) (zlib, or gzip when gz) into out[0, cap): *got bytes.
 * More than cap is an error, as is a stream that does not end. */
static pm_status inflate_into(const pm_cube *c, const unsigned char *src, size_t n, int gz,
			      unsigned char *out, size_t cap, size_t *got, const char *what,
			      pm_error *err)
{
	z_stream z = { 0 };
	int rc;

	if (n > UINT32_MAX || cap > UINT32_MAX)
		return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "%s: too large", what);
	if (inflateInit2(&z, gz ? 16 + MAX_WBITS : MAX_WBITS) != Z_OK)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	z.next_in = (unsigned char *)(uintptr_t)src;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	rc = inflate(&z, Z_FINISH);
	*got = cap - z.avail_out;
	inflateEnd(&z);
	if (rc == Z_STREAM_END)
		return PM_OK;
	if (rc == Z_MEM_ERROR)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "%s: %s", what,
			   rc == Z_BUF_ERROR && !z.avail_out ? "more data than the anchor says"
							    : "broken compressed data");
}

/* ---- anchor.xml ----------------------------------------------------------- */

static int is(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

static const xmlNode *child(const xmlNode *n, const char *name)
{
	for (const xmlNode *k = n ? n->children : NULL; k; k = k->next)
		if (is(k, name))
			return k;
	return NULL;
}

/* The text of n's child `name` ("" when absent), owned. */
static char *child_text(const xmlNode *n, const char *name)
{
	const xmlNode *k = child(n, name);
	xmlChar *t = k ? xmlNodeGetContent(k) : NULL;
	char *s = strdup(t ? (const char *)t : "");

	xmlFree(t);
	return s;
}

/* n's attribute `name` as a whole number >= 0, or -1. */
static long attr_id(const xmlNode *n, const char *name)
{
	xmlChar *t = xmlGetProp(n, (const xmlChar *)name);
	char *end;
	long v = t ? strtol((const char *)t, &end, 10) : -1;

	if (t && (end == (char *)t || *end || v < 0))
		v = -1;
	xmlFree(t);
	return v;
}

struct anchor {
	pm_cube *c;
	pm_error *err;
	size_t cap_metric, cap_cnode;
};

#define AFAIL(a, ...) pm__fail_at((a)->err, PM_ESCHEMA, (a)->c->name, 0, 0, __VA_ARGS__)

static pm_status metrics(struct anchor *a, const xmlNode *parent)
{
	for (const xmlNode *n = parent->children; n; n = n->next) {
		struct metric *m;
		xmlChar *type;
		pm_status rc;

		if (!is(n, "metric"))
			continue;
		if (a->c->nmetric == a->cap_metric) {
			size_t cap = a->cap_metric ? 2 * a->cap_metric : 16;
			struct metric *p = realloc(a->c->metric, cap * sizeof(*p));

			if (!p)
				return pm__fail(a->err, PM_ENOMEM, "out of memory");
			a->c->metric = p;
			a->cap_metric = cap;
		}
		m = &a->c->metric[a->c->nmetric];
		*m = (struct metric){ child_text(n, "uniq_name"), child_text(n, "dtype"),
				      attr_id(n, "id"), OTHER };
		a->c->nmetric++;
		if (!m->name || !m->dtype)
			return pm__fail(a->err, PM_ENOMEM, "out of memory");
		if (m->id < 0)
			return AFAIL(a, "anchor.xml: metric '%s' without an id", m->name);
		type = xmlGetProp(n, (const xmlChar *)"type");
		if (type && !strcmp((const char *)type, "EXCLUSIVE"))
			m->type = EXCLUSIVE;
		else if (type && !strcmp((const char *)type, "INCLUSIVE"))
			m->type = INCLUSIVE;
		xmlFree(type);
		if ((rc = metrics(a, n)))	/* its children (libxml2 bounds the depth) */
			return rc;
	}
	return PM_OK;
}

static pm_status regions(struct anchor *a, const xmlNode *program)
{
	size_t n = 0;

	for (const xmlNode *k = program->children; k; k = k->next)
		n += is(k, "region");
	a->c->region_name = calloc(n + 1, sizeof(*a->c->region_name));
	a->c->region_id = calloc(n + 1, sizeof(*a->c->region_id));
	if (!a->c->region_name || !a->c->region_id)
		return pm__fail(a->err, PM_ENOMEM, "out of memory");
	for (const xmlNode *k = program->children; k; k = k->next) {
		size_t i = a->c->nregion;

		if (!is(k, "region"))
			continue;
		a->c->nregion++;
		if (!(a->c->region_name[i] = child_text(k, "name")))
			return pm__fail(a->err, PM_ENOMEM, "out of memory");
		if ((a->c->region_id[i] = attr_id(k, "id")) < 0)
			return AFAIL(a, "anchor.xml: region '%s' without an id", a->c->region_name[i]);
	}
	return PM_OK;
}

/* The call nodes under parent (an element), in preorder. */
static pm_status cnodes(struct anchor *a, const xmlNode *parent, size_t up)
{
	for (const xmlNode *n = parent->children; n; n = n->next) {
		pm_cube *c = a->c;
		long callee;
		size_t i, r;
		pm_status rc;

		if (!is(n, "cnode"))
			continue;
		if (c->ncnode == a->cap_cnode) {
			size_t cap = a->cap_cnode ? 2 * a->cap_cnode : 64;
			struct cnode *p = realloc(c->cnode, cap * sizeof(*p));

			if (!p)
				return pm__fail(a->err, PM_ENOMEM, "out of memory");
			c->cnode = p;
			a->cap_cnode = cap;
		}
		callee = attr_id(n, "calleeId");
		for (r = 0; r < c->nregion && c->region_id[r] != callee; r++)
			;
		if (r == c->nregion || attr_id(n, "id") < 0)
			return AFAIL(a, "anchor.xml: a cnode without an id or whose calleeId is no "
				     "region");
		i = c->ncnode++;
		c->cnode[i] = (struct cnode){ r, up, 0, 0 };
		if ((rc = cnodes(a, n, i)))
			return rc;
	}
	return PM_OK;
}

static size_t count_locations(const xmlNode *n)
{
	size_t k = 0;

	for (const xmlNode *m = n->children; m; m = m->next)
		if (m->type == XML_ELEMENT_NODE)
			k += is(m, "location") + count_locations(m);
	return k;
}

/* Each node's children, together in c->children (counting sort by parent). */
static pm_status link_children(pm_cube *c, pm_error *err)
{
	size_t *fill = calloc(c->ncnode + 1, sizeof(*fill));

	c->children = malloc((c->ncnode + 1) * sizeof(*c->children));
	if (!fill || !c->children) {
		free(fill);
		return pm__fail(err, PM_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < c->ncnode; i++)
		if (c->cnode[i].parent != SIZE_MAX)
			c->cnode[c->cnode[i].parent].nchild++;
	for (size_t i = 0, at = 0; i < c->ncnode; i++) {
		c->cnode[i].child = at;
		at += c->cnode[i].nchild;
	}
	for (size_t i = 0; i < c->ncnode; i++) {
		size_t p = c->cnode[i].parent;

		if (p != SIZE_MAX)
			c->children[c->cnode[p].child + fill[p]++] = i;
	}
	free(fill);
	return PM_OK;
}

static pthread_once_t xml_once = PTHREAD_ONCE_INIT;

static void xml_init(void)
{
	xmlInitParser();
}

static pm_status anchor(pm_cube *c, const char *text, size_t len, pm_error *err)
{
	struct anchor a = { .c = c, .err = err };
	const xmlNode *root, *m, *p, *s;
	xmlDoc *doc;
	pm_status rc;

	if (len > INT32_MAX)
		return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "anchor.xml: too large");
	pthread_once(&xml_once, xml_init);
	/* no network, no messages of libxml2's own (nothing prints) */
	doc = xmlReadMemory(text, (int)len, "anchor.xml", NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc) {
		const xmlError *e = xmlGetLastError();

		return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "anchor.xml: not XML (line %d: "
				   "%.80s)", e ? e->line : 0, e && e->message ? e->message : "?");
	}
	/* a DTD could declare entities that expand without bound when the
	 * text is read: CUBE anchors have none */
	if (doc->intSubset || doc->extSubset) {
		xmlFreeDoc(doc);
		return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "anchor.xml: has a DTD, which "
				   "CUBE anchors do not");
	}
	root = xmlDocGetRootElement(doc);
	m = child(root, "metrics");
	p = child(root, "program");
	s = child(root, "system");
	if (!root || !is(root, "cube") || !m || !p || !s)
		rc = AFAIL(&a, "anchor.xml: not a CUBE anchor (a <cube> with <metrics>, <program> "
			   "and <system>)");
	else if (!(rc = metrics(&a, m)) && !(rc = regions(&a, p)) && !(rc = cnodes(&a, p, SIZE_MAX)))
		rc = link_children(c, err);
	if (!rc) {
		c->nloc = count_locations(s);
		if (!c->nloc || !c->ncnode)
			rc = AFAIL(&a, "anchor.xml: no %s", c->nloc ? "call tree (cnode)" :
				   "location in the system tree");
	}
	xmlFreeDoc(doc);
	return rc;
}

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
	free(c->region_id);
	free(c->cnode);
	free(c->children);
	free(c);
}

pm_status pm__cube_parse(const unsigned char *buf, size_t len, const char *name, pm_cube **out,
			 pm_error *err)
{
	pm_cube *c = calloc(1, sizeof(*c));
	const unsigned char *a;
	unsigned char *plain = NULL;
	size_t alen, got = 0;
	pm_status rc;

	*out = NULL;
	if (!c)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	*c = (pm_cube){ .name = name, .buf = buf, .len = len };
	if ((rc = tar_find(c, "anchor.xml", &a, &alen, err)))
		goto out;
	if (!a) {
		rc = pm__fail_at(err, PM_ESCHEMA, name, 0, 0, "no anchor.xml in the archive: not a "
				 "CUBE profile");
		goto out;
	}
	/* Score-P gzips it; other writers may not */
	if (alen >= 2 && a[0] == 0x1f && a[1] == 0x8b) {
		size_t cap = alen < MAX_ANCHOR / MAX_RATIO ? alen * MAX_RATIO : MAX_ANCHOR;

		if (!(plain = malloc(cap + 1))) {
			rc = pm__fail(err, PM_ENOMEM, "out of memory");
			goto out;
		}
		if ((rc = inflate_into(c, a, alen, 1, plain, cap, &got, "anchor.xml", err)))
			goto out;
		a = plain;
		alen = got;
	}
	rc = anchor(c, (const char *)a, alen, err);
out:
	free(plain);
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
struct data {
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
			const struct cnode *n = &c->cnode[stack[--top]];

			for (size_t k = 0; k < n->nchild; k++)
				node[ctr++] = c->children[n->child + k];
			for (size_t k = n->nchild; k-- > 0;)
				stack[top++] = c->children[n->child + k];
		}
	}
}

static pm_status read_index(const pm_cube *c, const struct metric *m, struct data *d,
			    pm_error *err)
{
	char file[48];
	const unsigned char *p;
	size_t n, *node;
	uint64_t count;
	pm_status rc;

	snprintf(file, sizeof(file), "%ld.index", m->id);
	if ((rc = tar_find(c, file, &p, &n, err)))
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
	enumerate(c, m->type == INCLUSIVE, node);
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

static pm_status read_data(const pm_cube *c, const struct metric *m, struct data *d,
			   pm_error *err)
{
	char file[48];
	const unsigned char *p;
	size_t n, want, head;
	uint64_t chunks;
	pm_status rc;

	snprintf(file, sizeof(file), "%ld.data", m->id);
	if ((rc = tar_find(c, file, &p, &n, err)))
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
	if (want / MAX_RATIO > n)
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
		if ((rc = inflate_into(c, p + head + from, (size_t)size, 0, d->raw + at,
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
static void add_row(const pm_cube *c, const struct data *d, size_t node, double sign, double *v)
{
	size_t r = d->row[node];

	if (r == SIZE_MAX)
		return;
	for (size_t l = 0; l < c->nloc; l++)
		v[l] += sign * value(d->raw + (r * c->nloc + l) * d->t->size, d->t, d->big);
}

/* The inclusive value of node from an exclusively stored metric: its
 * subtree's sum (iteratively: a deep tree must not overflow the stack). */
static pm_status subtree(const pm_cube *c, const struct data *d, size_t node, double *v,
			 pm_error *err)
{
	size_t *stack = malloc((c->ncnode + 1) * sizeof(*stack)), top = 0;

	if (!stack)
		return pm__fail(err, PM_ENOMEM, "out of memory");
	stack[top++] = node;
	while (top) {
		const struct cnode *n = &c->cnode[stack[--top]];

		add_row(c, d, (size_t)(n - c->cnode), 1, v);
		for (size_t k = 0; k < n->nchild; k++)
			stack[top++] = c->children[n->child + k];
	}
	free(stack);
	return PM_OK;
}

static pm_status node_values(const pm_cube *c, const struct metric *m, const struct data *d,
			     size_t node, int inclusive, double *v, pm_error *err)
{
	const struct cnode *n = &c->cnode[node];

	/* a minimum or maximum does not add up: as stored */
	if (m->type == INCLUSIVE || m->type == EXCLUSIVE) {
		int minmax = !strcmp(m->dtype, "MINDOUBLE") || !strcmp(m->dtype, "MAXDOUBLE");

		if (!minmax && inclusive && m->type == EXCLUSIVE)
			return subtree(c, d, node, v, err);
		add_row(c, d, node, 1, v);
		if (!minmax && !inclusive && m->type == INCLUSIVE)
			for (size_t k = 0; k < n->nchild; k++)
				add_row(c, d, c->children[n->child + k], -1, v);
	}
	return PM_OK;
}

/* Why metric m's values cannot be read, or NULL; *t: their type. */
static const char *unreadable(const struct metric *m, const struct dtype **t)
{
	*t = NULL;
	if (m->type == OTHER)
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

pm_status pm__cube_values(pm_cube *c, const char *metric, const char *callpath,
			  int inclusive, double **vals, size_t *nloc, pm_error *err)
{
	const struct metric *m = NULL;
	const struct dtype *t;
	struct data *d;
	size_t found = 0, k;
	const char *why;
	double *v = NULL;
	pm_status rc;

	*vals = NULL;
	*nloc = 0;
	if (!metric)
		metric = "time";
	for (k = 0; k < c->nmetric && !m; k++)
		if (!strcmp(c->metric[k].name, metric))
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
			*d = (struct data){ 0 };
			return rc;
		}
	}
	if (!(v = calloc(c->nloc, sizeof(*v))))
		return pm__fail(err, PM_ENOMEM, "out of memory");
	for (k = 0; k < c->ncnode && !rc; k++)
		if (!callpath || path_is(c, k, callpath, strlen(callpath))) {
			found++;
			rc = node_values(c, m, d, k, inclusive, v, err);
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
	const struct metric *m = &c->metric[i];
	pm_cube_metric_info info = { m->name, type[m->type], m->dtype, NULL };
	const struct dtype *t;
	const unsigned char *p = NULL;
	size_t n;
	char file[48];

	info.unreadable = unreadable(m, &t);
	snprintf(file, sizeof(file), "%ld.index", m->id);
	if (!info.unreadable && (tar_find(c, file, &p, &n, NULL) || !p))
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

pm_status pm__cube_parse(const unsigned char *buf, size_t len, const char *name, pm_cube **out,
			 pm_error *err)
{
	(void)buf;
	(void)len;
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
