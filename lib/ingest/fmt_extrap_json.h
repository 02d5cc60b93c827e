/* What Extra-P's JSON layouts and JSON Lines share (lib/ingest/fmt_extrap_runs.c):
 * the columns, the runs of one point, and choosing a region and a metric
 * run by run. Private to the libraries. */
#ifndef PM_FMT_EXTRAP_JSON_H
#define PM_FMT_EXTRAP_JSON_H

#include <stddef.h>

#include "core/json_read.h"
#include "data/table.h"

#define PM_EXTRAP_MAX_PARAMS 64
/* Extra-P's names for a JSON Lines line without "callpath" or "metric" */
#define PM_EXTRAP_DEFAULT_CALLPATH "<root>"
#define PM_EXTRAP_DEFAULT_METRIC "<default>"

/* t's columns: names[0, np) then PM_INGEST_TIME_COLUMN, written to
 * names[np] (names has np + 1 places and must outlive t). */
void pm__extrap_columns(pm_table *t, const char **names, size_t np);

/* One run per value: the np coordinates (numbers, or strings: levels) then
 * the value (a number >= 0: a time or a count). values is an array of them
 * (a run each; not empty) or one value. coord_what and value_what name them
 * in the errors ("each param must be a number or a string", "value[2] must
 * be a number >= 0", "'value' must be a number >= 0", "'values' is empty"). */
pm_status pm__extrap_runs(const pm_jctx *c, pm_table *t, const cJSON *const *coord, size_t np,
			  const cJSON *values, const char *coord_what, const char *value_what);

/* Choosing the region (callpath) and metric of runs listed one by one. */
typedef struct pm_extrap_choice {
	const char *want[2];	/* region and metric asked for; NULL: the only one */
	char *seen[2];		/* the first taken run's, when not asked for (owned) */
} pm_extrap_choice;

/* *take: whether a run of region name[0] and metric name[1] is read. An
 * error, when one was not asked for and an earlier run taken had another:
 * "the file has more than one region ('a', 'b'): choose one with --region". */
pm_status pm__extrap_take(const pm_jctx *c, pm_extrap_choice *ch, const char *const name[2],
			  int *take);
/* After the last run: an error when a region or metric was asked for and
 * no run (`unit`: line, measurement) had them. */
pm_status pm__extrap_taken_any(const pm_extrap_choice *ch, const pm_table *t, const char *name,
			       const char *unit, pm_error *err);
void pm__extrap_choice_free(pm_extrap_choice *ch);

/* Every point of the file, of any region and metric, and whether the chosen
 * region and metric measured it: Extra-P refuses a file in which some
 * region's or metric's measurements miss a point (io_helper's
 * validate_experiment), and a point left out would otherwise pass unseen. */
typedef struct pm_extrap_points {
	struct pm_extrap_point *p;
	size_t n, cap;
} pm_extrap_points;

/* Note the point coord[0, np) (numbers or strings; other values are left to
 * pm__extrap_runs), measured by the chosen ones or not (taken), `where` it
 * is listed ("line 7", "measurements.a.time[2]"). */
pm_status pm__extrap_point(pm_extrap_points *ps, const cJSON *const *coord, size_t np,
			   int taken, const char *where, pm_error *err);
/* After the file: PM_ESCHEMA naming a point that some listing has but no
 * run taken (when any was), "point (2, 1000) of line 7 has no measurement
 * of region 'a' and metric 'time'". */
pm_status pm__extrap_points_check(pm_extrap_points *ps, const pm_extrap_choice *ch,
				  const pm_table *t, const char *name, pm_error *err);
void pm__extrap_points_free(pm_extrap_points *ps);

/* Extra-P's older, id-based JSON layout (lib/ingest/fmt_extrap_json_ids.c): the
 * runs of root (an object) of region and metric (NULL: the only one) into
 * t, whose columns are named in names (PM_EXTRAP_MAX_PARAMS + 1 places). */
pm_status pm__read_extrap_json_ids(pm_jctx *c, const cJSON *root, const char *region,
				   const char *metric, const char **names, pm_table *t);

#endif
