/* A small JSON writer into a growing buffer. Doubles are printed with %.17g
 * so that they read back bit-exact (cJSON's printer rounds); NaN and
 * infinities, which JSON lacks, are written as null. Errors are sticky: after
 * an allocation failure every call is a no-op and pm__jw_finish says so. */
#ifndef PM_JSONW_H
#define PM_JSONW_H

#include <stddef.h>
#include <stdint.h>
#include "perfmodel/predict.h"

typedef struct pm_jw {
	char *buf;
	size_t len, cap;
	int depth;
	int need_comma;	/* a value was written at this depth */
	int after_key;
	int failed;
} pm_jw;

void pm__jw_init(pm_jw *w);
void pm__jw_object_begin(pm_jw *w);
void pm__jw_object_end(pm_jw *w);
void pm__jw_array_begin(pm_jw *w);
void pm__jw_array_end(pm_jw *w);
void pm__jw_key(pm_jw *w, const char *key);	/* inside an object, before its value */
void pm__jw_string(pm_jw *w, const char *s);	/* escaped; NULL writes null */
void pm__jw_double(pm_jw *w, double v);
void pm__jw_int(pm_jw *w, int64_t v);
void pm__jw_uint(pm_jw *w, uint64_t v);
void pm__jw_bool(pm_jw *w, int v);
void pm__jw_null(pm_jw *w);
/* n members keys[i]: v[i] of the open object, for rows of numbers. */
void pm__jw_doubles(pm_jw *w, const char *const *keys, const double *v, size_t n);
/* On success *out owns the NUL-terminated text (pretty-printed, 2-space
 * indent, trailing newline); on failure (PM_ENOMEM) everything is freed. */
pm_status pm__jw_finish(pm_jw *w, char **out, pm_error *err);

#endif
