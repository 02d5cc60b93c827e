/* Runs aggregated into configurations (lib/data/aggregate.c): what every
 * reader's rows go through before a fit. Private to the libraries. */
#ifndef PM_DATA_AGGREGATE_H
#define PM_DATA_AGGREGATE_H

#include "perfmodel/ingest.h"

/*
 * Every run of d as it should be fitted (lib/data/aggregate.c): the throughput
 * column replaced by o->target = per / throughput (o->per NULL: 1 /
 * throughput) when o->throughput is set,
 * then, unless method is PM_AGG_NONE, the rows grouped into configurations
 * (equal text in every key column; o->key, or every column but the target),
 * the first o->drop_first runs of each dropped, and one row per
 * configuration (in order of first appearance) holding its key columns and
 * the aggregated target. `target` is the time column (not NULL when
 * aggregating or converting). *out is NULL when nothing had to change (d
 * stands as it is). info->aggregated, runs, dropped, reps, cv and the cv
 * summary are filled. Errors name the cell: a target, throughput or per cell
 * that is not a number > 0 (a target of 0 is a run too with zero_ok, for
 * metrics that may be counts), a configuration with no run left; PM_ESCHEMA
 * for a missing column or a throughput column whose target already exists.
 */
pm_status pm__dataset_aggregate(const pm_dataset *d, const pm_read_options *o,
				const char *target, pm_aggregate method, int zero_ok,
				pm_dataset **out, pm_read_info *info, pm_error *err);

#endif
