/* Reading our JSON files (model.json, specs, predict configs) with cJSON.
 * Private to the libraries; part of libperfmodel-predict, so cJSON only.
 *
 * Errors carry the file name in err->file (the CLI prints FILE:LINE:COL:);
 * parse errors have a 1-based line and column, schema errors have none
 * because cJSON keeps no positions, so their messages say which object
 * ("inputs[2]: 'role' must be a string"). */
#ifndef PM_JSON_READ_H
#define PM_JSON_READ_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "core/error.h"
#include "perfmodel/predict.h"
#include "core/read_file.h"

/* Deeper documents are rejected: none of our formats needs more than a few
 * levels, and the readers recurse. */
#define PM_JSON_MAX_DEPTH 64



/* Parse len bytes of JSON (text[len] need not be NUL). On success *out owns
 * the tree (cJSON_Delete). PM_EPARSE "invalid JSON" with err->file = name and
 * the 1-based line and column of the error, also for a NUL byte, text after
 * the document, or nesting deeper than PM_JSON_MAX_DEPTH. PM_ENOMEM (also
 * when cJSON fails on text that is valid: see json_valid.h). cJSON
 * records the position of a failure in a global of its own; we do not read
 * it (its return_parse_end gives the same, per call). */
pm_status pm__json_parse(const char *text, size_t len, const char *name, cJSON **out,
			 pm_error *err);

/* cJSON keeps both members of {"a": 1, "a": 2} and a reader would silently
 * take one. PM_OK when every object in node's tree has distinct keys, else
 * PM_ESCHEMA "duplicate key 'a'" (err->file = name), or PM_ENOMEM. Sorted:
 * an object of n keys costs n log n. For readers that take members by
 * name without the getters below (which check their own key). */
pm_status pm__json_distinct_keys(const cJSON *node, const char *name, pm_error *err);

/* Typed access to the members of an object, for the readers. Every getter
 * fails with PM_ESCHEMA, err->file = name and a message prefixed by
 * "WHERE: " when where is not NULL: "missing 'key'", "'key' must be a
 * string", and "duplicate key 'key'" (cJSON keeps both; we would silently
 * read one). Nothing is copied: strings belong to the tree. */
typedef struct pm_jctx {
	const char *name;	/* labels errors: the file, or "<input>" */
	const char *where;	/* the object being read ("inputs[2]"), NULL at the top */
	pm_error *err;
} pm_jctx;

/* A schema error in the context (code is usually PM_ESCHEMA). */
pm_status pm__json_fail(const pm_jctx *c, pm_status code, const char *fmt, ...)
	PM_PRINTF(3, 4);

/* The member `key` of obj (an object), case-sensitive. Absent: *item = NULL
 * and PM_OK when !required, else "missing 'key'". */
pm_status pm__json_item(const pm_jctx *c, const cJSON *obj, const char *key, int required,
			const cJSON **item);
/* An object or array member; *out NULL when absent and !required. */
pm_status pm__json_object(const pm_jctx *c, const cJSON *obj, const char *key, int required,
			  const cJSON **out);
pm_status pm__json_array(const pm_jctx *c, const cJSON *obj, const char *key, int required,
			 const cJSON **out, size_t *n);
/* Required members of one type. A number must be finite ("1e999" is not);
 * number_or_null reads null as NaN (our writer's NaN). */
pm_status pm__json_string(const pm_jctx *c, const cJSON *obj, const char *key,
			  const char **out);
pm_status pm__json_number(const pm_jctx *c, const cJSON *obj, const char *key, double *out);
/* A required string member copied into out[size]; PM_ESCHEMA when it is
 * size bytes or longer. */
pm_status pm__json_fixed(const pm_jctx *c, const cJSON *obj, const char *key, char *out,
			 size_t size);
pm_status pm__json_number_or_null(const pm_jctx *c, const cJSON *obj, const char *key,
				  double *out);
pm_status pm__json_bool(const pm_jctx *c, const cJSON *obj, const char *key, int *out);
/* A whole number in 0..max: a JSON number (exact up to 2^53) or a string of
 * decimal digits, which is how our writers keep larger 64-bit values exact. */
pm_status pm__json_uint(const pm_jctx *c, const cJSON *obj, const char *key, uint64_t max,
			uint64_t *out);
/* A string that is one of names[0..] (NULL-terminated); *out is its index. */
pm_status pm__json_enum(const pm_jctx *c, const cJSON *obj, const char *key,
			const char *const *names, int *out);

#endif
