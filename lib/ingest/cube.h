/* CUBE4 profiles (.cubex, as Score-P writes them; lib/ingest/cube.c): a
 * metric's values of one call path at every location. Private to the
 * libraries; docs/formats.md "CUBE profiles" says what is read and from
 * which sources the layout was checked. */
#ifndef PM_CUBE_H
#define PM_CUBE_H

#include <signal.h>
#include <stddef.h>

#include "perfmodel/perfmodel.h"

typedef struct pm_cube pm_cube;

/* The archive buf[0, len) of file `name`: its anchor.xml (plain or gzip)
 * read, the metric data left for pm__cube_values. buf must outlive *out.
 * stop: NULL, or polled while the anchor is read (PM_EIO "interrupted").
 * Errors: PM_ESCHEMA naming what is wrong (a tar member past the file's
 * end, no anchor.xml, XML that is not a CUBE anchor); PM_EINVAL "built
 * without CUBE support" when libxml2 or zlib was missing at build time;
 * PM_ENOMEM. */
pm_status pm__cube_parse(const unsigned char *buf, size_t len, const char *name,
			 const volatile sig_atomic_t *stop, pm_cube **out, pm_error *err);
void pm__cube_free(pm_cube *c);

/* The values of `metric` (uniq_name; NULL: "time") of the call path
 * `callpath` ("main->mat_mul": region names from the root, as Extra-P names
 * them; NULL: the profile must have one call path) at each of the *nloc
 * locations, into *vals (owned): exclusive (the call path's own, as
 * Extra-P) or inclusive (with its callees). Call nodes of the same path are
 * summed. A metric's values are read (inflated) at its first call and kept
 * in c for the next. Errors name the metric or call path and list some that exist;
 * PM_ESCHEMA for data that does not match the anchor; PM_ENOMEM. */
pm_status pm__cube_values(pm_cube *c, const char *metric, const char *callpath,
			  int inclusive, double **vals, size_t *nloc, pm_error *err);

/* Whether a call node of c has the path `callpath` (as pm__cube_values
 * names it): 1, 0, or -1 when out of memory. */
int pm__cube_has_callpath(pm_cube *c, const char *callpath);

/* What a profile holds (perfmodel inspect, batch --each-region): its
 * locations, its metrics and its call nodes, in preorder. */
size_t pm__cube_nlocations(const pm_cube *c);
size_t pm__cube_nmetrics(const pm_cube *c);
size_t pm__cube_ncnodes(const pm_cube *c);
/* Metric i (< pm__cube_nmetrics): its uniq_name, type ("EXCLUSIVE",
 * "INCLUSIVE" or "OTHER"), dtype, and why pm__cube_values cannot read it
 * (NULL: it can). The strings are c's or static. */
typedef struct pm_cube_metric_info {
	const char *name, *type, *dtype, *unreadable;
} pm_cube_metric_info;
pm_cube_metric_info pm__cube_metric(const pm_cube *c, size_t i);
/* Call node i's path as --callpath names it ("main->mat_mul") into *out
 * (owned) and its *depth (0: a root). PM_ESCHEMA for a path longer than
 * PM_CUBE_MAX_PATH bytes; PM_ENOMEM. */
#define PM_CUBE_MAX_PATH 65536
pm_status pm__cube_callpath(const pm_cube *c, size_t i, char **out, size_t *depth,
			    pm_error *err);

#endif
