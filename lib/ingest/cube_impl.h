/* The parts of a CUBE profile (ingest/cube.h) shared by its readers: the
 * archive (cube_archive.c: tar members, zlib), the anchor (cube_anchor.c:
 * metrics, regions, call tree, locations) and the values (cube.c). Only
 * built with libxml2 and zlib (PM_HAVE_CUBE). */
#ifndef PM_CUBE_IMPL_H
#define PM_CUBE_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "core/strindex.h"
#include "ingest/cube.h"

/* zlib's deflate compresses at most about 1032-fold */
#define PM_CUBE_MAX_RATIO 1100u

enum { PM_CUBE_EXCLUSIVE, PM_CUBE_INCLUSIVE, PM_CUBE_OTHER };

struct pm_cube_metric {
	char *name, *dtype;
	long id;
	int type;		/* PM_CUBE_EXCLUSIVE, _INCLUSIVE or _OTHER */
};

struct pm_cube_cnode {
	size_t region, parent;	/* parent SIZE_MAX: a root */
	size_t nchild, child;	/* children: children[child .. child + nchild) */
};

struct pm_cube_data;

struct pm_cube {
	const char *name;
	const unsigned char *buf;
	size_t len;
	const volatile sig_atomic_t *stop;	/* pm__cube_parse's */
	struct pm_cube_metric *metric;
	size_t nmetric;
	pm__strindex metric_by_name;	/* built at the first look-up */
	char **region_name;
	size_t nregion;
	struct pm_cube_cnode *cnode;	/* in preorder: document order */
	size_t ncnode;
	size_t *children;	/* every node's children, each node's together */
	/* (path hash, call node) sorted: call nodes by their path, built at
	 * the first look-up; NULL until then */
	uint64_t (*by_path)[2];
	size_t nloc;
	/* per metric: its values once pm__cube_values has read them, so that
	 * the many call paths of one profile (pm__read_cube_pairs) inflate
	 * them once; NULL until then */
	struct pm_cube_data *data;
};

/* The regular file `want` of c's archive: *data and *size, or *data NULL
 * when there is none. PM_ESCHEMA for a header or size that does not fit. */
pm_status pm__cube_tar_find(const pm_cube *c, const char *want, const unsigned char **data,
			    size_t *size, pm_error *err);

/* Inflate the zlib stream src[0, n) into out[0, cap): *got bytes. More
 * than cap is an error naming `what`, as is a stream that does not end. */
pm_status pm__cube_inflate(const pm_cube *c, const unsigned char *src, size_t n,
			   unsigned char *out, size_t cap, size_t *got, const char *what,
			   pm_error *err);

/* The anchor a[0, len) (plain, or gzip as Score-P writes it) into c: its
 * metrics, regions, call tree (each node's region found through the
 * regions sorted by id) and number of locations, inflated and read as a
 * stream: no copy of the text, no document tree, so that memory grows
 * with what is kept, not with the anchor. Errors PM_ESCHEMA name
 * anchor.xml and, for XML that is not well-formed, its line and libxml2's
 * reason. */
pm_status pm__cube_anchor(pm_cube *c, const unsigned char *a, size_t len, pm_error *err);

#endif
