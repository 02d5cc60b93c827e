/* A small JSON writer into a growing buffer: every JSON document the library
 * and the CLI print is written with it. Doubles are printed with the fewest
 * digits (15 to 17) that read back bit-exact (cJSON's printer rounds); NaN
 * and infinities, which JSON lacks, are written as null. Errors are sticky:
 * after an allocation failure every call is a no-op and pm__jw_finish says
 * so.
 *
 * Layout: pretty-printed, one member or element per line with a 2-space
 * indent, short arrays of numbers on one line; or, inside a container opened
 * with a _begin_line function, everything on one line ({"a": 1, "b": [2]}),
 * for documents read a record per line, with line breaks only where
 * pm__jw_break asks for them. */
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
	int line_from;	/* depth of the outermost one-line container; 0: none open */
	int brk;	/* 1 + the indent of the line break before the next value; 0: none */
	int flat;	/* set by the caller: pm__jw_break is a no-op (a document on one line) */
} pm_jw;

void pm__jw_init(pm_jw *w);
/* The start of a pm_..._to_json function: w initialised, and *out = NULL
 * when out is not NULL. PM_EINVAL when out is NULL ("no place for the
 * document") or not `given` (its inputs are missing: "no WHAT"). */
pm_status pm__jw_start(pm_jw *w, char **out, int given, const char *what, pm_error *err);
void pm__jw_object_begin(pm_jw *w);
void pm__jw_object_end(pm_jw *w);
void pm__jw_array_begin(pm_jw *w);
void pm__jw_array_end(pm_jw *w);
/* Open a container written on one line with everything in it: values
 * separated by ", ", no break after the bracket or before its end. */
void pm__jw_object_begin_line(pm_jw *w);
void pm__jw_array_begin_line(pm_jw *w);
/* Inside a one-line container: the next member or element goes on a new
 * line indented by `indent` spaces (after the comma, if one is due); not
 * when w->flat is set, for lines that must stay one (perfmodel batch's).
 * Elsewhere, or an indent outside [0, 100], a misuse. */
void pm__jw_break(pm_jw *w, int indent);
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
