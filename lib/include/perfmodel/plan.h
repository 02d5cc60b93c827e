/*
 * perfmodel/plan.h — which runs to measure next (perfmodel plan, issue 37):
 * from what was measured, the configurations one could run and those whose
 * predictions matter, the candidates to run, in order, that shrink the
 * targets' uncertainty most per unit of cost (docs/plan.md). Included by
 * perfmodel.h; the conventions there hold.
 */
#ifndef PERFMODEL_PLAN_H
#define PERFMODEL_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include "perfmodel/predict.h"
#include "perfmodel/dataset.h"
#include "perfmodel/spec.h"
#include "perfmodel/fit.h"
#include "perfmodel/select.h"
#include "perfmodel/pipeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What to plan. Strings are only read, during the call. */
typedef struct pm_plan_options {
	/* picks at most; 0: no limit (then budget must be given) */
	unsigned count;
	/* total cost of the picks at most; 0: none. Given, it must cover the
	 * cheapest candidate (else PM_EINVAL "no budget left") */
	double budget;
	/* the candidates' column of costs (finite, > 0); NULL: each
	 * candidate's predicted time, times cost_scale's value when given
	 * (not both) */
	const char *cost_column;
	const char *cost_scale;
	/* refits on bootstrap resamples of the measured configurations whose
	 * disagreement measures the uncertainty (2 to 1000); with the form
	 * chosen among candidates, shared among the forms (pm_plan.forms) */
	unsigned members;
	uint64_t seed;		/* of the resamples */
} pm_plan_options;

/* count 5, no budget, cost = predicted time, 16 members, seed 1. */
PM_API pm_plan_options pm_plan_options_default(void);

/* One candidate to run, in the order picked. */
typedef struct pm_plan_pick {
	size_t row;		/* its row in the candidates (0-based) */
	double cost;
	/* how much this run is expected to shrink the targets' uncertainty,
	 * after the picks before it: 1 - sqrt(V_after / V_before), V the
	 * targets' summed variance of log time among the refits (0 to 1) */
	double gain;
	double predicted;	/* the fit's prediction, in the model's quantity */
	double spread;		/* its std of log prediction among the refits, before any pick */
	/* its measurement's std on log scale as the fit will weigh it: the
	 * plan's noise, times median measured / predicted time scale under the
	 * absolute losses (mae, mse; the time scale of a speedup S is 1/S, of
	 * an efficiency 1/(n E), of a throughput 1/X or per/X: docs/plan.md) */
	double noise;
} pm_plan_pick;

/* A form the refits came from (docs/plan.md): the fit's own, or another
 * the automatic choice measured, fitted to every row with its loss. */
typedef struct pm_plan_form {
	char form[64];		/* as the model's choice records it: "additive", "discover", ... */
	pm_loss loss;
	unsigned members;	/* its refits that succeeded */
} pm_plan_form;

/* Where a dropped candidate's configuration was seen first. */
typedef enum pm_plan_repeats {
	PM_PLAN_IN_DATA,	/* a measured row of the data */
	PM_PLAN_IN_TEST,	/* a measured row of the test file (--test) */
	PM_PLAN_IN_CANDIDATES	/* an earlier candidate */
} pm_plan_repeats;

/* "data", "test", "candidates"; NULL for no such value. */
PM_API const char *pm_plan_repeats_name(pm_plan_repeats where);

/* A plan. Owned by itself: pm_plan_free frees it all (NULL: no-op). */
typedef struct pm_plan {
	pm_model *model;		/* the fit to every measured row */
	pm_dataset *candidates;		/* as read */
	pm_dataset *targets;
	size_t npicks;
	pm_plan_pick *picks;
	/* candidate rows left out: equal to a measured configuration (a row
	 * of the data or of the test file) or to an earlier candidate, with
	 * the line each repeats, in the file dropped_in[k] names */
	size_t ndropped;
	size_t *dropped, *dropped_match;
	pm_plan_repeats *dropped_in;
	char *data_name, *test_name;	/* the files measured rows come from (test: NULL if none) */
	unsigned members;	/* refits that succeeded (of options.members) */
	/* the forms they came from, the fit's first; more than one only when
	 * the form was chosen among candidates */
	size_t nforms;
	pm_plan_form *forms;
	double noise;		/* the measurements' std on log scale (>= 0.001) */
	/* the targets' rms std of log prediction among the refits, before
	 * and expected after the picks */
	double spread_before, spread_after;
	double total_cost;
	pm_plan_options options;	/* as given (strings not kept: NULL) */
} pm_plan;

PM_API void pm_plan_free(pm_plan *p);

/* perfmodel plan: fit src's rows as pm_fit_file does (ncand > 0: choose
 * the form among cand[0..ncand) by v first, as pm_select_file does), read
 * the candidates and targets (CSV files with the model's inputs; other
 * columns ignored), then refit po->members bootstrap resamples of the
 * measured configurations (rows of equal inputs drawn together, within
 * each combination of categorical levels; each refit warm-started from the
 * fit, seeded by po->seed: the same bits for any thread count) and pick
 * candidates greedily by expected gain per cost (docs/plan.md), while the
 * picks' summed cost is at most the budget to 1e-12 relative. Candidates
 * equal to a measured configuration (a row of src's data or test file) or
 * to an earlier candidate are left out (dropped); only the kept ones'
 * costs are read. On success *out owns the plan; on failure it is NULL.
 * Errors: PM_EINVAL (a NULL argument, cost_column and cost_scale together,
 * no count and no budget, members out of range, a target equal to a
 * measured row, naming both, every candidate measured, no budget left,
 * default costs for a model that does not predict a time, fewer than 2
 * measured configurations); PM_ESCHEMA (a file without an input column, a
 * cost column that is absent); PM_EDOMAIN (an unknown level, a cost that
 * is not a finite number > 0, each at FILE:LINE:COL); PM_EFIT (fewer than
 * 2 refits succeeded, the refits agree at the targets: rms spread under
 * 1e-4 on log scale, or interrupted by o->stop, during any refit); those
 * of pm_fit_file,
 * pm_select_file and pm_dataset_read_csv; PM_ENOMEM. */
PM_API pm_status pm_plan_file(const pm_source *src, const pm_spec *s, const pm_fit_options *o,
			      const pm_candidate *cand, size_t ncand, const pm_validation *v,
			      const char *candidates_path, const char *targets_path,
			      const pm_plan_options *po, pm_plan **out, pm_error *err);

/* The picks as CSV: the candidates' columns (but one named "cost" or
 * "gain"), then cost and gain, one row per pick in order; numbers read
 * back bit-exact, whatever the locale. *out owns the text. PM_EINVAL (no
 * plan), PM_ENOMEM. */
PM_API pm_status pm_plan_to_csv(const pm_plan *p, char **out, pm_error *err);
/* The plan as one JSON document (docs/json.md, "plan"). As above. */
PM_API pm_status pm_plan_to_json(const pm_plan *p, char **out, pm_error *err);

#ifdef __cplusplus
}
#endif
#endif
