/* A CUBE profile's anchor.xml (ingest/cube_impl.h): <metrics> (nested
 * <metric id type> with <uniq_name> and <dtype>), <program> (<region id>
 * with <name>, nested <cnode id calleeId>: the call tree), <system> (its
 * <location>s, at any depth), read with libxml2's streaming reader: what
 * is kept (metrics, regions, call nodes) is all that grows, so that an
 * anchor of millions of locations costs their count, not a document tree
 * of gigabytes. A call node's region is found through the regions sorted
 * by id, not by a search among all of them. libxml2 prints nothing: its
 * first error, its newline trimmed, goes into the message with its line. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/stop.h"
#include "ingest/cube_impl.h"

#include <libxml/parser.h>
#include <libxml/xmlversion.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlreader.h>
#include <pthread.h>
#include <zlib.h>

/* the most XML an anchor may hold (inflated): a bound on the time it takes */
#define MAX_ANCHOR ((size_t)256 << 20)

/* anchor.xml's bytes as the reader asks for them: plain, or inflated from
 * gzip a piece at a time */
struct source {
	const unsigned char *a;
	size_t len, at;
	int gz, ended;
	z_stream z;
	size_t out;		/* bytes of XML given */
	const char *why;	/* why the bytes stopped, or NULL */
	int enomem;
};

/* libxml2 refuses elements nested deeper than 256 (without
 * XML_PARSE_HUGE): room for its limit */
#define MAX_DEPTH 300

/* What an open element is to the anchor */
enum kind { OTHER, CUBE, METRICS, METRIC, PROGRAM, REGION, CNODE, SYSTEM, IN_SYSTEM, TEXT };

struct anchor {
	pm_cube *c;
	pm_error *err;
	xmlTextReaderPtr r;
	struct source src;
	size_t cap_metric, cap_region, cap_cnode;
	long *region_id;	/* per region */
	long *callee;		/* per call node: its calleeId, resolved at the end */
	enum kind kind[MAX_DEPTH];
	size_t item[MAX_DEPTH];	/* the metric, region or call node open there */
	char **text;		/* the string the text nodes now read go to */
	size_t text_len, text_cap;	/* its length, and room (doubled as it grows) */
	int seen;		/* 1 metrics, 2 program, 4 system */
	/* libxml2's first error, and its line */
	char xml_msg[160];
	int xml_line;
};

#define AFAIL(a, ...) pm__fail_at((a)->err, PM_ESCHEMA, (a)->c->name, 0, 0, __VA_ARGS__)

/* libxml2's errors, kept instead of printed: the first, without the
 * newline that ends its messages. */
#if LIBXML_VERSION >= 21200
static void on_xml_error(void *arg, const xmlError *e)
#else
static void on_xml_error(void *arg, xmlErrorPtr e)	/* not const before 2.12 */
#endif
{
	struct anchor *a = arg;
	size_t n;

	if (!e || e->level < XML_ERR_ERROR || a->xml_msg[0])
		return;
	snprintf(a->xml_msg, sizeof(a->xml_msg), "%s", e->message ? e->message : "?");
	for (char *p = a->xml_msg; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	n = strlen(a->xml_msg);
	while (n && a->xml_msg[n - 1] == ' ')
		a->xml_msg[--n] = '\0';
	a->xml_line = e->line;
}

/* The messages libxml2 sends to its generic handler (some come with no
 * parser to hand them to): dropped, never printed. */
static void xml_quiet(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

/* xmlInputReadCallback: up to len bytes of the anchor into buf, or -1
 * (src->why says why). */
static int source_read(void *ctx, char *buf, int len)
{
	struct source *src = ctx;
	size_t n = 0;

	if (!src->gz) {
		n = src->len - src->at < (size_t)len ? src->len - src->at : (size_t)len;
		memcpy(buf, src->a + src->at, n);
		src->at += n;
	} else {
		src->z.next_out = (unsigned char *)buf;
		src->z.avail_out = (uInt)len;
	}
	/* inflate may take input (a header) without giving any out */
	while (src->gz && !src->ended && !n) {
		int rc = inflate(&src->z, Z_NO_FLUSH);

		n = (size_t)len - src->z.avail_out;
		if (rc == Z_STREAM_END) {
			src->ended = 1;
		} else if (rc == Z_MEM_ERROR) {
			src->enomem = 1;
			return -1;
		} else if (rc != Z_OK) {
			/* Z_BUF_ERROR: the input ended before the stream */
			src->why = "broken compressed data";
			return -1;
		}
	}
	if ((src->out += n) > MAX_ANCHOR) {
		src->why = "more than 256 MiB of XML";
		return -1;
	}
	return (int)n;
}

/* Room for one more of n items of `size` bytes in *p, capacity *cap. */
static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	size_t want = *cap ? 2 * *cap : 64;
	void *q;

	if (n < *cap)
		return 0;
	if (want > SIZE_MAX / size || !(q = realloc(*p, want * size)))
		return -1;
	*p = q;
	*cap = want;
	return 0;
}

/* The reader's attribute `name` as a whole number >= 0, or -1. */
static long attr_id(xmlTextReaderPtr r, const char *name)
{
	xmlChar *t = xmlTextReaderGetAttribute(r, (const xmlChar *)name);
	char *end;
	long v = t ? strtol((const char *)t, &end, 10) : -1;

	if (t && (end == (char *)t || *end || v < 0))
		v = -1;
	xmlFree(t);
	return v;
}

static pm_status oom(struct anchor *a)
{
	return pm__fail(a->err, PM_ENOMEM, "out of memory");
}

/* More locations or call nodes than the profile has bytes: an anchor
 * inflated out of proportion (a real profile stores values of each, which
 * take bytes), refused before its count sizes anything (each location
 * its own column with --scaling each, each call node its call paths). */
static pm_status out_of_proportion(struct anchor *a, size_t n, const char *what)
{
	return AFAIL(a, "anchor.xml: %zu %s or more in a profile of %zu bytes: more than one "
		     "a byte, which no measured profile has", n, what, a->c->len);
}

/* <metric> under <metrics> or a metric: a new metric, its texts to come. */
static pm_status open_metric(struct anchor *a, int depth)
{
	pm_cube *c = a->c;
	struct pm_cube_metric *m;
	xmlChar *type;

	if (grow((void **)&c->metric, &a->cap_metric, c->nmetric, sizeof(*c->metric)))
		return oom(a);
	m = &c->metric[c->nmetric];
	*m = (struct pm_cube_metric){ NULL, NULL, attr_id(a->r, "id"), PM_CUBE_OTHER };
	a->item[depth] = c->nmetric++;
	type = xmlTextReaderGetAttribute(a->r, (const xmlChar *)"type");
	if (type && !strcmp((const char *)type, "EXCLUSIVE"))
		m->type = PM_CUBE_EXCLUSIVE;
	else if (type && !strcmp((const char *)type, "INCLUSIVE"))
		m->type = PM_CUBE_INCLUSIVE;
	xmlFree(type);
	return PM_OK;
}

static pm_status open_region(struct anchor *a, int depth)
{
	pm_cube *c = a->c;
	size_t cap = a->cap_region;

	if (grow((void **)&c->region_name, &cap, c->nregion, sizeof(*c->region_name)) ||
	    grow((void **)&a->region_id, &a->cap_region, c->nregion, sizeof(*a->region_id)))
		return oom(a);
	c->region_name[c->nregion] = NULL;
	a->region_id[c->nregion] = attr_id(a->r, "id");
	a->item[depth] = c->nregion++;
	return PM_OK;
}

/* <cnode> under <program> or a call node (the one open at depth - 1). */
static pm_status open_cnode(struct anchor *a, int depth, enum kind parent)
{
	pm_cube *c = a->c;
	size_t cap = a->cap_cnode;

	if (c->ncnode >= c->len)
		return out_of_proportion(a, c->ncnode + 1, "call nodes");
	if (grow((void **)&c->cnode, &cap, c->ncnode, sizeof(*c->cnode)) ||
	    grow((void **)&a->callee, &a->cap_cnode, c->ncnode, sizeof(*a->callee)))
		return oom(a);
	if (attr_id(a->r, "id") < 0)
		return AFAIL(a, "anchor.xml line %d: a cnode without an id",
			     xmlTextReaderGetParserLineNumber(a->r));
	a->callee[c->ncnode] = attr_id(a->r, "calleeId");
	c->cnode[c->ncnode] = (struct pm_cube_cnode){
		0, parent == CNODE ? a->item[depth - 1] : SIZE_MAX, 0, 0 };
	a->item[depth] = c->ncnode++;
	return PM_OK;
}

/* Where the text of element `name` at depth goes, its parent's kind `up`:
 * a metric's <uniq_name> and <dtype>, a region's <name>; else NULL. */
static char **text_of(struct anchor *a, int depth, enum kind up, const char *name)
{
	if (up == METRIC) {
		struct pm_cube_metric *m = &a->c->metric[a->item[depth - 1]];

		return !strcmp(name, "uniq_name") ? &m->name : !strcmp(name, "dtype") ? &m->dtype
										       : NULL;
	}
	if (up == REGION && !strcmp(name, "name"))
		return &a->c->region_name[a->item[depth - 1]];
	return NULL;
}

/* The element the reader is on, at depth, its parent's kind `up`: what it
 * is to the anchor, and what it starts. */
static pm_status open_element(struct anchor *a, int depth, enum kind up)
{
	const char *name = (const char *)xmlTextReaderConstLocalName(a->r);
	enum kind k = up == SYSTEM || up == IN_SYSTEM ? IN_SYSTEM : OTHER;
	pm_status rc = PM_OK;
	char **s;

	if (!name)
		return oom(a);
	if (depth >= MAX_DEPTH)
		return AFAIL(a, "anchor.xml line %d: elements nested deeper than %d",
			     xmlTextReaderGetParserLineNumber(a->r), MAX_DEPTH);
	if (depth == 0 && strcmp(name, "cube"))
		return AFAIL(a, "anchor.xml: not a CUBE anchor (its root is <%.40s>, not <cube>)",
			     name);
	a->text = NULL;
	if (depth == 0)
		k = CUBE;
	else if (up == CUBE && !strcmp(name, "metrics"))
		k = METRICS, a->seen |= 1;
	else if (up == CUBE && !strcmp(name, "program"))
		k = PROGRAM, a->seen |= 2;
	else if (up == CUBE && !strcmp(name, "system"))
		k = SYSTEM, a->seen |= 4;
	else if ((up == METRICS || up == METRIC) && !strcmp(name, "metric"))
		k = METRIC, rc = open_metric(a, depth);
	else if (up == PROGRAM && !strcmp(name, "region"))
		k = REGION, rc = open_region(a, depth);
	else if ((up == PROGRAM || up == CNODE) && !strcmp(name, "cnode"))
		k = CNODE, rc = open_cnode(a, depth, up);
	else if (k == IN_SYSTEM && !strcmp(name, "location") && ++a->c->nloc > a->c->len)
		rc = out_of_proportion(a, a->c->nloc, "locations");
	else if ((s = text_of(a, depth, up, name)) && !*s) {
		if (!(*s = strdup("")))
			return oom(a);
		k = TEXT;
		a->text = s;
		a->text_len = 0;
		a->text_cap = 1;
	}
	a->kind[depth] = k;
	return rc;
}

/* A text node's value appended to the string open. */
static pm_status add_text(struct anchor *a)
{
	const char *t = (const char *)xmlTextReaderConstValue(a->r);
	size_t more = t ? strlen(t) : 0, cap = a->text_cap;

	if (!more)
		return PM_OK;
	/* many pieces (text and CDATA in turn) cost their length, not its
	 * square */
	while (cap - a->text_len <= more)
		cap *= 2;	/* the anchor's text is < 2^31 bytes: no overflow */
	if (cap != a->text_cap) {
		char *s = realloc(*a->text, cap);

		if (!s)
			return oom(a);
		*a->text = s;
		a->text_cap = cap;
	}
	memcpy(*a->text + a->text_len, t, more + 1);
	a->text_len += more;
	return PM_OK;
}

/* The reader's nodes, one by one, into a. */
static pm_status read_nodes(struct anchor *a)
{
	pm_status rc = PM_OK;
	int got = 0;

	for (size_t nodes = 1; !rc && (got = xmlTextReaderRead(a->r)) == 1; nodes++) {
		int type = xmlTextReaderNodeType(a->r), depth = xmlTextReaderDepth(a->r);

		/* a poll costs little next to 4096 nodes */
		if (nodes % 4096 == 0 && pm__stop_requested(a->c->stop))
			return pm__fail_at(a->err, PM_EIO, a->c->name, 0, 0, "interrupted while "
					   "anchor.xml was read (a stop request)");
		if (depth < 0)
			return oom(a);
		/* a DTD could declare entities that expand without bound
		 * when the text is read: CUBE anchors have none */
		if (type == XML_READER_TYPE_DOCUMENT_TYPE)
			return AFAIL(a, "anchor.xml: has a DTD, which CUBE anchors do not");
		if (type == XML_READER_TYPE_ELEMENT) {
			rc = open_element(a, depth, depth ? a->kind[depth - 1] : OTHER);
			if (xmlTextReaderIsEmptyElement(a->r))
				a->text = NULL;
		} else if (type == XML_READER_TYPE_END_ELEMENT) {
			a->text = NULL;
		} else if (a->text && depth > 0 && a->kind[depth - 1] == TEXT &&
			   (type == XML_READER_TYPE_TEXT || type == XML_READER_TYPE_CDATA ||
			    type == XML_READER_TYPE_SIGNIFICANT_WHITESPACE ||
			    type == XML_READER_TYPE_WHITESPACE)) {
			rc = add_text(a);
		}
	}
	if (!rc && got < 0 && a->src.enomem)
		rc = oom(a);
	else if (!rc && got < 0 && a->src.why)
		rc = AFAIL(a, "anchor.xml: %s", a->src.why);
	else if (!rc && got < 0)
		rc = a->xml_msg[0] ? AFAIL(a, "anchor.xml:%d: not XML: %s", a->xml_line, a->xml_msg)
				   : AFAIL(a, "anchor.xml:%d: not XML",
					   xmlTextReaderGetParserLineNumber(a->r));
	return rc;
}

static int cmp_id(const void *x, const void *y)
{
	const long *p = x, *q = y;

	if (p[0] != q[0])
		return p[0] < q[0] ? -1 : 1;
	return (p[1] > q[1]) - (p[1] < q[1]);
}

/* Each call node's region, by its calleeId among the regions sorted by id
 * (of two regions of one id, the first). */
static pm_status resolve_callees(struct anchor *a)
{
	pm_cube *c = a->c;
	long (*by_id)[2] = malloc((c->nregion + 1) * sizeof(*by_id));

	if (!by_id)
		return oom(a);
	for (size_t i = 0; i < c->nregion; i++) {
		by_id[i][0] = a->region_id[i];
		by_id[i][1] = (long)i;
	}
	qsort(by_id, c->nregion, sizeof(*by_id), cmp_id);
	for (size_t i = 0; i < c->ncnode; i++) {
		size_t lo = 0, hi = c->nregion;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (by_id[mid][0] < a->callee[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == c->nregion || by_id[lo][0] != a->callee[i]) {
			free(by_id);
			return AFAIL(a, "anchor.xml: cnode %zu (in document order) has calleeId %ld, "
				     "which is no region's id", i + 1, a->callee[i]);
		}
		c->cnode[i].region = (size_t)by_id[lo][1];
	}
	free(by_id);
	return PM_OK;
}

/* What the stream cannot check as it goes: every part there, every metric
 * and region named and numbered. */
static pm_status check(struct anchor *a)
{
	pm_cube *c = a->c;

	if (a->seen != 7)
		return AFAIL(a, "anchor.xml: not a CUBE anchor (a <cube> with <metrics>, <program> "
			     "and <system>)");
	for (size_t i = 0; i < c->nmetric; i++) {
		struct pm_cube_metric *m = &c->metric[i];

		if ((!m->name && !(m->name = strdup(""))) || (!m->dtype && !(m->dtype = strdup(""))))
			return oom(a);
		if (m->id < 0)
			return AFAIL(a, "anchor.xml: metric '%s' without an id", m->name);
	}
	for (size_t i = 0; i < c->nregion; i++) {
		if (!c->region_name[i] && !(c->region_name[i] = strdup("")))
			return oom(a);
		if (a->region_id[i] < 0)
			return AFAIL(a, "anchor.xml: region '%s' without an id", c->region_name[i]);
	}
	if (!c->nloc || !c->ncnode)
		return AFAIL(a, "anchor.xml: no %s", c->nloc ? "call tree (cnode)"
							: "location in the system tree");
	return resolve_callees(a);
}

/* Each node's children, together in c->children (counting sort by parent). */
static pm_status link_children(struct anchor *a)
{
	pm_cube *c = a->c;
	size_t *fill = calloc(c->ncnode + 1, sizeof(*fill));

	c->children = malloc((c->ncnode + 1) * sizeof(*c->children));
	if (!fill || !c->children) {
		free(fill);
		return oom(a);
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

pm_status pm__cube_anchor(pm_cube *c, const unsigned char *text, size_t len, pm_error *err)
{
	struct anchor a = { .c = c, .err = err };
	/* libxml2's handlers are per thread: this thread's, put back after */
	xmlGenericErrorFunc generic;
	void *generic_ctx;
	pm_status rc;

	a.src = (struct source){ .a = text, .len = len };
	/* Score-P gzips it; other writers may not */
	if (len >= 2 && text[0] == 0x1f && text[1] == 0x8b) {
		if (len > UINT32_MAX)
			return pm__fail_at(err, PM_ESCHEMA, c->name, 0, 0, "anchor.xml: too large");
		a.src.gz = 1;
		a.src.z.next_in = (unsigned char *)(uintptr_t)text;
		a.src.z.avail_in = (uInt)len;
		if (inflateInit2(&a.src.z, 16 + MAX_WBITS) != Z_OK)
			return oom(&a);
	}
	pthread_once(&xml_once, xml_init);
	generic = xmlGenericError;
	generic_ctx = xmlGenericErrorContext;
	xmlSetGenericErrorFunc(NULL, xml_quiet);
	/* no network, no messages of libxml2's own (nothing prints) */
	a.r = xmlReaderForIO(source_read, NULL, &a.src, "anchor.xml", NULL,
			     XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!a.r) {
		rc = oom(&a);
	} else {
		xmlTextReaderSetStructuredErrorHandler(a.r, on_xml_error, &a);
		if (!(rc = read_nodes(&a)) && !(rc = check(&a)))
			rc = link_children(&a);
		xmlFreeTextReader(a.r);
	}
	xmlSetGenericErrorFunc(generic_ctx, generic);
	if (a.src.gz)
		inflateEnd(&a.src.z);
	free(a.region_id);
	free(a.callee);
	return rc;
}
